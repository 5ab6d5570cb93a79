//! The Young Brothers Wait Concept over messages (`docs/model.md` §9.6):
//! Feldmann's distributed YBWC (1993) as OthelloX's MPI search (2017,
//! §4.5) runs it, every process the same code.
//!
//! - **Frames.** Rank 0 owns the root. A process searches a node of
//!   remaining depth above the granularity g with an explicit stack of
//!   frames (its children in the source's order, the next child to start,
//!   the window as it narrows, the children given to other processes), so
//!   that it can answer messages between any two steps. At or below g a
//!   *piece* is searched by the sequential baseline
//!   ([`crate::cluster::search::Searcher`], the process's own table) in slices of a
//!   node budget, with a [`Transport::wake`] between slices, as the
//!   master-worker's workers do.
//! - **The YBW rule.** A frame's children after the first are *available*
//!   to other processes only once its first child is fully evaluated.
//! - **Work requests.** A process without work sends a [`YbwcMsg::Request`]: at
//!   the start to rank 0, after a task to the process that gave it. A
//!   busy process with an available child gives the next one of its
//!   *shallowest* frame that has one (the largest piece) as a [`Msg::Task`];
//!   with none, it passes the request on to a helper searching a frame of
//!   its own (the work that is left lies below them), or, with none of
//!   those, keeps it. Kept requests stay with their keeper when its task
//!   ends and are served from its next task (the keeper's one request
//!   stands for them). An idle process passes a request it receives to
//!   rank 0, which owns the root and is busy until the end. No request is
//!   ever answered "no work", so no process polls, and no request waits in
//!   a cycle (`docs/decisions.md`, "YBWC over messages").
//! - **Results and cut-offs.** A helper searches its task with frames of its
//!   own (it can be helped in turn) and returns the fail-hard value in the
//!   window it was given; the owner combines it as a local child's value
//!   (exact: the owner's window only narrows, so a value fail-hard in an
//!   older, wider window still combines correctly). A frame cut off sends a
//!   [`Msg::Abort`] for each of its outstanding children, and so does every
//!   frame above it that it drops; a helper that receives one drops its task
//!   and aborts its own helpers' work; results for tasks no longer known are
//!   ignored.
//! - **No helpful master** (without the `helpful` switch). A process whose
//!   frames wait only for other processes' children waits (it answers
//!   requests meanwhile); it does not take other work.
//! - **The full version** (`full.rs`): Feldmann's helpful master, the
//!   three-stage load distribution, the promising-successor rule, frames in
//!   the table's order and windows sent to helpers, each a [`Switches`]
//!   switch; with all off, the search above and its messages unchanged.

mod full;
mod switches;
mod walk;

pub use switches::Switches;

use crate::cluster::Launch;
use crate::cluster::algorithm::{Algorithm, Cut, Given, Opt, OptKind, Run, SLICE_NODES, TaskSearch, slice_nodes};
use crate::cluster::algorithms::frames::{Stack as FrameStack, StackFrame, StackProcess};
use crate::cluster::algorithms::piece::Piece;
use crate::cluster::exec::topology::Topology;
use crate::cluster::exec::transport::{Msg, OwnMsg, Process, Transport};
use crate::cluster::search::Searcher;
use crate::game::{TreeSource, children};
use crate::search::NodeCounts;
use crate::value::Window;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The default granularity's target: the largest g whose minimal tree
/// (Knuth and Moore: b^⌈g/2⌉ + b^⌊g/2⌋ − 1 leaves) has at most this many
/// leaves, so that a sequential piece is a few thousand nodes with the
/// baseline's iterative deepening.
pub const PIECE_LEAVES: u64 = 1_000;

/// Leaves of the minimal tree of uniform branching `b` and depth `d`.
fn minimal_leaves(b: u64, d: u32) -> u64 {
    b.saturating_pow(d.div_ceil(2)).saturating_add(b.saturating_pow(d / 2)) - 1
}

/// `--granularity`: YBWC's and Fox's g.
pub const GRANULARITY: Opt = Opt {
    flag: "--granularity",
    value: "GRANULARITY",
    help: "YBWC's and Fox's granularity g: a node of remaining depth at most g is searched by one process, one above it may be shared (default: the largest g whose pieces' minimal trees stay near a thousand leaves, worked out per tree; 0 shares every internal node)",
    kind: OptKind::U32 { max: Some((crate::tree::MAX_DEPTH, "a remaining depth")) },
};

