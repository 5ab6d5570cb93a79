//! The file formats the tools exchange, as serde types in one place
//! (documented for users in `docs/formats.md`).
//!
//! Tree specs travel as JSON lines (here); tables as CSV with a header row
//! (`rows`: the reader and every row type). Readers reject unknown and
//! missing fields and name the file and line.

use crate::cli::Input;
use crate::game::{Family, Game, GameError, TreeSource, chess, othello};
use crate::search::{Observer, SearchResult, search};
use crate::tree::{Model, Node, Ordering, Shape, TreeError, check_seed};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};

mod rows;
pub use rows::*;

/// The largest search depth a tree spec may ask for.
pub const MAX_DEPTH: u32 = 64;

/// What is wrong with a tree spec's values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The ordering, model or seed.
    #[error(transparent)]
    Tree(#[from] TreeError),
    /// `index` 0.
    #[error("index 0: tree indices are 1-based positions in the seed set")]
    IndexZero,
    /// A root pscore outside the scores.
    #[error("root pscore {0} is outside [0, 2^31-2]")]
    Pscore(u64),
    /// Too deep.
    #[error("depth {0} is larger than {MAX_DEPTH}")]
    Depth(u32),
    /// A game position that does not parse, or whose side to move cannot move.
    #[error(transparent)]
    Game(#[from] GameError),
    /// A game tree of depth 0.
    #[error("depth 0: a game tree needs depth 1 or more (at depth 0 the root is its own static evaluation)")]
    GameDepthZero,
}

/// What is wrong with an input file. Messages name the file and line; the
/// underlying cause, where there is one, is the error's source.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The input cannot be read.
    #[error("cannot read {name}")]
    Read {
        /// The input.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line that is not UTF-8 text.
    #[error("{why} ({name}:{line})")]
    Line {
        /// The input.
        name: String,
        /// 1-based line.
        line: usize,
        /// What is wrong with it.
        why: crate::cli::LineError,
    },
    /// A JSON line that does not parse as the expected type.
    #[error("bad JSON line ({name}:{line})")]
    Json {
        /// The input.
        name: String,
        /// 1-based line.
        line: usize,
        /// Why.
        source: serde_json::Error,
    },
    /// A tree spec that does not parse.
    #[error("bad tree spec ({name}:{line})")]
    SpecSyntax {
        /// The input.
        name: String,
        /// 1-based line.
        line: usize,
        /// Why.
        source: serde_json::Error,
    },
    /// A tree spec with values out of range.
    #[error("bad tree spec ({name}:{line})")]
    Spec {
        /// The input.
        name: String,
        /// 1-based line.
        line: usize,
        /// Why.
        source: SpecError,
    },
    /// The same tree twice.
    #[error("tree spec repeats line {first} ({name}:{line}): give each tree once")]
    Repeated {
        /// The input.
        name: String,
        /// 1-based line of the repeat.
        line: usize,
        /// 1-based line of the first.
        first: usize,
    },
    /// No tree specs at all.
    #[error("no tree specs in {0} (make some with `treegen --set tg1 --ordering 32,79,5 --depth 6`)")]
    NoTrees(String),
    /// A position file line that does not parse.
    #[error("bad position ({name}:{line})")]
    Position {
        /// The input.
        name: String,
        /// 1-based line.
        line: usize,
        /// Why.
        source: GameError,
    },
    /// The same position twice in a position file.
    #[error("position repeats line {first} ({name}:{line}): give each position once")]
    RepeatedPosition {
        /// The input.
        name: String,
        /// 1-based line of the repeat.
        line: usize,
        /// 1-based line of the first.
        first: usize,
    },
    /// No positions in a position file.
    #[error("no positions in {0}")]
    NoPositions(String),
    /// Artificial trees and game positions in one input, for a tool whose
    /// table differs between the two.
    #[error("{name} mixes artificial trees and game positions (line {line}): their tables differ, give them to separate runs")]
    Mixed {
        /// The input.
        name: String,
        /// The first line of the other kind.
        line: usize,
    },
    /// A CSV file that does not fit its format.
    #[error("{message} ({name}:{line})")]
    Csv {
        /// The input.
        name: String,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
    },
}

type Result<T, E = FormatError> = std::result::Result<T, E>;

/// One tree: everything needed to regenerate and search it (`treegen`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeSpec {
    /// The seed set's name (`tg1`, `tg2` or a file path).
    pub set: String,
    /// 1-based position of the seed in its set.
    pub index: u32,
    /// The root's seed.
    pub seed: u64,
    /// The root's pscore (its minimax value).
    pub pscore: u64,
    /// The ordering model.
    pub model: Model,
    /// Branching factor.
    pub b: u32,
    /// Knowledge weight at position 1, percent.
    pub wa: u32,
    /// Knowledge weight at other positions, percent.
    pub wb: u32,
    /// Search depth.
    pub depth: u32,
}

