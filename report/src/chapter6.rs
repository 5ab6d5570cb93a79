//! Chapter 6 of the thesis in the report: the simulated machine's
//! uniprocessor baseline (Table 6.3), times, speed-up, search overhead and
//! CSS per scheme and processor count (Tables 6.4–6.8, Figures 6.13–6.17),
//! and where the processors' time went, state by state (not in the thesis).
//!
//! Input: every CSV under `pabsim/` (per-tree or per-configuration rows;
//! per-tree rows are summed per configuration). Speed-up and overheads are
//! computed here, in polars, against the p = 1 rows of the same ordering
//! (`docs/model.md` §5.5): `SU = t_1/t_p`, `SO = n_p/n_1 − 1`,
//! `CSS = p/(SU (SO + 1)) − 1`. When several parameter settings were run for
//! one (ordering, scheme, p), as in a sweep, the one with the highest
//! speed-up is shown — the thesis's own rule for choosing parameters.

use super::chapter4::Ch4;
use super::doc::{Cell, Section, Table};
use super::figures::{Plot, Series};
use super::load::{self, Csv, Kind, pl};
use super::published::Measures;
use super::{Builder, Published, THESIS_ORDERINGS, add_comparison, figure, missing, ordering_label};
use anyhow::Result;
use polars::prelude::*;
use std::path::Path;

/// Chapter 6's inputs, aggregated.
pub struct Ch6 {
    /// The raw rows.
    pub runs: Option<Csv>,
    /// One row per configuration, with `t1_ticks`, `n1_sim`, `su`, `so`, `css`.
    pub configs: Option<DataFrame>,
    /// Per (ordering, scheme, procs) the configuration with the highest SU.
    pub best: Option<DataFrame>,
    /// Per ordering the p = 1 run: `t1_ticks`, `n1_sim`.
    pub uni: Option<DataFrame>,
    /// Columns holding processor-ticks per state.
    pub states: Vec<String>,
}

/// Configuration columns: rows that agree on all of these are one run.
const CONFIG: [&str; 18] = load::SIM_CONFIG;

/// Whether a column holds processor-ticks spent in one state (or in memory
/// stalls or lock waits): the columns pabsim's own row type declares so
/// ([`parab::formats::SimRow::STATE_COLUMNS`]), not a guess from the name.
pub fn is_state_column(c: &str) -> bool {
    parab::formats::SimRow::STATE_COLUMNS.contains(&c)
}

/// Each run once, however many files hold it: the same tree of the same
/// configuration in two files (a shard's output beside the merged one) counts
/// once, and a per-configuration row (`tree` empty, as `pabsim` writes without
/// `--per-tree`, or a merged table) is used only for a configuration that has
/// no per-tree rows, and only the first of them. Files are read in name
/// order, so "first" is deterministic. `key`: the configuration columns
/// present, the same grouping [`load`] aggregates by.
fn distinct_runs(df: &DataFrame, names: &[String], key: &[Expr]) -> Result<DataFrame> {
    let mut lf = df.clone().lazy();
    let mut subset = key.to_vec();
    if names.iter().any(|n| n == "tree") {
        let per_tree = col("tree").is_not_null();
        let config_has_per_tree = pl(per_tree.clone().any(true).over(key), "grouping pabsim runs")?;
        lf = lf.filter(per_tree.or(config_has_per_tree.not()));
        subset.push(col("tree"));
    }
    pl(lf.unique_stable_generic(Some(subset), UniqueKeepStrategy::First).collect(), "removing duplicate pabsim runs")
}

