//! Message-passing machines (beyond the thesis; `docs/model.md` §9): the
//! parallel alpha-beta searches of clusters, whose processes share no
//! memory and talk by messages, written once against a transport. Two
//! halves and the glue between them:
//!
//! - [`exec`], the executor, which knows no algorithm: what a process may
//!   use ([`exec::transport::Transport`]: rank, process count, send, "I
//!   searched this much", "the root is worth v"), the messages and the
//!   process's side ([`exec::transport::Process`]); the simulated cluster
//!   ([`exec::machine`], a discrete-event machine with a per-node search
//!   cost, per-message send and receive costs, latency and bandwidth,
//!   [`exec::machine::Costs`], over [`exec::events`], which also delivers
//!   messages in adversarial orders for the tests); the network's shape
//!   ([`exec::topology`]); and, with the feature `mpi`, the real transport
//!   on MPI ranks (`exec::mpi`, `docs/model.md` §9.8).
//! - [`algorithms`], one file or folder per algorithm and the one registry
//!   ([`ClusterAlgorithm`]): the sequential baseline, OthelloX's even split
//!   and master-slave at the root, Ura, Tsuruoka and Chikayama's (2014)
//!   master-worker and its variants, the Young Brothers Wait Concept over
//!   messages (Feldmann; OthelloX's MPI version) with its refinements as
//!   switches, OthelloX's PV splitting, Fox et al.'s hash-table-guided
//!   master/slave; and the pieces they share (the frontier, pieces searched
//!   in slices).
//! - [`algorithm`]: what an algorithm is, the one trait [`Algorithm`] every
//!   one implements (names, options, defaults resolved once, memory,
//!   processes); [`launch_with`] checks a configuration, resolves its
//!   algorithm and launches it.
//! - [`search`]: the sequential baseline search, alpha-beta with internal
//!   iterative deepening and a transposition table (Ura et al. 2014,
//!   Fig. 1); every worker searches with it.
//! - [`hybrid`]: threads inside each process (`psearch`'s real-thread
//!   searches) for the root-splitting algorithms' tasks, on real ranks.
//! - [`factors`]: why leaves grow, the sequential search made to behave
//!   like the workers (Ura et al. §5.2).
//! - [`pause`]: a worker's search that pauses for its messages instead of
//!   giving up (Ura et al.'s workers), on a stack of its own.
//! - [`mod@reference`]: the sequential baseline's tasks (the nodes near the
//!   root it searched to full depth), recorded by its run and compared
//!   with by a parallel run's workers (the rows' `outside_nodes`).
//! - [`memory`]: what a simulated run needs in memory, estimated before it
//!   starts, and the budget it must fit (`pabsim --memory`).
//! - [`run`]: what a run of many (tree, configuration) pairs is asked
//!   ([`run::ClusterRequest`], the same for the simulated cluster and MPI),
//!   its configurations and its rows (`pabsim --machine cluster`;
//!   `run::mpi`, `psearch --mpi`).
//! - [`args`]: the algorithms' command-line options, shared by `pabsim
//!   --machine cluster` and `psearch --mpi`.
//!
//! The registry's [`ClusterAlgorithm`] is a sibling of the shared-memory
//! [`crate::policy::Policy`] (`docs/decisions.md`); what every run
//! shares (costs, tables, delivery, threads) is [`ClusterSettings`]. Every
//! run's root value is checked against the sequential baseline's
//! ([`simulate`]).

pub mod algorithm;
pub mod algorithms;
pub mod args;
pub mod exec;
pub mod factors;
pub mod hybrid;
pub mod memory;
pub mod pause;
pub mod reference;
pub mod run;
pub mod search;

use crate::game::TreeSource;
use crate::tree::{SourceVisitor, Tree};
use crate::value::Window;
pub use algorithm::{Algorithm, Cut, TaskSearch};
pub use algorithms::ClusterAlgorithm;
pub use algorithms::master_worker::MwVariant;
use exec::events::Delivery;
use exec::machine::{ClusterStats, Costs};
use exec::record::{NoRecord, Recorder};
use exec::transport::Process;
use hybrid::RankThreads;
use reference::Reference;
use search::Searcher;

/// The most processes of the simulated cluster.
pub const MAX_CLUSTER_PROCS: usize = 4096;

