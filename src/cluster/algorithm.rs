//! What a message-passing algorithm is: the one trait [`Algorithm`] that
//! every search of the cluster implements (`docs/model.md` §8.4, §9), the
//! options it may read ([`Opt`], each declared beside the algorithm that
//! reads it, and their values, [`Given`]) and what it is asked to run
//! on ([`Run`]). The algorithms themselves live in `super::algorithms`, one
//! file or folder each, and are registered there in one list; a library
//! user's algorithm implements the same trait and runs through the same
//! functions (`examples/work_stealing.rs`).
//!
//! An algorithm is a small `Copy` value holding its parameters. A parameter
//! left `None` is worked out once, from the tree and the process count, by
//! [`Algorithm::resolve`]; the memory estimate and the run both start from
//! the resolved value, so they cannot disagree about a default, and the
//! rows are written from it.

use super::{ClusterSettings, Launch, MAX_CLUSTER_PROCS};
use crate::game::TreeSource;
use crate::search::NodeCounts;
use crate::value::Window;
use std::ops::RangeInclusive;

/// Nodes a process that searches in slices (the master-worker's workers,
/// YBWC's and Fox's processes) searches before it looks at its inbox,
/// unless `--slice-nodes` says otherwise: about 0.4 ms at the default node
/// cost.
pub const DEFAULT_SLICE_NODES: u64 = 1024;

/// The slice a process searches in: `--slice-nodes` if given, else
/// [`DEFAULT_SLICE_NODES`] (the one place the default is applied).
pub fn slice_nodes(asked: Option<u64>) -> u64 {
    asked.unwrap_or(DEFAULT_SLICE_NODES)
}

/// An option of the cluster's algorithms, declared once, as a constant in
/// the file of the algorithm that reads it ([`SLICE_NODES`] here, read by
/// several): its flag, its value's name, its help, its values. The tools'
/// command lines hold the options the registered algorithms read
/// ([`Algorithm::reads`], `super::args::AlgorithmArgs`); an algorithm
/// takes their values from [`Given`]. `--tt-slots` is the machine's, read
/// by every algorithm, so it is not one of these.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// Its spelling on the command line (`--split-ply`).
    pub flag: &'static str,
    /// The value's name in `--help`.
    pub value: &'static str,
    /// What it sets, for `--help`.
    pub help: &'static str,
    /// Its values.
    pub kind: OptKind,
}

/// What an option takes: clap parses the type, [`Opt::check`] the range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptKind {
    /// A `u32` (a ply, a depth), within `0..=max` if it has a limit.
    U32 {
        /// The largest value and what the values are (`None`: any `u32`).
        max: Option<(u32, &'static str)>,
    },
    /// A count (`u64`) of at least 1.
    Count {
        /// Why 0 is refused.
        zero: &'static str,
    },
    /// An `i64` within `min..=max`.
    I64 {
        /// The least value.
        min: i64,
        /// The largest value.
        max: i64,
        /// What the values are.
        what: &'static str,
    },
    /// A finite `f64` within `min..=max`.
    F64 {
        /// The least value.
        min: f64,
        /// The largest value.
        max: f64,
        /// What the values are.
        what: &'static str,
    },
}

/// A value given for an [`Opt`], of its kind's type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptValue {
    /// [`OptKind::U32`].
    U32(u32),
    /// [`OptKind::Count`].
    Count(u64),
    /// [`OptKind::I64`].
    I64(i64),
    /// [`OptKind::F64`].
    F64(f64),
}

impl PartialEq for Opt {
    /// An option is its flag.
    fn eq(&self, o: &Opt) -> bool {
        self.flag == o.flag
    }
}

impl Eq for Opt {}

