//! The thesis's published tables (`data/published/*.csv`) joined to ours.
//!
//! Generic on purpose, so that adding a published CSV is enough to show it:
//! a published file's key columns are those of [`KEYS`] it has, plus keys
//! its file name states (`b20-69-19` for an ordering, `scheme-c`, `p48` or
//! `procs-48`); the thesis's column names that differ from ours are renamed
//! first ([`ALIASES`]); [`SETTINGS`] columns say how a row was run (shown
//! and checked against ours, not scored); a column `table` splits one file
//! into several thesis tables; every other column is a published value.
//! Each value column is looked up by name in our measures (the first
//! [`Measures`] frame that has the column and every key), and the two are
//! joined with polars on the keys. Lines come out in the published file's
//! order, one per published row, each with its values beside ours.

use super::doc::{self, Status};
use super::load::{self, Csv, KEYS, Schema, norm_key, pl};
use anyhow::Result;
use polars::prelude::*;
use std::path::Path;

/// The thesis's column names that we call otherwise: (published, ours).
pub const ALIASES: [(&str, &str); 4] = [("p", "procs"), ("speedup", "su"), ("search_overhead", "so"), ("css_overhead", "css")];

/// Columns that describe how a published row was run (the thesis's chosen
/// parameters), not what it measured: shown beside ours and checked for
/// equality, never counted as agreeing cells.
pub const SETTINGS: [&str; 2] = ["param1", "param2"];

/// A column naming the thesis table of each row, in files that hold several.
pub const TABLE_COLUMN: &str = "table";

/// One frame of our results in the shape published tables are keyed by.
pub struct Measures {
    /// Where the values come from (a file pattern and what was done to it).
    pub source: String,
    /// Keys (normalised text) and numeric value columns.
    pub df: DataFrame,
}

/// One published value beside ours.
#[derive(Clone, Debug)]
pub struct Value {
    /// The value column (our name for it).
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

impl Value {
    /// Ours relative to the published value, `(ours - published) / published`.
    pub fn rel(&self) -> Option<f64> {
        let (o, p) = (self.ours?, self.published?);
        (p != 0.0).then(|| (o - p) / p.abs())
    }
}

/// One published row: its keys, its settings beside ours, its values.
#[derive(Clone, Debug)]
pub struct Line {
    /// Key values in the comparison's key order.
    pub key: Vec<String>,
    /// Per setting column: (published as printed, ours if we have it).
    pub settings: Vec<(String, Option<String>)>,
    /// One per value column, in column order.
    pub values: Vec<Value>,
}

/// A published table joined to ours.
pub struct Comparison {
    /// File stem, e.g. `table-6.3-uniprocessor`.
    pub stem: String,
    /// Thesis table number, e.g. `6.3` (empty if the name has none).
    pub number: String,
    /// The page's id for the comparison table.
    pub id: String,
    /// Key columns (file columns, then keys from the file name).
    pub keys: Vec<String>,
    /// Keys taken from the file name, with their values.
    pub name_keys: Vec<(String, String)>,
    /// Value columns (our names).
    pub columns: Vec<String>,
    /// Setting columns present.
    pub settings: Vec<String>,
    /// Where each value column of ours came from: (column, source).
    pub sources: Vec<(String, String)>,
    /// Lines, in the published file's order.
    pub lines: Vec<Line>,
}

impl Comparison {
    /// Every published value with its line.
    pub fn values(&self) -> impl Iterator<Item = (&Line, &Value)> {
        self.lines.iter().flat_map(|l| l.values.iter().map(move |v| (l, v)))
    }

    /// "Table 6.4", or the file stem for a table without a number.
    pub fn name(&self) -> String {
        if self.number.is_empty() { self.stem.clone() } else { format!("Table {}", self.number) }
    }

    /// The value of key `k` in a line.
    pub fn key<'a>(&self, line: &'a Line, k: &str) -> Option<&'a str> {
        self.keys.iter().position(|x| x == k).map(|i| line.key[i].as_str())
    }
}

