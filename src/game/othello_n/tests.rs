//! The N × N generator against the 8 × 8 one (`magpie`'s) and against a
//! plain reference written square by square, on every size.

use super::*;
use crate::game::othello::{self, Othello};
use crate::game::perft;

/// The rules played square by square on an array: the reference the
/// bitboards are checked against (slow, obviously right).
fn reference_moves(p: &Position) -> Vec<u32> {
    let n = p.n as i32;
    let (mine, theirs) = p.sides();
    let at = |r: i32, c: i32| -> Option<u8> {
        if r < 0 || c < 0 || r >= n || c >= n {
            None
        } else if mine.has((r * n + c) as u32) {
            Some(1)
        } else if theirs.has((r * n + c) as u32) {
            Some(2)
        } else {
            Some(0)
        }
    };
    let mut out = vec![];
    for sq in 0..n * n {
        let (r, c) = (sq / n, sq % n);
        if at(r, c) != Some(0) {
            continue;
        }
        let turns = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)].iter().any(|&(dr, dc)| {
            let (mut rr, mut cc, mut seen) = (r + dr, c + dc, 0);
            while at(rr, cc) == Some(2) {
                (rr, cc, seen) = (rr + dr, cc + dc, seen + 1);
            }
            seen > 0 && at(rr, cc) == Some(1)
        });
        if turns {
            out.push(sq as u32);
        }
    }
    out
}

/// Walks both generators `depth` plies below `p`, comparing move sets and
/// disc counts; returns the leaves.
fn walk_against_reference(p: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut mine: Vec<u32> = p.mobility().0.squares().collect();
    mine.sort_unstable();
    assert_eq!(mine, reference_moves(p), "{}", p.text());
    let mut buf = vec![0u32; MAX_SQUARES];
    let mut m = OthelloN.moves(p, true, &mut buf);
    let mut leaves = 0;
    while let Some(sq) = m.next() {
        let c = p.play(sq);
        assert_eq!(c.black.and(c.white), Bits::default());
        if sq != PASS {
            let (before, after) = (p.black.or(p.white).count(), c.black.or(c.white).count());
            assert_eq!(after, before + 1, "{} plays {}", p.text(), square_name(p.n, sq));
        }
        leaves += walk_against_reference(&c, depth - 1);
    }
    leaves
}

#[test]
fn every_size_moves_as_the_reference_does() {
    for n in SIZES {
        let start = Position::start(n).unwrap();
        // The first three plies are the same on every board (the edges are
        // too far to matter): 4, 12, 56.
        assert_eq!(perft(&OthelloN, &start, 3), 56, "{n} × {n}");
        walk_against_reference(&start, if n == 6 { 6 } else { 5 });
    }
}

#[test]
fn on_eight_by_eight_the_start_and_the_tables_are_the_usual_ones() {
    let s = Position::start(8).unwrap();
    assert_eq!(s.text(), othello::Position::start().text());
    assert_eq!((0..64).map(|sq| square_score(8, sq)).collect::<Vec<_>>(), othello::SQUARE_SCORE.to_vec());
    assert_eq!(moves_in_order(&s), othello::moves_in_order(&othello::Position::start()));
    // The published perft counts of the 8 × 8 start.
    assert_eq!((1..=7).map(|d| perft(&OthelloN, &s, d)).collect::<Vec<_>>(), [4, 12, 56, 244, 1396, 8200, 55092]);
}

#[test]
fn on_six_by_six_the_edges_come_early() {
    let s = Position::start(6).unwrap();
    assert_eq!(s.text(), format!("{}OX----XO{} X", "-".repeat(14), "-".repeat(14)));
    assert_eq!(moves_in_order(&s), ["c2", "b3", "e4", "d5"]);
    // A 6 × 6 edge square scores 10 next to the corner's neighbour.
    assert_eq!((0..6).map(|c| square_score(6, c)).collect::<Vec<_>>(), [100, -20, 10, 10, -20, 100]);
    assert_eq!(square_score(12, 12 * 5 + 5), -1);
    assert_eq!(square_score(12, 5), 5);
}

#[test]
fn positions_round_trip_and_bad_ones_are_refused() {
    for n in SIZES {
        let s = Position::start(n).unwrap().play(OthelloN.moves(&Position::start(n).unwrap(), true, &mut [0; 144]).next().unwrap());
        assert_eq!(Position::parse(&s.text()).unwrap(), s);
        let wire = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Position>(&wire).unwrap(), s);
    }
    let err = |t: &str| Position::parse(t).unwrap_err().to_string();
    assert!(err(&format!("{} X", "-".repeat(49))).contains("49 squares (expected 36, 64, 100 or 144"));
    assert!(err(&format!("{} X", "-".repeat(100))).contains("centre"));
    assert!(err("XO").contains("1 fields"));
    assert!(Position::start(7).unwrap_err().to_string().contains("give 6, 8, 10 or 12"));
    // A full board: the game is over, valued by the discs.
    let full = Position::parse(&format!("{} O", "O".repeat(36))).unwrap();
    assert!(full.no_moves().is_some());
    assert_eq!(full.final_value(), 36 * DISC);
}

#[test]
fn a_side_without_a_move_passes() {
    // Black's one disc ends a white row that reaches the edge (the 8 × 8
    // case of the 8 × 8 source's test, on 10 × 10).
    let n = 10;
    let mut sq = vec!['-'; 100];
    sq[1] = 'X';
    for i in [2, 3, 4, 5, 6, 7, 8, 9, 44, 45, 54, 55] {
        sq[i] = 'O';
    }
    let p = Position::parse(&format!("{} X", sq.iter().collect::<String>())).unwrap();
    assert_eq!(p.n, n);
    assert_eq!(moves_in_order(&p), ["pass"]);
    assert!(p.play(PASS).no_moves().is_none());
    // The 8 × 8 source agrees on its own pass position.
    assert_eq!(perft(&Othello, &othello::Position::start(), 4), perft(&OthelloN, &Position::start(8).unwrap(), 4));
}
