//! Beyond the thesis: the measurements of chapters 4–6 on real game trees,
//! chess (the 24 Bratko–Kopec positions) and Othello, as `make games`
//! (`pipelines/beyond-games.sh`) leaves them under `results/games/`.
//!
//! The files are the tools' own tables, read with their serde types (so a
//! malformed file stops the report with its file and line); the few sums
//! and best rows are plain Rust.

use super::doc::{Cell, Section, Table};
use super::{Builder, missing};
use anyhow::Result;
use parab::cli::Input;
use parab::formats::{ChessFbestRow, FbestRow, FitRow, GameClassifyRow, GameFbestRow, GamePerTreeRow, SimRow, read_csv};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// What `make games` produced (each list empty if its files are missing).
#[derive(Default)]
pub struct Games {
    /// f_best of game positions, all files.
    pub fbest: Vec<GameFbestRow>,
    /// Per-position rows.
    pub per_tree: Vec<GamePerTreeRow>,
    /// The chess program's f_best summary.
    pub rajahx: Vec<ChessFbestRow>,
    /// Fitted orderings.
    pub fits: Vec<FitRow>,
    /// Classification rows.
    pub classify: Vec<GameClassifyRow>,
    /// Simulation rows (per configuration).
    pub pabsim: Vec<SimRow>,
    /// f_best of the artificial trees of the fitted ordering (`fitted/`).
    pub fitted: Vec<FbestRow>,
    /// The files read, for the notes.
    pub files: Vec<String>,
}

fn read_all<T: DeserializeOwned>(paths: &[PathBuf], files: &mut Vec<String>) -> Result<Vec<T>> {
    let mut out = vec![];
    for p in paths {
        out.extend(read_csv::<T>(Input::open(Some(p))?)?);
        files.push(p.display().to_string());
    }
    Ok(out)
}

/// Reads `RESULTS/games/`.
pub fn load(results: &Path) -> Result<Games> {
    let dir = results.join("games");
    let mut g = Games::default();
    let csvs = |sub: &str, keep: &dyn Fn(&str) -> bool| super::load::files(&dir.join(sub), |n| n.ends_with(".csv") && keep(n));
    g.fbest = read_all(&csvs("fbest", &|n| n != "rajahx.csv" && !n.contains("per-tree")), &mut g.files)?;
    g.per_tree = read_all(&csvs("fbest", &|n| n.contains("per-tree")), &mut g.files)?;
    g.rajahx = read_all(&csvs("fbest", &|n| n == "rajahx.csv"), &mut g.files)?;
    g.fits = read_all(&csvs("fit", &|_| true), &mut g.files)?;
    g.classify = read_all(&csvs("classify", &|_| true), &mut g.files)?;
    g.pabsim = read_all(&csvs("pabsim", &|n| !n.ends_with("-p1.csv")), &mut g.files)?;
    g.fitted = read_all(&csvs("fitted", &|_| true), &mut g.files)?;
    Ok(g)
}

impl Games {
    /// The chess f_best rows of the deepest search, if any.
    pub fn chess_fbest(&self) -> Vec<&GameFbestRow> {
        let deepest = self.fbest.iter().filter(|r| r.game.name() == "chess").map(|r| r.depth).max();
        self.fbest.iter().filter(|r| r.game.name() == "chess" && Some(r.depth) == deepest).collect()
    }

    /// The searched fit of a data set (`chess depth 7`, `rajahx`, ...).
    pub fn fit(&self, data_prefix: &str, method: &str) -> Option<&FitRow> {
        self.fits.iter().find(|f| f.data.starts_with(data_prefix) && f.method == method)
    }
}

/// `(b, wa, wb)` as the thesis writes it.
fn ordering(f: &FitRow) -> String {
    format!("({}, {}, {})", f.b, f.wa, f.wb)
}

