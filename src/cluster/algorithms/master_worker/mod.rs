//! Ura, Tsuruoka and Chikayama's (2014, §3) master-worker search with
//! dynamic updates of the predicted minimal tree (`docs/model.md` §9.4):
//! the options and their defaults, and the process of each rank.
//!
//! - **The master** (rank 0, [`Master`], in `master.rs`) keeps its tree to
//!   depth d' in memory (moves generated once, `tree.rs`) and searches it
//!   again and again, each time a *pass*, with two windows: the *pass
//!   window*, narrowed by every value, and the *task window*, narrowed only
//!   after children without uncertain values. A leaf at depth d' takes the
//!   worker's full-depth result if it settles the leaf in the pass window
//!   (*decided*); otherwise the deepest shallow result that settles it, or
//!   its static evaluation (*uncertain*), and a task (the position, depth
//!   d − d', the task window — with the NegaScout master the leaf's
//!   ε-window —, the signature) goes to a worker. A pass
//!   without uncertain values gives the root's value; otherwise the master
//!   tells every worker the pass is over and waits for results. The
//!   master's children are ordered by the values of the last pass (on a
//!   first visit, of a search 2 plies shallower), so the tree it predicts
//!   follows the workers' results.
//! - **A worker** ([`Worker`], in `worker.rs`) keeps a priority queue of
//!   tasks, searches the most important one by iterative deepening,
//!   reporting each finished depth when updates are on, pausing every slice
//!   of nodes to read its messages and aborting only for a more important
//!   task (`crate::cluster::pause`).
//!
//! Exactness: the run ends only on a pass whose every leaf value is a
//! worker's full-depth result that settles the leaf in its pass window, so
//! the pass is a plain alpha-beta search of the whole tree (with the
//! NegaScout master a NegaScout search: a null-window scout stands only
//! when it fails away from the side to move, and then it counts as decided
//! only if its own leaves were).

mod master;
#[cfg(test)]
mod tests;
mod tree;
mod worker;

pub use master::Master;
pub use tree::{MASTER_TREE_FACTOR, master_memory, master_node_bytes};
pub use worker::Worker;

use crate::cluster::Launch;
use crate::cluster::algorithm::{Algorithm, Cut, DEFAULT_SLICE_NODES, Given, Opt, OptKind, Part, Run, SLICE_NODES, TaskSearch, slice_nodes};
use crate::cluster::algorithms::frontier::frontier;
use crate::cluster::exec::transport::{Msg, OwnMsg, Process, Role, Task, TaskTally, Transport};
use crate::cluster::search::SharedEntry;
use serde::{Deserialize, Serialize};
use crate::game::{TreeSource, children};
use crate::value::Window;
use worker::WTask;

/// The master-worker's parameters, every default worked out
/// ([`crate::cluster::launch_with`] resolves them from the asked
/// configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MwOptions {
    /// The master's depth d' (at most the search depth).
    pub master_depth: u32,
    /// Dynamic updates: workers report every finished depth (off: the full
    /// depth only, the paper's *without updates*).
    pub updates: bool,
    /// Nodes a worker searches before it looks at its inbox.
    pub slice: u64,
    /// *With share*: workers circulate the entries they store this many
    /// plies or fewer below a task's root around a ring (`None`: no
    /// sharing).
    pub share: Option<u32>,
    /// *NegaScout master*: children after the first are first searched
    /// with a null window, and a task is sent the ε-window (a1 − ε, b1 + ε)
    /// around its leaf's pass window, kept while later pass windows lie
    /// inside it (`None`: plain alpha-beta, tasks in the task window).
    pub epsilon: Option<i64>,
}

impl MwOptions {
    /// Master depth `master_depth`, with updates, the default slice, no
    /// sharing, the alpha-beta master.
    pub fn new(master_depth: u32) -> MwOptions {
        MwOptions { master_depth, updates: true, slice: DEFAULT_SLICE_NODES, share: None, epsilon: None }
    }
}

/// The default master's tree has at least this many leaves per worker.
pub const LEAVES_PER_WORKER: usize = 3;

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
    /// (`master-worker-share`; `None`: [`default_share_depth`]).
    Share {
        /// Plies below a task's root whose entries are shared.
        depth: Option<u32>,
    },
    /// With updates and a NegaScout master with ε-windows
    /// (`master-worker-negascout`; `None`: [`default_epsilon`]).
    NegaScout {
        /// The ε-windows' margin around a leaf's pass window, score units
        /// (at least 1).
        epsilon: Option<i64>,
    },
}

