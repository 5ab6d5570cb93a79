//! Fox et al.'s hash-table-guided master/slave search (`docs/model.md`
//! §9.11): the parallel chess program of "Solving Problems on Concurrent
//! Processors" (§14.3.3) on the nCUBE hypercube, over messages.
//!
//! - **The hierarchy.** The processes form the binomial tree of the
//!   hypercube's sub-cubes ([`slaves`], [`master`]): rank 0 masters the
//!   whole cube and its slaves are the ranks 2^k; a rank r > 0 whose lowest
//!   set bit is 2^j masters its sub-cube r … r + 2^j − 1, its slaves the
//!   ranks r + 2^i (i < j). Every master-slave pair differs in one bit: one
//!   hop of the hypercube. For any P the ranks ≥ P are simply absent.
//! - **At a node** of remaining depth above the granularity g, a master
//!   with slaves consults its table (the [`Searcher`]'s, the process's
//!   own). If it suggests a move, the master searches it first,
//!   *sequentially*: it goes down that line itself and takes its slaves
//!   with it (the child is searched by the same strategy, so the
//!   parallelism lower down is kept). If the suggested move does not cut
//!   off, or no move is suggested, the other moves are farmed out to the
//!   slaves self-scheduled: each free slave is given one move (the largest
//!   sub-cube first) and the next when it returns a value; each value
//!   narrows the window the next moves are sent with, and a cut-off aborts
//!   the moves still out. A slave searches its move with its own sub-cube
//!   by the same strategy.
//! - **Where the table's suggestion comes from.** A node above g has an
//!   entry only if something stored one: every such node stores its result
//!   (value, bound, depth, best move) when it is finished, and a node of
//!   depth d ≥ 3 with no entry is first searched to d − 2 by the same
//!   strategy (the baseline's internal iterative deepening, §9.2), whose
//!   best move is then the suggestion. Its nodes are counted.
//! - **Does the master search moves itself?** The source says the work is
//!   farmed out to the slaves; it does not say the master waits. Ours
//!   takes the next move itself once every slave is busy, and searches it
//!   by the same strategy: a slave that comes free is given the next move
//!   of the deepest node the master is at (its own move's, first), so the
//!   master again takes her free slaves with her. Without it half the
//!   processes (every master: rank 0 and the even ranks) would only
//!   schedule, and P = 2 would search with one process (measured,
//!   `docs/model.md` §9.11).
//! - **Pieces.** At or below g, and for a process with no slaves, a node is
//!   searched sequentially by the [`Searcher`] in slices of a node budget,
//!   a [`Transport::wake`] between slices so messages are answered, as
//!   [`crate::cluster::algorithms::ybwc`] does.
//! - **Replies.** A slave answers every task once: its value, or, when the
//!   task is aborted (even before it arrived), a [`FoxMsg::Request`] saying it
//!   is free. A master gives a slave a task only when it owes none, so
//!   messages overtaking each other never mix two tasks up. The root's
//!   value sends [`Msg::Stop`] down the tree.
//!
//! Exact: every value is fail-hard in the window it was searched with, a
//! node's window only narrows, and values combine as the sequential
//! search's (as YBWC's frames, [`crate::cluster::algorithms::ybwc`]).

use crate::cluster::Launch;
use crate::cluster::algorithm::{Algorithm, Cut, Given, Opt, Run, SLICE_NODES, TaskSearch, slice_nodes};
use crate::cluster::algorithms::frames::{Stack as FrameStack, StackFrame, StackProcess};
use crate::cluster::algorithms::piece::Piece;
use crate::cluster::algorithms::ybwc::{GRANULARITY, granularity};
use crate::cluster::exec::transport::{Msg, OwnMsg, Process, Task, Transport};
use crate::cluster::search::Searcher;
use crate::game::{TreeSource, children};
use crate::search::NodeCounts;
use crate::tt::{Bound, Entry};
use crate::value::Window;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The slaves of `rank` among `procs` processes, ascending: the ranks
/// `rank + 2^i` below `procs` for every 2^i below `rank`'s lowest set bit
/// (every 2^i below `procs` for rank 0).
pub fn slaves(rank: usize, procs: usize) -> Vec<usize> {
    let top = if rank == 0 { usize::BITS } else { rank.trailing_zeros() };
    (0..top).map(|i| 1usize << i).take_while(|&step| rank + step < procs).map(|step| rank + step).collect()
}

