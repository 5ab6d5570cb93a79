//! Position files: one game position a line, as `treegen --game` reads
//! them (`docs/formats.md`). Chess lines are EPD (the four position fields
//! of a FEN, or a whole FEN, then operations such as `id "BK.01";`);
//! Othello lines are 64 squares and the side to move, then operations.

use super::{Game, GameError, chess, othello, othello_n};
use crate::cli::{Input, InputError};

/// What is wrong with a position file. Messages name the file and line;
/// the underlying cause, where there is one, is the error's source.
#[derive(Debug, thiserror::Error)]
pub enum PositionFileError {
    /// The file or one of its lines cannot be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A line that does not parse.
    #[error("bad position ({name}:{line})")]
    Position {
        /// The input.
        name: String,
        /// 1-based line.
        line: usize,
        /// Why.
        source: GameError,
    },
    /// The same position twice.
    #[error("position repeats line {first} ({name}:{line}): give each position once")]
    RepeatedPosition {
        /// The input.
        name: String,
        /// 1-based line of the repeat.
        line: usize,
        /// 1-based line of the first.
        first: usize,
    },
    /// No positions at all.
    #[error("no positions in {0}")]
    NoPositions(String),
}

/// One position of a position file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionLine {
    /// 1-based line in the file.
    pub line: usize,
    /// The position, normalised (a six-field FEN; 64 squares and the side).
    pub position: String,
    /// Its `id` operation, or empty.
    pub id: String,
}

/// Reads a position file of `game`: one position a line (chess: EPD, i.e.
/// the four position fields of a FEN, or a whole FEN, then operations such
/// as `id "BK.01";`; Othello: 64 squares and the side to move, then
/// operations); blank lines and `#` comments are skipped. Positions are
/// checked as a game's tree spec is (`tree::GameSpec::check`), also for
/// moves at the root.
pub fn read_positions(game: Game, input: Input) -> Result<Vec<PositionLine>, PositionFileError> {
    let name = input.name.clone();
    let mut out = vec![];
    // The board and side to move (and castling and en passant in chess) of
    // each position: the same position twice would be searched and counted
    // twice, whatever its id or move counters.
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, line) in input.numbered_lines() {
        let line = line.map_err(|why| InputError::at(&name, i, why))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let bad = |source| PositionFileError::Position { name: name.clone(), line: i, source };
        let (position, ops) = split_position(game, text).map_err(|m| bad(GameError::Line(m)))?;
        let (position, no_moves) = match game {
            Game::Chess => {
                let p = chess::Position::parse(position).map_err(bad)?;
                (p.fen(), p.no_moves())
            }
            // 8 × 8 by the 8 × 8 source, the other boards by the N × N one.
            Game::Othello if othello_n::board_side(position) == Some(8) => {
                let p = othello::Position::parse(position).map_err(bad)?;
                (p.text(), p.no_moves())
            }
            Game::Othello => {
                let p = othello_n::Position::parse(position).map_err(bad)?;
                (p.text(), p.no_moves())
            }
        };
        if let Some(why) = no_moves {
            return Err(bad(GameError::NoMoves(why.into())));
        }
        let id = operation(ops, "id").map_err(|m| bad(GameError::Line(m)))?.unwrap_or_default();
        let board: String = match game {
            Game::Chess => position.split(' ').take(4).collect::<Vec<_>>().join(" "),
            Game::Othello => position.clone(),
        };
        if let Some(&first) = seen.get(&board) {
            return Err(PositionFileError::RepeatedPosition { name, line: i, first });
        }
        seen.insert(board, i);
        out.push(PositionLine { line: i, position, id });
    }
    if out.is_empty() {
        return Err(PositionFileError::NoPositions(name));
    }
    Ok(out)
}

/// Splits a position line into the position's fields and the operations.
/// Chess: four fields, or six when the fifth and sixth are the move
/// counters. A fifth field that looks like a number (`-5`, `99999999999`)
/// is a counter, and must be one: read as an operation, it would take the
/// operations after it and drop the counters without a word.
fn split_position(game: Game, text: &str) -> std::result::Result<(&str, &str), String> {
    let fields = match game {
        Game::Chess => {
            let f: Vec<&str> = text.split_whitespace().take(6).collect();
            let numeric = |x: &str| {
                let digits = x.strip_prefix(['-', '+']).unwrap_or(x);
                !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
            };
            if f.len() >= 5 && numeric(f[4]) {
                let counter = |x: Option<&&str>, what: &str| match x {
                    Some(v) if v.parse::<u32>().is_ok() && !v.starts_with('+') => Ok(()),
                    Some(v) => Err(format!("{what} `{}` is not a non-negative integer", crate::cli::excerpt(v))),
                    None => Err(format!("{what} is missing (a FEN ends with both move counters)")),
                };
                counter(f.get(4), "the halfmove clock")?;
                counter(f.get(5), "the fullmove number")?;
                6
            } else {
                4
            }
        }
        Game::Othello => 2,
    };
    let mut end = 0;
    let mut seen = 0;
    let mut in_field = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if in_field {
                seen += 1;
                in_field = false;
                if seen == fields {
                    end = i;
                    break;
                }
            }
        } else {
            in_field = true;
        }
        end = i + c.len_utf8();
    }
    Ok((text[..end].trim(), text[end..].trim()))
}

/// The operand of EPD operation `op` (`op "text";` or `op word;`), if
/// present. An opcode starts with a letter; anything else is refused rather
/// than read as an opcode that swallows the operations after it.
fn operation(ops: &str, op: &str) -> std::result::Result<Option<String>, String> {
    let mut rest = ops;
    while !rest.trim().is_empty() {
        let r = rest.trim_start();
        let (code, after) = r.split_once(char::is_whitespace).unwrap_or((r.trim_end_matches(';'), ""));
        if !code.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(format!("`{}` is not an EPD operation (an opcode such as `id` starts with a letter)", crate::cli::excerpt(code)));
        }
        let after = after.trim_start();
        let (operand, next) = if let Some(q) = after.strip_prefix('"') {
            let close = q.find('"').ok_or_else(|| format!("operation `{}`: unterminated string", crate::cli::excerpt(code)))?;
            let tail = q[close + 1..].trim_start();
            (q[..close].to_string(), tail.strip_prefix(';').unwrap_or(tail))
        } else {
            let (o, t) = after.split_once(';').unwrap_or((after, ""));
            (o.trim().to_string(), t)
        };
        if code == op {
            return Ok(Some(operand));
        }
        rest = next;
    }
    Ok(None)
}
