//! What a run of many (tree, configuration) pairs on a cluster is asked
//! ([`ClusterRequest`]: the same for the simulated cluster and for MPI
//! ranks), its configurations in row order ([`configs`]), the simulated
//! runs in parallel ([`run`], `pabsim --machine cluster`) and the rows of
//! both machines (`rows`; `docs/formats.md`).
//!
//! Every tree is first searched by the sequential baseline on one process:
//! its time and leaves are the reference for speed-up and leaf ratio, its
//! value the one every parallel run must return, and its tasks (the nodes
//! it searched to full depth at the master-worker's plies,
//! [`mod@super::reference`]) what the workers' tasks are compared with. Runs are independent
//! and each is one sequential simulation, so the rows are the same for any
//! thread count.

use super::reference::{Reference, SeqTasks};
use super::{Algorithm, ClusterAlgorithm, ClusterConfig, ClusterError, ClusterSettings, Cut, resolve_on, simulate, simulate_tree_against};
use crate::cluster::exec::machine::ClusterStats;
use crate::cluster::exec::topology::Topology;
use crate::cluster::exec::transport::TaskTally;
use crate::formats::ClusterRow;
use crate::formats::aggregate::GeoMean;
use crate::tree::Tree;
use rayon::prelude::*;
use std::path::Path;
use std::sync::{Arc, Mutex};

pub mod cache;
#[cfg(feature = "mpi")]
pub mod mpi;

/// The process counts a request runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Procs {
    /// The simulated cluster: each count in turn, every algorithm on it; a
    /// count of 1 is the sequential baseline alone.
    Counts(Vec<usize>),
    /// An MPI job of this many ranks: the sequential baseline on rank 0,
    /// then every algorithm on all ranks (`seq` only on a job of one rank).
    Ranks(usize),
}

/// What a cluster run is asked, simulated or on MPI ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterRequest {
    /// The process counts.
    pub procs: Procs,
    /// The parallel algorithms with their parameters.
    pub algorithms: Vec<ClusterAlgorithm>,
    /// The machine every run shares.
    pub settings: ClusterSettings,
    /// One row per tree instead of per configuration.
    pub per_tree: bool,
}

/// One (configuration, tree) run's result.
pub(crate) struct Done {
    /// The configuration's index.
    pub cfg: usize,
    /// The tree's index.
    pub tree: usize,
    /// The algorithm as it ran, every parameter worked out.
    pub ran: ClusterAlgorithm,
    /// What it measured.
    pub stats: ClusterStats,
}

/// Where rows come from: the simulated cluster, or a real transport.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RowSource {
    /// `pabsim --machine cluster`.
    Simulated,
    /// `psearch --mpi`; the busiest host before the job's searches.
    Mpi {
        /// Its load, cores, free cores, and whether some host ran more
        /// threads than its free cores.
        host: crate::real::host::Occupancy,
        /// Rank 0's measured time of a look for messages that finds none,
        /// ns.
        wake_ns: u64,
    },
}

/// The configurations asked, in row order (the sequential baseline where
/// [`Procs`] says, then each algorithm on each count above it). Each is
/// checked before anything runs. The baseline is the sequential search on
/// one thread.
pub fn configs(req: &ClusterRequest) -> Result<Vec<ClusterConfig>, ClusterError> {
    let mut out = vec![];
    let mut add = |algorithm: ClusterAlgorithm, procs: usize| {
        let mut settings = req.settings;
        if algorithm == ClusterAlgorithm::SEQUENTIAL {
            settings.threads = None;
        }
        let c: ClusterConfig = ClusterConfig { algorithm, procs, settings };
        c.check()?;
        out.push(c);
        Ok::<(), ClusterError>(())
    };
    match req.procs {
        Procs::Counts(ref counts) => {
            for &p in counts {
                if p == 1 {
                    add(ClusterAlgorithm::SEQUENTIAL, 1)?;
                } else {
                    for &a in &req.algorithms {
                        add(a, p)?;
                    }
                }
            }
        }
        Procs::Ranks(ranks) => {
            add(ClusterAlgorithm::SEQUENTIAL, 1)?;
            for &a in &req.algorithms {
                ClusterConfig::<ClusterAlgorithm>::new(a, ranks).check()?;
                if a != ClusterAlgorithm::SEQUENTIAL {
                    add(a, ranks)?;
                }
            }
        }
    }
    Ok(out)
}

