//! `psearch`: the parallel searches on this machine's threads, and with
//! `--mpi` the cluster's searches on MPI ranks.

use anyhow::{bail, ensure};
use clap::Parser;
use parab::cli::{self, Input, Output, write_csv};
use parab::cluster::args::ClusterArgs;
use parab::nn::Network;
use parab::progress::Progress;
use parab::request::real::{self as run, Plan, Settings};
use parab::request::{MAX_PROCS, Request, SearchArgs};
use parab::tree::read_trees;
use std::path::PathBuf;

/// Run the parallel alpha-beta searches of `pabsim` on real threads of
/// this machine, on tree specs (artificial trees, chess, Othello): the
/// thesis's DTS-like search with split-point scheme A, B or C, PV
/// splitting, YBWC with work stealing, active splitting, or Lazy SMP. Every
/// run is checked against the sequential search (root value and move) and
/// fails loudly if it differs. One CSV row per configuration (or per tree)
/// with wall time, nodes, the threads' time searching, idle and waiting on
/// locks, and SU/SO against the one-thread run. With --mpi (a build with
/// `--features mpi`, under `mpirun -np N`), the message-passing searches of
/// `pabsim --machine cluster` on N real processes, with its rows.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples:\n  treegen --set tg1 --ordering 32,79,5 --depth 5 --count 2 | psearch --threads 1,2 --algorithm dts,steal,lazy-smp --node-cost 1000\n  treegen --set tg1 --ordering 20,69,19 --depth 5 --count 2 -o /tmp/psearch-trees.jsonl\n  psearch /tmp/psearch-trees.jsonl --threads 1,2,3 --algorithm active --min-split-depth 3 --repeat 3 --per-tree\n\nAlgorithms:\n{policies}\n\nEvery row records the host's load and free cores (its cores less the other work runnable) just before its timed run; thread counts above the free cores run (for correctness) and are marked oversubscribed. `make real PROCS=1,2,4,8` runs psearch and pabsim on the same trees (results/real/).\n\nMPI (build: cargo build --release --features mpi):\n  treegen --model incremental --branching 5 --depth 7 --count 2 -o /tmp/inc.jsonl\n  mpirun -np 4 target/release/psearch --mpi /tmp/inc.jsonl --algorithm even-split,master-slave,master-worker --per-tree\n  mpirun --bind-to none -np 2 target/release/psearch --mpi /tmp/inc.jsonl --algorithm even-split,master-slave --threads 2\nRank 0 reads the input and writes the rows of pabsim --machine cluster (transport mpi, measured wall time): the sequential baseline on rank 0, then each algorithm on all ranks, every root value checked. With --threads T each rank searches its tasks (even-split, master-slave) on T threads with --thread-policy (default steal): the hybrid. A rank that waits --mpi-timeout seconds for a message ends the job with one line.\n\nAlgorithms of the cluster (with --mpi):\n{cluster}"
)]
struct Args {
    /// Tree specs (JSON lines from treegen or positions), `-` or absent for stdin.
    input: Option<PathBuf>,
    /// Thread counts, e.g. 1,2,4 (1: the sequential search; default 1).
    /// With --mpi one count: threads inside each rank, for even-split and
    /// master-slave (each task searched with --thread-policy).
    #[arg(short, long, value_delimiter = ',')]
    threads: Vec<usize>,
    /// Parallel search algorithms for more than one thread: the policies
    /// listed below (default dts). With --mpi the cluster's (listed below;
    /// default even-split, master-slave); seq on one rank.
    #[arg(long, visible_alias = "policy", value_delimiter = ',')]
    algorithm: Vec<String>,
    /// One row per (tree, configuration).
    #[arg(long)]
    per_tree: bool,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also write a trace of one run (tree × configuration) to FILE: the
    /// Chrome trace-event JSON that ui.perfetto.dev and chrome://tracing
    /// open, one track per thread, or with --mpi per rank, on rank 0's
    /// clock (docs/formats.md, "Traces").
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// The run --trace shows, 1-based in the order of --per-tree's rows
    /// (needed when the request holds more than one).
    #[arg(long, value_name = "N", requires = "trace")]
    trace_run: Option<usize>,
    /// The largest trace --trace may write, e.g. 200M (default 1GiB): each
    /// thread (or rank) records at most its share of spans (events), then
    /// its time is one `not traced` span.
    #[arg(long, value_name = "SIZE", value_parser = parab::cluster::memory::parse_bytes, requires = "trace")]
    trace_limit: Option<u64>,
    /// The schemes and the algorithms' parameters (shared with pabsim).
    #[command(flatten, next_help_heading = "Real threads (without --mpi)")]
    search: SearchArgs,
    /// Busy work per node entered, in nanoseconds (an engine's node costs about 1,000).
    #[arg(long, default_value_t = 0, help_heading = "Real threads (without --mpi)")]
    node_cost: u64,
    /// Runs per (tree, configuration); each row is the run of median wall time.
    #[arg(long, default_value_t = 1, help_heading = "Real threads (without --mpi)")]
    repeat: u32,
    /// Run the cluster's message-passing searches on the ranks of an MPI
    /// job (under mpirun; needs a build with --features mpi).
    #[arg(long, help_heading = "MPI ranks (--mpi)")]
    mpi: bool,
    /// Seconds a rank waits for a message before it ends the job (default 60).
    #[arg(long, requires = "mpi", help_heading = "MPI ranks (--mpi)")]
    mpi_timeout: Option<u64>,
    /// With --threads above 1: the policy each rank's threads search a task
    /// with (one of those listed below; default steal; formerly
    /// --thread-algorithm).
    #[arg(long, visible_alias = "thread-algorithm", requires = "mpi", help_heading = "MPI ranks (--mpi)")]
    thread_policy: Option<String>,
    /// The cluster algorithms' parameters (shared with pabsim --machine cluster).
    #[command(flatten, next_help_heading = "MPI ranks (--mpi)")]
    cluster: ClusterArgs,
}

