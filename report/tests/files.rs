//! What the report reads and writes: a cut results file and impossible
//! dates and directories are one-line errors, never panics; the page and
//! the figures get plain permissions and are replaced as one unit or not
//! at all; each table cites only the files its rows came from.

use crate::util::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

fn published() -> String {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/published")).unwrap().display().to_string()
}

/// A tiny real chapter 4 and 6 run under `dir/results`.
fn results(d: &Dir) {
    for sub in ["results/nodes", "results/pabsim"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    let trees = d.tool("treegen").args(["--ordering", "20,69,19", "--depth", "3", "--count", "4"]).ok();
    d.write("t.jsonl", &trees);
    d.tool("fbest").args(["--per-tree", "t.jsonl", "-o", "results/nodes/tg1-20-69-19-d3.csv"]).ok();
    d.tool("pabsim").args(["t.jsonl", "--procs", "1,4", "-o", "results/pabsim/p.csv"]).ok();
}

/// Runs the report, which must fail with one line naming `needle`, no panic.
fn report_fails(d: &Dir, args: &[&str], env: &[(&str, &str)], needle: &str) {
    let p = published();
    let mut all = vec!["--published", p.as_str()];
    all.extend_from_slice(args);
    let mut report = d.tool("report").args(&all);
    for (k, v) in env {
        report = report.env(k, v);
    }
    report.fails(needle);
}

/// A results file cut after (or inside) its header is an error
/// naming the file, never a panic.
#[test]
fn a_cut_results_file_is_an_error_not_a_panic() {
    let d = Dir::new("rh1");
    results(&d);
    let full = d.read("results/pabsim/p.csv");
    let header = full.lines().next().unwrap().to_string();
    for cut in [format!("{header}\n"), header.clone(), header[..header.find("np_nodes").unwrap() + 5].to_string()] {
        d.write("results/pabsim/p.csv", &cut);
        report_fails(&d, &["--results", "results"], &[], "results/pabsim/p.csv:");
        assert!(!d.join("results/report/index.html").exists());
    }
}

/// Impossible dates, epochs and results directories are errors.
#[test]
fn dates_and_directories_are_checked() {
    let d = Dir::new("rh10");
    results(&d);
    report_fails(&d, &["--results", "results", "--date", "2001-13-45"], &[], "--date 2001-13-45 is not a calendar date");
    report_fails(&d, &["--results", "results"], &[("SOURCE_DATE_EPOCH", "-99999999999999")], "SOURCE_DATE_EPOCH -99999999999999 is outside");
    report_fails(&d, &["--results", "nowhere"], &[], "--results nowhere: not a directory");
    report_fails(&d, &["--results", "t.jsonl"], &[], "--results t.jsonl: not a directory");
    assert!(!d.join("nowhere").exists() && !d.join("results/report").exists());
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, u32)> {
    let mut v: Vec<(String, Vec<u8>, u32)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap(), std::fs::metadata(&p).unwrap().permissions().mode() & 0o777)
        })
        .collect();
    v.sort();
    v
}

/// Pages and figures get the umask's permissions (a replaced
/// file keeps its own), and a run that fails part-way replaces nothing: the
/// old page and the old figures stay together, with no temporary files.
#[test]
fn pages_and_figures_commit_as_one_unit_with_plain_permissions() {
    let d = Dir::new("rh67");
    results(&d);
    let report = bin("report");
    let p = published();
    let run = |date: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("umask 022 && exec {} --results results --published {p} --date {date}", report.display()))
            .current_dir(&d.path)
            .output()
            .unwrap()
    };
    let out = run("2001-06-30");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (page, figs) = (d.join("results/report"), d.join("results/figures"));
    let before = (snapshot(&page), snapshot(&figs));
    assert!(before.0.iter().chain(&before.1).all(|f| f.2 == 0o644), "{:?}", before.0.iter().map(|f| (&f.0, f.2)).collect::<Vec<_>>());
    // A replaced page keeps its permissions.
    std::fs::set_permissions(page.join("index.html"), std::fs::Permissions::from_mode(0o664)).unwrap();
    let out = run("2001-07-01");
    assert!(out.status.success());
    assert_eq!(std::fs::metadata(page.join("index.html")).unwrap().permissions().mode() & 0o777, 0o664);
    let before = (snapshot(&page), snapshot(&figs));
    // A figure that cannot be written (its name taken by a directory): the
    // run fails and nothing else is replaced.
    let png = before.1.iter().map(|f| f.0.clone()).find(|n| n.ends_with(".png")).unwrap();
    std::fs::remove_file(figs.join(&png)).unwrap();
    std::fs::create_dir(figs.join(&png)).unwrap();
    let out = run("2001-07-02");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&png));
    assert_eq!(snapshot(&page), before.0, "the page was replaced by a failed run");
    let after: Vec<_> = snapshot(&figs);
    let expect: Vec<_> = before.1.iter().filter(|f| f.0 != png).cloned().collect();
    assert_eq!(after, expect, "figures were replaced by a failed run");
}

/// Each chapter-6 table cites only the files its rows came from.
#[test]
fn each_table_cites_only_its_own_files() {
    let d = Dir::new("rh-src");
    std::fs::create_dir_all(d.join("results/pabsim")).unwrap();
    for (o, f) in [("20,69,19", "p-t.csv"), ("32,79,5", "p-u.csv")] {
        let trees = d.tool("treegen").args(["--ordering", o, "--depth", "3", "--count", "2"]).ok();
        d.tool("pabsim").args(["--procs", "1,4", "-o", &format!("results/pabsim/{f}")]).stdin(&trees).ok();
    }
    let p = published();
    d.tool("report").args(["--results", "results", "--published", &p, "--date", "2001-06-30"]).ok();
    let t64 = d.read("results/report/table-6-4.md");
    let t65 = d.read("results/report/table-6-5.md");
    assert!(t64.contains("p-u.csv") && !t64.contains("p-t.csv"), "{t64}");
    assert!(t65.contains("p-t.csv") && !t65.contains("p-u.csv"), "{t65}");
}
