//! The hybrid machine (`docs/model.md` §9.8): threads inside each
//! process, messages between processes, as OthelloX tried (one process per
//! node, several threads per process). The root-splitting policies
//! ([`crate::cluster::algorithms::root_split`]) hand whole frontier nodes to their processes;
//! here a process searches each of them with one of `psearch`'s real-thread
//! searches ([`crate::request::real::search`]) on [`RankThreads::threads`] threads
//! instead of the sequential [`super::search::Searcher`].
//!
//! The real searches start at a MAX root at ply 0 with the full window. A
//! task is any frontier node: a MIN node at ply k, say. [`Rooted`] shows
//! the engines the task's subtree as a tree of their own, no engine
//! changed: its root is MAX (a MIN task's values mirrored on the score
//! scale, the negamax identity: `max` flipped at every node, every value
//! `v` read as `SCORE_MIN + SCORE_MAX - v`), and a game's plies counted from
//! the real root (a mate's value depends on its distance from it). The
//! inner search is exact; its value, mirrored back and clamped to the
//! task's window, keeps the fail-hard contract of [`TaskSearch`].

use crate::cluster::algorithm::TaskSearch;
use crate::game::{MoveList, TreeSource};
use crate::policy::Policy;
use crate::real::Options;
use crate::search::NodeCounts;
use crate::value::{SCORE_MAX, SCORE_MIN, Window};

/// The shared-memory search inside each process, and its threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankThreads {
    /// Threads per process (at least 2: one is the sequential search).
    pub threads: usize,
    /// The shared-memory policy the threads run (its defaults).
    pub policy: Policy,
}

/// The default policy of the threads: YBWC with work stealing, the
/// fastest of `psearch`'s exact searches on two cores (`BENCHMARKS.md`,
/// "psearch").
pub const DEFAULT_THREAD_POLICY: &str = "steal";

/// A value as the other side sees it: the score scale mirrored about its
/// middle (the search's infinities swap: `ROOT_ALPHA` ↔ `ROOT_BETA`).
#[inline(always)]
pub fn mirror(v: i64) -> i64 {
    (SCORE_MIN + SCORE_MAX) as i64 - v
}

/// A task's subtree as a tree with a MAX root at ply 0: `src` below a node
/// at ply `ply` whose side is MIN when `flip` (module doc).
pub struct Rooted<'s, S> {
    src: &'s S,
    ply: u32,
    flip: bool,
}

impl<'s, S: TreeSource> Rooted<'s, S> {
    /// The subtree of a node at `ply`, a MAX node if `max`.
    pub fn new(src: &'s S, max: bool, ply: u32) -> Rooted<'s, S> {
        Rooted { src, ply, flip: !max }
    }

    /// A value of this tree as the real tree's (and back: mirroring is its own inverse).
    #[inline(always)]
    pub fn value(&self, v: i64) -> i64 {
        if self.flip { mirror(v) } else { v }
    }
}

/// [`Rooted`]'s move list: the source's, with leaf values mirrored.
pub struct RootedMoves<'a, S: TreeSource + 'a> {
    moves: S::Moves<'a>,
    flip: bool,
}

impl<'a, S: TreeSource> MoveList<Rooted<'_, S>> for RootedMoves<'a, S> {
    type Handle = <S::Moves<'a> as MoveList<S>>::Handle;
    #[inline(always)]
    fn len(&self) -> u32 {
        self.moves.len()
    }
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Handle> {
        self.moves.next()
    }
    #[inline(always)]
    fn child(&mut self, parent: &S::Node, k: Self::Handle) -> S::Node {
        self.moves.child(parent, k)
    }
    #[inline(always)]
    fn leaf_value(&mut self, parent: &S::Node, k: Self::Handle) -> i64 {
        let v = self.moves.leaf_value(parent, k);
        if self.flip { mirror(v) } else { v }
    }
}

impl<S: TreeSource> TreeSource for Rooted<'_, S> {
    type Node = S::Node;
    type Slot = S::Slot;
    type Moves<'a>
        = RootedMoves<'a, S>
    where
        Self: 'a;
    type Cursor = S::Cursor;

    fn slots(&self) -> usize {
        self.src.slots()
    }
    #[inline(always)]
    fn moves<'a>(&'a self, node: &S::Node, max: bool, buf: &'a mut [S::Slot]) -> RootedMoves<'a, S> {
        RootedMoves { moves: self.src.moves(node, max != self.flip, buf), flip: self.flip }
    }
    #[inline(always)]
    fn horizon_value(&self, node: &S::Node, max: bool) -> i64 {
        self.value(self.src.horizon_value(node, max != self.flip))
    }
    #[inline(always)]
    fn terminal_value(&self, node: &S::Node, max: bool, ply: u32) -> i64 {
        self.value(self.src.terminal_value(node, max != self.flip, ply + self.ply))
    }
    fn detach(&self, m: RootedMoves<'_, S>) -> S::Cursor {
        self.src.detach(m.moves)
    }
    fn resume<'a>(&'a self, c: S::Cursor, buf: &'a mut [S::Slot]) -> RootedMoves<'a, S> {
        RootedMoves { moves: self.src.resume(c, buf), flip: self.flip }
    }
    fn handed_out(c: &S::Cursor) -> u32 {
        S::handed_out(c)
    }
    fn root_key(&self, node: &S::Node) -> u64 {
        self.src.root_key(node)
    }
    /// The real tree's key at the real ply: equal keys, equal subtrees.
    #[inline(always)]
    fn tt_key(&self, node: &S::Node, ply: u32) -> u64 {
        self.src.tt_key(node, ply + self.ply)
    }
}

