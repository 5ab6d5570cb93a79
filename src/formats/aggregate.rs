//! How rows of several trees become one summary row, written down once:
//! each column's [`Agg`] (the mean it uses) in one table per row type
//! ([`Summed::COLUMNS`]; `docs/formats.md`, "Summary rows", lists the
//! same), the accumulators of the means ([`Mean`], [`GeoMean`]), and the
//! grouping that sums rows per configuration ([`summarize`]).
//!
//! `pabsim`'s rows ([`SimRow`]) and `psearch`'s (`RealRow`, whose table
//! stands beside it in `crate::request::real`: the rows of a machine are its
//! own) are summed from their per-tree rows by the table's columns; the cluster's rows
//! ([`ClusterRow`]) are made from the runs themselves (a geometric mean
//! needs each tree's time, not a per-tree row's rounded one) with the same
//! accumulators, and their table says which mean each column is; Ura et
//! al.'s tables ([`super::ura2014`]) use them too.

use super::{ClusterRow, PerTreeRow, SimRow};
use std::collections::HashMap;
use std::hash::Hash;

/// How a summary row's column is formed from its trees' rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agg {
    /// Names the row (the trees' group or the configuration): the same in
    /// every tree's row, kept.
    Key,
    /// Only in per-tree rows (the tree, its seed, its result): empty in a summary.
    PerTree,
    /// Summed over the trees.
    Sum,
    /// Summed over the trees where every tree has it, else empty (the
    /// baseline's columns: a ratio against part of the trees would mislead).
    SumAll,
    /// The worst of the trees' (the busiest host).
    Worst,
    /// The one value every tree has, else empty.
    Common,
    /// The arithmetic mean over the trees (and the processes, for a time
    /// per process).
    Mean,
    /// The geometric mean over the trees.
    GeoMean,
    /// A ratio of the summary's own columns (sums or means), computed after them.
    Ratio,
    /// Per process, the ratio of sums over the trees; then the mean, least
    /// or spread over the processes (OthelloX's load).
    Load,
}

impl Agg {
    /// The name `docs/formats.md` uses.
    pub fn name(self) -> &'static str {
        match self {
            Agg::Key => "key",
            Agg::PerTree => "per tree",
            Agg::Sum => "sum",
            Agg::SumAll => "sum over all",
            Agg::Worst => "worst",
            Agg::Common => "common",
            Agg::Mean => "mean",
            Agg::GeoMean => "geometric mean",
            Agg::Ratio => "ratio",
            Agg::Load => "load",
        }
    }
}

/// An arithmetic mean: the values summed in the order given, then one division.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mean {
    /// The sum.
    pub sum: f64,
    /// The values.
    pub n: u32,
}

impl Mean {
    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        self.sum += x;
        self.n += 1;
    }

    /// The mean (0 of nothing).
    pub fn mean(&self) -> f64 {
        if self.n == 0 { 0.0 } else { self.sum / self.n as f64 }
    }
}

/// A geometric mean: the logarithms summed in the order given, then the
/// exponential of their mean.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GeoMean {
    /// The sum of the logarithms.
    pub ln_sum: f64,
    /// The values.
    pub n: u32,
}

impl GeoMean {
    /// Adds one value (above 0).
    pub fn add(&mut self, x: f64) {
        self.ln_sum += x.ln();
        self.n += 1;
    }

    /// The mean (0 of nothing).
    pub fn mean(&self) -> f64 {
        if self.n == 0 { 0.0 } else { (self.ln_sum / self.n as f64).exp() }
    }
}

/// A row type whose per-tree rows sum into summary rows.
pub trait Summed: Sized {
    /// Every column with how a summary forms it, in column order.
    const COLUMNS: &'static [(&'static str, Agg)];
    /// Adds `other`'s trees to this summary row: its [`Agg::Sum`],
    /// [`Agg::SumAll`] and [`Agg::Worst`] columns (the others are the
    /// first tree's until [`Summed::finish`]).
    fn add(&mut self, other: &Self);
    /// Empties the [`Agg::PerTree`] columns and computes the
    /// [`Agg::Ratio`] columns from the sums.
    fn finish(&mut self);
}

