//! Ura, Tsuruoka and Chikayama (2014)'s Tables 1 and 6 from `make ura2014`'s
//! items (`pabsim --ura2014`, `docs/formats.md`): the configurations of
//! the grid ([`Grid::configs`]), the calibration of the cost per node
//! ([`calibrate`]), one row per item ([`items`]), the two tables
//! ([`table1`], [`table6`]) and the cost of the runs ([`cost`]).
//!
//! The pipeline's items are files, `run/b<b>-d<d>-m<d′>/t<tree>-<configuration>.csv`
//! (one `pabsim --machine cluster --per-tree` row each) with the wall time
//! and peak memory of their run in the `.time` beside them. The tables are
//! computed from the items' rows as `items.csv` holds them (its rounded
//! values), so that they can be recomputed from that file alone.
//!
//! The means each column uses are [`super::aggregate`]'s kinds: search
//! times are geometric means over the trees (as the paper's), leaves and
//! idle times arithmetic means, the speed-up the ratio of the geometric
//! means, the leaf ratio the ratio of the sums. The arithmetic is in the
//! order the pipeline's summary always used (a sum over the trees in file
//! order, then one division), so that the tables stay the same to the last
//! printed digit.

use super::aggregate::{GeoMean, Mean};
use super::rows::two;
use super::{ClusterRow, FormatError, read_csv};
use crate::cli::Input;
use crate::tree::incremental::{DEFAULT_SCALE, EvalNoise};
use serde::{Deserialize, Serialize, Serializer};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The largest cost per node the parallel items may run at, ns: `--node-ns`'s
/// range, the cluster's `MAX_COST_NS` (not named here: the formats depend
/// on no machine; `tests/ura2014.rs` holds the two equal).
pub const MAX_NODE_NS: u64 = 1_000_000_000;

/// Why the summary could not be made.
#[derive(Debug, thiserror::Error)]
pub enum UraError {
    /// An input that does not read or parse.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A file or directory that cannot be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Inputs that do not fit together (the message says how).
    #[error("{0}")]
    Bad(String),
}

type Result<T> = std::result::Result<T, UraError>;

/// One group of trees of the grid: branching factor, depth, the
/// master-worker's depth d′ and the trees' evaluation noise
/// (`b:d:d′[:noise]` on the command line; `treegen --eval-noise`'s value,
/// `docs/model.md` §7.8).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    /// Branching factor.
    pub b: u32,
    /// Depth.
    pub d: u32,
    /// The master's depth d′.
    pub d_prime: u32,
    /// The trees' evaluation noise as given (`shogi` or a step; `None`: the
    /// plain synthetic trees).
    pub noise: Option<String>,
}

impl std::str::FromStr for Group {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Group, String> {
        let bad = || format!("`{s}` is not b:d:d′[:noise] with d′ < d (e.g. 5:24:12 or 20:12:6:shogi)");
        let parts: Vec<&str> = s.split(':').collect();
        let (nums, noise) = match parts[..] {
            [b, d, m] => ([b, d, m], None),
            [b, d, m, x] => ([b, d, m], Some(x)),
            _ => return Err(bad()),
        };
        let n: Vec<u32> = nums.iter().map(|x| x.parse().map_err(|_| bad())).collect::<std::result::Result<_, _>>()?;
        let [b, d, d_prime] = n[..] else { return Err(bad()) };
        if d_prime >= d {
            return Err(bad());
        }
        let noise = match noise {
            None => None,
            Some(x) => {
                // The tree generator's own check (at its default scale, as
                // the pipeline's trees are made): a step it would refuse
                // is refused here, before any item runs.
                let law = x.parse::<EvalNoise>().and_then(|n| n.law(b, DEFAULT_SCALE, None)).map_err(|e| format!("`{s}`: {e}"))?;
                if law.step == 0 {
                    return Err(format!("`{s}`: noise 0 is the plain trees (write b:d:d′)"));
                }
                Some(x.to_string())
            }
        };
        Ok(Group { b, d, d_prime, noise })
    }
}

impl std::fmt::Display for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.b, self.d, self.d_prime)?;
        match &self.noise {
            Some(x) => write!(f, ":{x}"),
            None => Ok(()),
        }
    }
}

