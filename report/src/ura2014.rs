//! Ura, Tsuruoka and Chikayama (2014) at the paper's size (`make ura2014`,
//! `pipelines/ura2014.sh`, `docs/model.md` §9.9): their Table 1 (the
//! sequential baseline and the master-worker with and without dynamic
//! updates at P = 512 and 1,536) and Table 6 (the NegaScout master with
//! and without ε-windows at P = 512), the published rows beside ours at
//! every depth run, and speed-up and leaf ratio against depth toward the
//! paper's.
//!
//! Families of trees (`GRID`'s `b:d:d′:NOISE`, `docs/model.md` §7.8) are
//! rows of their own: the paper's headline is that dynamic updates gain
//! more on its shogi trees, which order worse than its synthetic ones, so
//! the figure `ura2014-figure-7` (the paper's Fig. 7: per family, b, d and
//! P, the search time with updates over without against the leaves with
//! over without) sets the families side by side.
//!
//! Inputs: `ura2014/table1.csv`, `ura2014/table6.csv` and
//! `ura2014/calibration.csv` under the results (the pipeline's summary),
//! and the paper's tables in `ura2014/table-1.csv` and `table-6.csv` of the
//! published directory. Where the results have no run, the committed
//! reference run (`ura2014/` of the reference directory beside the
//! published one, `data/reference/`) is shown, labelled as such. Any may
//! be missing: the section then says so.

use super::doc::{Cell, Section, Table};
use super::figures::{Mark, Plot, Series};
use super::keyed::{self, key};
use super::load::rows;
use super::{Builder, figure};
use anyhow::{Context, Result};
use std::collections::HashMap;
use std::path::Path;

/// What the section says before the experiment has run.
pub const OPTIONAL: &str = "Ours are not run yet: `make ura2014` (the paper's size: b = 5 at d = 24, b = 20 at d = 12, on synthetic trees and on shogi-like ones, 32 trees each, P = 512 and 1,536; a cluster's work, best as Slurm arrays: `make ura2014-slurm`), `make ura2014 GRID=scaled` (the headline at a 32nd of the machine: both families at b = 5, d = 20 and b = 20, d = 10 on P = 16 and 48, 4 trees) or `make ura2014 GRID=quick` (smaller depths, 2 trees), then `make report`.";

/// Where the rows of ours come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The user's own run (`results/ura2014/`).
    Own,
    /// The committed reference run, from this directory.
    Reference(String),
}

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
    /// The trees' evaluation noise (`None`: the plain synthetic trees, as
    /// every row of the paper's Tables 1 and 6).
    pub noise: Option<String>,
    /// The least and largest of the trees' own speed-ups (ours).
    pub speedup_range: Option<(f64, f64)>,
    /// The least and largest of the trees' own leaf ratios (ours).
    pub leaf_ratio_range: Option<(f64, f64)>,
}

impl Line {
    /// The family's name: `synthetic`, `shogi-like` or `noise X`.
    pub fn family(&self) -> String {
        family(&self.noise)
    }
}

/// A family's name from its noise.
fn family(noise: &Option<String>) -> String {
    match noise.as_deref() {
        None => "synthetic".into(),
        Some("shogi") => "shogi-like".into(),
        Some(x) => format!("noise {x}"),
    }
}

