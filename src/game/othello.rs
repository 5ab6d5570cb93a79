//! Othello as a tree source (beyond the thesis: a second real game, with a
//! very different tree shape from chess; `docs/model.md` §7.3).
//!
//! Boards and moves come from `magpie` (MIT, bitboards). Ours:
//!
//! - **Passes**: a side with no legal move passes when the other side has
//!   one: its node has exactly one child, the pass (passes count as moves, as
//!   in the standard perft counts). When neither side can move the game is
//!   over: the node is terminal.
//! - **Evaluation** from the side to move's point of view: 10 × (its
//!   mobility − the opponent's) + 25 × (its corners − the opponent's); at a
//!   game over, 1000 × (its discs − the opponent's), which outweighs any
//!   heuristic value.
//! - **Move ordering** by a static square score (corners first, the squares
//!   next to corners last; the usual weight table), ties to the lower square.
//!
//! Squares are numbered a1 = 0, b1 = 1, …, h8 = 63 (rank-major, rank 1 at
//! the top as Othello boards are printed); magpie keeps a1 in the top bit.

use super::square_moves::{Cursor, SquareMoves, entry, square_source};
use super::{GameError, MoveList, TreeSource};
use magpie::othello::{Board, Stone};

/// Static score of a move to each square (a1 first).
#[rustfmt::skip]
pub const SQUARE_SCORE: [i32; 64] = [
    100, -20, 10,  5,  5, 10, -20, 100,
    -20, -50, -2, -2, -2, -2, -50, -20,
     10,  -2, -1, -1, -1, -1,  -2,  10,
      5,  -2, -1, -1, -1, -1,  -2,   5,
      5,  -2, -1, -1, -1, -1,  -2,   5,
     10,  -2, -1, -1, -1, -1,  -2,  10,
    -20, -50, -2, -2, -2, -2, -50, -20,
    100, -20, 10,  5,  5, 10, -20, 100,
];
/// Weight of a mobility difference of one move.
pub const MOBILITY: i64 = 10;
/// Weight of a corner difference of one disc.
pub const CORNER: i64 = 25;
/// Weight of a final disc difference of one disc.
pub const DISC: i64 = 1000;
const CORNERS: u64 = 1 << 63 | 1 << 56 | 1 << 7 | 1;
/// The square code of a pass.
const PASS: u32 = 64;

#[inline(always)]
fn bit(sq: u32) -> u64 {
    1u64 << (63 - sq)
}

/// An Othello position: the board and whose move it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The discs.
    pub board: Board,
    /// Black (`X`) to move.
    pub black_to_move: bool,
}

/// On the wire (a message between processes, `docs/model.md` §9.8): the
/// black and white discs as bitboards and the side to move.
impl serde::Serialize for Position {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (u64::from(self.board.bits_for(Stone::Black)), u64::from(self.board.bits_for(Stone::White)), self.black_to_move).serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Position {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Position, D::Error> {
        let (black, white, black_to_move) = <(u64, u64, bool)>::deserialize(d)?;
        let board = Board::try_from((black, white)).map_err(|e| serde::de::Error::custom(format!("Othello board: {e}")))?;
        Ok(Position { board, black_to_move })
    }
}

impl Position {
    /// The standard start position (Black to move).
    pub fn start() -> Position {
        Position { board: Board::standard(), black_to_move: true }
    }

    /// The side to move.
    #[inline(always)]
    pub fn stone(&self) -> Stone {
        if self.black_to_move { Stone::Black } else { Stone::White }
    }

