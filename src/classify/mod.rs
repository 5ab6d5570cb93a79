//! Node classification: schemes A (YBWC's types), B (DTS's types) and C (the
//! network), scored over a sequential alpha-beta search (thesis §5.5, Tables
//! 5.2–5.4; `docs/model.md` §4).
//!
//! Each scheme is an [`Observer`] that gives every internal node a type when
//! the search enters it, and scores the prediction (CUT or ALL) against the
//! node's outcome when it returns. One search per tree serves every scheme
//! and parameter value: scheme B runs one observer per `n`; scheme C types a
//! node once ([`nn_node`]: the root's averaged type on the PV path, the
//! network's output elsewhere) and counts it into a histogram over the
//! smallest `m` that makes it N-CUT, from which every `m` is read off.
//!
//! Scored nodes are the internal nodes off the PV path; a node "cut off" if
//! it returned on a cut-off, at its last move included.
//!
//! The typing rules themselves (`node_types`: [`NodeType`], [`DtsNode`],
//! [`nn_node`]) are shared with the simulator's split schemes.

use crate::formats::{ClassifyRow, GameClassifyRow, IncrementalClassifyRow};
use crate::nn::{Network, is_cut};
use crate::search::{Observer, Outcome, Visit};
use crate::tree::artificial::Ordering;
use crate::tree::{Tree, TreeKey};
use rayon::prelude::*;

mod node_types;
pub use node_types::{DtsNode, NnNode, NodeType, Predictor, nn_node};

/// Why a classification could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClassifyError {
    /// No scheme was asked for.
    #[error("no scheme to score (use --scheme a, b or c)")]
    NoScheme,
    /// Scheme B with n = 0.
    #[error("scheme B's n must be at least 1")]
    ZeroN,
    /// Scheme C without a network.
    #[error("scheme C needs a network (--weights FILE)")]
    NoNetwork,
    /// The one network given was trained for other trees.
    #[error("{file}: {why}")]
    WrongNetwork {
        /// The weights file.
        file: String,
        /// Why it does not fit the trees.
        why: String,
    },
    /// None of several networks fits a group of trees.
    #[error("no network for {trees} trees among {have}; give its weights file (or one file with --force)")]
    NoMatchingNetwork {
        /// The trees' model and ordering.
        trees: String,
        /// The networks given and what they were trained for.
        have: String,
    },
}

type Result<T> = std::result::Result<T, ClassifyError>;

/// A scheme's predictions, counted by outcome: the four cells of its
/// confusion table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PredictionCounts {
    /// Predicted CUT, cut off.
    pub true_cut: u64,
    /// Predicted CUT, searched all moves.
    pub false_cut: u64,
    /// Predicted ALL, searched all moves.
    pub true_all: u64,
    /// Predicted ALL, cut off.
    pub false_all: u64,
}

impl PredictionCounts {
    /// Scores one node.
    #[inline(always)]
    pub fn score(&mut self, predicted_cut: bool, cut: bool) {
        match (predicted_cut, cut) {
            (true, true) => self.true_cut += 1,
            (true, false) => self.false_cut += 1,
            (false, false) => self.true_all += 1,
            (false, true) => self.false_all += 1,
        }
    }
    /// False_CUT + False_ALL.
    pub fn error(&self) -> u64 {
        self.false_cut + self.false_all
    }
    /// Scored nodes.
    pub fn scored(&self) -> u64 {
        self.true_cut + self.false_cut + self.true_all + self.false_all
    }
    /// Adds another's counts.
    pub fn add(&mut self, o: &PredictionCounts) {
        self.true_cut += o.true_cut;
        self.false_cut += o.false_cut;
        self.true_all += o.true_all;
        self.false_all += o.false_all;
    }
}

/// Records `(ply, index, initial type)` of every internal node in the order
/// entered, for tests and inspection; off by default.
pub type Trace = Option<Vec<(u32, u32, NodeType)>>;

/// Scheme A: strong YBWC types ([`NodeType::ybwc_child`]).
#[derive(Clone, Debug, Default)]
pub struct YbwcTypes {
    stack: Vec<NodeType>,
    /// The counts so far.
    pub counts: PredictionCounts,
    /// Optional trace of the types given.
    pub trace: Trace,
}

impl YbwcTypes {
    /// A scheme-A classifier for a search of `depth`.
    pub fn new(depth: u32) -> YbwcTypes {
        YbwcTypes { stack: vec![NodeType::Pv; depth as usize + 1], counts: PredictionCounts::default(), trace: None }
    }
}

