//! The value scale every tree source and search shares (§4.2; `docs/model.md`
//! §1.1 and §7.1), and the search window on it.
//!
//! Scores are the artificial trees' pscores, `SCORE_MIN..=SCORE_MAX` (the
//! range of a Park–Miller draw). The search's infinite bounds lie one
//! outside them: the root window `(SCORE_MIN - 1, SCORE_MAX + 1)` is the full
//! window, so a node's window tells whether it is on the PV path or bounded
//! on one side by the root's (the node types of `docs/model.md` §4 read it).
//!
//! **Games on the same scale.** A game's evaluation `v` (from the root
//! player's point of view, MAX) is placed on the scale as `ROOT_PSCORE + v`,
//! far inside it ([`on_scale`], [`off_scale`]), so the root window is the
//! full window for every source and node types mean the same thing
//! everywhere.

use crate::rng::LIMIT;

/// Lowest score.
pub const SCORE_MIN: u64 = 0;
/// Highest score, `LIMIT - 1`.
pub const SCORE_MAX: u64 = LIMIT - 1;
/// The root's pscore, `(SCORE_MAX - SCORE_MIN) / 2`; a game's 0.
pub const ROOT_PSCORE: u64 = (SCORE_MAX - SCORE_MIN) / 2;

/// The search's −∞: the root window's lower end, `SCORE_MIN - 1`.
pub const ROOT_ALPHA: i64 = SCORE_MIN as i64 - 1;
/// The search's +∞: the root window's upper end, `SCORE_MAX + 1`.
pub const ROOT_BETA: i64 = SCORE_MAX as i64 + 1;

/// An alpha-beta window `(alpha, beta)`: a node's value matters only
/// strictly between the two (fail-hard: it returns within `[alpha, beta]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Window {
    /// The lower bound: the best MAX can already force.
    pub alpha: i64,
    /// The upper bound: the best MIN can already force.
    pub beta: i64,
}

impl Window {
    /// The root's window, the full one: `(ROOT_ALPHA, ROOT_BETA)`.
    pub const ROOT: Window = Window { alpha: ROOT_ALPHA, beta: ROOT_BETA };

    /// The root's window (the node is on the PV path).
    #[inline(always)]
    pub fn is_root(self) -> bool {
        self == Window::ROOT
    }

    /// The window of a child of a node with this window and current score
    /// `score`: a MAX node (`max`) raises alpha to its score, a MIN node
    /// lowers beta.
    #[inline(always)]
    pub fn child(self, max: bool, score: i64) -> Window {
        if max { Window { alpha: score, beta: self.beta } } else { Window { alpha: self.alpha, beta: score } }
    }

    /// A node's window once a child's fail-hard value `v` is in: a MAX node
    /// (`max`) raises alpha to it, a MIN node lowers beta (a window only
    /// narrows). The message-passing searches' nodes combine their
    /// children's values with it, whichever process searched them; the
    /// simulator and the real heap narrow a node's window with it when a
    /// bound found elsewhere reaches the node.
    #[inline(always)]
    pub fn raise(self, max: bool, v: i64) -> Window {
        if max { self.child(true, self.alpha.max(v)) } else { self.child(false, self.beta.min(v)) }
    }

    /// Both windows at once: the narrower bound of each end.
    #[inline(always)]
    pub fn meet(self, w: Window) -> Window {
        Window { alpha: self.alpha.max(w.alpha), beta: self.beta.min(w.beta) }
    }

    /// Whether the window has closed (alpha ≥ beta): the node is cut off.
    #[inline(always)]
    pub fn closed(self) -> bool {
        self.alpha >= self.beta
    }

    /// The fail-hard value of a node whose window narrowed to this one as
    /// its children came in (as the sequential search returns it): a MAX
    /// node's alpha, a MIN node's beta; the other bound when cut off.
    #[inline(always)]
    pub fn value(self, max: bool) -> i64 {
        if max != self.closed() { self.alpha } else { self.beta }
    }
}

/// A node's best move so far: its value and 1-based index among the moves
/// handed out (0: none yet), with **the root's tie rule**, one for every
/// search that may finish the root's moves out of order (the real heap's
/// root, Lazy SMP's threads). The root's move is the first move in search
/// order with the best value, as the sequential search finds it; so a move
/// before the best is searched with alpha one lower (a tie with the best
/// then comes back exact, not as a fail-low at alpha), and a tie from an
/// earlier move takes the best's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Best {
    /// The best value so far (the window's end at first).
    pub score: i64,
    /// Its move, 1-based (0: none yet).
    pub index: u32,
}

impl Best {
    /// Nothing found yet at a node whose score starts at `score`.
    #[inline(always)]
    pub fn new(score: i64) -> Best {
        Best { score, index: 0 }
    }