/// What the cluster refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// Not an algorithm of the cluster.
    #[error("unknown cluster algorithm `{}` (expected {})", crate::cli::excerpt(.0), ClusterAlgorithm::expected())]
    Unknown(String),
    /// A process count the algorithm cannot run on.
    #[error("{algorithm} cannot run on {procs} processes ({algorithm}: {}; see pabsim --list-algorithms)", if .range.0 == .range.1 { .range.0.to_string() } else { format!("{}..{}", .range.0, .range.1) })]
    Procs {
        /// The algorithm's name.
        algorithm: &'static str,
        /// The count asked.
        procs: usize,
        /// The counts it runs on, least and most.
        range: (usize, usize),
    },
    /// Threads inside the processes of an algorithm that searches in slices.
    #[error(
        "{algorithm} cannot search with threads inside its processes: --threads above 1 runs even-split and master-slave only (the others search in slices with a table kept across them)"
    )]
    Threads {
        /// The algorithm's name.
        algorithm: &'static str,
    },
    /// A request whose memory estimate exceeds the budget.
    #[error(
        "the run needs about {} ({procs} processes: tables {}, {} {}; {at_once} at once), more than --memory {}: {}",
        memory::human(*.need), memory::human(*.tables), .part, memory::human(*.tree), memory::human(*.budget), memory::advice(.lower, *.tables, *.tree, *.at_once)
    )]
    Memory {
        /// The estimate, bytes.
        need: u64,
        /// The budget, bytes.
        budget: u64,
        /// What the largest run's algorithm holds besides its tables
        /// ([`algorithm::Part::name`]).
        part: &'static str,
        /// The option that makes it smaller ([`algorithm::Part::lower`]).
        lower: &'static str,
        /// Its processes.
        procs: usize,
        /// Its tables, bytes.
        tables: u64,
        /// Its frontier or master's tree, bytes.
        tree: u64,
        /// Runs at once.
        at_once: usize,
    },
    /// A run whose simulated time would pass 2^64 ns ([`exec::machine::TimeOverflow`]).
    #[error(
        "{algorithm} on {procs} processes: the simulated time passed 2^64 ns; lower --node-ns, --send-ns, --recv-ns, --latency-ns, --hop-ns or --master-cost"
    )]
    TimeOverflow {
        /// The algorithm's name.
        algorithm: &'static str,
        /// Processes.
        procs: usize,
    },
    /// A run that ended without the root's value, or with a wrong one.
    #[error("{algorithm} on {procs} processes: root value {got:?}, the sequential search's is {want} (a defect: please report it)")]
    Inexact {
        /// The algorithm's name.
        algorithm: &'static str,
        /// Processes.
        procs: usize,
        /// What the run returned.
        got: Option<i64>,
        /// The sequential baseline's value.
        want: i64,
    },
    /// A baseline cache that cannot be used or written ([`run::cache`]).
    #[error("--baseline-cache: {0}")]
    Cache(String),
}

/// What every run of a request shares: the machine, whatever the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterSettings {
    /// The simulated machine's costs (unused on real ranks).
    pub costs: Costs,
    /// Transposition-table entries per process.
    pub tt_slots: usize,
    /// How the simulated machine delivers messages.
    pub delivery: Delivery,
    /// Threads inside each process for its tasks (`None`: the sequential
    /// search; real ranks only, [`hybrid`]).
    pub threads: Option<RankThreads>,
}

impl Default for ClusterSettings {
    /// The default machine: its costs, 2^14 entries, messages by time, no threads.
    fn default() -> ClusterSettings {
        ClusterSettings { costs: Costs::default(), tt_slots: search::DEFAULT_TT_SLOTS, delivery: Delivery::Timed, threads: None }
    }
}

/// One run asked of the cluster: an algorithm (with its parameters) on a
/// number of processes of a machine. The algorithm is a registered one
/// ([`ClusterAlgorithm`]) unless a library user runs their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterConfig<A = ClusterAlgorithm> {
    /// The algorithm.
    pub algorithm: A,
    /// Processes.
    pub procs: usize,
    /// The machine.
    pub settings: ClusterSettings,
}

impl<A: Algorithm> ClusterConfig<A> {
    /// `algorithm` on `procs` processes of the default machine.
    pub fn new(algorithm: A, procs: usize) -> ClusterConfig<A> {
        ClusterConfig { algorithm, procs, settings: ClusterSettings::default() }
    }

