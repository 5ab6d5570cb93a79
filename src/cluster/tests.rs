//! Exactness of every cluster algorithm: many trees, process counts 2, 3,
//! 8, 64 and 4,096, messages delivered by time and in adversarial orders;
//! the defaults each run resolves; rows that do not depend on the host's
//! threads; the processor load, by hand and against the idle times.

use super::*;
use crate::cli::Input;
use crate::cluster::algorithm::DEFAULT_SLICE_NODES;
use crate::cluster::algorithms::{
    fox::Fox,
    master_worker::MasterWorker,
    pv_split::PvSplit,
    root_split::{EvenSplit, MasterSlave},
    seq::Sequential,
    ybwc::Ybwc,
};
use crate::cluster::run::{ClusterRequest, Procs};
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

/// The default machine with `slots` table entries and `delivery`.
fn machine(slots: usize, delivery: Delivery) -> ClusterSettings {
    ClusterSettings { tt_slots: slots, delivery, ..ClusterSettings::default() }
}

/// `simulate` checks a run against the cluster's own sequential search
/// (`want` = `None`); each value is checked here against the plain
/// alpha-beta search's, which shares no code with it.
#[test]
fn every_algorithm_is_exact_at_every_process_count_and_delivery() {
    let mut all = incremental(5, 6, 6);
    all.extend(incremental(3, 7, 4));
    let art = artificial(5, 4);
    for set in [&all, &art] {
        for t in set.iter() {
            // The plain alpha-beta search's value: the fixed-depth minimax value.
            let want = t.search(&mut ()).value;
            let seq = ClusterConfig { settings: machine(1 << 10, Delivery::Timed), ..ClusterConfig::new(Sequential, 1) };
            assert_eq!(simulate(t, &seq, None).map(|s| s.output.value), Ok(want));
            for a in ClusterAlgorithm::parallel() {
                for procs in [2, 3, 8, 64, 4096] {
                    for delivery in [Delivery::Timed, Delivery::Adversarial(1), Delivery::Adversarial(99)] {
                        let cfg = ClusterConfig { settings: machine(1 << 10, delivery), ..ClusterConfig::new(a, procs) };
                        let s = simulate(t, &cfg, None).unwrap_or_else(|e| panic!("{e}"));
                        assert_eq!(s.output.value, want, "{a} on {procs}, {delivery:?}");
                    }
                }
            }
        }
    }
}

