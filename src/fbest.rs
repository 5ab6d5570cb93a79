//! Move-ordering statistics: f_best and p_best (thesis §4.3, Tables 4.1–4.5,
//! Figures 4.5–4.6; `docs/model.md` §2.2).
//!
//! At every internal node the search records at most one move: the one that
//! caused a cut-off, else the last one that updated the score, else nothing.
//! `f_best(n)` counts the nodes that recorded move `n`.

use crate::formats::{AnalyticRow, ChessFbestRow, FbestRow, GameFbestRow, GamePerTreeRow, PerTreeRow, RajahxRow, Tree, TreeKey};
use crate::game::{chess, off_scale, othello};
use crate::search::{Counts, Observer, Outcome, Visit};
use crate::tree::{Ordering, analytic_p};
use rayon::prelude::*;

/// Counts f_best over a search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FbestCounter {
    /// `fbest[n - 1]` = nodes that recorded move n.
    pub fbest: Vec<u64>,
    /// Internal nodes that recorded anything.
    pub contributing: u64,
    /// Moves (children) of those nodes, summed: the average branching
    /// factor of a real game is `moves / contributing`.
    pub moves: u64,
}

impl FbestCounter {
    /// A counter for branching factor `b`.
    pub fn new(b: usize) -> FbestCounter {
        FbestCounter { fbest: vec![0; b], contributing: 0, moves: 0 }
    }

    /// Adds another counter's counts.
    pub fn add(&mut self, o: &FbestCounter) {
        if self.fbest.len() < o.fbest.len() {
            self.fbest.resize(o.fbest.len(), 0);
        }
        for (a, b) in self.fbest.iter_mut().zip(&o.fbest) {
            *a += b;
        }
        self.contributing += o.contributing;
        self.moves += o.moves;
    }
}

impl Observer for FbestCounter {
    #[inline(always)]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        if v.leaf {
            return;
        }
        if let Some(n) = o.best_move() {
            let i = n as usize - 1;
            // A game's nodes have no fixed number of moves.
            if i >= self.fbest.len() {
                self.fbest.resize(i + 1, 0);
            }
            self.fbest[i] += 1;
            self.contributing += 1;
            self.moves += v.moves as u64;
        }
    }
}

/// The root's recorded move (1-based, in search order).
#[derive(Clone, Copy, Debug, Default)]
struct RootMove(Option<u32>);

impl Observer for RootMove {
    #[inline(always)]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        if v.ply == 0 {
            self.0 = o.best_move();
        }
    }
}

/// One tree's search with f_best counting.
#[derive(Clone, Debug)]
pub struct TreeFbest {
    /// Node counts.
    pub counts: Counts,
    /// The root's value on the search's scale.
    pub value: i64,
    /// Its f_best counts.
    pub counter: FbestCounter,
    /// For a game position: the root's recorded move, by name.
    pub root_move: Option<String>,
}

/// Searches one tree, counting f_best.
pub fn tree_fbest(t: &Tree) -> TreeFbest {
    let b = match t {
        Tree::Artificial { shape, .. } => shape.b(),
        _ => 0,
    };
    let mut c = FbestCounter::new(b);
    if !t.is_game() {
        let r = t.search(&mut c);
        return TreeFbest { counts: r.counts, value: r.value, counter: c, root_move: None };
    }
    let mut obs = (c, RootMove::default());
    let r = t.search(&mut obs);
    let (c, RootMove(best)) = obs;
    let names = match t {
        Tree::Chess { root, .. } => chess::moves_in_order(root),
        Tree::Othello { root, .. } => othello::moves_in_order(root),
        Tree::Artificial { .. } => vec![],
    };
    let root_move = best.and_then(|n| names.get(n as usize - 1).cloned());
    TreeFbest { counts: r.counts, value: r.value, counter: c, root_move }
}

/// Searches every tree on all cores; results in input order.
pub fn trees_fbest(trees: &[Tree], progress: &crate::progress::Progress) -> Vec<TreeFbest> {
    trees
        .par_iter()
        .map(|t| {
            let r = tree_fbest(t);
            progress.inc(1);
            r
        })
        .collect()
}

/// One row per artificial tree (`--per-tree`); game positions are skipped.
pub fn per_tree(trees: &[Tree], results: &[TreeFbest]) -> Vec<PerTreeRow> {
    trees
        .iter()
        .zip(results)
        .filter_map(|(t, r)| {
            let s = t.artificial_spec()?;
            Some(PerTreeRow {
                tree: s.index,
                seed: s.seed,
                b: s.b,
                wa: s.wa,
                wb: s.wb,
                depth: s.depth,
                nodes: r.counts.nodes,
                leaves: r.counts.leaves,
                internal: r.counts.internal,
                contributing: r.counter.contributing,
                root_value: r.value,
            })
        })
        .collect()
}

/// One row per game position (`--per-tree`); artificial trees are skipped.
pub fn per_position(trees: &[Tree], results: &[TreeFbest]) -> Vec<GamePerTreeRow> {
    trees
        .iter()
        .zip(results)
        .filter_map(|(t, r)| {
            let s = t.game_spec()?;
            Some(GamePerTreeRow {
                game: s.game,
                set: s.set.clone(),
                index: s.index,
                id: s.id.clone(),
                depth: s.depth,
                nodes: r.counts.nodes,
                leaves: r.counts.leaves,
                internal: r.counts.internal,
                contributing: r.counter.contributing,
                moves: r.counter.moves,
                root_value: off_scale(r.value),
                best_move: r.root_move.clone().unwrap_or_default(),
            })
        })
        .collect()
}

