//! Ura, Tsuruoka and Chikayama (2014) at the paper's size (`make ura2014`,
//! `pipelines/ura2014.sh`, `docs/model.md` §9.9): their Table 1 (the
//! sequential baseline and the master-worker with and without dynamic
//! updates at P = 512 and 1,536) and Table 6 (the NegaScout master with
//! and without ε-windows at P = 512), the published rows beside ours at
//! every depth run, and speed-up and leaf ratio against depth toward the
//! paper's.
//!
//! Inputs: `ura2014/table1.csv`, `ura2014/table6.csv` and
//! `ura2014/calibration.csv` under the results (the pipeline's summary),
//! and the paper's tables in `ura2014/table-1.csv` and `table-6.csv` of the
//! published directory. Either may be missing: the section then says so.

use super::doc::{Cell, Section, Table};
use super::figures::{Mark, Plot, Series};
use super::keyed::{self, key};
use super::load::rows;
use super::{Builder, figure};
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::path::Path;

/// What the section says before the experiment has run.
pub const OPTIONAL: &str = "Ours are not run yet: `make ura2014` (the paper's size: b = 5 at d = 24, b = 20 at d = 12, 32 trees, P = 512 and 1,536; a cluster's work, best as Slurm arrays: `make ura2014-slurm`) or `make ura2014 GRID=quick` (smaller depths, 4 trees), then `make report`.";

/// Table 1's methods in the paper's order; Table 6's follow.
const METHODS: [&str; 5] = ["sequential", "with updates", "without updates", "without epsilon-windows", "with epsilon-windows"];

/// One row of the paper's tables or of ours (the same columns; ours add
/// the trees and the leaf ratio).
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Branching factor.
    pub b: u32,
    /// Search depth d.
    pub d: u32,
    /// The master's depth d′.
    pub d_prime: u32,
    /// Processes.
    pub procs: u32,
    /// The paper's name of the configuration.
    pub method: String,
    /// ε of the ε-windows (Table 6's rows).
    pub epsilon: Option<String>,
    /// Search time, s (ours: geometric mean over the trees).
    pub time_s: Option<f64>,
    /// Speed-up against the sequential baseline.
    pub speedup: Option<f64>,
    /// Leaves per tree, millions.
    pub leaves_m: Option<f64>,
    /// Leaves over the sequential baseline's.
    pub leaf_ratio: Option<f64>,
    /// Start-up idle time per worker (ours: per process), s.
    pub startup_s: Option<f64>,
    /// Other idle time per worker (ours: per process), s.
    pub other_s: Option<f64>,
    /// Trees (ours).
    pub trees: Option<u32>,
}

/// The paper's tables and ours.
#[derive(Debug, Default)]
pub struct Ura2014 {
    /// The paper's Table 1 (empty when its file is missing).
    pub paper1: Vec<Line>,
    /// The paper's Table 6.
    pub paper6: Vec<Line>,
    /// Ours, when `make ura2014` has run.
    pub ours: Option<(Vec<Line>, Vec<Line>)>,
    /// The calibrated cost per node: (b, d, ns).
    pub node_ns: Vec<(u32, u32, u64)>,
}

