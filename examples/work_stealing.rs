//! A message-passing algorithm of one's own, defined here outside the
//! crate, run on the simulated cluster and (built with the feature `mpi`,
//! under `mpirun`) on MPI ranks, through the public API: the proof that a
//! cluster algorithm is one file. Every run's root value is checked against
//! the sequential search's; the program exits non-zero if one differs.
//!
//!     cargo run --release --example work_stealing
//!     cargo build --release --features mpi --example work_stealing
//!     mpirun -np 4 target/release/examples/work_stealing --mpi
//!
//! The algorithm, "work-stealing root split": every process builds the
//! frontier at the split ply (as OthelloX's even split does) and starts on
//! its contiguous share, searching one frontier node at a time with the
//! full window and sending each value to process 0, which backs them up. A
//! process whose share is done asks for work (its own message
//! `Steal::Request`) from the processes 1, 2, 4, 8, ... ranks after it, one
//! at a time: the asked gives the back half of what it has not started (a
//! `Msg::Task` each) or says it has none (`Steal::NoWork`); after log2(P) refusals the asker stops (so a
//! run sends O(P log P) requests, not P²). The program prints its speed-up
//! beside OthelloX's even split, the same frontier without stealing.
//!
//! To make it one of the toolkit's own (named on `pabsim --algorithm`, in
//! `--help`, `--list-algorithms` and the report), the file goes to
//! `src/cluster/algorithms/` and gets one line in the `registry!` list of
//! `src/cluster/algorithms/mod.rs` (`docs/model.md` §8.4).

use parab::cluster::algorithm::{Algorithm, Cut, Given, Opt, OptKind, Part, Run, TaskSearch};
use parab::cluster::algorithms::frontier::{Leaf, back_up, frontier, size};
use parab::cluster::algorithms::root_split::SPLIT_PLY;
use parab::cluster::exec::events::Delivery;
use parab::cluster::exec::transport::{Msg, OwnMsg, Process, Task, Transport};
use parab::cluster::{ClusterConfig, ClusterSettings, Launch, MAX_CLUSTER_PROCS, simulate};
use parab::game::TreeSource;
use parab::search::NodeCounts;
use parab::tree::{Tree, read_trees};
use parab::value::Window;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::io::Write;
use std::ops::RangeInclusive;

/// The work-stealing root split: its parameters, the split ply and the
/// frontier nodes a process starts with.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct WorkStealing {
    /// The frontier's ply (`None`: the shallowest with at least
    /// `per_process` nodes a process, at most the depth).
    split: Option<u32>,
    /// Frontier nodes a process starts with, at least, when the split ply
    /// is worked out (`None`: [`NODES_PER_PROCESS`]).
    per_process: Option<u64>,
}

/// Frontier nodes a process starts with, at least, by default: enough
/// that a process whose share is quick has someone to steal from.
const NODES_PER_PROCESS: u64 = 4;

/// The algorithm's own option, declared once: registered, the tools'
/// command lines and `--help` would take it from here.
const PER_PROCESS: Opt = Opt {
    flag: "--steal-share",
    value: "NODES",
    help: "Work-stealing's frontier nodes a process starts with, at least, when --split-ply is worked out (default 4)",
    kind: OptKind::Count { zero: "a process would start with nothing to search" },
};