/// The report's section on real games.
pub fn sections(g: &Games, artificial: Option<Vec<(u32, f64)>>, b: &mut Builder) -> Result<()> {
    let mut s = Section {
        id: "games".into(),
        chapter: 7,
        title: "Real games: chess and Othello".into(),
        what: "The thesis's measurements on trees of real games, searched by a program anyone can run: chess (legal moves from cozy-chess; material and piece-square evaluation; captures by most valuable victim / least valuable attacker, then promotions, then quiet moves by their piece-square gain) on the 24 Bratko–Kopec positions — the positions the thesis's chess program was measured on — and Othello (magpie bitboards; mobility and corners, discs at the end) on 24 positions from seeded random play. Fixed-depth fail-hard alpha-beta, exactly the search of the artificial trees, so node types mean the same thing. Networks are trained on separate seeded training positions, as the thesis trains on tg_2 and scores on tg_1.".into(),
        ..Default::default()
    };
    if g.fbest.is_empty() && g.classify.is_empty() && g.pabsim.is_empty() {
        s.missing.push(missing("the real-game results", "games/", "make games"));
        b.sections.push(s);
        return Ok(());
    }
    pbest_table(g, artificial, &mut s);
    fit_table(g, &mut s);
    classify_table(g, &mut s);
    pabsim_table(g, &mut s);
    s.settings.push("`make games` (`pipelines/beyond-games.sh`): positions in `data/positions/` (provenance in its README); chess f_best at depth 7, training trees at depth 4, classification at depth 6, simulation at depth 5; Othello at 8, 4, 6 and 6; networks: `nntrain --seed 1 --iterations 10000`; simulation with m_A = 2, m_B = 1, m_Ca = m_Cc = 0 and scheme C's width at the best m of the classification.".into());
    s.settings.push(format!("Files: {}.", g.files.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")));
    b.sections.push(s);
    Ok(())
}

fn pbest_table(g: &Games, artificial: Option<Vec<(u32, f64)>>, s: &mut Section) {
    let chess = g.chess_fbest();
    let othello: Vec<&GameFbestRow> = {
        let d = g.fbest.iter().filter(|r| r.game.name() == "othello").map(|r| r.depth).max();
        g.fbest.iter().filter(|r| r.game.name() == "othello" && Some(r.depth) == d).collect()
    };
    if chess.is_empty() && othello.is_empty() {
        return;
    }
    let at = |rows: &[&GameFbestRow], n: u32| rows.iter().find(|r| r.n == n).map(|r| r.pbest);
    let raj = |n: u32| g.rajahx.iter().find(|r| r.n == n).map(|r| r.pbest);
    let art = |n: u32| artificial.as_ref().and_then(|a| a.iter().find(|p| p.0 == n).map(|p| p.1));
    let rows = (1..=10)
        .map(|n| vec![Cell::Int(n as i64), Cell::number(at(&chess, n), 6), Cell::number(raj(n), 6), Cell::number(art(n), 6), Cell::number(at(&othello, n), 6)])
        .collect();
    let desc = |rows: &[&GameFbestRow]| {
        rows.first().map(|r| format!("{} positions, depth {}, average branching factor {:.2}", r.trees, r.depth, r.b)).unwrap_or_default()
    };
    s.tables.push(Table {
        id: "games-pbest".into(),
        caption: "p_best(n) of our chess and Othello programs beside the thesis's chess program and the (32, 79, 5) trees".into(),
        header: ["n", "chess (ours)", "chess program (RajahX)", "artificial (32, 79, 5)", "Othello (ours)"].map(String::from).to_vec(),
        rows,
        groups: vec![],
        note: format!("Chess: {}. Othello: {}. RajahX: `data/rajahx-fbest.csv`. Artificial: the tg_1 trees of Table 4.4.", desc(&chess), desc(&othello)),
    });
    if let (Some(c1), Some(r1)) = (at(&chess, 1), raj(1)) {
        s.findings.push(format!(
            "Our chess program's first move is best at {:.1}% of its nodes (the thesis's program: {:.1}%; the (32, 79, 5) trees: {}).",
            c1 * 100.0,
            r1 * 100.0,
            art(1).map(|a| format!("{:.1}%", a * 100.0)).unwrap_or_else(|| "not run".into())
        ));
    }
    if let Some(o1) = at(&othello, 1) {
        s.findings.push(format!("Othello, ordered by a static square table: the first move is best at {:.1}% of the nodes.", o1 * 100.0));
    }
}

fn fit_table(g: &Games, s: &mut Section) {
    if g.fits.is_empty() {
        return;
    }
    let rows = g
        .fits
        .iter()
        .map(|f| {
            let how = match (f.trees, f.depth) {
                (Some(t), Some(d)) => format!("searched: {t} tg_1 trees, depth {d}"),
                _ => "analytic p_n".into(),
            };
            vec![Cell::Text(f.data.clone()), Cell::Text(how), Cell::Num(f.avg_b, 2), Cell::Text(ordering(f)), Cell::Num(f.sse, 9)]
        })
        .collect();
    s.tables.push(Table {
        id: "games-fit".into(),
        caption: "The exponential ordering (b, w_a, w_b) closest to each p_best curve".into(),
        header: ["data", "fitted against", "average b", "(b, w_a, w_b)", "squared error, n = 1..10"].map(String::from).to_vec(),
        rows,
        groups: vec![],
        note: "`fbest --fit`: b is the average branching factor rounded; w_a and w_b run over 0..100 and the least sum of squared differences of p_best(1..10) wins. Analytic: against equations 4.1–4.2. Searched: against artificial trees of the ordering searched as ours are (a grid in steps of 5, then every integer within 4 of its best).".into(),
    });
    if let (Some(ours), Some(raj)) = (g.fit("chess", "searched"), g.fit("rajahx", "searched")) {
        s.findings.push(format!(
            "Fitted the same way (searched trees), the thesis's chess program gives {} (the thesis chose (32, 79, 5)), and ours {}.",
            ordering(raj),
            ordering(ours)
        ));
    }
}

fn classify_table(g: &Games, s: &mut Section) {
    if g.classify.is_empty() {
        return;
    }
    let mut rows = vec![];
    for r in g.classify.iter().filter(|r| r.best == 1) {
        rows.push(vec![
            Cell::Text(format!("{} depth {}", r.game, r.depth)),
            Cell::Text(r.scheme.to_uppercase()),
            r.param.map_or(Cell::Empty, |p| Cell::Int(p as i64)),
            Cell::Int(r.true_cut as i64),
            Cell::Int(r.false_cut as i64),
            Cell::Int(r.true_all as i64),
            Cell::Int(r.false_all as i64),
            Cell::Int(r.error as i64),
            Cell::Num(100.0 * r.error as f64 / r.scored.max(1) as f64, 2),
        ]);
    }
    s.tables.push(Table {
        id: "games-classify".into(),
        caption: "Node classification on real trees: each scheme at its best parameter (Table 5.4's columns)".into(),
        header: ["trees", "scheme", "n or m", "True_CUT", "False_CUT", "True_ALL", "False_ALL", "error", "error, % of scored"].map(String::from).to_vec(),
        rows,
        groups: vec![],
        note: "Scheme A has no parameter; B's n and C's m are the best of n = 1..8 and m = 0..50. Scored: internal nodes off the PV path.".into(),
    });
    for game in ["chess", "othello"] {
        let best = |sch: &str| g.classify.iter().find(|r| r.game.name() == game && r.scheme == sch && r.best == 1);
        if let (Some(a), Some(c)) = (best("a"), best("c")) {
            let d = (c.error as f64 - a.error as f64) / a.error as f64 * 100.0;
            let verdict = if c.error < a.error {
                "beats"
            } else if c.error == a.error {
                "ties"
            } else {
                "does not beat"
            };
            s.findings.push(format!(
                "{game}: scheme C (m = {}) {verdict} scheme A: {} errors against {} ({d:+.1}%), of {} scored nodes.",
                c.param.unwrap_or(0),
                super::doc::group(c.error as i64),
                super::doc::group(a.error as i64),
                super::doc::group(a.scored as i64)
            ));
        }
    }
}

fn pabsim_table(g: &Games, s: &mut Section) {
    let rows: Vec<&SimRow> = g.pabsim.iter().filter(|r| r.procs > 1 && r.tree.is_none()).collect();
    if rows.is_empty() {
        return;
    }
    let table = rows
        .iter()
        .map(|r| {
            vec![
                Cell::Text(format!("{} depth {}", r.model, r.depth)),
                Cell::Text(r.scheme.to_uppercase()),
                Cell::Int(r.procs as i64),
                Cell::Int(r.tp_ticks as i64),
                Cell::Int(r.np_nodes as i64),
                Cell::number(r.su, 2),
                Cell::number(r.so, 3),
                Cell::number(r.css, 3),
            ]
        })
        .collect();
    s.tables.push(Table {
        id: "games-pabsim".into(),
        caption: "The simulated machine on real trees: speed-up, search overhead and CSS at p = 12, 24, 48".into(),
        header: ["trees", "scheme", "p", "t_p (ticks)", "n_p (nodes)", "SU", "SO", "CSS"].map(String::from).to_vec(),
        rows: table,
        groups: vec![],
        note: "`pabsim` with the default parameters (m_A = 2, m_B = 1, m_Ca = m_Cc = 0) and scheme C's width at the classification's best m; SU, SO and CSS against the p = 1 run of the same positions.".into(),
    });
    for game in ["chess", "othello"] {
        let at48: Vec<&&SimRow> = rows.iter().filter(|r| r.model.name() == game && r.procs == 48).collect();
        if let Some(best) = at48.iter().max_by(|a, b| a.su.unwrap_or(0.0).total_cmp(&b.su.unwrap_or(0.0))) {
            let all: Vec<String> = at48.iter().map(|r| format!("{} {:.2}", r.scheme.to_uppercase(), r.su.unwrap_or(f64::NAN))).collect();
            s.findings.push(format!(
                "{game} at p = 48: speed-ups {}; the best, scheme {}, with search overhead {:.2}.",
                all.join(", "),
                best.scheme.to_uppercase(),
                best.so.unwrap_or(f64::NAN)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_findings_group_thousands() {
        // The real chess run's rows: the finding printed "166442 errors".
        let text = "game,depth,trees,scheme,param,true_cut,false_cut,true_all,false_all,error,scored,best\n\
                    chess,6,24,a,,3051149,97998,212017,69299,167297,3430463,1\n\
                    chess,6,24,c,24,3061127,107121,202894,59321,166442,3430463,1\n";
        let g = Games { classify: read_csv(Input::from_string("c.csv", text)).unwrap(), ..Default::default() };
        let mut s = Section::default();
        classify_table(&g, &mut s);
        assert_eq!(s.findings, ["chess: scheme C (m = 24) beats scheme A: 166,442 errors against 167,297 (-0.5%), of 3,430,463 scored nodes."]);
    }
}
