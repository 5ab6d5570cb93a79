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

use crate::formats::{ClassifyRow, GameClassifyRow, Tree, TreeKey};
use crate::nn::{Network, is_cut};
use crate::search::{Observer, Outcome, ROOT_ALPHA, ROOT_BETA, Visit};
use crate::tree::Ordering;

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
use rayon::prelude::*;

/// The four counts of a scheme.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Predicted CUT, cut off.
    pub true_cut: u64,
    /// Predicted CUT, searched all moves.
    pub false_cut: u64,
    /// Predicted ALL, searched all moves.
    pub true_all: u64,
    /// Predicted ALL, cut off.
    pub false_all: u64,
}

impl Counts {
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
    pub fn add(&mut self, o: &Counts) {
        self.true_cut += o.true_cut;
        self.false_cut += o.false_cut;
        self.true_all += o.true_all;
        self.false_all += o.false_all;
    }
}

/// A node type of schemes A and B.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    /// Y-PV / D-PV.
    #[default]
    Pv,
    /// Y-CUT / D-CUT: predicts a cut-off.
    Cut,
    /// Y-ALL / D-ALL: predicts that every move is searched.
    All,
}

/// The DTS type of a child at its creation (`docs/model.md` §4.2): from
/// its window `(alpha, beta)` compared with the root's, its parent's current
/// type and whether the parent lies below a D-ALL, D-ALL pair. Returns the
/// child's type and whether it is forced. Shared by `classify` and the
/// simulator's scheme B.
#[inline(always)]
pub fn dts_child_type(parent_cur: Kind, parent_forced: bool, child_max: bool, alpha: i64, beta: i64) -> (Kind, bool) {
    let base = if alpha == ROOT_ALPHA && beta == ROOT_BETA {
        Kind::Pv
    } else if (!child_max && beta == ROOT_BETA) || (child_max && alpha == ROOT_ALPHA) {
        Kind::Cut
    } else {
        Kind::All
    };
    if base == Kind::Pv {
        (Kind::Pv, false)
    } else if parent_forced {
        (if parent_cur == Kind::All { Kind::Cut } else { Kind::All }, true)
    } else if parent_cur == Kind::All && base == Kind::All {
        (Kind::All, true)
    } else {
        (base, false)
    }
}

/// Records `(ply, index, initial type)` of every internal node in the order
/// entered, for tests and inspection; off by default.
pub type Trace = Option<Vec<(u32, u32, Kind)>>;

/// Scheme A: strong YBWC types. The root is Y-PV; a Y-PV node's first child
/// is Y-PV, its others Y-CUT; a Y-CUT node's first child is Y-ALL, its others
/// Y-CUT; every child of a Y-ALL node is Y-CUT.
#[derive(Clone, Debug, Default)]
pub struct YbwcTypes {
    stack: Vec<Kind>,
    /// The counts so far.
    pub counts: Counts,
    /// Optional trace of the types given.
    pub trace: Trace,
}

impl YbwcTypes {
    /// A scheme-A classifier for a search of `depth`.
    pub fn new(depth: u32) -> YbwcTypes {
        YbwcTypes { stack: vec![Kind::Pv; depth as usize + 1], counts: Counts::default(), trace: None }
    }

    /// The type of the child `index` (1-based) of a node of type `parent`.
    pub fn child(parent: Kind, index: u32) -> Kind {
        match (parent, index) {
            (Kind::Pv, 1) => Kind::Pv,
            (Kind::Pv, _) => Kind::Cut,
            (Kind::Cut, 1) => Kind::All,
            (Kind::Cut, _) => Kind::Cut,
            (Kind::All, _) => Kind::Cut,
        }
    }
}

impl Observer for YbwcTypes {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        let p = v.ply as usize;
        let ty = if p == 0 { Kind::Pv } else { YbwcTypes::child(self.stack[p - 1], v.index) };
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
        self.counts.score(self.stack[v.ply as usize] == Kind::Cut, o.cutoff.is_some());
    }
}

/// The per-node state of scheme B (`docs/model.md` §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BNode {
    /// The initial (scored) type.
    pub ty: Kind,
    /// The current type.
    pub cur: Kind,
    /// Lies below a D-ALL, D-ALL pair: children alternate.
    pub forced: bool,
    /// `forced` when the node was created (such nodes are never overridden).
    pub forced_at_creation: bool,
    /// The parent's current type was D-ALL when this node was created.
    pub parent_all: bool,
    /// Moves finished.
    pub done: u32,
}