/// The default granularity for a search of `root` to `depth`: the largest
/// g with at most [`PIECE_LEAVES`] minimal-tree leaves (b the root's
/// number of moves), at most `depth − 1` so that the root is always a
/// frame: 7 for b = 5, 4 for b = 20.
pub fn default_granularity<S: TreeSource>(src: &S, root: &S::Node, depth: u32) -> u32 {
    let b = (children(src, root, true).len() as u64).max(2);
    let mut g = 0;
    while g + 1 < depth && minimal_leaves(b, g + 1) <= PIECE_LEAVES {
        g += 1;
    }
    g
}

/// The granularity a run of YBWC or Fox searches with: `asked`
/// (`--granularity`) or the default; one at or above the depth makes the
/// root one piece, and the depth says so.
pub fn granularity<S: TreeSource>(asked: Option<u32>, run: &Run<'_, S>) -> u32 {
    asked.map_or_else(|| default_granularity(run.src, run.root, run.depth), |g| g.min(run.depth))
}

/// The Young Brothers Wait Concept over messages (`ybwc`; with Feldmann's
/// refinements `ybwc-full` and the names of [`Switches::name`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ybwc {
    /// The remaining depth at or below which a piece is searched
    /// sequentially (`None`: [`default_granularity`]).
    pub granularity: Option<u32>,
    /// Nodes a process searches before it looks at its inbox (`None`:
    /// [`DEFAULT_SLICE_NODES`](crate::cluster::algorithm::DEFAULT_SLICE_NODES)).
    pub slice: Option<u64>,
    /// The full version's refinements on (none: the plain `ybwc`).
    pub switches: Switches,
}

impl Algorithm for Ybwc {
    fn registered() -> Vec<Ybwc> {
        [Switches::NONE, Switches::ALL].map(|switches| Ybwc { switches, ..Ybwc::default() }).to_vec()
    }
    fn parse_other(name: &str) -> Option<Ybwc> {
        Switches::parse(name).map(|switches| Ybwc { switches, ..Ybwc::default() })
    }
    fn name(&self) -> &'static str {
        self.switches.name()
    }
    fn label(&self) -> String {
        self.switches.label()
    }
    fn about(&self) -> &'static str {
        if self.switches == Switches::NONE {
            "the Young Brothers Wait Concept over messages (--slice-nodes)"
        } else {
            "YBWC with Feldmann's refinements: helpful master, three-stage load distribution, promising successors, table order, narrowed windows"
        }
    }
    fn reads(&self) -> &'static [Opt] {
        &[SLICE_NODES, GRANULARITY]
    }
    fn given(self, g: &Given) -> Ybwc {
        Ybwc { slice: g.count(SLICE_NODES), granularity: g.u32(GRANULARITY).or(self.granularity), ..self }
    }
    fn resolve<S: TreeSource>(self, run: &Run<'_, S>) -> Ybwc {
        Ybwc { granularity: Some(granularity(self.granularity, run)), slice: Some(slice_nodes(self.slice)), ..self }
    }
    fn cut(&self) -> Option<Cut> {
        self.granularity.map(Cut::Granularity)
    }
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, _: impl Fn() -> Q) -> L::Output {
        let (g, slice) = (self.granularity.unwrap_or(0), slice_nodes(self.slice));
        let make = YbwcProcess::maker(run.root, run.depth, g, slice, run.settings.tt_slots, self.switches, run.settings.costs.topology);
        l.launch(run.src, run.procs, make)
    }
}

