//! `make ura2014` (`pipelines/ura2014.sh`, Ura, Tsuruoka and Chikayama
//! 2014, Tables 1 and 6) on small trees: it runs end to end, its
//! calibration and summary rows are the ones its items give, sharded
//! steps give the unsharded summary byte for byte, a rerun skips every
//! item, and an item whose tool fails or is killed leaves no file.

use crate::util::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The small grid: b = 5 at d = 6 (d′ = 3), b = 20 at d = 4 (d′ = 2), two
/// trees each; Table 1 at P = 4 and 8, Table 6 at P = 4.
const GRID: [(&str, &str); 4] = [("GRID", "5:6:3 20:4:2"), ("COUNT", "2"), ("PROCS", "4 8"), ("EPSILON_PROCS", "4")];

/// The paper's sequential time per leaf, ns (its Table 1: 19,438.92 s for
/// 790 × 10^6 leaves at b = 5, 7,321.58 s for 149 × 10^6 at b = 20).
fn paper_ns_per_leaf(b: u32) -> f64 {
    match b {
        5 => 19_438.92e9 / 790e6,
        20 => 7_321.58e9 / 149e6,
        _ => panic!("no published row for b = {b}"),
    }
}

/// Runs the pipeline with `bin` as its tools, results under `d`/results,
/// the small grid and `env`.
fn pipeline(d: &Dir, bin: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(repo("pipelines/ura2014.sh")).current_dir(&d.path).env("BIN", bin).env("R", d.join("results"));
    for (k, v) in GRID.iter().chain(env) {
        cmd.env(k, v);
    }
    // Its own process group: a test that kills the group kills only it.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.output().unwrap()
}

/// The pipeline must succeed: its stderr.
fn ok(d: &Dir, env: &[(&str, &str)]) -> String {
    let out = pipeline(d, tools(), env);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "ura2014.sh {env:?} failed ({}): {err}", out.status);
    err
}

/// The directory of the built tools.
fn tools() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| bin("pabsim").parent().unwrap().to_path_buf())
}

/// Every file under `dir` with its modification time.
fn mtimes(dir: &Path) -> BTreeMap<PathBuf, std::time::SystemTime> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(mtimes(&p));
        } else {
            out.insert(p.clone(), std::fs::metadata(&p).unwrap().modified().unwrap());
        }
    }
    out
}

fn num(r: &Row, col: &str) -> f64 {
    r[col].parse().unwrap_or_else(|e| panic!("{col} = `{}`: {e}", r[col]))
}