impl Opt {
    /// The flag without its dashes: the argument's id.
    pub fn id(&self) -> &'static str {
        self.flag.trim_start_matches('-')
    }

    /// `v` if it lies in the option's range, else the one line saying so.
    pub fn check(&self, v: OptValue) -> Result<OptValue, String> {
        let flag = self.flag;
        match (self.kind, v) {
            (OptKind::U32 { max: Some((max, what)) }, OptValue::U32(x)) if x > max => Err(format!("{flag} {x} must lie in 0..{max} ({what})")),
            (OptKind::Count { zero }, OptValue::Count(0)) => Err(format!("{flag} 0: {zero}")),
            (OptKind::I64 { min, max, what }, OptValue::I64(x)) if !(min..=max).contains(&x) => Err(format!("{flag} {x} must lie in {min}..{max} ({what})")),
            (OptKind::F64 { min, max, what }, OptValue::F64(x)) if !(x.is_finite() && (min..=max).contains(&x)) => {
                Err(format!("{flag} {x} must lie in {min}..{max} ({what})"))
            }
            _ => Ok(v),
        }
    }
}

/// `--slice-nodes`: read by every algorithm whose processes search in
/// slices.
pub const SLICE_NODES: Opt = Opt {
    flag: "--slice-nodes",
    value: "SLICE_NODES",
    help: "Nodes a master-worker's, YBWC's, Fox's process or pv-split's rank 0 searches before it looks at its inbox (default 1024)",
    kind: OptKind::Count { zero: "a worker would never search" },
};

/// The algorithms' options given on the command line, each checked
/// ([`super::args::ClusterArgs::parameters`]): what [`Algorithm::given`]
/// reads, by option.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Given {
    values: Vec<(Opt, OptValue)>,
}

impl Given {
    /// `values`, as given (each option at most once).
    pub fn new(values: Vec<(Opt, OptValue)>) -> Given {
        Given { values }
    }

    fn get(&self, o: Opt) -> Option<OptValue> {
        self.values.iter().find(|(g, _)| *g == o).map(|&(_, v)| v)
    }

    /// The value of a [`OptKind::U32`] option, if given.
    pub fn u32(&self, o: Opt) -> Option<u32> {
        match self.get(o)? {
            OptValue::U32(v) => Some(v),
            _ => None,
        }
    }

    /// The value of a [`OptKind::Count`] option, if given.
    pub fn count(&self, o: Opt) -> Option<u64> {
        match self.get(o)? {
            OptValue::Count(v) => Some(v),
            _ => None,
        }
    }

    /// The value of a [`OptKind::I64`] option, if given.
    pub fn i64(&self, o: Opt) -> Option<i64> {
        match self.get(o)? {
            OptValue::I64(v) => Some(v),
            _ => None,
        }
    }

    /// The value of a [`OptKind::F64`] option, if given.
    pub fn f64(&self, o: Opt) -> Option<f64> {
        match self.get(o)? {
            OptValue::F64(v) => Some(v),
            _ => None,
        }
    }
}

/// One search asked of an algorithm: the tree (its source, root and depth),
/// the processes and the machine they share.
pub struct Run<'a, S: TreeSource> {
    /// The tree's source.
    pub src: &'a S,
    /// The root, a MAX node.
    pub root: &'a S::Node,
    /// The search depth.
    pub depth: u32,
    /// Processes.
    pub procs: usize,
    /// The machine.
    pub settings: &'a ClusterSettings,
    /// What the run is measured against besides the baseline's value (the
    /// sequential baseline's tasks, [`mod@super::reference`]).
    pub reference: &'a super::reference::Reference,
}

/// How a process searches one whole task (a frontier node): the
/// sequential baseline ([`super::search::Searcher`]), or threads inside a
/// real rank ([`super::hybrid`]). The root-splitting algorithms and the PV
/// split search their tasks with it.
pub trait TaskSearch<S: TreeSource> {
    /// The value of `node` (a MAX node if `max`, at `ply`) searched to
    /// `depth`, fail-hard in `w` (exact strictly inside it, else the bound
    /// it passed), and the nodes this search entered.
    fn task(&mut self, src: &S, node: &S::Node, max: bool, depth: u32, ply: u32, w: Window) -> (i64, NodeCounts);
}

/// What a run of an algorithm holds besides every process's fixed part,
/// for the memory estimate (`super::memory`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Processes that keep a transposition table.
    pub tables: u64,
    /// Bytes of the structure the algorithm keeps besides its tables (the
    /// root-splitting baselines' frontier, the master's tree).
    pub tree: u64,
    /// That structure's name in the estimate's message.
    pub name: &'static str,
    /// The option that makes it smaller.
    pub lower: &'static str,
}

