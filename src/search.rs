//! The sequential alpha-beta search of the thesis (§2, §4.3; `docs/model.md` §2.1): minimax form, fail-hard, left to right, full window
//! `(SCORE_MIN - 1, SCORE_MAX + 1)` at the root.
//!
//! There is one search. What a tool wants to learn from it (f_best, training
//! records, node classifications) is an [`Observer`]: the search calls
//! [`Observer::enter`] when it enters a node and [`Observer::leave`] when the
//! node returns, with the node's window and outcome. Observers are generic
//! parameters, so an observer's empty hooks cost nothing.

use crate::tree::{Node, SCORE_MAX, SCORE_MIN, Shape};

/// The root window's lower end, `SCORE_MIN - 1`.
pub const ROOT_ALPHA: i64 = SCORE_MIN as i64 - 1;
/// The root window's upper end, `SCORE_MAX + 1`.
pub const ROOT_BETA: i64 = SCORE_MAX as i64 + 1;

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
    pub alpha: i64,
    /// The window the node was entered with.
    pub beta: i64,
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Every node entered: root, internal nodes and leaves.
    pub nodes: u64,
    /// Leaves entered.
    pub leaves: u64,
    /// Internal nodes entered (root included).
    pub internal: u64,
}

/// The result of searching one tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The root's minimax value.
    pub value: i64,
    /// Node counts.
    pub counts: Counts,
}

struct Ctx<'s, O> {
    shape: &'s Shape,
    obs: &'s mut O,
    counts: Counts,
}

/// Searches the tree of `shape` rooted at `root` (a MAX node) to `depth`.
pub fn search<O: Observer>(shape: &Shape, root: Node, depth: u32, obs: &mut O) -> SearchResult {
    let mut buf = vec![0u32; shape.b() * depth as usize];
    let mut ctx = Ctx { shape, obs, counts: Counts::default() };
    let v = Visit {
        ply: 0,
        index: 0,
        max: true,
        alpha: ROOT_ALPHA,
        beta: ROOT_BETA,
        pv: true,
        leaf: depth == 0,
        moves: if depth == 0 { 0 } else { shape.b() as u32 },
    };
    let value = alphabeta(&mut ctx, &mut buf, root, depth, v);
    SearchResult { value, counts: ctx.counts }
}

fn alphabeta<O: Observer>(ctx: &mut Ctx<'_, O>, buf: &mut [u32], node: Node, depth: u32, v: Visit) -> i64 {
    ctx.obs.enter(&v);
    ctx.counts.nodes += 1;
    if depth == 0 {
        ctx.counts.leaves += 1;
        let value = node.pscore as i64;
        ctx.obs.leave(&v, &Outcome { value, cutoff: None, last_update: None, searched: 0 });
        return value;
    }
    ctx.counts.internal += 1;
    let b = ctx.shape.b();
    let (mine, rest) = buf.split_at_mut(b);
    let mut moves = ctx.shape.moves(node, v.max, mine);
    let (alpha, beta) = (v.alpha, v.beta);
    let mut score = if v.max { alpha } else { beta };
    let mut cutoff = None;
    let mut last_update = None;
    let mut searched = 0;
    let child_moves = if depth > 1 { b as u32 } else { 0 };
    while let Some((k, pscore)) = moves.next() {
        searched += 1;
        let child = Node { seed: if depth > 1 { moves.seed(k) } else { 0 }, pscore };
        let (ca, cb) = if v.max { (score, beta) } else { (alpha, score) };
        let cv = Visit { ply: v.ply + 1, index: searched, max: !v.max, alpha: ca, beta: cb, pv: v.pv && searched == 1, leaf: depth == 1, moves: child_moves };
        let value = if depth == 1 {
            // Leaves inline: no recursion, no buffer split.
            ctx.obs.enter(&cv);
            ctx.counts.nodes += 1;
            ctx.counts.leaves += 1;
            let value = pscore as i64;
            ctx.obs.leave(&cv, &Outcome { value, cutoff: None, last_update: None, searched: 0 });
            value
        } else {
            alphabeta(ctx, rest, child, depth - 1, cv)
        };
        if v.max {
            if value >= beta {
                score = beta;
                cutoff = Some(searched);
                break;
            }
            if value > score {
                score = value;
                last_update = Some(searched);
            }
        } else {
            if value <= alpha {
                score = alpha;
                cutoff = Some(searched);
                break;
            }
            if value < score {
                score = value;
                last_update = Some(searched);
            }
        }
    }
    ctx.obs.leave(&v, &Outcome { value: score, cutoff, last_update, searched });
    score
}

/// Plain minimax of the tree (no pruning), for tests on small trees.
pub fn minimax(shape: &Shape, node: Node, max: bool, depth: u32) -> i64 {
    if depth == 0 {
        return node.pscore as i64;
    }
    let mut buf = vec![0u32; shape.b()];
    let mut moves = shape.moves(node, max, &mut buf);
    let mut kids = vec![];
    while let Some((k, _)) = moves.next() {
        kids.push(moves.child(k));
    }
    let vals = kids.into_iter().map(|c| minimax(shape, c, !max, depth - 1));
    if max { vals.max().unwrap_or(ROOT_ALPHA) } else { vals.min().unwrap_or(ROOT_BETA) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{Model, Ordering, ROOT_PSCORE};

    #[test]
    fn root_value_is_minimax_and_pscore() {
        for o in [Ordering::new(3, 50, 50).unwrap(), Ordering::new(4, 0, 0).unwrap(), Ordering::new(2, 100, 0).unwrap()] {
            let shape = Shape::new(Model::Exponential, o).unwrap();
            for seed in 1..40u32 {
                let root = Node { seed: seed * 7919, pscore: ROOT_PSCORE as u32 };
                for depth in 0..5 {
                    let r = search(&shape, root, depth, &mut ());
                    assert_eq!(r.value, ROOT_PSCORE as i64);
                    assert_eq!(r.value, minimax(&shape, root, true, depth));
                    assert_eq!(r.counts.nodes, r.counts.leaves + r.counts.internal);
                }
            }
        }
    }

    #[test]
    fn full_tree_without_pruning_at_random_ordering_depth_one() {
        // Depth 1: the root searches all b leaves unless a leaf reaches beta,
        // which cannot happen with the root window.
        let shape = Shape::new(Model::Exponential, Ordering::new(5, 0, 0).unwrap()).unwrap();
        let r = search(&shape, Node { seed: 99, pscore: 1000 }, 1, &mut ());
        assert_eq!(r.counts, Counts { nodes: 6, leaves: 5, internal: 1 });
    }
}