/// How a column is headed on the page: the thesis's symbol where it has one.
pub fn label(column: &str) -> String {
    let l = match column {
        "tp_ticks" => "t_p (ticks)",
        "t1_ticks" => "t_1 (ticks)",
        "np_nodes" => "n_p",
        "n1_nodes" => "n_1",
        "su" => "SU",
        "so" => "SO",
        "css" => "CSS",
        "procs" => "p",
        "fbest" => "f_best",
        "pbest" => "p_best",
        "e_type" => "E_type",
        "e_wait" => "E_wait",
        "true_cut" => "True_CUT",
        "false_cut" => "False_CUT",
        "true_all" => "True_ALL",
        "false_all" => "False_ALL",
        "error" => "Error",
        other => other,
    };
    l.to_string()
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

/// The verdict for one pair of values: exact; exact to the decimals the
/// thesis printed; or the band of the relative difference (1%, 5%, 15%).
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
    if rel <= 0.01 {
        Status::Close
    } else if rel <= 0.05 {
        Status::Near
    } else if rel <= 0.15 {
        Status::Off
    } else {
        Status::Differs
    }
}

/// The difference cell's text: "exact", "exact (rounded)" (ours rounds to
/// the printed value), the signed
/// relative difference with enough digits to be seen ("+0.0040%"), or why
/// there is none.
pub fn delta_text(v: &Value) -> String {
    match (v.status, v.ours, v.published) {
        (Status::Exact, ..) => "exact".into(),
        (Status::Rounded, ..) => "exact (rounded)".into(),
        (Status::Missing, None, _) => "no result of ours".into(),
        (Status::Missing, ..) => "not printed".into(),
        (_, Some(o), Some(0.0)) => format!("ours {}", doc::Cell::number(Some(o), v.decimals).plain()),
        _ => v.rel().map(doc::rel_pct).unwrap_or_default(),
    }
}

/// The agreement of a set of published values in one line: "45 cells: 3
/// within 1%, 20 within 5%, 31 within 15%, 14 further apart", counting
/// cumulatively, and the furthest value.
pub fn summary(c: &Comparison) -> String {
    let all: Vec<(&Line, &Value)> = c.values().collect();
    let n = all.len();
    let compared: Vec<&(&Line, &Value)> = all.iter().filter(|(_, v)| v.status != Status::Missing).collect();
    let missing = n - compared.len();
    let cells = if n == 1 { "1 cell".to_string() } else { format!("{n} cells") };
    if compared.is_empty() {
        return format!("{}, {cells}: none has a result of ours yet.", c.name());
    }
    let m = compared.len();
    let count = |f: &dyn Fn(Status) -> bool| compared.iter().filter(|(_, v)| f(v.status)).count();
    let exact = count(&|s| matches!(s, Status::Exact | Status::Rounded));
    let rounded = count(&|s| s == Status::Rounded);
    let mut parts = vec![];
    let all = if missing > 0 { format!("all {m} we have") } else { format!("all {m}") };
    if exact == m {
        parts.push(format!("{all} exact{}", if rounded > 0 { " (to the printed decimals)" } else { "" }));
    } else {
        if exact > 0 {
            parts.push(format!("{exact} exact{}", if rounded > 0 { " (to the printed decimals)" } else { "" }));
        }
        let bands: [(&str, &dyn Fn(Status) -> bool); 3] = [
            ("1%", &|s| matches!(s, Status::Exact | Status::Rounded | Status::Close)),
            ("5%", &|s| matches!(s, Status::Exact | Status::Rounded | Status::Close | Status::Near)),
            ("15%", &|s| matches!(s, Status::Exact | Status::Rounded | Status::Close | Status::Near | Status::Off)),
        ];
        for (i, (t, f)) in bands.iter().enumerate() {
            let k = count(*f);
            if k == m {
                parts.push(format!("{all} within {t}"));
                break;
            }
            // The headline bands (5%, 15%) always; 1% when it holds any.
            if k > 0 || i > 0 {
                parts.push(format!("{k} within {t}"));
            }
        }
        let further = count(&|s| s == Status::Differs);
        if further > 0 {
            parts.push(format!("{further} further apart"));
        }
    }
    let mut s = format!("{}, {cells}: {}", c.name(), parts.join(", "));
    if missing > 0 {
        s.push_str(&format!("; {missing} without a result of ours"));
    }
    s.push('.');
    let worst = compared
        .iter()
        .filter(|(_, v)| !matches!(v.status, Status::Exact | Status::Rounded))
        .filter_map(|(l, v)| Some((l, v, v.rel()?.abs())))
        .max_by(|a, b| a.2.total_cmp(&b.2));
    if let Some((l, v, _)) = worst {
        s.push_str(&format!(
            " Furthest: {} at {}, ours {} against {} ({}).",
            label(&v.column),
            line_label(c, l),
            doc::Cell::number(v.ours, v.decimals).plain(),
            doc::Cell::number(v.published, v.decimals).plain(),
            delta_text(v)
        ));
    }
    s
}

