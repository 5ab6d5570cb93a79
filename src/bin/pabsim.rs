//! `pabsim`: the simulated multiprocessor running the parallel search (thesis ch. 6).

use anyhow::{Result, bail, ensure};
use clap::Parser;
use parab::cli::{self, Input, Output, write_csv};
use parab::cluster::args::ClusterArgs;
use parab::formats::ura2014::Group;
use parab::formats::{SimRow, read_csv};
use parab::nn::Network;
use parab::policy::Policy;
use parab::progress::Progress;
use parab::request::sim::{self as run, Plan};
use parab::request::{Interleave, LockKind, Request, SearchArgs};
use parab::tree::read_trees;
use std::io::Write;
use std::path::PathBuf;

/// Simulate a parallel alpha-beta search of tree specs on a P-processor
/// cache-coherent machine (1 to 1,024 processors): the thesis's DTS-like
/// search with split-point scheme A, B or C, or PV splitting, YBWC with work
/// stealing, or active splitting; one CSV row per configuration (or per
/// tree), with t_p, n_p, the processor-ticks per state, memory stalls, lock
/// waits, and SU/SO/CSS against the p = 1 rows (or --baseline). With
/// --machine cluster, the message-passing searches on a simulated cluster
/// of 1 to 4,096 processes instead. The options under "Options" apply to
/// both machines; the others to the machine their heading names.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples (trees and networks from the examples of treegen and nntrain):\n  treegen --set tg1 --ordering 20,69,19 --depth 6 --count 10 | pabsim --procs 1,12,24,48 --scheme a,b\n  pabsim /tmp/trees.jsonl --procs 1,48 --scheme c --weights /tmp/weights/20-69-19.json --weights /tmp/weights/32-79-5.json --thesis-params\n  pabsim /tmp/trees.jsonl --procs 1 --per-tree -o /tmp/p1.csv\n  pabsim /tmp/trees.jsonl --procs 24 --scheme a --m-a 1..10 --baseline /tmp/p1.csv\n  pabsim /tmp/trees.jsonl --procs 1,48 --per-tree --shard 1/2 -o /tmp/s1.csv\n  pabsim /tmp/trees.jsonl --procs 1,48 --per-tree --shard 2/2 -o /tmp/s2.csv\n  pabsim --merge /tmp/s1.csv /tmp/s2.csv -o /tmp/all.csv\n  treegen --set tg1 --ordering 32,79,5 --depth 5 --count 2 | pabsim --procs 1,64,1024 --algorithm dts,pvsplit,steal,active --lock queue --m-a 1\n  treegen --model incremental --branching 5 --depth 6 --count 2 | pabsim --machine cluster --procs 1,8 --algorithm even-split,master-worker,ybwc --master-depth 2\n  pabsim /tmp/trees.jsonl --procs 1,48 --per-tree --trace /tmp/run2.json --trace-run 2\n\nAlgorithms of the shared machine (pabsim --list-algorithms names them):\n{shared}"
)]
struct Args {
    /// Tree specs (JSON lines from treegen), `-` or absent for stdin; with
    /// --merge, the per-tree CSV files of all shards; with --ura2014, the
    /// pipeline's directory (results/ura2014).
    inputs: Vec<PathBuf>,
    /// The machine: shared (the thesis's multiprocessor) or cluster
    /// (processes that share nothing and send messages).
    #[arg(long, default_value = "shared")]
    machine: MachineKind,
    /// Processor counts, e.g. 1,12,24,48.
    #[arg(short, long, value_delimiter = ',', default_value = "1")]
    procs: Vec<usize>,
    /// Parallel search algorithms for p > 1, each machine's listed below.
    /// The shared machine's policies: default dts (the thesis's). The
    /// cluster's: default even-split, master-slave; p = 1 is its sequential
    /// baseline, seq.
    #[arg(long, visible_alias = "policy", value_delimiter = ',')]
    algorithm: Vec<String>,
    /// One row per (tree, configuration).
    #[arg(long)]
    per_tree: bool,
    /// Print the machine's parallel algorithms, one name a line, and exit
    /// (the shared machine's: the policies it simulates; the cluster's: the
    /// experiment scripts' default list).
    #[arg(long, conflicts_with_all = ["inputs", "merge", "leaf_factors", "trace", "algorithm", "procs", "per_tree", "ura2014", "shard", "baseline"])]
    list_algorithms: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also write a trace of one run (tree × configuration) to FILE: the
    /// Chrome trace-event JSON that ui.perfetto.dev and chrome://tracing
    /// open, one track per processor or process (docs/formats.md, "Traces").
    #[arg(long, value_name = "FILE", conflicts_with_all = ["merge", "leaf_factors", "ura2014"])]
    trace: Option<PathBuf>,
    /// The run --trace shows, 1-based in the order of --per-tree's rows
    /// (needed when the request holds more than one).
    #[arg(long, value_name = "N", requires = "trace")]
    trace_run: Option<usize>,
    /// The largest trace --trace may write, e.g. 200M (default 1GiB): the
    /// run is first simulated counting, and a larger trace is refused
    /// before the other runs, with its size.
    #[arg(long, value_name = "SIZE", value_parser = parab::cluster::memory::parse_bytes, requires = "trace")]
    trace_limit: Option<u64>,
    /// The schemes and the algorithms' parameters (shared with psearch).
    #[command(flatten, next_help_heading = "The shared machine (--machine shared)")]
    search: SearchArgs,
    /// How processors wait for locks: `tas` (test-and-set retried, the
    /// thesis's machine) or `queue` (a queue lock: each waiter spins on its
    /// own flag until the lock is handed to it); default tas.
    #[arg(long, help_heading = "The shared machine (--machine shared)")]
    lock: Option<LockKind>,
    /// When processors interleave: `access` (every access with a delay is a
    /// scheduling point, as on the thesis's machine) or `state` (a state runs
    /// as one step; the earlier model, for comparison); default access.
    #[arg(long, help_heading = "The shared machine (--machine shared)")]
    interleave: Option<Interleave>,
    /// Per-tree pabsim output with p = 1 rows of the same trees, for SU/SO/CSS.
    #[arg(long, help_heading = "The shared machine (--machine shared)")]
    baseline: Option<PathBuf>,
    /// Run only shard K of N (1-based) of the (tree, configuration) items; needs --per-tree.
    #[arg(long, help_heading = "The shared machine (--machine shared)")]
    shard: Option<String>,
    /// Merge the per-tree outputs of all shards into the single-machine result.
    /// The configuration comes from the shards: options that choose one are refused.
    #[arg(long, help_heading = "The shared machine (--machine shared)", conflicts_with_all = [
        "shard", "weights", "thesis_params", "procs", "algorithm", "scheme", "min_split_depth", "split_group", "steal_seed", "lock",
        "m_a", "m_b", "m_ca", "m_cc", "cut_width", "pv_wait", "interleave", "split_walk",
    ])]
    merge: bool,
    /// Search time per node, ns (0..10^9, up to three decimals); with
    /// --leaf-ns, per node other than a leaf.
    #[arg(long, help_heading = "The cluster (--machine cluster)")]
    node_ns: Option<parab::cluster::args::CostNs>,
    /// Search time per leaf, ns (0..10^9, up to three decimals; default:
    /// --node-ns, one cost for every node). `scripts/real-mpi.sh` measures
    /// both on its host.
    #[arg(long, help_heading = "The cluster (--machine cluster)")]
    leaf_ns: Option<parab::cluster::args::CostNs>,
    /// The sender's time per message, ns (0..10^9).
    #[arg(long, help_heading = "The cluster (--machine cluster)")]
    send_ns: Option<u64>,
    /// The receiver's time per message, ns (0..10^9).
    #[arg(long, help_heading = "The cluster (--machine cluster)")]
    recv_ns: Option<u64>,
    /// A process's time per wake-up it asked for between slices of its
    /// search, ns (0..10^9; default 0): a real transport's look for
    /// messages that found none.
    #[arg(long, help_heading = "The cluster (--machine cluster)")]
    wake_ns: Option<u64>,
    /// Network latency, ns (0..10^9).
    #[arg(long, help_heading = "The cluster (--machine cluster)")]
    latency_ns: Option<u64>,
    /// Bandwidth, bytes per microsecond (1250 = 10 Gbit/s).
    #[arg(long, help_heading = "The cluster (--machine cluster)")]
    bandwidth: Option<u64>,
    /// Processes of unequal speed: RANKS:SPEED classes in rank order, the
    /// ranks past them at the last class's speed (e.g. 512:1,1024:0.8;
    /// default: every process at speed 1). A process's searching takes its
    /// time over its speed.
    #[arg(long, help_heading = "The cluster (--machine cluster)")]
    proc_speeds: Option<parab::cluster::exec::speeds::ProcSpeeds>,
    /// The memory a run may take, e.g. 12G or 800MiB (default: what this
    /// process may take, less a tenth: the least of the machine's available
    /// memory, the address-space limit of `ulimit -v` and the cgroup's
    /// memory limit, as a Slurm job's --mem or a container's); a run
    /// estimated to need more is refused before it starts.
    #[arg(long, value_parser = parab::cluster::memory::parse_bytes, help_heading = "The cluster (--machine cluster)")]
    memory: Option<u64>,
    /// A file keeping the one input tree's sequential baseline between
    /// runs: read if it holds this tree's under these costs and table size,
    /// else searched and written (the rows are the same either way; make
    /// ura2014's items of a tree share one).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["leaf_factors", "ura2014", "merge"], help_heading = "The cluster (--machine cluster)")]
    baseline_cache: Option<PathBuf>,
    /// The cluster algorithms' parameters (shared with psearch --mpi).
    #[command(flatten, next_help_heading = "The cluster (--machine cluster)")]
    cluster: ClusterArgs,
    /// Instead of parallel runs, one row of Ura et al.'s §5.2 leaf counts
    /// (the sequential search with the master's table, with tables not
    /// shared between tasks, with the partial share of --share-depth, with
    /// full task windows); needs --master-depth (at most the trees' depth)
    /// and takes --share-depth, --tt-slots and --memory, no other cluster
    /// option.
    #[arg(long, conflicts_with_all = ["algorithm", "per_tree"], help_heading = "The cluster (--machine cluster)")]
    leaf_factors: bool,
    /// Instead of a run, Ura et al.'s Tables 1 and 6 from `make ura2014`'s
    /// items (docs/formats.md, "make ura2014"): `configs` writes the
    /// parallel configurations, one a line (name, P, algorithm, ε or `-`);
    /// `calibration` writes calibration.csv into the one input, the
    /// pipeline's directory; `summary` writes calibration.csv, items.csv,
    /// table1.csv, table6.csv and cost.csv there. The options the items ran
    /// with name them: --procs and --algorithm Table 1's configurations,
    /// --epsilon Table 6's ε, --node-ns the sequential items' cost per node.
    #[arg(long, value_enum, value_name = "STEP", help_heading = URA, conflicts_with_all = ["merge", "shard", "baseline", "per_tree", "leaf_factors"])]
    ura2014: Option<UraStep>,
    /// The groups of trees, b:d:d′ or b:d:d′:NOISE each (e.g.
    /// 5:24:12,20:12:6,20:12:6:shogi; NOISE is treegen --eval-noise's), in
    /// table order.
    #[arg(long, value_delimiter = ',', help_heading = URA, requires = "ura2014")]
    grid: Vec<Group>,
    /// Trees per group.
    #[arg(long, help_heading = URA, requires = "ura2014")]
    count: Option<u32>,
    /// Table 6's process counts.
    #[arg(long, value_delimiter = ',', help_heading = URA, requires = "ura2014")]
    epsilon_procs: Vec<u32>,
    /// The paper's Table 1 (its sequential rows give the time per leaf).
    #[arg(long, help_heading = URA, requires = "ura2014")]
    published: Option<PathBuf>,
}

