//! OthelloX's grid on the simulated cluster (`make othellox`,
//! `pipelines/othellox.sh`, `docs/model.md` §9): the message-passing
//! algorithms OthelloX (2017) compared — PV splitting, YBWC with and
//! without the helpful master, even split and master-slave at the root —
//! with Fox et al.'s hash-table-guided master/slave beside them, on Othello
//! boards of 6 × 6 to 12 × 12 at several depths, from 2 to 256 processes,
//! on every simulated network. The columns are OthelloX's: speed-up (SPE),
//! search overhead (SO), the idle share and processor load (LD).
//!
//! Input: `othellox/othellox.csv` (per-configuration cluster rows: one per
//! board, depth, network, algorithm and process count, the sequential
//! baseline's row once per board, depth and network). Beside the grid,
//! OthelloX's Table 3 (its PV split: speed-up, search overhead and idle
//! time, mean and standard deviation over its positions, P = 2 … 64) from
//! the published directory's `othellox/table-3.csv`, and ours in its
//! columns from `othellox/pv-split-table3.csv` (the PV split's per-position
//! rows on 8 × 8 at depth 5, `docs/model.md` §9.10).

use super::doc::{Cell, Section, Table};
use super::figures::{Plot, Series};
use super::keyed::{self, key};
use super::legend::{algorithms, name};
use super::load::rows;
use super::{Builder, PendingFigure, figure};
use anyhow::Result;
use parab::formats::ClusterRow;
use std::collections::BTreeSet;
use std::path::Path;

/// What the section says before the experiment has run.
pub const OPTIONAL: &str = "This experiment is not part of `make all`: it runs OthelloX's algorithms and Fox et al.'s on four board sizes, four depths and three networks at 2 to 256 processes (BENCHMARKS.md gives its cost). To add it to this page, run `make othellox`, then `make report`.";

/// Reads the experiment's rows; `None` when it has not run.
pub fn load(results: &Path) -> Result<Option<Vec<ClusterRow>>> {
    let path = results.join("othellox").join("othellox.csv");
    if !path.exists() {
        return Ok(None);
    }
    Ok(Some(finite(&path, rows(&path, false)?)?))
}

/// The rows, each of their numbers finite: a `NaN` or `1e400` (read as ∞)
/// is refused, naming the file, line and column, rather than printed.
fn finite(path: &Path, rows: Vec<ClusterRow>) -> Result<Vec<ClusterRow>> {
    for (i, r) in rows.iter().enumerate() {
        let cols = [
            ("time_ns", r.time_ns),
            ("speedup", r.speedup),
            ("leaf_ratio", r.leaf_ratio),
            ("startup_idle_ns", r.startup_idle_ns),
            ("other_idle_ns", r.other_idle_ns),
            ("load_mean", r.load_mean),
            ("load_min", r.load_min),
            ("load_sd", r.load_sd),
            ("host_load", r.host_load.unwrap_or(0.0)),
        ];
        if let Some((c, v)) = cols.iter().find(|c| !c.1.is_finite()) {
            anyhow::bail!("column `{c}`: `{v}` is not a finite number ({}:{}); rerun the make target that writes it", path.display(), i + 2);
        }
    }
    Ok(rows)
}

/// One row of OthelloX's Table 3, as printed: percentages for the search
/// overhead and the idle time.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct PaperRow {
    /// Processors.
    pub procs: u32,
    /// Speed-up, mean over the positions.
    pub speedup_mean: f64,
    /// Its standard deviation.
    pub speedup_sd: f64,
    /// Search overhead (%), mean.
    pub search_overhead_mean: f64,
    /// Its standard deviation.
    pub search_overhead_sd: f64,
    /// Time idle (%), mean.
    pub idle_mean: f64,
    /// Its standard deviation.
    pub idle_sd: f64,
}

/// OthelloX's Table 3 and our PV split's per-position rows in its setting
/// (either may be missing).
#[derive(Clone, Debug, Default)]
pub struct Table3 {
    /// The published rows.
    pub paper: Vec<PaperRow>,
    /// Ours: per position and P, the sequential baseline's rows among them.
    pub ours: Vec<ClusterRow>,
}