/// Ura et al.'s master-worker (`master-worker`, `master-worker-noupdate`,
/// `master-worker-share`, `master-worker-negascout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MasterWorker {
    /// The master's depth d′ (`None`: a few leaves per worker,
    /// [`default_master_depth`]; at most the search depth).
    pub master_depth: Option<u32>,
    /// Nodes a worker searches before it looks at its inbox (`None`:
    /// [`DEFAULT_SLICE_NODES`]).
    pub slice: Option<u64>,
    /// Which of the paper's configurations.
    pub variant: MwVariant,
}

impl MasterWorker {
    /// `variant` with every parameter at its default.
    pub const fn new(variant: MwVariant) -> MasterWorker {
        MasterWorker { master_depth: None, slice: None, variant }
    }

    /// The process options of a resolved value.
    fn options(&self) -> MwOptions {
        MwOptions {
            master_depth: self.master_depth.unwrap_or(0),
            updates: self.variant != MwVariant::NoUpdate,
            slice: slice_nodes(self.slice).max(1),
            share: if let MwVariant::Share { depth } = self.variant { depth } else { None },
            epsilon: if let MwVariant::NegaScout { epsilon } = self.variant { epsilon } else { None },
        }
    }
}

impl Algorithm for MasterWorker {
    fn registered() -> Vec<MasterWorker> {
        [MwVariant::Updates, MwVariant::NoUpdate, MwVariant::Share { depth: None }, MwVariant::NegaScout { epsilon: None }].map(MasterWorker::new).to_vec()
    }
    fn name(&self) -> &'static str {
        match self.variant {
            MwVariant::Updates => "master-worker",
            MwVariant::NoUpdate => "master-worker-noupdate",
            MwVariant::Share { .. } => "master-worker-share",
            MwVariant::NegaScout { .. } => "master-worker-negascout",
        }
    }
    fn label(&self) -> String {
        match self.variant {
            MwVariant::Updates => "master-worker (Ura et al.)",
            MwVariant::NoUpdate => "without updates",
            MwVariant::Share { .. } => "with share",
            MwVariant::NegaScout { .. } => "NegaScout master, ε-windows",
        }
        .into()
    }
    fn about(&self) -> &'static str {
        match self.variant {
            MwVariant::Updates => "Ura et al.'s master-worker with dynamic updates (--master-depth, --slice-nodes, --master-cost)",
            MwVariant::NoUpdate => "the same, workers reporting full-depth results only",
            MwVariant::Share { .. } => "with updates, workers sharing table entries around a ring (--share-depth)",
            MwVariant::NegaScout { .. } => "with updates and a NegaScout master with ε-windows (--epsilon)",
        }
    }
    fn reads(&self) -> &'static [Opt] {
        match self.variant {
            MwVariant::Updates | MwVariant::NoUpdate => &[MASTER_DEPTH, SLICE_NODES, MASTER_COST],
            MwVariant::Share { .. } => &[MASTER_DEPTH, SLICE_NODES, MASTER_COST, SHARE_DEPTH],
            MwVariant::NegaScout { .. } => &[MASTER_DEPTH, SLICE_NODES, MASTER_COST, EPSILON],
        }
    }
    fn given(self, g: &Given) -> MasterWorker {
        let variant = match self.variant {
            MwVariant::Share { .. } => MwVariant::Share { depth: g.u32(SHARE_DEPTH) },
            MwVariant::NegaScout { .. } => MwVariant::NegaScout { epsilon: g.i64(EPSILON) },
            v => v,
        };
        MasterWorker { master_depth: g.u32(MASTER_DEPTH), slice: g.count(SLICE_NODES), variant }
    }
    fn resolve<S: TreeSource>(self, run: &Run<'_, S>) -> MasterWorker {
        let (src, root) = (run.src, run.root);
        let master_depth = self.master_depth.map_or_else(|| default_master_depth(src, root, run.depth, run.procs), |d| d.min(run.depth));
        let variant = match self.variant {
            MwVariant::Share { depth } => MwVariant::Share { depth: Some(depth.unwrap_or_else(|| default_share_depth(src, root))) },
            MwVariant::NegaScout { epsilon } => MwVariant::NegaScout { epsilon: Some(epsilon.unwrap_or_else(|| default_epsilon(src, root)).max(1)) },
            v => v,
        };
        MasterWorker { master_depth: Some(master_depth), slice: Some(slice_nodes(self.slice)), variant }
    }
    fn cut(&self) -> Option<Cut> {
        self.master_depth.map(Cut::MasterDepth)
    }
    fn memory<S: TreeSource>(&self, run: &Run<'_, S>) -> Part {
        let b = children(run.src, run.root, true).len().max(1) as u64;
        // The master's tree, and each worker's paused search's stack.
        let stacks = (run.procs as u64 - 1).saturating_mul(crate::cluster::pause::STACK_COMMITTED);
        let tree = master_memory::<S::Node>(b, run.depth, self.master_depth.unwrap_or(0), run.procs).saturating_add(stacks);
        Part { tables: run.procs as u64 - 1, tree, name: "master's tree and search stacks", lower: "--master-depth" }
    }
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, _: impl Fn() -> Q) -> L::Output {
        let mut make = MasterWorkerProcess::maker(run.root, run.depth, run.procs, run.settings.tt_slots, self.options());
        // Workers compare their tasks with the sequential search's, if given.
        let seq = run.reference.tasks();
        l.launch(run.src, run.procs, move |r| {
            let mut p = make(r);
            if let MasterWorkerProcess::Worker(w) = &mut p {
                w.seq = seq.clone();
            }
            p
        })
    }
}

