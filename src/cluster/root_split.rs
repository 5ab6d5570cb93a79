//! The baselines of OthelloX (2017): the root's frontier split among the
//! processes (`docs/model.md` §9.3).
//!
//! - **Even split** ([`EvenSplit`]): every process knows the root, builds
//!   the frontier itself and searches its contiguous share with the full
//!   window; the workers send their values to process 0, which backs them
//!   up. No process waits for work, and none gets more when it finishes.
//! - **Master-slave** ([`MasterSlave`]): process 0 hands out one frontier
//!   node at a time to an idle worker and the next when its result comes
//!   back. At split ply 1 a task's window carries the best value so far
//!   (the master's "best so far" broadcast); deeper, the full window.
//!
//! Both are exact: every frontier value is exact in its window, and a
//! value bounded by a window at ply 1 can only be one that does not raise
//! the root's maximum.

use super::frontier::{Leaf, back_up, frontier};
use super::search::Searcher;
use super::transport::{Msg, Process, Transport};
use crate::game::TreeSource;
use crate::search::NodeCounts;
use crate::value::{ROOT_ALPHA, ROOT_BETA, Window};

/// The frontier every process of a run builds from the root: built once
/// by the simulator and shared (each process is charged its expansion).
pub struct Shared<S: TreeSource> {
    /// The root.
    pub root: S::Node,
    /// The search depth.
    pub depth: u32,
    /// The split ply.
    pub split: u32,
    /// The frontier, in the source's order.
    pub leaves: Vec<Leaf<S::Node>>,
    /// Internal nodes expanded to build it.
    pub expanded: u64,
}

impl<S: TreeSource> Shared<S> {
    /// The frontier of `root` at ply `split`, for a search to `depth`.
    pub fn new(src: &S, root: &S::Node, depth: u32, split: u32) -> Shared<S> {
        let (leaves, expanded) = frontier(src, root, split);
        Shared { root: root.clone(), depth, split, leaves, expanded }
    }

    fn built<T: Transport<S::Node>>(&self, t: &mut T) {
        t.searched(NodeCounts { nodes: self.expanded, leaves: 0, internal: self.expanded });
    }

    fn back_up(&self, src: &S, values: &[Option<i64>]) -> i64 {
        let vals: Vec<i64> = values.iter().map(|v| v.unwrap_or(0)).collect();
        back_up(src, &self.root, self.split, &vals)
    }
}

/// One process of the even split.
pub struct EvenSplit<'f, S: TreeSource> {
    f: &'f Shared<S>,
    slots: usize,
    values: Vec<Option<i64>>,
    missing: usize,
}

impl<'f, S: TreeSource> EvenSplit<'f, S> {
    /// A process of a run over frontier `f`, with `slots`
    /// transposition-table entries.
    pub fn new(f: &'f Shared<S>, slots: usize) -> EvenSplit<'f, S> {
        EvenSplit { f, slots, values: vec![], missing: 0 }
    }
}

/// Process `rank`'s share of `n` frontier nodes among `procs`.
fn share(rank: usize, procs: usize, n: usize) -> std::ops::Range<usize> {
    rank * n / procs..(rank + 1) * n / procs
}

fn search_leaf<S: TreeSource>(src: &S, s: &mut Searcher<S>, l: &Leaf<S::Node>, depth: u32, w: Window) -> i64 {
    s.search(src, &l.node, l.max, depth - l.ply, l.ply, w)
}

impl<S: TreeSource> Process<S> for EvenSplit<'_, S> {
    fn start<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        let f = self.f;
        f.built(t);
        let mine = share(t.rank(), t.procs(), f.leaves.len());
        let master = t.rank() == 0;
        let mut values = vec![None; if master { f.leaves.len() } else { 0 }];
        if !mine.is_empty() {
            let mut s = Searcher::new(self.slots);
            for i in mine {
                let before = s.counts;
                let v = search_leaf(src, &mut s, &f.leaves[i], f.depth, Window::ROOT);
                t.searched(diff(s.counts, before));
                if master {
                    values[i] = Some(v);
                } else {
                    t.send(0, Msg::Result { id: i as u32, value: v });
                }
            }
        }
        self.missing = values.iter().filter(|v| v.is_none()).count();
        self.values = values;
        if master && self.missing == 0 {
            t.done(f.back_up(src, &self.values));
        }
    }

    fn receive<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, _from: usize, msg: Msg<S::Node>) {
        let Msg::Result { id, value } = msg else { return };
        if let Some(slot @ None) = self.values.get_mut(id as usize) {
            *slot = Some(value);
            self.missing -= 1;
            if self.missing == 0 {
                t.done(self.f.back_up(src, &self.values));
            }
        }
    }
}

