//! The table of `pabsim --machine cluster` (`docs/formats.md`): the
//! columns of Ura et al.'s tables (search time, speed-up, leaves, start-up
//! idle, other idle) plus OthelloX's processor load, messages and bytes,
//! per tree or per configuration. The same rows come from real runs over
//! MPI (`psearch --mpi`): `transport` says which, and their
//! times are measured wall times.

use super::rows::{prob, two};
use serde::{Deserialize, Serialize};

/// One row of `pabsim --machine cluster`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterRow {
    /// 1-based tree index (per-tree rows; empty in summaries).
    pub tree: Option<u32>,
    /// The tree's seed column (per-tree rows).
    pub seed: Option<u64>,
    /// The tree family.
    pub model: String,
    /// Branching factor (empty for games).
    pub b: Option<u32>,
    /// Search depth.
    pub depth: u32,
    /// Trees in the row.
    pub trees: u32,
    /// The algorithm (`seq`, `even-split`, `master-slave`).
    pub algorithm: String,
    /// Processes.
    pub procs: u32,
    /// The split ply (`--split-ply`) of the root-splitting algorithms and
    /// the PV split, as the run resolved it (empty otherwise).
    pub split_ply: Option<u32>,
    /// The master-worker's master depth d' (`--master-depth`), as resolved.
    pub master_depth: Option<u32>,
    /// YBWC's and Fox's granularity g, as resolved (no option: `ybwc::default_granularity` per tree).
    pub granularity: Option<u32>,
    /// The root's value (per-tree rows), checked against the sequential baseline's.
    pub root_value: Option<i64>,
    /// Search time, ns: per tree, or the geometric mean over the trees
    /// (simulated; measured wall time when `transport` is `mpi`).
    #[serde(serialize_with = "two")]
    pub time_ns: f64,
    /// The sequential baseline's time over this one's (geometric means).
    #[serde(serialize_with = "prob")]
    pub speedup: f64,
    /// Leaves visited (summed over the trees).
    pub leaves: u64,
    /// Nodes visited (summed).
    pub nodes: u64,
    /// Leaves over the sequential baseline's.
    #[serde(serialize_with = "prob")]
    pub leaf_ratio: f64,
    /// Mean idle time per process before its first message, ns (over processes and trees).
    #[serde(serialize_with = "two")]
    pub startup_idle_ns: f64,
    /// Mean other idle time per process up to the search time, ns.
    #[serde(serialize_with = "two")]
    pub other_idle_ns: f64,
    /// Processor load (OthelloX's LD, as a fraction): each process's busy
    /// time over the search time, summed over the trees before the
    /// division (time-weighted), then the mean over the processes. 1 for
    /// the sequential baseline; on the simulated cluster, per tree, 1 −
    /// (start-up + other idle) / time.
    #[serde(serialize_with = "prob")]
    pub load_mean: f64,
    /// The least loaded process's load (as `load_mean`).
    #[serde(serialize_with = "prob")]
    pub load_min: f64,
    /// The standard deviation of the processes' loads (population: over
    /// the row's P processes).
    #[serde(serialize_with = "prob")]
    pub load_sd: f64,
    /// Messages sent (summed).
    pub messages: u64,
    /// Bytes sent (summed).
    pub bytes: u64,
    /// The task columns (`TaskTally`), summed over the trees, for the
    /// algorithms that farm out tasks (the master-worker; empty otherwise,
    /// and for real runs): rounds over the master's tree.
    pub passes: Option<u64>,
    /// Tasks sent (again in every round that visits their leaf).
    pub tasks_sent: Option<u64>,
    /// Of them, sent with the full window.
    pub full_window_sends: Option<u64>,
    /// Tasks a worker dropped unfinished at a pass message.
    pub tasks_dropped: Option<u64>,
    /// Nodes searched on the dropped tasks.
    pub dropped_nodes: Option<u64>,
    /// Searches aborted for a more important task (a dropped task's search
    /// under way among them).
    pub tasks_aborted: Option<u64>,
    /// Nodes of the aborted searches.
    pub aborted_nodes: Option<u64>,
    /// Nodes the workers searched on tasks whose node the sequential
    /// baseline did not search to full depth (speculation on subtrees it
    /// cut off; `cluster::reference`).
    pub outside_nodes: Option<u64>,
    /// `simulated` (`pabsim --machine cluster`) or `mpi` (a real run,
    /// `psearch --mpi`).
    pub transport: String,
    /// A real run: the fewest CPUs online of the job's hosts (empty for
    /// simulated rows).
    pub cores: Option<u32>,
    /// A real run: the busiest host's 1-minute load average before the job's
    /// searches (`crate::real::host`; empty for simulated rows, or where it
    /// cannot be read).
    pub host_load: Option<f64>,
    /// A real run: the fewest cores any host had free of other work before
    /// the job's searches (empty as `host_load`).
    pub free_cores: Option<u32>,
    /// A real run: whether some host ran more ranks × threads than its free
    /// cores (its cores, where they cannot be read), or some rank more
    /// threads than the cores it was bound to (empty for simulated rows).
    pub oversubscribed: Option<bool>,
    /// A real run: threads inside each process (1: the sequential search;
    /// empty for simulated rows).
    pub threads: Option<u32>,
    /// A real run with `threads` above 1: the shared-memory policy the
    /// threads run (empty otherwise; read from older files' `thread_algorithm`).
    pub thread_policy: Option<String>,
    /// A real run: rank 0's measured time of one look for messages that
    /// finds none (an immediate probe, the median of five batches of a
    /// thousand before the searches), ns: what each wake-up a process asks
    /// for costs it, the simulated cluster's `--wake-ns` (empty for
    /// simulated rows).
    pub wake_ns: Option<u64>,
}

/// One row of `pabsim --machine cluster --leaf-factors` (Ura et al.
/// §5.2): leaves of the sequential search made to behave like the
/// master-worker's workers, summed over the trees.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactorRow {
    /// The tree family.
    pub model: String,
    /// Branching factor (empty for games).
    pub b: Option<u32>,
    /// Search depth d.
    pub depth: u32,
    /// The master's depth d′: nodes at this ply are the tasks.
    pub master_depth: u32,
    /// Partial share: other tasks' entries at most this many plies below d′ are used.
    pub share_depth: u32,
    /// Trees in the row.
    pub trees: u32,
    /// Leaves of the baseline (the master's table and one shared deep table).
    pub leaves: u64,
    /// Leaves when a task uses only its own deep entries.
    pub leaves_unshared: u64,
    /// Leaves with the partial share.
    pub leaves_partial: u64,
    /// Leaves when every task is searched with the full window.
    pub leaves_full_window: u64,
}
