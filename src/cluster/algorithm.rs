//! What a cluster run is asked to be: one algorithm of the message-passing
//! machines with its own parameters (`docs/model.md` §9), the sibling of
//! the shared-memory [`crate::algorithm::Algorithm`] and written in its
//! style: a variant holds exactly the parameters its algorithm uses, so a
//! configuration that cannot run cannot be written (no split ply on a
//! master-worker, no ε without the NegaScout master).
//!
//! A parameter left `None` is worked out from the tree when the run is
//! built, in one place: [`launch_with`] resolves every default
//! and hands back the algorithm it ran with, every parameter `Some`; rows
//! are written from that ([`ClusterAlgorithm::split_column`]). This file is
//! also the algorithms' one registration: the names, the process counts
//! each runs on, and the arm that builds its processes.

use super::search::Searcher;
use super::{ClusterConfig, ClusterError, Launch, Launched, MAX_CLUSTER_PROCS};
use crate::cluster::algorithms::fox::Fox;
use crate::cluster::algorithms::frontier::default_split;
use crate::cluster::algorithms::master_worker::{self, MasterWorker, MwOptions};
use crate::cluster::algorithms::pv_split::{self, PvSplit};
use crate::cluster::algorithms::root_split::{EvenSplit, MasterSlave, Shared, TaskSearch};
use crate::cluster::algorithms::ybwc::{self, Switches, Ybwc};
use crate::cluster::exec::transport::{Msg, Process, Transport};
use crate::game::TreeSource;
use crate::value::Window;

/// Ura et al.'s master-worker configurations (`docs/model.md` §9.5): what
/// the workers report and what the master does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MwVariant {
    /// Dynamic updates: every finished depth is reported (`master-worker`).
    Updates,
    /// Workers report full-depth results only (`master-worker-noupdate`).
    NoUpdate,
    /// With updates, and the workers share the table entries this many
    /// plies or fewer below a task's root around a ring
    /// (`master-worker-share`; `None`: [`master_worker::default_share_depth`]).
    Share {
        /// Plies below a task's root whose entries are shared.
        depth: Option<u32>,
    },
    /// With updates and a NegaScout master with ε-windows
    /// (`master-worker-negascout`; `None`: [`master_worker::default_epsilon`]).
    NegaScout {
        /// The scout windows' width, score units (at least 1).
        epsilon: Option<i64>,
    },
}

/// A parallel search of the message-passing machines: one name, one
/// algorithm, everywhere; each with its own parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterAlgorithm {
    /// The sequential baseline (one process; `seq`).
    Sequential,
    /// OthelloX's even split of the root's frontier (`even-split`).
    EvenSplit {
        /// The ply the tree is split at (`None`: the shallowest with at
        /// least as many nodes as processes, [`default_split`]).
        split: Option<u32>,
    },
    /// OthelloX's master-slave over the root's frontier (`master-slave`).
    MasterSlave {
        /// The split ply, as for [`ClusterAlgorithm::EvenSplit`].
        split: Option<u32>,
    },
    /// Ura et al.'s master-worker (`master-worker`, `master-worker-noupdate`,
    /// `master-worker-share`, `master-worker-negascout`).
    MasterWorker {
        /// The master's depth d′ (`None`: a few leaves per worker,
        /// [`master_worker::default_master_depth`]; at most the search depth).
        master_depth: Option<u32>,
        /// Nodes a worker searches before it looks at its inbox.
        slice: u64,
        /// Which of the paper's configurations.
        variant: MwVariant,
    },
    /// The Young Brothers Wait Concept over messages (`ybwc`; with
    /// Feldmann's refinements `ybwc-full` and the names of
    /// [`Switches::name`]).
    Ybwc {
        /// The remaining depth at or below which a piece is searched
        /// sequentially (`None`: [`ybwc::default_granularity`]).
        granularity: Option<u32>,
        /// Nodes a process searches before it looks at its inbox.
        slice: u64,
        /// The full version's refinements on (none: the plain `ybwc`).
        switches: Switches,
    },
    /// OthelloX's PV splitting over messages (`pv-split`).
    PvSplit {
        /// The ply of the deepest PV node searched whole: the PV nodes
        /// above it are split (`None`: [`pv_split::default_split_ply`]).
        split: Option<u32>,
    },
    /// Fox et al.'s hash-table-guided master/slave on the hypercube's
    /// sub-cubes (`fox`).
    Fox {
        /// The remaining depth at or below which a node is searched
        /// sequentially (`None`: [`ybwc::default_granularity`]).
        granularity: Option<u32>,
        /// Nodes a process searches before it looks at its inbox.
        slice: u64,
    },
}

