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
//!
//! A process searches a whole task at a time, with a [`TaskSearch`]: the
//! sequential [`Searcher`] (the simulated cluster's, and the default), or
//! threads inside the process ([`crate::cluster::hybrid`], `psearch --mpi
//! --threads T`).

use crate::cluster::Launch;
use crate::cluster::algorithm::{Algorithm, Cut, Given, Opt, OptKind, Part, Run, TaskSearch};
use crate::cluster::algorithms::frontier::{self, Leaf, back_up, default_split, frontier};
use crate::cluster::exec::transport::{Msg, NoOwn, Process, Task, Transport};
use crate::cluster::search::Searcher;
use crate::game::TreeSource;
use crate::search::NodeCounts;
use crate::value::{ROOT_ALPHA, ROOT_BETA, Window};

/// The frontier every process of a run builds from the root: built once
/// by the simulator and shared (each process is charged its expansion).
pub struct SplitFrontier<S: TreeSource> {
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

impl<S: TreeSource> SplitFrontier<S> {
    /// The frontier of `root` at ply `split`, for a search to `depth`.
    pub fn new(src: &S, root: &S::Node, depth: u32, split: u32) -> SplitFrontier<S> {
        let (leaves, expanded) = frontier(src, root, split);
        SplitFrontier { root: root.clone(), depth, split, leaves, expanded }
    }

    fn built<T: Transport<S::Node>>(&self, t: &mut T) {
        t.searched(NodeCounts { nodes: self.expanded, leaves: 0, internal: self.expanded });
    }

    fn back_up(&self, src: &S, values: &[Option<i64>]) -> i64 {
        let vals: Vec<i64> = values.iter().map(|v| v.unwrap_or(0)).collect();
        back_up(src, &self.root, self.split, &vals)
    }
}

/// OthelloX's even split of the root's frontier (`even-split`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EvenSplit {
    /// The ply the tree is split at (`None`: the shallowest with at least
    /// as many nodes as processes, [`default_split`]; at most the depth).
    pub split: Option<u32>,
}

/// OthelloX's master-slave over the root's frontier (`master-slave`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MasterSlave {
    /// The split ply, as for [`EvenSplit`].
    pub split: Option<u32>,
}

/// `--split-ply`: where the root-splitting algorithms cut the tree (and
/// the PV split its PV, `super::pv_split`).
pub const SPLIT_PLY: Opt = Opt {
    flag: "--split-ply",
    value: "SPLIT_PLY",
    help: "The ply even-split and master-slave split the tree at (default: the shallowest with at least p nodes); pv-split's deepest PV node, the PV nodes above it split (default: depth − 3)",
    kind: OptKind::U32 { max: None },
};

/// The split ply asked (at most the depth) or its default: the one rule.
fn split_ply<S: TreeSource>(split: Option<u32>, run: &Run<'_, S>) -> u32 {
    split.map_or_else(|| default_split(run.src, run.root, run.depth, run.procs), |s| s.min(run.depth))
}

/// The root-splitting baselines' frontier in the memory estimate: every
/// process keeps a table.
fn frontier_part<S: TreeSource>(split: Option<u32>, even: bool, run: &Run<'_, S>) -> Part {
    let nodes = frontier::size(run.src, run.root, split.unwrap_or(0));
    Part { tables: run.procs as u64, tree: frontier_bytes::<S::Node>(even, nodes, run.procs), name: "frontier", lower: "--split-ply" }
}

