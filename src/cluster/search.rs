//! The sequential baseline of the message-passing machines (Ura,
//! Tsuruoka and Chikayama 2014, Fig. 1): fail-hard alpha-beta with internal
//! iterative deepening and a transposition table (`docs/model.md` §9.2).
//!
//! Before searching a node's children to depth d, a node of depth d ≥ 3
//! with no best move in the table is searched to depth d − 2; the best move
//! that search stores goes first, the others follow in the source's order
//! (its static evaluation for the incremental trees). The table is a fixed
//! number of slots indexed by the node's key; an entry is used only for the
//! same node (compared in full) at the same ply and remaining depth, so
//! every value it returns is the fixed-depth minimax value the plain search
//! returns (tested). Workers of the parallel policies each own one.

use super::transport::SharedEntry;
use crate::game::{MoveList, TreeSource};
use crate::search::NodeCounts;
use crate::value::Window;

/// What a stored value says about the node's minimax value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    /// The value is at least this.
    Lower,
    /// The value is at most this.
    Upper,
}

#[derive(Clone, Debug)]
struct Entry<N> {
    node: N,
    ply: u32,
    depth: u32,
    value: i64,
    bound: Bound,
    /// 0-based position in the source's order of the best (or cut-off) move.
    best: u32,
    /// The task it was found in ([`Tasks`]; 0 outside them).
    task: u64,
}

/// Ura et al.'s §5.2 simulations of the workers with the sequential
/// search: the nodes at ply `ply` (d′) are the tasks; entries above them
/// go to a table of their own (the master's), those below to a second
/// one, which a task may use as [`Sharing`] says; with `full_window` a task
/// is searched with the full window (the result clamped to its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tasks {
    /// The master's depth d′.
    pub ply: u32,
    /// Which deep entries a task may use.
    pub sharing: Sharing,
    /// Tasks searched with the full window.
    pub full_window: bool,
}

/// Which deep entries (below ply d′) a task may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Every task's: one table fully shared among workers (the baseline).
    All,
    /// Its own only: workers that share nothing.
    Own,
    /// Its own, and other tasks' at most this many plies below d′ (the
    /// partial share of §3.2).
    Near(u32),
}

/// Default transposition-table slots per process, 2^20.
pub const DEFAULT_TT_SLOTS: usize = 1 << 20;

/// An alpha-beta searcher with its own transposition table: `mask + 1`
/// slots, held sparsely (a process that searches little costs little, even
/// 4,096 of them); lookups only, never iterated, so the map's order does
/// not matter.
pub struct Searcher<S: TreeSource> {
    tt: std::collections::HashMap<usize, Entry<S::Node>, Identity>,
    mask: usize,
    // Move buffers and child lists reused across nodes (one per level in use).
    slots_pool: Vec<Vec<S::Slot>>,
    kids_pool: Vec<Vec<S::Node>>,
    /// Nodes searched so far (internal iterative deepening included).
    pub counts: NodeCounts,
    /// The search aborts once `counts.nodes` reaches this (a worker's
    /// slice; `u64::MAX` by default): it returns a meaningless value, sets
    /// [`Searcher::aborted`] and stores nothing it had not finished.
    pub limit: u64,
    /// Whether a search hit [`Searcher::limit`] (cleared by the caller).
    pub aborted: bool,
    /// Entries stored at this ply or nearer the root are also copied to
    /// [`Searcher::outbox`] (the master-worker *with share*; `None`: none).
    pub share_ply: Option<u32>,
    /// Entries to share, in the order they were stored.
    pub outbox: Vec<SharedEntry<S::Node>>,
    /// The workers' simulation of §5.2 (`None`: the plain search).
    tasks: Option<Tasks>,
    /// The task being searched (a key of its node; 0 above d′).
    task: u64,
    /// d′ + 1 with tasks, 0 without: the plies below it are the master's
    /// (one compare on the hot path instead of a match).
    deep_ply: u32,
}

impl<S: TreeSource> Searcher<S> {
    /// A searcher with `slots` table entries (rounded up to a power of two).
    pub fn new(slots: usize) -> Searcher<S> {
        Searcher {
            tt: std::collections::HashMap::default(),
            mask: slots.next_power_of_two() - 1,
            slots_pool: vec![],
            kids_pool: vec![],
            counts: NodeCounts::default(),
            limit: u64::MAX,
            aborted: false,
            share_ply: None,
            outbox: vec![],
            tasks: None,
            task: 0,
            deep_ply: 0,
        }
    }

