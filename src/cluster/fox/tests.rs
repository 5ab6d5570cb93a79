//! Fox et al.'s strategy tested: the hierarchy by hand, one run traced by
//! hand, and exactness at every granularity, process count and delivery
//! order on incremental trees and a game.

use super::*;
use crate::cluster::events::Delivery;
use crate::cluster::machine::{self, Costs};
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
                            let mut p: Vec<Fox<Incremental>> = (0..procs).map(Fox::maker(&root, *depth, g, slice, 1 << 10)).collect();
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
    use crate::cluster::{ClusterAlgorithm, ClusterConfig, ClusterSettings, simulate_source};
    use crate::game::othello::{Othello, Position};
    let root = Position::start();
    let want = minimax(&Othello, &root, true, 5, 0);
    for g in [0, 1, 3] {
        for procs in [2, 3, 8, 64] {
            for delivery in [Delivery::Timed, Delivery::Adversarial(5)] {
                let settings = ClusterSettings { tt_slots: 1 << 10, delivery, ..ClusterSettings::default() };
                let cfg = ClusterConfig { settings, ..ClusterConfig::new(ClusterAlgorithm::Fox { granularity: Some(g), slice: 64 }, procs) };
                let s = simulate_source(&Othello, &root, 5, &cfg, Some(want)).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(s.output.value, want, "g {g} on {procs}, {delivery:?}");
            }
        }
    }
}

/// Rank 0 of four, recording what it sends.
struct Record {
    sent: Vec<(usize, Msg<INode>)>,
    done: Option<i64>,
    nodes: u64,
}

impl Transport<INode> for Record {
    fn rank(&self) -> usize {
        0
    }
    fn procs(&self) -> usize {
        4
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
    fn wake(&mut self) {}
}