#[test]
fn ura2014_runs_end_to_end_calibrates_and_resumes() {
    let d = Dir::new("ura2014");
    ok(&d, &[]);
    let u = d.join("results/ura2014");
    // Items: 2 groups x 2 trees x (the baseline, Table 1's four, Table 6's
    // ε-window run; its plain master-worker at P = 4 is Table 1's).
    let items = table(&d.read("results/ura2014/items.csv"));
    assert_eq!(items.len(), 2 * 2 * 6);
    assert_eq!(std::fs::read_dir(u.join("run/b5-d6-m3")).unwrap().count(), 2 * 6 * 2 + 2, "a CSV and a .time per item, a baseline per tree");
    // Each tree's baseline, kept by its first parallel item for the others.
    for t in ["t01", "t02"] {
        let b = d.read(&format!("results/ura2014/run/b5-d6-m3/{t}-baseline.json"));
        assert!(b.starts_with("{\"key\":{\"format\":\"pabsim-cluster-baseline/1\"") && b.contains("\"below\":4"), "{t}: {b:.200}");
    }

    // The calibration: the paper's time per leaf times our baseline's
    // leaves per node, from the sequential items alone.
    let calib = table(&d.read("results/ura2014/calibration.csv"));
    assert_eq!(calib.len(), 2);
    for c in &calib {
        let b = num(c, "b") as u32;
        let seq: Vec<&Row> = items.iter().filter(|r| r["b"] == c["b"] && r["algorithm"] == "seq").collect();
        let (leaves, nodes) = (seq.iter().map(|r| num(r, "leaves")).sum::<f64>(), seq.iter().map(|r| num(r, "nodes")).sum::<f64>());
        assert_eq!((num(c, "leaves"), num(c, "nodes")), (leaves, nodes));
        let want = (paper_ns_per_leaf(b) * leaves / nodes).round();
        assert_eq!(num(c, "node_ns"), want, "{c:?}");
        assert!(want > 10_000.0, "tens of µs per node: {want}");
        // The baseline's time is its nodes at that cost.
        for r in &seq {
            assert_eq!(num(r, "time_ns"), num(r, "nodes") * want);
        }
    }

    // Table 1: per group the baseline, then each P with and without updates.
    let t1 = table(&d.read("results/ura2014/table1.csv"));
    let methods: Vec<(String, String, String)> = t1.iter().map(|r| (r["b"].clone(), r["procs"].clone(), r["method"].clone())).collect();
    let mut want = vec![];
    for b in ["5", "20"] {
        want.push((b.to_string(), "1".to_string(), "sequential".to_string()));
        for p in ["4", "8"] {
            for m in ["with updates", "without updates"] {
                want.push((b.to_string(), p.to_string(), m.to_string()));
            }
        }
    }
    assert_eq!(methods, want);
    // Every row from its items: geometric means of time over the trees,
    // speed-up their ratio, leaves the mean per tree, idle times in seconds.
    for r in &t1 {
        let mine: Vec<&Row> =
            items.iter().filter(|i| i["b"] == r["b"] && i["algorithm"] == r["algorithm"] && i["procs"] == r["procs"] && i["epsilon"].is_empty()).collect();
        let seq: Vec<&Row> = items.iter().filter(|i| i["b"] == r["b"] && i["algorithm"] == "seq").collect();
        assert_eq!((mine.len(), num(r, "trees")), (2, 2.0));
        let geo = |rows: &[&Row]| (rows.iter().map(|i| num(i, "time_ns").ln()).sum::<f64>() / rows.len() as f64).exp();
        assert!((num(r, "search_time_s") - geo(&mine) / 1e9).abs() < 1e-6, "{r:?}");
        assert!((num(r, "speedup") - geo(&seq) / geo(&mine)).abs() < 1e-3, "{r:?}");
        let leaves = mine.iter().map(|i| num(i, "leaves")).sum::<f64>() / 2.0;
        assert!((num(r, "leaves_millions") - leaves / 1e6).abs() < 1e-6, "{r:?}");
        if r["method"] != "sequential" {
            let idle = mine.iter().map(|i| num(i, "other_idle_ns")).sum::<f64>() / 2.0;
            assert!((num(r, "other_idle_s") - idle / 1e9).abs() < 1e-6, "{r:?}");
            assert!(num(r, "leaf_ratio") >= 1.0, "{r:?}");
        }
    }
    // Table 6: the plain master (Table 1's item) and ε = 200.
    let t6 = table(&d.read("results/ura2014/table6.csv"));
    let rows: Vec<(String, String, String)> = t6.iter().map(|r| (r["b"].clone(), r["method"].clone(), r["epsilon"].clone())).collect();
    let e = |b: &str, m: &str, eps: &str| (b.to_string(), m.to_string(), eps.to_string());
    assert_eq!(
        rows,
        [
            e("5", "without epsilon-windows", ""),
            e("5", "with epsilon-windows", "200"),
            e("20", "without epsilon-windows", ""),
            e("20", "with epsilon-windows", "200")
        ]
    );
    let with_updates = t1.iter().find(|r| r["b"] == "5" && r["procs"] == "4" && r["method"] == "with updates").unwrap();
    assert_eq!(t6[0]["search_time_s"], with_updates["search_time_s"]);
    // The cost of every item, and of the grid.
    let cost = table(&d.read("results/ura2014/cost.csv"));
    assert_eq!(cost.last().unwrap()["b"], "all");
    assert_eq!(num(cost.last().unwrap(), "items"), 24.0);

    // A rerun runs no item and touches no item file.
    let before = mtimes(&u.join("run"));
    let (t1_text, t6_text) = (d.read("results/ura2014/table1.csv"), d.read("results/ura2014/table6.csv"));
    let err = ok(&d, &[]);
    assert!(!err.contains("/run/"), "a rerun ran items: {err}");
    assert_eq!(mtimes(&u.join("run")), before);
    assert_eq!((d.read("results/ura2014/table1.csv"), d.read("results/ura2014/table6.csv")), (t1_text.clone(), t6_text.clone()));

    // An item without its row (header only) is not done: a rerun redoes it.
    let item = "results/ura2014/run/b5-d6-m3/t01-master-worker-p4.csv";
    let whole = d.read(item);
    d.write(item, &format!("{}\n", whole.lines().next().unwrap()));
    let err = ok(&d, &[]);
    assert_eq!(err.matches("/run/").count(), 1, "one item redone: {err}");
    assert_eq!(d.read(item), whole);
    assert_eq!((d.read("results/ura2014/table1.csv"), d.read("results/ura2014/table6.csv")), (t1_text, t6_text));
}

