//! `psearch`'s runs: a request expanded into configurations exactly as
//! `pabsim`'s ([`crate::request::configurations`], with the processor
//! counts as thread counts), every (tree, configuration) searched on a
//! fresh pool of threads, one after another so that runs never share the
//! cores, each checked against the sequential search of its tree, and the
//! rows: per tree, or per configuration with SU and SO against the
//! one-thread rows of the same trees (as `pabsim`'s [`finish`](super::sim::finish)).
//!
//! Items run in `pabsim`'s order: for every group of trees with the same
//! model, ordering and depth, for every configuration, for every tree.

use super::{Request, RequestError, configurations, network_for, row_seed};
use crate::game::TreeSource;
use crate::macros::{row, tree_row};
use crate::nn::Network;
use crate::policy::{Columns, Policy};
use crate::real::host::Occupancy;
use crate::real::{Measured, Options, RealError};
use crate::tree::{Family, Tree, TreeKey};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum PsearchError {
    /// A request that cannot run (the message names the option).
    #[error(transparent)]
    Request(#[from] RequestError),
    /// One search failed.
    #[error("tree {tree} (seed {seed}), {threads} threads, {config}")]
    Search {
        /// The tree's index.
        tree: u32,
        /// Its seed column.
        seed: u64,
        /// Threads.
        threads: usize,
        /// The configuration.
        config: String,
        /// What went wrong.
        #[source]
        source: RealError,
    },
    /// A parallel search returned another value or move than the sequential search.
    #[error(
        "not exact: tree {tree} (seed {seed}), {threads} threads, {config}: root value {value}, move {root_move}; the sequential search gives {seq_value}, move {seq_move}"
    )]
    NotExact {
        /// The tree's index.
        tree: u32,
        /// Its seed column.
        seed: u64,
        /// Threads.
        threads: usize,
        /// The configuration.
        config: String,
        /// What the parallel search returned.
        value: i64,
        /// Its root move.
        root_move: u32,
        /// The sequential value.
        seq_value: i64,
        /// The sequential root move.
        seq_move: u32,
    },
}

row! {
    /// One `psearch` row: a (tree, configuration) run, or a configuration's
    /// runs summed over trees (`docs/formats.md`, "psearch rows"). Columns
    /// named as in `pabsim`'s rows where they mean the same.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RealRow {
        ..tree_columns,
        /// Threads.
        pub procs: u32,
        ..policy,
        /// Busy work per node, ns.
        pub node_cost_ns: u64,
        /// Runs per (tree, configuration); the row is the run of median wall time.
        pub repeats: u32,
        /// Wall time, ns (summed over trees).
        pub wall_ns: u64,
        /// Nodes entered by all threads.
        pub nodes: u64,
        /// Leaves entered by all threads.
        pub leaves: u64,
        /// The root's value (per tree only; a game's in its own units).
        pub root_value: Option<i64>,
        /// The root's move: 1-based position in search order of the first
        /// move with the root's value (per tree only).
        pub root_move: Option<u32>,
        /// Summed over threads: time searching, ns.
        pub time_search_ns: u64,
        /// Summed over threads: time idle, ns.
        pub time_idle_ns: u64,
        /// Summed over threads: time waiting on contended locks, ns.
        pub time_lock_ns: u64,
        /// Wall time of the one-thread runs of the same trees, ns.
        pub t1_wall_ns: Option<u64>,
        /// Nodes of the one-thread runs of the same trees.
        pub n1_nodes: Option<u64>,
        /// Speed-up, `t1_wall_ns / wall_ns`.
        pub su: Option<f64>,
        /// Search overhead, `nodes / n1_nodes - 1`.
        pub so: Option<f64>,
        /// The host's cores (available parallelism).
        pub cores: u32,
        /// The host's 1-minute load average just before the timed run
        /// ([`host`](crate::real::host); empty where it cannot be read).
        pub host_load: Option<f64>,
        /// Cores not busy with other work just before the timed run (empty
        /// where it cannot be read).
        pub free_cores: Option<u32>,
        /// More threads than free cores (than cores, where `free_cores` is
        /// empty): the timing measures sharing.
        pub oversubscribed: bool,
    }
}

