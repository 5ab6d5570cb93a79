//! Chapter 5 of the thesis in the report: the networks' training errors
//! (Table 5.1) and learning curves, the node-classification counts of schemes
//! A, B and C (Tables 5.2–5.4), their errors per ordering (Figure 5.4) and
//! the improvement of C over A against w_b (Figure 5.5).
//!
//! Inputs (file names are globbed, so a changed naming scheme needs only the
//! patterns here): `weights/*.json` (one network per ordering; the file stem
//! or the JSON's `b`, `wa`, `wb` fields give the ordering), `weights/*.csv`
//! (learning curves `iteration,e_type,e_wait`) and `classify/*.csv`.

use super::doc::{Cell, Section, Table};
use super::figures::{Plot, Series};
use super::load::{self, Csv, Schema, norm_key, pl};
use super::published::{Comparison, Measures};
use super::{Builder, Published, add_comparison, figure, missing, ordering_label};
use anyhow::{Context, Result, anyhow};
use parab::formats::{ClassifyRow, CurveRow};
use polars::prelude::*;
use serde_json::Value;
use std::path::Path;

/// One trained network's facts.
#[derive(Clone, Debug)]
pub struct Net {
    /// The weights file.
    pub file: String,
    /// Ordering.
    pub ordering: (String, String, String),
    /// Final errors.
    pub e_type: Option<f64>,
    /// Final errors.
    pub e_wait: Option<f64>,
    /// Seed of the initial weights, if recorded.
    pub seed: Option<String>,
    /// Training iterations, if recorded.
    pub iterations: Option<String>,
    /// Learning rate, if recorded.
    pub eta: Option<String>,
}

/// Chapter 5's inputs.
pub struct Ch5 {
    /// Networks, in ordering order.
    pub nets: Vec<Net>,
    /// Learning curves, with the ordering of each.
    pub curves: Vec<((String, String, String), Csv)>,
    /// Classification counts (`classify/*.csv`).
    pub classify: Option<Csv>,
    /// The best parameter per (ordering, scheme): lowest error, then
    /// smallest parameter.
    pub best: Option<DataFrame>,
}

/// The first three numeric tokens of a file stem (`32-79-5`,
/// `tg1-32-79-5-curve`) as an ordering.
pub fn ordering_from_stem(stem: &str) -> Option<(String, String, String)> {
    let nums: Vec<&str> = stem.split(['-', '_', '.']).filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit())).collect();
    (nums.len() >= 3).then(|| (norm_key(nums[0]), norm_key(nums[1]), norm_key(nums[2])))
}

/// Finds the first value under a key (case-insensitive) anywhere in a JSON
/// document, depth first in document order.
pub fn find_key<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k.eq_ignore_ascii_case(key) {
                    return Some(x);
                }
            }
            m.values().find_map(|x| find_key(x, key))
        }
        Value::Array(a) => a.iter().find_map(|x| find_key(x, key)),
        _ => None,
    }
}

fn scalar(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

fn read_net(path: &Path) -> Result<Net> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| anyhow!("malformed JSON: {e} ({name}:{})", e.line()))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let ordering = ordering_from_stem(stem)
        .or_else(|| Some((norm_key(&scalar(find_key(&v, "b"))?), norm_key(&scalar(find_key(&v, "wa"))?), norm_key(&scalar(find_key(&v, "wb"))?))))
        .ok_or_else(|| anyhow!("cannot tell the ordering of {name}: neither its name (b-wa-wb.json) nor fields b, wa, wb say"))?;
    let f = |k: &str| find_key(&v, k).and_then(Value::as_f64);
    Ok(Net {
        file: name,
        ordering,
        e_type: f("e_type"),
        e_wait: f("e_wait"),
        seed: scalar(find_key(&v, "seed")),
        iterations: scalar(find_key(&v, "iterations")),
        eta: scalar(find_key(&v, "eta")),
    })
}