/// The master of `rank`: `rank` without its lowest set bit (none for rank 0).
pub fn master(rank: usize) -> Option<usize> {
    (rank > 0).then(|| rank & (rank - 1))
}

/// What a frame is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Searching its own node to depth − 2 first, for the table's suggestion.
    Deepening,
    /// Searching the suggested move (this child) with the slaves.
    First(usize),
    /// Farming the other moves out.
    Farm,
}

/// A node above the granularity on this process's path.
pub(crate) struct Frame<N> {
    node: N,
    max: bool,
    ply: u32,
    depth: u32,
    /// The window the node was opened with (for the bound it is stored with).
    open: Window,
    /// The window as it narrows (a MAX frame raises alpha, a MIN frame
    /// lowers beta); closed: the frame is cut off.
    w: Window,
    kids: Vec<N>,
    stage: Stage,
    /// Moves still to farm out, in the order they go.
    todo: VecDeque<usize>,
    /// A sub-search of this process is under way for the frame (the
    /// deepening, the suggested move or a piece the master took).
    busy: bool,
    /// The child the master searches itself in the farm stage.
    own: usize,
    /// Moves out with slaves: (task id, slave, child).
    remote: Vec<(u32, usize, usize)>,
    /// The best (or cut-off) move so far, in the source's order.
    best: usize,
}

impl<N> Frame<N> {
    /// Child `kid`'s value, fail-hard: the window narrows, the best move follows.
    fn combine(&mut self, v: i64, kid: usize) {
        let w = self.w.raise(self.max, v);
        if w != self.w {
            (self.w, self.best) = (w, kid);
        }
    }

    /// Cut off: the window has closed.
    fn cut(&self) -> bool {
        self.w.closed()
    }
}

impl<N> StackFrame for Frame<N> {
    fn finished(&self) -> bool {
        self.cut() || (self.stage == Stage::Farm && self.todo.is_empty() && !self.busy && self.remote.is_empty())
    }

    fn remote(&mut self) -> &mut Vec<(u32, usize, usize)> {
        &mut self.remote
    }
}

/// What a process is searching: the root (rank 0) or its master's task
/// (owned by the task's id at the master).
type Stack<N> = FrameStack<N, Frame<N>, u32>;

/// Fox et al.'s hash-table-guided master/slave on the hypercube's
/// sub-cubes (`fox`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fox {
    /// The remaining depth at or below which a node is searched
    /// sequentially (`None`: YBWC's [`default_granularity`](super::ybwc::default_granularity)).
    pub granularity: Option<u32>,
    /// Nodes a process searches before it looks at its inbox (`None`:
    /// [`DEFAULT_SLICE_NODES`](crate::cluster::algorithm::DEFAULT_SLICE_NODES)).
    pub slice: Option<u64>,
}

impl Algorithm for Fox {
    fn registered() -> Vec<Fox> {
        vec![Fox::default()]
    }
    fn name(&self) -> &'static str {
        "fox"
    }
    fn label(&self) -> String {
        "Fox et al. master/slave".into()
    }
    fn about(&self) -> &'static str {
        "Fox et al.'s master/slave on the hypercube's sub-cubes: the table's move followed with the slaves, the rest self-scheduled (--slice-nodes)"
    }
    fn reads(&self) -> &'static [Opt] {
        &[SLICE_NODES, GRANULARITY]
    }
    fn given(self, g: &Given) -> Fox {
        Fox { slice: g.count(SLICE_NODES), granularity: g.u32(GRANULARITY).or(self.granularity) }
    }
    fn resolve<S: TreeSource>(self, run: &Run<'_, S>) -> Fox {
        Fox { granularity: Some(granularity(self.granularity, run)), slice: Some(slice_nodes(self.slice)) }
    }
    fn cut(&self) -> Option<Cut> {
        self.granularity.map(Cut::Granularity)
    }
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, _: impl Fn() -> Q) -> L::Output {
        let (g, slice) = (self.granularity.unwrap_or(0), slice_nodes(self.slice));
        l.launch(run.src, run.procs, FoxProcess::maker(run.root, run.depth, g, slice, run.settings.tt_slots))
    }
}

