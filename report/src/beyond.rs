//! Beyond the thesis: the parallel search algorithms side by side on the
//! simulated machine, from 2 to 1,024 processors (`docs/beyond.md`).
//!
//! Input: `beyond/algorithms.csv` and `beyond/tuned.csv`, written by
//! `pipelines/beyond-algorithms.sh` (`make beyond-algorithms`). Every row of
//! the first is one configuration of `pabsim` with its speed-up, search
//! overhead and CSS against the p = 1 runs of the same trees; a *line* is
//! one algorithm on one machine: the policy, and for the thesis's policy
//! also the lock (`dts-tas` is the thesis's own machine).

use super::doc::{Cell, Section, Table};
use super::figures::{Plot, Series};
use super::keyed::{self, key};
use super::{Builder, PendingFigure, figure, ordering_label};
use anyhow::Result;
use parab::formats::SimRow;
use std::path::Path;

/// The lines in the order of the legends.
const LINES: [(&str, &str); 5] = [
    ("dts-tas", "DTS, test-and-set (the thesis's machine)"),
    ("dts", "DTS"),
    ("pvsplit", "PV splitting"),
    ("steal", "YBWC, work stealing"),
    ("active", "active splitting"),
];

/// The processor counts the tables show.
const TABLE_PROCS: [u32; 6] = [2, 4, 16, 64, 256, 1024];

/// Published speed-ups on real machines (not our trees), shown beside ours.
const ANCHORS: [(&str, &[(f64, f64)]); 2] =
    [("PV splitting, 6-ply chess (Marsland and Popowich)", &[(2.0, 1.92), (3.0, 2.66), (4.0, 3.27)]), ("YBWC, chess (Feldmann et al.)", &[(1024.0, 344.0)])];

/// What the section says before the experiment has run: it is not part of
/// `make all` (about an hour on two cores), so its absence is no failure.
pub const OPTIONAL: &str = "This experiment is not part of `make all`: it runs the simulator from 2 to 1,024 processors, about an hour on two cores (BENCHMARKS.md). To add it to this page, run `make beyond-algorithms`, then `make report`.";

/// The results of the experiment.
pub struct Beyond {
    /// Per-configuration rows.
    pub rows: Vec<SimRow>,
    /// `tuned.csv` as (ordering, policy, m_a, min_split_depth, split_group, su).
    pub tuned: Vec<Vec<String>>,
}

/// Reads the experiment's results; `None` when it has not been run.
pub fn load(results: &Path) -> Result<Option<Beyond>> {
    let path = results.join("beyond/algorithms.csv");
    if !path.exists() {
        return Ok(None);
    }
    let rows: Vec<SimRow> = super::load::rows(&path, false)?;
    let tuned_path = results.join("beyond/tuned.csv");
    let tuned = match std::fs::read_to_string(&tuned_path) {
        Ok(text) => text.lines().skip(1).map(|l| l.split(',').map(str::to_string).collect()).collect(),
        Err(_) => vec![],
    };
    Ok(Some(Beyond { rows, tuned }))
}

/// The line a row belongs to.
fn line_of(r: &SimRow) -> &str {
    line_key(&r.policy, &r.lock)
}

/// The line of a policy on a lock: the thesis's policy on test-and-set locks
/// is the thesis's own machine.
fn line_key<'a>(policy: &'a str, lock: &str) -> &'a str {
    if policy == "dts" && lock == "tas" { "dts-tas" } else { policy }
}

/// The experiment's parallel rows on artificial trees (a game's rows have no
/// ordering), grouped by tree group (b, wa, wb, depth, trees), groups in
/// order of first appearance.
fn groups(rows: &[SimRow]) -> Result<Vec<Vec<&SimRow>>> {
    let par: Vec<&SimRow> = rows.iter().filter(|r| r.procs > 1 && r.b.is_some() && r.wa.is_some() && r.wb.is_some()).collect();
    let keys =
        vec![key("b", &par, |r| r.b), key("wa", &par, |r| r.wa), key("wb", &par, |r| r.wb), key("depth", &par, |r| r.depth), key("trees", &par, |r| r.trees)];
    Ok(keyed::groups(keys)?.into_iter().map(|g| g.into_iter().map(|i| par[i]).collect()).collect())
}

