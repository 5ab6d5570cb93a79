//! Beyond shared memory: the message-passing searches on the simulated
//! cluster (`pabsim --machine cluster`, `docs/model.md` §9), from 2 to
//! 4,096 processes, in the columns of Ura, Tsuruoka and Chikayama's (2014)
//! tables; and the leaf-increase factors of their §5.2.
//!
//! Input: `distributed/distributed.csv` (per-configuration rows, one per
//! algorithm and process count, with the sequential baseline's row once per
//! tree group) and, when present, `distributed/factors.csv`, both written by
//! `pipelines/distributed.sh` (`make distributed`); with `TOPOLOGIES`,
//! `distributed/distributed-T.csv` for each other network T, shown as
//! groups of their own.

use super::doc::{Cell, Section, Table};
use super::figures::{Plot, Series};
use super::keyed::{self, key};
use super::legend::{algorithms, name};
use super::load::rows;
use super::{Builder, figure};
use anyhow::Result;
use parab::formats::{ClusterRow, FactorRow};
use std::path::Path;

/// The process counts the tables show (those the run has).
const TABLE_PROCS: [u32; 7] = [2, 8, 64, 128, 512, 1536, 4096];

/// What the section says before the experiment has run.
pub const OPTIONAL: &str = "This experiment is not part of `make all`: it simulates clusters of 2 to 4,096 processes, about seven minutes on two cores at its default grid (BENCHMARKS.md). To add it to this page, run `make distributed`, then `make report`.";

/// The results of `make distributed`.
pub struct Distributed {
    /// Per-configuration rows.
    pub rows: Vec<ClusterRow>,
    /// The leaf-increase factors (empty when not run).
    pub factors: Vec<FactorRow>,
}

/// Reads the experiment's results; `None` when it has not run.
pub fn load(results: &Path) -> Result<Option<Distributed>> {
    let dir = results.join("distributed");
    let path = dir.join("distributed.csv");
    if !path.exists() {
        return Ok(None);
    }
    let mut all: Vec<ClusterRow> = rows(&path, false)?;
    // The other networks' files (`TOPOLOGIES`): their parallel rows, after
    // the flat network's (their baseline rows are the flat file's).
    for f in super::load::files(&dir, |n| n.starts_with("distributed-") && n.ends_with(".csv")) {
        all.extend(rows::<ClusterRow>(&f, false)?.into_iter().filter(|r| r.procs > 1));
    }
    Ok(Some(Distributed { rows: all, factors: rows(&dir.join("factors.csv"), true)? }))
}

/// A group of trees on one network: (model, b, depth, trees, transport).
type Group = (String, Option<u32>, u32, u32, String);

fn group_of(r: &ClusterRow) -> Group {
    (r.model.clone(), r.b, r.depth, r.trees, r.transport.clone())
}

/// The network of a group's rows, none for the flat one (`simulated`).
fn network(g: &Group) -> Option<&str> {
    g.4.strip_prefix("simulated/")
}

fn label(g: &Group) -> String {
    let trees = match g.1 {
        Some(b) => format!("{}, b = {b}, depth {}, {} trees", g.0, g.2, g.3),
        None => format!("{}, depth {}, {} positions", g.0, g.2, g.3),
    };
    match network(g) {
        Some(n) => format!("{trees}, {n} network"),
        None => trees,
    }
}

