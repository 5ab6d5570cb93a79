//! Chess as a tree source (beyond the thesis: the real trees its chapter 4
//! compares the artificial ones with; `docs/model.md` §7.2).
//!
//! Legal moves come from `cozy-chess` (MIT). The rest is ours and small:
//!
//! - **Evaluation**: material (P 100, N 320, B 330, R 500, Q 900) plus one
//!   piece-square table per piece, after Michniewski's "simplified
//!   evaluation function" (middle-game king table only), in centipawns. It
//!   is kept incrementally: a node carries its evaluation, and a move's
//!   change is computed when the move is generated, so a leaf at the
//!   horizon costs an addition, not a board.
//! - **Move ordering**, a static score per move as real programs use: first
//!   captures by most valuable victim / least valuable attacker (promotions
//!   that capture among them), then the other promotions (queen first), then
//!   quiet moves by their piece-square gain (castling included). Ties go to
//!   the larger move code, so the order is a function of the position.
//!   Moves are handed out by selection (the best remaining move each time),
//!   so a node that cuts off early sorts little.
//! - **Terminal nodes**: a node with no legal move before the horizon is
//!   mate (worth `MATE - ply` to the winner, so shorter mates are better) or
//!   stalemate (0). At the horizon a node is evaluated statically, mate or
//!   not: no quiescence search, no repetition or fifty-move draws inside the
//!   search (fixed-depth alpha-beta as in the thesis).

use super::{GameError, MoveList, TreeSource};
use crate::value::on_scale;
use cozy_chess::{Board, Color, Move, Piece, Square};

/// A mate's value before the distance to it is taken off.
pub const MATE: i64 = 1_000_000;
/// Material values, pawn to king (the king's never changes hands).
pub const VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];

/// Piece-square tables as printed (rank 8 first, file a first), from
/// White's point of view: pawn, knight, bishop, rook, queen, king.
#[rustfmt::skip]
const PRINTED: [[i32; 64]; 6] = [
    [  0,  0,  0,  0,  0,  0,  0,  0,
      50, 50, 50, 50, 50, 50, 50, 50,
      10, 10, 20, 30, 30, 20, 10, 10,
       5,  5, 10, 25, 25, 10,  5,  5,
       0,  0,  0, 20, 20,  0,  0,  0,
       5, -5,-10,  0,  0,-10, -5,  5,
       5, 10, 10,-20,-20, 10, 10,  5,
       0,  0,  0,  0,  0,  0,  0,  0],
    [-50,-40,-30,-30,-30,-30,-40,-50,
     -40,-20,  0,  0,  0,  0,-20,-40,
     -30,  0, 10, 15, 15, 10,  0,-30,
     -30,  5, 15, 20, 20, 15,  5,-30,
     -30,  0, 15, 20, 20, 15,  0,-30,
     -30,  5, 10, 15, 15, 10,  5,-30,
     -40,-20,  0,  5,  5,  0,-20,-40,
     -50,-40,-30,-30,-30,-30,-40,-50],
    [-20,-10,-10,-10,-10,-10,-10,-20,
     -10,  0,  0,  0,  0,  0,  0,-10,
     -10,  0,  5, 10, 10,  5,  0,-10,
     -10,  5,  5, 10, 10,  5,  5,-10,
     -10,  0, 10, 10, 10, 10,  0,-10,
     -10, 10, 10, 10, 10, 10, 10,-10,
     -10,  5,  0,  0,  0,  0,  5,-10,
     -20,-10,-10,-10,-10,-10,-10,-20],
    [  0,  0,  0,  0,  0,  0,  0,  0,
       5, 10, 10, 10, 10, 10, 10,  5,
      -5,  0,  0,  0,  0,  0,  0, -5,
      -5,  0,  0,  0,  0,  0,  0, -5,
      -5,  0,  0,  0,  0,  0,  0, -5,
      -5,  0,  0,  0,  0,  0,  0, -5,
      -5,  0,  0,  0,  0,  0,  0, -5,
       0,  0,  0,  5,  5,  0,  0,  0],
    [-20,-10,-10, -5, -5,-10,-10,-20,
     -10,  0,  0,  0,  0,  0,  0,-10,
     -10,  0,  5,  5,  5,  5,  0,-10,
      -5,  0,  5,  5,  5,  5,  0, -5,
       0,  0,  5,  5,  5,  5,  0, -5,
     -10,  5,  5,  5,  5,  5,  0,-10,
     -10,  0,  5,  0,  0,  0,  0,-10,
     -20,-10,-10, -5, -5,-10,-10,-20],
    [-30,-40,-40,-50,-50,-40,-40,-30,
     -30,-40,-40,-50,-50,-40,-40,-30,
     -30,-40,-40,-50,-50,-40,-40,-30,
     -30,-40,-40,-50,-50,-40,-40,-30,
     -20,-30,-30,-40,-40,-30,-30,-20,
     -10,-20,-20,-20,-20,-20,-20,-10,
      20, 20,  0,  0,  0,  0, 20, 20,
      20, 30, 10,  0,  0, 10, 30, 20],
];