/// One game position to search (`treegen --game`; `docs/formats.md`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSpec {
    /// The game.
    pub game: Game,
    /// The position file's name without directory and extension.
    pub set: String,
    /// 1-based position of the position in its file.
    pub index: u32,
    /// The position's `id` in its file (empty if it has none).
    pub id: String,
    /// The position: a FEN (chess) or 64 squares and the side to move (Othello).
    pub position: String,
    /// Search depth, 1..64.
    pub depth: u32,
}

/// A tree spec of either kind, as it appears on a line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum Spec {
    /// An artificial tree.
    Artificial(TreeSpec),
    /// A game position.
    Game(GameSpec),
}

/// What groups trees in every table: the artificial model with its ordering,
/// or the game; and the depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TreeKey {
    /// Artificial trees of one model and ordering.
    Artificial {
        /// The model.
        model: Model,
        /// `(b, w_a, w_b)`.
        ordering: Ordering,
        /// Search depth.
        depth: u32,
    },
    /// Positions of one game.
    Game {
        /// The game.
        game: Game,
        /// Search depth.
        depth: u32,
    },
}

impl TreeKey {
    /// The `model` column's value.
    pub fn family(&self) -> Family {
        match *self {
            TreeKey::Artificial { model, .. } => model.into(),
            TreeKey::Game { game, .. } => game.into(),
        }
    }
    /// The ordering of artificial trees.
    pub fn ordering(&self) -> Option<Ordering> {
        match *self {
            TreeKey::Artificial { ordering, .. } => Some(ordering),
            TreeKey::Game { .. } => None,
        }
    }
    /// Search depth.
    pub fn depth(&self) -> u32 {
        match *self {
            TreeKey::Artificial { depth, .. } | TreeKey::Game { depth, .. } => depth,
        }
    }
}

impl std::fmt::Display for TreeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeKey::Artificial { model, ordering, depth } => write!(f, "{} ({ordering}) depth {depth}", model.name()),
            TreeKey::Game { game, depth } => write!(f, "{game} depth {depth}"),
        }
    }
}

/// A checked tree, ready to search: its spec and its root in its source.
#[derive(Clone, Debug)]
pub enum Tree {
    /// An artificial tree.
    Artificial {
        /// The spec it came from.
        spec: TreeSpec,
        /// The model and ordering.
        shape: Shape,
        /// The root node (a MAX node).
        root: Node,
    },
    /// A chess position.
    Chess {
        /// The spec it came from.
        spec: GameSpec,
        /// The root position.
        root: chess::Position,
    },
    /// An Othello position.
    Othello {
        /// The spec it came from.
        spec: GameSpec,
        /// The root position.
        root: othello::Position,
    },
}

/// Something to do with a tree's source and root, whatever the source: the
/// one place where the kind of tree is decided ([`Tree::visit`]), so that
/// the search and the simulator are monomorphised per source.
pub trait SourceVisitor {
    /// What the visit returns.
    type Output;
    /// Runs on the tree's source and root, with its search depth.
    fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Self::Output;
}

struct Search<'o, O>(&'o mut O);

impl<O: Observer> SourceVisitor for Search<'_, O> {
    type Output = SearchResult;
    #[inline]
    fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> SearchResult {
        search(src, root, depth, self.0)
    }
}

impl Tree {
    /// Calls `v` with the tree's source and root.
    #[inline]
    pub fn visit<V: SourceVisitor>(&self, v: V) -> V::Output {
        match self {
            Tree::Artificial { spec, shape, root } => v.visit(shape, root, spec.depth),
            Tree::Chess { spec, root } => v.visit(&chess::Chess, root, spec.depth),
            Tree::Othello { spec, root } => v.visit(&othello::Othello, root, spec.depth),
        }
    }