impl RealRow {
    /// The configuration columns.
    pub fn columns(&self) -> Columns {
        crate::params::columns_of!(self)
    }

    /// The host columns.
    pub fn host(&self) -> Occupancy {
        Occupancy { host_load: self.host_load, cores: self.cores, free_cores: self.free_cores, oversubscribed: self.oversubscribed }
    }

    fn set_host(&mut self, h: Occupancy) {
        (self.host_load, self.cores, self.free_cores, self.oversubscribed) = (h.host_load, h.cores, h.free_cores, h.oversubscribed);
    }
}

// How a summary row forms each column from its trees' rows (`docs/formats.md`,
// "Summary rows").
crate::formats::aggregate::summed! {
    RealRow {
        key: [model, b, wa, wb, depth, procs, policy, scheme, m_a, m_b, m_ca, m_cc, cut_width, pv_wait, split_walk, min_split_depth, split_group, steal_seed, node_cost_ns, repeats],
        per_tree: [tree, seed, root_value, root_move],
        sum: [trees, wall_ns, nodes, leaves, time_search_ns, time_idle_ns, time_lock_ns],
        sum_all: [t1_wall_ns, n1_nodes],
        ratio: [su, so],
        // The worst host any of its trees ran on.
        worst: [cores, host_load, free_cores, oversubscribed] => |a, r| a.set_host(a.host().worst(r.host())),
        finish: |r| r.set_ratios(),
    }
}

impl RealRow {
    /// Speed-up and search overhead against the one-thread columns (empty without them).
    pub fn set_ratios(&mut self) {
        (self.su, self.so) = match self.t1_wall_ns.zip(self.n1_nodes) {
            Some((t1, n1)) => (Some(t1 as f64 / self.wall_ns.max(1) as f64), Some(self.nodes as f64 / n1.max(1) as f64 - 1.0)),
            None => (None, None),
        };
    }
}

/// How the runs are made.
#[derive(Clone, Copy, Debug, Default)]
pub struct Settings {
    /// Busy work per node, ns.
    pub node_cost_ns: u64,
    /// Runs per (tree, configuration) (at least 1).
    pub repeats: u32,
    /// Tests only: random delays (see [`Options::delays`]).
    pub delays: Option<u64>,
}

/// One planned configuration: threads and algorithm (`None` at one thread).
type Config = (usize, Option<Policy>);

/// A group of trees: its key, its trees, its configurations, its network.
type Group = (TreeKey, Vec<usize>, Vec<Config>, Option<usize>);

/// The planned runs.
pub struct Plan {
    groups: Vec<Group>,
}