impl Group {
    /// The directory of its items under `run/`.
    pub fn dir(&self) -> String {
        match &self.noise {
            None => format!("b{}-d{}-m{}", self.b, self.d, self.d_prime),
            Some(x) => format!("b{}-d{}-m{}-noise-{x}", self.b, self.d, self.d_prime),
        }
    }

    /// Whether a row of the summary's files (b, d, d′, noise) is of this group.
    fn is(&self, b: u32, d: u32, d_prime: u32, noise: &Option<String>) -> bool {
        (self.b, self.d, self.d_prime) == (b, d, d_prime) && &self.noise == noise
    }

    /// "b = 5, d = 24" (and the noise), for messages.
    pub fn said(&self) -> String {
        match &self.noise {
            None => format!("b = {}, d = {}", self.b, self.d),
            Some(x) => format!("b = {}, d = {}, noise {x}", self.b, self.d),
        }
    }
}

/// What the tables are made of: the grid and the configurations the items
/// ran (the pipeline's `GRID`, `COUNT`, `PROCS`, `ALGORITHMS`,
/// `EPSILON_PROCS`, `EPSILON`, `SEQ_NODE_NS`).
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// The groups of trees, in table order.
    pub groups: Vec<Group>,
    /// Trees per group.
    pub count: u32,
    /// Table 1's process counts.
    pub procs: Vec<u32>,
    /// Table 1's algorithms (names as in the items' rows).
    pub algorithms: Vec<String>,
    /// Table 6's process counts.
    pub epsilon_procs: Vec<u32>,
    /// Table 6's ε.
    pub epsilon: i64,
    /// The sequential items' cost per node, ns.
    pub seq_node_ns: u64,
}

/// One parallel configuration of the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Its items' name (`<algorithm>-p<P>`, `master-worker-negascout-e<ε>-p<P>`).
    pub name: String,
    /// Processes.
    pub procs: u32,
    /// The algorithm.
    pub algorithm: String,
    /// ε, for the NegaScout master.
    pub epsilon: Option<i64>,
}

impl Grid {
    /// The parallel configurations: Table 1's (each P, each algorithm),
    /// then Table 6's (the plain master-worker and the NegaScout master
    /// with ε at each of its P), each once (Table 6's plain master-worker
    /// is Table 1's item where Table 1 has it).
    pub fn configs(&self) -> Vec<Config> {
        let mut out: Vec<Config> = vec![];
        let mut add = |algorithm: &str, procs: u32, epsilon: Option<i64>| {
            let name = match epsilon {
                Some(e) => format!("{algorithm}-e{e}-p{procs}"),
                None => format!("{algorithm}-p{procs}"),
            };
            if !out.iter().any(|c| c.name == name) {
                out.push(Config { name, procs, algorithm: algorithm.to_string(), epsilon });
            }
        };
        for &p in &self.procs {
            for a in &self.algorithms {
                add(a, p, None);
            }
        }
        for &p in &self.epsilon_procs {
            add("master-worker", p, None);
            add("master-worker-negascout", p, Some(self.epsilon));
        }
        out
    }
}

/// Writes a number with one decimal.
fn one<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:.1}"))
}

/// Writes a number with three decimals.
fn three<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:.3}"))
}

/// Writes a number with four decimals.
fn four<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:.4}"))
}

/// Writes a number with six decimals.
fn six<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:.6}"))
}

/// Writes an optional number with two or six decimals (empty when absent).
fn opt<const N: usize, S: Serializer>(v: &Option<f64>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match v {
        Some(x) => s.serialize_str(&format!("{x:.N$}")),
        None => s.serialize_none(),
    }
}

/// `calibration.csv`: one group's sequential items summed, and the cost per
/// node at which the parallel items run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationRow {
    /// Branching factor.
    pub b: u32,
    /// Depth.
    pub d: u32,
    /// The master's depth.
    pub d_prime: u32,
    /// Trees (`COUNT`).
    pub trees: u32,
    /// The sequential items' leaves, summed.
    pub leaves: u64,
    /// Their nodes, summed.
    pub nodes: u64,
    /// The paper's sequential time per leaf at this b, ns.
    #[serde(serialize_with = "three")]
    pub paper_ns_per_leaf: f64,
    /// That time times our leaves per node, rounded (at least 1).
    pub node_ns: u64,
    /// The trees' evaluation noise (empty: the plain trees).
    pub eval_noise: Option<String>,
}