/// Reads OthelloX's Table 3 (`othellox/table-3.csv` under the published
/// directory) and our rows in its setting (`othellox/pv-split-table3.csv`
/// under the results), each when present.
pub fn load_table3(results: &Path, published: &Path) -> Result<Table3> {
    Ok(Table3 {
        paper: rows(&published.join("othellox").join("table-3.csv"), true)?,
        ours: {
            let path = results.join("othellox").join("pv-split-table3.csv");
            finite(&path, rows(&path, true)?)?
        },
    })
}

/// Mean and sample standard deviation (0 for one value).
fn mean_sd(v: &[f64]) -> Option<(f64, f64)> {
    if v.is_empty() {
        return None;
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 { v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    Some((mean, var.sqrt()))
}

/// Ours at one P in Table 3's columns: (P, [speed-up, search overhead,
/// idle], each (mean, standard deviation)).
type Ours3 = (u32, [(f64, f64); 3]);

/// Ours in Table 3's columns, per P: the speed-up, search overhead (%) and
/// idle time (%) of each position against its own baseline row, each as
/// (mean, standard deviation) over the positions.
fn table3_ours(rows: &[ClusterRow]) -> Result<Vec<Ours3>> {
    let seq: Vec<&ClusterRow> = rows.iter().filter(|s| s.algorithm == "seq").collect();
    let pv: Vec<&ClusterRow> = rows.iter().filter(|r| r.algorithm == "pv-split").collect();
    let on = |rs: &[&ClusterRow]| vec![key("tree", rs, |r| r.tree), key("seed", rs, |r| r.seed), key("depth", rs, |r| r.depth)];
    let base = keyed::first_match(on(&pv), on(&seq))?;
    let procs = sorted(pv.iter().map(|r| r.procs));
    Ok(procs
        .into_iter()
        .filter_map(|p| {
            let (mut su, mut so, mut idle) = (vec![], vec![], vec![]);
            for (r, b) in pv.iter().zip(&base).filter(|(r, _)| r.procs == p) {
                let Some(b) = b.map(|i| seq[i]) else { continue };
                su.push(b.time_ns / r.time_ns.max(f64::MIN_POSITIVE));
                so.push(100.0 * (r.nodes as f64 / b.nodes.max(1) as f64 - 1.0));
                idle.push(100.0 * (1.0 - r.load_mean));
            }
            Some((p, [mean_sd(&su)?, mean_sd(&so)?, mean_sd(&idle)?]))
        })
        .collect())
}

/// OthelloX's Table 3 beside ours, a row per P either has; `None` when
/// neither has a row.
fn table3(t: &Table3, ours: &[Ours3]) -> Option<Table> {
    let procs = sorted(t.paper.iter().map(|r| r.procs).chain(ours.iter().map(|o| o.0)));
    if procs.is_empty() {
        return None;
    }
    let pm = |m: f64, sd: f64, d: usize| Cell::Text(format!("{m:.d$} ± {sd:.d$}"));
    let positions = sorted(t.ours.iter().filter(|r| r.algorithm == "seq").map(|r| (r.tree, r.seed))).len();
    let rows = procs
        .iter()
        .map(|&p| {
            let paper = t.paper.iter().find(|r| r.procs == p);
            let mine = ours.iter().find(|o| o.0 == p).map(|o| o.1);
            let mut row = vec![Cell::Int(p as i64)];
            for (k, d) in [(0, 2), (1, 1), (2, 1)] {
                let theirs = paper.map(|r| [(r.speedup_mean, r.speedup_sd), (r.search_overhead_mean, r.search_overhead_sd), (r.idle_mean, r.idle_sd)][k]);
                row.push(theirs.map_or(Cell::Empty, |(m, sd)| pm(m, sd, d)));
                row.push(mine.map_or(Cell::Empty, |m| pm(m[k].0, m[k].1, d)));
            }
            row
        })
        .collect();
    Some(Table {
        id: "othellox-table-3".into(),
        caption: "OthelloX's Table 3 beside ours: the PV split's speed-up, search overhead and idle time, mean ± standard deviation over the positions".into(),
        header: ["P", "OthelloX", "ours", "OthelloX", "ours", "OthelloX", "ours"].map(String::from).to_vec(),
        groups: vec![(String::new(), 1), ("speed-up".into(), 2), ("search overhead (%)".into(), 2), ("time idle (%)".into(), 2)],
        rows,
        note: format!(
            "OthelloX: its Table 3 (`data/published/othellox/table-3.csv`; board and depth not stated with it, its PV split's figure is at depth 5). Ours: {}",
            if positions == 0 {
                "not run yet (`make othellox`).".to_string()
            } else {
                format!(
                    "the PV split (docs/model.md §9.10) on {positions} 8 × 8 positions at depth 5 (`make othellox`), each position's speed-up and search overhead (nodes over the baseline's, less one) against its own sequential baseline, idle 100 % − the mean share of time a process was busy."
                )
            }
        ),
    })
}

/// What Table 3 beside ours shows: our speed-up at the fewest processes
/// and where it stops growing (the first P within 0.005 of its best).
fn table3_findings(t: &Table3, ours: &[Ours3]) -> Vec<String> {
    let (Some(first), Some(last), Some(peak)) = (ours.first(), ours.last(), ours.iter().max_by(|a, b| a.1[0].0.total_cmp(&b.1[0].0))) else {
        return vec![];
    };
    let stop = ours.iter().find(|o| o.1[0].0 >= peak.1[0].0 - 0.005).map_or(peak.0, |o| o.0);
    let theirs = |p: u32| t.paper.iter().find(|r| r.procs == p).map_or(String::new(), |r| format!(" (OthelloX {:.2})", r.speedup_mean));
    let rest = if stop < last.0 {
        format!(
            ", rising to {:.2} at P = {stop}{} and no further up to P = {}: at most the widest split point's other moves are searched at once",
            peak.1[0].0,
            theirs(stop),
            last.0
        )
    } else {
        format!(", {:.2} at P = {stop}{}", peak.1[0].0, theirs(stop))
    };
    vec![format!("PV split in OthelloX's Table 3 setting: mean speed-up {:.2} at P = {}{}{rest}.", first.1[0].0, first.0, theirs(first.0))]
}

/// The board side of a row's family (`othello` is 8 × 8).
fn board(r: &ClusterRow) -> u32 {
    r.model.strip_prefix("othello").and_then(|s| s.parse().ok()).unwrap_or(8)
}

/// The network of a row: `flat`, `hypercube` or `fat-tree` (its cores per
/// node dropped: one grid uses one).
fn network(r: &ClusterRow) -> String {
    let t = r.transport.strip_prefix("simulated/").unwrap_or("flat");
    t.split_once("-tree").map_or_else(|| t.to_string(), |(a, _)| format!("{a}-tree"))
}

/// One configuration's numbers against its baseline.
struct Cellv {
    speedup: f64,
    /// Nodes over the baseline's, minus one (OthelloX's SO as a fraction).
    so: f64,
    load: f64,
    startup: f64,
}

/// The grid's rows indexed by (board, depth, network), each with its
/// baseline: the sequential row of its board, depth and network.
struct Grid<'a> {
    rows: &'a [ClusterRow],
    base: Vec<Option<usize>>,
}

impl<'a> Grid<'a> {
    fn new(rows: &'a [ClusterRow]) -> Result<Grid<'a>> {
        let on = |rs: &[&ClusterRow]| vec![key("board", rs, |r| board(r)), key("depth", rs, |r| r.depth), key("network", rs, |r| network(r))];
        let all: Vec<&ClusterRow> = rows.iter().collect();
        let seq: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].algorithm == "seq").collect();
        let seq_rows: Vec<&ClusterRow> = seq.iter().map(|&i| &rows[i]).collect();
        let base = keyed::first_match(on(&all), on(&seq_rows))?.into_iter().map(|m| m.map(|j| seq[j])).collect();
        Ok(Grid { rows, base })
    }

    fn cell(&self, board_: u32, depth: u32, net: &str, alg: &str, procs: u32) -> Option<Cellv> {
        let i = (0..self.rows.len()).find(|&i| {
            let r = &self.rows[i];
            board(r) == board_ && r.depth == depth && network(r) == net && r.algorithm == alg && r.procs == procs
        })?;
        let (r, base) = (&self.rows[i], &self.rows[self.base[i]?]);
        let time = r.time_ns.max(f64::MIN_POSITIVE);
        Some(Cellv { speedup: r.speedup, so: r.nodes as f64 / base.nodes.max(1) as f64 - 1.0, load: r.load_mean, startup: r.startup_idle_ns / time })
    }
}