/// Runs every (tree, configuration) on the simulated cluster and returns
/// the rows; refused before anything runs if its memory estimate exceeds
/// `budget` bytes ([`super::memory`]). With `cache`, the one tree's
/// sequential baseline is read from that file if it holds it, else
/// searched and written there ([`cache`]): the rows are the same.
pub fn run(
    trees: &[Tree],
    req: &ClusterRequest,
    budget: Option<u64>,
    cache: Option<&Path>,
    progress: &crate::progress::Progress,
) -> Result<Vec<ClusterRow>, ClusterError> {
    let cfgs = configs(req)?;
    if let Some(budget) = budget {
        check_memory(&cfgs, trees, rayon::current_num_threads().min(cfgs.len() * trees.len()).max(1), budget)?;
    }
    if cache.is_some() && trees.len() != 1 {
        return Err(ClusterError::Cache(format!("a baseline cache holds one tree's baseline, and the input has {} trees (give one tree a run)", trees.len())));
    }
    let seq: ClusterConfig = ClusterConfig {
        settings: ClusterSettings { costs: req.settings.costs, tt_slots: req.settings.tt_slots, ..ClusterSettings::default() },
        ..ClusterConfig::new(ClusterAlgorithm::SEQUENTIAL, 1)
    };
    // Each tree's baseline, recording its tasks at the plies of the
    // deepest master depth asked of the tree (`cluster::reference`), if any.
    let search = |t: &Tree| -> Result<(ClusterStats, Option<SeqTasks>), ClusterError> {
        let below = cfgs.iter().filter_map(|c| if let Some(Cut::MasterDepth(d)) = resolve_on(c, t).cut() { Some(d + 1) } else { None }).max();
        // The key (the tree's spec and the configuration, printed) only for a cache.
        let cached = cache.map(|p| (p, cache::BaselineKey::new(t, &seq, below)));
        if let Some(b) = cached.as_ref().and_then(|(p, key)| cache::load(p, key)) {
            return Ok((b.stats, b.tasks));
        }
        let (stats, tasks) = match below {
            None => (simulate(t, &seq, None)?.output, None),
            Some(below) => {
                let into = Arc::new(Mutex::new(None));
                let out = simulate_tree_against(t, &seq, None, &Reference::Record { below, into: into.clone() })?.output;
                let tasks = into.lock().unwrap_or_else(|e| e.into_inner()).take();
                (out, tasks)
            }
        };
        let Some((p, key)) = cached else { return Ok((stats, tasks)) };
        let b = cache::Baseline { key, stats, tasks };
        cache::save(p, &b).map_err(ClusterError::Cache)?;
        Ok((b.stats, b.tasks))
    };
    let base: Vec<(ClusterStats, Reference)> = trees
        .par_iter()
        .map(|t| search(t).map(|(stats, tasks)| (stats, tasks.map_or(Reference::None, |t| Reference::Compare(Arc::new(t))))))
        .collect::<Result<_, _>>()?;
    let (base, refs): (Vec<ClusterStats>, Vec<Reference>) = base.into_iter().unzip();
    let items: Vec<(usize, usize)> = (0..cfgs.len()).flat_map(|c| (0..trees.len()).map(move |t| (c, t))).collect();
    let done: Vec<Done> = items
        .par_iter()
        .map(|&(c, t)| {
            let cfg = &cfgs[c];
            let (stats, ran) = if cfg.algorithm == ClusterAlgorithm::SEQUENTIAL {
                (base[t].clone(), ClusterAlgorithm::SEQUENTIAL)
            } else {
                let r = simulate_tree_against(&trees[t], cfg, Some(base[t].value), &refs[t])?;
                (r.output, r.algorithm)
            };
            progress.inc(1);
            Ok(Done { cfg: c, tree: t, ran, stats })
        })
        .collect::<Result<_, ClusterError>>()?;
    Ok(rows(trees, &cfgs, &done, &base, req.per_tree, RowSource::Simulated))
}

