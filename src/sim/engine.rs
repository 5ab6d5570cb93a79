//! The DTS-like parallel alpha-beta search of PABSim, run on the simulated
//! machine (thesis §6.2–6.3; `docs/model.md` §5.2–5.3).
//!
//! **Processors interleave at every memory access**, as the thesis's fibers
//! do: its `CREAD`/`CWRITE` yield whenever an access has a delay, and a
//! request refused by a busy block is issued again and competes afresh.
//! Here every simulated processor is an `async` routine, and every memory
//! access, lock attempt and state cost is an `.await` on the machine
//! ([`Machine::read`], [`Machine::write`], [`Machine::lock`],
//! [`Machine::work`]): the access takes effect when the block accepts it,
//! the processor's clock advances by its delay, and a small deterministic
//! executor ([`Machine::run`]) resumes whichever processor has the smallest
//! clock (ties round-robin in processor order). A processor runs on without
//! being suspended while its clock stays strictly below every other
//! processor's, so hits and zero-delay work cost no scheduling.
//!
//! The states read like the thesis's figures: one routine per state
//! ([`Machine::expand`], [`Machine::search`], [`Machine::eval`],
//! [`Machine::ret`], [`Machine::update`], the idle loop [`Machine::idle`]),
//! straight-line, with the simulated accesses in program order; a state's
//! data (the node it works at, the value it carries) lives in [`Next`], the
//! state a routine hands over to. Two seams keep extensions small: a new
//! split-point rule is a [`Scheme`] (what is eligible, and in what order of
//! preference); a new way for an idle processor to find work is a variant
//! of [`Idle`] and its routine, called from [`Machine::idle`].
//!
//! Why `async`: each state stays one readable routine however many times it
//! is suspended inside, and the compiler builds the resumable state machine
//! that hand-written code would need per access (dozens of sub-states). The
//! executor is ours (a few lines, no runtime crate): the scheduler's choice
//! is the only thing that decides who runs, so runs are deterministic.
//!
//! [`Interleave::State`] keeps the earlier model for comparison: accesses
//! inside a state never suspend the processor (they are served at its
//! running clock as if no other processor could come between them), and
//! the executor switches only between states and after failed lock
//! attempts.
//!
//! Memory layout (our choice): block 0 is the end-of-search flag, block 1
//! the split-point variable and its lock (PV splitting: the published PV
//! node), block 2 the global node heap and its lock (all three homed at
//! processor 0); block `3 + p` is processor p's private data and local heap
//! (home p); block `3 + P + p` is processor p's mailbox (home p; work
//! stealing and active splitting); block `3 + 2P` the set of idle
//! processors (home 0; active splitting); node k lives in block
//! `3 + 2P + 1 + k`, homed at processor `k mod P`.
//!
//! A processor that waits for a block to change (PV splitting's and the
//! mailboxes' waits) spins on its cached copy, which costs nothing until
//! another processor writes the block: the engine puts it to sleep
//! ([`Machine::wait_for_write`]) and wakes it when the write is served.
//!
//! A request refused by a busy block parks its processor: the executor
//! issues it again at the processor's turns without resuming its routine.
//! The turns of processors parked at one block at one clock (dozens to a
//! thousand spinners on a test-and-set lock) are taken together where the
//! block alone decides them, with the same result as one by one
//! (`pass_waiters`; `docs/decisions.md`, issue 11).

use super::memory::{Access, Block, Memory, Proc};
use super::sched::{NEVER, Scheduler, bits};
use super::schemes::{Candidate, Scheme, View};
use crate::game::{MoveList, TreeSource};
use crate::search::{ROOT_ALPHA, ROOT_BETA};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::hash::BuildHasherDefault;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Why a simulation could not run or did not finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// A machine of no processors.
    #[error("the machine needs at least 1 processor")]
    NoProcessors,
    /// An unknown name for an option.
    #[error("unknown {what} `{name}` (expected {expected})")]
    UnknownName {
        /// Which option.
        what: &'static str,
        /// The name given.
        name: String,
        /// The names it takes.
        expected: &'static str,
    },
    /// No node was created or returned for the stall limit: the processors'
    /// states, for the report.
    #[error("no progress for {limit} simulated ticks (no node created or returned since t={since}): {states}")]
    Stuck {
        /// The stall limit.
        limit: u64,
        /// The last time a node was created or returned.
        since: u64,
        /// Every processor's state, node, clock and last block.
        states: String,
    },
    /// A broken invariant of the engine (a bug, never an input's fault).
    #[error("internal error: {0}")]
    Internal(String),
}

/// A simulation's result.
pub type Result<T> = std::result::Result<T, SimError>;

const NONE: u32 = u32::MAX;
const FLAG_BLOCK: Block = 0;
const SPLIT_BLOCK: Block = 1;
const HEAP_BLOCK: Block = 2;
const FIRST_PRIVATE: Block = 3;

#[cfg(test)]
thread_local! {
    /// Turns taken together by `pass_waiters` on this thread (a test shows they happen).
    static GROUPED: Cell<u64> = const { Cell::new(0) };
}

/// Costs of the states in ticks (thesis §6.2; `docs/model.md` §5.3).
pub mod cost {
    /// One search step.
    pub const SEARCH: u64 = 1;
    /// One return.
    pub const RETURN: u64 = 1;
    /// Generating a node's moves.
    pub const EXPAND: u64 = 3;
    /// Evaluating a leaf.
    pub const EVAL: u64 = 8;
    /// An update, plus 1 per node told of a new bound.
    pub const UPDATE: u64 = 1;
    /// A pass of the idle loop with the split-point lock held, plus 1 per
    /// node a split-point search examines.
    pub const SPLIT: u64 = 1;
    /// The pause after a failed split-point search (`DELAY(rechecktime)`).
    pub const RETRY: u64 = 36;
}

/// A processor's state: the seven states of the thesis, which are also the
/// buckets of the time breakdown (the one list of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Generating the current node's moves.
    Expand,
    /// Handing out the current node's next move (and allocating the root).
    Search,
    /// Evaluating a leaf.
    Eval,
    /// Leaving the current node.
    Return,
    /// Idle: looking for work (the whole idle loop, its lock waits and pauses).
    Split,
    /// Taking a finished move's value, and telling the subtree a new bound.
    Update,
    /// Done.
    Exit,
}

impl State {
    /// Every state, in the order of the output's columns.
    pub const ALL: [State; 7] = [State::Expand, State::Search, State::Eval, State::Return, State::Split, State::Update, State::Exit];

    /// The state's name in columns and messages.
    pub fn name(self) -> &'static str {
        match self {
            State::Expand => "expand",
            State::Search => "search",
            State::Eval => "eval",
            State::Return => "return",
            State::Split => "split",
            State::Update => "update",
            State::Exit => "exit",
        }
    }
}

/// What a processor's time in a state went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The state's own costs (and the idle loop's pauses).
    Work = 0,
    /// Waiting for memory: access delays and refused requests.
    Memory = 1,
    /// Failed lock attempts.
    Lock = 2,
}

/// When the executor may switch processors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Interleave {
    /// At every access with a delay: the thesis's machine.
    #[default]
    Access,
    /// Only between states and after failed lock attempts (the earlier
    /// model, kept for comparison).
    State,
}

/// How far the split-point search walks the allocated tree (breadth-first
/// from the root in both cases, so both pick the same node from the same tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Walk {
    /// Every allocated node ("it can search through the entire tree").
    #[default]
    Tree,
    /// Stop after the first level that has an eligible node: no deeper node
    /// can be preferred to it.
    Level,
}

/// How a processor waits for a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LockKind {
    /// Test-and-set, retried until it succeeds (the thesis's machine): every
    /// attempt is a write access to the lock's block.
    #[default]
    Tas,
    /// A queue lock (Mellor-Crummey and Scott): one write access to join the
    /// queue; a waiter then spins on its own flag (its mailbox block), which
    /// the holder writes when it hands the lock over on release.
    Queue,
}

/// `FromStr` and `name` of an enum named on the command line and in rows,
/// from one list of (variant, name).
macro_rules! named {
    ($t:ident, $what:literal, $expected:literal, { $($v:ident => $n:literal),+ $(,)? }) => {
        impl std::str::FromStr for $t {
            type Err = SimError;
            fn from_str(s: &str) -> Result<$t> {
                match s {
                    $($n => Ok($t::$v),)+
                    _ => Err(SimError::UnknownName { what: $what, name: s.to_string(), expected: $expected }),
                }
            }
        }

        impl $t {
            /// The name in rows and on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($t::$v => $n,)+
                }
            }
        }
    };
}

named!(Interleave, "interleaving", "access or state", { Access => "access", State => "state" });
named!(Walk, "split-point walk", "tree or level", { Tree => "tree", Level => "level" });
named!(LockKind, "lock", "tas or queue", { Tas => "tas", Queue => "queue" });

/// How an idle processor finds work (and what a working processor does for
/// idle ones): the seam for new parallel search algorithms. Each variant
/// is one routine called from [`Machine::idle`], plus at most one hook in
/// the working states ([`Machine::share_work`], and PV splitting's
/// publication in [`Machine::update`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Idle {
    /// The thesis's: a global split-point variable under a lock, refilled by
    /// a split-point search of the allocated tree when it no longer holds a
    /// valid node (thesis Figure 6.12).
    SplitVariable(Walk),
    /// PV splitting (Marsland and Popowich): one processor goes down the
    /// principal variation; at each PV node, once its first move is
    /// searched, the node is published and every processor takes its
    /// remaining moves; a processor with nothing left waits (for the next
    /// publication) rather than look for work elsewhere.
    PvSplit,
    /// YBWC with work stealing (Feldmann): an idle processor asks a victim
    /// chosen at random (ChaCha8, this seed and the processor's number) for
    /// work through the victim's mailbox; the victim answers at its next
    /// node with the highest eligible node of its own part of the tree (from
    /// where it works up to the first node shared with others), or with
    /// "no work".
    Steal {
        /// Seed of the victims' choice.
        seed: u64,
    },
    /// Active splitting as in engines (Crafty, Stockfish before 2014): a
    /// processor at an eligible node with at least `min_split_depth` plies
    /// left below it recruits idle processors (at most one per move left
    /// beyond its own, and at most `group` processors at the node in all),
    /// which wait in their mailboxes to be recruited.
    Active {
        /// Plies a node needs below it to be split.
        min_split_depth: u32,
        /// Most processors working at one split point (Crafty's split group).
        group: u32,
    },
}