/// A line's keys in words: "(32, 79, 5), scheme C, p = 48", leaving out the
/// keys every line shares.
pub fn line_label(c: &Comparison, l: &Line) -> String {
    let varying = varying_keys(c);
    let mut parts = vec![];
    let ordering = ["b", "wa", "wb"];
    if ordering.iter().all(|k| varying.contains(&k.to_string()))
        && let (Some(b), Some(wa), Some(wb)) = (c.key(l, "b"), c.key(l, "wa"), c.key(l, "wb"))
    {
        parts.push(super::ordering_label(b, wa, wb));
    }
    for k in &varying {
        if ordering.contains(&k.as_str()) {
            continue;
        }
        let v = c.key(l, k).unwrap_or_default();
        parts.push(match k.as_str() {
            "scheme" => format!("scheme {}", v.to_uppercase()),
            "procs" => format!("p = {v}"),
            other => format!("{other} = {v}"),
        });
    }
    if parts.is_empty() { "its only row".into() } else { parts.join(", ") }
}

/// The keys whose value differs between lines (an ordering counts as
/// varying when any of b, wa, wb does).
pub fn varying_keys(c: &Comparison) -> Vec<String> {
    let varies = |i: usize| c.lines.iter().any(|l| l.key[i] != c.lines[0].key[i]);
    let ordering = ["b", "wa", "wb"];
    let ord_varies = c.keys.iter().enumerate().any(|(i, k)| ordering.contains(&k.as_str()) && varies(i));
    c.keys.iter().enumerate().filter(|(i, k)| if ordering.contains(&k.as_str()) { ord_varies } else { varies(*i) }).map(|(_, k)| k.clone()).collect()
}

/// One published file, read: its rows, and which of its columns are keys,
/// settings and values.
struct File {
    stem: String,
    csv: Csv,
    /// Key columns: the file's, then those from its name.
    keys: Vec<String>,
    /// Keys taken from the file name, with their values.
    from_name: Vec<(String, String)>,
    settings: Vec<String>,
    /// Value columns (our names).
    columns: Vec<String>,
}

impl File {
    /// Reads a published table by the published tables' schema, its columns
    /// under our names.
    fn read(path: &Path) -> Result<File> {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("published").to_string();
        let schema = Schema::published(&ALIASES, &[&SETTINGS[..], &[TABLE_COLUMN]].concat());
        let mut csv: Csv = load::read(path, &schema, &[])?;
        for (theirs, our) in ALIASES {
            if load::has(&csv.df, theirs) && !load::has(&csv.df, our) {
                pl(csv.df.rename(theirs, our.into()).map(|_| ()), "renaming a published column")?;
                if let Some(d) = csv.decimals.remove(theirs) {
                    csv.decimals.insert(our.to_string(), d);
                }
                if let Some(r) = csv.raw.remove(theirs) {
                    csv.raw.insert(our.to_string(), r);
                }
            }
        }
        let from_name: Vec<(String, String)> = name_keys(&stem).into_iter().filter(|(k, _)| !load::has(&csv.df, k)).collect();
        let mut keys: Vec<String> = KEYS.iter().filter(|k| load::has(&csv.df, k)).map(|k| k.to_string()).collect();
        keys.extend(from_name.iter().map(|(k, _)| k.clone()));
        let settings: Vec<String> = SETTINGS.iter().filter(|c| load::has(&csv.df, c)).map(|c| c.to_string()).collect();
        // Every other column is a number by the schema.
        let columns: Vec<String> = csv.df.get_column_names().iter().map(|s| s.to_string()).filter(|c| csv.decimals.contains_key(c)).collect();
        Ok(File { stem, csv, keys, from_name, settings, columns })
    }

