//! Beyond the thesis: the parallel searches on this machine's real threads
//! (`psearch`) beside the simulator's prediction for the same trees
//! (`pabsim`).
//!
//! Input: `real/psearch.csv` (per-configuration rows of `psearch` with
//! `--node-cost`), `real/pabsim.csv` (per-configuration rows of `pabsim`
//! for the same trees, processor counts and algorithms) and
//! `real/bare.csv` (the one-thread run without busy work), all written by
//! `make real`. A configuration of one is matched to the other's by its
//! configuration columns ([`parab::policy::Columns`]), its processor
//! count and its trees' ordering and depth.

use super::Builder;
use super::doc::{Cell, Section, Table};
use super::keyed::{self, key};
use super::load::rows;
use anyhow::Result;
use parab::formats::{ClusterRow, SimRow};
use parab::request::real::RealRow;
use std::path::Path;

/// What the section says before `make real` has run.
pub const OPTIONAL: &str = "No results of real threads yet: run `make real` (PROCS=1,2 by default; PROCS=1,2,4,...,64 on a larger machine), then `make report` (`make all` does both).";

/// The results of `make real`.
pub struct Real {
    /// `psearch`'s per-configuration rows.
    pub real: Vec<RealRow>,
    /// `pabsim`'s per-configuration rows for the same trees.
    pub sim: Vec<SimRow>,
    /// The one-thread run without busy work.
    pub bare: Vec<RealRow>,
    /// The cluster's algorithms on real MPI ranks (empty without Open MPI).
    pub mpi: Vec<ClusterRow>,
    /// The simulated cluster's prediction for them, with the host's costs.
    pub mpi_sim: Vec<ClusterRow>,
}

/// Reads the results; `None` when `make real` has not run.
pub fn load(results: &Path) -> Result<Option<Real>> {
    let dir = results.join("real");
    let real = dir.join("psearch.csv");
    if !real.exists() {
        return Ok(None);
    }
    Ok(Some(Real {
        real: rows(&real, false)?,
        sim: rows(&dir.join("pabsim.csv"), true)?,
        bare: rows(&dir.join("bare.csv"), true)?,
        mpi: rows(&dir.join("mpi.csv"), true)?,
        mpi_sim: rows(&dir.join("mpi-sim.csv"), true)?,
    }))
}

/// The simulator's row for each real row: the first with the same trees,
/// processors and configuration (the model and the configuration's columns
/// compared as their JSON text).
fn predictions<'a>(real: &[RealRow], sim: &'a [SimRow]) -> Result<Vec<Option<&'a SimRow>>> {
    macro_rules! on {
        ($rs:expr) => {{
            let rs = $rs;
            vec![
                key("model", rs, |r| keyed::json(&r.model)),
                key("b", rs, |r| r.b),
                key("wa", rs, |r| r.wa),
                key("wb", rs, |r| r.wb),
                key("depth", rs, |r| r.depth),
                key("procs", rs, |r| r.procs),
                key("trees", rs, |r| r.trees),
                key("configuration", rs, |r| keyed::json(&r.columns())),
            ]
        }};
    }
    Ok(keyed::first_match(on!(real), on!(sim))?.into_iter().map(|m| m.map(|i| &sim[i])).collect())
}

/// An algorithm as the table names it.
fn name(r: &RealRow) -> String {
    match (r.policy.as_str(), r.scheme.as_str()) {
        ("-", _) => "sequential".into(),
        (p, "-") => p.into(),
        (p, s) => format!("{p}, scheme {s}"),
    }
}

/// Nanoseconds per node of a row.
fn per_node(r: &RealRow) -> f64 {
    r.wall_ns as f64 / r.nodes.max(1) as f64
}

