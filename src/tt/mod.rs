//! Transposition tables: what a search stores about a node it finished and
//! finds again when it meets the node a second time (beyond the thesis,
//! whose search has none; `docs/model.md` §9.2).
//!
//! One [`Bound`] and one [`Entry`] (what a search stores) for every table, behind
//! one interface ([`Table`]: probe and store by a 64-bit key with the node
//! and its ply), and two tables:
//!
//! Keys are the sources' [`crate::game::TreeSource::tt_key`]s: a 64-bit
//! name of the node with its ply folded in (equal keys at the same ply,
//! equal subtrees). Neither table keeps the node itself.
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
//!   Chikayama 2014, Fig. 1): a fixed-size array of 16-byte entries (the
//!   key and one packed word) in buckets of two, allocated at the first
//!   store, so that 1,536 processes' tables are a known, bounded amount of
//!   memory; an entry is found only for the same key at the same ply; the
//!   first slot of a bucket keeps the deeper result, the second takes the
//!   rest (`docs/decisions.md`, "Transposition tables", for the measurement).
//!
//! A table only keeps and finds entries; what a search may use (the same
//! depth, a task's own entries) is the search's rule ([`Entry::cut`] and the
//! searches' hook sets).

use crate::value::{ROOT_ALPHA, ROOT_BETA, Window};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What a stored value says about the node's minimax value. The cluster's
/// messages carry it as it is (serde: a shared entry, `docs/model.md` §9.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

    /// The range `(lower, upper)` the node's minimax value lies in when
    /// `value` is this bound (the infinite end the root window's).
    #[inline]
    pub fn range(self, value: i64) -> (i64, i64) {
        match self {
            Bound::Upper => (ROOT_ALPHA, value),
            Bound::Lower => (value, ROOT_BETA),
            Bound::Exact => (value, value),
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

/// A transposition table. `key` is the node's
/// [`crate::game::TreeSource::tt_key`] at `ply`, a well-mixed 64-bit name
/// of the node with its ply folded in: it picks the slot, and a table
/// keeps it instead of the node (with the ply, where it keeps that too).
pub trait Table {
    /// The entry stored for the node, if the table still holds it.
    fn probe(&self, key: u64, ply: u32) -> Option<Entry>;
    /// Stores a result for the node, by the table's replacement rule.
    fn store(&mut self, key: u64, ply: u32, entry: Entry);
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
impl Table for &SharedTable {
    #[inline]
    fn probe(&self, key: u64, _ply: u32) -> Option<Entry> {
        self.get(key)
    }
    #[inline]
    fn store(&mut self, key: u64, _ply: u32, entry: Entry) {
        self.put(key, entry.value, entry.bound, entry.depth)
    }
}

/// A cluster process's own table: `buckets` buckets of two 16-byte slots
/// (any even number of entries, at least 2: the bucket is picked by the
/// key's high bits, `key · buckets / 2^64`), allocated zeroed at the first store (so a process that
/// never stores costs nothing, and pages of a large table that are never
/// written are never backed by memory).
///
/// A slot holds the key and one word of data: the value (34 bits, offset
/// from the root window's lower end), the bound (2 bits, never 0, so a
/// zero word is an empty slot), the depth and the ply (7 bits each) and
/// the best move (12 bits). An entry is found only for the same key at
/// the same ply: the keys are [`crate::game::TreeSource::tt_key`]s, which
/// fold the ply into a node's 64-bit name, so key and ply together name
/// the node. With tags ([`ProcessTable::keep_tags`]) a parallel array
/// holds each slot's tag.
pub struct ProcessTable {
    slots: Vec<[u64; 2]>,
    tags: Option<Vec<u64>>,
    buckets: usize,
}

const VALUE_BITS_P: u32 = 34;
const DEPTH_SHIFT: u32 = VALUE_BITS_P + 2;
const PLY_SHIFT: u32 = DEPTH_SHIFT + 7;
const BEST_SHIFT: u32 = PLY_SHIFT + 7;

impl ProcessTable {
    /// An empty table of `slots` entries (rounded up to an even number, at
    /// least 2). Nothing is allocated before the first store.
    pub fn new(slots: usize) -> ProcessTable {
        ProcessTable { slots: vec![], tags: None, buckets: slots.div_ceil(2).max(1) }
    }

    /// Keeps each entry's tag from now on (the tags of earlier stores are 0).
    pub fn keep_tags(&mut self) {
        if self.tags.is_none() {
            self.tags = Some(if self.slots.is_empty() { vec![] } else { vec![0; self.slots.len()] });
        }
    }

    /// The bytes a table of `slots` entries takes once it is written all
    /// over (with tags: 8 more an entry).
    pub fn bytes(slots: usize, tags: bool) -> u64 {
        2 * slots.div_ceil(2).max(1) as u64 * if tags { 24 } else { 16 }
    }

    /// The entry packed in a word, if its fields fit (else it is not stored:
    /// a table may always forget).
    #[inline(always)]
    fn pack(ply: u32, e: &Entry) -> Option<u64> {
        let v = e.value.checked_sub(ROOT_ALPHA)? as u64;
        if v >> VALUE_BITS_P != 0 || e.depth >= 128 || ply >= 128 || e.best >= 4096 {
            return None;
        }
        Some(v | (e.bound as u64) << VALUE_BITS_P | (e.depth as u64) << DEPTH_SHIFT | (ply as u64) << PLY_SHIFT | (e.best as u64) << BEST_SHIFT)
    }

    #[inline(always)]
    fn unpack(d: u64, tag: u64) -> Entry {
        let bound = match (d >> VALUE_BITS_P) & 3 {
            1 => Bound::Lower,
            2 => Bound::Upper,
            _ => Bound::Exact,
        };
        Entry {
            value: (d & ((1 << VALUE_BITS_P) - 1)) as i64 + ROOT_ALPHA,
            bound,
            depth: (d >> DEPTH_SHIFT) as u32 & 127,
            best: (d >> BEST_SHIFT) as u32 & 4095,
            tag,
        }
    }

    /// Starts fetching `key`'s bucket into the cache (a hint: nothing
    /// happens before the first store, or off x86-64).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        if let Some(slot) = self.slots.get(self.bucket(key)) {
            // SAFETY: a prefetch only hints the cache; it reads nothing the
            // program sees and cannot fault, and the address is in bounds.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.as_ptr() as *const i8) }
        }
    }

    /// The first slot of `key`'s bucket.
    #[inline(always)]
    fn bucket(&self, key: u64) -> usize {
        ((key as u128 * self.buckets as u128) >> 64) as usize * 2
    }

    /// Whether a slot holds the node of `key` at `ply`.
    #[inline(always)]
    fn holds([k, d]: [u64; 2], key: u64, ply: u32) -> bool {
        d != 0 && k == key && (d >> PLY_SHIFT) as u32 & 127 == ply
    }
}

impl Table for ProcessTable {
    #[inline(always)]
    fn probe(&self, key: u64, ply: u32) -> Option<Entry> {
        let b = self.bucket(key);
        let pair = self.slots.get(b..b + 2)?;
        let i = (0..2).find(|&j| ProcessTable::holds(pair[j], key, ply))?;
        Some(ProcessTable::unpack(pair[i][1], self.tags.as_ref().map_or(0, |t| t[b + i])))
    }
    /// The replacement rule: the first slot of the bucket takes the entry
    /// if it is empty, holds the same node, or holds a result of no more
    /// depth (the entries nearest a task's root, the most work saved, stay);
    /// otherwise the second, which takes whatever comes. A node is never in
    /// both.
    #[inline(always)]
    fn store(&mut self, key: u64, ply: u32, entry: Entry) {
        let Some(d) = ProcessTable::pack(ply, &entry) else { return };
        if self.slots.is_empty() {
            self.slots = vec![[0; 2]; 2 * self.buckets];
        }
        let b = self.bucket(key);
        let [k0, d0] = self.slots[b];
        let i = if d0 == 0 || ProcessTable::holds([k0, d0], key, ply) || entry.depth >= (d0 >> DEPTH_SHIFT) as u32 & 127 {
            if ProcessTable::holds(self.slots[b + 1], key, ply) {
                self.slots[b + 1] = [0; 2];
            }
            b
        } else {
            b + 1
        };
        self.slots[i] = [key, d];
        if let Some(t) = &mut self.tags {
            if t.is_empty() {
                *t = vec![0; self.slots.len()];
            }
            t[i] = entry.tag;
        }
    }
}

#[cfg(test)]
mod tests;