/// Reads and aggregates chapter 6's results.
pub fn load(results: &Path) -> Result<Ch6> {
    let files = load::files(&results.join("pabsim"), |n| n.ends_with(".csv"));
    if files.is_empty() {
        return Ok(Ch6 { runs: None, configs: None, best: None, uni: None, states: vec![] });
    }
    let k = Kind::Key;
    let runs = load::read_many(&files, &[("b", k), ("wa", k), ("wb", k), ("scheme", k), ("procs", k), ("tp_ticks", Kind::Int), ("np_nodes", Kind::Int)])?;
    load::thesis_machine_only(&runs)?;
    let names: Vec<String> = runs.df.get_column_names().iter().map(|s| s.to_string()).collect();
    let group: Vec<Expr> = CONFIG.iter().filter(|c| names.iter().any(|n| n == *c)).map(|c| col(*c)).collect();
    let deduped = distinct_runs(&runs.df, &names, &group)?;
    let df = &deduped;
    let numeric = |c: &str| df.column(c).is_ok_and(|x| matches!(x.dtype(), DataType::Int64 | DataType::Float64));
    // pabsim's `time_*` columns are all the time spent in each state (its
    // memory stalls and lock waits included, so the idle loop's waits count
    // as the split state, as in the thesis's breakdown); results without
    // them have only the states' own costs beside memory and lock totals.
    let time = parab::formats::SimRow::TIME_COLUMNS;
    let states: Vec<String> = if time.iter().all(|c| numeric(c)) {
        time.iter().map(|c| c.to_string()).collect()
    } else {
        names.iter().filter(|c| is_state_column(c) && numeric(c)).cloned().collect()
    };
    let mut agg = vec![col("tp_ticks").sum(), col("np_nodes").sum()];
    agg.extend(states.iter().map(|s| col(s.as_str()).sum()));
    if names.iter().any(|n| n == "trees") {
        // Per-tree rows carry trees = 1, per-configuration rows their count.
        agg.push(col("trees").sum());
    } else if names.iter().any(|n| n == "tree") {
        agg.push(col("tree").count().cast(DataType::Int64).alias("trees"));
    }
    let configs = df.clone().lazy().group_by_stable(group.clone()).agg(agg);
    let okey: Vec<Expr> = ["b", "wa", "wb", "depth"].iter().filter(|c| names.iter().any(|n| n == *c)).map(|c| col(*c)).collect();
    let uni = configs
        .clone()
        .filter(col("procs").eq(lit("1")))
        .group_by_stable(okey.clone())
        .agg([col("tp_ticks").first().alias("t1_ticks"), col("np_nodes").first().alias("n1_sim")]);
    let f = |c: &str| col(c).cast(DataType::Float64);
    let configs = configs
        .join(uni.clone(), okey.clone(), okey.clone(), load::join_args(JoinType::Left))
        .with_column((f("t1_ticks") / f("tp_ticks")).alias("su"))
        .with_column((f("np_nodes") / f("n1_sim") - lit(1.0)).alias("so"))
        .with_column((f("procs") / (col("su") * (col("so") + lit(1.0))) - lit(1.0)).alias("css"));
    let configs = pl(configs.collect(), "aggregating pabsim runs")?;
    let uni = pl(uni.collect(), "finding the p = 1 runs")?;
    let run_key = [col("b"), col("wa"), col("wb"), col("scheme"), col("procs")];
    let rest: Vec<Expr> = configs
        .get_column_names()
        .iter()
        .map(|s| s.to_string())
        .filter(|c| !["b", "wa", "wb", "scheme", "procs"].contains(&c.as_str()))
        .map(|c| col(c.as_str()).first())
        .collect();
    // Ties in SU go to the configuration listed first.
    let mut numbered = configs.clone();
    pl(numbered.with_column(Column::new("__row".into(), (0..configs.height() as i64).collect::<Vec<_>>())), "numbering runs")?;
    let maxes = configs.clone().lazy().group_by(run_key.clone()).agg([col("su").max().alias("__max")]);
    let best = numbered
        .lazy()
        .join(maxes, run_key.clone(), run_key.clone(), load::join_args(JoinType::Inner))
        .filter(col("su").eq(col("__max")).or(col("__max").is_null()))
        .sort(["__row"], SortMultipleOptions::default())
        .group_by_stable(run_key)
        .agg(rest);
    let best = pl(best.collect(), "choosing the best configuration")?;
    Ok(Ch6 { runs: Some(runs), configs: Some(configs), best: Some(best), uni: Some(uni), states })
}

