//! The timelines' section from traces the tools wrote: a figure
//! per simulated machine with a row per processor or process, and the
//! real threads' trace optional.

use crate::report::report;
use crate::util::*;

/// Two small simulated traces under the names `make traces` gives them.
fn traces(d: &Dir) {
    std::fs::create_dir_all(d.join("results/traces")).unwrap();
    d.tool("treegen").args(["--set", "tg1", "--ordering", "20,69,19", "--depth", "3", "--count", "1", "-o", "results/traces/t.jsonl"]).ok();
    d.tool("pabsim").args(["results/traces/t.jsonl", "--procs", "4", "--trace", "results/traces/scheme-c-p48.json", "-o", "results/traces/a.csv"]).ok();
    d.tool("treegen").args(["--model", "incremental", "--branching", "5", "--depth", "6", "--count", "1", "-o", "results/traces/i.jsonl"]).ok();
    d.tool("pabsim")
        .args([
            "--machine",
            "cluster",
            "results/traces/i.jsonl",
            "--procs",
            "8",
            "--algorithm",
            "master-worker",
            "--trace",
            "results/traces/master-worker-p64.json",
        ])
        .args(["-o", "results/traces/b.csv"])
        .ok();
}

#[test]
fn the_timelines_draw_a_row_per_track_and_the_real_one_is_optional() {
    let d = Dir::new("report-timelines");
    traces(&d);
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    let nav = &html[html.find("<nav>").unwrap()..html.find("</nav>").unwrap()];
    let item = nav.lines().find(|l| l.contains("#timelines")).unwrap();
    assert_eq!(item, "<li><a href=\"#timelines\">Timelines of one run</a> (an optional part not run)</li>");
    assert!(html.contains("No trace of real threads yet"));
    for (id, labels) in [
        ("timeline-scheme-c-p48", (0..4).map(|p| format!("P{p}")).collect::<Vec<_>>()),
        ("timeline-master-worker-p64", (0..8).map(|r| format!("rank {r}")).collect()),
    ] {
        let svg = d.read(&format!("results/figures/{id}.svg"));
        for l in &labels {
            assert!(svg.contains(&format!(">\n{l}\n<")), "{id}: no row {l}");
        }
        let next = format!("{}", labels.len());
        assert!(!svg.contains(&format!(">\nP{next}\n<")) && !svg.contains(&format!(">\nrank {next}\n<")), "{id}: a row too many");
    }
    assert!(html.contains("of the 7 workers get a first job"), "the cluster's sentence counts the workers");
}