/// A node above the granularity being searched: its children, which are
/// started, which are out with other processes, and its window.
pub(crate) struct Frame<N> {
    max: bool,
    ply: u32,
    depth: u32,
    /// The window as it narrows: a MAX frame raises alpha, a MIN frame
    /// lowers beta; the other bound is the one the frame was opened with
    /// (or a narrower one its owner sent, with the `windows` switch).
    /// Closed: the frame is cut off.
    w: Window,
    kids: Vec<N>,
    /// The next child to start (children before it are done, in progress
    /// here, or out with a helper).
    next: usize,
    /// A child is being searched by this process (the frame above, or the
    /// piece).
    local: bool,
    /// Which child that is.
    local_child: usize,
    /// The first child is evaluated: the others are available (YBW).
    first_done: bool,
    /// Children out with other processes: (task id, helper, child).
    remote: Vec<(u32, usize, usize)>,
    /// Knuth and Moore's node type (the `promising` switch; PV
    /// otherwise).
    kind: NodeType,
    /// The child the table suggests (the `promising` switch) and whether
    /// it is evaluated.
    promising: Option<usize>,
    promising_done: bool,
}

impl<N> Frame<N> {
    /// Cut off: the window has closed.
    fn cut(&self) -> bool {
        self.w.closed()
    }

    /// Narrows the window to `w` (a child's value raised into it, or an
    /// owner's narrower window); whether it changed.
    fn narrow_to(&mut self, w: Window) -> bool {
        let before = self.w;
        self.w = w;
        self.w != before
    }

    /// Combines a child's value; whether the window narrowed.
    fn combine(&mut self, v: i64) -> bool {
        self.narrow_to(self.w.raise(self.max, v))
    }

    /// Child `i`'s value is in: the YBW and promising rules' state.
    fn evaluated(&mut self, i: usize) {
        self.first_done |= i == 0;
        self.promising_done |= self.promising == Some(i);
    }

    /// The fail-hard value in the frame's window (as the sequential search's).
    fn value(&self) -> i64 {
        self.w.value(self.max)
    }

    /// Whether this process may start its next child: the first at once,
    /// the others once the first is evaluated.
    fn can_start(&self) -> bool {
        self.next < self.kids.len() && (self.next == 0 || self.first_done)
    }

    /// Whether other processes may take its children: after the first
    /// (YBW); with the promising rule, by node type: type 1 after the
    /// first, type 2 after the promising one (at once if the table has
    /// none), type 3 at once.
    fn available(&self, promising: bool) -> bool {
        let open = match (promising, self.kind) {
            (false, _) | (true, NodeType::Pv) => self.first_done,
            (true, NodeType::Cut) => self.promising.is_none() || self.promising_done,
            _ => true,
        };
        open && !self.cut() && self.next < self.kids.len()
    }
}

impl<N> StackFrame for Frame<N> {
    fn finished(&self) -> bool {
        self.cut() || (self.next == self.kids.len() && !self.local && self.remote.is_empty())
    }

    fn remote(&mut self) -> &mut Vec<(u32, usize, usize)> {
        &mut self.remote
    }
}

/// Knuth and Moore's node types (OthelloX §4.4). The discriminant is the
/// type's number, which travels in a task id's two low bits (so the wire
/// size the simulated machine charges is the id's, as before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum NodeType {
    /// Type 1: on the principal variation.
    Pv = 1,
    /// Type 2: expected to cut off (one child suffices).
    Cut = 2,
    /// Type 3: every child is searched.
    All = 3,
}

impl NodeType {
    /// The type numbered `bits` (a task id's two low bits); PV for 0,
    /// which no id carries under the `promising` switch.
    fn from_bits(bits: u32) -> NodeType {
        match bits & 3 {
            2 => NodeType::Cut,
            3 => NodeType::All,
            _ => NodeType::Pv,
        }
    }

    /// Knuth and Moore's type of child `i` (in the frame's order): a PV
    /// node's first child is PV, the others CUT; a CUT node's first child
    /// is ALL, the others CUT; every child of an ALL node is CUT.
    fn child(self, i: usize) -> NodeType {
        match (self, i) {
            (NodeType::Pv, 0) => NodeType::Pv,
            (NodeType::Cut, 0) => NodeType::All,
            _ => NodeType::Cut,
        }
    }
}

/// What a process is searching: the root (rank 0) or a task (owned by
/// its giver's rank and id there).
type Stack<N> = FrameStack<N, Frame<N>, (usize, u32)>;

/// A request this process has out (one at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ask {
    /// The plain request, answered by a task only.
    Request,
    /// The three-stage walk, answered by a task or no work.
    Seek,
    /// The helpful master's, answered by a task or no work.
    Help,
}