/// The help heading of `--ura2014`'s options.
const URA: &str = "Ura et al.'s tables (--ura2014)";

/// What `--ura2014` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum UraStep {
    /// The parallel configurations, one a line.
    Configs,
    /// calibration.csv.
    Calibration,
    /// calibration.csv, items.csv, table1.csv, table6.csv, cost.csv.
    Summary,
}

/// `--ura2014`: the tables of `make ura2014` (`parab::formats::ura2014`).
fn ura2014(args: &Args, step: UraStep) -> Result<()> {
    use parab::cluster::{ClusterAlgorithm, MAX_CLUSTER_PROCS};
    use parab::formats::ura2014 as ura;
    ensure!(args.leaf_ns.is_none(), "--ura2014 calibrates one cost per node on the paper's Table 1 (--node-ns): --leaf-ns does not apply");
    // The items ran with every other option (the pipeline's ARGS): none names a table.
    // --node-ns is read (the sequential items' cost), --leaf-ns refused above.
    let mut unread: Vec<(&str, bool)> = cost_options(args).into_iter().filter(|(f, _)| !matches!(*f, "--node-ns" | "--leaf-ns")).collect();
    unread.extend([("--memory", args.memory.is_some()), ("--lock", args.lock.is_some()), ("--interleave", args.interleave.is_some())]);
    unread.extend(args.search.given().iter().copied());
    unread.extend(args.cluster.given().into_iter().filter(|o| o.0 != "--epsilon"));
    unread.extend(args.cluster.network.given());
    if let Some((name, _)) = unread.iter().find(|o| o.1) {
        bail!(
            "{name} does not apply to --ura2014 (it reads --grid, --count, --procs, --algorithm, --epsilon-procs, --epsilon, --node-ns and --published; the items' other options are the pipeline's ARGS)"
        );
    }
    cli::no_repeats("--grid", &args.grid)?;
    cli::no_repeats("--algorithm", &args.algorithm)?;
    cli::no_repeats("--procs", &args.procs)?;
    cli::no_repeats("--epsilon-procs", &args.epsilon_procs)?;
    for a in &args.algorithm {
        match a.parse::<ClusterAlgorithm>() {
            Ok(k) if k != ClusterAlgorithm::SEQUENTIAL => {}
            Ok(_) => bail!("--algorithm {a}: the sequential baseline is every table's first row already (give parallel algorithms)"),
            Err(e) => bail!("--algorithm: {e}"),
        }
    }
    // Without --algorithm Table 1 has no parallel configuration, and --procs keeps its default, 1.
    if args.algorithm.is_empty() {
        ensure!(args.procs == [1], "--ura2014: --procs names Table 1's configurations with --algorithm (give both or neither)");
    } else if let Some(p) = args.procs.iter().find(|&&p| !(2..=MAX_CLUSTER_PROCS).contains(&p)) {
        bail!("--procs {p}: Table 1's configurations run on 2..{MAX_CLUSTER_PROCS} processes (the baseline, P = 1, is run anyway)");
    }
    if let Some(p) = args.epsilon_procs.iter().find(|&&p| !(2..=MAX_CLUSTER_PROCS as u32).contains(&p)) {
        bail!("--epsilon-procs {p}: Table 6's configurations run on 2..{MAX_CLUSTER_PROCS} processes");
    }
    // Table 6's ε, checked as the option's declaration says.
    let epsilon = args.cluster.parameters()?.i64(parab::cluster::algorithms::master_worker::EPSILON);
    let procs = args.procs.iter().map(|&p| u32::try_from(p)).collect::<Result<Vec<u32>, _>>()?;
    ensure!(args.epsilon_procs.is_empty() || epsilon.is_some(), "--ura2014 needs --epsilon (Table 6's ε) with --epsilon-procs");
    let grid = ura::Grid {
        groups: args.grid.clone(),
        count: args.count.unwrap_or(0),
        procs,
        algorithms: args.algorithm.clone(),
        epsilon_procs: args.epsilon_procs.clone(),
        epsilon: epsilon.unwrap_or(0),
        seq_node_ns: match args.node_ns {
            None => 0,
            Some(c) => c.whole_ns().ok_or_else(|| anyhow::anyhow!("--ura2014 takes --node-ns in whole ns (the sequential items' cost)"))?,
        },
    };
    if step == UraStep::Configs {
        ensure!(args.inputs.is_empty(), "--ura2014 configs reads no input");
        let mut out = Output::create(args.output.as_deref())?;
        for c in grid.configs() {
            let eps = c.epsilon.map_or("-".to_string(), |e| e.to_string());
            writeln!(out, "{} {} {} {eps}", c.name, c.procs, c.algorithm)?;
        }
        return Ok(out.finish()?);
    }
    let [dir] = &args.inputs[..] else { bail!("--ura2014 {step:?}: give the pipeline's directory (results/ura2014), one input") };
    ensure!(args.output.is_none(), "--ura2014 writes its tables into {} (no -o)", dir.display());
    ensure!(!grid.groups.is_empty(), "--ura2014 needs --grid (b:d:d′, ...)");
    ensure!(grid.count > 0, "--ura2014 needs --count (trees per group, at least 1)");
    let Some(published) = &args.published else { bail!("--ura2014 needs --published (the paper's Table 1)") };
    let calibration = ura::calibrate(dir, &grid, published)?;
    ensure!(
        !calibration.is_empty(),
        "--ura2014 {}: no group of --grid has its {} sequential items under {} (run the pipeline's seq step first)",
        if step == UraStep::Summary { "summary" } else { "calibration" },
        grid.count,
        dir.join("run").display()
    );
    let file = |name: &str| Output::create(Some(&dir.join(name)));
    let mut cal = file("calibration.csv")?;
    write_table(&mut cal, &calibration)?;
    if step == UraStep::Calibration {
        return Ok(cal.finish()?);
    }
    ensure!(grid.seq_node_ns > 0, "--ura2014 summary needs --node-ns (the sequential items' cost per node)");
    let (items, missing) = ura::items(dir, &grid, &calibration)?;
    for g in missing {
        eprintln!("pabsim --ura2014: {}: sequential items missing, left out of the summary", g.said());
    }
    let mut outs = vec![cal];
    let mut out = file("items.csv")?;
    write_table(&mut out, &items)?;
    outs.push(out);
    let items = ura::as_written(&items)?;
    let mut out = file("table1.csv")?;
    write_table(&mut out, &ura::table1(&grid, &items))?;
    outs.push(out);
    let mut out = file("table6.csv")?;
    write_table(&mut out, &ura::table6(&grid, &items))?;
    outs.push(out);
    let mut out = file("cost.csv")?;
    write_csv(&mut out, ura::cost(&items))?;
    outs.push(out);
    Ok(parab::cli::finish_all(outs)?)
}