/// Bytes a root-splitting run on `procs` processes holds for a frontier of
/// `nodes` nodes of type `N`: each node (position, side, ply), process 0's
/// slot for its value and the value's copy when they are backed up; with
/// the even split (`even`), the results of the workers' shares, which are
/// sent at once and all in flight together. (Measured: 48 and 114 bytes a
/// node on incremental trees, 9,765,625 nodes at split ply 10: the
/// estimate is within 2% of the peak resident size.)
pub fn frontier_bytes<N>(even: bool, nodes: u64, procs: usize) -> u64 {
    let node = (std::mem::size_of::<Leaf<N>>() + std::mem::size_of::<Option<i64>>() + std::mem::size_of::<i64>()) as u64;
    let held = nodes.saturating_mul(node);
    if even {
        let sent = (nodes as u128 * (procs.max(1) - 1) as u128 / procs.max(1) as u128).min(u64::MAX as u128) as u64;
        held.saturating_add(sent.saturating_mul(crate::cluster::exec::machine::message_bytes::<N, NoOwn>()))
    } else {
        held
    }
}

impl Algorithm for EvenSplit {
    fn registered() -> Vec<EvenSplit> {
        vec![EvenSplit::default()]
    }
    fn name(&self) -> &'static str {
        "even-split"
    }
    fn label(&self) -> String {
        "even split at the root".into()
    }
    fn about(&self) -> &'static str {
        "the frontier at --split-ply split evenly among the processes"
    }
    fn reads(&self) -> &'static [Opt] {
        &[SPLIT_PLY]
    }
    fn given(self, g: &Given) -> EvenSplit {
        EvenSplit { split: g.u32(SPLIT_PLY) }
    }
    fn procs(&self) -> std::ops::RangeInclusive<usize> {
        1..=crate::cluster::MAX_CLUSTER_PROCS
    }
    fn whole_tasks(&self) -> bool {
        true
    }
    fn resolve<S: TreeSource>(self, run: &Run<'_, S>) -> EvenSplit {
        EvenSplit { split: Some(split_ply(self.split, run)) }
    }
    fn cut(&self) -> Option<Cut> {
        self.split.map(Cut::SplitPly)
    }
    fn memory<S: TreeSource>(&self, run: &Run<'_, S>) -> Part {
        frontier_part(self.split, true, run)
    }
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, tasks: impl Fn() -> Q) -> L::Output {
        let f = SplitFrontier::new(run.src, run.root, run.depth, split_ply(self.split, run));
        l.launch(run.src, run.procs, |_| EvenSplitProcess::new(&f, tasks()))
    }
}

impl Algorithm for MasterSlave {
    fn registered() -> Vec<MasterSlave> {
        vec![MasterSlave::default()]
    }
    fn name(&self) -> &'static str {
        "master-slave"
    }
    fn label(&self) -> String {
        "master-slave at the root".into()
    }
    fn about(&self) -> &'static str {
        "the frontier at --split-ply handed out one node at a time"
    }
    fn reads(&self) -> &'static [Opt] {
        &[SPLIT_PLY]
    }
    fn given(self, g: &Given) -> MasterSlave {
        MasterSlave { split: g.u32(SPLIT_PLY) }
    }
    fn whole_tasks(&self) -> bool {
        true
    }
    fn resolve<S: TreeSource>(self, run: &Run<'_, S>) -> MasterSlave {
        MasterSlave { split: Some(split_ply(self.split, run)) }
    }
    fn cut(&self) -> Option<Cut> {
        self.split.map(Cut::SplitPly)
    }
    fn memory<S: TreeSource>(&self, run: &Run<'_, S>) -> Part {
        frontier_part(self.split, false, run)
    }
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, tasks: impl Fn() -> Q) -> L::Output {
        let f = SplitFrontier::new(run.src, run.root, run.depth, split_ply(self.split, run));
        l.launch(run.src, run.procs, |_| MasterSlaveProcess::new(&f, tasks()))
    }
}

/// The sequential search, its table kept from task to task.
impl<S: TreeSource> TaskSearch<S> for Searcher<S> {
    fn task(&mut self, src: &S, node: &S::Node, max: bool, depth: u32, ply: u32, w: Window) -> (i64, NodeCounts) {
        let before = self.counts;
        let v = self.search(src, node, max, depth, ply, w);
        (v, self.counts - before)
    }
}

/// One process of the even split, searching its tasks with `Q`.
pub struct EvenSplitProcess<'f, S: TreeSource, Q> {
    f: &'f SplitFrontier<S>,
    tasks: Q,
    values: Vec<Option<i64>>,
    missing: usize,
}

