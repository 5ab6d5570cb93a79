//! Artificial game trees: the exponential ordering model of the thesis
//! (§4.2; `docs/model.md` §1) and a strongly ordered model for comparison.
//!
//! A tree is never stored. A node is its `(seed, pscore)` pair and its kind;
//! its children are regenerated from its own random stream whenever they are
//! needed, so the tree does not depend on the order in which nodes are
//! expanded (a parallel search sees the same tree as a sequential one).
//!
//! [`Moves`] hands out a node's children in search order *lazily*: until
//! the search asks for a second child only the first child's pscore is
//! computed (with the one position 0's pick may swap it with), then one
//! pass computes the rest; a child's seed is computed only when the search
//! enters it as an internal node, and the ordering pass runs one position
//! at a time. The ordering draws come strictly
//! in position order, so stopping after a cut-off changes nothing that is
//! used; the generation draws are at fixed offsets in the stream, reached by
//! jumping ahead ([`crate::rng::Powers`]). The result is draw-for-draw the
//! procedure of `docs/model.md` §1.2, which [`reference_children`] spells out
//! literally for the tests.

use crate::game::{MoveList, TreeSource};
use crate::rng::{LIMIT, Powers, STREAM_MUL, Stream, mulmod, scale, seed_state};
use crate::value::{SCORE_MAX, SCORE_MIN};
use serde::{Deserialize, Serialize};

/// `48271^2 mod LIMIT`: two draws at once.
const STREAM_MUL_2: u64 = (STREAM_MUL * STREAM_MUL) % LIMIT;

/// What is wrong with a tree's parameters or seed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// `--model` or a spec's `model` names no model. The message lists
    /// every model a spec's `model` may name, the incremental trees' too
    /// (whose lines are read by their own family), so that a misspelt
    /// `Incremental` is not told it may only be `exponential` or `strong`.
    #[error("unknown tree model `{0}` (expected `exponential`, `strong` or `incremental`)")]
    UnknownModel(String),
    /// b = 0.
    #[error("branching factor b must be at least 1, got 0")]
    NoChildren,
    /// b > 4096.
    #[error("branching factor b = {0} is too large (at most 4096)")]
    TooManyChildren(u32),
    /// w_a or w_b above 100.
    #[error("ordering weights w_a and w_b must lie in 0..=100, got w_a = {wa}, w_b = {wb}")]
    Weights {
        /// w_a.
        wa: u32,
        /// w_b.
        wb: u32,
    },
    /// An ordering that is not `B,WA,WB`.
    #[error("ordering `{0}` must be three numbers B,WA,WB, e.g. 32,79,5")]
    OrderingSyntax(String),
    /// One number of an ordering does not parse.
    #[error("ordering `{text}`: {what} `{value}` is not a non-negative integer")]
    OrderingNumber {
        /// The whole ordering.
        text: String,
        /// `b`, `w_a` or `w_b`.
        what: &'static str,
        /// The bad number.
        value: String,
    },
    /// The strong model with b other than 20.
    #[error("the strong model is defined for b = 20 only, got b = {0}")]
    StrongNeeds20(u32),
    /// A root seed that is 0 modulo 2^31-1.
    #[error("root seed {0} is 0 modulo 2^31-1: its random stream would be stuck at 0")]
    StuckSeed(u64),
    /// A root seed above 2^32-1.
    #[error("root seed {0} is larger than 2^32-1")]
    SeedTooLarge(u64),
}

type Result<T> = std::result::Result<T, TreeError>;

/// How a node's children are ordered (read from a spec by its
/// [`FromStr`](std::str::FromStr), whose message names every model).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// The thesis's exponential model with weights `w_a`, `w_b`.
    Exponential,
    /// Marsland, Reinefeld and Schaeffer's strongly ordered trees (b = 20):
    /// see [`STRONG_WEIGHTS`].
    Strong,
}

impl Model {
    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Model::Exponential => "exponential",
            Model::Strong => "strong",
        }
    }
}