/// Writes `rows` as CSV; a table without a row still gets its header (the
/// summary of items not all run yet, Table 6 before its ε items).
fn write_table<T: serde::Serialize + Default>(out: &mut Output, rows: &[T]) -> Result<()> {
    if !rows.is_empty() {
        return write_csv(out, rows);
    }
    let mut w = csv::Writer::from_writer(vec![]);
    w.serialize(T::default())?;
    let text = String::from_utf8(w.into_inner()?)?;
    writeln!(out, "{}", text.lines().next().unwrap_or(""))?;
    Ok(())
}

fn baseline(path: &Option<PathBuf>) -> Result<Vec<SimRow>> {
    let Some(p) = path else { return Ok(vec![]) };
    let rows: Vec<SimRow> = read_csv(Input::open(Some(p))?)?;
    ensure!(
        rows.iter().any(|r| r.procs == 1 && r.tree.is_some()),
        "--baseline {}: no per-tree rows with procs = 1 (make it with pabsim --procs 1 --per-tree)",
        p.display()
    );
    Ok(rows)
}

/// A `--baseline` that gives no row its p = 1 run is a mistake (other trees,
/// another ordering or depth): say so rather than leave SU/SO/CSS empty.
fn check_baseline_used(path: &Option<PathBuf>, rows: &[SimRow]) -> Result<()> {
    let Some(p) = path else { return Ok(()) };
    ensure!(
        rows.iter().any(|r| r.t1_ticks.is_some()),
        "--baseline {}: none of its p = 1 rows is for these trees (same seed set, ordering, depth and tree numbers); make it with pabsim --procs 1 --per-tree on the same trees",
        p.display()
    );
    let without = rows.iter().filter(|r| r.t1_ticks.is_none()).count();
    if without > 0 {
        eprintln!("pabsim: warning: --baseline {} has no p = 1 run for {without} of {} rows (their SU, SO, CSS are empty)", p.display(), rows.len());
    }
    Ok(())
}

