//! Node classification: schemes A (YBWC's types), B (DTS's types) and C (the
//! network), scored over a sequential alpha-beta search (thesis §5.5, Tables
//! 5.2–5.4; spec `classify.md`).
//!
//! Each scheme is an [`Observer`] that gives every internal node a type when
//! the search enters it, and scores the prediction (CUT or ALL) against the
//! node's outcome when it returns. One search per tree serves every scheme
//! and parameter value: scheme B runs one observer per `n`; scheme C computes
//! a node's network type once and counts it into a histogram over the
//! smallest `m` that makes it N-CUT, from which every `m` is read off.
//!
//! Scored nodes are the internal nodes off the PV path; a node "cut off" if
//! it returned on a cut-off, at its last move included.

use crate::formats::{ClassifyRow, Tree};
use crate::nn::{Network, is_cut};
use crate::search::{Observer, Outcome, ROOT_ALPHA, ROOT_BETA, Visit, search};
use crate::tree::{Model, Ordering};
use anyhow::{Result, bail, ensure};
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Y-PV / D-PV.
    Pv,
    /// Y-CUT / D-CUT: predicts a cut-off.
    Cut,
    /// Y-ALL / D-ALL: predicts that every move is searched.
    All,
}

/// Records `(ply, index, initial type)` of every internal node in the order
/// entered, for tests and inspection; off by default.
pub type Trace = Option<Vec<(u32, u32, Kind)>>;

/// Scheme A: strong YBWC types. The root is Y-PV; a Y-PV node's first child
/// is Y-PV, its others Y-CUT; a Y-CUT node's first child is Y-ALL, its others
/// Y-CUT; every child of a Y-ALL node is Y-CUT.
#[derive(Clone, Debug, Default)]
pub struct SchemeA {
    stack: Vec<Kind>,
    /// The counts so far.
    pub counts: Counts,
    /// Optional trace of the types given.
    pub trace: Trace,
}

impl SchemeA {
    /// A scheme-A classifier for a search of `depth`.
    pub fn new(depth: u32) -> SchemeA {
        SchemeA { stack: vec![Kind::Pv; depth as usize + 1], counts: Counts::default(), trace: None }
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

impl Observer for SchemeA {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        let p = v.ply as usize;
        let ty = if p == 0 { Kind::Pv } else { SchemeA::child(self.stack[p - 1], v.index) };
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

/// The per-node state of scheme B (`classify.md`).
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

/// Scheme B: DTS types with parameter `n`, exactly as `classify.md` reads
/// them (the reading that reproduces the thesis's Table 5.3).
#[derive(Clone, Debug)]
pub struct SchemeB {
    /// A D-CUT node turns D-ALL once this many moves have finished without a
    /// cut-off.
    pub n: u32,
    stack: Vec<BNode>,
    /// The counts so far.
    pub counts: Counts,
    /// Optional trace of the types given.
    pub trace: Trace,
}

impl SchemeB {
    /// A scheme-B classifier with parameter `n` for a search of `depth`.
    pub fn new(n: u32, depth: u32) -> SchemeB {
        SchemeB { n, stack: vec![ROOT_B; depth as usize + 1], counts: Counts::default(), trace: None }
    }

    /// The state of the node at `ply` on the current path.
    pub fn state(&self, ply: u32) -> BNode {
        self.stack[ply as usize]
    }

    /// The state of a new child of `parent` entered with window
    /// `(alpha, beta)`; `max`: the child is a MAX node.
    #[inline(always)]
    pub fn child(parent: &BNode, max: bool, alpha: i64, beta: i64) -> BNode {
        let base = if alpha == ROOT_ALPHA && beta == ROOT_BETA {
            Kind::Pv
        } else if (!max && beta == ROOT_BETA) || (max && alpha == ROOT_ALPHA) {
            Kind::Cut
        } else {
            Kind::All
        };
        let (ty, forced) = if base == Kind::Pv {
            (Kind::Pv, false)
        } else if parent.forced {
            (if parent.cur == Kind::All { Kind::Cut } else { Kind::All }, true)
        } else if parent.cur == Kind::All && base == Kind::All {
            (Kind::All, true)
        } else {
            (base, false)
        };
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

impl Observer for SchemeB {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        let p = v.ply as usize;
        let node = if p == 0 { ROOT_B } else { SchemeB::child(&self.stack[p - 1], v.max, v.alpha, v.beta) };
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
            SchemeB::finished(&mut self.stack[p - 1], self.n);
        }
    }
}

/// Scheme C: types from the network; scores every `m` of `0..=max_m` at once.
#[derive(Clone, Debug)]
pub struct SchemeC<'n> {
    net: &'n Network,
    /// (type, pv) of the nodes on the current path.
    stack: Vec<(f64, bool)>,
    /// `hist[m][cut]`: scored nodes whose type first lies in
    /// `[50 - m, 50 + m]` at this `m` (`max_m + 1`: never), by outcome.
    pub hist: Vec<[u64; 2]>,
    /// Optional trace of the network types: `(ply, index, type)`.
    pub trace: Option<Vec<(u32, u32, f64)>>,
}

impl<'n> SchemeC<'n> {
    /// A scheme-C classifier for `m` in `0..=max_m` and a search of `depth`.
    pub fn new(net: &'n Network, max_m: u32, depth: u32) -> SchemeC<'n> {
        SchemeC { net, stack: vec![(net.root_type(), true); depth as usize + 1], hist: vec![[0; 2]; max_m as usize + 2], trace: None }
    }

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

    /// The counts at `m`.
    pub fn counts(&self, m: u32) -> Counts {
        counts_at(&self.hist, m)
    }
}

/// Scheme C's counts at `m` from a histogram of [`SchemeC::hist`]: a node is
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

impl Observer for SchemeC<'_> {
    #[inline]
    fn enter(&mut self, v: &Visit) {
        if v.leaf {
            return;
        }
        let p = v.ply as usize;
        let t = if p == 0 {
            self.net.root_type()
        } else {
            let (pt, ppv) = self.stack[p - 1];
            self.net.predict(ppv, pt, v.index).0
        };
        self.stack[p] = (t, v.pv);
        if let Some(tr) = &mut self.trace {
            tr.push((v.ply, v.index, t));
        }
    }
    #[inline]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        if v.leaf || v.pv {
            return;
        }
        let max_m = self.hist.len() as u32 - 2;
        let m = SchemeC::first_m(self.stack[v.ply as usize].0, max_m);
        self.hist[m as usize][o.cutoff.is_some() as usize] += 1;
    }
}

