//! Training positions by seeded random play (beyond the thesis: its network
//! is trained on one set of trees, tg2, and scored on another, tg1; for a
//! game the two sets are positions; `docs/model.md` §7.4).
//!
//! Position `i` of a set is reached from the game's start position by a
//! number of plies drawn uniformly from a range, each ply a legal move drawn
//! uniformly (a pass when it is the only move). One ChaCha8 generator, seeded
//! with the set's seed, makes every draw in order, so the same request gives
//! the same file. A walk that ends the game early, ends in a position with
//! no move, or repeats a position already in the set is dropped and the
//! next draws start a new walk. A request is given up when 10,000 walks in
//! a row added nothing.
//!
//! Draws: `uniform(n) = (next_u32 * n) >> 32` (multiply-shift, no modulo).

use super::{Game, GameError, MoveList, TreeSource, chess, othello, othello_n};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use std::collections::HashSet;

/// Walks in a row that add no position after which a request is given up.
pub const GIVE_UP: usize = 10_000;

/// The generator's name, written into every position's comment.
pub const RNG: &str = "ChaCha8";

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomPlay {
    /// The game.
    pub game: Game,
    /// The side of the board (8; Othello also 6, 10 or 12).
    pub board: u32,
    /// Positions.
    pub count: usize,
    /// The generator's seed.
    pub seed: u64,
    /// Plies from the start position, inclusive range.
    pub plies: (u32, u32),
}

#[inline]
fn uniform(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    (rng.next_u32() as u64 * n) >> 32
}

/// One walk of `plies` random moves from `start`; `None` if the game ends first.
fn walk<S: TreeSource>(src: &S, start: &S::Node, plies: u32, rng: &mut ChaCha8Rng) -> Option<S::Node> {
    let mut buf = vec![S::Slot::default(); src.slots()];
    let mut node = start.clone();
    for _ in 0..plies {
        let mut m = src.moves(&node, true, &mut buf);
        let n = m.len() as u64;
        if n == 0 {
            return None;
        }
        let pick = uniform(rng, n);
        let mut chosen = None;
        for _ in 0..=pick {
            chosen = m.next();
        }
        let h = chosen?;
        node = m.child(&node, h);
    }
    Some(node)
}

