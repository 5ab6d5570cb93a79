//! The shared node heap of the split-based real searches (DTS-like, PV
//! splitting, work stealing, active splitting): the thesis's model of the
//! search (§6.2) on OS threads.
//!
//! Every node with at least [`FRONTIER`] plies below it is a heap node
//! ([`HNode`]): reference-counted, linked to its parent, its move list,
//! window, score and the scheme's data under its own lock. A thread at a
//! heap node takes its next move under the lock and searches that child:
//! a heap node again, or below the frontier the plain alpha-beta of
//! [`super::seq::ab`]. When the child's value is known the thread returns
//! it to the node; the thread that finishes a node's last outstanding move
//! (or finds a cut-off) completes the node and carries its value up to the
//! parent, and a thread that finds no move left at a node others still
//! work below goes idle. Nobody waits for a helper, so any thread may join
//! any node that still has moves: which one is the algorithm's idle policy
//! (a [`HeapPolicy`], in each policy's file of [`crate::policy`], with its own state per
//! thread, per node and shared), and which nodes may be shared is the
//! split-point scheme's ([`SplitScheme`], the simulator's own rules). The
//! heap knows no policy by name.
//!
//! **Windows.** A child's window comes from its parent's score when the
//! move is handed out; before each move it takes, a thread tightens the
//! node's window from its parent's current score, so bounds found by other
//! threads reach nodes already under way (one level each time, every level
//! in turn). A node whose window closes is finished at once, as a cut-off.
//! **Cut-offs.** A finished node is marked done; threads below it notice
//! at their next move (a walk up the parents' done flags) and go idle; a
//! value returned to a done node is dropped. **The root's move** is the
//! first move in search order with the best value, as in the sequential
//! search (the root's tie rule, [`Best`], one with Lazy SMP's).
//!
//! Locks are taken one at a time (a node's parent before the node, never
//! while holding it), except the idle policies' own locks, which are taken
//! before a node's (`dts`, `pvsplit`) or while holding it (`active`'s idle
//! set and mailboxes), never the other way round.

use super::local::{Local, PanicFlag, join_all, outcome};
use super::record::SpanKind;
use super::{Measured, Options, RealError};
use crate::game::{MoveList, TreeSource};
use crate::schemes::{SplitScheme, View};
use crate::value::{Best, Window};
use std::sync::atomic::{AtomicBool, Ordering::*};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Plies a node needs below it to be a heap node. Below, a node's subtree
/// is searched by one thread without locks: at depth 1 that is one node and
/// its leaves, some `b` microseconds at `--node-cost 1000`.
pub const FRONTIER: u32 = 2;

/// A node of the shared heap: `D` the scheme's data, `P` the idle policy.
pub struct HNode<S: TreeSource, D, P: HeapPolicy<S, D>> {
    /// The tree's node.
    pub node: S::Node,
    /// The parent (none at the root).
    pub parent: Option<NodeRef<S, D, P>>,
    /// Plies below it.
    pub depth: u32,
    /// Distance from the root.
    pub ply: u32,
    /// 1-based position among its siblings (0 at the root).
    pub index: u32,
    /// A MAX node.
    pub max: bool,
    /// On the PV path.
    pub pv: bool,
    /// Finished (its value went up), or abandoned under a finished ancestor.
    pub done: AtomicBool,
    /// What its lock guards.
    pub st: Mutex<HState<S, D, P>>,
}

/// A heap node's state under its lock.
pub struct HState<S: TreeSource, D, P: HeapPolicy<S, D>> {
    buf: Vec<S::Slot>,
    cursor: S::Cursor,
    /// Children.
    pub moves: u32,
    /// Moves handed out.
    pub handed: u32,
    /// Moves whose value came back.
    pub finished: u32,
    busy: u32,
    window: Window,
    /// The score and the move that set it.
    best: Best,
    /// The scheme's data.
    pub data: D,
    /// The idle policy's data.
    pub policy: P::NodeState,
}

impl<S: TreeSource, D, P: HeapPolicy<S, D>> HNode<S, D, P> {
    /// Whether no ancestor is done (the node's work is still wanted).
    pub fn alive(&self) -> bool {
        let mut p = &self.parent;
        while let Some(n) = p {
            if n.done.load(Acquire) {
                return false;
            }
            p = &n.parent;
        }
        true
    }

    /// Whether a thread could take a move here now (read under the lock).
    pub fn open(&self, st: &HState<S, D, P>) -> bool {
        st.handed < st.moves && !self.done.load(Acquire)
    }

    /// What a scheme sees of the node.
    pub fn view(&self, st: &HState<S, D, P>) -> View {
        View { ply: self.ply, pv: self.pv, index: self.index, max: self.max, finished: st.finished, left: st.moves - st.handed }
    }