/// `TABLE[color][piece][square]`: value plus table entry of a piece of
/// `color` on `square` (cozy-chess's numbering, a1 = 0), from its owner's
/// point of view.
static TABLE: [[[i32; 64]; 6]; 2] = {
    let mut t = [[[0; 64]; 6]; 2];
    let mut p = 0;
    while p < 6 {
        let mut sq = 0;
        while sq < 64 {
            // The printed table's row 0 is rank 8: White reads it flipped,
            // Black as printed (its rank 8 is White's rank 1).
            t[0][p][sq] = VALUES[p] + PRINTED[p][sq ^ 56];
            t[1][p][sq] = VALUES[p] + PRINTED[p][sq];
            sq += 1;
        }
        p += 1;
    }
    t
};

#[inline(always)]
fn table(c: Color, p: Piece, sq: Square) -> i32 {
    TABLE[c as usize][p as usize][sq as usize]
}

/// The static evaluation of `board` from White's point of view, from scratch.
pub fn evaluate(board: &Board) -> i32 {
    let mut e = 0;
    for &c in &Color::ALL {
        let sign = if c == Color::White { 1 } else { -1 };
        for &p in &Piece::ALL {
            for sq in board.colored_pieces(c, p) {
                e += sign * table(c, p, sq);
            }
        }
    }
    e
}

/// A chess position as the search holds it: the board and its evaluation
/// from White's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The board.
    pub board: Board,
    /// `evaluate(&board)`, kept incrementally.
    pub eval: i32,
}

/// On the wire (a message between processes, `docs/model.md` §9.8): the
/// board as a Shredder FEN (every castling right, whatever the rooks'
/// files) and the evaluation, which the receiver keeps as it is.
impl serde::Serialize for Position {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (format!("{:#}", self.board), self.eval).serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Position {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Position, D::Error> {
        let (fen, eval) = <(String, i32)>::deserialize(d)?;
        let board = Board::from_fen(&fen, true).map_err(|e| serde::de::Error::custom(format!("FEN {fen:?}: {e:?}")))?;
        Ok(Position { board, eval })
    }
}

impl Position {
    /// A position from a board.
    pub fn new(board: Board) -> Position {
        let eval = evaluate(&board);
        Position { board, eval }
    }

    /// Parses a FEN, or the four position fields of an EPD line (the move
    /// counters then default to 0 and 1). Refuses an impossible board, and
    /// says so when the only fault is the side to move (the side not to move
    /// is in check).
    pub fn parse(text: &str) -> Result<Position, GameError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let bad = |why: &str| GameError::Fen { fen: text.to_string(), why: why.to_string() };
        let fen = match fields.len() {
            4 => format!("{} 0 1", fields.join(" ")),
            6 => fields.join(" "),
            n => return Err(bad(&format!("{n} fields (a FEN has 6, an EPD position 4)"))),
        };
        match Board::from_fen(&fen, false) {
            Ok(b) => {
                standard_castling(&b).map_err(|why| bad(&why))?;
                Ok(Position::new(b))
            }
            Err(e) => {
                if matches!(e, cozy_chess::FenParseError::InvalidBoard) {
                    let side = if fields[1] == "w" { "b" } else { "w" };
                    let flipped = format!("{} {side} - - 0 1", fields[0]);
                    if Board::from_fen(&flipped, false).is_ok() {
                        return Err(bad(&format!("illegal side to move: {} is in check but it is {}'s move", name(side), name(fields[1]))));
                    }
                }
                Err(bad(e.to_string().to_lowercase().trim_end_matches('.')))
            }
        }
    }

