//! The machine: one simulated search of one tree ([`Machine`]), the data
//! the processors share (`World`), the processors' loop of states and the
//! run loop that resumes the processor with the smallest clock, then
//! trims every processor's time to the end of the search (thesis §6.1–6.2;
//! `docs/model.md` §5.2); and [`SimIdle`], what the machine asks of the
//! idle policy it is generic over (here, beside the machine whose methods
//! its signatures name, so that no room of the engine reaches itself
//! through another).

use super::record::{NoRecord, Recorder};
use super::spec::Interleave;
use super::spec::{MachineSpec, Result, SimError};
use super::stats::{State, TimeKind, TreeStats};
use super::types::{BlockHasher, Next, NodeRef, SNode, Step};
use super::{FIRST_PRIVATE, NONE};
use crate::game::TreeSource;
use crate::schemes::SplitScheme;
use crate::sim::memory::{Block, Memory, Proc};
use crate::sim::sched::{NEVER, Scheduler};
use rand_chacha::ChaCha8Rng;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::hash::BuildHasherDefault;
use std::pin::Pin;
use std::task::Context;

/// Everything the processors share, behind one `RefCell`: borrowed only
/// between two awaits, never across one.
pub(super) struct World<D, T: TreeSource> {
    pub(super) mem: Memory,
    pub(super) sched: Scheduler,
    pub(super) nodes: Vec<SNode<D, T>>,
    pub(super) bufs: Vec<T::Slot>,
    pub(super) global: Vec<u32>,
    pub(super) local: Vec<Vec<u32>>,
    pub(super) root: u32,
    pub(super) flag: bool,
    pub(super) split_var: Option<NodeRef>,
    pub(super) finish: Option<u64>,
    pub(super) last_progress: u64,
    pub(super) stats: TreeStats,
    /// Each processor's state and the node it works at (for the charges
    /// and for the message of a stuck run).
    pub(super) state: Vec<(State, u32)>,
    /// Each processor's latest charge `(state, kind, ticks)`. With
    /// [`Interleave::Access`] only a processor's latest charge can reach
    /// beyond the end of the search (one that does not suspend it ends
    /// below every other clock), so it is all the end needs to trim.
    pub(super) last: Vec<(State, TimeKind, u64)>,
    /// With [`Interleave::State`], where a processor runs on past the
    /// others, all its charges since it was last resumed.
    pub(super) charges: Vec<Vec<(State, TimeKind, u64)>>,
    /// Each processor's buffer for tree walks.
    pub(super) walks: Vec<Vec<NodeRef>>,
    /// The block each processor accessed last (for the message of a stuck run).
    pub(super) on: Vec<Block>,
    /// Each processor that waits for a block to be written (the block's
    /// list is in `waiters`): its clock when it began to wait, and what the
    /// wait counts as.
    pub(super) asleep: Vec<Option<(u64, TimeKind)>>,
    /// Queue locks: the processors queued at each lock, first first.
    pub(super) queues: std::collections::HashMap<Block, std::collections::VecDeque<Proc>, BuildHasherDefault<BlockHasher>>,
    /// Queue locks: whether the lock a processor queued for was handed to it.
    pub(super) granted: Vec<bool>,
    /// The processors waiting for each block below the nodes' to be written.
    pub(super) waiters: Vec<Vec<Proc>>,
    /// Work stealing: the processor whose request waits in each mailbox.
    pub(super) requests: Vec<Option<Proc>>,
    /// Work stealing and active splitting: the answer in each processor's
    /// mailbox (a node to work at, or none).
    pub(super) inbox: Vec<Option<Option<NodeRef>>>,
    /// Active splitting: the processors waiting to be recruited.
    pub(super) idle_set: Vec<bool>,
    /// Active splitting: how many processors are in `idle_set`.
    pub(super) idle_count: usize,
    /// Active splitting: a buffer for the processors recruited.
    pub(super) recruits: Vec<Proc>,
    /// Each processor's random stream, made by a policy that draws at
    /// random when it first does (work stealing's victims).
    pub(super) rng: Vec<ChaCha8Rng>,
    /// Each processor's access that a busy block refused, `(block, write)`:
    /// the executor issues it again without resuming the processor's task.
    pub(super) parked: Vec<Option<(Block, bool)>>,
}