/// The arithmetic is pabsim's (`--ura2014`, `parab::formats::ura2014`,
/// tested on hand-made rows there): none is left in the script.
#[test]
fn ura2014_leaves_the_arithmetic_to_pabsim() {
    let script = std::fs::read_to_string(repo("pipelines/ura2014.sh")).unwrap();
    assert!(!script.contains("awk"), "pipelines/ura2014.sh computes with awk");
    assert!(script.contains("--ura2014 \"$@\""), "pipelines/ura2014.sh calls pabsim --ura2014");
}

#[test]
fn ura2014_shards_give_the_unsharded_summary() {
    let (one, split) = (Dir::new("ura2014-one"), Dir::new("ura2014-shards"));
    ok(&one, &[]);
    for step in ["seq", "parallel"] {
        for shard in ["1/2", "2/2"] {
            let err = ok(&split, &[("STEP", step), ("SHARD", shard)]);
            assert!(!err.contains("table1.csv"), "STEP={step} writes no summary: {err}");
        }
    }
    // Each shard ran half of each step's items: 4 sequential, 10 parallel.
    ok(&split, &[("STEP", "summary")]);
    for f in ["table1.csv", "table6.csv", "calibration.csv"] {
        let p = format!("results/ura2014/{f}");
        assert_eq!(split.read(&p), one.read(&p), "{f} differs between the sharded and the unsharded run");
    }
}