/// YBWC's messages besides the executor's: asking for work, and full
/// YBWC's load distribution and narrowed windows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum YbwcMsg {
    /// Process `origin` has no work and asks for some; answered by a
    /// [`Msg::Task`] to `origin`, by whichever process has work to give
    /// (the request is passed on until one has).
    Request {
        /// The process that asks.
        origin: u32,
    },
    /// Full YBWC, three-stage load distribution: process `origin` has no
    /// work; `seen` processes besides it have been asked. Answered by a
    /// [`Msg::Task`] to `origin`, or passed to the next process of the
    /// walk, or, once every process has seen it, by a [`YbwcMsg::NoWork`].
    Seek {
        /// The process that asks.
        origin: u32,
        /// The processes asked so far.
        seen: u32,
    },
    /// Full YBWC, the helpful master: `origin`, whose frames wait for the
    /// receiver's task `id` (its name there) among others, asks for work
    /// in that task's subtree: a [`Msg::Task`] to `origin` or a
    /// [`YbwcMsg::NoWork`].
    Help {
        /// The process that asks.
        origin: u32,
        /// The receiver's task, as its owner names it.
        id: u32,
    },
    /// Full YBWC: the [`YbwcMsg::Seek`] or [`YbwcMsg::Help`] found no work.
    NoWork,
    /// Full YBWC: the window of task `id` the sender gave has narrowed to
    /// `window`.
    Narrow {
        /// The task.
        id: u32,
        /// Its new window.
        window: Window,
    },
}

impl<N> OwnMsg<N> for YbwcMsg {
    fn kind(&self) -> &'static str {
        match self {
            YbwcMsg::Request { .. } => "Request",
            YbwcMsg::Seek { .. } => "Seek",
            YbwcMsg::Help { .. } => "Help",
            YbwcMsg::NoWork => "NoWork",
            YbwcMsg::Narrow { .. } => "Narrow",
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            // A request's origin travels in the header's id.
            YbwcMsg::Request { .. } | YbwcMsg::NoWork => 0,
            // The count seen and the task beside the origin in the header.
            YbwcMsg::Seek { .. } | YbwcMsg::Help { .. } => 4,
            YbwcMsg::Narrow { .. } => 16,
        }
    }
}

/// One process of the YBWC search.
pub struct YbwcProcess<S: TreeSource> {
    /// Rank 0's root and depth until it starts.
    root: Option<(S::Node, u32)>,
    granularity: u32,
    slice: u64,
    slots: usize,
    switches: Switches,
    /// The network, for the three-stage walk.
    net: Topology,
    searcher: Option<Searcher<S>>,
    /// The jobs, the one searched on top: the helpful master searches a
    /// task of a helper's over its own waiting job (one job otherwise).
    jobs: Vec<Stack<S::Node>>,
    /// Requests kept until there is work to give (origins, oldest first).
    parked: VecDeque<u32>,
    next_id: u32,
    /// Round robin over the helpers a request is passed to.
    cursor: usize,
    waking: bool,
    stopped: bool,
    /// The request out, if any.
    asking: Option<Ask>,
    /// The owner of the last task finished (where a plain request goes).
    last_owner: usize,
    /// Helpers that had nothing for the helpful master since its last
    /// result: (task id, helper).
    refused: Vec<(u32, usize)>,
    /// Processes that took a task from this one (the global stage's
    /// preference).
    worked: Vec<bool>,
    /// Tasks this process gave.
    pub given: u64,
    /// Tasks it received.
    pub taken: u64,
    /// Aborts it sent.
    pub aborts: u64,
    /// Requests it passed on (to a helper, an owner or rank 0).
    pub passed: u64,
    /// Tasks it searched over a waiting job of its own (helpful master).
    pub nested: u64,
    /// Narrowed windows it sent.
    pub narrowed: u64,
}

