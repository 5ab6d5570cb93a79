//! Tree sources: what the one search walks (beyond the thesis: real game
//! trees, the future work of thesis ch. 7; `docs/model.md` §7).
//!
//! The thesis measures everything on artificial trees and argues that they
//! look like a chess program's trees. A [`TreeSource`] lets the same search,
//! observers and simulator run on a real game: the artificial model
//! (`tree::artificial::Shape`) is one source, chess ([`chess`]) and Othello
//! ([`othello`]) are two more. A source says how to start a node's move list
//! (generation and ordering), how to hand out its children in search order,
//! and what a node is worth at the horizon or when the game is over.
//!
//! **One value scale.** Every source values its nodes on the scale of
//! [`crate::value`]: a game's evaluation is placed there with
//! [`crate::value::on_scale`], so the root window is the full window for
//! every source and node types mean the same thing everywhere.
//!
//! **The tree is a function of the position.** Move ordering uses only the
//! node itself (no killer moves, history or transposition table), so the
//! simulator, which expands nodes in another order than the sequential
//! search, sees the same tree; and so does any thread count.

pub mod chess;
pub mod othello;
pub mod othello_n;
mod position_file;
pub mod positions;
pub mod square_moves;

pub use position_file::{PositionFileError, PositionLine, read_positions};
use serde::{Deserialize, Serialize};

/// A tree the search can walk.
pub trait TreeSource: Sync {
    /// A node as the search holds it; serde types so that a message can
    /// carry one between processes (the MPI transport, `docs/model.md` §9.8).
    type Node: Clone + Send + Sync + std::fmt::Debug + PartialEq + Serialize + serde::de::DeserializeOwned;
    /// One entry of a node's move list (the caller owns the buffer).
    type Slot: Copy + Default + Send + Sync + std::fmt::Debug;
    /// A node's children, handed out in search order.
    type Moves<'a>: MoveList<Self>
    where
        Self: 'a;
    /// A move list without its borrow of the buffer (the simulator keeps many).
    type Cursor: Copy + Send + Sync + std::fmt::Debug;

    /// Buffer entries one node's move list needs: its most children.
    fn slots(&self) -> usize;
    /// Starts the move list of `node` (a MAX node if `max`) in `buf` (at
    /// least [`TreeSource::slots`] long). An empty list: the game is over.
    fn moves<'a>(&'a self, node: &Self::Node, max: bool, buf: &'a mut [Self::Slot]) -> Self::Moves<'a>;
    /// The value of `node` searched as a leaf at the horizon.
    fn horizon_value(&self, node: &Self::Node, max: bool) -> i64;
    /// The value of `node` before the horizon when it has no moves (a game
    /// over), at distance `ply` from the root.
    fn terminal_value(&self, node: &Self::Node, max: bool, ply: u32) -> i64;
    /// The move list's state without the buffer.
    fn detach(&self, m: Self::Moves<'_>) -> Self::Cursor;
    /// A detached move list again, over the buffer it was started in.
    fn resume<'a>(&'a self, c: Self::Cursor, buf: &'a mut [Self::Slot]) -> Self::Moves<'a>;
    /// Children handed out so far by a detached move list.
    fn handed_out(c: &Self::Cursor) -> u32;
    /// A number that tells roots apart, for per-tree random choices of the
    /// simulator (the artificial tree's root seed; a hash of a position).
    fn root_key(&self, node: &Self::Node) -> u64;
    /// The node's transposition-table key at distance `ply` from the root:
    /// a well-mixed 64-bit name of what lies below it (equal keys at the
    /// same ply mean equal subtrees), so a table may keep the key instead of
    /// the node (`crate::tt`).
    fn tt_key(&self, node: &Self::Node, ply: u32) -> u64;
    /// The [`TreeSource::tt_key`]s at `ply` of the children in a fresh move
    /// list, where the source has them without making the children (a
    /// table may start fetching their entries); by default none.
    #[inline(always)]
    fn child_keys(&self, _moves: &Self::Moves<'_>, _ply: u32, _f: impl FnMut(u64)) {}
}

/// Mixes a word into a well-spread hash (splitmix64's finaliser, a
/// bijection of `u64`): what the sources' [`TreeSource::tt_key`]s fold the
/// ply in with.
#[inline(always)]
pub fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A node's children in search order (see [`TreeSource::moves`]).
pub trait MoveList<S: TreeSource + ?Sized> {
    /// What [`MoveList::next`] hands out: enough to make the child or value it.
    type Handle: Copy;
    /// Number of children.
    fn len(&self) -> u32;
    /// Whether the node has no children (a game over).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The next child in search order, as a handle for [`MoveList::child`]
    /// and [`MoveList::leaf_value`].
    fn next(&mut self) -> Option<Self::Handle>;
    /// Child `k` (a handle from [`MoveList::next`]) of `parent`, to search further.
    fn child(&mut self, parent: &S::Node, k: Self::Handle) -> S::Node;
    /// Child `k`'s value when it is a leaf at the horizon (may be cheaper than
    /// making the child and asking [`TreeSource::horizon_value`]).
    fn leaf_value(&mut self, parent: &S::Node, k: Self::Handle) -> i64;
}

/// A real game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Game {
    /// Chess (positions in FEN/EPD).
    Chess,
    /// Othello (positions as 64 squares and the side to move).
    Othello,
}

impl Game {
    /// The name in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Game::Chess => "chess",
            Game::Othello => "othello",
        }
    }
}

