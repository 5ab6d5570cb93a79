//! Many (tree, configuration) runs of the simulated cluster in parallel,
//! and their rows (`pabsim --machine cluster`; `docs/formats.md`).
//!
//! Every tree is first searched by the sequential baseline on one process:
//! its time and leaves are the reference for speed-up and leaf ratio, and
//! its value the one every parallel run must return. Runs are independent
//! and each is one sequential simulation, so the rows are the same for any
//! thread count.

use super::machine::ClusterStats;
use super::{ClusterAlgorithm, ClusterConfig, ClusterError, simulate};
use crate::formats::ClusterRow;
use crate::tree::Tree;
use rayon::prelude::*;

/// What a cluster run is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterRequest {
    /// Process counts (1 is the sequential baseline).
    pub procs: Vec<usize>,
    /// The parallel algorithms, for every count above 1.
    pub algorithms: Vec<ClusterAlgorithm>,
    /// Every other setting of the runs (the machine's costs, tables,
    /// split ply and the master-worker's parameters); its algorithm and
    /// process count are replaced by each configuration's.
    pub settings: ClusterConfig,
    /// One row per tree instead of per configuration.
    pub per_tree: bool,
}

/// One (configuration, tree) run's result.
pub(crate) struct Done {
    /// The configuration's index.
    pub cfg: usize,
    /// The tree's index.
    pub tree: usize,
    /// Its split ply or master depth ([`split_of`]).
    pub split: Option<u32>,
    /// What it measured.
    pub stats: ClusterStats,
}

/// Where rows come from: the simulated cluster, or a real transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowSource {
    /// `pabsim --machine cluster`.
    Simulated,
    /// `psearch --mpi`; whether some host ran more ranks than its cores.
    Mpi {
        /// Ranks above a host's cores.
        oversubscribed: bool,
    },
}

/// The configurations asked, in row order: the baseline, then each count
/// above 1 with each algorithm. Each is checked before anything runs.
pub fn configs(req: &ClusterRequest) -> Result<Vec<ClusterConfig>, ClusterError> {
    let mut out = vec![];
    for &p in &req.procs {
        let algs = if p == 1 { vec![ClusterAlgorithm::Sequential] } else { req.algorithms.clone() };
        for a in algs {
            let c = ClusterConfig { algorithm: a, procs: p, ..req.settings };
            c.check()?;
            out.push(c);
        }
    }
    Ok(out)
}

/// Runs every (tree, configuration) and returns the rows.
pub fn run(trees: &[Tree], req: &ClusterRequest, progress: &crate::progress::Progress) -> Result<Vec<ClusterRow>, ClusterError> {
    let cfgs = configs(req)?;
    let seq = ClusterConfig { costs: req.settings.costs, tt_slots: req.settings.tt_slots, ..ClusterConfig::new(ClusterAlgorithm::Sequential, 1) };
    let base: Vec<ClusterStats> = trees.par_iter().map(|t| simulate(t, &seq, None)).collect::<Result<_, _>>()?;
    let items: Vec<(usize, usize)> = (0..cfgs.len()).flat_map(|c| (0..trees.len()).map(move |t| (c, t))).collect();
    let done: Vec<Done> = items
        .par_iter()
        .map(|&(c, t)| {
            let cfg = &cfgs[c];
            let stats = if cfg.algorithm == ClusterAlgorithm::Sequential { base[t] } else { simulate(&trees[t], cfg, Some(base[t].value))? };
            progress.inc(1);
            Ok(Done { cfg: c, tree: t, split: split_of(&trees[t], cfg), stats })
        })
        .collect::<Result<_, ClusterError>>()?;
    Ok(rows(trees, &cfgs, &done, &base, req.per_tree, RowSource::Simulated))
}

/// The split ply of a root-splitting run, the master depth of a
/// master-worker run, `None` for the sequential baseline.
pub(crate) fn split_of(tree: &Tree, cfg: &ClusterConfig) -> Option<u32> {
    match cfg.algorithm {
        ClusterAlgorithm::Sequential => None,
        a if a.is_master_worker() => Some(tree.visit(MasterDepth { procs: cfg.procs, depth: cfg.master_depth })),
        ClusterAlgorithm::Ybwc => Some(tree.visit(Granularity(cfg.granularity))),
        _ => Some(tree.visit(Split { procs: cfg.procs, split: cfg.split })),
    }
}

/// The rows of runs `done` (every configuration of `cfgs` on every tree,
/// `base` the sequential baseline of each tree): per configuration, one per
/// tree or one per group of trees of the same family, b and depth.
pub(crate) fn rows(trees: &[Tree], cfgs: &[ClusterConfig], done: &[Done], base: &[ClusterStats], per_tree: bool, source: RowSource) -> Vec<ClusterRow> {
    let mut rows = vec![];
    let make = |ts: &[Tree], cfg: &ClusterConfig, ds: &[&Done], bs: &[ClusterStats], per_tree: bool| {
        let mut r = row(ts, cfg, ds, bs, per_tree);
        if let RowSource::Mpi { oversubscribed } = source {
            r.transport = "mpi".into();
            r.oversubscribed = Some(oversubscribed);
            r.threads = Some(cfg.threads.map_or(1, |t| t.threads as u32));
            r.thread_algorithm = cfg.threads.map(|t| t.algorithm.name().to_string());
        }
        r
    };
    for (c, cfg) in cfgs.iter().enumerate() {
        let mut mine: Vec<&Done> = done.iter().filter(|d| d.cfg == c).collect();
        mine.sort_by_key(|d| d.tree);
        if per_tree {
            rows.extend(mine.iter().map(|d| make(&trees[d.tree..=d.tree], cfg, &[d], &base[d.tree..=d.tree], true)));
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
                let bs: Vec<ClusterStats> = idx.iter().map(|&i| base[i]).collect();
                rows.push(make(&ts, cfg, &ds, &bs, false));
            }
        }
    }
    rows
}

