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
//!
//! Memory: the searches add into one entry per address ([`Sums`]), not a
//! record per node of every tree, so the memory grows with the addresses
//! entered, not with the trees. A set whose sums cannot fit is refused up
//! front with an estimate ([`estimate_addresses`]), and a set that outgrows
//! memory after all stops with the same error rather than an allocation
//! failure.

use crate::formats::PatternRow;
use crate::search::{Observer, Outcome, Visit};
use crate::tree::Tree;

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
    /// The per-address sums do not fit in memory.
    #[error("{0}")]
    OutOfMemory(String),
    /// A broken invariant of the averaging (a bug, never an input's fault).
    #[error("internal error: {0}")]
    Internal(String),
}
use crate::game::TreeSource;
use crate::tree::{SourceVisitor, TreeKey};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};

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

/// One address of [`Sums`]: its parent's id, its index among the parent's
/// children, its level and its sums.
#[derive(Clone, Copy, Debug)]
struct Entry {
    parent: u32,
    index: u32,
    level: u32,
    acc: Acc,
}

/// The sums of every address entered, as a tree of addresses: id 0 is the
/// root, every other id a (parent id, index) pair. One entry per address
/// however many trees enter it, where a list of records grows with every
/// node of every tree (a depth-10 tree's records outgrew 11 GB).
#[derive(Clone, Debug, Default)]
pub struct Sums {
    entries: Vec<Entry>,
    children: HashMap<(u32, u32), u32, BuildHasherDefault<PairHasher>>,
    /// The most moves at any internal node (a game's index range).
    max_moves: u32,
}

/// A multiplicative hash of the (parent id, index) keys (as `rustc`'s
/// `FxHasher`): the map is private and its keys are ours, so the default
/// hasher's resistance to chosen keys buys nothing and costs a third of the
/// run.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairHasher(u64);

impl Hasher for PairHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Memory one address of [`Sums`] takes, about: the entry (40 bytes), its
/// place in the hash map (16 bytes and the table's slack), the growth of both.
pub const BYTES_PER_ADDRESS: u64 = 112;

impl Sums {
    /// The id of the root, made if new.
    fn root(&mut self) -> u32 {
        if self.entries.is_empty() {
            self.entries.push(Entry { parent: 0, index: 0, level: 0, acc: Acc::default() });
        }
        0
    }

    /// The id of child `index` of `parent`, made if new (`true`).
    fn child(&mut self, parent: u32, index: u32) -> (u32, bool) {
        let next = self.entries.len() as u32;
        match self.children.entry((parent, index)) {
            std::collections::hash_map::Entry::Occupied(e) => (*e.get(), false),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(next);
                let level = self.entries[parent as usize].level + 1;
                self.entries.push(Entry { parent, index, level, acc: Acc::default() });
                (next, true)
            }
        }
    }

    /// Adds `other`'s sums. Parents come before their children in both
    /// (an address is made when the search enters it), so one pass maps ids.
    fn absorb(&mut self, other: &Sums) {
        let mut ids = Vec::with_capacity(other.entries.len());
        for (i, e) in other.entries.iter().enumerate() {
            let id = if i == 0 { self.root() } else { self.child(ids[e.parent as usize], e.index).0 };
            let a = &mut self.entries[id as usize].acc;
            a.t += e.acc.t;
            a.u += e.acc.u;
            a.count += e.acc.count;
            a.pv = e.acc.pv;
            ids.push(id);
        }
        self.max_moves = self.max_moves.max(other.max_moves);
    }

    /// Two partial sums as one (the larger absorbs the smaller).
    fn merge(a: Sums, b: Sums) -> Sums {
        let (mut big, small) = if a.entries.len() >= b.entries.len() { (a, b) } else { (b, a) };
        big.absorb(&small);
        big
    }

    /// Addresses held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no address was entered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The address `p_1.p_2...` of an id, with `width` components (zeros
    /// for the levels below it).
    fn address(&self, id: u32, width: usize) -> Vec<u32> {
        let mut a = vec![0; width];
        let mut id = id as usize;
        while id != 0 {
            let e = &self.entries[id];
            a[e.level as usize - 1] = e.index;
            id = e.parent as usize;
        }
        a
    }

    /// Every id in level order, and within a level in address order (a
    /// parent's children by index, parents in their own order): the order
    /// of the training set's rows.
    fn level_order(&self) -> Vec<u32> {
        let n = self.entries.len();
        // Children per parent, sorted by index.
        let mut start = vec![0u32; n + 1];
        for e in &self.entries[1.min(n)..] {
            start[e.parent as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut kids = vec![0u32; n.saturating_sub(1)];
        for (id, e) in self.entries.iter().enumerate().skip(1) {
            kids[fill[e.parent as usize] as usize] = id as u32;
            fill[e.parent as usize] += 1;
        }
        drop(fill);
        for p in 0..n {
            kids[start[p] as usize..start[p + 1] as usize].sort_unstable_by_key(|&k| self.entries[k as usize].index);
        }
        let mut order = Vec::with_capacity(n);
        if n > 0 {
            order.push(0);
        }
        let mut i = 0;
        while i < order.len() {
            let p = order[i] as usize;
            order.extend_from_slice(&kids[start[p] as usize..start[p + 1] as usize]);
            i += 1;
        }
        order
    }
}

/// The search observer that adds each internal node's type and wait to its
/// address's sums, and stops the search when the sums of all workers
/// together outgrow their share of memory.
struct SumRecorder<'a> {
    sums: Sums,
    /// The ids of the current path, by ply.
    path: Vec<u32>,
    /// Addresses made by every worker so far, and the most allowed.
    made: &'a AtomicU64,
    limit: u64,
    over: &'a AtomicBool,
}

