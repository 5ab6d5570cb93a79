//! Lazy SMP on real threads ([`LazySmp`](crate::policy::LazySmp);
//! Stockfish since 2015): every thread searches the whole tree from the
//! root with the same fail-hard alpha-beta, and the threads share nothing
//! but a transposition table. The first thread to finish the root gives
//! the result and stops the others. So that the threads do not all search
//! the same nodes in the same order, thread `t > 0` takes the moves of each
//! node with two or more plies below it in a rotated order: the first move
//! first (as every thread), then the others starting `t + ply` further on.
//! What one thread has finished, the others then find in the table.
//!
//! The search is the project's one alpha-beta
//! ([`crate::search::alphabeta`]) with this file's hook set: the table's
//! probe and store, the stop flag, the rotated order.
//!
//! **The table** is lock-free (Hyatt and Mann's lockless hashing;
//! [`crate::tt::SharedTable`], where its layout is described).
//!
//! **Keys** ([`crate::game::TreeSource::tt_key`]): an artificial node's seed and pscore, hashed with
//! its ply (its subtree is a function of the three); a chess position's
//! Zobrist hash with the ply; an Othello position's hash with the ply. The
//! ply is in the key because a mate's value depends on its distance from
//! the root; with a fixed depth, it also fixes the depth below the node.
//!
//! **Exact.** An entry is a true bound on the node's minimax value at its
//! depth, so a probe only ever cuts off where the search would have found
//! the same bound; results of a thread told to stop are never stored.

use super::local::{Local, PanicFlag, join_all, outcome};
use super::{Measured, Options, RealError};
use crate::game::{MoveList, TreeSource};
use crate::search::{Hooks, Observer, Order, Probe, Visit, alphabeta};
use crate::tt::{Entry, SharedTable, Table};
use crate::value::{Best, ROOT_ALPHA, Window};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering::*};
use std::time::Instant;

/// Buckets of the table, as a power of two: 2^18 buckets of two entries,
/// 8 MiB, for every search (a (32, 79, 5) tree at depth 7 has far fewer
/// internal nodes).
pub const BUCKETS_LOG2: u32 = 18;

struct Search<'a, S: TreeSource> {
    src: &'a S,
    table: SharedTable,
    stop: AtomicBool,
    result: Mutex<Option<(i64, u32)>>,
}

/// The order in which thread `id` takes `n` moves at `ply`: the first
/// first, the others rotated by `id + ply` (thread 0: the source's order).
fn rotation(id: usize, ply: u32, n: u32) -> Order {
    let shift = if id == 0 || n < 3 { 0 } else { ((id + ply as usize) % (n as usize - 1)) as u32 };
    Order::Permuted { first: 0, shift }
}

/// One thread's hook set: the shared table, the stop flag, its order.
struct Thread<'a, 'l, S: TreeSource> {
    sh: &'a Search<'a, S>,
    l: &'l mut Local,
}

impl<S: TreeSource> Observer for Thread<'_, '_, S> {
    #[inline(always)]
    fn enter(&mut self, v: &Visit) {
        self.l.enter(v.leaf);
    }
}

impl<S: TreeSource> Hooks<S> for Thread<'_, '_, S> {
    /// A thread told to stop leaves every node above the horizon at once.
    #[inline(always)]
    fn abort(&mut self, depth: u32) -> bool {
        depth > 0 && self.sh.stop.load(Relaxed)
    }
    /// Results of a thread told to stop are never stored.
    #[inline(always)]
    fn aborted(&self) -> bool {
        self.sh.stop.load(Relaxed)
    }
    /// A node the table decides counts as entered.
    #[inline(always)]
    fn probe(&mut self, src: &S, node: &S::Node, v: &Visit, depth: u32) -> Probe {
        match (&self.sh.table).probe(src.tt_key(node, v.ply), v.ply).and_then(|e| e.cut(depth, v.window)) {
            Some(value) => {
                self.l.enter(false);
                Probe::Cut(value)
            }
            None => Probe::Miss,
        }
    }
    /// Rotated only where two or more plies remain (a leaf's parent's
    /// moves are cheap to search again).
    #[inline(always)]
    fn order(&self, v: &Visit, depth: u32, moves: u32, _hint: Option<u32>) -> Order {
        if self.l.id == 0 || depth < 2 { Order::Source } else { rotation(self.l.id, v.ply, moves) }
    }
    #[inline(always)]
    fn store(&mut self, src: &S, node: &S::Node, v: &Visit, e: Entry) {
        (&self.sh.table).store(src.tt_key(node, v.ply), v.ply, e);
    }
}