impl<S: TreeSource> YbwcProcess<S> {
    /// What builds rank r's process of a run searching `root` to `depth`
    /// with granularity `granularity`, slices of `slice` nodes, `slots`
    /// table entries per process, the refinements `switches` and the
    /// network `net` (the three-stage walk's).
    pub fn maker(
        root: &S::Node,
        depth: u32,
        granularity: u32,
        slice: u64,
        slots: usize,
        switches: Switches,
        net: Topology,
    ) -> impl FnMut(usize) -> YbwcProcess<S> {
        let root = root.clone();
        move |r| YbwcProcess {
            root: (r == 0).then(|| (root.clone(), depth)),
            granularity,
            slice: slice.max(1),
            slots,
            switches,
            net,
            searcher: None,
            jobs: vec![],
            parked: VecDeque::new(),
            next_id: 0,
            cursor: 0,
            waking: false,
            stopped: false,
            asking: None,
            last_owner: 0,
            refused: vec![],
            worked: vec![],
            given: 0,
            taken: 0,
            aborts: 0,
            passed: 0,
            nested: 0,
            narrowed: 0,
        }
    }

    fn pass<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, to: usize, origin: u32) {
        self.passed += 1;
        t.send(to, Msg::Own(YbwcMsg::Request { origin }));
    }

    /// Starts searching `p`, of node type `kind`, as the next local child
    /// of the top frame (or as the job itself): a piece, a frame, or a
    /// terminal node's value.
    fn open<T: Transport<S::Node, YbwcMsg>>(&mut self, src: &S, t: &mut T, p: Piece<S::Node>, kind: NodeType) -> Option<i64> {
        if p.depth <= self.granularity {
            self.jobs.last_mut()?.piece = Some(p);
            return None;
        }
        let mut kids = children(src, &p.node, p.max);
        if kids.is_empty() {
            t.searched(NodeCounts { nodes: 1, leaves: 1, internal: 0 });
            return Some(src.terminal_value(&p.node, p.max, p.ply));
        }
        t.searched(NodeCounts { nodes: 1, leaves: 0, internal: 1 });
        let promising = self.table_move(src, t, &p, &mut kids);
        let Piece { max, ply, depth, window, .. } = p;
        let f = Frame {
            max,
            ply,
            depth,
            w: window,
            kids,
            next: 0,
            local: false,
            local_child: 0,
            first_done: false,
            remote: vec![],
            kind,
            promising,
            promising_done: false,
        };
        self.jobs.last_mut()?.frames.push(f);
        None
    }

    /// The value of the top frame's local child (or of the job).
    fn deliver<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, v: i64) {
        let j = self.jobs.len().wrapping_sub(1);
        let Some(job) = self.jobs.last_mut() else { return };
        let k = job.frames.len().wrapping_sub(1);
        if let Some(f) = job.frames.last_mut() {
            f.local = false;
            let i = f.local_child;
            f.evaluated(i);
            if f.combine(v) && self.switches.windows {
                self.tighten(t, j, k);
            }
            return;
        }
        let owner = job.owner;
        self.jobs.pop();
        match owner {
            None => {
                t.done(v);
                self.stopped = true;
                self.parked.clear();
                for r in 1..t.procs() {
                    t.send(r, Msg::Stop);
                }
            }
            Some((to, id)) => {
                t.send(to, Msg::Result { id, value: v });
                self.last_owner = to;
                if self.jobs.is_empty() {
                    self.idle(t);
                }
            }
        }
    }

    /// This process has no job: it asks for work, unless a request of its
    /// is out already. The plain request goes to the last task's owner
    /// (whose frame has just changed); the requests it keeps stay with it
    /// and are served from its next task.
    fn idle<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T) {
        if self.asking.is_some() {
            return;
        }
        let me = t.rank();
        if self.switches.three_stage && t.procs() > 1 {
            self.asking = Some(Ask::Seek);
            self.passed += 1;
            t.send(walk::next(self.net, me, t.procs()), Msg::Own(YbwcMsg::Seek { origin: me as u32, seen: 1 }));
        } else {
            self.asking = Some(Ask::Request);
            let to = self.last_owner;
            self.pass(t, to, me as u32);
        }
    }

    /// Drops the frames of job `j` above frame `k` (and the piece),
    /// aborting their helpers' work.
    fn truncate<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, j: usize, k: usize) {
        let Some(job) = self.jobs.get_mut(j) else { return };
        self.aborts += job.truncate(t, k);
    }

    /// The shallowest frame with a child available to others, in the jobs
    /// from `from` up: (job, frame).
    fn find_available(&self, from: usize) -> Option<(usize, usize)> {
        let promising = self.switches.promising;
        self.jobs.iter().enumerate().skip(from).find_map(|(j, job)| job.frames.iter().position(|f| f.available(promising)).map(|k| (j, k)))
    }

    /// Gives the next child of frame `k` of job `j` to process `o`.
    fn give<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, j: usize, k: usize, o: usize) {
        let promising = self.switches.promising;
        let Some(f) = self.jobs.get_mut(j).and_then(|job| job.frames.get_mut(k)) else { return };
        let i = f.next;
        f.next += 1;
        // With the promising rule, the child's node type travels in its
        // task id's two low bits (the id is the owner's name, echoed back).
        let id = if promising { self.next_id << 2 | u32::from(f.kind.child(i) as u8) } else { self.next_id };
        self.next_id += 1;
        f.remote.push((id, o, i));
        self.given += 1;
        t.send(
            o,
            Msg::Task(crate::cluster::exec::transport::Task { id, node: f.kids[i].clone(), max: !f.max, ply: f.ply + 1, depth: f.depth - 1, window: f.w }),
        );
        if self.switches.three_stage {
            if self.worked.len() <= o {
                self.worked.resize(o + 1, false);
            }
            self.worked[o] = true;
        }
    }

    /// Helpers searching frames of their own (above the granularity) in
    /// the jobs from `from` up: (task id, helper). A piece's helper has
    /// nothing to give until it is idle again.
    fn frame_helpers(&self, from: usize) -> Vec<(u32, usize)> {
        let g = self.granularity;
        self.jobs.iter().skip(from).flat_map(|j| j.frames.iter()).filter(|f| f.depth - 1 > g).flat_map(|f| f.remote.iter().map(|r| (r.0, r.1))).collect()
    }

    /// Gives kept requests the available children, shallowest frame first;
    /// passes those left to helpers if there are any.
    fn serve<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T) {
        if self.jobs.is_empty() {
            return;
        }
        while !self.parked.is_empty() {
            let Some((j, k)) = self.find_available(0) else { break };
            // The global stage: a process that worked for this one before
            // goes first.
            let at = if self.switches.three_stage { self.parked.iter().position(|&o| self.worked.get(o as usize) == Some(&true)).unwrap_or(0) } else { 0 };
            let Some(o) = self.parked.remove(at) else { break };
            self.give(t, j, k, o as usize);
        }
        if self.parked.is_empty() {
            return;
        }
        let helpers: Vec<usize> = self.frame_helpers(0).into_iter().map(|h| h.1).collect();
        let mut keep = VecDeque::new();
        while let Some(o) = self.parked.pop_front() {
            // Never back to the process that asks (its result may still be
            // on its way here).
            let to = (0..helpers.len()).map(|k| helpers[(self.cursor + k) % helpers.len()]).find(|&h| h != o as usize);
            match to {
                Some(h) => {
                    self.cursor = self.cursor.wrapping_add(1);
                    self.pass(t, h, o);
                }
                None => keep.push_back(o),
            }
        }
        self.parked = keep;
    }

    fn result<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, from: usize, id: u32, value: i64) {
        self.refused.clear();
        let Some((j, k, r)) =
            self.jobs.iter().enumerate().rev().find_map(|(j, job)| {
                job.frames.iter().enumerate().find_map(|(k, f)| f.remote.iter().position(|r| r.0 == id && r.1 == from).map(|r| (j, k, r)))
            })
        else {
            return;
        };
        let f = &mut self.jobs[j].frames[k];
        let (_, _, i) = f.remote.remove(r);
        f.evaluated(i);
        let narrowed = f.combine(value);
        if f.cut() {
            f.local = false;
            self.truncate(t, j, k + 1);
        } else if narrowed && self.switches.windows {
            self.tighten(t, j, k);
        }
    }

    /// Drops job `m` and those searched over it, aborting their helpers'
    /// work (the jobs over it lie in its subtree: their owners are aborted
    /// with it).
    fn drop_jobs<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, m: usize) {
        while self.jobs.len() > m {
            let j = self.jobs.len() - 1;
            self.truncate(t, j, 0);
            self.jobs.pop();
        }
    }
}

