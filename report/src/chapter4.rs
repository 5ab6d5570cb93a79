//! Chapter 4 of the thesis in the report: the chess program's move-ordering
//! statistics beside the artificial trees' (Tables 4.1–4.3, Figure 4.5),
//! f_best on the artificial trees (Table 4.4), the analytic p_n
//! (Table 4.5, Figure 4.6), and the node counts that Table 6.3 needs.

use super::doc::{Cell, Section, Table};
use super::figures::{Plot, Series};
use super::games::Games;
use super::load::{self, ColumnKind, Csv, Schema, pl};
use super::published::Measures;
use super::summary;
use super::{Builder, PendingFigure, Published, add_comparison, figure, missing, ordering_label};
use anyhow::Result;
use parab::formats::{AnalyticRow, ChessFbestRow, FbestRow, PerTreeRow};
use polars::prelude::*;
use std::path::Path;

/// Chapter 4's inputs, each absent if its file is missing.
pub struct Ch4 {
    /// `fbest` tables of artificial trees (`fbest/tg*.csv`).
    pub fbest: Option<Csv>,
    /// The chess program's statistics (`fbest/rajahx.csv`).
    pub rajahx: Option<Csv>,
    /// Analytic p_n (`fbest/analytic.csv`).
    pub analytic: Option<Csv>,
    /// Per-tree node counts (`nodes/*.csv`).
    pub nodes: Option<Csv>,
    /// Node counts summed per ordering and depth.
    pub nodes_sum: Option<DataFrame>,
}

/// Reads chapter 4's results.
pub fn load(results: &Path) -> Result<Ch4> {
    let dir = results.join("fbest");
    let fb = load::files(&dir, |n| n.starts_with("tg") && n.ends_with(".csv") && !n.contains("per-tree"));
    let fbest =
        if fb.is_empty() { None } else { Some(load::read_many(&fb, &Schema::of::<FbestRow>(), &["b", "wa", "wb", "depth", "trees", "n", "fbest", "pbest"])?) };
    let raj = dir.join("rajahx.csv");
    let rajahx = if raj.is_file() {
        // The chess program's average branching factor is written as text.
        let schema = Schema::of::<ChessFbestRow>().with("b", ColumnKind::Float);
        Some(load::read(&raj, &schema, &["b", "trees", "n", "fbest", "pbest"])?)
    } else {
        None
    };
    let an = dir.join("analytic.csv");
    let analytic = if an.is_file() { Some(load::read(&an, &Schema::of::<AnalyticRow>(), &["b", "wa", "wb", "n", "p_n", "cumulative"])?) } else { None };
    let nf = load::files(&results.join("nodes"), |n| n.ends_with(".csv"));
    let nodes = if nf.is_empty() {
        None
    } else {
        let required = ["tree", "seed", "b", "wa", "wb", "depth", "nodes", "leaves", "internal", "contributing", "root_value"];
        Some(load::read_many(&nf, &Schema::of::<PerTreeRow>(), &required)?)
    };
    if let Some(n) = &nodes {
        n.refuse_repeats(&["b", "wa", "wb", "depth", "tree", "seed"], "the node counts of one tree")?;
    }
    let nodes_sum = match &nodes {
        Some(c) => {
            let sums = ["nodes", "leaves", "internal", "contributing"];
            summary::refuse_overflow(&c.df, &sums, |i| c.at(i))?;
            let key = [col("b"), col("wa"), col("wb"), col("depth")];
            let tree =
                [col("tree").count().cast(DataType::Int64).alias("trees"), col("seed").first().alias("first_seed"), col("seed").last().alias("last_seed")];
            let sums = summary::summarize(&c.df, &key, PerTreeRow::COLUMNS, &sums, tree.into())?;
            Some(pl(sums.rename(["nodes"], ["n1_nodes"], true).collect(), "summing node counts")?)
        }
        None => None,
    };
    Ok(Ch4 { fbest, rajahx, analytic, nodes, nodes_sum })
}

/// Our chapter 4 numbers in the shape published tables are keyed by.
pub fn measures(c: &Ch4) -> Result<Vec<Measures>> {
    let mut v = vec![];
    if let Some(a) = &c.analytic {
        v.push(Measures { source: "`fbest/analytic.csv`".into(), df: a.df.clone() });
    }
    if let Some(f) = &c.fbest {
        v.push(Measures { source: format!("`{}`", f.name), df: f.df.clone() });
    }
    if let Some(n) = &c.nodes_sum {
        v.push(Measures { source: "sum of `nodes` over the trees in `nodes/*.csv`".into(), df: n.clone() });
    }
    Ok(v)
}