    /// Parses 64 squares a1..h8 (`X` black, `O` white, `-` or `.` empty)
    /// and, after white space, the side to move (`X` or `O`).
    pub fn parse(text: &str) -> Result<Position, GameError> {
        let bad = |why: String| GameError::Othello { board: text.to_string(), why };
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [squares, side] = fields[..] else {
            return Err(bad(format!("{} fields (expected the 64 squares, then the side to move)", fields.len())));
        };
        if squares.chars().count() != 64 {
            return Err(bad(format!("{} squares (expected 64)", squares.chars().count())));
        }
        let (mut black, mut white) = (0u64, 0u64);
        for (i, c) in squares.chars().enumerate() {
            match c {
                'X' | 'x' => black |= bit(i as u32),
                'O' | 'o' => white |= bit(i as u32),
                '-' | '.' => {}
                other => return Err(bad(format!("square {} is `{other}` (expected X, O, - or .)", i + 1))),
            }
        }
        let centre = bit(27) | bit(28) | bit(35) | bit(36);
        if (black | white) & centre != centre {
            return Err(bad("a centre square is empty (the four centre squares are never empty in Othello)".into()));
        }
        let black_to_move = match side {
            "X" | "x" => true,
            "O" | "o" => false,
            other => return Err(bad(format!("side to move `{other}` (expected X or O)"))),
        };
        let board = Board::try_from((black, white)).map_err(|e| bad(format!("{e:?}")))?;
        Ok(Position { board, black_to_move })
    }

    /// The position in the format [`Position::parse`] reads.
    pub fn text(&self) -> String {
        let (b, w) = (self.board.bits_for(Stone::Black).raw(), self.board.bits_for(Stone::White).raw());
        text(64, |i| b & bit(i) != 0, |i| w & bit(i) != 0, self.black_to_move)
    }

    /// `(side to move's moves, opponent's moves)` as bitboards.
    #[inline(always)]
    fn mobility(&self) -> (u64, u64) {
        let s = self.stone();
        (self.board.moves_for(s).raw(), self.board.moves_for(s.flip()).raw())
    }

    /// Why the side to move cannot move, if neither side can (the game is over).
    pub fn no_moves(&self) -> Option<&'static str> {
        let (a, b) = self.mobility();
        (a == 0 && b == 0).then_some("the game is over (neither side can move)")
    }

    /// The static evaluation from the side to move's point of view.
    pub fn evaluate(&self) -> i64 {
        let (a, b) = self.mobility();
        let s = self.stone();
        let (mine, theirs) = (self.board.bits_for(s).raw(), self.board.bits_for(s.flip()).raw());
        MOBILITY * (a.count_ones() as i64 - b.count_ones() as i64) + CORNER * ((mine & CORNERS).count_ones() as i64 - (theirs & CORNERS).count_ones() as i64)
    }

    /// The final value from the side to move's point of view.
    pub fn final_value(&self) -> i64 {
        let s = self.stone();
        DISC * (self.board.bits_for(s).count_set() as i64 - self.board.bits_for(s.flip()).count_set() as i64)
    }

    /// The position after the move to square `sq` (or a pass).
    #[inline]
    fn play(&self, sq: u32) -> Position {
        let mut board = self.board.clone();
        if sq != PASS {
            let pos = magpie::othello::Position::try_from(bit(sq)).expect("one bit is a square");
            board.play(self.stone(), pos);
        }
        Position { board, black_to_move: !self.black_to_move }
    }
}

/// Othello, the tree source.
#[derive(Clone, Copy, Debug, Default)]
pub struct Othello;

super::square_moves::square_rules_of_position!(Othello);

impl TreeSource for Othello {
    type Node = Position;
    type Slot = u32;
    type Moves<'a> = SquareMoves<'a, Othello>;
    type Cursor = Cursor;