/// Which machine `pabsim` simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum MachineKind {
    /// The shared-memory multiprocessor of the thesis.
    Shared,
    /// The message-passing cluster.
    Cluster,
}

/// The simulated cluster's costs, each within its range (so that no
/// cost alone can wrap the clock: `docs/model.md` §9.1).
fn costs(args: &Args) -> Result<parab::cluster::exec::machine::Costs> {
    use parab::cluster::{args::cost_ns, exec::machine::Costs};
    let d = Costs::default();
    let ns = |name: &str, given: Option<u64>, default: u64| cost_ns(name, given.unwrap_or(default));
    let costs = Costs {
        node_ps: args.node_ns.map_or(Ok(d.node_ps), |c| c.ps("--node-ns"))?,
        leaf_ps: args.leaf_ns.map(|c| c.ps("--leaf-ns")).transpose()?,
        send_ns: ns("--send-ns", args.send_ns, d.send_ns)?,
        recv_ns: ns("--recv-ns", args.recv_ns, d.recv_ns)?,
        wake_ns: ns("--wake-ns", args.wake_ns, d.wake_ns)?,
        latency_ns: ns("--latency-ns", args.latency_ns, d.latency_ns)?,
        bytes_per_us: args.bandwidth.unwrap_or(d.bytes_per_us),
        master_ppm: args.cluster.master_ppm()?,
        topology: args.cluster.network.topology()?,
        speeds: args.proc_speeds.unwrap_or_default(),
    };
    ensure!(costs.bytes_per_us >= 1, "--bandwidth 0: a message would never arrive");
    Ok(costs)
}