#[test]
fn ura2014_refuses_a_parallel_step_before_the_sequential_items() {
    let d = Dir::new("ura2014-order");
    ok(&d, &[("STEP", "seq"), ("SHARD", "1/2")]);
    let out = pipeline(&d, tools(), &[("STEP", "parallel"), ("SHARD", "1/2")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        ["ura2014: b = 5, d = 6: 1 of 2 sequential items missing (run STEP=seq on every shard first, and gather their run/ directories)"]
    );
    assert!(!d.join("results/ura2014/calibration.csv").exists());
    let out = pipeline(&d, tools(), &[("SHARD", "3/2")]);
    assert_eq!(out.status.code(), Some(2));
}

/// Other cluster algorithms beside Table 1's: d′ goes to the
/// master-worker alone (the others would refuse `--master-depth`), and
/// each gets its summary row, named by its algorithm.
#[test]
fn ura2014_runs_any_cluster_algorithm_beside_the_master_worker() {
    let d = Dir::new("ura2014-others");
    ok(&d, &[("GRID", "5:6:3"), ("COUNT", "1"), ("PROCS", "4"), ("ALGORITHMS", "master-worker ybwc-full fox")]);
    let t1 = table(&d.read("results/ura2014/table1.csv"));
    let methods: Vec<&str> = t1.iter().map(|r| r["method"].as_str()).collect();
    assert_eq!(methods, ["sequential", "with updates", "ybwc-full", "fox"]);
    assert!(t1.iter().all(|r| num(r, "speedup") > 0.0 && r["trees"] == "1"), "{t1:?}");
}

/// A noisy family beside the plain trees of the same (b, d, d′): its own
/// tree file, items, calibration and rows, named in `eval_noise`; its
/// trees order worse, so its baseline searches more leaves.
#[test]
fn ura2014_runs_a_noisy_family_beside_the_plain_trees() {
    let d = Dir::new("ura2014-noise");
    ok(&d, &[("GRID", "20:4:2 20:4:2:300"), ("COUNT", "2"), ("PROCS", "4"), ("EPSILON_PROCS", "")]);
    assert!(d.join("results/ura2014/trees/b20-d4-n2-noise-300.jsonl").exists());
    let noisy = d.read("results/ura2014/trees/b20-d4-n2-noise-300.jsonl");
    assert!(noisy.lines().all(|l| l.contains("\"eval_noise\":300")), "{noisy}");
    assert_eq!(std::fs::read_dir(d.join("results/ura2014/run/b20-d4-m2-noise-300")).unwrap().count(), 2 * 3 * 2 + 2);
    let calib = table(&d.read("results/ura2014/calibration.csv"));
    assert_eq!(calib.iter().map(|c| c["eval_noise"].as_str()).collect::<Vec<_>>(), ["", "300"]);
    let t1 = table(&d.read("results/ura2014/table1.csv"));
    let rows: Vec<(&str, &str, &str)> = t1.iter().map(|r| (r["eval_noise"].as_str(), r["procs"].as_str(), r["method"].as_str())).collect();
    let want = |n| [(n, "1", "sequential"), (n, "4", "with updates"), (n, "4", "without updates")];
    assert_eq!(rows, [want(""), want("300")].concat());
    let leaves = |n: &str| t1.iter().find(|r| r["eval_noise"] == n && r["procs"] == "1").map(|r| num(r, "leaves_millions")).unwrap();
    assert!(leaves("300") > leaves(""), "noise 300: {} against {}", leaves("300"), leaves(""));
    // Each tree's own speed-up lies between the least and the largest.
    for r in t1.iter().filter(|r| r["procs"] != "1") {
        assert!(num(r, "speedup_min") <= num(r, "speedup") && num(r, "speedup") <= num(r, "speedup_max"), "{r:?}");
        assert!(num(r, "leaf_ratio_min") <= num(r, "leaf_ratio_max"), "{r:?}");
    }
}

/// A `pabsim` that writes part of its output, then fails (or, with
/// FAKE_KILL=1, kills its process group, as a cancelled job is); its
/// `--ura2014` calls (the script's check of ALGORITHMS) go to the real
/// one, REAL.
const FAKE_PABSIM: &str = "#!/bin/sh\ncase \" $* \" in *\" --ura2014 \"*) exec REAL \"$@\" ;; esac\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\necho partial > \"$out\"\n[ \"${FAKE_KILL:-}\" = 1 ] && { kill -TERM 0; sleep 5; }\necho 'pabsim: failing on purpose' >&2\nexit 1\n";

#[test]
fn ura2014_an_interrupted_item_leaves_nothing() {
    let d = Dir::new("ura2014-interrupted");
    let fake = tools_dir(&d, &["treegen"], &[("pabsim", &FAKE_PABSIM.replace("REAL", &bin("pabsim").to_string_lossy()))]);
    for (kill, code) in [("0", 1), ("1", 143)] {
        let out = pipeline(&d, &fake, &[("FAKE_KILL", kill)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "FAKE_KILL={kill}: {err}");
        assert!(err.contains("t01-seq.csv"), "{err}");
        // The trees are there; of the item, not a byte.
        let files: Vec<String> = mtimes(&d.join("results/ura2014")).into_keys().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(files, ["b20-d4-n2.jsonl", "b5-d6-n2.jsonl"], "FAKE_KILL={kill}");
    }
}

/// Every variable is checked before a directory is made or a
/// tool runs, in one line naming it and what it accepts (exit code 2).
#[test]
fn ura2014_refuses_bad_variables_before_making_anything() {
    let base = [("GRID", "5:6:3"), ("COUNT", "1"), ("PROCS", "4"), ("EPSILON_PROCS", "4")];
    let grid = "GRID must be full, sample, quick, scaled or b:d:d′[:NOISE] entries";
    let procs = "PROCS must be whole numbers from 2 to 4096 separated by spaces";
    script_refuses(
        "ura2014",
        &base,
        &[
            // Read as 2/2 (tree 2 only) before.
            (&[("SHARD", "2")], "SHARD must be K/N with 1 <= K <= N"),
            // Header-only tables before.
            (&[("STEP", "summary"), ("GRID", "bogus")], grid),
            (&[("GRID", "bogus")], grid),
            (&[("GRID", "5:6:6")], grid),
            (&[("GRID", "5:6:3:x")], grid),
            (&[("GRID", "5:6:3:0")], grid),
            (&[("GRID", "7:6:3:shogi")], "NOISE shogi is calibrated at b = 5 and b = 20 only"),
            // Refused, but after the result directories were made.
            (&[("COUNT", "0")], "COUNT must be a whole number from 1 to 100"),
            // Items named `p2,4`, Table 1 the sequential row alone.
            (&[("PROCS", "2,4")], procs),
            // Refused by pabsim only after items ran, in several lines.
            (&[("PROCS", "2 junk")], procs),
            (&[("EPSILON_PROCS", "4 junk")], "EPSILON_PROCS must be whole numbers from 2 to 4096"),
            (&[("EPSILON", "0")], "EPSILON must be a whole number >= 1"),
            // Two bare `mkdir` lines.
            (&[("R", "{dir}/a-file")], "R must be a directory (this is a file)"),
            (&[("R", "{dir}/a-file/results")], "R must be a directory"),
            (&[("BIN", "{dir}")], "BIN must be the directory of the built tools"),
        ],
    );
}

/// A run interrupted (SIGINT to the process group, as Ctrl-C
/// sends it) just before the script renames one of its files into place
/// leaves no temporary file: the tree file and an item (a run once left
/// `cost.csv.<pid>.tmp` written after the exit trap's list was cleared).
/// Now the summary's files are written by `pabsim --ura2014`,
/// atomically (`cli::output`, whose tests hold a signal to removing what is
/// pending): the script renames none of them, so an interrupting `mv`
/// never fires during a summary.
#[test]
fn ura2014_an_interrupted_run_leaves_no_temporary_file() {
    let d = Dir::new("ura2014-summary-interrupted");
    let small = [("GRID", "5:6:3"), ("COUNT", "1"), ("PROCS", "4"), ("EPSILON_PROCS", "4")];
    let path = format!("{}:{}", interrupting_mv(&d).display(), std::env::var("PATH").unwrap_or_default());
    for file in [".jsonl.", "t01-seq.csv.", "t01-seq.time."] {
        let out = script(&d, "ura2014").envs(small.iter()).env("STEP", "seq").env("PATH", &path).env("STOP_AT", file).output();
        let left = tmp_files(&d.join("results"));
        assert!(left.is_empty(), "interrupted before renaming {file}tmp: {left:?} left");
        assert_eq!(out.status.code(), Some(130), "interrupted before renaming {file}tmp: {}", String::from_utf8_lossy(&out.stderr));
    }
    script(&d, "ura2014").envs(small.iter()).ok();
    assert!(d.join("results/ura2014/table1.csv").exists());
    let out = script(&d, "ura2014").envs(small.iter()).env("STEP", "summary").env("PATH", &path).env("STOP_AT", ".tmp").output();
    assert_eq!(out.status.code(), Some(0), "the summary renamed a file itself: {}", String::from_utf8_lossy(&out.stderr));
    assert!(tmp_files(&d.join("results")).is_empty());
}

/// One group (5:4:2) of one tree by hand, as the pipeline files its items:
/// the baseline and the master-worker at P = 4, each with its `.time`.
fn hand_items(d: &Dir) -> PathBuf {
    let run = d.join("u/run/b5-d4-m2");
    std::fs::create_dir_all(&run).unwrap();
    incremental_trees(d, "t.jsonl", 5, 4, 1);
    let cluster = ["t.jsonl", "--machine", "cluster", "--per-tree", "--threads", "1", "--node-ns", "1000"];
    d.tool("pabsim").args(cluster).args(["--procs", "1", "-o", "u/run/b5-d4-m2/t01-seq.csv"]).ok();
    d.tool("pabsim")
        .args(cluster)
        .args(["--procs", "4", "--algorithm", "master-worker", "--master-depth", "2", "-o", "u/run/b5-d4-m2/t01-master-worker-p4.csv"])
        .ok();
    for item in ["t01-seq", "t01-master-worker-p4"] {
        d.write(&format!("u/run/b5-d4-m2/{item}.time"), ",,,\n");
    }
    run
}

/// `pabsim --ura2014 STEP u` on the hand-made items, Table 1 the
/// master-worker at P = 4, `published` the paper's Table 1.
fn ura(d: &Dir, step: &str, published: &Path) -> Tool {
    let p = published.to_string_lossy().into_owned();
    d.tool("pabsim")
        .args(["--ura2014", step, "u", "--grid", "5:4:2", "--count", "1", "--procs", "4", "--algorithm", "master-worker", "--node-ns", "1000"])
        .args(["--published", &p])
}

/// The summary's files in `dir` (the items aside), each with its text.
fn contents(dir: &Path) -> BTreeMap<String, String> {
    let files = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file());
    files.map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())).collect()
}

