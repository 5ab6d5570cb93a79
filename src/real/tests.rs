//! Unit tests of the real searches: every algorithm and scheme returns the
//! sequential value and root move on small artificial trees, at several
//! thread counts, with and without random delays.

use super::*;
use crate::classify::Predictor;
use crate::policy::{Active, Dts, LazySmp, PvSplit, Scheme, Steal, Walk};
use crate::real::idle::RealSearch;
use crate::schemes::NetworkSplit;
use crate::tree::artificial::{Model, Node, Ordering, Shape};
use crate::value::ROOT_PSCORE;

/// Every split-based configuration with schemes A and B, and Lazy SMP.
fn algorithms() -> Vec<Policy> {
    let mut v = vec![Policy::PvSplit(PvSplit), Policy::LazySmp(LazySmp)];
    for s in [Scheme::A { m_a: 1, pv_wait: 1 }, Scheme::A { m_a: 2, pv_wait: 0 }, Scheme::B { m_b: 1, pv_wait: 1 }] {
        v.push(Policy::Dts(Dts { scheme: s, walk: Walk::Tree }));
        v.push(Policy::Dts(Dts { scheme: s, walk: Walk::Level }));
        v.push(Policy::Steal(Steal { scheme: s, seed: 3 }));
        v.push(Policy::Active(Active { scheme: s, min_split_depth: 2, split_group: 3 }));
    }
    v
}

struct Fixed;
impl Predictor for Fixed {
    fn root_type(&self) -> f64 {
        0.0
    }
    fn root_wait(&self) -> f64 {
        1.0
    }
    fn predict(&self, _pv: bool, parent_type: f64, index: u32) -> (f64, f64) {
        if parent_type < 25.0 { (50.0, 1.4) } else { (90.0 - index as f64, 0.6) }
    }
}

#[test]
fn every_algorithm_is_exact_on_artificial_trees() {
    for (b, wa, wb) in [(6, 60, 20), (4, 0, 0), (7, 100, 0), (3, 33, 33)] {
        let shape = Shape::new(Model::Exponential, Ordering::new(b, wa, wb).unwrap()).unwrap();
        for seed in 1..6u32 {
            let root = Node { seed: seed * 7919, pscore: ROOT_PSCORE as u32 };
            for depth in [1, 2, 4, 6] {
                let seq = seq::run(&shape, &root, depth, &Options { threads: 1, ..Options::default() });
                for threads in [2, 3, 8] {
                    for delays in [None, Some(seed as u64)] {
                        let opts = Options { threads, node_cost_ns: 0, delays, trace: None };
                        for a in algorithms() {
                            let r = search(&shape, &root, depth, Some(a), &opts, None).unwrap();
                            assert_eq!(
                                (r.value, r.root_move),
                                (seq.value, seq.root_move),
                                "{a:?} b={b} seed={seed} depth={depth} threads={threads} delays={delays:?}"
                            );
                            assert!(r.nodes >= r.leaves && r.leaves > 0);
                        }
                        // Scheme C with a fixed predictor standing in for the network.
                        for m_ca in [-2, 0, 1] {
                            let c = NetworkSplit { net: &Fixed, cut_width: 10.0, m_ca, m_cc: 1, leaf_ply: depth };
                            let a = Dts { scheme: Scheme::C { m_ca, m_cc: 1, cut_width: 10 }, walk: Walk::Tree };
                            let r = a.run_real(&shape, &root, depth, &c, &opts).unwrap();
                            assert_eq!((r.value, r.root_move), (seq.value, seq.root_move), "scheme c m_ca={m_ca} seed={seed} depth={depth}");
                        }
                    }
                }
            }
        }
    }
}