/// Sums per-tree counters by group, groups in order of first appearance.
fn groups(trees: &[Tree], results: &[TreeFbest]) -> Vec<(TreeKey, u32, FbestCounter)> {
    let mut groups: Vec<(TreeKey, u32, FbestCounter)> = vec![];
    for (t, r) in trees.iter().zip(results) {
        let key = t.key();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => {
                g.1 += 1;
                g.2.add(&r.counter);
            }
            None => groups.push((key, 1, r.counter.clone())),
        }
    }
    groups
}

fn pbest(f: u64, c: &FbestCounter) -> f64 {
    if c.contributing == 0 { 0.0 } else { f as f64 / c.contributing as f64 }
}

/// Sums per-tree results into f_best rows, one group per (model, ordering,
/// depth) in order of first appearance, rows n = 1..=b; game positions are skipped.
pub fn summarize(trees: &[Tree], results: &[TreeFbest]) -> Vec<FbestRow> {
    let mut rows = vec![];
    for (key, trees, c) in groups(trees, results) {
        let TreeKey::Artificial { ordering: o, depth, .. } = key else { continue };
        for (i, &f) in c.fbest.iter().enumerate() {
            rows.push(FbestRow { b: o.b, wa: o.wa, wb: o.wb, depth, trees, n: i as u32 + 1, fbest: f, pbest: pbest(f, &c) });
        }
    }
    rows
}

/// f_best rows of game positions, one group per (game, depth), rows n = 1
/// up to the largest move position recorded; artificial trees are skipped.
pub fn summarize_games(trees: &[Tree], results: &[TreeFbest]) -> Vec<GameFbestRow> {
    let mut rows = vec![];
    for (key, trees, c) in groups(trees, results) {
        let TreeKey::Game { game, depth } = key else { continue };
        let b = if c.contributing == 0 { 0.0 } else { c.moves as f64 / c.contributing as f64 };
        for (i, &f) in c.fbest.iter().enumerate() {
            rows.push(GameFbestRow { game, depth, trees, b, n: i as u32 + 1, fbest: f, pbest: pbest(f, &c) });
        }
    }
    rows
}

/// Analytic p_n and running totals for each ordering.
pub fn analytic(orderings: &[Ordering]) -> Vec<AnalyticRow> {
    let mut rows = vec![];
    for &o in orderings {
        let mut cum = 0.0;
        for n in 1..=o.b {
            let p = analytic_p(o, n);
            cum += p;
            rows.push(AnalyticRow { b: o.b, wa: o.wa, wb: o.wb, n, p_n: p, cumulative: cum });
        }
    }
    rows
}

/// Why the chess program's statistics cannot be summarised.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChessError {
    /// The file has no rows.
    #[error("the chess statistics file has no rows")]
    NoRows,
    /// No position has a contributing node.
    #[error("the chess statistics have no contributing nodes")]
    NoNodes,
}

/// The chess program's totals in f_best columns (see [`ChessFbestRow`]).
pub fn chess(rows: &[RajahxRow]) -> Result<Vec<ChessFbestRow>, ChessError> {
    if rows.is_empty() {
        return Err(ChessError::NoRows);
    }
    let nodes: u64 = rows.iter().map(|r| r.nodes_valid).sum();
    let moves: u64 = rows.iter().map(|r| r.pseudo_legal_moves).sum();
    if nodes == 0 {
        return Err(ChessError::NoNodes);
    }
    let bf = moves as f64 / nodes as f64;
    Ok((0..10)
        .map(|i| {
            let f: u64 = rows.iter().map(|r| r.fbest()[i]).sum();
            ChessFbestRow {
                b: format!("{bf:.2}"),
                wa: String::new(),
                wb: String::new(),
                depth: String::new(),
                trees: rows.len() as u32,
                n: i as u32 + 1,
                fbest: f,
                pbest: f as f64 / nodes as f64,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Outcome;

    #[test]
    fn records_cutoff_else_last_update_else_nothing() {
        let mut c = FbestCounter::new(4);
        let moves_before = c.moves;
        let v = Visit { ply: 0, index: 0, max: true, alpha: 0, beta: 10, pv: false, leaf: false, moves: 4 };
        c.leave(&v, &Outcome { value: 10, cutoff: Some(3), last_update: Some(2), searched: 3 });
        c.leave(&v, &Outcome { value: 5, cutoff: None, last_update: Some(4), searched: 4 });
        c.leave(&v, &Outcome { value: 0, cutoff: None, last_update: None, searched: 4 });
        c.leave(&Visit { leaf: true, ..v }, &Outcome { value: 3, cutoff: None, last_update: None, searched: 0 });
        assert_eq!(c.fbest, vec![0, 0, 1, 1]);
        assert_eq!(c.contributing, 2);
        assert_eq!(c.moves - moves_before, 8);
    }

    #[test]
    fn chess_statistics_need_rows_and_nodes() {
        assert_eq!(chess(&[]), Err(ChessError::NoRows));
        let zero = RajahxRow {
            position: 1,
            nodes_valid: 0,
            pseudo_legal_moves: 0,
            fbest_1: 0,
            fbest_2: 0,
            fbest_3: 0,
            fbest_4: 0,
            fbest_5: 0,
            fbest_6: 0,
            fbest_7: 0,
            fbest_8: 0,
            fbest_9: 0,
            fbest_10: 0,
        };
        assert_eq!(chess(&[zero]), Err(ChessError::NoNodes));
    }
}
