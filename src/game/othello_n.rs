//! Othello on any even board from 6 × 6 to 12 × 12 (beyond the thesis:
//! OthelloX measured its parallel searches against the board's size;
//! `docs/model.md` §7.3).
//!
//! Our own generator, on bitboards of three words (144 squares fit in
//! 192 bits), with the rules of [`super::othello`] (which stays the source
//! of 8 × 8 positions): a side with no move passes when the other side has
//! one (the pass is the node's one child); when neither can move the game is
//! over. The evaluation and the move ordering are the 8 × 8 ones carried to
//! any size: 10 × the mobility difference + 25 × the corner difference;
//! 1,000 × the disc difference at a game over; moves by a static square
//! score ([`square_score`], which gives the 8 × 8 table on 8 × 8), ties to
//! the lower square. On 8 × 8 this source and [`super::othello`] agree on
//! every move list, order and value (the tests hold them to it on every
//! shipped position).
//!
//! Squares are numbered row-major from a1 = 0 at the top left, as
//! [`super::othello`] prints them; the side to move follows the squares.

use super::square_moves::{Cursor, SquareMoves, entry, square_source};
use super::{GameError, MoveList, TreeSource};
use serde::{Deserialize, Serialize};

/// The board sizes (an even side: the four centre squares exist).
pub const SIZES: [u32; 4] = [6, 8, 10, 12];
/// The most squares of any board.
pub const MAX_SQUARES: usize = 144;
/// The square code of a pass (above every square).
const PASS: u32 = 255;

/// A set of squares: bit `i` of word `i / 64` is square `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bits(pub [u64; 3]);

impl Bits {
    /// The one square `sq`.
    #[inline(always)]
    pub fn square(sq: u32) -> Bits {
        let mut b = [0; 3];
        b[(sq / 64) as usize] = 1 << (sq % 64);
        Bits(b)
    }
    #[inline(always)]
    fn and(self, o: Bits) -> Bits {
        Bits([self.0[0] & o.0[0], self.0[1] & o.0[1], self.0[2] & o.0[2]])
    }
    #[inline(always)]
    fn or(self, o: Bits) -> Bits {
        Bits([self.0[0] | o.0[0], self.0[1] | o.0[1], self.0[2] | o.0[2]])
    }
    #[inline(always)]
    fn and_not(self, o: Bits) -> Bits {
        Bits([self.0[0] & !o.0[0], self.0[1] & !o.0[1], self.0[2] & !o.0[2]])
    }
    /// Whether the set is empty.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0[0] | self.0[1] | self.0[2] == 0
    }
    /// The number of squares.
    #[inline(always)]
    pub fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    /// Whether square `sq` is in the set.
    #[inline(always)]
    pub fn has(self, sq: u32) -> bool {
        self.0[(sq / 64) as usize] >> (sq % 64) & 1 != 0
    }
    /// Every square moved `k` (1 ≤ k < 64) up (toward higher numbers).
    #[inline(always)]
    fn up(self, k: u32) -> Bits {
        let [a, b, c] = self.0;
        Bits([a << k, b << k | a >> (64 - k), c << k | b >> (64 - k)])
    }
    /// Every square moved `k` (1 ≤ k < 64) down.
    #[inline(always)]
    fn down(self, k: u32) -> Bits {
        let [a, b, c] = self.0;
        Bits([a >> k | b << (64 - k), b >> k | c << (64 - k), c >> k])
    }
    /// The squares in increasing order.
    pub fn squares(self) -> impl Iterator<Item = u32> {
        (0..3u32).flat_map(move |w| {
            let mut x = self.0[w as usize];
            std::iter::from_fn(move || {
                (x != 0).then(|| {
                    let i = x.trailing_zeros();
                    x &= x - 1;
                    w * 64 + i
                })
            })
        })
    }
}

/// A board's size and the masks its shifts need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Geometry {
    n: u32,
    /// Every square of the board.
    all: Bits,
    /// The board less its first column (where a shift to the right lands
    /// what left the last column).
    not_first: Bits,
    /// The board less its last column.
    not_last: Bits,
}

impl Geometry {
    fn of(n: u32) -> Geometry {
        let (mut all, mut not_first, mut not_last) = (Bits::default(), Bits::default(), Bits::default());
        for sq in 0..n * n {
            let s = Bits::square(sq);
            all = all.or(s);
            if sq % n != 0 {
                not_first = not_first.or(s);
            }
            if sq % n != n - 1 {
                not_last = not_last.or(s);
            }
        }
        Geometry { n, all, not_first, not_last }
    }

    /// The squares one step in direction `d` (0..8) from `b`, on the board.
    #[inline(always)]
    fn step(&self, b: Bits, d: usize) -> Bits {
        let n = self.n;
        match d {
            0 => b.up(1).and(self.not_first),       // east
            1 => b.down(1).and(self.not_last),      // west
            2 => b.up(n).and(self.all),             // south
            3 => b.down(n),                         // north
            4 => b.up(n + 1).and(self.not_first),   // south-east
            5 => b.up(n - 1).and(self.not_last),    // south-west
            6 => b.down(n - 1).and(self.not_first), // north-east
            _ => b.down(n + 1).and(self.not_last),  // north-west
        }
    }