/// A policy on the simulated machine: implemented by every type of
/// [`crate::policy`], each in its file of `idle/`, and by the registry's
/// [`Policy`](crate::policy::Policy) (the type a machine runs), which hands each call to its
/// variant's. The engine knows a policy only by this trait.
pub trait SimIdle: Copy + std::fmt::Debug {
    /// **split**: look for work until there is some ([`Next::Search`]) or
    /// the search is over ([`Next::Exit`]).
    fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> impl Future<Output = Next>;

    /// What a working processor at node `c` (locked, about to hand out a
    /// move) does for idle ones; called only if [`SimIdle::mailboxes`].
    fn share_work<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, _m: &Machine<'_, T, S, P, R>, _p: Proc, _c: u32) -> impl Future<Output = ()> {
        async {}
    }

    /// What a processor does after a move of node `c` (locked) finished
    /// and was folded into it; called only if [`SimIdle::updates`].
    fn updated<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, _m: &Machine<'_, T, S, P, R>, _p: Proc, _c: u32) -> impl Future<Output = ()> {
        async {}
    }

    /// Whether idle processors wait in their mailboxes (working processors
    /// then call [`SimIdle::share_work`]).
    fn mailboxes(&self) -> bool {
        false
    }

    /// Whether [`SimIdle::updated`] does anything (a check the working
    /// states make before they build its future: they are the engine's
    /// innermost loop).
    fn updates(&self) -> bool {
        false
    }

    /// Whether the simulated machine can run it (`Err`: the one line why),
    /// checked before any processor runs.
    fn simulated(&self) -> std::result::Result<(), &'static str> {
        Ok(())
    }
}