impl Part {
    /// `procs` processes with a table each and nothing else.
    pub const fn tables(procs: usize) -> Part {
        Part { tables: procs as u64, tree: 0, name: "other", lower: "--procs" }
    }
}

/// Where an algorithm cuts the tree into the pieces its processes search,
/// as its run resolved it: three parameters of three meanings, so three
/// columns of the rows (`split_ply`, `master_depth`, `granularity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The ply of the deepest split nodes, counted from the root
    /// (`--split-ply`): the root-splitting algorithms' frontier, the PV
    /// split's deepest PV node.
    SplitPly(u32),
    /// The master-worker's master depth d' (`--master-depth`): the plies the
    /// master's tree spans; its leaves are the workers' tasks.
    MasterDepth(u32),
    /// The remaining depth at or below which a piece is searched
    /// sequentially: YBWC's and Fox's g (`--granularity`, by default
    /// `ybwc::default_granularity`).
    Granularity(u32),
}

impl Cut {
    /// The rows' three columns `[split_ply, master_depth, granularity]` of
    /// an algorithm's cut: at most one is set.
    pub fn columns(cut: Option<Cut>) -> [Option<u32>; 3] {
        match cut {
            Some(Cut::SplitPly(n)) => [Some(n), None, None],
            Some(Cut::MasterDepth(n)) => [None, Some(n), None],
            Some(Cut::Granularity(n)) => [None, None, Some(n)],
            None => [None; 3],
        }
    }
}

/// A parallel search of the message-passing machines: its names, the
/// options it reads, its parameters with their defaults, its memory and its
/// processes. The registered ones are listed once, in `super::algorithms`
/// ([`super::ClusterAlgorithm`]); everything the tools say about
/// algorithms (`--help`, the unknown-name message, `--list-algorithms`, the
/// report's legends) is read from there.
pub trait Algorithm: Copy + std::fmt::Debug + PartialEq + Send + Sync + 'static {
    /// The values it registers, each with every parameter at its default,
    /// in table order: one per name (the master-worker registers its four
    /// configurations).
    fn registered() -> Vec<Self>;

    /// A value for a name beyond the registered ones (YBWC's sets of
    /// switches), with its defaults.
    fn parse_other(_name: &str) -> Option<Self> {
        None
    }

    /// Its name on the command line and in rows.
    fn name(&self) -> &'static str;

    /// What it is, in a few words: the legends of the report's figures.
    fn label(&self) -> String;

    /// One line for `--help`: what it does and the options it reads.
    fn about(&self) -> &'static str;

    /// The options it reads: one given that no chosen algorithm reads is
    /// refused ([`crate::cli::refuse_unread`]).
    fn reads(&self) -> &'static [Opt] {
        &[]
    }

    /// It with the parameters given on the command line that it reads.
    fn given(self, _g: &Given) -> Self {
        self
    }

    /// The process counts it runs on (those with a master need a worker).
    fn procs(&self) -> RangeInclusive<usize> {
        2..=MAX_CLUSTER_PROCS
    }

    /// Whether its processes search whole tasks with a [`TaskSearch`]: those
    /// may search them on threads inside a real rank ([`super::hybrid`]).
    fn whole_tasks(&self) -> bool {
        false
    }

    /// It with every parameter left to its default worked out for `run`:
    /// the one place a default is resolved.
    fn resolve<S: TreeSource>(self, _run: &Run<'_, S>) -> Self {
        self
    }

    /// The parameter of a resolved value that says where it cuts the tree
    /// into pieces, if it has one: each kind is a column of the rows of its
    /// own (`docs/formats.md`).
    fn cut(&self) -> Option<Cut> {
        None
    }

    /// What a resolved value holds on `run` besides the processes' fixed part.
    fn memory<S: TreeSource>(&self, run: &Run<'_, S>) -> Part {
        Part::tables(run.procs)
    }

    /// Runs a resolved value's processes with `l` on `run`, the processes
    /// that search whole tasks searching them with `tasks()` (one each).
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, tasks: impl Fn() -> Q) -> L::Output;
}