    /// The position as a FEN (six fields).
    pub fn fen(&self) -> String {
        self.board.to_string()
    }

    /// Why the side to move has no move (checkmate or stalemate), if it has none.
    pub fn no_moves(&self) -> Option<&'static str> {
        if self.board.generate_moves(|_| true) {
            None
        } else if self.board.checkers().is_empty() {
            Some("stalemate")
        } else {
            Some("checkmate")
        }
    }
}

/// Refuses castling rights that standard chess cannot have: a right needs
/// the king on its e-file start square and the rook on the a- or h-file
/// corner. `cozy-chess` reads `K` or `Q` with the king anywhere on the back
/// rank and the outermost rook on that side, and would then castle as in
/// Chess960 (`r3k2r/8/8/8/8/8/8/R4K1R w KQkq -` would be searched with
/// castling moves standard chess does not have).
fn standard_castling(b: &Board) -> Result<(), String> {
    use cozy_chess::{File, Rank};
    for (color, side, rank) in [(Color::White, "White", Rank::First), (Color::Black, "Black", Rank::Eighth)] {
        let rights = b.castle_rights(color);
        if rights.short.is_none() && rights.long.is_none() {
            continue;
        }
        let king = b.king(color);
        if king != Square::new(File::E, rank) {
            return Err(format!(
                "castling rights for {side} with its king on {king}: in standard chess a side that may castle has its king on {} (drop the right, `-` for none)",
                Square::new(File::E, rank)
            ));
        }
        for (file, want, what) in [(rights.short, File::H, "short"), (rights.long, File::A, "long")] {
            if let Some(f) = file.filter(|f| *f != want) {
                return Err(format!(
                    "{side}'s {what} castling right is for the rook on {}: standard chess castles with the rook on {}",
                    Square::new(f, rank),
                    Square::new(want, rank)
                ));
            }
        }
    }
    Ok(())
}

fn name(side: &str) -> &'static str {
    if side == "w" { "White" } else { "Black" }
}

/// Chess, the tree source.
#[derive(Clone, Copy, Debug, Default)]
pub struct Chess;

/// Most legal moves of a chess position (218 is the known maximum).
pub const SLOTS: usize = 256;

// A move-list entry: ordering score (16 bits, offset), move code (16 bits),
// the move's evaluation change for the mover (32 bits, signed). Entries
// compare by score, then move code.
#[inline(always)]
fn slot(score: i32, code: u16, delta: i32) -> u64 {
    (((score + 32768) as u64) << 48) | ((code as u64) << 32) | (delta as u32 as u64)
}

#[inline(always)]
fn slot_delta(s: u64) -> i32 {
    s as u32 as i32
}

/// The move of a move-list entry.
#[inline(always)]
pub fn slot_move(s: u64) -> Move {
    decode((s >> 32) as u16)
}

#[inline(always)]
fn encode(m: Move) -> u16 {
    let promo = match m.promotion {
        None => 0,
        Some(p) => p as u16, // Knight 1 .. Queen 4
    };
    m.from as u16 | (m.to as u16) << 6 | promo << 12
}

#[inline(always)]
fn decode(c: u16) -> Move {
    let promotion = match c >> 12 {
        0 => None,
        p => Some(Piece::index_const(p as usize)),
    };
    Move { from: Square::index_const((c & 63) as usize), to: Square::index_const(((c >> 6) & 63) as usize), promotion }
}

/// Ordering score ranges: captures above promotions above quiet moves.
const CAPTURE: i32 = 20_000;
const PROMOTION: i32 = 10_000;

