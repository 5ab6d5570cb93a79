//! The worker of Ura, Tsuruoka and Chikayama's (2014) master-worker (§3.2,
//! Fig. 5): a priority queue of tasks, each searched by iterative deepening
//! (+2 plies per repetition, every finished depth reported when updates are
//! on), tasks a pass message did not renew dropped, a transposition table of
//! its own. The worker looks at its messages every slice of nodes while it
//! searches: its search pauses ([`crate::cluster::pause`]), the executor
//! delivers what arrived, and the search goes on unless a more important
//! task is now first (or its task was dropped or sent again with another
//! window), in which case it is aborted and the most important task
//! started (Fig. 5; the paper's remark: the aborted effort is not all
//! wasted, the table keeps what it finished).

use super::MwOptions;
use super::MwMsg;
use crate::cluster::exec::transport::{Msg, Transport};
use crate::cluster::search::SharedEntry;
use crate::cluster::pause::{self, Paused, Turn};
use crate::cluster::reference::SeqTasks;
use crate::cluster::search::Searcher;
use crate::game::TreeSource;
use crate::search::NodeCounts;
use crate::value::Window;
use corosensei::stack::DefaultStack;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A task in a worker's queue.
pub(super) struct WTask<N> {
    pub(super) node: N,
    pub(super) max: bool,
    pub(super) ply: u32,
    pub(super) full: u32,
    pub(super) window: Window,
    pub(super) pass: u32,
    pub(super) sig: Vec<u16>,
    /// A node the sequential search did not search to full depth
    /// ([`crate::cluster::reference`]; `false` when not compared).
    pub(super) outside: bool,
}

/// A worker.
pub struct Worker<S: TreeSource> {
    searcher: Option<Searcher<S>>,
    slots: usize,
    pub(super) opts: MwOptions,
    queue: BTreeMap<u32, WTask<S::Node>>,
    /// The deepest finished search of each task and its window.
    done: BTreeMap<u32, (u32, Window)>,
    pass_seen: u32,
    waking: bool,
    stopped: bool,
    /// The search under way, paused between slices.
    running: Option<Running<S>>,
    /// The stack of the next search (each search's is kept for the next).
    stack: Option<DefaultStack>,
    /// Ring entries received while a search runs, stored at its next slice.
    absorb: Vec<SharedEntry<S::Node>>,
    /// Entries stored for sharing, handed out by the paused search, not yet
    /// sent on.
    outbox: Vec<SharedEntry<S::Node>>,
    /// Searches aborted for a more important task, and their nodes.
    pub aborts: u64,
    pub aborted_nodes: u64,
    /// Tasks dropped unfinished at a pass message, and the nodes searched
    /// on them.
    pub dropped: u64,
    pub dropped_nodes: u64,
    /// Nodes searched on each task in the queue.
    spent: BTreeMap<u32, u64>,
    /// Table entries received from the ring.
    pub absorbed: u64,
    /// The sequential search's tasks, when the run is compared with them.
    pub(super) seq: Option<Arc<SeqTasks>>,
    /// Nodes searched on tasks the sequential search did not search.
    pub outside_nodes: u64,
}

/// The search under way: task `id` to `depth` in `window`, its nodes so far.
struct Running<S: TreeSource> {
    id: u32,
    depth: u32,
    window: Window,
    paused: Paused<S>,
    nodes: NodeCounts,
    /// Its task is outside the sequential search's.
    outside: bool,
}

/// The next worker on the sharing ring (workers 1..procs).
fn next_on_ring(rank: usize, procs: usize) -> usize {
    if rank + 1 >= procs { 1 } else { rank + 1 }
}

impl<S: TreeSource> Worker<S> {
    pub(super) fn new(slots: usize, opts: MwOptions) -> Worker<S> {
        Worker {
            searcher: None,
            slots,
            opts,
            queue: BTreeMap::new(),
            done: BTreeMap::new(),
            pass_seen: 0,
            waking: false,
            stopped: false,
            running: None,
            stack: None,
            absorb: vec![],
            outbox: vec![],
            aborts: 0,
            aborted_nodes: 0,
            dropped: 0,
            dropped_nodes: 0,
            spent: BTreeMap::new(),
            absorbed: 0,
            seq: None,
            outside_nodes: 0,
        }
    }

