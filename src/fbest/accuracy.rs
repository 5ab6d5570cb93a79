//! Ordering accuracy (Ura, Tsuruoka and Chikayama 2014, §4.1 and their
//! Fig. 6; `docs/model.md` §7.8): the share of nodes whose best child by a
//! depth-k search is still the best child by a depth-(k + 2) search.
//!
//! A node "searched to depth k" is searched with its children to depth
//! k − 1; its best child is the one with the best value for the side to
//! move, the first in search order among equals. Each child is searched by
//! the sequential baseline of the cluster ([`crate::cluster::search`]:
//! iterative deepening and a table), whose fail-hard values are the plain
//! alpha-beta's: the same best child, found without the plain search's
//! cost on trees whose static order is poor (evaluation noise). The nodes measured are
//! every node at plies `0..plies` of each tree (the root, its children, …),
//! so that a handful of trees gives enough nodes. Any tree source can be
//! measured: the incremental trees (whose accuracy the paper reports), the
//! thesis's artificial trees and the games.

use crate::cluster::search::Searcher;
use crate::formats::AccuracyRow;
use crate::game::{MoveList, TreeSource};
use crate::tree::{SourceVisitor, Tree, TreeKey};
use crate::value::Window;
use rayon::prelude::*;

/// The counts of one tree: nodes measured and nodes whose best child stayed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    /// Nodes measured (internal nodes: a node without moves has no best child).
    pub nodes: u64,
    /// Those whose best child at depth k is also best at depth k + 2.
    pub kept: u64,
}

/// Table entries of the searcher of one tree's measure (1 MiB).
const SLOTS: usize = 1 << 16;

/// The 0-based search-order position of the best child of `node` searched
/// to `depth` (>= 1), the first among equals; `None` without moves. The
/// children are searched by `searcher` (its table kept between calls).
pub fn best_child<S: TreeSource>(src: &S, searcher: &mut Searcher<S>, node: &S::Node, max: bool, depth: u32, ply: u32) -> Option<usize> {
    let mut mine = vec![S::Slot::default(); src.slots()];
    let mut m = src.moves(node, max, &mut mine);
    let mut best: Option<(usize, i64)> = None;
    let mut i = 0;
    while let Some(h) = m.next() {
        let c = m.child(node, h);
        // Only a strictly better value matters: search with the window
        // bounded by the best so far, exact whenever the child improves it.
        let window = match best {
            None => Window::ROOT,
            Some((_, v)) => Window::ROOT.child(max, v),
        };
        let v = searcher.search(src, &c, !max, depth - 1, ply + 1, window);
        if best.is_none_or(|(_, b)| if max { v > b } else { v < b }) {
            best = Some((i, v));
        }
        i += 1;
    }
    best.map(|(i, _)| i)
}

/// Every node at plies `0..plies` below `root` (a MAX node): the node,
/// whether it is a MAX node, its ply.
fn nodes<S: TreeSource>(src: &S, root: &S::Node, plies: u32) -> Vec<(S::Node, bool, u32)> {
    let mut out = vec![];
    let mut level = vec![root.clone()];
    let mut buf = vec![S::Slot::default(); src.slots()];
    for ply in 0..plies {
        let max = ply % 2 == 0;
        let mut next = vec![];
        for n in &level {
            out.push((n.clone(), max, ply));
            if ply + 1 < plies {
                let mut m = src.moves(n, max, &mut buf);
                while let Some(h) = m.next() {
                    next.push(m.child(n, h));
                }
            }
        }
        level = next;
    }
    out
}

struct Measure {
    k: u32,
    plies: u32,
}

impl SourceVisitor for Measure {
    type Output = Kept;
    fn visit<S: TreeSource>(self, src: &S, root: &S::Node, _depth: u32) -> Kept {
        let mut kept = Kept::default();
        let mut s = Searcher::new(SLOTS);
        for (n, max, ply) in nodes(src, root, self.plies) {
            let (Some(a), Some(b)) = (best_child(src, &mut s, &n, max, self.k, ply), best_child(src, &mut s, &n, max, self.k + 2, ply)) else { continue };
            kept.nodes += 1;
            kept.kept += (a == b) as u64;
        }
        kept
    }
}

/// The counts of one tree.
pub fn tree_accuracy(t: &Tree, k: u32, plies: u32) -> Kept {
    t.visit(Measure { k, plies })
}