    /// Searches the tree to its depth with observer `obs`.
    pub fn search<O: Observer>(&self, obs: &mut O) -> SearchResult {
        self.visit(Search(obs))
    }

    /// The spec, either kind.
    pub fn spec(&self) -> Spec {
        match self {
            Tree::Artificial { spec, .. } => Spec::Artificial(spec.clone()),
            Tree::Chess { spec, .. } | Tree::Othello { spec, .. } => Spec::Game(spec.clone()),
        }
    }

    /// The game spec of a game position.
    pub fn game_spec(&self) -> Option<&GameSpec> {
        match self {
            Tree::Artificial { .. } => None,
            Tree::Chess { spec, .. } | Tree::Othello { spec, .. } => Some(spec),
        }
    }

    /// The artificial spec of an artificial tree.
    pub fn artificial_spec(&self) -> Option<&TreeSpec> {
        match self {
            Tree::Artificial { spec, .. } => Some(spec),
            _ => None,
        }
    }

    /// A game position (not an artificial tree).
    pub fn is_game(&self) -> bool {
        !matches!(self, Tree::Artificial { .. })
    }

    /// Search depth.
    pub fn depth(&self) -> u32 {
        match self {
            Tree::Artificial { spec, .. } => spec.depth,
            Tree::Chess { spec, .. } | Tree::Othello { spec, .. } => spec.depth,
        }
    }

    /// 1-based index in the seed set or position file.
    pub fn index(&self) -> u32 {
        match self {
            Tree::Artificial { spec, .. } => spec.index,
            Tree::Chess { spec, .. } | Tree::Othello { spec, .. } => spec.index,
        }
    }

    /// The set's name.
    pub fn set(&self) -> &str {
        match self {
            Tree::Artificial { spec, .. } => &spec.set,
            Tree::Chess { spec, .. } | Tree::Othello { spec, .. } => &spec.set,
        }
    }

    /// The root seed of an artificial tree.
    pub fn seed(&self) -> Option<u64> {
        self.artificial_spec().map(|s| s.seed)
    }

    /// The group this tree belongs to in every table.
    pub fn key(&self) -> TreeKey {
        match self {
            Tree::Artificial { spec, .. } => TreeKey::Artificial { model: spec.model, ordering: spec.ordering(), depth: spec.depth },
            Tree::Chess { spec, .. } | Tree::Othello { spec, .. } => TreeKey::Game { game: spec.game, depth: spec.depth },
        }
    }

    /// The spec as its JSON line.
    pub fn spec_json(&self) -> String {
        match self {
            Tree::Artificial { spec, .. } => serde_json::to_string(spec).unwrap_or_default(),
            Tree::Chess { spec, .. } | Tree::Othello { spec, .. } => serde_json::to_string(spec).unwrap_or_default(),
        }
    }
}

impl TreeSpec {
    /// Validates the spec.
    pub fn check(&self) -> Result<Tree, SpecError> {
        let ordering = Ordering::new(self.b, self.wa, self.wb)?;
        let shape = Shape::new(self.model, ordering)?;
        let seed = check_seed(self.seed)?;
        if self.index == 0 {
            return Err(SpecError::IndexZero);
        }
        if self.pscore > crate::tree::SCORE_MAX {
            return Err(SpecError::Pscore(self.pscore));
        }
        if self.depth > MAX_DEPTH {
            return Err(SpecError::Depth(self.depth));
        }
        Ok(Tree::Artificial { spec: self.clone(), shape, root: Node { seed, pscore: self.pscore as u32 } })
    }

    /// The ordering `(b, w_a, w_b)`.
    pub fn ordering(&self) -> Ordering {
        Ordering { b: self.b, wa: self.wa, wb: self.wb }
    }
}