/// What a run resolves is what it ran with, and what its row says: the
/// defaults worked out from the tree (b = 5, depth 6) and the process
/// count, the explicit values capped at the depth. Every registered
/// algorithm keeps its name and runs again with what it resolved to
/// unchanged; the others' rules below, each found in the registry by name.
#[test]
fn each_run_returns_the_parameters_it_resolved() {
    let t = &incremental(5, 6, 1)[0];
    let ran = |a: ClusterAlgorithm, procs| simulate(t, &ClusterConfig::new(a, procs), None).unwrap().algorithm;
    for a in ClusterAlgorithm::all() {
        let procs = 3.clamp(*a.procs().start(), *a.procs().end());
        let resolved = ran(a, procs);
        assert_eq!(resolved.name(), a.name(), "{a} on {procs}");
        assert_eq!(ran(resolved, procs), resolved, "{a} on {procs}");
    }
    let registered = |name: &str| ClusterAlgorithm::all().into_iter().find(|a| a.name() == name).unwrap_or_else(|| panic!("no {name} in the registry"));
    let [even, slave, mw, noupdate, share, negascout, ybwc, pv, fox] =
        ["even-split", "master-slave", "master-worker", "master-worker-noupdate", "master-worker-share", "master-worker-negascout", "ybwc", "pv-split", "fox"]
            .map(registered);
    let slice = Some(DEFAULT_SLICE_NODES);
    // The split ply: 1 (5 nodes) for 4 processes, 2 (25) for 8.
    assert_eq!(ran(even, 4), EvenSplit { split: Some(1) }.into());
    assert_eq!(ran(slave, 8), MasterSlave { split: Some(2) }.into());
    assert_eq!(ran(EvenSplit { split: Some(9) }.into(), 8), EvenSplit { split: Some(6) }.into());
    // d': the shallowest ply with 3 leaves per worker: 5 >= 3 for 2
    // processes, 25 >= 21 for 8, 625 >= 189 for 64.
    assert_eq!(ran(mw, 2), MasterWorker { master_depth: Some(1), slice, variant: MwVariant::Updates }.into());
    assert_eq!(ran(noupdate, 8), MasterWorker { master_depth: Some(2), slice, variant: MwVariant::NoUpdate }.into());
    assert_eq!(ran(mw, 64).cut(), Some(Cut::MasterDepth(4)));
    let capped = MasterWorker { master_depth: Some(9), slice: Some(64), variant: MwVariant::Updates }.into();
    assert_eq!(ran(capped, 2), MasterWorker { master_depth: Some(6), slice: Some(64), variant: MwVariant::Updates }.into());
    // Sharing depth: 5^4 = 625 <= 625; ε at least 1.
    assert!(matches!(ran(share, 3), ClusterAlgorithm::MasterWorker(MasterWorker { variant: MwVariant::Share { depth: Some(4) }, .. })));
    let eps = MasterWorker { master_depth: None, slice, variant: MwVariant::NegaScout { epsilon: Some(0) } }.into();
    assert!(matches!(ran(eps, 3), ClusterAlgorithm::MasterWorker(MasterWorker { variant: MwVariant::NegaScout { epsilon: Some(1) }, .. })));
    assert!(matches!(ran(negascout, 3), ClusterAlgorithm::MasterWorker(MasterWorker { variant: MwVariant::NegaScout { epsilon: Some(e) }, .. }) if e >= 1));
    // YBWC's granularity: 7 for b = 5 (749 minimal-tree leaves), at most depth − 1.
    assert_eq!(ran(ybwc, 3), Ybwc { granularity: Some(5), slice, switches: crate::cluster::algorithms::ybwc::Switches::NONE }.into());
    // The PV split's deepest PV node: depth 6 − 3; capped at the depth.
    assert_eq!(ran(pv, 3), PvSplit { split: Some(3), slice }.into());
    assert_eq!(ran(PvSplit { split: Some(9), slice: Some(64) }.into(), 2), PvSplit { split: Some(6), slice: Some(64) }.into());
    // Fox's granularity: YBWC's rule.
    assert_eq!(ran(fox, 8), Fox { granularity: Some(5), slice }.into());
    assert_eq!(ran(Fox { granularity: Some(2), slice: Some(64) }.into(), 2).cut(), Some(Cut::Granularity(2)));
    assert_eq!(ran(ClusterAlgorithm::SEQUENTIAL, 1).cut(), None);
    assert_eq!(ran(even, 4).cut(), Some(Cut::SplitPly(1)));
    assert_eq!(Cut::columns(ran(pv, 3).cut()), [Some(3), None, None]);
    assert_eq!(Cut::columns(ran(mw, 64).cut()), [None, Some(4), None]);
    assert_eq!(Cut::columns(ran(ybwc, 3).cut()), [None, None, Some(5)]);
}