    /// Sets Ura et al.'s §5.2 simulation of the workers ([`Tasks`]).
    pub fn simulate_tasks(&mut self, t: Tasks) {
        self.tasks = Some(t);
        self.deep_ply = t.ply + 1;
    }

    #[inline(always)]
    fn slot(&self, src: &S, node: &S::Node, ply: u32) -> usize {
        let h = crate::tree::incremental::mix(src.root_key(node) ^ (ply as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        // The master's table (tasks only): slots of their own, past the deep table's.
        let master = (ply < self.deep_ply) as usize;
        ((h as usize) & self.mask) + master * (self.mask + 1)
    }

    #[inline(always)]
    fn probe(&self, src: &S, node: &S::Node, ply: u32) -> Option<&Entry<S::Node>> {
        self.tt.get(&self.slot(src, node, ply)).filter(|e| e.ply == ply && e.node == *node && self.usable(e))
    }

    /// Whether the task being searched may use `e` ([`Sharing`]).
    #[inline(always)]
    fn usable(&self, e: &Entry<S::Node>) -> bool {
        if e.task == self.task || e.ply < self.deep_ply {
            return true;
        }
        match self.tasks {
            Some(t) => match t.sharing {
                Sharing::All => true,
                Sharing::Own => false,
                Sharing::Near(k) => e.ply <= t.ply + k,
            },
            None => true,
        }
    }

    /// The fixed-depth minimax value of `node` (a MAX node if `max`, at
    /// distance `ply` from the tree's root) searched to `depth` in window
    /// `w`, fail-hard: within `[alpha, beta]`, exact strictly inside.
    #[inline(always)]
    pub fn search(&mut self, src: &S, node: &S::Node, max: bool, depth: u32, ply: u32, w: Window) -> i64 {
        if ply + 1 == self.deep_ply
            && let Some(t) = self.tasks
        {
            let outer = std::mem::replace(&mut self.task, src.root_key(node) | 1);
            let v = if t.full_window {
                self.search_in(src, node, max, depth, ply, Window::ROOT).clamp(w.alpha, w.beta)
            } else {
                self.search_in(src, node, max, depth, ply, w)
            };
            self.task = outer;
            return v;
        }
        self.search_in(src, node, max, depth, ply, w)
    }

    fn search_in(&mut self, src: &S, node: &S::Node, max: bool, depth: u32, ply: u32, w: Window) -> i64 {
        if self.counts.nodes >= self.limit {
            self.aborted = true;
        }
        if self.aborted {
            return w.alpha;
        }
        self.counts.nodes += 1;
        if depth == 0 {
            self.counts.leaves += 1;
            return src.horizon_value(node, max);
        }
        let Window { alpha, beta } = w;
        let mut first = None;
        if let Some(e) = self.probe(src, node, ply) {
            if e.depth == depth {
                let v = e.value;
                match e.bound {
                    Bound::Exact => return v.clamp(alpha, beta),
                    Bound::Lower if v >= beta => return beta,
                    Bound::Upper if v <= alpha => return alpha,
                    _ => {}
                }
            }
            first = Some(e.best);
        }
        let mut buf = self.slots_pool.pop().unwrap_or_default();
        buf.resize(src.slots(), S::Slot::default());
        let mut kids = self.kids_pool.pop().unwrap_or_default();
        kids.clear();
        let mut m = src.moves(node, max, &mut buf);
        while let Some(h) = m.next() {
            kids.push(m.child(node, h));
        }
        drop(m);
        self.slots_pool.push(buf);
        if kids.is_empty() {
            self.kids_pool.push(kids);
            self.counts.leaves += 1;
            return src.terminal_value(node, max, ply);
        }
        self.counts.internal += 1;
        if first.is_none() && depth >= 3 {
            // Internal iterative deepening: the shallower search stores its best move.
            self.search(src, node, max, depth - 2, ply, w);
            if self.aborted {
                self.kids_pool.push(kids);
                return alpha;
            }
            first = self.probe(src, node, ply).map(|e| e.best);
        }
        let first = first.map_or(0, |f| f as usize).min(kids.len() - 1);
        let order = std::iter::once(first).chain((0..kids.len()).filter(|&i| i != first));
        let (mut a, mut b) = (alpha, beta);
        let mut best = first as u32;
        let mut cut = false;
        for i in order {
            let v = self.search(src, &kids[i], !max, depth - 1, ply + 1, Window { alpha: a, beta: b });
            if self.aborted {
                self.kids_pool.push(kids);
                return alpha;
            }
            if max {
                if v > a {
                    a = v;
                    best = i as u32;
                }
            } else if v < b {
                b = v;
                best = i as u32;
            }
            if a >= b {
                cut = true;
                break;
            }
        }
        let value = if max {
            if cut { beta } else { a }
        } else if cut {
            alpha
        } else {
            b
        };
        let bound = if value <= alpha {
            Bound::Upper
        } else if value >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.kids_pool.push(kids);
        let s = self.slot(src, node, ply);
        if self.share_ply.is_some_and(|p| ply <= p) {
            let b = match bound {
                Bound::Upper => -1,
                Bound::Exact => 0,
                Bound::Lower => 1,
            };
            self.outbox.push(SharedEntry { node: node.clone(), ply, depth, value, bound: b, best, origin: 0 });
        }
        self.tt.insert(s, Entry { node: node.clone(), ply, depth, value, bound, best, task: self.task });
        value
    }

    /// Stores an entry another process found (every entry is the
    /// fixed-depth value of its node, whoever found it).
    pub fn absorb(&mut self, src: &S, e: &SharedEntry<S::Node>) {
        let bound = match e.bound {
            -1 => Bound::Upper,
            0 => Bound::Exact,
            _ => Bound::Lower,
        };
        let s = self.slot(src, &e.node, e.ply);
        self.tt.insert(s, Entry { node: e.node.clone(), ply: e.ply, depth: e.depth, value: e.value, bound, best: e.best, task: 0 });
    }
}

/// The table's hasher: slot numbers are already mixed, so they hash to
/// themselves.
#[derive(Clone, Copy, Debug, Default)]
pub struct Identity;

/// The state of [`Identity`].
#[derive(Clone, Copy, Debug, Default)]
pub struct IdentityHasher(u64);

impl std::hash::BuildHasher for Identity {
    type Hasher = IdentityHasher;
    fn build_hasher(&self) -> IdentityHasher {
        IdentityHasher(0)
    }
}

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{minimax, search};
    use crate::tree::artificial::{Model, Node, Ordering, Shape};
    use crate::tree::incremental::Incremental;

    #[test]
    fn iid_and_table_return_the_minimax_value() {
        let t = Incremental::new(4, 100).unwrap();
        for seed in 1..30 {
            let root = t.root(seed);
            for depth in 0..7 {
                // A tiny table forces collisions and replacements.
                for slots in [1, 64, 1 << 12] {
                    let mut s = Searcher::new(slots);
                    let v = s.search(&t, &root, true, depth, 0, Window::ROOT);
                    assert_eq!(v, minimax(&t, &root, true, depth, 0), "seed {seed} depth {depth} slots {slots}");
                }
            }
        }
        let shape = Shape::new(Model::Exponential, Ordering::new(6, 50, 20).unwrap()).unwrap();
        for seed in 1..20 {
            let root = Node { seed, pscore: crate::value::ROOT_PSCORE as u32 };
            let mut s = Searcher::new(1 << 10);
            assert_eq!(s.search(&shape, &root, true, 6, 0, Window::ROOT), search(&shape, &root, 6, &mut ()).value);
        }
    }

    #[test]
    fn iterative_deepening_searches_fewer_leaves_on_a_deep_tree() {
        // 32 b = 5 trees at depth 10: the table and the deeper search's
        // best move first cost the shallower searches but cut leaves.
        let t = Incremental::new(5, 100).unwrap();
        let (mut plain, mut iid) = (0, 0);
        for seed in 1..=32 {
            let root = t.root(seed);
            plain += search(&t, &root, 10, &mut ()).counts.leaves;
            let mut s = Searcher::new(1 << 16);
            s.search(&t, &root, true, 10, 0, Window::ROOT);
            iid += s.counts.leaves;
        }
        assert_eq!((plain, iid), (465_891, 366_828));
    }
}
