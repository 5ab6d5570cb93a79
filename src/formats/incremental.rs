//! The tables of incremental random trees (`docs/formats.md`): the columns
//! of the artificial trees' tables with the tree's shape, `b` and the edge
//! `scale`, in place of the ordering `(b, w_a, w_b)`, and the ordering
//! accuracy of `fbest --accuracy`.

use super::rows::prob;
use crate::macros::row;
use serde::{Deserialize, Serialize};

fbest_rows! {
    /// `fbest` output for incremental trees: one row per move position.
    IncrementalFbestRow,
    /// `fbest --per-tree` for incremental trees: one row per tree.
    IncrementalPerTreeRow { ..shape, }
    /// The root's minimax value on the score scale.
}

/// `fbest --accuracy K`: the ordering accuracy of one group of trees.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccuracyRow {
    /// The `model` column of the trees.
    pub model: String,
    /// Branching factor (empty for game positions).
    pub b: Option<u32>,
    /// Edge scale (incremental trees only).
    pub scale: Option<u32>,
    /// Trees.
    pub trees: u32,
    /// The shallower search depth k.
    pub k: u32,
    /// The deeper one, k + 2.
    pub k2: u32,
    /// Plies of nodes measured: every node at plies 0..plies.
    pub plies: u32,
    /// Nodes measured.
    pub nodes: u64,
    /// Nodes whose best child at depth k is also best at depth k + 2.
    pub kept: u64,
    /// kept / nodes.
    #[serde(serialize_with = "prob")]
    pub accuracy: f64,
}

classify_row! {
    /// `classify` output for incremental trees: the columns of [`ClassifyRow`](super::ClassifyRow)
    /// with the tree's shape in place of the ordering.
    IncrementalClassifyRow {
        /// Branching factor.
        b: u32,
        /// Edge scale.
        scale: u32,
    }
    /// 1 on the lowest error of the shape and scheme, else 0.
}
