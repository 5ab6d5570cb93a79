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

use super::engine::SimError;
use super::engine::{Idle, Interleave, LockKind, MachineSpec, State, TreeStats, Walk, simulate};
use super::schemes::Scheme;
use super::schemes::{ConfidenceSplit, DEFAULT_PV_WAIT, NetworkSplit, YbwcSplit};
use crate::formats::SimRow;
use crate::game::TreeSource;
use crate::macros::{named, require};
use crate::nn::Network;
use crate::tree::Family;
use crate::tree::artificial::Ordering;
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

impl RunError {
    /// An unknown name for an option (the error of [`named!`](crate::macros::named)).
    pub(crate) fn unknown_name(what: &'static str, name: &str, expected: &'static str) -> RunError {
        RunError::BadArgument(format!("unknown {what} `{name}` (expected {expected})"))
    }
}

use rayon::prelude::*;
use std::collections::HashMap;

/// A split-point scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemeKind {
    /// YBWC.
    A,
    /// DTS.
    B,
    /// The network.
    C,
}

named!(SchemeKind: RunError, "scheme", "a, b or c", { A => "a", B => "b", C => "c" });
named!(PolicyKind: RunError, "policy", "dts, pvsplit, steal or active", { Dts => "dts", PvSplit => "pvsplit", Steal => "steal", Active => "active" });

/// A parallel search algorithm: how idle processors find work
/// ([`Idle`] in the engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// The thesis's DTS-like search: the split-point variable and its
    /// split-point search, with scheme A, B or C.
    Dts,
    /// PV splitting (Marsland and Popowich).
    PvSplit,
    /// YBWC with work stealing (Feldmann); the scheme says which nodes may be offered.
    Steal,
    /// Active splitting as in engines (Crafty); the scheme says which nodes may be split.
    Active,
}

impl PolicyKind {
    /// Every policy, in the order of the experiment's tables.
    pub const ALL: [PolicyKind; 4] = [PolicyKind::Dts, PolicyKind::PvSplit, PolicyKind::Steal, PolicyKind::Active];

    /// Whether the policy splits where a scheme allows (PV splitting has its own rule).
    pub fn takes_scheme(self) -> bool {
        self != PolicyKind::PvSplit
    }
}

/// An inclusive integer range of a parameter, checked against its limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntRange {
    /// First value.
    pub lo: i64,
    /// Last value.
    pub hi: i64,
}

impl IntRange {
    /// Parses `V` or `LO..HI` (inclusive) for parameter `name`, whose values
    /// must lie in `min..=max`.
    pub fn parse(text: &str, name: &str, min: i64, max: i64) -> Result<IntRange> {
        let num =
            |x: &str| -> Result<i64> { x.trim().parse().map_err(|_| RunError::BadArgument(format!("{name}: `{x}` is not an integer (give V or LO..HI)"))) };
        let (lo, hi) = match text.split_once("..") {
            Some((a, b)) => (num(a)?, num(b.trim_start_matches('='))?),
            None => {
                let v = num(text)?;
                (v, v)
            }
        };
        require!(lo <= hi, RunError::BadArgument, "{name}: empty range {lo}..{hi}");
        require!(lo >= min && hi <= max, RunError::BadArgument, "{name} must lie in {min}..{max}, got {text}");
        Ok(IntRange { lo, hi })
    }

    /// The values.
    pub fn values(&self) -> impl Iterator<Item = i64> {
        self.lo..=self.hi
    }
}

