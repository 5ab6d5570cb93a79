//! The message-passing cluster through the tools, without MPI:
//! `pabsim --machine cluster` (Ura et al.'s master-worker family, the
//! root-splitting baselines and YBWC on simulated processes) returns the
//! sequential search's root value at every process count, for any thread
//! count, on every network topology; its leaf factors (Ura et al. §5.2);
//! and what `pabsim` and `psearch` refuse about the cluster in one line. `mpi` runs the same
//! rows on real ranks.

use crate::util::*;
use parab::formats::{ClusterRow, IncrementalPerTreeRow};

/// The header of the cluster's rows (simulated and real).
const HEADER: &str = "tree,seed,model,b,depth,trees,algorithm,procs,split_ply,master_depth,granularity,root_value,time_ns,speedup,leaves,nodes,leaf_ratio,startup_idle_ns,other_idle_ns,load_mean,load_min,load_sd,messages,bytes,passes,tasks_sent,full_window_sends,tasks_dropped,dropped_nodes,tasks_aborted,aborted_nodes,outside_nodes,transport,cores,host_load,free_cores,oversubscribed,threads,thread_policy,wake_ns";

/// Each row's root value is its tree's in `roots` (the sequential search's).
fn exact(rows: &[ClusterRow], roots: &[i64]) {
    for r in rows {
        let t = r.tree.expect("a per-tree row") as usize;
        assert_eq!(r.root_value, Some(roots[t - 1]), "{r:?}");
    }
}

#[test]
fn pabsim_on_the_cluster() {
    let d = Dir::new("cluster");
    incremental_trees(&d, "t.jsonl", 5, 7, 4);
    let args = ["t.jsonl", "--machine", "cluster", "--procs", "1,3,64,4096", "--per-tree"];
    let one = d.tool("pabsim").args(args).args(["--threads", "1"]).ok();
    assert_eq!(one, d.tool("pabsim").args(args).args(["--threads", "2"]).ok());
    assert_eq!(one.lines().next(), Some(HEADER));
    let rows: Vec<ClusterRow> = rows_of("pabsim --machine cluster", &one);
    // 4 baseline rows, then 4 trees for each of 3 counts and 2 algorithms.
    assert_eq!(rows.len(), 4 + 3 * 2 * 4);
    // Every run's root value is the sequential search's (fbest's).
    let roots: Vec<i64> = d.tool("fbest").args(["t.jsonl", "--per-tree"]).rows::<IncrementalPerTreeRow>().iter().map(|r| r.root_value).collect();
    assert_eq!(roots.len(), 4);
    exact(&rows, &roots);
    // Processor load: 1 for the baseline; per tree, the mean is what the
    // idle columns leave of the search time (to the rounding of the CSV).
    for r in &rows {
        let idle = (r.startup_idle_ns + r.other_idle_ns) / r.time_ns;
        assert!((r.load_mean - (1.0 - idle)).abs() < 1e-6, "{r:?}");
        assert!(0.0 <= r.load_min && r.load_min <= r.load_mean && r.load_mean <= 1.0 && r.load_sd >= 0.0, "{r:?}");
        if r.procs == 1 {
            assert_eq!((r.load_mean, r.load_min, r.load_sd), (1.0, 1.0, 0.0));
        }
    }
    // The master-worker and its variant: d' in the master_depth column, no
    // other cut column, exact.
    let mw_args =
        ["t.jsonl", "--machine", "cluster", "--procs", "1,8", "--policy", "master-worker,master-worker-noupdate", "--master-depth", "2", "--per-tree"];
    let mw = d.tool("pabsim").args(mw_args).rows::<ClusterRow>().split_off(4);
    assert_eq!(
        mw.iter().map(|r| (r.algorithm.as_str(), r.split_ply, r.master_depth, r.granularity)).collect::<Vec<_>>(),
        [("master-worker", None, Some(2), None); 4].into_iter().chain([("master-worker-noupdate", None, Some(2), None); 4]).collect::<Vec<_>>()
    );
    exact(&mw, &roots);
    // YBWC: its granularity (b = 5: 7, capped at depth − 1 = 6) in the
    // granularity column, exact at every count.
    let yb = d
        .tool("pabsim")
        .args(["t.jsonl", "--machine", "cluster", "--procs", "1,2,64,4096", "--policy", "ybwc", "--per-tree"])
        .rows::<ClusterRow>()
        .split_off(4);
    assert_eq!(yb.iter().map(|r| (r.algorithm.as_str(), r.split_ply, r.master_depth, r.granularity)).collect::<Vec<_>>(), [("ybwc", None, None, Some(6)); 12]);
    exact(&yb, &roots);
    // --granularity sets it, exact at every value; one at or above the
    // depth makes the root one piece, the column says the depth.
    for (g, column) in [("0", 0), ("3", 3), ("9", 7)] {
        let yb = d
            .tool("pabsim")
            .args(["t.jsonl", "--machine", "cluster", "--procs", "1,8", "--policy", "ybwc", "--per-tree", "--granularity", g])
            .rows::<ClusterRow>()
            .split_off(4);
        assert!(yb.iter().all(|r| r.granularity == Some(column)), "--granularity {g}: {yb:?}");
        exact(&yb, &roots);
    }
    d.tool("pabsim")
        .args(["t.jsonl", "--machine", "cluster", "--policy", "master-worker", "--granularity", "3"])
        .fails("--granularity applies to --algorithm ybwc, ybwc-full or fox only");
    d.tool("pabsim").args(["t.jsonl", "--master-depth", "2"]).fails("--master-depth applies to --machine cluster only");
    // Wrong machine for an option or a name: one line each.
    d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--policy", "dts"]).fails("--algorithm dts is a --machine shared algorithm (the cluster runs seq, even-split, master-slave, master-worker, master-worker-noupdate, master-worker-share, master-worker-negascout, ybwc, ybwc-full, pv-split or fox; YBWC with some switches: ybwc-full-no-W or ybwc+W+…, W in helpful, three-stage, promising, order, windows, in that order)");
    d.tool("pabsim").args(["t.jsonl", "--policy", "master-slave"]).fails("--algorithm master-slave is a cluster algorithm (give --machine cluster");
    d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--scheme", "a"]).fails("--scheme applies to --machine shared only");
    d.tool("pabsim").args(["t.jsonl", "--split-ply", "2"]).fails("--split-ply applies to --machine cluster only");
    d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--procs", "4097"]).fails("--procs 4097: the cluster has 1..4096 processes");
    d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--procs", "2", "--policy", "seq"]).fails("seq cannot run on 2 processes");
}