impl Plan {
    /// Groups the trees and expands `req` (its `procs` are thread counts)
    /// for each group; scheme C finds its network in `nets`.
    pub fn new(trees: &[Tree], req: &Request, nets: &[Network]) -> Result<Plan, PsearchError> {
        let mut groups: Vec<Group> = vec![];
        for (i, t) in trees.iter().enumerate() {
            let key = t.key();
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => g.1.push(i),
                None => groups.push((key, vec![i], vec![], None)),
            }
        }
        for g in &mut groups {
            g.2 = configurations(req, &g.0)?;
            if g.2.iter().any(|c| matches!(c.1.and_then(|a| a.scheme()), Some(crate::policy::Scheme::C { .. }))) {
                g.3 = Some(network_for(&g.0, nets)?);
            }
        }
        Ok(Plan { groups })
    }

    /// The threads of run `i` (0-based, in row order).
    pub fn threads(&self, i: usize) -> Option<usize> {
        self.groups.iter().flat_map(|(_, members, configs, _)| configs.iter().flat_map(move |c| members.iter().map(move |_| c.0))).nth(i)
    }

    /// Runs in the plan.
    pub fn len(&self) -> usize {
        self.groups.iter().map(|g| g.1.len() * g.2.len()).sum()
    }

    /// Whether the plan has no runs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs every (tree, configuration), one at a time, checking each
    /// against the sequential search of its tree; per-tree rows in plan order.
    pub fn run(&self, trees: &[Tree], nets: &[Network], s: &Settings, progress: &crate::progress::Progress) -> Result<Vec<RealRow>, PsearchError> {
        self.run_traced(trees, nets, s, None, progress).map(|(rows, _)| rows)
    }

    /// [`Plan::run`], run `trace.0` (0-based, in row order) traced with at
    /// most `trace.1` spans a thread: the rows, and that run's trace (the
    /// row's run, of median wall time) with a label of its tree and
    /// configuration.
    pub fn run_traced(
        &self,
        trees: &[Tree],
        nets: &[Network],
        s: &Settings,
        trace: Option<(usize, usize)>,
        progress: &crate::progress::Progress,
    ) -> Result<(Vec<RealRow>, Option<Traced>), PsearchError> {
        // The sequential result of each tree, once.
        let mut seq: HashMap<usize, Measured> = HashMap::new();
        let mut rows = vec![];
        let mut traced = None;
        for (_, members, configs, net) in &self.groups {
            let net = net.map(|k| &nets[k]);
            for (ci, &(threads, algorithm)) in configs.iter().enumerate() {
                for &t in members {
                    let tree = &trees[t];
                    // The group's first configuration is the sequential run:
                    // its result is the check (run once, not twice).
                    let want = match seq.get(&t) {
                        Some(w) => Some(w.clone()),
                        None if ci == 0 && algorithm.is_none() => None,
                        None => Some(seq.entry(t).or_insert(crate::real::seq_tree(tree)).clone()),
                    };
                    let config = describe(algorithm);
                    let this = trace.filter(|t| t.0 == rows.len()).map(|t| t.1);
                    let opts = Options { threads, node_cost_ns: s.node_cost_ns, delays: s.delays, trace: this };
                    let mut runs = vec![];
                    for _ in 0..s.repeats.max(1) {
                        // The host just before the timed run, beside its timing.
                        let host = Occupancy::now(threads);
                        let r = search_tree(tree, algorithm, &opts, net).map_err(|source| PsearchError::Search {
                            tree: tree.index(),
                            seed: row_seed(tree),
                            threads,
                            config: config.clone(),
                            source,
                        })?;
                        let want = seq.entry(t).or_insert_with(|| want.clone().unwrap_or_else(|| Measured { trace: None, ..r.clone() })).clone();
                        check(tree, threads, &config, &want, &r)?;
                        runs.push((r, host));
                    }
                    runs.sort_by_key(|r| r.0.wall_ns);
                    let (median, host) = &runs[(runs.len() - 1) / 2];
                    if let Some(t) = &median.trace {
                        let a = algorithm
                            .map_or("sequential".to_string(), |a| a.scheme().map_or(a.name().to_string(), |s| format!("{} scheme {}", a.name(), s.name())));
                        let label = format!("{} tree {}, {threads} threads, {a}", tree.key(), tree.index());
                        traced = Some((label, t.clone()));
                    }
                    rows.push(row(tree, threads, algorithm.as_ref(), median, host, s));
                    progress.inc(1);
                }
            }
        }
        Ok((rows, traced))
    }
}

/// A traced run: its label (tree and configuration) and its trace.
pub type Traced = (String, std::sync::Arc<crate::real::record::RealTrace>);

/// Refuses a run whose root value or move differs from the sequential search's.
fn check(tree: &Tree, threads: usize, config: &str, want: &Measured, got: &Measured) -> Result<(), PsearchError> {
    if (got.value, got.root_move) == (want.value, want.root_move) {
        return Ok(());
    }
    Err(PsearchError::NotExact {
        tree: tree.index(),
        seed: row_seed(tree),
        threads,
        config: config.to_string(),
        value: got.value,
        root_move: got.root_move,
        seq_value: want.value,
        seq_move: want.root_move,
    })
}

/// A configuration in messages.
fn describe(a: Option<Policy>) -> String {
    match a {
        None => "sequential".into(),
        Some(a) => match a.scheme() {
            Some(s) => format!("{} scheme {} ({a:?})", a.name(), s.name()),
            None => a.name().into(),
        },
    }
}

