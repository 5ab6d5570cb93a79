//! Training patterns for the node-classification network (thesis §5.3; `docs/model.md` §2.3 and §3.1).
//!
//! [`NodeRecorder`] is the search observer that reports, at every internal
//! node, its address, type value `t` (50: cut off; 0: updated its score
//! without cutting off; 100: neither), wait value `u` (the cut-off move, else
//! the last score update, else 0) and PV flag. [`patterns`] averages `t` and
//! `u` per address over all trees in which the node was entered and maps
//! every parent to each of its seen children off the PV path (scheme C takes
//! an N-PV node's type from the root, not from the network). Sums are
//! integers, so the averages do not depend on the order in which trees
//! finish.

use crate::formats::{PatternRow, Tree};
use crate::search::{Observer, Outcome, Visit};

/// Why a training set could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrainsetError {
    /// No trees in the input.
    #[error("no trees")]
    NoTrees,
    /// Trees of two orderings or depths.
    #[error("a training set is for one ordering and depth: tree {tree} of set {set} is {this}, the first is {first}")]
    Mixed {
        /// The offending tree's index in its set.
        tree: u32,
        /// Its seed set.
        set: String,
        /// Its model, ordering and depth.
        this: String,
        /// The first tree's model, ordering and depth.
        first: String,
    },
    /// Trees too shallow to have parents with internal children.
    #[error("training needs trees of depth 2 or more (parents with internal children), got depth {0}")]
    TooShallow(u32),
    /// A broken invariant of the averaging (a bug, never an input's fault).
    #[error("internal error: {0}")]
    Internal(String),
}
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Type value of a node that cut off.
pub const T_CUT: u32 = 50;
/// Type value of a node that updated its score and did not cut off.
pub const T_UPDATED: u32 = 0;
/// Type value of a node that did neither.
pub const T_NEITHER: u32 = 100;

/// One internal node's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// `(p_1, ..., p_(D-1))`: 1-based move indices from the root, 0 for
    /// levels not reached.
    pub address: Vec<u32>,
    /// Type value.
    pub t: u32,
    /// Wait value.
    pub u: u32,
    /// On the PV path.
    pub pv: bool,
}

/// The node's type value from its outcome.
pub fn type_value(o: &Outcome) -> u32 {
    if o.cutoff.is_some() {
        T_CUT
    } else if o.last_update.is_some() {
        T_UPDATED
    } else {
        T_NEITHER
    }
}

/// Collects a [`Record`] at every internal node of a search of depth `D`.
#[derive(Clone, Debug)]
pub struct NodeRecorder {
    path: Vec<u32>,
    /// Records in the order the nodes returned.
    pub records: Vec<Record>,
    /// The most moves at any internal node (a game's index range).
    pub max_moves: u32,
}

impl NodeRecorder {
    /// A recorder for a search of `depth` (addresses of `depth - 1` levels).
    pub fn new(depth: u32) -> NodeRecorder {
        NodeRecorder { path: vec![0; depth.saturating_sub(1) as usize], records: vec![], max_moves: 0 }
    }
}

impl Observer for NodeRecorder {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if !v.leaf && v.ply >= 1 {
            self.path[v.ply as usize - 1] = v.index;
        }
    }
    #[inline]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        if v.leaf {
            return;
        }
        self.max_moves = self.max_moves.max(v.moves);
        // Deeper components still hold the last child's path: zero them.
        let mut address = self.path.clone();
        address[v.ply as usize..].iter_mut().for_each(|p| *p = 0);
        self.records.push(Record { address, t: type_value(o), u: o.best_move().unwrap_or(0), pv: v.pv });
    }
}

/// Sums over the trees in which one address was entered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acc {
    /// Sum of type values.
    pub t: u64,
    /// Sum of wait values.
    pub u: u64,
    /// Trees.
    pub count: u64,
    /// On the PV path.
    pub pv: bool,
}

impl Acc {
    /// Averaged type.
    pub fn t_avg(&self) -> f64 {
        self.t as f64 / self.count as f64
    }
    /// Averaged wait.
    pub fn u_avg(&self) -> f64 {
        self.u as f64 / self.count as f64
    }
}

