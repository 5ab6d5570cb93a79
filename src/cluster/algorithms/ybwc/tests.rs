//! Tests of the distributed YBWC: the plain search by hand and on the
//! simulated machine, and each switch of the full version alone and all
//! together: exact with every process count and adversarial deliveries,
//! and hand-worked cases of the helpful master and the promising rule.

use super::*;
use crate::cluster::exec::events::Delivery;
use crate::cluster::exec::machine::{self, Costs};
use crate::search::minimax;
use crate::tree::incremental::{INode, Incremental};
use crate::value::{ROOT_ALPHA, ROOT_BETA};

type Record = crate::cluster::exec::transport::Record<INode, YbwcMsg>;

const OFF: i64 = 1 << 30;

#[test]
fn default_granularity_keeps_pieces_near_a_thousand_minimal_leaves() {
    // b = 5: 5^4 + 5^3 − 1 = 749 leaves at g = 7, 5^4 + 5^4 − 1 = 1,249
    // at 8; b = 20: 20^2 + 20^2 − 1 = 799 at g = 4, 8,399 at 5.
    assert_eq!((minimal_leaves(5, 7), minimal_leaves(5, 8), minimal_leaves(20, 4), minimal_leaves(20, 5)), (749, 1_249, 799, 8_399));
    let b5 = Incremental::new(5, 100).unwrap();
    let b20 = Incremental::new(20, 100).unwrap();
    assert_eq!(default_granularity(&b5, &b5.root(1), 12), 7);
    assert_eq!(default_granularity(&b20, &b20.root(1), 6), 4);
    // Never the whole tree: the root is a frame.
    assert_eq!(default_granularity(&b5, &b5.root(1), 5), 4);
    assert_eq!(default_granularity(&b5, &b5.root(1), 1), 0);
}

#[test]
fn which_child_is_given_and_when_by_hand() {
    // b = 3, depth 2, g = 0 (every leaf a piece), values relative to
    // 2^30. The root (MAX) has A, B, C (MIN, in the source's order);
    // A's leaves are 466, 467, 670, B's 43, …, C's −369, …: the root is
    // worth 466.
    let t = Incremental::new(3, 100).unwrap();
    let root = t.root(1);
    assert_eq!(minimax(&t, &root, true, 2, 0), OFF + 466);
    let kids = children(&t, &root, true);
    let a = children(&t, &kids[0], false);
    let mut p = YbwcProcess::<Incremental>::maker(&root, 2, 0, 1024, 1 << 10, Switches::NONE, Topology::Flat)(0);
    let mut r = Record::new(0, 2);
    // Start: the root's frame, A's, and A0 as a piece (one wake-up).
    p.start(&t, &mut r);
    assert_eq!((r.nodes, r.woken), (2, 1));
    // Process 1 asks: nothing is available (no first child is done), so
    // the request is kept.
    p.receive(&t, &mut r, 1, Msg::Own(YbwcMsg::Request { origin: 1 }));
    assert_eq!(r.sent, []);
    // A0 = 466: A's first child is done, A1 starts here, and A2 — of the
    // shallowest frame with an available child — goes to process 1 with
    // A's window (−∞, 466).
    p.resume(&t, &mut r);
    let w = |alpha, beta| Window { alpha, beta };
    assert_eq!(
        r.sent,
        [(1, Msg::Task(crate::cluster::exec::transport::Task { id: 0, node: a[2], max: true, ply: 2, depth: 0, window: w(ROOT_ALPHA, OFF + 466) }))]
    );
    r.sent.clear();
    // A1 = 467: A waits for A2 alone.
    p.resume(&t, &mut r);
    assert_eq!((r.sent.len(), r.woken), (0, 2));
    // A2's result (670) closes A (466); B opens here with (466, ∞); the
    // process asks again and gets C, the root's next child.
    p.receive(&t, &mut r, 1, Msg::Result { id: 0, value: OFF + 670 });
    p.receive(&t, &mut r, 1, Msg::Own(YbwcMsg::Request { origin: 1 }));
    assert_eq!(
        r.sent,
        [(1, Msg::Task(crate::cluster::exec::transport::Task { id: 1, node: kids[2], max: false, ply: 1, depth: 1, window: w(OFF + 466, ROOT_BETA) }))]
    );
    r.sent.clear();
    // B0 = 43 ≤ 466 cuts B; the root waits for C, whose value in its
    // window is 466 (C0 = −369 fails low); then the run is over.
    p.resume(&t, &mut r);
    assert_eq!((r.sent.len(), r.done), (0, None));
    p.receive(&t, &mut r, 1, Msg::Result { id: 1, value: OFF + 466 });
    assert_eq!(r.done, Some(OFF + 466));
    assert_eq!(r.sent, [(1, Msg::Stop)]);
    // Root, A, B frames and the leaves A0, A1, B0.
    assert_eq!(r.nodes, 6);
    assert_eq!((p.given, p.aborts), (2, 0));
}