fn row(tree: &Tree, threads: usize, a: Option<&Policy>, r: &Measured, host: &Occupancy, s: &Settings) -> RealRow {
    let k = Columns::of(a);
    tree_row!(
        tree,
        RealRow {
            procs: threads as u32,
            policy: k.policy,
            scheme: k.scheme,
            m_a: k.m_a,
            m_b: k.m_b,
            m_ca: k.m_ca,
            m_cc: k.m_cc,
            cut_width: k.cut_width,
            pv_wait: k.pv_wait,
            split_walk: k.split_walk,
            min_split_depth: k.min_split_depth,
            split_group: k.split_group,
            steal_seed: k.steal_seed,
            node_cost_ns: s.node_cost_ns,
            repeats: s.repeats.max(1),
            wall_ns: r.wall_ns,
            nodes: r.nodes,
            leaves: r.leaves,
            root_value: Some(tree.row_value(r.value)),
            root_move: Some(r.root_move),
            time_search_ns: r.search_ns,
            time_idle_ns: r.idle_ns,
            time_lock_ns: r.lock_ns,
            t1_wall_ns: None,
            n1_nodes: None,
            su: None,
            so: None,
            cores: host.cores,
            host_load: host.host_load,
            free_cores: host.free_cores,
            oversubscribed: host.oversubscribed,
        }
    )
}

type TreeId = (Family, Option<u32>, Option<u32>, Option<u32>, u32, Option<u64>, Option<u32>);

fn tree_id(r: &RealRow) -> TreeId {
    (r.model, r.b, r.wa, r.wb, r.depth, r.seed, r.tree)
}

/// Per-tree rows (in plan order) into the output: per tree, or one row per
/// configuration and group of trees (summed by `RealRow`'s columns in
/// [`crate::formats::aggregate`], in order of first appearance), with SU
/// and SO wherever every tree has a one-thread row.
pub fn finish(mut rows: Vec<RealRow>, per_tree: bool) -> Result<Vec<RealRow>, PsearchError> {
    let base: HashMap<TreeId, (u64, u64)> = rows.iter().filter(|r| r.procs == 1).map(|r| (tree_id(r), (r.wall_ns, r.nodes))).collect();
    for r in &mut rows {
        if let Some(&(t1, n1)) = base.get(&tree_id(r)) {
            (r.t1_wall_ns, r.n1_nodes) = (Some(t1), Some(n1));
            r.set_ratios();
        }
    }
    if per_tree {
        return Ok(rows);
    }
    crate::formats::aggregate::summarize(rows, |r| {
        let a = r.columns().read().map_err(RequestError::from)?;
        Ok::<_, PsearchError>(((r.model, r.b, r.wa, r.wb, r.depth), r.procs, a))
    })
}

/// Searches `src` from `root` to `depth` with `algorithm` on `opts.threads`
/// threads (`None`, or one thread: the sequential search). Scheme C takes
/// its network in `net`.
pub fn search<S: TreeSource>(
    src: &S,
    root: &S::Node,
    depth: u32,
    algorithm: Option<Policy>,
    opts: &Options,
    net: Option<&crate::nn::Network>,
) -> Result<Measured, RealError> {
    use crate::policy::{Scheme, dispatch};
    use crate::real::RealSearch;
    use crate::schemes::{ConfidenceSplit, NetworkSplit, YbwcSplit};
    let Some(a) = algorithm.filter(|_| opts.threads > 1) else {
        return Ok(crate::real::seq::run(src, root, depth, opts));
    };
    // PV splitting has its own rule and Lazy SMP shares no node; the heap
    // still takes a scheme, which they then never consult (as in the
    // simulator).
    match a.scheme().unwrap_or(Scheme::A { m_a: 1, pv_wait: 1 }) {
        Scheme::A { m_a, pv_wait } => dispatch!(a, a => a.run_real(src, root, depth, &YbwcSplit { m_a, pv_wait }, opts)),
        Scheme::B { m_b, pv_wait } => dispatch!(a, a => a.run_real(src, root, depth, &ConfidenceSplit { m_b, pv_wait }, opts)),
        Scheme::C { m_ca, m_cc, cut_width } => {
            let net = net.ok_or(RealError::NoNetwork)?;
            dispatch!(a, a => a.run_real(src, root, depth, &NetworkSplit { net, cut_width: cut_width as f64, m_ca, m_cc, leaf_ply: depth }, opts))
        }
    }
}

