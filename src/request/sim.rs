//! Running PABSim over many (tree, configuration) items: the experiment
//! matrix of thesis chapter 6 (`docs/model.md` §5.5–5.6 and §6).
//!
//! A run is a list of *items*: for every group of trees with the same model,
//! ordering and depth (in order of first appearance), for every
//! configuration (processors, scheme, parameters), for every tree of the
//! group. Items are independent and run in parallel; each yields one
//! per-tree row, and rows are kept in item order, so the output does not
//! depend on the number of threads. `--shard K/N` runs the items whose
//! position is `K-1` modulo `N`; [`finish`] turns per-tree rows (of one run
//! or of all shards, merged by [`merge`]) into the final per-tree or
//! per-configuration table, with speed-up, search overhead and CSS against
//! the p = 1 rows of the same trees.

use super::{Interleave, LockKind, Request, RequestError, configurations, network_for, row_seed};
use crate::formats::aggregate::{self, share};
use crate::formats::{SimRow, seal};
use crate::game::TreeSource;
use crate::macros::{require, tree_row};
use crate::nn::Network;
use crate::policy::{Columns, ConfigError, DEFAULT_PV_WAIT, Policy, Scheme, Walk};
use crate::schemes::SplitScheme;
use crate::schemes::{ConfidenceSplit, NetworkSplit, YbwcSplit};
use crate::sim::engine::SimError;
use crate::sim::engine::{MachineSpec, NoRecord, Recorder, State, TreeStats};
use crate::tree::Family;
use crate::tree::{SourceVisitor, Tree, TreeKey as GroupKey};

/// Why a run could not be planned, simulated or merged.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A command-line value out of its form or range (the message names the option).
    #[error("{0}")]
    BadArgument(String),
    /// Scheme C without a network for the trees' ordering.
    #[error("{0}")]
    NoNetwork(String),
    /// One simulation failed.
    #[error("tree {tree} (seed {seed}), {procs} processors, scheme {scheme}")]
    Simulation {
        /// The tree's index in its set.
        tree: u32,
        /// Its root seed.
        seed: u64,
        /// Processors.
        procs: usize,
        /// The scheme's name.
        scheme: &'static str,
        /// What went wrong.
        #[source]
        source: SimError,
    },
    /// Shards that do not make one run.
    #[error("{0}")]
    Merge(String),
}

/// A run's result.
pub type Result<T> = std::result::Result<T, RunError>;

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> RunError {
        RunError::BadArgument(e.to_string())
    }
}

impl From<RequestError> for RunError {
    fn from(e: RequestError) -> RunError {
        match e {
            RequestError::BadArgument(m) => RunError::BadArgument(m),
            RequestError::NoNetwork(m) => RunError::NoNetwork(m),
        }
    }
}

use rayon::prelude::*;
use std::collections::HashMap;

/// One configuration of the machine and the search: a point of the
/// experiment's grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SimConfig {
    /// Processors.
    pub procs: usize,
    /// The parallel search (`None` with one processor: the sequential run).
    pub algorithm: Option<Policy>,
    /// When processors interleave.
    pub interleave: Interleave,
    /// How processors wait for locks.
    pub lock: LockKind,
}

impl SimConfig {
    /// The columns of a `pabsim` row that hold a configuration, in the
    /// order of the report's grouping: the machine's (`procs`,
    /// `interleave`, `lock`) and the algorithm's ([`Columns::NAMES`]; a
    /// test holds the two lists together).
    pub const COLUMNS: [&'static str; 15] = [
        "scheme",
        "procs",
        "m_a",
        "m_b",
        "m_ca",
        "m_cc",
        "cut_width",
        "interleave",
        "split_walk",
        "policy",
        "lock",
        "min_split_depth",
        "split_group",
        "steal_seed",
        "pv_wait",
    ];

    /// The configuration of a row, read back from its columns.
    pub fn of_row(r: &SimRow) -> Result<SimConfig> {
        let algorithm = r.columns().read()?;
        Ok(SimConfig { procs: r.procs as usize, algorithm, interleave: r.interleave.parse()?, lock: r.lock.parse()? })
    }

    /// The scheme's name in messages and rows (`-` for none).
    fn scheme_name(&self) -> &'static str {
        self.algorithm.and_then(|a| a.scheme()).map_or("-", |s| s.name())
    }
}

