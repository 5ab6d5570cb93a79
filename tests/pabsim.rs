//! The simulated multiprocessor and the parallel search, as `pabsim` runs them.

use crate::util::*;
use parab::formats::SimRow;
use parab::nn::{Errors, HiddenWeights, Network, OutputWeights, TrainedFor, Training};
use parab::tree::artificial::Model;

const PUBLISHED: &str = include_str!("../data/published/table-6.3-uniprocessor.csv");
const ROOT: &str = "1073741823";

/// A number from a row.
fn num<T: std::str::FromStr>(r: &Row, c: &str) -> T {
    r[c].parse().unwrap_or_else(|_| panic!("{c}: `{}` is not a number", r[c]))
}

/// A fixed (untrained) network for ordering (b, wa, wb): scheme C only needs
/// some types and waits to exercise the machinery.
fn network_file(d: &Dir, b: u32, wa: u32, wb: u32) -> String {
    let wh = HiddenWeights::from_fn(|r, c| ((r * 7 + c * 3) % 11) as f64 / 5.0 - 1.0);
    let wo = OutputWeights::from_fn(|r, c| ((r * 5 + c * 2) % 13) as f64 / 6.0 - 1.0);
    let t = Training { rng: "ChaCha8".into(), seed: 1, init: 0.5, iterations: 0, eta: 0.1, shuffle: false, patterns: 0 };
    let mut n = Network::new(wh, wo, TrainedFor::artificial(Model::Exponential, parab::tree::artificial::Ordering { b, wa, wb }), 40.0, t).unwrap();
    n.errors = Errors { e_type: 1.0, e_wait: 0.5 };
    let name = format!("w-{b}-{wa}-{wb}.json");
    d.write(&name, &n.to_json().unwrap());
    d.join(&name).to_string_lossy().into_owned()
}

/// Table 6.3: on one processor the simulator examines exactly the sequential
/// search's nodes, tree by tree, and takes `3 (n - 1) + 8 L + 4 I + 11` ticks
/// per tree: the state costs plus 10 ticks of cold-start memory misses and the
/// root's return. The thesis's per-tree constant is 35, so t_1 comes out 2400
/// ticks below the published value for every ordering (under 0.005%).
#[test]
fn uniprocessor_matches_table_6_3() {
    let d = Dir::new("p1");
    for line in PUBLISHED.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let ordering = format!("{},{},{}", f[0], f[1], f[2]);
        let (t1, n1): (u64, u64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", &ordering, "--depth", "6"]).ok();
        let seq = d.tool("fbest").args(["--per-tree"]).stdin(&trees).ok();
        let sim = d.tool("pabsim").args(["--procs", "1", "--per-tree"]).stdin(&trees).ok();
        let (nodes, leaves, internal) = (column(&seq, "nodes"), column(&seq, "leaves"), column(&seq, "internal"));
        let (tp, np, values) = (column(&sim, "tp_ticks"), column(&sim, "np_nodes"), column(&sim, "root_value"));
        assert_eq!(np.len(), 100);
        for k in 0..100 {
            let (n, l, i): (u64, u64, u64) = (nodes[k].parse().unwrap(), leaves[k].parse().unwrap(), internal[k].parse().unwrap());
            assert_eq!(np[k].parse::<u64>().unwrap(), n, "{ordering} tree {k}");
            assert_eq!(tp[k].parse::<u64>().unwrap(), 3 * (n - 1) + 8 * l + 4 * i + 11, "{ordering} tree {k}");
            assert_eq!(values[k], ROOT);
        }
        assert_eq!(sum_column(&sim, "np_nodes"), n1, "{ordering}");
        assert_eq!(sum_column(&sim, "tp_ticks"), t1 - 2400, "{ordering}");
        // The one-processor run compared with itself.
        assert!(column(&sim, "su").iter().all(|s| s == "1.000000"));
    }
}

/// Every scheme returns the minimax value of all 100 tg1 trees of a cheap
/// ordering at 12 processors (depth 5 keeps the test short), and the
/// processor-ticks add up to p * t_p.
#[test]
fn parallel_root_values_are_minimax() {
    let d = Dir::new("par");
    let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", "20,69,19", "--depth", "5"]).ok();
    let w = network_file(&d, 20, 69, 19);
    let out = d.tool("pabsim").args(["--procs", "1,12", "--scheme", "a,b,c", "--m-ca", "-2", "--m-cc", "1", "--weights", &w, "--per-tree"]).stdin(&trees).ok();
    assert_eq!(out.lines().count(), 1 + 100 * 4);
    assert!(column(&out, "root_value").iter().all(|v| v == ROOT));
    for r in table(&out) {
        let g = |c: &str| num::<u64>(&r, c);
        let ticks: u64 = SimRow::STATE_COLUMNS.iter().map(|c| g(c)).sum();
        assert_eq!(ticks, g("procs") * g("tp_ticks"), "{r:?}");
        assert!(g("pool_nodes") >= g("procs") * 5 * 2);
        if g("procs") == 12 {
            // Twelve processors are faster and search more nodes than one.
            assert!(num::<f64>(&r, "su") > 1.5, "{r:?}");
            assert!(num::<f64>(&r, "so") >= 0.0, "{r:?}");
        }
    }
    // Aggregated: four configurations, and SU = t1 / tp.
    let agg = d.tool("pabsim").args(["--procs", "1,12", "--scheme", "a,b,c", "--m-ca", "-2", "--m-cc", "1", "--weights", &w]).stdin(&trees).ok();
    assert_eq!(column(&agg, "scheme"), vec!["-", "a", "b", "c"]);
    assert_eq!(column(&agg, "trees"), vec!["100"; 4]);
    assert_eq!(sum_column(&agg, "np_nodes"), sum_column(&out, "np_nodes"));
}

