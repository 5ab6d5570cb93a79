//! What a tree is, whatever its family: the one thing every tool reads,
//! searches and groups its tables by.
//!
//! A tree is a family's source and a root in it, with the depth to search
//! ([`Tree`]): an artificial tree of the thesis ([`artificial`], §4.2), an
//! incremental random tree ([`incremental`], Ura et al. 2014) or a
//! game position ([`crate::game`]: chess, Othello; `games`). Each family is
//! its source type implementing [`TreeFamily`] in its own file, and one
//! line of the `families!` list below (`docs/model.md` §8.2), which makes
//! [`Tree`], [`Spec`] and [`Tree::visit`]: the one place where the family
//! is decided. A [`SourceVisitor`] is then run on the family's
//! [`crate::game::TreeSource`] and root, so the search and the simulator
//! are monomorphised per source. The tools ask the trait (through `Tree`'s
//! accessors), never the family. Tables group trees by [`TreeKey`] and
//! name the family in their `model` column ([`Family`]).
//!
//! Trees travel as tree specs, one JSON line each ([`TreeSpec`],
//! [`IncrementalSpec`], [`GameSpec`]; `spec`: their checks and
//! [`read_trees`]).

pub mod artificial;
pub mod family;
mod games;
pub mod incremental;
mod spec;

pub use family::{Checked, SpecHead, SpecKeys, TreeFamily};
pub use spec::{GameSpec, IncrementalSpec, MAX_DEPTH, SpecError, TreeFileError, TreeKind, TreeSpec, kind_only, read_trees};

use crate::game::{Game, TreeSource, chess, othello, othello_n};
use crate::search::{Observer, SearchResult, search};
use artificial::{Model, Ordering, Shape};
use family::families;
use incremental::Incremental;
use serde::{Deserialize, Serialize};

/// What kind of tree: an artificial model or a game. This is the `model`
/// column of the tables that have one (training patterns, weights files,
/// `pabsim` rows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// The thesis's exponential model.
    Exponential,
    /// The strongly ordered model.
    Strong,
    /// Incremental random trees (Ura et al. 2014).
    Incremental,
    /// Chess.
    Chess,
    /// Othello.
    Othello,
    /// Othello on a 6 × 6 board.
    Othello6,
    /// Othello on a 10 × 10 board.
    Othello10,
    /// Othello on a 12 × 12 board.
    Othello12,
}

impl Family {
    /// The name in files.
    pub fn name(self) -> &'static str {
        match self {
            Family::Exponential => "exponential",
            Family::Strong => "strong",
            Family::Incremental => "incremental",
            Family::Chess => "chess",
            Family::Othello => "othello",
            Family::Othello6 => "othello6",
            Family::Othello10 => "othello10",
            Family::Othello12 => "othello12",
        }
    }

    /// Whether trees of the family have the ordering parameters `w_a`,
    /// `w_b` (the thesis's models; not incremental trees or games).
    pub fn has_weights(self) -> bool {
        matches!(self, Family::Exponential | Family::Strong)
    }

    /// The game, for a game family.
    pub fn game(self) -> Option<Game> {
        match self {
            Family::Chess => Some(Game::Chess),
            Family::Othello | Family::Othello6 | Family::Othello10 | Family::Othello12 => Some(Game::Othello),
            _ => None,
        }
    }

    /// The family of a game's positions on a board of side `board` (the
    /// usual board, 8, is the game's own name).
    pub fn of_game(game: Game, board: u32) -> Family {
        match (game, board) {
            (Game::Othello, 6) => Family::Othello6,
            (Game::Othello, 10) => Family::Othello10,
            (Game::Othello, 12) => Family::Othello12,
            _ => game.into(),
        }
    }
}

impl From<Model> for Family {
    fn from(m: Model) -> Family {
        match m {
            Model::Exponential => Family::Exponential,
            Model::Strong => Family::Strong,
        }
    }
}

