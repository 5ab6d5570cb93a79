//! The parallel search algorithms beyond the thesis (PV splitting,
//! work stealing, active splitting), queue locks, and machines of up to
//! 1,024 processors, as `pabsim` runs them.

use crate::util::*;

const ROOT: &str = "1073741823";

/// Every policy, both locks, on the thesis's five orderings and machines of
/// 2, 3, 7, 48, 64 and 1,024 processors: the root's value is the minimax
/// value, and each row names its policy and parameters.
#[test]
fn every_policy_ordering_and_machine_returns_minimax() {
    let d = Dir::new("policies");
    for (b, wa, wb) in [(32, 79, 5), (20, 69, 19), (32, 66, 66), (32, 33, 33), (32, 0, 0)] {
        let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", &format!("{b},{wa},{wb}"), "--depth", "3", "--count", "2"]).ok();
        for lock in ["tas", "queue"] {
            let args = ["--procs", "2,3,7,48,64,1024", "--policy", "dts,pvsplit,steal,active", "--min-split-depth", "1", "--lock", lock, "--per-tree"];
            let out = d.tool("pabsim").args(args).stdin(&trees).ok();
            assert_eq!(out.lines().count(), 1 + 2 * 6 * 4, "{b},{wa},{wb} {lock}");
            assert!(column(&out, "root_value").iter().all(|v| v == ROOT), "{b},{wa},{wb} {lock}");
            assert!(column(&out, "lock").iter().all(|v| v == lock));
            let policies = column(&out, "policy");
            for p in ["dts", "pvsplit", "steal", "active"] {
                assert_eq!(policies.iter().filter(|x| *x == p).count(), 2 * 6, "{p}");
            }
            // Each policy's parameters, and only its own.
            for ((pol, scheme), (depth, (group, seed))) in policies
                .iter()
                .zip(column(&out, "scheme"))
                .zip(column(&out, "min_split_depth").into_iter().zip(column(&out, "split_group").into_iter().zip(column(&out, "steal_seed"))))
            {
                let want = match pol.as_str() {
                    "dts" => ("a", "", "", ""),
                    "pvsplit" => ("-", "", "", ""),
                    "steal" => ("a", "", "", "1"),
                    _ => ("a", "1", "8", ""),
                };
                assert_eq!((scheme.as_str(), depth.as_str(), group.as_str(), seed.as_str()), want, "{pol}");
            }
        }
    }
}

/// Work stealing's victims come from the seed: another seed, another run;
/// the same seed, the same bytes for any number of threads, and shards
/// merge into the single run.
#[test]
fn policies_are_deterministic_for_any_threads_and_shards() {
    let d = Dir::new("policy-threads");
    let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", "20,69,19", "--depth", "4", "--count", "4"]).ok();
    d.write("t.jsonl", &trees);
    let args = [
        "t.jsonl",
        "--procs",
        "1,7,64",
        "--policy",
        "pvsplit,steal,active",
        "--split-group",
        "2",
        "--min-split-depth",
        "1..2",
        "--lock",
        "queue",
        "--per-tree",
    ];
    let one = d.tool("pabsim").args(args).args(["--threads", "1"]).ok();
    let two = d.tool("pabsim").args(args).args(["--threads", "2"]).ok();
    assert_eq!(one, two);
    for k in 1..=2 {
        d.tool("pabsim").args(args).args(["--shard", &format!("{k}/2"), "-o", &format!("s{k}.csv")]).ok();
    }
    assert_eq!(d.tool("pabsim").args(["--merge", "--per-tree", "s2.csv", "s1.csv"]).ok(), one);
    let seeded = |seed: &str| {
        let out = d.tool("pabsim").args(["t.jsonl", "--procs", "7", "--policy", "steal", "--steal-seed", seed, "--per-tree"]).ok();
        column(&out, "tp_ticks")
    };
    assert_eq!(seeded("3"), seeded("3"));
    assert_ne!(seeded("3"), seeded("4"));
}

/// Unknown policies, parameters that do not apply to the policies asked
/// for, and machines beyond 1,024 processors: one line, nothing written.
#[test]
fn bad_policy_arguments_fail_cleanly() {
    let d = Dir::new("policy-bad");
    let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", "20,69,19", "--depth", "3", "--count", "2"]).ok();
    d.write("t.jsonl", &trees);
    let cases: [(&[&str], &str); 9] = [
        (&["t.jsonl", "--procs", "4", "--policy", "ybw", "-o", "out.csv"], "unknown policy `ybw`"),
        (&["t.jsonl", "--procs", "4", "--policy", "ybwc", "-o", "out.csv"], "--algorithm ybwc is a cluster algorithm (give --machine cluster"),
        (
            &["t.jsonl", "--procs", "4", "--policy", "pvsplit", "--scheme", "b", "-o", "out.csv"],
            "--scheme applies to --algorithm dts, steal or active only (this run: --algorithm pvsplit, no scheme)",
        ),
        (
            &["t.jsonl", "--procs", "4", "--policy", "pvsplit", "--m-a", "3", "-o", "out.csv"],
            "--m-a applies to --scheme a only (this run: --algorithm pvsplit, no scheme)",
        ),
        (&["t.jsonl", "--procs", "4", "--policy", "dts", "--min-split-depth", "2", "-o", "out.csv"], "--min-split-depth applies to --algorithm active only"),
        (&["t.jsonl", "--procs", "4", "--policy", "dts,pvsplit", "--steal-seed", "2", "-o", "out.csv"], "--steal-seed applies to --algorithm steal only"),
        (&["t.jsonl", "--procs", "4", "--policy", "steal", "--split-walk", "level", "-o", "out.csv"], "--split-walk applies to --algorithm dts only"),
        (&["t.jsonl", "--procs", "4", "--policy", "active", "--split-group", "1", "-o", "out.csv"], "--split-group must lie in 2..1024"),
        (&["t.jsonl", "--procs", "1,2048", "-o", "out.csv"], "--procs 2048: the machine has 1..1024 processors"),
    ];
    for (args, needle) in cases {
        d.tool("pabsim").args(args).fails(needle);
    }
    // A value clap's parser refuses is a usage error (exit 2).
    d.tool("pabsim").args(["t.jsonl", "--procs", "4", "--lock", "mcs", "-o", "out.csv"]).fails_with(2, "unknown lock `mcs`");
}