fn sorted<T: Ord + Clone>(it: impl Iterator<Item = T>) -> Vec<T> {
    it.collect::<BTreeSet<T>>().into_iter().collect()
}

/// The grid's axes: what every table and figure of the section spans.
#[derive(Clone, Copy)]
struct Axes<'a> {
    algs: &'a [String],
    boards: &'a [u32],
    depths: &'a [u32],
    /// The largest P and depth.
    pmax: u32,
    dmax: u32,
    /// Positions a board.
    pos: u32,
}

/// Speed-up against P at the deepest depth on one network, a panel per
/// board.
fn speedup_figure(grid: &Grid, ax: &Axes, procs: &[u32], net: &str) -> Result<PendingFigure> {
    let Axes { algs, boards, dmax, .. } = *ax;
    let panels: Vec<Plot> = boards
        .iter()
        .enumerate()
        .map(|(i, &bd)| {
            let series = algs
                .iter()
                .map(|a| {
                    let pts: Vec<(f64, f64)> =
                        procs.iter().filter_map(|&p| grid.cell(bd, dmax, net, a, p).map(|c| (p as f64, c.speedup))).filter(|x| x.1 > 0.0).collect();
                    Series { name: name(a), points: pts }
                })
                .filter(|s| !s.points.is_empty())
                .collect();
            Plot::LogLines {
                title: format!("{bd} × {bd}"),
                x_label: "processes".into(),
                y_label: "speed-up".into(),
                log_y: true,
                series,
                anchors: vec![],
                legend: i == 0,
            }
        })
        .collect();
    let id = format!("othellox-speedup-{net}");
    figure(
        &id,
        &format!("Speed-up against processes at depth {dmax} on the {net} network, one panel per board, one line per algorithm (log axes)."),
        Plot::Row(panels),
    )
}