/// The paper's sequential time per leaf at branching factor `b`, ns, from
/// its Table 1 (`published`: `b`, `method`, `search_time_s`,
/// `leaves_millions` among its columns; the last `sequential` row of `b`).
pub fn paper_ns_per_leaf(published: &Path, b: u32) -> Result<f64> {
    let name = published.display().to_string();
    let text = std::fs::read_to_string(published).map_err(|source| UraError::Read { path: name.clone(), source })?;
    let mut rdr = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let bad = |m: String| UraError::Format(FormatError::Csv { name: name.clone(), line: 1, message: m });
    let header = rdr.headers().map_err(|e| bad(e.to_string()))?.clone();
    let col = |c: &str| header.iter().position(|h| h == c).ok_or_else(|| bad(format!("missing column `{c}`")));
    let (cb, cm, ct, cl) = (col("b")?, col("method")?, col("search_time_s")?, col("leaves_millions")?);
    let mut per_leaf = None;
    for r in rdr.records() {
        let r = r.map_err(|e| bad(e.to_string()))?;
        if r.get(cb).and_then(|x| x.parse::<u32>().ok()) == Some(b) && r.get(cm) == Some("sequential") {
            // A positive finite number, or the cost per node (and every
            // speed-up) would be 0 or unbounded.
            let num = |i: usize, what: &str| -> Result<f64> {
                let cell = r.get(i).unwrap_or("");
                match cell.parse::<f64>() {
                    Ok(x) if x.is_finite() && x > 0.0 && x * 1e9 < f64::MAX => Ok(x),
                    _ => Err(UraError::Format(FormatError::Csv {
                        name: name.clone(),
                        line: r.position().map_or(0, |p| p.line()),
                        message: format!(
                            "column {}: `{}` is not {what} (a positive number; fix the paper's table, --published)",
                            header.get(i).unwrap_or(""),
                            crate::cli::excerpt(cell)
                        ),
                    })),
                }
            };
            per_leaf = Some(num(ct, "a search time in seconds")? * 1e9 / (num(cl, "a count of leaves in millions")? * 1e6));
        }
    }
    per_leaf.ok_or_else(|| UraError::Bad(format!("no sequential row for b = {b} in {name}")))
}

/// Reads item `path`, tree `tree` of group `g` and configuration `cfg`
/// (the baseline's: `seq` on 1 process): the one check every reader of
/// the items shares. Its one row must be the item its name says (group,
/// tree, algorithm, processes), its times finite and not negative, its
/// leaves at most its nodes; an item without a row (an empty or
/// header-only file) or with several is refused, never counted.
fn read_item(path: &Path, g: &Group, tree: u32, cfg: &Config) -> Result<ClusterRow> {
    let name = path.display().to_string();
    let mut rows: Vec<ClusterRow> = read_csv(Input::open(Some(path)).map_err(|e| UraError::Bad(e.to_string()))?)?;
    let at = |line: u64, message: String| UraError::Format(FormatError::Csv { name: name.clone(), line, message });
    let redo = "remove the file and rerun the pipeline's step to redo the item";
    let r = match rows.len() {
        1 => rows.remove(0),
        0 => return Err(at(1, format!("no row, an item holds one ({redo})"))),
        n => return Err(at(3, format!("{n} rows, an item holds one ({redo})"))),
    };
    let expected = [
        ("b", r.b.map_or(String::new(), |b| b.to_string()), g.b.to_string()),
        ("depth", r.depth.to_string(), g.d.to_string()),
        ("tree", r.tree.map_or(String::new(), |t| t.to_string()), tree.to_string()),
        ("algorithm", r.algorithm.clone(), cfg.algorithm.clone()),
        ("procs", r.procs.to_string(), cfg.procs.to_string()),
    ];
    if let Some((col, got, want)) = expected.iter().find(|(_, got, want)| got != want) {
        return Err(at(
            2,
            format!(
                "column {col}: `{}`, but the file's name and directory say {want} (an item of another configuration or tree; {redo})",
                crate::cli::excerpt(got)
            ),
        ));
    }
    for (col, v) in [("time_ns", r.time_ns), ("startup_idle_ns", r.startup_idle_ns), ("other_idle_ns", r.other_idle_ns)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(at(2, format!("column {col}: `{v}` is not a time in ns (a finite number, at least 0; {redo})")));
        }
    }
    if r.leaves > r.nodes {
        return Err(at(2, format!("column leaves: {} leaves of {} nodes (a leaf is a node; {redo})", r.leaves, r.nodes)));
    }
    Ok(r)
}

