//! A small typed table: named columns of integers, numbers or text, any
//! cell possibly empty (null), and the few operations the report needs on
//! it — filtering rows, grouping them by equal keys, looking rows up by key,
//! summing, counting — as plain code over the rows.
//!
//! The report's tables are a few thousand rows, so nothing here is clever;
//! what it keeps exactly is the meaning the tables had when they were
//! DataFrames (issue 42): groups come in order of first appearance; an empty
//! key cell is a key of its own when grouping but never matches in a lookup
//! (a join); a sum skips empty cells and is 0 when all are; numbers are
//! summed in row order with Kahan's compensation; a count counts non-empty
//! cells; `-0.0` and `0.0` are one key, and so are all NaNs.

use anyhow::{Result, anyhow, bail};
use std::cmp::Ordering;
use std::collections::HashMap;

/// The cells of one column.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Integers.
    Int(Vec<Option<i64>>),
    /// Numbers.
    Float(Vec<Option<f64>>),
    /// Text (key columns hold normalised text).
    Text(Vec<Option<String>>),
}

/// A cell as a key: cells with equal keys group together and match in a
/// lookup. Numbers by value, with `-0.0` = `0.0` and all NaNs one key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// An empty cell.
    Null,
    /// An integer.
    Int(i64),
    /// A number, by the bits of its canonical value.
    Float(u64),
    /// Text.
    Text(String),
}

impl Values {
    /// The number of cells.
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Text(v) => v.len(),
        }
    }

    /// Whether the column has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether cell `i` is empty (or out of range).
    pub fn is_null(&self, i: usize) -> bool {
        match self {
            Values::Int(v) => v.get(i).is_none_or(Option::is_none),
            Values::Float(v) => v.get(i).is_none_or(Option::is_none),
            Values::Text(v) => v.get(i).is_none_or(Option::is_none),
        }
    }

    /// Cell `i` as a key.
    pub fn key(&self, i: usize) -> Key {
        match self {
            Values::Int(v) => v.get(i).copied().flatten().map_or(Key::Null, Key::Int),
            Values::Float(v) => v.get(i).copied().flatten().map_or(Key::Null, |x| Key::Float(if x.is_nan() { f64::NAN } else { x + 0.0 }.to_bits())),
            Values::Text(v) => v.get(i).cloned().flatten().map_or(Key::Null, Key::Text),
        }
    }

    /// The cells of `rows`, in that order.
    pub fn take(&self, rows: &[usize]) -> Values {
        self.take_or_empty(&rows.iter().map(|&i| Some(i)).collect::<Vec<_>>())
    }

    /// The cells of `rows`, in that order; an empty cell for `None`.
    pub fn take_or_empty(&self, rows: &[Option<usize>]) -> Values {
        match self {
            Values::Int(v) => Values::Int(rows.iter().map(|r| r.and_then(|i| v[i])).collect()),
            Values::Float(v) => Values::Float(rows.iter().map(|r| r.and_then(|i| v[i])).collect()),
            Values::Text(v) => Values::Text(rows.iter().map(|r| r.and_then(|i| v[i].clone())).collect()),
        }
    }

    /// Per group, its first cell.
    pub fn firsts(&self, groups: &[Vec<usize>]) -> Values {
        self.take(&groups.iter().map(|g| g[0]).collect::<Vec<_>>())
    }

    /// Per group, its last cell.
    pub fn lasts(&self, groups: &[Vec<usize>]) -> Values {
        self.take(&groups.iter().map(|g| g[g.len() - 1]).collect::<Vec<_>>())
    }

    /// Per group, how many of its cells are not empty.
    pub fn counts(&self, groups: &[Vec<usize>]) -> Values {
        Values::Int(groups.iter().map(|g| Some(g.iter().filter(|&&i| !self.is_null(i)).count() as i64)).collect())
    }

    /// Per group, the sum of its non-empty cells, 0 when there are none:
    /// integers exactly, numbers in row order with Kahan's compensation (a
    /// group of one cell is that cell). `name` is the column's, for the
    /// error on text.
    pub fn sums(&self, groups: &[Vec<usize>], name: &str) -> Result<Values> {
        Ok(match self {
            Values::Int(v) => Values::Int(groups.iter().map(|g| Some(g.iter().filter_map(|&i| v[i]).sum())).collect()),
            Values::Float(v) => Values::Float(
                groups.iter().map(|g| Some(if let [i] = g[..] { v[i].unwrap_or(0.0) } else { kahan_sum(g.iter().filter_map(|&i| v[i])) })).collect(),
            ),
            Values::Text(_) => bail!("column `{name}` holds text, which cannot be summed"),
        })
    }
}