impl<'de> Deserialize<'de> for Model {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Model, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl std::str::FromStr for Model {
    type Err = TreeError;
    fn from_str(s: &str) -> Result<Model> {
        match s {
            "exponential" => Ok(Model::Exponential),
            "strong" => Ok(Model::Strong),
            _ => Err(TreeError::UnknownModel(s.to_string())),
        }
    }
}

/// Weights of the strongly ordered model, in 300ths: the best child goes to
/// position 1 with weight 70%, to each of positions 2–5 with 5%, and to each
/// of positions 6–20 with 2/3%. Our deterministic procedure (documented in
/// `docs/decisions.md`): generate the children exactly as the exponential
/// model does (the first is best, the others are independent uniform draws,
/// so already in random order), then one more draw from the same stream,
/// `t = range(r, 0, 299)`, picks the position `p` whose cumulative weight
/// first exceeds `t`, and the pscores at positions 1 and `p` are swapped.
pub const STRONG_WEIGHTS: [u32; 20] = [210, 15, 15, 15, 15, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2];

/// A branch-ordering model with its parameters: `(b, w_a, w_b)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ordering {
    /// Branching factor.
    pub b: u32,
    /// Knowledge weight at the first position, percent.
    pub wa: u32,
    /// Knowledge weight at the other positions, percent.
    pub wb: u32,
}

impl Ordering {
    /// Checks `1 <= b` and `0 <= w_a, w_b <= 100`.
    pub fn new(b: u32, wa: u32, wb: u32) -> Result<Ordering> {
        if b == 0 {
            return Err(TreeError::NoChildren);
        }
        if b > 4096 {
            return Err(TreeError::TooManyChildren(b));
        }
        if wa > 100 || wb > 100 {
            return Err(TreeError::Weights { wa, wb });
        }
        Ok(Ordering { b, wa, wb })
    }

    /// The thesis's five orderings, in the order of `docs/model.md` §1.4.
    pub fn thesis() -> [Ordering; 5] {
        [
            Ordering { b: 32, wa: 79, wb: 5 },
            Ordering { b: 20, wa: 69, wb: 19 },
            Ordering { b: 32, wa: 66, wb: 66 },
            Ordering { b: 32, wa: 33, wb: 33 },
            Ordering { b: 32, wa: 0, wb: 0 },
        ]
    }
}

impl std::fmt::Display for Ordering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{},{}", self.b, self.wa, self.wb)
    }
}

impl std::str::FromStr for Ordering {
    type Err = TreeError;
    /// Parses `B,WA,WB`, e.g. `32,79,5`.
    fn from_str(s: &str) -> Result<Ordering> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let [b, wa, wb] = parts[..] else {
            return Err(TreeError::OrderingSyntax(s.to_string()));
        };
        let num = |x: &str, what: &'static str| -> Result<u32> {
            x.parse().map_err(|_| TreeError::OrderingNumber { text: s.to_string(), what, value: x.to_string() })
        };
        Ordering::new(num(b, "b")?, num(wa, "w_a")?, num(wb, "w_b")?)
    }
}

/// Everything needed to expand nodes of one tree shape: the model, its
/// parameters and the stream powers for jumping ahead.
#[derive(Clone, Debug)]
pub struct Shape {
    /// The model.
    pub model: Model,
    /// Its parameters.
    pub ordering: Ordering,
    powers: Powers,
    // `w_a · LIMIT` and `w_b · LIMIT`: a knowledge draw `d` picks the best
    // when `range(r, 0, 99) < w`, which is `d · 100 < w · LIMIT`.
    knows: [u64; 2],
}

impl Shape {
    /// Checks the combination (the strong model is defined for b = 20 only).
    pub fn new(model: Model, ordering: Ordering) -> Result<Shape> {
        if model == Model::Strong && ordering.b != 20 {
            return Err(TreeError::StrongNeeds20(ordering.b));
        }
        // Draw k (1-based) of a node's stream: generation uses draws 1..=2b-1,
        // the ordering pass continues from the state after draw 2b-1.
        let powers = Powers::new(2 * ordering.b as usize + 1);
        let knows = [ordering.wa as u64 * LIMIT, ordering.wb as u64 * LIMIT];
        Ok(Shape { model, ordering, powers, knows })
    }

    /// Branching factor.
    #[inline(always)]
    pub fn b(&self) -> usize {
        self.ordering.b as usize
    }

    /// Starts handing out the children of `node` (a MAX node if `max`),
    /// using `buf` (at least `b` long) for their pscores.
    #[inline]
    pub fn moves<'a>(&'a self, node: Node, max: bool, buf: &'a mut [u32]) -> Moves<'a> {
        let b = self.b();
        let buf = &mut buf[..b];
        buf[0] = node.pscore;
        let s0 = seed_state(node.seed as u64);
        let order_state = self.powers.jump(s0, 2 * b - 1);
        Moves { shape: self, s0, stream: Stream::from_state(order_state), ps: buf, next: 0, max, parent_pscore: node.pscore as u64, swapped: 0 }
    }
}

