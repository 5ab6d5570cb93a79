//! Why a parallel search visits more leaves: Ura, Tsuruoka and Chikayama's
//! (2014, §5.2) supplementary experiment. The sequential search is made to
//! behave like the master-worker's workers in one respect at a time
//! ([`super::search::Tasks`]), and its leaves are counted against a
//! baseline that has the master's table (plies ≤ d′) and one deep table
//! fully shared by all tasks, with unchanged windows:
//!
//! - *tables not shared*: a task (a node at ply d′) uses only the deep
//!   entries it stored itself (tasks for different positions go to
//!   different workers);
//! - *partial share*: and other tasks' entries at most the sharing depth
//!   below d′ (§3.2);
//! - *full windows*: every task searched with the full window, the
//!   workers' worst case.
//!
//! `pabsim --machine cluster --leaf-factors` writes one [`FactorRow`] per
//! input; `make distributed` runs it with d − d′ fixed and d growing, as
//! the paper's figure does.

use super::search::{Searcher, Sharing, Tasks};
use crate::cluster::algorithms::master_worker::default_share_depth;
use crate::formats::FactorRow;
use crate::game::TreeSource;
use crate::tree::{SourceVisitor, Tree};
use crate::value::Window;
use rayon::prelude::*;

/// Leaves of one tree under each simulation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Leaves {
    /// The baseline: the master's table and a fully shared deep table.
    pub baseline: u64,
    /// Deep tables not shared between tasks.
    pub unshared: u64,
    /// Shared only within `share` plies below d′.
    pub partial: u64,
    /// Tasks searched with the full window.
    pub full_window: u64,
}

/// Why a simulation's root value differs from the plain search's (a defect).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tree {tree}: the {what} simulation's root value {got} differs from the search's {want} (a defect: please report it)")]
pub struct Inexact {
    /// 1-based tree index.
    pub tree: usize,
    /// Which simulation.
    pub what: &'static str,
    /// Its value.
    pub got: i64,
    /// The plain search's.
    pub want: i64,
}

struct Count {
    master_depth: u32,
    share: u32,
    slots: usize,
}

impl SourceVisitor for Count {
    type Output = Result<Leaves, (&'static str, i64, i64)>;
    fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Self::Output {
        let want = Searcher::<S>::new(self.slots).search(src, root, true, depth, 0, Window::ROOT);
        let run = |what: &'static str, sharing: Sharing, full_window: bool| {
            let mut s = Searcher::<S>::new(self.slots);
            s.simulate_tasks(Tasks { ply: self.master_depth, sharing, full_window });
            let v = s.search(src, root, true, depth, 0, Window::ROOT);
            if v == want { Ok(s.counts.leaves) } else { Err((what, v, want)) }
        };
        Ok(Leaves {
            baseline: run("baseline", Sharing::All, false)?,
            unshared: run("tables-not-shared", Sharing::Own, false)?,
            partial: run("partial-share", Sharing::Near(self.share), false)?,
            full_window: run("full-window", Sharing::All, true)?,
        })
    }
}

/// The memory the counts need with `at_once` trees counted together, each
/// by one simulation at a time with `slots` entries a table: the deep
/// table (with the tags of the tasks that stored its entries) and the
/// master's.
pub fn memory(slots: usize, at_once: usize) -> u64 {
    let tables = crate::tt::ProcessTable::bytes(slots, true) + crate::tt::ProcessTable::bytes(slots, false);
    tables.saturating_mul(at_once.max(1) as u64)
}

/// The default sharing depth of a tree ([`default_share_depth`]).
struct ShareDepth;

impl SourceVisitor for ShareDepth {
    type Output = u32;
    fn visit<S: TreeSource>(self, src: &S, root: &S::Node, _: u32) -> u32 {
        default_share_depth(src, root)
    }
}

/// Counts every tree's leaves (in parallel over the trees) and sums them
/// into one row: d′ = `master_depth` (at most each tree's depth), sharing
/// depth `share` (`None`: `master-worker-share`'s default for the first
/// tree, the row's one value), `slots` entries per table.
pub fn leaf_factors(trees: &[Tree], master_depth: u32, share: Option<u32>, slots: usize) -> Result<FactorRow, Inexact> {
    let share = match (share, trees.first()) {
        (Some(k), _) => k,
        (None, Some(t)) => t.visit(ShareDepth),
        (None, None) => 1,
    };
    let per: Vec<Leaves> = trees
        .par_iter()
        .enumerate()
        .map(|(i, t)| {
            t.visit(Count { master_depth: master_depth.min(t.depth()), share, slots }).map_err(|(what, got, want)| Inexact { tree: i + 1, what, got, want })
        })
        .collect::<Result<_, _>>()?;
    let key = trees.first().map(|t| t.key());
    let sum = |f: fn(&Leaves) -> u64| per.iter().map(f).sum::<u64>();
    Ok(FactorRow {
        model: key.map_or_else(String::new, |k| k.family().to_string()),
        b: key.and_then(|k| k.b()),
        depth: key.map_or(0, |k| k.depth()),
        master_depth,
        share_depth: share,
        trees: trees.len() as u32,
        leaves: sum(|l| l.baseline),
        leaves_unshared: sum(|l| l.unshared),
        leaves_partial: sum(|l| l.partial),
        leaves_full_window: sum(|l| l.full_window),
    })
}