    /// The squares where the side owning `mine` may play.
    #[inline]
    fn moves(&self, mine: Bits, theirs: Bits) -> Bits {
        let empty = self.all.and_not(mine.or(theirs));
        let mut out = Bits::default();
        for d in 0..8 {
            // A run of the opponent's discs starting next to one of ours,
            // at most n - 2 long.
            let mut run = self.step(mine, d).and(theirs);
            for _ in 0..self.n - 3 {
                run = run.or(self.step(run, d).and(theirs));
            }
            out = out.or(self.step(run, d).and(empty));
        }
        out
    }

    /// The opponent's discs a move to `sq` turns.
    #[inline]
    fn flips(&self, sq: u32, mine: Bits, theirs: Bits) -> Bits {
        let mut out = Bits::default();
        for d in 0..8 {
            let (mut run, mut x) = (Bits::default(), self.step(Bits::square(sq), d));
            while !x.and(theirs).is_empty() {
                run = run.or(x);
                x = self.step(x, d);
            }
            if !x.and(mine).is_empty() {
                out = out.or(run);
            }
        }
        out
    }
}

/// The geometries of [`SIZES`], made once.
fn geometry(n: u32) -> &'static Geometry {
    static G: std::sync::OnceLock<[Geometry; 4]> = std::sync::OnceLock::new();
    let g = G.get_or_init(|| SIZES.map(Geometry::of));
    &g[((n - 6) / 2) as usize]
}

/// The static score of a move to square `(row, col)` of an `n` × `n`
/// board: by the distance of the row and of the column from their nearer
/// edge, as the usual 8 × 8 table scores them (a corner 100; a square
/// beside a corner −20, diagonal to it −50; the rest of the edge 10 two
/// squares from a corner, else 5; the rest of the second ring −2; the
/// inside −1).
pub fn square_score(n: u32, sq: u32) -> i32 {
    let edge = |i: u32| i.min(n - 1 - i);
    let (a, b) = (edge(sq / n).min(edge(sq % n)), edge(sq / n).max(edge(sq % n)));
    match (a, b) {
        (0, 0) => 100,
        (0, 1) => -20,
        (1, 1) => -50,
        (0, 2) => 10,
        (0, _) => 5,
        (1, _) => -2,
        _ => -1,
    }
}

/// The evaluation's weights (those of [`super::othello`]).
use super::othello::{CORNER, DISC, MOBILITY};

/// An Othello position on an `n` × `n` board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The side of the board.
    pub n: u32,
    /// Black's discs.
    pub black: Bits,
    /// White's discs.
    pub white: Bits,
    /// Black (`X`) to move.
    pub black_to_move: bool,
}

impl Position {
    /// The usual start of an `n` × `n` board: the four centre squares,
    /// White on the top-left one and the bottom-right one, Black to move.
    pub fn start(n: u32) -> Result<Position, GameError> {
        check_size(n, || format!("{n} × {n}"))?;
        let (h, sq) = (n / 2, |r: u32, c: u32| Bits::square(r * n + c));
        let white = sq(h - 1, h - 1).or(sq(h, h));
        let black = sq(h - 1, h).or(sq(h, h - 1));
        Ok(Position { n, black, white, black_to_move: true })
    }

    /// Parses `n`² squares row by row (`X` black, `O` white, `-` or `.`
    /// empty), the board's size read from their number, and after white
    /// space the side to move (`X` or `O`).
    pub fn parse(text: &str) -> Result<Position, GameError> {
        let bad = |why: String| GameError::Othello { board: text.to_string(), why };
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [squares, side] = fields[..] else {
            return Err(bad(format!("{} fields (expected the squares, then the side to move)", fields.len())));
        };
        let count = squares.chars().count() as u32;
        let n = SIZES
            .into_iter()
            .find(|n| n * n == count)
            .ok_or_else(|| bad(format!("{count} squares (expected 36, 64, 100 or 144: a board of 6 × 6 to 12 × 12)")))?;
        let (mut black, mut white) = (Bits::default(), Bits::default());
        for (i, c) in squares.chars().enumerate() {
            match c {
                'X' | 'x' => black = black.or(Bits::square(i as u32)),
                'O' | 'o' => white = white.or(Bits::square(i as u32)),
                '-' | '.' => {}
                other => return Err(bad(format!("square {} is `{other}` (expected X, O, - or .)", i + 1))),
            }
        }
        let centre = Position::start(n)?;
        let discs = black.or(white);
        if centre.black.or(centre.white).and_not(discs) != Bits::default() {
            return Err(bad("a centre square is empty (the four centre squares are never empty in Othello)".into()));
        }
        let black_to_move = match side {
            "X" | "x" => true,
            "O" | "o" => false,
            other => return Err(bad(format!("side to move `{other}` (expected X or O)"))),
        };
        Ok(Position { n, black, white, black_to_move })
    }

    /// The position in the format [`Position::parse`] reads.
    pub fn text(&self) -> String {
        super::othello::text(self.n * self.n, |i| self.black.has(i), |i| self.white.has(i), self.black_to_move)
    }