/// The lines of a position file (see the module docs): one position per
/// line with an `id` and a comment `c0` saying how it was made.
pub fn random_positions(req: &RandomPlay) -> Result<Vec<String>, GameError> {
    let (lo, hi) = req.plies;
    if lo > hi {
        return Err(GameError::Request(format!("--plies {lo}..{hi}: the range is empty")));
    }
    if !(1..=100_000).contains(&req.count) {
        return Err(GameError::Request(format!("--count {} must lie in 1..100000", req.count)));
    }
    if req.board != 8 {
        if req.game != Game::Othello {
            return Err(GameError::Request(format!("--board {}: boards of other sizes are Othello's", req.board)));
        }
        othello_n::check_size(req.board, || format!("--board {}", req.board))?;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(req.seed);
    let mut seen = HashSet::new();
    let mut out = vec![];
    // Far more walks than any request needs; a range that cannot give
    // enough distinct positions (0..0 asks for the start position only)
    // stops here instead of looping for ever. And as soon as GIVE_UP walks
    // in a row added nothing: a range no game reaches (Othello ends by 60
    // or so plies) would otherwise walk the whole budget, 20 minutes for
    // 100,000 positions, before the refusal 10 positions get in 0.3 s.
    let budget = 1000 * req.count + 10_000;
    let mut walks = 0;
    let mut streak = 0;
    while walks < budget && streak < GIVE_UP {
        if out.len() == req.count {
            break;
        }
        walks += 1;
        streak += 1;
        let plies = lo + uniform(&mut rng, (hi - lo + 1) as u64) as u32;
        let text = match req.game {
            Game::Chess => walk(&chess::Chess, &chess::Position::new(cozy_chess::Board::default()), plies, &mut rng)
                .filter(|p| p.no_moves().is_none())
                .map(|p| p.fen().split(' ').take(4).collect::<Vec<_>>().join(" ")),
            Game::Othello if req.board == 8 => {
                walk(&othello::Othello, &othello::Position::start(), plies, &mut rng).filter(|p| p.no_moves().is_none()).map(|p| p.text())
            }
            Game::Othello => {
                let start = othello_n::Position::start(req.board)?;
                walk(&othello_n::OthelloN, &start, plies, &mut rng).filter(|p| p.no_moves().is_none()).map(|p| p.text())
            }
        };
        let Some(text) = text else { continue };
        if !seen.insert(text.clone()) {
            continue;
        }
        streak = 0;
        let i = out.len() + 1;
        out.push(format!("{text} id \"train-{i:03}\"; c0 \"random play: {RNG} seed {}, {plies} plies\";", req.seed));
    }
    if out.len() < req.count {
        let why = if streak >= GIVE_UP { format!(", the last {GIVE_UP} of them adding none") } else { String::new() };
        return Err(GameError::Request(format!(
            "only {} distinct positions after {walks} walks of {lo}..{hi} plies{why} (ask for fewer, or another range)",
            out.len()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_request_same_positions_and_every_one_reads_back() {
        for game in [Game::Chess, Game::Othello] {
            let req = RandomPlay { game, board: 8, count: 20, seed: 7, plies: (6, 14) };
            let a = random_positions(&req).unwrap();
            assert_eq!(a, random_positions(&req).unwrap());
            assert_eq!(a.len(), 20);
            assert_ne!(a, random_positions(&RandomPlay { seed: 8, ..req.clone() }).unwrap());
            let text = a.join("\n");
            let read = crate::game::read_positions(game, crate::cli::Input::from_string("p", &text)).unwrap();
            assert_eq!(read.len(), 20);
            assert_eq!(read[19].id, "train-020");
        }
    }

    #[test]
    fn impossible_requests_are_refused() {
        let req = RandomPlay { game: Game::Othello, board: 8, count: 2, seed: 1, plies: (0, 0) };
        assert!(random_positions(&req).unwrap_err().to_string().contains("only 1 distinct"), "{}", random_positions(&req).unwrap_err());
        assert!(random_positions(&RandomPlay { plies: (5, 4), ..req.clone() }).is_err());
        assert!(random_positions(&RandomPlay { count: 0, ..req.clone() }).is_err());
        assert!(random_positions(&RandomPlay { count: usize::MAX, ..req.clone() }).is_err());
        let e = |r: RandomPlay| random_positions(&r).unwrap_err().to_string();
        assert!(e(RandomPlay { board: 7, plies: (4, 4), ..req.clone() }).contains("give 6, 8, 10 or 12"));
        assert!(e(RandomPlay { game: Game::Chess, board: 10, ..req }).contains("Othello's"));
    }

    /// Othello on 6 × 6 and 12 × 12 by random play: positions of that
    /// size, read back by the position file's reader; on 8 × 8 the N × N
    /// source walks exactly as the 8 × 8 one (the same moves in the same order).
    #[test]
    fn othello_boards_of_every_size() {
        for board in [6, 10, 12] {
            let req = RandomPlay { game: Game::Othello, board, count: 5, seed: 3, plies: (8, 12) };
            let lines = random_positions(&req).unwrap();
            let read = crate::game::read_positions(Game::Othello, crate::cli::Input::from_string("p", &lines.join("\n"))).unwrap();
            assert!(read.iter().all(|p| othello_n::board_side(&p.position) == Some(board)));
        }
        let mut a = ChaCha8Rng::seed_from_u64(9);
        let mut b = ChaCha8Rng::seed_from_u64(9);
        for plies in [5, 20, 40] {
            let x = walk(&othello::Othello, &othello::Position::start(), plies, &mut a).map(|p| p.text());
            let y = walk(&othello_n::OthelloN, &othello_n::Position::start(8).unwrap(), plies, &mut b).map(|p| p.text());
            assert_eq!(x, y);
        }
    }
}