impl std::fmt::Display for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Game {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Game, GameError> {
        match s {
            "chess" => Ok(Game::Chess),
            "othello" => Ok(Game::Othello),
            _ => Err(GameError::UnknownGame(s.to_string())),
        }
    }
}

/// What is wrong with a game position or request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// Neither `chess` nor `othello`.
    #[error("unknown game `{}` (expected `chess` or `othello`)", crate::cli::excerpt(.0))]
    UnknownGame(String),
    /// A FEN that does not parse or describes an impossible board.
    #[error("bad FEN `{}`: {why}", crate::cli::excerpt(fen))]
    Fen {
        /// The text.
        fen: String,
        /// Why.
        why: String,
    },
    /// An Othello board that does not parse.
    #[error("bad Othello board `{}`: {why}", crate::cli::excerpt(board))]
    Othello {
        /// The text.
        board: String,
        /// Why.
        why: String,
    },
    /// A position whose side to move has no legal move and the game is over.
    #[error("no legal moves at the root: {0}")]
    NoMoves(String),
    /// A position file line that is neither a position nor a comment.
    #[error("{0}")]
    Line(String),
    /// A request out of range (the message names it).
    #[error("{0}")]
    Request(String),
}

/// A node's children in the source's order (a MAX node if `max`), built
/// in full: for the few places that keep them (the message-passing
/// policies' frames and frontiers), not for a search's inner loop.
pub fn children<S: TreeSource>(src: &S, node: &S::Node, max: bool) -> Vec<S::Node> {
    let mut buf = vec![S::Slot::default(); src.slots()];
    let mut m = src.moves(node, max, &mut buf);
    let mut kids = vec![];
    while let Some(h) = m.next() {
        kids.push(m.child(node, h));
    }
    kids
}

/// Counts the nodes at exactly `depth` through the source's own move lists
/// (a node with no moves before `depth` adds none; an Othello pass is a
/// move): perft, the standard check of a move generator against published
/// counts.
pub fn perft<S: TreeSource>(src: &S, node: &S::Node, depth: u32) -> u64 {
    let mut buf = vec![S::Slot::default(); src.slots() * depth.max(1) as usize];
    perft_in(src, node, depth, &mut buf)
}

fn perft_in<S: TreeSource>(src: &S, node: &S::Node, depth: u32, buf: &mut [S::Slot]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (mine, rest) = buf.split_at_mut(src.slots());
    let mut m = src.moves(node, true, mine);
    if depth == 1 {
        return m.len() as u64;
    }
    let mut n = 0;
    while let Some(k) = m.next() {
        let c = m.child(node, k);
        n += perft_in(src, &c, depth - 1, rest);
    }
    n
}
