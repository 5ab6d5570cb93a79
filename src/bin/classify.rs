//! `classify`: scores node-classification schemes A, B and C (thesis §5.5).

use clap::Parser;
use parab::classify::{self, Scoring};
use parab::cli::{self, Input, Output, write_csv};
use parab::nn::Network;
use parab::progress::Progress;
use parab::tree::{TreeKind, kind_only, read_trees};
use std::path::PathBuf;

/// Search trees and score how well node-classification schemes predict
/// which nodes cut off: A (YBWC's types), B (DTS's types, parameter n) and
/// C (the network, parameter m). One search per tree serves every scheme and
/// parameter value; one CSV row per (ordering, scheme, parameter), with
/// `best` = 1 on the parameter with the lowest error.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples (the networks are nntrain's):\n  treegen --set tg1 --ordering 32,79,5 --depth 6 | classify --scheme a --scheme b --n 1..8\n  treegen --set tg1 --ordering 32,79,5 --depth 6 | classify --scheme c --weights /tmp/weights/32-79-5.json --m 0..50\n  treegen --set tg1 --ordering 32,79,5 --ordering 20,69,19 --depth 6 | classify --weights /tmp/weights/32-79-5.json --weights /tmp/weights/20-69-19.json"
)]
struct Args {
    /// Tree specs (JSON lines from treegen); `-` or absent for stdin.
    input: Option<PathBuf>,
    /// Schemes to score: a, b, c (repeatable or comma-separated). Default: a
    /// and b, and c when --weights is given.
    #[arg(long, value_delimiter = ',')]
    scheme: Vec<String>,
    /// Scheme B's n: N or an inclusive range LO..HI (default 1..8).
    #[arg(long)]
    n: Option<String>,
    /// Scheme C's m: M or an inclusive range LO..HI (default 0..50).
    #[arg(long)]
    m: Option<String>,
    /// Network weights for scheme C (repeatable: each ordering uses its own).
    #[arg(long, value_name = "FILE")]
    weights: Vec<PathBuf>,
    /// Apply a single network to trees of another ordering (with a warning).
    #[arg(long)]
    force: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// The largest n of scheme B: n counts a node's finished moves, and a node
/// has at most 4096 (the largest branching factor a tree spec may have).
const MAX_N: u32 = 4096;

fn main() {
    let args: Args = cli::parse("classify");
    cli::main("classify", || {
        cli::threads(args.threads)?;
        cli::check_outputs(&[("-o", args.output.as_deref())])?;
        let mut schemes: Vec<String> = args.scheme.iter().map(|s| s.trim().to_lowercase()).collect();
        if schemes.is_empty() {
            schemes = vec!["a".into(), "b".into()];
            if !args.weights.is_empty() {
                schemes.push("c".into());
            }
        }
        for s in &schemes {
            anyhow::ensure!(matches!(s.as_str(), "a" | "b" | "c"), "unknown scheme `{s}` (expected a, b or c)");
        }
        cli::no_repeats("--scheme", &schemes)?;
        cli::no_repeats("--weights", &args.weights.iter().map(|p| p.display().to_string()).collect::<Vec<_>>())?;
        let has = |x: &str| schemes.iter().any(|s| s == x);
        anyhow::ensure!(!has("c") || !args.weights.is_empty(), "scheme c needs --weights FILE (a network from nntrain)");
        // Bounded before any value is materialised: types lie in [0, 100], and
        // scheme B's n counts finished moves, at most MAX_N.
        let m = cli::bounded_range(args.m.as_deref().unwrap_or("0..50"), "--m", 0, 100)?;
        let n = cli::bounded_range(args.n.as_deref().unwrap_or("1..8"), "--n", 1, MAX_N)?;
        // A parameter of a scheme not scored would be ignored without a word.
        if let (Some(v), false) = (&args.n, has("b")) {
            anyhow::bail!("--n {v} is scheme B's parameter, but scheme b is not scored (add --scheme b, or drop --n)");
        }
        if let (Some(v), false) = (&args.m, has("c")) {
            anyhow::bail!("--m {v} is scheme C's parameter, but scheme c is not scored (add --scheme c with --weights, or drop --m)");
        }
        let weights = Network::load_each(&args.weights)?;
        let cfg =
            Scoring { a: has("a"), b: if has("b") { n.collect() } else { vec![] }, c: if has("c") { m.collect() } else { vec![] }, weights, force: args.force };
        let input = Input::open(args.input.as_deref())?;
        let name = input.name.clone();
        let trees = read_trees(input)?;
        let kind = kind_only(&trees, &name)?;
        let progress = Progress::new("classify", trees.len() as u64, "trees");
        let (rows, warnings) = classify::classify(&trees, &cfg, &progress)?;
        progress.finish();
        for w in warnings {
            eprintln!("classify: {w}");
        }
        let mut out = Output::create(args.output.as_deref())?;
        match kind {
            TreeKind::Artificial => write_csv(&mut out, rows.artificial)?,
            TreeKind::Incremental => write_csv(&mut out, rows.incremental)?,
            TreeKind::Game => write_csv(&mut out, rows.games)?,
        }
        Ok(out.finish()?)
    })
}