impl Observer for SumRecorder<'_> {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        let id = if v.ply == 0 {
            self.sums.root()
        } else {
            let (id, new) = self.sums.child(self.path[v.ply as usize - 1], v.index);
            if new && self.made.fetch_add(1, AtomicOrdering::Relaxed) + 1 > self.limit {
                self.over.store(true, AtomicOrdering::Relaxed);
            }
            id
        };
        self.path[v.ply as usize] = id;
    }
    #[inline]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        if v.leaf {
            return;
        }
        self.sums.max_moves = self.sums.max_moves.max(v.moves);
        let a = &mut self.sums.entries[self.path[v.ply as usize] as usize].acc;
        a.t += type_value(o) as u64;
        a.u += o.best_move().unwrap_or(0) as u64;
        a.count += 1;
        a.pv = v.pv;
    }
    #[inline]
    fn stopped(&self) -> bool {
        self.over.load(AtomicOrdering::Relaxed)
    }
}

/// Searches every tree (on all cores) and sums type and wait per address,
/// holding at most `limit` addresses (summed over the workers).
fn sums(trees: &[Tree], limit: u64) -> Result<Sums, TrainsetError> {
    let made = AtomicU64::new(0);
    let over = AtomicBool::new(false);
    let depth = trees.iter().map(Tree::depth).max().unwrap_or(0) as usize;
    // One accumulator per worker (each holds up to every address): the
    // trees in as many contiguous chunks as there are workers.
    let chunk = trees.len().div_ceil(rayon::current_num_threads()).max(1);
    let sums = trees
        .par_chunks(chunk)
        .map(|part| {
            let mut r = SumRecorder { sums: Sums::default(), path: vec![0; depth.max(1)], made: &made, limit, over: &over };
            for t in part {
                if r.stopped() {
                    break;
                }
                t.search(&mut r);
            }
            r.sums
        })
        .reduce(Sums::default, Sums::merge);
    if over.load(AtomicOrdering::Relaxed) {
        return Err(TrainsetError::OutOfMemory(format!(
            "the per-address sums outgrew the memory there is for them ({} addresses, about {}) before the last tree was searched",
            limit,
            gigabytes(limit * BYTES_PER_ADDRESS)
        )));
    }
    Ok(sums)
}

/// Searches every tree (on all cores) and sums the records per address.
pub fn averages(trees: &[Tree]) -> Averages {
    let s = sums(trees, u64::MAX).unwrap_or_default();
    let width = trees.first().map_or(0, |t| t.depth().saturating_sub(1) as usize);
    s.entries.iter().enumerate().map(|(id, e)| ((e.level, s.address(id as u32, width)), e.acc)).collect()
}

fn address_string(a: &[u32]) -> String {
    a.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(".")
}

