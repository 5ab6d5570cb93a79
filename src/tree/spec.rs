//! Tree specs: a tree written down as one JSON line (`docs/formats.md`),
//! the families' spec types and errors, and the reader of a file of them
//! (each family checks its own: [`super::TreeFamily::check`]).

use super::artificial::{Model, Ordering, TreeError};
use super::incremental::{IncrementalError, IncrementalModel};
use super::{Spec, SpecKeys, Tree};
use crate::cli::{Input, InputError};
use crate::game::{Game, GameError};
use serde::{Deserialize, Serialize};

/// The largest search depth a tree spec may ask for.
pub const MAX_DEPTH: u32 = 64;

/// What is wrong with a tree spec's values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The ordering, model or seed.
    #[error(transparent)]
    Tree(#[from] TreeError),
    /// An incremental tree's branching factor or edge scale.
    #[error(transparent)]
    Incremental(#[from] IncrementalError),
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

/// What is wrong with a file of tree specs. Messages name the file and
/// line; the underlying cause, where there is one, is the error's source.
#[derive(Debug, thiserror::Error)]
pub enum TreeFileError {
    /// The file or one of its lines cannot be read.
    #[error(transparent)]
    Input(#[from] InputError),
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
    /// The same tree twice (also under another set name, index or id:
    /// those name a tree, they do not change it).
    #[error("tree spec repeats line {first} ({name}:{line}): {}give each tree once", relabel_hint(*.relabelled))]
    Repeated {
        /// The input.
        name: String,
        /// 1-based line of the repeat.
        line: usize,
        /// 1-based line of the first.
        first: usize,
        /// Whether the two lines differ (in their labels only).
        relabelled: bool,
    },
    /// No tree specs at all.
    #[error("no tree specs in {0} (make some with `treegen --set tg1 --ordering 32,79,5 --depth 6`)")]
    NoTrees(String),
    /// Two kinds of tree (artificial, incremental, game positions) in one
    /// input, for a tool whose table differs between them.
    #[error("{name} mixes {first} and {other} (line {line}): their tables differ, give them to separate runs")]
    Mixed {
        /// The input.
        name: String,
        /// The first line of the other kind.
        line: usize,
        /// The first line's kind.
        first: TreeKind,
        /// The other kind.
        other: TreeKind,
    },
    /// Incremental trees of two evaluation noise laws in one input: no
    /// tool's row says which is which.
    #[error("{name} mixes incremental trees of evaluation noise {first} and {other} (line {line}): no row says which is which, give them to separate runs")]
    MixedNoise {
        /// The input.
        name: String,
        /// The first line of the other noise.
        line: usize,
        /// The first tree's noise.
        first: super::incremental::Noise,
        /// The other noise.
        other: super::incremental::Noise,
    },
}

type Result<T, E = TreeFileError> = std::result::Result<T, E>;

/// What [`TreeFileError::Repeated`] adds when the two lines differ.
fn relabel_hint(relabelled: bool) -> &'static str {
    if relabelled { "the same tree under another set, index or id (these only name it); " } else { "" }
}

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

/// One incremental random tree (`treegen --model incremental`;
/// `docs/formats.md`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncrementalSpec {
    /// The seed set's name (`tg1`, `tg2` or a file path).
    pub set: String,
    /// 1-based position of the seed in its set.
    pub index: u32,
    /// The root's seed: the tree's path keys start from it.
    pub seed: u64,
    /// Always `incremental`.
    pub model: IncrementalModel,
    /// Children per node.
    pub b: u32,
    /// The edge distribution's step (`tree::incremental`).
    pub scale: u32,
    /// The evaluation noise step (`tree::incremental`); absent in a line
    /// means 0, and a line without noise does not write it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub eval_noise: u32,
    /// The share of its parent's evaluation error a node inherits, in
    /// thousandths (`tree::incremental`); absent in a line means 0, and a
    /// line without it does not write it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub eval_persist: u32,
    /// Search depth.
    pub depth: u32,
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

impl IncrementalSpec {
    /// Validates the spec.
    pub fn check(&self) -> Result<Tree, SpecError> {
        Spec::Incremental(self.clone()).check()
    }

    /// The evaluation noise's law of its fields.
    pub fn noise(&self) -> super::incremental::Noise {
        super::incremental::Noise { step: self.eval_noise, persist: self.eval_persist }
    }
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
    /// The position: a FEN (chess) or the squares (64 on the usual board;
    /// 36, 100 or 144 on the others) and the side to move (Othello).
    pub position: String,
    /// Search depth, 1..64.
    pub depth: u32,
}

impl TreeSpec {
    /// Validates the spec.
    pub fn check(&self) -> Result<Tree, SpecError> {
        Spec::Artificial(self.clone()).check()
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
        match self.game {
            Game::Chess => Spec::Chess(self.clone()),
            Game::Othello if crate::game::othello_n::board_side(&self.position) == Some(8) => Spec::Othello(self.clone()),
            Game::Othello => Spec::OthelloN(self.clone()),
        }
        .check()
    }
}

/// Reads and checks tree specs: game positions (a `game` field),
/// incremental trees (`"model":"incremental"`) or artificial trees (the
/// rest); an empty input is an error.
pub fn read_trees(input: Input) -> Result<Vec<Tree>> {
    let name = input.name.clone();
    let (mut trees, mut lines) = (vec![], vec![]);
    // Each tree by what it is (`TreeFamily::identity`), with its line and spec.
    let mut seen: std::collections::HashMap<Spec, (usize, Spec)> = std::collections::HashMap::new();
    for (i, line) in input.numbered_lines() {
        let line = line.map_err(|why| InputError::at(&name, i, why))?;
        if line.trim().is_empty() {
            continue;
        }
        let syntax = |source| TreeFileError::SpecSyntax { name: name.clone(), line: i, source };
        // The family is decided by the line's keys (`TreeFamily::claims`),
        // so that each family's reader names its own unknown or missing
        // fields. Each is read straight into its type, whose reader refuses
        // a key given twice (`"b":32,...,"b":2`), where a
        // `serde_json::Value` keeps the last.
        let keys: SpecKeys = serde_json::from_str(&line).map_err(syntax)?;
        let spec = Spec::read(&line, &keys).map_err(syntax)?;
        // The same tree twice would be counted twice in every sum and average.
        let identity = spec.identity();
        if let Some((first, first_spec)) = seen.get(&identity) {
            return Err(TreeFileError::Repeated { name, line: i, first: *first, relabelled: *first_spec != spec });
        }
        trees.push(spec.check().map_err(|source| TreeFileError::Spec { name: name.clone(), line: i, source })?);
        lines.push(i);
        seen.insert(identity, (i, spec));
    }
    if trees.is_empty() {
        return Err(TreeFileError::NoTrees(name));
    }
    let noise = |t: &Tree| (t.kind() == TreeKind::Incremental).then(|| t.key().noise());
    let mut noises = trees.iter().enumerate().filter_map(|(i, t)| Some((i, noise(t)?)));
    if let Some((_, first)) = noises.next()
        && let Some((i, other)) = noises.find(|&(_, n)| n != first)
    {
        return Err(TreeFileError::MixedNoise { name, line: lines[i], first, other });
    }
    Ok(trees)
}

/// Which table a tree goes in, for the tools whose tables differ by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TreeKind {
    /// The thesis's artificial trees (columns b, w_a, w_b).
    Artificial,
    /// Incremental random trees (columns b, scale).
    Incremental,
    /// Game positions (column game).
    Game,
}

impl std::fmt::Display for TreeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TreeKind::Artificial => "artificial trees",
            TreeKind::Incremental => "incremental trees",
            TreeKind::Game => "game positions",
        })
    }
}