impl Default for Idle {
    fn default() -> Idle {
        Idle::SplitVariable(Walk::default())
    }
}

impl Idle {
    /// The policy's name in rows and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Idle::SplitVariable(_) => "dts",
            Idle::PvSplit => "pvsplit",
            Idle::Steal { .. } => "steal",
            Idle::Active { .. } => "active",
        }
    }

    /// Whether idle processors wait in their mailboxes (the engine then keeps them).
    fn mailboxes(self) -> bool {
        matches!(self, Idle::Steal { .. } | Idle::Active { .. })
    }
}

/// Settings of one simulation.
#[derive(Clone, Copy, Debug)]
pub struct MachineSpec {
    /// Processors, at least 1.
    pub procs: usize,
    /// Search depth.
    pub depth: u32,
    /// Simulated ticks without a node created or returned after which the
    /// run is declared stuck.
    pub stall_limit: u64,
    /// When processors interleave.
    pub interleave: Interleave,
    /// How idle processors find work.
    pub idle: Idle,
    /// How processors wait for locks.
    pub lock: LockKind,
    /// Record every state entry in [`TreeStats::trace`] (tests, small trees).
    pub trace: bool,
    /// Take the turns of processors waiting at a busy block together
    /// (the executor's `pass_waiters`): the same run, faster. Off only to test
    /// that it is the same.
    pub group_waiters: bool,
}

/// One state entry of a traced run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// The processor's clock.
    pub t: u64,
    /// The processor.
    pub proc: usize,
    /// The state entered.
    pub state: State,
    /// The node, as the 1-based move numbers from the root (`""` is the
    /// root; `"2.1"` the first move of the root's second); `None` when idle.
    pub node: Option<String>,
}

impl MachineSpec {
    /// `procs` processors, depth `depth`, the thesis's machine and idle
    /// loop, the default stall limit.
    pub fn new(procs: usize, depth: u32) -> MachineSpec {
        MachineSpec {
            procs,
            depth,
            stall_limit: 2_000_000,
            interleave: Interleave::default(),
            idle: Idle::default(),
            lock: LockKind::default(),
            trace: false,
            group_waiters: true,
        }
    }
}

/// What one simulated search of one tree measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// The root's value.
    pub value: i64,
    /// Ticks until the root's value was returned (`t_p` of this tree).
    pub ticks: u64,
    /// Nodes created (`n_p` of this tree), the root included.
    pub nodes: u64,
    /// Leaves created.
    pub leaves: u64,
    /// Processor-ticks per state ([`State::ALL`]) and kind ([`Kind`]); they
    /// add up to `P * ticks`.
    pub time: [[u64; 3]; 7],
    /// Split-point searches run.
    pub split_searches: u64,
    /// Nodes those searches examined.
    pub split_examined: u64,
    /// Nodes told of a new bound.
    pub told: u64,
    /// Nodes the machine had to make (the heaps' total size at the end).
    pub pool: u64,
    /// Every state entry, with [`MachineSpec::trace`].
    pub trace: Vec<TraceEvent>,
}

impl TreeStats {
    /// Processor-ticks of a state's own costs.
    pub fn work(&self, s: State) -> u64 {
        self.time[s as usize][Kind::Work as usize]
    }

    /// All processor-ticks spent in a state.
    pub fn in_state(&self, s: State) -> u64 {
        self.time[s as usize].iter().sum()
    }

    /// Processor-ticks waiting for memory, over all states.
    pub fn mem_stall(&self) -> u64 {
        self.time.iter().map(|t| t[Kind::Memory as usize]).sum()
    }

    /// Processor-ticks in failed lock attempts, over all states.
    pub fn lock_wait(&self) -> u64 {
        self.time.iter().map(|t| t[Kind::Lock as usize]).sum()
    }

    /// All processor-ticks accounted: `P * ticks` for one tree.
    pub fn accounted(&self) -> u64 {
        self.time.iter().flatten().sum()
    }
}

#[derive(Debug)]
struct SNode<D, T: TreeSource> {
    alpha: i64,
    beta: i64,
    score: i64,
    cursor: Option<T::Cursor>,
    /// The node's position in its tree source (none for a leaf at the horizon).
    node: Option<T::Node>,
    /// A leaf's value, known when it is created (or expanded, at a game over).
    value: i64,
    /// Moves the node has (set when it is expanded).
    moves: u32,
    parent: u32,
    first_child: u32,
    last_child: u32,
    next_sib: u32,
    prev_sib: u32,
    generation: u32,
    threads: u32,
    left: u32,
    fini: u32,
    ply: u32,
    index: u32,
    max: bool,
    pv: bool,
    allocated: bool,
    data: D,
}

impl<D: Default, T: TreeSource> SNode<D, T> {
    fn blank() -> SNode<D, T> {
        SNode {
            alpha: 0,
            beta: 0,
            score: 0,
            cursor: None,
            node: None,
            value: 0,
            moves: 0,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sib: NONE,
            prev_sib: NONE,
            generation: 0,
            threads: 0,
            left: 0,
            fini: 0,
            ply: 0,
            index: 0,
            max: true,
            pv: false,
            allocated: false,
            data: D::default(),
        }
    }
}

impl<D, T: TreeSource> SNode<D, T> {
    #[inline(always)]
    fn view(&self) -> View {
        View { ply: self.ply, pv: self.pv, index: self.index, max: self.max, finished: self.fini, left: self.left }
    }

    /// Moves left and the score still inside the window.
    #[inline(always)]
    fn open(&self) -> bool {
        self.left > 0 && if self.max { self.score < self.beta } else { self.score > self.alpha }
    }

    /// Still the allocation `g` of this node (not freed, not reused).
    #[inline(always)]
    fn is(&self, g: u32) -> bool {
        self.allocated && self.generation == g
    }
}

/// A node as a processor remembers it: its number and the allocation
/// (generation) it saw, so a freed or reused node is recognised.
type NodeRef = (u32, u32);

/// The state a routine hands over to, with the data that state works on.
#[derive(Clone, Copy, Debug)]
pub enum Next {
    /// Expand this node.
    Expand(u32),
    /// Hand out this node's next move (its lock held).
    Search(u32),
    /// Evaluate this leaf.
    Eval(u32),
    /// Leave this node (its lock held).
    Return(u32),
    /// One more move of this node finished with this value (its lock held).
    Update(u32, i64),
    /// Look for work.
    Idle,
    /// Stop.
    Exit,
}

/// Hashes a block number by one multiplication (the queue locks' map is
/// keyed by small integers, and nothing iterates it, so its order is never
/// seen: SipHash's protection buys nothing here and cost 6% of a run).
#[derive(Default)]
struct BlockHasher(u64);