/// One simulated search of one tree: the machine, the search's shared data
/// and the processors' routines.
pub struct Machine<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder = NoRecord> {
    pub(super) src: &'a T,
    pub(super) scheme: &'a S,
    pub(super) cfg: MachineSpec<P>,
    /// Move-list entries per node.
    pub(super) b: usize,
    pub(super) node_base: Block,
    pub(super) root_node: T::Node,
    pub(super) w: RefCell<World<S::Data, T>>,
    /// The running processor may go on while its clock is below this.
    pub(super) limit: Cell<u64>,
    /// The running processor's clock when it was resumed.
    pub(super) resumed: Cell<u64>,
    /// The run's observer (a trace), called only if [`Recorder::ON`].
    pub(super) rec: RefCell<R>,
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle> Machine<'a, T, S, P> {
    /// A cold machine ready to search the tree of `src` rooted at `root` (a MAX node).
    pub fn new(src: &'a T, root: T::Node, scheme: &'a S, cfg: MachineSpec<P>) -> Result<Machine<'a, T, S, P>> {
        Machine::with_recorder(src, root, scheme, cfg, NoRecord)
    }
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// [`Machine::new`] watched by `rec` (a trace).
    pub fn with_recorder(src: &'a T, root: T::Node, scheme: &'a S, cfg: MachineSpec<P>, rec: R) -> Result<Machine<'a, T, S, P, R>> {
        if cfg.procs == 0 {
            return Err(SimError::NoProcessors);
        }
        if let Err(why) = cfg.policy.simulated() {
            return Err(SimError::RealThreadsOnly(why));
        }
        let p = cfg.procs;
        let mut mem = Memory::new(p);
        for _ in 0..FIRST_PRIVATE {
            mem.add_block(0);
        }
        for q in 0..p {
            mem.add_block(q);
        }
        for q in 0..p {
            mem.add_block(q);
        }
        mem.add_block(0);
        let d = cfg.depth.max(1) as usize;
        let initial = p * d * 2;
        let b = src.slots();
        let mut w = World {
            mem,
            sched: Scheduler::new(p),
            nodes: Vec::with_capacity(initial),
            bufs: Vec::with_capacity(initial * b),
            global: Vec::with_capacity(initial),
            local: vec![Vec::with_capacity(2 * d); p],
            root: NONE,
            flag: false,
            split_var: None,
            finish: None,
            last_progress: 0,
            stats: TreeStats::default(),
            state: vec![(State::Split, NONE); p],
            last: vec![(State::Split, TimeKind::Work, 0); p],
            charges: vec![Vec::with_capacity(8); p],
            walks: vec![vec![]; p],
            on: vec![0; p],
            asleep: vec![None; p],
            waiters: vec![vec![]; FIRST_PRIVATE + 2 * p + 1],
            queues: Default::default(),
            granted: vec![false; p],
            requests: vec![None; p],
            inbox: vec![None; p],
            idle_set: vec![false; p],
            idle_count: 0,
            recruits: vec![],
            rng: vec![],
            parked: vec![None; p],
        };
        for _ in 0..initial {
            make_node(&mut w, b, p);
        }
        // The heap hands out the lowest-numbered node first.
        w.global = (0..initial as u32).rev().collect();
        Ok(Machine {
            src,
            scheme,
            cfg,
            b,
            node_base: FIRST_PRIVATE + 2 * p + 1,
            root_node: root,
            w: RefCell::new(w),
            limit: Cell::new(0),
            resumed: Cell::new(0),
            rec: RefCell::new(rec),
        })
    }

    #[inline(always)]
    pub(super) fn blk(&self, n: u32) -> Block {
        self.node_base + n as usize
    }

    #[inline(always)]
    pub(super) fn clock(&self, p: Proc) -> u64 {
        self.w.borrow().sched.clock(p)
    }

    // ---- the processors and the run loop -------------------------------------------

    /// One processor: its states, one after the other, until it exits.
    pub(super) async fn processor(&self, p: Proc) {
        let mut next = if p == 0 { self.start(p).await } else { Next::Idle };
        loop {
            next = match next {
                Next::Expand(n) => self.expand(p, n).await,
                Next::Search(n) => self.search(p, n).await,
                Next::Eval(n) => self.eval(p, n).await,
                Next::Return(n) => self.ret(p, n).await,
                Next::Update(n, v) => self.update(p, n, v).await,
                Next::Idle => self.idle(p).await,
                Next::Exit => {
                    self.w.borrow_mut().state[p] = (State::Exit, NONE);
                    return;
                }
            }
        }
    }

    /// Runs the search to the root's return; the machine's statistics.
    pub fn run(self) -> Result<TreeStats> {
        self.run_recorded().map(|(stats, _)| stats)
    }

    /// [`Machine::run`], and the recorder back.
    pub fn run_recorded(self) -> Result<(TreeStats, R)> {
        let procs = self.cfg.procs;
        {
            let mut cx = Context::from_waker(std::task::Waker::noop());
            let mut tasks: Vec<Pin<Box<_>>> = (0..procs).map(|p| Box::pin(self.processor(p))).collect();
            loop {
                let p = {
                    let mut w = self.w.borrow_mut();
                    let Some((p, limit)) = w.sched.next() else { break };
                    let c = w.sched.clock(p);
                    if c > w.last_progress.saturating_add(self.cfg.stall_limit) {
                        return Err(self.stuck(&w));
                    }
                    if self.cfg.interleave == Interleave::State {
                        w.charges[p].clear();
                    }
                    self.resumed.set(c);
                    self.limit.set(limit);
                    // A parked access is issued again here: the task is
                    // resumed only once it is served and the processor goes on.
                    if let Some((b, write)) = w.parked[p] {
                        if limit == c
                            && self.cfg.group_waiters
                            && self.cfg.interleave == Interleave::Access
                            && next_waits(&w, p, b, c)
                            && self.pass_waiters(&mut w, p, b, c)
                        {
                            #[cfg(test)]
                            super::GROUPED.with(|g| g.set(g.get() + 1));
                            continue;
                        }
                        match self.access_step(&mut w, p, b, write) {
                            Step::Refused => continue,
                            Step::Served => {
                                w.parked[p] = None;
                                continue;
                            }
                            Step::Ready => w.parked[p] = None,
                        }
                    }
                    p
                };
                // Only a processor that exits can have ended the search.
                if tasks[p].as_mut().poll(&mut cx).is_ready() {
                    let mut w = self.w.borrow_mut();
                    if R::ON {
                        self.rec.borrow_mut().exit(p, w.sched.clock(p));
                    }
                    w.sched.set(p, NEVER);
                    if w.finish.is_some() {
                        break;
                    }
                }
            }
        }
        let mut rec = self.rec.into_inner();
        let mut w = self.w.into_inner();
        let Some(t) = w.finish else { return Err(SimError::Internal("every processor stopped before the root returned".into())) };
        w.stats.ticks = t;
        // Charge every processor up to t exactly: a processor behind t (one
        // that exited) is charged nothing more; one beyond t gives back its
        // latest charges down to t.
        let waited: Vec<bool> = w.asleep.iter().map(Option::is_some).collect();
        for q in 0..procs {
            // A processor still waiting for a write waited until the end.
            let c = match w.asleep[q].take() {
                Some((since, kind)) => {
                    let s = w.state[q].0 as usize;
                    w.stats.time[s][kind as usize] += t.saturating_sub(since);
                    if R::ON {
                        let (st, at) = w.state[q];
                        rec.span(q, since, t.saturating_sub(since), st, kind, node_key(&w, at), &|| path(&w, at));
                    }
                    since
                }
                None => w.sched.clock(q),
            };
            if c == NEVER || c <= t {
                continue;
            }
            let mut excess = c - t;
            let log = if self.cfg.interleave == Interleave::Access { vec![w.last[q]] } else { std::mem::take(&mut w.charges[q]) };
            for &(s, k, d) in log.iter().rev() {
                let back = excess.min(d);
                w.stats.time[s as usize][k as usize] -= back;
                excess -= back;
            }
            if excess > 0 {
                return Err(SimError::Internal(format!("processor {q} is {excess} ticks beyond the end with nothing to give back")));
            }
        }
        for (q, &waited) in waited.iter().enumerate() {
            let c = w.sched.clock(q);
            if c == NEVER && w.state[q].0 != State::Exit && !waited {
                return Err(SimError::Internal(format!("processor {q} stopped in state {:?}", w.state[q].0)));
            }
        }
        // The exited processors' time after their exit.
        let exit_time: u64 = t * procs as u64 - w.stats.accounted();
        w.stats.time[State::Exit as usize][TimeKind::Work as usize] += exit_time;
        let root = w.root;
        w.nodes[root as usize].allocated = false;
        w.global.push(root);
        let in_heaps = w.global.len() + w.local.iter().map(Vec::len).sum::<usize>();
        let allocated = w.nodes.iter().filter(|n| n.allocated).count();
        if in_heaps != w.nodes.len() || allocated != 0 {
            return Err(SimError::Internal(format!(
                "heaps unbalanced after the tree: {in_heaps} of {} nodes in the heaps, {allocated} still allocated",
                w.nodes.len()
            )));
        }
        w.stats.pool = w.nodes.len() as u64;
        if R::ON {
            rec.finish(t);
        }
        Ok((w.stats, rec))
    }

    pub(super) fn stuck(&self, w: &World<S::Data, T>) -> SimError {
        let states: Vec<String> = (0..self.cfg.procs)
            .map(|q| {
                let (s, at) = w.state[q];
                let at = if at == NONE { String::new() } else { format!(" at node {} (ply {})", at, w.nodes[at as usize].ply) };
                let b = w.on[q];
                let held = w.mem.lock_holder(b).map_or(String::new(), |h| format!(", its lock held by P{h}"));
                format!("P{q} {}{at} t={}, last access block {b}{held}", s.name(), w.sched.clock(q))
            })
            .collect();
        SimError::Stuck { limit: self.cfg.stall_limit, since: w.last_progress, states: states.join("; ") }
    }
}