/// The calibration of every group of the grid whose `count` sequential
/// items are all under `dir` (`run/<group>/t<tree>-seq.csv`); a group with
/// any missing is left out (the pipeline refuses to run the parallel
/// items before they are all there).
pub fn calibrate(dir: &Path, grid: &Grid, published: &Path) -> Result<Vec<CalibrationRow>> {
    let mut out = vec![];
    for g in &grid.groups {
        let files: Vec<PathBuf> = (1..=grid.count).map(|t| dir.join("run").join(g.dir()).join(format!("t{t:02}-seq.csv"))).collect();
        if !files.iter().all(|f| f.exists()) {
            continue;
        }
        let (mut leaves, mut nodes) = (0u64, 0u64);
        let seq = Config { name: "seq".into(), procs: 1, algorithm: "seq".into(), epsilon: None };
        for (t, f) in (1..).zip(&files) {
            let r = read_item(f, g, t, &seq)?;
            let (Some(l), Some(n)) = (leaves.checked_add(r.leaves), nodes.checked_add(r.nodes)) else {
                return Err(UraError::Bad(format!(
                    "{}: the sequential items' leaves or nodes sum past 2^64 - 1 at {} (check its leaves and nodes; remove a wrong item and rerun the pipeline's step)",
                    g.said(),
                    f.display()
                )));
            };
            (leaves, nodes) = (l, n);
        }
        let per_leaf = paper_ns_per_leaf(published, g.b)?;
        if nodes == 0 {
            return Err(UraError::Bad(format!("{}: the sequential items searched no node", g.said())));
        }
        // Rounded half up, as the pipeline always did (counts below 2^53: exact as doubles).
        let ns = (per_leaf * leaves as f64 / nodes as f64 + 0.5).trunc();
        // The parallel items run at this cost (--node-ns): within its range.
        if ns > MAX_NODE_NS as f64 {
            return Err(UraError::Bad(format!(
                "{}: the calibrated cost per node, {ns} ns, exceeds --node-ns's {MAX_NODE_NS} (check the sequential row of b = {} in {})",
                g.said(),
                g.b,
                published.display()
            )));
        }
        out.push(CalibrationRow {
            b: g.b,
            d: g.d,
            d_prime: g.d_prime,
            trees: grid.count,
            leaves,
            nodes,
            paper_ns_per_leaf: per_leaf,
            node_ns: if ns < 1.0 { 1 } else { ns as u64 },
            eval_noise: g.noise.clone(),
        });
    }
    Ok(out)
}

/// `items.csv`: one item, its sequential time at the calibrated cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemRow {
    /// Branching factor.
    pub b: u32,
    /// Depth.
    pub d: u32,
    /// The master's depth.
    pub d_prime: u32,
    /// The tree (its number in the item's name).
    pub tree: u32,
    /// The algorithm (`seq` for the baseline).
    pub algorithm: String,
    /// Processes.
    pub procs: u32,
    /// ε (Table 6's NegaScout master; empty otherwise).
    pub epsilon: Option<i64>,
    /// Search time, ns (the baseline's: its nodes at the calibrated cost).
    #[serde(serialize_with = "two")]
    pub time_ns: f64,
    /// Leaves.
    pub leaves: u64,
    /// Nodes.
    pub nodes: u64,
    /// Mean start-up idle time per process, ns.
    #[serde(serialize_with = "two")]
    pub startup_idle_ns: f64,
    /// Mean other idle time per process, ns.
    #[serde(serialize_with = "two")]
    pub other_idle_ns: f64,
    /// The item's wall time, s (empty without `/usr/bin/time`).
    #[serde(serialize_with = "opt::<2, _>")]
    pub wall_s: Option<f64>,
    /// Its user and system time, s.
    #[serde(serialize_with = "two")]
    pub cpu_s: f64,
    /// Its peak resident memory, kB (empty without `/usr/bin/time`).
    pub max_rss_kb: Option<u64>,
    /// The trees' evaluation noise (empty: the plain trees).
    pub eval_noise: Option<String>,
}