/// One group's figure: SU, SO and CSS against p, a line per algorithm.
fn group_figure(rows: &[&SimRow], id: &str, label: &str, (b_, wa, wb): (u32, u32, u32), depth: u32, trees: u32) -> Result<PendingFigure> {
    let series_of = |f: &dyn Fn(&SimRow) -> Option<f64>| -> Vec<Series> {
        LINES
            .iter()
            .filter_map(|(key, name)| {
                let mut pts: Vec<(f64, f64)> = rows.iter().filter(|r| line_of(r) == *key).filter_map(|r| Some((r.procs as f64, f(r)?))).collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                (!pts.is_empty()).then(|| Series { name: name.to_string(), points: pts })
            })
            .collect()
    };
    let su = series_of(&|r| r.su);
    let chess_like = (b_, wa, wb) == (32, 79, 5);
    let anchors: Vec<Series> = if chess_like { ANCHORS.iter().map(|(n, p)| Series { name: n.to_string(), points: p.to_vec() }).collect() } else { vec![] };
    // One legend, in the middle panel (search overhead is low at small
    // p, so its upper left corner is free), naming the anchors too.
    let names: Vec<Series> = anchors.iter().map(|a| Series { name: a.name.clone(), points: vec![] }).collect();
    let panel = |title: &str, y: &str, log_y: bool, series: Vec<Series>, anchors: Vec<Series>, legend: bool| Plot::LogLines {
        title: title.into(),
        x_label: "processors".into(),
        y_label: y.into(),
        log_y,
        series,
        anchors,
        legend,
    };
    let plot = Plot::Row(vec![
        panel("speed-up", "SU", true, su, anchors, false),
        panel("search overhead", "SO", false, series_of(&|r| r.so), names, true),
        panel("CSS", "CSS", true, series_of(&|r| r.css), vec![], false),
    ]);
    let caption = format!(
        "{label}, depth {depth}, {trees} trees: SU, SO and CSS against the number of processors (log axes), one line per algorithm{}.",
        if chess_like { "; open markers: published speed-ups on real chess programs (other trees and machines)" } else { "" }
    );
    figure(id, &caption, plot)
}

/// One group's table (SU at a few machine sizes, the split state's share at
/// the largest), and every (p, algorithm, SU) of the group.
fn group_table(rows: &[&SimRow], id: &str, label: &str, depth: u32, trees: u32) -> (Table, Vec<(f64, String, f64)>) {
    let mut header = vec!["algorithm".to_string()];
    header.extend(TABLE_PROCS.iter().map(|p| format!("SU p={p}")));
    header.push("best SU (p)".into());
    header.push("idle share, largest p".into());
    let mut t = Table {
        id: id.to_string(),
        caption: format!("{label}, depth {depth}, {trees} trees: speed-up by algorithm and machine size"),
        header,
        note: "Idle share: the processors' time in the idle state (looking for or waiting for work, with its lock waits), as a share of p · t_p.".into(),
        ..Default::default()
    };
    let mut best_at: Vec<(f64, String, f64)> = vec![];
    for (key, name) in LINES {
        let mine: Vec<&&SimRow> = rows.iter().filter(|r| line_of(r) == key).collect();
        if mine.is_empty() {
            continue;
        }
        let mut row = vec![Cell::Text(name.to_string())];
        for p in TABLE_PROCS {
            row.push(Cell::number(mine.iter().find(|r| r.procs == p).and_then(|r| r.su), 2));
        }
        let best = mine.iter().filter_map(|r| Some((r.su?, r.procs))).max_by(|a, b| a.0.total_cmp(&b.0));
        row.push(best.map_or(Cell::Empty, |(v, p)| Cell::Text(format!("{v:.2} ({p})"))));
        let largest = mine.iter().max_by_key(|r| r.procs);
        row.push(Cell::number(largest.and_then(|r| r.split_share), 3));
        t.rows.push(row);
        for r in &mine {
            if let Some(v) = r.su {
                best_at.push((r.procs as f64, name.to_string(), v));
            }
        }
    }
    (t, best_at)
}