/// Our chapter 6 numbers in the shape published tables are keyed by.
pub fn measures(c: &Ch6) -> Result<Vec<Measures>> {
    let mut v = vec![];
    if let Some(u) = &c.uni {
        v.push(Measures { source: "the p = 1 runs in `pabsim/*.csv`".into(), df: u.clone() });
    }
    if let Some(b) = &c.best {
        v.push(Measures { source: "`pabsim/*.csv`, the best configuration per ordering, scheme and p".into(), df: b.clone() });
    }
    Ok(v)
}

fn params(d: &DataFrame, i: usize) -> String {
    let t = |c: &str| load::text(d, c, i).filter(|s| !s.is_empty());
    match load::text(d, "scheme", i).as_deref() {
        Some("a") => t("m_a").map(|m| format!("m_A = {m}")).unwrap_or_default(),
        Some("b") => t("m_b").map(|m| format!("m_B = {m}")).unwrap_or_default(),
        Some("c") => {
            let mut s = format!("(m_Ca, m_Cc) = ({}, {})", t("m_ca").unwrap_or_else(|| "?".into()), t("m_cc").unwrap_or_else(|| "?".into()));
            if let Some(w) = t("cut_width") {
                s.push_str(&format!(", width {w}"));
            }
            s
        }
        _ => String::new(),
    }
}

fn procs_of(d: &DataFrame, i: usize) -> f64 {
    load::text(d, "procs", i).and_then(|p| p.parse().ok()).unwrap_or(f64::NAN)
}

/// The rows of one ordering, by scheme then processors.
fn ordering_rows(best: &DataFrame, o: &(String, String, String)) -> Result<DataFrame> {
    let d = load::filter_eq(best, &[("b", &o.0), ("wa", &o.1), ("wb", &o.2)])?;
    let d = pl(
        d.lazy().with_column(col("procs").cast(DataType::Float64).alias("__p")).sort(["scheme", "__p"], SortMultipleOptions::default()).collect(),
        "sorting runs",
    )?;
    Ok(d)
}

/// Adds chapter 6's sections.
pub fn sections(c: &Ch6, ch4: &Ch4, p: &mut Published, b: &mut Builder) -> Result<()> {
    let s = table_6_3(c, ch4, p)?;
    b.sections.push(s);
    let (s, t) = tables_6_4_6_8(c, p, b)?;
    b.sections.push(s);
    b.sections.push(t);
    Ok(())
}

