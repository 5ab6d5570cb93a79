//! The worker of Ura, Tsuruoka and Chikayama's (2014) master-worker (§3.2,
//! Fig. 5): a priority queue of tasks, each searched by iterative deepening
//! (+2 plies per repetition, every finished depth reported when updates are
//! on), tasks a pass message did not renew dropped, a transposition table of
//! its own. Handlers cannot be interrupted, so a worker searches in slices of
//! a node budget: after each it looks at its inbox ([`Transport::wake`]) and
//! takes the most important task again; an aborted search restarts from its
//! table (the paper's own remark: the effort is not wasted).

use super::MwOptions;
use crate::cluster::exec::transport::{Msg, SharedEntry, Transport};
use crate::cluster::search::Searcher;
use crate::game::TreeSource;
use crate::value::Window;
use std::collections::BTreeMap;

/// A task in a worker's queue.
pub(super) struct WTask<N> {
    pub(super) node: N,
    pub(super) max: bool,
    pub(super) ply: u32,
    pub(super) full: u32,
    pub(super) window: Window,
    pub(super) pass: u32,
    pub(super) sig: Vec<u16>,
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
    /// The (task, depth) the last slice aborted, and the budget it had.
    last: Option<(u32, u32)>,
    budget: u64,
    /// Slices that ended before their search did.
    pub aborts: u64,
    /// Table entries received from the ring.
    pub absorbed: u64,
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
            last: None,
            budget: opts.slice,
            aborts: 0,
            absorbed: 0,
        }
    }

    fn wake<T: Transport<S::Node>>(&mut self, t: &mut T) {
        if !self.waking && !self.stopped && !self.queue.is_empty() {
            self.waking = true;
            t.wake();
        }
    }

    /// The most important task (the paper's four levels: renewed since the
    /// last pass message, shallower finished search, earlier signature,
    /// narrower window; then the id).
    fn top(&self) -> Option<u32> {
        let key = |(&id, task): (&u32, &WTask<S::Node>)| {
            let fresh = task.pass > self.pass_seen;
            let depth = self.done.get(&id).map_or(0, |d| d.0);
            (!fresh, depth, task.sig.clone(), task.window.beta.saturating_sub(task.window.alpha), id)
        };
        self.queue.iter().map(key).min().map(|k| k.4)
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

    fn slice<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        let (id, depth) = loop {
            let Some(id) = self.top() else { return };
            match self.queue.get(&id).and_then(|task| self.next_depth(id, task)) {
                Some(d) => break (id, d),
                None => {
                    self.queue.remove(&id);
                }
            }
        };
        let Some(task) = self.queue.get(&id) else { return };
        self.budget = if self.last == Some((id, depth)) { self.budget.saturating_mul(2) } else { self.opts.slice };
        let s = self.searcher.get_or_insert_with(|| Searcher::new(self.slots));
        s.share_ply = self.opts.share.map(|k| task.ply + k);
        let before = s.counts;
        s.limit = before.nodes.saturating_add(self.budget);
        let value = s.search(src, &task.node, task.max, depth, task.ply, task.window);
        s.limit = u64::MAX;
        let aborted = std::mem::take(&mut s.aborted);
        t.searched(s.counts - before);
        if aborted {
            self.aborts += 1;
            self.last = Some((id, depth));
            return;
        }
        self.last = None;
        let (window, full) = (task.window, task.full);
        self.done.insert(id, (depth, window));
        if self.opts.updates || depth == full {
            t.send(0, Msg::Report { id, depth, window, value });
        }
        if depth >= full {
            self.queue.remove(&id);
        }
    }

    /// A task from the master: queued unless stale.
    pub(super) fn on_work<T: Transport<S::Node>>(&mut self, t: &mut T, id: u32, task: WTask<S::Node>) {
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
        self.queue.retain(|_, q| q.pass >= seen);
    }

    /// The ring's entries: absorbed, passed on with this worker's own.
    pub(super) fn on_share<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, mut entries: Vec<SharedEntry<S::Node>>) {
        if self.stopped {
            return;
        }
        let (me, next) = (t.rank(), next_on_ring(t.rank(), t.procs()));
        let s = self.searcher.get_or_insert_with(|| Searcher::new(self.slots));
        for e in &entries {
            s.absorb(src, e);
        }
        self.absorbed += entries.len() as u64;
        // Entries the next worker found have been all the way round.
        entries.retain(|e| e.origin as usize != next);
        entries.extend(s.outbox.drain(..).map(|e| SharedEntry { origin: me as u32, ..e }));
        t.send(next, Msg::Share { entries });
    }

    /// The search is over.
    pub(super) fn on_stop(&mut self) {
        self.stopped = true;
        self.queue.clear();
    }

    /// The wake-up it asked for: one slice, then look at the inbox again.
    pub(super) fn on_resume<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        self.waking = false;
        if !self.stopped {
            self.slice(src, t);
            self.wake(t);
        }
    }
}
