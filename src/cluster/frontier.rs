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

/// The default split ply for `procs` processes: the shallowest ply with at
/// least `procs` frontier nodes (at most `depth`; at least 1).
pub fn default_split<S: TreeSource>(src: &S, root: &S::Node, depth: u32, procs: usize) -> u32 {
    let mut s = 1;
    while s < depth && frontier(src, root, s).0.len() < procs {
        s += 1;
    }
    s.min(depth)
}