impl Observer for YbwcTypes {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        let p = v.ply as usize;
        let ty = if p == 0 { NodeType::Pv } else { self.stack[p - 1].ybwc_child(v.index) };
        self.stack[p] = ty;
        if let Some(t) = &mut self.trace {
            t.push((v.ply, v.index, ty));
        }
    }
    #[inline]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        if v.leaf || v.pv {
            return;
        }
        self.counts.score(self.stack[v.ply as usize] == NodeType::Cut, o.cutoff.is_some());
    }
}

/// A node of scheme B on the search's path: its typing state and the moves
/// of it that have finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BNode {
    /// The typing state.
    pub dts: DtsNode,
    /// Moves finished.
    pub done: u32,
}

const ROOT_B: BNode = BNode { dts: DtsNode::ROOT, done: 0 };

/// Scheme B: DTS types with parameter `n` ([`DtsNode`]).
#[derive(Clone, Debug)]
pub struct DtsTypes {
    /// A D-CUT node turns D-ALL once this many moves have finished without a
    /// cut-off.
    pub n: u32,
    stack: Vec<BNode>,
    /// The counts so far.
    pub counts: PredictionCounts,
    /// Optional trace of the types given.
    pub trace: Trace,
}

impl DtsTypes {
    /// A scheme-B classifier with parameter `n` for a search of `depth`.
    pub fn new(n: u32, depth: u32) -> DtsTypes {
        DtsTypes { n, stack: vec![ROOT_B; depth as usize + 1], counts: PredictionCounts::default(), trace: None }
    }

    /// The state of the node at `ply` on the current path.
    pub fn state(&self, ply: u32) -> BNode {
        self.stack[ply as usize]
    }
}

impl Observer for DtsTypes {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        let p = v.ply as usize;
        let node = if p == 0 { ROOT_B } else { BNode { dts: self.stack[p - 1].dts.child(v.max, v.window), done: 0 } };
        self.stack[p] = node;
        if let Some(t) = &mut self.trace {
            t.push((v.ply, v.index, node.dts.ty));
        }
    }
    #[inline]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        let p = v.ply as usize;
        if !v.leaf && !v.pv {
            self.counts.score(self.stack[p].dts.ty == NodeType::Cut, o.cutoff.is_some());
        }
        // The parent counts a finished move and applies the override. (If
        // this child caused a cut-off there, the parent creates no more
        // children, so the count is moot.)
        if p > 0 {
            let parent = &mut self.stack[p - 1];
            parent.done += 1;
            parent.dts.finished(parent.done, self.n);
        }
    }
}

/// Scheme C: types from the network ([`nn_node`]); scores every `m` of
/// `0..=max_m` at once.
#[derive(Clone, Debug)]
pub struct NetworkTypes<'n, P: Predictor + ?Sized = Network> {
    net: &'n P,
    /// The nodes on the current path.
    stack: Vec<NnNode>,
    /// `hist[m][cut]`: scored nodes whose type first lies in
    /// `[50 - m, 50 + m]` at this `m` (`max_m + 1`: never), by outcome.
    pub hist: Vec<[u64; 2]>,
    /// Optional trace of the types given: `(ply, index, type)`.
    pub trace: Option<Vec<(u32, u32, f64)>>,
}

impl<'n, P: Predictor + ?Sized> NetworkTypes<'n, P> {
    /// A scheme-C classifier for `m` in `0..=max_m` and a search of `depth`.
    pub fn new(net: &'n P, max_m: u32, depth: u32) -> NetworkTypes<'n, P> {
        NetworkTypes { net, stack: vec![nn_node(net, None, 0); depth as usize + 1], hist: vec![[0; 2]; max_m as usize + 2], trace: None }
    }

    /// The counts at `m`.
    pub fn counts(&self, m: u32) -> PredictionCounts {
        counts_at(&self.hist, m)
    }
}

impl NetworkTypes<'_> {
    /// The smallest `m` (up to `max_m`) with `t` in `[50 - m, 50 + m]`, or
    /// `max_m + 1`.
    pub fn first_m(t: f64, max_m: u32) -> u32 {
        if !t.is_finite() {
            return max_m + 1;
        }
        let mut m = ((t - 50.0).abs().ceil()).min(max_m as f64 + 1.0) as u32;
        while m > 0 && is_cut(t, (m - 1) as f64) {
            m -= 1;
        }
        while m <= max_m && !is_cut(t, m as f64) {
            m += 1;
        }
        m
    }
}

/// Scheme C's counts at `m` from a histogram of [`NetworkTypes::hist`]: a node is
/// N-CUT at every `m` from its first one on.
pub fn counts_at(hist: &[[u64; 2]], m: u32) -> PredictionCounts {
    let mut c = PredictionCounts::default();
    for (k, h) in hist.iter().enumerate() {
        if k as u32 <= m {
            c.true_cut += h[1];
            c.false_cut += h[0];
        } else {
            c.true_all += h[0];
            c.false_all += h[1];
        }
    }
    c
}