const ROOT_B: BNode = BNode { ty: Kind::Pv, cur: Kind::Pv, forced: false, forced_at_creation: false, parent_all: false, done: 0 };

/// Scheme B: DTS types with parameter `n`, exactly as `docs/model.md` §4 reads
/// them (the reading that reproduces the thesis's Table 5.3).
#[derive(Clone, Debug)]
pub struct DtsTypes {
    /// A D-CUT node turns D-ALL once this many moves have finished without a
    /// cut-off.
    pub n: u32,
    stack: Vec<BNode>,
    /// The counts so far.
    pub counts: Counts,
    /// Optional trace of the types given.
    pub trace: Trace,
}

impl DtsTypes {
    /// A scheme-B classifier with parameter `n` for a search of `depth`.
    pub fn new(n: u32, depth: u32) -> DtsTypes {
        DtsTypes { n, stack: vec![ROOT_B; depth as usize + 1], counts: Counts::default(), trace: None }
    }

    /// The state of the node at `ply` on the current path.
    pub fn state(&self, ply: u32) -> BNode {
        self.stack[ply as usize]
    }

    /// The state of a new child of `parent` entered with window
    /// `(alpha, beta)`; `max`: the child is a MAX node.
    #[inline(always)]
    pub fn child(parent: &BNode, max: bool, alpha: i64, beta: i64) -> BNode {
        let (ty, forced) = dts_child_type(parent.cur, parent.forced, max, alpha, beta);
        BNode { ty, cur: ty, forced, forced_at_creation: forced, parent_all: parent.cur == Kind::All, done: 0 }
    }

    /// A move of `node` finished without a cut-off at `node`: count it and
    /// apply the override.
    #[inline(always)]
    pub fn finished(node: &mut BNode, n: u32) {
        node.done += 1;
        if node.ty == Kind::Cut && !node.forced_at_creation && node.cur == Kind::Cut && node.done >= n {
            node.cur = Kind::All;
            if node.parent_all {
                node.forced = true;
            }
        }
    }
}

impl Observer for DtsTypes {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        let p = v.ply as usize;
        let node = if p == 0 { ROOT_B } else { DtsTypes::child(&self.stack[p - 1], v.max, v.alpha, v.beta) };
        self.stack[p] = node;
        if let Some(t) = &mut self.trace {
            t.push((v.ply, v.index, node.ty));
        }
    }
    #[inline]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        let p = v.ply as usize;
        if !v.leaf && !v.pv {
            self.counts.score(self.stack[p].ty == Kind::Cut, o.cutoff.is_some());
        }
        // The parent counts a finished move. (If this child caused a cut-off
        // there, the parent creates no more children, so the count is moot.)
        if p > 0 {
            DtsTypes::finished(&mut self.stack[p - 1], self.n);
        }
    }
}

/// What scheme C needs from the network of `docs/model.md` §3.2: the root's averaged
/// type and wait and, for a child off the PV path, the network's type
/// (0..100) and wait (moves). Shared by `classify` and the simulator's scheme
/// C; a test can stand in a hand-made predictor.
pub trait Predictor: Sync {
    /// The root's averaged type, stored with the network.
    fn root_type(&self) -> f64;
    /// The root's averaged wait, stored with the network.
    fn root_wait(&self) -> f64;
    /// `(type, wait)` for the child at 1-based `index` of a parent with type
    /// `parent_type` (on the PV path if `pv`).
    fn predict(&self, pv: bool, parent_type: f64, index: u32) -> (f64, f64);
}

impl Predictor for Network {
    fn root_type(&self) -> f64 {
        Network::root_type(self)
    }
    fn root_wait(&self) -> f64 {
        Network::root_wait(self)
    }
    #[inline]
    fn predict(&self, pv: bool, parent_type: f64, index: u32) -> (f64, f64) {
        Network::predict(self, pv, parent_type, index)
    }
}

/// A node's type and wait under scheme C.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NnNode {
    /// On the PV path: N-PV.
    pub pv: bool,
    /// Type, 0..100 (beyond a little: outputs are not clamped).
    pub ty: f64,
    /// Wait, in moves.
    pub wait: f64,
}

