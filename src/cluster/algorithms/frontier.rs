//! The frontier the root-splitting baselines share: every node at one ply
//! below the root, in the source's order, and the minimax backup of their
//! values to the root.

use crate::game::TreeSource;

/// A frontier node: the position, whose move it is, its ply.
#[derive(Clone, Debug)]
pub struct Leaf<N> {
    /// The position.
    pub node: N,
    /// Whose move.
    pub max: bool,
    /// Its ply (the frontier's, or less where the game ended earlier).
    pub ply: u32,
}

/// Every node at ply `split` below `root` (a MAX node) in the source's
/// order (a node without moves above it is a frontier node of its own),
/// and the internal nodes expanded to reach them.
pub fn frontier<S: TreeSource>(src: &S, root: &S::Node, split: u32) -> (Vec<Leaf<S::Node>>, u64) {
    let mut out = vec![];
    let mut expanded = 0;
    walk(src, root, true, 0, split, &mut out, &mut expanded);
    (out, expanded)
}

/// The children of `node` above the split ply (none at or below it, or at a
/// game's end): the frontier's walk and its backing-up walk the same tree.
fn children<S: TreeSource>(src: &S, node: &S::Node, max: bool, ply: u32, split: u32) -> Vec<S::Node> {
    if ply < split { crate::game::children(src, node, max) } else { vec![] }
}

fn walk<S: TreeSource>(src: &S, node: &S::Node, max: bool, ply: u32, split: u32, out: &mut Vec<Leaf<S::Node>>, expanded: &mut u64) {
    let kids = children(src, node, max, ply, split);
    if kids.is_empty() {
        out.push(Leaf { node: node.clone(), max, ply });
        return;
    }
    *expanded += 1;
    for k in &kids {
        walk(src, k, !max, ply + 1, split, out, expanded);
    }
}

/// The root's value from its frontier's exact values, in frontier order.
pub fn back_up<S: TreeSource>(src: &S, root: &S::Node, split: u32, values: &[i64]) -> i64 {
    let mut it = values.iter().copied();
    up(src, root, true, 0, split, &mut it)
}

fn up<S: TreeSource>(src: &S, node: &S::Node, max: bool, ply: u32, split: u32, values: &mut impl Iterator<Item = i64>) -> i64 {
    let kids = children(src, node, max, ply, split);
    if kids.is_empty() {
        return values.next().unwrap_or(0);
    }
    let vals = kids.iter().map(|k| up(src, k, !max, ply + 1, split, values)).collect::<Vec<_>>();
    if max { vals.into_iter().max().unwrap_or(0) } else { vals.into_iter().min().unwrap_or(0) }
}

/// Plies of at most this many nodes are counted by [`size`]; beyond, it
/// extrapolates.
const COUNTED: usize = 1 << 14;

/// How many nodes the frontier at ply `split` has (as [`frontier`] builds
/// it), without building it: counted ply by ply while a ply has at most
/// 2^14 nodes (`COUNTED`), then extrapolated with the mean moves per node of the
/// nodes expanded last (exact on trees of uniform branching; on a game,
/// what the tree really has near the root). Milliseconds at any ply, for
/// the memory estimate ([`crate::cluster::memory`]).
pub fn size<S: TreeSource>(src: &S, root: &S::Node, split: u32) -> u64 {
    let mut level = vec![(root.clone(), true)];
    // Nodes without moves above the split ply: frontier nodes of their own.
    let mut ended = 0u64;
    for ply in 0..split {
        let mut next = vec![];
        for (i, (n, max)) in level.iter().enumerate() {
            let kids = crate::game::children(src, n, *max);
            if kids.is_empty() {
                ended += 1;
            }
            next.extend(kids.into_iter().map(|k| (k, !max)));
            if next.len() > COUNTED {
                // The moves per node so far, for this ply and every one below.
                let rate = next.len() as f64 / (i + 1) as f64;
                let est = level.len() as f64 * rate.powi((split - ply) as i32);
                // `as` saturates: a frontier beyond 2^64 nodes is refused anyway.
                return ended.saturating_add(est as u64);
            }
        }
        level = next;
    }
    ended + level.len() as u64
}

/// The default split ply for `procs` processes: the shallowest ply with at
/// least `procs` frontier nodes (at most `depth`; at least 1).
pub fn default_split<S: TreeSource>(src: &S, root: &S::Node, depth: u32, procs: usize) -> u32 {
    let mut s = 1;
    while s < depth && frontier(src, root, s).0.len() < procs {
        s += 1;
    }
    s.min(depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{SourceVisitor, read_trees};

    /// (counted size, built size) at each split ply of `plies`.
    struct Sizes(Vec<u32>);

    impl SourceVisitor for Sizes {
        type Output = Vec<(u64, u64)>;
        fn visit<S: TreeSource>(self, src: &S, root: &S::Node, _: u32) -> Vec<(u64, u64)> {
            self.0.iter().map(|&s| (size(src, root, s), frontier(src, root, s).0.len() as u64)).collect()
        }
    }

    #[test]
    fn sizes_are_counted_near_the_root_and_extrapolated_below() {
        let text = concat!(
            r#"{"set":"t","index":1,"seed":7,"model":"incremental","b":5,"scale":100,"depth":18}"#,
            "\n",
            r#"{"game":"chess","set":"bk","index":1,"id":"BK.01","position":"1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1","depth":4}"#,
            "\n"
        );
        let trees = read_trees(crate::cli::Input::from_string("t", text)).unwrap();
        // b = 5: exact where counted (5^6 = 15,625 nodes) and where
        // extrapolated (5^7 and deeper; 5^18, every leaf, is never built).
        for (s, (counted, built)) in (0..=7).zip(trees[0].visit(Sizes((0..=7).collect()))) {
            assert_eq!((counted, built), (5u64.pow(s), 5u64.pow(s)), "split {s}");
        }
        struct Deep;
        impl SourceVisitor for Deep {
            type Output = u64;
            fn visit<S: TreeSource>(self, src: &S, root: &S::Node, _: u32) -> u64 {
                size(src, root, 18)
            }
        }
        assert_eq!(trees[0].visit(Deep), 5u64.pow(18));
        // A chess position: its moves vary from node to node; its frontier
        // is counted exactly up to a ply of 16,384 nodes (40 and 1,764),
        // and beyond extrapolated from the nodes expanded last: 64,086
        // for 63,181 at ply 3.
        assert_eq!(trees[1].visit(Sizes(vec![1, 2, 3])), [(40, 40), (1764, 1764), (64086, 63181)]);
    }
}