    /// The window of child `index` from the node's current score.
    fn child_window(&self, st: &HState<S, D, P>, index: u32) -> Window {
        if self.ply == 0 { st.best.root_window(st.window, index) } else { st.window.child(self.max, st.best.score) }
    }
}

/// An idle policy of the split-based searches: how an idle thread finds a
/// node to join, and what a working thread does for the idle ones. One
/// implementation per policy, in each policy's file of [`crate::policy`] (whose
/// [`RealSearch`](super::RealSearch) calls [`run`] with itself).
/// The policy's parameters are the implementing type; its state is its
/// own, in three parts.
pub trait HeapPolicy<S: TreeSource, D>: Sized {
    /// What every thread of a search shares (the split-point variable, the
    /// published nodes, the deques' far ends, the idle set).
    type Shared;
    /// What each thread keeps (its own deque).
    type ThreadState;
    /// What each heap node keeps, under the node's lock (a new node's is
    /// the default).
    type NodeState: Default;

    /// The shared part and the part of each of `threads` threads, for the
    /// tree whose root has the key `root_key`.
    fn start(&self, threads: usize, root_key: u64) -> (Self::Shared, Vec<Self::ThreadState>);

    /// A thread at `x` (locked in `st`) is about to hand out a move with
    /// more left: the policy may offer the node to idle threads.
    fn share<Sc: SplitScheme<Data = D>>(_sh: &Shared<'_, S, Sc, Self>, _th: &mut Thread<S, D, Self>, _x: &NodeRef<S, D, Self>, _st: &mut HState<S, D, Self>) {}

    /// A thread at `x` made child `child` a heap node (neither locked).
    fn made(_th: &mut Thread<S, D, Self>, _x: &NodeRef<S, D, Self>, _child: &NodeRef<S, D, Self>) {}

    /// An idle thread looks for a node to join.
    fn find<Sc: SplitScheme<Data = D>>(sh: &Shared<'_, S, Sc, Self>, th: &mut Thread<S, D, Self>) -> Option<NodeRef<S, D, Self>>;
}

/// What every thread of one search shares.
pub struct Shared<'a, S: TreeSource, Sc: SplitScheme, P: HeapPolicy<S, Sc::Data>> {
    /// The tree.
    pub src: &'a S,
    /// The split-point rules.
    pub scheme: &'a Sc,
    /// Threads.
    pub threads: usize,
    /// The root, once thread 0 made it.
    pub root: std::sync::OnceLock<NodeRef<S, Sc::Data, P>>,
    /// The search is over (or a thread panicked).
    pub over: AtomicBool,
    result: Mutex<Option<(i64, u32)>>,
    /// The idle policy's shared part.
    pub policy: P::Shared,
}

/// One thread: its counters, its scratch buffer, and the idle policy's part.
pub struct Thread<S: TreeSource, D, P: HeapPolicy<S, D>> {
    /// Counters and clock.
    pub l: Local,
    buf: Vec<S::Slot>,
    /// The idle policy's part.
    pub policy: P::ThreadState,
}

/// A heap node as threads and policies hold it.
pub type NodeRef<S, D, P> = Arc<HNode<S, D, P>>;
type Node<S, Sc, P> = NodeRef<S, <Sc as SplitScheme>::Data, P>;

impl<S: TreeSource, Sc: SplitScheme, P: HeapPolicy<S, Sc::Data>> Shared<'_, S, Sc, P> {
    /// Whether `x` (locked in `st`) is an eligible split point, with its
    /// progress (the scheme's rule).
    pub fn eligible(&self, x: &HNode<S, Sc::Data, P>, st: &HState<S, Sc::Data, P>) -> Option<i64> {
        self.scheme.eligible(&x.view(st), &st.data)
    }
}

