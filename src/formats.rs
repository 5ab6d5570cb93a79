//! The file formats the tools exchange, as serde types in one place
//! (documented for users in `docs/formats.md`).
//!
//! Tree specs travel as JSON lines; tables as CSV with a header row. Readers
//! reject unknown and missing fields and name the file and line.

use crate::cli::Input;
use crate::game::{Family, Game, GameError, TreeSource, chess, othello};
use crate::search::{Observer, SearchResult, search};
use crate::tree::{Model, Node, Ordering, Shape, TreeError, check_seed};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};

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

/// Reads CSV rows of `T`: the header must name every field of `T` and no
/// other column (checked on line 1, before any row); errors name `file:line`
/// and, for a bad value, the column.
pub fn read_csv<T: DeserializeOwned>(input: Input) -> Result<Vec<T>> {
    let name = input.name.clone();
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(input.reader);
    let header: Vec<String> = rdr.headers().map_err(|e| csv_error(&name, &[], e))?.iter().map(str::to_string).collect();
    let bad = |message: String| FormatError::Csv { name: name.clone(), line: 1, message };
    // An empty input has no rows; its reader says whether that is an error.
    if header.iter().all(|h| h.trim().is_empty()) {
        return Ok(vec![]);
    }
    let fields = struct_fields::<T>();
    if !fields.is_empty() {
        for (i, h) in header.iter().enumerate() {
            if !fields.contains(&h.as_str()) {
                return Err(bad(format!("unknown column `{h}`")));
            }
            if header[..i].contains(h) {
                return Err(bad(format!("column `{h}` appears twice")));
            }
        }
        if let Some(f) = fields.iter().find(|f| !header.iter().any(|h| h == *f)) {
            return Err(bad(format!("missing column `{f}`")));
        }
    }
    let mut out = vec![];
    for rec in rdr.deserialize() {
        let rec: T = rec.map_err(|e| csv_error(&name, &header, e))?;
        out.push(rec);
    }
    Ok(out)
}

fn csv_error(name: &str, header: &[String], e: csv::Error) -> FormatError {
    let line = e.position().map(|p| p.line()).unwrap_or(1);
    let msg = match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => {
            // csv names a bad value by its 0-based field number: say the column.
            let text = match err.kind() {
                csv::DeserializeErrorKind::ParseInt(x) => x.to_string(),
                csv::DeserializeErrorKind::ParseFloat(x) => x.to_string(),
                csv::DeserializeErrorKind::ParseBool(x) => x.to_string(),
                other => other.to_string(),
            };
            match err.field().and_then(|i| header.get(i as usize)) {
                Some(col) => format!("column `{col}`: {text}"),
                None => err.to_string(),
            }
        }
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => format!("{len} fields where the header has {expected_len}"),
        csv::ErrorKind::Utf8 { .. } => "not UTF-8".to_string(),
        _ => e.to_string(),
    };
    FormatError::Csv { name: name.to_string(), line, message: msg }
}

/// The field names a serde struct expects, as its derived `Deserialize`
/// declares them (renames applied); empty for a type that is not a struct.
pub fn struct_fields<T: DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{self, Visitor};
    struct Capture(Option<&'static [&'static str]>);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("field names captured")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Stop {
            Stop
        }
    }
    impl<'de> de::Deserializer<'de> for &mut Capture {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], _: V) -> std::result::Result<V::Value, Stop> {
            self.0 = Some(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let mut c = Capture(None);
    let _ = T::deserialize(&mut c);
    c.0.unwrap_or(&[])
}

/// Writes a probability with nine decimals.
pub fn prob<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:.9}"))
}

/// `fbest` default output: one row per move position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FbestRow {
    /// Branching factor.
    pub b: u32,
    /// w_a.
    pub wa: u32,
    /// w_b.
    pub wb: u32,
    /// Search depth.
    pub depth: u32,
    /// Trees searched.
    pub trees: u32,
    /// Move position, 1-based.
    pub n: u32,
    /// Nodes that recorded move n.
    pub fbest: u64,
    /// fbest / nodes that recorded anything.
    #[serde(serialize_with = "prob")]
    pub pbest: f64,
}