#[test]
fn two_processes_on_the_same_tree_by_messages() {
    // The tree above on the simulated machine with 100 µs per node: the
    // request arrives while A0 is searched, so the same two tasks go to
    // process 1, which asks three times (at the start and after each
    // task): 3 requests, 2 tasks, 2 results and the stop.
    let t = Incremental::new(3, 100).unwrap();
    let root = t.root(1);
    let mut p: Vec<YbwcProcess<Incremental>> = (0..2).map(YbwcProcess::maker(&root, 2, 0, 1024, 1 << 10, Switches::NONE, Topology::Flat)).collect();
    let costs = Costs { node_ps: 100_000_000, ..Costs::default() };
    let s = machine::run(&t, &mut p, costs, Delivery::Timed).expect("time within 2^64 ns").expect("a value");
    assert_eq!(s.value, OFF + 466);
    assert_eq!((p[0].given, p[1].taken, p[1].passed), (2, 2, 3));
    assert_eq!(s.messages, 3 + 2 + 2 + 1);
    // Process 1: C's frame and C0.
    assert_eq!(s.counts.nodes, 6 + 1 + 2);
}

#[test]
fn every_granularity_is_exact_and_aborts_happen() {
    // Small granularities (every internal node a frame at g = 0) on
    // b = 3, 5 and 20 trees, tiny slices, every process count and
    // adversarial deliveries.
    let mut trees: Vec<(Incremental, u32)> = vec![];
    for (b, depth) in [(3, 7), (5, 6), (20, 3)] {
        trees.push((Incremental::new(b, 100).unwrap(), depth));
    }
    let mut aborts = 0;
    for (t, depth) in &trees {
        for seed in 1..=3 {
            let root = t.root(seed);
            let want = minimax(t, &root, true, *depth, 0);
            for g in [0, 1, 2] {
                for procs in [2, 3, 8, 64, 4096] {
                    for delivery in [Delivery::Timed, Delivery::Adversarial(seed), Delivery::Adversarial(77)] {
                        for slice in [4, 1024] {
                            let mut p: Vec<YbwcProcess<Incremental>> =
                                (0..procs).map(YbwcProcess::maker(&root, *depth, g, slice, 1 << 10, Switches::NONE, Topology::Flat)).collect();
                            let s = machine::run(t, &mut p, Costs::default(), delivery).expect("time within 2^64 ns");
                            assert_eq!(s.map(|s| s.value), Some(want), "seed {seed} depth {depth} g {g} procs {procs} {delivery:?}");
                            aborts += p.iter().map(|q| q.aborts).sum::<u64>();
                            // Tasks in flight at the stop are never taken.
                            assert!(p.iter().map(|q| q.taken).sum::<u64>() <= p.iter().map(|q| q.given).sum::<u64>());
                        }
                    }
                }
            }
        }
    }
    assert!(aborts > 100, "{aborts}");
}

/// Each switch alone and all together.
fn switch_sets() -> Vec<Switches> {
    let mut sets: Vec<Switches> = (0..5).map(|i| Switches::from_bits(1 << i)).collect();
    sets.push(Switches { helpful: false, ..Switches::ALL });
    sets.push(Switches::ALL);
    sets
}

/// Runs `sw` on `on` (processes, network, delivery): the value, and the processes.
fn run_switched<S: TreeSource>(
    src: &S,
    root: &S::Node,
    depth: u32,
    g: u32,
    sw: Switches,
    on: (usize, Topology, Delivery),
) -> (Option<i64>, Vec<YbwcProcess<S>>) {
    let (procs, net, delivery) = on;
    let mut p: Vec<YbwcProcess<S>> = (0..procs).map(YbwcProcess::maker(root, depth, g, 16, 1 << 10, sw, net)).collect();
    let costs = Costs { topology: net, ..Costs::default() };
    let s = machine::run(src, &mut p, costs, delivery).expect("time within 2^64 ns");
    (s.map(|s| s.value), p)
}