    fn slots(&self) -> usize {
        64
    }
    fn moves<'a>(&'a self, node: &Position, max: bool, buf: &'a mut [u32]) -> SquareMoves<'a, Othello> {
        let (mine, theirs) = node.mobility();
        let mut n = 0;
        if mine != 0 {
            let mut m = mine;
            while m != 0 {
                let sq = m.leading_zeros();
                m &= !bit(sq);
                buf[n] = entry(SQUARE_SCORE[sq as usize], sq);
                n += 1;
            }
        } else if theirs != 0 {
            buf[0] = PASS;
            n = 1;
        }
        SquareMoves::new(buf, n, max)
    }
    square_source!();
    fn root_key(&self, node: &Position) -> u64 {
        let (b, w) = (node.board.bits_for(Stone::Black).raw(), node.board.bits_for(Stone::White).raw());
        // Fold both discs' sets and the side to move into one word (splitmix-style).
        let mut x = b ^ w.rotate_left(29) ^ node.black_to_move as u64;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
    /// The discs and the side to move (the position's hash above) and the ply.
    #[inline]
    fn tt_key(&self, n: &Position, ply: u32) -> u64 {
        self.root_key(n) ^ crate::game::mix(ply as u64 + 1)
    }
}

/// A square's name (`a1` … `h8`, `pass`).
pub fn square_name(sq: u32) -> String {
    if sq == PASS { "pass".into() } else { format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1) }
}

/// The moves of `pos` in search order.
pub fn moves_in_order(pos: &Position) -> Vec<String> {
    let mut buf = vec![0u32; 64];
    let mut m = Othello.moves(pos, true, &mut buf);
    let mut out = vec![];
    while let Some(sq) = m.next() {
        out.push(square_name(sq));
    }
    out
}

/// A position of `squares` squares as the position files write it (a
/// board of any size, [`super::othello_n`] too): `X` a black disc, `O` a
/// white one, `-` an empty square, in row order, then the side to move.
pub(super) fn text(squares: u32, black: impl Fn(u32) -> bool, white: impl Fn(u32) -> bool, black_to_move: bool) -> String {
    let mut s: String = (0..squares)
        .map(|i| {
            if black(i) {
                'X'
            } else if white(i) {
                'O'
            } else {
                '-'
            }
        })
        .collect();
    s.push_str(if black_to_move { " X" } else { " O" });
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::perft;

    #[test]
    fn start_position_round_trips_and_orders_its_moves() {
        let s = Position::start();
        assert_eq!(s.text(), format!("{}OX------XO{} X", "-".repeat(27), "-".repeat(27)));
        assert_eq!(Position::parse(&s.text()).unwrap(), s);
        assert_eq!(moves_in_order(&s), vec!["d3", "c4", "f5", "e6"]);
        assert_eq!(perft(&Othello, &s, 3), 56);
    }

    #[test]
    fn passes_and_game_over() {
        // Black has no move but White has: one child, the pass.
        let mut sq = vec!['-'; 64];
        // Black's one disc, b1, ends a white row that reaches the edge.
        for (i, c) in [(1, 'X'), (2, 'O'), (3, 'O'), (4, 'O'), (5, 'O'), (6, 'O'), (7, 'O'), (27, 'O'), (28, 'O'), (35, 'O'), (36, 'O')] {
            sq[i] = c;
        }
        let text: String = sq.iter().collect();
        let p = Position::parse(&format!("{text} X")).unwrap();
        assert_eq!(moves_in_order(&p), vec!["pass"]);
        // All one colour: nobody can move.
        let full = Position::parse(&format!("{} O", "O".repeat(64))).unwrap();
        assert!(full.no_moves().is_some());
        assert_eq!(full.final_value(), 64 * DISC);
    }

    #[test]
    fn bad_boards_are_refused() {
        let err = |t: &str| Position::parse(t).unwrap_err().to_string();
        assert!(err("XO X").contains("2 squares"));
        assert!(err(&format!("{} X", "-".repeat(64))).contains("centre"));
        assert!(err(&format!("{}OXZ-----XO{} X", "-".repeat(27), "-".repeat(27))).contains("`Z`"));
        assert!(err(&format!("{}OX------XO{} B", "-".repeat(27), "-".repeat(27))).contains("side to move"));
        assert!(err(&format!("{}OX------XO{}", "-".repeat(27), "-".repeat(27))).contains("1 fields"));
    }
}