/// A run that would not fit in memory is refused before it starts, in one
/// line naming the estimate and what to lower: 1,536 tables of 2^20
/// entries (16 MiB each), a frontier of 5^14 nodes; `--memory` takes units.
#[test]
fn runs_beyond_the_memory_budget_are_refused_up_front() {
    let d = Dir::new("cluster-memory");
    incremental_trees(&d, "t.jsonl", 5, 18, 1);
    let cluster = ["t.jsonl", "--machine", "cluster", "--threads", "1"];
    d.tool("pabsim").args(cluster).args(["--procs", "1,1536", "--algorithm", "master-worker", "--tt-slots", "1048576", "--memory", "12G"]).fails(
        "the run needs about 25.8 GB (1536 processes: tables 25.8 GB, master's tree and search stacks 51 MB; 1 at once), more than --memory 12.0 GB: lower --tt-slots or --procs, or raise --memory",
    );
    // A deep split ply: the frontier of 5^14 nodes, 48 bytes each and a
    // result in flight for the worker's half (the even split) or not
    // (master-slave); 5^18 at P = 4,096, every leaf. Each refused at once.
    for (procs, algorithm, split, frontier) in
        [("1,2", "even-split", "14", "610.4 GB"), ("1,2", "master-slave", "14", "293.0 GB"), ("4096", "master-slave", "18", "183105.5 GB")]
    {
        let start = std::time::Instant::now();
        d.tool("pabsim")
            .args(cluster)
            .args(["--procs", procs, "--algorithm", algorithm, "--split-ply", split, "--tt-slots", "1024", "--memory", "12G"])
            .fails(&format!("frontier {frontier}; 1 at once), more than --memory 12.0 GB: lower --split-ply, or raise --memory"));
        assert!(start.elapsed().as_millis() < 1000, "{algorithm} --split-ply {split}: refused after {:?}", start.elapsed());
    }
    d.tool("pabsim").args(cluster).args(["--procs", "1", "--memory", "12X"]).fails_with(2, "`X` is not a unit of memory");
    d.tool("pabsim").args(["t.jsonl", "--memory", "1G"]).fails("--memory applies to --machine cluster only");
}

