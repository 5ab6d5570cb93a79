//! Move-ordering statistics: f_best and p_best (thesis §4.3, Tables 4.1–4.5,
//! Figures 4.5–4.6; `docs/model.md` §2.2).
//!
//! At every internal node the search records at most one move: the one that
//! caused a cut-off, else the last one that updated the score, else nothing.
//! `f_best(n)` counts the nodes that recorded move `n`.
//!
//! [`accuracy`]: the ordering accuracy of Ura et al. (2014), the share of
//! nodes whose best child stays best two plies deeper.

pub mod accuracy;

use crate::formats::{AnalyticRow, ChessFbestRow, FbestRow, GameFbestRow, GamePerTreeRow, IncrementalFbestRow, IncrementalPerTreeRow, PerTreeRow, RajahxRow};
use crate::search::{NodeCounts, Observer, Outcome, Visit};
use crate::tree::artificial::{Ordering, analytic_p};
use crate::tree::{Tree, TreeKey};
use crate::value::off_scale;
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
    pub counts: NodeCounts,
    /// The root's value on the search's scale.
    pub value: i64,
    /// Its f_best counts.
    pub counter: FbestCounter,
    /// For a game position: the root's recorded move, by name.
    pub root_move: Option<String>,
}

/// Searches one tree, counting f_best.
pub fn tree_fbest(t: &Tree) -> TreeFbest {
    let mut c = FbestCounter::new(t.fbest_width());
    if !t.is_game() {
        let r = t.search(&mut c);
        return TreeFbest { counts: r.counts, value: r.value, counter: c, root_move: None };
    }
    let mut obs = (c, RootMove::default());
    let r = t.search(&mut obs);
    let (c, RootMove(best)) = obs;
    let names = t.move_names();
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

/// The rows `row` makes of the trees it takes (`None`: another family's).
fn rows_of<R>(trees: &[Tree], results: &[TreeFbest], row: impl Fn(&Tree, &TreeFbest) -> Option<R>) -> Vec<R> {
    trees.iter().zip(results).filter_map(|(t, r)| row(t, r)).collect()
}

/// A per-tree row, `per_tree_row!(r, Row { its own columns })`, with its
/// `..search_counts` columns filled from the result `r`.
macro_rules! per_tree_row {
    ($r:expr, $row:ident { $($f:ident: $v:expr),* $(,)? }) => {
        $row {
            $($f: $v,)*
            nodes: $r.counts.nodes,
            leaves: $r.counts.leaves,
            internal: $r.counts.internal,
            contributing: $r.counter.contributing,
        }
    };
}

/// One row per artificial tree (`--per-tree`); other trees are skipped.
pub fn per_tree(trees: &[Tree], results: &[TreeFbest]) -> Vec<PerTreeRow> {
    rows_of(trees, results, |t, r| {
        let s = t.artificial_spec()?;
        Some(per_tree_row!(r, PerTreeRow { tree: s.index, seed: s.seed, b: s.b, wa: s.wa, wb: s.wb, depth: s.depth, root_value: r.value }))
    })
}

/// One row per incremental tree (`--per-tree`); other trees are skipped.
pub fn per_incremental_tree(trees: &[Tree], results: &[TreeFbest]) -> Vec<IncrementalPerTreeRow> {
    rows_of(trees, results, |t, r| {
        let s = t.incremental_spec()?;
        Some(per_tree_row!(r, IncrementalPerTreeRow { tree: s.index, seed: s.seed, b: s.b, scale: s.scale, depth: s.depth, root_value: r.value }))
    })
}

/// One row per game position (`--per-tree`); other trees are skipped.
pub fn per_position(trees: &[Tree], results: &[TreeFbest]) -> Vec<GamePerTreeRow> {
    rows_of(trees, results, |t, r| {
        let s = t.game_spec()?;
        Some(per_tree_row!(
            r,
            GamePerTreeRow {
                game: t.key().family(),
                set: s.set.clone(),
                index: s.index,
                id: s.id.clone(),
                depth: s.depth,
                moves: r.counter.moves,
                root_value: off_scale(r.value),
                best_move: r.root_move.clone().unwrap_or_default(),
            }
        ))
    })
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

/// f_best rows of incremental trees, one group per (b, scale, depth), rows
/// n = 1..=b; other trees are skipped.
pub fn summarize_incremental(trees: &[Tree], results: &[TreeFbest]) -> Vec<IncrementalFbestRow> {
    let mut rows = vec![];
    for (key, trees, c) in groups(trees, results) {
        let TreeKey::Incremental { b, scale, depth, .. } = key else { continue };
        for (i, &f) in c.fbest.iter().enumerate() {
            rows.push(IncrementalFbestRow { b, scale, depth, trees, n: i as u32 + 1, fbest: f, pbest: pbest(f, &c) });
        }
    }
    rows
}

/// f_best rows of game positions, one group per (game, depth), rows n = 1
/// up to the largest move position recorded; artificial trees are skipped.
pub fn summarize_games(trees: &[Tree], results: &[TreeFbest]) -> Vec<GameFbestRow> {
    let mut rows = vec![];
    for (key, trees, c) in groups(trees, results) {
        let TreeKey::Game { depth, .. } = key else { continue };
        let game = key.family();
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

/// The exponential ordering `(b, w_a, w_b)` whose analytic p_n (equations
/// 4.1–4.2) is closest to measured p_best values `pbest[n - 1]`, n = 1..:
/// `b` is given (the thesis took b = 32 from its chess program's average
/// branching factor of 32.06; we round our own average), `w_a` and `w_b` run
/// over every integer 0..=100, and "closest" is the least sum of squared
/// differences over the positions given (the first pair of weights found on
/// a tie, `w_a` first). Returns the ordering and the sum.
pub fn fit_ordering(pbest: &[f64], b: u32) -> Result<(Ordering, f64), FitError> {
    if pbest.is_empty() {
        return Err(FitError::NoPoints);
    }
    if (b as usize) < pbest.len() || b < 2 {
        return Err(FitError::Branching { b, points: pbest.len() });
    }
    let mut best: Option<(Ordering, f64)> = None;
    for wa in 0..=100 {
        for wb in 0..=100 {
            let o = Ordering { b, wa, wb };
            let sse: f64 = pbest.iter().enumerate().map(|(i, p)| (p - analytic_p(o, i as u32 + 1)).powi(2)).sum();
            if best.is_none_or(|(_, s)| sse < s) {
                best = Some((o, sse));
            }
        }
    }
    best.ok_or(FitError::NoPoints)
}

/// How an ordering is fitted to a measured p_best curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FitMethod {
    /// Against the ordering's analytic p_n (equations 4.1–4.2).
    Analytic,
    /// Against the p_best of artificial trees of the ordering searched as
    /// the measured trees were: the first `trees` roots of tg_1 at `depth`.
    Searched {
        /// Trees.
        trees: usize,
        /// Search depth.
        depth: u32,
    },
}

/// p_best(1..=n) of the first `trees` tg_1 trees of ordering `o`, searched to `depth`.
fn searched_pbest(o: Ordering, trees: &[u32], depth: u32, n: usize) -> Vec<f64> {
    let shape = crate::tree::artificial::Shape::new(crate::tree::artificial::Model::Exponential, o).expect("a checked ordering");
    let mut c = FbestCounter::new(o.b as usize);
    for &seed in trees {
        let root = crate::tree::artificial::Node { seed, pscore: crate::value::ROOT_PSCORE as u32 };
        crate::search::search(&shape, &root, depth, &mut c);
    }
    (0..n).map(|i| pbest(c.fbest.get(i).copied().unwrap_or(0), &c)).collect()
}

/// [`fit_ordering`] by `method`. Searched: a grid of w_a, w_b in steps of
/// 5, then every integer within 4 of the best of the grid; the orderings
/// are searched in parallel.
pub fn fit(pbest: &[f64], b: u32, method: FitMethod) -> Result<(Ordering, f64), FitError> {
    let FitMethod::Searched { trees, depth } = method else { return fit_ordering(pbest, b) };
    if pbest.is_empty() {
        return Err(FitError::NoPoints);
    }
    if (b as usize) < pbest.len() || b < 2 {
        return Err(FitError::Branching { b, points: pbest.len() });
    }
    let seeds = crate::seeds::load("tg1").map_err(|e| FitError::Seeds(e.to_string()))?;
    let roots = &seeds.seeds[..trees.min(seeds.seeds.len())];
    let sse = |o: Ordering| -> f64 { searched_pbest(o, roots, depth, pbest.len()).iter().zip(pbest).map(|(a, p)| (a - p).powi(2)).sum() };
    let best_of = |cands: Vec<Ordering>| -> Option<(Ordering, f64)> {
        let scored: Vec<(Ordering, f64)> = cands.into_par_iter().map(|o| (o, sse(o))).collect();
        // In grid order, the first of equals: the same answer for any thread count.
        scored.into_iter().fold(None, |acc: Option<(Ordering, f64)>, x| if acc.is_none_or(|a| x.1 < a.1) { Some(x) } else { acc })
    };
    let grid: Vec<Ordering> = (0..=20).flat_map(|a| (0..=20).map(move |w| Ordering { b, wa: a * 5, wb: w * 5 })).collect();
    let (g, _) = best_of(grid).ok_or(FitError::NoPoints)?;
    let near = |x: u32| x.saturating_sub(4)..=(x + 4).min(100);
    let local: Vec<Ordering> = near(g.wa).flat_map(|a| near(g.wb).map(move |w| Ordering { b, wa: a, wb: w })).collect();
    best_of(local).ok_or(FitError::NoPoints)
}

/// Why no ordering could be fitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    /// No p_best values.
    #[error("no p_best values to fit")]
    NoPoints,
    /// The seed set of the searched fit.
    #[error("{0}")]
    Seeds(String),
    /// A branching factor below the number of positions fitted.
    #[error("branching factor {b} is below 2 or the {points} positions fitted")]
    Branching {
        /// b.
        b: u32,
        /// Positions.
        points: usize,
    },
}

/// Why the chess program's statistics cannot be summarised.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChessError {
    /// The file (named) has no rows.
    #[error("the chess statistics file {0} has no rows (give one row per position under its header)")]
    NoRows(String),
    /// No position of the file (named) has a contributing node.
    #[error("the chess statistics in {0} have no contributing nodes (every nodes_valid is 0)")]
    NoNodes(String),
    /// A position's row twice (line numbers count the header as line 1).
    #[error("position {position} repeats line {first} ({name}:{line}): give each position once")]
    Repeated {
        /// The file.
        name: String,
        /// The position.
        position: u32,
        /// Line of the repeat.
        line: usize,
        /// Line of the first.
        first: usize,
    },
    /// More nodes recorded a best move among the first ten than contributed.
    #[error("position {position}: f_best(1..10) add up to {best}, more than its {nodes} contributing nodes ({name}:{line})")]
    MoreBestThanNodes {
        /// The file.
        name: String,
        /// The position.
        position: u32,
        /// Line of the row.
        line: usize,
        /// The sum of f_best(1..10).
        best: u128,
        /// nodes_valid.
        nodes: u64,
    },
    /// A total that does not fit 64 bits.
    #[error("the {what} summed over the positions do not fit a 64-bit count ({name})")]
    Overflow {
        /// The file.
        name: String,
        /// The column.
        what: &'static str,
    },
}

/// The chess program's totals in f_best columns (see [`ChessFbestRow`]).
/// `name` is the file's, for messages.
pub fn chess(rows: &[RajahxRow], name: &str) -> Result<Vec<ChessFbestRow>, ChessError> {
    if rows.is_empty() {
        return Err(ChessError::NoRows(name.into()));
    }
    let mut first_line = std::collections::HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        // Row i is on line i + 2, after the header.
        let line = i + 2;
        if let Some(&first) = first_line.get(&r.position) {
            return Err(ChessError::Repeated { name: name.into(), position: r.position, line, first });
        }
        first_line.insert(r.position, line);
        // A node records at most one best move: f_best(1..10) <= its nodes.
        let best: u128 = r.fbest().iter().map(|&f| f as u128).sum();
        if best > r.nodes_valid as u128 {
            return Err(ChessError::MoreBestThanNodes { name: name.into(), position: r.position, line, best, nodes: r.nodes_valid });
        }
    }
    let total = |what: &'static str, f: &dyn Fn(&RajahxRow) -> u64| {
        rows.iter().try_fold(0u64, |a, r| a.checked_add(f(r))).ok_or_else(|| ChessError::Overflow { name: name.into(), what })
    };
    let nodes = total("contributing nodes", &|r| r.nodes_valid)?;
    let moves = total("pseudo-legal moves", &|r| r.pseudo_legal_moves)?;
    if nodes == 0 {
        return Err(ChessError::NoNodes(name.into()));
    }
    let bf = moves as f64 / nodes as f64;
    let mut out = vec![];
    for i in 0..10 {
        // At most `nodes` (checked per row above), so this cannot wrap.
        let f = total("f_best counts", &|r| r.fbest()[i])?;
        out.push(ChessFbestRow {
            b: format!("{bf:.2}"),
            wa: String::new(),
            wb: String::new(),
            depth: String::new(),
            trees: rows.len() as u32,
            n: i as u32 + 1,
            fbest: f,
            pbest: f as f64 / nodes as f64,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Outcome;
    use crate::value::Window;

    #[test]
    fn records_cutoff_else_last_update_else_nothing() {
        let mut c = FbestCounter::new(4);
        let moves_before = c.moves;
        let v = Visit { ply: 0, index: 0, max: true, window: Window { alpha: 0, beta: 10 }, pv: false, leaf: false, moves: 4 };
        c.leave(&v, &Outcome { value: 10, cutoff: Some(3), last_update: Some(2), searched: 3 });
        c.leave(&v, &Outcome { value: 5, cutoff: None, last_update: Some(4), searched: 4 });
        c.leave(&v, &Outcome { value: 0, cutoff: None, last_update: None, searched: 4 });
        c.leave(&Visit { leaf: true, ..v }, &Outcome { value: 3, cutoff: None, last_update: None, searched: 0 });
        assert_eq!(c.fbest, vec![0, 0, 1, 1]);
        assert_eq!(c.contributing, 2);
        assert_eq!(c.moves - moves_before, 8);
    }

    #[test]
    fn the_fit_recovers_an_exact_ordering() {
        let o = Ordering { b: 32, wa: 79, wb: 5 };
        let p: Vec<f64> = (1..=10).map(|n| analytic_p(o, n)).collect();
        let (f, sse) = fit_ordering(&p, 32).unwrap();
        assert_eq!(f, o);
        assert!(sse < 1e-20);
        assert_eq!(fit_ordering(&[], 32), Err(FitError::NoPoints));
        assert!(fit_ordering(&p, 5).is_err());
    }

    #[test]
    fn chess_statistics_need_rows_and_nodes() {
        assert_eq!(chess(&[], "r"), Err(ChessError::NoRows("r".into())));
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
        assert_eq!(chess(&[zero], "r"), Err(ChessError::NoNodes("r".into())));
    }
}