/// A master-worker configuration with the defaults of everything but its variant.
const fn mw(variant: MwVariant) -> ClusterAlgorithm {
    ClusterAlgorithm::MasterWorker { master_depth: None, slice: master_worker::DEFAULT_SLICE_NODES, variant }
}

/// YBWC with `switches` and the defaults of everything else.
const fn ybwc(switches: Switches) -> ClusterAlgorithm {
    ClusterAlgorithm::Ybwc { granularity: None, slice: master_worker::DEFAULT_SLICE_NODES, switches }
}

impl ClusterAlgorithm {
    /// Every algorithm with its defaults, in table order.
    pub const ALL: [ClusterAlgorithm; 11] = [
        ClusterAlgorithm::Sequential,
        ClusterAlgorithm::EvenSplit { split: None },
        ClusterAlgorithm::MasterSlave { split: None },
        mw(MwVariant::Updates),
        mw(MwVariant::NoUpdate),
        mw(MwVariant::Share { depth: None }),
        mw(MwVariant::NegaScout { epsilon: None }),
        ybwc(Switches::NONE),
        ybwc(Switches::ALL),
        ClusterAlgorithm::PvSplit { split: None },
        ClusterAlgorithm::Fox { granularity: None, slice: master_worker::DEFAULT_SLICE_NODES },
    ];

    /// The algorithms run when none is asked for (p > 1).
    pub const DEFAULT: [ClusterAlgorithm; 2] = [ClusterAlgorithm::EvenSplit { split: None }, ClusterAlgorithm::MasterSlave { split: None }];