fn points(df: &DataFrame, x: &str, y: &str) -> Vec<(f64, f64)> {
    (0..df.height()).filter_map(|i| Some((load::text(df, x, i)?.parse().ok()?, load::num(df, y, i)?))).collect()
}

/// p_best(n) of the (32, 79, 5) trees, for the real-games section.
pub fn artificial_pbest(c: &Ch4) -> Result<Option<Vec<(u32, f64)>>> {
    let Some(f) = &c.fbest else { return Ok(None) };
    let d = load::filter_eq(&f.df, &[("b", "32"), ("wa", "79"), ("wb", "5")])?;
    if d.height() == 0 {
        return Ok(None);
    }
    Ok(Some(points(&d, "n", "pbest").into_iter().map(|(n, p)| (n as u32, p)).collect()))
}

/// Figure 4.5 from the joined f_best table `j`, with our own chess program
/// (and the ordering fitted to it) where it has run; its finding in `s`.
fn figure_4_5(j: &DataFrame, games: &Games, s: &mut Section) -> Result<PendingFigure> {
    let mut series = vec![
        Series { name: "chess program (RajahX)".into(), points: points(j, "n", "chess_pbest") },
        Series { name: "artificial (32, 79, 5)".into(), points: points(j, "n", "art_pbest") },
    ];
    // Beyond the thesis: our own chess program on the same positions.
    let ours = games.chess_fbest();
    let mut caption = "Figure 4.5: p_best(n) of the chess program and of the (32, 79, 5) artificial trees, log scale.".to_string();
    if let Some(first) = ours.first() {
        series.push(Series {
            name: format!("our chess program (depth {})", first.depth),
            points: ours.iter().filter(|r| r.n <= 10).map(|r| (r.n as f64, r.pbest)).collect(),
        });
        caption = format!(
            "Figure 4.5: p_best(n) of the chess program, of the (32, 79, 5) artificial trees and of our chess program (the same 24 positions, depth {}), log scale.",
            first.depth
        );
        let p1 = ours.iter().find(|r| r.n == 1).map(|r| r.pbest).unwrap_or(f64::NAN);
        let mut text = format!(
            "Beyond the thesis: our chess program on the same 24 positions (fixed depth {}, average branching factor {:.2}) has p_best(1) = {:.1}%.",
            first.depth,
            first.b,
            p1 * 100.0
        );
        if let Some(r) = games.fitted.first() {
            series.push(Series {
                name: format!("artificial ({}, {}, {}), fitted to ours", r.b, r.wa, r.wb),
                points: games.fitted.iter().filter(|x| x.n <= 10).map(|x| (x.n as f64, x.pbest)).collect(),
            });
        }
        if let Some(fit) = games.fit("chess", "searched") {
            text.push_str(&format!(
                " The exponential ordering whose searched trees come closest to its curve is ({}, {}, {}) (section \"Real games: chess and Othello\").",
                fit.b, fit.wa, fit.wb
            ));
        }
        s.findings.push(text);
    }
    figure(
        "figure-4-5",
        &caption,
        Plot::Lines {
            title: "p_best by move position".into(),
            x_label: "move position n".into(),
            y_label: "p_best(n)".into(),
            log_y: true,
            series,
            marks: vec![],
        },
    )
}