/// Reads a table of [`Line`]s; the leaf ratio, where the file has none,
/// from the sequential row of the same b in `seq` (or in the file itself).
fn lines(path: &Path, seq: &[Line]) -> Result<Vec<Line>> {
    let raw: Vec<HashMap<String, String>> = rows(path, false)?;
    let mut out = vec![];
    for (i, r) in raw.iter().enumerate() {
        let at = || format!("{}: row {}", path.display(), i + 2);
        let text = |k: &str| r.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
        let int = |k: &str| -> Result<u32> { text(k).with_context(|| format!("{}: no {k}", at()))?.parse().with_context(|| format!("{}: {k}", at())) };
        // A finite number: `NaN` or `1e400` (∞) is refused, not printed.
        let num = |k: &str| -> Result<Option<f64>> {
            text(k)
                .map(|v| {
                    let shown = parab::cli::excerpt(v);
                    let x = v.parse::<f64>().with_context(|| format!("{}: {k} = `{shown}`", at()))?;
                    anyhow::ensure!(x.is_finite(), "{}: {k} = `{shown}` is not a finite number (rerun the make target that writes it)", at());
                    Ok(x)
                })
                .transpose()
        };
        out.push(Line {
            b: int("b")?,
            d: int("d")?,
            d_prime: int("d_prime")?,
            procs: int("procs")?,
            method: text("method").with_context(|| format!("{}: no method", at()))?.to_string(),
            epsilon: text("epsilon").map(str::to_string),
            time_s: num("search_time_s")?,
            speedup: num("speedup")?,
            leaves_m: num("leaves_millions")?,
            leaf_ratio: num("leaf_ratio")?,
            startup_s: num("startup_idle_s")?,
            other_s: num("other_idle_s")?,
            trees: text("trees").map(|v| v.parse()).transpose().with_context(|| format!("{}: trees", at()))?,
        });
    }
    // Each row without a leaf ratio, joined on (b, d) to the first
    // sequential row of `seq`, then of the file itself.
    let own: Vec<Line> = out.clone();
    let pool: Vec<&Line> = seq.iter().chain(&own).filter(|s| s.method == "sequential").collect();
    let need: Vec<&Line> = own.iter().filter(|l| l.leaf_ratio.is_none()).collect();
    let on = |ls: &[&Line]| vec![key("b", ls, |l| l.b), key("d", ls, |l| l.d)];
    let mut base = keyed::first_match(on(&need), on(&pool))?.into_iter().map(|m| m.map(|j| pool[j]));
    for l in out.iter_mut().filter(|l| l.leaf_ratio.is_none()) {
        let base = base.next().flatten();
        l.leaf_ratio = match (l.leaves_m, base.and_then(|s| s.leaves_m)) {
            (Some(x), Some(y)) if y > 0.0 => Some(x / y),
            _ => None,
        };
    }
    Ok(out)
}

/// Reads the paper's tables (under `published/ura2014/`) and ours (under
/// `results/ura2014/`), each when present.
pub fn load(results: &Path, published: &Path) -> Result<Ura2014> {
    let mut u = Ura2014::default();
    let (p1, p6) = (published.join("ura2014/table-1.csv"), published.join("ura2014/table-6.csv"));
    if p1.exists() {
        u.paper1 = lines(&p1, &[])?;
    }
    if p6.exists() {
        u.paper6 = lines(&p6, &u.paper1)?;
    }
    let dir = results.join("ura2014");
    if dir.join("table1.csv").exists() {
        let o1 = lines(&dir.join("table1.csv"), &[])?;
        let o6 = lines(&dir.join("table6.csv"), &o1)?;
        u.ours = Some((o1, o6));
    }
    let calib: Vec<HashMap<String, String>> = rows(&dir.join("calibration.csv"), true)?;
    for c in &calib {
        let get = |k: &str| c.get(k).and_then(|v| v.parse::<u64>().ok());
        if let (Some(b), Some(d), Some(ns)) = (get("b"), get("d"), get("node_ns")) {
            u.node_ns.push((b as u32, d as u32, ns));
        }
    }
    Ok(u)
}

/// Seconds with the decimals their size needs (ours at small depths are
/// milliseconds).
fn secs(v: Option<f64>) -> Cell {
    match v {
        None => Cell::Empty,
        Some(x) if x >= 10.0 => Cell::Num(x, 2),
        Some(x) => Cell::Num(x, 4),
    }
}

/// A row of the comparison: whose, the depth, then the paper's columns.
fn cells(l: &Line, source: &str, epsilon: bool) -> Vec<Cell> {
    let mut row = vec![Cell::Int(l.b as i64), Cell::Int(l.procs as i64), Cell::Text(l.method.clone())];
    if epsilon {
        row.push(Cell::Text(l.epsilon.clone().unwrap_or_default()));
    }
    row.extend([
        Cell::Text(source.to_string()),
        Cell::Text(format!("{} ({})", l.d, l.d_prime)),
        l.trees.map_or(Cell::Text("32".into()), |t| Cell::Int(t as i64)),
        secs(l.time_s),
        Cell::number(l.speedup, if l.procs == 1 { 0 } else { 1 }),
        Cell::number(l.leaves_m, if source == "paper" { 0 } else { 4 }),
        Cell::number(l.leaf_ratio, 3),
        secs(l.startup_s),
        secs(l.other_s),
    ]);
    row
}