/// `pabsim --list-algorithms`: the machine's parallel algorithms, one name
/// a line (the cluster's: what the experiment scripts run by default; the
/// shared machine's: the idle policies it simulates).
fn list_algorithms(args: &Args) -> Result<()> {
    use parab::cluster::{Algorithm, ClusterAlgorithm};
    let names: String = match args.machine {
        MachineKind::Cluster => ClusterAlgorithm::parallel().iter().map(|a| format!("{}\n", a.name())).collect(),
        MachineKind::Shared => Policy::ALL.iter().filter(|a| a.simulated().is_ok()).map(|a| format!("{}\n", a.name())).collect(),
    };
    let mut out = Output::create(args.output.as_deref())?;
    std::io::Write::write_all(&mut out, names.as_bytes())?;
    Ok(out.finish()?)
}

/// `pabsim --machine cluster`.
fn cluster(args: &Args) -> Result<()> {
    use parab::cluster::run::{ClusterRequest, Procs, configs, run, traced_run};
    use parab::cluster::{ClusterAlgorithm, ClusterSettings, MAX_CLUSTER_PROCS};
    // Before clap's pairing of --shard with --per-tree (checked for the
    // shared machine in main): the cluster has no shards at all.
    ensure!(
        args.shard.is_none(),
        "--shard applies to --machine shared only (the cluster's runs are not sharded: give each machine its own tree specs, as make ura2014 SHARD=K/N does)"
    );
    let mut shared_only = args.search.given().to_vec();
    // The lock and the interleaving are the shared machine's own: the cluster has neither.
    shared_only.extend([("--lock", args.lock.is_some()), ("--interleave", args.interleave.is_some())]);
    shared_only.extend([("--baseline", args.baseline.is_some()), ("--shard", args.shard.is_some()), ("--merge", args.merge)]);
    if let Some((name, _)) = shared_only.iter().find(|o| o.1) {
        bail!("{name} applies to --machine shared only");
    }
    ensure!(args.inputs.len() <= 1, "one tree-spec input at a time");
    if args.leaf_factors {
        return leaf_factors(args);
    }
    let algorithms = args.cluster.algorithms(&args.algorithm, &ClusterAlgorithm::defaults())?;
    cli::no_repeats("--procs", &args.procs)?;
    for &p in &args.procs {
        ensure!((1..=MAX_CLUSTER_PROCS).contains(&p), "--procs {p}: the cluster has 1..{MAX_CLUSTER_PROCS} processes");
    }
    let settings = ClusterSettings { costs: costs(args)?, ..args.cluster.settings()? };
    let req = ClusterRequest { procs: Procs::Counts(args.procs.clone()), algorithms, settings, per_tree: args.per_tree };
    let cfgs = configs(&req)?;
    let n = cfgs.len();
    let trees = read_trees(Input::open(args.inputs.first().map(|p| p.as_path()))?)?;
    let budget = args.memory.or_else(parab::cluster::memory::available);
    // The traced run, counted before the others run: refused here if too large.
    let traced = match &args.trace {
        Some(path) => {
            // Its counting run is a run: the memory bound first, as for the others.
            if let Some(budget) = budget {
                let at_once = rayon::current_num_threads().min(n * trees.len()).max(1);
                parab::cluster::run::check_memory(&cfgs, &trees, at_once, budget)?;
            }
            let i = parab::trace::pick_run(args.trace_run, n * trees.len()).map_err(anyhow::Error::msg)?;
            let (c, t) = traced_run(i, trees.len());
            let (c, t) = (&cfgs[c], &trees[t]);
            let (events, bytes) = parab::trace::cluster::measure(t, c)?;
            let limit = args.trace_limit.unwrap_or(parab::trace::DEFAULT_LIMIT);
            ensure!(
                bytes <= limit,
                "{}",
                parab::trace::too_large(bytes, events, limit, "trace a smaller run (fewer processes, a shallower tree, a larger --slice-nodes; --trace-run)")
            );
            Some((path, c, t))
        }
        None => None,
    };
    let progress = Progress::new("pabsim", (n * trees.len()) as u64, "simulations");
    let rows = run(&trees, &req, budget, args.baseline_cache.as_deref(), &progress)?;
    progress.finish();
    let mut out = Output::create(args.output.as_deref())?;
    write_csv(&mut out, rows)?;
    let mut outs = vec![out];
    if let Some((path, c, t)) = traced {
        let mut trace = Output::create(Some(path))?;
        parab::trace::cluster::write(t, c, &mut trace)?;
        outs.push(trace);
    }
    Ok(parab::cli::finish_all(outs)?)
}