/// The sum of `xs` in order, with Kahan's compensation: the error of each
/// addition is carried into the next (kept finite, so that an infinite sum
/// does not turn into NaN).
pub fn kahan_sum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (mut sum, mut err) = (0.0, 0.0);
    for x in xs {
        let y = x - err;
        let next = sum + y;
        let e = (next - sum) - y;
        sum = next;
        if e.is_finite() {
            err = e;
        }
    }
    sum
}

/// Numbers in ascending order, `-0.0` = `0.0`, NaN after every other number.
pub fn cmp_num(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// A number as text the way a number column is cast to a text column: the
/// shortest digits that read back as the number, always with a decimal
/// point or an exponent (`4.0`, `0.5`, `1e+20`); `NaN`, `inf`, `-inf`.
pub fn float_text(x: f64) -> String {
    match serde_json::Number::from_f64(x) {
        Some(n) => n.to_string(),
        None if x.is_nan() => "NaN".into(),
        None => if x > 0.0 { "inf" } else { "-inf" }.into(),
    }
}

/// Row `i`'s key in the columns `cols`.
pub fn row_key(cols: &[&Values], i: usize) -> Vec<Key> {
    cols.iter().map(|c| c.key(i)).collect()
}

/// The rows of a left join on the columns `keys`: each row of `left`
/// beside each row of `right` with the same key (in `right`'s order), or
/// beside none (`None`) where no row has it. An empty key cell matches
/// nothing.
pub fn left_join(left: &Frame, right: &Frame, keys: &[&str]) -> Result<(Vec<usize>, Vec<Option<usize>>)> {
    let (lcols, rcols) = (left.key_columns(keys)?, right.key_columns(keys)?);
    let mut index: HashMap<Vec<Key>, Vec<usize>> = HashMap::new();
    for r in 0..right.height {
        index.entry(row_key(&rcols, r)).or_default().push(r);
    }
    let (mut l, mut r) = (vec![], vec![]);
    for i in 0..left.height {
        let k = row_key(&lcols, i);
        match index.get(&k).filter(|_| !k.contains(&Key::Null)) {
            Some(rows) => {
                l.extend(rows.iter().map(|_| i));
                r.extend(rows.iter().map(|&x| Some(x)));
            }
            None => {
                l.push(i);
                r.push(None);
            }
        }
    }
    Ok((l, r))
}

/// Rows of named, typed columns.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    height: usize,
    columns: Vec<(String, Values)>,
}

impl Frame {
    /// A table of `height` rows and no columns yet.
    pub fn new(height: usize) -> Frame {
        Frame { height, columns: vec![] }
    }

    /// The table with a column added at the end, or put in the place of the
    /// column of that name.
    pub fn with(mut self, name: &str, values: Values) -> Frame {
        self.set(name, values);
        self
    }