    /// Whether the configuration can run: the algorithm on its process
    /// count, threads inside the processes only for whole tasks.
    pub fn check(&self) -> Result<(), ClusterError> {
        let range = self.algorithm.procs();
        if !range.contains(&self.procs) {
            return Err(ClusterError::Procs { algorithm: self.algorithm.name(), procs: self.procs, range: (*range.start(), *range.end()) });
        }
        match self.settings.threads {
            Some(_) if !self.algorithm.whole_tasks() => Err(ClusterError::Threads { algorithm: self.algorithm.name() }),
            _ => Ok(()),
        }
    }
}

/// What runs an algorithm's processes: the simulated cluster here, the MPI
/// transport in `exec::mpi`. [`launch_with`] builds the processes and
/// hands them over.
pub trait Launch<S: TreeSource> {
    /// What a run gives back (the root's value among it).
    type Output;
    /// Runs `procs` processes of one algorithm; `make(rank)` builds rank
    /// `rank`'s process (a real transport builds its own rank's only).
    fn launch<P: Process<S>>(self, src: &S, procs: usize, make: impl FnMut(usize) -> P) -> Self::Output;
}

/// A run's output and the algorithm it ran, every default of its
/// parameters worked out (what its rows say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launched<O, A = ClusterAlgorithm> {
    /// What the [`Launch`] gave back.
    pub output: O,
    /// The algorithm as it ran.
    pub algorithm: A,
}

/// Runs `c` for a search of `root` to `depth` with `l`, once `c` is
/// checked, the processes that search whole tasks searching them with
/// `tasks()` (one each), measured against `reference` (the sequential
/// baseline's tasks, [`mod@reference`]; [`Reference::None`] for none):
/// the algorithm is resolved here, once ([`Algorithm::resolve`]), and
/// returned as it ran.
pub fn launch_with<S: TreeSource, A: Algorithm, L: Launch<S>, Q: TaskSearch<S>>(
    src: &S,
    root: &S::Node,
    depth: u32,
    c: &ClusterConfig<A>,
    l: L,
    tasks: impl Fn() -> Q,
    reference: &Reference,
) -> Result<Launched<L::Output, A>, ClusterError> {
    c.check()?;
    let run = algorithm::Run { src, root, depth, procs: c.procs, settings: &c.settings, reference };
    let algorithm = c.algorithm.resolve(&run);
    Ok(Launched { output: algorithm.launch(&run, l, tasks), algorithm })
}

/// [`launch_with`], every process searching with the sequential search
/// (threads inside the processes are refused here).
pub fn launch<S: TreeSource, A: Algorithm, L: Launch<S>>(
    src: &S,
    root: &S::Node,
    depth: u32,
    c: &ClusterConfig<A>,
    l: L,
) -> Result<Launched<L::Output, A>, ClusterError> {
    launch_with(src, root, depth, c, l, searchers(c)?, &Reference::None)
}

/// What makes each process's sequential searcher, or the refusal of
/// threads inside the processes.
fn searchers<S: TreeSource, A: Algorithm>(c: &ClusterConfig<A>) -> Result<impl Fn() -> Searcher<S> + use<S, A>, ClusterError> {
    if c.settings.threads.is_some() {
        return Err(ClusterError::Threads { algorithm: c.algorithm.name() });
    }
    let slots = c.settings.tt_slots;
    Ok(move || Searcher::new(slots))
}

/// The simulated cluster as a [`Launch`]: every process built, one
/// discrete-event run.
struct OnMachine<'r, R> {
    costs: Costs,
    delivery: Delivery,
    rec: &'r mut R,
}

impl<S: TreeSource, R: Recorder> Launch<S> for OnMachine<'_, R> {
    type Output = Result<Option<ClusterStats>, exec::machine::TimeOverflow>;
    fn launch<P: Process<S>>(self, src: &S, procs: usize, make: impl FnMut(usize) -> P) -> Self::Output {
        let mut p: Vec<P> = (0..procs).map(make).collect();
        exec::machine::run_recorded(src, &mut p, self.costs, self.delivery, self.rec)
    }
}

struct Simulate<'a, 'r, A, R> {
    cfg: &'a ClusterConfig<A>,
    want: Option<i64>,
    rec: &'r mut R,
    reference: &'a Reference,
}