/// The paper's rows in their order, each followed by ours of the same b,
/// P and method at every depth run (shallowest first); ours without a
/// published row last.
fn comparison(id: &str, caption: &str, paper: &[Line], ours: &[Line], epsilon: bool) -> Table {
    let mut header: Vec<String> = ["b", "P", "method"].map(String::from).to_vec();
    if epsilon {
        header.push("ε".into());
    }
    header.extend(
        ["whose", "d (d′)", "trees", "search time (s)", "speed-up", "leaves (10^6)", "leaf ratio", "start-up idle (s)", "other idle (s)"].map(String::from),
    );
    let mut t = Table {
        id: id.into(),
        caption: caption.into(),
        header,
        note: "Paper: Ura, Tsuruoka and Chikayama (2014), `data/published/ura2014/`, on 32 trees at d = 24 (b = 5) and d = 12 (b = 20); ours at every depth the run had, d − d′ = d/2 as the paper's. Rows of ours at a smaller d than the paper's are not the same experiment: they show the trend toward its depth. Search time: geometric mean over the trees; speed-up: the sequential baseline's geometric mean over it; leaves: mean per tree; leaf ratio: over the baseline's (the paper's computed from its rows). Idle: the paper's per worker; ours per process, averaged over all P processes with the master's own waits included (the paper averages over the P − 1 workers). Our cost per node is calibrated to the paper's sequential time per leaf (see the settings), so our seconds are on its scale.".into(),
        ..Default::default()
    };
    let mut sorted: Vec<&Line> = ours.iter().collect();
    sorted.sort_by_key(|l| (l.b, l.d, l.procs));
    let mut shown = vec![false; sorted.len()];
    for p in paper {
        t.rows.push(cells(p, "paper", epsilon));
        for (i, o) in sorted.iter().enumerate() {
            if o.b == p.b && o.procs == p.procs && o.method == p.method && (!epsilon || o.epsilon == p.epsilon || o.method.starts_with("without")) {
                t.rows.push(cells(o, "ours", epsilon));
                shown[i] = true;
            }
        }
    }
    for (o, _) in sorted.iter().zip(&shown).filter(|(_, s)| !**s) {
        t.rows.push(cells(o, "ours", epsilon));
    }
    t
}