/// Limits of the parameters: `(name, min, max)`.
pub const LIMITS_M_A: (&str, i64, i64) = ("--m-a", 1, 64);
/// Limits of m_B.
pub const LIMITS_M_B: (&str, i64, i64) = ("--m-b", 1, 64);
/// Limits of m_Ca.
pub const LIMITS_M_CA: (&str, i64, i64) = ("--m-ca", -64, 64);
/// Limits of m_Cc.
pub const LIMITS_M_CC: (&str, i64, i64) = ("--m-cc", 0, 64);
/// Limits of the finished moves a PV node needs in schemes A and B.
pub const LIMITS_PV_WAIT: (&str, i64, i64) = ("--pv-wait", 0, 64);
/// Limits of the classification width.
pub const LIMITS_CUT_WIDTH: (&str, i64, i64) = ("--cut-width", 0, 50);
/// Limits of active splitting's minimum split depth.
pub const LIMITS_MIN_SPLIT_DEPTH: (&str, i64, i64) = ("--min-split-depth", 1, 64);
/// Active splitting's minimum split depth unless given.
pub const DEFAULT_MIN_SPLIT_DEPTH: u32 = 2;
/// Limits of active splitting's split group.
pub const LIMITS_SPLIT_GROUP: (&str, i64, i64) = ("--split-group", 2, 1024);
/// Active splitting's split group unless given.
pub const DEFAULT_SPLIT_GROUP: u32 = 8;
/// Work stealing's seed unless given.
pub const DEFAULT_STEAL_SEED: u64 = 1;
/// The largest machine.
pub const MAX_PROCS: usize = 1024;

/// One configuration of the machine and the scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SimConfig {
    /// Processors.
    pub procs: usize,
    /// The scheme (`None` with one processor: no split points).
    pub scheme: Option<SchemeKind>,
    /// Scheme A's m_A.
    pub m_a: Option<u32>,
    /// Scheme B's m_B.
    pub m_b: Option<u32>,
    /// Scheme C's m_Ca.
    pub m_ca: Option<i32>,
    /// Scheme C's m_Cc.
    pub m_cc: Option<i32>,
    /// Scheme C's classification width.
    pub cut_width: Option<u32>,
    /// Schemes A and B: finished moves a PV node needs.
    pub pv_wait: Option<u32>,
    /// When processors interleave.
    pub interleave: Interleave,
    /// How far a split-point search walks.
    pub walk: Walk,
    /// The parallel search algorithm (`None` with one processor).
    pub policy: Option<PolicyKind>,
    /// Active splitting's minimum split depth.
    pub min_split_depth: Option<u32>,
    /// Active splitting's split group.
    pub split_group: Option<u32>,
    /// Work stealing's seed.
    pub steal_seed: Option<u64>,
    /// How processors wait for locks.
    pub lock: LockKind,
}

/// The parameters the thesis found best (`docs/model.md` §6): for one
/// ordering and p = 12, 24, 48, `(m_A, m_B, m_Ca, m_Cc)`; and the
/// classification width of §5.5.
pub fn thesis_params(o: Ordering, procs: usize) -> Option<(u32, u32, i32, i32)> {
    let col = match procs {
        12 => 0,
        24 => 1,
        48 => 2,
        _ => return None,
    };
    let t: [(u32, u32, i32, i32); 3] = match (o.b, o.wa, o.wb) {
        (32, 79, 5) => [(4, 6, -1, 3), (5, 5, -1, 3), (2, 1, -5, 3)],
        (20, 69, 19) => [(3, 4, -1, 3), (2, 2, -3, 3), (1, 1, -4, 3)],
        (32, 66, 66) => [(4, 5, 0, 3), (3, 3, 0, 3), (3, 2, -3, 3)],
        (32, 33, 33) => [(6, 7, 0, 1), (6, 5, -1, 1), (3, 2, -3, 1)],
        (32, 0, 0) => [(6, 8, -5, 0), (4, 6, -8, 0), (5, 4, -12, 0)],
        _ => return None,
    };
    Some(t[col])
}

/// The classification width m the thesis found best for an ordering (§5.5).
pub fn thesis_cut_width(o: Ordering) -> Option<u32> {
    match (o.b, o.wa, o.wb) {
        (32, 79, 5) | (20, 69, 19) => Some(10),
        (32, 66, 66) | (32, 0, 0) => Some(20),
        (32, 33, 33) => Some(15),
        _ => None,
    }
}