/// `--pv-wait`, the control for scheme C's PV rule: schemes A and B
/// record the rule in their rows (1 by default, YBWC's and DTS's), 0 lets a
/// PV node split before its first move has finished, which changes the
/// search but never the root's value; scheme C's rows leave the column
/// empty, and the option alone with scheme C is refused.
#[test]
fn pv_wait_is_recorded_and_changes_only_the_split_rule() {
    let d = Dir::new("pvwait");
    let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", "20,69,19", "--depth", "5", "--count", "6"]).ok();
    let w = network_file(&d, 20, 69, 19);
    let base = d.tool("pabsim").args(["--procs", "1,8", "--scheme", "a,b,c", "--weights", &w]).stdin(&trees).ok();
    assert_eq!(column(&base, "scheme"), vec!["-", "a", "b", "c"]);
    assert_eq!(column(&base, "pv_wait"), vec!["", "1", "1", ""]);
    let both = d.tool("pabsim").args(["--procs", "8", "--scheme", "a,b", "--pv-wait", "0..1", "--per-tree"]).stdin(&trees).ok();
    assert!(column(&both, "root_value").iter().all(|v| v == ROOT));
    let agg = d.tool("pabsim").args(["--procs", "1,8", "--scheme", "a,b", "--pv-wait", "0..1"]).stdin(&trees).ok();
    assert_eq!(column(&agg, "pv_wait"), vec!["", "0", "1", "0", "1"]);
    let (ticks, nodes) = (column(&agg, "tp_ticks"), column(&agg, "np_nodes"));
    // The default rows are the runs without the option; the eager ones differ.
    assert_eq!(&ticks[2], &column(&base, "tp_ticks")[1]);
    assert_eq!(&ticks[4], &column(&base, "tp_ticks")[2]);
    assert!(ticks[1] != ticks[2] || nodes[1] != nodes[2], "--pv-wait 0 changed nothing for scheme a");
    assert!(ticks[3] != ticks[4] || nodes[3] != nodes[4], "--pv-wait 0 changed nothing for scheme b");
    d.tool("pabsim")
        .args(["--procs", "8", "--scheme", "c", "--weights", &w, "--pv-wait", "0"])
        .stdin(&trees)
        .fails("--pv-wait applies to --scheme a or b only");
    d.tool("pabsim").args(["--procs", "8", "--pv-wait", "65"]).stdin(&trees).fails("--pv-wait must lie in 0..64");
    d.tool("pabsim").args(["--merge", "x.csv", "--pv-wait", "0"]).fails_with(2, "--pv-wait");
    // Two networks for the trees' ordering: which one is meant is not ours to guess.
    d.write("w2.json", &std::fs::read_to_string(&w).unwrap());
    let w2 = d.join("w2.json").to_string_lossy().into_owned();
    d.tool("pabsim").args(["--procs", "8", "--scheme", "c", "--weights", &w, "--weights", &w2]).stdin(&trees).fails("are both trained for");
}

/// The interleaved machine on the thesis's five orderings: every scheme,
/// several machine sizes (2, 3, 48, 64), both interleavings and both
/// split-point walks return the minimax value at the root; the `time_*`
/// columns add up to p * t_p and `split_share` is their split part.
#[test]
fn every_ordering_scheme_and_machine_returns_minimax() {
    let d = Dir::new("orders");
    for (b, wa, wb) in [(32, 79, 5), (20, 69, 19), (32, 66, 66), (32, 33, 33), (32, 0, 0)] {
        let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", &format!("{b},{wa},{wb}"), "--depth", "3", "--count", "3"]).ok();
        let w = network_file(&d, b, wa, wb);
        for extra in [&[][..], &["--interleave", "state"], &["--split-walk", "level"]] {
            let args = [&["--procs", "2,3,48,64", "--scheme", "a,b,c", "--m-ca", "-1", "--weights", &w, "--per-tree"][..], extra].concat();
            let out = d.tool("pabsim").args(&args).stdin(&trees).ok();
            assert_eq!(out.lines().count(), 1 + 3 * 4 * 3, "{b},{wa},{wb} {extra:?}");
            assert!(column(&out, "root_value").iter().all(|v| v == ROOT), "{b},{wa},{wb} {extra:?}");
            for r in table(&out) {
                let g = |c: &str| num::<u64>(&r, c);
                let time: u64 = SimRow::TIME_COLUMNS.iter().map(|c| g(c)).sum();
                assert_eq!(time, g("procs") * g("tp_ticks"), "{r:?}");
                let share: f64 = num(&r, "split_share");
                assert!((share - g("time_split") as f64 / time as f64).abs() < 1e-6, "{r:?}");
            }
        }
    }
}

