//! Column groups that several row types share, declared once.
//!
//! The csv crate writes a struct's fields as columns but cannot flatten a
//! nested struct into them, so a group of columns that several tables
//! carry (the ordering `b, wa, wb`, an incremental shape `b, scale`, a
//! search's node counts, an algorithm's configuration) would otherwise be
//! written out, with its documentation, in every row type. [`row!`]
//! declares a row type whose field list may name a group (`..ordering,`):
//! the group's fields are put in its place, so the column order is the
//! order written, and the type is an ordinary struct.

/// Declares a struct whose field list may hold column groups
/// (`..ordering,`, `..shape,`, `..fbest_counts,`, `..search_counts,`,
/// `..algorithm,`) beside ordinary `pub` fields (every field ends with a
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
    (@munch $head:tt [$($acc:tt)*] ..algorithm, $($rest:tt)*) => {
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
pub(crate) use row;
