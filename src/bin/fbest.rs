//! `fbest`: move-ordering statistics of searched trees (thesis §4.3).

use clap::Parser;
use parab::cli::{self, Input, Output, write_csv};
use parab::fbest::{self, FitMethod};
use parab::formats::{ChessFbestRow, FitRow, GameFbestRow, RajahxRow, read_csv};
use parab::progress::Progress;
use parab::tree::artificial::Ordering;
use parab::tree::{TreeKind, kind_only, read_trees};
use std::path::PathBuf;

/// Search trees and count how often the move in position n was best
/// (f_best, p_best); or print the analytic p_n of an ordering; or summarize
/// the chess program's statistics in the same columns.
///
/// Tree specs of game positions (`treegen --game`) give their own tables:
/// `game,depth,trees,b,n,fbest,pbest` (b: legal moves per contributing
/// node) and, with --per-tree, one row per position with its node counts,
/// root value and best move. Incremental random trees (`treegen --model
/// incremental`) give theirs: `b,scale,depth,trees,n,fbest,pbest`.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples:\n  treegen --set tg1 --ordering 32,79,5 --depth 7 | fbest\n  treegen --set tg1 --ordering 32,0,0 --depth 6 | fbest --per-tree -o /tmp/per-tree.csv\n  fbest --analytic --ordering 20,69,19 --ordering 32,79,5\n  fbest --rajahx data/rajahx-fbest.csv\n  treegen --game chess --positions data/positions/bratko-kopec.epd --depth 6 | fbest -o /tmp/chess.csv\n  fbest --fit /tmp/chess.csv\n  treegen --model incremental --branching 5 --depth 6 --count 8 | fbest --accuracy 4"
)]
struct Args {
    /// Tree specs (JSON lines from treegen); `-` or absent for stdin.
    input: Option<PathBuf>,
    /// One row per tree (nodes, leaves, internal, contributing, root value).
    #[arg(long, conflicts_with_all = ["analytic", "rajahx"])]
    per_tree: bool,
    /// No input: the analytic p_n of each --ordering (equations 4.1-4.2).
    #[arg(long, requires = "ordering", conflicts_with = "rajahx")]
    analytic: bool,
    /// Ordering B,WA,WB for --analytic (repeatable).
    #[arg(long, requires = "analytic")]
    ordering: Vec<Ordering>,
    /// No tree input: the chess program's f_best file, summed.
    #[arg(long, value_name = "CSV")]
    rajahx: Option<PathBuf>,
    /// No tree input: fit the exponential ordering (b = the average branching
    /// factor, rounded; w_a, w_b in 0..100, least squares over n = 1..10) to
    /// a game's f_best table (from fbest) or the chess program's (--rajahx),
    /// against the analytic p_n and against searched artificial trees: two rows.
    #[arg(long, value_name = "CSV", conflicts_with_all = ["analytic", "rajahx", "per_tree"])]
    fit: Option<PathBuf>,
    /// --fit: artificial trees (the first of tg1) searched per ordering.
    #[arg(long, default_value_t = 10, requires = "fit")]
    fit_trees: usize,
    /// --fit: their depth (odd like the chess tables' 7; deeper costs minutes).
    #[arg(long, default_value_t = 5, requires = "fit")]
    fit_depth: u32,
    /// Instead of f_best: the ordering accuracy, the share of nodes whose
    /// best child by a depth-K search is still best by a depth-(K+2) search
    /// (Ura et al. 2014), per group of trees; the specs' depths are not used.
    #[arg(long, value_name = "K", conflicts_with_all = ["per_tree", "analytic", "rajahx", "fit"])]
    accuracy: Option<u32>,
    /// --accuracy: the nodes measured are every node at plies 0..N of each tree.
    #[arg(long, default_value_t = 2, value_name = "N", requires = "accuracy")]
    accuracy_plies: u32,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Reads an f_best table of a game or of the chess program and fits it.
fn fit(path: &std::path::Path, trees: usize, depth: u32) -> anyhow::Result<Vec<FitRow>> {
    anyhow::ensure!((1..=100).contains(&trees), "--fit-trees must lie in 1..100 (tg1 has 100 trees)");
    anyhow::ensure!((1..=8).contains(&depth), "--fit-depth must lie in 1..8");
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("cannot read {name}: {e}"))?;
    let text = cli::strip_bom(&text);
    let (data, avg_b, pbest) = if text.starts_with("game,") {
        let rows: Vec<GameFbestRow> = read_csv(Input::from_string(&name, text))?;
        let first = rows.first().ok_or_else(|| anyhow::anyhow!("{name}: no rows"))?;
        anyhow::ensure!(rows.iter().all(|r| (r.game, r.depth) == (first.game, first.depth)), "{name}: fit one game and depth at a time");
        (format!("{} depth {}", first.game, first.depth), first.b, rows.iter().take(10).map(|r| r.pbest).collect::<Vec<_>>())
    } else {
        let rows: Vec<ChessFbestRow> = read_csv(Input::from_string(&name, text))?;
        let first = rows.first().ok_or_else(|| anyhow::anyhow!("{name}: no rows"))?;
        let b: f64 = first.b.parse().map_err(|_| anyhow::anyhow!("{name}: b `{}` is not a number", first.b))?;
        ("rajahx".to_string(), b, rows.iter().take(10).map(|r| r.pbest).collect())
    };
    // A NaN or infinite value would fit to a NaN error without a word.
    anyhow::ensure!(avg_b.is_finite() && (2.0..=4096.0).contains(&avg_b), "the average branching factor {avg_b} is not a number in 2..4096 ({name}:2)");
    for (i, p) in pbest.iter().enumerate() {
        anyhow::ensure!(p.is_finite() && (0.0..=1.0).contains(p), "p_best {p} at n = {} is not a probability in [0, 1] ({name}:{})", i + 1, i + 2);
    }
    let b = avg_b.round() as u32;
    let mut rows = vec![];
    for method in [FitMethod::Analytic, FitMethod::Searched { trees, depth }] {
        let (o, sse) = fbest::fit(&pbest, b, method)?;
        let (name, t, d) = match method {
            FitMethod::Analytic => ("analytic", None, None),
            FitMethod::Searched { trees, depth } => ("searched", Some(trees as u32), Some(depth)),
        };
        rows.push(FitRow {
            data: data.clone(),
            method: name.into(),
            trees: t,
            depth: d,
            avg_b,
            b: o.b,
            wa: o.wa,
            wb: o.wb,
            positions: pbest.len() as u32,
            sse,
        });
    }
    Ok(rows)
}

