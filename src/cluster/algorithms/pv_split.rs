//! PV splitting over messages (`docs/model.md` §9.10): OthelloX's PV
//! split (2017, §4.3), the splitting of Marsland and Campbell's principal
//! variation, run by a master and its slaves.
//!
//! - **The PV.** Rank 0, the master, walks the leftmost branch from the
//!   root (each node's first child in the source's order) down to the
//!   split ply s: the PV nodes at plies 0 … s − 1 are *split*, the one at
//!   ply s (or the first with no moves) is searched whole, sequentially,
//!   by the master, with the root's window.
//! - **Back up the PV.** From the deepest split node up: its first child's
//!   value (the node below, done) sets its bound; its other children are
//!   then tasks, handed one at a time to idle workers (master-slave style,
//!   the worker loop of [`crate::cluster::algorithms::root_split`]), each with the node's
//!   window as it stands (a MAX node's α raised by every value gathered
//!   so far, a MIN node's β lowered). When every task of the node is
//!   back, its fail-hard value is the first child's value of the node
//!   above, and so on to the root.
//! - **The master does not search tasks.** It hands out and gathers; a
//!   worker that returns a value gets the next task at once. At the bottom
//!   PV node the workers wait for the master's sequential search: the
//!   PV split's serial part.
//! - **Cut-offs.** A PV node's window is the root's full one, so none is
//!   ever cut off; should a node's window close all the same, its
//!   remaining tasks are not handed out, and the master still waits for the
//!   ones out (their values are then ignored), so that no result of a
//!   finished node is in flight when it moves up: a result always belongs
//!   to the current node, and no abort message is needed.
//!
//! Exact: every task's value is fail-hard in a window no wider than its
//! node's, the node's window only narrows, and the node's value combines
//! its children's as the sequential search does.

use crate::cluster::Launch;
use crate::cluster::algorithm::{Algorithm, Cut, Given, Opt, Run, TaskSearch};
use crate::cluster::algorithms::root_split::answer;
use crate::cluster::algorithms::ybwc::default_granularity;
use crate::cluster::exec::transport::{Msg, Process, Task, Transport};
use crate::game::{TreeSource, children};
use crate::search::NodeCounts;
use crate::value::Window;
use std::collections::VecDeque;

/// The default split ply for a search of `root` to `depth`: the deepest
/// PV node's tasks are as large as YBWC's sequential pieces (remaining
/// depth g, [`default_granularity`]), so s = depth − g, at least 1 for a
/// depth of 1 or more: 1 for b = 5 at depth 6, 4 for b = 10 at depth 8.
pub fn default_split_ply<S: TreeSource>(src: &S, root: &S::Node, depth: u32) -> u32 {
    depth - default_granularity(src, root, depth)
}

/// A split PV node: its children, the next to hand out, the tasks out and
/// its window as it narrows.
struct PvNode<N> {
    max: bool,
    ply: u32,
    /// Its children in the source's order (the first is the PV node below).
    kids: Vec<N>,
    /// The next child to hand out.
    next: usize,
    /// Tasks out with workers.
    out: usize,
    window: Window,
}

impl<N> PvNode<N> {
    /// A child's value, fail-hard in the window: a MAX node raises α, a
    /// MIN node lowers β.
    fn combine(&mut self, v: i64) {
        self.window = self.window.raise(self.max, v);
    }

    fn cut(&self) -> bool {
        self.window.closed()
    }

    /// Every child searched (or the window closed) and no task out.
    fn finished(&self) -> bool {
        self.out == 0 && (self.cut() || self.next == self.kids.len())
    }

    /// The fail-hard value, as the sequential search's: a MAX node's α (β
    /// if cut off), a MIN node's β (α if cut off).
    fn value(&self) -> i64 {
        self.window.value(self.max)
    }
}

/// OthelloX's PV splitting over messages (`pv-split`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PvSplit {
    /// The ply of the deepest PV node searched whole: the PV nodes above
    /// it are split (`None`: [`default_split_ply`]; at most the depth).
    pub split: Option<u32>,
}