/// A process's tasks searched on threads: [`RankThreads`], and what to do
/// if a search fails (a thread panicked: a defect; the MPI transport ends
/// the job with one line).
pub struct Threads<'a> {
    rank: RankThreads,
    fatal: &'a dyn Fn(&str),
}

impl<'a> Threads<'a> {
    /// Tasks searched as `rank` says; `fatal` is called with the message of
    /// a failed search and must not return (it panics if it does).
    pub fn new(rank: RankThreads, fatal: &'a dyn Fn(&str)) -> Threads<'a> {
        Threads { rank, fatal }
    }
}

impl<S: TreeSource> TaskSearch<S> for Threads<'_> {
    fn task(&mut self, src: &S, node: &S::Node, max: bool, depth: u32, ply: u32, w: Window) -> (i64, NodeCounts) {
        let r = Rooted::new(src, max, ply);
        let opts = Options { threads: self.rank.threads, node_cost_ns: 0, delays: None, trace: None };
        match crate::request::real::search(&r, node, depth, Some(self.rank.policy), &opts, None) {
            Ok(o) => {
                let counts = NodeCounts { nodes: o.nodes, leaves: o.leaves, internal: o.nodes - o.leaves };
                (r.value(o.value).clamp(w.alpha, w.beta), counts)
            }
            Err(e) => {
                (self.fatal)(&format!("a task's search on {} threads failed: {e}", self.rank.threads));
                panic!("a task's search failed: {e}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::search::Searcher;
    use crate::game::children;
    use crate::value::{ROOT_ALPHA, ROOT_BETA};

    /// Every node of the first plies of a tree as a task, each searched on
    /// threads through [`Rooted`] and by the sequential searcher in
    /// several windows: the same fail-hard values.
    fn same_values<S: TreeSource>(src: &S, root: &S::Node, depth: u32, plies: u32) -> usize {
        let algs: Vec<Policy> = ["steal", "dts", "lazy-smp", "pvsplit", "active"].iter().map(|a| a.parse().unwrap()).collect();
        let mut level = vec![(root.clone(), true)];
        let mut checked = 0;
        for ply in 0..=plies.min(depth) {
            for (node, max) in &level {
                let exact = Searcher::new(1 << 12).search(src, node, *max, depth - ply, ply, Window::ROOT);
                let windows = [
                    Window::ROOT,
                    Window { alpha: exact, beta: ROOT_BETA },
                    Window { alpha: ROOT_ALPHA, beta: exact },
                    Window { alpha: exact - 3, beta: exact + 3 },
                ];
                for (i, w) in windows.into_iter().enumerate() {
                    let want = Searcher::new(1 << 12).search(src, node, *max, depth - ply, ply, w);
                    let threads = 1 + i % 3;
                    let a = algs[(checked + i) % algs.len()];
                    let fatal = |m: &str| panic!("{m}");
                    let (got, counts) = Threads::new(RankThreads { threads, policy: a }, &fatal).task(src, node, *max, depth - ply, ply, w);
                    assert_eq!(got, want, "ply {ply}, max {max}, window {w:?}, {threads} threads of {}", a.name());
                    assert!(counts.nodes >= 1 && counts.internal + counts.leaves == counts.nodes);
                }
                checked += 1;
            }
            level = level.iter().flat_map(|(n, max)| children(src, n, *max).into_iter().map(move |c| (c, !max))).collect();
        }
        checked
    }

    #[test]
    fn mirroring_is_an_involution_that_swaps_the_infinities() {
        assert_eq!(mirror(ROOT_ALPHA), ROOT_BETA);
        assert_eq!(mirror(ROOT_BETA), ROOT_ALPHA);
        for v in [0, 1, 12345, SCORE_MAX as i64] {
            assert_eq!(mirror(mirror(v)), v);
        }
        assert!(mirror(5) > mirror(6));
    }

    #[test]
    fn min_tasks_on_threads_equal_the_sequential_search() {
        use crate::tree::artificial::{Model, Node, Ordering, Shape};
        use crate::tree::incremental::Incremental;
        let shape = Shape::new(Model::Exponential, Ordering::new(5, 60, 20).unwrap()).unwrap();
        for seed in [7, 8] {
            let root = Node { seed, pscore: crate::value::ROOT_PSCORE as u32 };
            assert_eq!(same_values(&shape, &root, 5, 2), 1 + 5 + 25);
        }
        let inc = Incremental::new(4, 100).unwrap();
        assert_eq!(same_values(&inc, &inc.root(11), 5, 2), 1 + 4 + 16);
    }

    #[test]
    fn chess_tasks_keep_their_distance_to_mates() {
        use crate::game::chess::{Chess, Position};
        // White mates at once (Qxf7#, Rd8#) and in lines below: a mate's
        // value depends on the real ply; every node of the first two plies
        // (the MIN ones after each white move) is checked.
        for fen in ["r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"] {
            let root = Position::parse(fen).unwrap();
            assert!(same_values(&Chess, &root, 3, 1) > 1);
        }
    }
}
