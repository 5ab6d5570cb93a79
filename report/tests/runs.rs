//! Whole runs of the report as a user starts them: results it must refuse
//! (a second copy of a nodes file, another machine's runs in chapter 6), a
//! failed run leaving no directories behind, the published tables found
//! from any directory, and every tool's `--help` examples run in order.

use crate::util::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(p: &str) -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("..")).unwrap().join(p)
}

fn published() -> String {
    repo("data/published").display().to_string()
}

/// A tiny chapter 4 and 6 run under `dir/results`: node counts and a p = 1
/// and p = 4 pabsim run of 4 trees.
fn results(d: &Dir) {
    for sub in ["results/nodes", "results/pabsim"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    d.tool("treegen").args(["--ordering", "32,79,5", "--depth", "3", "--count", "4", "-o", "t.jsonl"]).ok();
    d.tool("fbest").args(["--per-tree", "t.jsonl", "-o", "results/nodes/tg1-32-79-5-d3.csv"]).ok();
    d.tool("pabsim").args(["t.jsonl", "--procs", "1", "--per-tree", "-o", "results/pabsim/p1.csv"]).ok();
    d.tool("pabsim").args(["t.jsonl", "--procs", "4", "--scheme", "a", "-o", "results/pabsim/a.csv"]).ok();
}

/// Runs the report, which must fail with one line naming `needle` and
/// write no page.
fn report_fails(d: &Dir, args: &[&str], needle: &str) -> String {
    let p = published();
    let mut all = vec!["--published", p.as_str(), "--date", "2001-06-30"];
    all.extend_from_slice(args);
    let err = d.tool("report").args(&all).fails(needle);
    assert!(!d.join("results/report/index.html").exists(), "no page on an error");
    err
}

/// A second copy of a nodes file doubled Table 6.3's n_1.
#[test]
fn a_second_copy_of_a_nodes_file_is_refused() {
    let d = Dir::new("r22-3a");
    results(&d);
    std::fs::copy(d.join("results/nodes/tg1-32-79-5-d3.csv"), d.join("results/nodes/tg1-32-79-5-d3 (copy).csv")).unwrap();
    let err = report_fails(&d, &["--results", "results"], "the node counts of one tree (b 32, wa 79, wb 5, depth 3, tree 1, seed ");
    assert!(err.contains("results/nodes/tg1-32-79-5-d3 (copy).csv:2 and results/nodes/tg1-32-79-5-d3.csv:2"), "{err}");
    std::fs::remove_file(d.join("results/nodes/tg1-32-79-5-d3 (copy).csv")).unwrap();
    let p = published();
    d.tool("report").args(["--results", "results", "--published", &p, "--date", "2001-06-30"]).ok();
}

/// A `--lock queue` or `--policy steal` run in `results/pabsim` took the
/// thesis machine's cell in Table 6.4 (the configuration key ignored them).
#[test]
fn runs_of_another_machine_are_refused_in_chapter_6() {
    let d = Dir::new("r22-3b");
    results(&d);
    for (args, needle) in [
        (&["--lock", "queue"][..], "lock `queue` is not the thesis's machine (tas) at results/pabsim/other.csv:2"),
        (&["--policy", "steal"], "policy `steal` is not the thesis's machine (dts) at results/pabsim/other.csv:2"),
        (&["--interleave", "state"], "interleave `state` is not the thesis's machine (access)"),
        (&["--pv-wait", "0"], "pv_wait `0` is not the thesis's machine (1)"),
    ] {
        let run = [&["t.jsonl", "--procs", "4", "--scheme", "a", "-o", "results/pabsim/other.csv"][..], args].concat();
        d.tool("pabsim").args(&run).ok();
        report_fails(&d, &["--results", "results"], needle);
    }
    // The key holds every machine column, so no two machines ever merge.
    for c in ["lock", "policy", "interleave", "split_walk", "min_split_depth", "split_group", "steal_seed", "pv_wait"] {
        assert!(parab_report::load::SIM_CONFIG.contains(&c), "{c}");
    }
}

/// `report --out new/deep/o --figures /proc/x` refused but left the
/// directories it made.
#[test]
fn a_failed_report_leaves_no_directories() {
    let d = Dir::new("r22-11");
    results(&d);
    let err = report_fails(&d, &["--results", "results", "--out", "new/deep/o", "--figures", "/proc/parab-x"], "cannot create --figures /proc/parab-x");
    assert!(!err.contains(".parab-"), "{err}");
    assert!(!d.join("new").exists(), "left new/deep/o behind");
}

/// Run outside the repository, `report` failed on `data/published`; it
/// now finds the repository's tables beside its binary.
#[test]
fn the_published_tables_are_found_from_anywhere() {
    let d = Dir::new("r22-23");
    results(&d);
    assert!(!d.join("data").exists());
    d.tool("report").args(["--results", "results", "--date", "2001-06-30"]).ok();
    let page = d.read("results/report/index.html");
    assert!(page.contains("Table 6.3"), "the published tables are joined");
}

/// The examples of a tool's `--help`: the indented lines after `Example:`
/// or `Examples ...:`, up to the next blank line.
fn examples(tool: &str) -> Vec<String> {
    let out = Command::new(bin(tool)).arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines().skip_while(|l| !(l.starts_with("Example") && l.ends_with(':')));
    assert!(lines.next().is_some(), "{tool} --help has no examples");
    let v: Vec<String> = lines.take_while(|l| !l.trim().is_empty()).map(|l| l.trim().to_string()).collect();
    assert!(!v.is_empty(), "{tool}");
    v
}

/// Every example of every tool's `--help` runs, in order (the
/// later tools' examples read what the earlier ones wrote), from a
/// directory that holds only the repository's `data/` and an empty
/// `results/`; and no example writes anywhere but under `results/` and
/// `/tmp` (here a private `tmp/`: the examples' `/tmp/` is rewritten).
#[test]
fn every_help_example_runs() {
    let d = Dir::new("r22-18");
    std::os::unix::fs::symlink(repo("data"), d.join("data")).unwrap();
    std::fs::create_dir_all(d.join("results")).unwrap();
    std::fs::create_dir_all(d.join("tmp")).unwrap();
    let bins = bin("treegen").parent().unwrap().to_path_buf();
    assert_eq!(bin("report").parent().unwrap(), bins, "all tools in one directory");
    let path = format!("{}:{}", bins.display(), std::env::var("PATH").unwrap_or_default());
    let tmp = format!("{}/", d.join("tmp").display());
    let mut ran = 0;
    for tool in ["treegen", "fbest", "trainset", "nntrain", "classify", "pabsim", "positions", "psearch", "report"] {
        for ex in examples(tool) {
            let first = ex.split_whitespace().find(|w| !w.contains('=')).unwrap_or("");
            assert!(
                ["treegen", "fbest", "trainset", "nntrain", "classify", "pabsim", "positions", "psearch", "report", "mkdir"].contains(&first),
                "{tool}: `{ex}`"
            );
            let cmd = ex.replace("/tmp/", &tmp);
            let out = Command::new("bash").args(["-o", "pipefail", "-c", &cmd]).current_dir(&d.path).env("PATH", &path).output().unwrap();
            assert!(out.status.success(), "{tool} --help example failed: `{ex}`: {}", String::from_utf8_lossy(&out.stderr));
            assert!(out.stderr.is_empty(), "`{ex}` said: {}", String::from_utf8_lossy(&out.stderr));
            ran += 1;
        }
    }
    assert!(ran >= 30, "{ran} examples");
    assert_eq!(d.files(), vec!["data", "results", "tmp"], "an example wrote outside results/ and /tmp");
    // They chain: what the later examples read was written by earlier ones.
    for f in ["trees.jsonl", "chess.csv", "weights/32-79-5.json", "weights/20-69-19.json", "all.csv", "chess-train.epd", "page/index.html"] {
        assert!(d.join("tmp").join(f).exists(), "{f}");
    }
}

/// The report sums per-tree rows per configuration by the library's one
/// rule (`parab::formats::aggregate`): its polars sums of pabsim's rows and
/// of fbest's node counts equal the library's `summarize` (and the plain
/// per-tree sums) on the same rows, column by column.
#[test]
fn the_reports_sums_are_the_librarys() {
    use parab::formats::aggregate::{Agg, Summed, summarize};
    use parab::formats::{PerTreeRow, SimRow, read_csv};
    use parab_report::load::{self, Schema};
    use polars::prelude::*;
    let d = Dir::new("report-sums");
    d.tool("treegen").args(["--ordering", "32,79,5", "--depth", "3", "--count", "3", "-o", "t.jsonl"]).ok();
    d.tool("pabsim").args(["t.jsonl", "--procs", "1,4", "--scheme", "a,b", "--per-tree", "-o", "p.csv"]).ok();
    let rows: Vec<SimRow> = read_csv(parab::cli::Input::open(Some(&d.join("p.csv"))).unwrap()).unwrap();
    let key = |r: &SimRow| Ok::<_, ()>((r.scheme.clone(), r.procs, r.m_a, r.m_b));
    let ours = summarize(rows, key).unwrap();
    assert_eq!(ours.len(), 3, "p = 1 (no scheme) and schemes A and B at p = 4");
    let csv = load::read(&d.join("p.csv"), &Schema::of::<SimRow>(), &[]).unwrap();
    let summed: Vec<&str> = SimRow::COLUMNS.iter().filter(|(_, a)| matches!(a, Agg::Sum | Agg::SumAll)).map(|(c, _)| *c).collect();
    let group = [col("scheme"), col("procs"), col("m_a"), col("m_b")];
    let frame = parab_report::summary::summarize(&csv.df, &group, SimRow::COLUMNS, &summed, vec![]).unwrap().collect().unwrap();
    assert_eq!(frame.height(), ours.len());
    let json = |r: &SimRow| serde_json::to_value(r).unwrap();
    for (i, r) in ours.iter().enumerate() {
        for c in &summed {
            let want = json(r)[*c].as_i64();
            let got = frame.column(c).unwrap().get(i).unwrap().try_extract::<i64>().ok();
            assert_eq!(got, want, "row {i}, column {c}");
        }
    }
    // fbest's node counts: the report's Table 4.6 sums are the per-tree sums.
    d.tool("fbest").args(["--per-tree", "t.jsonl", "-o", "n.csv"]).ok();
    let per_tree: Vec<PerTreeRow> = read_csv(parab::cli::Input::open(Some(&d.join("n.csv"))).unwrap()).unwrap();
    let csv = load::read(&d.join("n.csv"), &Schema::of::<PerTreeRow>(), &[]).unwrap();
    let cols = ["nodes", "leaves", "internal", "contributing"];
    let frame = parab_report::summary::summarize(&csv.df, &[col("b"), col("depth")], PerTreeRow::COLUMNS, &cols, vec![]).unwrap().collect().unwrap();
    assert_eq!(frame.height(), 1);
    for c in cols {
        let want: i64 = per_tree.iter().map(|r| json_i64(&serde_json::to_value(r).unwrap(), c)).sum();
        assert_eq!(frame.column(c).unwrap().get(0).unwrap().try_extract::<i64>().unwrap(), want, "{c}");
    }
    // A column the rule does not sum is refused, not summed.
    assert!(parab_report::summary::summarize(&csv.df, &[col("b")], PerTreeRow::COLUMNS, &["seed"], vec![]).is_err());
}

fn json_i64(v: &serde_json::Value, c: &str) -> i64 {
    v[c].as_i64().unwrap()
}

/// Counts whose sum leaves 64 bits are refused with the row, never printed
/// wrapped round (three trees of 5 × 10^18 nodes).
#[test]
fn a_sum_that_leaves_64_bits_is_refused() {
    let d = Dir::new("report-overflow");
    std::fs::create_dir_all(d.join("results/nodes")).unwrap();
    let mut t = String::from("tree,seed,b,wa,wb,depth,nodes,leaves,internal,contributing,root_value\n");
    for i in 1..=3 {
        t += &format!("{i},{i},32,79,5,3,5000000000000000000,8,2,2,7\n");
    }
    d.write("results/nodes/tg1-32-79-5-d3.csv", &t);
    let err = d.tool("report").args(["--published", &published()]).fails("leaves 64 bits");
    assert!(err.contains("nodes") && err.contains("tg1-32-79-5-d3.csv:3"), "{err}");
}