fn chess_vs_artificial(c: &Ch4, games: &Games, b: &mut Builder) -> Result<Section> {
    let mut s = Section {
        id: "tables-4-1-4-3".into(),
        chapter: 4,
        title: "Tables 4.1–4.3, Figure 4.5: a chess program's move ordering vs. the artificial trees'".into(),
        what: "How often the move searched in position n turned out best (f_best(n), and p_best(n) = f_best(n) over the nodes where some move was best), for the thesis author's chess program RajahX on the 24 Bratko–Kopec positions (10 s each; the per-position counts are `data/rajahx-fbest.csv`) and for the 100 tg_1 artificial trees with ordering (32, 79, 5). If the artificial trees model chess search well, the two columns should look alike.".into(),
        ..Default::default()
    };
    let art = match &c.fbest {
        Some(f) => Some(load::filter_eq(&f.df, &[("b", "32"), ("wa", "79"), ("wb", "5")])?).filter(|d| d.height() > 0),
        None => None,
    };
    if c.rajahx.is_none() {
        s.missing.push(missing("the chess program's f_best summary", "fbest/rajahx.csv", "make results/fbest/rajahx.csv"));
    }
    if art.is_none() {
        s.missing.push(missing("f_best of the (32, 79, 5) trees", "fbest/tg1-32-79-5-d7.csv", "make chapter4"));
    }
    let (Some(raj), Some(art)) = (&c.rajahx, art) else { return Ok(s) };
    // Join on n in polars: the chess rows are 1..10, the artificial 1..b.
    let r = raj.df.clone().lazy().select([
        col("n"),
        col("fbest").alias("chess_fbest"),
        col("pbest").alias("chess_pbest"),
        col("b").alias("chess_b"),
        col("trees").alias("positions"),
    ]);
    let a = art.clone().lazy().select([col("n"), col("fbest").alias("art_fbest"), col("pbest").alias("art_pbest"), col("depth"), col("trees")]);
    let j = pl(r.join(a, [col("n")], [col("n")], load::join_args(JoinType::Left)).collect(), "joining f_best tables")?;
    let mut rows = vec![];
    for i in 0..j.height() {
        let (cp, ap) = (load::num(&j, "chess_pbest", i), load::num(&j, "art_pbest", i));
        rows.push(vec![
            Cell::Text(load::text(&j, "n", i).unwrap_or_default()),
            Cell::number(load::num(&j, "chess_fbest", i), 0),
            Cell::number(cp, 6),
            Cell::number(load::num(&j, "art_fbest", i), 0),
            Cell::number(ap, 6),
            match (cp, ap) {
                // Enough decimals that a small difference does not print as 0.00.
                (Some(cp), Some(ap)) => Cell::Num((ap - cp) * 100.0, super::doc::sig_decimals((ap - cp) * 100.0, 2)),
                _ => Cell::Empty,
            },
        ]);
    }
    let chess_b = load::num(&j, "chess_b", 0).unwrap_or(f64::NAN);
    let depth = load::int(&j, "depth", 0).unwrap_or(0);
    let trees = load::int(&j, "trees", 0).unwrap_or(0);
    s.tables.push(Table {
        id: "table-4-3".into(),
        caption: "Tables 4.1–4.3: f_best and p_best by move position, chess program vs. artificial trees (32, 79, 5)".into(),
        header: ["n", "chess f_best", "chess p_best", "artificial f_best", "artificial p_best", "artificial − chess (points)"].map(String::from).to_vec(),
        rows,
        groups: vec![],
        note: format!(
            "Chess: `fbest/rajahx.csv` ({} positions, average branching factor {chess_b:.2}). Artificial: `{}` ({trees} trees, depth {depth}).",
            load::int(&j, "positions", 0).unwrap_or(0),
            art_name(c)
        ),
    });
    let p1 = (load::num(&j, "chess_pbest", 0), load::num(&j, "art_pbest", 0));
    if let (Some(cp), Some(ap)) = p1 {
        s.findings.push(format!(
            "The first move is best at {:.1}% of the chess program's nodes and {:.1}% of the artificial trees' ({:+.1} points); the chess program's average branching factor is {chess_b:.1} against the trees' 32.",
            cp * 100.0,
            ap * 100.0,
            (ap - cp) * 100.0
        ));
    }
    let f = figure_4_5(&j, games, &mut s)?;
    b.add_figure(&mut s, f);
    s.settings.push(format!("Artificial trees: seed set tg_1 (`data/tg1.txt`), {trees} trees, ordering (32, 79, 5), depth {depth}: `treegen --set tg1 --ordering 32,79,5 --depth {depth} | fbest`. Chess: `fbest --rajahx data/rajahx-fbest.csv`."));
    Ok(s)
}

fn art_name(c: &Ch4) -> String {
    c.fbest.as_ref().map(|f| f.name.clone()).unwrap_or_default()
}