/// One row per group of trees (model, b, scale; the specs' depths are not
/// used), groups in order of first appearance; trees on all cores.
pub fn accuracy(trees: &[Tree], k: u32, plies: u32, progress: &crate::progress::Progress) -> Vec<AccuracyRow> {
    let per: Vec<Kept> = trees
        .par_iter()
        .map(|t| {
            let r = tree_accuracy(t, k, plies);
            progress.inc(1);
            r
        })
        .collect();
    let group = |t: &Tree| t.key().at_depth(0);
    let mut groups: Vec<(TreeKey, u32, Kept)> = vec![];
    for (t, r) in trees.iter().zip(&per) {
        let key = group(t);
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => {
                g.1 += 1;
                g.2.nodes += r.nodes;
                g.2.kept += r.kept;
            }
            None => groups.push((key, 1, *r)),
        }
    }
    groups
        .into_iter()
        .map(|(key, trees, c)| AccuracyRow {
            model: key.family().to_string(),
            b: key.b(),
            scale: key.scale(),
            trees,
            k,
            k2: k + 2,
            plies,
            nodes: c.nodes,
            kept: c.kept,
            accuracy: if c.nodes == 0 { 0.0 } else { c.kept as f64 / c.nodes as f64 },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::minimax;
    use crate::tree::incremental::{Incremental, Noise};

    /// The literal definition: every child's exact minimax value, the best
    /// for the side to move, the first among equals.
    fn reference_best<S: TreeSource>(src: &S, node: &S::Node, max: bool, depth: u32) -> usize {
        let mut buf = vec![S::Slot::default(); src.slots()];
        let mut m = src.moves(node, max, &mut buf);
        let mut vals = vec![];
        while let Some(h) = m.next() {
            vals.push(minimax(src, &m.child(node, h), !max, depth - 1, 1));
        }
        let best = if max { *vals.iter().max().unwrap() } else { *vals.iter().min().unwrap() };
        vals.iter().position(|&v| v == best).unwrap()
    }

    #[test]
    fn best_child_is_the_minimax_best() {
        // With and without evaluation noise; one searcher (its table) kept
        // across every call of a tree, as a measure keeps it.
        let noisy = |persist| Incremental::new(4, 100).unwrap().with_noise(Noise { step: 300, persist }).unwrap();
        for t in [Incremental::new(4, 100).unwrap(), noisy(0), noisy(500)] {
            for seed in 1..20 {
                let root = t.root(seed);
                let min_node = t.child(&root, true, 1);
                let mut s = Searcher::new(64);
                for depth in 1..6 {
                    assert_eq!(best_child(&t, &mut s, &root, true, depth, 0), Some(reference_best(&t, &root, true, depth)), "seed {seed} depth {depth}");
                    assert_eq!(
                        best_child(&t, &mut s, &min_node, false, depth, 1),
                        Some(reference_best(&t, &min_node, false, depth)),
                        "seed {seed} depth {depth}"
                    );
                }
            }
        }
    }

    #[test]
    fn accuracy_of_a_small_fixed_case() {
        // Eight b = 5 trees, k = 2 against 4, the root and its children:
        // the counts against the literal definition, and as numbers.
        let text: String = (1..=8)
            .map(|i| format!("{{\"set\":\"t\",\"index\":{i},\"seed\":{},\"model\":\"incremental\",\"b\":5,\"scale\":100,\"depth\":1}}\n", 1000 + i))
            .collect();
        let trees = crate::tree::read_trees(crate::cli::Input::from_string("t", &text)).unwrap();
        let mut want = Kept::default();
        for t in &trees {
            let crate::tree::Tree::Incremental(t) = t else { unreachable!() };
            for (n, max, _) in nodes(&t.source, &t.root, 2) {
                want.nodes += 1;
                want.kept += (reference_best(&t.source, &n, max, 2) == reference_best(&t.source, &n, max, 4)) as u64;
            }
        }
        let rows = accuracy(&trees, 2, 2, &crate::progress::Progress::hidden());
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].nodes, rows[0].kept), (want.nodes, want.kept));
        assert_eq!((rows[0].model.as_str(), rows[0].b, rows[0].scale, rows[0].nodes, rows[0].kept), ("incremental", Some(5), Some(100), 48, 31));
    }

    #[test]
    fn nodes_are_every_node_of_the_first_plies() {
        let t = Incremental::new(3, 100).unwrap();
        let n = nodes(&t, &t.root(1), 3);
        assert_eq!(n.len(), 1 + 3 + 9);
        assert_eq!(n.iter().filter(|x| !x.1).count(), 3);
        assert_eq!(n.iter().map(|x| x.2).collect::<Vec<_>>(), [0, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
    }
}
