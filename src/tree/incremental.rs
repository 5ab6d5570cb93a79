//! Incremental random trees (beyond the thesis; `docs/model.md` §7.8): the
//! synthetic trees of Ura, Tsuruoka and Chikayama (2014, §4.1), after
//! Smith and Nau's "N-game" trees.
//!
//! Every edge carries a random value; a node's value is the sum of the edge
//! values on its path from the root, seen from the root player (MAX): an
//! edge out of a MAX node adds its value, an edge out of a MIN node
//! subtracts it (an edge value is what the move gains for the side that
//! makes it). A leaf is worth its sum; an internal node's static evaluation
//! is its sum so far, so a search can order children and deepen
//! iteratively. Every node has exactly `b` children.
//!
//! **A node is a function of its path.** A node is its path key (a 64-bit
//! hash of the root seed and the child indices along the path) and its
//! value; child `k`'s key is [`child_key`] of its parent's key and `k`, its
//! edge value [`edge`] of its own key. So a node searched twice, in any
//! order, by any process, is the same node, and no tree is ever stored.
//!
//! **The edge distribution** ([`edge`]): a "stepped exponential", symmetric
//! about 0. With `s` the spec's `scale`, the magnitude is `t·s + u`, where
//! `u` is uniform on `0..s` and `t` is the number of trailing zero bits of
//! a uniform 32-bit word, capped at [`MAX_STEPS`] (so `t = j` with
//! probability `2^-(j+1)`): the density halves every `s`, an integer stand-in
//! for an exponential (Laplace) law with scale `s / ln 2`, most moves
//! changing the evaluation a little and a few a lot. The sign is a fair
//! coin. Ura et al. fitted their distribution to a shogi program's
//! evaluation differences, which we do not have; we report the ordering
//! accuracy this one gives instead (`fbest --accuracy`, `docs/findings.md`).
//!
//! **Evaluation noise** ([`eval_error`], `treegen --eval-noise X
//! [--eval-persist R]`, default 0: none). A real program's static
//! evaluation is not the position's worth; with noise, the evaluation a
//! search sees at a node (to order its parent's children, and as a leaf's
//! value at the horizon) is the node's path sum plus its *error*, a function
//! of its path. A node draws a fresh error from the edges' own law with step
//! `X` (a function of its key alone); its error is that draw plus `R/1000`
//! of its parent's error (truncated toward 0): a misjudgement a position
//! carries lives on, weakened, in the positions below it, as a real
//! evaluation misjudges a feature that one move does not change. Path sums
//! never carry errors, so searching a node deeper replaces its error by its
//! descendants' (which share only the weakened part of it), as a deeper
//! search corrects a real evaluation. With `R = 0` every node's error is its
//! own. `docs/model.md` §7.8 gives the law and why.
//!
//! **Children in static-evaluation order.** A node's move list hands its
//! children out best first for the side to move (largest value first at a
//! MAX node, smallest at a MIN node; equal values by child index), so every
//! search over these trees is ordered by the static evaluation, as Ura et
//! al.'s is.

use crate::game::{MoveList, TreeSource};
use crate::value::ROOT_PSCORE;
use serde::{Deserialize, Serialize};

/// The most steps of the edge distribution: magnitudes stay below
/// `(MAX_STEPS + 1) · scale`.
pub const MAX_STEPS: u32 = 15;

/// The edge scale `treegen` uses unless told (`--scale`): the one the
/// experiments' trees and the `shogi` noise step are made at.
pub const DEFAULT_SCALE: u32 = 100;

/// The largest `scale` a spec may ask for: with [`MAX_STEPS`] and depth 64,
/// every value stays on the score scale (`|sum| < 2^26 < ROOT_PSCORE`).
pub const MAX_SCALE: u32 = 65_536;

/// The largest branching factor.
pub const MAX_B: u32 = 4096;