    /// Whether the task of `node` at `ply` lies outside the sequential
    /// search's tasks (`false` when the run is not compared with them).
    pub(super) fn outside(&self, src: &S, node: &S::Node, ply: u32) -> bool {
        self.seq.as_ref().and_then(|t| t.contains(ply, src.tt_key(node, ply))) == Some(false)
    }

    fn wake<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, t: &mut T) {
        if !self.waking && !self.stopped && (!self.queue.is_empty() || self.running.is_some()) {
            self.waking = true;
            t.wake();
        }
    }

    /// The most important task (the paper's four levels: renewed since the
    /// last pass message, shallower finished search, earlier signature,
    /// narrower window; then the id).
    fn top(&self) -> Option<u32> {
        // The signature by reference: a slice orders as its vector does,
        // and a copy per queued task per slice was a tenth of a run's time.
        // The ids are distinct, so the least key is one task's.
        let mut best: Option<(bool, u32, &[u16], i64, u32)> = None;
        for (&id, task) in &self.queue {
            let fresh = task.pass > self.pass_seen;
            let depth = self.done.get(&id).map_or(0, |d| d.0);
            let k = (!fresh, depth, task.sig.as_slice(), task.window.beta.saturating_sub(task.window.alpha), id);
            if best.as_ref().is_none_or(|b| k < *b) {
                best = Some(k);
            }
        }
        best.map(|k| k.4)
    }

    /// The depth to search task `id` to next (`None`: nothing left to do).
    fn next_depth(&self, id: u32, task: &WTask<S::Node>) -> Option<u32> {
        let first = if task.full % 2 == 0 { 2 } else { 1 };
        let Some(&(d, w)) = self.done.get(&id) else { return Some(if self.opts.updates { first.min(task.full) } else { task.full }) };
        let covered = w.alpha <= task.window.alpha && w.beta >= task.window.beta;
        if covered && d >= task.full {
            None
        } else if self.opts.updates {
            Some((d + 2).min(task.full))
        } else {
            Some(task.full)
        }
    }

    /// The most important task and the depth to search it to next, tasks
    /// with nothing left to do dropped on the way.
    fn next(&mut self) -> Option<(u32, u32)> {
        loop {
            let id = self.top()?;
            match self.queue.get(&id).and_then(|task| self.next_depth(id, task)) {
                Some(d) => return Some((id, d)),
                None => {
                    self.queue.remove(&id);
                }
            }
        }
    }

    /// One slice: the search under way goes on if its task is still the
    /// most important (same depth, same window), else it is aborted and
    /// the most important task started.
    fn slice<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, src: &S, t: &mut T) {
        let next = self.next();
        if let Some(r) = &mut self.running {
            let same = next == Some((r.id, r.depth)) && self.queue.get(&r.id).is_some_and(|q| q.window == r.window);
            let turn = if same { r.paused.go(self.opts.slice, std::mem::take(&mut self.absorb)) } else { r.paused.stop() };
            self.finish(t, turn);
            if same {
                return;
            }
        }
        let Some((id, depth)) = next else { return };
        let Some(task) = self.queue.get(&id) else { return };
        let mut s = self.searcher.take().unwrap_or_else(|| Searcher::new(self.slots));
        s.share_ply = self.opts.share.map(|k| task.ply + k);
        let stack = self.stack.take().unwrap_or_else(pause::stack);
        // SAFETY: the executors hand every handler of a run the same
        // source and drop the processes before it (`Paused::start`).
        let mut paused = unsafe { Paused::start(stack, s, src, task.node.clone(), task.max, depth, task.ply, task.window) };
        let turn = paused.go(self.opts.slice, std::mem::take(&mut self.absorb));
        self.running = Some(Running { id, depth, window: task.window, paused, nodes: NodeCounts::default(), outside: task.outside });
        self.finish(t, turn);
    }

    /// What a slice of the search under way gave: its nodes charged, its
    /// entries to share kept; a finished search's result reported, a
    /// stopped one counted.
    fn finish<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, t: &mut T, turn: Turn<S>) {
        let Some(r) = &mut self.running else { return };
        // Every slice's nodes charged, and to `outside_nodes` if its task is.
        let (Turn::Paused(counts, _) | Turn::Done { counts, .. }) = &turn;
        t.searched(*counts);
        self.outside_nodes += if r.outside { counts.nodes } else { 0 };
        match turn {
            Turn::Paused(counts, outbox) => {
                r.nodes = r.nodes + counts;
                *self.spent.entry(r.id).or_default() += counts.nodes;
                self.outbox.extend(outbox);
            }
            Turn::Done { counts, mut searcher, value, stopped } => {
                self.outbox.append(&mut searcher.outbox);
                self.searcher = Some(searcher);
                let Some(r) = self.running.take() else { return };
                let (id, depth, window) = (r.id, r.depth, r.window);
                *self.spent.entry(id).or_default() += counts.nodes;
                self.stack = Some(r.paused.into_stack());
                if stopped {
                    self.aborts += 1;
                    self.aborted_nodes += (r.nodes + counts).nodes;
                    return;
                }
                self.done.insert(id, (depth, window));
                let full = self.queue.get(&id).map_or(depth, |q| q.full);
                if self.opts.updates || depth == full {
                    t.send(0, Msg::Own(MwMsg::Report { id, depth, window, value }));
                }
                if depth >= full {
                    self.queue.remove(&id);
                    self.spent.remove(&id);
                }
            }
        }
    }

    /// A task from the master: queued unless stale.
    pub(super) fn on_work<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, t: &mut T, id: u32, task: WTask<S::Node>) {
        // A task of a pass whose end has been heard of is stale: the later
        // pass sent it again if it still mattered.
        if self.stopped || task.pass < self.pass_seen || self.queue.get(&id).is_some_and(|q| q.pass > task.pass) {
            return;
        }
        self.queue.insert(id, task);
        self.wake(t);
    }

    /// The master's pass message: tasks it did not renew are dropped.
    pub(super) fn on_pass(&mut self, pass: u32) {
        self.pass_seen = self.pass_seen.max(pass);
        let seen = self.pass_seen;
        let (spent, dropped, nodes) = (&mut self.spent, &mut self.dropped, &mut self.dropped_nodes);
        self.queue.retain(|id, q| {
            let keep = q.pass >= seen;
            if !keep {
                *dropped += 1;
                *nodes += spent.remove(id).unwrap_or(0);
            }
            keep
        });
    }

    /// The ring's entries: absorbed, passed on with this worker's own.
    pub(super) fn on_share<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, src: &S, t: &mut T, mut entries: Vec<SharedEntry<S::Node>>) {
        if self.stopped {
            return;
        }
        let (me, next) = (t.rank(), next_on_ring(t.rank(), t.procs()));
        // Stored now, or by the search under way at its next slice.
        match &self.running {
            Some(_) => self.absorb.extend(entries.iter().cloned()),
            None => {
                let s = self.searcher.get_or_insert_with(|| Searcher::new(self.slots));
                entries.iter().for_each(|e| s.absorb(src, e));
                self.outbox.append(&mut s.outbox);
            }
        }
        self.absorbed += entries.len() as u64;
        // Entries the next worker found have been all the way round.
        entries.retain(|e| e.origin as usize != next);
        entries.extend(self.outbox.drain(..).map(|e| SharedEntry { origin: me as u32, ..e }));
        t.send(next, Msg::Own(MwMsg::Share { entries }));
    }

    /// The search is over.
    pub(super) fn on_stop(&mut self) {
        self.stopped = true;
        self.queue.clear();
        // The search under way returns through its abort path (its nodes
        // are past the search's end: not charged).
        if let Some(mut r) = self.running.take() {
            let _ = r.paused.stop();
        }
    }

    /// The wake-up it asked for: one slice, then look at the inbox again.
    pub(super) fn on_resume<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, src: &S, t: &mut T) {
        self.waking = false;
        if !self.stopped {
            self.slice(src, t);
            self.wake(t);
        }
    }
}
