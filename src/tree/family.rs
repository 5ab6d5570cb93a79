//! What a tree family is to the tools: the [`TreeFamily`] trait, which each
//! family implements in its own file (its spec, the check of the spec into
//! a source and a root, its grouping key and the columns the tools ask it
//! for), and `families!`, the macro that turns the one list of families in
//! `tree/mod.rs` into [`Tree`](super::Tree), [`Spec`](super::Spec) and the
//! one dispatch, [`Tree::visit`](super::Tree::visit). Not a thesis concept:
//! it keeps every family in one file (`docs/model.md` §8.2).

use super::{SpecError, TreeKey, TreeKind};
use crate::game::TreeSource;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The fields every tree spec has.
#[derive(Clone, Copy, Debug)]
pub struct SpecHead<'a> {
    /// The seed set's or position file's name.
    pub set: &'a str,
    /// 1-based index in it.
    pub index: u32,
    /// Search depth.
    pub depth: u32,
}

/// A tree family: a source type and everything the tools need to know
/// about its trees, implemented beside the source. The tools ask the trait,
/// never the family; what only some families have comes with a default.
pub trait TreeFamily: TreeSource + Clone + std::fmt::Debug + 'static {
    /// The tree spec: one JSON line (`deny_unknown_fields`, `docs/formats.md`).
    type Spec: Clone + std::fmt::Debug + PartialEq + Eq + std::hash::Hash + Serialize + DeserializeOwned;
    /// The table a tree of the family goes in (the tools whose columns
    /// differ per kind: `fbest`, `classify`).
    const KIND: TreeKind;
    /// Whether a spec line is the family's, from its top-level keys; the
    /// first family of the list in `tree/mod.rs` that claims a line reads it.
    fn claims(line: &SpecKeys) -> bool;
    /// Checks a spec into its source and root.
    fn check(spec: &Self::Spec) -> Result<(Self, Self::Node), SpecError>;
    /// The fields every spec has.
    fn head(spec: &Self::Spec) -> SpecHead<'_>;
    /// The group the tree belongs to in every table.
    fn key(spec: &Self::Spec) -> TreeKey;
    /// What the tree is: the spec with its labels cleared (the set's name,
    /// the index, a position's id), which name a tree but do not change it.
    /// Two specs of one identity are one tree, searched and counted once.
    fn identity(spec: &Self::Spec) -> Self::Spec;
    /// The root seed of a synthetic tree.
    fn seed(_spec: &Self::Spec) -> Option<u64> {
        None
    }
    /// The per-tree rows' `seed` column: what tells trees of one index
    /// apart (the root seed, by default).
    fn row_seed(spec: &Self::Spec) -> u64 {
        Self::seed(spec).unwrap_or(0)
    }
    /// The width `fbest` counts move positions up to from the start (a
    /// fixed branching factor), or 0 to grow as positions are met.
    fn fbest_width(&self) -> usize {
        0
    }
    /// The root's moves by name in search order (a game's), for the
    /// recorded best move; empty where moves have no names.
    fn move_names(_root: &Self::Node) -> Vec<String> {
        vec![]
    }
}

/// A checked tree of family `S`: its spec, source and root.
#[derive(Clone, Debug)]
pub struct Checked<S: TreeFamily> {
    /// The spec it came from.
    pub spec: S::Spec,
    /// The source.
    pub source: S,
    /// The root node.
    pub root: S::Node,
}

/// What [`Tree`](super::Tree)'s accessors ask of a checked tree, whatever
/// its family (not the search: that is [`Tree::visit`](super::Tree::visit)).
pub(super) trait Info {
    fn head(&self) -> SpecHead<'_>;
    fn key(&self) -> TreeKey;
    fn kind(&self) -> TreeKind;
    fn seed(&self) -> Option<u64>;
    fn row_seed(&self) -> u64;
    fn fbest_width(&self) -> usize;
    fn move_names(&self) -> Vec<String>;
    fn spec_json(&self) -> String;
}

impl<S: TreeFamily> Info for Checked<S> {
    fn head(&self) -> SpecHead<'_> {
        S::head(&self.spec)
    }
    fn key(&self) -> TreeKey {
        S::key(&self.spec)
    }
    fn kind(&self) -> TreeKind {
        S::KIND
    }
    fn seed(&self) -> Option<u64> {
        S::seed(&self.spec)
    }
    fn row_seed(&self) -> u64 {
        S::row_seed(&self.spec)
    }
    fn fbest_width(&self) -> usize {
        self.source.fbest_width()
    }
    fn move_names(&self) -> Vec<String> {
        S::move_names(&self.root)
    }
    fn spec_json(&self) -> String {
        serde_json::to_string(&self.spec).unwrap_or_default()
    }
}

