//! Message-passing machines (beyond the thesis; `docs/model.md` §9): the
//! parallel alpha-beta searches of clusters, whose processes share no
//! memory and talk by messages, written once against a transport.
//!
//! - [`transport`]: what a policy may use ([`transport::Transport`]: rank,
//!   process count, send, "I searched this much", "the root is worth v"),
//!   the messages and the policy's side ([`transport::Process`]).
//! - [`machine`]: the simulated cluster, a discrete-event machine with a
//!   per-node search cost, per-message send and receive costs, latency and
//!   bandwidth ([`machine::Costs`]), over the executor [`events`] (which
//!   also delivers messages in adversarial orders for the tests).
//! - [`search`]: the sequential baseline, alpha-beta with internal
//!   iterative deepening and a transposition table (Ura et al. 2014,
//!   Fig. 1); every worker searches with it.
//! - [`frontier`] and [`root_split`]: OthelloX's even split and
//!   master-slave at the root.
//! - [`hybrid`]: threads inside each process (`psearch`'s real-thread
//!   searches) for the root-splitting policies' tasks, on real ranks.
//! - [`master_worker`]: Ura, Tsuruoka and Chikayama's (2014) master-worker
//!   with dynamic updates, and its variant without updates.
//! - [`factors`]: why leaves grow, the sequential search made to behave
//!   like the workers (Ura et al. §5.2).
//! - [`ybwc`]: the Young Brothers Wait Concept over messages (Feldmann;
//!   OthelloX's MPI version): every process the same code, work requests,
//!   aborts.
//! - [`run`]: many (tree, configuration) runs and their rows (`pabsim
//!   --machine cluster`).
//! - [`args`]: the algorithms' command-line options, shared by `pabsim
//!   --machine cluster` and `psearch --mpi`.
//! - `mpi` (with the feature `mpi`): the real transport on MPI ranks
//!   (`docs/model.md` §9.8) and `psearch --mpi`'s runs.
//!
//! The algorithms are named by [`ClusterAlgorithm`], a sibling of the
//! shared-memory [`crate::algorithm::Algorithm`] (`docs/decisions.md`,
//! issue 25). Every run's root value is checked against the sequential
//! baseline's ([`simulate`]).

pub mod args;
pub mod events;
pub mod factors;
pub mod frontier;
pub mod hybrid;
pub mod machine;
pub mod master_worker;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod root_split;
pub mod run;
pub mod search;
pub mod transport;
pub mod ybwc;

use crate::game::TreeSource;
use crate::tree::{SourceVisitor, Tree};
use crate::value::Window;
use events::Delivery;
use hybrid::RankThreads;
use machine::{ClusterStats, Costs};
use master_worker::{MasterWorker, MwOptions};
use root_split::{EvenSplit, MasterSlave, Shared, TaskSearch};
use search::Searcher;
use transport::{Msg, Process, Transport};
use ybwc::Ybwc;

/// The most processes of the simulated cluster.
pub const MAX_CLUSTER_PROCS: usize = 4096;

/// A parallel search of the message-passing machines: one name, one
/// algorithm, everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterAlgorithm {
    /// The sequential baseline (one process; `seq`).
    Sequential,
    /// OthelloX's even split of the root's frontier (`even-split`).
    EvenSplit,
    /// OthelloX's master-slave over the root's frontier (`master-slave`).
    MasterSlave,
    /// Ura et al.'s master-worker with dynamic updates (`master-worker`).
    MasterWorker,
    /// The same without updates: workers report full-depth results only
    /// (`master-worker-noupdate`).
    MasterWorkerNoUpdate,
    /// With updates, and workers share deep table entries around a ring
    /// (`master-worker-share`).
    MasterWorkerShare,
    /// With updates and a NegaScout master with ε-windows
    /// (`master-worker-negascout`).
    MasterWorkerNegaScout,
    /// The Young Brothers Wait Concept over messages (`ybwc`).
    Ybwc,
}