/// A node of an artificial tree: its seed and its minimax value (pscore).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// The seed of the node's stream.
    pub seed: u32,
    /// The node's minimax value; at a leaf, its score.
    pub pscore: u32,
}

/// The children of one node, handed out in search order (see module docs).
pub struct Moves<'a> {
    shape: &'a Shape,
    s0: u64,
    stream: Stream,
    ps: &'a mut [u32],
    next: usize,
    max: bool,
    parent_pscore: u64,
    // Before position 1 is handed out only `ps[0]` is written, and, if
    // position 0's pick swapped it with position `swapped` (0: none),
    // `ps[swapped]`; the rest of the buffer is stale. Handing out position
    // 1 computes every pscore ([`Moves::fill`]), and from then on `ps` is
    // read directly.
    swapped: u32,
}

impl Moves<'_> {
    /// The generated (pre-ordering) pscore of child `k` (0-based), `k >= 1`.
    #[inline(always)]
    fn generated(&self, k: usize) -> u32 {
        let v = self.shape.powers.jump(self.s0, 2 * k);
        let p = self.parent_pscore;
        (if self.max { scale(v, SCORE_MIN, p) } else { scale(v, p, SCORE_MAX) }) as u32
    }

    /// Computes every pscore, when position 1 is handed out. A node that
    /// goes past its first move usually searches many (an ALL node), and one
    /// branch-free pass is cheaper than deciding position by position; the
    /// buffer needs no clearing, as nothing but `ps[0]` and `ps[swapped]` is
    /// read before it.
    #[inline(always)]
    fn fill(&mut self) {
        for k in 1..self.ps.len() {
            self.ps[k] = self.generated(k);
        }
        if self.swapped != 0 {
            // Position 0's pick: the parent's pscore, the first child's.
            self.ps[self.swapped as usize] = self.parent_pscore as u32;
        }
    }

    /// Swaps the pscores at positions `i <= p`: at position 0 before
    /// [`Moves::fill`], where `p`'s is computed here; else in `ps`.
    #[inline(always)]
    fn swap(&mut self, i: usize, p: usize) {
        if i == p {
            return;
        }
        if i == 0 {
            let g = self.generated(p);
            self.ps[p] = self.ps[0];
            self.ps[0] = g;
            self.swapped = p as u32;
        } else {
            self.ps.swap(i, p);
        }
    }

    /// Index in `from..b` (`from >= 1`, so every pscore is computed) of the
    /// best pscore, the first of equals.
    #[inline]
    fn best_from(&self, from: usize) -> usize {
        let slice = &self.ps[from..];
        let mut best = 0;
        let mut bv = slice[0];
        if self.max {
            for (j, &v) in slice.iter().enumerate().skip(1) {
                if v > bv {
                    bv = v;
                    best = j;
                }
            }
        } else {
            for (j, &v) in slice.iter().enumerate().skip(1) {
                if v < bv {
                    bv = v;
                    best = j;
                }
            }
        }
        from + best
    }

    /// Orders position `i` (0-based) and returns its pscore.
    #[inline(always)]
    fn order_exponential(&mut self, i: usize) -> u32 {
        let b = self.ps.len();
        let knows = self.shape.knows[(i != 0) as usize];
        // The knowledge draw and the blind draw after it are both computed
        // from the current state, so the stream advances by one dependent
        // multiplication per position instead of two. `range(r, 0, 99) < w`
        // is `d * 100 < w * LIMIT`, without the division.
        let s = self.stream.state();
        let d1 = mulmod(s, STREAM_MUL);
        let d2 = mulmod(s, STREAM_MUL_2);
        let p = if d1 * 100 < knows {
            self.stream = Stream::from_state(d1);
            // Before any swap the parent's own pscore, the best, sits at
            // position 1 and is the first of any equals: no scan needed.
            if i == 0 { 0 } else { self.best_from(i) }
        } else {
            self.stream = Stream::from_state(d2);
            scale(d2, i as u64, b as u64 - 1) as usize
        };
        self.swap(i, p);
        self.ps[i]
    }

    #[inline]
    fn order_strong(&mut self, i: usize) -> u32 {
        if i == 0 {
            let t = self.stream.range(0, 299) as u32;
            let mut acc = 0;
            let mut p = 0;
            for (k, w) in STRONG_WEIGHTS.iter().enumerate() {
                acc += w;
                if t < acc {
                    p = k;
                    break;
                }
            }
            self.swap(0, p);
        }
        self.ps[i]
    }

    /// The next child in search order: its 0-based position and pscore.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<(usize, u32)> {
        let i = self.next;
        if i >= self.ps.len() {
            return None;
        }
        self.next += 1;
        if i == 1 {
            self.fill();
        }
        let v = match self.shape.model {
            Model::Exponential => self.order_exponential(i),
            Model::Strong => self.order_strong(i),
        };
        Some((i, v))
    }

    /// The seed of the child at 0-based position `k` (seeds never move).
    #[inline(always)]
    pub fn seed(&self, k: usize) -> u32 {
        self.shape.powers.jump(self.s0, 2 * k + 1) as u32
    }

    /// The child at 0-based position `k`, once position `k` has been handed out.
    #[inline(always)]
    pub fn child(&self, k: usize) -> Node {
        debug_assert!(k < self.next);
        Node { seed: self.seed(k), pscore: self.ps[k] }
    }
}

