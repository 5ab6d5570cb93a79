//! Fox et al.'s strategy tested: the hierarchy by hand, one run traced by
//! hand, and exactness at every granularity, process count and delivery
//! order on incremental trees and a game.

use super::*;
use crate::cluster::exec::events::Delivery;
use crate::cluster::exec::machine::{self, Costs};
use crate::search::minimax;
use crate::tree::incremental::{INode, Incremental};

/// P = 8 by hand (0 → 1, 2, 4; 2 → 3; 4 → 5, 6; 6 → 7), and for every P
/// up to 300 the tree is the sub-cubes': each rank but 0 has one master,
/// which lists it as a slave, one bit apart (one hypercube hop).
#[test]
fn the_hierarchy_by_hand() {
    let by_rank: Vec<Vec<usize>> = (0..8).map(|r| slaves(r, 8)).collect();
    assert_eq!(by_rank, [vec![1, 2, 4], vec![], vec![3], vec![], vec![5, 6], vec![], vec![7], vec![]]);
    assert_eq!((0..8).map(master).collect::<Vec<_>>(), [None, Some(0), Some(0), Some(2), Some(0), Some(4), Some(4), Some(6)]);
    // Ranks at or past P are absent: P = 6 drops 6 and 7; P = 5 leaves 4 alone.
    assert_eq!((slaves(0, 6), slaves(4, 6), slaves(4, 5), slaves(0, 1)), (vec![1, 2, 4], vec![5], vec![], vec![]));
    for procs in 1..=300 {
        let mut seen = vec![0; procs];
        for r in 0..procs {
            for s in slaves(r, procs) {
                assert_eq!((master(s), (r ^ s).count_ones()), (Some(r), 1), "{r} → {s} of {procs}");
                seen[s] += 1;
            }
        }
        assert!(seen.iter().enumerate().all(|(r, &n)| n == usize::from(r > 0)), "{procs}");
    }
}

/// Every granularity (0: every internal node a frame), tiny and large
/// slices, P = 2 … 4,096, timed and adversarial deliveries, on b = 3, 5
/// and 20 trees: the minimax value; moves are followed, farmed and aborted.
#[test]
fn every_granularity_is_exact_and_aborts_happen() {
    let mut trees: Vec<(Incremental, u32)> = vec![];
    for (b, depth) in [(3, 7), (5, 6), (20, 3)] {
        trees.push((Incremental::new(b, 100).unwrap(), depth));
    }
    let (mut aborts, mut followed, mut deepened, mut own) = (0, 0, 0, 0);
    for (t, depth) in &trees {
        for seed in 1..=3 {
            let root = t.root(seed);
            let want = minimax(t, &root, true, *depth, 0);
            for g in [0, 1, 2, 4] {
                for procs in [2, 3, 8, 64, 4096] {
                    for delivery in [Delivery::Timed, Delivery::Adversarial(seed), Delivery::Adversarial(77)] {
                        for slice in [4, 1024] {
                            let mut p: Vec<FoxProcess<Incremental>> = (0..procs).map(FoxProcess::maker(&root, *depth, g, slice, 1 << 10)).collect();
                            let s = machine::run(t, &mut p, Costs::default(), delivery).expect("time within 2^64 ns");
                            assert_eq!(s.map(|s| s.value), Some(want), "seed {seed} depth {depth} g {g} procs {procs} {delivery:?}");
                            aborts += p.iter().map(|q| q.aborts).sum::<u64>();
                            followed += p.iter().map(|q| q.followed).sum::<u64>();
                            deepened += p.iter().map(|q| q.deepened).sum::<u64>();
                            own += p.iter().map(|q| q.own).sum::<u64>();
                            assert!(p.iter().map(|q| q.taken).sum::<u64>() <= p.iter().map(|q| q.given).sum::<u64>());
                        }
                    }
                }
            }
        }
    }
    assert!(aborts > 100 && followed > 100 && deepened > 100 && own > 100, "{aborts} {followed} {deepened} {own}");
}

