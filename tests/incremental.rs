//! Incremental random trees (issue 25) through the tools: `treegen`'s
//! specs, `fbest`'s tables and ordering accuracy, `classify`, `trainset`
//! → `nntrain` → scheme C, `pabsim`; the same bytes for any thread count;
//! one-line errors.

use crate::util::{Dir, column, fails, ok, sum_column};

#[test]
fn incremental_trees_through_the_tools() {
    let d = Dir::new("incremental");
    ok(&d.path, "treegen", &["--model", "incremental", "--branching", "5", "--depth", "6", "--count", "8", "-o", "t.jsonl"], "");
    let spec = d.read("t.jsonl");
    assert_eq!(spec.lines().count(), 8);
    assert_eq!(spec.lines().next().unwrap(), r#"{"set":"tg1","index":1,"seed":1335380035,"model":"incremental","b":5,"scale":100,"depth":6}"#);
    // f_best: the children come in static-evaluation order, so the first
    // move is the best at most nodes.
    let f1 = ok(&d.path, "fbest", &["t.jsonl", "--threads", "1"], "");
    assert_eq!(f1, ok(&d.path, "fbest", &["t.jsonl", "--threads", "2"], ""));
    assert_eq!(
        f1,
        "b,scale,depth,trees,n,fbest,pbest\n5,100,6,8,1,2257,0.945934619\n5,100,6,8,2,82,0.034367142\n5,100,6,8,3,33,0.013830679\n5,100,6,8,4,10,0.004191115\n5,100,6,8,5,4,0.001676446\n"
    );
    let per = ok(&d.path, "fbest", &["t.jsonl", "--per-tree"], "");
    assert_eq!(per.lines().next().unwrap(), "tree,seed,b,scale,depth,nodes,leaves,internal,contributing,root_value");
    assert_eq!(sum_column(&per, "contributing"), 2257 + 82 + 33 + 10 + 4);
    assert_eq!(sum_column(&per, "nodes"), sum_column(&per, "leaves") + sum_column(&per, "internal"));
    // The ordering accuracy: 43 of the 48 nodes at plies 0..1 keep their
    // best child from depth 4 to depth 6.
    let acc = ok(&d.path, "fbest", &["t.jsonl", "--accuracy", "4", "--threads", "1"], "");
    assert_eq!(acc, "model,b,scale,trees,k,k2,plies,nodes,kept,accuracy\nincremental,5,100,8,4,6,2,48,43,0.895833333\n");
    assert_eq!(acc, ok(&d.path, "fbest", &["t.jsonl", "--accuracy", "4", "--threads", "2"], ""));
    // classify, and a network trained on them for scheme C.
    let c = ok(&d.path, "classify", &["t.jsonl", "--scheme", "a"], "");
    assert!(c.starts_with("b,scale,depth,trees,scheme,param,true_cut,false_cut,true_all,false_all,error,scored,best\n5,100,6,8,a,,"), "{c}");
    ok(&d.path, "trainset", &["t.jsonl", "-o", "p.csv"], "");
    assert!(d.read("p.csv").lines().nth(1).unwrap().starts_with("incremental,5,,,0,"));
    ok(&d.path, "nntrain", &["p.csv", "--iterations", "5", "-o", "n.json"], "");
    ok(&d.path, "classify", &["t.jsonl", "--scheme", "c", "--weights", "n.json", "--m", "0..2"], "");
    // pabsim: the model column and b, no ordering weights; the root value
    // is the sequential search's.
    let sim = ok(&d.path, "pabsim", &["t.jsonl", "--procs", "1,4", "--per-tree"], "");
    let header: Vec<&str> = sim.lines().next().unwrap().split(',').collect();
    let col = |row: &str, name: &str| row.split(',').nth(header.iter().position(|h| *h == name).unwrap()).unwrap().to_string();
    let rows: Vec<&str> = sim.lines().skip(1).collect();
    assert_eq!(rows.len(), 16);
    let roots: Vec<String> = per.lines().skip(1).map(|r| r.rsplit(',').next().unwrap().to_string()).collect();
    for r in &rows {
        assert_eq!((col(r, "model"), col(r, "b"), col(r, "wa"), col(r, "depth")), ("incremental".into(), "5".into(), String::new(), "6".into()));
        let t: usize = col(r, "tree").parse().unwrap();
        assert_eq!(col(r, "root_value"), roots[t - 1]);
    }
}

#[test]
fn incremental_requests_are_one_line_errors() {
    let d = Dir::new("incremental-bad");
    fails(&d.path, "treegen", &["--model", "incremental", "--ordering", "5,0,0", "--depth", "3"], "", "--branching goes with --model incremental");
    fails(&d.path, "treegen", &["--branching", "5", "--depth", "3"], "", "--branching goes with --model incremental");
    fails(&d.path, "treegen", &["--model", "incremental", "--branching", "0", "--depth", "3"], "", "branching factor b = 0 must lie in 1..=4096");
    fails(&d.path, "treegen", &["--model", "incremental", "--branching", "5", "--scale", "0", "--depth", "3"], "", "edge scale 0");
    fails(&d.path, "treegen", &["--model", "bogus", "--ordering", "5,0,0", "--depth", "3"], "", "expected `exponential`, `strong` or `incremental`");
    let inc = ok(&d.path, "treegen", &["--model", "incremental", "--branching", "3", "--depth", "3", "--count", "1"], "");
    let art = ok(&d.path, "treegen", &["--ordering", "3,50,10", "--depth", "3", "--count", "1"], "");
    d.write("mixed.jsonl", &format!("{inc}{art}"));
    fails(&d.path, "fbest", &["mixed.jsonl"], "", "mixes incremental trees and artificial trees (line 2)");
    fails(&d.path, "classify", &["mixed.jsonl", "--scheme", "a"], "", "mixes incremental trees and artificial trees (line 2)");
    d.write("wa.jsonl", &inc.replace("\"b\":3", "\"b\":3,\"wa\":5"));
    fails(&d.path, "fbest", &["wa.jsonl"], "", "bad tree spec (wa.jsonl:1)");
    fails(&d.path, "fbest", &["--accuracy", "0"], &inc, "--accuracy 0");
}

#[test]
fn pabsim_on_the_cluster() {
    let d = Dir::new("cluster");
    ok(&d.path, "treegen", &["--model", "incremental", "--branching", "5", "--depth", "7", "--count", "4", "-o", "t.jsonl"], "");
    let args = ["t.jsonl", "--machine", "cluster", "--procs", "1,3,64,4096", "--per-tree"];
    let one = ok(&d.path, "pabsim", &[&args[..], &["--threads", "1"]].concat(), "");
    assert_eq!(one, ok(&d.path, "pabsim", &[&args[..], &["--threads", "2"]].concat(), ""));
    let lines: Vec<&str> = one.lines().collect();
    assert_eq!(
        lines[0],
        "tree,seed,model,b,depth,trees,algorithm,procs,split,root_value,time_ns,speedup,leaves,nodes,leaf_ratio,startup_idle_ns,other_idle_ns,messages,bytes,transport,oversubscribed,threads,thread_algorithm"
    );
    // 4 baseline rows, then 4 trees for each of 3 counts and 2 algorithms.
    assert_eq!(lines.len(), 1 + 4 + 3 * 2 * 4);
    // Every run's root value is the sequential search's (fbest's).
    let per = ok(&d.path, "fbest", &["t.jsonl", "--per-tree"], "");
    let roots: Vec<&str> = per.lines().skip(1).map(|r| r.rsplit(',').next().unwrap()).collect();
    for l in &lines[1..] {
        let f: Vec<&str> = l.split(',').collect();
        let t: usize = f[0].parse().unwrap();
        assert_eq!(f[9], roots[t - 1], "{l}");
    }
    // The master-worker and its variant: d' in the split column, exact.
    let mw_args =
        ["t.jsonl", "--machine", "cluster", "--procs", "1,8", "--policy", "master-worker,master-worker-noupdate", "--master-depth", "2", "--per-tree"];
    let mw = ok(&d.path, "pabsim", &mw_args, "");
    let rows: Vec<Vec<&str>> = mw.lines().skip(5).map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows.iter().map(|f| (f[6], f[8])).collect::<Vec<_>>(),
        [("master-worker", "2"); 4].into_iter().chain([("master-worker-noupdate", "2"); 4]).collect::<Vec<_>>()
    );
    for f in &rows {
        let t: usize = f[0].parse().unwrap();
        assert_eq!(f[9], roots[t - 1], "{f:?}");
    }
    // YBWC: its granularity (b = 5: 7, capped at depth − 1 = 6) in the
    // split column, exact at every count.
    let yb = ok(&d.path, "pabsim", &["t.jsonl", "--machine", "cluster", "--procs", "1,2,64,4096", "--policy", "ybwc", "--per-tree"], "");
    let rows: Vec<Vec<&str>> = yb.lines().skip(5).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.iter().map(|f| (f[6], f[8])).collect::<Vec<_>>(), [("ybwc", "6"); 12]);
    for f in &rows {
        let t: usize = f[0].parse().unwrap();
        assert_eq!(f[9], roots[t - 1], "{f:?}");
    }
    fails(&d.path, "pabsim", &["t.jsonl", "--master-depth", "2"], "", "--master-depth applies to --machine cluster only");
    // Wrong machine for an option or a name: one line each.
    fails(&d.path, "pabsim", &["t.jsonl", "--machine", "cluster", "--policy", "dts"], "", "--algorithm dts is a --machine shared algorithm");
    fails(&d.path, "pabsim", &["t.jsonl", "--policy", "master-slave"], "", "--algorithm master-slave is a cluster algorithm (give --machine cluster");
    fails(&d.path, "pabsim", &["t.jsonl", "--machine", "cluster", "--scheme", "a"], "", "--scheme applies to --machine shared only");
    fails(&d.path, "pabsim", &["t.jsonl", "--split-ply", "2"], "", "--split-ply applies to --machine cluster only");
    fails(&d.path, "pabsim", &["t.jsonl", "--machine", "cluster", "--procs", "4097"], "", "--procs 4097: the cluster has 1..4096 processes");
    fails(&d.path, "pabsim", &["t.jsonl", "--machine", "cluster", "--procs", "2", "--policy", "seq"], "", "seq cannot run on 2 processes");
}

