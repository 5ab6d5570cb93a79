//! PV splitting over messages (`docs/model.md` §9.10): OthelloX's PV
//! split (2017, §4.3), Marsland and Campbell's splitting of the principal
//! variation, as the source states it: the PV split is called recursively
//! on the leftmost branch, then plain alpha-beta searches the current
//! node's other children in parallel with the bounds the leftmost one
//! gave; the leftmost child is the best move the transposition table
//! holds.
//!
//! - **The PV, from the table.** Rank 0 goes down the PV from the root:
//!   at each node it takes the best move its own table holds (the
//!   [`Searcher`]'s) as the leftmost child; a node of remaining depth d ≥
//!   3 with none is first searched to d − 2 by rank 0 alone (the
//!   baseline's internal iterative deepening, §9.2), whose best move is
//!   then the leftmost. So the PV is the one the sequential baseline
//!   follows. Every PV node above the split ply s is a *split point*; the
//!   one at ply s (or the first with no moves) is searched whole by rank 0.
//! - **The recursion, unwound.** The recursive calls down the leftmost
//!   branch are a stack of split points, deepest last. From the deepest
//!   up, each takes its leftmost child's value as its bound (a MAX node's
//!   α, a MIN node's β), then its other children are tasks searched in
//!   parallel by plain alpha-beta, each with the node's window as it
//!   stands. When all are in, its fail-hard value is the leftmost value of
//!   the split point above; the root's is the result.
//! - **Rank 0 searches too.** At each split point it takes the first task
//!   itself (it needs no message), then hands one to every idle process;
//!   it searches its own with its own table in slices of a node budget (a
//!   [`Piece`]; the window narrowed to the node's at every slice),
//!   answering the others' results between slices: a process that returns
//!   a value gets the next task at once, and rank 0 takes the next when
//!   its own is done.
//! - **Cut-offs.** A split point's window is the root's full one (its
//!   leftmost child is searched before any bound is known), so none is
//!   ever cut off; should a window close all the same, no more tasks are
//!   handed out, rank 0 drops its own, and it waits for the tasks out
//!   (their values ignored), so that a result always belongs to the current
//!   split point and no abort message is needed.
//!
//! Exact: every task's value is fail-hard in a window no wider than its
//! node's, a node's window only narrows, and the node combines its
//! children's values as the sequential search does.

use crate::cluster::Launch;
use crate::cluster::algorithm::{Algorithm, Cut, Given, Opt, Run, SLICE_NODES, TaskSearch, slice_nodes};
use crate::cluster::algorithms::piece::Piece;
use crate::cluster::algorithms::root_split::{SPLIT_PLY, answer};
use crate::cluster::exec::transport::{Msg, NoOwn, Process, Task, Transport};
use crate::cluster::search::Searcher;
use crate::game::{TreeSource, children};
use crate::search::NodeCounts;
use crate::value::Window;
use std::collections::VecDeque;

/// The remaining depth of the deepest PV node (searched whole) by
/// default, and so the depth of the deepest split point's tasks: 3, among
/// the best measured on Othello at depths 5 and 7 and on incremental b = 5
/// trees at depths 9 and 12 (`docs/decisions.md`, "PV splitting"). A
/// depth-3 task is about the cost of a message's round trip at the
/// default costs; shallower ones cost more in messages than they save.
pub const DEFAULT_GRANULARITY: u32 = 3;

/// The default split ply for a search to `depth`: d − 3
/// ([`DEFAULT_GRANULARITY`]), at least 1 for a depth of 1 or more (the
/// root is always a split point): 2 at depth 5, so two split points.
pub fn default_split_ply(depth: u32) -> u32 {
    depth.saturating_sub(DEFAULT_GRANULARITY).max(depth.min(1))
}

/// A split point: a PV node above the split ply, its children (the
/// leftmost first), the next to hand out, the tasks out and its window as
/// it narrows.
struct SplitPoint<N> {
    max: bool,
    ply: u32,
    /// Remaining depth.
    depth: u32,
    /// Its children, the leftmost (the PV node below) first, the others
    /// in the source's order.
    kids: Vec<N>,
    /// The next child to hand out.
    next: usize,
    /// Tasks out with other processes.
    out: usize,
    /// Rank 0 is searching one of its children itself.
    local: bool,
    window: Window,
}

impl<N> SplitPoint<N> {
    /// A child's value, fail-hard in the window: a MAX node raises α, a
    /// MIN node lowers β.
    fn combine(&mut self, v: i64) {
        self.window = self.window.raise(self.max, v);
    }