/// `fbest --per-tree`: one row per tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerTreeRow {
    /// 1-based index of the tree in its seed set.
    pub tree: u32,
    /// Root seed.
    pub seed: u64,
    /// Branching factor.
    pub b: u32,
    /// w_a.
    pub wa: u32,
    /// w_b.
    pub wb: u32,
    /// Search depth.
    pub depth: u32,
    /// Nodes entered (root, internal, leaves).
    pub nodes: u64,
    /// Leaves entered.
    pub leaves: u64,
    /// Internal nodes entered.
    pub internal: u64,
    /// Internal nodes that recorded a best move.
    pub contributing: u64,
    /// The root's minimax value.
    pub root_value: i64,
}

/// Writes a number with two decimals.
pub fn two<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:.2}"))
}

/// `fbest` default output for game positions: one row per move position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameFbestRow {
    /// The game.
    pub game: Game,
    /// Search depth.
    pub depth: u32,
    /// Positions searched.
    pub trees: u32,
    /// Average branching factor: legal moves per contributing node (two decimals).
    #[serde(serialize_with = "two")]
    pub b: f64,
    /// Move position in search order, 1-based.
    pub n: u32,
    /// Nodes that recorded move n.
    pub fbest: u64,
    /// fbest / nodes that recorded anything.
    #[serde(serialize_with = "prob")]
    pub pbest: f64,
}

/// `fbest --per-tree` for game positions: one row per position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GamePerTreeRow {
    /// The game.
    pub game: Game,
    /// The position file's name.
    pub set: String,
    /// 1-based index of the position in its file.
    pub index: u32,
    /// The position's id.
    pub id: String,
    /// Search depth.
    pub depth: u32,
    /// Nodes entered (root, internal, leaves).
    pub nodes: u64,
    /// Leaves entered (at the horizon, or with no moves).
    pub leaves: u64,
    /// Internal nodes entered.
    pub internal: u64,
    /// Internal nodes that recorded a best move.
    pub contributing: u64,
    /// Legal moves of those nodes, summed.
    pub moves: u64,
    /// The root's minimax value in the game's units (centipawns; Othello
    /// evaluation units), from the side to move's point of view.
    pub root_value: i64,
    /// The root's recorded move (the last score update), UCI or square.
    pub best_move: String,
}

/// `fbest --fit`: the exponential ordering closest to measured p_best.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitRow {
    /// What was fitted: the game and depth, or `rajahx`.
    pub data: String,
    /// `analytic` (equations 4.1–4.2) or `searched` (artificial trees
    /// searched as the measured ones: the first `trees` of tg_1 at `depth`).
    pub method: String,
    /// Trees searched per ordering (empty for `analytic`).
    pub trees: Option<u32>,
    /// Their depth (empty for `analytic`).
    pub depth: Option<u32>,
    /// The measured average branching factor.
    #[serde(serialize_with = "two")]
    pub avg_b: f64,
    /// b of the fit (the average, rounded).
    pub b: u32,
    /// Fitted w_a.
    pub wa: u32,
    /// Fitted w_b.
    pub wb: u32,
    /// Move positions fitted (n = 1..positions).
    pub positions: u32,
    /// Sum of squared differences between measured p_best and analytic p_n.
    #[serde(serialize_with = "prob")]
    pub sse: f64,
}

/// `fbest --analytic`: equations 4.1–4.2.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyticRow {
    /// Branching factor.
    pub b: u32,
    /// w_a.
    pub wa: u32,
    /// w_b.
    pub wb: u32,
    /// Move position.
    pub n: u32,
    /// Probability that move n is best.
    #[serde(serialize_with = "prob")]
    pub p_n: f64,
    /// Running total.
    #[serde(serialize_with = "prob")]
    pub cumulative: f64,
}