/// YBWC's rules in the frame-stack loop: a closed frame's value goes
/// down; an open one starts its next child here when the young brothers
/// wait rule allows it (others take the rest by request).
impl<S: TreeSource> StackProcess<S> for YbwcProcess<S> {
    type Frame = Frame<S::Node>;
    type Owner = (usize, u32);

    fn current(&mut self) -> Option<(&mut Stack<S::Node>, &mut bool, &mut u64)> {
        Some((self.jobs.last_mut()?, &mut self.waking, &mut self.aborts))
    }

    fn close<T: Transport<S::Node, Self::Own>>(&mut self, _: &S, t: &mut T, f: Frame<S::Node>) {
        self.deliver(t, f.value());
    }

    fn start_next<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) -> bool {
        let Some(top) = self.jobs.last_mut().and_then(|j| j.frames.last_mut()) else { return false };
        if !top.can_start() {
            return false;
        }
        let i = top.next;
        top.next += 1;
        top.local = true;
        top.local_child = i;
        let kind = top.kind.child(i);
        let p = Piece { node: top.kids[i].clone(), max: !top.max, ply: top.ply + 1, depth: top.depth - 1, window: top.w, budget: self.slice };
        if let Some(v) = self.open(src, t, p, kind) {
            self.deliver(t, v);
        }
        true
    }

    fn woken(&mut self) -> bool {
        self.waking = false;
        !self.stopped
    }

    fn slice<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        let Some(job) = self.jobs.last_mut() else { return };
        let Some(v) = job.slice(&mut self.searcher, self.slots, src, t) else { return };
        self.deliver(t, v);
    }
}