    fn cut(&self) -> bool {
        self.window.closed()
    }

    /// A child is left to hand out.
    fn more(&self) -> bool {
        !self.cut() && self.next < self.kids.len()
    }

    /// Every child searched (or the window closed), none out, none local.
    fn finished(&self) -> bool {
        self.out == 0 && !self.local && !self.more()
    }

    /// The fail-hard value, as the sequential search's: a MAX node's α (β
    /// if cut off), a MIN node's β (α if cut off).
    fn value(&self) -> i64 {
        self.window.value(self.max)
    }
}

/// `kids` with child `first` (its place in the source's order) moved to
/// the front, the others in the source's order: the baseline's order
/// with a best move ([`crate::search::Order::Permuted`] with no shift).
fn leftmost_first<N>(mut kids: Vec<N>, first: Option<u32>) -> Vec<N> {
    if let Some(f) = first.map(|f| f as usize).filter(|&f| f < kids.len()) {
        kids[..=f].rotate_right(1);
    }
    kids
}

/// OthelloX's PV splitting over messages (`pv-split`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PvSplit {
    /// The ply of the deepest PV node, searched whole: the PV nodes above
    /// it are split points (`None`: [`default_split_ply`]; at most the
    /// depth).
    pub split: Option<u32>,
    /// Nodes rank 0 searches of its own task before it looks at its inbox
    /// (`None`: [`DEFAULT_SLICE_NODES`](crate::cluster::algorithm::DEFAULT_SLICE_NODES)).
    pub slice: Option<u64>,
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
        "PV splitting, recursive along the table's PV to --split-ply: each PV node's other moves searched in parallel, rank 0 too (--slice-nodes)"
    }
    fn reads(&self) -> &'static [Opt] {
        &[SPLIT_PLY, SLICE_NODES]
    }
    fn given(self, g: &Given) -> PvSplit {
        PvSplit { split: g.u32(SPLIT_PLY), slice: g.count(SLICE_NODES) }
    }
    fn whole_tasks(&self) -> bool {
        // Rank 0 searches its tasks in slices, not whole: threads inside
        // the ranks are not offered (the hybrid's rows are the
        // root-splitting baselines').
        false
    }
    fn resolve<S: TreeSource>(self, run: &Run<'_, S>) -> PvSplit {
        let split = self.split.unwrap_or_else(|| default_split_ply(run.depth)).min(run.depth);
        PvSplit { split: Some(split), slice: Some(slice_nodes(self.slice)) }
    }
    fn cut(&self) -> Option<Cut> {
        self.split.map(Cut::SplitPly)
    }
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, tasks: impl Fn() -> Q) -> L::Output {
        let split = self.split.unwrap_or(run.depth);
        let slice = slice_nodes(self.slice);
        let slots = run.settings.tt_slots;
        l.launch(run.src, run.procs, |r| match r {
            0 => PvSplitProcess::master(run.root, run.depth, split, slice, Searcher::new(slots)),
            _ => PvSplitProcess::worker(tasks()),
        })
    }
}

/// Rank 0's part: the search's root and the split points.
struct Master<S: TreeSource> {
    root: S::Node,
    depth: u32,
    split: u32,
    slice: u64,
    /// Its own table and searches: the PV's moves, the deepest PV node,
    /// its own tasks.
    searcher: Searcher<S>,
    /// The split points from the root down (popped as each is finished).
    pv: Vec<SplitPoint<S::Node>>,
    /// The task it is searching itself, if any.
    piece: Option<Piece<S::Node>>,
    /// A wake-up is asked for.
    waking: bool,
    /// Processes without a task, in the order they became idle.
    idle: VecDeque<usize>,
}

/// One process of the PV split: rank 0, which goes down the PV and hands
/// out the tasks (and searches some), or another, which searches the
/// tasks it is given with `Q`.
pub struct PvSplitProcess<S: TreeSource, Q> {
    master: Option<Master<S>>,
    tasks: Option<Q>,
    /// Tasks rank 0 handed to other processes.
    pub handed: u64,
    /// Tasks rank 0 searched itself.
    pub own: u64,
    /// Split points rank 0 made (PV nodes whose other children were tasks).
    pub splits: u64,
}