impl Algorithm for WorkStealing {
    fn registered() -> Vec<WorkStealing> {
        vec![WorkStealing::default()]
    }
    fn name(&self) -> &'static str {
        "work-stealing"
    }
    fn label(&self) -> String {
        "work-stealing root split".into()
    }
    fn about(&self) -> &'static str {
        "the frontier at --split-ply split evenly; an idle process steals half of another's remaining share"
    }
    fn reads(&self) -> &'static [Opt] {
        &[SPLIT_PLY, PER_PROCESS]
    }
    fn given(self, g: &Given) -> WorkStealing {
        WorkStealing { split: g.u32(SPLIT_PLY), per_process: g.count(PER_PROCESS) }
    }
    fn procs(&self) -> RangeInclusive<usize> {
        1..=MAX_CLUSTER_PROCS
    }
    fn whole_tasks(&self) -> bool {
        true
    }
    fn resolve<S: TreeSource>(self, run: &Run<'_, S>) -> WorkStealing {
        let want = self.per_process.unwrap_or(NODES_PER_PROCESS) * run.procs as u64;
        let split = self.split.map_or_else(|| (1..run.depth).find(|&s| size(run.src, run.root, s) >= want).unwrap_or(run.depth), |s| s.min(run.depth));
        WorkStealing { split: Some(split), per_process: Some(self.per_process.unwrap_or(NODES_PER_PROCESS)) }
    }
    fn cut(&self) -> Option<Cut> {
        self.split.map(Cut::SplitPly)
    }
    fn memory<S: TreeSource>(&self, run: &Run<'_, S>) -> Part {
        // Every process holds the frontier (a node and its value each).
        let nodes = size(run.src, run.root, self.split.unwrap_or(0));
        let tree = nodes.saturating_mul((std::mem::size_of::<Leaf<S::Node>>() + 16) as u64).saturating_mul(run.procs as u64);
        Part { tables: run.procs as u64, tree, name: "frontiers", lower: "--split-ply" }
    }
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, tasks: impl Fn() -> Q) -> L::Output {
        let split = self.split.unwrap_or(run.depth);
        let (leaves, expanded) = frontier(run.src, run.root, split);
        let shared = Frontier { root: run.root.clone(), depth: run.depth, split, leaves, expanded };
        l.launch(run.src, run.procs, |_| Stealer::new(&shared, tasks()))
    }
}

/// The frontier every process builds (built once here and shared; each
/// process is charged its expansion).
struct Frontier<S: TreeSource> {
    root: S::Node,
    depth: u32,
    split: u32,
    leaves: Vec<Leaf<S::Node>>,
    expanded: u64,
}

/// The algorithm's own messages, besides the executor's `Task` and
/// `Result`: the simulated machine charges their bytes, the MPI transport
/// encodes them, the traces name them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Steal {
    /// Process `origin` has finished its share and asks for work.
    Request { origin: u32 },
    /// The asked has none to give.
    NoWork,
}

impl<N> OwnMsg<N> for Steal {
    fn kind(&self) -> &'static str {
        match self {
            Steal::Request { .. } => "Request",
            Steal::NoWork => "NoWork",
        }
    }
    fn bytes(&self) -> u64 {
        match self {
            Steal::Request { .. } => 4,
            Steal::NoWork => 0,
        }
    }
}

/// One process.
struct Stealer<'f, S: TreeSource, Q> {
    f: &'f Frontier<S>,
    tasks: Q,
    /// Frontier nodes not started, by index.
    queue: VecDeque<usize>,
    /// Process 0: the values so far, and how many are missing.
    values: Vec<Option<i64>>,
    missing: usize,
    /// Processes asked for work since the last task came (0: not asking).
    asked: u32,
}

impl<'f, S: TreeSource, Q: TaskSearch<S>> Stealer<'f, S, Q> {
    fn new(f: &'f Frontier<S>, tasks: Q) -> Self {
        Stealer { f, tasks, queue: VecDeque::new(), values: vec![], missing: 0, asked: 0 }
    }

    /// A frontier node's value: process 0 keeps it, the others send it.
    fn deliver<T: Transport<S::Node, Steal>>(&mut self, src: &S, t: &mut T, i: usize, value: i64) {
        if t.rank() != 0 {
            t.send(0, Msg::Result { id: i as u32, value });
            return;
        }
        if self.values[i].replace(value).is_none() {
            self.missing -= 1;
        }
        if self.missing == 0 {
            let values: Vec<i64> = self.values.iter().map(|v| v.unwrap_or(0)).collect();
            t.done(back_up(src, &self.f.root, self.f.split, &values));
        }
    }