/// `csv` with column `col` of its data line `line` (1-based) set to `value`.
fn with_cell(csv: &str, line: usize, col: &str, value: &str) -> String {
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    let i = lines[0].split(',').position(|c| c == col).unwrap_or_else(|| panic!("no column {col}"));
    let mut cells: Vec<&str> = lines[line].split(',').collect();
    cells[i] = value;
    lines[line] = cells.join(",");
    lines.join("\n") + "\n"
}

/// The summary's inputs that are not what they say are refused in one line
/// naming the file, line and column, and nothing is written: a published
/// sequential time or leaf count that is no positive number (read as 0
/// before: a cost per node of 1 ns or 2^64 − 1), an item without its row
/// (skipped before, and the calibration said it held two trees), leaves
/// whose sum wraps, a time that is no number (NaN reached table1.csv), an
/// item filed under another configuration (counted there), a group given
/// twice (every item counted twice) and a grid with no item at all (four
/// empty files).
#[test]
fn ura2014_summary_refuses_what_it_cannot_read() {
    let d = Dir::new("ura2014-hardened");
    let run = hand_items(&d);
    let paper = repo("data/published/ura2014/table-1.csv");
    ura(&d, "summary", &paper).ok();
    let t1 = table(&d.read("u/table1.csv"));
    assert_eq!(t1.iter().map(|r| (r["algorithm"].as_str(), r["trees"].as_str())).collect::<Vec<_>>(), [("seq", "1"), ("master-worker", "1")]);
    // Table 6 has no configuration here: its header alone.
    assert_eq!(d.read("u/table6.csv").lines().count(), 1);
    let done = contents(&d.join("u"));
    let refused = |what: &str, needle: &str, published: &Path| {
        let err = ura(&d, "summary", published).fails(needle);
        assert_eq!(contents(&d.join("u")), done, "{what}: {err}");
    };

    let text = std::fs::read_to_string(&paper).unwrap();
    for (col, v) in [("search_time_s", "abc"), ("search_time_s", "NaN"), ("search_time_s", "-1"), ("leaves_millions", "0"), ("leaves_millions", "inf")] {
        let p = d.write("paper.csv", &with_cell(&text, 1, col, v));
        refused(&format!("{col} {v}"), &format!("column {col}: `{v}`"), &p);
        assert!(ura(&d, "summary", &p).output().stderr.ends_with(b"paper.csv:2)\n"));
    }

    let seq = d.read("u/run/b5-d4-m2/t01-seq.csv");
    let par = d.read("u/run/b5-d4-m2/t01-master-worker-p4.csv");
    let item = |name: &str, text: &str| std::fs::write(run.join(name), text).unwrap();
    let header = |t: &str| format!("{}\n", t.lines().next().unwrap());
    for (what, file, text, needle) in [
        ("a header-only baseline", "t01-seq.csv", header(&seq), "no row, an item holds one"),
        ("a header-only parallel item", "t01-master-worker-p4.csv", header(&par), "no row, an item holds one"),
        ("an empty parallel item", "t01-master-worker-p4.csv", String::new(), "t01-master-worker-p4.csv"),
        ("two rows", "t01-master-worker-p4.csv", format!("{par}{}", par.lines().nth(1).unwrap()), "2 rows, an item holds one"),
        ("a NaN time", "t01-master-worker-p4.csv", with_cell(&par, 1, "time_ns", "NaN"), "column time_ns: `NaN`"),
        ("an idle time of inf", "t01-master-worker-p4.csv", with_cell(&par, 1, "other_idle_ns", "inf"), "column other_idle_ns: `inf`"),
        (
            "another configuration's row",
            "t01-master-worker-p4.csv",
            with_cell(&par, 1, "procs", "8"),
            "column procs: `8`, but the file's name and directory say 4",
        ),
        ("another tree's row", "t01-master-worker-p4.csv", with_cell(&par, 1, "tree", "2"), "column tree: `2`"),
        ("leaves above nodes", "t01-seq.csv", with_cell(&seq, 1, "leaves", "999999999"), "column leaves"),
    ] {
        let keep = if file == "t01-seq.csv" { &seq } else { &par };
        item(file, &text);
        refused(what, needle, &paper);
        item(file, keep);
    }
    // The noupdate item, a copy of the master-worker's: refused under its name.
    let cfg = ["--procs", "4", "--algorithm", "master-worker,master-worker-noupdate"];
    item("t01-master-worker-noupdate-p4.csv", &par);
    d.write("u/run/b5-d4-m2/t01-master-worker-noupdate-p4.time", ",,,\n");
    let p = paper.to_string_lossy().into_owned();
    let err = d
        .tool("pabsim")
        .args(["--ura2014", "summary", "u", "--grid", "5:4:2", "--count", "1", "--node-ns", "1000", "--published", &p])
        .args(cfg)
        .fails("column algorithm: `master-worker`, but the file's name and directory say master-worker-noupdate");
    assert!(err.contains("t01-master-worker-noupdate-p4.csv:2"), "{err}");
    std::fs::remove_file(run.join("t01-master-worker-noupdate-p4.csv")).unwrap();
    std::fs::remove_file(run.join("t01-master-worker-noupdate-p4.time")).unwrap();

    // Leaves whose sum wraps: two trees of 2^63 leaves each.
    let big = with_cell(&with_cell(&seq, 1, "leaves", "9223372036854775808"), 1, "nodes", "9223372036854775808");
    item("t01-seq.csv", &big);
    item("t02-seq.csv", &with_cell(&big, 1, "tree", "2"));
    let err = d.tool("pabsim").args(["--ura2014", "calibration", "u", "--grid", "5:4:2", "--count", "2", "--published", &p]).fails("sum past 2^64 - 1");
    assert!(err.contains("t02-seq.csv"), "{err}");
    item("t01-seq.csv", &seq);
    std::fs::remove_file(run.join("t02-seq.csv")).unwrap();
    assert_eq!(contents(&d.join("u")), done);

    // A group twice; no item at all.
    ura(&d, "summary", &paper).arg("--grid").arg("5:4:2").fails("--grid: `5:4:2` is given twice");
    d.tool("pabsim")
        .args(["--ura2014", "summary", "u", "--grid", "5:6:3", "--count", "1", "--node-ns", "1000", "--published", &p])
        .fails("no group of --grid has its 1 sequential items");
    assert_eq!(contents(&d.join("u")), done);
}