/// `--leaf-factors`: Ura et al.'s §5.2 counts, one row for the input's
/// trees. The sequential search alone: the options of parallel runs and of
/// the simulated machine's costs are refused, the table size is checked as
/// for the cluster's runs, and the master depth is at most every tree's
/// depth (the row's d′ is the one searched).
fn leaf_factors(args: &Args) -> Result<()> {
    use parab::cluster::algorithms::master_worker::{MASTER_DEPTH, SHARE_DEPTH};
    use parab::cluster::{factors, memory};
    let c = &args.cluster;
    let mut unused = vec![("--procs", args.procs != [1])];
    unused.extend(cost_options(args));
    // Of the algorithms' options, the master's depth and the share's only.
    unused.extend(c.given_options().into_iter().filter(|(o, _)| ![MASTER_DEPTH, SHARE_DEPTH].contains(o)).map(|(o, on)| (o.flag, on)));
    if let Some((name, _)) = unused.iter().chain(&c.network.given()).find(|o| o.1) {
        bail!("{name} does not apply to --leaf-factors (the sequential search alone; it takes --master-depth, --share-depth, --tt-slots and --memory)");
    }
    let given = c.parameters()?;
    let Some(dm) = given.u32(MASTER_DEPTH) else { bail!("--leaf-factors needs --master-depth (the ply whose nodes are the tasks)") };
    let slots = c.settings()?.tt_slots;
    let trees = read_trees(Input::open(args.inputs.first().map(|p| p.as_path()))?)?;
    ensure!(!trees.is_empty(), "no trees in the input");
    if let Some(d) = trees.iter().map(|t| t.depth()).min().filter(|&d| dm > d) {
        bail!("--master-depth {dm} is deeper than the trees (depth {d}): give at most {d}");
    }
    // Two tables a tree, the trees counted on the threads at once.
    let at_once = rayon::current_num_threads().min(trees.len());
    let need = factors::memory(slots, at_once);
    if let Some(budget) = args.memory.or_else(memory::available).filter(|&b| need > b) {
        bail!(
            "the leaf counts need about {} (two tables of {slots} entries, {at_once} at once), more than --memory {}: lower --tt-slots{}, or raise --memory",
            memory::human(need),
            memory::human(budget),
            if at_once > 1 { " or --threads" } else { "" }
        );
    }
    let row = factors::leaf_factors(&trees, dm, given.u32(SHARE_DEPTH), slots)?;
    let mut out = Output::create(args.output.as_deref())?;
    write_csv(&mut out, [row])?;
    Ok(out.finish()?)
}

