//! The crate's four small macros, one home each: [`require!`](crate::macros::require)
//! (return an error unless a condition holds),
//! [`named!`](crate::macros::named) (the names of an enum's variants, parsed
//! and printed from one list), [`row!`](crate::macros::row) (a row type
//! with column groups shared by several tables) and
//! [`tree_row!`](crate::macros::tree_row) (such a row of one tree, its tree
//! columns filled in). Not a thesis concept; modules `use` them by
//! path (`use crate::macros::named;`).

/// Returns `Err($variant(format!(...)))` unless the condition holds:
/// `require!(n > 0, RunError::BadArgument, "--count {n}: ...")`. The
/// variant is written out with its error type, so a reader sees which
/// error it is.
macro_rules! require {
    ($cond:expr, $variant:path, $($msg:tt)*) => {
        if !$cond {
            return Err($variant(format!($($msg)*)));
        }
    };
}

/// `FromStr` and `name` of an enum named on the command line and in rows,
/// from one list of (variant, name): `named!(Walk: SimError, "split-point
/// walk", "tree or level", { Tree => "tree", Level => "level" })`.
///
/// **Any case is accepted** (`--scheme A`, `--policy DTS`, `--lock TAS`):
/// the names are lower case and the input is compared in lower case.
/// `name` gives the lower-case name, which is what rows hold. An unknown
/// name is refused with `unknown <what> `<name as given>` (expected
/// <expected>)`, built by the error type's `unknown_name(what, name,
/// expected)`.
macro_rules! named {
    ($t:ident: $err:ty, $what:literal, $expected:literal, { $($v:ident => $n:literal),+ $(,)? }) => {
        impl std::str::FromStr for $t {
            type Err = $err;
            fn from_str(s: &str) -> std::result::Result<$t, $err> {
                match s.to_ascii_lowercase().as_str() {
                    $($n => Ok($t::$v),)+
                    _ => Err(<$err>::unknown_name($what, s, $expected)),
                }
            }
        }

        impl $t {
            /// The name in rows and on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($t::$v => $n,)+
                }
            }
        }
    };
}