#[test]
fn each_machine_refuses_what_it_cannot_run() {
    let t = &incremental(3, 3, 1)[0];
    let run = |a: &str, p| simulate(t, &ClusterConfig::new(a.parse::<ClusterAlgorithm>().unwrap(), p), None).map(|_| ()).map_err(|e| e.to_string());
    assert_eq!(run("seq", 2), Err("seq cannot run on 2 processes (seq: 1; see pabsim --list-algorithms)".into()));
    assert_eq!(run("master-slave", 1), Err("master-slave cannot run on 1 processes (master-slave: 2..4096; see pabsim --list-algorithms)".into()));
    assert!(run("even-split", 4097).is_err());
    let threads = Some(hybrid::RankThreads { threads: 2, policy: crate::policy::Policy::PvSplit(crate::policy::PvSplit) });
    let on_threads = |a: &str| ClusterConfig {
        settings: ClusterSettings { threads, ..ClusterSettings::default() },
        ..ClusterConfig::new(a.parse::<ClusterAlgorithm>().unwrap(), 2)
    };
    assert!(on_threads("master-slave").check().is_ok());
    assert!(matches!(on_threads("ybwc").check(), Err(ClusterError::Threads { .. })));
    // The unknown name's message lists every registered name, in table
    // order, then YBWC's rule.
    let names: Vec<&str> = ClusterAlgorithm::all().iter().map(|a| a.name()).collect();
    let (last, rest) = names.split_last().expect("a registry");
    assert!(!rest.is_empty(), "one algorithm in the registry: {names:?}");
    assert_eq!(
        "ybw".parse::<ClusterAlgorithm>().map_err(|e| e.to_string()),
        Err(format!(
            "unknown cluster algorithm `ybw` (expected {} or {last}; YBWC with some switches: ybwc-full-no-W or ybwc+W+…, W in helpful, three-stage, promising, order, windows, in that order)",
            rest.join(", ")
        ))
    );
    for a in ClusterAlgorithm::all() {
        assert_eq!(a.name().parse::<ClusterAlgorithm>(), Ok(a));
    }
}

#[test]
fn the_machine_charges_its_documented_costs() {
    // Even split on 2 processes of a b = 2, depth 1 tree: each searches one
    // leaf (1 node); process 1 sends one 24-byte result.
    let t = &incremental(2, 1, 1)[0];
    let costs = Costs { node_ps: 100_000, send_ns: 1_000, recv_ns: 2_000, latency_ns: 20_000, bytes_per_us: 1_000, ..Costs::default() };
    let cfg = ClusterConfig { settings: ClusterSettings { costs, ..ClusterSettings::default() }, ..ClusterConfig::new(EvenSplit { split: Some(1) }, 2) };
    let s = simulate(t, &cfg, None).unwrap().output;
    assert_eq!((s.messages, s.bytes), (1, 24));
    // Both expand the root (100 ns) and search their leaf (100 ns); process
    // 1 sends at 200 + 1,000; the result arrives 20,000 + 24 bytes at 1 byte
    // per ns later, and costs process 0 2,000 to receive.
    assert_eq!(s.time_ns, 1_200 + 20_000 + 24 + 2_000);
    assert_eq!(s.counts.nodes, 4);
    // Process 0 waits from 200 to the arrival; process 1 is idle from 1,200.
    assert_eq!(s.other_idle_ns, (21_224 - 200) + (s.time_ns - 1_200));
    assert_eq!(s.startup_idle_ns, 0);
    // Busy: process 0 searched 200 and received 2,000; process 1 searched
    // 200 and sent 1,000. Their loads are 2,200 and 1,200 over 23,224.
    assert_eq!(s.busy_ns, [2_200, 1_200]);
}

/// Two costs: a leaf at `leaf_ps`, any other node at `node_ps`,
/// fractions of a ns carried. The sequential baseline's time is exactly its
/// leaves and its other nodes at their costs, to the ns below; `leaf_ps`
/// equal to `node_ps` is the one-cost machine, to the nanosecond, for a
/// parallel run too.
#[test]
fn a_leaf_and_any_other_node_have_costs_of_their_own() {
    let t = &incremental(5, 6, 1)[0];
    let on = |algorithm, procs, node_ps, leaf_ps| {
        let costs = Costs { node_ps, leaf_ps, ..Costs::default() };
        let cfg =
            ClusterConfig { settings: ClusterSettings { costs, tt_slots: 1 << 12, ..ClusterSettings::default() }, ..ClusterConfig::new(algorithm, procs) };
        simulate(t, &cfg, None).unwrap().output
    };
    let seq = on(ClusterAlgorithm::SEQUENTIAL, 1, 30_250, Some(7_125));
    let c = seq.counts;
    assert!(c.leaves > 0 && c.leaves < c.nodes);
    assert_eq!(seq.time_ns, (c.leaves * 7_125 + (c.nodes - c.leaves) * 30_250) / 1_000);
    assert_eq!(on(ClusterAlgorithm::SEQUENTIAL, 1, 300_000, None).time_ns, c.nodes * 300);
    let ybwc: ClusterAlgorithm = "ybwc".parse().unwrap();
    assert_eq!(on(ybwc, 4, 300_000, Some(300_000)), on(ybwc, 4, 300_000, None));
    // Cheaper leaves, a shorter run; the same search.
    let (two, one) = (on(ybwc, 4, 300_000, Some(70_000)), on(ybwc, 4, 300_000, None));
    assert!(two.time_ns < one.time_ns);
    assert_eq!((two.value, two.counts), (one.value, one.counts));
}