/// Scores the legal moves of `board` into `buf`; returns how many.
fn generate(board: &Board, buf: &mut [u64]) -> usize {
    let us = board.side_to_move();
    let them_bb = board.colors(!us);
    let ours = board.colors(us);
    let mut n = 0;
    board.generate_moves(|pm| {
        let p = pm.piece;
        let from = table(us, p, pm.from);
        if p == Piece::Pawn || p == Piece::King {
            for m in pm {
                let (score, delta) = special(board, us, p, from, m, ours, them_bb);
                buf[n] = slot(score, encode(m), delta);
                n += 1;
            }
        } else {
            // Knights and sliders: no promotions, no castling, no en passant.
            for to in pm.to {
                let mut d = table(us, p, to) - from;
                let mut score = d;
                if them_bb.has(to)
                    && let Some(v) = board.piece_on(to)
                {
                    d += table(!us, v, to);
                    score = mvv_lva(v, p);
                }
                buf[n] = slot(score, pm.from as u16 | (to as u16) << 6, d);
                n += 1;
            }
        }
        false
    });
    n
}

/// Most valuable victim first, then least valuable attacker.
#[inline(always)]
fn mvv_lva(victim: Piece, attacker: Piece) -> i32 {
    CAPTURE + 16 * (victim as i32 + 1) - (attacker as i32 + 1)
}

/// Score and evaluation change of a pawn or king move (promotions, en
/// passant, castling).
#[inline(always)]
fn special(board: &Board, us: Color, p: Piece, from: i32, m: Move, ours: cozy_chess::BitBoard, them_bb: cozy_chess::BitBoard) -> (i32, i32) {
    if p == Piece::King && ours.has(m.to) {
        // Castling, encoded as the king taking its own rook.
        let back = m.from.rank();
        let (kf, rf) = if m.from.file() < m.to.file() { (cozy_chess::File::G, cozy_chess::File::F) } else { (cozy_chess::File::C, cozy_chess::File::D) };
        let d = table(us, Piece::King, Square::new(kf, back)) - from + table(us, Piece::Rook, Square::new(rf, back)) - table(us, Piece::Rook, m.to);
        return (d, d);
    }
    let victim = if them_bb.has(m.to) {
        board.piece_on(m.to).map(|v| (v, m.to))
    } else if p == Piece::Pawn && m.from.file() != m.to.file() {
        // En passant: the victim stands beside the pawn.
        Some((Piece::Pawn, Square::new(m.to.file(), m.from.rank())))
    } else {
        None
    };
    let placed = m.promotion.unwrap_or(p);
    let mut d = table(us, placed, m.to) - from;
    let mut score = d;
    if let Some((v, at)) = victim {
        d += table(!us, v, at);
        score = mvv_lva(v, p);
    }
    if let Some(q) = m.promotion {
        score = if victim.is_some() { score + q as i32 } else { PROMOTION + q as i32 };
    }
    (score, d)
}

/// A chess node's moves: scored at the start, handed out best first.
#[derive(Debug)]
pub struct ChessMoves<'a> {
    buf: &'a mut [u64],
    cur: Cursor,
}

/// A [`ChessMoves`] without its buffer.
#[derive(Clone, Copy, Debug)]
pub struct Cursor {
    len: u16,
    next: u16,
    max: bool,
}

impl ChessMoves<'_> {
    /// The root player's sign for White's evaluation of a child.
    #[inline(always)]
    fn child_eval(&self, parent: &Position, s: u64) -> i32 {
        let d = slot_delta(s);
        parent.eval + if parent.board.side_to_move() == Color::White { d } else { -d }
    }
}

impl MoveList<Chess> for ChessMoves<'_> {
    type Handle = u64;
    #[inline(always)]
    fn len(&self) -> u32 {
        self.cur.len as u32
    }
    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        let (i, len) = (self.cur.next as usize, self.cur.len as usize);
        if i >= len {
            return None;
        }
        if i == 0 {
            // Most nodes that cut off do so at their first move: one pass.
            let mut best = 0;
            for j in 1..len {
                if self.buf[j] > self.buf[best] {
                    best = j;
                }
            }
            self.buf.swap(0, best);
        } else if i == 1 {
            // A node that goes on usually searches many moves: sort the
            // rest once. Entries are distinct, so this is exactly the order
            // of picking the best remaining move each time.
            self.buf[1..len].sort_unstable_by(|a, b| b.cmp(a));
        }
        self.cur.next += 1;
        Some(self.buf[i])
    }
    #[inline(always)]
    fn child(&mut self, parent: &Position, s: u64) -> Position {
        let eval = self.child_eval(parent, s);
        let mut board = parent.board.clone();
        board.play_unchecked(slot_move(s));
        debug_assert_eq!(eval, evaluate(&board), "incremental evaluation after {} in {}", slot_move(s), parent.board);
        Position { board, eval }
    }
    #[inline(always)]
    fn leaf_value(&mut self, parent: &Position, s: u64) -> i64 {
        let e = self.child_eval(parent, s) as i64;
        // The child is a MIN node if its parent is MAX: the root player is
        // the parent's side to move exactly when the parent is MAX.
        let root_white = (parent.board.side_to_move() == Color::White) == self.cur.max;
        on_scale(if root_white { e } else { -e }, true)
    }
}