impl<P: Predictor + ?Sized> Observer for NetworkTypes<'_, P> {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        let p = v.ply as usize;
        let parent = if p == 0 { None } else { Some((self.stack[p - 1].pv, self.stack[p - 1].ty)) };
        let node = nn_node(self.net, parent, v.index);
        debug_assert_eq!(node.pv, v.pv, "the rule's PV path is the search's");
        self.stack[p] = node;
        if let Some(tr) = &mut self.trace {
            tr.push((v.ply, v.index, node.ty));
        }
    }
    #[inline]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        if v.leaf || v.pv {
            return;
        }
        let max_m = self.hist.len() as u32 - 2;
        let m = NetworkTypes::first_m(self.stack[v.ply as usize].ty, max_m);
        self.hist[m as usize][o.cutoff.is_some() as usize] += 1;
    }
}

/// What to score.
#[derive(Clone, Debug, Default)]
pub struct Scoring {
    /// Scheme A.
    pub a: bool,
    /// Scheme B's values of n (empty: no scheme B).
    pub b: Vec<u32>,
    /// Scheme C's values of m (empty: no scheme C).
    pub c: Vec<u32>,
    /// The networks for scheme C, matched to the trees by ordering.
    pub weights: Vec<(String, Network)>,
    /// Use a single network for trees of another ordering.
    pub force: bool,
}

/// All schemes on one search.
struct All<'n> {
    a: Option<YbwcTypes>,
    b: Vec<DtsTypes>,
    c: Option<NetworkTypes<'n>>,
}

impl Observer for All<'_> {
    #[inline(always)]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        if let Some(a) = &mut self.a {
            a.enter(v);
        }
        self.b.enter(v);
        if let Some(c) = &mut self.c {
            c.enter(v);
        }
    }
    #[inline(always)]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        // Only scheme B looks at leaves (its parent counts finished moves).
        if !v.leaf {
            if let Some(a) = &mut self.a {
                a.leave(v, o);
            }
            if let Some(c) = &mut self.c {
                c.leave(v, o);
            }
        }
        self.b.leave(v, o);
    }
}

/// Per-tree results: A's counts, B's per n, C's histogram.
#[derive(Clone, Debug, Default)]
struct TreeCounts {
    a: PredictionCounts,
    b: Vec<PredictionCounts>,
    c: Vec<[u64; 2]>,
}

fn classify_tree(t: &Tree, cfg: &Scoring, net: Option<&Network>) -> TreeCounts {
    let d = t.depth();
    let max_m = cfg.c.iter().copied().max().unwrap_or(0);
    let mut obs = All {
        a: cfg.a.then(|| YbwcTypes::new(d)),
        b: cfg.b.iter().map(|&n| DtsTypes::new(n, d)).collect(),
        c: net.filter(|_| !cfg.c.is_empty()).map(|n| NetworkTypes::new(n, max_m, d)),
    };
    t.search(&mut obs);
    TreeCounts { a: obs.a.map(|a| a.counts).unwrap_or_default(), b: obs.b.iter().map(|b| b.counts).collect(), c: obs.c.map(|c| c.hist).unwrap_or_default() }
}

/// Picks each group's network; refuses a mismatch unless forced.
/// Returns the index into `cfg.weights` per group and any warnings.
fn match_networks(groups: &[TreeKey], cfg: &Scoring) -> Result<(Vec<Option<usize>>, Vec<String>)> {
    let mut picks = vec![];
    let mut warnings = vec![];
    for key in groups {
        if cfg.c.is_empty() {
            picks.push(None);
            continue;
        }
        if cfg.weights.is_empty() {
            return Err(ClassifyError::NoNetwork);
        }
        let trees = match key.ordering() {
            Some(o) => format!("{} ({o})", key.family()),
            None => key.family().to_string(),
        };
        if let Some(i) = cfg.weights.iter().position(|(_, n)| n.check_trees(key).is_ok()) {
            picks.push(Some(i));
        } else if cfg.force && cfg.weights.len() == 1 {
            let (name, n) = &cfg.weights[0];
            warnings.push(format!("warning: using {name} (trained for {}) on {trees} trees because of --force", n.trained_for));
            picks.push(Some(0));
        } else if cfg.weights.len() == 1 {
            let (name, n) = &cfg.weights[0];
            let why = n.check_trees(key).err().map(|e| e.to_string()).unwrap_or_default();
            return Err(ClassifyError::WrongNetwork { file: name.clone(), why });
        } else {
            let have: Vec<String> = cfg.weights.iter().map(|(name, n)| format!("{name} ({})", n.trained_for)).collect();
            return Err(ClassifyError::NoMatchingNetwork { trees, have: have.join(", ") });
        }
    }
    Ok((picks, warnings))
}