/// Reads chapter 5's results.
pub fn load(results: &Path) -> Result<Ch5> {
    let wdir = results.join("weights");
    let mut nets = vec![];
    for p in load::files(&wdir, |n| n.ends_with(".json")) {
        nets.push(read_net(&p)?);
    }
    let mut curves = vec![];
    for p in load::files(&wdir, |n| n.ends_with(".csv")) {
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("").to_string();
        let Some(o) = ordering_from_stem(&stem) else { continue };
        curves.push((o, load::read(&p, &Schema::of::<CurveRow>(), &["iteration", "e_type", "e_wait"])?));
    }
    // A network without final errors in its JSON takes them from its curve.
    for n in nets.iter_mut() {
        if let Some((_, c)) = curves.iter().find(|(o, _)| *o == n.ordering) {
            let last = c.df.height().saturating_sub(1);
            if n.e_type.is_none() {
                n.e_type = load::num(&c.df, "e_type", last);
            }
            if n.e_wait.is_none() {
                n.e_wait = load::num(&c.df, "e_wait", last);
            }
        }
    }
    nets.sort_by_key(|n| super::ordering_rank(&n.ordering.0, &n.ordering.1, &n.ordering.2));
    curves.sort_by_key(|(o, _)| super::ordering_rank(&o.0, &o.1, &o.2));
    let files = load::files(&results.join("classify"), |n| n.ends_with(".csv"));
    let (classify, best) = if files.is_empty() {
        (None, None)
    } else {
        let required = ["b", "wa", "wb", "scheme", "param", "true_cut", "false_cut", "true_all", "false_all", "error", "scored"];
        let c = load::read_many(&files, &Schema::of::<ClassifyRow>(), &required)?;
        let best = best_params(&c.df)?;
        (Some(c), Some(best))
    };
    Ok(Ch5 { nets, curves, classify, best })
}

/// Per (ordering, scheme), the row with the lowest error (ties: the
/// smallest parameter), with `best_param`.
fn best_params(df: &DataFrame) -> Result<DataFrame> {
    let g = [col("b"), col("wa"), col("wb"), col("scheme")];
    let lf = df.clone().lazy().with_column(col("param").cast(DataType::Float64).alias("__p"));
    let mins = lf.clone().group_by(g.clone()).agg([col("error").min().alias("__min")]);
    let vals = ["param", "true_cut", "false_cut", "true_all", "false_all", "error", "scored"];
    let mut agg: Vec<Expr> = vals.iter().map(|v| col(*v).first()).collect();
    agg.push(col("param").first().alias("best_param"));
    let out = lf
        .join(mins, g.clone(), g.clone(), load::join_args(JoinType::Inner))
        .filter(col("error").eq(col("__min")))
        .sort(["__p"], SortMultipleOptions::default().with_nulls_last(true).with_maintain_order(true))
        .group_by_stable(g)
        .agg(agg)
        .collect();
    pl(out, "choosing the best parameter")
}

/// Our chapter 5 numbers in the shape published tables are keyed by.
pub fn measures(c: &Ch5) -> Result<Vec<Measures>> {
    let mut v = vec![];
    if !c.nets.is_empty() {
        let col_of = |f: &dyn Fn(&Net) -> String| c.nets.iter().map(f).collect::<Vec<String>>();
        let df = DataFrame::new(
            c.nets.len(),
            vec![
                Column::new("b".into(), col_of(&|n| n.ordering.0.clone())),
                Column::new("wa".into(), col_of(&|n| n.ordering.1.clone())),
                Column::new("wb".into(), col_of(&|n| n.ordering.2.clone())),
                Column::new("e_type".into(), c.nets.iter().map(|n| n.e_type).collect::<Vec<_>>()),
                Column::new("e_wait".into(), c.nets.iter().map(|n| n.e_wait).collect::<Vec<_>>()),
            ],
        )
        .map_err(|e| anyhow!("{e}"))?;
        v.push(Measures { source: "final errors in `weights/*.json`".into(), df });
    }
    // Without a parameter key, a published table compares with our best
    // parameter; with one, with our row for that parameter.
    if let Some(b) = &c.best {
        v.push(Measures { source: "`classify/*.csv`, our best parameter per ordering and scheme".into(), df: b.drop("param").map_err(|e| anyhow!("{e}"))? });
    }
    if let Some(cl) = &c.classify {
        v.push(Measures { source: "`classify/*.csv`".into(), df: cl.df.clone() });
    }
    Ok(v)
}

const SCHEMES: [(&str, &str, &str); 3] = [
    ("a", "5.2", "scheme A (strong YBWC types: fixed by each node's position below the principal variation)"),
    ("b", "5.3", "scheme B (DTS types from the node's window; a CUT node turns ALL once n moves finish without a cut-off)"),
    ("c", "5.4", "scheme C (the network's type output; principal-variation nodes keep the root's type; CUT when it lies within m of 50)"),
];

fn counts_row(d: &DataFrame, i: usize, label: String, params: Option<Option<String>>) -> Vec<Cell> {
    let mut row = vec![Cell::Text(label)];
    // Scheme A has no parameter: no column. Otherwise ours, then the thesis's.
    if let Some(thesis) = params {
        row.push(Cell::Text(load::text(d, "param", i).unwrap_or_default()));
        row.push(thesis.map_or(Cell::Empty, Cell::Text));
    }
    for c in ["true_cut", "false_cut", "true_all", "false_all", "error", "scored"] {
        row.push(Cell::number(load::num(d, c, i), 0));
    }
    let rate = match (load::num(d, "error", i), load::num(d, "scored", i)) {
        (Some(e), Some(s)) if s > 0.0 => Cell::Num(e / s * 100.0, 3),
        _ => Cell::Empty,
    };
    row.push(rate);
    row
}