#[test]
fn every_switch_is_exact_and_each_does_its_work() {
    // Incremental trees b = 3, 5, 20 at small granularities, every process
    // count, adversarial deliveries, flat and hypercube networks.
    let mut trees: Vec<(Incremental, u32)> = vec![];
    for (b, depth) in [(3, 7), (5, 6), (20, 3)] {
        trees.push((Incremental::new(b, 100).unwrap(), depth));
    }
    let mut nested = 0;
    let mut narrowed = 0;
    let mut aborts = 0;
    for sw in switch_sets() {
        for (t, depth) in &trees {
            for seed in 1..=2 {
                let root = t.root(seed);
                let want = minimax(t, &root, true, *depth, 0);
                for g in [0, 2] {
                    for procs in [2, 3, 8, 64, 4096] {
                        for delivery in [Delivery::Timed, Delivery::Adversarial(seed), Delivery::Adversarial(77)] {
                            // Only the walk depends on the network.
                            let nets: &[Topology] = if sw.three_stage { &[Topology::Flat, Topology::Hypercube { hop_ns: 500 }] } else { &[Topology::Flat] };
                            for &net in nets {
                                let (v, p) = run_switched(t, &root, *depth, g, sw, (procs, net, delivery));
                                assert_eq!(v, Some(want), "{} seed {seed} depth {depth} g {g} procs {procs} {delivery:?} {net}", sw.name());
                                nested += p.iter().map(|q| q.nested).sum::<u64>();
                                narrowed += p.iter().map(|q| q.narrowed).sum::<u64>();
                                aborts += p.iter().map(|q| q.aborts).sum::<u64>();
                            }
                        }
                    }
                }
            }
        }
    }
    // The helpful master searched tasks over its waiting jobs, owners sent
    // narrowed windows, and cut-offs aborted work.
    assert!(nested > 100 && narrowed > 100 && aborts > 100, "{nested} {narrowed} {aborts}");
}

#[test]
fn every_switch_is_exact_on_a_game() {
    use crate::game::othello::{Othello, Position};
    let src = Othello;
    let root = Position::start();
    let want = minimax(&src, &root, true, 5, 0);
    for sw in switch_sets() {
        for procs in [2, 3, 8, 64, 4096] {
            for delivery in [Delivery::Timed, Delivery::Adversarial(5)] {
                let (v, _) = run_switched(&src, &root, 5, 2, sw, (procs, Topology::Flat, delivery));
                assert_eq!(v, Some(want), "{} procs {procs} {delivery:?}", sw.name());
            }
        }
    }
}

/// The helpful master by hand: b = 3, depth 3, g = 0, rank 0 of two.
/// Process 1 takes A0's last leaf, then A1 (a frame); rank 0 searches A2
/// (cut at its first leaf) and then waits for A1 alone: it asks process 1
/// for work in A1's subtree, searches the leaf it gets over its waiting
/// job and returns it; asks again (a task arrived meanwhile), is told no
/// work and asks no more; A1's result then closes A and B opens.
#[test]
fn the_helpful_master_by_hand() {
    let t = Incremental::new(3, 100).unwrap();
    let root = t.root(1);
    let sw = Switches { helpful: true, ..Switches::NONE };
    let mut p = YbwcProcess::<Incremental>::maker(&root, 3, 0, 1024, 1 << 10, sw, Topology::Flat)(0);
    let mut r = Record::new(0, 2);
    let task = |m: &Msg<INode, YbwcMsg>| match m {
        Msg::Task(j) => j.clone(),
        m => panic!("{m:?}"),
    };
    let value = |j: &crate::cluster::exec::transport::Task<INode>| minimax(&t, &j.node, j.max, j.depth, j.ply).clamp(j.window.alpha, j.window.beta);
    p.start(&t, &mut r);
    p.receive(&t, &mut r, 1, Msg::Own(YbwcMsg::Request { origin: 1 }));
    p.resume(&t, &mut r);
    let a02 = task(&r.sent[0].1);
    assert_eq!((r.sent.len(), a02.ply, a02.depth), (1, 3, 0));
    r.sent.clear();
    // A01 here; A0 waits for a piece's helper, which has nothing to give.
    p.resume(&t, &mut r);
    assert_eq!(r.sent, []);
    p.receive(&t, &mut r, 1, Msg::Result { id: 0, value: value(&a02) });
    p.receive(&t, &mut r, 1, Msg::Own(YbwcMsg::Request { origin: 1 }));
    let a1 = task(&r.sent[0].1);
    assert_eq!((r.sent.len(), a1.id, a1.ply, a1.depth), (1, 1, 2, 1));
    r.sent.clear();
    // A2's first leaf cuts it: A waits for A1 alone and rank 0 asks its helper.
    p.resume(&t, &mut r);
    assert_eq!(r.sent, [(1, Msg::Own(YbwcMsg::Help { origin: 0, id: 1 }))]);
    r.sent.clear();
    // The helper gives a leaf of A1 (its id 7 there): searched over the
    // waiting job, its value returned to the helper.
    let leaf = children(&t, &a1.node, true)[1];
    let nested = crate::cluster::exec::transport::Task { id: 7, node: leaf, max: false, ply: 3, depth: 0, window: a1.window };
    p.receive(&t, &mut r, 1, Msg::Task(nested.clone()));
    assert_eq!((p.jobs.len(), p.nested), (2, 1));
    p.resume(&t, &mut r);
    // (A leaf's value is exact, unclamped.)
    let leaf_value = minimax(&t, &leaf, false, 0, 3);
    assert_eq!(r.sent, [(1, Msg::Result { id: 7, value: leaf_value }), (1, Msg::Own(YbwcMsg::Help { origin: 0, id: 1 }))]);
    r.sent.clear();
    assert_eq!(p.jobs.len(), 1);
    // No work: no more asking until a result arrives.
    p.receive(&t, &mut r, 1, Msg::Own(YbwcMsg::NoWork));
    assert_eq!(r.sent, []);
    // A1's result closes A; B opens here (its first leaf a piece to search).
    let woken = r.woken;
    p.receive(&t, &mut r, 1, Msg::Result { id: 1, value: value(&a1) });
    assert_eq!((r.sent.len(), r.woken), (0, woken + 1));
    assert_eq!(p.jobs[0].frames.len(), 3);
}