/// Table 6.3: the uniprocessor baseline, the search's n_1 beside the simulator's.
fn table_6_3(c: &Ch6, ch4: &Ch4, p: &mut Published) -> Result<Section> {
    let mut s = Section {
        id: "table-6-3".into(),
        chapter: 6,
        title: "Table 6.3: the uniprocessor baseline t_1, n_1".into(),
        what: "The 100 tg_1 trees of each ordering searched to depth 6 on one simulated processor: n_1 nodes examined (the same count the sequential search gives, so it must match the thesis exactly) and t_1 simulated ticks (exact up to a small per-tree start-up constant). Every speed-up below is measured against these.".into(),
        ..Default::default()
    };
    let nodes = ch4.nodes_sum.as_ref();
    if nodes.is_none() {
        s.missing.push(missing("per-tree node counts", "nodes/tg1-<b>-<wa>-<wb>-d6.csv", "make chapter4"));
    }
    if c.uni.as_ref().is_none_or(|u| u.height() == 0) {
        s.missing.push(missing("uniprocessor simulations", "pabsim/*.csv with procs = 1", "make chapter6"));
    }
    let mut ords: Vec<(String, String, String)> = vec![];
    for f in [nodes, c.uni.as_ref()].into_iter().flatten() {
        ords.extend(load::orderings(f));
    }
    ords.sort_by_key(|o| super::ordering_rank(&o.0, &o.1, &o.2));
    ords.dedup();
    if !ords.is_empty() {
        let mut rows = vec![];
        for o in &ords {
            let eq = [("b", o.0.as_str()), ("wa", o.1.as_str()), ("wb", o.2.as_str())];
            let n = nodes.map(|n| load::filter_eq(n, &eq)).transpose()?;
            let u = c.uni.as_ref().map(|u| load::filter_eq(u, &eq)).transpose()?;
            let nv = |c: &str| n.as_ref().filter(|d| d.height() > 0).and_then(|d| load::num(d, c, 0));
            let uv = |c: &str| u.as_ref().filter(|d| d.height() > 0).and_then(|d| load::num(d, c, 0));
            let per_node = match (uv("t1_ticks"), uv("n1_sim")) {
                (Some(t), Some(n)) if n > 0.0 => Cell::Num(t / n, 4),
                _ => Cell::Empty,
            };
            rows.push(vec![
                Cell::Text(ordering_label(&o.0, &o.1, &o.2)),
                Cell::number(nv("trees"), 0),
                Cell::number(nv("depth"), 0),
                Cell::number(nv("n1_nodes"), 0),
                Cell::number(uv("n1_sim"), 0),
                Cell::number(uv("t1_ticks"), 0),
                per_node,
            ]);
            if let Some(d) = n.as_ref().filter(|d| d.height() > 0) {
                s.settings.push(format!(
                    "{}: tg_1 seeds {}..{} (`data/tg1.txt`), `treegen --set tg1 --ordering {},{},{} --depth {} | fbest --per-tree`.",
                    ordering_label(&o.0, &o.1, &o.2),
                    load::text(d, "first_seed", 0).unwrap_or_default(),
                    load::text(d, "last_seed", 0).unwrap_or_default(),
                    o.0,
                    o.1,
                    o.2,
                    load::text(d, "depth", 0).unwrap_or_default()
                ));
            }
        }
        s.tables.push(Table {
            id: "table-6-3".into(),
            caption: "Table 6.3: uniprocessor node counts and simulated time".into(),
            header: ["ordering", "trees", "depth", "n_1 (search)", "n_1 (simulator)", "t_1 (ticks)", "ticks per node"].map(String::from).to_vec(),
            rows,
            note: "n_1 (search): the sum of `nodes` in `nodes/*.csv` (`fbest --per-tree`). n_1 and t_1 (simulator): the p = 1 rows of `pabsim/*.csv`.".into(),
        });
    }
    for cmp in p.take(&["6.3"]) {
        add_comparison(&mut s, cmp);
    }
    Ok(s)
}