/// The paper's tables and ours.
#[derive(Debug, Default)]
pub struct Ura2014 {
    /// The paper's Table 1 (empty when its file is missing).
    pub paper1: Vec<Line>,
    /// The paper's Table 6.
    pub paper6: Vec<Line>,
    /// Ours, when `make ura2014` has run (or its reference run is here).
    pub ours: Option<(Vec<Line>, Vec<Line>)>,
    /// Whose they are.
    pub source: Option<Source>,
    /// The calibrated cost per node: (b, d, family, ns).
    pub node_ns: Vec<(u32, u32, String, u64)>,
    /// The CPU-hours of the run (its `cost.csv`), when known.
    pub cpu_hours: Option<f64>,
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
            noise: text("eval_noise").map(str::to_string),
            speedup_range: num("speedup_min")?.zip(num("speedup_max")?),
            leaf_ratio_range: num("leaf_ratio_min")?.zip(num("leaf_ratio_max")?),
        });
    }
    // Each row without a leaf ratio, joined on (b, d) to the first
    // sequential row of `seq`, then of the file itself.
    let own: Vec<Line> = out.clone();
    let pool: Vec<&Line> = seq.iter().chain(&own).filter(|s| s.method == "sequential").collect();
    let need: Vec<&Line> = own.iter().filter(|l| l.leaf_ratio.is_none()).collect();
    let on = |ls: &[&Line]| vec![key("b", ls, |l| l.b), key("d", ls, |l| l.d), key("noise", ls, |l| l.noise.clone())];
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
/// `results/ura2014/`, else the reference run's under `reference/ura2014/`
/// beside the published directory), each when present.
pub fn load(results: &Path, published: &Path) -> Result<Ura2014> {
    let mut u = Ura2014::default();
    let (p1, p6) = (published.join("ura2014/table-1.csv"), published.join("ura2014/table-6.csv"));
    if p1.exists() {
        u.paper1 = lines(&p1, &[])?;
    }
    if p6.exists() {
        u.paper6 = lines(&p6, &u.paper1)?;
    }
    let own = results.join("ura2014");
    let reference = published.parent().map(|p| p.join("reference/ura2014"));
    // The run's directories: the user's, else the reference run's, which
    // may be one summary or several (one a subdirectory: runs of different
    // tree counts, each a pipeline's summary), read in name order.
    let (dirs, source) = match reference {
        Some(r) if !own.join("table1.csv").exists() => {
            let mut parts: Vec<std::path::PathBuf> = match std::fs::read_dir(&r) {
                Ok(rd) => rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.join("table1.csv").is_file()).collect(),
                Err(_) => vec![],
            };
            parts.sort();
            if r.join("table1.csv").is_file() {
                parts.insert(0, r.clone());
            }
            let name = r.display().to_string();
            if parts.is_empty() { (vec![own], Source::Own) } else { (parts, Source::Reference(name)) }
        }
        _ => (vec![own], Source::Own),
    };
    let (mut o1, mut o6, mut hours) = (vec![], vec![], None::<f64>);
    for dir in &dirs {
        if dir.join("table1.csv").exists() {
            let t1 = lines(&dir.join("table1.csv"), &[])?;
            o6.extend(lines(&dir.join("table6.csv"), &t1)?);
            o1.extend(t1);
            u.source = Some(source.clone());
        }
        // The calibration is written before the tables (the parallel step's):
        // its costs are shown as soon as it is there.
        let calib: Vec<HashMap<String, String>> = rows(&dir.join("calibration.csv"), true)?;
        for c in &calib {
            let get = |k: &str| c.get(k).and_then(|v| v.parse::<u64>().ok());
            let noise = c.get("eval_noise").filter(|v| !v.is_empty()).cloned();
            if let (Some(b), Some(d), Some(ns)) = (get("b"), get("d"), get("node_ns")) {
                u.node_ns.push((b as u32, d as u32, family(&noise), ns));
            }
        }
        let cost: Vec<HashMap<String, String>> = rows(&dir.join("cost.csv"), true)?;
        let h: Option<f64> = cost.iter().find(|c| c.get("b").map(String::as_str) == Some("all")).and_then(|c| c.get("cpu_hours")?.parse().ok());
        if let Some(h) = h {
            hours = Some(hours.unwrap_or(0.0) + h);
        }
    }
    if u.source.is_some() {
        u.ours = Some((o1, o6));
    }
    u.cpu_hours = hours;
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

/// The least and largest of the trees, `a–b`.
fn range(r: Option<(f64, f64)>, decimals: usize) -> Cell {
    r.map_or(Cell::Empty, |(a, b)| Cell::Text(format!("{a:.decimals$}–{b:.decimals$}")))
}

/// A row of the comparison: whose, the depth, then the paper's columns.
fn cells(l: &Line, source: &str, epsilon: bool) -> Vec<Cell> {
    let source = match &l.noise {
        None => source.to_string(),
        Some(_) => format!("{source}, {}", l.family()),
    };
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
        range(l.speedup_range, 1),
        Cell::number(l.leaves_m, if source == "paper" { 0 } else { 4 }),
        Cell::number(l.leaf_ratio, 3),
        range(l.leaf_ratio_range, 3),
        secs(l.startup_s),
        secs(l.other_s),
    ]);
    row
}

