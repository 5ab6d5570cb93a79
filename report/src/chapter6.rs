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
use super::figures::{Mark, Plot, Series};
use super::load::{self, Csv, Schema, pl};
use super::published::{Comparison, Measures};
use super::summary;
use super::{Builder, Published, THESIS_ORDERINGS, add_comparison, figure, missing, ordering_label};
use anyhow::Result;
use parab::formats::SimRow;
use parab::formats::aggregate::Summed;
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
const CONFIG: [&str; load::SIM_CONFIG.len()] = load::SIM_CONFIG;

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
    let runs = load::read_many(&files, &Schema::of::<SimRow>(), &["b", "wa", "wb", "scheme", "procs", "tp_ticks", "np_nodes"])?;
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
    // Each configuration's trees summed by the library's rule (`SimRow::COLUMNS`).
    let mut wanted = vec!["tp_ticks", "np_nodes"];
    wanted.extend(states.iter().map(String::as_str));
    let mut tree_count = vec![];
    if names.iter().any(|n| n == "trees") {
        // Per-tree rows carry trees = 1, per-configuration rows their count.
        wanted.push("trees");
    } else if names.iter().any(|n| n == "tree") {
        tree_count.push(col("tree").count().cast(DataType::Int64).alias("trees"));
    }
    summary::refuse_overflow(&runs.df, &wanted, |i| runs.at(i))?;
    let configs = summary::summarize(df, &group, SimRow::COLUMNS, &wanted, tree_count)?;
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
        v.push(Measures { source: "`pabsim/*.csv`, the best configuration per ordering, scheme and p".into(), df: with_params(b)? });
    }
    Ok(v)
}

/// Adds `param1` and `param2` in the thesis's sense (Tables 6.4–6.8): m_A,
/// m_B or m_Ca by scheme, and m_Cc for scheme C; empty where none applies.
fn with_params(d: &DataFrame) -> Result<DataFrame> {
    let text = |c: &str| if load::has(d, c) { col(c).cast(DataType::String).fill_null(lit("")) } else { lit("") };
    let is = |x: &str| col("scheme").eq(lit(x.to_string()));
    let p1 = when(is("a")).then(text("m_a")).when(is("b")).then(text("m_b")).when(is("c")).then(text("m_ca")).otherwise(lit(""));
    let p2 = when(is("c")).then(text("m_cc")).otherwise(lit(""));
    pl(d.clone().lazy().with_columns([p1.alias("param1"), p2.alias("param2")]).collect(), "naming the parameters")
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

/// Adds chapter 6's sections, and the time per state beyond the thesis.
pub fn sections(c: &Ch6, ch4: &Ch4, p: &mut Published, b: &mut Builder) -> Result<()> {
    let s = table_6_3(c, ch4, p)?;
    b.sections.push(s);
    tables_6_4_6_8(c, p, b)
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
            groups: vec![],
            note: "n_1 (search): the sum of `nodes` in `nodes/*.csv` (`fbest --per-tree`). n_1 and t_1 (simulator): the p = 1 rows of `pabsim/*.csv`.".into(),
        });
    }
    for cmp in p.take(&["6.3"]) {
        add_comparison(&mut s, cmp)?;
    }
    Ok(s)
}

/// The schemes in the order of their colours in every chapter 6 figure.
const SCHEMES: [&str; 3] = ["a", "b", "c"];

fn scheme_colour(scheme: &str) -> usize {
    SCHEMES.iter().position(|s| *s == scheme).unwrap_or(SCHEMES.len())
}

/// A friendly name for a time column: `time_split` → `split`.
fn state_label(c: &str) -> String {
    match c {
        "mem_stall" => "memory stalls".into(),
        "lock_wait" => "lock waits".into(),
        _ => c.trim_start_matches("time_").trim_start_matches("ticks_").to_string(),
    }
}

/// One ordering of chapter 6: our rows, the thesis's comparison, and names.
struct OrderingItem<'a> {
    o: (String, String, String),
    /// Our best configuration per scheme and p (sorted), if any.
    rows: Option<DataFrame>,
    /// The thesis's table of this ordering, if we hold it.
    thesis: Option<&'a Comparison>,
    /// "Table 6.4" (or an extra table's name) and "Figure 6.13".
    table_name: String,
    figure_name: String,
    /// Suffix of the page ids: `6-4` or `x-8-50-50`.
    id: String,
    /// The figure's id: `figure-6-13` or `figure-x-8-50-50`.
    figure_id: String,
}

