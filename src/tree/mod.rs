//! What a tree is, whatever its family: the one thing every tool reads,
//! searches and groups its tables by.
//!
//! A tree is a family's source and a root in it, with the depth to search
//! ([`Tree`]): an artificial tree of the thesis ([`artificial`], §4.2) or a
//! game position ([`crate::game`]: chess, Othello). [`Tree::visit`] is the
//! one place where the family is decided: a [`SourceVisitor`] is then run on
//! the family's [`crate::game::TreeSource`] and root, so the search and the
//! simulator are monomorphised per source. Tables group trees by
//! [`TreeKey`] and name the family in their `model` column ([`Family`]).
//!
//! Trees travel as tree specs, one JSON line each ([`TreeSpec`],
//! [`GameSpec`]; `spec`: their checks and [`read_trees`]).

pub mod artificial;
mod spec;

pub use spec::{GameSpec, MAX_DEPTH, Spec, SpecError, TreeFileError, TreeSpec, games_only, read_trees};

use crate::game::{Game, TreeSource, chess, othello};
use crate::search::{Observer, SearchResult, search};
use artificial::{Model, Node, Ordering, Shape};
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
    /// Chess.
    Chess,
    /// Othello.
    Othello,
}

impl Family {
    /// The name in files.
    pub fn name(self) -> &'static str {
        match self {
            Family::Exponential => "exponential",
            Family::Strong => "strong",
            Family::Chess => "chess",
            Family::Othello => "othello",
        }
    }

    /// The game, for a game family.
    pub fn game(self) -> Option<Game> {
        match self {
            Family::Chess => Some(Game::Chess),
            Family::Othello => Some(Game::Othello),
            _ => None,
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