impl<A: Algorithm, R: Recorder> SourceVisitor for Simulate<'_, '_, A, R> {
    type Output = Result<Launched<ClusterStats, A>, ClusterError>;
    fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Self::Output {
        simulate_recorded(src, root, depth, self.cfg, self.want, self.rec, self.reference)
    }
}

/// `cfg`'s algorithm on `tree` with every default worked out, as a run
/// resolves it ([`Algorithm::resolve`]).
pub fn resolve_on<A: Algorithm>(cfg: &ClusterConfig<A>, tree: &Tree) -> A {
    struct V<'a, A>(&'a ClusterConfig<A>);
    impl<A: Algorithm> SourceVisitor for V<'_, A> {
        type Output = A;
        fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> A {
            let c = self.0;
            c.algorithm.resolve(&algorithm::Run { src, root, depth, procs: c.procs, settings: &c.settings, reference: &Reference::None })
        }
    }
    tree.visit(V(cfg))
}

/// Runs `cfg` on `tree` and checks its root value against `want` (the
/// sequential baseline's, searched here if `None`); its statistics and the
/// algorithm as it ran.
pub fn simulate<A: Algorithm>(tree: &Tree, cfg: &ClusterConfig<A>, want: Option<i64>) -> Result<Launched<ClusterStats, A>, ClusterError> {
    tree.visit(Simulate { cfg, want, rec: &mut NoRecord, reference: &Reference::None })
}

/// [`simulate`] measured against `reference` (the sequential baseline's
/// tasks, recorded or compared with, [`mod@reference`]).
pub fn simulate_tree_against<A: Algorithm>(
    tree: &Tree,
    cfg: &ClusterConfig<A>,
    want: Option<i64>,
    reference: &Reference,
) -> Result<Launched<ClusterStats, A>, ClusterError> {
    tree.visit(Simulate { cfg, want, rec: &mut NoRecord, reference })
}

/// [`simulate`] watched by `rec` (a trace).
pub fn simulate_tree_recorded<A: Algorithm, R: Recorder>(
    tree: &Tree,
    cfg: &ClusterConfig<A>,
    want: Option<i64>,
    rec: &mut R,
) -> Result<Launched<ClusterStats, A>, ClusterError> {
    tree.visit(Simulate { cfg, want, rec, reference: &Reference::None })
}

/// [`simulate`] on any [`TreeSource`] (a library user's own game): `cfg`
/// on the simulated cluster for the search of `root` (a MAX node) to
/// `depth`, its root value checked against `want` (the sequential
/// baseline's, searched here if `None`).
pub fn simulate_source<S: TreeSource, A: Algorithm>(
    src: &S,
    root: &S::Node,
    depth: u32,
    cfg: &ClusterConfig<A>,
    want: Option<i64>,
) -> Result<Launched<ClusterStats, A>, ClusterError> {
    simulate_recorded(src, root, depth, cfg, want, &mut NoRecord, &Reference::None)
}

/// [`simulate_source`] watched by `rec` (a trace) and measured against
/// `reference` (the sequential baseline's tasks, [`mod@reference`];
/// [`Reference::None`] for none).
pub fn simulate_recorded<S: TreeSource, A: Algorithm, R: Recorder>(
    src: &S,
    root: &S::Node,
    depth: u32,
    cfg: &ClusterConfig<A>,
    want: Option<i64>,
    rec: &mut R,
    reference: &Reference,
) -> Result<Launched<ClusterStats, A>, ClusterError> {
    let on = OnMachine { costs: cfg.settings.costs, delivery: cfg.settings.delivery, rec };
    let run = launch_with(src, root, depth, cfg, on, searchers(cfg)?, reference)?;
    let want = match want {
        Some(v) => v,
        None => Searcher::new(cfg.settings.tt_slots).search(src, root, true, depth, 0, Window::ROOT),
    };
    let (algorithm, procs) = (cfg.algorithm.name(), cfg.procs);
    let output = run.output.map_err(|_| ClusterError::TimeOverflow { algorithm, procs })?;
    match output {
        Some(s) if s.value == want => Ok(Launched { output: s, algorithm: run.algorithm }),
        s => Err(ClusterError::Inexact { algorithm, procs, got: s.map(|s| s.value), want }),
    }
}

#[cfg(test)]
mod tests;