/// The one kind of the trees (the first's if there are none), for the
/// tools whose tables differ by kind; a mix is an error.
pub fn kind_only(trees: &[Tree], name: &str) -> Result<TreeKind> {
    let first = trees.first().map_or(TreeKind::Artificial, Tree::kind);
    match trees.iter().position(|t| t.kind() != first) {
        Some(i) => Err(TreeFileError::Mixed { name: name.to_string(), line: i + 1, first, other: trees[i].kind() }),
        None => Ok(first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_specs_are_checked_and_not_repeated() {
        let spec = r#"{"set":"tg1","index":1,"seed":5,"pscore":7,"model":"exponential","b":2,"wa":0,"wb":0,"depth":1}"#;
        let read = |text: &str| read_trees(Input::from_string("t", text));
        assert_eq!(read(spec).unwrap().len(), 1);
        assert!(matches!(read(&format!("{spec}\n\n{spec}\n")), Err(TreeFileError::Repeated { line: 3, first: 1, .. })));
        assert!(matches!(read(&spec.replace("\"index\":1", "\"index\":0")), Err(TreeFileError::Spec { source: SpecError::IndexZero, .. })));
        assert!(matches!(read(&spec.replace("\"b\":2", "\"b\":0")), Err(TreeFileError::Spec { source: SpecError::Tree(TreeError::NoChildren), .. })));
        assert!(matches!(read("\n"), Err(TreeFileError::NoTrees(_))));
        assert!(matches!(read("{"), Err(TreeFileError::SpecSyntax { line: 1, .. })));
    }

    #[test]
    fn incremental_specs_are_read_checked_and_not_mixed() {
        let spec = r#"{"set":"tg1","index":1,"seed":5,"model":"incremental","b":5,"scale":100,"depth":4}"#;
        let read = |text: &str| read_trees(Input::from_string("t", text));
        let trees = read(spec).unwrap();
        assert_eq!(trees[0].kind(), TreeKind::Incremental);
        assert_eq!(trees[0].spec_json(), spec);
        assert_eq!(trees[0].key().to_string(), "incremental (b 5, scale 100) depth 4");
        // Its own fields: the artificial spec's `wa` is unknown here.
        assert!(matches!(read(&spec.replace("\"b\":5", "\"b\":5,\"wa\":0")), Err(TreeFileError::SpecSyntax { line: 1, .. })));
        assert!(matches!(read(&spec.replace("\"scale\":100", "\"scale\":0")), Err(TreeFileError::Spec { source: SpecError::Incremental(_), .. })));
        let art = r#"{"set":"tg1","index":1,"seed":5,"pscore":7,"model":"exponential","b":2,"wa":0,"wb":0,"depth":1}"#;
        let both = read(&format!("{spec}\n{art}\n")).unwrap();
        let err = kind_only(&both, "t").unwrap_err();
        assert_eq!(err.to_string(), "t mixes incremental trees and artificial trees (line 2): their tables differ, give them to separate runs");
        // Evaluation noise: written only where there is some; one step per input.
        let noisy = spec.replace("\"depth\":4", "\"eval_noise\":250,\"depth\":4");
        let t = read(&noisy).unwrap();
        assert_eq!((t[0].spec_json(), t[0].key().to_string()), (noisy.clone(), "incremental (b 5, scale 100, eval noise 250) depth 4".to_string()));
        assert_eq!(read(&spec.replace("\"depth\":4", "\"eval_noise\":0,\"depth\":4")).unwrap()[0].spec_json(), spec);
        let other = noisy.replace("\"index\":1,\"seed\":5", "\"index\":2,\"seed\":6").replace("250", "90");
        let err = read(&format!("{noisy}\n\n{other}\n")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t mixes incremental trees of evaluation noise 250 and 90 (line 3): no row says which is which, give them to separate runs"
        );
        assert!(read(&format!("{noisy}\n{art}\n")).is_ok(), "artificial trees have no noise to mix");
    }

    #[test]
    fn each_line_goes_to_the_family_that_claims_it() {
        use crate::tree::Tree;
        let read = |text: &str| read_trees(Input::from_string("t", text));
        let othello =
            r#"{"game":"othello","set":"o","index":1,"id":"","position":"---------X------O-XOO---XOXXOO---XOXXXX-XXXOOX--O--OO------O---- O","depth":2}"#;
        let chess = r#"{"game":"chess","set":"c","index":2,"id":"","position":"k7/8/2Q5/8/8/8/8/7K b - - 0 1","depth":3}"#;
        let inc = r#"{"set":"tg1","index":3,"seed":5,"model":"incremental","b":5,"scale":100,"depth":4}"#;
        let art = r#"{"set":"tg1","index":4,"seed":5,"pscore":7,"model":"exponential","b":2,"wa":0,"wb":0,"depth":1}"#;
        let trees = read(&[othello, chess, inc, art].join("\n")).unwrap();
        assert!(matches!(&trees[..], [Tree::Othello(_), Tree::Chess(_), Tree::Incremental(_), Tree::Artificial(_)]));
        // Each tree's spec reads back as its own line, with its accessors.
        for (t, line) in trees.iter().zip([othello, chess, inc, art]) {
            assert_eq!(t.spec_json(), line);
        }
        assert_eq!(trees.iter().map(|t| (t.index(), t.depth())).collect::<Vec<_>>(), [(1, 2), (2, 3), (3, 4), (4, 1)]);
        assert_eq!(trees.iter().map(Tree::kind).collect::<Vec<_>>(), [TreeKind::Game, TreeKind::Game, TreeKind::Incremental, TreeKind::Artificial]);
        assert_eq!(trees.iter().map(Tree::fbest_width).collect::<Vec<_>>(), [0, 0, 5, 2]);
        assert_eq!(trees.iter().map(Tree::seed).collect::<Vec<_>>(), [None, None, Some(5), Some(5)]);
        // A position's seed column is the first 6 bytes of its SHA-256.
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest("k7/8/2Q5/8/8/8/8/7K b - - 0 1".as_bytes());
        assert_eq!(trees[1].row_seed(), u64::from_be_bytes([0, 0, digest[0], digest[1], digest[2], digest[3], digest[4], digest[5]]));
        assert_eq!(trees[2].row_seed(), 5);
        // Only games name their moves (chess: the king's two ways out of check).
        let mut names = trees[1].move_names();
        names.sort();
        assert_eq!(names, ["Ka7", "Kb8"]);
        assert!(trees[2].move_names().is_empty());
        // An unknown game is refused by the game spec's reader.
        let err = read(&chess.replace("\"chess\"", "\"go\"")).unwrap_err();
        let TreeFileError::SpecSyntax { source, .. } = err else { panic!("{err}") };
        assert!(source.to_string().starts_with("unknown variant `go`, expected `chess` or `othello`"), "{source}");
    }
}