/// Tables 6.4–6.8 (one per ordering, [`ordering_table`]) with Figures
/// 6.13–6.17, and the time-per-state section built from the same runs.
fn tables_6_4_6_8(c: &Ch6, p: &mut Published, b: &mut Builder) -> Result<(Section, Section)> {
    let mut s = Section {
        id: "tables-6-4-6-8".into(),
        chapter: 6,
        title: "Tables 6.4–6.8, Figures 6.13–6.17: speed-up, search overhead and CSS".into(),
        what: "The simulated machine searches the same trees with 12, 24 and 48 processors, choosing split points by scheme A (YBWC-like), B (DTS-like) or C (the network). For each run: time t_p, speed-up SU = t_1/t_p, nodes n_p, search overhead SO = n_p/n_1 − 1, and the extra time per node spent on communication, synchronisation and splitting, CSS = p/(SU (SO+1)) − 1. The machine model has details the thesis leaves open, so expect the same shape — who wins where, how SU grows with p — rather than the same digits.".into(),
        ..Default::default()
    };
    let mut t = Section {
        id: "time-per-state".into(),
        chapter: 0,
        title: "Where the processors' time went (not in the thesis)".into(),
        what: "For each simulated run, the processor-ticks spent in each search state, with memory stalls and lock waits, as shares of the total. The thesis explains its worst results by this breakdown (the split state taking over 60% of the time with 48 processors on (20, 69, 19)) but never tabulates it.".into(),
        ..Default::default()
    };
    match (&c.best, &c.runs) {
        (Some(best), Some(runs)) => {
            let ords = load::orderings(best);
            for (oi, o) in ords.iter().enumerate() {
                let d = ordering_rows(best, o)?;
                let thesis_i = THESIS_ORDERINGS.iter().position(|t| (t.0.to_string(), t.1.to_string(), t.2.to_string()) == *o);
                let (tn, fn_) = match thesis_i {
                    Some(i) => (format!("Table 6.{}", 4 + i), format!("Figure 6.{}", 13 + i)),
                    None => (format!("Table (extra {})", oi + 1), format!("Figure (extra {})", oi + 1)),
                };
                let label = ordering_label(&o.0, &o.1, &o.2);
                let id = o.0.clone() + "-" + &o.1 + "-" + &o.2;
                s.tables.push(ordering_table(&d, o, thesis_i, &tn, runs));
                // Who is fastest at the largest p.
                let maxp = (0..d.height()).map(|i| procs_of(&d, i)).fold(f64::NAN, f64::max);
                let mut at: Vec<(String, f64)> = (0..d.height())
                    .filter(|&i| procs_of(&d, i) == maxp)
                    .filter_map(|i| Some((load::text(&d, "scheme", i)?.to_uppercase(), load::num(&d, "su", i)?)))
                    .collect();
                at.sort_by(|a, b| b.1.total_cmp(&a.1));
                if at.len() > 1 {
                    let list: Vec<String> = at.iter().map(|(s, v)| format!("{s} {v:.2}")).collect();
                    s.findings.push(format!("{label} at p = {maxp}: scheme {} has the highest speed-up (SU: {}).", at[0].0, list.join(", ")));
                }
                // Figure: SU, SO, CSS against p, per scheme.
                let schemes: Vec<String> = {
                    // The p = 1 run (scheme `-`) is each scheme's first point, not a series.
                    let mut v: Vec<String> = (0..d.height()).filter_map(|i| load::text(&d, "scheme", i)).filter(|s| !s.is_empty() && s != "-").collect();
                    v.dedup();
                    v
                };
                let has_baseline = (0..d.height()).any(|i| load::num(&d, "t1_ticks", i).is_some());
                let mut panels = vec![];
                for (m, title) in [("su", "speed-up SU"), ("so", "search overhead SO"), ("css", "CSS")] {
                    let series = schemes
                        .iter()
                        .filter_map(|sc| {
                            let mut pts: Vec<(f64, f64)> = (0..d.height())
                                .filter(|&i| load::text(&d, "scheme", i).as_ref() == Some(sc))
                                .filter_map(|i| Some((procs_of(&d, i), load::num(&d, m, i)?)))
                                .collect();
                            // Every scheme starts from the one uniprocessor run: SU = 1, SO = CSS = 0.
                            if has_baseline && !pts.iter().any(|p| p.0 == 1.0) {
                                pts.insert(0, (1.0, if m == "su" { 1.0 } else { 0.0 }));
                            }
                            (!pts.is_empty()).then(|| Series { name: format!("scheme {}", sc.to_uppercase()), points: pts })
                        })
                        .collect();
                    panels.push(Plot::Lines {
                        title: format!("{title}, {label}"),
                        x_label: "processors p".into(),
                        y_label: title.into(),
                        log_y: false,
                        series,
                    });
                }
                let fid = format!("figure-6-{}", thesis_i.map(|i| (13 + i).to_string()).unwrap_or_else(|| format!("x-{id}")));
                let f =
                    figure(&fid, &format!("{fn_}: speed-up, search overhead and CSS against processors, ordering {label}, per scheme."), Plot::Row(panels))?;
                b.add_figure(&mut s, f);
                // Time per state.
                if !c.states.is_empty() {
                    let mut bars = vec![];
                    for i in 0..d.height() {
                        let vals: Vec<f64> = c.states.iter().map(|st| load::num(&d, st, i).unwrap_or(0.0)).collect();
                        let total: f64 = vals.iter().sum();
                        if total > 0.0 {
                            bars.push((
                                format!(
                                    "{} p={}",
                                    load::text(&d, "scheme", i).unwrap_or_default().to_uppercase(),
                                    load::text(&d, "procs", i).unwrap_or_default()
                                ),
                                vals.iter().map(|v| v / total).collect(),
                            ));
                        }
                    }
                    if !bars.is_empty() {
                        let f = figure(
                            &format!("figure-time-{id}"),
                            &format!("Share of processor time per state, ordering {label}, each run shown in the table above."),
                            Plot::Stacked { title: format!("where the time went, {label}"), parts: c.states.clone(), rows: bars },
                        )?;
                        b.add_figure(&mut t, f);
                    }
                }
            }
            if c.states.is_empty() {
                t.missing.push(format!(
                    "The pabsim results have none of the per-state tick columns ({}); rerun `make chapter6` with a pabsim that writes them.",
                    parab::formats::SimRow::STATE_COLUMNS.map(|c| format!("`{c}`")).join(", ")
                ));
            }
            let depth = load::text(best, "depth", 0).unwrap_or_else(|| "?".into());
            s.settings.push(format!(
                "Seed set tg_1 (`data/tg1.txt`), depth {depth}; `pabsim --procs 1,12,24,48 --scheme a|b|c` with the parameters of the thesis (`docs/model.md` §6) shown per row; {} configurations in `{}`.",
                c.configs.as_ref().map(|x| x.height()).unwrap_or(0),
                runs.name
            ));
        }
        _ => {
            s.missing.push(missing("parallel simulations", "pabsim/*.csv", "make chapter6"));
            t.missing.push(missing("parallel simulations", "pabsim/*.csv", "make chapter6"));
        }
    }
    for cmp in p.take(&["6.4", "6.5", "6.6", "6.7", "6.8"]) {
        add_comparison(&mut s, cmp);
    }
    Ok((s, t))
}