impl ClusterAlgorithm {
    /// Every algorithm, in table order.
    pub const ALL: [ClusterAlgorithm; 8] = [
        ClusterAlgorithm::Sequential,
        ClusterAlgorithm::EvenSplit,
        ClusterAlgorithm::MasterSlave,
        ClusterAlgorithm::MasterWorker,
        ClusterAlgorithm::MasterWorkerNoUpdate,
        ClusterAlgorithm::MasterWorkerShare,
        ClusterAlgorithm::MasterWorkerNegaScout,
        ClusterAlgorithm::Ybwc,
    ];

    /// Whether its processes search whole tasks (the root-splitting
    /// baselines): those may search them on threads ([`hybrid`]).
    pub fn whole_tasks(self) -> bool {
        matches!(self, ClusterAlgorithm::EvenSplit | ClusterAlgorithm::MasterSlave)
    }

    /// Whether it is one of Ura et al.'s master-worker configurations.
    pub fn is_master_worker(self) -> bool {
        matches!(
            self,
            ClusterAlgorithm::MasterWorker
                | ClusterAlgorithm::MasterWorkerNoUpdate
                | ClusterAlgorithm::MasterWorkerShare
                | ClusterAlgorithm::MasterWorkerNegaScout
        )
    }

    /// The name on the command line and in rows.
    pub fn name(self) -> &'static str {
        match self {
            ClusterAlgorithm::Sequential => "seq",
            ClusterAlgorithm::EvenSplit => "even-split",
            ClusterAlgorithm::MasterSlave => "master-slave",
            ClusterAlgorithm::MasterWorker => "master-worker",
            ClusterAlgorithm::MasterWorkerNoUpdate => "master-worker-noupdate",
            ClusterAlgorithm::MasterWorkerShare => "master-worker-share",
            ClusterAlgorithm::MasterWorkerNegaScout => "master-worker-negascout",
            ClusterAlgorithm::Ybwc => "ybwc",
        }
    }

    /// Whether it runs on `procs` processes: the sequential baseline on
    /// one, the others on 1..=4096 (those with a master need a worker: 2 or
    /// more).
    pub fn check(self, procs: usize) -> Result<(), ClusterError> {
        let ok = match self {
            ClusterAlgorithm::Sequential => procs == 1,
            ClusterAlgorithm::EvenSplit => (1..=MAX_CLUSTER_PROCS).contains(&procs),
            _ => (2..=MAX_CLUSTER_PROCS).contains(&procs),
        };
        if ok { Ok(()) } else { Err(ClusterError::Procs { algorithm: self, procs }) }
    }
}

impl std::fmt::Display for ClusterAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ClusterAlgorithm {
    type Err = ClusterError;
    fn from_str(s: &str) -> Result<ClusterAlgorithm, ClusterError> {
        ClusterAlgorithm::ALL.into_iter().find(|a| a.name() == s).ok_or_else(|| ClusterError::Unknown(s.to_string()))
    }
}

/// What the cluster refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// Not an algorithm of the cluster.
    #[error("unknown cluster algorithm `{}` (expected seq, even-split, master-slave, master-worker, master-worker-noupdate, master-worker-share, master-worker-negascout or ybwc)", crate::cli::excerpt(.0))]
    Unknown(String),
    /// A process count the algorithm cannot run on.
    #[error("{algorithm} cannot run on {procs} processes (seq: 1; even-split: 1..4096; the others: 2..4096)")]
    Procs {
        /// The algorithm.
        algorithm: ClusterAlgorithm,
        /// The count asked.
        procs: usize,
    },
    /// Threads inside the processes of an algorithm that searches in slices.
    #[error(
        "{algorithm} cannot search with threads inside its processes: --threads above 1 runs even-split and master-slave only (the others search in slices with a table kept across them)"
    )]
    Threads {
        /// The algorithm.
        algorithm: ClusterAlgorithm,
    },
    /// A run that ended without the root's value, or with a wrong one.
    #[error("{algorithm} on {procs} processes: root value {got:?}, the sequential search's is {want} (a defect: please report it)")]
    Inexact {
        /// The algorithm.
        algorithm: ClusterAlgorithm,
        /// Processes.
        procs: usize,
        /// What the run returned.
        got: Option<i64>,
        /// The sequential baseline's value.
        want: i64,
    },
}