impl TreeSource for Chess {
    type Node = Position;
    type Slot = u64;
    type Moves<'a> = ChessMoves<'a>;
    type Cursor = Cursor;

    #[inline(always)]
    fn slots(&self) -> usize {
        SLOTS
    }
    #[inline]
    fn moves<'a>(&'a self, node: &Position, max: bool, buf: &'a mut [u64]) -> ChessMoves<'a> {
        let len = generate(&node.board, buf);
        ChessMoves { buf, cur: Cursor { len: len as u16, next: 0, max } }
    }
    #[inline]
    fn horizon_value(&self, node: &Position, max: bool) -> i64 {
        let e = node.eval as i64;
        on_scale(if node.board.side_to_move() == Color::White { e } else { -e }, max)
    }
    fn terminal_value(&self, node: &Position, max: bool, ply: u32) -> i64 {
        if node.board.checkers().is_empty() { on_scale(0, max) } else { on_scale(-(MATE - ply as i64), max) }
    }
    #[inline]
    fn detach(&self, m: ChessMoves<'_>) -> Cursor {
        m.cur
    }
    #[inline]
    fn resume<'a>(&'a self, c: Cursor, buf: &'a mut [u64]) -> ChessMoves<'a> {
        ChessMoves { buf, cur: c }
    }
    #[inline]
    fn handed_out(c: &Cursor) -> u32 {
        c.next as u32
    }
    /// cozy-chess's Zobrist hash (fixed keys: the same on every run).
    fn root_key(&self, node: &Position) -> u64 {
        node.board.hash()
    }
    /// cozy-chess's Zobrist hash (side to move, castling and en passant
    /// included) and the ply: a mate's value depends on its distance from
    /// the root, and the search knows no repetition or fifty-move draws.
    #[inline]
    fn tt_key(&self, n: &Position, ply: u32) -> u64 {
        n.board.hash() ^ crate::game::mix(ply as u64 + 1)
    }
}

/// A move in UCI notation (castling as the king's two-square move).
pub fn uci(board: &Board, m: Move) -> String {
    cozy_chess::util::display_uci_move(board, m).to_string()
}

