//! `make othellox` (`pipelines/othellox.sh`'s grid) on a small
//! grid: every algorithm of its default list runs on every board size and
//! network (each run checks its root value against the sequential
//! search's), the summary has one row per configuration in the grid's
//! order, sharded items give the unsharded summary byte for byte, and a
//! rerun skips every item.

use crate::util::*;
use std::process::Command;

/// Two boards, two depths, P = 2 and 3, every network, two positions.
const GRID: [(&str, &str); 5] = [("BOARDS", "6 10"), ("DEPTHS", "3 4"), ("PROCS", "2 3"), ("COUNT", "2"), ("TOPOLOGIES", "flat hypercube fat-tree")];

/// Runs the pipeline on the small grid with `env`, results under `d`: its
/// stderr (it must succeed).
fn ok(d: &Dir, env: &[(&str, &str)]) -> String {
    let tools = bin("pabsim").parent().unwrap().to_path_buf();
    let mut cmd = Command::new("bash");
    cmd.arg(repo("pipelines/othellox.sh")).current_dir(&d.path).env("BIN", tools).env("R", d.join("results"));
    for (k, v) in GRID.iter().chain(env) {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "othellox.sh {env:?} failed ({}): {err}", out.status);
    err
}

#[test]
fn othellox_grid_runs_every_algorithm_and_shards() {
    let d = Dir::new("othellox");
    let err = ok(&d, &[]);
    // Every (board, depth, network), OthelloX's Table 3 item, the summary.
    assert_eq!(err.matches("othellox: ").count(), 2 * 2 * 3 + 2, "{err}");
    let csv = d.read("results/othellox/othellox.csv");
    let rows = table(&csv);
    // Per (board, depth, network): the baseline and 7 algorithms at 2 P.
    assert_eq!(rows.len(), 2 * 2 * 3 * (1 + 7 * 2));
    let algs: std::collections::BTreeSet<&str> = rows.iter().map(|r| r["algorithm"].as_str()).collect();
    assert_eq!(algs.into_iter().collect::<Vec<_>>(), ["even-split", "fox", "master-slave", "pv-split", "seq", "ybwc", "ybwc-full", "ybwc-full-no-helpful"]);
    // The grid's order: board, depth, network; the board in the family.
    assert_eq!(rows[0]["model"], "othello6");
    assert_eq!((rows[0]["depth"].as_str(), rows[0]["transport"].as_str()), ("3", "simulated"));
    assert_eq!(rows[15]["transport"], "simulated/hypercube");
    assert!(rows[30]["transport"].starts_with("simulated/fat-tree"), "{}", rows[30]["transport"]);
    assert_eq!(rows.last().unwrap()["model"], "othello10");
    assert!(rows.iter().all(|r| r["trees"] == "2"));
    // Table 3's setting: the PV split on the 24 shipped 8 × 8 positions
    // at depth 5, a row per position and P = 1 … 64.
    let t3 = d.read("results/othellox/pv-split-table3.csv");
    let t3_rows = table(&t3);
    assert_eq!(t3_rows.len(), 24 * 7);
    assert!(t3_rows.iter().all(|r| r["depth"] == "5" && r["model"] == "othello" && r["trees"] == "1"));
    assert_eq!(t3_rows.iter().filter(|r| r["algorithm"] == "pv-split").count(), 24 * 6);
    // A rerun skips every item and writes the same summary.
    let again = ok(&d, &[]);
    assert_eq!(again.matches("othellox: ").count(), 1, "{again}");
    assert_eq!(d.read("results/othellox/othellox.csv"), csv);
    // Two shards' items, then the summary: the same file.
    let split = Dir::new("othellox-shards");
    for (shard, items) in [("1/2", 7), ("2/2", 6)] {
        let err = ok(&split, &[("STEP", "items"), ("SHARD", shard)]);
        assert_eq!(err.matches("othellox: ").count(), items, "{err}");
    }
    ok(&split, &[("STEP", "summary")]);
    assert_eq!(split.read("results/othellox/othellox.csv"), csv);
    assert_eq!(split.read("results/othellox/pv-split-table3.csv"), t3);
}

/// Every variable is checked before a directory is made or a
/// tool runs, in one line naming it and what it accepts (exit code 2).
#[test]
fn othellox_refuses_bad_variables_before_making_anything() {
    let base = [("BOARDS", "6"), ("DEPTHS", "3"), ("COUNT", "1"), ("PROCS", "2 4"), ("TOPOLOGIES", "flat")];
    let shard = "SHARD must be K/N with 1 <= K <= N";
    let procs = "PROCS must be whole numbers from 2 to 4096 separated by spaces";
    script_refuses(
        "othellox",
        &base,
        &[
            // Not checked before: nothing run and an empty summary, or an
            // unbound variable after the positions were written.
            (&[("SHARD", "0/2")], shard),
            (&[("SHARD", "3/2")], shard),
            (&[("SHARD", "x/y")], shard),
            (&[("SHARD", "2")], shard),
            // The whole grid ran.
            (&[("STEP", "bogus")], "STEP must be all, items or summary"),
            (&[("PROCS", "2 junk")], procs),
            (&[("PROCS", "2,4")], procs),
            // "`1` is given twice" from pabsim: the script runs P = 1 itself.
            (&[("PROCS", "1")], "(P = 1, the baseline, is run anyway)"),
            (&[("PROCS", "2 1")], "(P = 1, the baseline, is run anyway)"),
            // "pabsim: no tree specs in <stdin>".
            (&[("DEPTHS", "0")], "DEPTHS must be whole numbers from 1 to 64"),
            (&[("BOARDS", "7")], "BOARDS must be some of 6, 8, 10 or 12"),
            (&[("TOPOLOGIES", "ring")], "TOPOLOGIES must be some of flat, hypercube or fat-tree"),
            (&[("COUNT", "0")], "COUNT must be a whole number >= 1"),
            (&[("R", "{dir}/a-file")], "R must be a directory (this is a file)"),
            (&[("BIN", "{dir}")], "BIN must be the directory of the built tools"),
        ],
    );
}

/// A summary interrupted (SIGINT to the process group, as Ctrl-C
/// sends it) just before `othellox.csv.tmp` is renamed leaves no
/// temporary file (the script had no exit trap).
#[test]
fn othellox_an_interrupted_summary_leaves_no_temporary_file() {
    let d = Dir::new("othellox-summary-interrupted");
    let small = [("BOARDS", "6"), ("DEPTHS", "3"), ("COUNT", "1"), ("PROCS", "2"), ("TOPOLOGIES", "flat"), ("ALGORITHMS", "ybwc")];
    script(&d, "othellox").envs(small.iter()).ok();
    let path = format!("{}:{}", interrupting_mv(&d).display(), std::env::var("PATH").unwrap_or_default());
    let out = script(&d, "othellox").envs(small.iter()).env("STEP", "summary").env("PATH", &path).env("STOP_AT", "othellox.csv.tmp").output();
    let left = tmp_files(&d.join("results"));
    assert!(left.is_empty(), "{left:?} left");
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
}