    /// `(the side to move's discs, the opponent's)`.
    #[inline(always)]
    fn sides(&self) -> (Bits, Bits) {
        if self.black_to_move { (self.black, self.white) } else { (self.white, self.black) }
    }

    /// `(the side to move's moves, the opponent's)`.
    #[inline]
    fn mobility(&self) -> (Bits, Bits) {
        let (g, (mine, theirs)) = (geometry(self.n), self.sides());
        (g.moves(mine, theirs), g.moves(theirs, mine))
    }

    /// Why the side to move cannot move, if neither side can (the game is over).
    pub fn no_moves(&self) -> Option<&'static str> {
        let (a, b) = self.mobility();
        (a.is_empty() && b.is_empty()).then_some("the game is over (neither side can move)")
    }

    /// The four corners.
    fn corners(&self) -> Bits {
        let n = self.n;
        [0, n - 1, n * (n - 1), n * n - 1].into_iter().fold(Bits::default(), |b, sq| b.or(Bits::square(sq)))
    }

    /// The static evaluation from the side to move's point of view.
    pub fn evaluate(&self) -> i64 {
        let (a, b) = self.mobility();
        let ((mine, theirs), c) = (self.sides(), self.corners());
        MOBILITY * (a.count() as i64 - b.count() as i64) + CORNER * (mine.and(c).count() as i64 - theirs.and(c).count() as i64)
    }

    /// The final value from the side to move's point of view.
    pub fn final_value(&self) -> i64 {
        let (mine, theirs) = self.sides();
        DISC * (mine.count() as i64 - theirs.count() as i64)
    }

    /// The position after the move to square `sq` (or a pass).
    #[inline]
    pub fn play(&self, sq: u32) -> Position {
        let mut next = Position { black_to_move: !self.black_to_move, ..self.clone() };
        if sq != PASS {
            let (mine, theirs) = self.sides();
            let turned = geometry(self.n).flips(sq, mine, theirs).or(Bits::square(sq));
            let (mine, theirs) = (mine.or(turned), theirs.and_not(turned));
            (next.black, next.white) = if self.black_to_move { (mine, theirs) } else { (theirs, mine) };
        }
        next
    }
}

/// The side of the board a position's text (its squares, then the side
/// to move) is on, if it is one of [`SIZES`].
pub fn board_side(text: &str) -> Option<u32> {
    let count = text.split_whitespace().next()?.chars().count() as u32;
    SIZES.into_iter().find(|n| n * n == count)
}

/// Refuses a size that is not one of [`SIZES`] (`what` names it).
pub fn check_size(n: u32, what: impl Fn() -> String) -> Result<(), GameError> {
    if SIZES.contains(&n) {
        Ok(())
    } else {
        Err(GameError::Request(format!("an Othello board of {}: give 6, 8, 10 or 12 (an even side from 6 to 12)", what())))
    }
}

/// Othello on any board of [`SIZES`], the tree source.
#[derive(Clone, Copy, Debug, Default)]
pub struct OthelloN;

super::square_moves::square_rules_of_position!(OthelloN);

impl TreeSource for OthelloN {
    type Node = Position;
    type Slot = u32;
    type Moves<'a> = SquareMoves<'a, OthelloN>;
    type Cursor = Cursor;

    fn slots(&self) -> usize {
        MAX_SQUARES
    }
    fn moves<'a>(&'a self, node: &Position, max: bool, buf: &'a mut [u32]) -> SquareMoves<'a, OthelloN> {
        let (mine, theirs) = node.mobility();
        let mut n = 0;
        if !mine.is_empty() {
            for sq in mine.squares() {
                buf[n] = entry(square_score(node.n, sq), sq);
                n += 1;
            }
        } else if !theirs.is_empty() {
            buf[0] = PASS;
            n = 1;
        }
        SquareMoves::new(buf, n, max)
    }
    square_source!();
    fn root_key(&self, node: &Position) -> u64 {
        // Fold both sides' discs, the side to move and the size into one word.
        let (b, w) = (node.black.0, node.white.0);
        let mut x = node.n as u64 ^ (node.black_to_move as u64) << 8;
        for word in [b[0], b[1], b[2], w[0], w[1], w[2]] {
            x = crate::game::mix(x ^ word);
        }
        x
    }
    #[inline]
    fn tt_key(&self, n: &Position, ply: u32) -> u64 {
        self.root_key(n) ^ crate::game::mix(ply as u64 + 1)
    }
}

/// A square's name (`a1` … `l12`, `pass`) on an `n` × `n` board.
pub fn square_name(n: u32, sq: u32) -> String {
    if sq == PASS { "pass".into() } else { format!("{}{}", (b'a' + (sq % n) as u8) as char, sq / n + 1) }
}

/// The moves of `pos` in search order.
pub fn moves_in_order(pos: &Position) -> Vec<String> {
    let mut buf = vec![0u32; MAX_SQUARES];
    let mut m = OthelloN.moves(pos, true, &mut buf);
    std::iter::from_fn(|| m.next()).map(|sq| square_name(pos.n, sq)).collect()
}

#[cfg(test)]
mod tests;