/// One group's figure (speed-up and leaves against P), table and findings.
fn group_section(g: &Group, rows: &[&ClusterRow], s: &mut Section, b: &mut Builder) -> Result<()> {
    let algs = algorithms(rows);
    let series_of = |f: &dyn Fn(&ClusterRow) -> f64| -> Vec<Series> {
        algs.iter()
            .map(|a| {
                let mut pts: Vec<(f64, f64)> = rows.iter().filter(|r| &r.algorithm == a).map(|r| (r.procs as f64, f(r))).filter(|p| p.1 > 0.0).collect();
                pts.sort_by(|x, y| x.0.total_cmp(&y.0));
                Series { name: name(a), points: pts }
            })
            .filter(|s| !s.points.is_empty())
            .collect()
    };
    let panel = |title: &str, y: &str, series: Vec<Series>, legend: bool| Plot::LogLines {
        title: title.into(),
        x_label: "processes".into(),
        y_label: y.into(),
        log_y: true,
        series,
        anchors: vec![],
        legend,
    };
    let mut id = format!("distributed-{}-b{}-d{}", g.0, g.1.map_or("-".into(), |b| b.to_string()), g.2);
    if let Some(n) = network(g) {
        id = format!("{id}-{n}");
    }
    let plot = Plot::Row(vec![
        // The legend where the lines are not: the leaf ratios start low
        // at small P, so the leaf panel's upper left is free.
        panel("speed-up", "speed-up", series_of(&|r| r.speedup), false),
        panel("leaves over the baseline's", "leaf ratio", series_of(&|r| r.leaf_ratio), true),
    ]);
    let f = figure(&id, &format!("{}: speed-up and leaves against the number of processes (log axes), one line per algorithm.", label(g)), plot)?;
    b.add_figure(s, f);

    let procs: Vec<u32> = TABLE_PROCS.iter().copied().filter(|p| rows.iter().any(|r| r.procs == *p)).collect();
    let mut header = vec!["algorithm".to_string()];
    header.extend(procs.iter().map(|p| format!("P = {p}")));
    header.extend(["best speed-up (P)", "messages per process, largest P"].map(String::from));
    let mut t = Table {
        id: id.clone(),
        caption: format!("{}: speed-up / leaf ratio / processor load by algorithm and process count", label(g)),
        header,
        note: "Each cell: speed-up / leaves over the sequential baseline's / processor load (OthelloX's LD: the mean share of the search time a process was busy, time-weighted over the trees; docs/formats.md). Messages per process: messages sent by all processes over the trees, per process and tree.".into(),
        ..Default::default()
    };
    let mut best: Vec<(u32, String, f64)> = vec![];
    for a in &algs {
        let mine: Vec<&&ClusterRow> = rows.iter().filter(|r| &r.algorithm == a).collect();
        let mut row = vec![Cell::Text(name(a))];
        for p in &procs {
            row.push(
                mine.iter().find(|r| r.procs == *p).map_or(Cell::Empty, |r| Cell::Text(format!("{:.2} / {:.2} / {:.2}", r.speedup, r.leaf_ratio, r.load_mean))),
            );
        }
        let top = mine.iter().max_by(|x, y| x.speedup.total_cmp(&y.speedup));
        row.push(top.map_or(Cell::Empty, |r| Cell::Text(format!("{:.2} ({})", r.speedup, r.procs))));
        let largest = mine.iter().max_by_key(|r| r.procs);
        row.push(Cell::number(largest.map(|r| r.messages as f64 / (r.procs as f64 * r.trees.max(1) as f64)), 1));
        t.rows.push(row);
        best.extend(mine.iter().map(|r| (r.procs, name(a), r.speedup)));
    }
    s.tables.push(t);
    for p in [procs.first().copied(), procs.iter().copied().find(|&p| p >= 64), procs.last().copied()]
        .into_iter()
        .flatten()
        .collect::<std::collections::BTreeSet<u32>>()
    {
        let mut at: Vec<&(u32, String, f64)> = best.iter().filter(|x| x.0 == p).collect();
        at.sort_by(|x, y| y.2.total_cmp(&x.2));
        if let Some(first) = at.first() {
            let list: Vec<String> = at.iter().map(|x| format!("{} {:.2}", x.1, x.2)).collect();
            s.findings.push(format!("{}, P = {p}: {} is fastest (speed-up: {}).", label(g), first.1, list.join("; ")));
        }
    }
    Ok(())
}