/// The state of a node's [`Moves`] without the borrows, so that a simulator
/// can keep the move lists of many nodes alive at once (the pscores live in a
/// buffer the caller owns, at least `b` long). [`Shape::next_move`] hands out
/// exactly what [`Moves::next`] would.
#[derive(Clone, Copy, Debug)]
pub struct MoveCursor {
    s0: u64,
    stream: Stream,
    next: u32,
    max: bool,
    swapped: u32,
    parent_pscore: u32,
}

impl MoveCursor {
    /// Positions handed out so far.
    #[inline(always)]
    pub fn handed_out(&self) -> usize {
        self.next as usize
    }

    /// The seed of the child at 0-based position `k` (seeds never move).
    #[inline(always)]
    pub fn seed(&self, shape: &Shape, k: usize) -> u32 {
        shape.powers.jump(self.s0, 2 * k + 1) as u32
    }
}

impl Shape {
    /// Starts the move list of `node` (a MAX node if `max`) in `buf`.
    #[inline]
    pub fn cursor(&self, node: Node, max: bool, buf: &mut [u32]) -> MoveCursor {
        let m = self.moves(node, max, buf);
        MoveCursor { s0: m.s0, stream: m.stream, next: 0, max, swapped: 0, parent_pscore: node.pscore }
    }

    /// The next child of a cursor's node in search order: its 0-based
    /// position and pscore. `buf` must be the buffer given to [`Shape::cursor`].
    #[inline]
    pub fn next_move(&self, cur: &mut MoveCursor, buf: &mut [u32]) -> Option<(usize, u32)> {
        let b = self.b();
        let mut m = Moves {
            shape: self,
            s0: cur.s0,
            stream: cur.stream,
            ps: &mut buf[..b],
            next: cur.next as usize,
            max: cur.max,
            parent_pscore: cur.parent_pscore as u64,
            swapped: cur.swapped,
        };
        let r = m.next();
        cur.stream = m.stream;
        cur.next = m.next as u32;
        cur.swapped = m.swapped;
        r
    }
}

/// The artificial model as a tree source: a node is its `(seed, pscore)`,
/// its move list the lazy [`Moves`], a leaf's value its pscore.
impl TreeSource for Shape {
    type Node = Node;
    type Slot = u32;
    type Moves<'a> = Moves<'a>;
    type Cursor = MoveCursor;

