//! Lazy SMP on real threads ([`Algorithm::LazySmp`](crate::algorithm::Algorithm);
//! Stockfish since 2015): every thread searches the whole tree from the
//! root with the same fail-hard alpha-beta, and the threads share nothing
//! but a transposition table. The first thread to finish the root gives
//! the result and stops the others. So that the threads do not all search
//! the same nodes in the same order, thread `t > 0` takes the moves of each
//! node with two or more plies below it in a rotated order: the first move
//! first (as every thread), then the others starting `t + ply` further on.
//! What one thread has finished, the others then find in the table.
//!
//! **The table** is lock-free (Hyatt and Mann's lockless hashing): an
//! entry is two 64-bit words, the data and the key XOR the data, each
//! written and read with a plain atomic access; a reader whose two words
//! come from different writes sees a key that does not match and takes it
//! as a miss. No `unsafe`. A bucket holds two entries: the first keeps the
//! deeper result (replaced by a result of the same or more depth), the
//! second is replaced always. The data is the value (40 bits, offset from
//! the root window's lower end), the bound (lower, upper, exact) and the
//! depth below the node.
//!
//! **Keys** ([`TtKey`]): an artificial node's seed and pscore, hashed with
//! its ply (its subtree is a function of the three); a chess position's
//! Zobrist hash with the ply; an Othello position's hash with the ply. The
//! ply is in the key because a mate's value depends on its distance from
//! the root; with a fixed depth, it also fixes the depth below the node.
//!
//! **Exact.** An entry is a true bound on the node's minimax value at its
//! depth, so a probe only ever cuts off where the search would have found
//! the same bound; results of a thread told to stop are never stored.

use super::local::{Local, PanicFlag, join_all, outcome};
use super::{Options, Outcome, RealError, TtKey};
use crate::game::MoveList;
use crate::value::{ROOT_ALPHA, ROOT_BETA};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::time::Instant;

/// Buckets of the table, as a power of two: 2^18 buckets of two entries,
/// 8 MiB, for every search (a (32, 79, 5) tree at depth 7 has far fewer
/// internal nodes).
pub const BUCKETS_LOG2: u32 = 18;

/// What an entry says about a node's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value is at least this.
    Lower = 1,
    /// The value is at most this.
    Upper = 2,
    /// The value.
    Exact = 3,
}

/// The shared transposition table.
pub struct Table {
    words: Vec<AtomicU64>,
    mask: u64,
}

const VALUE_BITS: u32 = 40;

impl Table {
    /// An empty table of `2^log2` buckets.
    pub fn new(log2: u32) -> Table {
        let buckets = 1usize << log2;
        Table { words: (0..buckets * 4).map(|_| AtomicU64::new(0)).collect(), mask: buckets as u64 - 1 }
    }

    fn pack(value: i64, bound: Bound, depth: u32) -> u64 {
        (value - ROOT_ALPHA) as u64 | (bound as u64) << VALUE_BITS | (depth.min(255) as u64) << 48
    }

    fn unpack(d: u64) -> (i64, Bound, u32) {
        let value = (d & ((1 << VALUE_BITS) - 1)) as i64 + ROOT_ALPHA;
        let bound = match (d >> VALUE_BITS) & 3 {
            1 => Bound::Lower,
            2 => Bound::Upper,
            _ => Bound::Exact,
        };
        (value, bound, (d >> 48) as u32 & 255)
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        ((key & self.mask) * 4) as usize
    }

    /// The entry for `key`, if either slot of its bucket holds it.
    pub fn probe(&self, key: u64) -> Option<(i64, Bound, u32)> {
        let b = self.bucket(key);
        (0..2).find_map(|e| {
            let k = self.words[b + 2 * e].load(Relaxed);
            let d = self.words[b + 2 * e + 1].load(Relaxed);
            (d != 0 && k ^ d == key).then(|| Table::unpack(d))
        })
    }