/// `x` bytes as gigabytes with one decimal.
fn gigabytes(x: u64) -> String {
    format!("{:.1} GB", x as f64 / 1e9)
}

/// Memory the process may still take: the least of the machine's
/// available memory, the address-space limit (`ulimit -v`) less what the
/// process already maps and its cgroup's limit ([`crate::limits`]); `None`
/// where none can be read.
pub use crate::limits::memory_available;

/// About how many addresses the first tree alone enters: searched to
/// smaller depths until a search enters more than 100,000 internal nodes
/// (a fraction of a second), then extrapolated by the growth per ply of the
/// last two depths; for an artificial tree never less than the minimal
/// tree, which every alpha-beta search enters. The sums of all trees hold
/// at least this many addresses.
pub fn estimate_addresses(first: &Tree) -> f64 {
    struct Internal(u32);
    impl SourceVisitor for Internal {
        type Output = u64;
        fn visit<S: TreeSource>(self, src: &S, root: &S::Node, _depth: u32) -> u64 {
            crate::search::search(src, root, self.0, &mut ()).counts.internal
        }
    }
    let depth = first.depth();
    let mut n = vec![0f64];
    let mut d = 0;
    while d < depth && *n.last().unwrap_or(&0.0) <= 100_000.0 {
        d += 1;
        n.push(first.visit(Internal(d)) as f64);
    }
    let mut est = n[d as usize];
    if d < depth && d >= 2 {
        let per_ply = if d >= 3 { (n[d as usize] / n[d as usize - 2]).sqrt() } else { n[d as usize] / n[d as usize - 1] };
        est *= per_ply.max(1.0).powi((depth - d) as i32);
    }
    if let Some(spec) = first.artificial_spec() {
        // Internal nodes of the minimal tree: b^ceil(l/2) + b^floor(l/2) - 1 at level l.
        let b = spec.b as f64;
        let minimal: f64 = (0..depth).map(|l| b.powi(l.div_ceil(2) as i32) + b.powi((l / 2) as i32) - 1.0).sum();
        est = est.max(minimal);
    }
    est
}

/// The training set of `docs/model.md` §3.1 from the trees of one ordering
/// (or one game) and depth, ready to write: see [`TrainingSet::rows`].
pub struct TrainingSet {
    key: TreeKey,
    sums: Sums,
    order: Vec<u32>,
    width: usize,
}

impl TrainingSet {
    /// The rows: the root row first, then one pattern per seen (parent,
    /// child) pair by the child's level, then address, except the pairs
    /// whose child is on the PV path (address 1, (1,1), ...): their type is
    /// never predicted. For a game, `b` is the most moves at any internal
    /// node of the trees: the network's index and wait range.
    pub fn rows(&self) -> impl Iterator<Item = PatternRow> + '_ {
        let (b, wa, wb) = match self.key.ordering() {
            Some(o) => (o.b, Some(o.wa), Some(o.wb)),
            None => (self.sums.max_moves, None, None),
        };
        let family = self.key.family();
        let row = move |level: u32, parent: String, pv: bool, ty: f64, index: u32, child: &Acc| PatternRow {
            model: family,
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
        self.order.iter().filter_map(move |&id| {
            let e = &self.sums.entries[id as usize];
            if id == 0 {
                return Some(row(0, String::new(), true, e.acc.t_avg(), 0, &e.acc));
            }
            // A child on the PV path gives no pattern: scheme C never asks the
            // network for an N-PV node's type (it keeps the root's), and the
            // three type-0 targets beside the index-2 targets of 34-39 only
            // bend the network's map where non-PV nodes need it
            // (docs/decisions.md, "Classification").
            if e.acc.pv {
                return None;
            }
            let p = &self.sums.entries[e.parent as usize];
            Some(row(e.level, address_string(&self.sums.address(e.parent, self.width)), p.acc.pv, p.acc.t_avg(), e.index, &e.acc))
        })
    }

    /// Addresses held (the root and every child entered, PV or not).
    pub fn addresses(&self) -> usize {
        self.sums.len()
    }
}

/// Checks the trees of a training set and makes it: refuses up front, with
/// an estimate, a set whose per-address sums cannot fit in memory, and
/// stops with the same error if the sums outgrow it after all.
pub fn training_set(trees: &[Tree]) -> Result<TrainingSet, TrainsetError> {
    training_set_within(trees, memory_available())
}