/// One run asked of the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterConfig {
    /// The algorithm.
    pub algorithm: ClusterAlgorithm,
    /// Processes.
    pub procs: usize,
    /// The machine's costs.
    pub costs: Costs,
    /// Transposition-table entries per process.
    pub tt_slots: usize,
    /// The ply the root-splitting baselines split at (`None`: the
    /// shallowest with at least `procs` nodes).
    pub split: Option<u32>,
    /// The master-worker's master depth d' (`None`: a few leaves per
    /// worker, [`master_worker::default_master_depth`]).
    pub master_depth: Option<u32>,
    /// Nodes a master-worker's worker searches before it looks at its inbox.
    pub slice_nodes: u64,
    /// `master-worker-share`: plies below a task's root whose entries are
    /// shared (`None`: [`master_worker::default_share_depth`]).
    pub share_depth: Option<u32>,
    /// `master-worker-negascout`: ε (`None`: [`master_worker::default_epsilon`]).
    pub epsilon: Option<i64>,
    /// `ybwc`: the remaining depth at or below which a piece is searched
    /// sequentially (`None`: [`ybwc::default_granularity`]).
    pub granularity: Option<u32>,
    /// How messages are delivered.
    pub delivery: Delivery,
    /// Threads inside each process for its tasks (`None`: the sequential
    /// search; real ranks only, [`hybrid`]).
    pub threads: Option<RankThreads>,
}

impl ClusterConfig {
    /// `algorithm` on `procs` processes with the default machine.
    pub fn new(algorithm: ClusterAlgorithm, procs: usize) -> ClusterConfig {
        ClusterConfig {
            algorithm,
            procs,
            costs: Costs::default(),
            tt_slots: search::DEFAULT_TT_SLOTS,
            split: None,
            master_depth: None,
            slice_nodes: master_worker::DEFAULT_SLICE_NODES,
            share_depth: None,
            epsilon: None,
            granularity: None,
            delivery: Delivery::Timed,
            threads: None,
        }
    }

    /// Whether the configuration can run: the algorithm on its process
    /// count, threads inside the processes only for whole tasks.
    pub fn check(&self) -> Result<(), ClusterError> {
        self.algorithm.check(self.procs)?;
        match self.threads {
            Some(_) if !self.algorithm.whole_tasks() => Err(ClusterError::Threads { algorithm: self.algorithm }),
            _ => Ok(()),
        }
    }
}

/// The sequential baseline as a process of its own.
struct Sequential<S: TreeSource> {
    root: S::Node,
    depth: u32,
    slots: usize,
}

impl<S: TreeSource> Process<S> for Sequential<S> {
    fn start<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        let mut s = Searcher::new(self.slots);
        let v = s.search(src, &self.root, true, self.depth, 0, Window::ROOT);
        t.searched(s.counts);
        t.done(v);
    }
    fn receive<T: Transport<S::Node>>(&mut self, _: &S, _: &mut T, _: usize, _: Msg<S::Node>) {}
}

/// What runs a policy's processes: the simulated cluster here, the MPI
/// transport in `mpi`. [`launch`] builds the policy and hands it over.
pub trait Launch<S: TreeSource> {
    /// What a run gives back (the root's value among it).
    type Output;
    /// Runs `procs` processes of one policy; `make(rank)` builds rank
    /// `rank`'s process (a real transport builds its own rank's only).
    fn launch<P: Process<S>>(self, src: &S, procs: usize, make: impl FnMut(usize) -> P) -> Self::Output;
}

/// Builds `cfg`'s policy for a search of `root` to `depth` and runs it
/// with `l`, every process searching with the sequential search (threads
/// inside the processes are refused here: [`launch_with`]).
pub fn launch<S: TreeSource, L: Launch<S>>(src: &S, root: &S::Node, depth: u32, c: &ClusterConfig, l: L) -> Result<L::Output, ClusterError> {
    if c.threads.is_some() {
        return Err(ClusterError::Threads { algorithm: c.algorithm });
    }
    launch_with(src, root, depth, c, l, || Searcher::new(c.tt_slots))
}