/// Parses `K/N` (1-based K) into `(K-1, N)`.
pub fn parse_shard(text: &str) -> Result<(usize, usize)> {
    let bad = || RunError::BadArgument(format!("--shard `{text}` must be K/N with 1 <= K <= N, e.g. 2/5"));
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if !(n >= 1 && k >= 1 && k <= n) {
        return Err(bad());
    }
    Ok((k - 1, n))
}

struct Group {
    key: GroupKey,
    trees: Vec<usize>,
    configs: Vec<SimConfig>,
    net: Option<usize>,
}

/// One (tree, configuration) to simulate.
#[derive(Clone, Copy, Debug)]
struct Item {
    group: usize,
    config: usize,
    tree: usize,
}

/// The planned items of a run over `trees`.
pub struct Plan {
    groups: Vec<Group>,
    items: Vec<Item>,
    run: String,
}

/// What identifies a run: a digest of every group's tree specs, configurations
/// and network, so that `--merge` can refuse shards of different runs.
fn run_id(trees: &[Tree], groups: &[Group], nets: &[Network]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for g in groups {
        for &t in &g.trees {
            h.update(trees[t].spec_json());
            h.update(b"\n");
        }
        for c in &g.configs {
            let k = Columns::of(c.algorithm.as_ref());
            // Only the DTS-like search's walk is ever used; the other
            // configurations digest the default, as they always have.
            let walk = if k.split_walk == "-" { Walk::Tree.name() } else { &k.split_walk };
            h.update(format!(
                "config {} {} {:?} {:?} {:?} {:?} {:?} {} {walk}\n",
                c.procs,
                k.scheme,
                k.m_a,
                k.m_b,
                k.m_ca,
                k.m_cc,
                k.cut_width,
                c.interleave.name()
            ));
            // Only the new policies add to the digest, so that the thesis's
            // runs keep their ids.
            if let Some(a) = c.algorithm.filter(|a| !matches!(a, Policy::Dts(_))) {
                h.update(format!("policy {} {:?} {:?} {:?}\n", a.name(), k.min_split_depth, k.split_group, k.steal_seed));
            }
            if c.lock != LockKind::Tas {
                h.update(format!("lock {}\n", c.lock.name()));
            }
            if let Some(w) = k.pv_wait.filter(|&w| w != DEFAULT_PV_WAIT) {
                h.update(format!("pv_wait {w}\n"));
            }
        }
        if let Some(k) = g.net {
            h.update(serde_json::to_string(&nets[k].to_file()).unwrap_or_default());
        }
        h.update(b"end of group\n");
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

impl Plan {
    /// Groups the trees, expands the configurations, matches networks to
    /// orderings (scheme C needs one per ordering).
    pub fn new(trees: &[Tree], req: &Request, nets: &[Network]) -> Result<Plan> {
        require!(!req.procs.is_empty(), RunError::BadArgument, "--procs: give at least one processor count");
        if let Some(why) = req.algorithms.iter().find_map(|a| a.simulated().err()) {
            return Err(RunError::BadArgument(why.into()));
        }
        req.check_applies()?;
        let mut groups: Vec<Group> = vec![];
        for (i, t) in trees.iter().enumerate() {
            let key = t.key();
            match groups.iter_mut().find(|g| g.key == key) {
                Some(g) => g.trees.push(i),
                None => groups.push(Group { key, trees: vec![i], configs: vec![], net: None }),
            }
        }
        for g in &mut groups {
            g.configs = configurations(req, &g.key)?
                .into_iter()
                .map(|(procs, algorithm)| SimConfig { procs, algorithm, interleave: req.interleave, lock: req.lock })
                .collect();
            if g.configs.iter().any(|c| matches!(c.algorithm.and_then(|a| a.scheme()), Some(Scheme::C { .. }))) {
                g.net = Some(network_for(&g.key, nets)?);
            }
        }
        let mut items = vec![];
        for (gi, g) in groups.iter().enumerate() {
            for ci in 0..g.configs.len() {
                for &t in &g.trees {
                    items.push(Item { group: gi, config: ci, tree: t });
                }
            }
        }
        let run = run_id(trees, &groups, nets);
        Ok(Plan { groups, items, run })
    }

    /// Item `i` (0-based, in row order): its tree's index, its
    /// configuration and its network's index.
    pub fn item(&self, i: usize) -> Option<(usize, SimConfig, Option<usize>)> {
        let it = self.items.get(i)?;
        let g = &self.groups[it.group];
        Some((it.tree, g.configs[it.config], g.net))
    }

    /// Items in the whole run.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the run has no items.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Simulates the items of `shard` (all if `None`) in parallel; one
    /// per-tree row each, in item order.
    pub fn run(&self, trees: &[Tree], nets: &[Network], shard: Option<(usize, usize)>, progress: &crate::progress::Progress) -> Result<Vec<SimRow>> {
        let chosen: Vec<usize> = (0..self.items.len()).filter(|i| shard.is_none_or(|(k, n)| i % n == k)).collect();
        chosen
            .par_iter()
            .map(|&i| {
                let it = self.items[i];
                let g = &self.groups[it.group];
                let c = g.configs[it.config];
                let tree = &trees[it.tree];
                let net = g.net.map(|k| &nets[k]);
                let stats = simulate_one(tree, &c, net)?;
                progress.inc(1);
                let mut r = row(i as u64, self.items.len() as u64, tree, &c, &stats);
                r.run = Some(seal::sealed_run(&self.run, &r));
                Ok(r)
            })
            .collect()
    }
}

/// Simulates one tree under one configuration.
pub fn simulate_one(tree: &Tree, c: &SimConfig, net: Option<&Network>) -> Result<TreeStats> {
    simulate_recorded(tree, c, net, NoRecord).map(|(stats, _)| stats)
}

/// [`simulate_one`] watched by `rec` (a trace): the statistics and the recorder.
pub fn simulate_recorded<R: Recorder>(tree: &Tree, c: &SimConfig, net: Option<&Network>, rec: R) -> Result<(TreeStats, R)> {
    let depth = tree.depth();
    // The sequential run: one processor never splits, so any algorithm
    // gives it; the default's.
    let algorithm = c.algorithm.unwrap_or_default();
    let cfg = MachineSpec { interleave: c.interleave, policy: algorithm, lock: c.lock, ..MachineSpec::new(c.procs, depth) };
    // Without a scheme (one processor, or PV splitting with its own rule
    // for where to split) the engine still takes one: scheme A with m_A = 1,
    // which nothing then consults for a split.
    let r = match c.algorithm.and_then(|a| a.scheme()).unwrap_or(Scheme::A { m_a: 1, pv_wait: DEFAULT_PV_WAIT }) {
        Scheme::A { m_a, pv_wait } => tree.visit(Simulate { scheme: &YbwcSplit { m_a, pv_wait }, cfg, rec }),
        Scheme::B { m_b, pv_wait } => tree.visit(Simulate { scheme: &ConfidenceSplit { m_b, pv_wait }, cfg, rec }),
        Scheme::C { m_ca, m_cc, cut_width } => {
            let net = net.ok_or_else(|| RunError::NoNetwork("scheme c needs --weights".into()))?;
            let s = NetworkSplit { net, cut_width: cut_width as f64, m_ca, m_cc, leaf_ply: depth };
            tree.visit(Simulate { scheme: &s, cfg, rec })
        }
    };
    r.map_err(|source| RunError::Simulation { tree: tree.index(), seed: row_seed(tree), procs: c.procs, scheme: c.scheme_name(), source })
}

/// The simulator on a tree's source, with one scheme and a recorder.
struct Simulate<'s, S, R> {
    scheme: &'s S,
    cfg: MachineSpec<Policy>,
    rec: R,
}

impl<S: SplitScheme, R: Recorder> SourceVisitor for Simulate<'_, S, R> {
    type Output = std::result::Result<(TreeStats, R), SimError>;
    fn visit<T: TreeSource>(self, src: &T, root: &T::Node, _depth: u32) -> Self::Output {
        crate::sim::engine::simulate_recorded(src, root.clone(), self.scheme, self.cfg, self.rec)
    }
}