impl<'a, S: TreeSource, Sc: SplitScheme, P: HeapPolicy<S, Sc::Data>> Shared<'a, S, Sc, P>
where
    Sc::Data: Send + Sync,
{
    /// A heap node for `node`, or its value when it has no moves (a game over).
    #[allow(clippy::too_many_arguments)]
    fn make(
        &self,
        node: S::Node,
        parent: Option<Node<S, Sc, P>>,
        depth: u32,
        ply: u32,
        index: u32,
        max: bool,
        pv: bool,
        window: Window,
        data: Sc::Data,
    ) -> Result<Node<S, Sc, P>, i64> {
        let mut buf = vec![S::Slot::default(); self.src.slots()];
        let m = self.src.moves(&node, max, &mut buf);
        let moves = m.len();
        if moves == 0 {
            return Err(self.src.terminal_value(&node, max, ply));
        }
        let cursor = self.src.detach(m);
        let st = HState {
            buf,
            cursor,
            moves,
            handed: 0,
            finished: 0,
            busy: 0,
            window,
            best: Best::new(if max { window.alpha } else { window.beta }),
            data,
            policy: P::NodeState::default(),
        };
        Ok(Arc::new(HNode { node, parent, depth, ply, index, max, pv, done: AtomicBool::new(false), st: Mutex::new(st) }))
    }

    /// Searches from heap node `x` until there is nothing left to do there
    /// (or above it) for this thread; whether it took any move (a node
    /// found with none left is no work, and the thread stays idle).
    pub fn work_at(&self, th: &mut Thread<S, Sc::Data, P>, x: Node<S, Sc, P>) -> bool {
        let mut cur = x;
        let mut worked = false;
        'node: loop {
            th.l.jitter();
            // The parent's current bound for this node (module docs: windows).
            let bound = cur.parent.as_ref().map(|p| {
                let ps = th.l.lock(&p.st);
                p.child_window(&ps, cur.index)
            });
            let mut g = th.l.lock(&cur.st);
            let st = &mut *g;
            if !cur.open(st) || !cur.alive() {
                return worked;
            }
            if let Some(b) = bound {
                st.window = st.window.meet(b);
                // The score moves with the window's end on the node's side;
                // a window it closes is a cut-off, worth the other end.
                let w = st.window.raise(cur.max, st.best.score);
                st.best.score = if cur.max { w.alpha } else { w.beta };
                if w.closed() {
                    let v = w.value(cur.max);
                    cur.done.store(true, Release);
                    drop(g);
                    match self.up(th, &cur, v) {
                        Some(n) => {
                            cur = n;
                            continue 'node;
                        }
                        None => return true,
                    }
                }
            }
            // Hand out the next move.
            worked = true;
            let index = st.handed + 1;
            let window = cur.child_window(st, index);
            if st.handed + 1 < st.moves {
                // Moves will be left for others: the policy may share the node.
                P::share(self, th, &cur, st);
            }
            st.handed += 1;
            st.busy += 1;
            let child_max = !cur.max;
            let data = self.scheme.child(&cur.view(st), &st.data, index, child_max, window);
            let mut m = self.src.resume(st.cursor, &mut st.buf);
            let Some(k) = m.next() else {
                // `handed < moves` was checked: the move list has this move.
                unreachable!("a move list shorter than its length");
            };
            let child = if cur.depth == 1 { Err(m.leaf_value(&cur.node, k)) } else { Ok(m.child(&cur.node, k)) };
            st.cursor = self.src.detach(m);
            drop(g);
            let value = match child {
                Err(leaf) => {
                    th.l.enter(true);
                    leaf
                }
                Ok(c) if cur.depth > FRONTIER => {
                    match self.make(c, Some(cur.clone()), cur.depth - 1, cur.ply + 1, index, child_max, cur.pv && index == 1, window, data) {
                        Ok(n) => {
                            th.l.enter(false);
                            P::made(th, &cur, &n);
                            cur = n;
                            continue 'node;
                        }
                        Err(v) => {
                            th.l.enter(true);
                            v
                        }
                    }
                }
                Ok(c) => {
                    let buf = &mut th.buf;
                    super::seq::ab(self.src, &mut th.l, buf, &c, cur.depth - 1, cur.ply + 1, child_max, window)
                }
            };
            match self.report(th, cur, index, value) {
                Some(n) => cur = n,
                None => return true,
            }
        }
    }

    /// Returns child `index`'s `value` to `x`; the node to go on at, if any.
    fn report(&self, th: &mut Thread<S, Sc::Data, P>, x: Node<S, Sc, P>, index: u32, value: i64) -> Option<Node<S, Sc, P>> {
        th.l.jitter();
        let mut st = th.l.lock(&x.st);
        if x.done.load(Acquire) {
            return None;
        }
        st.busy -= 1;
        st.finished += 1;
        let v = x.view(&st);
        self.scheme.finished(&v, &mut st.data);
        let cut = if x.max {
            if value >= st.window.beta {
                Some(st.window.beta)
            } else {
                if x.ply == 0 {
                    st.best.root_offer(index, value);
                } else if value > st.best.score {
                    st.best = Best { score: value, index };
                }
                None
            }
        } else if value <= st.window.alpha {
            Some(st.window.alpha)
        } else {
            if value < st.best.score {
                st.best = Best { score: value, index };
            }
            None
        };
        let done = match cut {
            Some(c) => c,
            None if st.handed == st.moves && st.busy == 0 => st.best.score,
            // Moves left: go on here; none, but others still busy: idle.
            None => return (st.handed < st.moves).then_some(x.clone()),
        };
        if x.parent.is_none() {
            *th.l.lock(&self.result) = Some((done, st.best.index));
            self.over.store(true, Release);
        }
        x.done.store(true, Release);
        drop(st);
        self.up(th, &x, done)
    }

    /// Node `x` is done with `value`: return it to the parent.
    fn up(&self, th: &mut Thread<S, Sc::Data, P>, x: &Node<S, Sc, P>, value: i64) -> Option<Node<S, Sc, P>> {
        match &x.parent {
            Some(p) => self.report(th, p.clone(), x.index, value),
            None => {
                // The root closed its window: cannot happen with the full window.
                let mut r = th.l.lock(&self.result);
                r.get_or_insert((value, 0));
                self.over.store(true, Release);
                None
            }
        }
    }

    /// One thread's life: thread 0 starts at the root; every thread looks
    /// for work while the search is not over.
    fn thread_main(&self, mut th: Thread<S, Sc::Data, P>, root: &S::Node, depth: u32) -> Local {
        let _flag = PanicFlag(&self.over);
        if th.l.id == 0 {
            th.l.enter(false);
            match self.make(root.clone(), None, depth, 0, 0, true, true, Window::ROOT, self.scheme.root()) {
                Ok(r) => {
                    // Only thread 0 sets the root, once.
                    let _ = self.root.set(r.clone());
                    self.work_at(&mut th, r);
                }
                // `run` searched a root without moves sequentially.
                Err(v) => {
                    *th.l.lock(&self.result) = Some((v, 0));
                    self.over.store(true, Release);
                }
            }
        }
        let mut fails = 0u32;
        // Idle time is the time between two pieces of work, less the lock
        // waits in it (counted as lock waits).
        let idle = |l: &mut Local, since: Instant, lock0: u64| {
            l.idle_ns += (since.elapsed().as_nanos() as u64).saturating_sub(l.lock_ns - lock0);
            if l.traced() {
                l.record(SpanKind::Idle, since, Instant::now());
            }
        };
        let (mut since, mut lock0) = (Instant::now(), th.l.lock_ns);
        while !self.over.load(Acquire) {
            if let Some(x) = P::find(self, &mut th) {
                let (found, lock1) = (since.elapsed().as_nanos() as u64, th.l.lock_ns);
                if th.l.traced() {
                    th.l.record(SpanKind::Idle, since, since + std::time::Duration::from_nanos(found));
                }
                if self.work_at(&mut th, x) {
                    th.l.idle_ns += found.saturating_sub(lock1 - lock0);
                    fails = 0;
                    (since, lock0) = (Instant::now(), th.l.lock_ns);
                    continue;
                }
            }
            // Nothing to do: back off, spinning a little, then letting a
            // working thread run (more threads than cores, or cores shared).
            fails += 1;
            if fails < 8 {
                for _ in 0..(64 << fails) {
                    std::hint::spin_loop();
                }
            } else {
                std::thread::yield_now();
            }
        }
        idle(&mut th.l, since, lock0);
        th.l
    }
}