/// A leaf whose full-depth results (this many) still do not settle it is
/// sent with the full window: its next result is exact, so every leaf is
/// settled in the end, whatever the windows of later passes (with the
/// NegaScout master too: its ε-window then becomes the full window, which
/// every later pass window lies inside).
const FULL_WINDOW_AFTER: u32 = 2;

/// The default d': the shallowest depth with at least
/// [`LEAVES_PER_WORKER`] leaves per worker, at most `depth − 1` (so a task
/// searches at least one ply).
pub fn default_master_depth<S: TreeSource>(src: &S, root: &S::Node, depth: u32, procs: usize) -> u32 {
    let most = depth.saturating_sub(1);
    let want = LEAVES_PER_WORKER * procs.saturating_sub(1).max(1);
    let mut d = 1.min(most);
    while d < most && frontier(src, root, d).0.len() < want {
        d += 1;
    }
    d
}

/// Nodes this many or fewer plies below a task's root are shared by
/// default: the most plies k with b^k ≤ 625 — the paper's 4 for b = 5 and
/// 2 for b = 20.
pub const SHARED_NODES: u64 = 625;

/// The default sharing depth: the most plies k with b^k ≤
/// [`SHARED_NODES`], b the root's number of moves; at least 1.
pub fn default_share_depth<S: TreeSource>(src: &S, root: &S::Node) -> u32 {
    let b = (children(src, root, true).len() as u64).max(2);
    let (mut k, mut n) = (0, 1u64);
    while n.saturating_mul(b) <= SHARED_NODES {
        n *= b;
        k += 1;
    }
    k.max(1)
}

/// The widest ε of the NegaScout master, the score scale's width
/// (`ROOT_BETA − ROOT_ALPHA`, 2^31): with it every ε-window is the root's
/// full window, and a wider ε would change nothing (`--epsilon` takes
/// 1..this).
pub const MAX_EPSILON: i64 = crate::value::ROOT_BETA - crate::value::ROOT_ALPHA;

/// `--master-depth`: the master's depth d'.
pub const MASTER_DEPTH: Opt = Opt {
    flag: "--master-depth",
    value: "MASTER_DEPTH",
    help: "The master-worker's master depth d' (default: the shallowest with at least 3 leaves per worker, at most depth − 1)",
    kind: OptKind::U32 { max: None },
};

/// `--share-depth`: the plies below a task's root whose entries are shared.
pub const SHARE_DEPTH: Opt = Opt {
    flag: "--share-depth",
    value: "SHARE_DEPTH",
    help: "Master-worker-share's depth below a task's root whose table entries go round the workers' ring (default: the most plies k with b^k <= 625, b the root's moves: 4 for b = 5, 2 for b = 20)",
    kind: OptKind::U32 { max: None },
};