impl From<Game> for Family {
    fn from(g: Game) -> Family {
        match g {
            Game::Chess => Family::Chess,
            Game::Othello => Family::Othello,
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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
    /// Incremental random trees of one shape.
    Incremental {
        /// Children per node.
        b: u32,
        /// The edge scale.
        scale: u32,
        /// The evaluation noise's law (step 0: none).
        noise: incremental::Noise,
        /// Search depth.
        depth: u32,
    },
    /// Positions of one game.
    Game {
        /// The game.
        game: Game,
        /// The side of the board (8 for chess; 6 to 12 for Othello).
        board: u32,
        /// Search depth.
        depth: u32,
    },
}

impl TreeKey {
    /// The `model` column's value.
    pub fn family(&self) -> Family {
        match *self {
            TreeKey::Artificial { model, .. } => model.into(),
            TreeKey::Incremental { .. } => Family::Incremental,
            TreeKey::Game { game, board, .. } => Family::of_game(game, board),
        }
    }
    /// The ordering of artificial trees.
    pub fn ordering(&self) -> Option<Ordering> {
        match *self {
            TreeKey::Artificial { ordering, .. } => Some(ordering),
            TreeKey::Incremental { .. } | TreeKey::Game { .. } => None,
        }
    }
    /// The branching factor, where every node has the same (not a game).
    pub fn b(&self) -> Option<u32> {
        match *self {
            TreeKey::Artificial { ordering, .. } => Some(ordering.b),
            TreeKey::Incremental { b, .. } => Some(b),
            TreeKey::Game { .. } => None,
        }
    }
    /// The edge scale of incremental trees.
    pub fn scale(&self) -> Option<u32> {
        match *self {
            TreeKey::Incremental { scale, .. } => Some(scale),
            TreeKey::Artificial { .. } | TreeKey::Game { .. } => None,
        }
    }
    /// The evaluation noise of incremental trees (none for the others).
    pub fn noise(&self) -> incremental::Noise {
        match *self {
            TreeKey::Incremental { noise, .. } => noise,
            TreeKey::Artificial { .. } | TreeKey::Game { .. } => incremental::Noise::default(),
        }
    }
    /// The same group at another depth (`fbest --accuracy` groups trees
    /// whatever their specs' depths).
    pub fn at_depth(self, depth: u32) -> TreeKey {
        match self {
            TreeKey::Artificial { model, ordering, .. } => TreeKey::Artificial { model, ordering, depth },
            TreeKey::Incremental { b, scale, noise, .. } => TreeKey::Incremental { b, scale, noise, depth },
            TreeKey::Game { game, board, .. } => TreeKey::Game { game, board, depth },
        }
    }
    /// Search depth.
    pub fn depth(&self) -> u32 {
        match *self {
            TreeKey::Artificial { depth, .. } | TreeKey::Incremental { depth, .. } | TreeKey::Game { depth, .. } => depth,
        }
    }
}

impl std::fmt::Display for TreeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeKey::Artificial { model, ordering, depth } => write!(f, "{} ({ordering}) depth {depth}", model.name()),
            TreeKey::Incremental { b, scale, noise: incremental::Noise { step: 0, .. }, depth } => {
                write!(f, "incremental (b {b}, scale {scale}) depth {depth}")
            }
            TreeKey::Incremental { b, scale, noise, depth } => write!(f, "incremental (b {b}, scale {scale}, eval noise {noise}) depth {depth}"),
            TreeKey::Game { game, board: 8, depth } => write!(f, "{game} depth {depth}"),
            TreeKey::Game { game, board, depth } => write!(f, "{game} {board} × {board} depth {depth}"),
        }
    }
}

// The one registration of the tree families (`docs/model.md` §8.2): each
// is its source type, which implements `TreeFamily` in its own file. A
// spec line is read by the first family here that claims it (artificial
// trees, last, claim the rest).
families! {
    /// An Othello position on a board other than 8 × 8.
    OthelloN: othello_n::OthelloN,
    /// An Othello position.
    Othello: othello::Othello,
    /// A chess position (and a line naming an unknown game, which the
    /// game spec's reader then refuses).
    Chess: chess::Chess,
    /// An incremental random tree.
    Incremental: Incremental,
    /// An artificial tree.
    Artificial: Shape,
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
    /// Searches the tree to its depth with observer `obs`.
    pub fn search<O: Observer>(&self, obs: &mut O) -> SearchResult {
        self.visit(Search(obs))
    }

    /// A game position (not a synthetic tree).
    pub fn is_game(&self) -> bool {
        self.kind() == TreeKind::Game
    }

    /// Which table the tree goes in.
    pub fn kind(&self) -> TreeKind {
        self.info().kind()
    }

    /// Search depth.
    pub fn depth(&self) -> u32 {
        self.info().head().depth
    }

    /// 1-based index in the seed set or position file.
    pub fn index(&self) -> u32 {
        self.info().head().index
    }

    /// The set's name.
    pub fn set(&self) -> &str {
        self.info().head().set
    }

    /// The root seed of a synthetic tree (artificial or incremental).
    pub fn seed(&self) -> Option<u64> {
        self.info().seed()
    }

    /// The per-tree rows' `seed` column ([`TreeFamily::row_seed`]).
    pub fn row_seed(&self) -> u64 {
        self.info().row_seed()
    }

    /// A root value `v` of a search of this tree as every tool's rows write
    /// it (`root_value`; `docs/formats.md`): a game's in the game's own
    /// units, from the root player's point of view
    /// ([`crate::value::off_scale`]); an artificial or incremental tree's on
    /// the score scale, where its root's pscore is its minimax value.
    pub fn row_value(&self, v: i64) -> i64 {
        if self.is_game() { crate::value::off_scale(v) } else { v }
    }

    /// The width `fbest` counts move positions up to ([`TreeFamily::fbest_width`]).
    pub fn fbest_width(&self) -> usize {
        self.info().fbest_width()
    }

    /// The root's moves by name in search order, for a game position.
    pub fn move_names(&self) -> Vec<String> {
        self.info().move_names()
    }

    /// The group this tree belongs to in every table.
    pub fn key(&self) -> TreeKey {
        self.info().key()
    }

    /// The spec as its JSON line.
    pub fn spec_json(&self) -> String {
        self.info().spec_json()
    }

    /// The game spec of a game position.
    pub fn game_spec(&self) -> Option<&GameSpec> {
        match self {
            Tree::Chess(t) => Some(&t.spec),
            Tree::Othello(t) => Some(&t.spec),
            Tree::OthelloN(t) => Some(&t.spec),
            _ => None,
        }
    }

    /// The artificial spec of an artificial tree.
    pub fn artificial_spec(&self) -> Option<&TreeSpec> {
        match self {
            Tree::Artificial(t) => Some(&t.spec),
            _ => None,
        }
    }

    /// The incremental spec of an incremental tree.
    pub fn incremental_spec(&self) -> Option<&IncrementalSpec> {
        match self {
            Tree::Incremental(t) => Some(&t.spec),
            _ => None,
        }
    }
}