/// On a game (Othello from the start, depth 5), through the one
/// registration: exact at every granularity and process count.
#[test]
fn a_game_tree_is_exact() {
    use crate::cluster::{ClusterConfig, ClusterSettings, simulate_source};
    use crate::game::othello::{Othello, Position};
    let root = Position::start();
    let want = minimax(&Othello, &root, true, 5, 0);
    for g in [0, 1, 3] {
        for procs in [2, 3, 8, 64] {
            for delivery in [Delivery::Timed, Delivery::Adversarial(5)] {
                let settings = ClusterSettings { tt_slots: 1 << 10, delivery, ..ClusterSettings::default() };
                let cfg = ClusterConfig { settings, ..ClusterConfig::new(Fox { granularity: Some(g), slice: Some(64) }, procs) };
                let s = simulate_source(&Othello, &root, 5, &cfg, Some(want)).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(s.output.value, want, "g {g} on {procs}, {delivery:?}");
            }
        }
    }
}

type Record = crate::cluster::exec::transport::Record<INode, FoxMsg>;

const OFF: i64 = 1 << 30;

fn task(id: u32, node: INode, max: bool, ply: u32, depth: u32, alpha: i64, beta: i64) -> Msg<INode, FoxMsg> {
    Msg::Task(Task { id, node, max, ply, depth, window: Window { alpha, beta } })
}

/// One search by hand: b = 3, depth 3, g = 1, seed 1 (values relative to
/// 2^30). The root (MAX) has children A, B, C (MIN); A's children A0, A1,
/// A2 are worth 541, 722, 1,053 at depth 1, B's 13, 383, 261, C's −225,
/// 86, 80: the root is worth 541. On 4 processes rank 0's slaves are 1 and
/// 2 (2 masters 3).
#[test]
fn the_suggested_move_is_followed_with_the_slaves_then_the_rest_self_scheduled() {
    let t = Incremental::new(3, 100).unwrap();
    let root = t.root(1);
    assert_eq!(minimax(&t, &root, true, 3, 0), OFF + 541);
    let kids = children(&t, &root, true);
    let a = children(&t, &kids[0], false);
    let (lo, hi) = (Window::ROOT.alpha, Window::ROOT.beta);
    let mut p = FoxProcess::<Incremental>::maker(&root, 3, 1, 1 << 20, 1 << 10)(0);
    let mut r = Record::new(0, 4);
    // The root (depth 3) has no table entry: it is first searched to depth
    // 1, a piece (the root and its 3 leaves).
    p.start(&t, &mut r);
    assert_eq!((r.nodes, p.deepened, r.take()), (1, 1, vec![]));
    // That search stores A as best (A's static value 502 beats 106 and 97):
    // the table suggests A. The master goes down A with its slaves: A
    // (depth 2) has no entry and is farmed out, A0 to the largest sub-cube
    // (rank 2), A1 to rank 1, and A2 (a piece: depth 1 ≤ g) the master
    // searches itself.
    p.resume(&t, &mut r);
    assert_eq!((r.nodes, p.followed, p.own), (1 + 4 + 1, 1, 1));
    assert_eq!(r.take(), [(2, task(0, a[0], true, 2, 1, lo, hi)), (1, task(1, a[1], true, 2, 1, lo, hi))]);
    // A2 = 1,053 (its 3 leaves); then A0 = 541 and A1 = 722: A = 541, which
    // does not cut the root off. B and C are farmed, self-scheduled, with the
    // window (541, ∞), to the two free slaves (rank 2's sub-cube first):
    // none is left for the master.
    p.resume(&t, &mut r);
    p.receive(&t, &mut r, 2, Msg::Result { id: 0, value: OFF + 541 });
    assert_eq!(r.take(), []);
    p.receive(&t, &mut r, 1, Msg::Result { id: 1, value: OFF + 722 });
    assert_eq!(r.take(), [(2, task(2, kids[1], false, 1, 2, OFF + 541, hi)), (1, task(3, kids[2], false, 1, 2, OFF + 541, hi))]);
    // Both fail low (541): the root is worth 541, the slaves are stopped.
    p.receive(&t, &mut r, 1, Msg::Result { id: 3, value: OFF + 541 });
    p.receive(&t, &mut r, 2, Msg::Result { id: 2, value: OFF + 541 });
    assert_eq!((r.done, r.take()), (Some(OFF + 541), vec![(1, Msg::Stop), (2, Msg::Stop)]));
    assert_eq!((r.nodes, p.given, p.aborts), (10, 4, 0));
    // What the next search of the root would be told: exactly 541, best A.
    let e = p.searcher.as_ref().and_then(|s| s.entry(&t, &root, 0)).expect("the root's entry");
    assert_eq!((e.value, e.bound, e.depth, e.best), (OFF + 541, Bound::Exact, 3, 0));

    // A slave with slaves of its own: rank 4 of 8 (slaves 5 and 6) is given
    // B with (541, ∞). B (depth 2) is farmed: B0 to 6, B1 to 5, B2 its own.
    let b = children(&t, &kids[1], false);
    let mut q = FoxProcess::<Incremental>::maker(&root, 3, 1, 1 << 20, 1 << 10)(4);
    let mut r = Record::new(4, 8);
    q.start(&t, &mut r);
    q.receive(&t, &mut r, 0, task(7, kids[1], false, 1, 2, OFF + 541, hi));
    assert_eq!(r.take(), [(6, task(0, b[0], true, 2, 1, OFF + 541, hi)), (5, task(1, b[1], true, 2, 1, OFF + 541, hi))]);
    // B0 fails low (13 ≤ 541): B is cut off. B1 is aborted, the master's
    // own B2 dropped, and B's fail-hard value goes up to rank 0.
    q.receive(&t, &mut r, 6, Msg::Result { id: 0, value: OFF + 541 });
    assert_eq!(r.take(), [(5, Msg::Abort { id: 1 }), (0, Msg::Result { id: 7, value: OFF + 541 })]);
    assert_eq!((r.nodes, q.taken, q.given, q.own, q.aborts), (1, 1, 2, 1, 1));
    // Rank 5 says it is free: B2 was never searched, and rank 4 waits idle.
    q.receive(&t, &mut r, 5, Msg::Own(FoxMsg::Request { origin: 5 }));
    q.resume(&t, &mut r);
    assert_eq!((r.nodes, r.take()), (1, vec![]));
}