/// Fox's message besides the executor's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FoxMsg {
    /// Slave `origin` owes its master nothing and is free: its answer to
    /// a task aborted before it finished.
    Request {
        /// The slave.
        origin: u32,
    },
}

impl<N> OwnMsg<N> for FoxMsg {
    fn kind(&self) -> &'static str {
        "Request"
    }

    fn bytes(&self) -> u64 {
        // The origin travels in the header's id.
        0
    }
}

/// One process of Fox et al.'s search.
pub struct FoxProcess<S: TreeSource> {
    /// Rank 0's root and depth until it starts.
    root: Option<(S::Node, u32)>,
    granularity: u32,
    slice: u64,
    slots: usize,
    /// This process's slaves, ascending ([`slaves`]; set at the start).
    slaves: Vec<usize>,
    /// The task each slave owes a reply for (`None`: free).
    owed: Vec<Option<u32>>,
    searcher: Option<Searcher<S>>,
    job: Option<Stack<S::Node>>,
    next_id: u32,
    /// The last task taken from the master, and an abort that overtook its task.
    last_taken: Option<u32>,
    early_abort: Option<u32>,
    waking: bool,
    stopped: bool,
    /// Suggested moves followed with the slaves.
    pub followed: u64,
    /// Nodes above g searched to depth − 2 first for a suggestion.
    pub deepened: u64,
    /// Tasks given to slaves.
    pub given: u64,
    /// Tasks taken from the master.
    pub taken: u64,
    /// Moves of a farmed node the master searched itself.
    pub own: u64,
    /// Aborts sent.
    pub aborts: u64,
}

impl<S: TreeSource> FoxProcess<S> {
    /// What builds rank r's process of a run searching `root` to `depth`
    /// with granularity `granularity`, slices of `slice` nodes and `slots`
    /// table entries per process.
    pub fn maker(root: &S::Node, depth: u32, granularity: u32, slice: u64, slots: usize) -> impl FnMut(usize) -> FoxProcess<S> {
        let root = root.clone();
        move |r| FoxProcess {
            root: (r == 0).then(|| (root.clone(), depth)),
            granularity,
            slice: slice.max(1),
            slots,
            slaves: vec![],
            owed: vec![],
            searcher: None,
            job: None,
            next_id: 0,
            last_taken: None,
            early_abort: None,
            waking: false,
            stopped: false,
            followed: 0,
            deepened: 0,
            given: 0,
            taken: 0,
            own: 0,
            aborts: 0,
        }
    }

    fn searcher(&mut self) -> &mut Searcher<S> {
        self.searcher.get_or_insert_with(|| Searcher::new(self.slots))
    }

    /// Starts searching `p` for the top frame (or as the job itself): a
    /// piece, a frame, or a value at once (a terminal node, a table cut).
    fn open<T: Transport<S::Node, FoxMsg>>(&mut self, src: &S, t: &mut T, p: Piece<S::Node>) -> Option<i64> {
        if p.depth <= self.granularity || self.slaves.is_empty() {
            self.job.as_mut()?.piece = Some(p);
            return None;
        }
        let Piece { node, max, ply, depth, window, .. } = p;
        let entry = self.searcher().entry(src, &node, ply);
        if let Some(v) = entry.and_then(|e| e.cut(depth, window)) {
            t.searched(NodeCounts { nodes: 1, leaves: 0, internal: 0 });
            return Some(v);
        }
        let kids = children(src, &node, max);
        if kids.is_empty() {
            t.searched(NodeCounts { nodes: 1, leaves: 1, internal: 0 });
            return Some(src.terminal_value(&node, max, ply));
        }
        t.searched(NodeCounts { nodes: 1, leaves: 0, internal: 1 });
        let mut f = Frame {
            node,
            max,
            ply,
            depth,
            open: window,
            w: window,
            kids,
            stage: Stage::Deepening,
            todo: VecDeque::new(),
            busy: false,
            own: 0,
            remote: vec![],
            best: 0,
        };
        match entry.map(|e| e.best) {
            Some(h) => suggest(&mut f, Some(h)),
            None if depth < 3 => suggest(&mut f, None),
            None => {}
        }
        self.job.as_mut()?.frames.push(f);
        None
    }

