//! The master's tree of Ura, Tsuruoka and Chikayama's (2014) master-worker
//! (§3: "the master stores its search tree in memory; moves are generated
//! only once at a node"), kept compact: a node is one fixed-size record,
//! the children of a node are contiguous (they are generated together), so
//! a node names them by its first child's id and their count, and the order
//! of the last pass is a permutation spread over the children themselves
//! (two bytes each). Ids never change: they name the task leaves in the
//! workers' reports. Shallow results live in a side table, only for the
//! leaves that received one, deepest first. [`master_memory`] estimates the
//! whole for a tree size before a run.

use crate::game::{MoveList, TreeSource};
use crate::value::{ROOT_ALPHA, ROOT_BETA};

/// A node's value before its first visit (no order information).
pub(super) const UNSEEN: i64 = i64::MIN;

/// A node of the master's tree.
pub(super) struct MNode<N> {
    /// The position.
    pub node: N,
    /// The value of its last visit ([`UNSEEN`]: never visited): the order.
    pub est: i64,
    /// Bounds on its value at full depth, from decided results.
    pub lo: i64,
    pub hi: i64,
    /// Its first child's id (0: not expanded; the root, id 0, is no one's
    /// child, and a node without moves has a nonzero `first`, no kids).
    pub first: u32,
    /// A task leaf's worker (0: none yet).
    pub owner: u32,
    /// A task leaf's shallow results, an index into [`MTree::shallow`]
    /// (0: none yet).
    pub shallow: u32,
    /// Its number of children (at most 65,535: every tree family here has
    /// far fewer moves).
    pub kids: u16,
    /// Its share of the parent's order: the child ranked r-th in the last
    /// pass is `first + nodes[first + r].order` (a permutation of the
    /// children kept in the children's own records).
    pub order: u16,
    /// Its distance from the root.
    pub ply: u32,
    /// Full-depth results received (saturating).
    pub tries: u8,
    /// Whether MAX is to move.
    pub max: bool,
}

/// A leaf's shallow results: (depth, lower, upper bound), deepest first.
pub(super) type Shallow = Vec<(u32, i64, i64)>;

/// The master's tree: the nodes (id = index) and the shallow results.
pub(super) struct MTree<N> {
    pub nodes: Vec<MNode<N>>,
    /// Entry 0 unused (a node's `shallow` 0 is "none").
    pub shallow: Vec<Shallow>,
}

impl<N: Clone> MTree<N> {
    /// A tree of its root alone.
    pub fn new(root: &N) -> MTree<N> {
        MTree { nodes: vec![MNode::new(root.clone(), true, 0)], shallow: vec![vec![]] }
    }

    /// Whether node `i`'s moves have been generated.
    pub fn expanded(&self, i: usize) -> bool {
        self.nodes[i].first != 0
    }

    /// Generates node `i`'s children, in the source's order.
    pub fn expand<S: TreeSource<Node = N>>(&mut self, src: &S, i: usize) {
        let mut buf = vec![S::Slot::default(); src.slots()];
        let (node, max, ply) = (self.nodes[i].node.clone(), self.nodes[i].max, self.nodes[i].ply);
        let first = self.nodes.len();
        let mut m = src.moves(&node, max, &mut buf);
        while let Some(h) = m.next() {
            let mut c = MNode::new(m.child(&node, h), !max, ply + 1);
            c.order = u16::try_from(self.nodes.len() - first).unwrap_or(u16::MAX);
            self.nodes.push(c);
        }
        let kids = u16::try_from(self.nodes.len() - first).unwrap_or(u16::MAX);
        let n = &mut self.nodes[i];
        (n.first, n.kids) = (first as u32, kids);
    }

    /// Node `i`'s child ranked `r` in the current order.
    pub fn child(&self, i: usize, r: usize) -> usize {
        let first = self.nodes[i].first as usize;
        first + self.nodes[first + r].order as usize
    }

    /// Orders node `i`'s children by their last visit's values, best first
    /// for the side to move, those never visited last; ties keep the last
    /// order (an insertion sort of the permutation in place: a handful of
    /// children, nearly sorted from the last pass).
    pub fn sort_children(&mut self, i: usize) {
        let (first, k, max) = (self.nodes[i].first as usize, self.nodes[i].kids as usize, self.nodes[i].max);
        let key = |nodes: &[MNode<N>], r: usize| match nodes[first + nodes[first + r].order as usize].est {
            UNSEEN => (1, 0),
            v => (0, if max { -v } else { v }),
        };
        for r in 1..k {
            let mut j = r;
            while j > 0 && key(&self.nodes, j - 1) > key(&self.nodes, j) {
                let (a, b) = (self.nodes[first + j - 1].order, self.nodes[first + j].order);
                (self.nodes[first + j - 1].order, self.nodes[first + j].order) = (b, a);
                j -= 1;
            }
        }
    }