#[test]
fn shards_merge_into_the_single_run_and_threads_do_not_matter() {
    let d = Dir::new("shards");
    let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", "32,66,66", "--ordering", "20,69,19", "--depth", "4", "--count", "7"]).ok();
    d.write("trees.jsonl", &trees);
    let args = ["trees.jsonl", "--procs", "1,3,16", "--scheme", "a,b", "--m-a", "1..2"];
    let one = d.tool("pabsim").args(args).args(["--per-tree", "--threads", "1"]).ok();
    let two = d.tool("pabsim").args(args).args(["--per-tree", "--threads", "2"]).ok();
    assert_eq!(one, two);
    // 2 groups x (1 + 2 + 1) x 2 configurations... : 2 * (1 + 2 * 3) * 7 items.
    assert_eq!(one.lines().count(), 1 + 2 * 7 * 7);
    for k in 1..=3 {
        d.tool("pabsim").args(args).args(["--per-tree", "--shard", &format!("{k}/3"), "-o", &format!("s{k}.csv")]).ok();
    }
    let merged = d.tool("pabsim").args(["--merge", "--per-tree", "s1.csv", "s2.csv", "s3.csv"]).ok();
    assert_eq!(merged, one);
    let agg = d.tool("pabsim").args(args).ok();
    assert_eq!(d.tool("pabsim").args(["--merge", "s3.csv", "s1.csv", "s2.csv"]).ok(), agg);
    assert_eq!(agg.lines().count(), 1 + 2 * 7);
    // A missing shard or a shard given twice is refused.
    d.tool("pabsim").args(["--merge", "s1.csv", "s2.csv"]).fails("missing");
    d.tool("pabsim").args(["--merge", "s1.csv", "s2.csv", "s2.csv", "s3.csv"]).fails("twice");
    // A baseline file gives the same ratios as p = 1 rows in the run.
    d.tool("pabsim").args(["trees.jsonl", "--procs", "1", "--per-tree", "-o", "p1.csv"]).ok();
    let with_base = d.tool("pabsim").args(["trees.jsonl", "--procs", "3,16", "--scheme", "a,b", "--m-a", "1..2", "--baseline", "p1.csv"]).ok();
    let tail: Vec<&str> = agg.lines().filter(|l| !l.contains(",-,")).collect();
    assert_eq!(with_base.lines().skip(1).collect::<Vec<_>>(), tail[1..].to_vec());
}

#[test]
fn bad_inputs_fail_cleanly() {
    let d = Dir::new("bad");
    let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", "20,69,19", "--depth", "3", "--count", "2"]).ok();
    d.write("t.jsonl", &trees);
    let w = network_file(&d, 32, 79, 5);
    let cases: [(&[&str], &str); 7] = [
        (&["t.jsonl", "--procs", "0", "-o", "out.csv"], "at least 1 processor"),
        (&["t.jsonl", "--procs", "4", "--scheme", "c", "-o", "out.csv"], "--weights"),
        (&["t.jsonl", "--procs", "4", "--scheme", "c", "--weights", &w, "-o", "out.csv"], "no --weights for the trees' ordering"),
        (&["t.jsonl", "--procs", "4", "--m-a", "0", "-o", "out.csv"], "--m-a must lie in 1..64"),
        (&["t.jsonl", "--procs", "4", "--scheme", "c", "--m-ca", "-99", "-o", "out.csv"], "--m-ca must lie in -64..64"),
        (&["t.jsonl", "--procs", "4", "--per-tree", "--shard", "3/2", "-o", "out.csv"], "--shard `3/2`"),
        (&["t.jsonl", "--procs", "5", "--thesis-params", "-o", "out.csv"], "no parameters"),
    ];
    for (args, needle) in cases {
        d.tool("pabsim").args(args).fails(needle);
    }
    // A value clap's parser refuses is a usage error (exit 2).
    d.tool("pabsim").args(["t.jsonl", "--procs", "4", "--scheme", "z", "-o", "out.csv"]).fails_with(2, "unknown scheme");
    d.tool("pabsim").args(["--merge", "t.jsonl"]).fails("pabsim");
}