/// A baseline cache is one tree's, and the cluster's: the rows with it,
/// written then read, are those without it (`cluster::run::cache` holds
/// the rest).
#[test]
fn a_baseline_cache_is_one_tree_s_and_changes_no_row() {
    let d = Dir::new("cluster-baseline-cache");
    incremental_trees(&d, "t.jsonl", 5, 8, 2);
    d.write("one.jsonl", d.read("t.jsonl").lines().next().unwrap());
    let run = ["--machine", "cluster", "--threads", "1", "--per-tree", "--procs", "1,8", "--algorithm", "master-worker", "--master-depth", "3"];
    let plain = d.tool("pabsim").arg("one.jsonl").args(run).ok();
    for pass in ["written", "read"] {
        assert_eq!(d.tool("pabsim").arg("one.jsonl").args(run).args(["--baseline-cache", "b.json"]).ok(), plain, "{pass}");
        assert!(d.join("b.json").is_file(), "{pass}");
    }
    d.tool("pabsim")
        .arg("t.jsonl")
        .args(run)
        .args(["--baseline-cache", "c.json"])
        .fails("--baseline-cache: a baseline cache holds one tree's baseline, and the input has 2 trees");
    assert!(!d.join("c.json").exists());
    d.tool("pabsim").args(["t.jsonl", "--baseline-cache", "c.json"]).fails("--baseline-cache applies to --machine cluster only");
}

/// What the cluster cannot do is refused in one line before any search,
/// naming the option and its range: costs that would wrap the simulated
/// clock, an ε outside 1 … 2^31 (the ε-windows' margin), shards (the
/// cluster's runs are not sharded). The largest cost is taken, and exact: the
/// baseline's time is its nodes times one second.
#[test]
fn the_cluster_refuses_costs_epsilons_and_shards_it_cannot_take() {
    let d = Dir::new("cluster-ranges");
    incremental_trees(&d, "t.jsonl", 5, 4, 2);
    let run = ["t.jsonl", "--machine", "cluster", "--procs", "1,4", "-o", "out.csv"];
    for (option, value) in [
        ("--node-ns", "10000000000000000"),
        ("--node-ns", "18446744073709551615"),
        ("--send-ns", "18446744073709551615"),
        ("--recv-ns", "18446744073709551615"),
        ("--latency-ns", "18446744073709551615"),
        ("--latency-ns", "1000000001"),
    ] {
        d.tool("pabsim").args(run).args([option, value]).fails(&format!("{option} {value} must lie in 0..1000000000 (ns, at most one second)"));
    }
    let max = d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--procs", "1", "--per-tree", "--node-ns", "1000000000"]).rows::<ClusterRow>();
    assert_eq!(max.iter().map(|r| (r.time_ns, r.nodes)).collect::<Vec<_>>(), [(144e9, 144), (195e9, 195)]);
    let negascout = ["t.jsonl", "--machine", "cluster", "--procs", "1,4", "--algorithm", "master-worker-negascout", "-o", "out.csv"];
    for e in ["-5", "-9223372036854775808", "0", "2147483649"] {
        d.tool("pabsim").args(negascout).arg(format!("--epsilon={e}")).fails(&format!("--epsilon {e} must lie in 1..2147483648 (score units"));
    }
    d.tool("pabsim").args(negascout).args(["--epsilon", "-5"]).fails("--epsilon -5 must lie in 1..2147483648");
    d.tool("pabsim").args(negascout).args(["--epsilon", "2147483648"]).ok();
    for extra in [&["--shard", "1/2"][..], &["--shard", "1/2", "--per-tree"]] {
        d.tool("pabsim").args(run).args(extra).fails("--shard applies to --machine shared only (the cluster's runs are not sharded");
    }
}