/// The (configuration, tree) of run `i` (0-based) of a request on `trees`
/// trees, in the order of the `--per-tree` rows (configuration by
/// configuration, tree by tree): the run `--trace-run` picks.
pub fn traced_run(i: usize, trees: usize) -> (usize, usize) {
    (i / trees.max(1), i % trees.max(1))
}

/// Refuses a request that would need more than `budget` bytes with
/// `threads` runs at once.
pub fn check_memory(cfgs: &[ClusterConfig], trees: &[Tree], threads: usize, budget: u64) -> Result<(), ClusterError> {
    let (need, worst) = super::memory::peak(cfgs, trees, threads);
    match worst {
        Some((c, e)) if need > budget => {
            Err(ClusterError::Memory { need, budget, part: e.part.0, lower: e.part.1, procs: c.procs, tables: e.tables, tree: e.tree, at_once: threads })
        }
        _ => Ok(()),
    }
}

/// The rows of runs `done` (every configuration of `cfgs` on every tree,
/// `base` the sequential baseline of each tree): per configuration, one per
/// tree or one per group of trees of the same family, b and depth.
pub(crate) fn rows(trees: &[Tree], cfgs: &[ClusterConfig], done: &[Done], base: &[ClusterStats], per_tree: bool, source: RowSource) -> Vec<ClusterRow> {
    let mut rows = vec![];
    for (c, cfg) in cfgs.iter().enumerate() {
        let mut mine: Vec<&Done> = done.iter().filter(|d| d.cfg == c).collect();
        mine.sort_by_key(|d| d.tree);
        if per_tree {
            rows.extend(mine.iter().map(|d| row(&trees[d.tree..=d.tree], cfg, &[d], &base[d.tree..=d.tree], true, source)));
        } else {
            // One row per group of trees of the same family, b and depth.
            let mut groups: Vec<(String, Vec<usize>)> = vec![];
            for (i, t) in trees.iter().enumerate() {
                let k = t.key().to_string();
                match groups.iter_mut().find(|g| g.0 == k) {
                    Some(g) => g.1.push(i),
                    None => groups.push((k, vec![i])),
                }
            }
            for (_, idx) in groups {
                let ds: Vec<&Done> = idx.iter().map(|&i| mine[i]).collect();
                let ts: Vec<Tree> = idx.iter().map(|&i| trees[i].clone()).collect();
                let bs: Vec<ClusterStats> = idx.iter().map(|&i| base[i].clone()).collect();
                rows.push(row(&ts, cfg, &ds, &bs, false, source));
            }
        }
    }
    rows
}

/// The geometric mean of times over the trees (`ClusterRow::COLUMNS`:
/// `time_ns`), a time below 1 ns counted as 1 ns so that one empty run
/// does not make the mean 0.
fn geomean(xs: impl Iterator<Item = f64>) -> f64 {
    let mut g = GeoMean::default();
    xs.for_each(|x| g.add(x.max(1.0)));
    g.mean()
}

/// The processor load of a row's runs `ds` on `procs` processes: (mean,
/// least, standard deviation) over the processes of each one's busy time
/// summed over the runs over their search times summed (OthelloX's LD,
/// `docs/formats.md`). A row whose search time is nil waited for nothing:
/// load 1.
pub(crate) fn loads(ds: &[&Done], procs: usize) -> (f64, f64, f64) {
    let time: u128 = ds.iter().map(|d| d.stats.time_ns as u128).sum();
    if time == 0 || procs == 0 {
        return (1.0, 1.0, 0.0);
    }
    let load: Vec<f64> = (0..procs)
        .map(|r| {
            let busy: u128 = ds.iter().map(|d| d.stats.busy_ns.get(r).copied().unwrap_or(0) as u128).sum();
            (busy as f64 / time as f64).min(1.0)
        })
        .collect();
    let n = procs as f64;
    let mean = load.iter().sum::<f64>() / n;
    let var = load.iter().map(|l| (l - mean) * (l - mean)).sum::<f64>() / n;
    (mean, load.iter().copied().fold(f64::INFINITY, f64::min), var.sqrt())
}