fn row(item: u64, items: u64, tree: &Tree, c: &SimConfig, s: &TreeStats) -> SimRow {
    let work = |st: State| s.work(st);
    let time = |st: State| s.in_state(st);
    let k = Columns::of(c.algorithm.as_ref());
    tree_row!(
        tree,
        SimRow {
            run: None,
            item: Some(item),
            items: Some(items),
            scheme: k.scheme,
            procs: c.procs as u32,
            m_a: k.m_a,
            m_b: k.m_b,
            m_ca: k.m_ca,
            m_cc: k.m_cc,
            cut_width: k.cut_width,
            interleave: c.interleave.name().to_string(),
            split_walk: k.split_walk,
            root_value: Some(tree.row_value(s.value)),
            tp_ticks: s.ticks,
            np_nodes: s.nodes,
            leaves: s.leaves,
            ticks_expand: work(State::Expand),
            ticks_search: work(State::Search),
            ticks_eval: work(State::Eval),
            ticks_return: work(State::Return),
            ticks_split: work(State::Split),
            ticks_update: work(State::Update),
            ticks_exit: work(State::Exit),
            mem_stall: s.mem_stall(),
            lock_wait: s.lock_wait(),
            time_expand: time(State::Expand),
            time_search: time(State::Search),
            time_eval: time(State::Eval),
            time_return: time(State::Return),
            time_split: time(State::Split),
            time_update: time(State::Update),
            time_exit: time(State::Exit),
            split_share: share(time(State::Split), c.procs as u64, s.ticks),
            split_searches: s.split_searches,
            split_examined: s.split_examined,
            told: s.told,
            pool_nodes: s.pool,
            t1_ticks: None,
            n1_nodes: None,
            su: None,
            so: None,
            css: None,
            policy: k.policy,
            min_split_depth: k.min_split_depth,
            split_group: k.split_group,
            steal_seed: k.steal_seed,
            lock: c.lock.name().to_string(),
            pv_wait: k.pv_wait,
        }
    )
}