/// The grid at the largest P on one network: SPE / SO / LD.
fn grid_table(grid: &Grid, ax: &Axes, net: &str) -> Table {
    let Axes { algs, boards, depths, pmax, pos, .. } = *ax;
    let mut header = vec!["board".to_string(), "depth".to_string()];
    header.extend(algs.iter().map(|a| name(a)));
    let mut t = Table {
        id: format!("othellox-grid-{net}"),
        caption: format!("{net} network, P = {pmax}: speed-up / search overhead / processor load by board, depth and algorithm"),
        header,
        note: format!(
            "Each cell: SPE / SO (nodes over the sequential baseline's, less one, %) / LD (%), over {pos} positions a board; the idle share is 100 % − LD."
        ),
        ..Default::default()
    };
    for &bd in boards {
        for &d in depths {
            let mut row = vec![Cell::Text(format!("{bd} × {bd}")), Cell::Int(d as i64)];
            let mut any = false;
            for a in algs {
                row.push(grid.cell(bd, d, net, a, pmax).map_or(Cell::Empty, |c| {
                    any = true;
                    Cell::Text(format!("{:.2} / {:.0} / {:.0}", c.speedup, 100.0 * c.so, 100.0 * c.load))
                }));
            }
            if any {
                t.rows.push(row);
            }
        }
    }
    t
}

/// Where the idle time goes at the largest P and depth.
fn idle_table(grid: &Grid, ax: &Axes, net: &str) -> Table {
    let Axes { algs, boards, pmax, dmax, .. } = *ax;
    let mut header = vec!["board".to_string()];
    header.extend(algs.iter().map(|a| name(a)));
    let mut t = Table {
        id: "othellox-idle".into(),
        caption: format!("{net} network, P = {pmax}, depth {dmax}: idle share, start-up / all (%)"),
        header,
        note: "Start-up: the time before a process's first message, over the search time; all: 100 % − LD.".into(),
        ..Default::default()
    };
    for &bd in boards {
        let mut row = vec![Cell::Text(format!("{bd} × {bd}"))];
        for a in algs {
            row.push(
                grid.cell(bd, dmax, net, a, pmax).map_or(Cell::Empty, |c| Cell::Text(format!("{:.0} / {:.0}", 100.0 * c.startup, 100.0 * (1.0 - c.load)))),
            );
        }
        t.rows.push(row);
    }
    t
}