/// Ura et al.'s §5.2 leaf counts (`pabsim --machine cluster
/// --leaf-factors`). An incremental tree has no transpositions, so a task
/// never meets another task's node: not sharing the deep table changes
/// nothing. Chess positions do transpose: without sharing, the same 24
/// Bratko-Kopec positions at depth 4 (d′ = 2) need 4.7% more leaves, and
/// the partial share (entries one ply below d′) wins it all back. Full
/// windows cost the most, on both. With d′ = 0 the root is the only task:
/// every count is the baseline's.
#[test]
fn leaf_factors_separate_sharing_from_windows() {
    let d = Dir::new("leaf-factors");
    ok(&d.path, "treegen", &["--model", "incremental", "--branching", "5", "--depth", "8", "--count", "4", "-o", "t.jsonl"], "");
    let header = "model,b,depth,master_depth,share_depth,trees,leaves,leaves_unshared,leaves_partial,leaves_full_window\n";
    let f = ok(&d.path, "pabsim", &["--machine", "cluster", "--leaf-factors", "--master-depth", "4", "t.jsonl"], "");
    assert_eq!(f, format!("{header}incremental,5,8,4,4,4,10714,10714,10714,23361\n"));
    let root = ok(&d.path, "pabsim", &["--machine", "cluster", "--leaf-factors", "--master-depth", "0", "t.jsonl"], "");
    let leaves = column(&root, "leaves")[0].clone();
    for c in ["leaves_unshared", "leaves_partial", "leaves_full_window"] {
        assert_eq!(column(&root, c)[0], leaves, "{c} with the root as the only task");
    }
    let bk = concat!(env!("CARGO_MANIFEST_DIR"), "/data/positions/bratko-kopec.epd");
    ok(&d.path, "treegen", &["--game", "chess", "--positions", bk, "--depth", "4", "-o", "c.jsonl"], "");
    let c = ok(&d.path, "pabsim", &["--machine", "cluster", "--leaf-factors", "--master-depth", "2", "c.jsonl", "--threads", "1"], "");
    assert_eq!(c, format!("{header}chess,,4,2,1,24,139128,145598,139128,287208\n"));
    assert_eq!(c, ok(&d.path, "pabsim", &["--machine", "cluster", "--leaf-factors", "--master-depth", "2", "c.jsonl", "--threads", "2"], ""));
    fails(&d.path, "pabsim", &["--machine", "cluster", "--leaf-factors", "t.jsonl"], "", "--leaf-factors needs --master-depth");
}