fn diff(a: NodeCounts, b: NodeCounts) -> NodeCounts {
    NodeCounts { nodes: a.nodes - b.nodes, leaves: a.leaves - b.leaves, internal: a.internal - b.internal }
}

/// One process of the master-slave search: the master (rank 0) or a worker.
pub struct MasterSlave<'f, S: TreeSource> {
    f: &'f Shared<S>,
    searcher: Option<Searcher<S>>,
    slots: usize,
    values: Vec<Option<i64>>,
    next: usize,
    missing: usize,
    best: i64,
}

impl<'f, S: TreeSource> MasterSlave<'f, S> {
    /// A process of a run over frontier `f`, with `slots`
    /// transposition-table entries per worker.
    pub fn new(f: &'f Shared<S>, slots: usize) -> MasterSlave<'f, S> {
        MasterSlave { f, searcher: None, slots, values: vec![], next: 0, missing: 0, best: ROOT_ALPHA }
    }

    fn hand_out<T: Transport<S::Node>>(&mut self, t: &mut T, worker: usize) {
        let f = self.f;
        if self.next >= f.leaves.len() {
            return;
        }
        let i = self.next;
        self.next += 1;
        let l = &f.leaves[i];
        // At ply 1 the root's best so far bounds the task: a lower value
        // cannot change the root's maximum.
        let window = if f.split == 1 { Window { alpha: self.best, beta: ROOT_BETA } } else { Window::ROOT };
        t.send(worker, Msg::Task { id: i as u32, node: l.node.clone(), max: l.max, ply: l.ply, depth: f.depth - l.ply, window });
    }
}

impl<S: TreeSource> Process<S> for MasterSlave<'_, S> {
    fn start<T: Transport<S::Node>>(&mut self, _src: &S, t: &mut T) {
        if t.rank() != 0 {
            return;
        }
        self.f.built(t);
        self.values = vec![None; self.f.leaves.len()];
        self.missing = self.f.leaves.len();
        for w in 1..t.procs() {
            self.hand_out(t, w);
        }
    }

    fn receive<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node>) {
        match msg {
            Msg::Task { id, node, max, ply, depth, window } => {
                let s = self.searcher.get_or_insert_with(|| Searcher::new(self.slots));
                let before = s.counts;
                let value = s.search(src, &node, max, depth, ply, window);
                t.searched(diff(s.counts, before));
                t.send(from, Msg::Result { id, value });
            }
            Msg::Result { id, value } => {
                if let Some(slot @ None) = self.values.get_mut(id as usize) {
                    *slot = Some(value);
                    self.missing -= 1;
                    self.best = self.best.max(value);
                }
                if self.missing == 0 {
                    t.done(self.f.back_up(src, &self.values));
                } else {
                    self.hand_out(t, from);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_the_frontier_once() {
        for (procs, n) in [(1, 5), (3, 5), (8, 5), (4096, 15625), (7, 100)] {
            let mut seen = vec![0; n];
            for r in 0..procs {
                for i in share(r, procs, n) {
                    seen[i] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{procs} {n}");
        }
        assert_eq!(share(1, 3, 5), 1..3);
    }
}