fn main() {
    let args: Args = cli::parse_with("psearch", |c| {
        let after = c.get_after_help().map(|h| h.to_string()).unwrap_or_default();
        c.after_help(after.replace("{policies}", &parab::policy::Policy::help(false)).replace("{cluster}", &parab::cluster::ClusterAlgorithm::help()))
    });
    if args.mpi {
        mpi_main(&args);
    }
    cli::main("psearch", || {
        // A trace is a file of its own: checked only when asked.
        let mut outputs = vec![("-o", args.output.as_deref())];
        outputs.extend(args.trace.as_deref().map(|t| ("--trace", Some(t))));
        cli::check_outputs(&outputs)?;
        args.cluster.network.real_network()?;
        if let Some((name, _)) = args.cluster.given().iter().find(|o| o.1) {
            bail!("{name} applies to --mpi only");
        }
        let threads = if args.threads.is_empty() { vec![1] } else { args.threads.clone() };
        let algorithms = parab::request::parse_algorithms(
            "--algorithm",
            &args.algorithm,
            |n| n.parse::<parab::cluster::ClusterAlgorithm>().is_ok(),
            "give --mpi and run under mpirun",
        )?;
        for &t in &threads {
            ensure!((1..=MAX_PROCS).contains(&t), "--threads {t}: give 1..{MAX_PROCS} threads");
        }
        ensure!((1..=1000).contains(&args.repeat), "--repeat {}: give 1..1000 runs", args.repeat);
        ensure!(args.node_cost <= 1_000_000_000, "--node-cost {}: at most 1,000,000,000 ns (one second) per node", args.node_cost);
        let req = args.search.request(Request { algorithms, ..Request::new(threads) })?;
        cli::no_repeats("--threads", &req.procs)?;
        cli::no_repeats(parab::policy::PolicyOpt::Scheme.flag(), &req.schemes.iter().flatten().map(|s| s.name()).collect::<Vec<_>>())?;
        cli::no_repeats("--algorithm", &req.algorithms.iter().map(|k| k.name()).collect::<Vec<_>>())?;
        let nets: Vec<Network> = Network::load_each(&args.search.weights)?.into_iter().map(|(_, n)| n).collect();
        let trees = read_trees(Input::open(args.input.as_deref())?)?;
        let plan = Plan::new(&trees, &req, &nets)?;
        let progress = Progress::new("psearch", plan.len() as u64, "searches");
        let settings = Settings { node_cost_ns: args.node_cost, repeats: args.repeat, delays: None };
        // The traced run and its threads' share of the limit, before any search.
        let trace = match &args.trace {
            Some(_) => {
                let i = parab::trace::pick_run(args.trace_run, plan.len()).map_err(anyhow::Error::msg)?;
                let threads = plan.threads(i).unwrap_or(1);
                let limit = args.trace_limit.unwrap_or(parab::trace::DEFAULT_LIMIT);
                let Some(spans) = parab::trace::real::spans_per_thread(limit, threads) else {
                    bail!("--trace-limit {limit}: too small for a trace of {threads} threads; give at least 1M")
                };
                Some((i, spans))
            }
            None => None,
        };
        let (rows, traced) = plan.run_traced(&trees, &nets, &settings, trace, &progress)?;
        progress.finish();
        let rows = run::finish(rows, args.per_tree)?;
        let mut out = Output::create(args.output.as_deref())?;
        write_csv(&mut out, rows)?;
        let mut outs = vec![out];
        if let (Some(path), Some((label, t))) = (&args.trace, traced) {
            let mut f = Output::create(Some(path))?;
            parab::trace::real::write(&label, &t, &mut f)?;
            outs.push(f);
        }
        Ok(parab::cli::finish_all(outs)?)
    })
}

/// `psearch --mpi` without the MPI build: one line saying how to build it.
#[cfg(not(feature = "mpi"))]
fn mpi_main(_: &Args) -> ! {
    cli::main("psearch", || {
        bail!("--mpi needs the MPI build: cargo build --release --features mpi (with Open MPI), then mpirun -np N target/release/psearch --mpi ...")
    })
}