/// `fbest --rajahx`: the chess program's statistics in the columns of
/// [`FbestRow`]; `b` is the average branching factor, the ordering and depth
/// columns are empty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChessFbestRow {
    /// Average branching factor (pseudo-legal moves per contributing node).
    pub b: String,
    /// Empty.
    pub wa: String,
    /// Empty.
    pub wb: String,
    /// Empty.
    pub depth: String,
    /// Test positions.
    pub trees: u32,
    /// Move position.
    pub n: u32,
    /// Summed f_best(n).
    pub fbest: u64,
    /// fbest / contributing nodes.
    #[serde(serialize_with = "prob")]
    pub pbest: f64,
}

/// One row of `data/rajahx-fbest.csv` (thesis Tables 4.1–4.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RajahxRow {
    /// Bratko-Kopec position number.
    pub position: u32,
    /// Internal nodes that contributed to f_best.
    pub nodes_valid: u64,
    /// Pseudo-legal moves at those nodes.
    pub pseudo_legal_moves: u64,
    /// f_best(1).
    pub fbest_1: u64,
    /// f_best(2).
    pub fbest_2: u64,
    /// f_best(3).
    pub fbest_3: u64,
    /// f_best(4).
    pub fbest_4: u64,
    /// f_best(5).
    pub fbest_5: u64,
    /// f_best(6).
    pub fbest_6: u64,
    /// f_best(7).
    pub fbest_7: u64,
    /// f_best(8).
    pub fbest_8: u64,
    /// f_best(9).
    pub fbest_9: u64,
    /// f_best(10).
    pub fbest_10: u64,
}

impl RajahxRow {
    /// f_best(1..=10).
    pub fn fbest(&self) -> [u64; 10] {
        [self.fbest_1, self.fbest_2, self.fbest_3, self.fbest_4, self.fbest_5, self.fbest_6, self.fbest_7, self.fbest_8, self.fbest_9, self.fbest_10]
    }
}

/// `trainset` output, `nntrain` input (thesis §5.3; `docs/model.md` §3.1): one
/// parent→child training pattern per row, in order of the child's level,
/// then address. The first row (level 0) describes the root itself: no parent
/// (`parent` empty, `index` 0, `pv` 1), `child_type` and `child_wait` the
/// root's averages, and `type` repeats the root's type. Scheme C starts from
/// that root type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternRow {
    /// Tree model, or the game.
    pub model: Family,
    /// Branching factor; for a game, the most moves at any internal node of
    /// the training trees (the network's index and wait range).
    pub b: u32,
    /// w_a (empty for a game).
    pub wa: Option<u32>,
    /// w_b (empty for a game).
    pub wb: Option<u32>,
    /// The child's level (ply): 1 for the root's children; 0 for the root row.
    pub level: u32,
    /// The parent's address `p_1.p_2...` (zeros for levels not reached); empty
    /// in the root row.
    pub parent: String,
    /// Input: 1 if the parent is on the PV path, else 0.
    pub pv: u8,
    /// Input: the parent's averaged type, 0..100.
    #[serde(rename = "type")]
    pub ty: f64,
    /// Input: the child's 1-based index.
    pub index: u32,
    /// Output: the child's averaged type, 0..100.
    pub child_type: f64,
    /// Output: the child's averaged wait, 0..b.
    pub child_wait: f64,
    /// Trees in which the child was entered.
    pub count: u64,
}

/// `nntrain --curve`: the learning curve, one row per recorded iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveRow {
    /// Iterations completed (0 = the initial weights).
    pub iteration: u32,
    /// E_type after that many iterations, in type units.
    pub e_type: f64,
    /// E_wait, in moves.
    pub e_wait: f64,
}

/// `classify` output (thesis §5.5, Tables 5.2–5.4): counts of one scheme and
/// parameter value over the trees of one ordering.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifyRow {
    /// Branching factor.
    pub b: u32,
    /// w_a.
    pub wa: u32,
    /// w_b.
    pub wb: u32,
    /// Search depth.
    pub depth: u32,
    /// Trees searched.
    pub trees: u32,
    /// `a`, `b` or `c`.
    pub scheme: String,
    /// n for scheme B, m for scheme C, empty for scheme A.
    pub param: Option<u32>,
    /// Predicted CUT, cut off.
    pub true_cut: u64,
    /// Predicted CUT, searched all moves.
    pub false_cut: u64,
    /// Predicted ALL, searched all moves.
    pub true_all: u64,
    /// Predicted ALL, cut off.
    pub false_all: u64,
    /// false_cut + false_all.
    pub error: u64,
    /// Scored nodes: internal nodes off the PV path.
    pub scored: u64,
    /// 1 on the parameter value with the lowest error for this ordering and
    /// scheme (the smallest such value on a tie; scheme A's single row is
    /// always 1), else 0.
    pub best: u8,
}