    /// Leaf `i`'s shallow results, deepest first.
    pub fn shallow(&self, i: usize) -> &[(u32, i64, i64)] {
        &self.shallow[self.nodes[i].shallow as usize]
    }

    /// Adds bounds `(lo, hi)` from a search of leaf `i` to `depth` (short of
    /// the full depth): narrowed with the bounds of that depth if any.
    pub fn add_shallow(&mut self, i: usize, depth: u32, lo: i64, hi: i64) {
        if self.nodes[i].shallow == 0 {
            self.nodes[i].shallow = self.shallow.len() as u32;
            self.shallow.push(vec![]);
        }
        let s = &mut self.shallow[self.nodes[i].shallow as usize];
        match s.iter().position(|e| e.0 <= depth) {
            Some(p) if s[p].0 == depth => s[p] = (depth, s[p].1.max(lo), s[p].2.min(hi)),
            Some(p) => s.insert(p, (depth, lo, hi)),
            None => s.push((depth, lo, hi)),
        }
    }

    /// The bytes the tree takes: its node records and shallow results (the
    /// vectors' capacities, as allocated).
    pub fn bytes(&self) -> u64 {
        let lists: usize = self.shallow.iter().map(|s| s.capacity() * std::mem::size_of::<(u32, i64, i64)>()).sum();
        (self.nodes.capacity() * std::mem::size_of::<MNode<N>>() + self.shallow.capacity() * std::mem::size_of::<Shallow>() + lists) as u64
    }
}

impl<N> MNode<N> {
    fn new(node: N, max: bool, ply: u32) -> MNode<N> {
        MNode { node, est: UNSEEN, lo: ROOT_ALPHA, hi: ROOT_BETA, first: 0, owner: 0, shallow: 0, kids: 0, order: 0, ply, tries: 0, max }
    }
}

/// Bytes per node of the master's tree for positions of type `N`: its
/// record.
pub fn master_node_bytes<N>() -> u64 {
    std::mem::size_of::<MNode<N>>() as u64
}

/// How many times the nodes of the minimal tree to d' (with every child of
/// its internal nodes stored) the master's tree holds at the end of a run:
/// the most measured on b = 5 incremental trees, 2.5 (d = 16, d' = 8,
/// P = 1,536; 1.7 and 1.6 on the others measured), rounded up.
pub const MASTER_TREE_FACTOR: u64 = 3;

/// Bytes of shallow results a task leaf holds at most: the list's header
/// and one entry per shallow depth a worker reports (every other depth).
fn shallow_bytes(task_depth: u32) -> u64 {
    (std::mem::size_of::<Shallow>() + (task_depth as usize).div_ceil(2) * std::mem::size_of::<(u32, i64, i64)>()) as u64
}

/// An up-front estimate of the master's memory, bytes, for a uniform tree
/// of branching `b` searched to `depth` with master depth `master_depth`
/// on `procs` processes, positions of type `N`. It assumes the master's
/// tree holds [`MASTER_TREE_FACTOR`] times the nodes the minimal tree to
/// d' needs with every child of its internal nodes stored (b^⌈k/2⌉ +
/// b^⌊k/2⌋ − 1 nodes at ply k), twice that for the vector's spare
/// capacity; that as many leaves times the factor hold a shallow result of
/// every depth; and four words of load bookkeeping per process.
pub fn master_memory<N>(b: u64, depth: u32, master_depth: u32, procs: usize) -> u64 {
    let dm = master_depth.min(depth);
    let pow = |k: u32| b.saturating_pow(k);
    let minimal = |k: u32| pow(k.div_ceil(2)).saturating_add(pow(k / 2)).saturating_sub(1);
    let internal: u64 = (0..dm).map(minimal).fold(0, u64::saturating_add);
    let stored = internal.saturating_mul(b).saturating_add(1).saturating_mul(MASTER_TREE_FACTOR);
    let leaves = minimal(dm).saturating_mul(MASTER_TREE_FACTOR);
    stored.saturating_mul(2 * master_node_bytes::<N>()).saturating_add(leaves.saturating_mul(shallow_bytes(depth - dm))).saturating_add(32 * procs as u64)
}
