//! Per-tree rows summed per configuration, in polars, by the one rule the
//! library writes down (`parab::formats::aggregate`): each column's
//! [`Agg`] says whether it names the group, is summed, is summed only where
//! every tree has it, or belongs to one tree and is dropped. The report's
//! chapters sum their rows here and nowhere else; a test holds this equal to
//! the library's own `summarize` on the same rows.

use anyhow::{Result, bail};
use parab::formats::aggregate::Agg;
use polars::prelude::*;

/// The polars aggregation of column `c` under `agg`, for the kinds a sum of
/// per-tree rows takes; `None` for a key, a per-tree column, and the kinds
/// formed after the sums (ratios, loads) or from the runs themselves (means).
pub fn expr(c: &str, agg: Agg) -> Option<Expr> {
    match agg {
        Agg::Sum => Some(col(c).sum()),
        // Where a tree lacks it, the sum of the others would mislead.
        Agg::SumAll => Some(when(col(c).null_count().eq(lit(0))).then(col(c).sum()).otherwise(lit(NULL).cast(DataType::Int64)).alias(c)),
        Agg::Key | Agg::PerTree | Agg::Ratio | Agg::Load | Agg::Worst | Agg::Common | Agg::Mean | Agg::GeoMean => None,
    }
}

/// The aggregations of the `wanted` columns of `df` by `rule` (a row type's
/// `COLUMNS`), in the order wanted. A wanted column the frame lacks is left
/// out; one the rule does not sum is an error (the report asked for a sum
/// the library does not define).
pub fn exprs(df: &DataFrame, rule: &[(&str, Agg)], wanted: &[&str]) -> Result<Vec<Expr>> {
    let mut v = vec![];
    for c in wanted.iter().filter(|c| df.column(c).is_ok()) {
        let Some(agg) = rule.iter().find(|(x, _)| x == c).map(|(_, a)| *a) else { bail!("column `{c}` has no rule for summing rows") };
        let Some(e) = expr(c, agg) else { bail!("column `{c}` is not summed ({})", agg.name()) };
        v.push(e);
    }
    Ok(v)
}

/// Refuses integer columns whose total over all rows leaves 64 bits: no sum
/// of a group of those rows can then wrap around (a wrapped sum would print
/// as a negative count). `at(i)` names row `i` for the message.
pub fn refuse_overflow(df: &DataFrame, columns: &[&str], at: impl Fn(usize) -> String) -> Result<()> {
    for c in columns {
        let Ok(column) = df.column(c) else { continue };
        let Ok(values) = column.i64() else { continue };
        let mut total: i64 = 0;
        for (i, v) in values.iter().enumerate() {
            let v = v.unwrap_or(0);
            match total.checked_add(v.abs()) {
                Some(t) => total = t,
                None => bail!("column `{c}`: the rows' sum leaves 64 bits at {} (a value of {v}): not a count the tools write", at(i)),
            }
        }
    }
    Ok(())
}

/// `df`'s rows summed per `key` (groups in order of first appearance) by
/// `rule`, the `wanted` columns only, plus `extra` aggregations.
pub fn summarize(df: &DataFrame, key: &[Expr], rule: &[(&str, Agg)], wanted: &[&str], extra: Vec<Expr>) -> Result<LazyFrame> {
    let mut agg = exprs(df, rule, wanted)?;
    agg.extend(extra);
    Ok(df.clone().lazy().group_by_stable(key).agg(agg))
}