/// Processes of unequal speed: every process at half speed with free
/// messages is the same run at twice the time; classes that give every rank
/// the reference speed are the default machine; one slow process makes the
/// run slower and changes nothing of the root's value.
#[test]
fn a_process_searches_at_its_speed() {
    use crate::cluster::exec::speeds::ProcSpeeds;
    let t = &incremental(5, 7, 1)[0];
    let on = |algorithm: ClusterAlgorithm, procs, speeds: &str, free: bool| {
        let mut costs = Costs { speeds: if speeds.is_empty() { ProcSpeeds::default() } else { speeds.parse().unwrap() }, ..Costs::default() };
        if free {
            costs = Costs { send_ns: 0, recv_ns: 0, latency_ns: 0, bytes_per_us: u64::MAX / 1_000_000, ..costs };
        }
        let cfg =
            ClusterConfig { settings: ClusterSettings { costs, tt_slots: 1 << 12, ..ClusterSettings::default() }, ..ClusterConfig::new(algorithm, procs) };
        simulate(t, &cfg, None).unwrap().output
    };
    for name in ["master-worker", "ybwc"] {
        let a: ClusterAlgorithm = name.parse().unwrap();
        let (one, half) = (on(a, 4, "", true), on(a, 4, "1:0.5", true));
        assert_eq!((half.time_ns, half.counts, half.value), (2 * one.time_ns, one.counts, one.value), "{name}");
        assert_eq!(on(a, 4, "2:1,2:1", false), on(a, 4, "", false), "{name}");
        let slow = on(a, 4, "3:1,1:0.25", false);
        let even = on(a, 4, "", false);
        assert!(slow.time_ns > even.time_ns, "{name}: {} against {}", slow.time_ns, even.time_ns);
        assert_eq!(slow.value, even.value, "{name}");
    }
}

/// A wake-up a process asked for costs it `wake_ns`: YBWC's
/// processes, which wake between slices, are busy exactly `wake_ns` longer
/// per wake-up (counted by a recorder); the search and the messages are the
/// same, and the sequential baseline, which never wakes, is unchanged.
#[test]
fn a_wake_up_costs_its_process_wake_ns() {
    use crate::cluster::exec::record::{Handler, Recorder};
    #[derive(Default)]
    struct Wakes(u64);
    impl Recorder for Wakes {
        const ON: bool = true;
        type Tag = ();
        fn sent<N, A: exec::transport::OwnMsg<N>>(&mut self, _: usize, _: usize, _: u64, _: u64, _: &exec::transport::Msg<N, A>) {}
        fn handled(&mut self, _: usize, what: Handler, _: u64, _: u64, _: u64) {
            self.0 += u64::from(matches!(what, Handler::Resume));
        }
    }
    let t = &incremental(5, 10, 1)[0];
    let on = |algorithm: ClusterAlgorithm, procs, wake_ns| {
        let costs = Costs { wake_ns, latency_ns: 0, ..Costs::default() };
        let cfg =
            ClusterConfig { settings: ClusterSettings { costs, tt_slots: 1 << 12, ..ClusterSettings::default() }, ..ClusterConfig::new(algorithm, procs) };
        let mut wakes = Wakes::default();
        let s = simulate_tree_recorded(t, &cfg, None, &mut wakes).unwrap().output;
        (s, wakes.0)
    };
    let ybwc: ClusterAlgorithm = "ybwc".parse().unwrap();
    // Two processes, so that the wake-ups' cost does not reorder anything:
    // compared with the free wake-up, the run is the same.
    let ((free, n), (paid, m)) = (on(ybwc, 2, 0), on(ybwc, 2, 500));
    assert!(n > 10, "YBWC wakes between slices ({n})");
    assert_eq!((n, paid.counts, paid.messages, paid.value), (m, free.counts, free.messages, free.value));
    assert_eq!(paid.busy_ns.iter().sum::<u64>() - free.busy_ns.iter().sum::<u64>(), 500 * n);
    let seq = |w| on(ClusterAlgorithm::SEQUENTIAL, 1, w).0.time_ns;
    assert_eq!(seq(500), seq(0));
}