    /// The window of root move `index` of a root in window `w` (a MAX
    /// node): alpha at the best score, one lower for a move before the best.
    #[inline(always)]
    pub fn root_window(self, w: Window, index: u32) -> Window {
        w.child(true, if index < self.index { self.score - 1 } else { self.score })
    }

    /// Root move `index` came back with `v`: it becomes the best if better,
    /// or equal and earlier in search order; whether it did.
    #[inline(always)]
    pub fn root_offer(&mut self, index: u32, v: i64) -> bool {
        let better = v > self.score || (v == self.score && index < self.index);
        if better {
            *self = Best { score: v, index };
        }
        better
    }
}

/// Places a game's evaluation `v_stm`, from the side to move's point of
/// view at a MAX node if `max` (else from the opponent's), on the scale.
#[inline(always)]
pub fn on_scale(v_stm: i64, max: bool) -> i64 {
    ROOT_PSCORE as i64 + if max { v_stm } else { -v_stm }
}

/// Takes a value on the scale back to the game's units, from the root
/// player's point of view.
#[inline]
pub fn off_scale(v: i64) -> i64 {
    v - ROOT_PSCORE as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_and_its_bounds() {
        assert_eq!((SCORE_MIN, SCORE_MAX, ROOT_PSCORE), (0, 2_147_483_646, 1_073_741_823));
        assert_eq!(Window::ROOT, Window { alpha: -1, beta: 2_147_483_647 });
        assert!(Window::ROOT.is_root() && !Window { alpha: 0, ..Window::ROOT }.is_root());
        assert_eq!(Window::ROOT.child(true, 5), Window { alpha: 5, beta: ROOT_BETA });
        assert_eq!(Window::ROOT.child(false, 5), Window { alpha: ROOT_ALPHA, beta: 5 });
    }

    /// A node's window as its children's values come in, by hand: (2, 9)
    /// at a MAX node takes 5 (alpha 5), ignores 3, closes at 9 (cut off:
    /// the value is beta, 9); at a MIN node 5 lowers beta, 1 closes it
    /// (value alpha, 2).
    #[test]
    fn a_window_narrows_and_gives_the_fail_hard_value() {
        let w = Window { alpha: 2, beta: 9 };
        assert_eq!(w.raise(true, 5), Window { alpha: 5, beta: 9 });
        assert_eq!(w.raise(true, 5).raise(true, 3), Window { alpha: 5, beta: 9 });
        assert_eq!((w.raise(true, 5).value(true), w.raise(true, 5).closed()), (5, false));
        assert_eq!((w.raise(true, 9).closed(), w.raise(true, 9).value(true)), (true, 9));
        assert_eq!((w.raise(false, 5), w.raise(false, 5).value(false)), (Window { alpha: 2, beta: 5 }, 5));
        assert_eq!((w.raise(false, 1).closed(), w.raise(false, 1).value(false)), (true, 2));
        // Nothing in: a MAX node fails low at alpha, a MIN node high at beta.
        assert_eq!((w.value(true), w.value(false)), (2, 9));
        assert_eq!(w.meet(Window { alpha: 4, beta: 20 }), Window { alpha: 4, beta: 9 });
        assert_eq!(Window { alpha: 2, beta: 9 }.meet(Window { alpha: 0, beta: 5 }), Window { alpha: 2, beta: 5 });
        assert!(Window { alpha: 4, beta: 4 }.closed() && !Window { alpha: 3, beta: 4 }.closed());
        assert_eq!(off_scale(on_scale(-30, true)), -30);
        assert_eq!(off_scale(on_scale(-30, false)), 30);
    }

    /// The root's tie rule by hand: moves 3 (value 10) then 1 (10, a tie,
    /// earlier: it takes the place), then 2 (10 again, but later than 1);
    /// a move before the best searches with alpha one lower.
    #[test]
    fn the_root_keeps_the_first_move_with_the_best_value() {
        let mut b = Best::new(ROOT_ALPHA);
        assert_eq!(b.root_window(Window::ROOT, 1), Window::ROOT);
        assert!(b.root_offer(3, 10) && b == Best { score: 10, index: 3 });
        assert_eq!(b.root_window(Window::ROOT, 1), Window { alpha: 9, beta: ROOT_BETA });
        assert_eq!(b.root_window(Window::ROOT, 4), Window { alpha: 10, beta: ROOT_BETA });
        assert!(b.root_offer(1, 10) && b.index == 1);
        assert!(!b.root_offer(2, 10) && !b.root_offer(5, 9) && b == Best { score: 10, index: 1 });
        assert!(b.root_offer(7, 11) && b == Best { score: 11, index: 7 });
    }
}