    /// The value of the top frame's sub-search (or of the job).
    fn deliver<T: Transport<S::Node, FoxMsg>>(&mut self, src: &S, t: &mut T, v: i64) {
        let Some(job) = self.job.as_mut() else { return };
        if let Some(f) = job.frames.last_mut() {
            f.busy = false;
            match f.stage {
                // The deepening's value is not the node's: its stored best move is.
                Stage::Deepening => {
                    let hint = self.searcher.as_ref().and_then(|s| s.entry(src, &f.node, f.ply)).map(|e| e.best);
                    suggest(f, hint);
                }
                Stage::First(h) => {
                    f.combine(v, h);
                    f.stage = Stage::Farm;
                }
                Stage::Farm => f.combine(v, f.own),
            }
            return;
        }
        let owner = job.owner;
        self.job = None;
        match (owner, master(t.rank())) {
            (Some(id), Some(m)) => t.send(m, Msg::Result { id, value: v }),
            _ => {
                t.done(v);
                self.stop(t);
            }
        }
    }

    /// The search is over: stop, and tell the slaves (down the tree).
    fn stop<T: Transport<S::Node, FoxMsg>>(&mut self, t: &mut T) {
        self.stopped = true;
        self.job = None;
        for &s in &self.slaves {
            t.send(s, Msg::Stop);
        }
    }

    /// Drops the frames above frame `k` (and the piece), aborting their moves out.
    fn truncate<T: Transport<S::Node, FoxMsg>>(&mut self, t: &mut T, k: usize) {
        let Some(job) = self.job.as_mut() else { return };
        self.aborts += job.truncate(t, k);
    }

    /// Gives the top frame's next moves to the free slaves, the largest
    /// sub-cube first, each with the frame's window as it stands.
    fn farm<T: Transport<S::Node, FoxMsg>>(&mut self, t: &mut T) {
        let Some(f) = self.job.as_mut().and_then(|j| j.frames.last_mut()) else { return };
        for k in (0..self.slaves.len()).rev() {
            if self.owed[k].is_some() {
                continue;
            }
            let Some(kid) = f.todo.pop_front() else { return };
            let (id, s) = (self.next_id, self.slaves[k]);
            self.next_id += 1;
            self.owed[k] = Some(id);
            f.remote.push((id, s, kid));
            self.given += 1;
            t.send(s, Msg::Task(Task { id, node: f.kids[kid].clone(), max: !f.max, ply: f.ply + 1, depth: f.depth - 1, window: f.w }));
        }
    }

    /// A slave's value for task `id` (or its word that it is free, `value` `None`).
    fn reply<T: Transport<S::Node, FoxMsg>>(&mut self, t: &mut T, from: usize, id: Option<u32>, value: Option<i64>) {
        let Some(k) = self.slaves.iter().position(|&s| s == from) else { return };
        if id.is_none() || self.owed[k] == id {
            self.owed[k] = None;
        }
        let (Some(id), Some(value)) = (id, value) else { return };
        let Some(job) = self.job.as_mut() else { return };
        let out = job.frames.iter().enumerate().find_map(|(i, f)| f.remote.iter().position(|r| (r.0, r.1) == (id, from)).map(|at| (i, at)));
        let Some((i, at)) = out else { return };
        let f = &mut job.frames[i];
        let (_, _, kid) = f.remote.remove(at);
        f.combine(value, kid);
        if f.cut() {
            f.busy = false;
            self.truncate(t, i + 1);
        }
    }
}

/// Sets `f`'s suggested move `hint` (clamped to its moves) and the moves
/// left to farm out in the source's order: the suggested one first, alone,
/// or every move in parallel with none.
fn suggest<N>(f: &mut Frame<N>, hint: Option<u32>) {
    let n = f.kids.len();
    match hint.map(|h| (h as usize).min(n - 1)) {
        Some(h) => {
            f.stage = Stage::First(h);
            f.best = h;
            f.todo = (0..n).filter(|&k| k != h).collect();
        }
        None => {
            f.stage = Stage::Farm;
            f.best = 0;
            f.todo = (0..n).collect();
        }
    }
}

/// Fox's rules in the frame-stack loop: a closed frame's result is
/// stored in the table; an open one searches its node to depth − 2 first
/// (for a suggestion), follows the suggested move, then farms its moves out.
impl<S: TreeSource> StackProcess<S> for FoxProcess<S> {
    type Frame = Frame<S::Node>;
    type Owner = u32;