/// `--leaf-factors` is the sequential search alone: it checks its table
/// size as the cluster's runs do (its range, and its memory against
/// `--memory`), refuses every option it does not use, and a master depth
/// beyond the trees' (its row's d′ is the one searched).
#[test]
fn leaf_factors_take_only_their_options() {
    let d = Dir::new("leaf-factors-options");
    incremental_trees(&d, "t.jsonl", 5, 4, 2);
    let lf = ["t.jsonl", "--machine", "cluster", "--leaf-factors", "-o", "out.csv"];
    d.tool("pabsim").args(lf).args(["--master-depth", "2", "--tt-slots", "0"]).fails("--tt-slots 0 must lie in 1..2^30");
    d.tool("pabsim").args(lf).args(["--master-depth", "2", "--tt-slots", "1099511627776"]).fails("--tt-slots 1099511627776 must lie in 1..2^30");
    for (option, value) in [
        ("--procs", "0"),
        ("--procs", "8"),
        ("--node-ns", "5"),
        ("--send-ns", "5"),
        ("--recv-ns", "5"),
        ("--latency-ns", "5"),
        ("--bandwidth", "0"),
        ("--split-ply", "2"),
        ("--slice-nodes", "0"),
        ("--epsilon", "3"),
        ("--master-cost", "0.5"),
        ("--topology", "hypercube"),
        ("--hop-ns", "5"),
        ("--proc-speeds", "4:0.5"),
    ] {
        d.tool("pabsim")
            .args(lf)
            .args(["--master-depth", "2", option, value])
            .fails(&format!("{option} does not apply to --leaf-factors (the sequential search alone"));
    }
    d.tool("pabsim").args(lf).args(["--master-depth", "99"]).fails("--master-depth 99 is deeper than the trees (depth 4): give at most 4");
    // Two tables of 2^30 entries (24 and 16 bytes an entry): 40 GiB.
    d.tool("pabsim").args(lf).args(["--master-depth", "2", "--tt-slots", "1073741824", "--threads", "1", "--memory", "1G"]).fails(
        "the leaf counts need about 42.9 GB (two tables of 1073741824 entries, 1 at once), more than --memory 1.0 GB: lower --tt-slots, or raise --memory",
    );
    let f = d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--leaf-factors", "--master-depth", "4"]).ok();
    assert_eq!(column(&f, "master_depth"), ["4"]);
    assert_eq!(column(&f, "leaves"), ["203"]);
}

/// `psearch` runs the cluster's algorithms only under `mpirun` with
/// `--mpi`: without it their names and options are refused in one line,
/// naming what to give (the MPI build itself is tested in `mpi`).
#[test]
fn psearch_refuses_the_cluster_without_mpi() {
    let d = Dir::new("cluster-psearch");
    incremental_trees(&d, "t.jsonl", 5, 5, 1);
    for a in ["ybwc", "master-worker"] {
        d.tool("psearch").args(["t.jsonl", "--algorithm", a, "-o", "out.csv"]).fails(&format!("--algorithm {a} is a cluster algorithm (give --mpi"));
    }
    d.tool("psearch").args(["t.jsonl", "--master-depth", "2", "-o", "out.csv"]).fails("--master-depth applies to --mpi only");
    d.tool("psearch").args(["t.jsonl", "--split-ply", "2", "-o", "out.csv"]).fails("--split-ply applies to --mpi only");
    d.tool("psearch")
        .args(["t.jsonl", "--topology", "hypercube", "-o", "out.csv"])
        .fails("--topology applies to the simulated cluster; MPI ranks run on the real network");
    d.tool("psearch").args(["t.jsonl", "--mpi-timeout", "5", "-o", "out.csv"]).fails_with(2, "required arguments were not provided: --mpi");
}