/// The largest evaluation noise step (that of the edges' scale, for the
/// same reason).
pub const MAX_NOISE: u32 = MAX_SCALE;

/// The largest persistence of an error, in thousandths: an error stays
/// below `1000 / (1000 - R)` fresh draws, so values stay on the score
/// scale (`|sum + error| < 2^27`).
pub const MAX_PERSIST: u32 = 950;

/// The evaluation error's law: the step of a node's fresh draw and how
/// much of its parent's error it inherits ([`Incremental::child`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Noise {
    /// The fresh draw's step (0: no noise).
    pub step: u32,
    /// The share of the parent's error a node inherits, in thousandths.
    pub persist: u32,
}

impl Noise {
    /// Checks the law's bounds: step 0..=[`MAX_NOISE`], persistence
    /// 0..=[`MAX_PERSIST`], and 0 without a step.
    pub fn check(self) -> Result<Noise, IncrementalError> {
        if self.step > MAX_NOISE {
            return Err(IncrementalError::Noise(self.step));
        }
        if self.persist > MAX_PERSIST || (self.step == 0 && self.persist > 0) {
            return Err(IncrementalError::Persist(self.persist));
        }
        Ok(self)
    }

    /// The error of the node with key `key` below a parent whose error is
    /// `parent`: its fresh draw plus `persist / 1000` of the parent's
    /// (truncated toward 0).
    #[inline(always)]
    fn error(self, parent: i32, key: u64) -> i32 {
        if self.step == 0 {
            return 0;
        }
        let inherited = if self.persist == 0 { 0 } else { parent as i64 * self.persist as i64 / 1000 };
        (inherited + eval_error(key, self.step)) as i32
    }
}

impl std::fmt::Display for Noise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.persist {
            0 => write!(f, "{}", self.step),
            r => write!(f, "{} persisting {r}/1000", self.step),
        }
    }
}

/// The noise laws whose ordering accuracy (`fbest --accuracy`) is Ura et
/// al.'s shogi trees' (their Fig. 6: 82.3% at b = 5 between depths 14 and
/// 16, 66.7% at b = 20 between 6 and 8), as (b, law) at scale 100: the
/// persistence [`SHOGI_PERSIST`] (`docs/model.md` §7.8), the step found by
/// `pipelines/eval-noise.sh` on seed set tg2, which no experiment of Ura et
/// al.'s uses.
pub const SHOGI_NOISE: [(u32, Noise); 2] = [(5, Noise { step: SHOGI_B5, persist: SHOGI_PERSIST }), (20, Noise { step: SHOGI_B20, persist: SHOGI_PERSIST })];

/// The persistence of [`SHOGI_NOISE`], about `1000 · 2^(-1/3)`: an error
/// halves every three plies, the shortest half-life in whole plies at which
/// a step brings b = 5 to the paper's figure (`docs/model.md` §7.8).
pub const SHOGI_PERSIST: u32 = 794;

/// The step of [`SHOGI_NOISE`] at b = 5, found on all 200 trees of tg2
/// (the measure counts 6 nodes a tree).
const SHOGI_B5: u32 = 262;

/// The step of [`SHOGI_NOISE`] at b = 20, found on 100 trees of tg2 (21
/// nodes a tree).
const SHOGI_B20: u32 = 193;

/// What `treegen --eval-noise` takes: a step, or `shogi` (the law of
/// [`SHOGI_NOISE`] for the trees' b).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalNoise {
    /// This step (0: none).
    Step(u32),
    /// The shogi-like law of [`SHOGI_NOISE`].
    Shogi,
}

impl std::str::FromStr for EvalNoise {
    type Err = String;
    fn from_str(s: &str) -> Result<EvalNoise, String> {
        match s {
            "shogi" => Ok(EvalNoise::Shogi),
            _ => s.parse().map(EvalNoise::Step).map_err(|_| format!("`{s}` is neither a noise step (0..={MAX_NOISE}) nor `shogi`")),
        }
    }
}