/// What to score.
#[derive(Clone, Debug, Default)]
pub struct Config {
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

/// Parses `5` or `1..8` (inclusive) into the list of values.
pub fn parse_range(s: &str) -> Result<Vec<u32>> {
    let num = |x: &str| -> Result<u32> { x.trim().parse().map_err(|_| anyhow::anyhow!("`{s}`: `{x}` is not a non-negative integer (expected N or LO..HI)")) };
    match s.split_once("..") {
        None => Ok(vec![num(s)?]),
        Some((lo, hi)) => {
            let (lo, hi) = (num(lo)?, num(hi.trim_start_matches('='))?);
            ensure!(lo <= hi, "range `{s}` is empty (LO..HI is inclusive, LO <= HI)");
            Ok((lo..=hi).collect())
        }
    }
}

/// All schemes on one search.
struct All<'n> {
    a: Option<SchemeA>,
    b: Vec<SchemeB>,
    c: Option<SchemeC<'n>>,
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

fn classify_tree(t: &Tree, cfg: &Config, net: Option<&Network>) -> TreeCounts {
    let d = t.spec.depth;
    let max_m = cfg.c.iter().copied().max().unwrap_or(0);
    let mut obs = All {
        a: cfg.a.then(|| SchemeA::new(d)),
        b: cfg.b.iter().map(|&n| SchemeB::new(n, d)).collect(),
        c: net.filter(|_| !cfg.c.is_empty()).map(|n| SchemeC::new(n, max_m, d)),
    };
    search(&t.shape, t.root, d, &mut obs);
    TreeCounts { a: obs.a.map(|a| a.counts).unwrap_or_default(), b: obs.b.iter().map(|b| b.counts).collect(), c: obs.c.map(|c| c.hist).unwrap_or_default() }
}

/// Picks each group's network; refuses a mismatch unless forced.
/// Returns the index into `cfg.weights` per group and any warnings.
fn match_networks(groups: &[(Model, Ordering, u32)], cfg: &Config) -> Result<(Vec<Option<usize>>, Vec<String>)> {
    let mut picks = vec![];
    let mut warnings = vec![];
    for &(model, ordering, _) in groups {
        if cfg.c.is_empty() {
            picks.push(None);
            continue;
        }
        ensure!(!cfg.weights.is_empty(), "scheme C needs a network (--weights FILE)");
        if let Some(i) = cfg.weights.iter().position(|(_, n)| n.check_ordering(model, ordering).is_ok()) {
            picks.push(Some(i));
        } else if cfg.force && cfg.weights.len() == 1 {
            let (name, n) = &cfg.weights[0];
            warnings.push(format!("warning: using {name} (trained for {}) on {} ({ordering}) trees because of --force", n.trained_for, model.name()));
            picks.push(Some(0));
        } else if cfg.weights.len() == 1 {
            let (name, n) = &cfg.weights[0];
            bail!("{name}: {}", n.check_ordering(model, ordering).unwrap_err());
        } else {
            let have: Vec<String> = cfg.weights.iter().map(|(name, n)| format!("{name} ({})", n.trained_for)).collect();
            bail!("no network for {} ({ordering}) trees among {}; give its weights file (or one file with --force)", model.name(), have.join(", "));
        }
    }
    Ok((picks, warnings))
}

/// Scores the requested schemes over the trees (all cores): one group of
/// rows per (model, ordering, depth) in order of first appearance; within a
/// group scheme A, then B by n, then C by m. Returns the rows and any
/// warnings for stderr.
pub fn classify(trees: &[Tree], cfg: &Config) -> Result<(Vec<ClassifyRow>, Vec<String>)> {
    ensure!(cfg.a || !cfg.b.is_empty() || !cfg.c.is_empty(), "no scheme to score (use --scheme a, b or c)");
    ensure!(!cfg.b.contains(&0), "scheme B's n must be at least 1");
    let mut groups: Vec<(Model, Ordering, u32)> = vec![];
    let mut group_of = Vec::with_capacity(trees.len());
    for t in trees {
        let key = (t.spec.model, t.spec.ordering(), t.spec.depth);
        let g = groups.iter().position(|k| *k == key).unwrap_or_else(|| {
            groups.push(key);
            groups.len() - 1
        });
        group_of.push(g);
    }
    let (picks, warnings) = match_networks(&groups, cfg)?;
    let per_tree: Vec<TreeCounts> = trees.par_iter().zip(&group_of).map(|(t, &g)| classify_tree(t, cfg, picks[g].map(|i| &cfg.weights[i].1))).collect();
    let mut rows = vec![];
    for (g, &(_, o, depth)) in groups.iter().enumerate() {
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
    }
    Ok((rows, warnings))
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

    #[test]
    fn ranges_parse() {
        assert_eq!(parse_range("1..8").unwrap(), (1..=8).collect::<Vec<_>>());
        assert_eq!(parse_range("1..=3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_range("5").unwrap(), vec![5]);
        assert!(parse_range("8..1").unwrap_err().to_string().contains("empty"));
        assert!(parse_range("a..3").unwrap_err().to_string().contains("`a`"));
    }

    #[test]
    fn first_m_is_the_smallest_closed_interval() {
        assert_eq!(SchemeC::first_m(50.0, 50), 0);
        assert_eq!(SchemeC::first_m(60.0, 50), 10);
        assert_eq!(SchemeC::first_m(40.0, 50), 10);
        assert_eq!(SchemeC::first_m(60.5, 50), 11);
        assert_eq!(SchemeC::first_m(39.99, 50), 11);
        assert_eq!(SchemeC::first_m(-2.0, 50), 51);
        assert_eq!(SchemeC::first_m(101.0, 50), 51);
        assert_eq!(SchemeC::first_m(f64::NAN, 50), 51);
        assert_eq!(SchemeC::first_m(0.0, 50), 50);
        for k in 0..2000 {
            let t = -10.0 + k as f64 * 0.0613;
            let m = SchemeC::first_m(t, 50);
            for mm in 0..=50 {
                assert_eq!(is_cut(t, mm as f64), mm >= m, "t {t} m {mm}");
            }
        }
    }

    #[test]
    fn scheme_a_rules() {
        use Kind::*;
        assert_eq!(SchemeA::child(Pv, 1), Pv);
        assert_eq!(SchemeA::child(Pv, 2), Cut);
        assert_eq!(SchemeA::child(Cut, 1), All);
        assert_eq!(SchemeA::child(Cut, 3), Cut);
        assert_eq!(SchemeA::child(All, 1), Cut);
        assert_eq!(SchemeA::child(All, 2), Cut);
    }
}