fn row(trees: &[Tree], cfg: &ClusterConfig, ds: &[&Done], base: &[ClusterStats], per_tree: bool, source: RowSource) -> ClusterRow {
    let t0 = &trees[0];
    let key = t0.key();
    let time = geomean(ds.iter().map(|d| d.stats.time_ns as f64));
    let t1 = geomean(base.iter().map(|b| b.time_ns as f64));
    let sum = |f: fn(&ClusterStats) -> u64| ds.iter().map(|d| f(&d.stats)).sum::<u64>();
    // Idle times, each below 2^64 ns, are summed wide: many trees' could pass it.
    let wide = |f: fn(&ClusterStats) -> u64| ds.iter().map(|d| f(&d.stats) as u128).sum::<u128>() as f64;
    let leaves = sum(|s| s.counts.leaves);
    let base_leaves: u64 = base.iter().map(|b| b.counts.leaves).sum();
    let per_proc = (cfg.procs * ds.len()) as f64;
    // Each cut column where every tree of the row has the same value.
    let cuts: Vec<[Option<u32>; 3]> = ds.iter().map(|d| Cut::columns(d.ran.cut())).collect();
    let [split_ply, master_depth, granularity] = std::array::from_fn(|i| if cuts.iter().all(|c| c[i] == cuts[0][i]) { cuts[0][i] } else { None });
    let threads = cfg.settings.threads;
    let (load_mean, load_min, load_sd) = loads(ds, cfg.procs);
    // The task columns where every tree's run reported them.
    let tallies: Option<Vec<TaskTally>> = ds.iter().map(|d| d.stats.tasks).collect();
    let tally = tallies.map(|v| v.into_iter().fold(TaskTally::default(), |a, b| a + b));
    let task = |f: fn(&TaskTally) -> u64| tally.as_ref().map(f);
    let (host, wake_ns) = match source {
        RowSource::Simulated => (None, None),
        RowSource::Mpi { host, wake_ns } => (Some(host), Some(wake_ns)),
    };
    ClusterRow {
        tree: per_tree.then(|| t0.index()),
        seed: per_tree.then(|| crate::request::row_seed(t0)),
        model: key.family().to_string(),
        b: key.b(),
        depth: key.depth(),
        trees: ds.len() as u32,
        algorithm: cfg.algorithm.name().to_string(),
        procs: cfg.procs as u32,
        split_ply,
        master_depth,
        granularity,
        root_value: per_tree.then(|| t0.row_value(ds[0].stats.value)),
        time_ns: time,
        speedup: if time > 0.0 { t1 / time } else { 0.0 },
        leaves,
        nodes: sum(|s| s.counts.nodes),
        leaf_ratio: if base_leaves > 0 { leaves as f64 / base_leaves as f64 } else { 0.0 },
        startup_idle_ns: wide(|s| s.startup_idle_ns) / per_proc,
        other_idle_ns: wide(|s| s.other_idle_ns) / per_proc,
        load_mean,
        load_min,
        load_sd,
        messages: sum(|s| s.messages),
        bytes: sum(|s| s.bytes),
        passes: task(|t| t.passes),
        tasks_sent: task(|t| t.tasks_sent),
        full_window_sends: task(|t| t.full_window_sends),
        tasks_dropped: task(|t| t.tasks_dropped),
        dropped_nodes: task(|t| t.dropped_nodes),
        tasks_aborted: task(|t| t.tasks_aborted),
        aborted_nodes: task(|t| t.aborted_nodes),
        outside_nodes: tally.as_ref().and_then(|t| t.outside_nodes),
        // The flat network's rows as before; another topology is named.
        transport: match (source, cfg.settings.costs.topology) {
            (RowSource::Simulated, Topology::Flat) => "simulated".into(),
            (RowSource::Simulated, t) => format!("simulated/{t}"),
            (RowSource::Mpi { .. }, _) => "mpi".into(),
        },
        cores: host.map(|h| h.cores),
        host_load: host.and_then(|h| h.host_load),
        free_cores: host.and_then(|h| h.free_cores),
        oversubscribed: host.map(|h| h.oversubscribed),
        // Real ranks say how many threads each ran (1: the sequential search).
        threads: (source != RowSource::Simulated).then(|| threads.map_or(1, |t| t.threads as u32)),
        thread_policy: threads.map(|t| t.policy.name().to_string()),
        wake_ns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Input;

    #[test]
    fn rows_per_configuration_and_per_tree() {
        let text: String =
            (1..=3).map(|i| format!("{{\"set\":\"t\",\"index\":{i},\"seed\":{i},\"model\":\"incremental\",\"b\":5,\"scale\":100,\"depth\":6}}\n")).collect();
        let trees = crate::tree::read_trees(Input::from_string("t", &text)).unwrap();
        let req = ClusterRequest {
            procs: Procs::Counts(vec![1, 4]),
            algorithms: ClusterAlgorithm::defaults(),
            settings: ClusterSettings { tt_slots: 1 << 12, ..ClusterSettings::default() },
            per_tree: false,
        };
        let p = crate::progress::Progress::hidden();
        let rows = run(&trees, &req, None, None, &p).unwrap();
        assert_eq!(
            rows.iter().map(|r| (r.algorithm.as_str(), r.procs, r.trees)).collect::<Vec<_>>(),
            [("seq", 1, 3), ("even-split", 4, 3), ("master-slave", 4, 3)]
        );
        assert_eq!((rows[0].speedup, rows[0].leaf_ratio, rows[0].messages), (1.0, 1.0, 0));
        // Even split on 4: the 5 root children split 1, 1, 1, 2; three
        // workers send 1, 1, 2 results.
        assert_eq!((rows[1].split_ply, rows[1].messages, rows[1].bytes), (Some(1), 3 * 4, 3 * 4 * 24));
        let per = run(&trees, &ClusterRequest { per_tree: true, ..req.clone() }, None, None, &p).unwrap();
        assert_eq!(per.len(), 9);
        assert_eq!(
            per.iter().filter(|r| r.procs == 4).map(|r| r.root_value).collect::<Vec<_>>(),
            [per[0].root_value, per[1].root_value, per[2].root_value].repeat(2)
        );
        assert_eq!(per.iter().map(|r| r.leaves).sum::<u64>(), rows.iter().map(|r| r.leaves).sum::<u64>());
        assert!(configs(&ClusterRequest { procs: Procs::Counts(vec![1, 2]), algorithms: vec![ClusterAlgorithm::SEQUENTIAL], ..req.clone() }).is_err());
        // A job of 4 ranks: the baseline on one, then each algorithm on all 4.
        let job = configs(&ClusterRequest { procs: Procs::Ranks(4), ..req.clone() }).unwrap();
        assert_eq!(job.iter().map(|c| (c.algorithm.name(), c.procs)).collect::<Vec<_>>(), [("seq", 1), ("even-split", 4), ("master-slave", 4)]);
        assert!(configs(&ClusterRequest { procs: Procs::Ranks(1), ..req }).is_err(), "master-slave needs 2 ranks");
    }

    /// The master-worker's `outside_nodes`: nil at d′ = 1 (the sequential
    /// search searches every root child to full depth), some but not all
    /// of the nodes at d′ = 3 (speculation below a cut-off), empty for
    /// the algorithms without tasks and for the baseline.
    #[test]
    fn nodes_outside_the_sequential_search_s_tasks() {
        use crate::cluster::algorithms::master_worker::{MasterWorker, MwVariant};
        let text: String =
            (1..=3).map(|i| format!("{{\"set\":\"t\",\"index\":{i},\"seed\":{i},\"model\":\"incremental\",\"b\":5,\"scale\":100,\"depth\":7}}\n")).collect();
        let trees = crate::tree::read_trees(Input::from_string("t", &text)).unwrap();
        let mw = |d| ClusterAlgorithm::from(MasterWorker { master_depth: Some(d), ..MasterWorker::new(MwVariant::Updates) });
        let req = ClusterRequest {
            procs: Procs::Counts(vec![1, 8]),
            algorithms: vec![mw(1), mw(3), ClusterAlgorithm::defaults()[0]],
            settings: ClusterSettings { tt_slots: 1 << 12, ..ClusterSettings::default() },
            per_tree: false,
        };
        let rows = run(&trees, &req, None, None, &crate::progress::Progress::hidden()).unwrap();
        let out: Vec<_> = rows.iter().map(|r| (r.algorithm.as_str(), r.master_depth, r.outside_nodes)).collect();
        assert_eq!(out[..2], [("seq", None, None), ("master-worker", Some(1), Some(0))]);
        assert_eq!((out[3].0, out[3].2), ("even-split", None));
        let (outside, nodes) = (rows[2].outside_nodes.unwrap(), rows[2].nodes);
        assert!(outside > 0 && outside < nodes, "d' 3: {outside} of {nodes}");
        // Per tree, the same nodes summed.
        let per = run(&trees, &ClusterRequest { per_tree: true, ..req }, None, None, &crate::progress::Progress::hidden()).unwrap();
        assert_eq!(per.iter().filter(|r| r.master_depth == Some(3)).map(|r| r.outside_nodes.unwrap()).sum::<u64>(), outside);
    }

    /// A baseline cache changes no row: the first run writes it, the next
    /// read it (a baseline altered in the file shows in their rows), and
    /// it takes one tree.
    #[test]
    fn a_cached_baseline_gives_the_same_rows() {
        use crate::cluster::algorithms::master_worker::{MasterWorker, MwVariant};
        let line = "{\"set\":\"t\",\"index\":1,\"seed\":5,\"model\":\"incremental\",\"b\":5,\"scale\":100,\"depth\":7}\n";
        let trees = crate::tree::read_trees(Input::from_string("t", line)).unwrap();
        let mw = ClusterAlgorithm::from(MasterWorker { master_depth: Some(3), ..MasterWorker::new(MwVariant::Updates) });
        let req = ClusterRequest {
            procs: Procs::Counts(vec![1, 8]),
            algorithms: vec![mw, ClusterAlgorithm::defaults()[0]],
            settings: ClusterSettings { tt_slots: 1 << 12, ..ClusterSettings::default() },
            per_tree: true,
        };
        let p = crate::progress::Progress::hidden();
        let plain = run(&trees, &req, None, None, &p).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t01-baseline.json");
        assert_eq!(run(&trees, &req, None, Some(&path), &p).unwrap(), plain);
        let mut b: cache::Baseline = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert!(b.tasks.as_ref().is_some_and(|t| t.plies() == 4 && t.at(3) > 0), "tasks recorded for d' = 3");
        assert_eq!(run(&trees, &req, None, Some(&path), &p).unwrap(), plain);
        b.stats.time_ns *= 2;
        cache::save(&path, &b).unwrap();
        let read = run(&trees, &req, None, Some(&path), &p).unwrap();
        let ratio = |a: f64, b: f64| a / b;
        assert!((ratio(read[0].time_ns, plain[0].time_ns) - 2.0).abs() < 1e-9 && (ratio(read[1].speedup, plain[1].speedup) - 2.0).abs() < 1e-9);
        let two =
            crate::tree::read_trees(Input::from_string("t", &format!("{line}{}", line.replace("\"index\":1,\"seed\":5", "\"index\":2,\"seed\":6")))).unwrap();
        assert!(matches!(run(&two, &req, None, Some(&path), &p), Err(ClusterError::Cache(_))));
    }
}