/// Per-address sums, keyed by (level, address): level-then-address order.
pub type Averages = BTreeMap<(u32, Vec<u32>), Acc>;

/// The level of an address: its number of non-zero components.
fn level(address: &[u32]) -> u32 {
    address.iter().take_while(|&&p| p != 0).count() as u32
}

/// Searches every tree (on all cores) and sums the records per address.
pub fn averages(trees: &[Tree]) -> Averages {
    averages_and_moves(trees).0
}

/// [`averages`], and the most moves at any internal node of the trees.
fn averages_and_moves(trees: &[Tree]) -> (Averages, u32) {
    let per_tree: Vec<(Vec<Record>, u32)> = trees
        .par_iter()
        .map(|t| {
            let mut r = NodeRecorder::new(t.depth());
            t.search(&mut r);
            (r.records, r.max_moves)
        })
        .collect();
    let max_moves = per_tree.iter().map(|p| p.1).max().unwrap_or(0);
    let mut map = Averages::new();
    for (recs, _) in per_tree {
        for r in recs {
            let a = map.entry((level(&r.address), r.address)).or_default();
            a.t += r.t as u64;
            a.u += r.u as u64;
            a.count += 1;
            a.pv = r.pv;
        }
    }
    (map, max_moves)
}

fn address_string(a: &[u32]) -> String {
    a.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(".")
}

