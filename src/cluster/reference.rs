//! The sequential search's tasks (Ura, Tsuruoka and Chikayama 2014, §5;
//! `docs/model.md` §9.4): which nodes at the plies of a master-worker's
//! tasks the sequential baseline searched to full depth. The baseline's
//! run records them ([`Reference::Record`]); a parallel run's workers
//! compare each task's node with them ([`Reference::Compare`]), and the
//! nodes they searched on tasks the baseline never searched are the rows'
//! `outside_nodes`: the part of the search overhead that is speculation
//! on subtrees the sequential search cut off, as against the re-searches
//! of subtrees it searched too (aborted and dropped work, narrower
//! windows).
//!
//! A node is named by its table key at its ply ([`TreeSource::tt_key`]),
//! so a transposition counts as the same task. The keys of a ply are kept
//! sorted (8 bytes each): one for each node the baseline searched to full
//! depth at the plies down to the deepest master depth asked, a small
//! share of its nodes (the plies below hold the rest).
//!
//! [`TreeSource::tt_key`]: crate::game::TreeSource::tt_key

use std::sync::{Arc, Mutex};

/// The nodes the sequential search searched to full depth at each ply
/// from 1 to [`SeqTasks::plies`] − 1, by table key.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeqTasks {
    /// The search's depth: a node at ply k is searched to full depth when
    /// its remaining depth is `depth − k`.
    depth: u32,
    /// The keys of each ply (index 0, the root's, empty), sorted once the
    /// search is over ([`SeqTasks::seal`]).
    keys: Vec<Vec<u64>>,
}

impl SeqTasks {
    /// An empty record of a search to `depth`, for the plies below `below`.
    pub fn new(depth: u32, below: u32) -> SeqTasks {
        SeqTasks { depth, keys: vec![vec![]; below as usize] }
    }

    /// The plies recorded are those below this.
    pub fn plies(&self) -> u32 {
        self.keys.len() as u32
    }

    /// Records the node of key `key` at `ply` entered with remaining depth
    /// `depth`, if that is its full depth and its ply is recorded.
    #[inline]
    pub fn record(&mut self, ply: u32, depth: u32, key: u64) {
        if ply > 0
            && depth + ply == self.depth
            && let Some(k) = self.keys.get_mut(ply as usize)
        {
            k.push(key);
        }
    }

    /// Sorts each ply's keys, once the search is over, so that
    /// [`SeqTasks::contains`] can look them up.
    pub fn seal(&mut self) {
        for k in &mut self.keys {
            k.sort_unstable();
            k.dedup();
            k.shrink_to_fit();
        }
    }

    /// Whether the search searched the node of key `key` at `ply` to full
    /// depth; `None` if that ply was not recorded.
    pub fn contains(&self, ply: u32, key: u64) -> Option<bool> {
        let k = self.keys.get(ply as usize).filter(|_| ply > 0)?;
        Some(k.binary_search(&key).is_ok())
    }

    /// Nodes recorded at `ply`.
    pub fn at(&self, ply: u32) -> usize {
        self.keys.get(ply as usize).map_or(0, Vec::len)
    }
}

/// What a run is measured against besides the baseline's value.
#[derive(Clone, Debug, Default)]
pub enum Reference {
    /// Nothing (a run on its own, MPI ranks).
    #[default]
    None,
    /// The sequential baseline's run records its tasks of the plies below
    /// `below` into `into` ([`SeqTasks`]).
    Record {
        /// The plies recorded are those below this.
        below: u32,
        /// Where the record is left when the search is over.
        into: Arc<Mutex<Option<SeqTasks>>>,
    },
    /// A parallel run's workers compare their tasks with the baseline's.
    Compare(Arc<SeqTasks>),
}

impl Reference {
    /// The baseline's tasks to compare with, if any.
    pub fn tasks(&self) -> Option<Arc<SeqTasks>> {
        match self {
            Reference::Compare(t) => Some(t.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_only_full_depth_nodes_of_recorded_plies() {
        let mut t = SeqTasks::new(6, 3);
        t.record(0, 6, 1); // the root: never a task
        t.record(1, 5, 10);
        t.record(1, 3, 11); // a shallower (deepening) search of ply 1
        t.record(2, 4, 30);
        t.record(2, 4, 20);
        t.record(2, 4, 30); // a transposition
        t.record(3, 3, 40); // ply 3 is not recorded
        t.seal();
        assert_eq!((t.plies(), t.at(1), t.at(2), t.at(3)), (3, 1, 2, 0));
        assert_eq!([t.contains(1, 10), t.contains(1, 11), t.contains(2, 20), t.contains(2, 30)], [Some(true), Some(false), Some(true), Some(true)]);
        assert_eq!((t.contains(0, 1), t.contains(3, 40)), (None, None));
    }
}