/// The rows do not depend on the host: the same on 1 and on 3 of rayon's
/// threads (runs finish in other orders), and one run's numbers are those
/// stored here (a change to the machine, the searches or the messages
/// shows, and an order that leaked from a hash map would too).
#[test]
fn runs_are_deterministic() {
    let trees = incremental(5, 6, 3);
    let req = ClusterRequest {
        procs: Procs::Counts(vec![1, 3, 8]),
        algorithms: ClusterAlgorithm::parallel(),
        settings: machine(1 << 12, Delivery::Timed),
        per_tree: true,
    };
    let on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| run::run(&trees, &req, None, None, &crate::progress::Progress::hidden())).unwrap()
    };
    let one = on(1);
    assert_eq!(one.len(), 3 * (1 + 2 * ClusterAlgorithm::parallel().len()));
    assert_eq!(one, on(3));
    let t = &trees[0];
    let ms = simulate(t, &ClusterConfig::new(MasterSlave::default(), 8), None).unwrap().output;
    assert_eq!((ms.value, ms.time_ns, ms.counts.nodes, ms.messages, ms.bytes), STORED);
}

/// `runs_are_deterministic`'s master-slave on 8 processes, tree 1: (root
/// value, time ns, nodes, messages, bytes), as `pabsim --machine cluster
/// --procs 8 --algorithm master-slave --per-tree` writes them (the same
/// with the compact tables as with the direct-mapped table before them).
const STORED: (i64, u64, u64, u64, u64) = (1_073_742_201, 397_588, 3_578, 50, 1_800);