fn table_4_4(c: &Ch4, p: &mut Published) -> Result<Section> {
    let mut s = Section {
        id: "table-4-4".into(),
        chapter: 4,
        title: "Table 4.4: f_best and p_best on the artificial trees".into(),
        what: "For every internal node where some move raised the score, the position (in search order) of the move that was best; f_best(n) counts the nodes whose best move was the n-th, p_best(n) is its share. Searched with the sequential alpha-beta of the thesis; counts should be exact.".into(),
        ..Default::default()
    };
    match &c.fbest {
        None => s.missing.push(missing("f_best of the artificial trees", "fbest/tg1-32-79-5-d7.csv", "make chapter4")),
        Some(f) => {
            for (bb, wa, wb) in load::orderings(&f.df) {
                let d = load::filter_eq(&f.df, &[("b", &bb), ("wa", &wa), ("wb", &wb)])?;
                let mut rows = vec![];
                let mut cum = 0.0;
                for i in 0..d.height().min(10) {
                    let pb = load::num(&d, "pbest", i).unwrap_or(0.0);
                    cum += pb;
                    rows.push(vec![
                        Cell::Text(load::text(&d, "n", i).unwrap_or_default()),
                        Cell::number(load::num(&d, "fbest", i), 0),
                        Cell::Num(pb, 6),
                        Cell::Num(cum, 6),
                    ]);
                }
                let depth = load::int(&d, "depth", 0).unwrap_or(0);
                let trees = load::int(&d, "trees", 0).unwrap_or(0);
                let total: f64 = (0..d.height()).filter_map(|i| load::num(&d, "fbest", i)).sum();
                s.tables.push(Table {
                    id: format!("table-4-4-{bb}-{wa}-{wb}"),
                    caption: format!("Table 4.4: f_best(1..10) and p_best(1..10), ordering {}, depth {depth}, {trees} trees", ordering_label(&bb, &wa, &wb)),
                    header: ["n", "f_best", "p_best", "cumulative p_best"].map(String::from).to_vec(),
                    rows,
                    groups: vec![],
                    note: format!("From `{}`; {} nodes recorded a best move (positions 1..{}).", f.name, super::doc::group(total as i64), d.height()),
                });
                if let Some(p1) = load::num(&d, "pbest", 0) {
                    s.findings.push(format!(
                        "Ordering {}: the first move is best at {:.2}% of the {} contributing nodes.",
                        ordering_label(&bb, &wa, &wb),
                        p1 * 100.0,
                        super::doc::group(total as i64)
                    ));
                }
                s.settings.push(format!("Ordering {}: seed set tg_1 (`data/tg1.txt`), {trees} trees, depth {depth}: `treegen --set tg1 --ordering {bb},{wa},{wb} --depth {depth} | fbest`.", ordering_label(&bb, &wa, &wb)));
            }
        }
    }
    let cmp = p.take(&["4.4"]);
    if cmp.is_empty() {
        s.findings.push("We hold no published copy of Table 4.4 yet (`data/published/table-4.4-*.csv`); when one is added it is compared here.".into());
    }
    for c in cmp {
        add_comparison(&mut s, c)?;
    }
    Ok(s)
}

fn table_4_5(c: &Ch4, p: &mut Published) -> Result<Section> {
    let mut s = Section {
        id: "table-4-5".into(),
        chapter: 4,
        title: "Table 4.5: analytic p_n for ordering (20, 69, 19)".into(),
        what: "The probability that the move in position n is best, computed from the ordering's parameters alone (thesis equations 4.1–4.2), with its running total. No search is involved, so ours and the thesis's should agree to every printed decimal.".into(),
        ..Default::default()
    };
    if c.analytic.is_none() {
        s.missing.push(missing("analytic p_n", "fbest/analytic.csv", "make results/fbest/analytic.csv"));
    }
    let cmp = p.take(&["4.5"]);
    if cmp.is_empty()
        && let Some(a) = &c.analytic
    {
        let d = load::filter_eq(&a.df, &[("b", "20"), ("wa", "69"), ("wb", "19")])?;
        let rows = (0..d.height())
            .map(|i| {
                vec![
                    Cell::Text(load::text(&d, "n", i).unwrap_or_default()),
                    Cell::number(load::num(&d, "p_n", i), 6),
                    Cell::number(load::num(&d, "cumulative", i), 6),
                ]
            })
            .collect();
        s.tables.push(Table {
            id: "table-4-5".into(),
            caption: "Table 4.5: analytic p_n, (20, 69, 19)".into(),
            header: vec!["n".into(), "p_n".into(), "cumulative".into()],
            rows,
            groups: vec![],
            note: "From `fbest/analytic.csv`.".into(),
        });
    }
    for c in cmp {
        add_comparison(&mut s, c)?;
    }
    s.settings.push("`fbest --analytic --ordering 20,69,19` (no trees, no seeds).".into());
    Ok(s)
}