    /// The published rows, in their order, beside ours: a column `__ours_C`
    /// per value or setting column `C` we have (values as numbers, settings
    /// as text), and per value column the source of ours.
    fn join(&self, ours: &[Measures], path: &Path) -> Result<(DataFrame, Vec<(String, String)>)> {
        let height = self.csv.df.height();
        let mut lf = self.csv.df.clone().lazy().with_row_index("__row", None);
        for (k, v) in &self.from_name {
            lf = lf.with_column(lit(v.clone()).alias(k.as_str()));
        }
        let key_exprs: Vec<Expr> = self.keys.iter().map(|k| col(k.as_str())).collect();
        let has_keys = |m: &Measures| self.keys.iter().all(|k| load::has(&m.df, k));
        let mut sources = vec![];
        let wanted = self.columns.iter().map(|c| (c, DataType::Float64)).chain(self.settings.iter().map(|c| (c, DataType::String)));
        for (c, dtype) in wanted {
            let Some(m) = ours.iter().find(|m| load::has(&m.df, c) && has_keys(m)) else { continue };
            if dtype == DataType::Float64 {
                sources.push((c.clone(), m.source.clone()));
            }
            let alias = format!("__ours_{c}");
            let mut sel: Vec<Expr> = key_exprs.clone();
            sel.push(col(c.as_str()).cast(dtype).alias(alias.as_str()));
            // One value per key: ours are unique per key by construction; `first`
            // guards the join against duplicating published rows.
            let right = m.df.clone().lazy().select(sel).group_by_stable(key_exprs.clone()).agg([col(alias.as_str()).first()]);
            lf = lf.join(right, key_exprs.clone(), key_exprs.clone(), load::join_args(JoinType::Left));
        }
        let joined = pl(lf.sort(["__row"], SortMultipleOptions::default()).collect(), &format!("joining {}", path.display()))?;
        anyhow::ensure!(joined.height() == height, "joining {} changed its row count", path.display());
        Ok((joined, sources))
    }

    /// Row `i` of the joined frame as a comparison's line.
    fn line(&self, joined: &DataFrame, i: usize) -> Line {
        let raw = |c: &str| self.csv.raw.get(c).and_then(|v| v.get(i)).cloned().unwrap_or_default();
        let ours = |c: &str| format!("__ours_{c}");
        let key: Vec<String> = self.keys.iter().map(|k| load::text(joined, k, i).unwrap_or_default()).collect();
        let settings = self.settings.iter().map(|c| (raw(c), load::text(joined, &ours(c), i))).collect();
        let values = self
            .columns
            .iter()
            .map(|c| {
                let published = load::num(joined, c, i);
                let decimals = self.csv.decimals.get(c).copied().unwrap_or(0);
                let ours_v = load::num(joined, &ours(c), i);
                let status = verdict(ours_v, published, decimals);
                Value { column: c.clone(), ours: ours_v, published, published_text: raw(c), decimals, status }
            })
            .collect();
        Line { key, settings, values }
    }
}

/// Reads one published file and joins it to our measures: one comparison,
/// or one per thesis table when the file has a `table` column (the rows of
/// each in the file's order, the tables in order of first appearance).
pub fn compare(path: &Path, ours: &[Measures]) -> Result<Vec<Comparison>> {
    let file = File::read(path)?;
    let (joined, sources) = file.join(ours, path)?;
    let tables = match file.csv.df.column(TABLE_COLUMN) {
        Ok(t) => {
            let names = t.str().map_err(|e| anyhow::anyhow!("{e}"))?;
            // The column is there: an empty cell names the table "".
            let name = |rows: &[usize]| Some(rows.first().and_then(|&i| names.get(i)).unwrap_or("").to_string());
            super::keyed::groups(vec![t.clone()])?.into_iter().map(|rows| (name(&rows), rows)).collect()
        }
        Err(_) => vec![(None, (0..file.csv.df.height()).collect())],
    };
    let mut out = vec![];
    for (t, rows) in tables {
        let lines = rows.into_iter().map(|i| file.line(&joined, i)).collect();
        let (number, id) = match &t {
            Some(n) => (n.clone(), format!("compare-table-{}", n.replace('.', "-"))),
            None => (table_number(&file.stem), format!("compare-{}", file.stem.replace('.', "-"))),
        };
        out.push(Comparison {
            stem: file.stem.clone(),
            number,
            id,
            keys: file.keys.clone(),
            name_keys: file.from_name.clone(),
            columns: file.columns.clone(),
            settings: file.settings.clone(),
            sources: sources.clone(),
            lines,
        });
    }
    Ok(out)
}