impl EvalNoise {
    /// The law for trees of branching factor `b` at edge scale `scale`,
    /// a step's with persistence `persist` (thousandths; `None`: 0). The
    /// shogi law sets its own persistence, so it takes none.
    pub fn law(self, b: u32, scale: u32, persist: Option<u32>) -> Result<Noise, String> {
        match (self, persist) {
            // The bounds are the law's own (`Noise::check`), said in the
            // flags' words.
            (EvalNoise::Step(step), r) => Noise { step, persist: r.unwrap_or(0) }.check().map_err(|e| match e {
                IncrementalError::Noise(x) => format!("--eval-noise {x} must lie in 0..={MAX_NOISE}"),
                IncrementalError::Persist(r) if r > MAX_PERSIST => format!("--eval-persist {r} must lie in 0..={MAX_PERSIST} (thousandths)"),
                IncrementalError::Persist(_) => "--eval-persist needs an --eval-noise step above 0".into(),
                other => other.to_string(),
            }),
            (EvalNoise::Shogi, Some(_)) => Err(format!("--eval-noise shogi sets its own persistence ({SHOGI_PERSIST}): drop --eval-persist")),
            (EvalNoise::Shogi, None) if scale != 100 => Err(format!("--eval-noise shogi is calibrated at --scale 100, not {scale}: give a step")),
            (EvalNoise::Shogi, None) => SHOGI_NOISE
                .iter()
                .find(|(bb, _)| *bb == b)
                .map(|(_, x)| *x)
                .ok_or_else(|| format!("--eval-noise shogi is calibrated for b = 5 and b = 20 (the paper's shogi trees' accuracy), not {b}: give a step")),
        }
    }
}

/// The `model` of an incremental tree spec: always `incremental`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IncrementalModel {
    /// The only value.
    Incremental,
}

/// What is wrong with an incremental tree's parameters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IncrementalError {
    /// b out of range.
    #[error("branching factor b = {0} must lie in 1..={MAX_B}")]
    Branching(u32),
    /// scale out of range.
    #[error("edge scale {0} must lie in 1..={MAX_SCALE}")]
    Scale(u32),
    /// eval_noise out of range.
    #[error("evaluation noise {0} must lie in 0..={MAX_NOISE}")]
    Noise(u32),
    /// eval_persist out of range, or without noise.
    #[error("evaluation persistence {0} must lie in 0..={MAX_PERSIST} (thousandths), and be 0 without noise")]
    Persist(u32),
}

/// An incremental tree's shape: its branching factor, edge scale and
/// evaluation noise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Incremental {
    /// Children per node.
    pub b: u32,
    /// The edge distribution's step `s`.
    pub scale: u32,
    /// The evaluation error's law (step 0: the evaluation is the path sum).
    pub noise: Noise,
}

/// A node: its path key, its value on the score scale (root player's
/// view) and its evaluation error. The value is the path sum, never the
/// noisy evaluation: a node's children are built from it. Values and
/// errors are 32-bit (both stay below 2^31 by the limits above), so a node
/// is 16 bytes, as the cluster's messages and memory estimates count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct INode {
    /// Hash of the root seed and the path.
    pub key: u64,
    /// Root value plus the signed edge sum: without noise the static
    /// evaluation, and a leaf's value.
    pub value: i32,
    /// The evaluation error ([`Incremental::child`]; 0 without noise).
    pub error: i32,
}

/// One child in a move list: its static evaluation and its key (the child
/// itself, made once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    /// The child's static evaluation: its path sum plus its
    /// [`eval_error`].
    pub value: i64,
    /// Its key.
    pub key: u64,
}

pub use crate::game::mix;

/// The root's key for a seed.
#[inline]
pub fn root_key(seed: u64) -> u64 {
    mix(seed ^ 0x1c0f_fee5_eed0_0001)
}