impl Algorithm for PvSplit {
    fn registered() -> Vec<PvSplit> {
        vec![PvSplit::default()]
    }
    fn name(&self) -> &'static str {
        "pv-split"
    }
    fn label(&self) -> String {
        "PV split".into()
    }
    fn about(&self) -> &'static str {
        "PV splitting: the master backs up the leftmost branch to --split-ply, handing each PV node's other moves to idle processes"
    }
    fn reads(&self) -> &'static [Opt] {
        &[Opt::SplitPly]
    }
    fn given(self, g: &Given) -> PvSplit {
        PvSplit { split: g.split_ply }
    }
    fn whole_tasks(&self) -> bool {
        // Its workers search whole tasks, but threads inside them are not
        // offered: the rows of the hybrid are the root-splitting baselines'.
        false
    }
    fn resolve<S: TreeSource>(self, run: &Run<'_, S>) -> PvSplit {
        PvSplit { split: Some(self.split.unwrap_or_else(|| default_split_ply(run.src, run.root, run.depth)).min(run.depth)) }
    }
    fn cut(&self) -> Option<Cut> {
        self.split.map(Cut::SplitPly)
    }
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, tasks: impl Fn() -> Q) -> L::Output {
        let split = self.split.unwrap_or(run.depth);
        l.launch(run.src, run.procs, |_| PvSplitProcess::new(run.root, run.depth, split, tasks()))
    }
}

/// One process of the PV split: the master (rank 0) or a worker, searching
/// with `Q`.
pub struct PvSplitProcess<S: TreeSource, Q> {
    root: S::Node,
    depth: u32,
    split: u32,
    tasks: Q,
    /// The split PV nodes from the root down (the master's; popped as
    /// each is finished).
    pv: Vec<PvNode<S::Node>>,
    /// Workers without a task, in the order they became idle.
    idle: VecDeque<usize>,
    /// Tasks the master handed out.
    pub handed: u64,
}

impl<S: TreeSource, Q: TaskSearch<S>> PvSplitProcess<S, Q> {
    /// A process of a search of `root` to `depth` splitting the PV down to
    /// ply `split` (at most `depth`), searching with `tasks`.
    pub fn new(root: &S::Node, depth: u32, split: u32, tasks: Q) -> PvSplitProcess<S, Q> {
        PvSplitProcess { root: root.clone(), depth, split: split.min(depth), tasks, pv: vec![], idle: VecDeque::new(), handed: 0 }
    }

    /// Hands the current PV node's children out to idle workers, and moves
    /// up the PV while nodes are finished; the root's value ends the run.
    fn advance<T: Transport<S::Node>>(&mut self, t: &mut T) {
        while let Some(top) = self.pv.last_mut() {
            while !top.cut() && top.next < top.kids.len() {
                let Some(w) = self.idle.pop_front() else { break };
                let job = Task {
                    id: top.next as u32,
                    node: top.kids[top.next].clone(),
                    max: !top.max,
                    ply: top.ply + 1,
                    depth: self.depth - top.ply - 1,
                    window: top.window,
                };
                t.send(w, Msg::Task(job));
                top.next += 1;
                top.out += 1;
                self.handed += 1;
            }
            if !top.finished() {
                return;
            }
            let v = top.value();
            self.pv.pop();
            match self.pv.last_mut() {
                Some(up) => up.combine(v),
                None => t.done(v),
            }
        }
    }
}

