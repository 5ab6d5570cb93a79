//! The tables' interface: what is stored is found again, by the same node
//! only; each table's replacement rule; what a bound lets a search cut.

use super::*;
use crate::value::ROOT_BETA;

fn entry(value: i64, bound: Bound, depth: u32) -> Entry {
    Entry { value, bound, depth, best: 0, tag: 0 }
}

/// Probe after store, through the interface, for any table: the entry
/// comes back, another key misses.
fn reads_back<T: Table>(mut t: T, keeps_best: bool) {
    assert_eq!(t.probe(5, 2), None);
    let h = Entry { value: 1234, bound: Bound::Lower, depth: 3, best: 4, tag: 0 };
    t.store(5, 2, h);
    let want = if keeps_best { h } else { Entry { best: 0, ..h } };
    assert_eq!(t.probe(5, 2), Some(want));
    assert_eq!(t.probe(6, 2), None);
    // The same node stored again: the later result.
    t.store(5, 2, entry(ROOT_ALPHA, Bound::Upper, 3));
    assert_eq!(t.probe(5, 2).map(|e| (e.value, e.bound)), Some((ROOT_ALPHA, Bound::Upper)));
}

#[test]
fn both_tables_read_back_what_they_store() {
    reads_back(&SharedTable::new(4), false);
    reads_back(ProcessTable::new(16), true);
    // Every field's extremes survive the packing.
    let mut t = ProcessTable::new(16);
    for (i, e) in [
        Entry { value: ROOT_ALPHA, bound: Bound::Upper, depth: 127, best: 4095, tag: 0 },
        Entry { value: ROOT_BETA, bound: Bound::Exact, depth: 0, best: 0, tag: 0 },
    ]
    .into_iter()
    .enumerate()
    {
        t.store(i as u64, 127, e);
        assert_eq!(t.probe(i as u64, 127), Some(e));
    }
    // What does not fit is not stored (a table may forget), never garbled.
    t.store(9, 1, Entry { value: ROOT_BETA + (1 << 40), ..entry(0, Bound::Exact, 1) });
    t.store(10, 1, Entry { best: 4096, ..entry(0, Bound::Exact, 1) });
    t.store(11, 128, entry(0, Bound::Exact, 1));
    assert_eq!((t.probe(9, 1), t.probe(10, 1), t.probe(11, 128)), (None, None, None));
}

/// The shared table: entries read back as written; a torn entry (words of
/// two writes) is a miss; the first slot keeps the deeper result.
#[test]
fn shared_entries_read_back_and_torn_ones_miss() {
    let t = SharedTable::new(4);
    t.put(5, 1234, Bound::Lower, 3);
    assert_eq!(t.get(5), Some(entry(1234, Bound::Lower, 3)));
    assert_eq!(t.get(5 + 16), None);
    // Same bucket, less depth: the second slot; the first keeps depth 3.
    t.put(5 + 16, ROOT_ALPHA, Bound::Upper, 2);
    assert_eq!(t.get(5), Some(entry(1234, Bound::Lower, 3)));
    assert_eq!(t.get(5 + 16), Some(entry(ROOT_ALPHA, Bound::Upper, 2)));
    t.put(5 + 32, ROOT_BETA, Bound::Exact, 4);
    assert_eq!(t.get(5 + 32), Some(entry(ROOT_BETA, Bound::Exact, 4)));
    assert_eq!(t.get(5), None, "replaced by the deeper result");
    // A torn entry: the key word of one write, the data of another.
    let b = t.bucket(7);
    t.words[b].store(7 ^ SharedTable::pack(10, Bound::Exact, 1), Relaxed);
    t.words[b + 1].store(SharedTable::pack(11, Bound::Exact, 1), Relaxed);
    assert_eq!(t.get(7), None);
}