    /// Asks the process 2^k ranks on (k the refusals so far); after
    /// ⌈log2 P⌉ refusals: idle for good.
    fn ask<T: Transport<S::Node, Steal>>(&mut self, t: &mut T) {
        let p = t.procs();
        if p > 1 && (1usize << self.asked) < p {
            let victim = (t.rank() + (1 << self.asked)) % p;
            self.asked += 1;
            t.send(victim, Msg::Own(Steal::Request { origin: t.rank() as u32 }));
        }
    }
}

impl<S: TreeSource, Q: TaskSearch<S>> Process<S> for Stealer<'_, S, Q> {
    type Own = Steal;

    fn start<T: Transport<S::Node, Steal>>(&mut self, _: &S, t: &mut T) {
        let (n, p, r) = (self.f.leaves.len(), t.procs(), t.rank());
        t.searched(NodeCounts { nodes: self.f.expanded, leaves: 0, internal: self.f.expanded });
        self.queue = (r * n / p..(r + 1) * n / p).collect();
        if r == 0 {
            (self.values, self.missing) = (vec![None; n], n);
        }
        t.wake();
    }

    /// One frontier node, then a look at the inbox; out of work: ask.
    fn resume<T: Transport<S::Node, Steal>>(&mut self, src: &S, t: &mut T) {
        let Some(i) = self.queue.pop_front() else { return self.ask(t) };
        let leaf = &self.f.leaves[i];
        let (value, counts) = self.tasks.task(src, &leaf.node, leaf.max, self.f.depth - leaf.ply, leaf.ply, Window::ROOT);
        t.searched(counts);
        self.deliver(src, t, i, value);
        t.wake();
    }

    fn receive<T: Transport<S::Node, Steal>>(&mut self, src: &S, t: &mut T, _: usize, msg: Msg<S::Node, Steal>) {
        match msg {
            Msg::Own(Steal::Request { origin }) => {
                let give = self.queue.len() / 2;
                if give == 0 {
                    t.send(origin as usize, Msg::Own(Steal::NoWork));
                }
                for _ in 0..give {
                    let i = self.queue.pop_back().expect("half of the queue");
                    let leaf = &self.f.leaves[i];
                    let job =
                        Task { id: i as u32, node: leaf.node.clone(), max: leaf.max, ply: leaf.ply, depth: self.f.depth - leaf.ply, window: Window::ROOT };
                    t.send(origin as usize, Msg::Task(job));
                }
            }
            Msg::Task(job) => {
                self.queue.push_back(job.id as usize);
                // The first of a batch wakes the process; the rest queue.
                if self.asked > 0 {
                    self.asked = 0;
                    t.wake();
                }
            }
            Msg::Own(Steal::NoWork) => self.ask(t),
            Msg::Result { id, value } => self.deliver(src, t, id as usize, value),
            _ => {}
        }
    }
}

/// Incremental trees (Ura et al.'s) of `b` moves a node to `depth`.
fn trees(b: u32, depth: u32, count: u32) -> Vec<Tree> {
    let text: String = (1..=count)
        .map(|i| format!("{{\"set\":\"ex\",\"index\":{i},\"seed\":{},\"model\":\"incremental\",\"b\":{b},\"scale\":100,\"depth\":{depth}}}\n", 97 * i))
        .collect();
    read_trees(parab::cli::Input::from_string("example", &text)).expect("tree specs")
}

