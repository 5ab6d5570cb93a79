//! A tree's sequential baseline kept in a file between runs (`pabsim
//! --machine cluster --baseline-cache FILE`; `docs/formats.md`, "The
//! cluster's baseline cache").
//!
//! Every simulated run first searches its trees with the sequential
//! baseline (`super`): its value is the one every parallel run must return,
//! its time and leaves the speed-up's and leaf ratio's reference, its tasks
//! what the workers' are compared with (Ura, Tsuruoka and Chikayama 2014,
//! §5; [`crate::cluster::reference`]). `make ura2014` runs each (tree,
//! configuration) as a process of its own, so each would search the same
//! baseline again: at the paper's size that is half an item's work. The
//! cache keeps it: the first run of a tree writes it, the next ones read
//! it, and their rows are byte for byte those of a run that searched it.
//!
//! A file holds what decides the baseline — the tree (its spec's identity),
//! the sequential configuration (the machine's costs and the table's size)
//! and the plies its tasks were recorded for — beside what it measured. A
//! file that names another tree or configuration, or that cannot be read,
//! is a miss: the baseline is searched and the file written anew (whole, by
//! a rename). What it cannot see is a change of the search's code: a cache
//! outlives no more than the items beside it (`docs/decisions.md`, "At
//! the paper's size").

use crate::cluster::ClusterConfig;
use crate::cluster::exec::machine::ClusterStats;
use crate::cluster::reference::SeqTasks;
use crate::tree::Tree;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's `format`: changed whenever its fields change.
const FORMAT: &str = "pabsim-cluster-baseline/1";

/// What decides a baseline: equal keys, equal baselines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineKey {
    /// [`FORMAT`].
    format: String,
    /// The tree's spec with its labels cleared, as JSON.
    tree: String,
    /// The sequential configuration, as the crate prints it (`Debug`): its
    /// costs, table size and every other setting.
    config: String,
    /// Its tasks were recorded at the plies below this (`None`: not
    /// recorded; no master-worker was asked).
    below: Option<u32>,
}

impl BaselineKey {
    /// The key of `tree`'s baseline under `seq`, tasks recorded below `below`.
    pub fn new(tree: &Tree, seq: &ClusterConfig, below: Option<u32>) -> BaselineKey {
        // A spec always serializes: its fields are numbers and strings.
        let tree = serde_json::to_string(&tree.spec().identity()).unwrap_or_default();
        BaselineKey { format: FORMAT.to_string(), tree, config: format!("{seq:?}"), below }
    }
}

/// A baseline as its file holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// What decided it.
    pub key: BaselineKey,
    /// What it measured.
    pub stats: ClusterStats,
    /// Its tasks, if recorded.
    pub tasks: Option<SeqTasks>,
}

/// The baseline of `key` in `path`, if the file holds it (a missing,
/// unreadable or other baseline's file is a miss).
pub fn load(path: &Path, key: &BaselineKey) -> Option<Baseline> {
    let text = std::fs::read(path).ok()?;
    let b: Baseline = serde_json::from_slice(&text).ok()?;
    (b.key == *key).then_some(b)
}

/// Writes `b` to `path`, whole or not at all.
pub fn save(path: &Path, b: &Baseline) -> Result<(), String> {
    use std::io::Write;
    let mut out = crate::cli::Output::create(Some(path)).map_err(|e| e.to_string())?;
    serde_json::to_writer(&mut out, b).map_err(|e| format!("{}: {e}", path.display()))?;
    out.write_all(b"\n").map_err(|e| format!("{}: {e}", path.display()))?;
    out.finish().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::ClusterAlgorithm;

    fn tree(seed: u64) -> Tree {
        let line = format!(r#"{{"set":"t","index":1,"seed":{seed},"model":"incremental","b":3,"scale":100,"depth":4}}"#);
        crate::tree::read_trees(crate::cli::Input::from_string("t", &line)).unwrap().remove(0)
    }

    #[test]
    fn round_trips_and_misses_on_any_other_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t01-baseline.json");
        let seq = ClusterConfig::new(ClusterAlgorithm::SEQUENTIAL, 1);
        let key = BaselineKey::new(&tree(7), &seq, Some(3));
        let mut tasks = SeqTasks::new(4, 3);
        tasks.record(1, 3, 42);
        tasks.seal();
        let b = Baseline { key: key.clone(), stats: ClusterStats { value: -5, time_ns: 900, ..ClusterStats::default() }, tasks: Some(tasks) };
        assert_eq!(load(&path, &key), None, "no file: a miss");
        save(&path, &b).unwrap();
        assert_eq!(load(&path, &key), Some(b.clone()));
        // Another tree, configuration or recorded plies: a miss.
        assert_eq!(load(&path, &BaselineKey::new(&tree(8), &seq, Some(3))), None);
        assert_eq!(load(&path, &BaselineKey::new(&tree(7), &seq, Some(2))), None);
        let mut other = seq;
        other.settings.tt_slots *= 2;
        assert_eq!(load(&path, &BaselineKey::new(&tree(7), &other, Some(3))), None);
        // A damaged file: a miss, not an error.
        std::fs::write(&path, "{\"key\":").unwrap();
        assert_eq!(load(&path, &key), None);
    }
}