/// Sums `rows` into one row per `key` (in order of first appearance).
pub fn summarize<R: Summed, K: Eq + Hash + Clone, E>(rows: Vec<R>, mut key: impl FnMut(&R) -> Result<K, E>) -> Result<Vec<R>, E> {
    let mut order: Vec<K> = vec![];
    let mut sums: HashMap<K, R> = HashMap::new();
    for r in rows {
        let k = key(&r)?;
        match sums.get_mut(&k) {
            Some(a) => a.add(&r),
            None => {
                order.push(k.clone());
                sums.insert(k, r);
            }
        }
    }
    Ok(order
        .into_iter()
        .map(|k| {
            let mut a = sums.remove(&k).expect("every key was inserted");
            a.finish();
            a
        })
        .collect())
}

/// The sum where both have it ([`Agg::SumAll`]).
pub fn sum_all(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    a.zip(b).map(|(a, b)| a + b)
}

/// Declares a row type's table and the code of [`Summed::add`] from it:
/// the columns of each kind, and for [`Agg::Worst`] the statement that
/// combines them.
macro_rules! summed {
    ($t:ty {
        key: [$($key:ident),* $(,)?],
        per_tree: [$($pt:ident),* $(,)?],
        sum: [$($sum:ident),* $(,)?],
        sum_all: [$($all:ident),* $(,)?],
        ratio: [$($ratio:ident),* $(,)?],
        $(worst: [$($worst:ident),*] => |$a:ident, $r:ident| $combine:expr,)?
        finish: |$f:ident| $finish:expr $(,)?
    }) => {
        impl $crate::formats::aggregate::Summed for $t {
            const COLUMNS: &'static [(&'static str, $crate::formats::aggregate::Agg)] = &[
                $((stringify!($key), $crate::formats::aggregate::Agg::Key),)*
                $((stringify!($pt), $crate::formats::aggregate::Agg::PerTree),)*
                $((stringify!($sum), $crate::formats::aggregate::Agg::Sum),)*
                $((stringify!($all), $crate::formats::aggregate::Agg::SumAll),)*
                $((stringify!($ratio), $crate::formats::aggregate::Agg::Ratio),)*
                $($((stringify!($worst), $crate::formats::aggregate::Agg::Worst),)*)?
            ];
            fn add(&mut self, other: &Self) {
                $(self.$sum += other.$sum;)*
                $(self.$all = $crate::formats::aggregate::sum_all(self.$all, other.$all);)*
                $(
                    let ($a, $r) = (self, other);
                    $combine;
                )?
            }
            fn finish(&mut self) {
                $(self.$pt = None;)*
                let $f = self;
                $finish;
            }
        }
    };
}

pub(crate) use summed;

/// `part / (procs * ticks)`, the share of the machine's time (none of no time).
pub fn share(part: u64, procs: u64, ticks: u64) -> Option<f64> {
    (ticks > 0).then(|| part as f64 / (procs * ticks) as f64)
}

summed! {
    SimRow {
        key: [model, b, wa, wb, depth, scheme, procs, m_a, m_b, m_ca, m_cc, cut_width, interleave, split_walk, policy, min_split_depth, split_group, steal_seed, lock, pv_wait],
        per_tree: [run, item, items, tree, seed, root_value],
        sum: [trees, tp_ticks, np_nodes, leaves, ticks_expand, ticks_search, ticks_eval, ticks_return, ticks_split, ticks_update, ticks_exit, mem_stall, lock_wait,
              time_expand, time_search, time_eval, time_return, time_split, time_update, time_exit, split_searches, split_examined, told, pool_nodes],
        sum_all: [t1_ticks, n1_nodes],
        ratio: [split_share, su, so, css],
        finish: |r| {
            r.set_ratios();
            r.split_share = share(r.time_split, r.procs as u64, r.tp_ticks);
        },
    }
}

impl SimRow {
    /// Speed-up, search overhead and CSS against the baseline's columns
    /// (empty without them).
    pub fn set_ratios(&mut self) {
        (self.su, self.so, self.css) = match self.t1_ticks.zip(self.n1_nodes) {
            Some((t1, n1)) => {
                let su = t1 as f64 / self.tp_ticks as f64;
                let so = self.np_nodes as f64 / n1 as f64 - 1.0;
                (Some(su), Some(so), Some(self.procs as f64 / (su * (so + 1.0)) - 1.0))
            }
            None => (None, None, None),
        };
    }
}

impl PerTreeRow {
    /// How `fbest --per-tree` rows sum per ordering and depth (the report's
    /// node counts of Tables 4.6 and 6.3; `fbest` itself writes no summary).
    pub const COLUMNS: &'static [(&'static str, Agg)] = &[
        ("tree", Agg::PerTree),
        ("seed", Agg::PerTree),
        ("b", Agg::Key),
        ("wa", Agg::Key),
        ("wb", Agg::Key),
        ("depth", Agg::Key),
        ("nodes", Agg::Sum),
        ("leaves", Agg::Sum),
        ("internal", Agg::Sum),
        ("contributing", Agg::Sum),
        ("root_value", Agg::PerTree),
    ];
}

