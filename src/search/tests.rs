//! The one alpha-beta against plain minimax on the games (the artificial
//! and incremental trees test it in `tree`, which uses this module): the
//! thesis's hook set, any move order and window, a table's stores, giving
//! up.

use super::*;
use crate::game::chess::{Chess, Position as ChessPosition};
use crate::game::othello::{Othello, Position as OthelloPosition};
use crate::tt::Bound;
use crate::value::ROOT_BETA;

/// The thesis's search returns the minimax value on every source, and
/// counts every node it enters once.
#[test]
fn the_thesis_search_is_minimax_on_every_source() {
    struct Tally(u64);
    impl Observer for Tally {
        fn enter(&mut self, _v: &Visit) {
            self.0 += 1;
        }
    }
    fn check<S: TreeSource>(src: &S, root: &S::Node, depth: u32) {
        let mut t = Tally(0);
        let r = search(src, root, depth, &mut t);
        assert_eq!(r.value, minimax(src, root, true, depth, 0), "depth {depth}");
        assert_eq!((r.counts.nodes, r.counts.leaves + r.counts.internal), (t.0, t.0));
    }
    let chess = ChessPosition::parse("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
    let mate = ChessPosition::parse("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap();
    for depth in 0..4 {
        check(&Chess, &chess, depth);
        check(&Chess, &mate, depth);
    }
    for root in othello_roots() {
        for depth in 0..6 {
            check(&Othello, &root, depth);
        }
    }
}

/// Othello positions two plies from the start (MAX to move in each).
fn othello_roots() -> Vec<OthelloPosition> {
    let start = OthelloPosition::start();
    crate::game::children(&Othello, &start, true).iter().flat_map(|c| crate::game::children(&Othello, c, false)).step_by(3).collect()
}

/// A hook set that takes the moves in a fixed permutation and keeps what
/// the search stores, or gives up after a number of nodes.
struct Probing {
    first: u32,
    shift: u32,
    stored: Vec<(u64, u32, bool, u32, i64, Bound, u32)>,
    nodes: u64,
    limit: u64,
}

impl Probing {
    fn new(first: u32, shift: u32) -> Probing {
        Probing { first, shift, stored: vec![], nodes: 0, limit: u64::MAX }
    }
}

impl Observer for Probing {
    fn enter(&mut self, _v: &Visit) {
        self.nodes += 1;
    }
}

impl<S: TreeSource> Hooks<S> for Probing {
    fn abort(&mut self, _depth: u32) -> bool {
        self.nodes >= self.limit
    }
    fn aborted(&self) -> bool {
        self.nodes >= self.limit
    }
    fn order(&self, _v: &Visit, _depth: u32, moves: u32, _hint: Option<u32>) -> Order {
        Order::Permuted { first: self.first.min(moves - 1), shift: self.shift }
    }
    fn store(&mut self, src: &S, node: &S::Node, v: &Visit, e: crate::tt::Entry) {
        self.stored.push((src.root_key(node), v.ply, v.max, e.depth, e.value, e.bound, e.best));
    }
}

fn run<S: TreeSource>(t: &S, h: &mut Probing, root: &S::Node, depth: u32, w: Window) -> i64 {
    let mut buf = vec![Default::default(); t.slots() * depth as usize];
    alphabeta(t, h, &mut buf, root, depth, Visit { ply: 0, index: 0, max: true, window: w, pv: true, leaf: false, moves: 0 })
}

/// In any order and window the search returns the fail-hard minimax value,
/// and every stored result is a true bound of its node's value with its
/// best move's value behind it.
#[test]
fn any_order_and_window_gives_the_fail_hard_value_and_true_bounds() {
    let t = Othello;
    let mut stores = 0;
    for root in othello_roots() {
        for depth in 1..5 {
            let want = minimax(&t, &root, true, depth, 0);
            // Every node above the horizon by its key and ply: itself, MAX or not.
            let mut all = std::collections::HashMap::new();
            let mut walk = vec![(root.clone(), 0u32, true)];
            while let Some((n, ply, max)) = walk.pop() {
                if ply + 1 < depth {
                    walk.extend(crate::game::children(&t, &n, max).into_iter().map(|c| (c, ply + 1, !max)));
                }
                all.insert((t.root_key(&n), ply), (n, max));
            }
            for w in [
                Window::ROOT,
                Window { alpha: want - 30, beta: want + 30 },
                Window { alpha: want, beta: want + 1 },
                Window { alpha: want + 1, beta: want + 90 },
            ] {
                for (first, shift) in [(0, 0), (1, 0), (3, 0), (0, 1), (2, 2)] {
                    let mut h = Probing::new(first, shift);
                    assert_eq!(run(&t, &mut h, &root, depth, w), want.clamp(w.alpha, w.beta), "{root:?} depth {depth} {w:?} {first} {shift}");
                    for &(key, ply, max, d, value, bound, best) in &h.stored {
                        let (n, m) = &all[&(key, ply)];
                        assert_eq!((max, d), (*m, depth - ply));
                        let exact = minimax(&t, n, max, d, ply);
                        match bound {
                            Bound::Exact => assert_eq!(value, exact),
                            Bound::Lower => assert!(exact >= value, "{key}"),
                            Bound::Upper => assert!(exact <= value, "{key}"),
                        }
                        // Unless every move failed, the best move holds the
                        // value up (at a MIN node, down).
                        if bound != if max { Bound::Upper } else { Bound::Lower } {
                            let kid = &crate::game::children(&t, n, max)[best as usize];
                            let kv = minimax(&t, kid, !max, d - 1, ply + 1);
                            assert!(if max { kv >= value } else { kv <= value }, "best move of {key}");
                        }
                        stores += 1;
                    }
                }
            }
        }
    }
    assert!(stores > 5_000, "{stores}");
}

/// A search that gives up returns its window's lower end, enters no node
/// after it and stores nothing it had not finished.
#[test]
fn giving_up_stops_at_once_and_stores_nothing_unfinished() {
    let t = Othello;
    let root = othello_roots()[1].clone();
    let mut full = Probing::new(0, 0);
    run(&t, &mut full, &root, 6, Window::ROOT);
    for limit in [1, 2, 10, 100, full.nodes / 2, full.nodes - 1] {
        let mut h = Probing { limit, ..Probing::new(0, 0) };
        let w = Window { alpha: 5, beta: ROOT_BETA };
        assert_eq!(run(&t, &mut h, &root, 6, w), 5, "limit {limit}");
        assert_eq!(h.nodes, limit);
        // What it stored is what the full search stored first.
        assert!(h.stored.len() < full.stored.len());
        assert_eq!(h.stored[..], full.stored[..h.stored.len()]);
    }
}

#[test]
fn permuted_orders_take_each_move_once() {
    for n in 1..7 {
        for first in 0..n {
            for shift in 0..n {
                let o = Order::Permuted { first, shift };
                let p: Vec<u32> = (0..n).map(|i| o.position(i, n)).collect();
                let mut s = p.clone();
                s.sort();
                assert_eq!(s, (0..n).collect::<Vec<_>>());
                assert_eq!(p[0], first);
            }
        }
    }
    assert_eq!((0..5).map(|i| Order::Permuted { first: 2, shift: 0 }.position(i, 5)).collect::<Vec<_>>(), vec![2, 0, 1, 3, 4]);
    assert_eq!((0..5).map(|i| Order::Permuted { first: 2, shift: 1 }.position(i, 5)).collect::<Vec<_>>(), vec![2, 1, 3, 4, 0]);
    assert_eq!((0..5).map(|i| Order::Source.position(i, 5)).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
}