impl GameSpec {
    /// Validates the spec: the position parses, its side to move has a
    /// move (or, in Othello, a pass), the depth is 1..64.
    pub fn check(&self) -> Result<Tree, SpecError> {
        if self.index == 0 {
            return Err(SpecError::IndexZero);
        }
        if self.depth == 0 {
            return Err(SpecError::GameDepthZero);
        }
        if self.depth > MAX_DEPTH {
            return Err(SpecError::Depth(self.depth));
        }
        let spec = self.clone();
        let tree = match self.game {
            Game::Chess => {
                let root = chess::Position::parse(&self.position)?;
                if let Some(why) = root.no_moves() {
                    return Err(GameError::NoMoves(why.into()).into());
                }
                Tree::Chess { spec, root }
            }
            Game::Othello => {
                let root = othello::Position::parse(&self.position)?;
                if let Some(why) = root.no_moves() {
                    return Err(GameError::NoMoves(why.into()).into());
                }
                Tree::Othello { spec, root }
            }
        };
        Ok(tree)
    }
}

impl Spec {
    /// Validates the spec.
    pub fn check(&self) -> Result<Tree, SpecError> {
        match self {
            Spec::Artificial(s) => s.check(),
            Spec::Game(s) => s.check(),
        }
    }
}

/// Reads JSON lines of `T`, skipping blank lines; errors name `file:line`.
pub fn read_json_lines<T: DeserializeOwned>(input: Input) -> Result<Vec<T>> {
    let name = input.name.clone();
    let mut out = vec![];
    for (i, line) in input.numbered_lines() {
        let line = line.map_err(|why| line_error(&name, i, why))?;
        if line.trim().is_empty() {
            continue;
        }
        let v = serde_json::from_str(&line).map_err(|source| FormatError::Json { name: name.clone(), line: i, source })?;
        out.push(v);
    }
    Ok(out)
}

/// Reads and checks tree specs, artificial (no `game` field) or game
/// positions (a `game` field); an empty input is an error.
pub fn read_trees(input: Input) -> Result<Vec<Tree>> {
    let name = input.name.clone();
    let mut trees = vec![];
    let mut seen: std::collections::HashMap<Spec, usize> = std::collections::HashMap::new();
    for (i, line) in input.numbered_lines() {
        let line = line.map_err(|why| line_error(&name, i, why))?;
        if line.trim().is_empty() {
            continue;
        }
        let syntax = |source| FormatError::SpecSyntax { name: name.clone(), line: i, source };
        // The kind is decided by the `game` field, so that each kind's
        // reader names its own unknown or missing fields. Each kind is read
        // straight into its type, whose reader refuses a key given twice
        // (`"b":32,...,"b":2`), where a `serde_json::Value` keeps the last.
        let keys: TopKeys = serde_json::from_str(&line).map_err(syntax)?;
        let spec = if keys.0.iter().any(|k| k == "game") {
            Spec::Game(serde_json::from_str(&line).map_err(syntax)?)
        } else {
            Spec::Artificial(serde_json::from_str(&line).map_err(syntax)?)
        };
        // The same tree twice would be counted twice in every sum and average.
        if let Some(first) = seen.get(&spec) {
            return Err(FormatError::Repeated { name, line: i, first: *first });
        }
        trees.push(spec.check().map_err(|source| FormatError::Spec { name: name.clone(), line: i, source })?);
        seen.insert(spec, i);
    }
    if trees.is_empty() {
        return Err(FormatError::NoTrees(name));
    }
    Ok(trees)
}

/// A line that could not be read: the reader's error, or text that is not UTF-8 (named by its line).
fn line_error(name: &str, line: usize, why: crate::cli::LineError) -> FormatError {
    match why {
        crate::cli::LineError::Io(source) => FormatError::Read { name: name.to_string(), source },
        why => FormatError::Line { name: name.to_string(), line, why },
    }
}

/// The keys of a JSON object, in order, without their values.
struct TopKeys(Vec<String>);

impl<'de> Deserialize<'de> for TopKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<TopKeys, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = TopKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object (one tree spec)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<TopKeys, A::Error> {
                let mut keys = vec![];
                while let Some(k) = map.next_key::<String>()? {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    keys.push(k);
                }
                Ok(TopKeys(keys))
            }
        }
        d.deserialize_map(V)
    }
}