/// The promising rule by hand: b = 3, depth 2, g = 0, rank 0 of two, an
/// empty table. The root and its first child A are type 1: as the plain
/// search, A's last leaf goes out once A0 is done (its id carries type 2).
/// B is type 2 with no table move: its children are available at once,
/// before B0 is done — where the plain search keeps the request.
#[test]
fn the_promising_rule_by_hand() {
    let t = Incremental::new(3, 100).unwrap();
    let root = t.root(1);
    let kids = children(&t, &root, true);
    let b = children(&t, &kids[1], false);
    for (sw, gives) in [(Switches::NONE, false), (Switches { promising: true, ..Switches::NONE }, true)] {
        let mut p = YbwcProcess::<Incremental>::maker(&root, 2, 0, 1024, 1 << 10, sw, Topology::Flat)(0);
        let mut r = Record::new(0, 2);
        p.start(&t, &mut r);
        p.receive(&t, &mut r, 1, Msg::Own(YbwcMsg::Request { origin: 1 }));
        p.resume(&t, &mut r);
        let Msg::Task(a2) = r.sent[0].1.clone() else { panic!("{:?}", r.sent) };
        assert_eq!((r.sent.len(), a2.id), (1, if gives { 2 } else { 0 }));
        r.sent.clear();
        p.resume(&t, &mut r);
        // A2's value closes A (A1 done): B opens with B0 here; C, the root's
        // next child, goes to the asker first.
        p.receive(&t, &mut r, 1, Msg::Result { id: a2.id, value: OFF + 670 });
        p.receive(&t, &mut r, 1, Msg::Own(YbwcMsg::Request { origin: 1 }));
        let Msg::Task(c) = r.sent[0].1.clone() else { panic!("{:?}", r.sent) };
        assert_eq!((c.node, c.id), (kids[2], if gives { 4 | 2 } else { 1 }));
        r.sent.clear();
        // A second request: B1 at once (type 2, id 8 | 2) or kept.
        p.receive(&t, &mut r, 1, Msg::Own(YbwcMsg::Request { origin: 1 }));
        if gives {
            let Msg::Task(b1) = r.sent[0].1.clone() else { panic!("{:?}", r.sent) };
            assert_eq!((b1.node, b1.id, b1.max), (b[1], 8 | 2, true));
        } else {
            assert_eq!(r.sent, []);
        }
    }
}

/// Windows sent to a helper by hand: b = 3, depth 3, g = 0. A helper given
/// A (a MIN node, the root window) narrows A's frame, A0's frame above it
/// and the piece to the window its owner sends; its result is the
/// fail-hard value in the narrowed window: A's value when the new α is
/// below it, α when above (A fails low).
#[test]
fn a_helper_narrows_its_frames_by_hand() {
    let t = Incremental::new(3, 100).unwrap();
    let root = t.root(1);
    let a = children(&t, &root, true)[0];
    let v = minimax(&t, &a, false, 2, 1);
    let sw = Switches { windows: true, ..Switches::NONE };
    for alpha in [v - 5, v + 5] {
        let mut p = YbwcProcess::<Incremental>::maker(&root, 3, 0, 1024, 1 << 10, sw, Topology::Flat)(1);
        let mut r = Record::new(0, 2);
        p.receive(&t, &mut r, 0, Msg::Task(crate::cluster::exec::transport::Task { id: 3, node: a, max: false, ply: 1, depth: 2, window: Window::ROOT }));
        let w = Window { alpha, beta: ROOT_BETA };
        p.receive(&t, &mut r, 0, Msg::Own(YbwcMsg::Narrow { id: 3, window: w }));
        let job = &p.jobs[0];
        assert_eq!((job.frames[0].w.alpha, job.frames[1].w.alpha, job.piece.as_ref().map(|q| q.window)), (alpha, alpha, Some(w)));
        while r.sent.is_empty() {
            p.resume(&t, &mut r);
        }
        assert_eq!(r.sent[0], (0, Msg::Result { id: 3, value: v.max(alpha) }));
    }
}