impl<S: TreeSource, Q: TaskSearch<S>> Process<S> for PvSplitProcess<S, Q> {
    fn start<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        if t.rank() != 0 {
            return;
        }
        self.idle = (1..t.procs()).collect();
        // Walk the PV down to the split ply (or a node with no moves).
        let (mut node, mut max) = (self.root.clone(), true);
        for ply in 0..self.split {
            let kids = children(src, &node, max);
            let Some(first) = kids.first().cloned() else { break };
            self.pv.push(PvNode { max, ply, kids, next: 1, out: 0, window: Window::ROOT });
            (node, max) = (first, !max);
        }
        let walked = self.pv.len() as u64;
        t.searched(NodeCounts { nodes: walked, leaves: 0, internal: walked });
        // The deepest PV node, whole, with the window of its parent (the root's).
        let ply = self.pv.len() as u32;
        let (v, counts) = self.tasks.task(src, &node, max, self.depth - ply, ply, Window::ROOT);
        t.searched(counts);
        match self.pv.last_mut() {
            Some(up) => up.combine(v),
            None => t.done(v),
        }
        self.advance(t);
    }

    fn receive<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node>) {
        match msg {
            Msg::Task(job) => answer(src, &mut self.tasks, t, from, job),
            Msg::Result { value, .. } => {
                // Every result is the current node's (module doc: the master
                // moves up only once none is out).
                let Some(top) = self.pv.last_mut() else { return };
                top.out -= 1;
                top.combine(value);
                self.idle.push_back(from);
                self.advance(t);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::exec::events::Delivery;
    use crate::cluster::exec::machine::{self, Costs};
    use crate::cluster::search::Searcher;
    use crate::search::minimax;
    use crate::tree::incremental::Incremental;

    fn processes(t: &Incremental, seed: u64, depth: u32, split: u32, procs: usize) -> Vec<PvSplitProcess<Incremental, Searcher<Incremental>>> {
        let root = t.root(seed);
        (0..procs).map(|_| PvSplitProcess::new(&root, depth, split, Searcher::new(1 << 10))).collect()
    }

    /// Tasks: (b − 1) a split PV node, s of them; messages: a task and its
    /// result each, whatever P and the delivery order.
    #[test]
    fn tasks_and_messages_are_counted_by_hand() {
        let t = Incremental::new(3, 100).unwrap();
        let want = minimax(&t, &t.root(1), true, 4, 0);
        for split in 0..=4u32 {
            for procs in [2, 3, 8] {
                for delivery in [Delivery::Timed, Delivery::Adversarial(3)] {
                    let mut p = processes(&t, 1, 4, split, procs);
                    let s = machine::run(&t, &mut p, Costs::default(), delivery).expect("time within 2^64 ns").expect("a value");
                    assert_eq!(s.value, want, "split {split} procs {procs}");
                    assert_eq!(p[0].handed, 2 * split as u64);
                    assert_eq!(s.messages, 4 * split as u64);
                }
            }
        }
        // Split ply 1 on 2 processes, b = 3, depth 2: the master walks the
        // root and searches its first child; the one worker gets the
        // root's two other children, one after the other: 2 tasks, 2
        // results.
        let mut p = processes(&t, 1, 2, 1, 2);
        let s = machine::run(&t, &mut p, Costs::default(), Delivery::Timed).expect("time").expect("a value");
        assert_eq!((s.value, p[0].handed, s.messages), (minimax(&t, &t.root(1), true, 2, 0), 2, 4));
    }

    /// Every split ply from 0 (the master alone) past the depth, on
    /// incremental, artificial and chess trees, at every process count and
    /// in adversarial delivery orders: the plain alpha-beta search's value.
    #[test]
    fn every_split_ply_is_exact_on_every_tree_family() {
        use crate::cluster::{ClusterConfig, ClusterSettings, simulate};
        let text = concat!(
            r#"{"set":"t","index":1,"seed":7,"model":"incremental","b":5,"scale":100,"depth":5}"#,
            "\n",
            r#"{"set":"t","index":2,"seed":21,"model":"incremental","b":3,"scale":100,"depth":7}"#,
            "\n",
            r#"{"set":"t","index":3,"seed":11,"pscore":1073741823,"model":"exponential","b":6,"wa":50,"wb":20,"depth":5}"#,
            "\n",
            r#"{"game":"chess","set":"bk","index":1,"id":"BK.01","position":"1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1","depth":3}"#,
            "\n",
        );
        let trees = crate::tree::read_trees(crate::cli::Input::from_string("t", text)).unwrap();
        let mut handed = 0;
        for t in &trees {
            let want = t.search(&mut ()).value;
            for split in 0..=8 {
                for procs in [2, 3, 8, 64, 4096] {
                    for delivery in [Delivery::Timed, Delivery::Adversarial(1), Delivery::Adversarial(99)] {
                        let settings = ClusterSettings { tt_slots: 1 << 10, delivery, ..ClusterSettings::default() };
                        let cfg = ClusterConfig { settings, ..ClusterConfig::new(PvSplit { split: Some(split) }, procs) };
                        let s = simulate(t, &cfg, Some(want)).unwrap_or_else(|e| panic!("{e}"));
                        assert_eq!(s.output.value, want, "split {split} on {procs}, {delivery:?}");
                        handed += s.output.messages / 2;
                    }
                }
            }
        }
        assert!(handed > 1000, "{handed}");
    }

    #[test]
    fn a_closed_window_hands_out_nothing_more() {
        let mut n = PvNode { max: true, ply: 0, kids: vec![0u8, 1, 2], next: 1, out: 0, window: Window { alpha: 0, beta: 10 } };
        n.combine(4);
        assert_eq!((n.window, n.cut(), n.finished()), (Window { alpha: 4, beta: 10 }, false, false));
        n.combine(12);
        assert_eq!((n.cut(), n.finished(), n.value()), (true, true, 10));
        let mut m = PvNode { max: false, ply: 1, kids: vec![0u8, 1], next: 2, out: 0, window: Window { alpha: 0, beta: 10 } };
        m.combine(7);
        assert_eq!((m.finished(), m.value()), (true, 7));
        m.combine(-3);
        assert_eq!((m.cut(), m.value()), (true, 0));
    }
}