impl<S: TreeSource, Q: TaskSearch<S>> PvSplitProcess<S, Q> {
    /// Rank 0 of a search of `root` to `depth` splitting the PV above ply
    /// `split` (at most `depth`), its own tasks searched with `searcher`
    /// in slices of `slice` nodes.
    pub fn master(root: &S::Node, depth: u32, split: u32, slice: u64, searcher: Searcher<S>) -> PvSplitProcess<S, Q> {
        let m = Master {
            root: root.clone(),
            depth,
            split: split.min(depth),
            slice: slice.max(1),
            searcher,
            pv: vec![],
            piece: None,
            waking: false,
            idle: VecDeque::new(),
        };
        PvSplitProcess { master: Some(m), tasks: None, handed: 0, own: 0, splits: 0 }
    }

    /// Another rank, searching its tasks with `tasks`.
    pub fn worker(tasks: Q) -> PvSplitProcess<S, Q> {
        PvSplitProcess { master: None, tasks: Some(tasks), handed: 0, own: 0, splits: 0 }
    }

    /// Takes the current split point's next child itself if it searches
    /// none, hands the next ones to idle processes, and moves up the PV
    /// while split points are finished; the root's value ends the run.
    fn advance<T: Transport<S::Node>>(&mut self, t: &mut T) {
        let Some(m) = self.master.as_mut() else { return };
        while let Some(top) = m.pv.last_mut() {
            // Its own task first: one that needs no message (measured:
            // better than taking one only when every process is busy).
            if top.more() && !top.local {
                let i = top.next;
                m.piece = Some(Piece { node: top.kids[i].clone(), max: !top.max, ply: top.ply + 1, depth: top.depth - 1, window: top.window, budget: m.slice });
                top.next += 1;
                top.local = true;
                self.own += 1;
            }
            while top.more() {
                let Some(w) = m.idle.pop_front() else { break };
                let job =
                    Task { id: top.next as u32, node: top.kids[top.next].clone(), max: !top.max, ply: top.ply + 1, depth: top.depth - 1, window: top.window };
                t.send(w, Msg::Task(job));
                top.next += 1;
                top.out += 1;
                self.handed += 1;
            }
            if !top.finished() {
                break;
            }
            let v = top.value();
            m.pv.pop();
            match m.pv.last_mut() {
                Some(up) => up.combine(v),
                None => t.done(v),
            }
        }
        if m.piece.is_some() && !m.waking {
            m.waking = true;
            t.wake();
        }
    }
}

impl<S: TreeSource> Master<S> {
    /// Goes down the PV to the split ply, stacking the split points, and
    /// searches the deepest PV node whole: its value, for the deepest split
    /// point (or the root's, with none).
    fn descend<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) -> i64 {
        let (mut node, mut max) = (self.root.clone(), true);
        for ply in 0..self.split {
            let kids = children(src, &node, max);
            if kids.is_empty() {
                break;
            }
            let depth = self.depth - ply;
            let mut best = self.searcher.best_move(src, &node, ply);
            if best.is_none() && depth >= 3 {
                // Internal iterative deepening, as the baseline's: the
                // node to d − 2 (its nodes are counted) gives the move.
                let before = self.searcher.counts;
                self.searcher.search(src, &node, max, depth - 2, ply, Window::ROOT);
                t.searched(self.searcher.counts - before);
                best = self.searcher.best_move(src, &node, ply);
            }
            let kids = leftmost_first(kids, best);
            let first = kids[0].clone();
            self.pv.push(SplitPoint { max, ply, depth, kids, next: 1, out: 0, local: false, window: Window::ROOT });
            (node, max) = (first, !max);
        }
        let walked = self.pv.len() as u64;
        t.searched(NodeCounts { nodes: walked, leaves: 0, internal: walked });
        // The deepest PV node, whole, in the window of the split points
        // above it (the root's): nothing is out, so no message waits.
        let ply = self.pv.len() as u32;
        let before = self.searcher.counts;
        let v = self.searcher.search(src, &node, max, self.depth - ply, ply, Window::ROOT);
        t.searched(self.searcher.counts - before);
        v
    }

    /// One slice of its own task, its window narrowed to the split point's
    /// as it stands; the task's value, combined, once it is done.
    fn slice<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        let (Some(top), Some(p)) = (self.pv.last_mut(), self.piece.as_mut()) else { return };
        p.window = top.window;
        if let Some(v) = p.slice(&mut self.searcher, src, t) {
            self.piece = None;
            top.local = false;
            top.combine(v);
        }
    }
}

impl<S: TreeSource, Q: TaskSearch<S>> Process<S> for PvSplitProcess<S, Q> {
    type Own = NoOwn;

