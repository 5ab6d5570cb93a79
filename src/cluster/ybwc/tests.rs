//! Tests of the distributed YBWC: the plain search by hand and on the
//! simulated machine, and each switch of the full version alone and all
//! together: exact with every process count and adversarial deliveries,
//! and hand-worked cases of the helpful master and the promising rule.

use super::*;
use crate::cluster::events::Delivery;
use crate::cluster::machine::{self, Costs};
use crate::search::minimax;
use crate::tree::incremental::{INode, Incremental};
use crate::value::{ROOT_ALPHA, ROOT_BETA};

/// Rank 0 of two, recording what it sends.
struct Record {
    sent: Vec<(usize, Msg<INode>)>,
    done: Option<i64>,
    woken: u32,
    nodes: u64,
}

impl Transport<INode> for Record {
    fn rank(&self) -> usize {
        0
    }
    fn procs(&self) -> usize {
        2
    }
    fn send(&mut self, to: usize, msg: Msg<INode>) {
        self.sent.push((to, msg));
    }
    fn searched(&mut self, c: NodeCounts) {
        self.nodes += c.nodes;
    }
    fn done(&mut self, v: i64) {
        self.done = Some(v);
    }
    fn wake(&mut self) {
        self.woken += 1;
    }
}

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
    let mut p = Ybwc::<Incremental>::maker(&root, 2, 0, 1024, 1 << 10, Switches::NONE, Topology::Flat)(0);
    let mut r = Record { sent: vec![], done: None, woken: 0, nodes: 0 };
    // Start: the root's frame, A's, and A0 as a piece (one wake-up).
    p.start(&t, &mut r);
    assert_eq!((r.nodes, r.woken), (2, 1));
    // Process 1 asks: nothing is available (no first child is done), so
    // the request is kept.
    p.receive(&t, &mut r, 1, Msg::Request { origin: 1 });
    assert_eq!(r.sent, []);
    // A0 = 466: A's first child is done, A1 starts here, and A2 — of the
    // shallowest frame with an available child — goes to process 1 with
    // A's window (−∞, 466).
    p.resume(&t, &mut r);
    let w = |alpha, beta| Window { alpha, beta };
    assert_eq!(
        r.sent,
        [(1, Msg::Task(crate::cluster::transport::Job { id: 0, node: a[2], max: true, ply: 2, depth: 0, window: w(ROOT_ALPHA, OFF + 466) }))]
    );
    r.sent.clear();
    // A1 = 467: A waits for A2 alone.
    p.resume(&t, &mut r);
    assert_eq!((r.sent.len(), r.woken), (0, 2));
    // A2's result (670) closes A (466); B opens here with (466, ∞); the
    // process asks again and gets C, the root's next child.
    p.receive(&t, &mut r, 1, Msg::Result { id: 0, value: OFF + 670 });
    p.receive(&t, &mut r, 1, Msg::Request { origin: 1 });
    assert_eq!(
        r.sent,
        [(1, Msg::Task(crate::cluster::transport::Job { id: 1, node: kids[2], max: false, ply: 1, depth: 1, window: w(OFF + 466, ROOT_BETA) }))]
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
    let mut p: Vec<Ybwc<Incremental>> = (0..2).map(Ybwc::maker(&root, 2, 0, 1024, 1 << 10, Switches::NONE, Topology::Flat)).collect();
    let costs = Costs { node_ns: 100_000, ..Costs::default() };
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
                            let mut p: Vec<Ybwc<Incremental>> = (0..procs).map(Ybwc::maker(&root, *depth, g, slice, 1 << 10, Switches::NONE, Topology::Flat)).collect();
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