    /// Stores a result: in the first slot if it holds the same node, is
    /// empty, or holds a result of no more depth; else in the second.
    pub fn store(&self, key: u64, value: i64, bound: Bound, depth: u32) {
        let b = self.bucket(key);
        let d = Table::pack(value, bound, depth);
        let (k0, d0) = (self.words[b].load(Relaxed), self.words[b + 1].load(Relaxed));
        let e = if d0 == 0 || k0 ^ d0 == key || Table::unpack(d0).2 <= depth { 0 } else { 1 };
        self.words[b + 2 * e + 1].store(d, Relaxed);
        self.words[b + 2 * e].store(key ^ d, Relaxed);
    }
}

struct Search<'a, S: TtKey> {
    src: &'a S,
    table: Table,
    stop: AtomicBool,
    result: Mutex<Option<(i64, u32)>>,
}

/// The order in which thread `id` takes `n` moves at `ply`: 0-based positions.
fn order(id: usize, ply: u32, n: usize) -> impl Iterator<Item = usize> {
    let shift = if id == 0 || n < 3 { 0 } else { (id + ply as usize) % (n - 1) };
    std::iter::once(0).chain((0..n.saturating_sub(1)).map(move |i| 1 + (i + shift) % (n - 1))).take(n)
}

impl<S: TtKey> Search<'_, S> {
    #[allow(clippy::too_many_arguments)]
    fn ab(&self, l: &mut Local, buf: &mut [S::Slot], node: &S::Node, depth: u32, ply: u32, max: bool, alpha: i64, beta: i64) -> i64 {
        if depth == 0 {
            l.enter(true);
            return self.src.horizon_value(node, max);
        }
        if self.stop.load(Relaxed) {
            return alpha;
        }
        let key = self.src.tt_key(node, ply);
        let (mine, rest) = buf.split_at_mut(self.src.slots());
        let mut moves = self.src.moves(node, max, mine);
        if moves.is_empty() {
            l.enter(true);
            return self.src.terminal_value(node, max, ply);
        }
        l.enter(false);
        if let Some((v, bound, _)) = self.table.probe(key) {
            match bound {
                Bound::Exact => return v.clamp(alpha, beta),
                Bound::Lower if v >= beta => return beta,
                Bound::Upper if v <= alpha => return alpha,
                _ => {}
            }
        }
        let mut score = if max { alpha } else { beta };
        let mut cut = false;
        // One move's search and its effect on the score; true on a cut-off.
        macro_rules! step {
            ($k:expr) => {{
                let k = $k;
                let (ca, cb) = if max { (score, beta) } else { (alpha, score) };
                let v = if depth == 1 {
                    l.enter(true);
                    moves.leaf_value(node, k)
                } else {
                    let child = moves.child(node, k);
                    self.ab(l, rest, &child, depth - 1, ply + 1, !max, ca, cb)
                };
                if max {
                    if v >= beta {
                        score = beta;
                        true
                    } else {
                        score = score.max(v);
                        false
                    }
                } else if v <= alpha {
                    score = alpha;
                    true
                } else {
                    score = score.min(v);
                    false
                }
            }};
        }
        if l.id == 0 || depth < 2 {
            while let Some(k) = moves.next() {
                if step!(k) {
                    cut = true;
                    break;
                }
            }
        } else {
            let mut hs = vec![];
            while let Some(k) = moves.next() {
                hs.push(k);
            }
            for i in order(l.id, ply, hs.len()) {
                if step!(hs[i]) {
                    cut = true;
                    break;
                }
            }
        }
        if !self.stop.load(Relaxed) {
            // Fail-hard in (alpha, beta): a cut-off is a bound beyond the
            // window, a score left at the window's end a bound inside it.
            let bound = match (max, cut) {
                (true, true) => Bound::Lower,
                (false, true) => Bound::Upper,
                (true, false) if score <= alpha => Bound::Upper,
                (false, false) if score >= beta => Bound::Lower,
                _ => Bound::Exact,
            };
            self.table.store(key, score, bound, depth);
        }
        score
    }

    /// Thread `l.id` searches the root; the first to finish gives the result.
    fn root(&self, l: &mut Local, root: &S::Node, depth: u32) {
        let mut buf = vec![S::Slot::default(); self.src.slots() * depth as usize];
        let (mine, rest) = buf.split_at_mut(self.src.slots());
        l.enter(false);
        let mut moves = self.src.moves(root, true, mine);
        let mut hs = vec![];
        while let Some(k) = moves.next() {
            hs.push(k);
        }
        let (mut score, mut best) = (ROOT_ALPHA, 0u32);
        for i in order(l.id, 0, hs.len()) {
            let index = i as u32 + 1;
            // The root's tie rule (as in the heap's root).
            let lo = if index < best { score - 1 } else { score };
            let v = if depth == 1 {
                l.enter(true);
                moves.leaf_value(root, hs[i])
            } else {
                let child = moves.child(root, hs[i]);
                self.ab(l, rest, &child, depth - 1, 1, false, lo, ROOT_BETA)
            };
            if self.stop.load(Relaxed) {
                return;
            }
            if v > score || (v == score && index < best) {
                (score, best) = (v, index);
            }
        }
        let mut r = l.lock(&self.result);
        if r.is_none() {
            *r = Some((score, best));
            self.stop.store(true, Release);
        }
    }
}