/// Column groups that several row types share, declared once. The csv
/// crate writes a struct's fields as columns but cannot flatten a nested
/// struct into them, so a group of columns that several tables carry (the
/// ordering `b, wa, wb`, an incremental shape `b, scale`, a search's node
/// counts, an algorithm's configuration) would otherwise be written out,
/// with its documentation, in every row type. The group's fields are put
/// in its place, so the column order is the order written, and the type is
/// an ordinary struct.
///
/// `row!` declares a struct whose field list may hold column groups
/// (`..ordering,`, `..shape,`, `..tree_columns,`, `..fbest_counts,`,
/// `..search_counts,`, `..classify_counts,`, `..policy,`) beside ordinary `pub` fields (every field ends with a
/// comma). The groups are the arms below; a group added here is usable by
/// every row type at once.
macro_rules! row {
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        row!(@munch [$(#[$m])* pub struct $name] [] $($body)*);
    };
    (@munch $head:tt [$($acc:tt)*] ..ordering, $($rest:tt)*) => {
        row!(@munch $head [$($acc)*
            /// Branching factor.
            pub b: u32,
            /// w_a.
            pub wa: u32,
            /// w_b.
            pub wb: u32,
        ] $($rest)*);
    };
    (@munch $head:tt [$($acc:tt)*] ..tree_columns, $($rest:tt)*) => {
        row!(@munch $head [$($acc)*
            /// 1-based index of the tree in its set (per tree only).
            pub tree: Option<u32>,
            /// Root seed; for a game position, a digest of the position
            /// (per tree only).
            pub seed: Option<u64>,
            /// Tree model, or the game.
            pub model: $crate::tree::Family,
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
        ] $($rest)*);
    };
    (@munch $head:tt [$($acc:tt)*] ..shape, $($rest:tt)*) => {
        row!(@munch $head [$($acc)*
            /// Branching factor.
            pub b: u32,
            /// Edge scale.
            pub scale: u32,
        ] $($rest)*);
    };
    (@munch $head:tt [$($acc:tt)*] ..fbest_counts, $($rest:tt)*) => {
        row!(@munch $head [$($acc)*
            /// Move position in search order, 1-based.
            pub n: u32,
            /// Nodes that recorded move n.
            pub fbest: u64,
            /// fbest / nodes that recorded anything.
            #[serde(serialize_with = "crate::formats::prob")]
            pub pbest: f64,
        ] $($rest)*);
    };
    (@munch $head:tt [$($acc:tt)*] ..search_counts, $($rest:tt)*) => {
        row!(@munch $head [$($acc)*
            /// Nodes entered (root, internal, leaves).
            pub nodes: u64,
            /// Leaves entered (at the horizon, or with no moves).
            pub leaves: u64,
            /// Internal nodes entered.
            pub internal: u64,
            /// Internal nodes that recorded a best move.
            pub contributing: u64,
        ] $($rest)*);
    };
    (@munch $head:tt [$($acc:tt)*] ..classify_counts, $($rest:tt)*) => {
        row!(@munch $head [$($acc)*
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
        ] $($rest)*);
    };
    (@munch $head:tt [$($acc:tt)*] ..policy, $($rest:tt)*) => {
        row!(@munch $head [$($acc)*
            /// The algorithm's name, `-` for the sequential run.
            pub policy: String,
            /// The scheme's name, `-` where there is none.
            pub scheme: String,
            /// Scheme A's m_A.
            pub m_a: Option<u32>,
            /// Scheme B's m_B.
            pub m_b: Option<u32>,
            /// Scheme C's m_Ca.
            pub m_ca: Option<i32>,
            /// Scheme C's m_Cc.
            pub m_cc: Option<i32>,
            /// Scheme C's classification width.
            pub cut_width: Option<u32>,
            /// Schemes A and B: finished moves a PV node needs.
            pub pv_wait: Option<u32>,
            /// The DTS-like search's walk (`tree` for the sequential run too),
            /// `-` for the other algorithms.
            pub split_walk: String,
            /// Active splitting's minimum split depth.
            pub min_split_depth: Option<u32>,
            /// Active splitting's split group.
            pub split_group: Option<u32>,
            /// Work stealing's seed.
            pub steal_seed: Option<u64>,
        ] $($rest)*);
    };
    (@munch $head:tt [$($acc:tt)*] $(#[$fm:meta])* pub $f:ident: $t:ty, $($rest:tt)*) => {
        row!(@munch $head [$($acc)* $(#[$fm])* pub $f: $t,] $($rest)*);
    };
    (@munch [$($head:tt)*] [$($acc:tt)*]) => {
        $($head)* { $($acc)* }
    };
}

/// A row of one tree: a literal of a `row!` type holding `..tree_columns`,
/// the group filled from the tree
/// ([`TreeColumns::of`](crate::request::TreeColumns::of), `trees: 1`) and
/// the other fields written out: `tree_row!(tree, SimRow { run: None, ... })`.
/// The shared machine's and the real threads' per-tree rows are built so.
macro_rules! tree_row {
    ($tree:expr, $row:ident { $($rest:tt)* }) => {{
        let c = $crate::request::TreeColumns::of($tree);
        $row { tree: c.tree, seed: c.seed, model: c.model, b: c.b, wa: c.wa, wb: c.wb, depth: c.depth, trees: 1, $($rest)* }
    }};
}

pub(crate) use named;
pub(crate) use require;
pub(crate) use row;
pub(crate) use tree_row;

#[cfg(test)]
mod tests {
    #[derive(Debug, PartialEq)]
    enum Error {
        Bad(String),
    }

    impl Error {
        fn unknown_name(what: &'static str, name: &str, expected: &'static str) -> Error {
            Error::Bad(format!("{what} {name} {expected}"))
        }
    }

    fn positive(n: i32) -> Result<i32, Error> {
        require!(n > 0, Error::Bad, "n = {n} is not positive");
        Ok(n)
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Colour {
        Red,
        DarkBlue,
    }

    named!(Colour: Error, "colour", "red or darkblue", { Red => "red", DarkBlue => "darkblue" });

    #[test]
    fn require_returns_the_variant_with_the_message() {
        assert_eq!(positive(3), Ok(3));
        assert_eq!(positive(-2), Err(Error::Bad("n = -2 is not positive".into())));
    }

    #[test]
    fn named_parses_any_case_and_names_in_lower_case() {
        assert_eq!("DarkBlue".parse::<Colour>(), Ok(Colour::DarkBlue));
        assert_eq!("RED".parse::<Colour>(), Ok(Colour::Red));
        assert_eq!(Colour::DarkBlue.name(), "darkblue");
        assert_eq!("Green".parse::<Colour>(), Err(Error::Bad("colour Green red or darkblue".into())));
    }
}