/// The section "Beyond the thesis: algorithms and scale".
pub fn sections(data: Option<&Beyond>, b: &mut Builder) -> Result<()> {
    let mut s = Section {
        id: "beyond-algorithms".into(),
        chapter: 7,
        title: "Parallel search algorithms from 2 to 1,024 processors".into(),
        what: "The best-known parallel alpha-beta algorithms on the thesis's simulated machine and trees, from 2 to 1,024 processors: the thesis's DTS-like search (scheme A split points), PV splitting, YBWC with work stealing, and active splitting as in engines. All use queue locks except the line marked test-and-set, the thesis's own machine. Speed-up SU = t_1/t_p, search overhead SO = n_p/n_1 − 1, CSS = p/(SU (SO+1)) − 1, all against the p = 1 run of the same trees.".into(),
        ..Default::default()
    };
    let Some(data) = data else {
        s.optional.push(OPTIONAL.into());
        b.sections.push(s);
        return Ok(());
    };
    if !data.tuned.is_empty() {
        let mut t = Table {
            id: "beyond-tuned".into(),
            caption: "Each algorithm's parameters, tuned per ordering by the best speed-up of a small sweep (depth 6, p = 64)".into(),
            header: ["ordering", "algorithm", "m_A", "min split depth", "split group", "SU in the sweep"].map(String::from).to_vec(),
            note: "DTS and work stealing: m_A = 1..6; active splitting: m_A = 1, minimum split depth 1..4 × split group 2, 4, 8, 16; PV splitting has no parameter.".into(),
            ..Default::default()
        };
        for r in &data.tuned {
            let o: Vec<&str> = r.first().map(|o| o.split('-').collect()).unwrap_or_default();
            let label = if o.len() == 3 { ordering_label(o[0], o[1], o[2]) } else { r.first().cloned().unwrap_or_default() };
            let get = |i: usize| r.get(i).cloned().unwrap_or_default();
            let text = |i: usize| if get(i).is_empty() { Cell::Empty } else { Cell::Text(get(i)) };
            t.rows.push(vec![Cell::Text(label), Cell::Text(get(1)), text(2), text(3), text(4), Cell::number(get(5).parse().ok(), 2)]);
        }
        s.tables.push(t);
    }
    for rows in groups(&data.rows)? {
        let r0 = rows[0];
        let (b_, wa, wb, depth, trees) = (r0.b.unwrap_or_default(), r0.wa.unwrap_or_default(), r0.wb.unwrap_or_default(), r0.depth, r0.trees);
        let label = ordering_label(&b_.to_string(), &wa.to_string(), &wb.to_string());
        let id = format!("beyond-{b_}-{wa}-{wb}-d{depth}");
        let f = group_figure(&rows, &id, &label, (b_, wa, wb), depth, trees)?;
        b.add_figure(&mut s, f);
        let (t, best_at) = group_table(&rows, &id, &label, depth, trees);
        s.tables.push(t);
        for p in [64.0, 1024.0] {
            let mut at: Vec<&(f64, String, f64)> = best_at.iter().filter(|x| x.0 == p).collect();
            at.sort_by(|a, b| b.2.total_cmp(&a.2));
            if let Some(first) = at.first() {
                let list: Vec<String> = at.iter().map(|x| format!("{} {:.2}", x.1, x.2)).collect();
                s.findings.push(format!("{label}, depth {depth}, p = {p}: {} is fastest (SU: {}).", first.1, list.join("; ")));
            }
        }
    }
    s.settings.push("Published anchors, on real chess programs rather than these trees: PV splitting 1.92, 2.66 and 3.27 on 2, 3 and 4 processors (6-ply chess); YBWC 344 on 1,024 processors; Ura, Tsuruoka and Chikayama 750 on 1,536 cores on synthetic trees (beyond this machine's 1,024).".into());
    s.settings.push("Commands: `make beyond-algorithms` (pipelines/beyond-algorithms.sh; SHARD=K/N splits it over machines).".into());
    b.sections.push(s);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_the_thesis_machine_apart() {
        assert_eq!(line_key("dts", "tas"), "dts-tas");
        assert_eq!(line_key("dts", "queue"), "dts");
        assert_eq!(line_key("steal", "queue"), "steal");
        assert_eq!(line_key("steal", "tas"), "steal");
        assert!(LINES.iter().any(|l| l.0 == "dts-tas"));
    }

    #[test]
    fn a_missing_experiment_says_how_to_run_it() {
        let mut b = Builder::default();
        sections(None, &mut b).unwrap();
        assert_eq!(b.sections.len(), 1);
        assert!(b.sections[0].missing.is_empty(), "not part of make all: nothing is missing");
        assert!(b.sections[0].optional[0].contains("`make beyond-algorithms`"));
    }
}
