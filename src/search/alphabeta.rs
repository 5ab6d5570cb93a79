//! The one alpha-beta search (§2; `docs/model.md` §2.1), generic over what
//! the project's searches do differently: its [`Hooks`].
//!
//! Minimax form, fail-hard, the moves of a node in the order its hooks ask
//! (the source's by default), a node with no move before the horizon valued
//! by the game. Every search of the project is this function with a hook
//! set: the thesis's search with its observers ([`super::search`]), the
//! real searches' search below shared nodes (`real::seq::ab`), Lazy SMP's
//! threads (`real::lazy`: a shared table, a stop flag, rotated moves), the
//! cluster's sequential baseline (`cluster::search`: iterative deepening,
//! a table of its own, best move first, an abort at a node limit) and
//! `fbest`'s ordering accuracy (`fbest::accuracy`: no hooks at all, `()`). Hooks are generic parameters with empty defaults marked
//! `#[inline(always)]`: a hook a set leaves out costs nothing (the thesis
//! search compiles to the loop it was before hooks; `BENCHMARKS.md`).
//!
//! **Windows.** A node is entered with `alpha < beta` (every search of the
//! project keeps it: the root's window is full, and a child's window is
//! never empty while its parent has not cut off). The cut-off rule, the
//! bound a result is stored as ([`Bound::of`]) and a table's cut
//! ([`crate::tt::Entry::cut`]) rely on it.

use super::{Observer, Outcome, Visit};
use crate::game::{MoveList, TreeSource};
use crate::tt::{Bound, Entry};
use crate::value::Window;

/// What the hooks know of a node before it is searched (a table's entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// Nothing: search the node.
    Miss,
    /// Search the node, this move (0-based in the source's order) first.
    Hint(u32),
    /// The node's value in its window: return it unsearched.
    Cut(i64),
}

/// The order in which a node's moves are searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// The source's order: children made one at a time as they are
    /// searched, leaves valued inline ([`MoveList::leaf_value`]).
    Source,
    /// Move `first` (0-based in the source's order) first, then the others
    /// in the source's order rotated left by `shift` (the moves are all
    /// generated first).
    Permuted {
        /// The move searched first.
        first: u32,
        /// How far the rest are rotated.
        shift: u32,
    },
}

impl Order {
    /// The source place of the `i`-th (0-based) move searched of `n`.
    #[inline(always)]
    pub fn position(self, i: u32, n: u32) -> u32 {
        match self {
            Order::Source => i,
            Order::Permuted { first, shift } => {
                if i == 0 {
                    return first;
                }
                let r = (i - 1 + shift) % (n - 1);
                if r < first { r } else { r + 1 }
            }
        }
    }
}

/// What a search does besides alpha-beta. Its node hooks are an
/// [`Observer`]'s (`enter`: a leaf, or an internal node with its moves
/// counted, never a node the table cuts; `leave`; `stopped`, before each
/// child: the node then returns what it has); every method has a default
/// that does nothing (and costs nothing). The order of the calls at a node
/// is: [`Hooks::abort`]; at a leaf [`Observer::enter`] and
/// [`Observer::leave`]; else [`Hooks::probe`], the moves,
/// [`Observer::enter`], [`Hooks::prepare`], [`Hooks::order`], for each
/// child [`Observer::stopped`], the child ([`Hooks::descend`]) and
/// [`Hooks::aborted`]; then [`Observer::leave`] and [`Hooks::store`].
pub trait Hooks<S: TreeSource>: Observer + Sized {
    /// Entering a node `depth` above the horizon: whether to give up (the
    /// node returns its window's lower end, counted nowhere). A search
    /// that gives up must say so in [`Hooks::aborted`] from then on.
    #[inline(always)]
    fn abort(&mut self, _depth: u32) -> bool {
        false
    }
    /// Whether the search gave up: checked after every child, a node then
    /// returns its window's lower end at once, storing nothing.
    #[inline(always)]
    fn aborted(&self) -> bool {
        false
    }
    /// Before an internal node's moves are generated: what a table knows.
    #[inline(always)]
    fn probe(&mut self, _src: &S, _node: &S::Node, _v: &Visit, _depth: u32) -> Probe {
        Probe::Miss
    }
    /// A fresh move list of a node `depth` ≥ 2 above the horizon (its
    /// children will look at a table): a table may start fetching their
    /// entries ([`crate::game::TreeSource::child_keys`]), so that its memory
    /// latency overlaps the search.
    #[inline(always)]
    fn prefetch(&mut self, _src: &S, _moves: &S::Moves<'_>, _ply: u32) {}
    /// After the node is entered, before its moves are searched: work that
    /// improves the order (iterative deepening; it may search the node
    /// again through [`Hooks::descend`] with `buf`, the buffer of the
    /// levels below). Returns the move to search first.
    #[inline(always)]
    fn prepare(&mut self, _src: &S, _buf: &mut [S::Slot], _node: &S::Node, _depth: u32, _v: &Visit, hint: Option<u32>) -> Option<u32> {
        hint
    }
    /// The order of the node's `moves` moves, given the move to search first.
    #[inline(always)]
    fn order(&self, _v: &Visit, _depth: u32, _moves: u32, _hint: Option<u32>) -> Order {
        Order::Source
    }
    /// Searches a child (or the node again, from [`Hooks::prepare`]); a
    /// set may wrap the search (the cluster's tasks). Leaves valued inline
    /// do not come here.
    #[inline(always)]
    fn descend(&mut self, src: &S, buf: &mut [S::Slot], node: &S::Node, depth: u32, v: Visit) -> i64 {
        alphabeta(src, self, buf, node, depth, v)
    }
    /// The node, searched to `e.depth`, returned `e.value`, which is
    /// `e.bound`; its best move `e.best` (0-based in the source's order) is
    /// the cut-off move, else the last to raise the score, else the first
    /// searched; `e.tag` is 0, for the set to fill in. Not called once the
    /// search gave up.
    #[inline(always)]
    fn store(&mut self, _src: &S, _node: &S::Node, _v: &Visit, _e: Entry) {}
}

/// No hooks: the plain fail-hard search, nothing counted, observed or
/// stored (the ordering accuracy's children).
impl<S: TreeSource> Hooks<S> for () {}

/// Enters, values and leaves a leaf.
#[inline(always)]
fn leaf<S: TreeSource, H: Hooks<S>>(h: &mut H, v: &Visit, value: i64) -> i64 {
    h.enter(v);
    h.leave(v, &Outcome { value, cutoff: None, last_update: None, searched: 0 });
    value
}

/// A node's score as its moves come back.
struct Score {
    value: i64,
    cutoff: Option<u32>,
    last_update: Option<u32>,
    searched: u32,
    /// The source place of the best move so far.
    best: u32,
}

impl Score {
    /// Child `searched` (1-based in search order, at source place `pos`)
    /// returned `value`: true on a cut-off (the score is then the window's
    /// end).
    #[inline(always)]
    fn take(&mut self, v: &Visit, value: i64, pos: u32) -> bool {
        let Window { alpha, beta } = v.window;
        if v.max {
            if value >= beta {
                (self.value, self.cutoff, self.best) = (beta, Some(self.searched), pos);
                return true;
            }
            if value > self.value {
                (self.value, self.last_update, self.best) = (value, Some(self.searched), pos);
            }
        } else {
            if value <= alpha {
                (self.value, self.cutoff, self.best) = (alpha, Some(self.searched), pos);
                return true;
            }
            if value < self.value {
                (self.value, self.last_update, self.best) = (value, Some(self.searched), pos);
            }
        }
        false
    }