impl<'f, S: TreeSource, Q: TaskSearch<S>> EvenSplitProcess<'f, S, Q> {
    /// A process of a run over frontier `f`, searching with `tasks`.
    pub fn new(f: &'f SplitFrontier<S>, tasks: Q) -> EvenSplitProcess<'f, S, Q> {
        EvenSplitProcess { f, tasks, values: vec![], missing: 0 }
    }
}

/// Process `rank`'s share of `n` frontier nodes among `procs`.
fn share(rank: usize, procs: usize, n: usize) -> std::ops::Range<usize> {
    rank * n / procs..(rank + 1) * n / procs
}

fn search_leaf<S: TreeSource>(src: &S, q: &mut impl TaskSearch<S>, l: &Leaf<S::Node>, depth: u32, w: Window) -> (i64, NodeCounts) {
    q.task(src, &l.node, l.max, depth - l.ply, l.ply, w)
}

impl<S: TreeSource, Q: TaskSearch<S>> Process<S> for EvenSplitProcess<'_, S, Q> {
    type Own = NoOwn;

    fn start<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        let f = self.f;
        f.built(t);
        let mine = share(t.rank(), t.procs(), f.leaves.len());
        let master = t.rank() == 0;
        let mut values = vec![None; if master { f.leaves.len() } else { 0 }];
        for i in mine {
            let (v, counts) = search_leaf(src, &mut self.tasks, &f.leaves[i], f.depth, Window::ROOT);
            t.searched(counts);
            if master {
                values[i] = Some(v);
            } else {
                t.send(0, Msg::Result { id: i as u32, value: v });
            }
        }
        self.missing = values.iter().filter(|v| v.is_none()).count();
        self.values = values;
        if master && self.missing == 0 {
            t.done(f.back_up(src, &self.values));
        }
    }

    fn receive<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T, _from: usize, msg: Msg<S::Node, Self::Own>) {
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

/// A worker's side of a master handing out tasks (master-slave, the PV
/// split): `job` searched with `q`, its value sent back to `from`.
pub(super) fn answer<S: TreeSource, Q: TaskSearch<S>, T: Transport<S::Node>>(src: &S, q: &mut Q, t: &mut T, from: usize, job: Task<S::Node>) {
    let Task { id, node, max, ply, depth, window } = job;
    let (value, counts) = q.task(src, &node, max, depth, ply, window);
    t.searched(counts);
    t.send(from, Msg::Result { id, value });
}

/// One process of the master-slave search: the master (rank 0) or a
/// worker, searching its tasks with `Q`.
pub struct MasterSlaveProcess<'f, S: TreeSource, Q> {
    f: &'f SplitFrontier<S>,
    tasks: Q,
    values: Vec<Option<i64>>,
    next: usize,
    missing: usize,
    best: i64,
}

impl<'f, S: TreeSource, Q: TaskSearch<S>> MasterSlaveProcess<'f, S, Q> {
    /// A process of a run over frontier `f`, a worker searching with `tasks`.
    pub fn new(f: &'f SplitFrontier<S>, tasks: Q) -> MasterSlaveProcess<'f, S, Q> {
        MasterSlaveProcess { f, tasks, values: vec![], next: 0, missing: 0, best: ROOT_ALPHA }
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
        t.send(worker, Msg::Task(Task { id: i as u32, node: l.node.clone(), max: l.max, ply: l.ply, depth: f.depth - l.ply, window }));
    }
}

impl<S: TreeSource, Q: TaskSearch<S>> Process<S> for MasterSlaveProcess<'_, S, Q> {
    type Own = NoOwn;

    fn start<T: Transport<S::Node, Self::Own>>(&mut self, _src: &S, t: &mut T) {
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

    fn receive<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node, Self::Own>) {
        match msg {
            Msg::Task(job) => answer(src, &mut self.tasks, t, from, job),
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