fn error_rate(best: &DataFrame, o: &(String, String, String), scheme: &str) -> Option<f64> {
    let d = load::filter_eq(best, &[("b", &o.0), ("wa", &o.1), ("wb", &o.2), ("scheme", scheme)]).ok()?;
    if d.height() == 0 {
        return None;
    }
    Some(load::num(&d, "error", 0)? / load::num(&d, "scored", 0)? * 100.0)
}

/// Adds chapter 5's sections.
pub fn sections(c: &Ch5, p: &mut Published, b: &mut Builder) -> Result<()> {
    let s = table_5_1(c, p, b)?;
    b.sections.push(s);
    for (scheme, number, desc) in SCHEMES {
        let s = scheme_table(c, p, scheme, number, desc)?;
        b.sections.push(s);
    }
    let s = figures_5_4_5_5(c, b)?;
    b.sections.push(s);
    Ok(())
}

/// Table 5.1: the networks' final training errors, and their learning curves.
fn table_5_1(c: &Ch5, p: &mut Published, b: &mut Builder) -> Result<Section> {
    let mut s = Section {
        id: "table-5-1".into(),
        chapter: 5,
        title: "Table 5.1: training errors of the networks".into(),
        what: "One 3-12-2 network per ordering, trained on patterns from searches of the 200 tg_2 trees at depth 4 to predict a child's type and wait from its parent's (pv, type, index). E_type is in type units (0..100), E_wait in moves. The initial weights are random, so the digits will differ from the thesis; the magnitudes should not.".into(),
        ..Default::default()
    };
    if c.nets.is_empty() {
        s.missing.push(missing("trained networks", "weights/<b>-<wa>-<wb>.json", "make chapter5"));
    } else {
        let rows = c
            .nets
            .iter()
            .map(|n| {
                vec![
                    Cell::Text(ordering_label(&n.ordering.0, &n.ordering.1, &n.ordering.2)),
                    Cell::number(n.e_type, 6),
                    Cell::number(n.e_wait, 6),
                    Cell::Text(n.seed.clone().unwrap_or_else(|| "—".into())),
                    Cell::Text(n.iterations.clone().unwrap_or_else(|| "—".into())),
                    Cell::Text(n.eta.clone().unwrap_or_else(|| "—".into())),
                ]
            })
            .collect();
        s.tables.push(Table {
            id: "table-5-1".into(),
            caption: "Table 5.1: final training errors, one network per ordering".into(),
            header: ["ordering", "E_type", "E_wait", "seed", "iterations", "eta"].map(String::from).to_vec(),
            rows,
            groups: vec![],
            note: "From `weights/*.json` (final errors; the learning curve's last row if the file has none).".into(),
        });
        for n in &c.nets {
            s.settings.push(format!(
                "{}: `{}`, seed {}.",
                ordering_label(&n.ordering.0, &n.ordering.1, &n.ordering.2),
                n.file,
                n.seed.clone().unwrap_or_else(|| "not recorded".into())
            ));
        }
    }
    for cmp in p.take(&["5.1"]) {
        add_comparison(&mut s, cmp)?;
    }
    if !c.curves.is_empty() {
        let mut ty = vec![];
        let mut wt = vec![];
        for (o, cv) in &c.curves {
            let pts = |y: &str| (0..cv.df.height()).filter_map(|i| Some((load::num(&cv.df, "iteration", i)?, load::num(&cv.df, y, i)?))).collect::<Vec<_>>();
            ty.push(Series { name: ordering_label(&o.0, &o.1, &o.2), points: pts("e_type") });
            wt.push(Series { name: ordering_label(&o.0, &o.1, &o.2), points: pts("e_wait") });
        }
        let f = figure(
            "figure-5-learning",
            "Learning curves (not in the thesis): E_type and E_wait against training iteration, one network per ordering.",
            Plot::Row(vec![
                Plot::Lines {
                    title: "E_type (type units)".into(),
                    x_label: "iteration".into(),
                    y_label: "E_type".into(),
                    log_y: true,
                    series: ty,
                    marks: vec![],
                },
                Plot::Lines { title: "E_wait (moves)".into(), x_label: "iteration".into(), y_label: "E_wait".into(), log_y: true, series: wt, marks: vec![] },
            ]),
        )?;
        b.add_figure(&mut s, f);
    }
    Ok(s)
}