/// The items of configuration `name` under `dir`: (tree, path), in tree order.
fn item_files(dir: &Path, name: &str) -> Result<Vec<(u32, PathBuf)>> {
    let read = |e: std::io::Error| UraError::Read { path: dir.display().to_string(), source: e };
    let mut out = vec![];
    for e in std::fs::read_dir(dir).map_err(read)? {
        let e = e.map_err(read)?;
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix('t') else { continue };
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || rest[digits..] != format!("-{name}.csv") {
            continue;
        }
        let Ok(tree) = rest[..digits].parse::<u32>() else { continue };
        out.push((tree, e.path()));
    }
    out.sort();
    Ok(out)
}

/// An item's `.time` side file: wall, user and system seconds and peak kB
/// (its last line; `,,,` when the run had no `/usr/bin/time`).
fn side_file(path: &Path) -> Result<(Option<f64>, f64, Option<u64>)> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| UraError::Read { path: name.clone(), source })?;
    let line = text.lines().last().unwrap_or("");
    let f: Vec<&str> = line.split(',').collect();
    let bad = || {
        UraError::Bad(format!(
            "{name}: `{}` is not wall,user,system,kB (seconds and kB, none negative; remove the item and its .time and rerun the pipeline's step)",
            crate::cli::excerpt(line)
        ))
    };
    let num = |i: usize| -> Result<Option<f64>> {
        match f.get(i).copied().unwrap_or("") {
            "" => Ok(None),
            x => x.parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0).map(Some).ok_or_else(bad),
        }
    };
    let kb = match f.get(3).copied().unwrap_or("") {
        "" => None,
        x => Some(x.parse().map_err(|_| bad())?),
    };
    Ok((num(0)?, num(1)?.unwrap_or(0.0) + num(2)?.unwrap_or(0.0), kb))
}

/// One row per item under `dir` of every calibrated group (in grid order;
/// the baseline's items, then each configuration's, each in tree order),
/// the baseline's time its nodes at the calibrated cost; and the groups
/// left out for want of a calibration.
pub fn items(dir: &Path, grid: &Grid, calibration: &[CalibrationRow]) -> Result<(Vec<ItemRow>, Vec<Group>)> {
    let (mut out, mut missing) = (vec![], vec![]);
    let seq = Config { name: "seq".into(), procs: 1, algorithm: "seq".into(), epsilon: None };
    for g in &grid.groups {
        let Some(cal) = calibration.iter().find(|c| g.is(c.b, c.d, c.d_prime, &c.eval_noise)) else {
            missing.push(g.clone());
            continue;
        };
        let gdir = dir.join("run").join(g.dir());
        for cfg in std::iter::once(seq.clone()).chain(grid.configs()) {
            for (tree, f) in item_files(&gdir, &cfg.name)? {
                let (wall_s, cpu, max_rss_kb) = side_file(&f.with_extension("time"))?;
                let r = read_item(&f, g, tree, &cfg)?;
                let mut time = r.time_ns;
                if r.algorithm == "seq" {
                    // The baseline ran at seq_node_ns per node: its time must
                    // be its nodes times that, and is its nodes times the
                    // calibrated cost.
                    if time != r.nodes as f64 * grid.seq_node_ns as f64 {
                        return Err(UraError::Bad(format!("{}: time {time:.2} is not nodes x {} ns", f.display(), grid.seq_node_ns)));
                    }
                    time = r.nodes as f64 * cal.node_ns as f64;
                }
                out.push(ItemRow {
                    b: g.b,
                    d: g.d,
                    d_prime: g.d_prime,
                    tree,
                    algorithm: r.algorithm,
                    procs: r.procs,
                    epsilon: cfg.epsilon,
                    time_ns: time,
                    leaves: r.leaves,
                    nodes: r.nodes,
                    startup_idle_ns: r.startup_idle_ns,
                    other_idle_ns: r.other_idle_ns,
                    wall_s,
                    cpu_s: cpu,
                    max_rss_kb,
                    eval_noise: g.noise.clone(),
                });
            }
        }
    }
    Ok((out, missing))
}