/// The simulated cluster's cost and network options, each with whether
/// it was given (the options the other uses refuse).
fn cost_options(args: &Args) -> [(&'static str, bool); 8] {
    [
        ("--node-ns", args.node_ns.is_some()),
        ("--leaf-ns", args.leaf_ns.is_some()),
        ("--send-ns", args.send_ns.is_some()),
        ("--recv-ns", args.recv_ns.is_some()),
        ("--wake-ns", args.wake_ns.is_some()),
        ("--latency-ns", args.latency_ns.is_some()),
        ("--bandwidth", args.bandwidth.is_some()),
        ("--proc-speeds", args.proc_speeds.is_some()),
    ]
}

fn main() {
    let args: Args = cli::parse_with("pabsim", |c| {
        let after = c.get_after_help().map(|h| h.to_string()).unwrap_or_default();
        let cluster = parab::cluster::ClusterAlgorithm::help();
        let after = after.replace("{shared}", &Policy::help(true));
        c.after_help(format!("{after}\n\nAlgorithms of the cluster (docs/model.md §9; pabsim --machine cluster --list-algorithms names them):\n{cluster}"))
    });
    cli::main("pabsim", || {
        if args.list_algorithms {
            return list_algorithms(&args);
        }
        cli::threads(args.threads)?;
        // A trace is a file of its own (never stdout): checked only when asked.
        let mut outputs = vec![("-o", args.output.as_deref())];
        outputs.extend(args.trace.as_deref().map(|t| ("--trace", Some(t))));
        outputs.extend(args.baseline_cache.as_deref().map(|t| ("--baseline-cache", Some(t))));
        cli::check_outputs(&outputs)?;
        if let Some(step) = args.ura2014 {
            return ura2014(&args, step);
        }
        if args.machine == MachineKind::Cluster {
            return cluster(&args);
        }
        let mut cluster_only = cost_options(&args).to_vec();
        cluster_only.extend([("--memory", args.memory.is_some()), ("--leaf-factors", args.leaf_factors), ("--baseline-cache", args.baseline_cache.is_some())]);
        cluster_only.extend(args.cluster.given());
        cluster_only.extend(args.cluster.network.given());
        if let Some((name, _)) = cluster_only.iter().find(|o| o.1) {
            bail!("{name} applies to --machine cluster only");
        }
        ensure!(args.shard.is_none() || args.per_tree, "--shard needs --per-tree (a shard's rows are per tree, for --merge)");
        let shared: Vec<_> = Policy::ALL.iter().filter(|a| a.simulated().is_ok()).map(|a| a.name()).collect();
        let algorithms = parab::request::parse_algorithms(
            "--algorithm",
            &args.algorithm,
            |n| n.parse::<parab::cluster::ClusterAlgorithm>().is_ok(),
            &format!("give --machine cluster; the shared machine runs {}", shared.join(", ")),
        )?;
        let base = baseline(&args.baseline)?;
        if args.merge {
            ensure!(!args.inputs.is_empty(), "--merge: give the per-tree CSV files of all shards");
            let mut parts = vec![];
            for p in &args.inputs {
                parts.push((p.display().to_string(), read_csv::<SimRow>(Input::open(Some(p))?)?));
            }
            let rows = run::finish(run::merge(parts)?, &base, args.per_tree)?;
            check_baseline_used(&args.baseline, &rows)?;
            let mut out = Output::create(args.output.as_deref())?;
            write_csv(&mut out, rows)?;
            return Ok(out.finish()?);
        }
        if args.inputs.len() > 1 {
            bail!("one tree-spec input at a time (several files are for --merge)");
        }
        let req = args.search.request(Request {
            algorithms,
            shard: args.shard.as_deref().map(run::parse_shard).transpose()?,
            interleave: args.interleave.unwrap_or_default(),
            lock: args.lock.unwrap_or_default(),
            ..Request::new(args.procs.clone())
        })?;
        // Before any input is read: the simulator cannot run every policy.
        if let Some(why) = req.algorithms.iter().find_map(|a| a.simulated().err()) {
            bail!("{why}");
        }
        cli::no_repeats("--procs", &req.procs)?;
        cli::no_repeats(parab::policy::PolicyOpt::Scheme.flag(), &req.schemes.iter().flatten().map(|s| s.name()).collect::<Vec<_>>())?;
        cli::no_repeats("--algorithm", &req.algorithms.iter().map(|k| k.name()).collect::<Vec<_>>())?;
        if req.procs.contains(&0) {
            bail!("--procs 0: the machine needs at least 1 processor");
        }
        let nets: Vec<Network> = Network::load_each(&args.search.weights)?.into_iter().map(|(_, n)| n).collect();
        let trees = read_trees(Input::open(args.inputs.first().map(|p| p.as_path()))?)?;
        let plan = Plan::new(&trees, &req, &nets)?;
        // The traced run, counted before the others run: refused here if too large.
        let traced = match &args.trace {
            Some(path) => {
                let i = parab::trace::pick_run(args.trace_run, plan.len()).map_err(anyhow::Error::msg)?;
                let Some((t, c, net)) = plan.item(i) else { bail!("--trace-run {}: no such run", i + 1) };
                let (t, net) = (&trees[t], net.map(|k| &nets[k]));
                let m = parab::trace::sim::measure(t, &c, net)?;
                let limit = args.trace_limit.unwrap_or(parab::trace::DEFAULT_LIMIT);
                ensure!(
                    m.bytes <= limit,
                    "{}",
                    parab::trace::too_large(m.bytes, m.events, limit, "trace a smaller run (fewer processors, a shallower tree; --trace-run)")
                );
                Some((path, t, c, net, m.end))
            }
            None => None,
        };
        let n = req.shard.map_or(plan.len(), |(k, n)| (k..plan.len()).step_by(n).count());
        let progress = Progress::new("pabsim", n as u64, "simulations");
        let rows = plan.run(&trees, &nets, req.shard, &progress)?;
        progress.finish();
        let rows = run::finish(rows, &base, args.per_tree)?;
        check_baseline_used(&args.baseline, &rows)?;
        let mut out = Output::create(args.output.as_deref())?;
        write_csv(&mut out, rows)?;
        let mut outs = vec![out];
        if let Some((path, t, c, net, end)) = traced {
            let mut trace = Output::create(Some(path))?;
            parab::trace::sim::write(t, &c, net, end, &mut trace)?;
            outs.push(trace);
        }
        Ok(parab::cli::finish_all(outs)?)
    })
}