/// Simulates the search of the tree of `src` rooted at `root` with `scheme`.
pub fn simulate<T: TreeSource, S: SplitScheme, P: SimIdle>(src: &T, root: T::Node, scheme: &S, cfg: MachineSpec<P>) -> Result<TreeStats> {
    Machine::new(src, root, scheme, cfg)?.run()
}

/// [`simulate`] watched by `rec` (a trace): the statistics and the recorder.
pub fn simulate_recorded<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(
    src: &T,
    root: T::Node,
    scheme: &S,
    cfg: MachineSpec<P>,
    rec: R,
) -> Result<(TreeStats, R)> {
    Machine::with_recorder(src, root, scheme, cfg, rec)?.run_recorded()
}

/// Node `at`'s identity for a recorder: its slot and the slot's
/// generation (`u64::MAX` for none).
pub(super) fn node_key<D, T: TreeSource>(w: &World<D, T>, at: u32) -> u64 {
    if at == NONE { u64::MAX } else { (w.nodes[at as usize].generation as u64) << 32 | at as u64 }
}

/// Node `at` as the 1-based move numbers from the root (`""` is the root;
/// `"2.1"` the first move of the root's second); `None` for no node.
pub(super) fn path<D, T: TreeSource>(w: &World<D, T>, at: u32) -> Option<String> {
    (at != NONE).then(|| {
        // The move numbers from the node up, then reversed: one string.
        let mut moves: Vec<u32> = vec![];
        let mut x = at;
        while x != w.root && x != NONE {
            moves.push(w.nodes[x as usize].index);
            x = w.nodes[x as usize].parent;
        }
        let mut path = String::with_capacity(4 * moves.len());
        for (i, m) in moves.iter().rev().enumerate() {
            if i > 0 {
                path.push('.');
            }
            path.push_str(itoa(*m, &mut [0u8; 10]));
        }
        path
    })
}

