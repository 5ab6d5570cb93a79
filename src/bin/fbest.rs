//! `fbest`: move-ordering statistics of searched trees (thesis §4.3).

use clap::Parser;
use parab::cli::{self, Input, Output, write_csv};
use parab::fbest;
use parab::formats::{RajahxRow, games_only, read_csv, read_trees};
use parab::progress::Progress;
use parab::tree::Ordering;
use std::path::PathBuf;

/// Search trees and count how often the move in position n was best
/// (f_best, p_best); or print the analytic p_n of an ordering; or summarize
/// the chess program's statistics in the same columns.
///
/// Tree specs of game positions (`treegen --game`) give their own tables:
/// `game,depth,trees,b,n,fbest,pbest` (b: legal moves per contributing
/// node) and, with --per-tree, one row per position with its node counts,
/// root value and best move.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples:\n  treegen --set tg1 --ordering 32,79,5 --depth 7 | fbest\n  treegen --set tg1 --ordering 32,0,0 --depth 6 | fbest --per-tree -o per-tree.csv\n  fbest --analytic --ordering 20,69,19 --ordering 32,79,5\n  fbest --rajahx data/rajahx-fbest.csv\n  treegen --game chess --positions data/positions/bratko-kopec.epd --depth 6 | fbest"
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
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn main() {
    let args: Args = cli::parse("fbest");
    cli::main("fbest", || {
        cli::threads(args.threads)?;
        if args.analytic {
            cli::no_repeats("--ordering", &args.ordering)?;
            let mut out = Output::create(args.output.as_deref())?;
            write_csv(&mut out, fbest::analytic(&args.ordering))?;
            return Ok(out.finish()?);
        }
        if let Some(path) = &args.rajahx {
            let rows: Vec<RajahxRow> = read_csv(Input::open(Some(path))?)?;
            let rows = fbest::chess(&rows)?;
            let mut out = Output::create(args.output.as_deref())?;
            write_csv(&mut out, rows)?;
            return Ok(out.finish()?);
        }
        let input = Input::open(args.input.as_deref())?;
        let name = input.name.clone();
        let trees = read_trees(input)?;
        let games = games_only(&trees, &name)?;
        let progress = Progress::new("fbest", trees.len() as u64, "trees");
        let results = fbest::trees_fbest(&trees, &progress);
        progress.finish();
        let mut out = Output::create(args.output.as_deref())?;
        match (games, args.per_tree) {
            (false, true) => write_csv(&mut out, fbest::per_tree(&trees, &results))?,
            (false, false) => write_csv(&mut out, fbest::summarize(&trees, &results))?,
            (true, true) => write_csv(&mut out, fbest::per_position(&trees, &results))?,
            (true, false) => write_csv(&mut out, fbest::summarize_games(&trees, &results))?,
        }
        Ok(out.finish()?)
    })
}
