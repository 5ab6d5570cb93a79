//! The move list both Othello sources share (`docs/model.md` §7.3): a
//! node's moves as squares, handed out best first by a static score (the
//! 8 × 8 board of [`super::othello`] and the boards of any size of
//! [`super::othello_n`] differ in how they find the squares, not in how
//! they order and hand them out).
//!
//! An entry of the buffer is the score (offset to be positive) above the
//! complement of the square above the square, so the largest entry is the
//! best score, ties to the lower square; [`SquareMoves::next`] selects it
//! (a partial selection sort: a cut-off leaves the rest unsorted).

use super::{MoveList, TreeSource};
use crate::value::on_scale;
use std::marker::PhantomData;

/// What the move list asks of a source whose moves are squares.
pub trait SquareRules: TreeSource<Slot = u32> {
    /// The position after the move to square `sq` (or the source's pass).
    fn play(node: &Self::Node, sq: u32) -> Self::Node;
    /// The static evaluation from the side to move's point of view.
    fn evaluate(node: &Self::Node) -> i64;
    /// The value of a finished game from the side to move's point of view.
    fn final_value(node: &Self::Node) -> i64;
}

/// [`SquareRules`] for a source whose position type has the rules as its
/// own methods (`play`, `evaluate`, `final_value`): both Othello sources.
macro_rules! square_rules_of_position {
    ($source:ty) => {
        impl $crate::game::square_moves::SquareRules for $source {
            #[inline]
            fn play(node: &Self::Node, sq: u32) -> Self::Node {
                node.play(sq)
            }
            #[inline]
            fn evaluate(node: &Self::Node) -> i64 {
                node.evaluate()
            }
            fn final_value(node: &Self::Node) -> i64 {
                node.final_value()
            }
        }
    };
}
pub(crate) use square_rules_of_position;

/// The members of [`TreeSource`] that every [`SquareRules`] source has
/// alike (inside its `impl TreeSource`): its values on the value scale and
/// the move list's detaching.
macro_rules! square_source {
    () => {
        fn horizon_value(&self, node: &Self::Node, max: bool) -> i64 {
            $crate::value::on_scale(<Self as $crate::game::square_moves::SquareRules>::evaluate(node), max)
        }
        fn terminal_value(&self, node: &Self::Node, max: bool, _ply: u32) -> i64 {
            $crate::value::on_scale(<Self as $crate::game::square_moves::SquareRules>::final_value(node), max)
        }
        fn detach(&self, m: Self::Moves<'_>) -> Self::Cursor {
            m.detach()
        }
        fn resume<'a>(&'a self, c: Self::Cursor, buf: &'a mut [u32]) -> Self::Moves<'a> {
            $crate::game::square_moves::SquareMoves::resume(buf, c)
        }
        fn handed_out(c: &Self::Cursor) -> u32 {
            $crate::game::square_moves::SquareMoves::<Self>::handed_out(c)
        }
    };
}
pub(crate) use square_source;

/// The buffer entry of a move to `sq` (below 256) with ordering score `score`.
#[inline(always)]
pub fn entry(score: i32, sq: u32) -> u32 {
    (((score + 32768) as u32) << 16) | ((255 - sq) << 8) | sq
}

/// A node's moves, handed out best first.
#[derive(Debug)]
pub struct SquareMoves<'a, S> {
    buf: &'a mut [u32],
    cur: Cursor,
    source: PhantomData<S>,
}

/// A [`SquareMoves`] without its buffer.
#[derive(Clone, Copy, Debug)]
pub struct Cursor {
    len: u8,
    next: u8,
    max: bool,
}

impl<'a, S> SquareMoves<'a, S> {
    /// The first `len` entries of `buf` as a MAX node's (if `max`) moves.
    #[inline(always)]
    pub fn new(buf: &'a mut [u32], len: usize, max: bool) -> Self {
        SquareMoves { buf, cur: Cursor { len: len as u8, next: 0, max }, source: PhantomData }
    }
    /// The list without its buffer.
    #[inline(always)]
    pub fn detach(self) -> Cursor {
        self.cur
    }
    /// A detached list again, over the buffer it was started in.
    #[inline(always)]
    pub fn resume(buf: &'a mut [u32], cur: Cursor) -> Self {
        SquareMoves { buf, cur, source: PhantomData }
    }
    /// Moves handed out so far by a detached list.
    #[inline(always)]
    pub fn handed_out(c: &Cursor) -> u32 {
        c.next as u32
    }
}

impl<S: SquareRules> MoveList<S> for SquareMoves<'_, S> {
    type Handle = u32;
    #[inline(always)]
    fn len(&self) -> u32 {
        self.cur.len as u32
    }
    #[inline]
    fn next(&mut self) -> Option<u32> {
        let (i, len) = (self.cur.next as usize, self.cur.len as usize);
        if i >= len {
            return None;
        }
        let mut best = i;
        for j in i + 1..len {
            if self.buf[j] > self.buf[best] {
                best = j;
            }
        }
        self.buf.swap(i, best);
        self.cur.next += 1;
        Some(self.buf[i] & 0xff)
    }
    #[inline]
    fn child(&mut self, parent: &S::Node, sq: u32) -> S::Node {
        S::play(parent, sq)
    }
    #[inline]
    fn leaf_value(&mut self, parent: &S::Node, sq: u32) -> i64 {
        on_scale(S::evaluate(&S::play(parent, sq)), !self.cur.max)
    }
}