impl ClusterRow {
    /// How a summary row forms each column from the runs of its trees
    /// (made in `crate::cluster::run` with [`Mean`] and [`GeoMean`]).
    pub const COLUMNS: &'static [(&'static str, Agg)] = &[
        ("tree", Agg::PerTree),
        ("seed", Agg::PerTree),
        ("model", Agg::Key),
        ("b", Agg::Key),
        ("depth", Agg::Key),
        ("trees", Agg::Sum),
        ("algorithm", Agg::Key),
        ("procs", Agg::Key),
        ("split_ply", Agg::Common),
        ("master_depth", Agg::Common),
        ("granularity", Agg::Common),
        ("root_value", Agg::PerTree),
        ("time_ns", Agg::GeoMean),
        ("speedup", Agg::Ratio),
        ("leaves", Agg::Sum),
        ("nodes", Agg::Sum),
        ("leaf_ratio", Agg::Ratio),
        ("startup_idle_ns", Agg::Mean),
        ("other_idle_ns", Agg::Mean),
        ("load_mean", Agg::Load),
        ("load_min", Agg::Load),
        ("load_sd", Agg::Load),
        ("messages", Agg::Sum),
        ("bytes", Agg::Sum),
        ("passes", Agg::SumAll),
        ("tasks_sent", Agg::SumAll),
        ("full_window_sends", Agg::SumAll),
        ("tasks_dropped", Agg::SumAll),
        ("dropped_nodes", Agg::SumAll),
        ("tasks_aborted", Agg::SumAll),
        ("aborted_nodes", Agg::SumAll),
        ("outside_nodes", Agg::SumAll),
        ("transport", Agg::Key),
        ("cores", Agg::Key),
        ("host_load", Agg::Key),
        ("free_cores", Agg::Key),
        ("oversubscribed", Agg::Key),
        ("threads", Agg::Key),
        ("thread_policy", Agg::Key),
        ("wake_ns", Agg::Key),
    ];
}

/// Checks that `cols` names every field of a row type once and that
/// `docs/formats.md`'s "Summary rows" table of `tool` gives every column
/// that is not a key the same kind (tests).
#[cfg(test)]
pub(crate) fn check_documented(tool: &str, fields: &[&str], cols: &[(&str, Agg)]) {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/formats.md")).unwrap();
    let section = docs.split("## Summary rows").nth(1).expect("docs/formats.md has a section \"Summary rows\"");
    let mut names: Vec<&str> = cols.iter().map(|c| c.0).collect();
    names.sort();
    let mut want = fields.to_vec();
    want.sort();
    assert_eq!(names, want, "{tool}: every column once");
    let table = section.split(&format!("### `{tool}`")).nth(1).unwrap_or_else(|| panic!("no table for {tool}"));
    let table = table.split("###").next().unwrap();
    for (c, agg) in cols.iter().filter(|c| c.1 != Agg::Key) {
        let line = table.lines().find(|l| l.starts_with('|') && l.split('|').nth(1).is_some_and(|cell| cell.contains(&format!("`{c}`"))));
        let line = line.unwrap_or_else(|| panic!("{tool}: docs/formats.md has no row for `{c}`"));
        assert_eq!(line.split('|').nth(2).map(str::trim), Some(agg.name()), "{tool}: `{c}`");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::struct_fields;

    /// Every column of the row types of this module has its one kind,
    /// and `docs/formats.md` names the same (`psearch`'s: `crate::request::real`).
    #[test]
    fn every_column_has_one_mean_and_the_docs_say_it() {
        check_documented("pabsim", struct_fields::<SimRow>(), SimRow::COLUMNS);
        check_documented("pabsim --machine cluster", struct_fields::<ClusterRow>(), ClusterRow::COLUMNS);
        check_documented("fbest --per-tree", struct_fields::<PerTreeRow>(), PerTreeRow::COLUMNS);
    }

    #[test]
    fn means_in_the_order_given() {
        let mut m = Mean::default();
        let mut g = GeoMean::default();
        assert_eq!((m.mean(), g.mean()), (0.0, 0.0));
        for x in [1.0, 4.0, 16.0] {
            m.add(x);
            g.add(x);
        }
        assert_eq!(m.mean(), 7.0);
        assert!((g.mean() - 4.0).abs() < 1e-12);
    }
}