struct Split {
    procs: usize,
    split: Option<u32>,
}

impl crate::tree::SourceVisitor for Split {
    type Output = u32;
    fn visit<S: crate::game::TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> u32 {
        self.split.map_or_else(|| super::frontier::default_split(src, root, depth, self.procs), |s| s.min(depth))
    }
}

struct MasterDepth {
    procs: usize,
    depth: Option<u32>,
}

impl crate::tree::SourceVisitor for MasterDepth {
    type Output = u32;
    fn visit<S: crate::game::TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> u32 {
        self.depth.map_or_else(|| super::master_worker::default_master_depth(src, root, depth, self.procs), |d| d.min(depth))
    }
}

struct Granularity(Option<u32>);

impl crate::tree::SourceVisitor for Granularity {
    type Output = u32;
    fn visit<S: crate::game::TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> u32 {
        self.0.unwrap_or_else(|| super::ybwc::default_granularity(src, root, depth))
    }
}

fn geomean(xs: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0.0);
    for x in xs {
        s += x.max(1.0).ln();
        n += 1.0;
    }
    if n == 0.0 { 0.0 } else { (s / n).exp() }
}

fn row(trees: &[Tree], cfg: &ClusterConfig, ds: &[&Done], base: &[ClusterStats], per_tree: bool) -> ClusterRow {
    let t0 = &trees[0];
    let key = t0.key();
    let time = geomean(ds.iter().map(|d| d.stats.time_ns as f64));
    let t1 = geomean(base.iter().map(|b| b.time_ns as f64));
    let sum = |f: fn(&ClusterStats) -> u64| ds.iter().map(|d| f(&d.stats)).sum::<u64>();
    let leaves = sum(|s| s.counts.leaves);
    let base_leaves: u64 = base.iter().map(|b| b.counts.leaves).sum();
    let per_proc = (cfg.procs * ds.len()) as f64;
    let splits: Vec<Option<u32>> = ds.iter().map(|d| d.split).collect();
    ClusterRow {
        tree: per_tree.then(|| t0.index()),
        seed: per_tree.then(|| crate::request::row_seed(t0)),
        model: key.family().to_string(),
        b: key.b(),
        depth: key.depth(),
        trees: ds.len() as u32,
        algorithm: cfg.algorithm.name().to_string(),
        procs: cfg.procs as u32,
        // The split ply where every tree of the row has the same.
        split: if splits.iter().all(|s| *s == splits[0]) { splits[0] } else { None },
        root_value: per_tree.then(|| ds[0].stats.value),
        time_ns: time,
        speedup: if time > 0.0 { t1 / time } else { 0.0 },
        leaves,
        nodes: sum(|s| s.counts.nodes),
        leaf_ratio: if base_leaves > 0 { leaves as f64 / base_leaves as f64 } else { 0.0 },
        startup_idle_ns: sum(|s| s.startup_idle_ns) as f64 / per_proc,
        other_idle_ns: sum(|s| s.other_idle_ns) as f64 / per_proc,
        messages: sum(|s| s.messages),
        bytes: sum(|s| s.bytes),
        transport: "simulated".into(),
        oversubscribed: None,
        threads: None,
        thread_algorithm: None,
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
            procs: vec![1, 4],
            algorithms: vec![ClusterAlgorithm::EvenSplit, ClusterAlgorithm::MasterSlave],
            settings: ClusterConfig { tt_slots: 1 << 12, slice_nodes: 1024, ..ClusterConfig::new(ClusterAlgorithm::Sequential, 1) },
            per_tree: false,
        };
        let p = crate::progress::Progress::hidden();
        let rows = run(&trees, &req, &p).unwrap();
        assert_eq!(
            rows.iter().map(|r| (r.algorithm.as_str(), r.procs, r.trees)).collect::<Vec<_>>(),
            [("seq", 1, 3), ("even-split", 4, 3), ("master-slave", 4, 3)]
        );
        assert_eq!((rows[0].speedup, rows[0].leaf_ratio, rows[0].messages), (1.0, 1.0, 0));
        // Even split on 4: the 5 root children split 1, 1, 1, 2; three
        // workers send 1, 1, 2 results.
        assert_eq!((rows[1].split, rows[1].messages, rows[1].bytes), (Some(1), 3 * 4, 3 * 4 * 24));
        let per = run(&trees, &ClusterRequest { per_tree: true, ..req.clone() }, &p).unwrap();
        assert_eq!(per.len(), 9);
        assert_eq!(
            per.iter().filter(|r| r.procs == 4).map(|r| r.root_value).collect::<Vec<_>>(),
            [per[0].root_value, per[1].root_value, per[2].root_value].repeat(2)
        );
        assert_eq!(per.iter().map(|r| r.leaves).sum::<u64>(), rows.iter().map(|r| r.leaves).sum::<u64>());
        assert!(configs(&ClusterRequest { procs: vec![1, 2], algorithms: vec![ClusterAlgorithm::Sequential], ..req }).is_err());
    }
}