/// Tables 6.4–6.8 and Figures 6.13–6.17: an introduction, then one section
/// per ordering (ours beside the thesis's table, and the figure with the
/// thesis's points), then the time per state (beyond the thesis).
fn tables_6_4_6_8(c: &Ch6, p: &mut Published, b: &mut Builder) -> Result<()> {
    let mut s = Section {
        id: "tables-6-4-6-8".into(),
        chapter: 6,
        title: "Tables 6.4–6.8, Figures 6.13–6.17: speed-up, search overhead and CSS".into(),
        what: "The simulated machine searches the same trees with 12, 24 and 48 processors, choosing split points by scheme A (YBWC-like), B (DTS-like) or C (the network), each with the parameters the thesis chose for that cell. For each run: time t_p, speed-up SU = t_1/t_p, nodes n_p, search overhead SO = n_p/n_1 − 1, and the extra time per node spent on communication, synchronisation and splitting, CSS = p/(SU (SO+1)) − 1. The machine model has details the thesis leaves open, so expect the same shape — who wins where, how SU grows with p — rather than the same digits. One section per ordering follows: ours beside the thesis's table, and the figure with the thesis's points beside our lines.".into(),
        ..Default::default()
    };
    let mut t = Section { id: "time-per-state".into(), chapter: 7, title: "Where the processors' time went".into(), what: String::new(), ..Default::default() };
    let items = ordering_items(c, p)?;
    match (&c.best, &c.runs) {
        (Some(best), Some(runs)) => {
            let depth = load::text(best, "depth", 0).unwrap_or_else(|| "?".into());
            s.settings.push(format!(
                "Seed set tg_1 (`data/tg1.txt`), depth {depth}; `pabsim --procs 12,24,48 --scheme a|b|c --thesis-params` against the p = 1 run (`--baseline`); {} configurations in `{}`.",
                c.configs.as_ref().map(|x| x.height()).unwrap_or(0),
                runs.name
            ));
        }
        _ => {
            s.missing.push(missing("parallel simulations", "pabsim/*.csv", "make chapter6"));
            t.missing.push(missing("parallel simulations", "pabsim/*.csv", "make chapter6"));
        }
    }
    fastest_findings(&items, &mut s);
    b.sections.push(s);

    // One section per ordering, and its time per state.
    for it in &items {
        ordering_section(c, it, b, &mut t)?;
    }
    let time = parab::formats::SimRow::TIME_COLUMNS;
    t.what = if c.states.iter().any(|s| time.contains(&s.as_str())) {
        "For each simulated run of the tables above, the share of all processor time (p · t_p) spent in each search state. A state's memory stalls and lock waits count in that state, and the idle loop's waits in the split state, as in the thesis's own breakdown: it explains its worst results by the split state taking over 60% of the time with 48 processors on (20, 69, 19), but never tabulates the breakdown.".into()
    } else {
        "For each simulated run of the tables above, the share of processor time spent in each search state, with memory stalls and lock waits as parts of their own. The thesis explains its worst results by this breakdown (the split state taking over 60% of the time with 48 processors on (20, 69, 19)) but never tabulates it.".into()
    };
    if c.runs.is_some() && c.states.is_empty() {
        t.missing.push(format!(
            "The pabsim results have none of the per-state tick columns ({}); rerun `make chapter6` with a pabsim that writes them.",
            parab::formats::SimRow::TIME_COLUMNS.map(|c| format!("`{c}`")).join(", ")
        ));
    }
    b.sections.push(t);
    Ok(())
}