/// `--ura2014 configs` checks what it lists: names pabsim runs (YBWC with
/// switches too), process counts and ε in their ranges, and refuses the
/// options it does not read; `--list-algorithms` refuses the options it
/// does not read.
#[test]
fn ura2014_configs_refuses_what_no_item_could_run() {
    let configs = || Tool::new("pabsim").args(["--ura2014", "configs"]);
    let out = configs().args(["--epsilon", "200", "--epsilon-procs", "4", "--procs", "4", "--algorithm", "master-worker,ybwc+helpful"]).ok();
    assert_eq!(out, "master-worker-p4 4 master-worker -\nybwc+helpful-p4 4 ybwc+helpful -\nmaster-worker-negascout-e200-p4 4 master-worker-negascout 200\n");
    for (args, needle) in [
        (&["--procs", "4", "--algorithm", "bogus"][..], "unknown cluster algorithm `bogus`"),
        (&["--procs", "4", "--algorithm", "seq"], "--algorithm seq: the sequential baseline"),
        (&["--procs", "0", "--algorithm", "master-worker"], "--procs 0: Table 1's configurations run on 2..4096"),
        (&["--procs", "4", "--algorithm", "master-worker,master-worker"], "--algorithm: `master-worker` is given twice"),
        (&["--procs", "4"], "give both or neither"),
        (&["--epsilon-procs", "0"], "--epsilon-procs 0"),
        (&["--epsilon", "0", "--epsilon-procs", "4"], "--epsilon 0 must lie in 1.."),
        (&["--wake-ns", "5"], "--wake-ns does not apply to --ura2014"),
        (&["--topology", "hypercube"], "--topology does not apply to --ura2014"),
        (&["--tt-slots", "1024"], "--tt-slots does not apply to --ura2014"),
    ] {
        configs().args(args).fails(needle);
    }
    assert_eq!(parab::formats::ura2014::MAX_NODE_NS, parab::cluster::exec::machine::MAX_COST_NS);
    for extra in [&["--trace", "t.json"][..], &["--algorithm", "ybwc"], &["--procs", "4"]] {
        Tool::new("pabsim").args(["--machine", "cluster", "--list-algorithms"]).args(extra).fails_with(2, "cannot be used with");
    }
}