/// [`search`] on a tree spec.
pub fn search_tree(tree: &crate::tree::Tree, algorithm: Option<Policy>, opts: &Options, net: Option<&crate::nn::Network>) -> Result<Measured, RealError> {
    struct V<'a>(Option<Policy>, &'a Options, Option<&'a crate::nn::Network>);
    impl crate::tree::SourceVisitor for V<'_> {
        type Output = Result<Measured, RealError>;
        fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Self::Output {
            search(src, root, depth, self.0, self.1, self.2)
        }
    }
    tree.visit(V(algorithm, opts, net))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::LazySmp;

    /// Every column has its kind of mean, the one `docs/formats.md` names.
    #[test]
    fn every_column_has_one_mean_and_the_docs_say_it() {
        use crate::formats::aggregate::{Summed, check_documented};
        check_documented("psearch", crate::formats::struct_fields::<RealRow>(), RealRow::COLUMNS);
    }

    /// Rows of two trees sum per configuration; SU and SO are the sums'
    /// ratios; a configuration without one-thread rows has none.
    #[test]
    fn rows_sum_per_configuration_with_ratios_against_one_thread() {
        let trees = crate::tree::read_trees(crate::cli::Input::from_string(
            "t",
            concat!(
                r#"{"set":"tg1","index":1,"seed":1,"pscore":1073741823,"model":"exponential","b":4,"wa":50,"wb":50,"depth":4}"#,
                "\n",
                r#"{"set":"tg1","index":2,"seed":2,"pscore":1073741823,"model":"exponential","b":4,"wa":50,"wb":50,"depth":4}"#
            ),
        ))
        .unwrap();
        let mut req = Request::new(vec![1, 3]);
        req.algorithms = vec!["dts".parse().unwrap(), Policy::LazySmp(LazySmp)];
        let plan = Plan::new(&trees, &req, &[]).unwrap();
        assert_eq!(plan.len(), 2 * 3);
        let rows = plan.run(&trees, &[], &Settings { repeats: 1, ..Settings::default() }, &crate::progress::Progress::hidden()).unwrap();
        let per = finish(rows.clone(), true).unwrap();
        assert!(per.iter().all(|r| r.su.is_some() && r.root_value.is_some()));
        let sums = finish(rows.clone(), false).unwrap();
        assert_eq!(sums.len(), 3);
        assert_eq!(sums[1].policy, "dts");
        assert_eq!(sums[2].policy, "lazy-smp");
        assert_eq!(sums[1].trees, 2);
        assert_eq!(sums[1].nodes, rows[2].nodes + rows[3].nodes);
        assert_eq!(sums[1].t1_wall_ns, Some(rows[0].wall_ns + rows[1].wall_ns));
        assert_eq!(sums[0].so, Some(0.0));
        // A run that differs from the sequential search in value or move is an error.
        let want = Measured { value: 10, root_move: 2, ..Measured::default() };
        assert!(check(&trees[0], 2, "dts", &want, &want).is_ok());
        let e = check(&trees[0], 2, "dts", &want, &Measured { root_move: 3, ..want.clone() }).unwrap_err().to_string();
        assert_eq!(e, "not exact: tree 1 (seed 1), 2 threads, dts: root value 10, move 3; the sequential search gives 10, move 2");
        assert!(check(&trees[0], 2, "dts", &want, &Measured { value: 11, ..want.clone() }).is_err());
        // Every row says the host beside its timing, consistently; a
        // summed row keeps the worst of its trees'.
        for r in per.iter().chain(&sums) {
            assert_eq!(r.host_load.is_some(), std::path::Path::new("/proc/loadavg").exists());
            assert_eq!(r.oversubscribed, r.procs > r.free_cores.unwrap_or(r.cores), "{r:?}");
        }
        assert_eq!(sums[1].free_cores, rows[2].free_cores.zip(rows[3].free_cores).map(|(a, b)| a.min(b)));
        // Without the one-thread rows: no ratios.
        let without = finish(rows[2..].to_vec(), false).unwrap();
        assert!(without.iter().all(|r| r.su.is_none()));
    }
}