/// Table 6.(4 + i) for the thesis's i-th ordering (an extra table for another
/// ordering): the best configuration per scheme and p, citing only the files
/// that hold runs of that ordering.
fn ordering_table(d: &DataFrame, o: &(String, String, String), thesis_i: Option<usize>, tn: &str, runs: &Csv) -> Table {
    let label = ordering_label(&o.0, &o.1, &o.2);
    let mut rows = vec![];
    for i in 0..d.height() {
        rows.push(vec![
            Cell::Text(load::text(d, "scheme", i).unwrap_or_default().to_uppercase()),
            Cell::Text(load::text(d, "procs", i).unwrap_or_default()),
            Cell::Text(params(d, i)),
            Cell::number(load::num(d, "tp_ticks", i), 0),
            Cell::number(load::num(d, "su", i), 2),
            Cell::number(load::num(d, "np_nodes", i), 0),
            Cell::number(load::num(d, "so", i), 3),
            Cell::number(load::num(d, "css", i), 3),
        ]);
    }
    let id = o.0.clone() + "-" + &o.1 + "-" + &o.2;
    Table {
        id: format!("table-6-{}", thesis_i.map(|i| (4 + i).to_string()).unwrap_or_else(|| format!("x-{id}"))),
        caption: format!("{tn}: ordering {label}"),
        header: ["scheme", "p", "parameters", "t_p (ticks)", "SU", "n_p", "SO", "CSS"].map(String::from).to_vec(),
        rows,
        note: format!("From {}.", runs.sources_note(&[("b", &o.0), ("wa", &o.1), ("wb", &o.2)])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_columns() {
        for c in ["ticks_split", "ticks_expand", "ticks_exit", "mem_stall", "lock_wait"] {
            assert!(is_state_column(c), "{c}");
        }
        for c in ["tp_ticks", "t1_ticks", "np_nodes", "procs", "su", "split_ticks", "ticks_idle"] {
            assert!(!is_state_column(c), "{c}");
        }
    }
}
