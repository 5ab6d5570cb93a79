//! The thesis's published tables (`data/published/*.csv`) joined to ours.
//!
//! Generic on purpose, so that adding a published CSV is enough to show it:
//! a published file's key columns are those of [`KEYS`] it has, plus keys
//! its file name states (`b20-69-19` for an ordering, `scheme-c`, `p48` or
//! `procs-48`); every other column is a published value. Each value column
//! is looked up by name in our measures (the first [`Measures`] frame that
//! has the column and every key), and the two are joined with polars on the
//! keys. Rows come out in the published file's order, one per (row, value
//! column), with the difference and a verdict.

use super::doc::Status;
use super::load::{self, Csv, KEYS, norm_key, pl};
use anyhow::Result;
use polars::prelude::*;
use std::path::Path;

/// One frame of our results in the shape published tables are keyed by.
pub struct Measures {
    /// Where the values come from (a file pattern and what was done to it).
    pub source: String,
    /// Keys (normalised text) and numeric value columns.
    pub df: DataFrame,
}

/// One published value beside ours.
#[derive(Clone, Debug)]
pub struct Row {
    /// Key values in the published table's key order.
    pub key: Vec<String>,
    /// The value column.
    pub column: String,
    /// Ours, if we have it.
    pub ours: Option<f64>,
    /// Published, if the cell is numeric.
    pub published: Option<f64>,
    /// The published cell as printed.
    pub published_text: String,
    /// Decimals the thesis printed in this column.
    pub decimals: usize,
    /// Verdict.
    pub status: Status,
}

/// A published table joined to ours.
pub struct Comparison {
    /// File stem, e.g. `table-6.3-uniprocessor`.
    pub stem: String,
    /// Thesis table number, e.g. `6.3` (empty if the name has none).
    pub number: String,
    /// Key columns (file columns, then keys from the file name).
    pub keys: Vec<String>,
    /// Keys taken from the file name, with their values.
    pub name_keys: Vec<(String, String)>,
    /// Value columns.
    pub columns: Vec<String>,
    /// Where each value column of ours came from: (column, source).
    pub sources: Vec<(String, String)>,
    /// Rows, published order, then column order.
    pub rows: Vec<Row>,
}

/// Keys a published file's name states: `b20-69-19` → b, wa, wb;
/// `scheme-c` → scheme; `p48`/`procs-48` → procs.
pub fn name_keys(stem: &str) -> Vec<(String, String)> {
    let t: Vec<&str> = stem.split('-').collect();
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let mut out = vec![];
    for i in 0..t.len() {
        if let Some(b) = t[i].strip_prefix('b')
            && digits(b)
            && i + 2 < t.len()
            && digits(t[i + 1])
            && digits(t[i + 2])
        {
            out.push(("b".to_string(), norm_key(b)));
            out.push(("wa".to_string(), norm_key(t[i + 1])));
            out.push(("wb".to_string(), norm_key(t[i + 2])));
        }
        if t[i] == "scheme" && i + 1 < t.len() && t[i + 1].len() == 1 {
            out.push(("scheme".to_string(), norm_key(t[i + 1])));
        }
        if t[i] == "procs" && i + 1 < t.len() && digits(t[i + 1]) {
            out.push(("procs".to_string(), norm_key(t[i + 1])));
        }
        if let Some(p) = t[i].strip_prefix('p')
            && digits(p)
            && i > 0
        {
            out.push(("procs".to_string(), norm_key(p)));
        }
    }
    let mut seen = vec![];
    out.retain(|(k, _)| {
        let new = !seen.contains(k);
        seen.push(k.clone());
        new
    });
    out
}

/// The thesis table number in a file stem (`table-6.3-...` → `6.3`).
pub fn table_number(stem: &str) -> String {
    let mut parts = stem.split('-');
    match (parts.next(), parts.next()) {
        (Some("table"), Some(n)) if n.contains('.') => n.to_string(),
        _ => String::new(),
    }
}

/// The verdict for one pair of values.
pub fn verdict(ours: Option<f64>, published: Option<f64>, decimals: usize) -> Status {
    let (Some(o), Some(p)) = (ours, published) else { return Status::Missing };
    if o == p {
        return Status::Exact;
    }
    let half = 0.5 * 10f64.powi(-(decimals as i32));
    if decimals > 0 && (o - p).abs() <= half * (1.0 + 1e-9) {
        return Status::Rounded;
    }
    let rel = if p != 0.0 { (o - p).abs() / p.abs() } else { f64::INFINITY };
    if rel < 0.01 { Status::Close } else { Status::Differs }
}

/// The verdict in words.
pub fn words(status: Status, ours: Option<f64>, published: Option<f64>, decimals: usize) -> String {
    match (status, ours, published) {
        (Status::Exact, ..) => "exact".into(),
        (Status::Rounded, ..) => format!("exact to {decimals} decimals"),
        (Status::Missing, None, _) => "no result of ours".into(),
        (Status::Missing, ..) => "no published number".into(),
        (_, Some(o), Some(p)) => {
            let dir = if o > p { "higher" } else { "lower" };
            if p == 0.0 {
                format!("ours {dir} (published 0)")
            } else {
                let rel = (o - p).abs() / p.abs() * 100.0;
                let word = if status == Status::Close { "close: " } else { "differs: " };
                format!("{word}ours {rel:.2}% {dir}")
            }
        }
        _ => String::new(),
    }
}