/// The section "Real processors".
pub fn sections(data: Option<&Real>, b: &mut Builder) -> Result<()> {
    let mut s = Section {
        id: "real-processors".into(),
        chapter: 7,
        title: "Real processors".into(),
        what: "The simulator's parallel searches run on this machine's OS threads (psearch), on the same trees as the simulator's prediction (pabsim), with busy work per node so that a node costs about what an engine's does. Speed-up SU = t_1/t_p of wall time, search overhead SO = n_p/n_1 − 1, both against the one-thread run of the same trees; the simulated ones against the simulator's p = 1 run. Every real run returned the sequential root value and move (psearch checks each).".into(),
        ..Default::default()
    };
    let Some(data) = data else {
        s.optional.push(OPTIONAL.into());
        b.sections.push(s);
        return Ok(());
    };
    let mut t = Table {
        id: "real-vs-simulated".into(),
        caption: "Real threads against the simulator's prediction, per algorithm and processor count".into(),
        header: ["trees", "algorithm", "p", "SU real", "SU simulated", "SO real", "SO simulated", "idle share", "lock share", "host load", "free cores", "note"].map(String::from).to_vec(),
        note: "Idle and lock shares: the threads' summed time idle (looking for or waiting for work) and waiting on contended locks, as a share of p · t_p. Host load: the 1-minute load average just before the timed runs (the highest over the row's trees); free cores: the host's cores less the other work runnable then (the fewest). Oversubscribed: more threads than free cores (run for correctness; its timing measures sharing, not speed).".into(),
        ..Default::default()
    };
    let mut held = vec![];
    for (r, sim) in data.real.iter().zip(predictions(&data.real, &data.sim)?) {
        let trees = match (r.b, r.wa, r.wb) {
            (Some(b_), Some(wa), Some(wb)) => format!("({b_}, {wa}, {wb}) d{} × {}", r.depth, r.trees),
            _ => format!("{} d{} × {}", r.model, r.depth, r.trees),
        };
        let share = |x: u64| Some(x as f64 / (r.procs as f64 * r.wall_ns.max(1) as f64));
        t.rows.push(vec![
            Cell::Text(trees),
            Cell::Text(name(r)),
            Cell::Int(r.procs as i64),
            Cell::number(r.su, 2),
            Cell::number(sim.and_then(|s| s.su), 2),
            Cell::number(r.so, 3),
            Cell::number(sim.and_then(|s| s.so), 3),
            Cell::number(share(r.time_idle_ns), 3),
            Cell::number(share(r.time_lock_ns), 3),
            Cell::number(r.host_load, 2),
            Cell::Text(r.free_cores.map_or("—".into(), |f| format!("{f} of {}", r.cores))),
            Cell::Text(if r.oversubscribed { "oversubscribed".into() } else { String::new() }),
        ]);
        if r.procs > 1
            && !r.oversubscribed
            && let (Some(real), Some(pred)) = (r.su, sim.and_then(|s| s.su))
        {
            held.push((name(r), r.procs, real, pred));
        }
    }
    s.tables.push(t);
    s.findings.push(free_cores(data.real.iter().map(|r| (r.oversubscribed, r.free_cores)), "configurations of real threads", "thread"));
    // Which algorithm wins here, at the largest p the host runs without oversubscription.
    if let Some(pmax) = held.iter().map(|h| h.1).max() {
        let mut at: Vec<&(String, u32, f64, f64)> = held.iter().filter(|h| h.1 == pmax).collect();
        at.sort_by(|a, b| b.2.total_cmp(&a.2));
        let list: Vec<String> = at.iter().map(|h| format!("{} {:.2} (simulated {:.2})", h.0, h.2, h.3)).collect();
        s.findings.push(format!("At p = {pmax} on this host, {} is fastest on real threads (SU: {}).", at[0].0, list.join("; ")));
        let mut by_sim = at.clone();
        by_sim.sort_by(|a, b| b.3.total_cmp(&a.3));
        s.findings.push(format!(
            "The simulator ranks {} first at p = {pmax}; {}.",
            by_sim[0].0,
            if by_sim[0].0 == at[0].0 { "the real ranking agrees" } else { "the real ranking differs" }
        ));
    }
    if let Some(one) = data.real.iter().find(|r| r.procs == 1) {
        let bare = data.bare.iter().find(|r| r.procs == 1);
        s.settings.push(format!(
            "Host: {} cores. Measured cost per node at one thread: {:.0} ns with --node-cost {} ns of busy work{}.",
            one.cores,
            per_node(one),
            one.node_cost_ns,
            bare.map_or(String::new(), |b| format!(", {:.1} ns without it (the search alone)", per_node(b)))
        ));
        if let Some(s1) = data.sim.iter().find(|s| s.procs == 1) {
            s.settings
                .push(format!("The simulator's uniprocessor run on the same trees: {:.1} ticks per node.", s1.tp_ticks as f64 / s1.np_nodes.max(1) as f64));
        }
    }
    mpi_table(data, &mut s);
    s.settings.push("Commands: `make real` (PROCS, REAL_TREES, NODE_COST, REPEAT set the processor counts, trees, busy work per node and runs per configuration; timings are the median of REPEAT runs on a machine others may share).".into());
    b.sections.push(s);
    Ok(())
}

/// How many timed runs lacked a free core per thread (or rank): `runs`
/// gives each row's `oversubscribed` and `free_cores`.
fn free_cores(runs: impl Iterator<Item = (bool, Option<u32>)>, what: &str, per: &str) -> String {
    let (mut n, mut over, mut known) = (0, 0, 0);
    for (o, f) in runs {
        n += 1;
        over += usize::from(o);
        known += usize::from(f.is_some());
    }
    let basis =
        if known == n { "its free cores: the cores less the host's other runnable work just before the run" } else { "the host's cores, its load unknown" };
    match over {
        0 => format!("Every one of the {n} {what} had a free core per {per} ({basis})."),
        _ => format!(
            "{over} of the {n} {what} ran without a free core per {per} ({basis}): marked oversubscribed, their timings measure sharing with other work, not speed."
        ),
    }
}