/// `psearch --mpi`: this rank's part of the job.
#[cfg(feature = "mpi")]
fn mpi_main(args: &Args) -> ! {
    use parab::cluster::exec::mpi::run as mpi_run;
    use parab::cluster::run::{ClusterRequest, Procs};
    use parab::cluster::{ClusterAlgorithm, ClusterSettings};
    let timeout = std::time::Duration::from_secs(args.mpi_timeout.unwrap_or(parab::cluster::exec::mpi::DEFAULT_TIMEOUT.as_secs()));
    mpi_run::main("psearch", timeout, |job| {
        // The same checks on every rank: each stops alike, rank 0 says why.
        let mut shared_only = args.search.given().to_vec();
        shared_only.extend([("--node-cost", args.node_cost != 0), ("--repeat", args.repeat != 1)]);
        if let Some((name, _)) = shared_only.iter().find(|o| o.1) {
            bail!("{name} does not apply to --mpi (the ranks are the processes: mpirun -np N)");
        }
        args.cluster.network.real_network()?;
        let threads = match args.threads[..] {
            [] => 1,
            [t] => t,
            _ => bail!("--threads with --mpi takes one count: the threads inside each rank"),
        };
        ensure!((1..=MAX_PROCS).contains(&threads), "--threads {threads}: give 1..{MAX_PROCS} threads per rank");
        ensure!(threads > 1 || args.thread_policy.is_none(), "--thread-policy needs --threads above 1");
        ensure!(threads == 1 || job.opts.threads_allowed, "--threads {threads}: this MPI library does not let a rank run threads (MPI_THREAD_FUNNELED)");
        let name = args.thread_policy.as_deref().unwrap_or(parab::cluster::hybrid::DEFAULT_THREAD_POLICY);
        let thread_policy = name.parse::<parab::policy::Policy>().map_err(|e| anyhow::anyhow!("--thread-policy {name}: {e}"))?;
        ensure!(args.mpi_timeout.is_none_or(|t| (1..=86_400).contains(&t)), "--mpi-timeout: give 1..86400 seconds");
        let default = if job.size == 1 { vec![ClusterAlgorithm::SEQUENTIAL] } else { ClusterAlgorithm::defaults() };
        let algorithms = args.cluster.algorithms(&args.algorithm, &default)?;
        let rank_threads = (threads > 1).then_some(parab::cluster::hybrid::RankThreads { threads, policy: thread_policy });
        let settings = ClusterSettings { threads: rank_threads, ..args.cluster.settings()? };
        let req = ClusterRequest { procs: Procs::Ranks(job.size), algorithms, settings, per_tree: args.per_tree };
        let cfgs = parab::cluster::run::configs(&req)?;
        // The outputs, on rank 0 before any work: staged, renamed at the end.
        let outs = mpi_run::agree(
            job,
            if job.rank == 0 {
                let mut outputs = vec![("-o", args.output.as_deref())];
                outputs.extend(args.trace.as_deref().map(|t| ("--trace", Some(t))));
                cli::check_outputs(&outputs).map_err(anyhow::Error::from).and_then(|_| {
                    let out = Output::create(args.output.as_deref())?;
                    let trace = args.trace.as_deref().map(|t| Output::create(Some(t))).transpose()?;
                    Ok(Some((out, trace)))
                })
            } else {
                Ok(None)
            },
        )?;
        let trees = read_trees(mpi_run::share_input(job, args.input.as_deref())?)?;
        // The traced run and each rank's share of the limit, before any search.
        let traced = match &args.trace {
            Some(_) => {
                let i = parab::trace::pick_run(args.trace_run, cfgs.len() * trees.len()).map_err(anyhow::Error::msg)?;
                let (c, t) = parab::cluster::run::traced_run(i, trees.len());
                let limit = args.trace_limit.unwrap_or(parab::trace::DEFAULT_LIMIT);
                let procs = cfgs[c].procs;
                let Some(bound) = parab::trace::ranks::events_per_rank(limit, procs) else {
                    bail!("--trace-limit {limit}: too small for a trace of {procs} ranks; give at least 1M")
                };
                Some((i, parab::trace::cluster::label(&trees[t], &cfgs[c]), procs, bound))
            }
            None => None,
        };
        let mut log = traced.as_ref().map(|&(_, _, _, bound)| parab::trace::ranks::RankLog::new(bound));
        let rows = parab::cluster::run::mpi::run_traced(job, &trees, &req, traced.as_ref().map(|t| t.0).zip(log.as_mut()))?;
        if let (Some((mut out, trace)), Some(rows)) = (outs, rows) {
            write_csv(&mut out, rows)?;
            let mut outs = vec![out];
            if let (Some(mut f), Some((_, label, procs, bound)), Some(log)) = (trace, traced, log) {
                parab::trace::ranks::write(&log, &label, procs, bound, &mut f)?;
                outs.push(f);
            }
            cli::finish_all(outs)?;
        }
        Ok(())
    })
}