/// The paper's rows in their order, each followed by ours of the same b,
/// P and method on the same family of trees at every depth run (shallowest
/// first); ours without a published row (another family, another
/// algorithm) last. `whose` names ours (`ours`, `reference run`).
fn comparison(id: &str, caption: &str, paper: &[Line], ours: &[Line], epsilon: bool, whose: &str) -> Table {
    let mut header: Vec<String> = ["b", "P", "method"].map(String::from).to_vec();
    if epsilon {
        header.push("ε".into());
    }
    header.extend(
        [
            "whose",
            "d (d′)",
            "trees",
            "search time (s)",
            "speed-up",
            "trees' speed-ups",
            "leaves (10^6)",
            "leaf ratio",
            "trees' leaf ratios",
            "start-up idle (s)",
            "other idle (s)",
        ]
        .map(String::from),
    );
    let mut t = Table {
        id: id.into(),
        caption: caption.into(),
        header,
        note: "Paper: Ura, Tsuruoka and Chikayama (2014), `data/published/ura2014/`, on 32 trees at d = 24 (b = 5) and d = 12 (b = 20); ours at every depth the run had, d − d′ = d/2 as the paper's. Rows of ours at a smaller d than the paper's are not the same experiment: they show the trend toward its depth. Search time: geometric mean over the trees; speed-up: the sequential baseline's geometric mean over it, and beside it the least and largest of the trees' own speed-ups; leaves: mean per tree; leaf ratio: over the baseline's (the paper's computed from its rows), and the trees' own least and largest. Shogi-like rows are ours on trees whose static evaluation is noisy enough to order as poorly as the paper's shogi trees (docs/model.md §7.8); the paper's own shogi rows are not in the published directory. Idle: the paper's per worker; ours per process, averaged over all P processes with the master's own waits included (the paper averages over the P − 1 workers). Our cost per node is calibrated to the paper's sequential time per leaf (see the settings), so our seconds are on its scale.".into(),
        ..Default::default()
    };
    let mut sorted: Vec<&Line> = ours.iter().collect();
    sorted.sort_by_key(|l| (l.noise.is_some(), l.noise.clone(), l.b, l.d, l.procs));
    let mut shown = vec![false; sorted.len()];
    for p in paper {
        t.rows.push(cells(p, "paper", epsilon));
        for (i, o) in sorted.iter().enumerate() {
            let same = o.b == p.b && o.procs == p.procs && o.method == p.method && o.noise == p.noise;
            if same && (!epsilon || o.epsilon == p.epsilon || o.method.starts_with("without")) {
                t.rows.push(cells(o, whose, epsilon));
                shown[i] = true;
            }
        }
    }
    for (o, _) in sorted.iter().zip(&shown).filter(|(_, s)| !**s) {
        t.rows.push(cells(o, whose, epsilon));
    }
    t
}