/// Searches `src` from `root` to `depth` on `opts.threads` threads with
/// the split-point rules of `scheme` and the idle policy `policy`.
pub fn run<S: TreeSource, Sc: SplitScheme, P: HeapPolicy<S, Sc::Data>>(
    src: &S,
    root: &S::Node,
    depth: u32,
    scheme: &Sc,
    policy: &P,
    opts: &Options,
) -> Result<Measured, RealError>
where
    Sc::Data: Send + Sync,
    P::Shared: Sync,
    P::ThreadState: Send,
    P::NodeState: Send,
{
    {
        let mut buf = vec![S::Slot::default(); src.slots()];
        if depth < FRONTIER || src.moves(root, true, &mut buf).is_empty() {
            // Nothing to share: the sequential search.
            return Ok(super::seq::run(src, root, depth, opts));
        }
    }
    let t = Instant::now();
    let n = opts.threads.max(1);
    let (shared, parts) = policy.start(n, src.root_key(root));
    let sh: Shared<S, Sc, P> =
        Shared { src, scheme, threads: n, root: std::sync::OnceLock::new(), over: AtomicBool::new(false), result: Mutex::new(None), policy: shared };
    let locals = std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .into_iter()
            .enumerate()
            .map(|(id, part)| {
                let sh = &sh;
                let th = Thread { l: Local::new(id, opts), buf: vec![S::Slot::default(); src.slots() * FRONTIER as usize], policy: part };
                s.spawn(move || sh.thread_main(th, root, depth))
            })
            .collect();
        join_all(handles)
    })?;
    let result = *sh.result.lock().unwrap_or_else(|e| e.into_inner());
    outcome(&locals, result, t, "the search")
}