/// The series of one panel: per (P, method) of ours, value `f` against d;
/// the paper's value at its d in the same colour.
fn panel(title: &str, y: &str, b: u32, ours: &[&Line], paper: &[&Line], log_y: bool, f: fn(&Line) -> Option<f64>) -> Plot {
    let mut keys: Vec<(u32, usize, String)> = vec![];
    for l in ours.iter().filter(|l| l.procs > 1) {
        let k = (l.procs, METHODS.iter().position(|m| *m == l.method).unwrap_or(METHODS.len()), l.method.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.sort();
    let name = |p: u32, m: &str| format!("{}, P = {}", m.replace("epsilon", "ε"), super::doc::group(p as i64));
    let mut series = vec![];
    let mut marks = vec![];
    for (ci, (p, _, m)) in keys.iter().enumerate() {
        let mut pts: Vec<(f64, f64)> = ours.iter().filter(|l| l.procs == *p && &l.method == m).filter_map(|l| Some((l.d as f64, f(l)?))).collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push(Series { name: name(*p, m), points: pts });
        let theirs: Vec<(f64, f64)> = paper.iter().filter(|l| l.procs == *p && &l.method == m).filter_map(|l| Some((l.d as f64, f(l)?))).collect();
        if !theirs.is_empty() {
            marks.push(Mark { colour: ci, series: Series { name: format!("{}, paper", name(*p, m)), points: theirs } });
        }
    }
    Plot::Lines { title: format!("{title}, b = {b}"), x_label: "search depth d (d′ = d/2)".into(), y_label: y.into(), log_y, series, marks }
}

/// The section "Ura et al. 2014, Table 1 and Table 6".
pub fn sections(u: &Ura2014, b: &mut Builder) -> Result<()> {
    let mut s = Section {
        id: "ura2014".into(),
        chapter: 7,
        title: "Ura et al. 2014, Table 1 and Table 6".into(),
        what: "Ura, Tsuruoka and Chikayama's (2014) experiment on the simulated cluster at the paper's size: 32 incremental random trees each of b = 5, d = 24, d′ = 12 and b = 20, d = 12, d′ = 6; the sequential baseline and the master-worker with and without dynamic updates at P = 512 and 1,536 (their Table 1), the NegaScout master with ε-windows (ε = 200) and without at P = 512 (their Table 6), on a 10 Gbit/s network. The published rows beside ours at every depth run, and speed-up and leaf ratio against depth.".into(),
        ..Default::default()
    };
    let empty = (vec![], vec![]);
    let (o1, o6) = match &u.ours {
        Some(o) => (&o.0, &o.1),
        None => {
            s.optional.push(OPTIONAL.into());
            (&empty.0, &empty.1)
        }
    };
    if u.paper1.is_empty() && u.paper6.is_empty() {
        s.findings.push("The paper's tables are not in the published directory (`ura2014/table-1.csv`, `table-6.csv`): ours alone.".into());
    }
    if !u.paper1.is_empty() || !o1.is_empty() {
        s.tables.push(comparison(
            "ura2014-table-1",
            "Ura et al. 2014, Table 1: the paper's rows (d = 24 and 12) and ours at every depth run",
            &u.paper1,
            o1,
            false,
        ));
    }
    if !u.paper6.is_empty() || !o6.is_empty() {
        s.tables.push(comparison(
            "ura2014-table-6",
            "Ura et al. 2014, Table 6: ε-windows in the master, the paper's rows and ours at every depth run",
            &u.paper6,
            o6,
            true,
        ));
    }
    let mut bs: Vec<u32> = o1.iter().chain(o6).map(|l| l.b).collect();
    bs.sort();
    bs.dedup();
    for &bf in &bs {
        let ours: Vec<&Line> = o1.iter().chain(o6.iter().filter(|l| l.method == "with epsilon-windows")).filter(|l| l.b == bf).collect();
        let paper: Vec<&Line> = u.paper1.iter().chain(u.paper6.iter().filter(|l| l.method == "with epsilon-windows")).filter(|l| l.b == bf).collect();
        if ours.iter().all(|l| l.procs == 1) {
            continue;
        }
        let plot = Plot::Row(vec![
            panel("speed-up", "speed-up (log)", bf, &ours, &paper, true, |l| l.speedup),
            panel("leaves over the baseline's", "leaf ratio", bf, &ours, &paper, false, |l| l.leaf_ratio),
        ]);
        let f = figure(
            &format!("ura2014-b{bf}"),
            &format!(
                "b = {bf}: speed-up and leaf ratio against the search depth (d′ = d/2), ours as lines, the paper's at its depth as open markers in the same colour."
            ),
            plot,
        )?;
        b.add_figure(&mut s, f);
        findings(&mut s, bf, o1, &u.paper1);
    }
    s.settings.push("Machine: the simulated cluster (docs/model.md §9.1) with 10 Gbit/s bandwidth (1,250 bytes/µs, the paper's Ethernet) and the default 20 µs latency and 1 µs per message sent and received; the cost per node calibrated so that our sequential baseline spends the paper's time per leaf (19,438.92 s / 790 × 10^6 leaves at b = 5, 7,321.58 s / 149 × 10^6 at b = 20) at our own leaves per node.".into());
    if !u.node_ns.is_empty() {
        let list: Vec<String> = u.node_ns.iter().map(|(b, d, ns)| format!("b = {b}, d = {d}: {} ns", super::doc::group(*ns as i64))).collect();
        s.settings.push(format!("Cost per node (results/ura2014/calibration.csv): {}.", list.join("; ")));
    }
    s.settings.push("Commands: `make ura2014` (pipelines/ura2014.sh; GRID=quick, COUNT, PROCS, EPSILON and ARGS set the grid; SHARD=K/N with STEP=seq, parallel, summary splits it over machines; `make ura2014-slurm` runs it as Slurm arrays).".into());
    b.sections.push(s);
    Ok(())
}

/// Per P: at our deepest d, updates against none, and the leaf ratio,
/// beside the paper's.
fn findings(s: &mut Section, bf: u32, ours: &[Line], paper: &[Line]) {
    let Some(deepest) = ours.iter().filter(|l| l.b == bf && l.procs > 1).map(|l| l.d).max() else { return };
    let mut procs: Vec<u32> = ours.iter().filter(|l| l.b == bf && l.procs > 1).map(|l| l.procs).collect();
    procs.sort();
    procs.dedup();
    let at =
        |set: &[Line], d: Option<u32>, p: u32, m: &str| set.iter().find(|l| l.b == bf && d.is_none_or(|d| l.d == d) && l.procs == p && l.method == m).cloned();
    let f = |v: Option<f64>| v.map_or("–".to_string(), |x| format!("{x:.2}"));
    for p in procs {
        let (w, wo) = (at(ours, Some(deepest), p, "with updates"), at(ours, Some(deepest), p, "without updates"));
        let (pw, pwo) = (at(paper, None, p, "with updates"), at(paper, None, p, "without updates"));
        if let (Some(w), Some(wo)) = (w, wo) {
            let theirs = match (&pw, &pwo) {
                (Some(a), Some(c)) => format!(" (the paper at d = {}: {} and {}, leaf ratio {})", a.d, f(a.speedup), f(c.speedup), f(a.leaf_ratio)),
                _ => String::new(),
            };
            s.findings.push(format!(
                "b = {bf}, P = {}, d = {deepest}: speed-up {} with updates, {} without; leaf ratio {} with updates{theirs}.",
                super::doc::group(p as i64),
                f(w.speedup),
                f(wo.speedup),
                f(w.leaf_ratio)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number that is not finite (`NaN`, `1e400` read as ∞) is refused, naming the file, row and column.
    #[test]
    fn numbers_that_are_not_finite_are_refused() {
        let dir = std::env::temp_dir().join(format!("parab-report-ura-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let head = "b,d,d_prime,procs,method,search_time_s,speedup,leaves_millions,startup_idle_s,other_idle_s\n";
        for (v, shown) in [("NaN", "NaN"), ("1e400", "1e400"), ("inf", "inf")] {
            let p = dir.join("table1.csv");
            std::fs::write(&p, format!("{head}5,24,12,1,sequential,1.5,{v},790,,\n")).unwrap();
            let e = lines(&p, &[]).unwrap_err().to_string();
            assert!(e.contains(&format!("row 2: speedup = `{shown}` is not a finite number")), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn line(b: u32, d: u32, procs: u32, method: &str, speedup: f64, leaves: f64) -> Line {
        Line {
            b,
            d,
            d_prime: d / 2,
            procs,
            method: method.into(),
            epsilon: None,
            time_s: Some(1.0 / speedup),
            speedup: Some(speedup),
            leaves_m: Some(leaves),
            leaf_ratio: None,
            startup_s: None,
            other_s: None,
            trees: Some(2),
        }
    }

    #[test]
    fn a_missing_run_says_how_to_make_it_and_still_shows_the_paper() {
        let mut b = Builder::default();
        let u = Ura2014 { paper1: vec![line(5, 24, 1, "sequential", 1.0, 790.0)], ..Default::default() };
        sections(&u, &mut b).unwrap();
        let s = &b.sections[0];
        assert_eq!(s.optional.len(), 1);
        assert!(s.optional[0].contains("`make ura2014`"));
        assert!(s.missing.is_empty(), "not part of make all: nothing is missing");
        assert_eq!(s.tables.len(), 1);
        assert_eq!(s.tables[0].rows.len(), 1);
        assert!(s.figures.is_empty());
    }

    #[test]
    fn ours_follow_the_paper_row_they_match_shallowest_first() {
        let paper = vec![line(5, 24, 1, "sequential", 1.0, 790.0), line(5, 24, 512, "with updates", 343.0, 1162.0)];
        let ours = vec![line(5, 18, 512, "with updates", 40.0, 2.0), line(5, 16, 512, "with updates", 30.0, 1.0), line(5, 16, 64, "with updates", 9.0, 1.0)];
        let t = comparison("t", "c", &paper, &ours, false);
        let whose: Vec<(String, String, String)> = t.rows.iter().map(|r| (r[1].plain(), r[3].plain(), r[4].plain())).collect();
        let w = |p: &str, s: &str, d: &str| (p.to_string(), s.to_string(), d.to_string());
        assert_eq!(
            whose,
            [w("1", "paper", "24 (12)"), w("512", "paper", "24 (12)"), w("512", "ours", "16 (8)"), w("512", "ours", "18 (9)"), w("64", "ours", "16 (8)")]
        );
    }
}