/// Ura et al.'s §5.2 leaf counts (`pabsim --machine cluster
/// --leaf-factors`). An incremental tree has no transpositions, so a task
/// never meets another task's node: not sharing the deep table changes
/// nothing. Chess positions do transpose: without sharing, the same 24
/// Bratko-Kopec positions at depth 4 (d′ = 2) need 5.6% more leaves, and
/// the partial share (entries one ply below d′) wins it all back. Full
/// windows cost the most, on both. With d′ = 0 the root is the only task:
/// every count is the baseline's.
#[test]
fn leaf_factors_separate_sharing_from_windows() {
    let d = Dir::new("leaf-factors");
    incremental_trees(&d, "t.jsonl", 5, 8, 4);
    let header = "model,b,depth,master_depth,share_depth,trees,leaves,leaves_unshared,leaves_partial,leaves_full_window\n";
    let f = d.tool("pabsim").args(["--machine", "cluster", "--leaf-factors", "--master-depth", "4", "t.jsonl"]).ok();
    assert_eq!(f, format!("{header}incremental,5,8,4,4,4,10816,10816,10816,23863\n"));
    let root = d.tool("pabsim").args(["--machine", "cluster", "--leaf-factors", "--master-depth", "0", "t.jsonl"]).ok();
    let leaves = column(&root, "leaves")[0].clone();
    for c in ["leaves_unshared", "leaves_partial", "leaves_full_window"] {
        assert_eq!(column(&root, c)[0], leaves, "{c} with the root as the only task");
    }
    game_trees(&d, "c.jsonl", "chess", 4, None);
    let c = d.tool("pabsim").args(["--machine", "cluster", "--leaf-factors", "--master-depth", "2", "c.jsonl", "--threads", "1"]).ok();
    assert_eq!(c, format!("{header}chess,,4,2,1,24,138175,145839,138175,287412\n"));
    assert_eq!(c, d.tool("pabsim").args(["--machine", "cluster", "--leaf-factors", "--master-depth", "2", "c.jsonl", "--threads", "2"]).ok());
    d.tool("pabsim").args(["--machine", "cluster", "--leaf-factors", "t.jsonl"]).fails("--leaf-factors needs --master-depth");
}