/// `--epsilon`: the NegaScout master's ε. Below 1 a task would get the
/// bare pass window, restarted at every move of it; above the score
/// scale's width every ε-window is the full window already.
pub const EPSILON: Opt = Opt {
    flag: "--epsilon",
    value: "EPSILON",
    help: "Master-worker-negascout's ε, the margin of the ε-windows sent with tasks, (alpha - ε, beta + ε) around the leaf's pass window, in score units (default: the mean |static value change| of the root's moves; 1..2^31)",
    kind: OptKind::I64 { min: 1, max: MAX_EPSILON, what: "score units, the margin of an ε-window" },
};

/// `--master-cost`: the master's time per node of its passes, a cost of
/// the simulated machine that only the master-worker's master incurs.
pub const MASTER_COST: Opt = Opt {
    flag: "--master-cost",
    value: "MASTER_COST",
    help: "The master-worker's master's time per node of its passes over its in-memory tree, as a fraction of --node-ns (default: this host's measured ratio, 0.5; the simulated cluster only)",
    kind: OptKind::F64 { min: 0.0, max: 1_000.0, what: "a fraction of --node-ns" },
};

/// The default ε of the NegaScout master: the mean absolute difference
/// between the root's static value and its children's (the typical size
/// of one move's effect on the evaluation, so about how far a pass window
/// moves when a prediction changes), at least 1.
pub fn default_epsilon<S: TreeSource>(src: &S, root: &S::Node) -> i64 {
    let kids = children(src, root, true);
    if kids.is_empty() {
        return 1;
    }
    let r = src.horizon_value(root, true);
    let sum: i64 = kids.iter().map(|k| (src.horizon_value(k, false) - r).abs()).sum();
    (sum / kids.len() as i64).max(1)
}

/// The fail-hard value in `w` that bounds `(lo, hi)` settle, if they do.
fn settled(lo: i64, hi: i64, w: Window) -> Option<i64> {
    if lo == hi {
        Some(lo.clamp(w.alpha, w.beta))
    } else if hi <= w.alpha {
        Some(w.alpha)
    } else if lo >= w.beta {
        Some(w.beta)
    } else {
        None
    }
}

/// The master-worker's messages besides the executor's (its `Stop` ends
/// the workers).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum MwMsg<N> {
    /// A task: the job (its `id` the master's leaf, its depth the full
    /// remaining depth d − d′, its window the task window), reporting
    /// shallower iterations too; `pass` is the master's pass that sent it,
    /// `sig` its signature (the ranks of the moves on its path in the
    /// master's order).
    Work {
        /// The search asked.
        job: Task<N>,
        /// The master's pass.
        pass: u32,
        /// The signature.
        sig: Vec<u16>,
    },
    /// A worker's result for leaf `id`: searched to `depth` in `window`,
    /// worth `value` (fail-hard).
    Report {
        /// The master's leaf.
        id: u32,
        /// The depth searched.
        depth: u32,
        /// The window searched with.
        window: Window,
        /// The value.
        value: i64,
    },
    /// The master finished pass `pass`: tasks not sent in it (or later)
    /// may be dropped.
    Pass {
        /// The pass.
        pass: u32,
    },
    /// Transposition-table entries going round the workers' ring (*with
    /// share*).
    Share {
        /// The entries.
        entries: Vec<SharedEntry<N>>,
    },
}

/// Bytes of a shared entry on the wire besides its position: ply, depth,
/// value, bound, best move, origin.
pub const SHARED_ENTRY_BYTES: u64 = 4 + 4 + 8 + 1 + 4 + 4;