/// Ura et al.'s leaf factors: why leaves grow.
fn factors_table(factors: &[FactorRow]) -> Table {
    let mut t = Table {
        id: "distributed-factors".into(),
        caption: "Why leaves grow: the sequential search made to behave like the workers (Ura et al. §5.2), leaves over the baseline's".into(),
        header: ["trees", "d", "d′", "baseline leaves", "tables not shared", "partial share", "full windows"].map(String::from).to_vec(),
        note: "Baseline: the sequential search with the master's table (plies ≤ d′) and one deep table shared by all tasks. Not shared: a task uses only its own deep entries; partial share: also other tasks' entries at most the sharing depth below d′; full windows: every task (a node at ply d′) searched with the full window. With d − d′ fixed, d grows row by row.".into(),
        ..Default::default()
    };
    for f in factors {
        let trees = match f.b {
            Some(b) => format!("{}, b = {b}, {} trees", f.model, f.trees),
            None => format!("{}, {} positions", f.model, f.trees),
        };
        let ratio = |x: u64| Cell::Num(x as f64 / f.leaves.max(1) as f64, 3);
        t.rows.push(vec![
            Cell::Text(trees),
            Cell::Int(f.depth as i64),
            Cell::Int(f.master_depth as i64),
            Cell::Int(f.leaves as i64),
            ratio(f.leaves_unshared),
            ratio(f.leaves_partial),
            ratio(f.leaves_full_window),
        ]);
    }
    t
}

/// The section "Message passing: the simulated cluster".
pub fn sections(data: Option<&Distributed>, b: &mut Builder) -> Result<()> {
    let mut s = Section {
        id: "message-passing".into(),
        chapter: 7,
        title: "Message passing: the simulated cluster".into(),
        what: "Parallel searches whose processes share no memory and exchange messages, on a simulated cluster (a cost per node searched, per message sent and received, latency and bandwidth; docs/model.md §9) from 2 to 4,096 processes, on incremental random trees (Ura, Tsuruoka and Chikayama 2014): their master-worker with dynamic updates and its variants, YBWC over messages (plain and with Feldmann's and OthelloX's refinements), OthelloX's PV split and root-splitting baselines, and Fox et al.'s hash-table-guided master/slave. Speed-up is the sequential baseline's time (alpha-beta with internal iterative deepening and a table) over the parallel one's, both geometric means over the trees; leaves are over the baseline's. Every run returned the baseline's root value.".into(),
        ..Default::default()
    };
    let Some(data) = data else {
        s.optional.push(OPTIONAL.into());
        b.sections.push(s);
        return Ok(());
    };
    let all = &data.rows;
    let keys = vec![
        key("model", all, |r| r.model.as_str()),
        key("b", all, |r| r.b),
        key("depth", all, |r| r.depth),
        key("trees", all, |r| r.trees),
        key("transport", all, |r| r.transport.as_str()),
    ];
    for group in keyed::groups(keys)? {
        let rows: Vec<&ClusterRow> = group.iter().map(|&i| &all[i]).filter(|r| r.procs > 1).collect();
        if let Some(first) = rows.first() {
            group_section(&group_of(first), &rows, &mut s, b)?;
        }
    }
    if !data.factors.is_empty() {
        s.tables.push(factors_table(&data.factors));
    }
    s.settings.push("Machine: the simulated cluster's default costs (docs/model.md §9.1: 380 ns per node, the host's own search; 1 µs to send and to receive a message; 20 µs latency; 10 Gbit/s).".into());
    s.settings.push(
        "Commands: `make distributed` (pipelines/distributed.sh; GRID, COUNT and PROCS set the trees and process counts; SHARD=K/N splits it over machines)."
            .into(),
    );
    b.sections.push(s);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_experiment_says_how_to_run_it() {
        let mut b = Builder::default();
        sections(None, &mut b).unwrap();
        assert_eq!(b.sections.len(), 1);
        assert!(b.sections[0].missing.is_empty(), "not part of make all: nothing is missing");
        assert!(b.sections[0].optional[0].contains("`make distributed`"));
    }

    #[test]
    fn legends_follow_the_registry_order_and_keep_unknown_algorithms() {
        let row = |a: &str| ClusterRow { b: Some(5), speedup: 2.0, ..crate::cluster_row("incremental", a, 8) };
        let rows = [row("even-split"), row("zeta"), row("master-worker"), row("seq")];
        let refs: Vec<&ClusterRow> = rows.iter().collect();
        assert_eq!(algorithms(&refs), ["even-split", "master-worker", "zeta"]);
        assert_eq!(name("master-worker-share"), "with share");
    }
}