/// Whether a published setting (as printed) equals ours; an empty published
/// cell equals a missing or empty one of ours.
pub fn same_setting(published: &str, ours: Option<&str>) -> bool {
    let o = ours.unwrap_or("");
    norm_key(published) == norm_key(o)
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

    fn line(key: &[&str], values: &[(&str, f64, f64, usize)]) -> Line {
        Line {
            key: key.iter().map(|k| k.to_string()).collect(),
            settings: vec![],
            values: values
                .iter()
                .map(|&(c, o, p, d)| Value {
                    column: c.into(),
                    ours: Some(o),
                    published: Some(p),
                    published_text: p.to_string(),
                    decimals: d,
                    status: verdict(Some(o), Some(p), d),
                })
                .collect(),
        }
    }

    #[test]
    fn summaries_count_cumulatively_and_name_the_furthest() {
        let c = Comparison {
            stem: "table-6.3-uniprocessor".into(),
            number: "6.3".into(),
            id: "compare-table-6-3-uniprocessor".into(),
            keys: vec!["b".into(), "wa".into(), "wb".into()],
            name_keys: vec![],
            columns: vec!["t1_ticks".into(), "n1_nodes".into()],
            settings: vec![],
            sources: vec![],
            lines: vec![
                line(&["32", "79", "5"], &[("t1_ticks", 220_377_712.0, 220_380_112.0, 0), ("n1_nodes", 22_123_280.0, 22_123_280.0, 0)]),
                line(&["20", "69", "19"], &[("t1_ticks", 59_602_002.0, 59_604_402.0, 0), ("n1_nodes", 6_034_410.0, 6_034_410.0, 0)]),
                line(&["32", "0", "0"], &[("t1_ticks", 2.0e9, 1.855_606_486e9, 0), ("n1_nodes", 1.9e8, 178_053_342.0, 0)]),
            ],
        };
        assert_eq!(
            summary(&c),
            "Table 6.3, 6 cells: 2 exact, 4 within 1%, 4 within 5%, all 6 within 15%. Furthest: t_1 (ticks) at (32, 0, 0), ours 2,000,000,000 against 1,855,606,486 (+7.8%)."
        );
        let mut only = c;
        only.lines.truncate(2);
        // Thousands separators, and a 2,400-tick difference that is seen.
        assert_eq!(
            summary(&only),
            "Table 6.3, 4 cells: 2 exact, all 4 within 1%. Furthest: t_1 (ticks) at (20, 69, 19), ours 59,602,002 against 59,604,402 (-0.0040%)."
        );
    }

    #[test]
    fn verdicts() {
        assert_eq!(verdict(Some(22123280.0), Some(22123280.0), 0), Status::Exact);
        assert_eq!(verdict(Some(0.7055004), Some(0.7055), 6), Status::Rounded);
        assert_eq!(verdict(Some(0.7055006), Some(0.7055), 6), Status::Close);
        assert_eq!(verdict(Some(22123281.0), Some(22123280.0), 0), Status::Close);
        assert_eq!(verdict(Some(104.0), Some(100.0), 0), Status::Near);
        assert_eq!(verdict(Some(110.0), Some(100.0), 0), Status::Off);
        assert_eq!(verdict(Some(85.0), Some(100.0), 0), Status::Off);
        assert_eq!(verdict(Some(84.9), Some(100.0), 0), Status::Differs);
        assert_eq!(verdict(None, Some(1.0), 0), Status::Missing);
        let v = |o: f64, p: f64, d: usize| Value {
            column: "x".into(),
            ours: Some(o),
            published: Some(p),
            published_text: String::new(),
            decimals: d,
            status: verdict(Some(o), Some(p), d),
        };
        assert_eq!(delta_text(&v(110.0, 100.0, 0)), "+10.0%");
        assert_eq!(delta_text(&v(0.1, 0.1, 6)), "exact");
        assert_eq!(delta_text(&v(0.70550004, 0.7055, 6)), "exact (rounded)");
        // A 2,400-tick difference on 59.6 M ticks is seen, not "0.00%".
        assert_eq!(delta_text(&v(59_602_002.0, 59_604_402.0, 0)), "-0.0040%");
        assert_eq!(delta_text(&v(0.5, 1.76, 3)), "-71.6%");
    }
}