#[cfg(test)]
mod search_tests {
    //! Unit tests of the real searches: every algorithm and scheme returns the
    //! sequential value and root move on small artificial trees, at several
    //! thread counts, with and without random delays.

    use super::*;
    use crate::classify::Predictor;
    use crate::policy::{Active, Dts, LazySmp, PvSplit, Scheme, Steal, Walk};
    use crate::real::{RealSearch, seq};
    use crate::schemes::NetworkSplit;
    use crate::tree::artificial::{Model, Node, Ordering, Shape};
    use crate::value::ROOT_PSCORE;

    /// Every split-based configuration with schemes A and B, and Lazy SMP.
    fn algorithms() -> Vec<Policy> {
        let mut v = vec![Policy::PvSplit(PvSplit), Policy::LazySmp(LazySmp)];
        for s in [Scheme::A { m_a: 1, pv_wait: 1 }, Scheme::A { m_a: 2, pv_wait: 0 }, Scheme::B { m_b: 1, pv_wait: 1 }] {
            v.push(Policy::Dts(Dts { scheme: s, walk: Walk::Tree }));
            v.push(Policy::Dts(Dts { scheme: s, walk: Walk::Level }));
            v.push(Policy::Steal(Steal { scheme: s, seed: 3 }));
            v.push(Policy::Active(Active { scheme: s, min_split_depth: 2, split_group: 3 }));
        }
        v
    }

    struct Fixed;
    impl Predictor for Fixed {
        fn root_type(&self) -> f64 {
            0.0
        }
        fn root_wait(&self) -> f64 {
            1.0
        }
        fn predict(&self, _pv: bool, parent_type: f64, index: u32) -> (f64, f64) {
            if parent_type < 25.0 { (50.0, 1.4) } else { (90.0 - index as f64, 0.6) }
        }
    }

    #[test]
    fn every_algorithm_is_exact_on_artificial_trees() {
        for (b, wa, wb) in [(6, 60, 20), (4, 0, 0), (7, 100, 0), (3, 33, 33)] {
            let shape = Shape::new(Model::Exponential, Ordering::new(b, wa, wb).unwrap()).unwrap();
            for seed in 1..6u32 {
                let root = Node { seed: seed * 7919, pscore: ROOT_PSCORE as u32 };
                for depth in [1, 2, 4, 6] {
                    let seq = seq::run(&shape, &root, depth, &Options { threads: 1, ..Options::default() });
                    for threads in [2, 3, 8] {
                        for delays in [None, Some(seed as u64)] {
                            let opts = Options { threads, node_cost_ns: 0, delays, trace: None };
                            for a in algorithms() {
                                let r = search(&shape, &root, depth, Some(a), &opts, None).unwrap();
                                assert_eq!(
                                    (r.value, r.root_move),
                                    (seq.value, seq.root_move),
                                    "{a:?} b={b} seed={seed} depth={depth} threads={threads} delays={delays:?}"
                                );
                                assert!(r.nodes >= r.leaves && r.leaves > 0);
                            }
                            // Scheme C with a fixed predictor standing in for the network.
                            for m_ca in [-2, 0, 1] {
                                let c = NetworkSplit { net: &Fixed, cut_width: 10.0, m_ca, m_cc: 1, leaf_ply: depth };
                                let a = Dts { scheme: Scheme::C { m_ca, m_cc: 1, cut_width: 10 }, walk: Walk::Tree };
                                let r = a.run_real(&shape, &root, depth, &c, &opts).unwrap();
                                assert_eq!((r.value, r.root_move), (seq.value, seq.root_move), "scheme c m_ca={m_ca} seed={seed} depth={depth}");
                            }
                        }
                    }
                }
            }
        }
    }
}
