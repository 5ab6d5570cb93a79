//! What a simulation is asked to do: the machine's settings
//! ([`MachineSpec`], whose policy, any [`SimIdle`](super::SimIdle), says how idle
//! processors find work, and its two options of the machine itself,
//! [`Interleave`] and [`LockKind`], which a request carries), the states'
//! costs, and the errors (thesis §6.1–6.2; `docs/model.md` §5.2–5.3).

/// When the simulated machine's executor may switch processors (real
/// threads interleave as the operating system runs them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Interleave {
    /// At every access with a delay: the thesis's machine.
    #[default]
    Access,
    /// Only between states and after failed lock attempts (the earlier
    /// model, kept for comparison).
    State,
}

/// How a simulated processor waits for a lock (real threads take the
/// standard library's mutex).
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

/// Why a simulation could not run or did not finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// A machine of no processors.
    #[error("the machine needs at least 1 processor")]
    NoProcessors,
    /// A policy the simulated machine cannot run (Lazy SMP), and why.
    #[error("{0}")]
    RealThreadsOnly(&'static str),
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

/// Settings of one simulation, with idle policy `P`.
#[derive(Clone, Copy, Debug)]
pub struct MachineSpec<P> {
    /// Processors, at least 1.
    pub procs: usize,
    /// Search depth.
    pub depth: u32,
    /// Simulated ticks without a node created or returned after which the
    /// run is declared stuck.
    pub stall_limit: u64,
    /// When processors interleave.
    pub interleave: Interleave,
    /// How idle processors find work (the engine knows it only as a
    /// [`SimIdle`](super::SimIdle); the scheme's rule is the `SplitScheme` given to
    /// [`simulate`](super::simulate)).
    pub policy: P,
    /// How processors wait for locks.
    pub lock: LockKind,
    /// Record every state entry in [`super::TreeStats::trace`] (tests, small trees).
    pub trace: bool,
    /// Take the turns of processors waiting at a busy block together
    /// (the executor's `pass_waiters`): the same run, faster. Off only to test
    /// that it is the same.
    pub group_waiters: bool,
}

impl<P: Default> MachineSpec<P> {
    /// `procs` processors, depth `depth`, the thesis's machine, the
    /// policy's default (the thesis's idle loop, for the policies of
    /// [`crate::policy`]), the default stall limit.
    pub fn new(procs: usize, depth: u32) -> MachineSpec<P> {
        MachineSpec {
            procs,
            depth,
            stall_limit: 2_000_000,
            interleave: Interleave::default(),
            policy: P::default(),
            lock: LockKind::default(),
            trace: false,
            group_waiters: true,
        }
    }
}