/// The series of one panel: per (family, P, method) of ours, value `f`
/// against d; the paper's value at its d in the same colour.
fn panel(title: &str, y: &str, b: u32, ours: &[&Line], paper: &[&Line], log_y: bool, f: fn(&Line) -> Option<f64>) -> Plot {
    let mut keys: Vec<(Option<String>, u32, usize, String)> = vec![];
    for l in ours.iter().filter(|l| l.procs > 1) {
        let k = (l.noise.clone(), l.procs, METHODS.iter().position(|m| *m == l.method).unwrap_or(METHODS.len()), l.method.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.sort();
    let name = |n: &Option<String>, p: u32, m: &str| {
        let fam = if n.is_some() { format!("{}, ", family(n)) } else { String::new() };
        format!("{fam}{}, P = {}", m.replace("epsilon", "ε"), super::doc::group(p as i64))
    };
    let mut series = vec![];
    let mut marks = vec![];
    for (ci, (n, p, _, m)) in keys.iter().enumerate() {
        let mine = |l: &&&Line| l.procs == *p && &l.method == m && &l.noise == n;
        let mut pts: Vec<(f64, f64)> = ours.iter().filter(mine).filter_map(|l| Some((l.d as f64, f(l)?))).collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push(Series { name: name(n, *p, m), points: pts });
        let theirs: Vec<(f64, f64)> = paper.iter().filter(mine).filter_map(|l| Some((l.d as f64, f(l)?))).collect();
        if !theirs.is_empty() {
            marks.push(Mark { colour: ci, series: Series { name: format!("{}, paper", name(n, *p, m)), points: theirs } });
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
        what: "Ura, Tsuruoka and Chikayama's (2014) experiment on the simulated cluster at the paper's size: incremental random trees of b = 5, d = 24, d′ = 12 and b = 20, d = 12, d′ = 6, synthetic as the paper's and shogi-like, ordering as poorly as its shogi trees; the sequential baseline and the master-worker with and without dynamic updates at P = 512 and 1,536 (their Table 1), the NegaScout master with ε-windows (ε = 200) and without at P = 512 (their Table 6), on a 10 Gbit/s network. The published rows beside ours at every depth run, speed-up and leaf ratio against depth, and the updates' gain per family of trees (their Fig. 7).".into(),
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
    let whose = match &u.source {
        Some(Source::Reference(dir)) => {
            let hours = u.cpu_hours.map_or(String::new(), |h| format!(", {h:.1} CPU-hours"));
            s.optional.push(format!(
                "Ours below are the committed reference run ({dir}: its README.md gives the command, host and date{hours}), not a run of yours: `make ura2014` (a cluster's work; `make ura2014-slurm`) or `make ura2014 GRID=scaled` (one machine's), then `make report`, replaces it."
            ));
            "reference run"
        }
        _ => "ours",
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
            whose,
        ));
    }
    if !u.paper6.is_empty() || !o6.is_empty() {
        s.tables.push(comparison(
            "ura2014-table-6",
            "Ura et al. 2014, Table 6: ε-windows in the master, the paper's rows and ours at every depth run",
            &u.paper6,
            o6,
            true,
            whose,
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
    let points = figure_7_points(o1, &u.paper1);
    if !points.is_empty() {
        let f = figure(
            "ura2014-figure-7",
            "The paper's Fig. 7: per family of trees, b, d and P, the search time with dynamic updates over without (x) and the leaves with updates over without (y); below 1 the updates gain. Ours as dots, the paper's synthetic trees (its Table 1) as crosses in the colour of ours at the same b and P.",
            figure_7(&points),
        )?;
        b.add_figure(&mut s, f);
        headline(&mut s, &points);
    }
    sharing(&mut s, o1);
    s.settings.push("Machine: the simulated cluster (docs/model.md §9.1) with 10 Gbit/s bandwidth (1,250 bytes/µs, the paper's Ethernet) and the default 20 µs latency and 1 µs per message sent and received; the cost per node calibrated so that our sequential baseline spends the paper's time per leaf (19,438.92 s / 790 × 10^6 leaves at b = 5, 7,321.58 s / 149 × 10^6 at b = 20) at our own leaves per node, per family of trees.".into());
    if !u.node_ns.is_empty() {
        let list: Vec<String> = u.node_ns.iter().map(|(b, d, fam, ns)| format!("b = {b}, d = {d}, {fam}: {} ns", super::doc::group(*ns as i64))).collect();
        s.settings.push(format!("Cost per node (calibration.csv): {}.", list.join("; ")));
    }
    s.settings.push("Commands: `make ura2014` (pipelines/ura2014.sh; GRID=scaled or quick, COUNT, PROCS, EPSILON and ARGS set the grid, GRID's b:d:d′:NOISE a noisy family; SHARD=K/N with STEP=seq, parallel, summary splits it over machines; `make ura2014-slurm` runs it as Slurm arrays).".into());
    b.sections.push(s);
    Ok(())
}

/// One point of Fig. 7: whose (`None`: ours), family, b, d, P, the time
/// ratio and the leaf ratio (with updates over without).
#[derive(Clone, Debug, PartialEq)]
pub struct Point7 {
    /// The paper's (true) or ours.
    pub paper: bool,
    /// The trees' noise.
    pub noise: Option<String>,
    /// Branching factor.
    pub b: u32,
    /// Depth.
    pub d: u32,
    /// Processes.
    pub procs: u32,
    /// Search time with updates over without.
    pub time_ratio: f64,
    /// Leaves with updates over without.
    pub leaf_ratio: f64,
}

/// The row of `method` run on the same family, b, d and P as `l`.
fn partner<'a>(set: &'a [Line], l: &Line, method: &str) -> Option<&'a Line> {
    set.iter().find(|o| o.method == method && (o.b, o.d, o.procs, &o.noise) == (l.b, l.d, l.procs, &l.noise))
}

/// Fig. 7's points: every (family, b, d, P) with both a `with updates` and
/// a `without updates` row, ours then the paper's.
pub fn figure_7_points(ours: &[Line], paper: &[Line]) -> Vec<Point7> {
    let mut out = vec![];
    for (is_paper, set) in [(false, ours), (true, paper)] {
        for w in set.iter().filter(|l| l.method == "with updates") {
            let Some(wo) = partner(set, w, "without updates") else {
                continue;
            };
            let ratio = |a: Option<f64>, c: Option<f64>| a.zip(c).filter(|(_, c)| *c > 0.0).map(|(a, c)| a / c);
            if let (Some(t), Some(l)) = (ratio(w.time_s, wo.time_s), ratio(w.leaves_m, wo.leaves_m)) {
                out.push(Point7 { paper: is_paper, noise: w.noise.clone(), b: w.b, d: w.d, procs: w.procs, time_ratio: t, leaf_ratio: l });
            }
        }
    }
    out
}

/// The figure: one series per family, b and d of ours, its points in the
/// order of P (a line from the smaller machine to the larger), and the
/// paper's points, one mark series per b, in the colour of ours on its
/// synthetic trees at the same b and the paper's d (else the deepest run).
/// A series a point would need a legend line a point: sixteen of them fill
/// the plot.
fn figure_7(points: &[Point7]) -> Plot {
    let procs = |ps: &[&Point7]| ps.iter().map(|p| super::doc::group(p.procs as i64)).collect::<Vec<_>>().join(", ");
    let mut keys: Vec<(Option<String>, u32, u32)> = points.iter().filter(|p| !p.paper).map(|p| (p.noise.clone(), p.b, p.d)).collect();
    keys.sort_by_key(|x| (x.0.is_some(), x.0.clone(), x.1, std::cmp::Reverse(x.2)));
    keys.dedup();
    let of = |paper: bool, k: &(Option<String>, u32, u32)| {
        let mut ps: Vec<&Point7> = points.iter().filter(|p| p.paper == paper && p.noise == k.0 && (p.b, p.d) == (k.1, k.2)).collect();
        ps.sort_by_key(|p| p.procs);
        ps
    };
    let series: Vec<Series> = keys
        .iter()
        .map(|k| {
            let ps = of(false, k);
            Series {
                name: format!("{}, b = {}, d = {} (P = {})", family(&k.0), k.1, k.2, procs(&ps)),
                points: ps.iter().map(|p| (p.time_ratio, p.leaf_ratio)).collect(),
            }
        })
        .collect();
    let mut theirs: Vec<(Option<String>, u32, u32)> = points.iter().filter(|p| p.paper).map(|p| (p.noise.clone(), p.b, p.d)).collect();
    theirs.sort();
    theirs.dedup();
    let marks = theirs
        .iter()
        .map(|k| {
            let ps = of(true, k);
            let colour = keys
                .iter()
                .position(|o| o.0.is_none() && o.1 == k.1 && o.2 == k.2)
                .or_else(|| keys.iter().position(|o| o.0.is_none() && o.1 == k.1))
                .unwrap_or(series.len());
            let name = format!("paper, {}, b = {}, d = {} (P = {})", family(&k.0), k.1, k.2, procs(&ps));
            Mark { colour, series: Series { name, points: ps.iter().map(|p| (p.time_ratio, p.leaf_ratio)).collect() } }
        })
        .collect();
    Plot::Lines { title: "with updates over without".into(), x_label: "search time ratio".into(), y_label: "leaf ratio".into(), log_y: false, series, marks }
}

/// The paper's headline, per family: the updates' time ratio at each b and
/// P (ours at the deepest d), the paper's beside for the synthetic trees.
fn headline(s: &mut Section, points: &[Point7]) {
    let ours: Vec<&Point7> = points.iter().filter(|p| !p.paper).collect();
    let mut keys: Vec<(u32, u32)> = ours.iter().map(|p| (p.b, p.procs)).collect();
    keys.sort();
    keys.dedup();
    for (b, procs) in keys {
        let at = |noise: &Option<String>| ours.iter().filter(|p| (p.b, p.procs) == (b, procs) && &p.noise == noise).max_by_key(|p| p.d);
        let mut fams: Vec<Option<String>> = ours.iter().filter(|p| (p.b, p.procs) == (b, procs)).map(|p| p.noise.clone()).collect();
        fams.sort();
        fams.dedup();
        let parts: Vec<String> = fams
            .iter()
            .filter_map(at)
            .map(|p| format!("{} (d = {}) {:.3} in time, {:.3} in leaves", family(&p.noise), p.d, p.time_ratio, p.leaf_ratio))
            .collect();
        let theirs = points
            .iter()
            .find(|p| p.paper && (p.b, p.procs) == (b, procs))
            .map_or(String::new(), |p| format!("; the paper's synthetic trees {:.3} and {:.3}", p.time_ratio, p.leaf_ratio));
        s.findings.push(format!("With updates over without, b = {b}, P = {}: {}{theirs}.", super::doc::group(procs as i64), parts.join("; ")));
    }
}

/// Sharing the tables (`with share`) against updates alone, per family,
/// b, d and P where both ran, beside the paper's statement.
fn sharing(s: &mut Section, ours: &[Line]) {
    let mut parts = vec![];
    for sh in ours.iter().filter(|l| l.method == "with share") {
        let Some(w) = partner(ours, sh, "with updates") else {
            continue;
        };
        if let (Some(a), Some(c)) = (sh.time_s, w.time_s) {
            let leaves = sh.leaves_m.zip(w.leaves_m).map_or(String::new(), |(x, y)| format!(", leaves {:.3}", x / y));
            parts.push(format!("{}, b = {}, d = {}, P = {}: time {:.3}{leaves}", sh.family(), sh.b, sh.d, super::doc::group(sh.procs as i64), a / c));
        }
    }
    if !parts.is_empty() {
        s.findings
            .push(format!("Sharing the workers' tables (with share over with updates): {}. The paper found that sharing gains at most 7%.", parts.join("; ")));
    }
}

/// Per P: at our deepest d, updates against none, and the leaf ratio,
/// beside the paper's (the synthetic trees; each other family after).
fn findings(s: &mut Section, bf: u32, ours: &[Line], paper: &[Line]) {
    let mut fams: Vec<Option<String>> = ours.iter().filter(|l| l.b == bf && l.procs > 1).map(|l| l.noise.clone()).collect();
    fams.sort();
    fams.dedup();
    for noise in fams {
        let mine: Vec<Line> = ours.iter().filter(|l| l.noise == noise).cloned().collect();
        family_findings(s, bf, &mine, if noise.is_none() { paper } else { &[] });
    }
}

/// [`findings`] for one family.
fn family_findings(s: &mut Section, bf: u32, ours: &[Line], paper: &[Line]) {
    let Some(deepest) = ours.iter().filter(|l| l.b == bf && l.procs > 1).map(|l| l.d).max() else { return };
    let fam = ours.first().filter(|l| l.noise.is_some()).map_or(String::new(), |l| format!(" ({})", l.family()));
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
            let spread = w.speedup_range.map_or(String::new(), |(lo, hi)| format!(" (trees {lo:.0}–{hi:.0})"));
            s.findings.push(format!(
                "b = {bf}{fam}, P = {}, d = {deepest}: speed-up {}{spread} with updates, {} without; leaf ratio {} with updates{theirs}.",
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
            noise: None,
            speedup_range: None,
            leaf_ratio_range: None,
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
        let t = comparison("t", "c", &paper, &ours, false, "ours");
        let whose: Vec<(String, String, String)> = t.rows.iter().map(|r| (r[1].plain(), r[3].plain(), r[4].plain())).collect();
        let w = |p: &str, s: &str, d: &str| (p.to_string(), s.to_string(), d.to_string());
        assert_eq!(
            whose,
            [w("1", "paper", "24 (12)"), w("512", "paper", "24 (12)"), w("512", "ours", "16 (8)"), w("512", "ours", "18 (9)"), w("64", "ours", "16 (8)")]
        );
    }

    /// Fig. 7's points pair each family's rows with and without updates at
    /// the same b, d and P: the paper's Table 1 at b = 5, P = 512 gives
    /// 56.71 / 50.43 in time and 1,162 / 1,008 in leaves.
    #[test]
    fn figure_7_pairs_updates_with_none_per_family() {
        let mut paper = vec![line(5, 24, 512, "with updates", 343.0, 1162.0), line(5, 24, 512, "without updates", 385.0, 1008.0)];
        paper[0].time_s = Some(56.71);
        paper[1].time_s = Some(50.43);
        let mut ours = vec![line(20, 12, 512, "with updates", 200.0, 300.0), line(20, 12, 512, "without updates", 100.0, 400.0)];
        let mut shogi = ours.clone();
        for l in &mut shogi {
            l.noise = Some("shogi".into());
        }
        shogi[0].time_s = Some(1.0);
        shogi[1].time_s = Some(4.0);
        ours.extend(shogi);
        // An unpaired row makes no point.
        ours.push(line(20, 12, 1536, "with updates", 300.0, 300.0));
        let pts = figure_7_points(&ours, &paper);
        let got: Vec<(bool, Option<&str>, u32, String, String)> =
            pts.iter().map(|p| (p.paper, p.noise.as_deref(), p.b, format!("{:.4}", p.time_ratio), format!("{:.4}", p.leaf_ratio))).collect();
        let want = |paper: bool, n: Option<&'static str>, b: u32, t: &str, l: &str| (paper, n, b, t.to_string(), l.to_string());
        assert_eq!(
            got,
            [want(false, None, 20, "0.5000", "0.7500"), want(false, Some("shogi"), 20, "0.2500", "0.7500"), want(true, None, 5, "1.1245", "1.1528")]
        );
        let mut s = Section::default();
        headline(&mut s, &pts);
        // One finding per (b, P) of ours; the paper's b = 5 has no row of ours.
        assert_eq!(
            s.findings,
            [
                "With updates over without, b = 20, P = 512: synthetic (d = 12) 0.500 in time, 0.750 in leaves; shogi-like (d = 12) 0.250 in time, 0.750 in leaves."
            ]
        );
    }

    /// Without a run of the user's, the reference run beside the published
    /// directory is shown and labelled; the user's own run replaces it.
    #[test]
    fn the_reference_run_stands_in_until_the_user_runs_one() {
        let dir = tempfile::tempdir().unwrap();
        let (results, published, reference) = (dir.path().join("results"), dir.path().join("published"), dir.path().join("reference/ura2014"));
        for d in [&results, &published, &reference] {
            std::fs::create_dir_all(d).unwrap();
        }
        let head = "b,d,d_prime,procs,method,search_time_s,speedup,leaves_millions,startup_idle_s,other_idle_s,algorithm,trees,leaf_ratio,speedup_min,speedup_max,leaf_ratio_min,leaf_ratio_max,eval_noise\n";
        let table = |trees: u32| format!("{head}20,12,6,1,sequential,7321.5,1.000,150.0,,,seq,{trees},1.0000,,,,,shogi\n");
        // Two runs, each a summary in a subdirectory: their rows in name
        // order, their CPU-hours summed.
        for (sub, trees, hours) in [("b-shogi", 4, "2.25"), ("a-synthetic", 8, "4.0")] {
            let d = reference.join(sub);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("table1.csv"), table(trees)).unwrap();
            std::fs::write(d.join("table6.csv"), head).unwrap();
            std::fs::write(d.join("cost.csv"), format!("b,cpu_hours\n20,1.0\nall,{hours}\n")).unwrap();
        }
        let u = load(&results, &published).unwrap();
        assert_eq!(u.source, Some(Source::Reference(reference.display().to_string())));
        let trees: Vec<Option<u32>> = u.ours.as_ref().unwrap().0.iter().map(|l| l.trees).collect();
        assert_eq!((u.cpu_hours, trees, u.ours.as_ref().unwrap().0[0].noise.as_deref()), (Some(6.25), vec![Some(8), Some(4)], Some("shogi")));
        let mut b = Builder::default();
        sections(&u, &mut b).unwrap();
        let s = &b.sections[0];
        assert!(s.optional.iter().any(|o| o.contains("committed reference run") && o.contains("6.2 CPU-hours")), "{:?}", s.optional);
        assert_eq!(s.tables[0].rows[0][3].plain(), "reference run, shogi-like");
        std::fs::create_dir_all(results.join("ura2014")).unwrap();
        std::fs::write(results.join("ura2014/table1.csv"), table(2)).unwrap();
        std::fs::write(results.join("ura2014/table6.csv"), head).unwrap();
        let u = load(&results, &published).unwrap();
        assert_eq!((u.source, u.ours.unwrap().0[0].trees, u.cpu_hours), (Some(Source::Own), Some(2), None));
    }
}