/// A legal move in standard algebraic notation (`Nf3`, `exd5`, `O-O`,
/// `e8=Q+`, `Qxg7#`), as test suites such as Bratko-Kopec give best moves.
pub fn san(board: &Board, m: Move) -> String {
    let us = board.side_to_move();
    let Some(p) = board.piece_on(m.from) else { return m.to_string() };
    let mut s = String::new();
    if p == Piece::King && board.colors(us).has(m.to) {
        s.push_str(if m.from.file() < m.to.file() { "O-O" } else { "O-O-O" });
    } else {
        let capture = board.colors(!us).has(m.to) || (p == Piece::Pawn && m.from.file() != m.to.file());
        if p == Piece::Pawn {
            if capture {
                s.push_str(&m.from.file().to_string());
            }
        } else {
            s.push(char::from(p).to_ascii_uppercase());
            // Other pieces of the same kind that can go to the same square.
            let mut others = vec![];
            board.generate_moves_for(board.colored_pieces(us, p), |pm| {
                if pm.from != m.from && pm.to.has(m.to) {
                    others.push(pm.from);
                }
                false
            });
            if !others.is_empty() {
                if others.iter().all(|o| o.file() != m.from.file()) {
                    s.push_str(&m.from.file().to_string());
                } else if others.iter().all(|o| o.rank() != m.from.rank()) {
                    s.push_str(&m.from.rank().to_string());
                } else {
                    s.push_str(&m.from.to_string());
                }
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&m.to.to_string());
        if let Some(q) = m.promotion {
            s.push('=');
            s.push(char::from(q).to_ascii_uppercase());
        }
    }
    let mut after = board.clone();
    after.play_unchecked(m);
    if !after.checkers().is_empty() {
        s.push(if after.generate_moves(|_| true) { '+' } else { '#' });
    }
    s
}

/// The moves of `pos` in search order, in standard algebraic notation.
pub fn moves_in_order(pos: &Position) -> Vec<String> {
    let mut buf = vec![0u64; SLOTS];
    let mut m = Chess.moves(pos, true, &mut buf);
    let mut out = vec![];
    while let Some(s) = m.next() {
        out.push(san(&pos.board, slot_move(s)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::perft;

    pub(crate) const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

    #[test]
    fn perft_start_and_kiwipete_shallow() {
        let start = Position::new(Board::default());
        assert_eq!((1..=3).map(|d| perft(&Chess, &start, d)).collect::<Vec<_>>(), vec![20, 400, 8902]);
        let kiwi = Position::parse(KIWIPETE).unwrap();
        assert_eq!((1..=2).map(|d| perft(&Chess, &kiwi, d)).collect::<Vec<_>>(), vec![48, 2039]);
    }

    #[test]
    fn move_codes_round_trip() {
        let kiwi = Position::parse(KIWIPETE).unwrap();
        kiwi.board.generate_moves(|pm| {
            for m in pm {
                assert_eq!(decode(encode(m)), m);
            }
            false
        });
    }

    #[test]
    fn ordering_puts_captures_first_then_quiet_moves_by_gain() {
        // Kiwipete: bishop takes bishop (the most valuable victim), then
        // queen takes knight, then the pawn captures (pawn victims, pawn
        // attackers first).
        let kiwi = Position::parse(KIWIPETE).unwrap();
        let order = moves_in_order(&kiwi);
        assert_eq!(order.len(), 48);
        assert_eq!(order[..4], ["Bxa6", "Qxf6", "dxe6", "gxh3"], "{order:?}");
        assert!(order.contains(&"O-O".to_string()) && order.contains(&"O-O-O".to_string()));
        let uci_castles: Vec<String> = ["e1g1", "e1c1"].iter().map(|u| uci(&kiwi.board, cozy_chess::util::parse_uci_move(&kiwi.board, u).unwrap())).collect();
        assert_eq!(uci_castles, ["e1g1", "e1c1"]);
    }

    /// The Bratko-Kopec file parses, and every best move it names is legal
    /// there: a wrong square in a FEN would make some of them illegal.
    #[test]
    fn bratko_kopec_positions_and_their_best_moves() {
        let text = include_str!("../../data/positions/bratko-kopec.epd");
        let mut n = 0;
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let pos = Position::parse(&fields[..4].join(" ")).unwrap();
            let legal: Vec<String> = moves_in_order(&pos).iter().map(|m| m.trim_end_matches(['+', '#']).to_string()).collect();
            let ops = fields[4..].join(" ");
            let bm = ops.strip_prefix("bm ").and_then(|r| r.split(';').next()).unwrap();
            for m in bm.split_whitespace() {
                assert!(legal.contains(&m.trim_end_matches(['+', '#']).to_string()), "{line}: {m} not in {legal:?}");
            }
            n += 1;
        }
        assert_eq!(n, 24);
    }

    #[test]
    fn bad_positions_are_refused_with_reasons() {
        let err = |t: &str| Position::parse(t).unwrap_err().to_string();
        assert!(err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq").contains("3 fields"));
        assert!(err("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1").contains("invalid"));
        // White to move while Black is in check.
        let e = err("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1");
        assert!(e.contains("illegal side to move"), "{e}");
        let mate = Position::parse("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(mate.no_moves(), Some("checkmate"));
        let stale = Position::parse("7k/8/6QK/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(stale.no_moves(), Some("stalemate"));
        assert_eq!(Position::new(Board::default()).no_moves(), None);
    }
}