/// The orderings of chapter 6 in the order shown: the thesis's five first
/// (with or without runs of ours), each with its table from `p`, then ours
/// the thesis has no table for.
fn ordering_items<'a>(c: &Ch6, p: &'a mut Published) -> Result<Vec<OrderingItem<'a>>> {
    let ords: Vec<(String, String, String)> = c.best.as_ref().map(load::orderings).unwrap_or_default();
    // The thesis's orderings first (with or without runs of ours), then others.
    let mut items: Vec<OrderingItem> = vec![];
    let thesis_numbers: Vec<String> = (0..THESIS_ORDERINGS.len()).map(|i| format!("6.{}", 4 + i)).collect();
    let mut taken: Vec<&Comparison> = p.take(&thesis_numbers.iter().map(String::as_str).collect::<Vec<_>>());
    for (i, t) in THESIS_ORDERINGS.iter().enumerate() {
        let o = (t.0.to_string(), t.1.to_string(), t.2.to_string());
        let thesis = taken.iter().position(|c| c.number == thesis_numbers[i]).map(|k| taken.remove(k));
        let rows = match &c.best {
            Some(best) if ords.contains(&o) => Some(ordering_rows(best, &o)?),
            _ => None,
        };
        if rows.is_none() && thesis.is_none() {
            continue;
        }
        items.push(OrderingItem {
            o,
            rows,
            thesis,
            table_name: format!("Table 6.{}", 4 + i),
            figure_name: format!("Figure 6.{}", 13 + i),
            id: format!("6-{}", 4 + i),
            figure_id: format!("figure-6-{}", 13 + i),
        });
    }
    let mut extra = 0;
    for o in ords.iter().filter(|o| !THESIS_ORDERINGS.iter().any(|t| (t.0.to_string(), t.1.to_string(), t.2.to_string()) == **o)) {
        extra += 1;
        let Some(best) = &c.best else { break };
        items.push(OrderingItem {
            o: o.clone(),
            rows: Some(ordering_rows(best, o)?),
            thesis: None,
            table_name: format!("Table (extra {extra})"),
            figure_name: format!("Figure (extra {extra})"),
            id: format!("x-{}-{}-{}", o.0, o.1, o.2),
            figure_id: format!("figure-x-{}-{}-{}", o.0, o.1, o.2),
        });
    }
    Ok(items)
}

/// Who is fastest at the largest p, ours and the thesis's, per ordering.
fn fastest_findings(items: &[OrderingItem], s: &mut Section) {
    for it in items {
        let label = ordering_label(&it.o.0, &it.o.1, &it.o.2);
        let ours = it.rows.as_ref().and_then(|d| fastest(&ours_at(d)));
        let theirs = it.thesis.and_then(|c| fastest(&thesis_at(c, "su")));
        let words = |v: &[(String, f64)]| format!("scheme {} (SU {})", v[0].0, v.iter().map(|(s, x)| format!("{s} {x:.2}")).collect::<Vec<_>>().join(", "));
        match (&ours, &theirs) {
            (Some((p, o)), Some((tp, th))) if p == tp => s.findings.push(format!(
                "{label}, p = {p}: fastest ours {}; the thesis's {} — {}.",
                words(o),
                words(th),
                if o[0].0 == th[0].0 { "the same scheme" } else { "a different scheme" }
            )),
            (Some((p, o)), _) => s.findings.push(format!("{label}, p = {p}: fastest {}.", words(o))),
            _ => {}
        }
    }
}

/// One ordering's section (ours beside the thesis's table, its figure) and
/// its chart of time per state in `t`.
fn ordering_section(c: &Ch6, it: &OrderingItem, b: &mut Builder, t: &mut Section) -> Result<()> {
    let label = ordering_label(&it.o.0, &it.o.1, &it.o.2);
    let oid = format!("{}-{}-{}", it.o.0, it.o.1, it.o.2);
    let mut sec = Section {
        id: format!("chapter6-{oid}"),
        chapter: 6,
        title: format!("{}, {}: ordering {label}", it.table_name, it.figure_name),
        what: match it.thesis {
            Some(_) => {
                format!("Our runs of ordering {label} beside the thesis's {}, cell by cell: ours, the thesis's, and the relative difference Δ.", it.table_name)
            }
            None => format!("Our runs of ordering {label} (the thesis has no table for it, or we do not hold it)."),
        },
        ..Default::default()
    };
    if let Some(cmp) = it.thesis {
        add_comparison(&mut sec, cmp)?;
    }
    if let (Some(d), Some(runs)) = (&it.rows, &c.runs) {
        // Our runs the thesis's table has no cell for get a table of their own.
        let covered = |i: usize| {
            it.thesis.is_some_and(|cmp| {
                cmp.lines
                    .iter()
                    .any(|l| cmp.key(l, "scheme") == load::text(d, "scheme", i).as_deref() && cmp.key(l, "procs") == load::text(d, "procs", i).as_deref())
            })
        };
        // The p = 1 run is Table 6.3's, not a cell of these tables.
        let rest: Vec<usize> = (0..d.height()).filter(|&i| procs_of(d, i) != 1.0 && !covered(i)).collect();
        if !rest.is_empty() {
            sec.tables.push(ordering_table(d, &rest, &it.o, &it.id, &it.table_name, it.thesis.is_some(), runs));
        }
    }
    if let Some(f) = ordering_figure(it, &label)? {
        b.add_figure(&mut sec, f);
    }
    b.sections.push(sec);
    time_chart(c, it, b, t)
}