    fn start<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        let Some(m) = self.master.as_mut() else { return };
        m.idle = (1..t.procs()).collect();
        let v = m.descend(src, t);
        self.splits = m.pv.len() as u64;
        match m.pv.last_mut() {
            Some(up) => up.combine(v),
            None => t.done(v),
        }
        self.advance(t);
    }

    fn receive<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node, Self::Own>) {
        match msg {
            Msg::Task(job) => {
                if let Some(q) = self.tasks.as_mut() {
                    answer(src, q, t, from, job);
                }
            }
            Msg::Result { value, .. } => {
                // Every result is the current split point's (module doc:
                // rank 0 moves up only once none is out).
                let Some(m) = self.master.as_mut() else { return };
                let Some(top) = m.pv.last_mut() else { return };
                top.out -= 1;
                top.combine(value);
                if top.cut() && top.local {
                    // Its own task is no longer needed.
                    m.piece = None;
                    top.local = false;
                }
                m.idle.push_back(from);
                self.advance(t);
            }
            _ => {}
        }
    }

    fn resume<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        let Some(m) = self.master.as_mut() else { return };
        m.waking = false;
        m.slice(src, t);
        self.advance(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::algorithm::DEFAULT_SLICE_NODES;
    use crate::cluster::exec::events::Delivery;
    use crate::cluster::exec::machine::{self, ClusterStats, Costs};
    use crate::game::othello::{Othello, Position};
    use crate::search::minimax;
    use crate::tree::incremental::Incremental;

    type Procs<S> = Vec<PvSplitProcess<S, Searcher<S>>>;

    fn processes<S: TreeSource>(_src: &S, root: &S::Node, depth: u32, split: u32, slice: u64, procs: usize) -> Procs<S> {
        let mut p = vec![PvSplitProcess::master(root, depth, split, slice, Searcher::new(1 << 10))];
        p.extend((1..procs).map(|_| PvSplitProcess::worker(Searcher::new(1 << 10))));
        p
    }

    fn run<S: TreeSource>(src: &S, p: &mut Procs<S>, delivery: Delivery) -> ClusterStats {
        machine::run(src, p, Costs::default(), delivery).expect("time within 2^64 ns").expect("a value")
    }

    /// Every child of a split point but its leftmost is one task, searched
    /// by rank 0 or handed out (a task and its result: two messages), at
    /// every P and in every delivery order; s split points on b = 3.
    #[test]
    fn tasks_and_messages_are_counted_by_hand() {
        let t = Incremental::new(3, 100).unwrap();
        let root = t.root(1);
        let want = minimax(&t, &root, true, 4, 0);
        for split in 0..=4u32 {
            for procs in [2, 3, 8] {
                for delivery in [Delivery::Timed, Delivery::Adversarial(3)] {
                    for slice in [1, 1024] {
                        let mut p = processes(&t, &root, 4, split, slice, procs);
                        let s = run(&t, &mut p, delivery);
                        assert_eq!(s.value, want, "split {split} procs {procs}");
                        assert_eq!((p[0].splits, p[0].handed + p[0].own), (split as u64, 2 * split as u64));
                        assert_eq!(s.messages, 2 * p[0].handed);
                        assert!(p[1..].iter().all(|w| w.handed + w.own + w.splits == 0));
                    }
                }
            }
        }
        // Split ply 1 on 2 processes, b = 3, depth 2: rank 0 searches the
        // root's leftmost child, then takes the next child itself and hands
        // the last to the other process: 1 task out, 2 messages.
        let mut p = processes(&t, &root, 2, 1, 1024, 2);
        let s = run(&t, &mut p, Delivery::Timed);
        assert_eq!((s.value, p[0].own, p[0].handed, s.messages), (minimax(&t, &root, true, 2, 0), 1, 1, 2));
    }

    /// OthelloX's setting, an 8 × 8 position at depth 5, by default: more
    /// than one split point (the root and the PV node below it), and rank
    /// 0 searches tasks of its own beside handing them out, at P = 2 … 64.
    #[test]
    fn depth_5_splits_at_two_pv_nodes_and_rank_0_searches() {
        let pos = Position::parse("---------X------O-XOO---XOXXOO---XOXXXX-XXXOOX--O--OO------O---- O").unwrap();
        let want = minimax(&Othello, &pos, true, 5, 0);
        let split = default_split_ply(5);
        assert_eq!(split, 2);
        for procs in [2, 4, 8, 64] {
            for delivery in [Delivery::Timed, Delivery::Adversarial(7)] {
                let mut p = processes(&Othello, &pos, 5, split, DEFAULT_SLICE_NODES, procs);
                let s = run(&Othello, &mut p, delivery);
                assert_eq!(s.value, want, "{procs} {delivery:?}");
                assert_eq!(p[0].splits, 2);
                assert!(p[0].own >= 2, "rank 0 searched {} tasks on {procs}", p[0].own);
                assert!(p[0].handed >= 1);
            }
        }
    }

    /// The table's best move goes first, the others keep the source's order.
    #[test]
    fn the_leftmost_child_is_the_tables_move() {
        assert_eq!(leftmost_first(vec![10, 11, 12, 13], Some(2)), [12, 10, 11, 13]);
        assert_eq!(leftmost_first(vec![10, 11, 12], Some(0)), [10, 11, 12]);
        assert_eq!(leftmost_first(vec![10, 11, 12], None), [10, 11, 12]);
        assert_eq!(leftmost_first(vec![10, 11, 12], Some(7)), [10, 11, 12]);
        // Rank 0's PV is the baseline's: at depth 5 the root's leftmost
        // child is the best move of its search to depth 3 (internal
        // iterative deepening), the move the baseline searches first.
        let pos = Position::parse("---X-XX----XOOOO-XXXX-O-XXXXO-O---XXO-----O-X-------OOO--------- O").unwrap();
        let mut base = Searcher::<Othello>::new(1 << 10);
        base.search(&Othello, &pos, true, 3, 0, Window::ROOT);
        let first = base.best_move(&Othello, &pos, 0);
        assert!(first.is_some_and(|f| f > 0), "{first:?}: not the source's first move");
        let mut p: Procs<Othello> = processes(&Othello, &pos, 5, 2, 1024, 2);
        run(&Othello, &mut p, Delivery::Timed);
        let m = p[0].master.as_ref().expect("rank 0");
        assert_eq!(m.searcher.best_move(&Othello, &pos, 0), first);
    }

    /// Every split ply from 0 (rank 0 alone) past the depth, on
    /// incremental, artificial, chess and Othello trees, at every process
    /// count, in adversarial delivery orders and with tiny slices: the
    /// plain alpha-beta search's value.
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
            r#"{"game":"othello","set":"o","index":1,"id":"o1","position":"---X-XX----XOOOO-XXXX-O-XXXXO-O---XXO-----O-X-------OOO--------- O","depth":4}"#,
            "\n",
        );
        let trees = crate::tree::read_trees(crate::cli::Input::from_string("t", text)).unwrap();
        let mut handed = 0;
        for t in &trees {
            let want = t.search(&mut ()).value;
            for split in 0..=8 {
                for procs in [2, 3, 8, 64, 4096] {
                    for delivery in [Delivery::Timed, Delivery::Adversarial(1), Delivery::Adversarial(99)] {
                        for slice in [None, Some(3)] {
                            let settings = ClusterSettings { tt_slots: 1 << 10, delivery, ..ClusterSettings::default() };
                            let cfg = ClusterConfig { settings, ..ClusterConfig::new(PvSplit { split: Some(split), slice }, procs) };
                            let s = simulate(t, &cfg, Some(want)).unwrap_or_else(|e| panic!("{e}"));
                            assert_eq!(s.output.value, want, "split {split} on {procs}, {delivery:?}, slice {slice:?}");
                            handed += s.output.messages / 2;
                        }
                    }
                }
            }
        }
        assert!(handed > 1000, "{handed}");
    }

    #[test]
    fn a_closed_window_hands_out_nothing_more() {
        let mut n = SplitPoint { max: true, ply: 0, depth: 3, kids: vec![0u8, 1, 2], next: 1, out: 0, local: false, window: Window { alpha: 0, beta: 10 } };
        n.combine(4);
        assert_eq!((n.window, n.cut(), n.more(), n.finished()), (Window { alpha: 4, beta: 10 }, false, true, false));
        n.local = true;
        n.combine(12);
        assert_eq!((n.cut(), n.more(), n.finished(), n.value()), (true, false, false, 10));
        n.local = false;
        assert!(n.finished());
        let mut m = SplitPoint { max: false, ply: 1, depth: 2, kids: vec![0u8, 1], next: 2, out: 0, local: false, window: Window { alpha: 0, beta: 10 } };
        m.combine(7);
        assert_eq!((m.finished(), m.value()), (true, 7));
        m.combine(-3);
        assert_eq!((m.cut(), m.value()), (true, 0));
    }
}