    #[inline(always)]
    fn slots(&self) -> usize {
        self.b()
    }
    #[inline(always)]
    fn moves<'a>(&'a self, node: &Node, max: bool, buf: &'a mut [u32]) -> Moves<'a> {
        Shape::moves(self, *node, max, buf)
    }
    #[inline(always)]
    fn horizon_value(&self, node: &Node, _max: bool) -> i64 {
        node.pscore as i64
    }
    /// Never asked: every node has b >= 1 children.
    #[inline(always)]
    fn terminal_value(&self, node: &Node, _max: bool, _ply: u32) -> i64 {
        node.pscore as i64
    }
    #[inline(always)]
    fn detach(&self, m: Moves<'_>) -> MoveCursor {
        MoveCursor { s0: m.s0, stream: m.stream, next: m.next as u32, max: m.max, swapped: m.swapped, parent_pscore: m.parent_pscore as u32 }
    }
    #[inline(always)]
    fn resume<'a>(&'a self, c: MoveCursor, buf: &'a mut [u32]) -> Moves<'a> {
        Moves {
            shape: self,
            s0: c.s0,
            stream: c.stream,
            ps: &mut buf[..self.b()],
            next: c.next as usize,
            max: c.max,
            parent_pscore: c.parent_pscore as u64,
            swapped: c.swapped,
        }
    }
    #[inline(always)]
    fn handed_out(c: &MoveCursor) -> u32 {
        c.next
    }
    fn root_key(&self, node: &Node) -> u64 {
        node.seed as u64
    }
    /// A node's subtree is a function of its seed and pscore (the
    /// children's pscores are drawn from the node's stream around its own
    /// pscore), and of whether it is MAX, which the ply gives.
    #[inline]
    fn tt_key(&self, n: &Node, ply: u32) -> u64 {
        crate::game::mix(((n.seed as u64) << 32 | n.pscore as u64) ^ crate::game::mix(ply as u64 + 1))
    }
}

/// A handle is the child's position and pscore, so a leaf's value needs no
/// second look at the buffer.
impl MoveList<Shape> for Moves<'_> {
    type Handle = (usize, u32);
    #[inline(always)]
    fn len(&self) -> u32 {
        self.ps.len() as u32
    }
    #[inline(always)]
    fn next(&mut self) -> Option<(usize, u32)> {
        Moves::next(self)
    }
    #[inline(always)]
    fn child(&mut self, _parent: &Node, (k, pscore): (usize, u32)) -> Node {
        Node { seed: self.seed(k), pscore }
    }
    #[inline(always)]
    fn leaf_value(&mut self, _parent: &Node, (_, pscore): (usize, u32)) -> i64 {
        pscore as i64
    }
}

/// The children of `node` in search order, by the literal pseudo-code of
/// `docs/model.md` §1.2 (eager, draw by draw). Slow; the tests hold [`Moves`] to it.
pub fn reference_children(shape: &Shape, node: Node, max: bool) -> Vec<Node> {
    let b = shape.b();
    let mut r = Stream::new(node.seed as u64);
    let mut kids = Vec::with_capacity(b);
    let p = node.pscore as u64;
    for i in 0..b {
        let pscore = if i == 0 {
            p
        } else if max {
            r.range(SCORE_MIN, p)
        } else {
            r.range(p, SCORE_MAX)
        };
        let seed = r.next_draw();
        kids.push(Node { seed: seed as u32, pscore: pscore as u32 });
    }
    let better = |a: u32, c: u32| if max { a > c } else { a < c };
    match shape.model {
        Model::Exponential => {
            for i in 0..b {
                let w = if i == 0 { shape.ordering.wa } else { shape.ordering.wb } as u64;
                let pick = if r.range(0, 99) < w {
                    let mut best = i;
                    for k in i + 1..b {
                        if better(kids[k].pscore, kids[best].pscore) {
                            best = k;
                        }
                    }
                    best
                } else {
                    r.range(i as u64, b as u64 - 1) as usize
                };
                let t = kids[i].pscore;
                kids[i].pscore = kids[pick].pscore;
                kids[pick].pscore = t;
            }
        }
        Model::Strong => {
            let t = r.range(0, 299) as u32;
            let mut acc = 0;
            for (k, w) in STRONG_WEIGHTS.iter().enumerate() {
                acc += w;
                if t < acc {
                    let x = kids[0].pscore;
                    kids[0].pscore = kids[k].pscore;
                    kids[k].pscore = x;
                    break;
                }
            }
        }
    }
    kids
}

/// Checks a root seed: its stream must not be stuck at zero.
pub fn check_seed(seed: u64) -> Result<u32> {
    if seed.is_multiple_of(LIMIT) {
        return Err(TreeError::StuckSeed(seed));
    }
    if seed > u32::MAX as u64 {
        return Err(TreeError::SeedTooLarge(seed));
    }
    Ok(seed as u32)
}