fn main() {
    let args: Args = cli::parse("fbest");
    cli::main("fbest", || {
        cli::threads(args.threads)?;
        cli::check_outputs(&[("-o", args.output.as_deref())])?;
        // These modes read no tree specs: an input file given with one of
        // them would be ignored without a word (even a missing one).
        let mode = [(args.analytic, "--analytic"), (args.rajahx.is_some(), "--rajahx"), (args.fit.is_some(), "--fit")].into_iter().find(|m| m.0);
        if let (Some((_, mode)), Some(input)) = (mode, &args.input) {
            anyhow::bail!("{mode} reads no tree specs, but an input `{}` was given (drop it, or drop {mode})", input.display());
        }
        if args.analytic {
            cli::no_repeats("--ordering", &args.ordering)?;
            let mut out = Output::create(args.output.as_deref())?;
            write_csv(&mut out, fbest::analytic(&args.ordering))?;
            return Ok(out.finish()?);
        }
        if let Some(path) = &args.rajahx {
            let rows: Vec<RajahxRow> = read_csv(Input::open(Some(path))?)?;
            let rows = fbest::chess(&rows, &path.display().to_string())?;
            let mut out = Output::create(args.output.as_deref())?;
            write_csv(&mut out, rows)?;
            return Ok(out.finish()?);
        }
        if let Some(path) = &args.fit {
            let rows = fit(path, args.fit_trees, args.fit_depth)?;
            let mut out = Output::create(args.output.as_deref())?;
            write_csv(&mut out, rows)?;
            return Ok(out.finish()?);
        }
        let input = Input::open(args.input.as_deref())?;
        let name = input.name.clone();
        let trees = read_trees(input)?;
        let kind = kind_only(&trees, &name)?;
        let progress = Progress::new("fbest", trees.len() as u64, "trees");
        if let Some(k) = args.accuracy {
            anyhow::ensure!(k >= 1, "--accuracy 0: the best child needs a search of depth 1 or more");
            anyhow::ensure!((1..=4).contains(&args.accuracy_plies), "--accuracy-plies {} must lie in 1..4", args.accuracy_plies);
            let rows = fbest::accuracy::accuracy(&trees, k, args.accuracy_plies, &progress);
            progress.finish();
            let mut out = Output::create(args.output.as_deref())?;
            write_csv(&mut out, rows)?;
            return Ok(out.finish()?);
        }
        let results = fbest::trees_fbest(&trees, &progress);
        progress.finish();
        let mut out = Output::create(args.output.as_deref())?;
        match (kind, args.per_tree) {
            (TreeKind::Artificial, true) => write_csv(&mut out, fbest::per_tree(&trees, &results))?,
            (TreeKind::Artificial, false) => write_csv(&mut out, fbest::summarize(&trees, &results))?,
            (TreeKind::Incremental, true) => write_csv(&mut out, fbest::per_incremental_tree(&trees, &results))?,
            (TreeKind::Incremental, false) => write_csv(&mut out, fbest::summarize_incremental(&trees, &results))?,
            (TreeKind::Game, true) => write_csv(&mut out, fbest::per_position(&trees, &results))?,
            (TreeKind::Game, false) => write_csv(&mut out, fbest::summarize_games(&trees, &results))?,
        }
        Ok(out.finish()?)
    })
}