/// Tables 5.2–5.4: one scheme's counts per ordering at its best parameter.
fn scheme_table(c: &Ch5, p: &mut Published, scheme: &str, number: &str, desc: &str) -> Result<Section> {
    let upper = scheme.to_uppercase();
    let mut s = Section {
        id: format!("table-{}", number.replace('.', "-")),
        chapter: 5,
        title: format!("Table {number}: scheme {upper} classification counts"),
        what: format!(
            "Every internal node off the principal variation of the 100 tg_1 trees (depth 6) is predicted to cut off (CUT) or to search all its moves (ALL) by {desc}, and the prediction is scored against what the search did. Error = False_CUT + False_ALL.{}",
            if scheme == "c" {
                " Scheme C depends on the trained network, so expect the thesis's magnitudes, not its digits."
            } else {
                " These counts follow fixed rules and should match the thesis exactly."
            }
        ),
        ..Default::default()
    };
    let cmps = p.take(&[number]);
    // The thesis's parameter per ordering, where its table states one.
    let thesis_param = |o: &(String, String, String)| -> Option<String> {
        cmps.iter().find_map(|c| {
            let l = c.lines.iter().find(|l| c.key(l, "b") == Some(&o.0) && c.key(l, "wa") == Some(&o.1) && c.key(l, "wb") == Some(&o.2))?;
            c.key(l, "param").map(str::to_string)
        })
    };
    let pname = if scheme == "b" { "n" } else { "m" };
    let mut differ = vec![];
    match (&c.classify, &c.best) {
        (Some(cl), Some(best)) => {
            let d = load::filter_eq(best, &[("scheme", scheme)])?;
            let has_param = (0..d.height()).any(|i| load::text(&d, "param", i).is_some_and(|p| !p.is_empty()));
            let mut rows = vec![];
            for o in load::orderings(&d) {
                let r = load::filter_eq(&d, &[("b", &o.0), ("wa", &o.1), ("wb", &o.2)])?;
                let theirs = thesis_param(&o);
                if let (Some(t), Some(ours)) = (&theirs, load::text(&r, "param", 0))
                    && norm_key(t) != norm_key(&ours)
                {
                    differ.push(format!("{} (ours {ours}, the thesis's {t})", ordering_label(&o.0, &o.1, &o.2)));
                }
                rows.push(counts_row(&r, 0, ordering_label(&o.0, &o.1, &o.2), has_param.then_some(theirs)));
            }
            if rows.is_empty() {
                s.missing.push(missing(&format!("scheme {upper} counts"), "classify/*.csv", "make chapter5"));
            } else {
                let sweep = load::filter_eq(&cl.df, &[("scheme", scheme)])?;
                let mut header = vec!["ordering".to_string()];
                if has_param {
                    header.push(format!("best {pname} (ours)"));
                    header.push(format!("{pname} (thesis)"));
                }
                header.extend(["True_CUT", "False_CUT", "True_ALL", "False_ALL", "Error", "scored", "error %"].map(String::from));
                s.tables.push(Table {
                    id: format!("table-{}", number.replace('.', "-")),
                    caption: format!(
                        "Table {number}: scheme {upper}{} per ordering",
                        if has_param { format!(" at our best {pname} (lowest error)") } else { String::new() }
                    ),
                    header,
                    rows,
                    groups: vec![],
                    note: format!("From {}; {} rows of scheme {upper} in the sweep.", cl.sources_note(&[("scheme", scheme)]), sweep.height()),
                });
                let depth = load::int(&cl.df, "depth", 0).map(|d| d.to_string()).unwrap_or_else(|| "?".into());
                let trees = load::int(&cl.df, "trees", 0).map(|d| d.to_string()).unwrap_or_else(|| "?".into());
                s.settings.push(format!(
                    "Seed set tg_1 (`data/tg1.txt`), {trees} trees, depth {depth}; `classify --scheme {scheme}`{}.",
                    if scheme == "c" { " with each ordering's own network (`weights/<b>-<wa>-<wb>.json`)" } else { "" }
                ));
            }
        }
        _ => s.missing.push(missing("classification counts", "classify/*.csv", "make chapter5")),
    }
    for cmp in &cmps {
        add_comparison(&mut s, cmp)?;
        if cmp.keys.iter().any(|k| k == "param") {
            s.findings.push(if differ.is_empty() {
                format!("The comparison is at the thesis's {pname} (the one its table reports); our best {pname} is the same for every ordering we ran.")
            } else {
                format!(
                    "Our table shows each ordering at our best {pname}; the comparison is at the thesis's {pname}, the one its table reports. They differ for {}.",
                    differ.join(", ")
                )
            });
        }
        s.findings.extend(incomplete_rows(c, cmp));
    }
    Ok(s)
}