    /// The name on the command line and in rows.
    pub fn name(&self) -> &'static str {
        match self {
            ClusterAlgorithm::Sequential => "seq",
            ClusterAlgorithm::EvenSplit { .. } => "even-split",
            ClusterAlgorithm::MasterSlave { .. } => "master-slave",
            ClusterAlgorithm::MasterWorker { variant, .. } => match variant {
                MwVariant::Updates => "master-worker",
                MwVariant::NoUpdate => "master-worker-noupdate",
                MwVariant::Share { .. } => "master-worker-share",
                MwVariant::NegaScout { .. } => "master-worker-negascout",
            },
            ClusterAlgorithm::Ybwc { switches, .. } => switches.name(),
            ClusterAlgorithm::PvSplit { .. } => "pv-split",
            ClusterAlgorithm::Fox { .. } => "fox",
        }
    }

    /// The names [`FromStr`](std::str::FromStr) takes, for messages: `a,
    /// b or c`, and YBWC's other sets of switches by their rule.
    pub fn expected() -> String {
        let names = crate::cli::or_list(&ClusterAlgorithm::ALL.iter().map(|a| a.name()).collect::<Vec<_>>());
        format!("{names}; YBWC with some switches: ybwc-full-no-W or ybwc+W+…, W in helpful, three-stage, promising, order, windows, in that order")
    }

    /// Whether its processes search whole tasks (the root-splitting
    /// baselines): those may search them on threads ([`super::hybrid`]).
    pub fn whole_tasks(&self) -> bool {
        matches!(self, ClusterAlgorithm::EvenSplit { .. } | ClusterAlgorithm::MasterSlave { .. })
    }

    /// Whether it is one of Ura et al.'s master-worker configurations.
    pub fn is_master_worker(&self) -> bool {
        matches!(self, ClusterAlgorithm::MasterWorker { .. })
    }

    /// The options of [`super::args::ClusterArgs`] the algorithm reads
    /// (`--tt-slots`, every process's table, is the machine's): an option
    /// no chosen algorithm reads is refused ([`crate::cli::refuse_unread`]).
    pub fn options(&self) -> &'static [&'static str] {
        match self {
            ClusterAlgorithm::Sequential => &[],
            ClusterAlgorithm::EvenSplit { .. } | ClusterAlgorithm::MasterSlave { .. } | ClusterAlgorithm::PvSplit { .. } => &["--split-ply"],
            ClusterAlgorithm::MasterWorker { variant, .. } => match variant {
                MwVariant::Updates | MwVariant::NoUpdate => &["--master-depth", "--slice-nodes", "--master-cost"],
                MwVariant::Share { .. } => &["--master-depth", "--slice-nodes", "--master-cost", "--share-depth"],
                MwVariant::NegaScout { .. } => &["--master-depth", "--slice-nodes", "--master-cost", "--epsilon"],
            },
            ClusterAlgorithm::Ybwc { .. } | ClusterAlgorithm::Fox { .. } => &["--slice-nodes"],
        }
    }

    /// Whether it runs on `procs` processes: the sequential baseline on
    /// one, the others on 1..=4096 (those with a master need a worker: 2 or
    /// more).
    pub fn check(&self, procs: usize) -> Result<(), ClusterError> {
        let ok = match self {
            ClusterAlgorithm::Sequential => procs == 1,
            ClusterAlgorithm::EvenSplit { .. } => (1..=MAX_CLUSTER_PROCS).contains(&procs),
            _ => (2..=MAX_CLUSTER_PROCS).contains(&procs),
        };
        if ok { Ok(()) } else { Err(ClusterError::Procs { algorithm: *self, procs }) }
    }

    /// What the algorithm holds besides its tables, for the memory
    /// estimate's message ([`super::memory`]).
    pub fn tree_part(&self) -> &'static str {
        match self {
            ClusterAlgorithm::EvenSplit { .. } | ClusterAlgorithm::MasterSlave { .. } => "frontier",
            ClusterAlgorithm::MasterWorker { .. } => "master's tree",
            _ => "other",
        }
    }

    /// The rows' `split` column of a resolved algorithm (as
    /// [`launch_with`] returns it): the split ply of the
    /// root-splitting baselines, the master depth of the master-worker, the
    /// granularity of YBWC and Fox's, the deepest PV node's ply of the PV split; none
    /// for the sequential baseline.
    pub fn split_column(&self) -> Option<u32> {
        match *self {
            ClusterAlgorithm::Sequential => None,
            ClusterAlgorithm::EvenSplit { split } | ClusterAlgorithm::MasterSlave { split } => split,
            ClusterAlgorithm::MasterWorker { master_depth, .. } => master_depth,
            ClusterAlgorithm::Ybwc { granularity, .. } | ClusterAlgorithm::Fox { granularity, .. } => granularity,
            ClusterAlgorithm::PvSplit { split } => split,
        }
    }
}

/// The split ply asked (`s`, at most `depth`) or its default for `procs`
/// processes: the one rule, for [`launch_with`] and the memory estimate.
fn split_ply<S: TreeSource>(s: Option<u32>, src: &S, root: &S::Node, depth: u32, procs: usize) -> u32 {
    s.map_or_else(|| default_split(src, root, depth, procs), |s| s.min(depth))
}

/// The master depth asked (`d`, at most `depth`) or its default for
/// `procs` processes: the one rule, for [`launch_with`] and the memory
/// estimate.
fn master_depth_of<S: TreeSource>(d: Option<u32>, src: &S, root: &S::Node, depth: u32, procs: usize) -> u32 {
    d.map_or_else(|| master_worker::default_master_depth(src, root, depth, procs), |d| d.min(depth))
}

impl ClusterAlgorithm {
    /// The algorithm with its split ply or master depth worked out for a
    /// search of `root` to `depth` on `procs` processes, as [`launch_with`]
    /// works them out (what a run's memory depends on, `super::memory`);
    /// its other parameters as they are.
    pub fn with_plies<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32, procs: usize) -> ClusterAlgorithm {
        match self {
            ClusterAlgorithm::EvenSplit { split } => ClusterAlgorithm::EvenSplit { split: Some(split_ply(split, src, root, depth, procs)) },
            ClusterAlgorithm::MasterSlave { split } => ClusterAlgorithm::MasterSlave { split: Some(split_ply(split, src, root, depth, procs)) },
            ClusterAlgorithm::MasterWorker { master_depth, slice, variant } => {
                ClusterAlgorithm::MasterWorker { master_depth: Some(master_depth_of(master_depth, src, root, depth, procs)), slice, variant }
            }
            a => a,
        }
    }
}

