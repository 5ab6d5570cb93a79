//! Game positions as tree families (`tree/family.rs`): chess and Othello,
//! whose sources live in [`crate::game`]. A spec line with a `game` field
//! is a position ([`GameSpec`]); its `game` says which family reads it.
//! The check, the grouping by game and depth and the `seed` column's digest
//! are the same for every game; each game adds its position type and its
//! table key ([`crate::game::TreeSource::tt_key`]).

use super::{GameSpec, MAX_DEPTH, SpecError, SpecHead, SpecKeys, TreeFamily, TreeKey, TreeKind};
use crate::game::{Game, GameError, chess, othello, othello_n};

/// Checks a game spec's numbers (the position is the game's to parse).
fn check_head(spec: &GameSpec) -> Result<(), SpecError> {
    if spec.index == 0 {
        return Err(SpecError::IndexZero);
    }
    if spec.depth == 0 {
        return Err(SpecError::GameDepthZero);
    }
    if spec.depth > MAX_DEPTH {
        return Err(SpecError::Depth(spec.depth));
    }
    Ok(())
}

/// The refusal of a position whose side to move cannot move.
fn no_moves(why: Option<&str>) -> Result<(), SpecError> {
    match why {
        Some(why) => Err(GameError::NoMoves(why.into()).into()),
        None => Ok(()),
    }
}

/// The per-tree rows' `seed` column of a position: the first 6 bytes of
/// the position's SHA-256, so that rows of different positions with the
/// same index never match.
fn position_digest(spec: &GameSpec) -> u64 {
    use sha2::{Digest, Sha256};
    Sha256::digest(spec.position.as_bytes()).iter().take(6).fold(0u64, |a, &b| a << 8 | b as u64)
}

/// What a position is, for [`TreeFamily::identity`]: its fields, one space
/// apart; for chess only the first four (the board, the side to move,
/// castling and en passant), as the position files' reader compares them:
/// the search knows no fifty-move rule, so the clocks do not change the tree.
fn board(spec: &GameSpec) -> String {
    let fields = spec.position.split_whitespace();
    let fields: Vec<&str> = match spec.game {
        Game::Chess => fields.take(4).collect(),
        Game::Othello => fields.collect(),
    };
    fields.join(" ")
}

/// The trait's members that are the same for every game: `$game`'s
/// source, position type and move names.
macro_rules! game_family {
    ($src:ty, $game:expr, $module:ident, $board:expr, $claims:expr) => {
        impl TreeFamily for $src {
            type Spec = GameSpec;
            const KIND: TreeKind = TreeKind::Game;
            fn claims(line: &SpecKeys) -> bool {
                $claims(line)
            }
            fn check(spec: &GameSpec) -> Result<($src, $module::Position), SpecError> {
                check_head(spec)?;
                let root = $module::Position::parse(&spec.position)?;
                no_moves(root.no_moves())?;
                Ok((<$src>::default(), root))
            }
            fn head(spec: &GameSpec) -> SpecHead<'_> {
                SpecHead { set: &spec.set, index: spec.index, depth: spec.depth }
            }
            fn key(spec: &GameSpec) -> TreeKey {
                TreeKey::Game { game: $game, board: $board(spec), depth: spec.depth }
            }
            fn identity(spec: &GameSpec) -> GameSpec {
                GameSpec { set: String::new(), index: 0, id: String::new(), position: board(spec), ..spec.clone() }
            }
            fn row_seed(spec: &GameSpec) -> u64 {
                position_digest(spec)
            }
            fn move_names(root: &$module::Position) -> Vec<String> {
                $module::moves_in_order(root)
            }
        }
    };
}

// Othello claims its own lines: those of 64 squares the 8 × 8 source
// (registered after the N × N one, which claims the rest, so that a board
// of no size is refused by its reader); chess, registered after them,
// every other line with a `game` field, so that an unknown game is refused
// by the game spec's reader (`unknown variant`). A new game claims its own
// lines and is registered before chess.
fn othello_side(l: &SpecKeys) -> Option<u32> {
    (l.str("game") == Some(Game::Othello.name())).then(|| l.str("position").and_then(othello_n::board_side).unwrap_or(0))
}
game_family!(othello_n::OthelloN, Game::Othello, othello_n, |s: &GameSpec| othello_n::board_side(&s.position).unwrap_or(0), |l: &SpecKeys| othello_side(l)
    .is_some_and(|n| n != 8));
game_family!(othello::Othello, Game::Othello, othello, |_: &GameSpec| 8, |l: &SpecKeys| othello_side(l) == Some(8));
game_family!(chess::Chess, Game::Chess, chess, |_: &GameSpec| 8, |l: &SpecKeys| l.has("game"));