/// [`launch`] with the root-splitting policies' processes searching their
/// tasks with `tasks()` (one per process): the one place that maps an
/// algorithm to its processes.
pub fn launch_with<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(
    src: &S,
    root: &S::Node,
    depth: u32,
    c: &ClusterConfig,
    l: L,
    tasks: impl Fn() -> Q,
) -> Result<L::Output, ClusterError> {
    c.check()?;
    let split = || c.split.map_or_else(|| frontier::default_split(src, root, depth, c.procs), |s| s.min(depth));
    Ok(match c.algorithm {
        ClusterAlgorithm::Sequential => l.launch(src, 1, |_| Sequential::<S> { root: root.clone(), depth, slots: c.tt_slots }),
        ClusterAlgorithm::EvenSplit => {
            let f = Shared::new(src, root, depth, split());
            l.launch(src, c.procs, |_| EvenSplit::new(&f, tasks()))
        }
        ClusterAlgorithm::MasterSlave => {
            let f = Shared::new(src, root, depth, split());
            l.launch(src, c.procs, |_| MasterSlave::new(&f, tasks()))
        }
        ClusterAlgorithm::MasterWorker
        | ClusterAlgorithm::MasterWorkerNoUpdate
        | ClusterAlgorithm::MasterWorkerShare
        | ClusterAlgorithm::MasterWorkerNegaScout => {
            let a = c.algorithm;
            let share = (a == ClusterAlgorithm::MasterWorkerShare).then(|| c.share_depth.unwrap_or_else(|| master_worker::default_share_depth(src, root)));
            let epsilon = (a == ClusterAlgorithm::MasterWorkerNegaScout).then(|| c.epsilon.unwrap_or_else(|| master_worker::default_epsilon(src, root)).max(1));
            let opts =
                MwOptions { master_depth: c.master_depth, updates: a != ClusterAlgorithm::MasterWorkerNoUpdate, slice: c.slice_nodes.max(1), share, epsilon };
            l.launch(src, c.procs, MasterWorker::maker(src, root, depth, c.procs, c.tt_slots, opts))
        }
        ClusterAlgorithm::Ybwc => {
            let g = c.granularity.unwrap_or_else(|| ybwc::default_granularity(src, root, depth));
            l.launch(src, c.procs, Ybwc::maker(root, depth, g, c.slice_nodes, c.tt_slots))
        }
    })
}

/// The simulated cluster as a [`Launch`]: every process built, one
/// discrete-event run.
struct OnMachine {
    costs: Costs,
    delivery: Delivery,
}

impl<S: TreeSource> Launch<S> for OnMachine {
    type Output = Option<ClusterStats>;
    fn launch<P: Process<S>>(self, src: &S, procs: usize, make: impl FnMut(usize) -> P) -> Option<ClusterStats> {
        let mut p: Vec<P> = (0..procs).map(make).collect();
        machine::run(src, &mut p, self.costs, self.delivery)
    }
}

struct Simulate<'a> {
    cfg: &'a ClusterConfig,
    want: Option<i64>,
}

impl SourceVisitor for Simulate<'_> {
    type Output = Result<ClusterStats, ClusterError>;
    fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Self::Output {
        let c = self.cfg;
        let stats = launch(src, root, depth, c, OnMachine { costs: c.costs, delivery: c.delivery })?;
        let want = match self.want {
            Some(v) => v,
            None => Searcher::new(c.tt_slots).search(src, root, true, depth, 0, Window::ROOT),
        };
        match stats {
            Some(s) if s.value == want => Ok(s),
            s => Err(ClusterError::Inexact { algorithm: c.algorithm, procs: c.procs, got: s.map(|s| s.value), want }),
        }
    }
}

/// Runs `cfg` on `tree` and checks its root value against `want` (the
/// sequential baseline's, searched here if `None`).
pub fn simulate(tree: &Tree, cfg: &ClusterConfig, want: Option<i64>) -> Result<ClusterStats, ClusterError> {
    tree.visit(Simulate { cfg, want })
}

#[cfg(test)]
mod tests;