/// One ordering's time per state: a bar per run.
fn time_chart(c: &Ch6, it: &OrderingItem, b: &mut Builder, t: &mut Section) -> Result<()> {
    let label = ordering_label(&it.o.0, &it.o.1, &it.o.2);
    let oid = format!("{}-{}-{}", it.o.0, it.o.1, it.o.2);
    if let Some(d) = it.rows.as_ref().filter(|_| !c.states.is_empty()) {
        let mut bars = vec![];
        for i in 0..d.height() {
            let vals: Vec<f64> = c.states.iter().map(|st| load::num(d, st, i).unwrap_or(0.0)).collect();
            let total: f64 = vals.iter().sum();
            if total > 0.0 {
                let p = load::text(d, "procs", i).unwrap_or_default();
                bars.push((
                    // The p = 1 run belongs to no scheme.
                    if p == "1" { "p=1".to_string() } else { format!("{} p={p}", load::text(d, "scheme", i).unwrap_or_default().to_uppercase()) },
                    vals.iter().map(|v| v / total).collect(),
                ));
            }
        }
        if !bars.is_empty() {
            let f = figure(
                &format!("figure-time-{oid}"),
                &format!("Share of processor time per state, ordering {label}: one bar per run of {} (scheme and p).", it.table_name),
                Plot::Stacked { title: format!("where the time went, {label}"), parts: c.states.iter().map(|c| state_label(c)).collect(), rows: bars },
            )?;
            b.add_figure(t, f);
        }
    }
    Ok(())
}

/// Our (scheme, p, SU) rows.
fn ours_at(d: &DataFrame) -> Vec<(String, f64, f64)> {
    (0..d.height()).filter_map(|i| Some((load::text(d, "scheme", i)?, procs_of(d, i), load::num(d, "su", i)?))).collect()
}

/// The thesis's (scheme, p, value) rows of a comparison, for one of our
/// value columns.
fn thesis_at(c: &Comparison, column: &str) -> Vec<(String, f64, f64)> {
    c.lines
        .iter()
        .filter_map(|l| {
            let v = l.values.iter().find(|v| v.column == column)?.published?;
            Some((c.key(l, "scheme")?.to_string(), c.key(l, "procs")?.parse().ok()?, v))
        })
        .collect()
}

/// At the largest p: the schemes by speed-up, fastest first.
fn fastest(rows: &[(String, f64, f64)]) -> Option<(f64, Vec<(String, f64)>)> {
    let maxp = rows.iter().map(|r| r.1).fold(f64::NAN, f64::max);
    let mut at: Vec<(String, f64)> = rows.iter().filter(|r| r.1 == maxp).map(|r| (r.0.to_uppercase(), r.2)).collect();
    at.sort_by(|a, b| b.1.total_cmp(&a.1));
    (at.len() > 1).then_some((maxp, at))
}