type RowKey = (Family, Option<u32>, Option<u32>, Option<u32>, u32, u64, u32);

fn tree_key(r: &SimRow) -> Option<RowKey> {
    Some((r.model, r.b, r.wa, r.wb, r.depth, r.seed?, r.tree?))
}

/// Rows of one group of trees and one configuration are summed together.
type ConfigKey = ((Family, Option<u32>, Option<u32>, Option<u32>, u32), SimConfig);

fn config_key(r: &SimRow) -> Result<ConfigKey> {
    Ok(((r.model, r.b, r.wa, r.wb, r.depth), SimConfig::of_row(r)?))
}

/// Turns per-tree rows (in item order) into the output: per-tree rows, or
/// one row per configuration (trees summed by `SimRow`'s columns in
/// [`crate::formats::aggregate`], in order of first appearance), with t1,
/// n1, SU, SO and CSS wherever every tree has a p = 1 row among `rows` or
/// `baseline`.
pub fn finish(mut rows: Vec<SimRow>, baseline: &[SimRow], per_tree: bool) -> Result<Vec<SimRow>> {
    let mut base: HashMap<RowKey, (u64, u64)> = HashMap::new();
    for r in baseline.iter().chain(rows.iter()) {
        if r.procs == 1
            && let Some(k) = tree_key(r)
        {
            base.insert(k, (r.tp_ticks, r.np_nodes));
        }
    }
    for r in &mut rows {
        (r.t1_ticks, r.n1_nodes) = tree_key(r).and_then(|k| base.get(&k)).copied().unzip();
        r.set_ratios();
    }
    if per_tree {
        return Ok(rows);
    }
    aggregate::summarize(rows, config_key)
}

/// A per-tree row as sealed ([`seal`]): without its `run` column and the
/// columns [`finish`] recomputes (t1, n1, SU, SO, CSS).
fn as_sealed(r: &SimRow) -> SimRow {
    SimRow { run: None, t1_ticks: None, n1_nodes: None, su: None, so: None, css: None, ..r.clone() }
}