/// `n` in decimal, in `buf`.
fn itoa(mut n: u32, buf: &mut [u8; 10]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).unwrap_or_default()
}

/// Whether the processor after `p` at the smallest clock `t` waits for
/// block `b` too: else there is nothing for `pass_waiters` to take together
/// (the usual case at a mailbox or a node, where one processor waits).
#[inline(always)]
fn next_waits<D, T: TreeSource>(w: &World<D, T>, p: Proc, b: Block, t: u64) -> bool {
    w.mem.other_waiters(p, b) && {
        let q = w.sched.after(t, p);
        q != p && w.mem.waits(q, b)
    }
}

/// A new node (blank, not allocated), its move-list entries and its block.
pub(super) fn make_node<D: Default, T: TreeSource>(w: &mut World<D, T>, b: usize, procs: usize) -> u32 {
    let id = w.nodes.len() as u32;
    w.nodes.push(SNode::blank());
    w.bufs.extend(std::iter::repeat_n(T::Slot::default(), b));
    w.mem.add_block(id as usize % procs);
    id
}

#[cfg(test)]
mod tests {
    use crate::sim::engine::testkit::*;

    #[test]
    fn one_processor_is_the_sequential_search() {
        for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (1, 0, 0)] {
            let sh = shape(b, wa, wb);
            for seed in 1..20u32 {
                let root = Node { seed: seed * 7919, pscore: ROOT_PSCORE as u32 };
                for depth in 0..5 {
                    for interleave in [Interleave::Access, Interleave::State] {
                        let seq = search(&sh, &root, depth, &mut ());
                        let cfg = MachineSpec { interleave, ..Spec::new(1, depth) };
                        let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap();
                        assert_eq!(r.value, seq.value);
                        assert_eq!(r.nodes, seq.counts.nodes, "b={b} seed={seed} depth={depth}");
                        assert_eq!(r.leaves, seq.counts.leaves);
                        let (n, l, i) = (seq.counts.nodes, seq.counts.leaves, seq.counts.internal);
                        // t_1 = 3 (n - 1) + 8 L + 4 I + 1 + cold-start memory costs.
                        let states = 3 * (n - 1) + 8 * l + 4 * i + 1;
                        let work: u64 = State::ALL.iter().map(|&s| r.work(s)).sum();
                        assert_eq!(work, states);
                        assert_eq!(r.ticks, states + r.mem_stall());
                        assert_eq!(r.accounted(), r.ticks);
                        assert_eq!(r.lock_wait(), 0);
                        // Cold start: 7 node blocks at most (root and one per
                        // level, recycled), the private block, the heap, the flag.
                        assert!(r.mem_stall() <= depth as u64 + 4, "{}", r.mem_stall());
                    }
                }
            }
        }
    }

    /// The published uniprocessor constant: 11 ticks per tree of depth 6
    /// beyond the state costs (the root's return and 10 cold misses).
    #[test]
    fn cold_start_of_a_depth_6_tree() {
        let sh = shape(32, 79, 5);
        let root = Node { seed: 1, pscore: ROOT_PSCORE as u32 };
        let seq = search(&sh, &root, 6, &mut ());
        let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(1, 6)).unwrap();
        let (n, l, i) = (seq.counts.nodes, seq.counts.leaves, seq.counts.internal);
        assert_eq!(r.ticks, 3 * (n - 1) + 8 * l + 4 * i + 11);
    }

    #[test]
    fn no_progress_stops_with_the_processors_states() {
        let sh = shape(6, 50, 50);
        let root = Node { seed: 4242, pscore: ROOT_PSCORE as u32 };
        let cfg = MachineSpec { stall_limit: 5, ..Spec::new(4, 4) };
        let SimError::Stuck { limit, states, .. } = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap_err() else { panic!("not stuck") };
        assert_eq!(limit, 5);
        for q in 0..4 {
            assert!(states.contains(&format!("P{q} ")), "{states}");
        }
        assert!(states.contains("split"), "{states}");
        // With the default limit the same tree finishes, heaps balanced.
        let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(4, 4)).unwrap();
        assert_eq!(r.value, ROOT_PSCORE as i64);
        assert!(r.pool >= 4 * 4 * 2);
    }

    #[test]
    fn zero_processors_are_refused() {
        let sh = shape(2, 0, 0);
        let root = Node { seed: 1, pscore: 5 };
        assert_eq!(simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(0, 2)).unwrap_err(), SimError::NoProcessors);
    }

    #[test]
    fn parallel_root_value_is_minimax() {
        for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (4, 100, 100)] {
            let sh = shape(b, wa, wb);
            for seed in 1..12u32 {
                let root = Node { seed: seed * 104729, pscore: ROOT_PSCORE as u32 };
                for depth in 1..5 {
                    let want = search(&sh, &root, depth, &mut ()).value;
                    for procs in [2, 3, 7, 16, 48, 64, 256] {
                        for (interleave, walk) in [(Interleave::Access, Walk::Tree), (Interleave::Access, Walk::Level), (Interleave::State, Walk::Tree)] {
                            let cfg = MachineSpec { interleave, policy: dts(walk), ..Spec::new(procs, depth) };
                            let a = simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, cfg).unwrap();
                            let tag = format!("b={b} seed={seed} depth={depth} p={procs} {interleave:?} {walk:?}");
                            assert_eq!(a.value, want, "A {tag}");
                            assert_eq!(a.accounted(), a.ticks * procs as u64, "A {tag}");
                            let bb = simulate(&sh, root, &ConfidenceSplit { m_b: 1, pv_wait: 1 }, cfg).unwrap();
                            assert_eq!(bb.value, want, "B {tag}");
                            assert_eq!(bb.accounted(), bb.ticks * procs as u64, "B {tag}");
                        }
                    }
                }
            }
        }
    }

    /// Two processors on a depth-2 tree of branching 2. Processor 0 allocates
    /// the root and searches; processor 1 starts idle and finds no eligible
    /// node until the root's first move has returned (scheme A), so every
    /// split-point search before that fails and is followed by its 36-tick
    /// pause, charged to the split state.
    #[test]
    fn two_processors_interleave_their_accesses() {
        let sh = shape(2, 50, 50);
        let root = Node { seed: 777, pscore: ROOT_PSCORE as u32 };
        let want = search(&sh, &root, 2, &mut ()).value;
        let one = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(1, 2)).unwrap();
        let two = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(2, 2)).unwrap();
        assert_eq!(two.value, want);
        assert_eq!(two.accounted(), 2 * two.ticks);
        // Processor 1 ran at least one split-point search, each examining the root.
        assert!(two.split_searches >= 1 && two.split_examined >= two.split_searches);
        assert!(two.in_state(State::Split) > 0);
        // Its idle time includes the 36-tick pauses after failed searches.
        assert!(two.work(State::Split) >= 36 * (two.split_searches - 1));
        assert!(one.ticks > 0 && two.ticks > 0);
    }
}