/// The key of child `k` of the node with key `parent`.
#[inline(always)]
pub fn child_key(parent: u64, k: u32) -> u64 {
    mix(parent.wrapping_add((k as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

/// The edge value into the node with key `key` (see the module docs).
#[inline(always)]
pub fn edge(key: u64, scale: u32) -> i64 {
    let h = mix(key ^ 0x5eed_ed9e_0000_0000);
    let u = ((h & 0xffff_ffff) * scale as u64) >> 32;
    let t = ((h >> 32) as u32 | 1 << MAX_STEPS).trailing_zeros() as u64;
    let m = (t * scale as u64 + u) as i64;
    if h >> 63 == 1 { -m } else { m }
}

/// The fresh draw of the evaluation error of the node with key `key` at
/// noise step `noise`: the edges' law ([`edge`]) with step `noise`, drawn
/// from the key hashed apart from its edge's draw; 0 without noise.
#[inline(always)]
pub fn eval_error(key: u64, noise: u32) -> i64 {
    if noise == 0 { 0 } else { edge(mix(key ^ 0x0e7a_1e44_0b5e_0000), noise) }
}

impl Incremental {
    /// Checks `1 <= b <= MAX_B` and `1 <= scale <= MAX_SCALE`; no noise.
    pub fn new(b: u32, scale: u32) -> Result<Incremental, IncrementalError> {
        if !(1..=MAX_B).contains(&b) {
            return Err(IncrementalError::Branching(b));
        }
        if !(1..=MAX_SCALE).contains(&scale) {
            return Err(IncrementalError::Scale(scale));
        }
        Ok(Incremental { b, scale, noise: Noise::default() })
    }

    /// The same trees with evaluation noise `noise` (step 0..=[`MAX_NOISE`],
    /// persistence 0..=[`MAX_PERSIST`], 0 without a step).
    pub fn with_noise(self, noise: Noise) -> Result<Incremental, IncrementalError> {
        Ok(Incremental { noise: noise.check()?, ..self })
    }

    /// The static evaluation of `node`: its value plus its error.
    #[inline(always)]
    pub fn eval(&self, node: &INode) -> i64 {
        node.value as i64 + node.error as i64
    }

    /// The root of the tree with this seed: its error is its fresh draw.
    pub fn root(&self, seed: u64) -> INode {
        let key = root_key(seed);
        INode { key, value: ROOT_PSCORE as i32, error: eval_error(key, self.noise.step) as i32 }
    }

    /// Child `k` (0-based index, not search order) of `node`, a MAX node if `max`.
    #[inline(always)]
    pub fn child(&self, node: &INode, max: bool, k: u32) -> INode {
        let key = child_key(node.key, k);
        let e = edge(key, self.scale) as i32;
        INode { key, value: if max { node.value + e } else { node.value - e }, error: self.noise.error(node.error, key) }
    }
}

/// Sorts `buf` stably so that no slot is `before` one ahead of it.
#[inline(always)]
fn insertion_sort(buf: &mut [Slot], before: impl Fn(&Slot, &Slot) -> bool) {
    for i in 1..buf.len() {
        let x = buf[i];
        let mut j = i;
        while j > 0 && before(&x, &buf[j - 1]) {
            buf[j] = buf[j - 1];
            j -= 1;
        }
        buf[j] = x;
    }
}

/// A node's children in static-evaluation order (in the caller's buffer).
pub struct Moves<'a> {
    parent: u64,
    slots: &'a [Slot],
    next: u32,
    /// The tree's noise: a child's value is its slot's evaluation less its
    /// error.
    noise: Noise,
}

/// A move list without its buffer: its node's key and how many children
/// it handed out.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cursor {
    parent: u64,
    next: u32,
}

impl TreeSource for Incremental {
    type Node = INode;
    type Slot = Slot;
    type Moves<'a> = Moves<'a>;
    type Cursor = Cursor;

    #[inline(always)]
    fn slots(&self) -> usize {
        self.b as usize
    }
    #[inline]
    fn moves<'a>(&'a self, node: &INode, max: bool, buf: &'a mut [Slot]) -> Moves<'a> {
        let buf = &mut buf[..self.b as usize];
        if self.noise.step == 0 {
            // Without noise a child's evaluation is its sum (the loop the
            // plain trees' searches spend their time in, kept free of the
            // error's arithmetic).
            let v = node.value as i64;
            for (k, s) in buf.iter_mut().enumerate() {
                let key = child_key(node.key, k as u32);
                let e = edge(key, self.scale);
                *s = Slot { value: if max { v + e } else { v - e }, key };
            }
        } else {
            for (k, s) in buf.iter_mut().enumerate() {
                let c = self.child(node, max, k as u32);
                *s = Slot { value: self.eval(&c), key: c.key };
            }
        }
        // Best first for the side to move; equal values by index: the
        // slots start in index order, so a stable sort by value alone gives
        // that order (an insertion sort, inlined: b is small, and this is
        // the search's hottest loop after the table).
        if max {
            insertion_sort(buf, |x, y| x.value > y.value);
        } else {
            insertion_sort(buf, |x, y| x.value < y.value);
        }
        Moves { parent: node.key, slots: buf, next: 0, noise: self.noise }
    }
    #[inline(always)]
    fn horizon_value(&self, node: &INode, _max: bool) -> i64 {
        self.eval(node)
    }
    /// Never asked: every node has b >= 1 children.
    fn terminal_value(&self, node: &INode, _max: bool, _ply: u32) -> i64 {
        self.eval(node)
    }
    fn detach(&self, m: Moves<'_>) -> Cursor {
        Cursor { parent: m.parent, next: m.next }
    }
    fn resume<'a>(&'a self, c: Cursor, buf: &'a mut [Slot]) -> Moves<'a> {
        Moves { parent: c.parent, slots: &buf[..self.b as usize], next: c.next, noise: self.noise }
    }
    fn handed_out(c: &Cursor) -> u32 {
        c.next
    }
    fn root_key(&self, node: &INode) -> u64 {
        node.key
    }
    #[inline(always)]
    fn child_keys(&self, m: &Moves<'_>, ply: u32, mut f: impl FnMut(u64)) {
        let p = crate::game::mix(ply as u64 + 1);
        m.slots.iter().for_each(|s| f(s.key ^ p));
    }
    /// The node's key already hashes the root seed and the path (its
    /// subtree is a function of the path); the ply folded in.
    #[inline]
    fn tt_key(&self, n: &INode, ply: u32) -> u64 {
        n.key ^ crate::game::mix(ply as u64 + 1)
    }
}

impl MoveList<Incremental> for Moves<'_> {
    type Handle = usize;
    #[inline(always)]
    fn len(&self) -> u32 {
        self.slots.len() as u32
    }
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let i = self.next as usize;
        if i >= self.slots.len() {
            return None;
        }
        self.next += 1;
        Some(i)
    }
    #[inline(always)]
    fn child(&mut self, parent: &INode, i: usize) -> INode {
        let s = self.slots[i];
        let error = self.noise.error(parent.error, s.key);
        INode { key: s.key, value: (s.value - error as i64) as i32, error }
    }
    #[inline(always)]
    fn leaf_value(&mut self, _parent: &INode, i: usize) -> i64 {
        self.slots[i].value
    }
}