/// The top-level keys of a spec line, in order, with the values that are
/// strings: what a family's [`TreeFamily::claims`] looks at, so that each
/// family's reader then names its own unknown or missing fields.
pub struct SpecKeys {
    keys: Vec<(String, Option<String>)>,
}

impl SpecKeys {
    /// Whether the line has key `k`.
    pub fn has(&self, k: &str) -> bool {
        self.keys.iter().any(|(key, _)| key == k)
    }
    /// Key `k`'s value, if it is a string (the last, if given twice; the
    /// family's reader then refuses the repeat).
    pub fn str(&self, k: &str) -> Option<&str> {
        self.keys.iter().rev().find(|(key, _)| key == k).and_then(|(_, v)| v.as_deref())
    }
}

impl<'de> serde::Deserialize<'de> for SpecKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<SpecKeys, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = SpecKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object (one tree spec)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<SpecKeys, A::Error> {
                let mut keys = vec![];
                while let Some(k) = map.next_key::<String>()? {
                    let v = map.next_value::<serde_json::Value>()?;
                    keys.push((k, v.as_str().map(str::to_string)));
                }
                Ok(SpecKeys { keys })
            }
        }
        d.deserialize_map(V)
    }
}

/// The one list of tree families, `families! { Variant: SourceType, ... }`
/// in `tree/mod.rs`, made into [`Tree`](super::Tree) (a variant holding a
/// [`Checked`] per family), [`Spec`](super::Spec) (the spec line, a
/// variant per family), the dispatch [`Tree::visit`](super::Tree::visit)
/// and the reading of a spec line. The order is the order in which
/// families claim a line: the last should claim every line left.
macro_rules! families {
    ($($(#[$m:meta])* $v:ident: $s:ty,)+) => {
        /// A checked tree, ready to search: its spec and its root in its
        /// source, one variant per family.
        #[derive(Clone, Debug)]
        pub enum Tree {
            $($(#[$m])* $v($crate::tree::family::Checked<$s>),)+
        }

        /// A tree spec of any family, as it appears on a line.
        #[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
        #[serde(untagged)]
        pub enum Spec {
            $($(#[$m])* $v(<$s as $crate::tree::family::TreeFamily>::Spec),)+
        }

        impl Tree {
            /// Calls `v` with the tree's source and root: the one place
            /// where the family is decided.
            #[inline]
            pub fn visit<V: SourceVisitor>(&self, v: V) -> V::Output {
                match self {
                    $(Tree::$v(t) => v.visit(&t.source, &t.root, <$s as $crate::tree::family::TreeFamily>::head(&t.spec).depth),)+
                }
            }

            /// The spec.
            pub fn spec(&self) -> Spec {
                match self {
                    $(Tree::$v(t) => Spec::$v(t.spec.clone()),)+
                }
            }

            fn info(&self) -> &dyn $crate::tree::family::Info {
                match self {
                    $(Tree::$v(t) => t,)+
                }
            }
        }

        impl Spec {
            /// Validates the spec.
            pub fn check(&self) -> Result<Tree, SpecError> {
                match self {
                    $(Spec::$v(s) => {
                        let (source, root) = <$s as $crate::tree::family::TreeFamily>::check(s)?;
                        Ok(Tree::$v($crate::tree::family::Checked { spec: s.clone(), source, root }))
                    })+
                }
            }

            /// What the tree is: the spec with its labels cleared (its
            /// family's `TreeFamily::identity`).
            pub fn identity(&self) -> Spec {
                match self {
                    $(Spec::$v(s) => Spec::$v(<$s as $crate::tree::family::TreeFamily>::identity(s)),)+
                }
            }

            /// Reads a spec line as the first family that claims it.
            fn read(line: &str, keys: &$crate::tree::family::SpecKeys) -> serde_json::Result<Spec> {
                $(if <$s as $crate::tree::family::TreeFamily>::claims(keys) {
                    return serde_json::from_str(line).map(Spec::$v);
                })+
                Err(<serde_json::Error as serde::de::Error>::custom("no tree family reads this line"))
            }
        }
    };
}
pub(crate) use families;