/// The networks side by side at the largest P and depth.
fn networks_table(grid: &Grid, ax: &Axes, nets: &[String]) -> Table {
    let Axes { algs, boards, pmax, dmax, .. } = *ax;
    let mut header = vec!["board".to_string(), "algorithm".to_string()];
    header.extend(nets.iter().cloned());
    let mut t = Table {
    id: "othellox-networks".into(),
    caption: format!("Speed-up by network at P = {pmax}, depth {dmax}"),
    header,
    note: "The networks change only the latency of a message (docs/model.md §9.1): a flat one, a hypercube (a cost per hop between the two ranks' cube corners) and a two-level fat tree (cheap inside a node, switch hops between).".into(),
    ..Default::default()
};
    for &bd in boards {
        for a in algs {
            let mut row = vec![Cell::Text(format!("{bd} × {bd}")), Cell::Text(name(a))];
            row.extend(nets.iter().map(|n| Cell::number(grid.cell(bd, dmax, n, a, pmax).map(|c| c.speedup), 2)));
            t.rows.push(row);
        }
    }
    t
}

/// The section "OthelloX's grid", with OthelloX's Table 3 beside ours.
pub fn sections(data: Option<&[ClusterRow]>, t3: &Table3, b: &mut Builder) -> Result<()> {
    let mut s = Section {
        id: "othellox".into(),
        chapter: 7,
        title: "OthelloX's grid: boards, depths, networks".into(),
        what: "The message-passing algorithms OthelloX (2017) compared — PV splitting, YBWC with and without the helpful master, even split and master-slave at the root — and Fox et al.'s hash-table-guided master/slave, on the simulated cluster (docs/model.md §9) at 2 to 256 processes, on Othello boards of 6 × 6 to 12 × 12 at several depths, on a flat network, a hypercube and a two-level fat tree. Speed-up (OthelloX's SPE) is the sequential baseline's time over the parallel one's (geometric means over the positions), search overhead (SO) the nodes over the baseline's less one, LD the mean share of the search time a process was busy; the idle share is 1 − LD. Every run returned the baseline's root value.".into(),
        ..Default::default()
    };
    let ours = table3_ours(&t3.ours)?;
    s.tables.extend(table3(t3, &ours));
    s.findings.extend(table3_findings(t3, &ours));
    let Some(rows) = data.filter(|r| !r.is_empty()) else {
        s.optional.push(OPTIONAL.into());
        b.sections.push(s);
        return Ok(());
    };
    let grid = Grid::new(rows)?;
    let all: Vec<&ClusterRow> = rows.iter().collect();
    let algs = algorithms(&all);
    let boards = sorted(rows.iter().map(board));
    let depths = sorted(rows.iter().map(|r| r.depth));
    let mut nets: Vec<String> = vec![];
    for r in rows {
        let n = network(r);
        if !nets.contains(&n) {
            nets.push(n);
        }
    }
    let procs = sorted(rows.iter().filter(|r| r.procs > 1).map(|r| r.procs));
    let (Some(&pmax), Some(&dmax)) = (procs.last(), depths.last()) else {
        s.optional.push(OPTIONAL.into());
        b.sections.push(s);
        return Ok(());
    };
    let pos = rows.first().map_or(0, |r| r.trees);

    let ax = Axes { algs: &algs, boards: &boards, depths: &depths, pmax, dmax, pos };
    for net in &nets {
        let f = speedup_figure(&grid, &ax, &procs, net)?;
        b.add_figure(&mut s, f);
    }
    s.tables.extend(nets.iter().map(|net| grid_table(&grid, &ax, net)));
    if let Some(net) = nets.first() {
        s.tables.push(idle_table(&grid, &ax, net));
    }
    if nets.len() > 1 {
        s.tables.push(networks_table(&grid, &ax, &nets));
    }

    s.findings.extend(findings(&grid, &algs, &boards, &depths, &nets, &procs));
    s.settings.push("Machine: the simulated cluster's default costs (docs/model.md §9.1), the hypercube's and fat tree's per-hop cost and cores per node at their defaults unless NET_ARGS set them.".into());
    s.settings.push(format!("Positions: {pos} a board, by seeded random play from the board's starting square (`positions --game othello --board N`)."));
    s.settings.push("Commands: `make othellox` (pipelines/othellox.sh; BOARDS, DEPTHS, COUNT, PROCS, ALGORITHMS and TOPOLOGIES set the grid; SHARD=K/N splits it over machines).".into());
    b.sections.push(s);
    Ok(())
}

