//! `psearch`: the parallel searches on this machine's threads (issue 24).

use anyhow::{Result, bail, ensure};
use clap::Parser;
use parab::algorithm::{
    Algorithm, LIMITS_CUT_WIDTH, LIMITS_M_A, LIMITS_M_B, LIMITS_M_CA, LIMITS_M_CC, LIMITS_MIN_SPLIT_DEPTH, LIMITS_PV_WAIT, LIMITS_SPLIT_GROUP, Limits, Scheme,
    Walk,
};
use parab::cli::{self, Input, Output, write_csv};
use parab::nn::Network;
use parab::progress::Progress;
use parab::real::run::{self, Plan, Settings};
use parab::sim::run::{IntRange, MAX_PROCS, Request};
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
    /// Split-point schemes: a (YBWC), b (DTS), c (network); which nodes dts, steal and active may split at (default a).
    #[arg(short, long, value_delimiter = ',')]
    scheme: Option<Vec<Scheme>>,
    /// Active splitting: plies a node needs below it to be split, V or LO..HI (1..64; default 2).
    #[arg(long)]
    min_split_depth: Option<String>,
    /// Active splitting: most threads sent to one split point, V or LO..HI (2..1024; default 8).
    #[arg(long)]
    split_group: Option<String>,
    /// Work stealing: seed of the victims' choice (ChaCha8; default 1).
    #[arg(long)]
    steal_seed: Option<u64>,
    /// Scheme A: finished moves a Y-CUT node needs, V or LO..HI (1..64; default 2).
    #[arg(long, allow_hyphen_values = true)]
    m_a: Option<String>,
    /// Scheme B: finished moves that turn D-CUT into D-ALL, V or LO..HI (1..64; default 1).
    #[arg(long, allow_hyphen_values = true)]
    m_b: Option<String>,
    /// Scheme C: added to the network's wait, V or LO..HI (-64..64; default 0).
    #[arg(long, allow_hyphen_values = true)]
    m_ca: Option<String>,
    /// Scheme C: added again at N-CUT nodes, V or LO..HI (0..64; default 0).
    #[arg(long, allow_hyphen_values = true)]
    m_cc: Option<String>,
    /// Schemes A and B: finished moves a PV node needs, V or LO..HI (0..64; default 1).
    #[arg(long)]
    pv_wait: Option<String>,
    /// Scheme C: classification width m, V or LO..HI (0..50; default: the thesis's for the ordering, else 10).
    #[arg(long, allow_hyphen_values = true)]
    cut_width: Option<String>,
    /// How far a split-point search walks the node heap (dts): `tree` (default) or `level`.
    #[arg(long)]
    split_walk: Option<Walk>,
    /// Use the thesis's best m_A, m_B, m_Ca, m_Cc for each ordering and 12, 24, 48 threads.
    #[arg(long, conflicts_with_all = ["m_a", "m_b", "m_ca", "m_cc"])]
    thesis_params: bool,
    /// Network weights file(s) for scheme C (from nntrain), one per ordering.
    #[arg(long)]
    weights: Vec<PathBuf>,
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

fn range(v: &Option<String>, (name, lo, hi): Limits) -> Result<Option<IntRange>> {
    Ok(v.as_deref().map(|s| IntRange::parse(s, name, lo, hi)).transpose()?)
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
        let req = Request {
            policies: args.algorithm.clone(),
            schemes: args.scheme.clone(),
            m_a: range(&args.m_a, LIMITS_M_A)?,
            m_b: range(&args.m_b, LIMITS_M_B)?,
            m_ca: range(&args.m_ca, LIMITS_M_CA)?,
            m_cc: range(&args.m_cc, LIMITS_M_CC)?,
            cut_width: range(&args.cut_width, LIMITS_CUT_WIDTH)?,
            pv_wait: range(&args.pv_wait, LIMITS_PV_WAIT)?,
            thesis: args.thesis_params,
            walk: args.split_walk,
            min_split_depth: range(&args.min_split_depth, LIMITS_MIN_SPLIT_DEPTH)?,
            split_group: range(&args.split_group, LIMITS_SPLIT_GROUP)?,
            steal_seed: args.steal_seed,
            ..Request::new(args.threads.clone())
        };
        cli::no_repeats("--threads", &req.procs)?;
        cli::no_repeats("--scheme", &req.schemes.iter().flatten().map(|s| s.name()).collect::<Vec<_>>())?;
        cli::no_repeats("--algorithm", &req.policies.iter().map(|k| k.name()).collect::<Vec<_>>())?;
        let nets: Vec<Network> = Network::load_each(&args.weights)?.into_iter().map(|(_, n)| n).collect();
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