    fn current(&mut self) -> Option<(&mut Stack<S::Node>, &mut bool, &mut u64)> {
        Some((self.job.as_mut()?, &mut self.waking, &mut self.aborts))
    }

    fn close<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T, f: Frame<S::Node>) {
        let value = f.w.value(f.max);
        let entry = Entry { value, bound: Bound::of(value, f.open), depth: f.depth, best: f.best as u32, tag: 0 };
        self.searcher().remember(src, &f.node, f.ply, entry);
        self.deliver(src, t, value);
    }

    fn start_next<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) -> bool {
        let Some(top) = self.job.as_mut().and_then(|j| j.frames.last_mut()) else { return false };
        if top.busy {
            return false;
        }
        let (node, max, ply, window) = match top.stage {
            Stage::Deepening => {
                self.deepened += 1;
                (top.node.clone(), top.max, top.ply, top.open)
            }
            Stage::First(h) => {
                self.followed += 1;
                (top.kids[h].clone(), !top.max, top.ply + 1, top.w)
            }
            Stage::Farm => {
                self.farm(t);
                // Every slave busy: the master takes the next move itself.
                let Some(top) = self.job.as_mut().and_then(|j| j.frames.last_mut()) else { return false };
                let Some(k) = top.todo.pop_front() else { return false };
                self.own += 1;
                top.own = k;
                (top.kids[k].clone(), !top.max, top.ply + 1, top.w)
            }
        };
        let Some(top) = self.job.as_mut().and_then(|j| j.frames.last_mut()) else { return false };
        top.busy = true;
        let depth = if top.stage == Stage::Deepening { top.depth - 2 } else { top.depth - 1 };
        if let Some(v) = self.open(src, t, Piece { node, max, ply, depth, window, budget: self.slice }) {
            self.deliver(src, t, v);
        }
        true
    }

    fn woken(&mut self) -> bool {
        self.waking = false;
        !self.stopped
    }

    fn slice<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        let Some(job) = self.job.as_mut() else { return };
        let Some(v) = job.slice(&mut self.searcher, self.slots, src, t) else { return };
        self.deliver(src, t, v);
    }
}

impl<S: TreeSource> Process<S> for FoxProcess<S> {
    type Own = FoxMsg;

    fn start<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        self.slaves = slaves(t.rank(), t.procs());
        self.owed = vec![None; self.slaves.len()];
        if let Some((root, depth)) = self.root.take() {
            self.job = Some(Stack::new(None));
            if let Some(v) = self.open(src, t, Piece { node: root, max: true, ply: 0, depth, window: Window::ROOT, budget: self.slice }) {
                self.deliver(src, t, v);
            }
            self.advance(src, t);
        }
    }

    fn receive<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node, Self::Own>) {
        if self.stopped {
            return;
        }
        match msg {
            Msg::Task(Task { id, node, max, ply, depth, window }) => {
                // Only ever sent to a slave that owes its master nothing.
                debug_assert!(self.job.is_none());
                self.last_taken = Some(id);
                if self.early_abort == Some(id) {
                    t.send(from, Msg::Own(FoxMsg::Request { origin: t.rank() as u32 }));
                } else {
                    self.taken += 1;
                    self.job = Some(Stack::new(Some(id)));
                    if let Some(v) = self.open(src, t, Piece { node, max, ply, depth, window, budget: self.slice }) {
                        self.deliver(src, t, v);
                    }
                }
            }
            Msg::Result { id, value } => self.reply(t, from, Some(id), Some(value)),
            Msg::Own(FoxMsg::Request { .. }) => self.reply(t, from, None, None),
            Msg::Abort { id } => {
                if self.job.as_ref().is_some_and(|j| j.owner == Some(id)) {
                    self.truncate(t, 0);
                    self.job = None;
                    t.send(from, Msg::Own(FoxMsg::Request { origin: t.rank() as u32 }));
                } else if self.last_taken.is_none_or(|l| id > l) {
                    // The abort overtook its task: answer the task at once.
                    self.early_abort = Some(id);
                }
            }
            Msg::Stop => self.stop(t),
        }
        self.advance(src, t);
    }

    fn resume<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        self.resume_stack(src, t);
    }
}

#[cfg(test)]
mod tests;