#[test]
fn the_master_worker_is_exact_on_deeper_trees_with_small_slices() {
    // Deeper trees than above, so tasks run several iterations and the
    // master several passes; b = 20 too; slices of 64 nodes abort often.
    let mut all = incremental(5, 9, 4);
    all.extend(incremental(20, 4, 3));
    for t in &all {
        let want = t.search(&mut ()).value;
        for a in MasterWorker::registered() {
            for procs in [2, 3, 8, 64, 4096] {
                for delivery in [Delivery::Timed, Delivery::Adversarial(5)] {
                    for slice_nodes in [64, DEFAULT_SLICE_NODES] {
                        let a = MasterWorker { slice: Some(slice_nodes), ..a };
                        let cfg = ClusterConfig { settings: machine(1 << 12, delivery), ..ClusterConfig::new(a, procs) };
                        let s = simulate(t, &cfg, None).unwrap_or_else(|e| panic!("{e}"));
                        assert_eq!(s.output.value, want, "{} on {procs}, {delivery:?}, slices of {slice_nodes}", a.name());
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
                    let a = MasterWorker { master_depth: Some(dm), ..MasterWorker::new(MwVariant::Updates) };
                    let cfg = ClusterConfig { settings: machine(search::DEFAULT_TT_SLOTS, delivery), ..ClusterConfig::new(a, procs) };
                    let s = simulate(t, &cfg, None).map(|s| (s.output.value, s.algorithm.cut()));
                    assert_eq!(s, Ok((want, Some(Cut::MasterDepth(dm.min(5))))), "d' {dm} procs {procs}");
                }
            }
        }
    }
}

/// Costs the tools refuse (above [`exec::machine::MAX_COST_NS`]) are still
/// checked in the library: a run whose clock would pass 2^64 ns stops with
/// an error instead of wrapping (a search of a few thousand nodes at 2^64
/// ps a node, a message's latency of 2^64 − 1 ns, a walk of the master's tree
/// past 2^64 ns at 1,000 times the node's cost).
#[test]
fn time_that_would_pass_2_to_the_64_is_an_error() {
    let t = &incremental(5, 4, 1)[0];
    let at = |algorithm: ClusterAlgorithm, procs: usize, costs: Costs| {
        simulate(t, &ClusterConfig { settings: ClusterSettings { costs, ..ClusterSettings::default() }, ..ClusterConfig::new(algorithm, procs) }, None)
    };
    let d = Costs::default();
    let ms = ClusterAlgorithm::from(MasterSlave::default());
    let mw = ClusterAlgorithm::from(MasterWorker::new(MwVariant::Updates));
    for (algorithm, procs, costs) in [
        (ms, 4, Costs { latency_ns: u64::MAX, ..d }),
        (ms, 4, Costs { send_ns: u64::MAX, ..d }),
        (ms, 4, Costs { recv_ns: u64::MAX / 2, ..d }),
        (mw, 4, Costs { node_ps: u64::MAX / 2, master_ppm: 1_000_000_000, ..d }),
    ] {
        assert_eq!(at(algorithm, procs, costs).map(|r| r.output), Err(ClusterError::TimeOverflow { algorithm: algorithm.name(), procs }), "{costs:?}");
    }
    // A node's cost is at most 2^64 ps (1.8 × 10^7 s): the sequential
    // search passes 2^64 ns only beyond 1,000 nodes.
    let big = &incremental(5, 7, 1)[0];
    let seq = ClusterConfig {
        settings: ClusterSettings { costs: Costs { node_ps: u64::MAX, ..d }, ..ClusterSettings::default() },
        ..ClusterConfig::new(ClusterAlgorithm::SEQUENTIAL, 1)
    };
    assert_eq!(simulate(big, &seq, None).map(|r| r.output), Err(ClusterError::TimeOverflow { algorithm: "seq", procs: 1 }));
    // The sequential search's 142 nodes at 10^9 ns: exact.
    let s = at(ClusterAlgorithm::SEQUENTIAL, 1, Costs { node_ps: exec::machine::MAX_COST_NS * 1_000, ..d }).map(|r| r.output);
    assert_eq!(s.map(|s| (s.counts.nodes, s.time_ns)), Ok((142, 142_000_000_000)));
}

/// The even split on 2 processes of a b = 2, depth 1 tree (the machine
/// test `the_machine_charges_its_documented_costs`): search time
/// 23,224 ns; process 0 busy 2,200 (its leaf, the result's receipt),
/// process 1 busy 1,200 (its leaf, the send).
#[test]
fn a_hand_worked_load() {
    let trees = incremental(2, 1, 1);
    let costs = Costs { node_ps: 100_000, send_ns: 1_000, recv_ns: 2_000, latency_ns: 20_000, bytes_per_us: 1_000, ..Costs::default() };
    let req = ClusterRequest {
        procs: Procs::Counts(vec![1, 2]),
        algorithms: vec![EvenSplit { split: Some(1) }.into()],
        settings: ClusterSettings { costs, ..ClusterSettings::default() },
        per_tree: true,
    };
    let rows = run::run(&trees, &req, None, None, &crate::progress::Progress::hidden()).unwrap();
    assert_eq!((rows[0].load_mean, rows[0].load_min, rows[0].load_sd), (1.0, 1.0, 0.0));
    let r = &rows[1];
    let near = |x: f64, y: f64| (x - y).abs() < 1e-12;
    // (A geometric mean of one time: 23,224 to rounding.)
    assert!((r.time_ns - 23_224.0).abs() < 1e-6, "{r:?}");
    assert!(near(r.load_mean, 1_700.0 / 23_224.0), "{r:?}");
    assert!(near(r.load_min, 1_200.0 / 23_224.0) && near(r.load_sd, 500.0 / 23_224.0), "{r:?}");
    // The idle columns say the same: 1 − (0 + 21,762) / 23,224.
    assert!(near(r.load_mean, 1.0 - (r.startup_idle_ns + r.other_idle_ns) / r.time_ns), "{r:?}");
}

/// A row of several trees weighs each process's load by the trees'
/// search times: its busy times summed over its search times summed.
#[test]
fn loads_over_trees_are_time_weighted() {
    let done = |tree, time_ns, busy_ns: Vec<u64>| run::Done {
        cfg: 0,
        tree,
        ran: EvenSplit { split: Some(1) }.into(),
        stats: ClusterStats { time_ns, busy_ns, ..ClusterStats::default() },
    };
    // Process 0: (100 + 300) / 400 = 1; process 1: (20 + 180) / 400 = 0.5.
    let (a, b) = (done(0, 100, vec![100, 20]), done(1, 300, vec![300, 180]));
    assert_eq!(run::loads(&[&a, &b], 2), (0.75, 0.5, 0.25));
    // One tree alone: 1 and 0.2.
    let (m, least, sd) = run::loads(&[&a], 2);
    assert_eq!((m, least), (0.6, 0.2));
    assert!((sd - 0.4).abs() < 1e-15);
    // A search that took no time waited for nothing.
    assert_eq!(run::loads(&[&done(0, 0, vec![0, 0])], 2), (1.0, 1.0, 0.0));
}

/// Every algorithm at every count: each process busy at most the search
/// time, busy and idle times adding up to P × the search time, the
/// baseline busy throughout; in any delivery order, loads within 0..=1.
#[test]
fn busy_and_idle_times_add_up() {
    let mut trees = incremental(5, 5, 3);
    trees.extend(incremental(3, 6, 2));
    for t in &trees {
        let seq = simulate(t, &ClusterConfig::new(Sequential, 1), None).unwrap().output;
        assert_eq!(seq.busy_ns, [seq.time_ns]);
        for a in ClusterAlgorithm::parallel() {
            for procs in [2, 3, 8, 64] {
                for delivery in [Delivery::Timed, Delivery::Adversarial(3)] {
                    let cfg = ClusterConfig { settings: ClusterSettings { delivery, ..ClusterSettings::default() }, ..ClusterConfig::new(a, procs) };
                    let s = simulate(t, &cfg, None).unwrap().output;
                    assert_eq!(s.busy_ns.len(), procs);
                    assert!(s.busy_ns.iter().all(|&b| b <= s.time_ns), "{a} on {procs}: {s:?}");
                    assert!(s.busy_ns[0] > 0, "{a} on {procs}: the master works");
                    if delivery == Delivery::Timed {
                        let busy: u64 = s.busy_ns.iter().sum();
                        assert_eq!(busy + s.startup_idle_ns + s.other_idle_ns, procs as u64 * s.time_ns, "{a} on {procs}");
                    }
                }
            }
        }
    }
}

/// `--node-ns` and `--leaf-ns` take ns with up to three decimals, held in
/// ps within 0..10^9 ns; anything else is refused with what they take.
#[test]
fn search_costs_keep_three_decimals() {
    use crate::cluster::args::CostNs;
    let ps = |s: &str| s.parse::<CostNs>().map_err(|e| e.to_string()).and_then(|c| c.ps("--node-ns").map_err(|e| e.to_string()));
    assert_eq!((ps("380"), ps("9.412"), ps("0.5"), ps("12.06"), ps("1000000000")), (Ok(380_000), Ok(9_412), Ok(500), Ok(12_060), Ok(1_000_000_000_000)));
    for bad in ["9.", ".5", "1.2345", "-1", "1e3", "", "x", "99999999999999999999"] {
        assert!(bad.parse::<CostNs>().is_err(), "{bad} accepted");
    }
    assert_eq!(ps("1000000000.001"), Err("--node-ns 1000000000.001 must lie in 0..1000000000 (ns, at most one second)".into()));
    assert_eq!(ps("18446744073709551615"), Err("--node-ns 18446744073709551615 must lie in 0..1000000000 (ns, at most one second)".into()));
    assert_eq!(("9.410".parse::<CostNs>().unwrap().to_string(), "9.412".parse::<CostNs>().unwrap().whole_ns()), ("9.41".into(), None));
    assert_eq!("380".parse::<CostNs>().unwrap().whole_ns(), Some(380));
}

/// Every algorithm's own messages: their names (the traces' labels) and
/// sizes on the simulated wire, as the executor's header plus each one's
/// payload; under MPI, each encodes and decodes whole.
#[test]
fn every_algorithm_s_messages_have_their_names_sizes_and_wire_form() {
    use crate::cluster::algorithms::fox::FoxMsg;
    use crate::cluster::algorithms::master_worker::{MwMsg, SHARED_ENTRY_BYTES};
    use crate::cluster::algorithms::ybwc::YbwcMsg;
    use crate::cluster::exec::transport::{HEADER_BYTES, Msg, NoOwn, Task};
    use crate::cluster::search::SharedEntry;
    use crate::tree::incremental::INode;
    use crate::value::Window;
    let node = INode { key: 9, value: -3, error: 0 };
    let n = std::mem::size_of::<INode>() as u64;
    let w = Window { alpha: -5, beta: 7 };
    let job = Task { id: 1, node, max: true, ply: 2, depth: 4, window: w };
    let entry = SharedEntry { node, ply: 1, depth: 2, value: 3, bound: crate::tt::Bound::Upper, best: 4, origin: 5 };
    let named = |m: &[(&str, u64)], got: Vec<(&'static str, u64)>| assert_eq!(got, m.iter().map(|&(k, b)| (k, HEADER_BYTES + b)).collect::<Vec<_>>());
    let ours: Vec<Msg<INode, NoOwn>> = vec![Msg::Task(job.clone()), Msg::Result { id: 1, value: 2 }, Msg::Stop, Msg::Abort { id: 3 }];
    named(&[("Task", n + 16), ("Result", 8), ("Stop", 0), ("Abort", 0)], ours.iter().map(|m| (m.kind(), m.bytes())).collect());
    let mw: Vec<Msg<INode, MwMsg<INode>>> = vec![
        Msg::Own(MwMsg::Work { job, pass: 12, sig: vec![0, 3, 65535] }),
        Msg::Own(MwMsg::Report { id: 2, depth: 4, window: w, value: -17 }),
        Msg::Own(MwMsg::Pass { pass: 3 }),
        Msg::Own(MwMsg::Share { entries: vec![entry.clone(), entry] }),
    ];
    named(
        &[("Work", n + 16 + 4 + 6), ("Report", 24), ("Pass", 0), ("Share", 2 * (n + SHARED_ENTRY_BYTES))],
        mw.iter().map(|m| (m.kind(), m.bytes())).collect(),
    );
    let ybwc: Vec<Msg<INode, YbwcMsg>> = vec![
        Msg::Own(YbwcMsg::Request { origin: 2 }),
        Msg::Own(YbwcMsg::Seek { origin: 4095, seen: 12 }),
        Msg::Own(YbwcMsg::Help { origin: 3, id: 1 << 20 }),
        Msg::Own(YbwcMsg::NoWork),
        Msg::Own(YbwcMsg::Narrow { id: 9, window: w }),
    ];
    named(&[("Request", 0), ("Seek", 4), ("Help", 4), ("NoWork", 0), ("Narrow", 16)], ybwc.iter().map(|m| (m.kind(), m.bytes())).collect());
    let fox: Vec<Msg<INode, FoxMsg>> = vec![Msg::Own(FoxMsg::Request { origin: 1 })];
    named(&[("Request", 0)], fox.iter().map(|m| (m.kind(), m.bytes())).collect());
    #[cfg(feature = "mpi")]
    {
        use crate::cluster::exec::mpi::wire::round_trips;
        assert_eq!(round_trips(&ours).len(), 4);
        assert_eq!(round_trips(&mw).len(), 4);
        assert_eq!(round_trips(&ybwc).len(), 5);
        assert_eq!(round_trips(&fox).len(), 1);
    }
}