/// Published rows whose four counts do not add up to the nodes our trees
/// have to classify (`scored`, the same for every scheme): such a row cannot
/// be a complete count, so no exact reproduction can match it.
fn incomplete_rows(c: &Ch5, cmp: &Comparison) -> Vec<String> {
    let Some(cl) = &c.classify else { return vec![] };
    let parts = ["true_cut", "false_cut", "true_all", "false_all"];
    let mut out = vec![];
    for l in &cmp.lines {
        let sum: Option<f64> = parts.iter().map(|p| l.values.iter().find(|v| v.column == *p).and_then(|v| v.published)).sum();
        let (Some(sum), Some(b), Some(wa), Some(wb)) = (sum, cmp.key(l, "b"), cmp.key(l, "wa"), cmp.key(l, "wb")) else { continue };
        let Ok(d) = load::filter_eq(&cl.df, &[("b", b), ("wa", wa), ("wb", wb)]) else { continue };
        let Some(scored) = (d.height() > 0).then(|| load::num(&d, "scored", 0)).flatten() else { continue };
        if sum != scored {
            out.push(format!(
                "The thesis's row {} adds up to {} classified nodes, but these trees have {} nodes to classify (every scheme of ours scores all of them): that printed row cannot be a complete count, so it cannot be matched exactly. It is shown as printed.",
                ordering_label(b, wa, wb),
                super::doc::group(sum as i64),
                super::doc::group(scored as i64)
            ));
        }
    }
    out
}

/// Figures 5.4 and 5.5: the schemes' errors per ordering; C's gain over A.
fn figures_5_4_5_5(c: &Ch5, b: &mut Builder) -> Result<Section> {
    let mut s = Section {
        id: "figures-5-4-5-5".into(),
        chapter: 5,
        title: "Figures 5.4 and 5.5: scheme errors per ordering; improvement of C over A".into(),
        what: "The error of each scheme (at its best parameter) as a share of the scored nodes, per ordering; and how much scheme C's error is below scheme A's, against the ordering's w_b. The thesis finds C best on (32, 66, 66) and the gain growing with w_b.".into(),
        ..Default::default()
    };
    match &c.best {
        None => s.missing.push(missing("classification counts", "classify/*.csv", "make chapter5")),
        Some(best) => {
            let ords = load::orderings(best);
            let cats: Vec<String> = ords.iter().map(|o| ordering_label(&o.0, &o.1, &o.2)).collect();
            let series: Vec<(String, Vec<Option<f64>>)> =
                SCHEMES.iter().map(|(sc, _, _)| (format!("scheme {}", sc.to_uppercase()), ords.iter().map(|o| error_rate(best, o, sc)).collect())).collect();
            let f = figure(
                "figure-5-4",
                "Figure 5.4: error (False_CUT + False_ALL) as a percentage of scored nodes, schemes A, B, C at their best parameters.",
                Plot::Bars { title: "classification error".into(), y_label: "error, % of scored nodes".into(), categories: cats, series },
            )?;
            b.add_figure(&mut s, f);
            let mut pts = vec![];
            for o in &ords {
                if let (Some(a), Some(cc)) = (error_rate(best, o, "a"), error_rate(best, o, "c")) {
                    let imp = (a - cc) / a * 100.0;
                    s.findings.push(format!(
                        "{}: scheme C's error is {:.1}% {} than scheme A's.",
                        ordering_label(&o.0, &o.1, &o.2),
                        imp.abs(),
                        if imp >= 0.0 { "lower" } else { "higher" }
                    ));
                    if let Ok(wb) = o.2.parse::<f64>() {
                        pts.push((wb, imp));
                    }
                }
            }
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            if pts.is_empty() {
                s.missing.push(missing("scheme A and C counts for the same ordering", "classify/*.csv", "make chapter5"));
            } else {
                let f = figure(
                    "figure-5-5",
                    "Figure 5.5: improvement of scheme C over scheme A, (error_A − error_C) / error_A, against w_b.",
                    Plot::Lines {
                        title: "improvement of C over A".into(),
                        x_label: "w_b".into(),
                        y_label: "improvement, %".into(),
                        log_y: false,
                        series: vec![Series { name: "C over A".into(), points: pts }],
                        marks: vec![],
                    },
                )?;
                b.add_figure(&mut s, f);
            }
        }
    }
    Ok(s)
}