impl<S: TreeSource> Process<S> for YbwcProcess<S> {
    type Own = YbwcMsg;

    fn start<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        match self.root.take() {
            Some((root, depth)) => {
                self.jobs.push(Stack::new(None));
                let p = Piece { node: root, max: true, ply: 0, depth, window: Window::ROOT, budget: self.slice };
                if let Some(v) = self.open(src, t, p, NodeType::Pv) {
                    self.deliver(t, v);
                }
                self.advance(src, t);
            }
            None => {
                // At the start only rank 0 has work: every mode asks it.
                self.asking = Some(Ask::Request);
                let me = t.rank() as u32;
                self.pass(t, 0, me);
            }
        }
    }

    fn receive<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node, Self::Own>) {
        if self.stopped {
            return;
        }
        match msg {
            Msg::Task(crate::cluster::exec::transport::Task { id, node, max, ply, depth, window }) => {
                // Sent to a process that asked: idle, or (helpful master)
                // waiting, the task in its waiting job's subtree.
                self.asking = None;
                self.refused.clear();
                self.taken += 1;
                self.nested += u64::from(!self.jobs.is_empty());
                let kind = if self.switches.promising { NodeType::from_bits(id) } else { NodeType::Pv };
                self.jobs.push(Stack::new(Some((from, id))));
                if let Some(v) = self.open(src, t, Piece { node, max, ply, depth, window, budget: self.slice }, kind) {
                    self.deliver(t, v);
                }
            }
            Msg::Result { id, value } => self.result(t, from, id, value),
            Msg::Own(YbwcMsg::Request { origin }) => {
                if !self.jobs.is_empty() {
                    self.parked.push_back(origin);
                } else {
                    // Idle: rank 0 owns the root and has work until the end.
                    self.pass(t, 0, origin);
                }
            }
            Msg::Abort { id } => {
                if let Some(m) = self.jobs.iter().position(|j| j.owner == Some((from, id))) {
                    self.drop_jobs(t, m);
                    if self.jobs.is_empty() {
                        self.last_owner = from;
                        self.idle(t);
                    }
                }
            }
            Msg::Stop => {
                self.stopped = true;
                self.jobs.clear();
                self.parked.clear();
            }
            Msg::Own(YbwcMsg::Seek { origin, seen }) => self.seek(t, origin, seen),
            Msg::Own(YbwcMsg::Help { origin, id }) => self.help(t, from, origin, id),
            Msg::Own(YbwcMsg::NoWork) => self.no_work(t),
            Msg::Own(YbwcMsg::Narrow { id, window }) => self.narrow(t, from, id, window),
        }
        self.advance(src, t);
        self.serve(t);
        self.help_out(t);
    }

    fn resume<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        if self.resume_stack(src, t) {
            self.serve(t);
            self.help_out(t);
        }
    }
}

#[cfg(test)]
mod tests;