/// Incremental random trees as a tree family (`tree/family.rs`): a spec
/// line whose `model` is `incremental` is theirs.
impl super::TreeFamily for Incremental {
    type Spec = super::IncrementalSpec;
    const KIND: super::TreeKind = super::TreeKind::Incremental;
    fn claims(line: &super::SpecKeys) -> bool {
        line.str("model") == Some("incremental")
    }
    fn check(spec: &super::IncrementalSpec) -> Result<(Incremental, INode), super::SpecError> {
        use super::{MAX_DEPTH, SpecError};
        let source = Incremental::new(spec.b, spec.scale)?.with_noise(spec.noise())?;
        if spec.index == 0 {
            return Err(SpecError::IndexZero);
        }
        if spec.depth > MAX_DEPTH {
            return Err(SpecError::Depth(spec.depth));
        }
        Ok((source, source.root(spec.seed)))
    }
    fn head(spec: &super::IncrementalSpec) -> super::SpecHead<'_> {
        super::SpecHead { set: &spec.set, index: spec.index, depth: spec.depth }
    }
    fn key(spec: &super::IncrementalSpec) -> super::TreeKey {
        super::TreeKey::Incremental { b: spec.b, scale: spec.scale, noise: spec.noise(), depth: spec.depth }
    }
    fn identity(spec: &super::IncrementalSpec) -> super::IncrementalSpec {
        // The root's seed, b, the scale and the depth: the set and index
        // only name the seed (the root's key hashes the seed alone).
        super::IncrementalSpec { set: String::new(), index: 0, ..spec.clone() }
    }
    fn seed(spec: &super::IncrementalSpec) -> Option<u64> {
        Some(spec.seed)
    }
    fn fbest_width(&self) -> usize {
        self.b as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{minimax, search};

    /// The literal definition: a node's value is the root value plus the
    /// signed sum of the edges along `path` (child indices).
    fn reference_value(seed: u64, scale: u32, path: &[u32]) -> i64 {
        let mut key = root_key(seed);
        let mut v = ROOT_PSCORE as i64;
        for (ply, &k) in path.iter().enumerate() {
            key = child_key(key, k);
            let e = edge(key, scale);
            v += if ply % 2 == 0 { e } else { -e };
        }
        v
    }

    #[test]
    fn edge_values_against_literal_numbers() {
        // Fixed numbers, so that a change of the hash or the distribution
        // (which would change every tree) cannot pass unnoticed.
        let keys: Vec<u64> = (0..6).map(|i| child_key(root_key(1), i)).collect();
        let edges: Vec<i64> = keys.iter().map(|&k| edge(k, 100)).collect();
        assert_eq!(edges, [98, 107, 503, -98, 34, 12]);
        // The root's children (b = 6) by hand from those edges: values
        // ROOT_PSCORE + e, handed out largest first.
        let t = Incremental::new(6, 100).unwrap();
        let root = t.root(1);
        let mut buf = vec![Slot::default(); 6];
        let m = t.moves(&root, true, &mut buf);
        let r = ROOT_PSCORE as i64;
        let index = |key: u64| (0..6).find(|&k| child_key(root.key, k) == key);
        assert_eq!(
            m.slots.iter().map(|s| (index(s.key), s.value - r)).collect::<Vec<_>>(),
            [(Some(2), 503), (Some(1), 107), (Some(0), 98), (Some(4), 34), (Some(5), 12), (Some(3), -98)]
        );
    }

    #[test]
    fn edge_distribution_is_the_documented_one() {
        // Over 200,000 keys: the sign is fair, step j has share 2^-(j+1),
        // magnitudes stay below (MAX_STEPS + 1) * scale.
        let n = 200_000u64;
        let mut steps = [0u64; MAX_STEPS as usize + 1];
        let mut neg = 0;
        for i in 0..n {
            let e = edge(mix(i), 100);
            assert!(e.abs() < (MAX_STEPS as i64 + 1) * 100);
            steps[(e.abs() / 100) as usize] += 1;
            neg += (e < 0) as u64;
        }
        let share = |c: u64| c as f64 / n as f64;
        assert!((share(neg) - 0.5).abs() < 0.005, "{}", share(neg));
        assert!((share(steps[0]) - 0.5).abs() < 0.005, "{}", share(steps[0]));
        assert!((share(steps[1]) - 0.25).abs() < 0.005, "{}", share(steps[1]));
        assert!((share(steps[2]) - 0.125).abs() < 0.005, "{}", share(steps[2]));
    }

    #[test]
    fn children_are_the_literal_path_sums_in_static_order() {
        let t = Incremental::new(5, 100).unwrap();
        let root = t.root(7);
        let mut buf = vec![Slot::default(); 5];
        for (max, path0) in [(true, vec![]), (false, vec![3u32])] {
            let node = if max { root } else { t.child(&root, true, 3) };
            assert_eq!(node.value as i64, reference_value(7, 100, &path0));
            let mut m = t.moves(&node, max, &mut buf);
            let mut got = vec![];
            while let Some(h) = m.next() {
                let c = m.child(&node, h);
                let k = buf_index(&t, &node, max, c.key);
                let mut path = path0.clone();
                path.push(k);
                assert_eq!(c.value as i64, reference_value(7, 100, &path));
                got.push(c.value);
                m = t.resume(t.detach(m), &mut buf);
            }
            let mut sorted = got.clone();
            if max {
                sorted.sort_by(|a, b| b.cmp(a));
            } else {
                sorted.sort();
            }
            assert_eq!(got, sorted);
            assert_eq!(got.len(), 5);
        }
    }

    fn buf_index(t: &Incremental, node: &INode, _max: bool, key: u64) -> u32 {
        (0..t.b).find(|&k| child_key(node.key, k) == key).unwrap()
    }

    #[test]
    fn search_equals_minimax() {
        for b in [2, 3, 5] {
            let t = Incremental::new(b, 100).unwrap();
            for seed in 1..6 {
                let root = t.root(seed);
                for depth in 0..6 {
                    assert_eq!(search(&t, &root, depth, &mut ()).value, minimax(&t, &root, true, depth, 0), "b {b} seed {seed} depth {depth}");
                }
            }
        }
    }

    /// The literal error law: along `path`, each node's error is its
    /// fresh draw plus `persist / 1000` of its parent's (truncated).
    fn reference_error(seed: u64, noise: Noise, path: &[u32]) -> i64 {
        let mut key = root_key(seed);
        let mut err = eval_error(key, noise.step);
        for &k in path {
            key = child_key(key, k);
            err = err * noise.persist as i64 / 1000 + eval_error(key, noise.step);
        }
        err
    }

    #[test]
    fn noise_changes_what_the_search_sees_not_the_path_sums() {
        // Fixed numbers: the errors of the root's first children at step
        // 100, so a change of the error's hash cannot pass unnoticed.
        let keys: Vec<u64> = (0..4).map(|i| child_key(root_key(1), i)).collect();
        assert_eq!(keys.iter().map(|&k| eval_error(k, 100)).collect::<Vec<_>>(), NOISE_LITERALS);
        assert!(keys.iter().all(|&k| eval_error(k, 0) == 0));
        let plain = Incremental::new(5, 100).unwrap();
        for persist in [0, 500, 950] {
            let law = Noise { step: 300, persist };
            let noisy = plain.with_noise(law).unwrap();
            let mut buf = vec![Slot::default(); 5];
            for seed in 1..4 {
                // Two plies down the tree, by the move lists: every child
                // is its path sum, and the search saw its evaluation, the
                // sum plus the literal law's error.
                let root = noisy.root(seed);
                assert_eq!(noisy.eval(&root) - root.value as i64, reference_error(seed, law, &[]));
                for (node, max, path0) in [(root, true, vec![]), (noisy.child(&root, true, 2), false, vec![2u32])] {
                    let mut m = noisy.moves(&node, max, &mut buf);
                    let mut seen = vec![];
                    while let Some(h) = m.next() {
                        let c = m.child(&node, h);
                        let mut path = path0.clone();
                        path.push(buf_index(&noisy, &node, max, c.key));
                        assert_eq!(c.value as i64, reference_value(seed, 100, &path));
                        assert_eq!(m.leaf_value(&node, h), c.value as i64 + reference_error(seed, law, &path), "persist {persist} path {path:?}");
                        seen.push(m.leaf_value(&node, h));
                        m = noisy.resume(noisy.detach(m), &mut buf);
                    }
                    let sign = if max { 1 } else { -1 };
                    assert!(seen.windows(2).all(|w| sign * w[0] >= sign * w[1]), "best first by evaluation: {seen:?}");
                }
                for depth in 0..6 {
                    assert_eq!(search(&noisy, &root, depth, &mut ()).value, minimax(&noisy, &root, true, depth, 0));
                }
            }
            // Some tree's root value differs with noise (the horizon sees errors).
            assert!((1..20).any(|seed| search(&noisy, &noisy.root(seed), 4, &mut ()).value != search(&plain, &plain.root(seed), 4, &mut ()).value));
        }
        // Persistence makes a difference below the root's children.
        let [a, b] = [0, 500].map(|persist| plain.with_noise(Noise { step: 300, persist }).unwrap());
        assert!((1..20).any(|seed| search(&a, &a.root(seed), 4, &mut ()).value != search(&b, &b.root(seed), 4, &mut ()).value));
        assert_eq!(plain.with_noise(Noise { step: MAX_NOISE + 1, persist: 0 }), Err(IncrementalError::Noise(MAX_NOISE + 1)));
        assert_eq!(plain.with_noise(Noise { step: 100, persist: MAX_PERSIST + 1 }), Err(IncrementalError::Persist(MAX_PERSIST + 1)));
        assert_eq!(plain.with_noise(Noise { step: 0, persist: 500 }), Err(IncrementalError::Persist(500)));
    }

    #[test]
    fn shogi_noise_is_for_the_papers_b_at_scale_100() {
        assert_eq!("shogi".parse(), Ok(EvalNoise::Shogi));
        assert_eq!("250".parse(), Ok(EvalNoise::Step(250)));
        assert!("-1".parse::<EvalNoise>().is_err());
        assert_eq!(EvalNoise::Shogi.law(5, 100, None), Ok(Noise { step: SHOGI_B5, persist: SHOGI_PERSIST }));
        assert_eq!(EvalNoise::Shogi.law(20, 100, None), Ok(Noise { step: SHOGI_B20, persist: SHOGI_PERSIST }));
        assert!(EvalNoise::Shogi.law(7, 100, None).unwrap_err().contains("b = 5 and b = 20"));
        assert!(EvalNoise::Shogi.law(5, 50, None).unwrap_err().contains("--scale 100"));
        assert!(EvalNoise::Shogi.law(5, 100, Some(500)).unwrap_err().contains("drop --eval-persist"));
        assert_eq!(EvalNoise::Step(250).law(5, 100, Some(300)), Ok(Noise { step: 250, persist: 300 }));
        assert_eq!(EvalNoise::Step(250).law(5, 100, None), Ok(Noise { step: 250, persist: 0 }));
        assert!(EvalNoise::Step(0).law(5, 100, Some(300)).unwrap_err().contains("step above 0"));
        assert!(EvalNoise::Step(250).law(5, 100, Some(MAX_PERSIST + 1)).unwrap_err().contains("0..=950"));
        assert!(EvalNoise::Step(MAX_NOISE + 1).law(5, 100, None).is_err());
    }

    const NOISE_LITERALS: [i64; 4] = [-192, 191, -154, -86];

    #[test]
    fn bad_parameters_are_refused() {
        assert_eq!(Incremental::new(0, 100), Err(IncrementalError::Branching(0)));
        assert_eq!(Incremental::new(4097, 100), Err(IncrementalError::Branching(4097)));
        assert_eq!(Incremental::new(5, 0), Err(IncrementalError::Scale(0)));
        assert_eq!(Incremental::new(5, MAX_SCALE + 1), Err(IncrementalError::Scale(MAX_SCALE + 1)));
    }
}
