//! The tables the tools exchange, as serde types in one place (documented
//! for users in `docs/formats.md`): CSV with a header row (`rows`: the
//! reader and every row type), and JSON lines of any serde type. Readers
//! reject unknown and missing fields and name the file and line.
//!
//! Tree specs, the JSON lines every tool reads first, are trees written
//! down: they live with the trees ([`crate::tree`]); position files with
//! the games ([`crate::game::read_positions`]).

use crate::cli::{Input, InputError};
use crate::tree::Family;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};

/// Declares a `classify` row type: its own leading columns (what names the
/// trees: an ordering, an incremental shape, a game), then the counts every
/// variant shares (`row!`'s `..classify_counts`) and its `best` column.
/// Also gives `with_tree`, the shared columns of a [`ClassifyRow`] under
/// this variant's leading ones.
macro_rules! classify_row {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $f:ident: $t:ty,)* } $(#[$bm:meta])*) => {
        row! {
            $(#[$m])*
            #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct $name {
                $($(#[$fm])* pub $f: $t,)*
                ..classify_counts,
                $(#[$bm])*
                pub best: u8,
            }
        }

        impl $name {
            /// The shared columns of `r` under this type's leading columns.
            pub fn with_tree($($f: $t,)* r: $crate::formats::ClassifyRow) -> $name {
                let $crate::formats::ClassifyRow { depth, trees, scheme, param, true_cut, false_cut, true_all, false_all, error, scored, best, .. } = r;
                $name { $($f,)* depth, trees, scheme, param, true_cut, false_cut, true_all, false_all, error, scored, best }
            }
        }
    };
}

/// Declares the two `fbest` tables of trees named by a column group of
/// `row!` (`..ordering`, `..shape`): the summary (one row per move
/// position: the group, depth, trees, `..fbest_counts`) and the per-tree
/// rows (tree, seed, the group, depth, `..search_counts`, root value).
macro_rules! fbest_rows {
    ($(#[$sm:meta])* $sum:ident, $(#[$pm:meta])* $per:ident { ..$group:ident $(,)? } $(#[$vm:meta])*) => {
        row! {
            $(#[$sm])*
            #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct $sum {
                ..$group,
                /// Search depth.
                pub depth: u32,
                /// Trees searched.
                pub trees: u32,
                ..fbest_counts,
            }
        }

        row! {
            $(#[$pm])*
            #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
            #[serde(deny_unknown_fields)]
            pub struct $per {
                /// 1-based index of the tree in its seed set.
                pub tree: u32,
                /// Root seed.
                pub seed: u64,
                ..$group,
                /// Search depth.
                pub depth: u32,
                ..search_counts,
                $(#[$vm])*
                pub root_value: i64,
            }
        }
    };
}

pub mod aggregate;
mod cluster;
mod incremental;
mod rows;
pub mod seal;
pub mod ura2014;
pub use cluster::*;
pub use incremental::*;
pub use rows::*;

/// What is wrong with a JSON-lines or CSV input. Messages name the file
/// and line; the underlying cause, where there is one, is the error's source.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The input or one of its lines cannot be read.
    #[error(transparent)]
    Input(#[from] InputError),
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

/// Reads JSON lines of `T`, skipping blank lines; errors name `file:line`.
pub fn read_json_lines<T: DeserializeOwned>(input: Input) -> Result<Vec<T>> {
    let name = input.name.clone();
    let mut out = vec![];
    for (i, line) in input.numbered_lines() {
        let line = line.map_err(|why| InputError::at(&name, i, why))?;
        if line.trim().is_empty() {
            continue;
        }
        let v = serde_json::from_str(&line).map_err(|source| FormatError::Json { name: name.clone(), line: i, source })?;
        out.push(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::macros::row;

    row! {
        /// A row with two groups between its own columns.
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct Sample {
            /// Own, first.
            pub first: u32,
            ..shape,
            /// Own, between.
            pub middle: String,
            ..fbest_counts,
        }
    }

    /// `row!` (crate::macros): the groups' columns stand where they are named, in order, and the
    /// row reads back through the crate's strict reader.
    #[test]
    fn row_puts_each_group_where_it_is_named() {
        let r = Sample { first: 1, b: 5, scale: 100, middle: "m".into(), n: 2, fbest: 7, pbest: 0.5 };
        let mut w = csv::Writer::from_writer(vec![]);
        w.serialize(&r).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(text, "first,b,scale,middle,n,fbest,pbest\n1,5,100,m,2,7,0.500000000\n");
        let back: Vec<Sample> = super::read_csv(crate::cli::Input::from_string("s", &text)).unwrap();
        assert_eq!(back, [r]);
    }

    use super::*;

    /// A renamed column is read by its old name as by its new one; both
    /// at once, or another unknown name, are refused.
    #[test]
    fn renamed_columns_read_by_either_name() {
        #[derive(Debug, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct R {
            threads: u32,
            thread_policy: String,
        }
        let read = |text: &str| read_csv::<R>(crate::cli::Input::from_string("r.csv", text)).map_err(|e| e.to_string());
        let want = vec![R { threads: 2, thread_policy: "steal".into() }];
        assert_eq!(read("threads,thread_policy\n2,steal\n"), Ok(want));
        assert_eq!(read("threads,thread_algorithm\n2,steal\n").map(|r| r.len()), Ok(1));
        assert!(read("threads,thread_algorithm,thread_policy\n2,steal,steal\n").unwrap_err().contains("appears twice"));
        assert!(read("threads,thread_algo\n2,steal\n").unwrap_err().contains("unknown column `thread_algo`"));
    }

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
    fn struct_columns_are_the_types_the_rows_hold() {
        use ColumnType::*;
        let sim = struct_columns::<SimRow>();
        assert_eq!(sim.iter().map(|c| c.0).collect::<Vec<_>>(), struct_fields::<SimRow>());
        let of = |c: &str| sim.iter().find(|x| x.0 == c).map(|x| x.1);
        // Option<String>, u32, Option<u32>, u64, Option<f64>, an enum by name.
        assert_eq!(
            [of("run"), of("b"), of("m_a"), of("tp_ticks"), of("su"), of("scheme")],
            [Some(Text), Some(Int), Some(Int), Some(Int), Some(Float), Some(Text)]
        );
        let curve = struct_columns::<CurveRow>();
        assert_eq!(curve, [("iteration", Int), ("e_type", Float), ("e_wait", Float)]);
        assert!(struct_columns::<PatternRow>().contains(&("type", Float)));
        assert!(struct_columns::<u32>().is_empty());
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
}