/// The network's topology changes latency only. At P = 8, every
/// algorithm: a hypercube whose hops cost 100 µs each is slower than the
/// flat network (ranks up to 3 hops apart, every message 100 to 300 µs
/// later), a fat tree of 2-core nodes too (2 hops between the nodes; with
/// 4-core nodes YBWC on these small trees takes the flat network's time:
/// the messages between the two nodes are off its critical path), and
/// every root value is still the sequential search's. A hypercube whose
/// hops cost nothing, or a fat tree whose one node holds every process,
/// gives the flat network's rows but for the network's name; `--topology
/// flat` is the default's output. Parameters a topology does not read,
/// and costs beyond one second, are refused in one line.
#[test]
fn topologies_change_latency_only() {
    let d = Dir::new("cluster-topology");
    incremental_trees(&d, "t.jsonl", 5, 6, 3);
    let all = "even-split,master-slave,master-worker,master-worker-noupdate,master-worker-share,master-worker-negascout,ybwc";
    let run = |net: &[&str]| d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--procs", "1,8", "--per-tree", "--algorithm", all]).args(net).ok();
    let flat = run(&[]);
    assert_eq!(flat, run(&["--topology", "flat"]));
    let roots: Vec<i64> = d.tool("fbest").args(["t.jsonl", "--per-tree"]).rows::<IncrementalPerTreeRow>().iter().map(|r| r.root_value).collect();
    let flat_rows: Vec<ClusterRow> = rows_of("flat", &flat);
    assert_eq!(flat_rows.len(), 3 + 7 * 3);
    exact(&flat_rows, &roots);
    // Per algorithm, the search times summed over the trees.
    let times = |rows: &[ClusterRow]| {
        let mut t: Vec<(String, f64)> = vec![];
        for r in rows.iter().filter(|r| r.procs == 8) {
            match t.iter_mut().find(|x| x.0 == r.algorithm) {
                Some(x) => x.1 += r.time_ns,
                None => t.push((r.algorithm.clone(), r.time_ns)),
            }
        }
        t
    };
    for (net, name) in [
        (&["--topology", "hypercube", "--hop-ns", "100000"][..], "simulated/hypercube"),
        (&["--topology", "fat-tree", "--node-cores", "2", "--hop-ns", "100000"], "simulated/fat-tree-2"),
    ] {
        let rows: Vec<ClusterRow> = rows_of(name, &run(net));
        exact(&rows, &roots);
        assert!(rows.iter().all(|r| r.transport == name), "{name}");
        // The baseline sends nothing: its rows are the flat network's.
        assert_eq!(rows[..3].iter().map(|r| r.time_ns).collect::<Vec<_>>(), flat_rows[..3].iter().map(|r| r.time_ns).collect::<Vec<_>>());
        for ((a, slow), (_, fast)) in times(&rows).into_iter().zip(times(&flat_rows)) {
            assert!(slow > fast, "{a} on {name}: {slow} ns, flat {fast} ns");
        }
    }
    // Hops that cost nothing: the flat network's rows, named otherwise.
    for (net, name) in
        [(&["--topology", "hypercube", "--hop-ns", "0"][..], "simulated/hypercube"), (&["--topology", "fat-tree", "--node-cores", "8"], "simulated/fat-tree-8")]
    {
        assert_eq!(run(net), flat.replace(",simulated,", &format!(",{name},")), "{name}");
    }
    let one = ["t.jsonl", "--machine", "cluster", "--procs", "8", "-o", "out.csv"];
    for (net, want) in [
        (&["--hop-ns", "5"][..], "--hop-ns applies to --topology hypercube or fat-tree (the flat network's one latency is --latency-ns)"),
        (&["--topology", "hypercube", "--node-cores", "4"], "--node-cores applies to --topology fat-tree only"),
        (&["--topology", "fat-tree", "--node-cores", "0"], "--node-cores 0 must lie in 1..4096 (processes per node)"),
        (&["--topology", "hypercube", "--hop-ns", "1000000001"], "--hop-ns 1000000001 must lie in 0..1000000000 (ns, at most one second)"),
    ] {
        d.tool("pabsim").args(one).args(net).fails(want);
    }
    d.tool("pabsim").args(["t.jsonl", "--topology", "hypercube"]).fails("--topology applies to --machine cluster only");
}

/// The PV split through the tool: exact at every count, its split ply in
/// the `split` column (by default depth 7 − 3 = 4: four split points).
/// Of each split point's 4 other children rank 0 searches the first
/// itself and hands the rest to idle processes (2 messages each): from 4
/// processes on, 3 tasks a split point (s = 4: 24 messages; s = 3: 18);
/// on 2 and 3, from 1 to 4 of them, as the searches' times fall. A name
/// for the cluster only.
#[test]
fn pabsim_runs_the_pv_split() {
    let d = Dir::new("cluster-pv-split");
    incremental_trees(&d, "t.jsonl", 5, 7, 3);
    let roots: Vec<i64> = d.tool("fbest").args(["t.jsonl", "--per-tree"]).rows::<IncrementalPerTreeRow>().iter().map(|r| r.root_value).collect();
    let run = |extra: &[&str]| {
        d.tool("pabsim")
            .args(["t.jsonl", "--machine", "cluster", "--procs", "1,2,3,64,4096", "--policy", "pv-split", "--per-tree"])
            .args(extra)
            .rows::<ClusterRow>()
            .split_off(3)
    };
    for (extra, s) in [(&[][..], 4), (&["--split-ply", "3"][..], 3)] {
        let rows = run(extra);
        assert!(rows.iter().all(|r| r.algorithm == "pv-split" && r.split_ply == Some(s) && r.granularity.is_none()), "{rows:?}");
        for r in &rows {
            let wide = r.procs >= 64;
            assert!(if wide { r.messages == 6 * s as u64 } else { (2 * s as u64..=8 * s as u64).contains(&r.messages) && r.messages % 2 == 0 }, "{r:?}");
        }
        exact(&rows, &roots);
    }
    d.tool("pabsim").args(["t.jsonl", "--policy", "pv-split"]).fails("--algorithm pv-split is a cluster algorithm (give --machine cluster");
}

