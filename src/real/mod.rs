//! Real processors: the parallel searches of the simulator run on this
//! machine's OS threads, on the same tree specs, checked against the
//! sequential search (`docs/decisions.md`, "Real threads"). The
//! `psearch` tool.
//!
//! - [`local`]: what one thread measures (nodes, idle time, lock waits on a
//!   cheap clock), the busy work per node (`--node-cost`) and, for tests,
//!   random delays that shake out races.
//! - [`seq`]: the one-thread path, the one sequential search
//!   ([`crate::search::search`]) with an observer, no parallel machinery;
//!   and the small fail-hard alpha-beta the parallel searches run below
//!   their shared nodes.
//! - [`heap`]: the shared node heap of the split-based searches: every node
//!   with at least [`heap::FRONTIER`] plies below it is a heap node with
//!   its own lock; any thread may take the next move of a node it has
//!   joined, and the last thread out of a node returns its value to the
//!   parent. Which nodes an idle thread joins is the idle policy's
//!   ([`heap::HeapPolicy`]), which the heap knows only by its trait.
//! - [`RealSearch`]: a policy on real threads, implemented by each policy
//!   of [`crate::policy`] in its own file (the split-based ones through
//!   the heap); the dispatch on the registry's policy is
//!   [`crate::request::real::search`].
//! - [`lazy`]: Lazy SMP with a lock-free shared transposition table.
//! - [`record`]: a traced run's spans (`psearch --trace`), as its
//!   threads record them.
//! - [`host`]: the host's load and free cores sampled before every timed
//!   run, and whether the run's threads each had a free core.
//! - A request expanded into configurations as `pabsim` does, every (tree,
//!   configuration) run on a fresh pool of threads, the exactness check,
//!   rows with SU and SO against the one-thread run: [`crate::request::real`].
//!
//! The split-point rules are the simulator's ([`crate::schemes`]):
//! the heap asks a [`SplitScheme`] for a
//! node's data and eligibility and ranks candidates with
//! [`Candidate::better`](crate::schemes::Candidate::better).

pub mod heap;
pub mod host;
pub mod lazy;
pub mod local;
pub mod record;
pub mod seq;

use crate::game::TreeSource;
use crate::schemes::SplitScheme;

/// How one search runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// OS threads (1: the sequential search).
    pub threads: usize,
    /// Busy work per node entered, in nanoseconds.
    pub node_cost_ns: u64,
    /// Tests only: a seed for random delays at the points where threads
    /// meet (taking a move, returning a value, looking for work), to shake
    /// out races. Not a command-line option.
    pub delays: Option<u64>,
    /// Record each thread's idle and lock spans, at most this many a
    /// thread (`psearch --trace`; [`record`]).
    pub trace: Option<usize>,
}

/// What one search returned and measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// The root's minimax value (on the common scale).
    pub value: i64,
    /// The 1-based position, in search order, of the first root move with
    /// that value (0 when the root is a leaf).
    pub root_move: u32,
    /// Nodes entered by all threads (root, internal nodes and leaves).
    pub nodes: u64,
    /// Leaves entered by all threads.
    pub leaves: u64,
    /// Wall time of the search, threads started and joined included.
    pub wall_ns: u64,
    /// Summed over threads: time working (neither idle nor waiting on a lock).
    pub search_ns: u64,
    /// Summed over threads: time looking for or waiting for work.
    pub idle_ns: u64,
    /// Summed over threads: time waiting on contended locks.
    pub lock_ns: u64,
    /// With [`Options::trace`], the threads' spans.
    pub trace: Option<std::sync::Arc<record::RealTrace>>,
}

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum RealError {
    /// Scheme C without its network.
    #[error("scheme c needs the network: give --weights FILE (from nntrain)")]
    NoNetwork,
    /// A thread panicked (a bug, never an input's fault).
    #[error("a search thread panicked: {0}")]
    Panicked(String),
    /// A broken invariant (a bug, never an input's fault).
    #[error("internal error: {0}")]
    Internal(String),
}

/// A policy on real threads: implemented by every type of
/// [`crate::policy`], each in its own file.
pub trait RealSearch {
    /// Searches `src` from `root` to `depth` on `opts.threads` threads,
    /// split points chosen by `scheme`'s rules where the policy consults
    /// them.
    fn run_real<S: TreeSource, Sc: SplitScheme>(&self, src: &S, root: &S::Node, depth: u32, scheme: &Sc, opts: &Options) -> Result<Measured, RealError>
    where
        Sc::Data: Send + Sync;
}

/// The sequential search of a tree spec, without busy work.
pub fn seq_tree(tree: &crate::tree::Tree) -> Measured {
    struct V(Options);
    impl crate::tree::SourceVisitor for V {
        type Output = Measured;
        fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Measured {
            seq::run(src, root, depth, &self.0)
        }
    }
    tree.visit(V(Options { threads: 1, ..Options::default() }))
}