/// `classify` output for game positions: the columns of [`ClassifyRow`]
/// with the game in place of the ordering.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameClassifyRow {
    /// The game.
    pub game: Game,
    /// Search depth.
    pub depth: u32,
    /// Positions searched.
    pub trees: u32,
    /// `a`, `b` or `c`.
    pub scheme: String,
    /// n for scheme B, m for scheme C, empty for scheme A.
    pub param: Option<u32>,
    /// Predicted CUT, cut off.
    pub true_cut: u64,
    /// Predicted CUT, searched all moves.
    pub false_cut: u64,
    /// Predicted ALL, searched all moves.
    pub true_all: u64,
    /// Predicted ALL, cut off.
    pub false_all: u64,
    /// false_cut + false_all.
    pub error: u64,
    /// Scored nodes: internal nodes off the PV path.
    pub scored: u64,
    /// 1 on the lowest error of the game and scheme, else 0.
    pub best: u8,
}

impl SimRow {
    /// The columns that hold processor-ticks by where they went: the seven
    /// states, memory stalls and lock waits (together `procs * tp_ticks`).
    /// The report's time-per-state breakdown reads exactly these.
    pub const STATE_COLUMNS: [&'static str; 9] =
        ["ticks_expand", "ticks_search", "ticks_eval", "ticks_return", "ticks_split", "ticks_update", "ticks_exit", "mem_stall", "lock_wait"];

    /// The columns that hold all the processor-ticks spent in each of the
    /// seven states, memory stalls and lock waits included (together
    /// `procs * tp_ticks`): the breakdown the thesis argues with, where the
    /// idle loop's waits count as the split state.
    pub const TIME_COLUMNS: [&'static str; 7] = ["time_expand", "time_search", "time_eval", "time_return", "time_split", "time_update", "time_exit"];
}

/// Writes an optional ratio with six decimals (empty when absent).
pub fn ratio6<S: Serializer>(v: &Option<f64>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match v {
        Some(x) => s.serialize_str(&format!("{x:.6}")),
        None => s.serialize_none(),
    }
}

/// `pabsim` output: one row per (tree, configuration) with `--per-tree`
/// (then `item`, `items`, `tree`, `seed`, `root_value` are filled), else one
/// per configuration (trees summed). Ticks are simulated ticks; the
/// `ticks_*` columns (each state's own costs), `mem_stall` and `lock_wait`
/// are processor-ticks and add up to `procs * tp_ticks`; so do the `time_*`
/// columns (all the time spent in each state: its costs, memory stalls and
/// lock waits), and `split_share` is `time_split / (procs * tp_ticks)`. `t1_ticks`, `n1_nodes`, `su`, `so`, `css`
/// are empty when no p = 1 run of the same trees is known.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimRow {
    /// What identifies the run (per tree only): a digest of its tree specs,
    /// configurations and networks, the same in every shard of one run.
    pub run: Option<String>,
    /// Position of the (tree, configuration) item in the run (per tree only).
    pub item: Option<u64>,
    /// Items in the whole run (per tree only).
    pub items: Option<u64>,
    /// 1-based index of the tree in its seed set (per tree only).
    pub tree: Option<u32>,
    /// Root seed; for a game position, a digest of the position (per tree only).
    pub seed: Option<u64>,
    /// Tree model, or the game.
    pub model: Family,
    /// Branching factor (empty for a game).
    pub b: Option<u32>,
    /// w_a (empty for a game).
    pub wa: Option<u32>,
    /// w_b (empty for a game).
    pub wb: Option<u32>,
    /// Search depth.
    pub depth: u32,
    /// Trees summed in this row.
    pub trees: u32,
    /// Split-point scheme `a`, `b`, `c`, or `-` for one processor.
    pub scheme: String,
    /// Processors.
    pub procs: u32,
    /// Scheme A: finished moves a Y-CUT node needs.
    pub m_a: Option<u32>,
    /// Scheme B: finished moves that turn a D-CUT node D-ALL.
    pub m_b: Option<u32>,
    /// Scheme C: added to the network's wait.
    pub m_ca: Option<i32>,
    /// Scheme C: added again at N-CUT nodes.
    pub m_cc: Option<i32>,
    /// Scheme C: classification width m.
    pub cut_width: Option<u32>,
    /// When processors interleave: `access` (the thesis's machine) or `state`.
    pub interleave: String,
    /// How far a split-point search walks: `tree` (all of it) or `level`.
    pub split_walk: String,
    /// The root's value (per tree only).
    pub root_value: Option<i64>,
    /// Simulated time until the root's value was returned, summed over trees.
    pub tp_ticks: u64,
    /// Nodes created, summed over trees.
    pub np_nodes: u64,
    /// Leaves created.
    pub leaves: u64,
    /// Processor-ticks in the expand state's costs.
    pub ticks_expand: u64,
    /// ... search state.
    pub ticks_search: u64,
    /// ... eval state.
    pub ticks_eval: u64,
    /// ... return state.
    pub ticks_return: u64,
    /// ... split state (split-point searches and the waits after them).
    pub ticks_split: u64,
    /// ... update state (bound propagation included).
    pub ticks_update: u64,
    /// ... after exit.
    pub ticks_exit: u64,
    /// Processor-ticks waiting for memory.
    pub mem_stall: u64,
    /// Processor-ticks in failed lock attempts.
    pub lock_wait: u64,
    /// Processor-ticks in the expand state, everything included.
    pub time_expand: u64,
    /// ... search state.
    pub time_search: u64,
    /// ... eval state.
    pub time_eval: u64,
    /// ... return state.
    pub time_return: u64,
    /// ... split state: the whole idle loop, its lock waits and pauses.
    pub time_split: u64,
    /// ... update state.
    pub time_update: u64,
    /// ... after exit.
    pub time_exit: u64,
    /// The machine's share of time in the split state, `time_split / (procs * tp_ticks)`.
    #[serde(serialize_with = "ratio6")]
    pub split_share: Option<f64>,
    /// Split-point searches.
    pub split_searches: u64,
    /// Nodes examined by them.
    pub split_examined: u64,
    /// Nodes told of a new bound.
    pub told: u64,
    /// Nodes the machine needed (the heaps' size), summed over trees.
    pub pool_nodes: u64,
    /// The p = 1 time of the same trees.
    pub t1_ticks: Option<u64>,
    /// The p = 1 node count of the same trees.
    pub n1_nodes: Option<u64>,
    /// Speed-up t1 / tp.
    #[serde(serialize_with = "ratio6")]
    pub su: Option<f64>,
    /// Search overhead np / n1 - 1.
    #[serde(serialize_with = "ratio6")]
    pub so: Option<f64>,
    /// Communication-synchronisation-split overhead (tp p / np) / (t1 / n1) - 1.
    #[serde(serialize_with = "ratio6")]
    pub css: Option<f64>,
    /// The parallel search algorithm: `dts` (the thesis's), `pvsplit`,
    /// `steal` or `active`; `-` with one processor.
    pub policy: String,
    /// Active splitting: plies a node needs below it to be split.
    pub min_split_depth: Option<u32>,
    /// Active splitting: most processors at one split point.
    pub split_group: Option<u32>,
    /// Work stealing: the seed of the victims' choice.
    pub steal_seed: Option<u64>,
    /// How processors wait for locks: `tas` (test-and-set, the thesis's) or `queue`.
    pub lock: String,
    /// Schemes A and B: finished moves a PV node needs before it may be a
    /// split point (1 unless `--pv-wait`; empty for scheme C and p = 1).
    pub pv_wait: Option<u32>,
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
