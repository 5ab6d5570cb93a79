//! Transposition tables: what a search stores about a node it finished and
//! finds again when it meets the node a second time (beyond the thesis,
//! whose search has none; `docs/model.md` §9.2).
//!
//! One [`Bound`] and one [`Entry`] (what a search stores) for every table, behind
//! one interface ([`Table`]: probe and store by a 64-bit key with the node
//! and its ply), and two tables:
//!
//! - [`SharedTable`]: Lazy SMP's table, shared by every thread without a
//!   lock (Hyatt and Mann's lockless hashing): an entry is two 64-bit
//!   words, the data and the key XOR the data, each written and read with a
//!   plain atomic access; a reader whose two words come from different
//!   writes sees a key that does not match and takes it as a miss. No
//!   `unsafe`. A bucket holds two entries: the first keeps the deeper
//!   result (replaced by a result of the same or more depth), the second
//!   is replaced always. The data is the value (40 bits, offset from the
//!   root window's lower end), the bound and the depth below the node; the
//!   key alone names the node (it hashes the node with its ply).
//! - [`ProcessTable`]: one cluster process's own table (Ura, Tsuruoka and
//!   Chikayama 2014, Fig. 1): a fixed number of slots indexed by the key,
//!   held sparsely (a process that searches little costs little, even
//!   4,096 of them); an entry holds the node itself and is found only for
//!   the same node (compared in full) at the same ply; a store replaces
//!   whatever its slot held. Its storage is private to this file.
//!
//! A table only keeps and finds entries; what a search may use (the same
//! depth, a task's own entries) is the search's rule ([`Entry::cut`] and the
//! searches' hook sets).

use crate::value::{ROOT_ALPHA, Window};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What a stored value says about the node's minimax value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value is at least this.
    Lower = 1,
    /// The value is at most this.
    Upper = 2,
    /// The value.
    Exact = 3,
}

impl Bound {
    /// What a fail-hard value found in window `w` (with `alpha < beta`) is:
    /// at its lower end an upper bound (every move failed low), at its
    /// upper end a lower bound (a move cut off), strictly inside the value.
    #[inline(always)]
    pub fn of(value: i64, w: Window) -> Bound {
        if value <= w.alpha {
            Bound::Upper
        } else if value >= w.beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

/// What a search stores about a node it finished, and a table gives back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The value found.
    pub value: i64,
    /// What the value is.
    pub bound: Bound,
    /// The depth below the node it was searched to.
    pub depth: u32,
    /// The best (or cut-off) move's 0-based place in the source's order
    /// (0 where the table does not keep it).
    pub best: u32,
    /// What the storing search tags its entries with (the cluster's task;
    /// 0 where the table does not keep it).
    pub tag: u64,
}

impl Entry {
    /// The value a node searched to `depth` in window `w` returns, if this
    /// entry decides it: only an entry of the same depth (an entry of
    /// another depth is the value of another search), an exact value
    /// clamped into the window, a bound beyond the window's end.
    #[inline(always)]
    pub fn cut(&self, depth: u32, w: Window) -> Option<i64> {
        if self.depth != depth {
            return None;
        }
        match self.bound {
            Bound::Exact => Some(self.value.clamp(w.alpha, w.beta)),
            Bound::Lower if self.value >= w.beta => Some(w.beta),
            Bound::Upper if self.value <= w.alpha => Some(w.alpha),
            _ => None,
        }
    }
}

/// A transposition table. `key` is a well-mixed hash of the node and its
/// ply (it picks the slot; a table may take it as the node's whole name),
/// `node` and `ply` the node itself.
pub trait Table<N> {
    /// The entry stored for the node, if the table still holds it.
    fn probe(&self, key: u64, node: &N, ply: u32) -> Option<Entry>;
    /// Stores a result for the node, by the table's replacement rule.
    fn store(&mut self, key: u64, node: &N, ply: u32, entry: Entry);
}

/// Lazy SMP's lock-free table, shared by reference between threads.
pub struct SharedTable {
    words: Vec<AtomicU64>,
    mask: u64,
}

const VALUE_BITS: u32 = 40;

impl SharedTable {
    /// An empty table of `2^log2` buckets of two entries.
    pub fn new(log2: u32) -> SharedTable {
        let buckets = 1usize << log2;
        SharedTable { words: (0..buckets * 4).map(|_| AtomicU64::new(0)).collect(), mask: buckets as u64 - 1 }
    }