/// Scheme C's typing rule (`docs/model.md` §4.3; thesis §5.5: "the neural network
/// output is not used and the node is defined to be an N-PV node"), shared
/// by `classify` and the simulator's scheme C. `parent` is the parent's PV
/// flag and type, `None` at the root. A node on the PV path (the root, its first child, that child's
/// first child, ...) is N-PV and takes the root's averaged type and wait;
/// every other node takes the network's output for (its parent is PV, its
/// parent's type, its index). So the PV path's types stay at the root's
/// (0 for every ordering), and the non-PV children of a PV node are asked
/// with exactly the inputs of their training patterns.
#[inline]
pub fn nn_node<P: Predictor + ?Sized>(net: &P, parent: Option<(bool, f64)>, index: u32) -> NnNode {
    match parent {
        Some((pv, pt)) if !(pv && index == 1) => {
            let (ty, wait) = net.predict(pv, pt, index);
            NnNode { pv: false, ty, wait }
        }
        _ => NnNode { pv: true, ty: net.root_type(), wait: net.root_wait() },
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
    pub fn counts(&self, m: u32) -> Counts {
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
pub fn counts_at(hist: &[[u64; 2]], m: u32) -> Counts {
    let mut c = Counts::default();
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
    a: Counts,
    b: Vec<Counts>,
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
        let mut sum = TreeCounts { a: Counts::default(), b: vec![Counts::default(); cfg.b.len()], c: vec![] };
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
        let row = |scheme: &str, param: Option<u32>, c: Counts| ClassifyRow {
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
            TreeKey::Game { game, .. } => out.games.extend(rows.into_iter().map(|r| GameClassifyRow {
                game: *game,
                depth: r.depth,
                trees: r.trees,
                scheme: r.scheme,
                param: r.param,
                true_cut: r.true_cut,
                false_cut: r.false_cut,
                true_all: r.true_all,
                false_all: r.false_all,
                error: r.error,
                scored: r.scored,
                best: r.best,
            })),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Model;

    #[test]
    fn bad_requests_are_typed_errors() {
        let t = [crate::formats::TreeSpec { set: "t".into(), index: 1, seed: 12345, pscore: 1000, model: Model::Exponential, b: 2, wa: 0, wb: 0, depth: 2 }
            .check()
            .unwrap()];
        let run = |cfg: Scoring| classify(&t, &cfg, &crate::progress::Progress::hidden()).map(|_| ()).unwrap_err();
        assert_eq!(run(Scoring::default()), ClassifyError::NoScheme);
        assert_eq!(run(Scoring { b: vec![1, 0], ..Scoring::default() }), ClassifyError::ZeroN);
        assert_eq!(run(Scoring { c: vec![10], ..Scoring::default() }), ClassifyError::NoNetwork);
    }

    #[test]
    fn first_m_is_the_smallest_closed_interval() {
        assert_eq!(NetworkTypes::first_m(50.0, 50), 0);
        assert_eq!(NetworkTypes::first_m(60.0, 50), 10);
        assert_eq!(NetworkTypes::first_m(40.0, 50), 10);
        assert_eq!(NetworkTypes::first_m(60.5, 50), 11);
        assert_eq!(NetworkTypes::first_m(39.99, 50), 11);
        assert_eq!(NetworkTypes::first_m(-2.0, 50), 51);
        assert_eq!(NetworkTypes::first_m(101.0, 50), 51);
        assert_eq!(NetworkTypes::first_m(f64::NAN, 50), 51);
        assert_eq!(NetworkTypes::first_m(0.0, 50), 50);
        for k in 0..2000 {
            let t = -10.0 + k as f64 * 0.0613;
            let m = NetworkTypes::first_m(t, 50);
            for mm in 0..=50 {
                assert_eq!(is_cut(t, mm as f64), mm >= m, "t {t} m {mm}");
            }
        }
    }

    #[test]
    fn scheme_a_rules() {
        use Kind::*;
        assert_eq!(YbwcTypes::child(Pv, 1), Pv);
        assert_eq!(YbwcTypes::child(Pv, 2), Cut);
        assert_eq!(YbwcTypes::child(Cut, 1), All);
        assert_eq!(YbwcTypes::child(Cut, 3), Cut);
        assert_eq!(YbwcTypes::child(All, 1), Cut);
        assert_eq!(YbwcTypes::child(All, 2), Cut);
    }
}

/// Hand-worked small trees.
#[cfg(test)]
mod hand {
    use super::*;
    use crate::formats::TreeSpec;
    use crate::tree::Model;
    use Kind::*;

    /// The tree of these tests: b = 2, random ordering, depth 4, seed 12345.
    /// Its search, as the search reports it (windows at entry; RA, RB the
    /// root window; leaves omitted):
    ///
    /// ```text
    /// node     kind window       outcome
    /// ()       MAX (RA, RB)      PV, searches both
    /// (1)      MIN (RA, RB)      PV, searches both, returns 902
    /// (1,1)    MAX (RA, RB)      PV, searches both
    /// (1,1,1)  MIN (RA, RB)      PV, searches both
    /// (1,1,2)  MIN (902, RB)     cut-off at move 2, its last move
    /// (1,2)    MAX (RA, 902)     cut-off at move 1
    /// (1,2,1)  MIN (RA, 902)     searches both
    /// (2)      MIN (902, RB)     searches both, returns 1000
    /// (2,1)    MAX (902, RB)     searches both, returns 1000
    /// (2,1,1)  MIN (902, RB)     searches both
    /// (2,1,2)  MIN (1000, RB)    cut-off at move 1
    /// (2,2)    MAX (902, 1000)   cut-off at move 1
    /// (2,2,1)  MIN (902, 1000)   searches both
    /// ```
    fn tree() -> Tree {
        TreeSpec { set: "t".into(), index: 1, seed: 12345, pscore: 1000, model: Model::Exponential, b: 2, wa: 0, wb: 0, depth: 4 }.check().unwrap()
    }

    const ORDER: [(u32, u32); 13] = [(0, 0), (1, 1), (2, 1), (3, 1), (3, 2), (2, 2), (3, 1), (1, 2), (2, 1), (3, 1), (3, 2), (2, 2), (3, 1)];

    fn kinds(trace: &Trace) -> Vec<Kind> {
        let t = trace.as_ref().unwrap();
        assert_eq!(t.iter().map(|&(p, i, _)| (p, i)).collect::<Vec<_>>(), ORDER.to_vec());
        t.iter().map(|x| x.2).collect()
    }

    /// The search itself, so the hand-worked table above is the real one.
    #[test]
    fn the_tree_searches_as_described() {
        struct Log(Vec<(u32, i64, i64, Option<u32>, u32)>);
        impl Observer for Log {
            fn leave(&mut self, v: &Visit, o: &Outcome) {
                if !v.leaf {
                    self.0.push((v.ply, v.alpha, v.beta, o.cutoff, o.searched));
                }
            }
        }
        let t = tree();
        let mut log = Log(vec![]);
        t.search(&mut log);
        let (ra, rb) = (ROOT_ALPHA, ROOT_BETA);
        // In the order the nodes return.
        let want = vec![
            (3, ra, rb, None, 2),       // (1,1,1)
            (3, 902, rb, Some(2), 2),   // (1,1,2): cut-off at its last move
            (2, ra, rb, None, 2),       // (1,1)
            (3, ra, 902, None, 2),      // (1,2,1)
            (2, ra, 902, Some(1), 1),   // (1,2)
            (1, ra, rb, None, 2),       // (1)
            (3, 902, rb, None, 2),      // (2,1,1)
            (3, 1000, rb, Some(1), 1),  // (2,1,2)
            (2, 902, rb, None, 2),      // (2,1)
            (3, 902, 1000, None, 2),    // (2,2,1)
            (2, 902, 1000, Some(1), 1), // (2,2)
            (1, 902, rb, None, 2),      // (2)
            (0, ra, rb, None, 2),       // root
        ];
        assert_eq!(log.0, want);
    }

    /// Scheme A: (1,1,2) Y-CUT cuts at its last move (True_CUT); (2) and
    /// (2,1,1) are Y-CUT and search everything (False_CUT); the first
    /// children of Y-CUT nodes, (1,2,1), (2,1), (2,2,1), are Y-ALL (True_ALL);
    /// children of the Y-ALL (2,1) are Y-CUT; (2,2), a second child, is Y-CUT.
    #[test]
    fn scheme_a_by_hand() {
        let t = tree();
        let mut a = YbwcTypes::new(4);
        a.trace = Some(vec![]);
        t.search(&mut a);
        assert_eq!(kinds(&a.trace), vec![Pv, Pv, Pv, Pv, Cut, Cut, All, Cut, All, Cut, Cut, Cut, All]);
        assert_eq!(a.counts, Counts { true_cut: 4, false_cut: 2, true_all: 3, false_all: 0 });
        assert_eq!(a.counts.scored(), 9);
    }

    /// Scheme B, n = 1, by the rules of `docs/model.md` §4:
    /// - (1,1,2) MIN with beta = RB: D-CUT; cuts at its last move: True_CUT.
    /// - (1,2) MAX with alpha = RA: D-CUT, True_CUT. (1,2,1) MIN (RA, 902):
    ///   D-ALL, True_ALL.
    /// - (2) MIN (902, RB): D-CUT, searches both: False_CUT. Its first child
    ///   (2,1), MAX (902, RB), is D-ALL (True_ALL); under it (2,1,1) and
    ///   (2,1,2), MIN with beta = RB, are D-CUT (False_CUT, True_CUT).
    /// - After (2,1) finishes, (2) has searched n = 1 move without a cut-off
    ///   and turns D-ALL; its second child (2,2), MAX (902, 1000), is D-ALL by
    ///   its window under a D-ALL parent: the one allowed pair, forced. It
    ///   cuts off: False_ALL.
    /// - (2,2,1) lies below the pair: it ignores its window (D-ALL) and
    ///   alternates: D-CUT, and searches both: False_CUT.
    #[test]
    fn scheme_b_n1_by_hand() {
        let t = tree();
        let mut b = DtsTypes::new(1, 4);
        b.trace = Some(vec![]);
        t.search(&mut b);
        assert_eq!(kinds(&b.trace), vec![Pv, Pv, Pv, Pv, Cut, Cut, All, Cut, All, Cut, Cut, All, Cut]);
        assert_eq!(b.counts, Counts { true_cut: 3, false_cut: 3, true_all: 2, false_all: 1 });
    }

    /// Scheme B, n = 2: (2) has finished only one move when it creates (2,2),
    /// so it is still D-CUT and (2,2) is D-ALL by its window, not forced. Now
    /// (2,2)'s child (2,2,1), D-ALL by its window under a D-ALL parent, forms
    /// the pair: D-ALL (True_ALL).
    #[test]
    fn scheme_b_n2_by_hand() {
        let t = tree();
        let mut b = DtsTypes::new(2, 4);
        b.trace = Some(vec![]);
        t.search(&mut b);
        assert_eq!(kinds(&b.trace), vec![Pv, Pv, Pv, Pv, Cut, Cut, All, Cut, All, Cut, Cut, All, All]);
        assert_eq!(b.counts, Counts { true_cut: 3, false_cut: 2, true_all: 3, false_all: 1 });
    }

    /// The rules one at a time on node states.
    #[test]
    fn scheme_b_rules_on_states() {
        let (ra, rb) = (ROOT_ALPHA, ROOT_BETA);
        let root = ROOT_B;
        // Windows: the PV path, MIN with the root's beta, MAX with the root's alpha.
        assert_eq!(DtsTypes::child(&root, false, ra, rb).ty, Pv);
        assert_eq!(DtsTypes::child(&root, false, 5, rb).ty, Cut);
        assert_eq!(DtsTypes::child(&root, true, ra, 5).ty, Cut);
        assert_eq!(DtsTypes::child(&root, true, 5, rb).ty, All);
        assert_eq!(DtsTypes::child(&root, false, ra, 5).ty, All);
        // A D-CUT child of a D-ALL parent: not forced, but remembers the parent.
        let all = BNode { ty: All, cur: All, ..ROOT_B };
        let mut c = DtsTypes::child(&all, false, 7, rb);
        assert_eq!((c.ty, c.forced, c.parent_all), (Cut, false, true));
        // The override after n = 2 finished moves; it completes a pair, so
        // the children created afterwards alternate regardless of window.
        DtsTypes::finished(&mut c, 2);
        assert_eq!((c.cur, c.forced), (Cut, false));
        DtsTypes::finished(&mut c, 2);
        assert_eq!((c.cur, c.forced), (All, true));
        let g = DtsTypes::child(&c, true, ra, 9);
        assert_eq!((g.ty, g.forced), (Cut, true), "forced children alternate: D-CUT under a D-ALL");
        // A forced D-CUT is never overridden, and its children are D-ALL.
        let mut g2 = g;
        for _ in 0..5 {
            DtsTypes::finished(&mut g2, 1);
        }
        assert_eq!(g2.cur, Cut);
        assert_eq!(DtsTypes::child(&g2, false, 3, rb).ty, All);
        // Without a D-ALL parent, the override does not force.
        let mut d = DtsTypes::child(&root, false, 5, rb);
        DtsTypes::finished(&mut d, 1);
        assert_eq!((d.cur, d.forced), (All, false));
        // ... and the next D-ALL child forms the pair.
        let e = DtsTypes::child(&d, true, 5, 9);
        assert_eq!((e.ty, e.forced), (All, true));
        // A D-PV child is never forced, even under a forced parent.
        assert_eq!(DtsTypes::child(&g, false, ra, rb), BNode { ty: Pv, cur: Pv, forced: false, forced_at_creation: false, parent_all: false, done: 0 });
    }

    /// A hand-made predictor, so the types below can be worked by hand:
    /// the root's averages are type 0 and wait 2; a PV parent's child j gets
    /// 40 + j, any other parent's child j gets 100 - t/2 - j (t the parent's
    /// type); waits 1 and 3.
    #[derive(Debug)]
    struct Hand;
    impl Predictor for Hand {
        fn root_type(&self) -> f64 {
            0.0
        }
        fn root_wait(&self) -> f64 {
            2.0
        }
        fn predict(&self, pv: bool, t: f64, j: u32) -> (f64, f64) {
            if pv { (40.0 + j as f64, 1.0) } else { (100.0 - t / 2.0 - j as f64, 3.0) }
        }
    }

    /// Issue 10 by hand: the PV path (), (1), (1,1), (1,1,1) keeps the
    /// root's type 0 (the old rule fed the network's output down it: 41,
    /// 41, 41); the non-PV children of PV nodes, (1,1,2), (1,2) and (2),
    /// get the network's 40 + 2 = 42; below them 100 - t/2 - j:
    /// (1,2,1) and (2,1) 100 - 21 - 1 = 78, (2,1,1) 100 - 39 - 1 = 60,
    /// (2,1,2) 59, (2,2) 100 - 21 - 2 = 77, (2,2,1) 100 - 38.5 - 1 = 60.5.
    /// Against the outcomes of the table above, at m = 10 ([40, 60], closed):
    /// CUT and cut off (1,1,2), (1,2), (2,1,2); CUT, searched all (2),
    /// (2,1,1); ALL, searched all (1,2,1), (2,1), (2,2,1); ALL, cut off (2,2).
    #[test]
    fn scheme_c_by_hand() {
        let t = tree();
        let mut c = NetworkTypes::new(&Hand, 50, 4);
        c.trace = Some(vec![]);
        t.search(&mut c);
        let tr = c.trace.clone().unwrap();
        assert_eq!(tr.iter().map(|&(p, i, _)| (p, i)).collect::<Vec<_>>(), ORDER.to_vec());
        let types: Vec<f64> = tr.iter().map(|x| x.2).collect();
        assert_eq!(types, vec![0.0, 0.0, 0.0, 0.0, 42.0, 42.0, 78.0, 42.0, 78.0, 60.0, 59.0, 77.0, 60.5]);
        assert_eq!(c.counts(10), Counts { true_cut: 3, false_cut: 2, true_all: 3, false_all: 1 });
        // m = 5: nothing is CUT; m = 8: the three 42s; m = 27: all but the 78s; m = 30: all.
        assert_eq!(c.counts(5), Counts { true_cut: 0, false_cut: 0, true_all: 5, false_all: 4 });
        assert_eq!(c.counts(8), Counts { true_cut: 2, false_cut: 1, true_all: 4, false_all: 2 });
        assert_eq!(c.counts(27), Counts { true_cut: 4, false_cut: 3, true_all: 2, false_all: 0 });
        assert_eq!(c.counts(30), Counts { true_cut: 4, false_cut: 5, true_all: 0, false_all: 0 });
        // The rule itself: N-PV nodes take the root's averages, wait included.
        assert_eq!(nn_node(&Hand, None, 0), NnNode { pv: true, ty: 0.0, wait: 2.0 });
        assert_eq!(nn_node(&Hand, Some((true, 0.0)), 1), NnNode { pv: true, ty: 0.0, wait: 2.0 });
        assert_eq!(nn_node(&Hand, Some((true, 0.0)), 3), NnNode { pv: false, ty: 43.0, wait: 1.0 });
        assert_eq!(nn_node(&Hand, Some((false, 42.0)), 1), NnNode { pv: false, ty: 78.0, wait: 3.0 });
    }

    /// Both tools type with the one rule: the simulator's scheme C, replayed
    /// over the nodes of this search in the order they are created, gives
    /// every node the type `classify` gave it, on a real network too; its
    /// waits are the rule's (root wait 2 at N-PV nodes, network waits below).
    #[test]
    fn the_simulator_types_scheme_c_as_classify_does() {
        use crate::nn::{HiddenWeights, OutputWeights, TrainedFor, Training};
        use crate::sim::schemes::{NetworkSplit as SimC, Scheme, View};
        fn replay<P: Predictor + ?Sized>(net: &P) -> (Vec<f64>, Vec<f64>, Vec<i32>) {
            let t = tree();
            let mut c = NetworkTypes::new(net, 50, 4);
            c.trace = Some(vec![]);
            t.search(&mut c);
            let classified: Vec<f64> = c.trace.unwrap().iter().map(|x| x.2).collect();
            // m_Ca = 0, m_Cc = 1, width 10; leaf_ply 4: nodes at ply 3 are
            // still typed (their children are the leaves).
            let sim = SimC { net, cut_width: 10.0, m_ca: 0, m_cc: 1, leaf_ply: 4 };
            let mut path = vec![(View { ply: 0, pv: true, index: 0, max: true, finished: 0, left: 2 }, sim.root())];
            let mut types = vec![path[0].1.ty];
            let mut needs = vec![path[0].1.need];
            for &(ply, index) in &ORDER[1..] {
                path.truncate(ply as usize);
                let (pv, pd) = path[ply as usize - 1];
                let d = sim.child(&pv, &pd, index, ply % 2 == 0, 0, 0);
                types.push(d.ty);
                needs.push(d.need);
                path.push((View { ply, pv: pv.pv && index == 1, index, max: ply % 2 == 0, finished: 0, left: 2 }, d));
            }
            (classified, types, needs)
        }
        let (classified, simulated, needs) = replay(&Hand);
        assert_eq!(simulated, classified);
        // N-PV: round(2) + 0 = 2; (1,1,2), (1,2), (2): type 42 is N-CUT,
        // 1 + 0 + 1 = 2; (1,2,1), (2,1): 78 is N-ALL, wait 3; (2,1,1),
        // (2,1,2): N-CUT, 3 + 1 = 4; (2,2): 77, 3; (2,2,1): 60.5, N-ALL, 3.
        assert_eq!(needs, vec![2, 2, 2, 2, 2, 2, 3, 2, 3, 4, 4, 3, 3]);
        let wh = HiddenWeights::from_fn(|r, c| ((r * 3 + c * 5) % 7) as f64 - 3.0);
        let wo = OutputWeights::from_fn(|r, c| ((r * 11 + c * 3) % 5) as f64 / 2.0 - 1.0);
        let tr = Training { rng: "ChaCha8".into(), seed: 0, init: 0.0, iterations: 0, eta: 0.1, shuffle: false, patterns: 0 };
        let net = Network::new(wh, wo, TrainedFor::artificial(Model::Exponential, Ordering { b: 2, wa: 0, wb: 0 }), 30.0, tr).unwrap().with_root_wait(1.5);
        let (classified, simulated, _) = replay(&net);
        assert_eq!(simulated, classified);
        assert_eq!(classified[..4], [30.0; 4]);
        assert_eq!(classified[4], net.predict(true, 30.0, 2).0);
        assert_eq!(classified[10], net.predict(false, classified[8], 2).0);
    }
}