/// The rows as `items.csv` holds them: written and read back, so that the
/// tables use its rounded values (as they would from the file alone).
pub fn as_written(rows: &[ItemRow]) -> Result<Vec<ItemRow>> {
    let mut w = csv::Writer::from_writer(vec![]);
    for r in rows {
        w.serialize(r).map_err(|e| UraError::Bad(e.to_string()))?;
    }
    let text = w.into_inner().map_err(|e| UraError::Bad(e.to_string()))?;
    Ok(read_csv(Input::from_bytes("items.csv", text))?)
}

/// The rows of Tables 1 and 6, one field list: the paper's columns, then
/// ours; Table 6's ε comes after the method (`$($extra)*`).
macro_rules! ura_table_row {
    ($(#[$doc:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// Branching factor.
            pub b: u32,
            /// Depth.
            pub d: u32,
            /// The master's depth.
            pub d_prime: u32,
            /// Processes.
            pub procs: u32,
            /// The paper's name of the configuration (Table 1: `sequential`,
            /// `with updates`, `without updates`, or the algorithm's; Table 6:
            /// `without epsilon-windows` or `with epsilon-windows`).
            pub method: String,
            $($extra)*
            /// Search time, s: the geometric mean over the trees.
            #[serde(serialize_with = "six")]
            pub search_time_s: f64,
            /// The baseline's geometric mean over this one's.
            #[serde(serialize_with = "three")]
            pub speedup: f64,
            /// Leaves, millions: the mean per tree.
            #[serde(serialize_with = "six")]
            pub leaves_millions: f64,
            /// Start-up idle time per process, s: the mean over the trees (empty for the baseline).
            #[serde(serialize_with = "opt::<6, _>")]
            pub startup_idle_s: Option<f64>,
            /// Other idle time per process, s (as `startup_idle_s`).
            #[serde(serialize_with = "opt::<6, _>")]
            pub other_idle_s: Option<f64>,
            /// The algorithm.
            pub algorithm: String,
            /// Trees in the row (those with their baseline's item).
            pub trees: u32,
            /// Leaves over the baseline's (ratio of the sums).
            #[serde(serialize_with = "four")]
            pub leaf_ratio: f64,
            /// The spread over the trees: the least of the trees' own
            /// speed-ups (empty for the baseline).
            #[serde(serialize_with = "opt::<3, _>")]
            pub speedup_min: Option<f64>,
            /// The largest.
            #[serde(serialize_with = "opt::<3, _>")]
            pub speedup_max: Option<f64>,
            /// The least of the trees' own leaf ratios.
            #[serde(serialize_with = "opt::<4, _>")]
            pub leaf_ratio_min: Option<f64>,
            /// The largest.
            #[serde(serialize_with = "opt::<4, _>")]
            pub leaf_ratio_max: Option<f64>,
            /// The trees' evaluation noise (empty: the plain trees).
            pub eval_noise: Option<String>,
        }
    };
}

ura_table_row! {
    /// `table1.csv`: one row of Table 1 (the paper's columns, then ours).
    Table1Row {}
}

ura_table_row! {
    /// `table6.csv`: one row of Table 6, Table 1's columns with ε after the method.
    Table6Row {
        /// ε (empty without).
        pub epsilon: Option<i64>,
    }
}