/// The cluster's algorithms on real MPI ranks beside the simulated
/// cluster's prediction for the same trees and counts.
fn mpi_table(data: &Real, s: &mut Section) {
    if data.mpi.is_empty() {
        s.optional.push("No MPI runs: `make real` runs the cluster's algorithms on 1, 2, 4 and 8 MPI ranks where Open MPI and libclang are installed (`apt-get install libopenmpi-dev openmpi-bin libclang-dev clang`).".into());
        return;
    }
    let mut t = Table {
        id: "real-mpi".into(),
        caption: "The message-passing searches on real MPI ranks against the simulated cluster's prediction (the same trees, with this host's measured costs per node and per message)".into(),
        header: ["algorithm", "ranks", "time real (ms)", "time predicted (ms)", "speed-up real", "speed-up predicted", "nodes real / predicted", "messages real", "messages predicted", "load real / predicted", "host load", "free cores", "note"].map(String::from).to_vec(),
        note: "Speed-up against the one-rank sequential baseline of the same run (real) or of the simulation (predicted). Load: OthelloX's LD, the mean share of the search time a process was busy (a rank: its time not waiting for a message; docs/formats.md). Host load and free cores: the busiest host's just before the job's searches. Oversubscribed: more ranks × threads than a host's free cores; the simulator gives every process a core of its own, so there the prediction is not the host's.".into(),
        ..Default::default()
    };
    for r in data.mpi.iter().filter(|r| r.procs > 1) {
        let p = data.mpi_sim.iter().find(|p| {
            (p.model.as_str(), p.b, p.depth, p.trees, p.algorithm.as_str(), p.procs) == (r.model.as_str(), r.b, r.depth, r.trees, r.algorithm.as_str(), r.procs)
        });
        t.rows.push(vec![
            Cell::Text(r.algorithm.clone()),
            Cell::Int(r.procs as i64),
            Cell::Num(r.time_ns / 1e6, 2),
            Cell::number(p.map(|p| p.time_ns / 1e6), 2),
            Cell::Num(r.speedup, 2),
            Cell::number(p.map(|p| p.speedup), 2),
            Cell::number(p.map(|p| r.nodes as f64 / p.nodes.max(1) as f64), 3),
            Cell::Int(r.messages as i64),
            Cell::number(p.map(|p| p.messages as f64), 0),
            Cell::Text(format!("{:.2} / {}", r.load_mean, p.map_or("—".into(), |p| format!("{:.2}", p.load_mean)))),
            Cell::number(r.host_load, 2),
            Cell::Text(r.free_cores.zip(r.cores).map_or("—".into(), |(f, c)| format!("{f} of {c}"))),
            Cell::Text(if r.oversubscribed == Some(true) { "oversubscribed".into() } else { String::new() }),
        ]);
    }
    s.tables.push(t);
    let ranks = data.mpi.iter().filter(|r| r.procs > 1);
    s.findings.push(free_cores(ranks.map(|r| (r.oversubscribed == Some(true), r.free_cores)), "runs on MPI ranks", "rank and thread"));
    if let Some(f) = within(data) {
        s.findings.push(f);
    }
}

/// The real time over the prediction beyond which a run departs from it
/// (every algorithm within 15% at 2 ranks, or why not).
const WITHIN: f64 = 1.15;