/// Merges the per-tree rows of all shards of one run into item order,
/// checking that every part comes from the same run (the `run` column's run
/// id), that no row was changed since it was written (its seal), and that
/// every item is there exactly once. `parts`: (file name, rows).
pub fn merge(parts: Vec<(String, Vec<SimRow>)>) -> Result<Vec<SimRow>> {
    let mut first: Option<(String, String, u64)> = None;
    for (name, rows) in &parts {
        for (j, r) in rows.iter().enumerate() {
            let (Some(item), Some(n)) = (r.item, r.items) else {
                return Err(RunError::Merge(format!("{name}: merge needs per-tree rows (pabsim --per-tree): a row has no item number")));
            };
            let Some((run, sealed)) = r.run.as_deref().and_then(seal::split_run) else {
                return Err(RunError::Merge(format!("{name}: a row has no sealed run id (written by an older pabsim? run the shard again)")));
            };
            match &first {
                None => first = Some((name.clone(), run.to_string(), n)),
                Some((f, id, t)) => require!(
                    id == run && *t == n,
                    RunError::Merge,
                    "{f} and {name} come from different runs (run {id} and {run}: other trees, processors, schemes or parameters); merge the shards of one run"
                ),
            }
            // Line j + 2: the header is line 1.
            require!(
                seal::seal_matches(run, sealed, &as_sealed(r)),
                RunError::Merge,
                "the row of item {item} was changed after pabsim wrote it (its seal in the run column does not match its columns): run the shard again ({name}:{})",
                j + 2
            );
        }
    }
    let mut rows: Vec<SimRow> = parts.into_iter().flat_map(|(_, r)| r).collect();
    require!(!rows.is_empty(), RunError::Merge, "nothing to merge: the inputs have no rows");
    rows.sort_by_key(|r| r.item);
    for (i, r) in rows.iter().enumerate() {
        let item = r.item.unwrap_or_default();
        require!(item as usize >= i, RunError::Merge, "item {item} appears twice");
        require!(item as usize == i, RunError::Merge, "item {i} is missing (is a shard missing?)");
    }
    let total = first.map_or(0, |f| f.2);
    require!(rows.len() as u64 == total, RunError::Merge, "{} of {total} items present (is a shard missing?)", rows.len());
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::IntRange;

    #[test]
    fn bad_arguments_and_merges_are_typed_errors() {
        assert!(matches!(parse_shard("3/2"), Err(RunError::BadArgument(m)) if m.contains("--shard `3/2`")));
        assert_eq!(parse_shard("2/5").unwrap(), (1, 5));
        // A request's errors keep their kind.
        assert!(matches!(RunError::from(RequestError::BadArgument("x".into())), RunError::BadArgument(m) if m == "x"));
        assert!(matches!(RunError::from(RequestError::NoNetwork("y".into())), RunError::NoNetwork(m) if m == "y"));
        assert!(matches!(merge(vec![]), Err(RunError::Merge(m)) if m.starts_with("nothing to merge")));
    }

    /// The runner's configuration columns are the machine's and the
    /// algorithm's, each once: a column added to [`Columns`] and forgotten
    /// here (or in the report, which groups by these) fails.
    #[test]
    fn configuration_columns_are_the_machines_and_the_algorithms() {
        let mut want: Vec<&str> = Columns::NAMES.iter().copied().chain(["procs", "interleave", "lock"]).collect();
        let mut have = SimConfig::COLUMNS.to_vec();
        want.sort();
        have.sort();
        assert_eq!(have, want);
    }

    /// A row is read back as the configuration that wrote it, and
    /// per-configuration sums keep configurations apart that differ in one
    /// parameter only.
    #[test]
    fn rows_read_back_as_their_configuration() {
        let trees = crate::tree::read_trees(crate::cli::Input::from_string(
            "t",
            r#"{"set":"tg1","index":1,"seed":1,"pscore":1073741823,"model":"exponential","b":4,"wa":50,"wb":50,"depth":3}"#,
        ))
        .unwrap();
        let mut req = Request::new(vec![1, 2]);
        req.algorithms = "dts,steal,active".split(',').map(|p| p.parse().unwrap()).collect();
        req.schemes = Some(vec![Scheme::default(), "b".parse().unwrap()]);
        req.split_group = Some(IntRange { lo: 2, hi: 3 });
        req.lock = LockKind::Queue;
        let plan = Plan::new(&trees, &req, &[]).unwrap();
        let rows = plan.run(&trees, &[], None, &crate::progress::Progress::hidden()).unwrap();
        // p = 1; p = 2: dts (a, b), steal (a, b), active (2 groups x (a, b)).
        assert_eq!(rows.len(), 1 + 2 + 2 + 4);
        for (r, c) in rows.iter().zip(&plan.groups[0].configs) {
            assert_eq!(SimConfig::of_row(r).unwrap(), *c);
        }
        assert_eq!(finish(rows, &[], false).unwrap().len(), 9);
    }
}