/// What to run, as the command line asks for it.
#[derive(Clone, Debug)]
pub struct Request {
    /// Processor counts.
    pub procs: Vec<usize>,
    /// Parallel search algorithms (for p > 1).
    pub policies: Vec<PolicyKind>,
    /// Schemes (for p > 1; default a).
    pub schemes: Option<Vec<SchemeKind>>,
    /// m_A values (default 2).
    pub m_a: Option<IntRange>,
    /// m_B values (default 1).
    pub m_b: Option<IntRange>,
    /// m_Ca values (default 0).
    pub m_ca: Option<IntRange>,
    /// m_Cc values (default 0).
    pub m_cc: Option<IntRange>,
    /// Classification widths (default: the thesis's for the ordering, else 10).
    pub cut_width: Option<IntRange>,
    /// Finished moves a PV node needs in schemes A and B (default 1).
    pub pv_wait: Option<IntRange>,
    /// Use the thesis's parameters for each ordering and processor count.
    pub thesis: bool,
    /// Run only shard `k` (0-based) of `n`.
    pub shard: Option<(usize, usize)>,
    /// When processors interleave.
    pub interleave: Interleave,
    /// How far a split-point search walks (default: the whole tree).
    pub walk: Option<Walk>,
    /// Active splitting's minimum split depths.
    pub min_split_depth: Option<IntRange>,
    /// Active splitting's split groups.
    pub split_group: Option<IntRange>,
    /// Work stealing's seed.
    pub steal_seed: Option<u64>,
    /// How processors wait for locks.
    pub lock: LockKind,
}

impl Request {
    /// A request for `procs` with every other setting at its default.
    pub fn new(procs: Vec<usize>) -> Request {
        Request {
            procs,
            policies: vec![PolicyKind::Dts],
            schemes: None,
            m_a: None,
            m_b: None,
            m_ca: None,
            m_cc: None,
            cut_width: None,
            pv_wait: None,
            thesis: false,
            shard: None,
            interleave: Interleave::default(),
            walk: None,
            min_split_depth: None,
            split_group: None,
            steal_seed: None,
            lock: LockKind::default(),
        }
    }

    /// The schemes asked for (default a).
    fn schemes(&self) -> Vec<SchemeKind> {
        self.schemes.clone().unwrap_or(vec![SchemeKind::A])
    }