    /// Adds a column at the end, or puts it in the place of the column of
    /// that name.
    pub fn set(&mut self, name: &str, values: Values) {
        assert_eq!(values.len(), self.height, "column `{name}` has {} cells for {} rows", values.len(), self.height);
        match self.columns.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = values,
            None => self.columns.push((name.to_string(), values)),
        }
    }

    /// The number of rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The column names, in order.
    pub fn names(&self) -> Vec<String> {
        self.columns.iter().map(|(n, _)| n.clone()).collect()
    }

    /// Whether the table has a column.
    pub fn has(&self, c: &str) -> bool {
        self.get(c).is_some()
    }

    /// A column's cells, if the table has it.
    pub fn get(&self, c: &str) -> Option<&Values> {
        self.columns.iter().find(|(n, _)| n == c).map(|(_, v)| v)
    }

    /// A column's cells; an error naming it where the table has none.
    pub fn column(&self, c: &str) -> Result<&Values> {
        self.get(c).ok_or_else(|| anyhow!("no column `{c}` (columns: {})", self.names().join(", ")))
    }

    /// Cell `i` of column `c` as a number (integers widened, text read as a
    /// number).
    pub fn num(&self, c: &str, i: usize) -> Option<f64> {
        match self.get(c)? {
            Values::Int(v) => v.get(i).copied().flatten().map(|x| x as f64),
            Values::Float(v) => v.get(i).copied().flatten(),
            Values::Text(v) => v.get(i)?.as_deref()?.parse().ok(),
        }
    }

    /// Cell `i` of column `c` as an integer (a number only if it is whole;
    /// never text).
    pub fn int(&self, c: &str, i: usize) -> Option<i64> {
        match self.get(c)? {
            Values::Int(v) => v.get(i).copied().flatten(),
            Values::Float(v) => v.get(i).copied().flatten().filter(|x| x.fract() == 0.0).map(|x| x as i64),
            Values::Text(_) => None,
        }
    }

    /// Cell `i` of column `c` as text (numbers printed plainly: `4`, `0.5`).
    pub fn text(&self, c: &str, i: usize) -> Option<String> {
        match self.get(c)? {
            Values::Int(v) => v.get(i).copied().flatten().map(|x| x.to_string()),
            Values::Float(v) => v.get(i).copied().flatten().map(|x| x.to_string()),
            Values::Text(v) => v.get(i).cloned().flatten(),
        }
    }

    /// Cell `i` of column `c` as a text column would hold it if the column
    /// were cast to text: as [`Frame::text`], but a number always with its
    /// decimal point ([`float_text`]: `4.0`).
    pub fn cast_text(&self, c: &str, i: usize) -> Option<String> {
        match self.get(c)? {
            Values::Float(v) => v.get(i).copied().flatten().map(float_text),
            _ => self.text(c, i),
        }
    }

    /// The rows `rows`, in that order.
    pub fn take(&self, rows: &[usize]) -> Frame {
        Frame { height: rows.len(), columns: self.columns.iter().map(|(n, v)| (n.clone(), v.take(rows))).collect() }
    }

    /// The columns `names`, in that order.
    pub fn select(&self, names: &[&str]) -> Result<Frame> {
        let mut out = Frame::new(self.height);
        for n in names {
            out.set(n, self.column(n)?.clone());
        }
        Ok(out)
    }

    /// The table without column `c`.
    pub fn drop(&self, c: &str) -> Frame {
        Frame { height: self.height, columns: self.columns.iter().filter(|(n, _)| n != c).cloned().collect() }
    }

    /// Renames column `from` to `to`, in its place.
    pub fn rename(&mut self, from: &str, to: &str) {
        if let Some((n, _)) = self.columns.iter_mut().find(|(n, _)| n == from) {
            *n = to.to_string();
        }
    }

    /// The rows whose text columns equal the given values (an empty cell
    /// equals nothing).
    pub fn filter_eq(&self, eq: &[(&str, &str)]) -> Result<Frame> {
        let cols: Vec<(&Values, Key)> = eq.iter().map(|(c, v)| Ok((self.column(c)?, Key::Text(v.to_string())))).collect::<Result<_>>()?;
        let rows: Vec<usize> = (0..self.height).filter(|&i| cols.iter().all(|(c, v)| c.key(i) == *v)).collect();
        Ok(self.take(&rows))
    }

    /// The columns `names`, for [`row_key`].
    pub fn key_columns(&self, names: &[&str]) -> Result<Vec<&Values>> {
        names.iter().map(|c| self.column(c)).collect()
    }

    /// The rows `rows` grouped by equal values of the columns `keys` (an
    /// empty cell is a value like any other here), each group's rows in the
    /// order given, the groups in order of their first row.
    pub fn groups(&self, keys: &[&str], rows: impl IntoIterator<Item = usize>) -> Result<Vec<Vec<usize>>> {
        let cols = self.key_columns(keys)?;
        let mut index: HashMap<Vec<Key>, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = vec![];
        for i in rows {
            let k = row_key(&cols, i);
            match index.get(&k) {
                Some(&g) => groups[g].push(i),
                None => {
                    index.insert(k, groups.len());
                    groups.push(vec![i]);
                }
            }
        }
        Ok(groups)
    }

    /// The key columns of the groups (each group's first row): the first
    /// columns of a table with one row per group.
    pub fn group_keys(&self, keys: &[&str], groups: &[Vec<usize>]) -> Result<Frame> {
        let mut out = Frame::new(groups.len());
        for k in keys {
            out.set(k, self.column(k)?.firsts(groups));
        }
        Ok(out)
    }

    /// For a lookup by the columns `keys`: each key's first row. Rows with
    /// an empty key cell are left out, as they match nothing.
    pub fn first_rows(&self, keys: &[&str]) -> Result<HashMap<Vec<Key>, usize>> {
        let cols = self.key_columns(keys)?;
        let mut index = HashMap::new();
        for i in 0..self.height {
            let k = row_key(&cols, i);
            if !k.contains(&Key::Null) {
                index.entry(k).or_insert(i);
            }
        }
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame() -> Frame {
        Frame::new(5)
            .with("k", Values::Text(["a", "b", "", "a", ""].map(|s| (!s.is_empty()).then(|| s.to_string())).to_vec()))
            .with("n", Values::Int(vec![Some(1), None, Some(3), Some(4), None]))
            .with("x", Values::Float(vec![Some(0.1), Some(0.2), None, Some(0.3), None]))
    }

    #[test]
    fn groups_keep_first_appearance_and_empty_keys_group_together() {
        let f = frame();
        let g = f.groups(&["k"], 0..f.height()).unwrap();
        assert_eq!(g, vec![vec![0, 3], vec![1], vec![2, 4]]);
        assert_eq!(f.column("n").unwrap().sums(&g, "n").unwrap(), Values::Int(vec![Some(5), Some(0), Some(3)]));
        assert_eq!(f.column("x").unwrap().sums(&g, "x").unwrap(), Values::Float(vec![Some(0.1 + 0.3), Some(0.2), Some(0.0)]));
        assert_eq!(f.column("n").unwrap().counts(&g), Values::Int(vec![Some(2), Some(0), Some(1)]));
        assert_eq!(f.column("n").unwrap().lasts(&g), Values::Int(vec![Some(4), None, None]));
        assert!(f.column("k").unwrap().sums(&g, "k").is_err());
    }

    #[test]
    fn lookups_skip_empty_keys_and_filters_match_text() {
        let f = frame();
        let idx = f.first_rows(&["k"]).unwrap();
        assert_eq!(idx.len(), 2);
        assert_eq!(idx[&vec![Key::Text("a".into())]], 0);
        let a = f.filter_eq(&[("k", "a")]).unwrap();
        assert_eq!((a.height(), a.int("n", 1)), (2, Some(4)));
        assert!(f.filter_eq(&[("nope", "a")]).is_err());
    }

    #[test]
    fn numbers_as_keys_text_and_sums() {
        let v = Values::Float(vec![Some(0.0), Some(-0.0), Some(f64::NAN), Some(-f64::NAN)]);
        assert_eq!(v.key(0), v.key(1));
        assert_eq!(v.key(2), v.key(3));
        assert_eq!([4.0, 0.5, 1e20, f64::NAN, f64::NEG_INFINITY].map(float_text), ["4.0", "0.5", "1e+20", "NaN", "-inf"]);
        // Compensated: ten 0.1s make 1 exactly, where a plain sum does not.
        assert_eq!(kahan_sum([0.1; 10]), 1.0);
        assert_ne!([0.1; 10].iter().sum::<f64>(), 1.0);
        assert_eq!(cmp_num(f64::NAN, f64::INFINITY), Ordering::Greater);
        assert_eq!(cmp_num(-0.0, 0.0), Ordering::Equal);
    }
}