/// A slave answers every task once: its value, or a word that it is free
/// when the task is aborted, even when the abort overtakes the task.
#[test]
fn an_aborted_task_is_answered_once() {
    let t = Incremental::new(3, 100).unwrap();
    let root = t.root(1);
    let kids = children(&t, &root, true);
    let mut q = FoxProcess::<Incremental>::maker(&root, 3, 1, 1 << 20, 1 << 10)(1);
    let mut r = Record::new(1, 4);
    q.start(&t, &mut r);
    // Aborted while searching: one Request back, nothing searched after.
    q.receive(&t, &mut r, 0, task(3, kids[0], false, 1, 2, Window::ROOT.alpha, Window::ROOT.beta));
    q.receive(&t, &mut r, 0, Msg::Abort { id: 3 });
    assert_eq!(r.take(), [(0, Msg::Own(FoxMsg::Request { origin: 1 }))]);
    q.resume(&t, &mut r);
    assert_eq!(r.nodes, 0);
    // An abort of a finished task is ignored; one that overtook its task
    // answers the task at once, unsearched.
    q.receive(&t, &mut r, 0, Msg::Abort { id: 2 });
    q.receive(&t, &mut r, 0, Msg::Abort { id: 5 });
    assert_eq!(r.take(), []);
    q.receive(&t, &mut r, 0, task(5, kids[1], false, 1, 2, Window::ROOT.alpha, Window::ROOT.beta));
    assert_eq!((r.take(), q.taken), (vec![(0, Msg::Own(FoxMsg::Request { origin: 1 }))], 1));
    // The next task is searched (rank 1 has no slaves: one piece) and answered.
    q.receive(&t, &mut r, 0, task(6, kids[2], false, 1, 2, Window::ROOT.alpha, Window::ROOT.beta));
    q.resume(&t, &mut r);
    assert_eq!(r.take(), [(0, Msg::Result { id: 6, value: minimax(&t, &kids[2], false, 2, 1) })]);
}