impl<S: TreeSource> Search<'_, S> {
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
        let mut best = Best::new(ROOT_ALPHA);
        let (n, order) = (hs.len() as u32, rotation(l.id, 0, hs.len() as u32));
        for i in (0..n).map(|i| order.position(i, n) as usize) {
            let index = i as u32 + 1;
            let v = if depth == 1 {
                l.enter(true);
                moves.leaf_value(root, hs[i])
            } else {
                let child = moves.child(root, hs[i]);
                let v = Visit { ply: 1, index, max: false, window: best.root_window(Window::ROOT, index), pv: false, leaf: false, moves: 0 };
                alphabeta(self.src, &mut Thread { sh: self, l: &mut *l }, rest, &child, depth - 1, v)
            };
            if self.stop.load(Relaxed) {
                return;
            }
            best.root_offer(index, v);
        }
        let mut r = l.lock(&self.result);
        if r.is_none() {
            *r = Some((best.score, best.index));
            self.stop.store(true, Release);
        }
    }
}

/// Searches `src` from `root` to `depth` with Lazy SMP on `opts.threads` threads.
pub fn run<S: TreeSource>(src: &S, root: &S::Node, depth: u32, opts: &Options) -> Result<Measured, RealError> {
    {
        let mut buf = vec![S::Slot::default(); src.slots()];
        if depth == 0 || src.moves(root, true, &mut buf).is_empty() {
            return Ok(super::seq::run(src, root, depth, opts));
        }
    }
    let t = Instant::now();
    let sh = Search { src, table: SharedTable::new(BUCKETS_LOG2), stop: AtomicBool::new(false), result: Mutex::new(None) };
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
    outcome(&locals, result, t, "lazy smp")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::minimax;
    use crate::tree::incremental::Incremental;

    #[test]
    fn helpers_take_every_move_once_first_move_first() {
        let take = |id, n| (0..n).map(|i| rotation(id, 3, n).position(i, n)).collect::<Vec<_>>();
        for id in 0..5 {
            for n in 0..7 {
                let o = take(id, n);
                let mut s = o.clone();
                s.sort();
                assert_eq!(s, (0..n).collect::<Vec<_>>());
                if n > 0 {
                    assert_eq!(o[0], 0);
                }
            }
        }
        assert_eq!((0..4).map(|i| rotation(1, 0, 4).position(i, 4)).collect::<Vec<_>>(), vec![0, 2, 3, 1]);
        assert_eq!(take(0, 5), vec![0, 1, 2, 3, 4]);
    }

    /// One helper thread's hook set alone (rotated moves, the table) from
    /// any node and window returns the fail-hard minimax value, and the
    /// table then cuts the same search short.
    #[test]
    fn a_helper_thread_returns_the_minimax_value() {
        let t = Incremental::new(4, 100).unwrap();
        let opts = Options { threads: 2, ..Options::default() };
        for seed in 1..20 {
            let root = t.root(seed);
            for depth in 1..6 {
                let want = minimax(&t, &root, true, depth, 0);
                for w in [Window::ROOT, Window { alpha: want - 40, beta: want + 40 }, Window { alpha: want, beta: want + 1 }] {
                    let sh = Search { src: &t, table: SharedTable::new(10), stop: AtomicBool::new(false), result: Mutex::new(None) };
                    let mut l = Local::new(1, &opts);
                    let mut buf = vec![Default::default(); 4 * depth as usize];
                    let v = Visit { ply: 0, index: 0, max: true, window: w, pv: false, leaf: false, moves: 0 };
                    let first = alphabeta(&t, &mut Thread { sh: &sh, l: &mut l }, &mut buf, &root, depth, v);
                    assert_eq!(first, want.clamp(w.alpha, w.beta), "seed {seed} depth {depth} {w:?}");
                    let nodes = l.nodes;
                    let again = alphabeta(&t, &mut Thread { sh: &sh, l: &mut l }, &mut buf, &root, depth, v);
                    assert_eq!((again, l.nodes - nodes), (first, 1), "the table's entry for the root decides it");
                }
            }
        }
    }
}