/// The training set of `docs/model.md` §3.1 from the trees of one ordering
/// (or one game) and depth: the root row first, then one pattern per seen
/// (parent, child) pair by the child's level, then address, except the
/// pairs whose child is on the PV path (address 1, (1,1), ...): their type
/// is never predicted. For a game, `b` is the most moves at any internal
/// node of the trees: the network's index and wait range.
pub fn patterns(trees: &[Tree]) -> Result<Vec<PatternRow>, TrainsetError> {
    let Some(first) = trees.first() else { return Err(TrainsetError::NoTrees) };
    let key = first.key();
    for t in trees {
        if t.key() != key {
            return Err(TrainsetError::Mixed { tree: t.index(), set: t.set().to_string(), this: t.key().to_string(), first: key.to_string() });
        }
    }
    let depth = key.depth();
    if depth < 2 {
        return Err(TrainsetError::TooShallow(depth));
    }
    let (map, max_moves) = averages_and_moves(trees);
    let (b, wa, wb) = match key.ordering() {
        Some(o) => (o.b, Some(o.wa), Some(o.wb)),
        None => (max_moves, None, None),
    };
    let row = |level: u32, parent: String, pv: bool, ty: f64, index: u32, child: &Acc| PatternRow {
        model: key.family(),
        b,
        wa,
        wb,
        level,
        parent,
        pv: pv as u8,
        ty,
        index,
        child_type: child.t_avg(),
        child_wait: child.u_avg(),
        count: child.count,
    };
    let root_key = (0, vec![0; depth as usize - 1]);
    let root = map.get(&root_key).copied().ok_or_else(|| TrainsetError::Internal("the root was not recorded".into()))?;
    let mut rows = vec![row(0, String::new(), true, root.t_avg(), 0, &root)];
    for ((lvl, addr), child) in map.range((1, vec![])..) {
        // A child on the PV path gives no pattern: scheme C never asks the
        // network for an N-PV node's type (it keeps the root's), and the
        // three type-0 targets beside the index-2 targets of 34-39 only
        // bend the network's map where non-PV nodes need it
        // (docs/decisions.md, issue 10).
        if child.pv {
            continue;
        }
        let l = *lvl as usize;
        let mut parent = addr.clone();
        parent[l - 1] = 0;
        let p =
            map.get(&(lvl - 1, parent.clone())).ok_or_else(|| TrainsetError::Internal(format!("address {} has no recorded parent", address_string(addr))))?;
        rows.push(row(*lvl, address_string(&parent), p.pv, p.t_avg(), addr[l - 1], child));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::TreeSpec;
    use crate::search::search;
    use crate::tree::{Model, Node, Ordering, Shape};

    fn tree(b: u32, wa: u32, wb: u32, seed: u64, depth: u32) -> Tree {
        TreeSpec { set: "t".into(), index: 1, seed, pscore: 1000, model: Model::Exponential, b, wa, wb, depth }.check().unwrap()
    }

    #[test]
    fn records_address_type_wait_pv() {
        let mut r = NodeRecorder::new(4);
        let v = |ply, index, pv, leaf| Visit { ply, index, max: ply % 2 == 0, alpha: 0, beta: 9, pv, leaf, moves: 2 };
        let none = Outcome { value: 0, cutoff: None, last_update: None, searched: 2 };
        // root -> child 2 -> child 1 -> leaf 1; then child 2's second child.
        r.enter(&v(0, 0, true, false));
        r.enter(&v(1, 2, false, false));
        r.enter(&v(2, 1, false, false));
        r.enter(&v(3, 1, false, false));
        r.enter(&v(3, 1, false, true));
        r.leave(&v(3, 1, false, true), &none);
        r.leave(&v(3, 1, false, false), &Outcome { cutoff: Some(1), ..none });
        r.leave(&v(2, 1, false, false), &Outcome { last_update: Some(2), ..none });
        r.enter(&v(2, 2, false, false));
        r.leave(&v(2, 2, false, false), &none);
        r.leave(&v(1, 2, false, false), &Outcome { cutoff: Some(2), last_update: Some(1), ..none });
        r.leave(&v(0, 0, true, false), &Outcome { last_update: Some(2), ..none });
        let got: Vec<(Vec<u32>, u32, u32, bool)> = r.records.into_iter().map(|r| (r.address, r.t, r.u, r.pv)).collect();
        assert_eq!(
            got,
            vec![
                (vec![2, 1, 1], 50, 1, false),
                (vec![2, 1, 0], 0, 2, false),
                (vec![2, 2, 0], 100, 0, false),
                (vec![2, 0, 0], 50, 2, false),
                (vec![0, 0, 0], 0, 2, true),
            ]
        );
    }

    /// Every internal node entered gives one record, and the root's count is
    /// the number of trees.
    #[test]
    fn averages_cover_every_internal_node() {
        let trees: Vec<Tree> = (1..=7).map(|s| tree(3, 60, 20, s * 1_000_003, 4)).collect();
        let map = averages(&trees);
        let internal: u64 = trees.iter().map(|t| t.search(&mut ()).counts.internal).sum();
        assert_eq!(map.values().map(|a| a.count).sum::<u64>(), internal);
        assert_eq!(map[&(0, vec![0, 0, 0])].count, 7);
        // Only the PV path is PV.
        for ((l, a), acc) in &map {
            assert_eq!(acc.pv, a[..*l as usize].iter().all(|&p| p == 1), "{a:?}");
            assert!(acc.t % 50 == 0 || acc.count > 1);
        }
    }

    #[test]
    fn patterns_map_parents_to_children_in_stable_order() {
        let trees: Vec<Tree> = (1..=20).map(|s| tree(4, 70, 10, s * 7919, 4)).collect();
        let rows = patterns(&trees).unwrap();
        let map = averages(&trees);
        // The root row, plus one pattern per address that is neither the
        // root nor on the PV path: (1,0,0), (1,1,0) and (1,1,1) give none.
        assert_eq!(rows.len(), map.len() - 3, "one root row plus one pattern per non-root, non-PV address");
        assert_eq!((rows[0].level, rows[0].index, rows[0].parent.as_str()), (0, 0, ""));
        assert_eq!(rows[0].count, 20);
        assert_eq!(rows[0].child_type, map[&(0, vec![0, 0, 0])].t_avg());
        for w in rows.windows(2) {
            assert!(w[0].level <= w[1].level);
        }
        let r = rows.iter().find(|r| r.level == 2 && r.parent == "1.0.0" && r.index == 2).unwrap();
        assert_eq!(r.pv, 1);
        assert_eq!(r.ty, map[&(1, vec![1, 0, 0])].t_avg());
        assert_eq!(r.child_type, map[&(2, vec![1, 2, 0])].t_avg());
        assert_eq!(r.child_wait, map[&(2, vec![1, 2, 0])].u_avg());
        // Same trees in another order: the same rows.
        let mut rev = trees.clone();
        rev.reverse();
        assert_eq!(patterns(&rev).unwrap(), rows);
    }

    /// Issue 10: no pattern has a child on the PV path. Every PV node
    /// searches all its moves with the full window, so with b = 4 and depth
    /// 4 the three PV parents (the root, (1), (1,1)) give exactly their
    /// children 2, 3, 4 as patterns with `pv` = 1, and no child 1.
    #[test]
    fn bad_inputs_are_typed_errors() {
        assert_eq!(patterns(&[]).unwrap_err(), TrainsetError::NoTrees);
        assert_eq!(patterns(&[tree(4, 70, 10, 7919, 1)]).unwrap_err(), TrainsetError::TooShallow(1));
        let mixed = [tree(4, 70, 10, 5, 4), tree(4, 70, 11, 6, 4)];
        let TrainsetError::Mixed { tree: 1, this, first, .. } = patterns(&mixed).unwrap_err() else { panic!("not Mixed") };
        assert_eq!((this.as_str(), first.as_str()), ("exponential (4,70,11) depth 4", "exponential (4,70,10) depth 4"));
    }

    #[test]
    fn pv_children_are_absent() {
        let trees: Vec<Tree> = (1..=20).map(|s| tree(4, 70, 10, s * 7919, 4)).collect();
        let rows = patterns(&trees).unwrap();
        let pv: Vec<(u32, &str, u32)> = rows[1..].iter().filter(|r| r.pv == 1).map(|r| (r.level, r.parent.as_str(), r.index)).collect();
        let want: Vec<(u32, &str, u32)> = [(1, "0.0.0"), (2, "1.0.0"), (3, "1.1.0")].into_iter().flat_map(|(l, p)| (2..=4).map(move |j| (l, p, j))).collect();
        assert_eq!(pv, want);
        for r in &pv {
            assert_eq!(rows.iter().filter(|x| (x.level, x.parent.as_str(), x.index) == *r).map(|x| x.count).collect::<Vec<_>>(), vec![20]);
        }
        // The root row stays, with the root's averaged type and wait.
        let map = averages(&trees);
        assert_eq!((rows[0].level, rows[0].pv, rows[0].child_type), (0, 1, map[&(0, vec![0, 0, 0])].t_avg()));
        assert_eq!(rows[0].child_wait, map[&(0, vec![0, 0, 0])].u_avg());
    }

    /// Depth 2, b = 2, one tree: the root's first child is the PV child, so
    /// the set is the root row and the second child's pattern alone.
    #[test]
    fn depth_two_gives_the_root_row_and_the_second_child() {
        let t = TreeSpec { set: "t".into(), index: 1, seed: 12345, pscore: 1000, model: Model::Exponential, b: 2, wa: 0, wb: 0, depth: 2 }.check().unwrap();
        let rows = patterns(&[t]).unwrap();
        assert_eq!(rows.iter().map(|r| (r.level, r.parent.as_str(), r.pv, r.index)).collect::<Vec<_>>(), vec![(0, "", 1, 0), (1, "0", 1, 2)]);
        assert_eq!((rows[0].child_type, rows[0].count), (T_UPDATED as f64, 1));
    }

    #[test]
    fn depth_two_by_hand() {
        // b = 2, depth 2, random ordering: the root's first child searches
        // both leaves; the second child cuts off unless its first leaf is
        // better for MAX than the first child's value.
        let shape = Shape::new(Model::Exponential, Ordering::new(2, 0, 0).unwrap()).unwrap();
        let root = Node { seed: 12345, pscore: 1000 };
        let mut r = NodeRecorder::new(2);
        search(&shape, &root, 2, &mut r);
        let kids: Vec<_> = r.records.iter().filter(|r| r.address[0] != 0).collect();
        assert_eq!(kids[0].address, vec![1]);
        // The PV child is searched with the full window: it never cuts off.
        assert_ne!(kids[0].t, T_CUT);
        let root_rec = r.records.last().unwrap();
        assert_eq!(root_rec.address, vec![0]);
        assert_eq!(root_rec.t, T_UPDATED);
    }
}