    /// The visit of the next child, `depth - 1` above the horizon.
    #[inline(always)]
    fn child(&self, v: &Visit, depth: u32) -> Visit {
        Visit {
            ply: v.ply + 1,
            index: self.searched,
            max: !v.max,
            window: v.window.child(v.max, self.value),
            pv: v.pv && self.searched == 1,
            leaf: depth == 1,
            moves: 0,
        }
    }
}

/// Searches `node` (`v.ply` from the root, MAX if `v.max`, in `v.window`)
/// to `depth` with hooks `h`; `buf` holds at least `depth` move lists.
/// `v` arrives with `leaf` and `moves` unset: a node is a leaf at the
/// horizon or when it has no moves (a game over), and its children are
/// counted when its move list starts, before the hooks see it.
pub fn alphabeta<S: TreeSource, H: Hooks<S>>(src: &S, h: &mut H, buf: &mut [S::Slot], node: &S::Node, depth: u32, mut v: Visit) -> i64 {
    if h.abort(depth) {
        return v.window.alpha;
    }
    if depth == 0 {
        v.leaf = true;
        let value = src.horizon_value(node, v.max);
        return leaf(h, &v, value);
    }
    let hint = match h.probe(src, node, &v, depth) {
        Probe::Cut(value) => return value,
        Probe::Hint(b) => Some(b),
        Probe::Miss => None,
    };
    let (mine, rest) = buf.split_at_mut(src.slots());
    let mut moves = src.moves(node, v.max, mine);
    if moves.is_empty() {
        v.leaf = true;
        let value = src.terminal_value(node, v.max, v.ply);
        return leaf(h, &v, value);
    }
    v.leaf = false;
    v.moves = moves.len();
    if depth >= 2 {
        h.prefetch(src, &moves, v.ply + 1);
    }
    h.enter(&v);
    let hint = h.prepare(src, rest, node, depth, &v, hint);
    if h.aborted() {
        return v.window.alpha;
    }
    let order = h.order(&v, depth, v.moves, hint);
    let mut s =
        Score { value: if v.max { v.window.alpha } else { v.window.beta }, cutoff: None, last_update: None, searched: 0, best: order.position(0, v.moves) };
    // One child's search: its value, or the node's return if the search gave up.
    macro_rules! child {
        ($k:expr, $pos:expr) => {{
            let (k, pos) = ($k, $pos);
            s.searched += 1;
            // The child's visit is made in each branch, so that what a
            // leaf's hooks never read is never computed.
            let value = if depth == 1 {
                // Leaves inline: no recursion, no buffer split.
                let cv = s.child(&v, depth);
                if h.abort(0) { cv.window.alpha } else { leaf(h, &cv, moves.leaf_value(node, k)) }
            } else {
                let child = moves.child(node, k);
                h.descend(src, rest, &child, depth - 1, s.child(&v, depth))
            };
            if h.aborted() {
                return v.window.alpha;
            }
            s.take(&v, value, pos)
        }};
    }
    match order {
        Order::Source => {
            while let Some(k) = moves.next() {
                if h.stopped() {
                    break;
                }
                if child!(k, s.searched) {
                    break;
                }
            }
        }
        Order::Permuted { .. } => {
            let mut ks = Vec::with_capacity(v.moves as usize);
            while let Some(k) = moves.next() {
                ks.push(k);
            }
            for i in 0..v.moves {
                if h.stopped() {
                    break;
                }
                let pos = order.position(i, v.moves);
                if child!(ks[pos as usize], pos) {
                    break;
                }
            }
        }
    }
    h.leave(&v, &Outcome { value: s.value, cutoff: s.cutoff, last_update: s.last_update, searched: s.searched });
    if !h.aborted() {
        h.store(src, node, &v, Entry { value: s.value, bound: Bound::of(s.value, v.window), depth, best: s.best, tag: 0 });
    }
    s.value
}