impl Table6Row {
    fn of(r: Table1Row, epsilon: Option<i64>) -> Table6Row {
        // Every field moved, named once.
        macro_rules! moved {
            ($($f:ident),*) => {{
                let Table1Row { $($f),* } = r;
                Table6Row { epsilon, $($f),* }
            }};
        }
        moved!(
            b,
            d,
            d_prime,
            procs,
            method,
            search_time_s,
            speedup,
            leaves_millions,
            startup_idle_s,
            other_idle_s,
            algorithm,
            trees,
            leaf_ratio,
            speedup_min,
            speedup_max,
            leaf_ratio_min,
            leaf_ratio_max,
            eval_noise
        )
    }
}

/// One summary row: the items of group `g` and configuration (`algorithm`,
/// `procs`, `epsilon`) over the trees that also have their baseline's item;
/// none without such a tree.
pub fn summary_row(items: &[ItemRow], g: &Group, algorithm: &str, procs: u32, epsilon: Option<i64>, method: &str) -> Option<Table1Row> {
    let mine: Vec<&ItemRow> = items.iter().filter(|r| g.is(r.b, r.d, r.d_prime, &r.eval_noise)).collect();
    let seq: HashMap<u32, &ItemRow> = mine.iter().filter(|r| r.algorithm == "seq").map(|r| (r.tree, *r)).collect();
    let (mut ts, mut tp) = (GeoMean::default(), GeoMean::default());
    let (mut ls, mut lp, mut su, mut ot) = (Mean::default(), Mean::default(), Mean::default(), Mean::default());
    // Each tree's own speed-up and leaf ratio: their least and largest.
    let (mut speedups, mut ratios) = (Spread::default(), Spread::default());
    for r in mine.iter().filter(|r| r.algorithm == algorithm && r.procs == procs && r.epsilon == epsilon) {
        let Some(s) = seq.get(&r.tree) else { continue };
        ts.add(s.time_ns);
        tp.add(r.time_ns);
        ls.add(s.leaves as f64);
        lp.add(r.leaves as f64);
        su.add(r.startup_idle_ns);
        ot.add(r.other_idle_ns);
        speedups.add(s.time_ns / r.time_ns);
        ratios.add(r.leaves as f64 / s.leaves as f64);
    }
    if tp.n == 0 {
        return None;
    }
    let row = |search_time_s, speedup, leaves: &Mean, idle: Option<(f64, f64)>, leaf_ratio| Table1Row {
        b: g.b,
        d: g.d,
        d_prime: g.d_prime,
        procs,
        method: method.to_string(),
        search_time_s,
        speedup,
        leaves_millions: leaves.mean() / 1e6,
        startup_idle_s: idle.map(|i| i.0),
        other_idle_s: idle.map(|i| i.1),
        algorithm: algorithm.to_string(),
        trees: tp.n,
        leaf_ratio,
        speedup_min: None,
        speedup_max: None,
        leaf_ratio_min: None,
        leaf_ratio_max: None,
        eval_noise: g.noise.clone(),
    };
    if algorithm == "seq" {
        return Some(row(ts.mean() / 1e9, 1.0, &ls, None, 1.0));
    }
    let t = tp.mean();
    Some(Table1Row {
        speedup_min: speedups.min,
        speedup_max: speedups.max,
        leaf_ratio_min: ratios.min,
        leaf_ratio_max: ratios.max,
        ..row(t / 1e9, ts.mean() / t, &lp, Some((su.mean() / 1e9, ot.mean() / 1e9)), lp.sum / ls.sum)
    })
}

/// The least and the largest of some numbers (none before the first; a
/// NaN, a tree whose baseline searched no leaf, is left out).
#[derive(Default)]
struct Spread {
    min: Option<f64>,
    max: Option<f64>,
}

impl Spread {
    fn add(&mut self, x: f64) {
        if x.is_nan() {
            return;
        }
        self.min = Some(self.min.map_or(x, |m| m.min(x)));
        self.max = Some(self.max.map_or(x, |m| m.max(x)));
    }
}

/// The paper's name of a Table 1 configuration (the algorithm's own otherwise).
pub fn method1(algorithm: &str) -> &str {
    match algorithm {
        "master-worker" => "with updates",
        "master-worker-noupdate" => "without updates",
        "master-worker-share" => "with share",
        a => a,
    }
}

