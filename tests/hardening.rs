//! Issue 12: the defects a probe of hostile inputs found, one test each
//! (numbers are the issue's). Each test checks exit codes, messages and the
//! files left behind, not only that something failed.

use crate::util::*;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

/// The issue's `t.jsonl` (20,69,19) and `u.jsonl` (32,79,5): 4 trees at depth 3.
fn t_and_u(d: &Dir) {
    for (name, o) in [("t.jsonl", "20,69,19"), ("u.jsonl", "32,79,5")] {
        ok(&d.path, "treegen", &["--ordering", o, "--depth", "3", "--count", "4", "-o", name], "");
    }
}

/// Runs a tool that must fail with `code`, one line on stderr naming `needle`.
fn fails_with(d: &Dir, tool: &str, args: &[&str], code: i32, needle: &str) -> String {
    let out = run_in(&d.path, tool, args, "");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{tool} {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{tool} {args:?}: one line expected: {err}");
    assert!(err.starts_with(&format!("{tool}: ")), "{err}");
    assert!(err.contains(needle), "{tool} {args:?}: `{needle}` expected in: {err}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
    err
}

/// Runs `sh -c script` in `dir` (for umask and redirections).
fn sh(dir: &Path, script: &str) -> std::process::Output {
    Command::new("sh").arg("-c").arg(script).current_dir(dir).output().unwrap()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// Defect 2: `--n` is bounded like `--m`, and checked before any value exists: a
/// huge range fails at once instead of allocating 16 GiB or running forever.
#[test]
fn d2_classify_n_is_bounded_before_it_is_materialised() {
    let d = Dir::new("d2");
    t_and_u(&d);
    let start = std::time::Instant::now();
    fails_with(&d, "classify", &["t.jsonl", "--n", "1..4294967295", "-o", "c.csv"], 1, "--n values must lie in 1..4096");
    fails_with(&d, "classify", &["t.jsonl", "--n", "1..1000000", "-o", "c.csv"], 1, "--n values must lie in 1..4096");
    fails_with(&d, "classify", &["t.jsonl", "--n", "1..99999999999999999999", "-o", "c.csv"], 1, "is not a non-negative integer");
    fails_with(&d, "classify", &["t.jsonl", "--m", "0..101", "-o", "c.csv"], 1, "--m values must lie in 0..100");
    assert!(start.elapsed().as_secs() < 10, "the refusals took {:?}", start.elapsed());
    assert!(!d.join("c.csv").exists());
    // The bounds themselves are accepted.
    let out = ok(&d.path, "classify", &["t.jsonl", "--scheme", "b", "--n", "4090..4096"], "");
    assert_eq!(out.lines().count(), 1 + 7);
}

/// Defect 3: Every shard carries its run's identity; `--merge` refuses shards of
/// different runs (other trees, processors, seed sets) and names the files.
#[test]
fn d3_merge_refuses_shards_of_different_runs() {
    let d = Dir::new("d3");
    t_and_u(&d);
    ok(&d.path, "treegen", &["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "4", "-o", "t2.jsonl"], "");
    let shard = |input: &str, procs: &str, k: u32, out: &str| {
        ok(&d.path, "pabsim", &[input, "--procs", procs, "--per-tree", "--shard", &format!("{k}/2"), "-o", out], "");
    };
    shard("t.jsonl", "1,4", 1, "t1.csv");
    shard("t.jsonl", "1,4", 2, "t2.csv");
    shard("u.jsonl", "1,4", 2, "u2.csv");
    shard("t.jsonl", "1,8", 2, "t8-2.csv");
    shard("t2.jsonl", "1,4", 2, "tg2-2.csv");
    // The same trees and processors on the other machine model.
    ok(&d.path, "pabsim", &["t.jsonl", "--procs", "1,4", "--per-tree", "--shard", "2/2", "--interleave", "state", "-o", "state-2.csv"], "");
    for other in ["u2.csv", "t8-2.csv", "tg2-2.csv", "state-2.csv"] {
        let err = fails_with(&d, "pabsim", &["--merge", "t1.csv", other, "-o", "m.csv"], 1, "come from different runs");
        assert!(err.contains("t1.csv") && err.contains(other), "{err}");
        assert!(!d.join("m.csv").exists());
    }
    // Shards of one run still merge into exactly the single-machine output.
    let single = ok(&d.path, "pabsim", &["t.jsonl", "--procs", "1,4", "--per-tree"], "");
    assert_eq!(ok(&d.path, "pabsim", &["--merge", "--per-tree", "t2.csv", "t1.csv"], ""), single);
    let run = single.lines().nth(1).unwrap().split(',').next().unwrap().to_string();
    assert_eq!(run.len(), 16, "a run id in the first column: {single}");
    assert!(single.lines().skip(1).all(|l| l.starts_with(&format!("{run},"))));
}

/// Defect 4: A value given twice is refused, the same way in every tool.
#[test]
fn d4_repeated_values_are_refused() {
    let d = Dir::new("d4");
    t_and_u(&d);
    fails_with(&d, "pabsim", &["t.jsonl", "--procs", "1,4,4", "-o", "p.csv"], 1, "--procs: `4` is given twice");
    fails_with(&d, "pabsim", &["t.jsonl", "--procs", "1,1,1", "-o", "p.csv"], 1, "--procs: `1` is given twice");
    fails_with(&d, "pabsim", &["t.jsonl", "--procs", "4", "--scheme", "a,A", "-o", "p.csv"], 1, "--scheme: `a` is given twice");
    fails_with(&d, "classify", &["t.jsonl", "--scheme", "a,a", "-o", "p.csv"], 1, "--scheme: `a` is given twice");
    fails_with(&d, "treegen", &["--ordering", "20,69,19", "--ordering", "20,69,19", "--depth", "3", "-o", "p.csv"], 1, "is given twice");
    fails_with(&d, "fbest", &["--analytic", "--ordering", "20,69,19", "--ordering", "20,69,19", "-o", "p.csv"], 1, "is given twice");
    assert!(!d.join("p.csv").exists());
    // Once each, the rows say what the trees say: p = 1 counts the 4 trees once.
    let out = ok(&d.path, "pabsim", &["t.jsonl", "--procs", "1,4"], "");
    assert_eq!(sum_column(&out, "trees"), 8);
}

/// Defect 5: A diverged training is an error, and no weights file with `null`s is written.
#[test]
fn d5_diverged_training_is_an_error() {
    let d = Dir::new("d5");
    let trees = ok(&d.path, "treegen", &["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "8"], "");
    d.write("p.csv", &ok(&d.path, "trainset", &[], &trees));
    for flag in ["--init", "--eta"] {
        fails_with(&d, "nntrain", &["p.csv", "--iterations", "20", flag, "1e300", "-o", "w.json", "--curve", "c.csv"], 1, "training diverged");
        assert!(!d.join("w.json").exists() && !d.join("c.csv").exists());
    }
    let w = ok(&d.path, "nntrain", &["p.csv", "--iterations", "20"], "");
    assert!(!w.contains("null"));
}

/// Defect 6: Outputs get the permissions of `> file` (0666 less the umask); a
/// replaced file keeps its own.
#[test]
fn d6_outputs_have_the_umask_permissions_or_keep_the_replaced_ones() {
    let d = Dir::new("d6");
    let treegen = bin("treegen");
    let t = treegen.display();
    let out = sh(
        &d.path,
        &format!(
            "umask 022 && {t} --ordering 20,69,19 --depth 3 --count 2 -o new.jsonl && umask 027 && {t} --ordering 20,69,19 --depth 3 --count 2 -o new2.jsonl"
        ),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(mode(&d.join("new.jsonl")), 0o644);
    assert_eq!(mode(&d.join("new2.jsonl")), 0o640);
    d.write("old.jsonl", "x\n");
    std::fs::set_permissions(d.join("old.jsonl"), std::fs::Permissions::from_mode(0o664)).unwrap();
    let out = sh(&d.path, &format!("umask 077 && {t} --ordering 20,69,19 --depth 3 --count 2 -o old.jsonl"));
    assert!(out.status.success());
    assert_eq!(mode(&d.join("old.jsonl")), 0o664);
    assert!(d.read("old.jsonl").starts_with('{'));
}

/// The child half of [`d7_a_signal_during_the_write_removes_the_temporary_file`]:
/// runs only when that test starts this test binary with the variable set.
#[test]
fn d7_child_killed_while_writing() {
    let Some(dir) = std::env::var_os("PARAB_TEST_SIGNAL_DIR") else { return };
    use std::io::Write;
    let mut o = parab::cli::Output::create(Some(&Path::new(&dir).join("out.csv"))).unwrap();
    o.write_all(&vec![b'x'; 1 << 20]).unwrap();
    o.flush().unwrap();
    assert!(o.temp_path().unwrap().exists());
    Command::new("kill").args(["-TERM", &std::process::id().to_string()]).status().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(20));
    panic!("not killed");
}

/// Defect 7: SIGTERM while an output is being written removes the temporary file;
/// the old target stays as it was; the process still dies of the signal.
#[test]
fn d7_a_signal_during_the_write_removes_the_temporary_file() {
    let d = Dir::new("d7");
    d.write("out.csv", "old\n");
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "hardening::d7_child_killed_while_writing", "--test-threads", "1"])
        .env("PARAB_TEST_SIGNAL_DIR", &d.path)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(15), "the child should die of SIGTERM: {out:?}");
    assert_eq!(d.files(), vec!["out.csv"]);
    assert_eq!(d.read("out.csv"), "old\n");
}

/// Defect 8: All outputs of a run commit together: a failing `-o` leaves `--curve`
/// as it was.
#[test]
fn d8_outputs_commit_together() {
    let d = Dir::new("d8");
    let trees = ok(&d.path, "treegen", &["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "8"], "");
    d.write("p.csv", &ok(&d.path, "trainset", &[], &trees));
    d.write("c.csv", "old curve\n");
    fails_with(&d, "nntrain", &["p.csv", "--iterations", "5", "-o", "/dev/full", "--curve", "c.csv"], 1, "cannot write /dev/full");
    assert_eq!(d.read("c.csv"), "old curve\n");
    assert_eq!(d.files(), vec!["c.csv", "p.csv"]);
}

/// Defect 9: A missing required argument is named.
#[test]
fn d9_missing_arguments_are_named() {
    let d = Dir::new("d9");
    t_and_u(&d);
    fails_with(&d, "fbest", &["--analytic"], 2, "not provided: --ordering <ORDERING>");
    fails_with(&d, "treegen", &["--depth", "3"], 2, "not provided: --ordering <ORDERING>");
    fails_with(&d, "pabsim", &["t.jsonl", "--procs", "1,4", "--shard", "1/2"], 2, "not provided: --per-tree");
}

/// Defect 10: Inputs that used to be accepted silently.
#[test]
fn d10_questionable_inputs_are_errors() {
    let d = Dir::new("d10");
    t_and_u(&d);
    // A tree spec with index 0.
    let t = d.read("t.jsonl");
    d.write("zero.jsonl", &t.replacen("\"index\":1,", "\"index\":0,", 1));
    fails_with(&d, "fbest", &["zero.jsonl"], 1, "(zero.jsonl:1): index 0");
    // The same trees twice.
    d.write("twice.jsonl", &format!("{t}{t}"));
    fails_with(&d, "trainset", &["twice.jsonl", "-o", "p.csv"], 1, "tree spec repeats line 1 (twice.jsonl:5)");
    assert!(!d.join("p.csv").exists());
    // A baseline for other trees.
    ok(&d.path, "pabsim", &["u.jsonl", "--procs", "1", "--per-tree", "-o", "base-u.csv"], "");
    fails_with(&d, "pabsim", &["t.jsonl", "--procs", "4", "--baseline", "base-u.csv", "-o", "p.csv"], 1, "none of its p = 1 rows is for these trees");
    assert!(!d.join("p.csv").exists());
    // Weights whose root type or ranges are impossible.
    let trees = ok(&d.path, "treegen", &["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "8"], "");
    d.write("pat.csv", &ok(&d.path, "trainset", &[], &trees));
    let w = ok(&d.path, "nntrain", &["pat.csv", "--iterations", "5"], "");
    let mut v: serde_json::Value = serde_json::from_str(&w).unwrap();
    v["root_type"] = serde_json::json!(1e308);
    d.write("root.json", &v.to_string());
    fails_with(&d, "classify", &["t.jsonl", "--weights", "root.json"], 1, "root_type 1e308 lies outside the type range");
    let mut v: serde_json::Value = serde_json::from_str(&w).unwrap();
    v["ordering"]["b"] = serde_json::json!(32);
    d.write("b.json", &v.to_string());
    fails_with(
        &d,
        "pabsim",
        &["t.jsonl", "--procs", "4", "--scheme", "c", "--weights", "b.json"],
        1,
        "ordering.b is 32 but the index and wait ranges end at 20",
    );
    // `-o` at a dangling symlink writes the link's target and keeps the link.
    std::os::unix::fs::symlink("target.jsonl", d.join("link.jsonl")).unwrap();
    ok(&d.path, "treegen", &["--ordering", "20,69,19", "--depth", "3", "--count", "4", "-o", "link.jsonl"], "");
    assert!(std::fs::symlink_metadata(d.join("link.jsonl")).unwrap().file_type().is_symlink());
    assert_eq!(d.read("target.jsonl"), t);
}

/// Defect 11: Messages name the target, the column, and the header's line.
#[test]
fn d11_messages_name_what_the_user_gave() {
    let d = Dir::new("d11");
    t_and_u(&d);
    // An output directory we cannot write to: the target is named, never the temporary file.
    let err =
        fails_with(&d, "treegen", &["--ordering", "20,69,19", "--depth", "3", "-o", "/proc/parab-out.jsonl"], 1, "cannot create output /proc/parab-out.jsonl");
    assert!(!err.contains(".parab-"), "{err}");
    fails_with(&d, "classify", &["t.jsonl", "-o", "/dev/full"], 1, "cannot write /dev/full");
    fails_with(&d, "pabsim", &["t.jsonl", "-o", "/dev/full"], 1, "cannot write /dev/full");
    // A bad number in a shard: the column by name.
    ok(&d.path, "pabsim", &["t.jsonl", "--procs", "1", "--per-tree", "--shard", "1/1", "-o", "s.csv"], "");
    let s = d.read("s.csv");
    let mut lines: Vec<String> = s.lines().map(String::from).collect();
    let i = lines[0].split(',').position(|c| c == "tp_ticks").unwrap();
    let mut f: Vec<String> = lines[2].split(',').map(String::from).collect();
    f[i] = "12x".into();
    lines[2] = f.join(",");
    d.write("bad.csv", &(lines.join("\n") + "\n"));
    fails_with(&d, "pabsim", &["--merge", "bad.csv"], 1, "column `tp_ticks`: invalid digit found in string (bad.csv:3)");
    // A bad header is reported on line 1, naming the column.
    d.write("head.csv", &s.replacen("tp_ticks", "tp_tick", 1));
    fails_with(&d, "pabsim", &["--merge", "head.csv"], 1, "unknown column `tp_tick` (head.csv:1)");
    d.write("short.csv", &s.replacen(",pool_nodes", "", 1));
    fails_with(&d, "pabsim", &["--merge", "short.csv"], 1, "(short.csv:1)");
    // A header alone (no rows) is read as no rows, with its columns checked.
    d.write("only.csv", s.lines().next().unwrap());
    fails_with(&d, "pabsim", &["--merge", "only.csv"], 1, "nothing to merge");
    assert_eq!(std::fs::metadata(d.join("s.csv")).unwrap().nlink(), 1);
}