/// Whether the trees are game positions (`true`) or artificial trees, for
/// the tools whose tables differ between the two; a mix is an error.
pub fn games_only(trees: &[Tree], name: &str) -> Result<bool> {
    let games = trees.first().is_some_and(Tree::is_game);
    match trees.iter().position(|t| t.is_game() != games) {
        Some(i) => Err(FormatError::Mixed { name: name.to_string(), line: i + 1 }),
        None => Ok(games),
    }
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
/// checked as [`GameSpec::check`] does, also for moves at the root.
pub fn read_positions(game: Game, input: Input) -> Result<Vec<PositionLine>> {
    let name = input.name.clone();
    let mut out = vec![];
    // The board and side to move (and castling and en passant in chess) of
    // each position: the same position twice would be searched and counted
    // twice, whatever its id or move counters.
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, line) in input.numbered_lines() {
        let line = line.map_err(|why| line_error(&name, i, why))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let bad = |source| FormatError::Position { name: name.clone(), line: i, source };
        let (position, ops) = split_position(game, text).map_err(|m| bad(GameError::Line(m)))?;
        let (position, no_moves) = match game {
            Game::Chess => {
                let p = chess::Position::parse(position).map_err(bad)?;
                (p.fen(), p.no_moves())
            }
            Game::Othello => {
                let p = othello::Position::parse(position).map_err(bad)?;
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
            return Err(FormatError::RepeatedPosition { name, line: i, first });
        }
        seen.insert(board, i);
        out.push(PositionLine { line: i, position, id });
    }
    if out.is_empty() {
        return Err(FormatError::NoPositions(name));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_fields_are_the_serde_names() {
        let f = struct_fields::<PatternRow>();
        assert!(f.contains(&"type") && !f.contains(&"ty"));
        let sim = struct_fields::<SimRow>();
        assert_eq!(sim.first(), Some(&"run"));
        assert!(SimRow::STATE_COLUMNS.iter().all(|c| sim.contains(c)));
        assert!(SimRow::TIME_COLUMNS.iter().all(|c| sim.contains(c)));
        assert!(struct_fields::<u32>().is_empty());
    }

    #[test]
    fn csv_headers_and_values_are_checked_by_name() {
        let read = |text: &str| read_csv::<CurveRow>(Input::from_string("c.csv", text));
        assert_eq!(read("iteration,e_type,e_wait\n1,2.5,0.5\n").unwrap(), vec![CurveRow { iteration: 1, e_type: 2.5, e_wait: 0.5 }]);
        assert!(read("").unwrap().is_empty());
        let line_col = |text: &str| match read(text) {
            Err(FormatError::Csv { line, message, .. }) => (line, message),
            other => panic!("{other:?}"),
        };
        assert_eq!(line_col("iteration,e_type\n1,2\n"), (1, "missing column `e_wait`".into()));
        assert_eq!(line_col("iteration,e_type,e_wait,x\n"), (1, "unknown column `x`".into()));
        assert_eq!(line_col("iteration,e_type,e_type\n"), (1, "column `e_type` appears twice".into()));
        let (line, msg) = line_col("iteration,e_type,e_wait\n1,2,3\n1,x,3\n");
        assert_eq!(line, 3);
        assert!(msg.starts_with("column `e_type`: "), "{msg}");
    }

    #[test]
    fn tree_specs_are_checked_and_not_repeated() {
        let spec = r#"{"set":"tg1","index":1,"seed":5,"pscore":7,"model":"exponential","b":2,"wa":0,"wb":0,"depth":1}"#;
        let read = |text: &str| read_trees(Input::from_string("t", text));
        assert_eq!(read(spec).unwrap().len(), 1);
        assert!(matches!(read(&format!("{spec}\n\n{spec}\n")), Err(FormatError::Repeated { line: 3, first: 1, .. })));
        assert!(matches!(read(&spec.replace("\"index\":1", "\"index\":0")), Err(FormatError::Spec { source: SpecError::IndexZero, .. })));
        assert!(matches!(read(&spec.replace("\"b\":2", "\"b\":0")), Err(FormatError::Spec { source: SpecError::Tree(TreeError::NoChildren), .. })));
        assert!(matches!(read("\n"), Err(FormatError::NoTrees(_))));
        assert!(matches!(read("{"), Err(FormatError::SpecSyntax { line: 1, .. })));
    }
}