/// The scripts check every variable before making anything: names pabsim
/// would refuse only at its first parallel item, a depth treegen refuses,
/// more trees than set tg1 has seeds; a value with a newline or an escape
/// sequence is quoted escaped, on one line.
#[test]
fn ura2014_refuses_what_a_tool_would_refuse_after_directories_are_made() {
    let base = [("GRID", "5:6:3"), ("COUNT", "1"), ("PROCS", "4"), ("EPSILON_PROCS", "4")];
    script_refuses(
        "ura2014",
        &base,
        &[
            (&[("ALGORITHMS", "bogus")], "ALGORITHMS must be cluster algorithm names"),
            (&[("ALGORITHMS", "master-worker seq")], "ALGORITHMS must be cluster algorithm names"),
            (
                &[("GRID", "5:65:4")],
                "GRID must be full, sample, quick, scaled or b:d:d′[:NOISE] entries (2 <= b <= 4096, 1 <= d′ < d <= 64, NOISE shogi or a step 1 .. 65536)",
            ),
            (&[("GRID", "5000:6:3")], "GRID must be"),
            (&[("COUNT", "101")], "COUNT must be a whole number from 1 to 100"),
            (&[("COUNT", "1\n2")], "not `$'1\\n2'`"),
            (&[("COUNT", "\u{1b}[31m")], "not `$'\\E[31m'`"),
            // Valid names with switches pass; the next variable is refused.
            (&[("ALGORITHMS", "master-worker ybwc+helpful"), ("EPSILON", "0")], "EPSILON must be a whole number >= 1"),
        ],
    );
    script_refuses(
        "othellox",
        &[("BOARDS", "6"), ("DEPTHS", "3"), ("COUNT", "1")],
        &[
            (&[("PLIES", "12..8")], "PLIES must be a number of plies or a range of them, LO..HI with LO <= HI <= 1000"),
            (&[("PLIES", "1001")], "PLIES must be"),
            (&[("ALGORITHMS", "pv-split,bogus")], "ALGORITHMS must be cluster algorithm names"),
            (&[("ALGORITHMS", "pv-split,,ybwc")], "ALGORITHMS must be cluster algorithm names"),
            (&[("ALGORITHMS", "ybwc+helpful,pv-split"), ("TOPOLOGIES", "ring")], "TOPOLOGIES must be"),
        ],
    );
}

/// Without Slurm, `make ura2014-slurm` refuses before it makes a directory.
#[test]
fn ura2014_slurm_without_sbatch_makes_nothing() {
    let d = Dir::new("ura2014-no-slurm");
    let out = Command::new("bash").arg(repo("pipelines/slurm/ura2014.sh")).arg("2").env("PATH", "/usr/bin:/bin").env("R", d.join("results")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if Command::new("sh").args(["-c", "PATH=/usr/bin:/bin command -v sbatch"]).output().unwrap().status.success() {
        return; // Slurm is installed here: the refusal cannot be seen.
    }
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("ura2014-slurm: sbatch not found"), "{err}");
    assert!(!d.join("results").exists());
}