/// The simulated cluster: every tree at P = 1 ... 1,024, messages by time
/// and in adversarial orders, every run checked; prints the speed-ups of
/// the timed runs beside the even split's on the same frontier, to `out`.
fn simulated(out: &mut impl Write) -> anyhow::Result<()> {
    use parab::cluster::algorithms::root_split::EvenSplit;
    let mut all = trees(5, 8, 2);
    all.extend(trees(20, 5, 2));
    writeln!(out, "tree              P  split  even split  work stealing  messages")?;
    for t in &all {
        let seq = ClusterConfig::new(parab::cluster::ClusterAlgorithm::SEQUENTIAL, 1);
        let base = simulate(t, &seq, None).map_err(|e| anyhow::anyhow!("{e}"))?.output;
        let speedup = |time: u64| base.time_ns as f64 / time.max(1) as f64;
        for procs in [1, 2, 3, 8, 64, 1024] {
            for delivery in [Delivery::Timed, Delivery::Adversarial(7)] {
                let settings = ClusterSettings { delivery, ..ClusterSettings::default() };
                // `simulate` checks the root value against the sequential search's.
                let ours = simulate(t, &ClusterConfig { settings, ..ClusterConfig::new(WorkStealing::default(), procs) }, Some(base.value));
                let ours = ours.map_err(|e| anyhow::anyhow!("tree {}: {e}", t.index()))?;
                if delivery == Delivery::Timed {
                    let split = ours.algorithm.split;
                    let even = simulate(t, &ClusterConfig { settings, ..ClusterConfig::new(EvenSplit { split }, procs) }, Some(base.value));
                    let even = even.map_err(|e| anyhow::anyhow!("{e}"))?.output;
                    let name = format!("b = {}, tree {}", t.key().b().unwrap_or(0), t.index());
                    let (su_even, su_ours) = (speedup(even.time_ns), speedup(ours.output.time_ns));
                    writeln!(out, "{name:<15} {procs:>4}  {:>5}  {su_even:>10.2}  {su_ours:>13.2}  {:>8}", split.unwrap_or(0), ours.output.messages)?;
                }
            }
        }
    }
    writeln!(out, "(speed-ups over the sequential search with its table; root splitting searches every frontier node with the full window)")?;
    Ok(out.flush()?)
}

#[cfg(feature = "mpi")]
fn on_mpi() -> ! {
    use parab::cluster::exec::mpi::{OnMpi, run::main};
    use parab::cluster::{launch, search::Searcher};
    main("work_stealing", std::time::Duration::from_secs(60), |job| {
        for t in trees(5, 7, 2) {
            let cfg = ClusterConfig::new(WorkStealing::default(), job.size);
            let got = t.visit(Visit { cfg: &cfg, job })?;
            if let Some(stats) = got {
                let want = t.visit(Sequential)?;
                anyhow::ensure!(stats.value == want, "tree {}: root value {} on {} ranks, the sequential search's is {want}", t.index(), stats.value, job.size);
                println!("tree {}: {} ranks, root value {} (exact), {} messages", t.index(), job.size, stats.value, stats.messages);
            }
        }
        Ok(())
    });
    struct Visit<'a, 'w> {
        cfg: &'a ClusterConfig<WorkStealing>,
        job: parab::cluster::exec::mpi::Job<'w>,
    }
    impl parab::tree::SourceVisitor for Visit<'_, '_> {
        type Output = anyhow::Result<Option<parab::cluster::exec::machine::ClusterStats>>;
        fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Self::Output {
            Ok(launch(src, root, depth, self.cfg, OnMpi::new(self.job, false))?.output)
        }
    }
    struct Sequential;
    impl parab::tree::SourceVisitor for Sequential {
        type Output = anyhow::Result<i64>;
        fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Self::Output {
            Ok(Searcher::<S>::new(1 << 14).search(src, root, true, depth, 0, Window::ROOT))
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--mpi") {
        #[cfg(feature = "mpi")]
        on_mpi();
        #[cfg(not(feature = "mpi"))]
        {
            eprintln!("work_stealing: --mpi needs the feature mpi (cargo build --release --features mpi --example work_stealing)");
            std::process::exit(2);
        }
    }
    if let Err(e) = simulated(&mut std::io::stdout().lock()) {
        // A reader that has gone (`| head -1`) ends the program quietly, as
        // the tools do; any other failure to write is one line.
        match e.downcast_ref::<std::io::Error>() {
            Some(io) if io.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            Some(io) => eprintln!("work_stealing: cannot write stdout: {io}"),
            None => eprintln!("work_stealing: {e}"),
        }
        std::process::exit(1);
    }
}