/// SU, SO and CSS against p per scheme: our lines (from the p = 1 run) and
/// the thesis's points beside them, each scheme in its own colour.
fn ordering_figure(it: &OrderingItem, label: &str) -> Result<Option<super::PendingFigure>> {
    let mut panels = vec![];
    let mut any = false;
    for (m, title) in [("su", "speed-up SU"), ("so", "search overhead SO"), ("css", "CSS")] {
        let mut schemes: Vec<String> = vec![];
        if let Some(d) = &it.rows {
            schemes.extend((0..d.height()).filter_map(|i| load::text(d, "scheme", i)).filter(|s| !s.is_empty() && s != "-"));
        }
        if let Some(c) = it.thesis {
            schemes.extend(thesis_at(c, m).into_iter().map(|r| r.0));
        }
        schemes.sort_by_key(|s| (scheme_colour(s), s.clone()));
        schemes.dedup();
        // The series list holds every colour up to the last scheme, so a
        // scheme's colour is the same in every panel and figure (a scheme we
        // did not run is an empty series, not drawn).
        let n_colours = schemes.iter().map(|s| scheme_colour(s) + 1).max().unwrap_or(0).max(schemes.len());
        let mut series: Vec<Series> = (0..n_colours).map(|_| Series { name: String::new(), points: vec![] }).collect();
        let mut marks = vec![];
        for (k, sc) in schemes.iter().enumerate() {
            let ci = if scheme_colour(sc) < SCHEMES.len() { scheme_colour(sc) } else { SCHEMES.len() + k };
            let start = (1.0, if m == "su" { 1.0 } else { 0.0 });
            if let Some(d) = &it.rows {
                let mut pts: Vec<(f64, f64)> = (0..d.height())
                    .filter(|&i| load::text(d, "scheme", i).as_ref() == Some(sc))
                    .filter_map(|i| Some((procs_of(d, i), load::num(d, m, i)?)))
                    .collect();
                // Every scheme starts from the one uniprocessor run: SU = 1, SO = CSS = 0.
                let has_baseline = (0..d.height()).any(|i| load::num(d, "t1_ticks", i).is_some());
                if has_baseline && !pts.is_empty() && !pts.iter().any(|p| p.0 == 1.0) {
                    pts.insert(0, start);
                }
                if ci >= series.len() {
                    series.resize(ci + 1, Series { name: String::new(), points: vec![] });
                }
                any |= !pts.is_empty();
                series[ci] = Series { name: format!("scheme {}", sc.to_uppercase()), points: pts };
            }
            if let Some(c) = it.thesis {
                let mut pts: Vec<(f64, f64)> = thesis_at(c, m).into_iter().filter(|r| r.0 == *sc).map(|r| (r.1, r.2)).collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                if !pts.is_empty() {
                    pts.insert(0, start);
                    any = true;
                    marks.push(Mark { colour: ci, series: Series { name: format!("{}, thesis", sc.to_uppercase()), points: pts } });
                }
            }
        }
        panels.push(Plot::Lines { title: format!("{title}, {label}"), x_label: "processors p".into(), y_label: title.into(), log_y: false, series, marks });
    }
    if !any {
        return Ok(None);
    }
    let caption = format!(
        "{}: speed-up, search overhead and CSS against processors, ordering {label}, per scheme: our runs as lines with dots{}.",
        it.figure_name,
        if it.thesis.is_some() { format!(", the thesis's {} as crosses on dashed lines (same colour per scheme)", it.table_name) } else { String::new() }
    );
    Ok(Some(figure(&it.figure_id, &caption, Plot::Row(panels))?))
}

/// Our runs of one ordering as a table (the rows `rows` of `d`): the best
/// configuration per scheme and p, citing only the files that hold runs of
/// that ordering. With the thesis's table shown above, these are the runs it
/// has no cell for.
fn ordering_table(d: &DataFrame, rows: &[usize], o: &(String, String, String), id: &str, tn: &str, beside: bool, runs: &Csv) -> Table {
    let label = ordering_label(&o.0, &o.1, &o.2);
    let cells = rows
        .iter()
        .map(|&i| {
            vec![
                Cell::Text(load::text(d, "scheme", i).unwrap_or_default().to_uppercase()),
                Cell::Text(load::text(d, "procs", i).unwrap_or_default()),
                Cell::Text(params(d, i)),
                Cell::number(load::num(d, "tp_ticks", i), 0),
                Cell::number(load::num(d, "su", i), 2),
                Cell::number(load::num(d, "np_nodes", i), 0),
                Cell::number(load::num(d, "so", i), 3),
                Cell::number(load::num(d, "css", i), 3),
            ]
        })
        .collect();
    Table {
        id: format!("table-{id}"),
        caption: if beside { format!("Our runs of ordering {label} that {tn} has no cell for") } else { format!("{tn}: ordering {label}") },
        header: ["scheme", "p", "parameters", "t_p (ticks)", "SU", "n_p", "SO", "CSS"].map(String::from).to_vec(),
        groups: vec![],
        rows: cells,
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
