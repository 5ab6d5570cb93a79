//! `psearch`: the parallel searches on this machine's threads (issue 24).

use anyhow::{bail, ensure};
use clap::Parser;
use parab::algorithm::Algorithm;
use parab::cli::{self, Input, Output, write_csv};
use parab::nn::Network;
use parab::progress::Progress;
use parab::real::run::{self, Plan, Settings};
use parab::sim::args::SearchArgs;
use parab::sim::run::{MAX_PROCS, Request};
use parab::tree::read_trees;
use std::path::PathBuf;

/// Run the parallel alpha-beta searches of `pabsim` on real threads of
/// this machine, on tree specs (artificial trees, chess, Othello): the
/// thesis's DTS-like search with split-point scheme A, B or C, PV
/// splitting, YBWC with work stealing, active splitting, or Lazy SMP. Every
/// run is checked against the sequential search (root value and move) and
/// fails loudly if it differs. One CSV row per configuration (or per tree)
/// with wall time, nodes, the threads' time searching, idle and waiting on
/// locks, and SU/SO against the one-thread run.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples:\n  treegen --set tg1 --ordering 32,79,5 --depth 5 --count 2 | psearch --threads 1,2 --algorithm dts,steal,lazy-smp --node-cost 1000\n  treegen --set tg1 --ordering 20,69,19 --depth 5 --count 2 -o /tmp/psearch-trees.jsonl\n  psearch /tmp/psearch-trees.jsonl --threads 1,2,3 --algorithm active --min-split-depth 3 --repeat 3 --per-tree\n\nAlgorithms:\n  dts       the thesis's: idle threads take the split-point variable's lock and search the node heap for a split point (--scheme, --split-walk)\n  pvsplit   PV splitting: all threads share each PV node's moves once its first is searched, and wait for the next PV node\n  steal     YBWC with work stealing (crossbeam-deque): eligible nodes go on the owner's deque, idle threads steal from a random victim (--scheme, --steal-seed)\n  active    active splitting: a thread at an eligible node with --min-split-depth plies left recruits the idle threads (--scheme)\n  lazy-smp  Lazy SMP: every thread searches the whole tree, sharing a lock-free transposition table (real threads only)\n\nThread counts above the host's cores run (for correctness) and are marked oversubscribed. `make real PROCS=1,2,4,8` runs psearch and pabsim on the same trees (results/real/)."
)]
struct Args {
    /// Tree specs (JSON lines from treegen or positions), `-` or absent for stdin.
    input: Option<PathBuf>,
    /// Thread counts, e.g. 1,2,4 (1: the sequential search).
    #[arg(short, long, value_delimiter = ',', default_value = "1")]
    threads: Vec<usize>,
    /// Parallel search algorithms for more than one thread: dts, pvsplit, steal, active, lazy-smp.
    #[arg(long, alias = "policy", value_delimiter = ',', default_value = "dts")]
    algorithm: Vec<Algorithm>,
    /// The schemes and the algorithms' parameters (shared with pabsim).
    #[command(flatten)]
    search: SearchArgs,
    /// Busy work per node entered, in nanoseconds (an engine's node costs about 1,000).
    #[arg(long, default_value_t = 0)]
    node_cost: u64,
    /// Runs per (tree, configuration); each row is the run of median wall time.
    #[arg(long, default_value_t = 1)]
    repeat: u32,
    /// One row per (tree, configuration).
    #[arg(long)]
    per_tree: bool,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn main() {
    let args: Args = cli::parse("psearch");
    cli::main("psearch", || {
        ensure!(!args.threads.is_empty(), "--threads: give at least one thread count");
        for &t in &args.threads {
            ensure!((1..=MAX_PROCS).contains(&t), "--threads {t}: give 1..{MAX_PROCS} threads");
        }
        ensure!((1..=1000).contains(&args.repeat), "--repeat {}: give 1..1000 runs", args.repeat);
        ensure!(args.node_cost <= 1_000_000_000, "--node-cost {}: at most 1,000,000,000 ns (one second) per node", args.node_cost);
        let req = args.search.request(Request { policies: args.algorithm.clone(), ..Request::new(args.threads.clone()) })?;
        cli::no_repeats("--threads", &req.procs)?;
        cli::no_repeats("--scheme", &req.schemes.iter().flatten().map(|s| s.name()).collect::<Vec<_>>())?;
        cli::no_repeats("--algorithm", &req.policies.iter().map(|k| k.name()).collect::<Vec<_>>())?;
        let nets: Vec<Network> = Network::load_each(&args.search.weights)?.into_iter().map(|(_, n)| n).collect();
        if !nets.is_empty() && !req.schemes.iter().flatten().any(|s| s.name() == "c") {
            bail!("--weights is for scheme c only (give --scheme c)");
        }
        let trees = read_trees(Input::open(args.input.as_deref())?)?;
        let plan = Plan::new(&trees, &req, &nets)?;
        let progress = Progress::new("psearch", plan.len() as u64, "searches");
        let settings = Settings { node_cost_ns: args.node_cost, repeats: args.repeat, delays: None };
        let rows = plan.run(&trees, &nets, &settings, &progress)?;
        progress.finish();
        let rows = run::finish(rows, args.per_tree)?;
        let mut out = Output::create(args.output.as_deref())?;
        write_csv(&mut out, rows)?;
        Ok(out.finish()?)
    })
}