/// Builds `c`'s processes for a search of `root` to `depth`, the
/// root-splitting baselines searching their tasks with `tasks()` (one per
/// process), and runs them with `l`, once `c` is checked. Returns the run's
/// output and the algorithm as it ran: every default worked out here, once
/// (the split ply at most `depth`, the master depth at most `depth`, ε at
/// least 1). The one place that maps an algorithm to its processes.
pub fn launch_with<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(
    src: &S,
    root: &S::Node,
    depth: u32,
    c: &ClusterConfig,
    l: L,
    tasks: impl Fn() -> Q,
) -> Result<Launched<L::Output>, ClusterError> {
    c.check()?;
    let (procs, slots) = (c.procs, c.settings.tt_slots);
    let split = |s| split_ply(s, src, root, depth, procs);
    let (output, algorithm) = match c.algorithm {
        ClusterAlgorithm::Sequential => (l.launch(src, 1, |_| Sequential::<S> { root: root.clone(), depth, slots }), c.algorithm),
        ClusterAlgorithm::EvenSplit { split: s } => {
            let f = Shared::new(src, root, depth, split(s));
            let resolved = ClusterAlgorithm::EvenSplit { split: Some(f.split) };
            (l.launch(src, procs, |_| EvenSplit::new(&f, tasks())), resolved)
        }
        ClusterAlgorithm::MasterSlave { split: s } => {
            let f = Shared::new(src, root, depth, split(s));
            let resolved = ClusterAlgorithm::MasterSlave { split: Some(f.split) };
            (l.launch(src, procs, |_| MasterSlave::new(&f, tasks())), resolved)
        }
        ClusterAlgorithm::MasterWorker { master_depth, slice, variant } => {
            let dm = master_depth_of(master_depth, src, root, depth, procs);
            let variant = match variant {
                MwVariant::Share { depth: k } => MwVariant::Share { depth: Some(k.unwrap_or_else(|| master_worker::default_share_depth(src, root))) },
                MwVariant::NegaScout { epsilon } => {
                    MwVariant::NegaScout { epsilon: Some(epsilon.unwrap_or_else(|| master_worker::default_epsilon(src, root)).max(1)) }
                }
                v => v,
            };
            let opts = MwOptions {
                master_depth: dm,
                updates: variant != MwVariant::NoUpdate,
                slice: slice.max(1),
                share: if let MwVariant::Share { depth } = variant { depth } else { None },
                epsilon: if let MwVariant::NegaScout { epsilon } = variant { epsilon } else { None },
            };
            let resolved = ClusterAlgorithm::MasterWorker { master_depth: Some(dm), slice, variant };
            (l.launch(src, procs, MasterWorker::maker(root, depth, procs, slots, opts)), resolved)
        }
        ClusterAlgorithm::Ybwc { granularity, slice, switches } => {
            let g = granularity.unwrap_or_else(|| ybwc::default_granularity(src, root, depth));
            let make = Ybwc::maker(root, depth, g, slice, slots, switches, c.settings.costs.topology);
            (l.launch(src, procs, make), ClusterAlgorithm::Ybwc { granularity: Some(g), slice, switches })
        }
        ClusterAlgorithm::PvSplit { split } => {
            let s = split.unwrap_or_else(|| pv_split::default_split_ply(src, root, depth)).min(depth);
            (l.launch(src, procs, |_| PvSplit::new(root, depth, s, tasks())), ClusterAlgorithm::PvSplit { split: Some(s) })
        }
        ClusterAlgorithm::Fox { granularity, slice } => {
            let g = granularity.unwrap_or_else(|| ybwc::default_granularity(src, root, depth));
            (l.launch(src, procs, Fox::maker(root, depth, g, slice, slots)), ClusterAlgorithm::Fox { granularity: Some(g), slice })
        }
    };
    Ok(Launched { output, algorithm })
}

impl std::fmt::Display for ClusterAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ClusterAlgorithm {
    type Err = ClusterError;
    /// A name of [`ClusterAlgorithm::ALL`] or of YBWC's switches
    /// ([`Switches::name`]), with the algorithm's defaults.
    fn from_str(s: &str) -> Result<ClusterAlgorithm, ClusterError> {
        let named = ClusterAlgorithm::ALL.into_iter().find(|a| a.name() == s);
        named.or_else(|| Switches::parse(s).map(ybwc)).ok_or_else(|| ClusterError::Unknown(s.to_string()))
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
