//! Options that would do nothing: an option of the shared
//! machine given to the cluster, or one that no chosen algorithm (or
//! split-point scheme) reads, is refused in one line naming it and what
//! reads it, before any tree is read (a missing input is not reached) and
//! with nothing written; an option that some chosen algorithm reads passes.

use crate::util::*;

/// The cluster has no locks and no interleaving: `--lock` and
/// `--interleave` are refused as the shared machine's, the defaults too.
#[test]
fn the_cluster_refuses_the_shared_machines_lock_and_interleaving() {
    let d = Dir::new("options-cluster-shared");
    incremental_trees(&d, "t.jsonl", 3, 3, 1);
    for (option, value) in [("--lock", "queue"), ("--interleave", "state"), ("--lock", "tas"), ("--interleave", "access")] {
        for input in ["t.jsonl", "missing.jsonl"] {
            d.tool("pabsim")
                .args([input, "--machine", "cluster", "--procs", "1,2", option, value, "-o", "out.csv"])
                .fails(&format!("pabsim: {option} applies to --machine shared only"));
        }
    }
    // The shared machine still takes them.
    artificial_trees(&d, "a.jsonl", "3,50,50", 3, 1);
    d.tool("pabsim").args(["a.jsonl", "--procs", "1,2", "--lock", "queue", "--interleave", "state", "-o", "out.csv"]).ok();
    assert!(d.join("out.csv").is_file());
}

/// The cluster's options each belong to some of its algorithms: given
/// with none of them, each is refused naming those that read it.
#[test]
fn the_cluster_refuses_options_no_chosen_algorithm_reads() {
    let d = Dir::new("options-cluster");
    incremental_trees(&d, "t.jsonl", 3, 4, 2);
    let mw = "master-worker, master-worker-noupdate, master-worker-share or master-worker-negascout";
    let cases: [(&[&str], String); 7] = [
        (&["--algorithm", "even-split", "--epsilon", "5"], "--epsilon applies to --algorithm master-worker-negascout only (this run: --algorithm even-split)".into()),
        (&["--algorithm", "even-split", "--master-depth", "2"], format!("--master-depth applies to --algorithm {mw} only (this run: --algorithm even-split)")),
        (
            &["--algorithm", "even-split", "--slice-nodes", "64"],
            "--slice-nodes applies to --algorithm master-worker, master-worker-noupdate, master-worker-share, master-worker-negascout, ybwc, ybwc-full, pv-split or fox only (this run: --algorithm even-split)".into(),
        ),
        (&["--algorithm", "master-worker", "--split-ply", "2"], "--split-ply applies to --algorithm even-split, master-slave or pv-split only (this run: --algorithm master-worker)".into()),
        (&["--algorithm", "master-worker", "--share-depth", "1"], "--share-depth applies to --algorithm master-worker-share only (this run: --algorithm master-worker)".into()),
        (&["--epsilon", "5"], "--epsilon applies to --algorithm master-worker-negascout only (this run: --algorithm even-split,master-slave)".into()),
        (&["--algorithm", "ybwc", "--master-cost", "0.25"], format!("--master-cost applies to --algorithm {mw} only (this run: --algorithm ybwc)")),
    ];
    for (args, want) in &cases {
        for input in ["t.jsonl", "missing.jsonl"] {
            d.tool("pabsim").args([input, "--machine", "cluster", "--procs", "1,2"]).args(*args).args(["-o", "out.csv"]).fails(&format!("pabsim: {want}"));
        }
    }
    // An option read by one of the chosen algorithms passes, whatever the others.
    let out = d
        .tool("pabsim")
        .args(["t.jsonl", "--machine", "cluster", "--procs", "1,3", "--algorithm", "even-split,master-worker-negascout", "--epsilon", "5", "--split-ply", "1"])
        .ok();
    assert_eq!(column(&out, "algorithm"), ["seq", "even-split", "master-worker-negascout"]);
    assert_eq!(column(&out, "split_ply"), ["", "1", ""]);
    assert_eq!(column(&out, "master_depth"), ["", "", "2"]);
}

/// The shared machine and the real threads: one rule for the schemes'
/// options and the algorithms' (`--m-b` under scheme a as `--steal-seed`
/// with dts); `--scheme a,b --m-a 3 --m-b 2` is valid.
#[test]
fn the_shared_machine_and_threads_refuse_options_no_chosen_algorithm_or_scheme_reads() {
    let d = Dir::new("options-shared");
    artificial_trees(&d, "t.jsonl", "4,50,50", 3, 1);
    let cases: [(&[&str], &str); 6] = [
        (&["--scheme", "a", "--m-b", "2"], "--m-b applies to --scheme b only (this run: --algorithm dts, --scheme a)"),
        (&["--scheme", "b", "--m-a", "2"], "--m-a applies to --scheme a only (this run: --algorithm dts, --scheme b)"),
        (&["--cut-width", "5"], "--cut-width applies to --scheme c only (this run: --algorithm dts, --scheme a)"),
        (&["--algorithm", "steal", "--scheme", "a,b", "--m-ca", "-1"], "--m-ca applies to --scheme c only (this run: --algorithm steal, --scheme a,b)"),
        (&["--algorithm", "dts", "--steal-seed", "2"], "--steal-seed applies to --algorithm steal only (this run: --algorithm dts, --scheme a)"),
        (&["--algorithm", "pvsplit", "--pv-wait", "0"], "--pv-wait applies to --scheme a or b only (this run: --algorithm pvsplit, no scheme)"),
    ];
    for (args, want) in cases {
        for input in ["t.jsonl", "missing.jsonl"] {
            d.tool("pabsim").args([input, "--procs", "1,2"]).args(args).args(["-o", "out.csv"]).fails(&format!("pabsim: {want}"));
            d.tool("psearch").args([input, "--threads", "1,2"]).args(args).args(["-o", "out.csv"]).fails(&format!("psearch: {want}"));
        }
    }
    // Networks are scheme c's: refused before the file is read.
    d.tool("psearch").args(["t.jsonl", "--threads", "2", "--weights", "nothing.json", "-o", "out.csv"]).fails("--weights applies to --scheme c only");
    d.tool("pabsim").args(["t.jsonl", "--procs", "2", "--weights", "nothing.json", "-o", "out.csv"]).fails("--weights applies to --scheme c only");
    // Each option read by one of the chosen schemes: valid.
    let both = ["--scheme", "a,b", "--m-a", "3", "--m-b", "2"];
    let sim = d.tool("pabsim").args(["t.jsonl", "--procs", "1,2"]).args(both).ok();
    assert_eq!((column(&sim, "m_a"), column(&sim, "m_b")), (vec!["".to_string(), "3".into(), "".into()], vec!["".to_string(), "".into(), "2".into()]));
    let real = d.tool("psearch").args(["t.jsonl", "--threads", "1,2"]).args(both).ok();
    assert_eq!((column(&real, "m_a"), column(&real, "m_b")), (vec!["".to_string(), "3".into(), "".into()], vec!["".to_string(), "".into(), "2".into()]));
}