impl<N: Clone + std::fmt::Debug + PartialEq + Serialize + serde::de::DeserializeOwned> OwnMsg<N> for MwMsg<N> {
    fn kind(&self) -> &'static str {
        match self {
            MwMsg::Work { .. } => "Work",
            MwMsg::Report { .. } => "Report",
            MwMsg::Pass { .. } => "Pass",
            MwMsg::Share { .. } => "Share",
        }
    }

    fn bytes(&self) -> u64 {
        let node = std::mem::size_of::<N>() as u64;
        match self {
            // The window, the pass number and 2 bytes per signature entry.
            MwMsg::Work { sig, .. } => node + 16 + 4 + 2 * sig.len() as u64,
            MwMsg::Report { .. } => 16 + 8,
            // The pass travels in the header's id.
            MwMsg::Pass { .. } => 0,
            MwMsg::Share { entries } => entries.len() as u64 * (node + SHARED_ENTRY_BYTES),
        }
    }

    fn role(&self) -> Role<'_, N> {
        match self {
            MwMsg::Work { job, pass, sig } => Role::Starts { task: job, pass: Some(*pass), path: Some(sig) },
            MwMsg::Report { id, depth, .. } => Role::Answers { id: *id, depth: Some(*depth) },
            MwMsg::Pass { pass } => Role::Supersedes { pass: *pass },
            MwMsg::Share { .. } => Role::Other,
        }
    }
}

/// One process of the master-worker search (one per rank: a few hundred
/// bytes each, not worth a box).
#[allow(clippy::large_enum_variant)]
pub enum MasterWorkerProcess<S: TreeSource> {
    /// Rank 0.
    Master(Master<S>),
    /// The others.
    Worker(Worker<S>),
}

impl<S: TreeSource> MasterWorkerProcess<S> {
    /// What builds rank r's process of a run on `procs` (≥ 2) processes
    /// searching `root` to `depth` with `slots` table entries per worker (a
    /// real transport builds its own rank's only).
    pub fn maker(root: &S::Node, depth: u32, procs: usize, slots: usize, opts: MwOptions) -> impl FnMut(usize) -> MasterWorkerProcess<S> {
        let dm = opts.master_depth;
        let root = root.clone();
        move |r| {
            if r == 0 {
                MasterWorkerProcess::Master(Master::new(&root, depth, dm, procs, opts.epsilon))
            } else {
                MasterWorkerProcess::Worker(Worker::new(slots, opts))
            }
        }
    }
}

impl<S: TreeSource> Process<S> for MasterWorkerProcess<S> {
    type Own = MwMsg<S::Node>;

    fn start<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        match self {
            MasterWorkerProcess::Master(m) => m.run_pass(src, t),
            // The first worker starts the ring's message (three processes
            // or more: a ring of one worker shares with nobody).
            MasterWorkerProcess::Worker(w) if w.opts.share.is_some() && t.rank() == 1 && t.procs() > 2 => t.send(2, Msg::Own(MwMsg::Share { entries: vec![] })),
            MasterWorkerProcess::Worker(_) => {}
        }
    }

    fn receive<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T, _from: usize, msg: Msg<S::Node, Self::Own>) {
        match (self, msg) {
            (MasterWorkerProcess::Master(m), Msg::Own(MwMsg::Report { id, depth, window, value })) => m.report(t, id, depth, window, value),
            (MasterWorkerProcess::Worker(w), Msg::Own(MwMsg::Work { job: Task { id, node, max, ply, depth, window }, pass, sig })) => {
                let outside = w.outside(src, &node, ply);
                w.on_work(t, id, WTask { node, max, ply, full: depth, window, pass, sig, outside })
            }
            (MasterWorkerProcess::Worker(w), Msg::Own(MwMsg::Pass { pass })) => w.on_pass(pass),
            (MasterWorkerProcess::Worker(w), Msg::Own(MwMsg::Share { entries })) => w.on_share(src, t, entries),
            (MasterWorkerProcess::Worker(w), Msg::Stop) => w.on_stop(),
            _ => {}
        }
    }

    fn resume<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        match self {
            MasterWorkerProcess::Master(m) => m.on_resume(src, t),
            MasterWorkerProcess::Worker(w) => w.on_resume(src, t),
        }
    }

    fn tally(&self) -> Option<TaskTally> {
        Some(match self {
            MasterWorkerProcess::Master(m) => {
                TaskTally { passes: m.passes.into(), tasks_sent: m.tasks_sent, full_window_sends: m.full_window_sends, ..TaskTally::default() }
            }
            MasterWorkerProcess::Worker(w) => TaskTally {
                tasks_dropped: w.dropped,
                dropped_nodes: w.dropped_nodes,
                tasks_aborted: w.aborts,
                aborted_nodes: w.aborted_nodes,
                outside_nodes: w.seq.as_ref().map(|_| w.outside_nodes),
                ..TaskTally::default()
            },
        })
    }
}
