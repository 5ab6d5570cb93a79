//! Exactness of every cluster algorithm: many trees, process counts 2, 3,
//! 8, 64 and 4,096, messages delivered by time and in adversarial orders.

use super::*;
use crate::cli::Input;
use crate::tree::read_trees;

fn trees(text: &str) -> Vec<Tree> {
    read_trees(Input::from_string("t", text)).unwrap()
}

fn incremental(b: u32, depth: u32, n: u64) -> Vec<Tree> {
    trees(
        &(1..=n)
            .map(|i| format!("{{\"set\":\"t\",\"index\":{i},\"seed\":{},\"model\":\"incremental\",\"b\":{b},\"scale\":100,\"depth\":{depth}}}\n", 7 * i))
            .collect::<String>(),
    )
}

fn artificial(depth: u32, n: u64) -> Vec<Tree> {
    trees(
        &(1..=n)
            .map(|i| format!("{{\"set\":\"t\",\"index\":{i},\"seed\":{},\"pscore\":1073741823,\"model\":\"exponential\",\"b\":6,\"wa\":50,\"wb\":20,\"depth\":{depth}}}\n", 11 * i))
            .collect::<String>(),
    )
}

#[test]
fn every_algorithm_is_exact_at_every_process_count_and_delivery() {
    let mut all = incremental(5, 6, 6);
    all.extend(incremental(3, 7, 4));
    let art = artificial(5, 4);
    for set in [&all, &art] {
        for t in set.iter() {
            // The plain alpha-beta search's value: the fixed-depth minimax value.
            let want = t.search(&mut ()).value;
            let seq = simulate(t, &ClusterConfig { tt_slots: 1 << 10, ..ClusterConfig::new(ClusterAlgorithm::Sequential, 1) }, Some(want));
            assert_eq!(seq.map(|s| s.value), Ok(want));
            for a in ClusterAlgorithm::ALL.into_iter().filter(|&a| a != ClusterAlgorithm::Sequential) {
                for procs in [2, 3, 8, 64, 4096] {
                    for delivery in [Delivery::Timed, Delivery::Adversarial(1), Delivery::Adversarial(99)] {
                        let cfg = ClusterConfig { tt_slots: 1 << 10, delivery, ..ClusterConfig::new(a, procs) };
                        let s = simulate(t, &cfg, Some(want)).unwrap_or_else(|e| panic!("{e}"));
                        assert_eq!(s.value, want);
                    }
                }
            }
        }
    }
}

#[test]
fn each_machine_refuses_what_it_cannot_run() {
    let t = &incremental(3, 3, 1)[0];
    let run = |a, p| simulate(t, &ClusterConfig::new(a, p), None).map(|_| ()).map_err(|e| e.to_string());
    assert_eq!(run(ClusterAlgorithm::Sequential, 2), Err("seq cannot run on 2 processes (seq: 1; even-split: 1..4096; the others: 2..4096)".into()));
    assert_eq!(run(ClusterAlgorithm::MasterSlave, 1), Err("master-slave cannot run on 1 processes (seq: 1; even-split: 1..4096; the others: 2..4096)".into()));
    assert!(run(ClusterAlgorithm::EvenSplit, 4097).is_err());
    assert_eq!(
        "ybw".parse::<ClusterAlgorithm>().map_err(|e| e.to_string()),
        Err("unknown cluster algorithm `ybw` (expected seq, even-split, master-slave, master-worker, master-worker-noupdate, master-worker-share, master-worker-negascout or ybwc)".into())
    );
    for a in ClusterAlgorithm::ALL {
        assert_eq!(a.name().parse::<ClusterAlgorithm>(), Ok(a));
    }
}

#[test]
fn the_machine_charges_its_documented_costs() {
    // Even split on 2 processes of a b = 2, depth 1 tree: each searches one
    // leaf (1 node); process 1 sends one 24-byte result.
    let t = &incremental(2, 1, 1)[0];
    let costs = Costs { node_ns: 100, send_ns: 1_000, recv_ns: 2_000, latency_ns: 20_000, bytes_per_us: 1_000 };
    let s = simulate(t, &ClusterConfig { costs, split: Some(1), ..ClusterConfig::new(ClusterAlgorithm::EvenSplit, 2) }, None).unwrap();
    assert_eq!((s.messages, s.bytes), (1, 24));
    // Both expand the root (100 ns) and search their leaf (100 ns); process
    // 1 sends at 200 + 1,000; the result arrives 20,000 + 24 bytes at 1 byte
    // per ns later, and costs process 0 2,000 to receive.
    assert_eq!(s.time_ns, 1_200 + 20_000 + 24 + 2_000);
    assert_eq!(s.counts.nodes, 4);
    // Process 0 waits from 200 to the arrival; process 1 is idle from 1,200.
    assert_eq!(s.other_idle_ns, (21_224 - 200) + (s.time_ns - 1_200));
    assert_eq!(s.startup_idle_ns, 0);
}

#[test]
fn runs_are_deterministic() {
    let t = &incremental(5, 6, 1)[0];
    let cfg = ClusterConfig::new(ClusterAlgorithm::MasterSlave, 8);
    assert_eq!(simulate(t, &cfg, None), simulate(t, &cfg, None));
}

#[test]
fn the_master_worker_is_exact_on_deeper_trees_with_small_slices() {
    // Deeper trees than above, so tasks run several iterations and the
    // master several passes; b = 20 too; slices of 64 nodes abort often.
    let mut all = incremental(5, 9, 4);
    all.extend(incremental(20, 4, 3));
    for t in &all {
        let want = t.search(&mut ()).value;
        for a in ClusterAlgorithm::ALL.into_iter().filter(|a| a.is_master_worker()) {
            for procs in [2, 3, 8, 64, 4096] {
                for delivery in [Delivery::Timed, Delivery::Adversarial(5)] {
                    for slice_nodes in [64, master_worker::DEFAULT_SLICE_NODES] {
                        let cfg = ClusterConfig { tt_slots: 1 << 12, delivery, slice_nodes, ..ClusterConfig::new(a, procs) };
                        let s = simulate(t, &cfg, Some(want)).unwrap_or_else(|e| panic!("{e}"));
                        assert_eq!(s.value, want);
                    }
                }
            }
        }
    }
}

#[test]
fn every_master_depth_is_exact() {
    // d' = 0 (the root is the only task) up to d' = d (the master searches
    // alone) and past it.
    for t in &incremental(4, 5, 3) {
        let want = t.search(&mut ()).value;
        for dm in 0..=6 {
            for procs in [2, 5] {
                for delivery in [Delivery::Timed, Delivery::Adversarial(dm as u64)] {
                    let cfg = ClusterConfig { master_depth: Some(dm), delivery, ..ClusterConfig::new(ClusterAlgorithm::MasterWorker, procs) };
                    assert_eq!(simulate(t, &cfg, Some(want)).map(|s| s.value), Ok(want), "d' {dm} procs {procs}");
                }
            }
        }
    }
}