/// The rows of [`classify`]: one table per kind of tree (their columns
/// differ); each kind's rows in group order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Classified {
    /// Rows of artificial trees.
    pub artificial: Vec<ClassifyRow>,
    /// Rows of incremental trees.
    pub incremental: Vec<IncrementalClassifyRow>,
    /// Rows of game positions.
    pub games: Vec<GameClassifyRow>,
}

/// Scores the requested schemes over the trees (all cores): one group of
/// rows per (model, ordering, depth), or (game, depth), in order of first
/// appearance; within a group scheme A, then B by n, then C by m. Returns
/// the rows and any warnings for stderr.
pub fn classify(trees: &[Tree], cfg: &Scoring, progress: &crate::progress::Progress) -> Result<(Classified, Vec<String>)> {
    if !(cfg.a || !cfg.b.is_empty() || !cfg.c.is_empty()) {
        return Err(ClassifyError::NoScheme);
    }
    if cfg.b.contains(&0) {
        return Err(ClassifyError::ZeroN);
    }
    let mut groups: Vec<TreeKey> = vec![];
    let mut group_of = Vec::with_capacity(trees.len());
    for t in trees {
        let key = t.key();
        let g = groups.iter().position(|k| *k == key).unwrap_or_else(|| {
            groups.push(key);
            groups.len() - 1
        });
        group_of.push(g);
    }
    let (picks, warnings) = match_networks(&groups, cfg)?;
    let per_tree: Vec<TreeCounts> = trees
        .par_iter()
        .zip(&group_of)
        .map(|(t, &g)| {
            let c = classify_tree(t, cfg, picks[g].map(|i| &cfg.weights[i].1));
            progress.inc(1);
            c
        })
        .collect();
    let mut out = Classified::default();
    for (g, key) in groups.iter().enumerate() {
        let depth = key.depth();
        let mut sum = TreeCounts { a: PredictionCounts::default(), b: vec![PredictionCounts::default(); cfg.b.len()], c: vec![] };
        let mut n_trees = 0u32;
        for (tc, _) in per_tree.iter().zip(&group_of).filter(|(_, gg)| **gg == g) {
            n_trees += 1;
            sum.a.add(&tc.a);
            for (s, x) in sum.b.iter_mut().zip(&tc.b) {
                s.add(x);
            }
            if sum.c.len() < tc.c.len() {
                sum.c.resize(tc.c.len(), [0; 2]);
            }
            for (s, x) in sum.c.iter_mut().zip(&tc.c) {
                s[0] += x[0];
                s[1] += x[1];
            }
        }
        // Built in the artificial columns (ordering zero for a game), then
        // moved into the game's own.
        let o = key.ordering().unwrap_or(Ordering { b: 0, wa: 0, wb: 0 });
        let row = |scheme: &str, param: Option<u32>, c: PredictionCounts| ClassifyRow {
            b: o.b,
            wa: o.wa,
            wb: o.wb,
            depth,
            trees: n_trees,
            scheme: scheme.into(),
            param,
            true_cut: c.true_cut,
            false_cut: c.false_cut,
            true_all: c.true_all,
            false_all: c.false_all,
            error: c.error(),
            scored: c.scored(),
            best: 0,
        };
        let mut rows = vec![];
        if cfg.a {
            rows.push(ClassifyRow { best: 1, ..row("a", None, sum.a) });
        }
        let mut block: Vec<ClassifyRow> = cfg.b.iter().zip(&sum.b).map(|(&n, c)| row("b", Some(n), *c)).collect();
        mark_best(&mut block);
        rows.extend(block);
        if !cfg.c.is_empty() {
            let mut block: Vec<ClassifyRow> = cfg.c.iter().map(|&m| row("c", Some(m), counts_at(&sum.c, m))).collect();
            mark_best(&mut block);
            rows.extend(block);
        }
        match key {
            TreeKey::Artificial { .. } => out.artificial.extend(rows),
            TreeKey::Incremental { b, scale, .. } => out.incremental.extend(rows.into_iter().map(|r| IncrementalClassifyRow::with_tree(*b, *scale, r))),
            TreeKey::Game { .. } => out.games.extend(rows.into_iter().map(|r| GameClassifyRow::with_tree(key.family(), r))),
        }
    }
    Ok((out, warnings))
}

/// Marks the lowest error (the smallest parameter on a tie).
fn mark_best(rows: &mut [ClassifyRow]) {
    if let Some(i) = (0..rows.len()).min_by_key(|&i| (rows[i].error, rows[i].param)) {
        rows[i].best = 1;
    }
}

/// Hand-worked small trees.
#[cfg(test)]
pub(crate) mod hand;
#[cfg(test)]
mod tests;