/// Reads one published file and joins it to our measures.
pub fn compare(path: &Path, ours: &[Measures]) -> Result<Comparison> {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("published").to_string();
    let csv: Csv = load::read(path, &[])?;
    let from_name: Vec<(String, String)> = name_keys(&stem).into_iter().filter(|(k, _)| !load::has(&csv.df, k)).collect();
    let mut keys: Vec<String> = KEYS.iter().filter(|k| load::has(&csv.df, k)).map(|k| k.to_string()).collect();
    keys.extend(from_name.iter().map(|(k, _)| k.clone()));
    let columns: Vec<String> = csv
        .df
        .get_column_names()
        .iter()
        .map(|s| s.to_string())
        .filter(|c| !KEYS.contains(&c.as_str()) && (csv.decimals.contains_key(c) || is_int(&csv.df, c)))
        .collect();

    // The published frame: its keys (file-name keys as constant columns),
    // its row order, its values as floats.
    let height = csv.df.height();
    let mut df = csv.df.clone();
    pl(df.with_column(Column::new("__row".into(), (0..height as i64).collect::<Vec<_>>())), "numbering rows")?;
    let mut lf = df.lazy();
    for (k, v) in &from_name {
        lf = lf.with_column(lit(v.clone()).alias(k.as_str()));
    }
    let key_exprs: Vec<Expr> = keys.iter().map(|k| col(k.as_str())).collect();
    let mut sources = vec![];
    let mut ours_cols: Vec<String> = vec![];
    for c in &columns {
        let Some(m) = ours.iter().find(|m| load::has(&m.df, c) && keys.iter().all(|k| load::has(&m.df, k))) else { continue };
        sources.push((c.clone(), m.source.clone()));
        let alias = format!("__ours_{c}");
        let mut sel: Vec<Expr> = key_exprs.clone();
        sel.push(col(c.as_str()).cast(DataType::Float64).alias(alias.as_str()));
        // One value per key: ours are unique per key by construction; `first`
        // guards the join against duplicating published rows.
        let right = m.df.clone().lazy().select(sel).group_by_stable(key_exprs.clone()).agg([col(alias.as_str()).first()]);
        lf = lf.join(right, key_exprs.clone(), key_exprs.clone(), load::join_args(JoinType::Left));
        ours_cols.push(c.clone());
    }
    let joined = pl(lf.sort(["__row"], SortMultipleOptions::default()).collect(), &format!("joining {}", path.display()))?;
    anyhow::ensure!(joined.height() == height, "joining {} changed its row count", path.display());

    let mut rows = vec![];
    for i in 0..height {
        let key: Vec<String> = keys.iter().map(|k| load::text(&joined, k, i).unwrap_or_default()).collect();
        for c in &columns {
            let published = load::num(&joined, c, i);
            let published_text = csv.raw.get(c).and_then(|v| v.get(i)).cloned().unwrap_or_default();
            let decimals = csv.decimals.get(c).copied().unwrap_or(0);
            let ours_v = if ours_cols.contains(c) { load::num(&joined, &format!("__ours_{c}"), i) } else { None };
            let status = verdict(ours_v, published, decimals);
            rows.push(Row { key: key.clone(), column: c.clone(), ours: ours_v, published, published_text, decimals, status });
        }
    }
    Ok(Comparison { number: table_number(&stem), stem, keys, name_keys: from_name, columns, sources, rows })
}

fn is_int(df: &DataFrame, c: &str) -> bool {
    df.column(c).is_ok_and(|x| x.dtype() == &DataType::Int64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_file_names() {
        assert_eq!(name_keys("table-4.5-exponential-b20-69-19"), vec![("b".into(), "20".into()), ("wa".into(), "69".into()), ("wb".into(), "19".into())]);
        assert_eq!(name_keys("table-5.4-scheme-c"), vec![("scheme".into(), "c".into())]);
        assert_eq!(
            name_keys("table-6.4-b32-79-5-p48"),
            vec![("b".into(), "32".into()), ("wa".into(), "79".into()), ("wb".into(), "5".into()), ("procs".into(), "48".into())]
        );
        assert!(name_keys("table-6.3-uniprocessor").is_empty());
        assert_eq!(table_number("table-6.3-uniprocessor"), "6.3");
        assert_eq!(table_number("notes"), "");
    }

    #[test]
    fn verdicts() {
        assert_eq!(verdict(Some(22123280.0), Some(22123280.0), 0), Status::Exact);
        assert_eq!(verdict(Some(0.7055004), Some(0.7055), 6), Status::Rounded);
        assert_eq!(verdict(Some(0.7055006), Some(0.7055), 6), Status::Close);
        assert_eq!(verdict(Some(22123281.0), Some(22123280.0), 0), Status::Close);
        assert_eq!(verdict(Some(110.0), Some(100.0), 0), Status::Differs);
        assert_eq!(verdict(None, Some(1.0), 0), Status::Missing);
        assert_eq!(words(Status::Differs, Some(110.0), Some(100.0), 0), "differs: ours 10.00% higher");
        assert_eq!(words(Status::Rounded, Some(0.1), Some(0.1), 6), "exact to 6 decimals");
    }
}
