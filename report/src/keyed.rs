//! Grouping and matching the tools' typed rows with polars.
//!
//! The sections that read the tools' own row types (`parab::formats`:
//! cluster, real-thread and Ura et al. rows) keep them typed, and do their
//! group-bys and joins here, as polars expressions over the rows' key
//! columns: a stable group-by for "the rows of each tree group, in order of
//! first appearance", and a left join (nulls equal, the first match) for
//! "this row's baseline" or "the simulator's row for this real one". A key
//! column is built by [`key`] from a field of each row.

use anyhow::{Result, anyhow};
use polars::prelude::*;

/// Column names the helpers add; no key may be called so.
const ROW: &str = "__row";
const MATCH: &str = "__match";

/// A key column: `f` of each row, named `name`.
pub fn key<'a, T, V>(name: &str, rows: &'a [T], f: impl Fn(&'a T) -> V) -> Column
where
    Series: NamedFrom<Vec<V>, [V]>,
{
    Series::new(name.into(), rows.iter().map(f).collect::<Vec<V>>()).into_column()
}

/// A value as its JSON text: a key column for a field that is not a plain
/// number or text (an enum, a configuration's columns).
pub fn json<T: serde::Serialize>(v: &T) -> String {
    // Serialising a plain struct or enum to a string cannot fail.
    serde_json::to_string(v).unwrap_or_default()
}

fn frame(keys: Vec<Column>, index: &str) -> Result<(DataFrame, Vec<PlSmallStr>)> {
    let height = keys.first().map_or(0, |c| c.len());
    let names = keys.iter().map(|c| c.name().clone()).collect();
    let df = DataFrame::new(height, keys).map_err(|e| anyhow!("key columns: {e}"))?;
    let df = df.with_row_index(index.into(), None).map_err(|e| anyhow!("key columns: {e}"))?;
    Ok((df, names))
}

fn indices(c: &Column) -> Result<Vec<Option<usize>>> {
    let ca = c.idx().map_err(|e| anyhow!("{e}"))?;
    Ok((0..ca.len()).map(|i| ca.get(i).map(|i| i as usize)).collect())
}

/// The rows of each group of equal keys (one column per key, a value per
/// row): groups in order of first appearance, rows in order within each.
pub fn groups(keys: Vec<Column>) -> Result<Vec<Vec<usize>>> {
    let (df, names) = frame(keys, ROW)?;
    let by: Vec<Expr> = names.iter().map(|n| col(n.clone())).collect();
    let g = df.lazy().group_by_stable(by).agg([col(ROW)]).collect().map_err(|e| anyhow!("grouping rows: {e}"))?;
    let lists = g.column(ROW).and_then(|c| c.list()).map_err(|e| anyhow!("{e}"))?;
    let mut out = vec![];
    for i in 0..lists.len() {
        let l = lists.get_as_series(i).ok_or_else(|| anyhow!("grouping rows: no group {i}"))?;
        out.push(indices(&l.into_column())?.into_iter().flatten().collect());
    }
    Ok(out)
}

/// For each row of `left`, the first row of `right` with equal keys (nulls
/// equal to nulls), if any: a left join on every key column.
pub fn first_match(left: Vec<Column>, right: Vec<Column>) -> Result<Vec<Option<usize>>> {
    let (l, names) = frame(left, ROW)?;
    let (r, _) = frame(right, MATCH)?;
    let by: Vec<Expr> = names.iter().map(|n| col(n.clone())).collect();
    let first = r.lazy().group_by_stable(by.clone()).agg([col(MATCH).min()]);
    let mut args = super::load::join_args(JoinType::Left);
    args.nulls_equal = true;
    let j = l.lazy().join(first, by.clone(), by, args).sort([ROW], Default::default()).collect().map_err(|e| anyhow!("matching rows: {e}"))?;
    indices(j.column(MATCH).map_err(|e| anyhow!("{e}"))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_keep_first_appearance_and_null_keys() {
        let rows = [(Some(5u32), "a"), (None, "a"), (Some(5), "a"), (Some(5), "b"), (None, "a")];
        let g = groups(vec![key("b", &rows, |r| r.0), key("name", &rows, |r| r.1)]).unwrap();
        assert_eq!(g, vec![vec![0, 2], vec![1, 4], vec![3]]);
        assert!(groups(vec![key("b", &[] as &[(u32,)], |r| r.0)]).unwrap().is_empty());
    }

    #[test]
    fn a_match_is_the_first_equal_row_and_nulls_match_nulls() {
        let left = [(Some(1u32), 7u32), (None, 7), (Some(2), 7), (Some(1), 8)];
        let right = [(Some(2u32), 7u32), (Some(1), 7), (None, 7), (Some(1), 7)];
        let m = first_match(vec![key("b", &left, |r| r.0), key("d", &left, |r| r.1)], vec![key("b", &right, |r| r.0), key("d", &right, |r| r.1)]).unwrap();
        assert_eq!(m, vec![Some(1), Some(2), Some(0), None]);
    }
}
