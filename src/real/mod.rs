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
//! - [`idle`]: the policies of [`crate::policy`] on real threads, one file
//!   each ([`idle::dts`], the thesis's DTS-like search; [`idle::pv_split`];
//!   [`idle::steal`]; [`idle::active`]), behind [`idle::RealSearch`].
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
//! the heap asks a [`SplitScheme`](crate::schemes::SplitScheme) for a
//! node's data and eligibility and ranks candidates with
//! [`Candidate::better`](crate::schemes::Candidate::better).

pub mod heap;
pub mod host;
pub mod idle;
pub mod lazy;
pub mod local;
pub mod record;
pub mod seq;

use crate::game::TreeSource;
use crate::policy::Policy;

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

/// Searches `src` from `root` to `depth` with `algorithm` on `opts.threads`
/// threads (`None`, or one thread: the sequential search). Scheme C takes
/// its network in `net`.
pub fn search<S: TreeSource>(
    src: &S,
    root: &S::Node,
    depth: u32,
    algorithm: Option<Policy>,
    opts: &Options,
    net: Option<&crate::nn::Network>,
) -> Result<Measured, RealError> {
    use crate::policy::{Scheme, dispatch};
    use crate::schemes::{ConfidenceSplit, NetworkSplit, YbwcSplit};
    use idle::RealSearch;
    let Some(a) = algorithm.filter(|_| opts.threads > 1) else {
        return Ok(seq::run(src, root, depth, opts));
    };
    // PV splitting has its own rule and Lazy SMP shares no node; the heap
    // still takes a scheme, which they then never consult (as in the
    // simulator).
    match a.scheme().unwrap_or(Scheme::A { m_a: 1, pv_wait: 1 }) {
        Scheme::A { m_a, pv_wait } => dispatch!(a, a => a.run_real(src, root, depth, &YbwcSplit { m_a, pv_wait }, opts)),
        Scheme::B { m_b, pv_wait } => dispatch!(a, a => a.run_real(src, root, depth, &ConfidenceSplit { m_b, pv_wait }, opts)),
        Scheme::C { m_ca, m_cc, cut_width } => {
            let net = net.ok_or(RealError::NoNetwork)?;
            dispatch!(a, a => a.run_real(src, root, depth, &NetworkSplit { net, cut_width: cut_width as f64, m_ca, m_cc, leaf_ply: depth }, opts))
        }
    }
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

/// [`search`] on a tree spec.
pub fn search_tree(tree: &crate::tree::Tree, algorithm: Option<Policy>, opts: &Options, net: Option<&crate::nn::Network>) -> Result<Measured, RealError> {
    struct V<'a>(Option<Policy>, &'a Options, Option<&'a crate::nn::Network>);
    impl crate::tree::SourceVisitor for V<'_> {
        type Output = Result<Measured, RealError>;
        fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Self::Output {
            search(src, root, depth, self.0, self.1, self.2)
        }
    }
    tree.visit(V(algorithm, opts, net))
}

#[cfg(test)]
mod tests;