/// Fox et al.'s master/slave through the tool: exact at every count on
/// every network, its granularity in the `granularity` column (b = 5: 7, at
/// most depth 7 − 1 = 6). Every message goes between a master and its
/// slave, one bit apart: on a hypercube each crosses exactly one link, so
/// the rows are the flat network's with --latency-ns raised by one hop's
/// cost (20 µs + 1 µs), but for the network's name.
#[test]
fn pabsim_runs_fox_on_every_network() {
    let d = Dir::new("cluster-fox");
    incremental_trees(&d, "t.jsonl", 5, 7, 3);
    let roots: Vec<i64> = d.tool("fbest").args(["t.jsonl", "--per-tree"]).rows::<IncrementalPerTreeRow>().iter().map(|r| r.root_value).collect();
    let run = |extra: &[&str]| {
        d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--procs", "1,2,3,8,64,4096", "--algorithm", "fox", "--per-tree"]).args(extra).ok()
    };
    for net in [&[][..], &["--topology", "hypercube"], &["--topology", "fat-tree", "--node-cores", "4"]] {
        let rows: Vec<ClusterRow> = rows_of("fox", &run(net)).split_off(3);
        assert_eq!(rows.len(), 5 * 3);
        assert!(rows.iter().all(|r| r.algorithm == "fox" && r.granularity == Some(6) && r.split_ply.is_none() && r.messages > 0), "{rows:?}");
        exact(&rows, &roots);
    }
    let cube = run(&["--topology", "hypercube", "--hop-ns", "1000"]);
    assert_eq!(cube, run(&["--latency-ns", "21000"]).replace(",simulated,", ",simulated/hypercube,"));
    assert_ne!(cube, run(&["--topology", "hypercube", "--hop-ns", "0"]));
    d.tool("pabsim")
        .args(["t.jsonl", "--machine", "cluster", "--algorithm", "fox", "--split-ply", "2"])
        .fails("--split-ply applies to --algorithm even-split, master-slave or pv-split only (this run: --algorithm fox)");
}

/// YBWC's full version through the tool: the three runs of the
/// experiment in one `--algorithm` list, each exact at every count and on
/// the hypercube, each row naming its switches; any subset by name, with
/// `--slice-nodes` read by all; a misspelt subset refused in one line.
#[test]
fn pabsim_runs_ybwc_with_its_switches() {
    let d = Dir::new("cluster-ybwc-full");
    incremental_trees(&d, "t.jsonl", 5, 7, 3);
    let roots: Vec<i64> = d.tool("fbest").args(["t.jsonl", "--per-tree"]).rows::<IncrementalPerTreeRow>().iter().map(|r| r.root_value).collect();
    let names = ["ybwc", "ybwc-full-no-helpful", "ybwc-full", "ybwc+order+windows"];
    for net in [&[][..], &["--topology", "hypercube"][..]] {
        let rows = d
            .tool("pabsim")
            .args(["t.jsonl", "--machine", "cluster", "--procs", "1,2,64", "--policy", &names.join(","), "--slice-nodes", "256", "--per-tree"])
            .args(net)
            .rows::<ClusterRow>()
            .split_off(3);
        // For each count, each algorithm's 3 trees, in the list's order.
        let got: Vec<&str> = rows.iter().map(|r| r.algorithm.as_str()).collect();
        let want: Vec<&str> = [2, 64].iter().flat_map(|_| names.iter().flat_map(|&n| [n; 3])).collect();
        assert_eq!(got, want);
        exact(&rows, &roots);
    }
    d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--policy", "ybwc+windows+order"]).fails("unknown cluster algorithm `ybwc+windows+order`");
    d.tool("pabsim")
        .args(["t.jsonl", "--machine", "cluster", "--policy", "ybwc-full", "--split-ply", "2"])
        .fails("--split-ply applies to --algorithm even-split, master-slave or pv-split only (this run: --algorithm ybwc-full)");
}