    /// Refuses parameters that no requested policy takes.
    fn check_applies(&self) -> Result<()> {
        let has = |k: PolicyKind| self.policies.contains(&k);
        require!(!self.policies.is_empty(), RunError::BadArgument, "--policy: give at least one policy");
        let names = self.policies.iter().map(|k| k.name()).collect::<Vec<_>>().join(",");
        let scheme_params = [
            ("--scheme", self.schemes.is_some()),
            ("--m-a", self.m_a.is_some()),
            ("--m-b", self.m_b.is_some()),
            ("--m-ca", self.m_ca.is_some()),
            ("--m-cc", self.m_cc.is_some()),
            ("--cut-width", self.cut_width.is_some()),
            ("--pv-wait", self.pv_wait.is_some()),
            ("--thesis-params", self.thesis),
        ];
        if !self.policies.iter().any(|k| k.takes_scheme()) {
            for (name, given) in scheme_params {
                require!(!given, RunError::BadArgument, "{name} does not apply to --policy {names} (PV splitting splits at PV nodes only)");
            }
        }
        require!(
            self.pv_wait.is_none() || self.schemes().iter().any(|&s| s != SchemeKind::C),
            RunError::BadArgument,
            "--pv-wait applies to schemes a and b only (scheme c's PV nodes wait w + m_Ca moves)"
        );
        require!(self.walk.is_none() || has(PolicyKind::Dts), RunError::BadArgument, "--split-walk applies to --policy dts only (got --policy {names})");
        require!(
            self.min_split_depth.is_none() || has(PolicyKind::Active),
            RunError::BadArgument,
            "--min-split-depth applies to --policy active only (got --policy {names})"
        );
        require!(
            self.split_group.is_none() || has(PolicyKind::Active),
            RunError::BadArgument,
            "--split-group applies to --policy active only (got --policy {names})"
        );
        require!(
            self.steal_seed.is_none() || has(PolicyKind::Steal),
            RunError::BadArgument,
            "--steal-seed applies to --policy steal only (got --policy {names})"
        );
        Ok(())
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

fn configs_for(req: &Request, key: &GroupKey) -> Result<Vec<SimConfig>> {
    let o = key.ordering();
    let vals = |r: Option<IntRange>, default: i64| -> Vec<i64> { r.map_or(vec![default], |r| r.values().collect()) };
    let schemes = req.schemes();
    let pv_waits = vals(req.pv_wait, DEFAULT_PV_WAIT as i64);
    let mut out = vec![];
    for &procs in &req.procs {
        require!((1..=MAX_PROCS).contains(&procs), RunError::BadArgument, "--procs {procs}: the machine has 1..{MAX_PROCS} processors");
        let base = SimConfig {
            procs,
            scheme: None,
            m_a: None,
            m_b: None,
            m_ca: None,
            m_cc: None,
            cut_width: None,
            pv_wait: None,
            interleave: req.interleave,
            walk: req.walk.unwrap_or_default(),
            policy: None,
            min_split_depth: None,
            split_group: None,
            steal_seed: None,
            lock: req.lock,
        };
        if procs == 1 {
            out.push(base);
            continue;
        }
        let thesis = if req.thesis {
            Some(o.and_then(|o| thesis_params(o, procs)).ok_or_else(|| {
                RunError::BadArgument(format!(
                    "--thesis-params: the thesis gives no parameters for {key} trees with {procs} processors (only the five orderings at 12, 24, 48)"
                ))
            })?)
        } else {
            None
        };
        for &policy in &req.policies {
            let base = SimConfig { policy: Some(policy), ..base };
            let variants: Vec<SimConfig> = match policy {
                PolicyKind::Dts | PolicyKind::PvSplit => vec![base],
                PolicyKind::Steal => vec![SimConfig { steal_seed: Some(req.steal_seed.unwrap_or(DEFAULT_STEAL_SEED)), ..base }],
                PolicyKind::Active => {
                    let groups = vals(req.split_group, DEFAULT_SPLIT_GROUP as i64);
                    vals(req.min_split_depth, DEFAULT_MIN_SPLIT_DEPTH as i64)
                        .into_iter()
                        .flat_map(|d| groups.iter().map(move |&g| SimConfig { min_split_depth: Some(d as u32), split_group: Some(g as u32), ..base }))
                        .collect()
                }
            };
            for base in variants {
                if !policy.takes_scheme() {
                    out.push(base);
                    continue;
                }
                for &scheme in &schemes {
                    let base = SimConfig { scheme: Some(scheme), ..base };
                    let with_pv_waits = |c: SimConfig| pv_waits.iter().map(move |&w| SimConfig { pv_wait: Some(w as u32), ..c });
                    match scheme {
                        SchemeKind::A => {
                            let v = thesis.map_or_else(|| vals(req.m_a, 2), |t| vec![t.0 as i64]);
                            out.extend(v.into_iter().flat_map(|m| with_pv_waits(SimConfig { m_a: Some(m as u32), ..base })));
                        }
                        SchemeKind::B => {
                            let v = thesis.map_or_else(|| vals(req.m_b, 1), |t| vec![t.1 as i64]);
                            out.extend(v.into_iter().flat_map(|m| with_pv_waits(SimConfig { m_b: Some(m as u32), ..base })));
                        }
                        SchemeKind::C => {
                            let widths = vals(req.cut_width, o.and_then(thesis_cut_width).unwrap_or(10) as i64);
                            let (cas, ccs) = match thesis {
                                Some(t) => (vec![t.2 as i64], vec![t.3 as i64]),
                                None => (vals(req.m_ca, 0), vals(req.m_cc, 0)),
                            };
                            for &w in &widths {
                                for &ca in &cas {
                                    for &cc in &ccs {
                                        out.push(SimConfig { m_ca: Some(ca as i32), m_cc: Some(cc as i32), cut_width: Some(w as u32), ..base });
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(out)
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
            let scheme = c.scheme.map_or("-", |s| s.name());
            h.update(format!(
                "config {} {scheme} {:?} {:?} {:?} {:?} {:?} {} {}\n",
                c.procs,
                c.m_a,
                c.m_b,
                c.m_ca,
                c.m_cc,
                c.cut_width,
                c.interleave.name(),
                c.walk.name()
            ));
            // Only the new policies add to the digest, so that the thesis's
            // runs keep their ids.
            if let Some(k) = c.policy.filter(|&k| k != PolicyKind::Dts) {
                h.update(format!("policy {} {:?} {:?} {:?}\n", k.name(), c.min_split_depth, c.split_group, c.steal_seed));
            }
            if c.lock != LockKind::Tas {
                h.update(format!("lock {}\n", c.lock.name()));
            }
            if let Some(w) = c.pv_wait.filter(|&w| w != DEFAULT_PV_WAIT) {
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
            g.configs = configs_for(req, &g.key)?;
            if g.configs.iter().any(|c| c.scheme == Some(SchemeKind::C)) {
                require!(!nets.is_empty(), RunError::NoNetwork, "scheme c needs the network: give --weights FILE (from nntrain)");
                // One network per ordering: `Network::load_each` refuses two.
                let found = nets.iter().position(|n| n.check_trees(&g.key).is_ok());
                g.net = Some(found.ok_or_else(|| {
                    let have: Vec<String> = nets.iter().map(|n| n.trained_for.to_string()).collect();
                    let trees = match g.key.ordering() {
                        Some(o) => format!("ordering {} {o}", g.key.family()),
                        None => format!("game {}", g.key.family()),
                    };
                    RunError::NoNetwork(format!("scheme c: no --weights for the trees' {trees} (weights given for: {})", have.join("; ")))
                })?);
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
                r.run = Some(self.run.clone());
                Ok(r)
            })
            .collect()
    }
}

/// Simulates one tree under one configuration.
pub fn simulate_one(tree: &Tree, c: &SimConfig, net: Option<&Network>) -> Result<TreeStats> {
    let depth = tree.depth();
    let idle = match c.policy {
        None | Some(PolicyKind::Dts) => Idle::SplitVariable(c.walk),
        Some(PolicyKind::PvSplit) => Idle::PvSplit,
        Some(PolicyKind::Steal) => Idle::Steal { seed: c.steal_seed.unwrap_or(DEFAULT_STEAL_SEED) },
        Some(PolicyKind::Active) => {
            Idle::Active { min_split_depth: c.min_split_depth.unwrap_or(DEFAULT_MIN_SPLIT_DEPTH), group: c.split_group.unwrap_or(DEFAULT_SPLIT_GROUP) }
        }
    };
    let cfg = MachineSpec { interleave: c.interleave, idle, lock: c.lock, ..MachineSpec::new(c.procs, depth) };
    let r = match c.scheme {
        None | Some(SchemeKind::A) => {
            tree.visit(Simulate { scheme: &YbwcSplit { m_a: c.m_a.unwrap_or(1), pv_wait: c.pv_wait.unwrap_or(DEFAULT_PV_WAIT) }, cfg })
        }
        Some(SchemeKind::B) => {
            tree.visit(Simulate { scheme: &ConfidenceSplit { m_b: c.m_b.unwrap_or(1), pv_wait: c.pv_wait.unwrap_or(DEFAULT_PV_WAIT) }, cfg })
        }
        Some(SchemeKind::C) => {
            let net = net.ok_or_else(|| RunError::NoNetwork("scheme c needs --weights".into()))?;
            let s = NetworkSplit { net, cut_width: c.cut_width.unwrap_or(10) as f64, m_ca: c.m_ca.unwrap_or(0), m_cc: c.m_cc.unwrap_or(0), leaf_ply: depth };
            tree.visit(Simulate { scheme: &s, cfg })
        }
    };
    r.map_err(|source| RunError::Simulation { tree: tree.index(), seed: row_seed(tree), procs: c.procs, scheme: c.scheme.map_or("-", |s| s.name()), source })
}

/// The simulator on a tree's source, with one scheme.
struct Simulate<'s, S> {
    scheme: &'s S,
    cfg: MachineSpec,
}

impl<S: Scheme> SourceVisitor for Simulate<'_, S> {
    type Output = std::result::Result<TreeStats, SimError>;
    fn visit<T: TreeSource>(self, src: &T, root: &T::Node, _depth: u32) -> Self::Output {
        simulate(src, root.clone(), self.scheme, self.cfg)
    }
}

/// The `seed` column: an artificial tree's root seed; for a game position,
/// a digest of the position (the first 6 bytes of its SHA-256), so that
/// rows of different positions with the same index never match.
pub fn row_seed(tree: &Tree) -> u64 {
    match tree {
        Tree::Artificial { spec, .. } => spec.seed,
        Tree::Chess { spec, .. } | Tree::Othello { spec, .. } => {
            use sha2::{Digest, Sha256};
            Sha256::digest(spec.position.as_bytes()).iter().take(6).fold(0u64, |a, &b| a << 8 | b as u64)
        }
    }
}

fn row(item: u64, items: u64, tree: &Tree, c: &SimConfig, s: &TreeStats) -> SimRow {
    let key = tree.key();
    let o = key.ordering();
    let work = |st: State| s.work(st);
    let time = |st: State| s.in_state(st);
    SimRow {
        run: None,
        item: Some(item),
        items: Some(items),
        tree: Some(tree.index()),
        seed: Some(row_seed(tree)),
        model: key.family(),
        b: o.map(|o| o.b),
        wa: o.map(|o| o.wa),
        wb: o.map(|o| o.wb),
        depth: key.depth(),
        trees: 1,
        scheme: c.scheme.map_or("-", |s| s.name()).to_string(),
        procs: c.procs as u32,
        m_a: c.m_a,
        m_b: c.m_b,
        m_ca: c.m_ca,
        m_cc: c.m_cc,
        cut_width: c.cut_width,
        interleave: c.interleave.name().to_string(),
        split_walk: if c.policy.is_none_or(|k| k == PolicyKind::Dts) { c.walk.name() } else { "-" }.to_string(),
        root_value: Some(if tree.is_game() { crate::value::off_scale(s.value) } else { s.value }),
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
        policy: c.policy.map_or("-", |k| k.name()).to_string(),
        min_split_depth: c.min_split_depth,
        split_group: c.split_group,
        steal_seed: c.steal_seed,
        lock: c.lock.name().to_string(),
        pv_wait: c.pv_wait,
    }
}

/// `part / (procs * ticks)`, the share of the machine's time.
fn share(part: u64, procs: u64, ticks: u64) -> Option<f64> {
    (ticks > 0).then(|| part as f64 / (procs * ticks) as f64)
}

type RowKey = (Family, Option<u32>, Option<u32>, Option<u32>, u32, u64, u32);

fn tree_key(r: &SimRow) -> Option<RowKey> {
    Some((r.model, r.b, r.wa, r.wb, r.depth, r.seed?, r.tree?))
}

type ConfigKey = (
    (Family, Option<u32>, Option<u32>, Option<u32>, u32),
    (String, u32, Option<u32>, Option<u32>, Option<i32>, Option<i32>, Option<u32>),
    (String, String, String, Option<u32>, Option<u32>, Option<u64>, String, Option<u32>),
);

fn config_key(r: &SimRow) -> ConfigKey {
    (
        (r.model, r.b, r.wa, r.wb, r.depth),
        (r.scheme.clone(), r.procs, r.m_a, r.m_b, r.m_ca, r.m_cc, r.cut_width),
        (r.interleave.clone(), r.split_walk.clone(), r.policy.clone(), r.min_split_depth, r.split_group, r.steal_seed, r.lock.clone(), r.pv_wait),
    )
}

fn set_ratios(r: &mut SimRow, t1: u64, n1: u64) {
    r.t1_ticks = Some(t1);
    r.n1_nodes = Some(n1);
    let su = t1 as f64 / r.tp_ticks as f64;
    let so = r.np_nodes as f64 / n1 as f64 - 1.0;
    r.su = Some(su);
    r.so = Some(so);
    r.css = Some(r.procs as f64 / (su * (so + 1.0)) - 1.0);
}

/// Turns per-tree rows (in item order) into the output: per-tree rows, or
/// one row per configuration (trees summed, in order of first appearance),
/// with t1, n1, SU, SO and CSS wherever every tree has a p = 1 row among
/// `rows` or `baseline`.
pub fn finish(mut rows: Vec<SimRow>, baseline: &[SimRow], per_tree: bool) -> Vec<SimRow> {
    let mut base: HashMap<RowKey, (u64, u64)> = HashMap::new();
    for r in baseline.iter().chain(rows.iter()) {
        if r.procs == 1
            && let Some(k) = tree_key(r)
        {
            base.insert(k, (r.tp_ticks, r.np_nodes));
        }
    }
    for r in &mut rows {
        r.t1_ticks = None;
        r.n1_nodes = None;
        r.su = None;
        r.so = None;
        r.css = None;
        if let Some(&(t1, n1)) = tree_key(r).and_then(|k| base.get(&k)) {
            set_ratios(r, t1, n1);
        }
    }
    if per_tree {
        return rows;
    }
    let mut order: Vec<ConfigKey> = vec![];
    let mut sums: HashMap<ConfigKey, (SimRow, Option<(u64, u64)>)> = HashMap::new();
    for r in rows {
        let k = config_key(&r);
        let t1n1 = r.t1_ticks.zip(r.n1_nodes);
        match sums.get_mut(&k) {
            None => {
                order.push(k.clone());
                let mut a = r;
                a.run = None;
                a.item = None;
                a.items = None;
                a.tree = None;
                a.seed = None;
                a.root_value = None;
                sums.insert(k, (a, t1n1));
            }
            Some((a, base)) => {
                a.trees += r.trees;
                a.tp_ticks += r.tp_ticks;
                a.np_nodes += r.np_nodes;
                a.leaves += r.leaves;
                a.ticks_expand += r.ticks_expand;
                a.ticks_search += r.ticks_search;
                a.ticks_eval += r.ticks_eval;
                a.ticks_return += r.ticks_return;
                a.ticks_split += r.ticks_split;
                a.ticks_update += r.ticks_update;
                a.ticks_exit += r.ticks_exit;
                a.mem_stall += r.mem_stall;
                a.lock_wait += r.lock_wait;
                a.time_expand += r.time_expand;
                a.time_search += r.time_search;
                a.time_eval += r.time_eval;
                a.time_return += r.time_return;
                a.time_split += r.time_split;
                a.time_update += r.time_update;
                a.time_exit += r.time_exit;
                a.split_searches += r.split_searches;
                a.split_examined += r.split_examined;
                a.told += r.told;
                a.pool_nodes += r.pool_nodes;
                *base = match (*base, t1n1) {
                    (Some((t, n)), Some((t2, n2))) => Some((t + t2, n + n2)),
                    _ => None,
                };
            }
        }
    }
    order
        .into_iter()
        .map(|k| {
            let (mut a, base) = sums.remove(&k).expect("every key was inserted");
            a.t1_ticks = None;
            a.n1_nodes = None;
            a.su = None;
            a.so = None;
            a.css = None;
            if let Some((t1, n1)) = base {
                set_ratios(&mut a, t1, n1);
            }
            a.split_share = share(a.time_split, a.procs as u64, a.tp_ticks);
            a
        })
        .collect()
}

/// Merges the per-tree rows of all shards of one run into item order,
/// checking that every part comes from the same run (the `run` column) and
/// that every item is there exactly once. `parts`: (file name, rows).
pub fn merge(parts: Vec<(String, Vec<SimRow>)>) -> Result<Vec<SimRow>> {
    let mut first: Option<(String, String, u64)> = None;
    for (name, rows) in &parts {
        for r in rows {
            let (Some(_), Some(n)) = (r.item, r.items) else {
                return Err(RunError::Merge(format!("{name}: merge needs per-tree rows (pabsim --per-tree): a row has no item number")));
            };
            let Some(run) = &r.run else {
                return Err(RunError::Merge(format!("{name}: a row has no run id (written by an older pabsim? run the shard again)")));
            };
            match &first {
                None => first = Some((name.clone(), run.clone(), n)),
                Some((f, id, t)) => require!(
                    id == run && *t == n,
                    RunError::Merge,
                    "{f} and {name} come from different runs (run {id} and {run}: other trees, processors, schemes or parameters); merge the shards of one run"
                ),
            }
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

    #[test]
    fn bad_arguments_and_merges_are_typed_errors() {
        assert!(matches!(parse_shard("3/2"), Err(RunError::BadArgument(m)) if m.contains("--shard `3/2`")));
        assert_eq!(parse_shard("2/5").unwrap(), (1, 5));
        assert!(matches!(IntRange::parse("5..1", "--m-a", 1, 64), Err(RunError::BadArgument(m)) if m == "--m-a: empty range 5..1"));
        assert!(matches!(IntRange::parse("0", "--m-a", 1, 64), Err(RunError::BadArgument(_))));
        assert_eq!(IntRange::parse("-3..2", "--m-ca", -64, 64).unwrap(), IntRange { lo: -3, hi: 2 });
        assert!(matches!("z".parse::<SchemeKind>(), Err(RunError::BadArgument(_))));
        assert!(matches!(merge(vec![]), Err(RunError::Merge(m)) if m.starts_with("nothing to merge")));
    }

    /// The command line has always taken schemes and policies in any case
    /// (`--scheme A`, `--policy DTS`); rows hold the lower-case name.
    #[test]
    fn schemes_and_policies_parse_in_any_case_and_print_in_lower_case() {
        for (text, scheme) in [("a", SchemeKind::A), ("B", SchemeKind::B), ("c", SchemeKind::C)] {
            assert_eq!(text.parse::<SchemeKind>().unwrap(), scheme);
            assert_eq!(scheme.name(), text.to_ascii_lowercase());
        }
        for (text, policy) in [("DTS", PolicyKind::Dts), ("PvSplit", PolicyKind::PvSplit), ("steal", PolicyKind::Steal), ("Active", PolicyKind::Active)] {
            assert_eq!(text.parse::<PolicyKind>().unwrap(), policy);
            assert_eq!(policy.name(), text.to_ascii_lowercase());
        }
        assert!(matches!("Z".parse::<SchemeKind>(), Err(RunError::BadArgument(m)) if m == "unknown scheme `Z` (expected a, b or c)"));
        assert!(matches!("ybwc".parse::<PolicyKind>(), Err(RunError::BadArgument(m)) if m == "unknown policy `ybwc` (expected dts, pvsplit, steal or active)"));
    }
}