/// Searches `src` from `root` to `depth` with Lazy SMP on `opts.threads` threads.
pub fn run<S: TtKey>(src: &S, root: &S::Node, depth: u32, opts: &Options) -> Result<Outcome, RealError> {
    {
        let mut buf = vec![S::Slot::default(); src.slots()];
        if depth == 0 || src.moves(root, true, &mut buf).is_empty() {
            return Ok(super::seq::run(src, root, depth, opts));
        }
    }
    let t = Instant::now();
    let sh = Search { src, table: Table::new(BUCKETS_LOG2), stop: AtomicBool::new(false), result: Mutex::new(None) };
    let locals = std::thread::scope(|s| {
        let handles: Vec<_> = (0..opts.threads.max(1))
            .map(|id| {
                let sh = &sh;
                s.spawn(move || {
                    let _flag = PanicFlag(&sh.stop);
                    let mut l = Local::new(id, opts);
                    sh.root(&mut l, root, depth);
                    l
                })
            })
            .collect();
        join_all(handles)
    })?;
    let result = *sh.result.lock().unwrap_or_else(|e| e.into_inner());
    outcome(&locals, result, t.elapsed().as_nanos() as u64, "lazy smp")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries read back as written; a torn entry (words of two writes) is
    /// a miss; the first slot keeps the deeper result.
    #[test]
    fn table_entries_read_back_and_torn_ones_miss() {
        let t = Table::new(4);
        t.store(5, 1234, Bound::Lower, 3);
        assert_eq!(t.probe(5), Some((1234, Bound::Lower, 3)));
        assert_eq!(t.probe(5 + 16), None);
        // Same bucket, less depth: the second slot; the first keeps depth 3.
        t.store(5 + 16, ROOT_ALPHA, Bound::Upper, 2);
        assert_eq!(t.probe(5), Some((1234, Bound::Lower, 3)));
        assert_eq!(t.probe(5 + 16), Some((ROOT_ALPHA, Bound::Upper, 2)));
        t.store(5 + 32, ROOT_BETA, Bound::Exact, 4);
        assert_eq!(t.probe(5 + 32), Some((ROOT_BETA, Bound::Exact, 4)));
        assert_eq!(t.probe(5), None, "replaced by the deeper result");
        // A torn entry: the key word of one write, the data of another.
        let b = t.bucket(7);
        t.words[b].store(7 ^ Table::pack(10, Bound::Exact, 1), Relaxed);
        t.words[b + 1].store(Table::pack(11, Bound::Exact, 1), Relaxed);
        assert_eq!(t.probe(7), None);
    }

    #[test]
    fn helpers_take_every_move_once_first_move_first() {
        for id in 0..5 {
            for n in 0..7 {
                let o: Vec<usize> = order(id, 3, n).collect();
                let mut s = o.clone();
                s.sort();
                assert_eq!(s, (0..n).collect::<Vec<_>>());
                if n > 0 {
                    assert_eq!(o[0], 0);
                }
            }
        }
        assert_eq!(order(1, 0, 4).collect::<Vec<_>>(), vec![0, 2, 3, 1]);
    }
}