/// Table 1: per group, the baseline, then each P with each algorithm.
pub fn table1(grid: &Grid, items: &[ItemRow]) -> Vec<Table1Row> {
    let mut out = vec![];
    for g in &grid.groups {
        out.extend(summary_row(items, g, "seq", 1, None, "sequential"));
        for &p in &grid.procs {
            for a in &grid.algorithms {
                out.extend(summary_row(items, g, a, p, None, method1(a)));
            }
        }
    }
    out
}

/// Table 6: per group and P, the plain master-worker and the NegaScout master with ε.
pub fn table6(grid: &Grid, items: &[ItemRow]) -> Vec<Table6Row> {
    let mut out = vec![];
    for g in &grid.groups {
        for &p in &grid.epsilon_procs {
            out.extend(summary_row(items, g, "master-worker", p, None, "without epsilon-windows").map(|r| Table6Row::of(r, None)));
            let e = Some(grid.epsilon);
            out.extend(summary_row(items, g, "master-worker-negascout", p, e, "with epsilon-windows").map(|r| Table6Row::of(r, e)));
        }
    }
    out
}

/// `cost.csv`: the items of one configuration (or of the whole grid: `b`
/// is `all`, the other key columns empty).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostRow {
    /// Branching factor, or `all`.
    pub b: String,
    /// Depth.
    pub d: Option<u32>,
    /// The master's depth.
    pub d_prime: Option<u32>,
    /// The algorithm.
    pub algorithm: Option<String>,
    /// Processes.
    pub procs: Option<u32>,
    /// ε.
    pub epsilon: Option<i64>,
    /// Items.
    pub items: u64,
    /// Their wall time, summed, s.
    #[serde(serialize_with = "two")]
    pub wall_s: f64,
    /// Their user and system time, summed, s.
    #[serde(serialize_with = "two")]
    pub cpu_s: f64,
    /// The same in hours.
    #[serde(serialize_with = "four")]
    pub cpu_hours: f64,
    /// The largest peak resident memory, MB.
    #[serde(serialize_with = "one")]
    pub max_rss_mb: f64,
    /// The trees' evaluation noise (empty: the plain trees, and the grid's row).
    pub eval_noise: Option<String>,
}

/// The cost of the items: per configuration (in order of first
/// appearance), then of the whole grid.
pub fn cost(items: &[ItemRow]) -> Vec<CostRow> {
    #[derive(Default)]
    struct Acc {
        items: u64,
        wall: f64,
        cpu: f64,
        kb: u64,
    }
    impl Acc {
        fn add(&mut self, r: &ItemRow) {
            self.items += 1;
            self.wall += r.wall_s.unwrap_or(0.0);
            self.cpu += r.cpu_s;
            self.kb = self.kb.max(r.max_rss_kb.unwrap_or(0));
        }
        fn row(&self, b: String, k: Option<&ItemRow>) -> CostRow {
            CostRow {
                b,
                d: k.map(|r| r.d),
                d_prime: k.map(|r| r.d_prime),
                algorithm: k.map(|r| r.algorithm.clone()),
                procs: k.map(|r| r.procs),
                epsilon: k.and_then(|r| r.epsilon),
                items: self.items,
                wall_s: self.wall,
                cpu_s: self.cpu,
                cpu_hours: self.cpu / 3600.0,
                max_rss_mb: self.kb as f64 / 1024.0,
                eval_noise: k.and_then(|r| r.eval_noise.clone()),
            }
        }
    }
    let key = |r: &ItemRow| (r.b, r.d, r.d_prime, r.eval_noise.clone(), r.algorithm.clone(), r.procs, r.epsilon);
    let mut order: Vec<(&ItemRow, Acc)> = vec![];
    let mut all = Acc::default();
    for r in items {
        match order.iter_mut().find(|(k, _)| key(k) == key(r)) {
            Some((_, a)) => a.add(r),
            None => {
                let mut a = Acc::default();
                a.add(r);
                order.push((r, a));
            }
        }
        all.add(r);
    }
    let mut out: Vec<CostRow> = order.iter().map(|(k, a)| a.row(k.b.to_string(), Some(k))).collect();
    out.push(all.row("all".into(), None));
    out
}

#[cfg(test)]
mod tests;