fn figure_4_6(c: &Ch4, b: &mut Builder) -> Result<Section> {
    let mut s = Section {
        id: "figure-4-6".into(),
        chapter: 4,
        title: "Figure 4.6: analytic p_n of the five orderings".into(),
        what: "The analytic probability that the n-th move is best for each ordering: the stronger the ordering knowledge w_a, w_b, the steeper the fall from the first move. (32, 0, 0) orders randomly, so every position is equally likely.".into(),
        ..Default::default()
    };
    let Some(a) = &c.analytic else {
        s.missing.push(missing("analytic p_n", "fbest/analytic.csv", "make results/fbest/analytic.csv"));
        return Ok(s);
    };
    let mut series = vec![];
    let mut args = vec![];
    let mut exact_curves = true;
    for (bb, wa, wb) in load::orderings(&a.df) {
        let d = load::filter_eq(&a.df, &[("b", &bb), ("wa", &wa), ("wb", &wb)])?;
        let p1 = load::num(&d, "p_n", 0).unwrap_or(0.0);
        s.findings.push(format!("{}: p_1 = {p1:.6}.", ordering_label(&bb, &wa, &wb)));
        let csv = points(&d, "n", "p_n");
        // The CSV prints a fixed number of decimals, so the steepest
        // orderings' tails print as 0 and would vanish from a log axis: the
        // curve is drawn from the same equations at full precision, after
        // checking that they give every printed value.
        let pts = match full_precision(&bb, &wa, &wb, &csv, a.decimals.get("p_n").copied().unwrap_or(6)) {
            Some(p) => p,
            None => {
                exact_curves = false;
                csv
            }
        };
        series.push(Series { name: ordering_label(&bb, &wa, &wb), points: pts });
        args.push(format!("--ordering {bb},{wa},{wb}"));
    }
    let f = figure(
        "figure-4-6",
        &format!(
            "Figure 4.6: analytic p_n against move position n for each ordering, log scale{}.",
            if exact_curves {
                "; drawn from equations 4.1–4.2 at full precision (they give every value of `fbest/analytic.csv`, whose fixed decimals print the smallest as 0)"
            } else {
                ""
            }
        ),
        Plot::Lines { title: "analytic p_n".into(), x_label: "move position n".into(), y_label: "p_n".into(), log_y: true, series, marks: vec![] },
    )?;
    b.add_figure(&mut s, f);
    s.settings.push(format!("`fbest --analytic {}`.", args.join(" ")));
    Ok(s)
}

/// p_n of an ordering at full precision for the positions of `csv`, if the
/// equations give every printed value there (to its `decimals`).
fn full_precision(b: &str, wa: &str, wb: &str, csv: &[(f64, f64)], decimals: usize) -> Option<Vec<(f64, f64)>> {
    let o = parab::tree::artificial::Ordering::new(b.parse().ok()?, wa.parse().ok()?, wb.parse().ok()?).ok()?;
    let half = 0.5 * 10f64.powi(-(decimals as i32)) * (1.0 + 1e-9);
    let pts: Vec<(f64, f64)> = csv.iter().map(|&(n, _)| (n, parab::tree::artificial::analytic_p(o, n as u32))).collect();
    csv.iter().zip(&pts).all(|(c, p)| (c.1 - p.1).abs() <= half).then_some(pts)
}

/// Adds chapter 4's sections.
pub fn sections(c: &Ch4, games: &Games, p: &mut Published, b: &mut Builder) -> Result<()> {
    let s = chess_vs_artificial(c, games, b)?;
    let mut s = s;
    for cmp in p.take(&["4.1", "4.2", "4.3"]) {
        add_comparison(&mut s, cmp)?;
    }
    b.sections.push(s);
    let s = table_4_4(c, p)?;
    b.sections.push(s);
    let s = table_4_5(c, p)?;
    b.sections.push(s);
    let s = figure_4_6(c, b)?;
    b.sections.push(s);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_4_6_draws_the_tail_the_csv_rounds_to_zero() {
        // (32, 66, 66) at n = 32 is about 1e-15: nine decimals print 0.
        let csv: Vec<(f64, f64)> = (1..=32)
            .map(|n| (n as f64, (parab::tree::artificial::analytic_p(parab::tree::artificial::Ordering::new(32, 66, 66).unwrap(), n) * 1e9).round() / 1e9))
            .collect();
        assert_eq!(csv[31].1, 0.0);
        let pts = full_precision("32", "66", "66", &csv, 9).unwrap();
        assert_eq!(pts.len(), 32);
        assert!(pts[31].1 > 0.0 && pts[31].1 < 1e-12, "{:?}", pts[31]);
        // A CSV the equations do not give is drawn as it is.
        let mut wrong = csv.clone();
        wrong[0].1 += 0.01;
        assert!(full_precision("32", "66", "66", &wrong, 9).is_none());
    }
}
