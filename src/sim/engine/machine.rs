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
pub(crate) struct World<D, T: TreeSource> {
    pub(crate) mem: Memory,
    pub(crate) sched: Scheduler,
    pub(crate) nodes: Vec<SNode<D, T>>,
    pub(crate) bufs: Vec<T::Slot>,
    pub(crate) global: Vec<u32>,
    pub(crate) local: Vec<Vec<u32>>,
    pub(crate) root: u32,
    pub(crate) flag: bool,
    pub(crate) split_var: Option<NodeRef>,
    pub(crate) finish: Option<u64>,
    pub(crate) last_progress: u64,
    pub(crate) stats: TreeStats,
    /// Each processor's state and the node it works at (for the charges
    /// and for the message of a stuck run).
    pub(crate) state: Vec<(State, u32)>,
    /// Each processor's latest charge `(state, kind, ticks)`. With
    /// [`Interleave::Access`] only a processor's latest charge can reach
    /// beyond the end of the search (one that does not suspend it ends
    /// below every other clock), so it is all the end needs to trim.
    pub(crate) last: Vec<(State, TimeKind, u64)>,
    /// With [`Interleave::State`], where a processor runs on past the
    /// others, all its charges since it was last resumed.
    pub(crate) charges: Vec<Vec<(State, TimeKind, u64)>>,
    /// Each processor's buffer for tree walks.
    pub(crate) walks: Vec<Vec<NodeRef>>,
    /// The block each processor accessed last (for the message of a stuck run).
    pub(crate) on: Vec<Block>,
    /// Each processor that waits for a block to be written (the block's
    /// list is in `waiters`): its clock when it began to wait, and what the
    /// wait counts as.
    pub(crate) asleep: Vec<Option<(u64, TimeKind)>>,
    /// Queue locks: the processors queued at each lock, first first.
    pub(crate) queues: std::collections::HashMap<Block, std::collections::VecDeque<Proc>, BuildHasherDefault<BlockHasher>>,
    /// Queue locks: whether the lock a processor queued for was handed to it.
    pub(crate) granted: Vec<bool>,
    /// The processors waiting for each block below the nodes' to be written.
    pub(crate) waiters: Vec<Vec<Proc>>,
    /// Work stealing: the processor whose request waits in each mailbox.
    pub(crate) requests: Vec<Option<Proc>>,
    /// Work stealing and active splitting: the answer in each processor's
    /// mailbox (a node to work at, or none).
    pub(crate) inbox: Vec<Option<Option<NodeRef>>>,
    /// Active splitting: the processors waiting to be recruited.
    pub(crate) idle_set: Vec<bool>,
    /// Active splitting: how many processors are in `idle_set`.
    pub(crate) idle_count: usize,
    /// Active splitting: a buffer for the processors recruited.
    pub(crate) recruits: Vec<Proc>,
    /// Each processor's random stream, made by a policy that draws at
    /// random when it first does (work stealing's victims).
    pub(crate) rng: Vec<ChaCha8Rng>,
    /// Each processor's access that a busy block refused, `(block, write)`:
    /// the executor issues it again without resuming the processor's task.
    pub(crate) parked: Vec<Option<(Block, bool)>>,
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
    pub(crate) src: &'a T,
    pub(crate) scheme: &'a S,
    pub(crate) cfg: MachineSpec<P>,
    /// Move-list entries per node.
    pub(crate) b: usize,
    pub(crate) node_base: Block,
    pub(crate) root_node: T::Node,
    pub(crate) w: RefCell<World<S::Data, T>>,
    /// The running processor may go on while its clock is below this.
    pub(crate) limit: Cell<u64>,
    /// The running processor's clock when it was resumed.
    pub(crate) resumed: Cell<u64>,
    /// The run's observer (a trace), called only if [`Recorder::ON`].
    pub(crate) rec: RefCell<R>,
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
    pub(crate) fn blk(&self, n: u32) -> Block {
        self.node_base + n as usize
    }

    #[inline(always)]
    pub(crate) fn clock(&self, p: Proc) -> u64 {
        self.w.borrow().sched.clock(p)
    }

    // ---- the processors and the run loop -------------------------------------------

    /// One processor: its states, one after the other, until it exits.
    pub(crate) async fn processor(&self, p: Proc) {
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

    pub(crate) fn stuck(&self, w: &World<S::Data, T>) -> SimError {
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
pub(crate) fn node_key<D, T: TreeSource>(w: &World<D, T>, at: u32) -> u64 {
    if at == NONE { u64::MAX } else { (w.nodes[at as usize].generation as u64) << 32 | at as u64 }
}

/// Node `at` as the 1-based move numbers from the root (`""` is the root;
/// `"2.1"` the first move of the root's second); `None` for no node.
pub(crate) fn path<D, T: TreeSource>(w: &World<D, T>, at: u32) -> Option<String> {
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
pub(crate) fn make_node<D: Default, T: TreeSource>(w: &mut World<D, T>, b: usize, procs: usize) -> u32 {
    let id = w.nodes.len() as u32;
    w.nodes.push(SNode::blank());
    w.bufs.extend(std::iter::repeat_n(T::Slot::default(), b));
    w.mem.add_block(id as usize % procs);
    id
}