/// The analytic probability that the move at 1-based position `n` is best in
/// an exponentially ordered node (thesis equations 4.1 and 4.2).
pub fn analytic_p(o: Ordering, n: u32) -> f64 {
    let (a, bb, b) = (o.wa as f64 / 100.0, o.wb as f64 / 100.0, o.b as f64);
    if n == 1 { a + (1.0 - a) / b } else { (1.0 - a) * (1.0 - bb).powi(n as i32 - 2) * (1.0 / b) * ((b - n as f64 + 1.0) * bb + (1.0 - bb)) }
}

/// The thesis's trees as a tree family (`tree/family.rs`): a spec line
/// with neither a `game` field nor another family's `model` is theirs.
impl super::TreeFamily for Shape {
    type Spec = super::TreeSpec;
    const KIND: super::TreeKind = super::TreeKind::Artificial;
    fn claims(_line: &super::SpecKeys) -> bool {
        true
    }
    fn check(spec: &super::TreeSpec) -> std::result::Result<(Shape, Node), super::SpecError> {
        use super::{MAX_DEPTH, SpecError};
        let ordering = Ordering::new(spec.b, spec.wa, spec.wb)?;
        let shape = Shape::new(spec.model, ordering)?;
        let seed = check_seed(spec.seed)?;
        if spec.index == 0 {
            return Err(SpecError::IndexZero);
        }
        if spec.pscore > SCORE_MAX {
            return Err(SpecError::Pscore(spec.pscore));
        }
        if spec.depth > MAX_DEPTH {
            return Err(SpecError::Depth(spec.depth));
        }
        Ok((shape, Node { seed, pscore: spec.pscore as u32 }))
    }
    fn head(spec: &super::TreeSpec) -> super::SpecHead<'_> {
        super::SpecHead { set: &spec.set, index: spec.index, depth: spec.depth }
    }
    fn key(spec: &super::TreeSpec) -> super::TreeKey {
        super::TreeKey::Artificial { model: spec.model, ordering: spec.ordering(), depth: spec.depth }
    }
    fn identity(spec: &super::TreeSpec) -> super::TreeSpec {
        // The root's seed and pscore, the model and ordering, the depth.
        super::TreeSpec { set: String::new(), index: 0, ..spec.clone() }
    }
    fn seed(spec: &super::TreeSpec) -> Option<u64> {
        Some(spec.seed)
    }
    fn fbest_width(&self) -> usize {
        self.b()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{NodeCounts, minimax, search};
    use crate::value::ROOT_PSCORE;

    fn lazy_children(shape: &Shape, node: Node, max: bool) -> Vec<Node> {
        let mut buf = vec![0; shape.b()];
        let mut m = shape.moves(node, max, &mut buf);
        let mut out = vec![];
        while let Some((k, _)) = m.next() {
            out.push(m.child(k));
        }
        out
    }

    #[test]
    fn lazy_equals_reference_for_many_nodes() {
        let shapes = [
            (Model::Exponential, Ordering::new(32, 79, 5).unwrap()),
            (Model::Exponential, Ordering::new(20, 69, 19).unwrap()),
            (Model::Exponential, Ordering::new(32, 0, 0).unwrap()),
            (Model::Exponential, Ordering::new(5, 100, 100).unwrap()),
            (Model::Exponential, Ordering::new(1, 50, 50).unwrap()),
            (Model::Strong, Ordering::new(20, 0, 0).unwrap()),
        ];
        for (model, o) in shapes {
            let shape = Shape::new(model, o).unwrap();
            let mut s = Stream::new(42);
            for t in 0..300 {
                let seed = s.next_draw() as u32;
                // Include extreme pscores, which make ties likely.
                let pscore = match t % 5 {
                    0 => 0,
                    1 => 3,
                    2 => SCORE_MAX as u32,
                    _ => s.range(0, SCORE_MAX) as u32,
                };
                let node = Node { seed, pscore };
                for max in [true, false] {
                    assert_eq!(lazy_children(&shape, node, max), reference_children(&shape, node, max), "{model:?} {o} {node:?} {max}");
                }
            }
        }
    }

    #[test]
    fn cursor_equals_moves() {
        let shape = Shape::new(Model::Exponential, Ordering::new(32, 79, 5).unwrap()).unwrap();
        for seed in 1..50u32 {
            let node = Node { seed: seed * 104_729, pscore: (seed * 1000) };
            let mut buf = vec![0; 32];
            let mut cur = shape.cursor(node, seed % 2 == 0, &mut buf);
            let mut kids = vec![];
            while let Some((k, p)) = shape.next_move(&mut cur, &mut buf) {
                kids.push(Node { seed: cur.seed(&shape, k), pscore: p });
            }
            assert_eq!(cur.handed_out(), 32);
            assert_eq!(kids, reference_children(&shape, node, seed % 2 == 0));
        }
    }

    #[test]
    fn first_child_is_best_before_ordering() {
        // With w_a = w_b = 100 every pick is "knowledge": the order is sorted
        // best first, first of equals first.
        let shape = Shape::new(Model::Exponential, Ordering::new(8, 100, 100).unwrap()).unwrap();
        let node = Node { seed: 12345, pscore: ROOT_PSCORE as u32 };
        let kids = reference_children(&shape, node, true);
        assert_eq!(kids[0].pscore, node.pscore);
        assert!(kids.windows(2).all(|w| w[0].pscore >= w[1].pscore));
    }

    #[test]
    fn analytic_matches_table_4_5() {
        let o = Ordering::new(20, 69, 19).unwrap();
        assert_eq!(format!("{:.6}", analytic_p(o, 1)), "0.705500");
        let five: f64 = (1..=5).map(|n| analytic_p(o, n)).sum();
        assert_eq!(format!("{five:.6}"), "0.899916");
    }

    #[test]
    fn analytic_sums_to_one() {
        for o in Ordering::thesis().into_iter().chain([Ordering::new(1, 0, 0).unwrap(), Ordering::new(7, 100, 3).unwrap()]) {
            let s: f64 = (1..=o.b).map(|n| analytic_p(o, n)).sum();
            assert!((s - 1.0).abs() < 1e-12, "{o}: {s}");
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert_eq!(Ordering::new(0, 1, 1), Err(TreeError::NoChildren));
        assert_eq!(Ordering::new(3, 101, 1), Err(TreeError::Weights { wa: 101, wb: 1 }));
        assert_eq!("32,79".parse::<Ordering>(), Err(TreeError::OrderingSyntax("32,79".into())));
        assert!(matches!("32,-1,5".parse::<Ordering>(), Err(TreeError::OrderingNumber { what: "w_a", .. })));
        assert_eq!(Shape::new(Model::Strong, Ordering::new(32, 0, 0).unwrap()).err(), Some(TreeError::StrongNeeds20(32)));
        assert_eq!(check_seed(LIMIT), Err(TreeError::StuckSeed(LIMIT)));
        assert_eq!(check_seed(0), Err(TreeError::StuckSeed(0)));
        assert_eq!(check_seed(1 << 40), Err(TreeError::SeedTooLarge(1 << 40)));
        assert_eq!("weak".parse::<Model>(), Err(TreeError::UnknownModel("weak".into())));
        assert!(check_seed(1).is_ok());
    }

    /// The search of an artificial tree returns its root's pscore, as
    /// minimax does (the root pscore is the tree's minimax value by
    /// construction).
    #[test]
    fn root_value_is_minimax_and_pscore() {
        for o in [Ordering::new(3, 50, 50).unwrap(), Ordering::new(4, 0, 0).unwrap(), Ordering::new(2, 100, 0).unwrap()] {
            let shape = Shape::new(Model::Exponential, o).unwrap();
            for seed in 1..40u32 {
                let root = Node { seed: seed * 7919, pscore: ROOT_PSCORE as u32 };
                for depth in 0..5 {
                    let r = search(&shape, &root, depth, &mut ());
                    assert_eq!(r.value, ROOT_PSCORE as i64);
                    assert_eq!(r.value, minimax(&shape, &root, true, depth, 0));
                    assert_eq!(r.counts.nodes, r.counts.leaves + r.counts.internal);
                }
            }
        }
    }

    #[test]
    fn full_tree_without_pruning_at_random_ordering_depth_one() {
        // Depth 1: the root searches all b leaves unless a leaf reaches beta,
        // which cannot happen with the root window.
        let shape = Shape::new(Model::Exponential, Ordering::new(5, 0, 0).unwrap()).unwrap();
        let r = search(&shape, &Node { seed: 99, pscore: 1000 }, 1, &mut ());
        assert_eq!(r.counts, NodeCounts { nodes: 6, leaves: 5, internal: 1 });
    }
}
