//! `--trace` through the tools: the file parses as trace-event
//! JSON (every event's fields by its phase), its tracks are the run's
//! processors, processes or threads, its sums are the row's (the shared
//! machine's per-state columns, the cluster's messages), and it is an
//! output like any other: a bad path fails before any work, an ambiguous
//! or out-of-range run and a trace above the limit are refused in one
//! line, nothing is left behind.

use crate::util::*;
use parab::trace::check;

fn read(d: &Dir, file: &str, scale: u64, end: Option<u64>) -> check::Summary {
    check::read(&d.read(file), scale, end).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn the_shared_machines_trace_adds_up_to_its_row() {
    let d = Dir::new("trace-shared");
    artificial_trees(&d, "t.jsonl", "20,69,19", 4, 2);
    // Run 4 of (p = 1, p = 8) × 2 trees: the second tree on 8 processors.
    let rows = d.tool("pabsim").args(["t.jsonl", "--procs", "1,8", "--per-tree", "--trace", "t.json", "--trace-run", "4"]).ok();
    let row = table(&rows).into_iter().nth(3).unwrap();
    let ticks: u64 = row["tp_ticks"].parse().unwrap();
    let s = read(&d, "t.json", 1, Some(ticks));
    assert_eq!(s.named.len(), 8);
    for p in 0..8 {
        assert_eq!(s.time[&(0, p)].values().sum::<u64>(), ticks, "P{p}");
    }
    let col = |c: &str| row[c].parse::<u64>().unwrap();
    assert_eq!(s.time.values().flat_map(|m| m.iter()).filter(|(k, _)| k.0 == "memory").map(|(_, v)| v).sum::<u64>(), col("mem_stall"));
    assert_eq!(s.time.values().flat_map(|m| m.iter()).filter(|(k, _)| k.0 == "lock").map(|(_, v)| v).sum::<u64>(), col("lock_wait"));
    for st in ["expand", "search", "eval", "return", "split", "update", "exit"] {
        let all: u64 = s.time.values().flat_map(|m| m.iter()).filter(|(k, _)| k.2 == st).map(|(_, v)| v).sum();
        assert_eq!(all, col(&format!("time_{st}")), "{st}");
    }
    assert_eq!(d.files(), ["t.json", "t.jsonl"]);
}

#[test]
fn the_clusters_trace_has_the_rows_messages() {
    let d = Dir::new("trace-cluster");
    incremental_trees(&d, "t.jsonl", 5, 6, 1);
    for a in ["master-worker", "ybwc-full", "fox"] {
        let rows = d.tool("pabsim").args(["--machine", "cluster", "t.jsonl", "--procs", "8", "--algorithm", a, "--trace", "c.json"]).ok();
        let row = table(&rows).remove(0);
        let s = read(&d, "c.json", 1000, None);
        let messages: u64 = row["messages"].parse().unwrap();
        assert_eq!(s.flows, (messages, messages, 0), "{a}");
        assert_eq!(s.named.len(), 8, "{a}");
        assert_eq!(s.spans.0, s.spans.1, "{a}");
    }
}

#[test]
fn psearchs_trace_lies_within_the_wall_time() {
    let d = Dir::new("trace-psearch");
    artificial_trees(&d, "t.jsonl", "20,69,19", 5, 1);
    let rows = d.tool("psearch").args(["t.jsonl", "--threads", "3", "--algorithm", "steal", "--per-tree", "--trace", "r.json"]).ok();
    let wall: u64 = table(&rows)[0]["wall_ns"].parse().unwrap();
    let s = read(&d, "r.json", 1000, None);
    assert_eq!(s.named.len(), 3);
    for (k, sl) in &s.slices {
        assert_eq!(check::overlap(sl), None, "{k:?}");
        assert!(sl.iter().all(|&(_, b)| b <= wall), "{k:?}");
    }
}

#[test]
fn traces_are_refused_before_any_work() {
    let d = Dir::new("trace-refused");
    artificial_trees(&d, "t.jsonl", "20,69,19", 4, 2);
    d.tool("pabsim").args(["t.jsonl", "--procs", "1,8", "--trace", "no/such/t.json", "--trace-run", "1"]).fails("no/such/t.json");
    d.tool("pabsim").args(["t.jsonl", "--procs", "1,8", "--trace", "t.json"]).fails("pick one with --trace-run 1..4");
    d.tool("pabsim").args(["t.jsonl", "--procs", "8", "--trace", "t.json", "--trace-run", "3"]).fails("--trace-run 3: the request holds 2 runs");
    d.tool("pabsim").args(["t.jsonl", "--procs", "8", "--trace", "t.json", "--trace-run", "1", "--trace-limit", "10K"]).fails("more than --trace-limit");
    d.tool("pabsim").args(["t.jsonl", "--trace-run", "1"]).fails_with(2, "--trace");
    d.tool("psearch").args(["t.jsonl", "--threads", "2", "--trace", "r.json"]).fails("pick one with --trace-run 1..2");
    assert_eq!(d.files(), ["t.jsonl"], "nothing left behind");
}

/// The trace's counting run is a run: a request over `--memory` is refused
/// by the memory bound before it (it ran first, and a large one aborted
/// past the bound), and `/dev/stdout` is stdout (the trace would replace
/// the rows there).
#[test]
fn a_traced_request_is_held_to_the_memory_bound_and_stdout_is_one_output() {
    let d = Dir::new("trace-bounds");
    incremental_trees(&d, "i.jsonl", 5, 6, 1);
    let big = ["--machine", "cluster", "i.jsonl", "--procs", "1,64", "--tt-slots", "131072", "--algorithm", "even-split", "--memory", "1M"];
    d.tool("pabsim").args(big).fails("needs about");
    // Counted first, the trace was refused by its limit instead.
    d.tool("pabsim").args(big).args(["--trace", "t.json", "--trace-run", "2", "--trace-limit", "1"]).fails("needs about");
    let rows = ["--machine", "cluster", "i.jsonl", "--procs", "4", "--algorithm", "master-worker"];
    d.tool("pabsim").args(rows).args(["--trace", "/dev/stdout"]).fails("are the same file");
    d.tool("pabsim").args(rows).args(["--trace", "-"]).fails("are the same file");
    d.tool("psearch").args(["i.jsonl", "--threads", "2", "--trace", "/dev/stdout"]).fails("are the same file");
    // /dev/stdout beside rows written to a file is fine.
    let trace = d.tool("pabsim").args(rows).args(["-o", "rows.csv", "--trace", "/dev/stdout"]).ok();
    assert!(trace.starts_with('{'), "{trace}");
    assert_eq!(table(&d.read("rows.csv")).len(), 1);
    assert_eq!(d.files(), ["i.jsonl", "rows.csv"], "nothing left behind");
}

/// A trace one byte over its limit: the sizes in bytes (rounded, both
/// read 2 kB).
#[test]
fn a_trace_just_over_its_limit_says_both_sizes_exactly() {
    let d = Dir::new("trace-limit-exact");
    incremental_trees(&d, "i.jsonl", 5, 4, 1);
    let rows = ["--machine", "cluster", "i.jsonl", "--procs", "2", "--algorithm", "master-worker", "--trace", "t.json"];
    d.tool("pabsim").args(rows).ok();
    let size = std::fs::metadata(d.join("t.json")).unwrap().len();
    std::fs::remove_file(d.join("t.json")).unwrap();
    let err = d.tool("pabsim").args(rows).args(["--trace-limit", &(size - 1).to_string()]).fails("more than --trace-limit");
    assert!(err.contains(&format!("would take {size} bytes")) && err.contains(&format!("--trace-limit {} bytes", size - 1)), "{err}");
    d.tool("pabsim").args(rows).args(["--trace-limit", &size.to_string()]).ok();
}