impl std::hash::Hasher for BlockHasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &x in bytes {
            self.0 = (self.0 ^ x as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    #[inline(always)]
    fn write_usize(&mut self, x: usize) {
        self.0 = (x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Everything the processors share, behind one `RefCell`: borrowed only
/// between two awaits, never across one.
struct World<D, T: TreeSource> {
    mem: Memory,
    sched: Scheduler,
    nodes: Vec<SNode<D, T>>,
    bufs: Vec<T::Slot>,
    global: Vec<u32>,
    local: Vec<Vec<u32>>,
    root: u32,
    flag: bool,
    split_var: Option<NodeRef>,
    finish: Option<u64>,
    last_progress: u64,
    stats: TreeStats,
    /// Each processor's state and the node it works at (for the charges
    /// and for the message of a stuck run).
    state: Vec<(State, u32)>,
    /// Each processor's latest charge `(state, kind, ticks)`. With
    /// [`Interleave::Access`] only a processor's latest charge can reach
    /// beyond the end of the search (one that does not suspend it ends
    /// below every other clock), so it is all the end needs to trim.
    last: Vec<(State, Kind, u64)>,
    /// With [`Interleave::State`], where a processor runs on past the
    /// others, all its charges since it was last resumed.
    charges: Vec<Vec<(State, Kind, u64)>>,
    /// Each processor's buffer for tree walks.
    walks: Vec<Vec<NodeRef>>,
    /// The block each processor accessed last (for the message of a stuck run).
    on: Vec<Block>,
    /// Each processor that waits for a block to be written (the block's
    /// list is in `waiters`): its clock when it began to wait, and what the
    /// wait counts as.
    asleep: Vec<Option<(u64, Kind)>>,
    /// Queue locks: the processors queued at each lock, first first.
    queues: std::collections::HashMap<Block, std::collections::VecDeque<Proc>, BuildHasherDefault<BlockHasher>>,
    /// Queue locks: whether the lock a processor queued for was handed to it.
    granted: Vec<bool>,
    /// The processors waiting for each block below the nodes' to be written.
    waiters: Vec<Vec<Proc>>,
    /// Work stealing: the processor whose request waits in each mailbox.
    requests: Vec<Option<Proc>>,
    /// Work stealing and active splitting: the answer in each processor's
    /// mailbox (a node to work at, or none).
    inbox: Vec<Option<Option<NodeRef>>>,
    /// Active splitting: the processors waiting to be recruited.
    idle_set: Vec<bool>,
    /// Active splitting: how many processors are in `idle_set`.
    idle_count: usize,
    /// Active splitting: a buffer for the processors recruited.
    recruits: Vec<Proc>,
    /// Work stealing: each processor's generator of victims.
    rng: Vec<ChaCha8Rng>,
    /// Each processor's access that a busy block refused, `(block, write)`:
    /// the executor issues it again without resuming the processor's task.
    parked: Vec<Option<(Block, bool)>>,
}

/// One simulated search of one tree: the machine, the search's shared data
/// and the processors' routines.
pub struct Machine<'a, T: TreeSource, S: Scheme> {
    src: &'a T,
    scheme: &'a S,
    cfg: MachineSpec,
    /// Move-list entries per node.
    b: usize,
    node_base: Block,
    root_node: T::Node,
    w: RefCell<World<S::Data, T>>,
    /// The running processor may go on while its clock is below this.
    limit: Cell<u64>,
    /// The running processor's clock when it was resumed.
    resumed: Cell<u64>,
}

/// Resolves at once, or after being suspended once: the executor resumes
/// the processor when its clock is the smallest again.
pub struct Suspend(bool);

impl Future for Suspend {
    type Output = ();
    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            self.0 = false;
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}

/// One memory access: issued when first polled. Refused by a busy block,
/// the processor is parked: the executor issues the request again each
/// time the processor's turn comes, without resuming its task, until the
/// block accepts it ([`Machine::access_step`]). Once accepted, the access
/// takes effect and the processor waits out its delay; the next poll
/// finds it done. (A future of its own rather than an `async fn`: it is
/// the simulator's innermost loop.)
pub struct AccessFuture<'m, 'a, T: TreeSource, S: Scheme> {
    m: &'m Machine<'a, T, S>,
    p: Proc,
    b: Block,
    write: bool,
    /// Issued and suspended: the access is served when the task is polled again.
    issued: bool,
}

impl<T: TreeSource, S: Scheme> Future for AccessFuture<'_, '_, T, S> {
    type Output = ();
    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.issued {
            return Poll::Ready(());
        }
        let (m, p, b, write) = (self.m, self.p, self.b, self.write);
        let mut w = m.w.borrow_mut();
        // Most accesses hit and change nothing: checked here, at each of
        // the many places an access is awaited; the rest is one call.
        if w.mem.hits(p, b, write) && !(write && m.has_waiters(&w, b)) {
            return Poll::Ready(());
        }
        let r = m.access_first(&mut w, p, b, write);
        if r.is_pending() {
            self.issued = true;
        }
        r
    }
}

/// How far an access got in one turn of its processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Served, and the processor goes on at once.
    Ready,
    /// Served; the processor waits out the delay while others run.
    Served,
    /// Refused: issued again at the processor's next turn.
    Refused,
}

impl<'a, T: TreeSource, S: Scheme> Machine<'a, T, S> {
    /// A cold machine ready to search the tree of `src` rooted at `root` (a MAX node).
    pub fn new(src: &'a T, root: T::Node, scheme: &'a S, cfg: MachineSpec) -> Result<Machine<'a, T, S>> {
        if cfg.procs == 0 {
            return Err(SimError::NoProcessors);
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
            last: vec![(State::Split, Kind::Work, 0); p],
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
            rng: match cfg.idle {
                Idle::Steal { seed } => (0..p)
                    .map(|q| {
                        let mut r = ChaCha8Rng::seed_from_u64(seed ^ (src.root_key(&root) << 32));
                        r.set_stream(q as u64);
                        r
                    })
                    .collect(),
                _ => vec![],
            },
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
        })
    }

    #[inline(always)]
    fn blk(&self, n: u32) -> Block {
        self.node_base + n as usize
    }

    #[inline(always)]
    fn clock(&self, p: Proc) -> u64 {
        self.w.borrow().sched.clock(p)
    }

    /// Whether processors wait for a write to block `b` (only the shared
    /// variables and mailboxes are waited on).
    #[inline(always)]
    fn has_waiters(&self, w: &World<S::Data, T>, b: Block) -> bool {
        b < self.node_base && !w.waiters[b].is_empty()
    }

    /// The first turn of an access that may miss: parks the processor if
    /// the block refuses it.
    #[inline(never)]
    fn access_first(&self, w: &mut World<S::Data, T>, p: Proc, b: Block, write: bool) -> Poll<()> {
        match self.access_step(w, p, b, write) {
            Step::Ready => Poll::Ready(()),
            Step::Served => Poll::Pending,
            Step::Refused => {
                w.parked[p] = Some((b, write));
                Poll::Pending
            }
        }
    }

    /// One turn of processor `p`'s access to block `b`: the request,
    /// issued again within the turn while the block refuses it for less
    /// than the time `p` may run on.
    #[inline(always)]
    fn access_step(&self, w: &mut World<S::Data, T>, p: Proc, b: Block, write: bool) -> Step {
        loop {
            let now = w.sched.clock(p);
            let r = w.mem.request(p, b, now, write);
            // Only a request that missed (or a lock, recorded in `lock`) can
            // hold a processor up: hits need no record for a stuck run.
            if r != Access::Done(0) {
                w.on[p] = b;
            }
            // A write wakes the processors waiting for the block to change
            // (only the shared variables and mailboxes are waited on).
            if write
                && self.has_waiters(w, b)
                && let Access::Done(d) = r
            {
                self.wake(w, b, now + d);
                // The woken run from the write's end: the writer may not run past them.
                self.limit.set(self.limit.get().min(now + d));
            }
            match r {
                Access::Done(0) => return Step::Ready,
                Access::Done(d) => return if self.charge(w, p, d, Kind::Memory) { Step::Served } else { Step::Ready },
                // Refused until now: others asking at this moment go first.
                Access::Refused(until) if until == now => return Step::Refused,
                Access::Refused(until) => {
                    if self.charge(w, p, until - now, Kind::Memory) {
                        return Step::Refused;
                    }
                }
            }
        }
    }

    /// The turns of processors parked at one block, taken together. It is
    /// the turn of `p`, parked on block `b`, at the smallest clock `t`, which
    /// other processors share. A parked processor's turn changes nothing
    /// but its own clock and charges (and who ran last), so the executor
    /// need not run such turns one by one:
    /// - if the block is busy until `u` serving another processor, `p` and
    ///   the processors at `t` after it (round-robin) that wait for `b`
    ///   too, up to the first that does not, are each refused until `u`:
    ///   charged `u - t` of memory stall and moved to `u`, as their turns
    ///   would do (at `t` they cannot run on, since others are at `t` or `u`);
    /// - if the block is free and serves another waiter `f` first, `p` and
    ///   the waiters after it are refused until now, which changes nothing:
    ///   the scheduler goes on at the first processor at `t` that is `f` or
    ///   does not wait for `b`.
    ///
    /// Returns false, having done nothing, when `p` is the waiter the free
    /// block serves: its turn is an ordinary one. (At a lock that dozens of
    /// processors spin on, most turns are such refusals: 690 M of a run's
    /// 700 M turns at p = 1,024.)
    #[inline(never)]
    fn pass_waiters(&self, w: &mut World<S::Data, T>, p: Proc, b: Block, t: u64) -> bool {
        let until = w.mem.refused(p, b, t);
        let first = match until {
            Some(_) => NONE as Proc,
            None => match w.mem.first_waiter(b) {
                Some(f) if f != p => f,
                // A free block serves `p` first: an ordinary turn.
                _ => return false,
            },
        };
        // The processors at `t` from `p` on, cyclically, a word at a time:
        // `p`'s word from `p`, the later words, the earlier words, `p`'s
        // word below `p` (words with no processor at `t` are passed over).
        let (pw, pb) = (p / 64, p % 64);
        let occupied = w.sched.occupied(t);
        let later = if pw + 1 < 64 { occupied & (!0u64 << (pw + 1)) } else { 0 };
        let earlier = occupied & ((1u64 << pw) - 1);
        let words =
            std::iter::once((pw, !0u64 << pb)).chain(bits(later).chain(bits(earlier)).map(|wi| (wi, !0))).chain(std::iter::once((pw, (1u64 << pb) - 1)));
        for (wi, part) in words {
            let here = w.sched.at(t, wi) & part;
            let waiting = w.mem.waiting_word(b, wi);
            let stops = here & !waiting;
            if let Some(u) = until {
                let run = if stops == 0 { here } else { here & waiting & ((stops & stops.wrapping_neg()) - 1) };
                if run != 0 {
                    for q in bits(run) {
                        let q = wi * 64 + q;
                        debug_assert_eq!(w.mem.refused(q, b, t), Some(u), "P{q} is parked on block {b} at {t}");
                        self.book(w, q, u - t, Kind::Memory);
                    }
                    w.sched.advance(t, wi, run, u);
                    w.sched.set_last(wi * 64 + 63 - run.leading_zeros() as usize);
                }
                if stops != 0 {
                    return true;
                }
            } else {
                let f_here = if first / 64 == wi { here & (1u64 << (first % 64)) } else { 0 };
                let next = stops | f_here;
                if next != 0 {
                    let j = wi * 64 + next.trailing_zeros() as usize;
                    w.sched.set_last((j + self.cfg.procs - 1) % self.cfg.procs);
                    return true;
                }
            }
        }
        // Every processor at `t` was refused until `u`; or (a broken
        // invariant: the first waiter is not at `t`) nothing was done.
        until.is_some()
    }

    // ---- the machine's primitives: every one a scheduling point -----------------

    /// Spends `d > 0` ticks of `kind` in `p`'s current state; whether `p`
    /// must now let the others run: another processor's clock is at or below
    /// its own (with [`Interleave::State`], only for lock waits).
    #[inline(always)]
    fn charge(&self, w: &mut World<S::Data, T>, p: Proc, d: u64, kind: Kind) -> bool {
        self.book(w, p, d, kind);
        let t = w.sched.clock(p) + d;
        w.sched.set(p, t);
        // A processor that has made no progress for the stall limit is
        // suspended in any case, so that the executor can stop the run.
        let stalled = t > w.last_progress.saturating_add(self.cfg.stall_limit);
        (t >= self.limit.get() && (self.cfg.interleave == Interleave::Access || kind == Kind::Lock)) || stalled
    }

    /// Books `d` ticks of `kind` to `p`'s current state: the time per
    /// state, and `p`'s latest charge (or, with [`Interleave::State`], its
    /// log of charges), which the end of the run trims. The clock is the
    /// caller's to move.
    #[inline(always)]
    fn book(&self, w: &mut World<S::Data, T>, p: Proc, d: u64, kind: Kind) {
        let s = w.state[p].0;
        w.stats.time[s as usize][kind as usize] += d;
        w.last[p] = (s, kind, d);
        if self.cfg.interleave == Interleave::State {
            log_charge(w, p, (s, kind, d));
        }
    }

    /// [`Machine::charge`] as a future: suspends `p` if it must let the others run.
    #[inline(always)]
    fn pause(&self, p: Proc, d: u64, kind: Kind) -> Suspend {
        Suspend(self.charge(&mut self.w.borrow_mut(), p, d, kind))
    }

    /// Lets the others run if `p` has moved past them since it was resumed.
    #[inline(always)]
    fn reschedule(&self, p: Proc) -> Suspend {
        let c = self.clock(p);
        Suspend(c >= self.limit.get() && c > self.resumed.get())
    }

    /// The state's own work: `d` ticks.
    #[inline(always)]
    pub fn work(&self, p: Proc, d: u64) -> Suspend {
        if d > 0 { self.pause(p, d, Kind::Work) } else { Suspend(false) }
    }

    /// A read of block `b`.
    #[inline(always)]
    pub fn read(&self, p: Proc, b: Block) -> AccessFuture<'_, 'a, T, S> {
        AccessFuture { m: self, p, b, write: false, issued: false }
    }

    /// A write of block `b`.
    #[inline(always)]
    pub fn write(&self, p: Proc, b: Block) -> AccessFuture<'_, 'a, T, S> {
        AccessFuture { m: self, p, b, write: true, issued: false }
    }

    /// Takes the lock of block `b` by test-and-set: every attempt is a write
    /// access; the time of a failed attempt (at least a tick) is lock wait.
    /// (With [`LockKind::Queue`], [`Machine::lock_queued`].)
    pub async fn lock(&self, p: Proc, b: Block) {
        self.w.borrow_mut().on[p] = b;
        if self.cfg.lock == LockKind::Queue {
            return self.lock_queued(p, b).await;
        }
        loop {
            let t0 = self.clock(p);
            self.write(p, b).await;
            let spent = {
                let mut w = self.w.borrow_mut();
                if w.mem.test_and_set(p, b) {
                    return;
                }
                let spent = w.sched.clock(p) - t0;
                let s = w.state[p].0 as usize;
                w.stats.time[s][Kind::Memory as usize] -= spent;
                w.stats.time[s][Kind::Lock as usize] += spent;
                // The attempt's own charges are the latest ones, `spent`
                // ticks in all (those since p was last resumed, in the log).
                if spent > 0 {
                    w.last[p].1 = Kind::Lock;
                }
                let mut left = spent;
                for c in w.charges[p].iter_mut().rev() {
                    if left == 0 {
                        break;
                    }
                    c.1 = Kind::Lock;
                    left = left.saturating_sub(c.2);
                }
                spent
            };
            if spent == 0 {
                self.pause(p, 1, Kind::Lock).await;
            } else {
                self.reschedule(p).await;
            }
        }
    }

    /// Waits until another processor writes block `b`: a spin on the cached
    /// copy, which costs nothing until the write invalidates it. The wait
    /// is the state's own time; the processor resumes when the write is
    /// served, and must read the block again (a miss).
    fn wait_for_write(&self, p: Proc, b: Block, kind: Kind) -> Suspend {
        let mut w = self.w.borrow_mut();
        let now = w.sched.clock(p);
        w.asleep[p] = Some((now, kind));
        w.waiters[b].push(p);
        w.sched.set(p, NEVER);
        Suspend(true)
    }

    /// Wakes the processors waiting for block `b` at time `t`.
    #[cold]
    fn wake(&self, w: &mut World<S::Data, T>, b: Block, t: u64) {
        let waiting = std::mem::take(&mut w.waiters[b]);
        for &q in &waiting {
            if let Some((since, kind)) = w.asleep[q].take() {
                self.book(w, q, t - since, kind);
                w.sched.set(q, t);
            }
        }
        // Keep the list's allocation.
        let mut waiting = waiting;
        waiting.clear();
        if w.waiters[b].is_empty() {
            w.waiters[b] = waiting;
        }
    }

    /// A queue lock: one write access (the swap on the queue's tail) takes
    /// a free lock or joins the queue; a queued processor waits on its own
    /// flag until the holder hands the lock over, then reads the flag.
    async fn lock_queued(&self, p: Proc, b: Block) {
        self.write(p, b).await;
        {
            let mut w = self.w.borrow_mut();
            if w.mem.test_and_set(p, b) {
                return;
            }
            w.queues.entry(b).or_default().push_back(p);
            w.granted[p] = false;
        }
        let mb = self.mbox(p);
        while !self.w.borrow().granted[p] {
            self.wait_for_write(p, mb, Kind::Lock).await;
        }
        self.read(p, mb).await;
    }

    /// Releases `p`'s lock of block `b` (a write access); a queue lock goes
    /// to the first processor queued, whose flag is then written.
    pub async fn unlock(&self, p: Proc, b: Block) {
        self.write(p, b).await;
        let next = {
            let mut w = self.w.borrow_mut();
            // A queue is dropped once empty, so an uncontended unlock finds
            // the map empty and does no hashing.
            let next = match w.queues.get_mut(&b) {
                Some(q) => {
                    let next = q.pop_front();
                    if q.is_empty() {
                        w.queues.remove(&b);
                    }
                    next
                }
                None => None,
            };
            match next {
                Some(q) => {
                    w.mem.set_lock(b, Some(q));
                    w.granted[q] = true;
                }
                None => w.mem.release(p, b),
            }
            next
        };
        if let Some(q) = next {
            self.write(p, self.mbox(q)).await;
        }
    }

    /// Enters state `s` at node `at`.
    #[inline(always)]
    fn enter(&self, p: Proc, s: State, at: u32) -> Suspend {
        let mut w = self.w.borrow_mut();
        w.state[p] = (s, at);
        if self.cfg.trace {
            trace_entry(&mut w, p, s, at);
        }
        drop(w);
        self.step(p)
    }

    /// The end of a step of the earlier model ([`Interleave::State`]): a
    /// state, or one pass of the idle loop. Nothing with [`Interleave::Access`].
    #[inline(always)]
    fn step(&self, p: Proc) -> Suspend {
        if self.cfg.interleave == Interleave::State { self.reschedule(p) } else { Suspend(false) }
    }

    // ---- the node heaps ---------------------------------------------------------

    /// Takes a node from the local heap, else from the global heap (under
    /// its lock), else makes a new one; the node comes back locked by `p`.
    async fn alloc(&self, p: Proc) -> u32 {
        self.write(p, FIRST_PRIVATE + p).await;
        let local = self.w.borrow_mut().local[p].pop();
        let n = match local {
            Some(n) => n,
            None => {
                self.lock(p, HEAP_BLOCK).await;
                let n = {
                    let mut w = self.w.borrow_mut();
                    match w.global.pop() {
                        Some(n) => n,
                        None => make_node(&mut w, self.b, self.cfg.procs),
                    }
                };
                self.unlock(p, HEAP_BLOCK).await;
                n
            }
        };
        // A processor that found this node's old allocation stale may still
        // hold its lock for a moment: a real test-and-set.
        self.lock(p, self.blk(n)).await;
        n
    }

    /// Returns a node (unlinked, marked free, still locked by `p`) to the
    /// local heap, or to the global heap when the local one holds `2d`.
    async fn free(&self, p: Proc, n: u32) {
        self.unlock(p, self.blk(n)).await;
        self.write(p, FIRST_PRIVATE + p).await;
        let full = {
            let mut w = self.w.borrow_mut();
            let full = w.local[p].len() >= 2 * self.cfg.depth.max(1) as usize;
            if !full {
                w.local[p].push(n);
            }
            full
        };
        if full {
            self.lock(p, HEAP_BLOCK).await;
            self.w.borrow_mut().global.push(n);
            self.unlock(p, HEAP_BLOCK).await;
        }
    }

    // ---- the states (thesis §6.2) -------------------------------------------------

    /// Processor 0 before the search: allocates the root.
    async fn start(&self, p: Proc) -> Next {
        self.enter(p, State::Search, NONE).await;
        let r = self.alloc(p).await;
        let mut w = self.w.borrow_mut();
        w.root = r;
        let n = &mut w.nodes[r as usize];
        *n = SNode { generation: n.generation, ..SNode::blank() };
        if self.cfg.depth == 0 {
            n.value = self.src.horizon_value(&self.root_node, true);
        }
        n.node = Some(self.root_node.clone());
        n.alpha = ROOT_ALPHA;
        n.beta = ROOT_BETA;
        n.score = ROOT_ALPHA;
        n.threads = 1;
        n.pv = true;
        n.allocated = true;
        n.data = self.scheme.root();
        w.stats.nodes += 1;
        if self.cfg.depth == 0 {
            w.stats.leaves += 1;
            Next::Eval(r)
        } else {
            Next::Expand(r)
        }
    }

    /// **expand**: generate the node's moves (it is locked since its creation).
    async fn expand(&self, p: Proc, c: u32) -> Next {
        self.enter(p, State::Expand, c).await;
        self.work(p, cost::EXPAND).await;
        self.write(p, self.blk(c)).await;
        let mut w = self.w.borrow_mut();
        let w = &mut *w;
        let bw = self.b;
        let n = &mut w.nodes[c as usize];
        let node = n.node.as_ref().expect("an internal node has its position");
        let moves = self.src.moves(node, n.max, &mut w.bufs[c as usize * bw..(c as usize + 1) * bw]);
        let len = moves.len();
        // A game over before the horizon: a leaf after all, valued now.
        let terminal = (len == 0).then(|| self.src.terminal_value(node, n.max, n.ply));
        n.cursor = Some(self.src.detach(moves));
        n.left = len;
        n.moves = len;
        n.fini = 0;
        if let Some(v) = terminal {
            n.value = v;
            w.stats.leaves += 1;
            return Next::Eval(c);
        }
        Next::Search(c)
    }

    /// **search** (node locked): return on a cut-off or when no move is
    /// left; else allocate the next move's child, unlock, go to the child.
    async fn search(&self, p: Proc, c: u32) -> Next {
        self.enter(p, State::Search, c).await;
        self.work(p, cost::SEARCH).await;
        let cb = self.blk(c);
        self.write(p, cb).await;
        {
            let mut w = self.w.borrow_mut();
            let n = &mut w.nodes[c as usize];
            if n.max && n.score >= n.beta {
                n.score = n.beta;
                return Next::Return(c);
            }
            if !n.max && n.score <= n.alpha {
                n.score = n.alpha;
                return Next::Return(c);
            }
            if n.left == 0 {
                return Next::Return(c);
            }
        }
        if self.cfg.idle.mailboxes() {
            self.share_work(p, c).await;
        }
        let id = self.alloc(p).await;
        let leaf = {
            let mut w = self.w.borrow_mut();
            let w = &mut *w;
            let bw = self.b;
            let n = &mut w.nodes[c as usize];
            let cursor = n.cursor.expect("an expanded node has a cursor");
            let mut moves = self.src.resume(cursor, &mut w.bufs[c as usize * bw..(c as usize + 1) * bw]);
            let k = moves.next().expect("moves left");
            let ply = n.ply + 1;
            let leaf = ply >= self.cfg.depth;
            let parent = n.node.as_ref().expect("an internal node has its position");
            let (node, value) = if leaf { (None, moves.leaf_value(parent, k)) } else { (Some(moves.child(parent, k)), 0) };
            let cursor = self.src.detach(moves);
            n.cursor = Some(cursor);
            let index = T::handed_out(&cursor);
            // The child's window is the parent's at the moment it is created.
            let (alpha, beta) = if n.max { (n.score, n.beta) } else { (n.alpha, n.score) };
            let child_max = !n.max;
            let pv = n.pv && index == 1;
            let data = self.scheme.child(&n.view(), &n.data, index, child_max, alpha, beta);
            n.left -= 1;
            let m = &mut w.nodes[id as usize];
            *m = SNode {
                alpha,
                beta,
                score: if child_max { alpha } else { beta },
                node,
                value,
                parent: c,
                generation: m.generation,
                threads: 1,
                ply,
                index,
                max: child_max,
                pv,
                allocated: true,
                data,
                ..SNode::blank()
            };
            link(&mut w.nodes, c, id);
            w.stats.nodes += 1;
            w.last_progress = w.sched.clock(p);
            if leaf {
                w.stats.leaves += 1;
            }
            leaf
        };
        self.unlock(p, cb).await;
        if leaf { Next::Eval(id) } else { Next::Expand(id) }
    }

    /// **eval**: the leaf's score is its value (an artificial leaf's pscore).
    async fn eval(&self, p: Proc, c: u32) -> Next {
        self.enter(p, State::Eval, c).await;
        self.work(p, cost::EVAL).await;
        self.write(p, self.blk(c)).await;
        let mut w = self.w.borrow_mut();
        let n = &mut w.nodes[c as usize];
        n.score = n.value;
        Next::Return(c)
    }

    /// **return** (node locked): leave it to the others still working at it;
    /// else end the search at the root; else free it and update the parent.
    async fn ret(&self, p: Proc, c: u32) -> Next {
        self.enter(p, State::Return, c).await;
        self.work(p, cost::RETURN).await;
        let cb = self.blk(c);
        self.write(p, cb).await;
        let (shared, root, value, parent) = {
            let mut w = self.w.borrow_mut();
            let root = w.root == c;
            let n = &mut w.nodes[c as usize];
            let shared = n.threads > 1;
            if shared {
                n.threads -= 1;
            }
            (shared, root, n.score, n.parent)
        };
        if shared {
            self.unlock(p, cb).await;
            return Next::Idle;
        }
        if root {
            self.unlock(p, cb).await;
            self.write(p, FLAG_BLOCK).await;
            let mut w = self.w.borrow_mut();
            w.flag = true;
            w.stats.value = value;
            w.finish = Some(w.sched.clock(p));
            return Next::Exit;
        }
        // The node stays locked until the parent's lock is held, so nobody
        // walking the tree meets a freed node through the parent.
        self.lock(p, self.blk(parent)).await;
        {
            let mut w = self.w.borrow_mut();
            unlink(&mut w.nodes, parent, c);
            let n = &mut w.nodes[c as usize];
            n.allocated = false;
            n.generation = n.generation.wrapping_add(1);
            n.cursor = None;
            n.node = None;
            w.last_progress = w.sched.clock(p);
        }
        self.free(p, c).await;
        Next::Update(parent, value)
    }

    /// **update** (node locked): one more move finished; take its value if
    /// better, and tell the subtree others search below of the new bound.
    async fn update(&self, p: Proc, c: u32, value: i64) -> Next {
        self.enter(p, State::Update, c).await;
        self.work(p, cost::UPDATE).await;
        self.write(p, self.blk(c)).await;
        let tell = {
            let mut w = self.w.borrow_mut();
            let n = &mut w.nodes[c as usize];
            n.fini += 1;
            let v = n.view();
            self.scheme.finished(&v, &mut n.data);
            let improved = if n.max { value > n.score } else { value < n.score };
            if improved {
                n.score = value;
            }
            (improved && n.threads > 1).then_some(n.max)
        };
        if let Some(from_max) = tell {
            self.propagate(p, c, from_max, value).await;
        }
        if self.cfg.idle == Idle::PvSplit {
            self.publish_pv(p, c).await;
        }
        Next::Search(c)
    }

    /// PV splitting: a PV node (locked) whose first move has just finished
    /// and that still has moves to hand out is published for all.
    async fn publish_pv(&self, p: Proc, c: u32) {
        let at = {
            let w = self.w.borrow();
            let n = &w.nodes[c as usize];
            (n.pv && n.fini == 1 && n.open()).then_some((c, n.generation))
        };
        if at.is_some() {
            self.write(p, SPLIT_BLOCK).await;
            self.w.borrow_mut().split_var = at;
        }
    }

    /// Tells the allocated subtree below node `c` of a new bound `v`: a new
    /// lower bound if `c` is MAX, else a new upper bound. Bounds only
    /// tighten going down, so below a node that has the bound already the
    /// walk stops. Each node is read, and written if told (1 tick).
    async fn propagate(&self, p: Proc, c: u32, from_max: bool, v: i64) {
        let mut stack = std::mem::take(&mut self.w.borrow_mut().walks[p]);
        stack.clear();
        push_children(&self.w.borrow().nodes, c, &mut stack);
        while let Some((x, g)) = stack.pop() {
            let b = self.blk(x);
            self.read(p, b).await;
            {
                let w = self.w.borrow();
                let n = &w.nodes[x as usize];
                if !n.is(g) || !if from_max { n.alpha < v } else { n.beta > v } {
                    continue;
                }
            }
            self.write(p, b).await;
            {
                let mut w = self.w.borrow_mut();
                let n = &mut w.nodes[x as usize];
                if !n.is(g) {
                    continue;
                }
                if from_max {
                    n.alpha = n.alpha.max(v);
                    if n.max && n.score < n.alpha {
                        n.score = n.alpha;
                    }
                } else {
                    n.beta = n.beta.min(v);
                    if !n.max && n.score > n.beta {
                        n.score = n.beta;
                    }
                }
                w.stats.told += 1;
                push_children(&w.nodes, x, &mut stack);
            }
            self.work(p, 1).await;
        }
        self.w.borrow_mut().walks[p] = stack;
    }

    // ---- the idle loop (thesis Figure 6.12) ------------------------------------------

    /// **split**: look for work until there is some or the search is over.
    async fn idle(&self, p: Proc) -> Next {
        self.enter(p, State::Split, NONE).await;
        match self.cfg.idle {
            Idle::SplitVariable(walk) => self.idle_split_variable(p, walk).await,
            Idle::PvSplit => self.idle_pv(p).await,
            Idle::Steal { .. } => self.idle_steal(p).await,
            Idle::Active { .. } => self.idle_active(p).await,
        }
    }

    /// Under the node's lock: joins node `(n, g)` if it is still that
    /// allocation and still has moves to hand out.
    fn join(&self, (n, g): NodeRef) -> bool {
        let mut w = self.w.borrow_mut();
        let x = &mut w.nodes[n as usize];
        let ok = x.is(g) && x.open();
        if ok {
            x.threads += 1;
        }
        ok
    }

    /// Whether the search is over: a read of the end-of-search flag.
    async fn search_over(&self, p: Proc) -> bool {
        self.read(p, FLAG_BLOCK).await;
        self.w.borrow().flag
    }

    /// PV splitting's idle loop: join the published PV node while it has
    /// moves to hand out; else wait for the next publication (no work
    /// elsewhere).
    async fn idle_pv(&self, p: Proc) -> Next {
        loop {
            if self.search_over(p).await {
                return Next::Exit;
            }
            self.read(p, SPLIT_BLOCK).await;
            let seen = self.w.borrow().split_var;
            if let Some((n, g)) = seen {
                self.read(p, self.blk(n)).await;
                if self.valid((n, g)) {
                    self.lock(p, self.blk(n)).await;
                    if self.join((n, g)) {
                        return Next::Search(n);
                    }
                    self.unlock(p, self.blk(n)).await;
                }
            }
            // Published meanwhile: look again rather than wait.
            if self.w.borrow().split_var == seen {
                self.wait_for_write(p, SPLIT_BLOCK, Kind::Work).await;
            }
        }
    }

    /// Processor `q`'s mailbox.
    #[inline(always)]
    fn mbox(&self, q: Proc) -> Block {
        FIRST_PRIVATE + self.cfg.procs + q
    }

    /// The set of idle processors (active splitting).
    #[inline(always)]
    fn idle_block(&self) -> Block {
        FIRST_PRIVATE + 2 * self.cfg.procs
    }

    /// Work stealing's idle loop: send a request to a random victim, wait
    /// for its answer (answering other thieves' requests with "no work"
    /// meanwhile); start at the node offered, or try another victim.
    async fn idle_steal(&self, p: Proc) -> Next {
        let procs = self.cfg.procs;
        loop {
            if self.search_over(p).await {
                return Next::Exit;
            }
            self.read(p, self.mbox(p)).await;
            if self.w.borrow().requests[p].is_some() {
                self.refuse(p).await;
            }
            let v = {
                let mut w = self.w.borrow_mut();
                let k = w.rng[p].next_u64() % (procs as u64 - 1).max(1);
                (p + 1 + k as usize) % procs
            };
            let vb = self.mbox(v);
            self.lock(p, vb).await;
            let sent = {
                let mut w = self.w.borrow_mut();
                let free = w.requests[v].is_none();
                if free {
                    w.requests[v] = Some(p);
                }
                free
            };
            self.unlock(p, vb).await;
            if !sent {
                continue;
            }
            loop {
                let mb = self.mbox(p);
                self.read(p, mb).await;
                let (answer, asked) = {
                    let w = self.w.borrow();
                    (w.inbox[p], w.requests[p].is_some())
                };
                if asked {
                    self.refuse(p).await;
                    continue;
                }
                if let Some(offer) = answer {
                    self.write(p, mb).await;
                    self.w.borrow_mut().inbox[p] = None;
                    if let Some((n, _)) = offer {
                        // The victim counted us in: the node stays allocated.
                        self.lock(p, self.blk(n)).await;
                        return Next::Search(n);
                    }
                    break;
                }
                self.wait_for_write(p, mb, Kind::Work).await;
            }
        }
    }

    /// Answers the request in `p`'s mailbox with "no work".
    async fn refuse(&self, p: Proc) {
        let mb = self.mbox(p);
        self.lock(p, mb).await;
        let r = self.w.borrow_mut().requests[p].take();
        self.unlock(p, mb).await;
        if let Some(r) = r {
            self.write(p, self.mbox(r)).await;
            self.w.borrow_mut().inbox[r] = Some(None);
        }
    }

    /// Active splitting's idle loop: register as idle, then wait in the
    /// mailbox until a working processor recruits us to a node.
    async fn idle_active(&self, p: Proc) -> Next {
        let ib = self.idle_block();
        self.lock(p, ib).await;
        {
            let mut w = self.w.borrow_mut();
            w.idle_set[p] = true;
            w.idle_count += 1;
        }
        self.unlock(p, ib).await;
        loop {
            if self.search_over(p).await {
                return Next::Exit;
            }
            let mb = self.mbox(p);
            self.read(p, mb).await;
            let assigned = self.w.borrow().inbox[p];
            if let Some(Some((n, _))) = assigned {
                self.write(p, mb).await;
                self.w.borrow_mut().inbox[p] = None;
                // The recruiter counted us in: the node stays allocated.
                self.lock(p, self.blk(n)).await;
                return Next::Search(n);
            }
            self.wait_for_write(p, mb, Kind::Work).await;
        }
    }

    /// What a working processor at node `c` (locked, about to hand out a
    /// move) does for idle ones: nothing for the thesis's idle loop and PV
    /// splitting; answer a thief's request (work stealing); recruit the
    /// idle processors to `c` (active splitting).
    async fn share_work(&self, p: Proc, c: u32) {
        match self.cfg.idle {
            Idle::SplitVariable(_) | Idle::PvSplit => {}
            Idle::Steal { .. } => {
                let mb = self.mbox(p);
                self.read(p, mb).await;
                if self.w.borrow().requests[p].is_none() {
                    return;
                }
                self.lock(p, mb).await;
                let r = self.w.borrow_mut().requests[p].take();
                self.unlock(p, mb).await;
                let Some(r) = r else { return };
                let offer = self.offer(p, c).await;
                self.write(p, self.mbox(r)).await;
                self.w.borrow_mut().inbox[r] = Some(offer);
            }
            Idle::Active { min_split_depth, group } => {
                let eligible = {
                    let w = self.w.borrow();
                    let n = &w.nodes[c as usize];
                    n.left >= 2 && n.threads < group && self.cfg.depth - n.ply >= min_split_depth && self.scheme.eligible(&n.view(), &n.data).is_some()
                };
                if !eligible {
                    return;
                }
                let ib = self.idle_block();
                self.read(p, ib).await;
                if self.w.borrow().idle_count == 0 {
                    return;
                }
                self.lock(p, ib).await;
                let (recruits, at) = {
                    let mut w = self.w.borrow_mut();
                    let w = &mut *w;
                    let n = &w.nodes[c as usize];
                    let room = (n.left as usize - 1).min((group as usize).saturating_sub(n.threads as usize));
                    let mut recruits = std::mem::take(&mut w.recruits);
                    recruits.clear();
                    for q in 0..self.cfg.procs {
                        if recruits.len() == room {
                            break;
                        }
                        if w.idle_set[q] {
                            w.idle_set[q] = false;
                            w.idle_count -= 1;
                            recruits.push(q);
                        }
                    }
                    let n = &mut w.nodes[c as usize];
                    n.threads += recruits.len() as u32;
                    (recruits, (c, n.generation))
                };
                self.unlock(p, ib).await;
                for &q in &recruits {
                    self.write(p, self.mbox(q)).await;
                    self.w.borrow_mut().inbox[q] = Some(Some(at));
                }
                self.w.borrow_mut().recruits = recruits;
            }
        }
    }

    /// Work stealing's offer: the highest eligible node of `p`'s own part
    /// of the tree, walking up from `c` (locked) to the first node others
    /// work at too (each node read, 1 tick); the thief is counted in at it.
    async fn offer(&self, p: Proc, c: u32) -> Option<NodeRef> {
        let mut best = None;
        let mut x = c;
        loop {
            if x != c {
                self.read(p, self.blk(x)).await;
            }
            self.work(p, 1).await;
            let (shared, parent) = {
                let w = self.w.borrow();
                let n = &w.nodes[x as usize];
                let room = if x == c { n.left >= 2 } else { n.open() };
                if room && self.scheme.eligible(&n.view(), &n.data).is_some() {
                    best = Some((x, n.generation));
                }
                (n.threads > 1, n.parent)
            };
            if shared || parent == NONE {
                break;
            }
            x = parent;
        }
        let (n, g) = best?;
        if n == c {
            self.w.borrow_mut().nodes[c as usize].threads += 1;
            return best;
        }
        self.lock(p, self.blk(n)).await;
        let ok = self.join((n, g));
        self.unlock(p, self.blk(n)).await;
        ok.then_some((n, g))
    }

    /// The thesis's idle loop: take the split-point variable's lock; join the
    /// node it holds if that is still valid, else search the tree for a new
    /// one, store and join it; if there is none, unlock and pause 36 ticks.
    async fn idle_split_variable(&self, p: Proc, walk: Walk) -> Next {
        loop {
            self.step(p).await;
            if self.search_over(p).await {
                return Next::Exit;
            }
            self.lock(p, SPLIT_BLOCK).await;
            loop {
                self.step(p).await;
                self.work(p, cost::SPLIT).await;
                self.read(p, SPLIT_BLOCK).await;
                let mut sp = self.w.borrow().split_var;
                if let Some(s) = sp {
                    self.read(p, self.blk(s.0)).await;
                    if !self.valid(s) {
                        sp = None;
                    }
                }
                if sp.is_none() {
                    sp = self.find_split_point(p, walk).await;
                    self.write(p, SPLIT_BLOCK).await;
                    self.w.borrow_mut().split_var = sp;
                }
                let Some((n, g)) = sp else {
                    self.unlock(p, SPLIT_BLOCK).await;
                    self.work(p, cost::RETRY).await;
                    break;
                };
                // Join: under the node's lock, it must still be the valid node seen.
                self.lock(p, self.blk(n)).await;
                if self.join((n, g)) {
                    self.unlock(p, SPLIT_BLOCK).await;
                    return Next::Search(n);
                }
                self.unlock(p, self.blk(n)).await;
            }
        }
    }

    #[inline(always)]
    fn valid(&self, (n, g): NodeRef) -> bool {
        let w = self.w.borrow();
        let x = &w.nodes[n as usize];
        x.is(g) && x.open()
    }

    /// The split-point search: walks the allocated tree breadth-first from
    /// the root (each node read, 1 tick) and returns the best eligible node
    /// by the shared preference order (ties: the first found).
    async fn find_split_point(&self, p: Proc, walk: Walk) -> Option<NodeRef> {
        let mut q = std::mem::take(&mut self.w.borrow_mut().walks[p]);
        q.clear();
        {
            let w = self.w.borrow();
            if w.root != NONE {
                q.push((w.root, w.nodes[w.root as usize].generation));
            }
        }
        let (mut head, mut level_end) = (0, q.len());
        let mut best: Option<(NodeRef, Candidate)> = None;
        let mut examined = 0;
        while head < q.len() {
            if head == level_end {
                if walk == Walk::Level && best.is_some() {
                    break;
                }
                level_end = q.len();
            }
            let (x, g) = q[head];
            head += 1;
            self.read(p, self.blk(x)).await;
            self.work(p, 1).await;
            examined += 1;
            let w = self.w.borrow();
            let n = &w.nodes[x as usize];
            if !n.is(g) {
                continue;
            }
            if n.open()
                && let Some(progress) = self.scheme.eligible(&n.view(), &n.data)
            {
                let c = Candidate::new(n.ply, progress, n.left, n.moves);
                if best.is_none_or(|(_, o)| c.better(&o)) {
                    best = Some(((x, g), c));
                }
            }
            push_children(&w.nodes, x, &mut q);
        }
        let mut w = self.w.borrow_mut();
        w.stats.split_searches += 1;
        w.stats.split_examined += examined;
        w.walks[p] = q;
        best.map(|(r, _)| r)
    }

    // ---- the processors and the executor -------------------------------------------

    /// One processor: its states, one after the other, until it exits.
    async fn processor(&self, p: Proc) {
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
                            GROUPED.with(|g| g.set(g.get() + 1));
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
                    w.sched.set(p, NEVER);
                    if w.finish.is_some() {
                        break;
                    }
                }
            }
        }
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
        w.stats.time[State::Exit as usize][Kind::Work as usize] += exit_time;
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
        Ok(w.stats)
    }

    fn stuck(&self, w: &World<S::Data, T>) -> SimError {
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

/// Adds a charge to `p`'s log ([`Interleave::State`]).
#[inline(never)]
fn log_charge<D, T: TreeSource>(w: &mut World<D, T>, p: Proc, c: (State, Kind, u64)) {
    w.charges[p].push(c);
}

/// Records `p`'s entry into state `s` at node `at` (a path of move numbers).
#[cold]
#[inline(never)]
fn trace_entry<D, T: TreeSource>(w: &mut World<D, T>, p: Proc, s: State, at: u32) {
    let node = (at != NONE).then(|| {
        let mut path = vec![];
        let mut x = at;
        while x != w.root && x != NONE {
            path.push(w.nodes[x as usize].index.to_string());
            x = w.nodes[x as usize].parent;
        }
        path.reverse();
        path.join(".")
    });
    let t = w.sched.clock(p);
    w.stats.trace.push(TraceEvent { t, proc: p, state: s, node });
}

fn make_node<D: Default, T: TreeSource>(w: &mut World<D, T>, b: usize, procs: usize) -> u32 {
    let id = w.nodes.len() as u32;
    w.nodes.push(SNode::blank());
    w.bufs.extend(std::iter::repeat_n(T::Slot::default(), b));
    w.mem.add_block(id as usize % procs);
    id
}

fn link<D, T: TreeSource>(nodes: &mut [SNode<D, T>], parent: u32, c: u32) {
    let last = nodes[parent as usize].last_child;
    nodes[c as usize].prev_sib = last;
    nodes[c as usize].next_sib = NONE;
    if last == NONE {
        nodes[parent as usize].first_child = c;
    } else {
        nodes[last as usize].next_sib = c;
    }
    nodes[parent as usize].last_child = c;
}

fn unlink<D, T: TreeSource>(nodes: &mut [SNode<D, T>], parent: u32, c: u32) {
    let (prev, next) = (nodes[c as usize].prev_sib, nodes[c as usize].next_sib);
    if prev == NONE {
        nodes[parent as usize].first_child = next;
    } else {
        nodes[prev as usize].next_sib = next;
    }
    if next == NONE {
        nodes[parent as usize].last_child = prev;
    } else {
        nodes[next as usize].prev_sib = prev;
    }
}

/// Appends `x`'s children (as they are now, in creation order) to a stack
/// or queue.
fn push_children<D, T: TreeSource>(nodes: &[SNode<D, T>], x: u32, to: &mut Vec<NodeRef>) {
    let mut y = nodes[x as usize].first_child;
    while y != NONE {
        to.push((y, nodes[y as usize].generation));
        y = nodes[y as usize].next_sib;
    }
}

/// Simulates the search of the tree of `src` rooted at `root` with `scheme`.
pub fn simulate<T: TreeSource, S: Scheme>(src: &T, root: T::Node, scheme: &S, cfg: MachineSpec) -> Result<TreeStats> {
    Machine::new(src, root, scheme, cfg)?.run()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::search;
    use crate::sim::schemes::{DtsSplit, YbwcSplit};
    use crate::tree::{Model, Node, Ordering, ROOT_PSCORE, Shape};

    fn shape(b: u32, wa: u32, wb: u32) -> Shape {
        Shape::new(Model::Exponential, Ordering::new(b, wa, wb).unwrap()).unwrap()
    }

    #[test]
    fn one_processor_is_the_sequential_search() {
        for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (1, 0, 0)] {
            let sh = shape(b, wa, wb);
            for seed in 1..20u32 {
                let root = Node { seed: seed * 7919, pscore: ROOT_PSCORE as u32 };
                for depth in 0..5 {
                    for interleave in [Interleave::Access, Interleave::State] {
                        let seq = search(&sh, &root, depth, &mut ());
                        let cfg = MachineSpec { interleave, ..MachineSpec::new(1, depth) };
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
        let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, MachineSpec::new(1, 6)).unwrap();
        let (n, l, i) = (seq.counts.nodes, seq.counts.leaves, seq.counts.internal);
        assert_eq!(r.ticks, 3 * (n - 1) + 8 * l + 4 * i + 11);
    }

    #[test]
    fn no_progress_stops_with_the_processors_states() {
        let sh = shape(6, 50, 50);
        let root = Node { seed: 4242, pscore: ROOT_PSCORE as u32 };
        let cfg = MachineSpec { stall_limit: 5, ..MachineSpec::new(4, 4) };
        let SimError::Stuck { limit, states, .. } = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap_err() else { panic!("not stuck") };
        assert_eq!(limit, 5);
        for q in 0..4 {
            assert!(states.contains(&format!("P{q} ")), "{states}");
        }
        assert!(states.contains("split"), "{states}");
        // With the default limit the same tree finishes, heaps balanced.
        let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, MachineSpec::new(4, 4)).unwrap();
        assert_eq!(r.value, ROOT_PSCORE as i64);
        assert!(r.pool >= 4 * 4 * 2);
    }

    #[test]
    fn zero_processors_are_refused() {
        let sh = shape(2, 0, 0);
        let root = Node { seed: 1, pscore: 5 };
        assert_eq!(simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, MachineSpec::new(0, 2)).unwrap_err(), SimError::NoProcessors);
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
                            let cfg = MachineSpec { interleave, idle: Idle::SplitVariable(walk), ..MachineSpec::new(procs, depth) };
                            let a = simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, cfg).unwrap();
                            let tag = format!("b={b} seed={seed} depth={depth} p={procs} {interleave:?} {walk:?}");
                            assert_eq!(a.value, want, "A {tag}");
                            assert_eq!(a.accounted(), a.ticks * procs as u64, "A {tag}");
                            let bb = simulate(&sh, root, &DtsSplit { m_b: 1, pv_wait: 1 }, cfg).unwrap();
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
        let one = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, MachineSpec::new(1, 2)).unwrap();
        let two = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, MachineSpec::new(2, 2)).unwrap();
        assert_eq!(two.value, want);
        assert_eq!(two.accounted(), 2 * two.ticks);
        // Processor 1 ran at least one split-point search, each examining the root.
        assert!(two.split_searches >= 1 && two.split_examined >= two.split_searches);
        assert!(two.in_state(State::Split) > 0);
        // Its idle time includes the 36-tick pauses after failed searches.
        assert!(two.work(State::Split) >= 36 * (two.split_searches - 1));
        assert!(one.ticks > 0 && two.ticks > 0);
    }

    /// With every processor spinning on the split-point lock, its holder must
    /// win the block back access by access: the idle loop's lock wait grows
    /// with the number of spinners.
    #[test]
    fn spinners_delay_the_split_lock_holder() {
        let sh = shape(8, 79, 5);
        let root = Node { seed: 31337, pscore: ROOT_PSCORE as u32 };
        let few = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, MachineSpec::new(4, 4)).unwrap();
        let many = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, MachineSpec::new(48, 4)).unwrap();
        let lock_share = |r: &TreeStats, p: u64| r.time[State::Split as usize][Kind::Lock as usize] as f64 / (r.ticks * p) as f64;
        assert!(lock_share(&many, 48) > lock_share(&few, 4), "{} vs {}", lock_share(&many, 48), lock_share(&few, 4));
    }

    /// The executor's grouped turns of processors waiting at a busy block
    /// (`pass_waiters`) give the run that turns one by one give, to the
    /// last tick of every bucket: every policy, both locks, both walks,
    /// small and large machines. And they are taken: thousands of times.
    #[test]
    fn grouped_waiter_turns_are_the_same_run() {
        let mut policies = vec![Idle::SplitVariable(Walk::Tree), Idle::SplitVariable(Walk::Level)];
        policies.extend(new_policies());
        GROUPED.with(|g| g.set(0));
        for (b, wa, wb, depth) in [(8, 79, 5, 4), (6, 50, 50, 4), (5, 0, 0, 4), (12, 69, 19, 3)] {
            let sh = shape(b, wa, wb);
            for seed in 1..4u32 {
                let root = Node { seed: seed * 7_368_787, pscore: ROOT_PSCORE as u32 };
                for procs in [2, 3, 7, 48, 64, 130] {
                    for &idle in &policies {
                        for lock in [LockKind::Tas, LockKind::Queue] {
                            let cfg = MachineSpec { idle, lock, ..MachineSpec::new(procs, depth) };
                            let one_by_one = MachineSpec { group_waiters: false, ..cfg };
                            let tag = format!("b={b} seed={seed} p={procs} {idle:?} {lock:?}");
                            assert_eq!(
                                simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, cfg),
                                simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, one_by_one),
                                "A {tag}"
                            );
                            assert_eq!(
                                simulate(&sh, root, &DtsSplit { m_b: 1, pv_wait: 1 }, cfg),
                                simulate(&sh, root, &DtsSplit { m_b: 1, pv_wait: 1 }, one_by_one),
                                "B {tag}"
                            );
                        }
                    }
                }
            }
        }
        // Sixteen words of processors: the thesis's machine at p = 1,024.
        let sh = shape(8, 79, 5);
        for seed in 1..3u32 {
            let root = Node { seed: seed * 7_368_787, pscore: ROOT_PSCORE as u32 };
            for idle in [Idle::SplitVariable(Walk::Tree), Idle::Steal { seed: 5 }] {
                let cfg = MachineSpec { idle, ..MachineSpec::new(1024, 4) };
                let one_by_one = MachineSpec { group_waiters: false, ..cfg };
                assert_eq!(
                    simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, cfg),
                    simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, one_by_one),
                    "seed={seed} {idle:?}"
                );
            }
        }
        let grouped = GROUPED.with(|g| g.get());
        assert!(grouped > 10_000, "grouped turns taken: {grouped}");
    }

    fn new_policies() -> [Idle; 5] {
        [
            Idle::PvSplit,
            Idle::Steal { seed: 1 },
            Idle::Steal { seed: 99 },
            Idle::Active { min_split_depth: 1, group: 8 },
            Idle::Active { min_split_depth: 2, group: 2 },
        ]
    }

    /// Every policy with both locks returns the sequential minimax value,
    /// accounts for every processor-tick, and leaves the heaps balanced
    /// (checked by `run`).
    #[test]
    fn every_policy_returns_minimax() {
        let mut all = new_policies().to_vec();
        all.push(Idle::SplitVariable(Walk::Tree));
        for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (4, 100, 100), (6, 69, 19)] {
            let sh = shape(b, wa, wb);
            for seed in 1..5u32 {
                let root = Node { seed: seed * 15485863, pscore: ROOT_PSCORE as u32 };
                for depth in 1..5 {
                    let want = search(&sh, &root, depth, &mut ()).value;
                    for procs in [2, 3, 7, 48, 64] {
                        for &idle in &all {
                            for lock in [LockKind::Tas, LockKind::Queue] {
                                for interleave in [Interleave::Access, Interleave::State] {
                                    if interleave == Interleave::State && procs != 3 {
                                        continue;
                                    }
                                    let cfg = MachineSpec { idle, lock, interleave, ..MachineSpec::new(procs, depth) };
                                    let tag = format!("b={b} seed={seed} depth={depth} p={procs} {idle:?} {lock:?} {interleave:?}");
                                    let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap_or_else(|e| panic!("{tag}: {e}"));
                                    assert_eq!(r.value, want, "{tag}");
                                    assert_eq!(r.accounted(), r.ticks * procs as u64, "{tag}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The largest machine: 1,024 processors, every policy and lock.
    #[test]
    fn every_policy_returns_minimax_on_1024_processors() {
        let mut all = new_policies().to_vec();
        all.push(Idle::SplitVariable(Walk::Tree));
        for (b, wa, wb) in [(8, 79, 5), (5, 0, 0)] {
            let sh = shape(b, wa, wb);
            for seed in 1..3u32 {
                let root = Node { seed: seed * 7727, pscore: ROOT_PSCORE as u32 };
                for depth in [2, 4] {
                    let want = search(&sh, &root, depth, &mut ()).value;
                    for &idle in &all {
                        for lock in [LockKind::Tas, LockKind::Queue] {
                            let cfg = MachineSpec { idle, lock, ..MachineSpec::new(1024, depth) };
                            let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap();
                            assert_eq!(r.value, want, "b={b} seed={seed} depth={depth} {idle:?} {lock:?}");
                            assert_eq!(r.accounted(), r.ticks * 1024);
                        }
                    }
                }
            }
        }
    }

    fn traced(b: u32, depth: u32, procs: usize, idle: Idle) -> (i64, TreeStats) {
        let sh = shape(b, 100, 100);
        let root = Node { seed: 2024, pscore: ROOT_PSCORE as u32 };
        let want = search(&sh, &root, depth, &mut ()).value;
        let cfg = MachineSpec { idle, trace: true, ..MachineSpec::new(procs, depth) };
        (want, simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap())
    }

    /// The leaves each processor evaluated, in order of time.
    fn leaves(r: &TreeStats) -> Vec<(&str, usize)> {
        r.trace.iter().filter(|e| e.state == State::Eval).map(|e| (e.node.as_deref().unwrap_or("?"), e.proc)).collect()
    }

    /// The first state entry of processor `q` outside the idle loop.
    fn first_work(r: &TreeStats, q: usize) -> &TraceEvent {
        r.trace.iter().find(|e| e.proc == q && e.state != State::Split).unwrap()
    }

    /// PV splitting, 2 processors, a depth-2 tree of branching 3 whose first
    /// move is always best (so nodes 2 and 3 are cut off after one leaf).
    /// P0 goes down the PV alone: root, node 1, leaf 1.1. When leaf 1.1 is
    /// back, node 1 is published (P0's update of node 1) and P1, idle until
    /// then, joins it: P0 evaluates 1.2, P1 1.3. The root is published only
    /// when node 1 has finished (P1, last out, carries it up); then root
    /// moves 2 and 3 go one to each processor, and each is searched whole
    /// by its processor.
    #[test]
    fn pv_splitting_by_hand() {
        let (want, r) = traced(3, 2, 2, Idle::PvSplit);
        assert_eq!(r.value, want);
        assert_eq!(leaves(&r), [("1.1", 0), ("1.2", 0), ("1.3", 1), ("2.1", 1), ("3.1", 0)]);
        let update_1 = r.trace.iter().find(|e| e.state == State::Update && e.node.as_deref() == Some("1")).unwrap();
        let p1 = first_work(&r, 1);
        assert_eq!((p1.state, p1.node.as_deref()), (State::Search, Some("1")));
        assert!(update_1.proc == 0 && p1.t > update_1.t);
        // Nobody starts a root move other than the first before node 1 is done.
        let node_1_done = r.trace.iter().filter(|e| e.state == State::Update && e.node.as_deref() == Some("")).map(|e| e.t).min().unwrap();
        let node_1_last = r.trace.iter().filter(|e| e.node.as_deref().is_some_and(|n| n.starts_with('1'))).map(|e| e.t).max().unwrap();
        assert!(node_1_done > node_1_last);
        assert!(r.trace.iter().filter(|e| e.node.as_deref().is_some_and(|n| n.starts_with('2') || n.starts_with('3'))).all(|e| e.t > node_1_done));
    }

    /// Work stealing, the same tree. P1's requests reach P0 while nothing is
    /// eligible and are answered "no work", until P0, at node 1 after leaf
    /// 1.1, offers node 1 (its highest node whose eldest brother is
    /// searched: the root's first move is not back yet). P1 evaluates 1.3,
    /// finishes node 1 last and carries it up to the root, where it takes
    /// move 2; P0, idle, steals the root from P1 and takes move 3.
    #[test]
    fn work_stealing_by_hand() {
        let (want, r) = traced(3, 2, 2, Idle::Steal { seed: 5 });
        assert_eq!(r.value, want);
        assert_eq!(leaves(&r), [("1.1", 0), ("1.2", 0), ("1.3", 1), ("2.1", 1), ("3.1", 0)]);
        let p1 = first_work(&r, 1);
        assert_eq!((p1.state, p1.node.as_deref()), (State::Search, Some("1")));
        let p0_idle = r.trace.iter().find(|e| e.proc == 0 && e.state == State::Split).unwrap();
        let p0_back = r.trace.iter().find(|e| e.proc == 0 && e.t > p0_idle.t && e.state != State::Split).unwrap();
        assert_eq!((p0_back.state, p0_back.node.as_deref()), (State::Search, Some("")));
    }

    /// Active splitting with 3 processors and a minimum split depth of 2 on
    /// a depth-3 tree: the root (3 plies left) and its children (2 left) may
    /// be split; nodes at ply 2 (1 ply left) never are, so all the leaves
    /// below one ply-2 node are evaluated by one processor.
    #[test]
    fn active_splitting_respects_the_minimum_depth() {
        let (want, r) = traced(3, 3, 3, Idle::Active { min_split_depth: 2, group: 8 });
        assert_eq!(r.value, want);
        let ev = leaves(&r);
        let parent = |leaf: &str| leaf.rsplit_once('.').map(|(p, _)| p.to_string()).unwrap();
        for &(leaf, q) in &ev {
            assert!(ev.iter().filter(|f| parent(f.0) == parent(leaf)).all(|f| f.1 == q), "leaves below {}: {ev:?}", parent(leaf));
        }
        // The helpers did search: some leaves are not P0's.
        assert!(ev.iter().any(|e| e.1 != 0), "{ev:?}");
    }
}