/// [`training_set`] with `memory` bytes for the sums (`None`: no limit).
pub fn training_set_within(trees: &[Tree], memory: Option<u64>) -> Result<TrainingSet, TrainsetError> {
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
    let limit = memory.map_or(u64::MAX, |m| m / BYTES_PER_ADDRESS);
    if let Some(m) = memory {
        let est = estimate_addresses(first);
        if est > limit as f64 {
            return Err(TrainsetError::OutOfMemory(format!(
                "{key}: the first tree alone enters about {est:.2e} internal nodes, whose per-address sums need about {}, more than the {} available (use a smaller depth)",
                gigabytes((est * BYTES_PER_ADDRESS as f64).min(u64::MAX as f64) as u64),
                gigabytes(m)
            )));
        }
    }
    let sums = sums(trees, limit)?;
    if sums.is_empty() {
        return Err(TrainsetError::Internal("the root was not recorded".into()));
    }
    let order = sums.level_order();
    Ok(TrainingSet { key, sums, order, width: depth as usize - 1 })
}

/// The rows of [`training_set`], collected.
pub fn patterns(trees: &[Tree]) -> Result<Vec<PatternRow>, TrainsetError> {
    Ok(training_set(trees)?.rows().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::search;
    use crate::tree::TreeSpec;
    use crate::tree::artificial::{Model, Node, Ordering, Shape};
    use crate::value::Window;

    fn tree(b: u32, wa: u32, wb: u32, seed: u64, depth: u32) -> Tree {
        TreeSpec { set: "t".into(), index: 1, seed, pscore: 1000, model: Model::Exponential, b, wa, wb, depth }.check().unwrap()
    }

    #[test]
    fn records_address_type_wait_pv() {
        let mut r = NodeRecorder::new(4);
        let v = |ply, index, pv, leaf| Visit { ply, index, max: ply % 2 == 0, window: Window { alpha: 0, beta: 9 }, pv, leaf, moves: 2 };
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

    /// No pattern has a child on the PV path. Every PV node
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

    /// Memory. A set whose first tree alone cannot fit is refused
    /// before any search, with the estimate; one that outgrows its memory
    /// during the searches stops with the same kind of error; with room,
    /// the sums give the rows the per-record averaging gave.
    #[test]
    fn sums_that_cannot_fit_are_refused_up_front_or_when_they_outgrow_memory() {
        let trees: Vec<Tree> = (1..=30).map(|s| tree(8, 30, 10, s * 7919, 5)).collect();
        let est = estimate_addresses(&trees[0]);
        let one_tree = trees[0].search(&mut ()).counts.internal as f64;
        assert_eq!(est, one_tree, "depth 5 is probed exactly");
        let fits = |addresses: f64| Some((addresses * BYTES_PER_ADDRESS as f64) as u64);
        let Err(TrainsetError::OutOfMemory(up_front)) = training_set_within(&trees, fits(est / 2.0)) else { panic!("accepted") };
        assert!(up_front.contains("the first tree alone enters about") && up_front.contains("use a smaller depth"), "{up_front}");
        let all = training_set_within(&trees, None).unwrap();
        assert!(all.addresses() as f64 > 2.0 * est, "the union of 30 trees is larger than one");
        let Err(TrainsetError::OutOfMemory(during)) = training_set_within(&trees, fits(1.5 * est)) else { panic!("accepted") };
        assert!(during.contains("outgrew the memory"), "{during}");
        let rows: Vec<PatternRow> = all.rows().collect();
        assert_eq!(rows, patterns(&trees).unwrap());
        // Deep trees are extrapolated: far more than the minimal tree.
        let deep =
            TreeSpec { set: "t".into(), index: 1, seed: 12345, pscore: 1000, model: Model::Exponential, b: 32, wa: 0, wb: 0, depth: 10 }.check().unwrap();
        let minimal: f64 = (0..10u32).map(|l| 32f64.powi(l.div_ceil(2) as i32) + 32f64.powi((l / 2) as i32) - 1.0).sum();
        assert!(estimate_addresses(&deep) > 10.0 * minimal);
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