    fn pack(value: i64, bound: Bound, depth: u32) -> u64 {
        (value - ROOT_ALPHA) as u64 | (bound as u64) << VALUE_BITS | (depth.min(255) as u64) << 48
    }

    fn unpack(d: u64) -> Entry {
        let value = (d & ((1 << VALUE_BITS) - 1)) as i64 + ROOT_ALPHA;
        let bound = match (d >> VALUE_BITS) & 3 {
            1 => Bound::Lower,
            2 => Bound::Upper,
            _ => Bound::Exact,
        };
        Entry { value, bound, depth: (d >> 48) as u32 & 255, best: 0, tag: 0 }
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        ((key & self.mask) * 4) as usize
    }

    /// The entry for `key`, if either slot of its bucket holds it.
    fn get(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        (0..2).find_map(|e| {
            let k = self.words[b + 2 * e].load(Relaxed);
            let d = self.words[b + 2 * e + 1].load(Relaxed);
            (d != 0 && k ^ d == key).then(|| SharedTable::unpack(d))
        })
    }

    /// Stores a result: in the first slot if it holds the same node, is
    /// empty, or holds a result of no more depth; else in the second.
    fn put(&self, key: u64, value: i64, bound: Bound, depth: u32) {
        let b = self.bucket(key);
        let d = SharedTable::pack(value, bound, depth);
        let (k0, d0) = (self.words[b].load(Relaxed), self.words[b + 1].load(Relaxed));
        let e = if d0 == 0 || k0 ^ d0 == key || SharedTable::unpack(d0).depth <= depth { 0 } else { 1 };
        self.words[b + 2 * e + 1].store(d, Relaxed);
        self.words[b + 2 * e].store(key ^ d, Relaxed);
    }
}

/// The shared table through a shared reference: every thread stores
/// through its own `&SharedTable`. The key is the node's whole name; the
/// best move and the tag are not kept.
impl<N> Table<N> for &SharedTable {
    #[inline]
    fn probe(&self, key: u64, _node: &N, _ply: u32) -> Option<Entry> {
        self.get(key)
    }
    #[inline]
    fn store(&mut self, key: u64, _node: &N, _ply: u32, entry: Entry) {
        self.put(key, entry.value, entry.bound, entry.depth)
    }
}

/// One slot of a [`ProcessTable`]: the node, its ply, its entry.
#[derive(Clone, Debug)]
struct Slot<N> {
    node: N,
    ply: u32,
    entry: Entry,
}

/// A cluster process's own table: `mask + 1` slots, one entry each.
pub struct ProcessTable<N> {
    map: HashMap<usize, Slot<N>, Identity>,
    mask: usize,
}

impl<N: Clone + PartialEq> ProcessTable<N> {
    /// An empty table of `slots` entries (rounded up to a power of two).
    /// Nothing is allocated before the first store.
    pub fn new(slots: usize) -> ProcessTable<N> {
        ProcessTable { map: HashMap::default(), mask: slots.next_power_of_two() - 1 }
    }
}

impl<N: Clone + PartialEq> Table<N> for ProcessTable<N> {
    #[inline(always)]
    fn probe(&self, key: u64, node: &N, ply: u32) -> Option<Entry> {
        self.map.get(&(key as usize & self.mask)).filter(|e| e.ply == ply && e.node == *node).map(|e| e.entry)
    }
    #[inline(always)]
    fn store(&mut self, key: u64, node: &N, ply: u32, entry: Entry) {
        self.map.insert(key as usize & self.mask, Slot { node: node.clone(), ply, entry });
    }
}

/// The process table's hasher: slot numbers are already mixed, so they
/// hash to themselves (the map's order is never used: lookups only).
#[derive(Clone, Copy, Debug, Default)]
struct Identity;

/// The state of [`Identity`].
#[derive(Clone, Copy, Debug, Default)]
struct IdentityHasher(u64);

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
mod tests;