/// What the tools say about the cluster's algorithms comes from
/// the one registry. `pabsim --help` and `psearch --help` name every
/// registered algorithm with its line, `--list-algorithms` is the parallel
/// ones in order, the unknown-name message names them all, the experiment
/// script's default list is the tool's, the rows' documentation lists the
/// registered algorithms (no other, in the registry's order), and the
/// model's step list for a new algorithm names the registry's file.
#[test]
fn the_registry_is_what_the_tools_say() {
    use parab::cluster::{Algorithm, ClusterAlgorithm};
    let all = ClusterAlgorithm::all();
    for tool in ["pabsim", "psearch"] {
        let help = Tool::new(tool).arg("--help").ok();
        for a in &all {
            assert!(help.lines().any(|l| l.trim_start().starts_with(a.name()) && l.contains(a.about())), "{tool} --help lacks {}: {}", a.name(), a.about());
        }
        assert!(help.contains(parab::cluster::algorithms::ybwc::Switches::RULE), "{tool} --help lacks YBWC's switches");
    }
    let listed = Tool::new("pabsim").args(["--machine", "cluster", "--list-algorithms"]).ok();
    let parallel: Vec<&str> = all.iter().map(|a| a.name()).filter(|&n| n != "seq").collect();
    assert_eq!(listed.lines().collect::<Vec<_>>(), parallel);
    // Without --machine: the shared machine's (tests/psearch.rs).
    assert_ne!(Tool::new("pabsim").arg("--list-algorithms").ok(), listed);
    let d = Dir::new("registry-unknown");
    incremental_trees(&d, "t.jsonl", 3, 3, 1);
    let e = d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--procs", "2", "--algorithm", "nonesuch"]).fails("unknown cluster algorithm");
    for n in &parallel {
        assert!(e.contains(n), "{e}");
    }
    let script = std::fs::read_to_string(repo("pipelines/distributed.sh")).unwrap();
    assert!(script.contains("--list-algorithms"), "pipelines/distributed.sh's default list is not the tool's");
    let formats = std::fs::read_to_string(repo("docs/formats.md")).unwrap();
    let column = formats.lines().find(|l| l.starts_with("| `algorithm` |")).expect("formats.md's algorithm column");
    // Its list is the registry's names, in order, before YBWC's other names.
    let quoted: Vec<String> = all.iter().map(|a| format!("`{}`", a.name())).collect();
    let (last, rest) = quoted.split_last().expect("a registry");
    let listed = format!("| `algorithm` | {} or {last} (", rest.join(", "));
    assert!(column.starts_with(&listed), "docs/formats.md's algorithm column is not the registry's list:\n{column}\nwants\n{listed}…");
    let model = std::fs::read_to_string(repo("docs/model.md")).unwrap();
    assert!(model.contains("src/cluster/algorithms/mod.rs"), "docs/model.md's steps do not name the registry");
}

/// `--proc-speeds`: classes that give every rank speed 1 are the default
/// machine, byte for byte; slower later ranks make a longer run with the
/// root value of the sequential search; a bad class is refused in one line.
#[test]
fn processes_of_unequal_speed() {
    let d = Dir::new("proc-speeds");
    incremental_trees(&d, "t.jsonl", 5, 7, 2);
    let run = |extra: &[&str]| {
        d.tool("pabsim")
            .args(["t.jsonl", "--machine", "cluster", "--procs", "16", "--algorithm", "master-worker", "--master-depth", "3", "--threads", "1", "--per-tree"])
            .args(extra)
            .ok()
    };
    let even = run(&[]);
    assert_eq!(run(&["--proc-speeds", "8:1,8:1"]), even);
    let mixed = run(&["--proc-speeds", "4:1,12:0.5"]);
    assert_eq!(column(&mixed, "root_value"), column(&even, "root_value"));
    let time = |out: &str| column(out, "time_ns").iter().map(|t| t.parse::<f64>().unwrap()).sum::<f64>();
    assert!(time(&mixed) > time(&even), "{mixed}");
    d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--procs", "4", "--proc-speeds", "4:0"]).fails_with(2, "speed `0`");
}
