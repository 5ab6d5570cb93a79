//! The sequential alpha-beta search of the thesis (§2, §4.3; `docs/model.md` §2.1): minimax form, fail-hard, left to right, full window
//! ([`Window::ROOT`], `(SCORE_MIN - 1, SCORE_MAX + 1)`) at the root.
//!
//! The search walks any tree source ([`crate::game::TreeSource`]): the
//! artificial trees, chess or Othello (`docs/model.md` §7.1). A node with
//! no move before the horizon (a game over) is a leaf valued by the game.
//!
//! There is one search, [`alphabeta`], generic over [`Hooks`]: what a
//! search does besides alpha-beta (a table's probe and store, the move
//! order, giving up, node hooks). Every search of the project is a hook set
//! on it (`alphabeta.rs` lists them); [`search`] is the thesis's.
//!
//! What a tool wants to learn from the thesis's search (f_best, training
//! records, node classifications) is an [`Observer`]: the search calls
//! [`Observer::enter`] when it enters a node and [`Observer::leave`] when the
//! node returns, with the node's window and outcome. Observers are generic
//! parameters, so an observer's empty hooks cost nothing.

mod alphabeta;

pub use alphabeta::{Hooks, Order, Probe, alphabeta};

use crate::game::{MoveList, TreeSource};
use crate::value::{ROOT_ALPHA, ROOT_BETA, Window};

/// A node as the search enters it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    /// Distance from the root (the root is 0).
    pub ply: u32,
    /// 1-based position among its siblings in search order (0 for the root).
    pub index: u32,
    /// A MAX node (else MIN).
    pub max: bool,
    /// The window the node was entered with.
    pub window: Window,
    /// On the PV path (the root, its first child, that child's first child…).
    pub pv: bool,
    /// Remaining depth 0: a leaf.
    pub leaf: bool,
    /// Number of children (0 at a leaf).
    pub moves: u32,
}

/// How a node returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The value returned (fail-hard).
    pub value: i64,
    /// The 1-based move that caused a cut-off, if any.
    pub cutoff: Option<u32>,
    /// The 1-based move of the last score update, if any.
    pub last_update: Option<u32>,
    /// Moves searched.
    pub searched: u32,
}

impl Outcome {
    /// The move the node "records" for f_best: the cut-off move, else the
    /// last score update, else nothing.
    #[inline]
    pub fn best_move(&self) -> Option<u32> {
        self.cutoff.or(self.last_update)
    }
}

/// Watches a search. Every hook has an empty default.
pub trait Observer {
    /// The search enters a node (root, internal node or leaf).
    #[inline(always)]
    fn enter(&mut self, _v: &Visit) {}
    /// The node returns. Called for leaves too, after `enter`.
    #[inline(always)]
    fn leave(&mut self, _v: &Visit, _o: &Outcome) {}
    /// Whether the search should stop: every node then returns before its
    /// next child, and the result means nothing (an observer that ran out of
    /// memory for what it records; `trainset`).
    #[inline(always)]
    fn stopped(&self) -> bool {
        false
    }
}

/// An observer that watches nothing.
impl Observer for () {}

/// Two observers watching the same search.
impl<A: Observer, B: Observer> Observer for (A, B) {
    #[inline(always)]
    fn enter(&mut self, v: &Visit) {
        self.0.enter(v);
        self.1.enter(v);
    }
    #[inline(always)]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        self.0.leave(v, o);
        self.1.leave(v, o);
    }
}

/// Any number of observers of one type (for parameter sweeps).
impl<A: Observer> Observer for Vec<A> {
    #[inline(always)]
    fn enter(&mut self, v: &Visit) {
        self.iter_mut().for_each(|a| a.enter(v));
    }
    #[inline(always)]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        self.iter_mut().for_each(|a| a.leave(v, o));
    }
}

/// Node counts of one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeCounts {
    /// Every node entered: root, internal nodes and leaves.
    pub nodes: u64,
    /// Leaves entered.
    pub leaves: u64,
    /// Internal nodes entered (root included).
    pub internal: u64,
}

impl std::ops::Add for NodeCounts {
    type Output = NodeCounts;
    fn add(self, o: NodeCounts) -> NodeCounts {
        NodeCounts { nodes: self.nodes + o.nodes, leaves: self.leaves + o.leaves, internal: self.internal + o.internal }
    }
}

impl std::ops::Sub for NodeCounts {
    type Output = NodeCounts;
    /// The nodes counted between two moments of one searcher (`self` the
    /// later): what a slice or a task of it searched.
    fn sub(self, before: NodeCounts) -> NodeCounts {
        NodeCounts { nodes: self.nodes - before.nodes, leaves: self.leaves - before.leaves, internal: self.internal - before.internal }
    }
}

impl NodeCounts {
    /// Counts a node the search enters (`v.leaf`: a leaf, else internal).
    #[inline(always)]
    pub fn count(&mut self, v: &Visit) {
        self.nodes += 1;
        if v.leaf {
            self.leaves += 1;
        } else {
            self.internal += 1;
        }
    }
}

/// The result of searching one tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The root's minimax value.
    pub value: i64,
    /// Node counts.
    pub counts: NodeCounts,
}

/// The thesis's hook set: the observers, and the node counts (`nodes` is
/// their sum, made at the end: one count a node instead of two).
struct Counted<'o, O> {
    obs: &'o mut O,
    leaves: u64,
    internal: u64,
}

impl<O: Observer> Observer for Counted<'_, O> {
    #[inline(always)]
    fn enter(&mut self, v: &Visit) {
        self.obs.enter(v);
        if v.leaf {
            self.leaves += 1;
        } else {
            self.internal += 1;
        }
    }
    #[inline(always)]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        self.obs.leave(v, o);
    }
    #[inline(always)]
    fn stopped(&self) -> bool {
        self.obs.stopped()
    }
}

impl<S: TreeSource, O: Observer> Hooks<S> for Counted<'_, O> {}

/// Searches the tree of `src` rooted at `root` (a MAX node) to `depth`.
pub fn search<S: TreeSource, O: Observer>(src: &S, root: &S::Node, depth: u32, obs: &mut O) -> SearchResult {
    let mut buf = vec![S::Slot::default(); src.slots() * depth as usize];
    let mut h = Counted { obs, leaves: 0, internal: 0 };
    let v = Visit { ply: 0, index: 0, max: true, window: Window::ROOT, pv: true, leaf: depth == 0, moves: 0 };
    let value = alphabeta(src, &mut h, &mut buf, root, depth, v);
    let (leaves, internal) = (h.leaves, h.internal);
    SearchResult { value, counts: NodeCounts { nodes: leaves + internal, leaves, internal } }
}

/// Plain minimax of the tree (no pruning), for tests on small trees: the
/// value of `node` (a MAX node if `max`, at distance `ply` from the root)
/// searched to `depth`.
pub fn minimax<S: TreeSource>(src: &S, node: &S::Node, max: bool, depth: u32, ply: u32) -> i64 {
    if depth == 0 {
        return src.horizon_value(node, max);
    }
    let mut buf = vec![S::Slot::default(); src.slots()];
    let mut moves = src.moves(node, max, &mut buf);
    if moves.is_empty() {
        return src.terminal_value(node, max, ply);
    }
    let mut kids = vec![];
    while let Some(k) = moves.next() {
        kids.push(moves.child(node, k));
    }
    let vals = kids.into_iter().map(|c| minimax(src, &c, !max, depth - 1, ply + 1));
    if max { vals.max().unwrap_or(ROOT_ALPHA) } else { vals.min().unwrap_or(ROOT_BETA) }
}

#[cfg(test)]
mod tests;