/// The process table: an entry is found only for the same key at the same
/// ply; in a bucket the first slot keeps the deeper result, the second
/// takes the rest; tags are kept only when asked.
#[test]
fn process_entries_are_the_same_node_and_the_deeper_stays() {
    let mut t = ProcessTable::new(3);
    assert_eq!((t.buckets, t.slots.len()), (2, 0), "4 slots, nothing allocated yet");
    // The bucket is the key's high bit here: keys below 2^63 share bucket
    // 0 (slots 0 and 1).
    let (k1, k5, k9, k2) = (1, 5, 9, 1 << 63);
    t.store(k1, 2, entry(50, Bound::Exact, 6));
    assert_eq!(t.slots.len(), 4);
    assert_eq!(t.probe(k1, 2), Some(entry(50, Bound::Exact, 6)));
    assert_eq!(t.probe(k1, 3), None, "another ply");
    assert_eq!(t.probe(k5, 2), None, "another key in the same bucket");
    t.store(k5, 2, entry(40, Bound::Lower, 1));
    assert_eq!(t.probe(k1, 2), Some(entry(50, Bound::Exact, 6)), "the deeper result stays");
    assert_eq!(t.probe(k5, 2), Some(entry(40, Bound::Lower, 1)), "in the second slot");
    t.store(k9, 2, entry(30, Bound::Upper, 2));
    assert_eq!(t.probe(k5, 2), None, "the second slot takes whatever comes");
    assert_eq!(t.probe(k9, 2), Some(entry(30, Bound::Upper, 2)));
    t.store(k9, 2, entry(31, Bound::Upper, 7));
    assert_eq!(t.probe(k1, 2), None, "a deeper result takes the first slot");
    assert_eq!(t.probe(k9, 2), Some(entry(31, Bound::Upper, 7)), "and the node is not in both");
    assert_eq!(t.slots[1], [0; 2]);
    t.store(k2, 2, entry(20, Bound::Upper, 1));
    assert_eq!(t.slots[2][0], k2, "the other bucket");
    assert_eq!(t.probe(k9, 2), Some(entry(31, Bound::Upper, 7)), "other buckets stay");
    let tagged = Entry { tag: 77, ..entry(20, Bound::Upper, 1) };
    t.store(3, 2, tagged);
    assert_eq!(t.probe(3, 2).map(|e| e.tag), Some(0), "no tags kept");
    t.keep_tags();
    t.store(3, 2, tagged);
    assert_eq!(t.probe(3, 2), Some(tagged));
    // Any even size: the paper's 31,250,000 entries a worker take 500 MB.
    assert_eq!((ProcessTable::bytes(3, false), ProcessTable::bytes(1 << 20, true)), (64, 24 << 20));
    assert_eq!(ProcessTable::bytes(31_250_000, false), 500_000_000);
    let mut big = ProcessTable::new(1001);
    big.store(u64::MAX, 0, entry(1, Bound::Exact, 1));
    assert_eq!((big.slots.len(), big.slots[1000][0]), (1002, u64::MAX), "the last bucket");
}

/// Bounds: what a fail-hard value is, and what an entry lets a search cut.
#[test]
fn bounds_cut_only_beyond_the_window_at_the_same_depth() {
    let w = Window { alpha: 10, beta: 20 };
    assert_eq!((Bound::of(10, w), Bound::of(15, w), Bound::of(20, w)), (Bound::Upper, Bound::Exact, Bound::Lower));
    assert_eq!((Bound::of(9, w), Bound::of(21, w)), (Bound::Upper, Bound::Lower));
    assert_eq!((Bound::Upper.range(10), Bound::Exact.range(15), Bound::Lower.range(20)), ((ROOT_ALPHA, 10), (15, 15), (20, ROOT_BETA)));
    assert_eq!(entry(15, Bound::Exact, 3).cut(3, w), Some(15));
    assert_eq!(entry(25, Bound::Exact, 3).cut(3, w), Some(20), "clamped");
    assert_eq!(entry(5, Bound::Exact, 3).cut(3, w), Some(10), "clamped");
    assert_eq!(entry(15, Bound::Exact, 2).cut(3, w), None, "another depth");
    assert_eq!(entry(20, Bound::Lower, 3).cut(3, w), Some(20));
    assert_eq!(entry(19, Bound::Lower, 3).cut(3, w), None);
    assert_eq!(entry(10, Bound::Upper, 3).cut(3, w), Some(10));
    assert_eq!(entry(11, Bound::Upper, 3).cut(3, w), None);
}