/// Which algorithms ran within [`WITHIN`] of their prediction at 2 ranks,
/// not oversubscribed, and which did not, with the ratio of each.
fn within(data: &Real) -> Option<String> {
    let (mut near, mut far) = (vec![], vec![]);
    for r in data.mpi.iter().filter(|r| r.procs == 2 && r.oversubscribed != Some(true)) {
        let Some(p) = data.mpi_sim.iter().find(|p| {
            (p.model.as_str(), p.b, p.depth, p.trees, p.algorithm.as_str(), p.procs) == (r.model.as_str(), r.b, r.depth, r.trees, r.algorithm.as_str(), r.procs)
        }) else {
            continue;
        };
        let ratio = r.time_ns / p.time_ns.max(1.0);
        if ratio <= WITHIN { near.push(r.algorithm.clone()) } else { far.push(format!("{} ({ratio:.2})", r.algorithm)) }
    }
    if near.is_empty() && far.is_empty() {
        return None;
    }
    let list = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    let mut f = format!("At 2 ranks with a core each, real time was within 15% of the prediction for {}", list(&near));
    if !far.is_empty() {
        f += &format!(
            "; beyond it for {} (real over predicted time). The prediction charges this host's measured costs of a leaf, of any other node, of a message and of a wake-up's look for messages (scripts/real-mpi.sh); what it lacks, where known (docs/findings.md, \"At 2 ranks on a quiet host\"): a search's own cost per node beyond its share of leaves (YBWC's frames: 12-13 ns a node against the model's 11.4 in the traces), the MPI library's progress on buffered sends, and a loaded host's delay in running a waiting rank (the rows' free_cores and oversubscribed)",
            far.join(", ")
        );
    }
    Some(f + ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster_row(algorithm: &str, procs: u32, time_ns: f64, nodes: u64, transport: &str) -> ClusterRow {
        let mpi = transport == "mpi";
        ClusterRow {
            b: Some(32),
            depth: 5,
            trees: 2,
            time_ns,
            speedup: 2e6 / time_ns,
            leaves: nodes / 2,
            nodes,
            load_mean: 1.0 / procs as f64 + 0.5,
            load_min: 0.5,
            load_sd: 0.25,
            messages: 10 * procs as u64,
            transport: transport.into(),
            cores: mpi.then_some(2),
            host_load: mpi.then_some(0.5),
            free_cores: mpi.then_some(2),
            oversubscribed: mpi.then_some(procs > 2),
            threads: mpi.then_some(1),
            ..crate::cluster_row("exponential", algorithm, procs)
        }
    }

    #[test]
    fn mpi_runs_stand_beside_their_prediction() {
        let mut data = Real { real: vec![], sim: vec![], bare: vec![], mpi: vec![], mpi_sim: vec![] };
        let mut s = Section::default();
        mpi_table(&data, &mut s);
        assert!(s.tables.is_empty() && s.optional[0].contains("Open MPI"));
        data.mpi = vec![cluster_row("seq", 1, 2e6, 1000, "mpi"), cluster_row("ybwc", 2, 1e6, 1100, "mpi"), cluster_row("ybwc", 4, 4e6, 1200, "mpi")];
        data.mpi_sim = vec![ClusterRow { messages: 15, ..cluster_row("ybwc", 2, 1.25e6, 1000, "simulated") }];
        let mut s = Section::default();
        mpi_table(&data, &mut s);
        let rows: Vec<Vec<String>> = s.tables[0].rows.iter().map(|r| r.iter().map(|c| c.plain()).collect()).collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0][..12], ["ybwc", "2", "1.00", "1.25", "2.00", "1.60", "1.100", "20", "15", "1.00 / 1.00", "0.50", "2 of 2"]);
        assert_eq!((rows[1][3].as_str(), rows[1][9].as_str(), rows[1][12].as_str()), ("—", "0.75 / —", "oversubscribed"));
        assert!(s.findings[0].starts_with("1 of the 2 runs on MPI ranks ran without a free core per rank and thread (its free cores:"), "{}", s.findings[0]);
        assert_eq!(s.findings[1], "At 2 ranks with a core each, real time was within 15% of the prediction for ybwc.");
        // One beyond 15%: named with its ratio.
        data.mpi.push(cluster_row("even-split", 2, 3e6, 1000, "mpi"));
        data.mpi_sim.push(cluster_row("even-split", 2, 2e6, 1000, "simulated"));
        let f = within(&data).unwrap();
        assert!(
            f.starts_with("At 2 ranks with a core each, real time was within 15% of the prediction for ybwc; beyond it for even-split (1.50) (real over"),
            "{f}"
        );
    }

    /// The sentence counts the rows flagged, and says what it counted by.
    #[test]
    fn runs_without_a_free_core_are_counted() {
        let t = |runs: &[(bool, Option<u32>)]| free_cores(runs.iter().copied(), "configurations of real threads", "thread");
        assert_eq!(
            t(&[(false, Some(2)), (true, Some(1)), (true, Some(0))]),
            "2 of the 3 configurations of real threads ran without a free core per thread (its free cores: the cores less the host's other runnable work just before the run): marked oversubscribed, their timings measure sharing with other work, not speed."
        );
        assert_eq!(
            t(&[(false, None), (false, None)]),
            "Every one of the 2 configurations of real threads had a free core per thread (the host's cores, its load unknown)."
        );
    }

    #[test]
    fn a_missing_run_says_how_to_make_it() {
        let mut b = Builder::default();
        sections(None, &mut b).unwrap();
        assert_eq!(b.sections.len(), 1);
        assert_eq!(b.sections[0].title, "Real processors");
        assert!(b.sections[0].missing.is_empty());
        assert!(b.sections[0].optional[0].contains("run `make real`"));
    }
}
