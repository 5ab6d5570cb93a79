//! The real processors' section from a tiny `make real` (real threads and
//! the simulator's prediction, no MPI runs): the contents list says what
//! the section shows, and every row says the host beside its timing.

use crate::report::{col, report, table};
use crate::util::*;

/// `make real`'s recipe at a tiny size: 2 trees of depth 4, 1 and 2 threads.
fn real(d: &Dir) {
    std::fs::create_dir_all(d.join("results/real")).unwrap();
    d.tool("treegen").args(["--set", "tg1", "--ordering", "32,79,5", "--depth", "4", "--count", "2", "-o", "results/real/trees.jsonl"]).ok();
    d.tool("pabsim").args(["results/real/trees.jsonl", "--procs", "1,2", "--algorithm", "dts,steal", "-o", "results/real/pabsim.csv"]).ok();
    d.tool("psearch").args(["results/real/trees.jsonl", "--threads", "1", "-o", "results/real/bare.csv"]).ok();
    d.tool("psearch").args(["results/real/trees.jsonl", "--threads", "1,2", "--algorithm", "dts,steal", "-o", "results/real/psearch.csv"]).ok();
}

#[test]
fn the_contents_list_says_what_the_real_section_shows() {
    let d = Dir::new("report-real");
    real(&d);
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    // The section shows the real runs; only its MPI part (optional) was not run.
    let nav = &html[html.find("<nav>").unwrap()..html.find("</nav>").unwrap()];
    let item = nav.lines().find(|l| l.contains("#real-processors")).unwrap();
    assert_eq!(item, "<li><a href=\"#real-processors\">Real processors</a> (an optional part not run)</li>");
    let t = table(&html, "real-vs-simulated");
    assert_eq!(t.len(), 1 + 3, "the one-thread row and two algorithms at p = 2");
    // Each row: its host's load and free cores, flagged where the threads had no free core each.
    let (p, free, note) = (col(&t, "p"), col(&t, "free cores"), col(&t, "note"));
    let mut flagged = 0;
    for r in &t[1..] {
        let threads: u32 = r[p].parse().unwrap();
        let free: Option<u32> = r[free].split(" of ").next().and_then(|f| f.parse().ok());
        let cores = std::thread::available_parallelism().unwrap().get() as u32;
        let over = threads > free.unwrap_or(cores);
        assert_eq!(r[note] == "oversubscribed", over, "{r:?}");
        flagged += usize::from(over);
    }
    let said = if flagged == 0 {
        "Every one of the 3 configurations of real threads had a free core per thread".to_string()
    } else {
        format!("{flagged} of the 3 configurations of real threads ran without a free core per thread")
    };
    assert!(html.contains(&said), "{said}");
}

/// Without any real run the section is optional and says so.
#[test]
fn a_real_section_not_run_is_optional_in_the_contents() {
    let d = Dir::new("report-real-none");
    std::fs::create_dir_all(d.join("results")).unwrap();
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    assert!(html.contains("<li><a href=\"#real-processors\">Real processors</a> (optional, not run)</li>"));
}

/// Real rows written before the host columns: the report names the file,
/// the column and how to redo it.
#[test]
fn real_rows_without_the_host_columns_say_to_rerun() {
    let d = Dir::new("report-real-old");
    real(&d);
    let text = d.read("results/real/psearch.csv");
    // Drop host_load and free_cores, as psearch wrote them before.
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let keep: Vec<usize> = (0..header.len()).filter(|&i| header[i] != "host_load" && header[i] != "free_cores").collect();
    let old: String = text.lines().map(|l| keep.iter().map(|&i| l.split(',').nth(i).unwrap()).collect::<Vec<_>>().join(",") + "\n").collect();
    d.write("results/real/psearch.csv", &old);
    let p = crate::report::published();
    let err = d.tool("report").args(["--published", &p]).fails("missing column `host_load`");
    assert!(err.contains("psearch.csv (written by an older version of the tools: rerun the make target that writes it)"), "{err}");
}