/// What the grid shows, computed: the fastest algorithm at the largest P
/// and depth, the helpful master's effect, PV split against YBWC, depth
/// and network.
fn findings(grid: &Grid, algs: &[String], boards: &[u32], depths: &[u32], nets: &[String], procs: &[u32]) -> Vec<String> {
    let mut out = vec![];
    let (Some(&pmax), Some(&dmax), Some(&dmin)) = (procs.last(), depths.last(), depths.first()) else { return out };
    for net in nets {
        let mut parts = vec![];
        for &bd in boards {
            let best = algs.iter().filter_map(|a| grid.cell(bd, dmax, net, a, pmax).map(|c| (a, c.speedup))).max_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((a, su)) = best {
                parts.push(format!("{bd} × {bd}: {} ({su:.2})", name(a)));
            }
        }
        if !parts.is_empty() {
            out.push(format!("Fastest at P = {pmax}, depth {dmax}, {net} network: {}.", parts.join("; ")));
        }
    }
    // Pairs compared over every cell of the grid (board, depth, network, P).
    let mut pair = |a: &str, b_: &str, what: &str| {
        let (mut wins, mut n, mut ratios) = (0, 0, vec![]);
        for &bd in boards {
            for &d in depths {
                for net in nets {
                    for &p in procs {
                        if let (Some(x), Some(y)) = (grid.cell(bd, d, net, a, p), grid.cell(bd, d, net, b_, p)) {
                            n += 1;
                            wins += usize::from(x.speedup > y.speedup);
                            ratios.push(x.speedup / y.speedup.max(f64::MIN_POSITIVE));
                        }
                    }
                }
            }
        }
        if n > 0 {
            ratios.sort_by(f64::total_cmp);
            out.push(format!("{what}: faster in {wins} of {n} configurations; median speed-up ratio {:.2}.", ratios[n / 2]));
        }
    };
    pair("ybwc-full", "ybwc-full-no-helpful", "The helpful master (YBWC with it against YBWC without it)");
    pair("ybwc-full", "ybwc", "OthelloX's and Feldmann's YBWC against the plain one");
    pair("pv-split", "ybwc", "PV split against the plain YBWC");
    pair("fox", "ybwc", "Fox et al.'s master/slave against the plain YBWC");
    // Depth: does the speed-up at the largest P grow from the shallowest
    // depth to the deepest, board by board?
    if dmax > dmin {
        for a in algs {
            let (mut grew, mut n) = (0, 0);
            for &bd in boards {
                for net in nets.iter().take(1) {
                    if let (Some(x), Some(y)) = (grid.cell(bd, dmin, net, a, pmax), grid.cell(bd, dmax, net, a, pmax)) {
                        n += 1;
                        grew += usize::from(y.speedup > x.speedup);
                    }
                }
            }
            if n > 0 {
                out.push(format!("{}: speed-up at P = {pmax} grows from depth {dmin} to {dmax} on {grew} of {n} boards ({} network).", name(a), nets[0]));
            }
        }
    }
    // Networks: the largest change of speed-up against the flat network.
    if let Some(flat) = nets.iter().find(|n| *n == "flat") {
        for net in nets.iter().filter(|n| *n != flat) {
            let mut worst: Option<(f64, String)> = None;
            for &bd in boards {
                for a in algs {
                    if let (Some(x), Some(y)) = (grid.cell(bd, dmax, flat, a, pmax), grid.cell(bd, dmax, net, a, pmax)) {
                        let change = y.speedup / x.speedup.max(f64::MIN_POSITIVE) - 1.0;
                        if worst.as_ref().is_none_or(|w| change.abs() > w.0.abs()) {
                            worst = Some((change, format!("{} on {bd} × {bd}", name(a))));
                        }
                    }
                }
            }
            if let Some((c, what)) = worst {
                out.push(format!(
                    "The {net} network against the flat one at P = {pmax}, depth {dmax}: the largest change of speed-up is {:+.1} % ({what}).",
                    100.0 * c
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number that is not finite (`NaN`, `1e400` read as ∞) is refused, naming the file, line and column.
    #[test]
    fn numbers_that_are_not_finite_are_refused() {
        let ok = row("othello", "simulated", "ybwc", 4, 2.0, 100, 0.5);
        assert!(finite(Path::new("o.csv"), vec![ok.clone()]).is_ok());
        for bad in [ClusterRow { speedup: f64::NAN, ..ok.clone() }, ClusterRow { load_sd: f64::INFINITY, ..ok.clone() }] {
            let e = finite(Path::new("o.csv"), vec![ok.clone(), bad]).unwrap_err().to_string();
            assert!(e.starts_with("column `") && e.contains("is not a finite number (o.csv:3)"), "{e}");
        }
    }

    fn row(model: &str, transport: &str, algorithm: &str, procs: u32, speedup: f64, nodes: u64, load: f64) -> ClusterRow {
        ClusterRow {
            depth: 6,
            time_ns: 1000.0 / speedup,
            speedup,
            leaves: nodes,
            nodes,
            startup_idle_ns: 10.0,
            load_mean: load,
            load_min: load,
            transport: transport.into(),
            ..crate::cluster_row(model, algorithm, procs)
        }
    }

    #[test]
    fn boards_and_networks_come_from_the_rows() {
        assert_eq!(board(&row("othello", "simulated", "seq", 1, 1.0, 1, 1.0)), 8);
        assert_eq!(board(&row("othello12", "simulated", "seq", 1, 1.0, 1, 1.0)), 12);
        assert_eq!(network(&row("othello", "simulated", "seq", 1, 1.0, 1, 1.0)), "flat");
        assert_eq!(network(&row("othello", "simulated/hypercube", "seq", 1, 1.0, 1, 1.0)), "hypercube");
        assert_eq!(network(&row("othello", "simulated/fat-tree-8", "seq", 1, 1.0, 1, 1.0)), "fat-tree");
    }

    #[test]
    fn cells_and_findings_by_hand() {
        // Board 6, depth 6, flat: the baseline visits 100 nodes; PV split
        // at P = 4 visits 150 (SO 50 %) at speed-up 2, YBWC 120 at 3.
        let rows = vec![
            row("othello6", "simulated", "seq", 1, 1.0, 100, 1.0),
            row("othello6", "simulated", "pv-split", 4, 2.0, 150, 0.5),
            row("othello6", "simulated", "ybwc", 4, 3.0, 120, 0.75),
        ];
        let g = Grid::new(&rows).unwrap();
        let c = g.cell(6, 6, "flat", "pv-split", 4).unwrap();
        assert_eq!((c.speedup, c.so, c.load, c.startup), (2.0, 0.5, 0.5, 10.0 / 500.0));
        assert!(g.cell(6, 6, "hypercube", "pv-split", 4).is_none());
        let algs = algorithms(&rows.iter().collect::<Vec<_>>());
        assert_eq!(algs, ["ybwc", "pv-split"]);
        let f = findings(&g, &algs, &[6], &[6], &["flat".into()], &[4]);
        assert_eq!(
            f,
            [
                "Fastest at P = 4, depth 6, flat network: 6 × 6: YBWC (plain) (3.00).",
                "PV split against the plain YBWC: faster in 0 of 1 configurations; median speed-up ratio 0.67."
            ]
        );
    }

    #[test]
    fn a_missing_experiment_says_how_to_run_it() {
        let mut b = Builder::default();
        sections(None, &Table3::default(), &mut b).unwrap();
        assert!(b.sections[0].optional[0].contains("`make othellox`"));
        assert!(b.sections[0].missing.is_empty());
        assert!(b.sections[0].tables.is_empty());
    }

    /// Two positions by hand: position 1's baseline takes 1,000 ns and
    /// 100 nodes, position 2's 1,000 ns and 200; at P = 2 they take 500
    /// and 1,000 ns (speed-up 2 and 1: 1.5 ± 0.71), 110 and 200 nodes (SO
    /// 10 % and 0 %: 5 ± 7.1), loads 0.5 and 0.7 (idle 50 % and 30 %: 40 ±
    /// 14.1); beside the published row of P = 2, and P = 4 published only.
    #[test]
    fn table_3_by_hand() {
        let at = |tree: u32, algorithm: &str, procs: u32, speedup: f64, nodes: u64, load: f64| ClusterRow {
            tree: Some(tree),
            seed: Some(u64::from(tree)),
            ..row("othello", "simulated", algorithm, procs, speedup, nodes, load)
        };
        let ours =
            vec![at(1, "seq", 1, 1.0, 100, 1.0), at(2, "seq", 1, 1.0, 200, 1.0), at(1, "pv-split", 2, 2.0, 110, 0.5), at(2, "pv-split", 2, 1.0, 200, 0.7)];
        let paper = |procs, speedup_mean| PaperRow {
            procs,
            speedup_mean,
            speedup_sd: 0.3,
            search_overhead_mean: 8.7,
            search_overhead_sd: 17.4,
            idle_mean: 12.8,
            idle_sd: 4.9,
        };
        let t = Table3 { paper: vec![paper(2, 1.48), paper(4, 2.03)], ours };
        let got = table3_ours(&t.ours).unwrap();
        assert_eq!(got.len(), 1);
        let [su, so, idle] = got[0].1;
        let near = |x: (f64, f64), y: (f64, f64)| (x.0 - y.0).abs() < 1e-9 && (x.1 - y.1).abs() < 1e-9;
        assert!(near(su, (1.5, 0.5f64.sqrt())) && near(so, (5.0, 50f64.sqrt())) && near(idle, (40.0, 200f64.sqrt())), "{got:?}");
        let tab = table3(&t, &table3_ours(&t.ours).unwrap()).unwrap();
        let text = |c: &Cell| match c {
            Cell::Text(s) => s.clone(),
            Cell::Int(i) => i.to_string(),
            _ => String::new(),
        };
        let cells: Vec<Vec<String>> = tab.rows.iter().map(|r| r.iter().map(text).collect()).collect();
        assert_eq!(cells[0], ["2", "1.48 ± 0.30", "1.50 ± 0.71", "8.7 ± 17.4", "5.0 ± 7.1", "12.8 ± 4.9", "40.0 ± 14.1"]);
        assert_eq!(cells[1], ["4", "2.03 ± 0.30", "", "8.7 ± 17.4", "", "12.8 ± 4.9", ""]);
        assert_eq!(
            table3_findings(&t, &table3_ours(&t.ours).unwrap()),
            ["PV split in OthelloX's Table 3 setting: mean speed-up 1.50 at P = 2 (OthelloX 1.48), 1.50 at P = 2 (OthelloX 1.48)."]
        );
        // P = 4 twice as fast, P = 8 no faster: the speed-up stops at 4.
        let mut more = t.clone();
        more.ours.extend([
            at(1, "pv-split", 4, 4.0, 110, 0.5),
            at(2, "pv-split", 4, 2.0, 200, 0.5),
            at(1, "pv-split", 8, 4.0, 110, 0.2),
            at(2, "pv-split", 8, 2.0, 200, 0.2),
        ]);
        assert_eq!(
            table3_findings(&more, &table3_ours(&more.ours).unwrap()),
            [
                "PV split in OthelloX's Table 3 setting: mean speed-up 1.50 at P = 2 (OthelloX 1.48), rising to 3.00 at P = 4 (OthelloX 2.03) and no further up to P = 8: at most the widest split point's other moves are searched at once."
            ]
        );
        let mut b = Builder::default();
        sections(None, &t, &mut b).unwrap();
        assert_eq!(b.sections[0].tables[0].id, "othellox-table-3");
    }
}
