//! Result and published CSV files as polars DataFrames.
//!
//! Every file is read by polars' CSV reader (polars-io's eager reader: the
//! `csv` feature of polars itself would switch on its streaming engine) and
//! typed by its kind's [`Schema`]: a results file by the tools' row type it
//! was written from (`parab::formats`), a published table by the published
//! tables' rule. Nothing is typed by guessing. A cell that is not of its
//! column's type names the file, the line and the column. Headers are
//! lower-cased, so `E_type` and `e_type` are the same column. The key columns
//! [`KEYS`] are kept as normalised text (`"32"`, `"c"`), so that keys from
//! different files, and from published file names, join whatever their
//! spelling.

use anyhow::{Context, Result, anyhow, bail};
use parab::request::sim::SimConfig;
use polars::prelude::*;
use polars_io::prelude::{CsvReadOptions, SerReader};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Columns that identify a row of a results or published table.
pub const KEYS: [&str; 7] = ["b", "wa", "wb", "scheme", "procs", "n", "param"];

/// How a declared column must parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// An integer (i64).
    Int,
    /// A number (f64).
    Float,
    /// Free text (empty allowed).
    Text,
    /// A key column: normalised text ([`norm_key`]), empty allowed (null).
    Key,
    /// A key column the tools write as an integer (`procs`, `n`): a key
    /// whose every cell is an integer or empty.
    IntKey,
}

/// One or more CSV files read into one DataFrame.
pub struct Csv {
    /// The file(s), for messages.
    pub name: String,
    /// The rows, in file order.
    pub df: DataFrame,
    /// Per numeric column, the most decimals written in any cell: the
    /// precision a published value was printed with.
    pub decimals: BTreeMap<String, usize>,
    /// The cells as written, per column (for showing published values as
    /// printed).
    pub raw: BTreeMap<String, Vec<String>>,
    /// The files read, and for every row the index of its file: so that each
    /// table can cite only the files its rows came from.
    pub files: Vec<String>,
    /// Per row, its file's index in `files`.
    pub row_file: Vec<usize>,
    /// Per row, its line in its file.
    pub row_line: Vec<u64>,
}

impl Csv {
    /// The files holding at least one row whose key columns equal the given
    /// values (compared as normalised keys), in name order.
    pub fn sources(&self, eq: &[(&str, &str)]) -> Vec<String> {
        let mut used = vec![false; self.files.len()];
        for (row, &f) in self.row_file.iter().enumerate() {
            let hit = eq.iter().all(|(c, v)| self.raw.get(*c).is_some_and(|cells| norm_key(&cells[row]) == norm_key(v)));
            if hit {
                used[f] = true;
            }
        }
        self.files.iter().zip(used).filter(|(_, u)| *u).map(|(f, _)| f.clone()).collect()
    }

    /// [`Csv::sources`] as a note: "`a.csv`, `b.csv`".
    pub fn sources_note(&self, eq: &[(&str, &str)]) -> String {
        self.sources(eq).iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
    }
}

impl Csv {
    /// Where row `i` came from, `file:line`.
    pub fn at(&self, i: usize) -> String {
        format!("{}:{}", self.files[self.row_file[i]], self.row_line[i])
    }

    /// The cell of column `c` in row `i` as written (empty when the column
    /// or the cell is missing).
    pub fn cell(&self, c: &str, i: usize) -> &str {
        self.raw.get(c).and_then(|v| v.get(i)).map_or("", |s| s.as_str())
    }

    /// Refuses two rows that agree on every column of `key` (compared as
    /// normalised keys): the same tree twice, say, which every sum would
    /// count twice (a copy of a results file beside the original). `what`
    /// names the rows in the message.
    pub fn refuse_repeats(&self, key: &[&str], what: &str) -> Result<()> {
        let mut seen: std::collections::HashMap<Vec<String>, usize> = std::collections::HashMap::new();
        for i in 0..self.row_file.len() {
            let k: Vec<String> = key.iter().map(|c| norm_key(self.cell(c, i))).collect();
            if let Some(&first) = seen.get(&k) {
                let shown: Vec<String> = key.iter().zip(&k).map(|(c, v)| format!("{c} {v}")).collect();
                bail!(
                    "{what} ({}) is given twice, at {} and {}: remove the copy (every total would count it twice)",
                    shown.join(", "),
                    self.at(first),
                    self.at(i)
                );
            }
            seen.insert(k, i);
        }
        Ok(())
    }
}

/// The columns of a `pabsim` row that say which run it belongs to: rows
/// that agree on all of these are one configuration (the machine's lock,
/// policy and interleaving included, so that a run on another machine never
/// merges with or replaces the thesis machine's).
pub const SIM_CONFIG: [&str; 4 + SimConfig::COLUMNS.len()] = {
    // The tree group's columns, then the runner's configuration columns
    // (one list in the library, so a new parameter cannot be forgotten here).
    let mut all = [""; 4 + SimConfig::COLUMNS.len()];
    (all[0], all[1], all[2], all[3]) = ("b", "wa", "wb", "depth");
    let mut i = 0;
    while i < SimConfig::COLUMNS.len() {
        all[4 + i] = SimConfig::COLUMNS[i];
        i += 1;
    }
    all
};

/// What the thesis's machine writes in the machine columns of a `pabsim`
/// row: `(column, values allowed)`. A missing column (results from before
/// it existed) counts as the thesis's.
const THESIS_MACHINE: [(&str, &[&str]); 5] =
    [("policy", &["dts", "-"]), ("lock", &["tas"]), ("interleave", &["access"]), ("split_walk", &["tree"]), ("pv_wait", &["1"])];

/// Refuses a chapter-6 row from another machine than the thesis's (`--lock
/// queue`, `--algorithm steal`, `--interleave state`, `--split-walk level`,
/// or the control's `--pv-wait 0`):
/// chapter 6 sets the thesis's machine beside the thesis, and such a row
/// would compete with its cells. Other machines' runs belong elsewhere
/// (`results/beyond`, `results/compare`).
pub fn thesis_machine_only(runs: &Csv) -> Result<()> {
    for (c, allowed) in THESIS_MACHINE {
        if !runs.raw.contains_key(c) {
            continue;
        }
        for i in 0..runs.row_file.len() {
            let v = runs.cell(c, i);
            if !v.is_empty() && !allowed.contains(&v.to_lowercase().as_str()) {
                bail!(
                    "{c} `{v}` is not the thesis's machine ({}) at {}: chapter 6 compares the thesis's machine only; keep other machines' runs out of pabsim/",
                    allowed[0],
                    runs.at(i)
                );
            }
        }
    }
    Ok(())
}

/// Normalises a key cell: integers without leading zeros or `.0`, text
/// lower-cased and trimmed.
pub fn norm_key(s: &str) -> String {
    let t = s.trim();
    if let Ok(i) = t.parse::<i64>() {
        return i.to_string();
    }
    if let Ok(f) = t.parse::<f64>()
        && f.fract() == 0.0
        && f.abs() < 1e15
    {
        return (f as i64).to_string();
    }
    t.to_lowercase()
}

fn decimals_of(s: &str) -> usize {
    match s.split_once('.') {
        Some((_, frac)) => frac.chars().take_while(|c| c.is_ascii_digit()).count(),
        None => 0,
    }
}

/// A file kind's columns and what each holds: the schema its files are read
/// with. Results files take theirs from the tools' row types
/// ([`Schema::of`]); published tables from [`Schema::published`].
#[derive(Clone, Debug)]
pub struct Schema {
    /// The columns named, lower-cased.
    columns: Vec<(String, ColumnKind)>,
    /// What a column not named holds.
    others: ColumnKind,
}

impl Schema {
    /// The columns of the tools' row type `T` (`parab::formats`), as the
    /// tools write them: integers, numbers, text, and the key columns
    /// [`KEYS`] as keys. A column the type lacks (results of an older or a
    /// newer tool) is kept as text, never typed by guessing.
    pub fn of<T: serde::de::DeserializeOwned>() -> Schema {
        use parab::formats::ColumnType;
        let columns = parab::formats::struct_columns::<T>()
            .into_iter()
            .map(|(c, t)| {
                let c = c.to_lowercase();
                let kind = match t {
                    ColumnType::Int if KEYS.contains(&c.as_str()) => ColumnKind::IntKey,
                    _ if KEYS.contains(&c.as_str()) => ColumnKind::Key,
                    ColumnType::Int => ColumnKind::Int,
                    ColumnType::Float => ColumnKind::Float,
                    ColumnType::Text | ColumnType::Bool => ColumnKind::Text,
                };
                (c, kind)
            })
            .collect();
        Schema { columns, others: ColumnKind::Text }
    }

    /// A published table: the key columns [`KEYS`] (under their own names or
    /// their published aliases) as keys, the columns named in `text` as text,
    /// every other column a number.
    pub fn published(aliases: &[(&str, &str)], text: &[&str]) -> Schema {
        let keys = KEYS.iter().copied().chain(aliases.iter().filter(|(_, ours)| KEYS.contains(ours)).map(|(theirs, _)| *theirs));
        let columns = keys.map(|k| (k.to_string(), ColumnKind::Key)).chain(text.iter().map(|c| (c.to_string(), ColumnKind::Text))).collect();
        Schema { columns, others: ColumnKind::Float }
    }

    /// The schema with column `c` read as `kind`: where the report reads a
    /// column otherwise than its row type writes it (the chess program's
    /// average branching factor, written as text, is a number here).
    pub fn with(mut self, c: &str, kind: ColumnKind) -> Schema {
        self.columns.retain(|(x, _)| x != c);
        self.columns.push((c.to_string(), kind));
        self
    }

    /// What column `c` holds.
    pub fn kind(&self, c: &str) -> ColumnKind {
        self.columns.iter().find(|(x, _)| x == c).map_or(self.others, |(_, k)| *k)
    }

    /// The polars type of a column of that kind.
    fn dtype(kind: ColumnKind) -> DataType {
        match kind {
            ColumnKind::Int => DataType::Int64,
            ColumnKind::Float => DataType::Float64,
            ColumnKind::Text | ColumnKind::Key | ColumnKind::IntKey => DataType::String,
        }
    }
}

/// The records of a CSV text as the CSV format counts them: each record's
/// first line (1-based) and its bytes, quotes respected and blank lines
/// skipped. A record with another count of fields than the header, or not
/// UTF-8, is refused with its line, in the records' order (the reader itself
/// would fill a short record with empty cells, and read a blank line as one).
fn records<'a>(name: &str, bytes: &'a [u8]) -> Result<Vec<(u64, &'a [u8])>> {
    let (mut out, mut line, mut start, mut at, mut fields, mut quoted, mut empty) = (vec![], 1u64, 1u64, 0usize, 1usize, false, true);
    let mut header_fields = None;
    let mut end = |first: u64, range: &'a [u8], fields: usize, out: &mut Vec<(u64, &'a [u8])>| -> Result<()> {
        let n = *header_fields.get_or_insert(fields);
        if fields != n {
            bail!("malformed CSV: {fields} fields where the header has {n} ({name}:{first})");
        }
        if std::str::from_utf8(range).is_err() {
            bail!("malformed CSV: not UTF-8 ({name}:{first})");
        }
        out.push((first, range));
        Ok(())
    };
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => (quoted, empty) = (!quoted, false),
            b',' if !quoted => (fields, empty) = (fields + 1, false),
            b'\n' => {
                line += 1;
                if !quoted {
                    if !empty {
                        end(start, &bytes[at..i], fields, &mut out)?;
                    }
                    (start, at, fields, empty) = (line, i + 1, 1, true);
                }
            }
            b'\r' => {}
            _ => empty = false,
        }
    }
    if !empty {
        end(start, &bytes[at..], fields, &mut out)?;
    }
    Ok(out)
}

/// One file's cells as written (trimmed), header first, read by polars' CSV
/// reader as text; and each record's line.
fn read_cells(path: &Path, name: &str) -> Result<(Vec<Vec<String>>, Vec<u64>)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot open {name}"))?;
    let records = records(name, &bytes)?;
    if records.is_empty() {
        bail!("empty file or header ({name}:1)");
    }
    // The records alone, one a line: polars reads a blank line as a record.
    let text: Vec<u8> = records.iter().flat_map(|(_, r)| r.iter().copied().chain([b'\n'])).collect();
    let df = CsvReadOptions::default()
        .with_has_header(false)
        .with_infer_schema_length(Some(0))
        .with_raise_if_empty(false)
        .into_reader_with_file_handle(std::io::Cursor::new(text))
        .finish()
        .map_err(|e| anyhow!("malformed CSV: {e} ({name})"))?;
    anyhow::ensure!(df.height() == records.len(), "malformed CSV: {} records read where the file has {} ({name})", df.height(), records.len());
    let mut rows = vec![Vec::with_capacity(df.width()); df.height()];
    for c in df.columns() {
        for (row, v) in rows.iter_mut().zip(c.str().map_err(|e| anyhow!("{e}"))?.iter()) {
            row.push(v.unwrap_or("").trim().to_string());
        }
    }
    Ok((rows, records.into_iter().map(|(line, _)| line).collect()))
}

/// Reads one file of the kind `schema`: see [`read_many`].
pub fn read(path: &Path, schema: &Schema, required: &[&str]) -> Result<Csv> {
    read_many(&[path.to_path_buf()], schema, required)
}

/// Reads several files of the kind `schema` into one DataFrame: the union of
/// their columns, a cell missing from a file empty (null). Every file is
/// read by polars' CSV reader; headers are lower-cased; the `required`
/// columns must be in every file; each column is typed by the schema, and a
/// cell that is not of its column's type is refused with its file and line.
pub fn read_many(paths: &[PathBuf], schema: &Schema, required: &[&str]) -> Result<Csv> {
    let mut headers: Vec<String> = vec![];
    let mut cells: Vec<Vec<String>> = vec![];
    // For each row: file and line, for messages about its cells.
    let mut origin: Vec<(usize, u64)> = vec![];
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    for (fi, path) in paths.iter().enumerate() {
        let name = &names[fi];
        let (rows, lines) = read_cells(path, name)?;
        let hs: Vec<String> = rows[0].iter().map(|h| h.to_lowercase()).collect();
        if hs.iter().all(|h| h.is_empty()) {
            bail!("empty file or header ({name}:1)");
        }
        for (i, h) in hs.iter().enumerate() {
            if h.is_empty() {
                bail!("malformed CSV: column {} has no name ({name}:1)", i + 1);
            }
            if hs[..i].contains(h) {
                bail!("malformed CSV: column `{}` appears twice ({name}:1)", parab::cli::excerpt(h));
            }
        }
        if let Some(c) = required.iter().find(|c| !hs.iter().any(|h| h == *c)) {
            bail!("missing column `{c}` ({name}:1)");
        }
        // Every tool writes at least one row: a header alone is a cut file.
        if rows.len() == 1 {
            bail!("no rows after the header: a cut or empty results file ({name}:2)");
        }
        let idx: Vec<usize> = hs
            .iter()
            .map(|h| match headers.iter().position(|x| x == h) {
                Some(i) => i,
                None => {
                    headers.push(h.clone());
                    cells.push(vec![String::new(); origin.len()]);
                    headers.len() - 1
                }
            })
            .collect();
        for (row, line) in rows.into_iter().zip(lines).skip(1) {
            for col in cells.iter_mut() {
                col.push(String::new());
            }
            for (i, field) in row.into_iter().enumerate() {
                *cells[idx[i]].last_mut().expect("row pushed above") = field;
            }
            origin.push((fi, line));
        }
    }
    let at = |row: usize| {
        let (fi, line) = origin[row];
        format!("{}:{line}", names[fi])
    };
    let mut columns = vec![];
    let mut decimals = BTreeMap::new();
    let mut raw = BTreeMap::new();
    for (h, col) in headers.iter().zip(&cells) {
        let kind = schema.kind(h);
        let column = match kind {
            ColumnKind::Key | ColumnKind::IntKey => {
                if kind == ColumnKind::IntKey
                    && let Some(r) = (0..col.len()).find(|&r| !col[r].is_empty() && col[r].parse::<i64>().is_err())
                {
                    bail!("column `{}`: `{}` is not an integer ({})", parab::cli::excerpt(h), parab::cli::excerpt(&col[r]), at(r));
                }
                Column::new(h.into(), col.iter().map(|s| (!s.is_empty()).then(|| norm_key(s))).collect::<Vec<_>>())
            }
            ColumnKind::Text => Column::new(h.into(), col.iter().map(|s| (!s.is_empty()).then_some(s.as_str())).collect::<Vec<_>>()),
            ColumnKind::Int | ColumnKind::Float => {
                let text = Column::new(h.into(), col.iter().map(|s| (!s.is_empty()).then_some(s.as_str())).collect::<Vec<_>>());
                let typed = pl(text.cast(&Schema::dtype(kind)), "typing a column")?;
                let what = if kind == ColumnKind::Int { "an integer" } else { "a number" };
                let bad = |r: usize| -> bool {
                    match kind {
                        ColumnKind::Int => typed.i64().is_ok_and(|v| v.get(r).is_none()),
                        _ => typed.f64().is_ok_and(|v| !v.get(r).is_some_and(f64::is_finite)),
                    }
                };
                if let Some(r) = (0..col.len()).find(|&r| bad(r) && (required.contains(&h.as_str()) || !col[r].is_empty())) {
                    bail!("column `{}`: `{}` is not {what} ({})", parab::cli::excerpt(h), parab::cli::excerpt(&col[r]), at(r));
                }
                if kind == ColumnKind::Float {
                    decimals.insert(h.clone(), col.iter().map(|s| decimals_of(s)).max().unwrap_or(0));
                }
                typed
            }
        };
        columns.push(column);
        raw.insert(h.clone(), col.clone());
    }
    let df = DataFrame::new(origin.len(), columns).map_err(|e| anyhow!("{e}"))?;
    let row_file = origin.iter().map(|(fi, _)| *fi).collect();
    let row_line = origin.iter().map(|(_, line)| *line).collect();
    Ok(Csv { name: names.join(", "), df, decimals, raw, files: names, row_file, row_line })
}

/// The CSV files of a directory whose names pass `keep`, sorted by name.
/// A table of one of the tools' row types (their own reader: unknown or
/// missing columns are errors, with the line); `optional`: an empty table
/// where the file does not exist.
pub fn rows<T: serde::de::DeserializeOwned>(path: &Path, optional: bool) -> Result<Vec<T>> {
    if optional && !path.exists() {
        return Ok(vec![]);
    }
    parab::formats::read_csv(parab::cli::Input::open(Some(path))?).map_err(|e| {
        // A column the tools have gained since the file was written (the
        // host's load beside real timings): say how to redo it.
        let stale =
            if e.to_string().contains("missing column") { " (written by an older version of the tools: rerun the make target that writes it)" } else { "" };
        anyhow::Error::from(e).context(format!("reading {}{stale}", path.display()))
    })
}

/// The CSV files of a directory whose names pass `keep`, sorted by name.
pub fn files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return vec![] };
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.file_name().and_then(|n| n.to_str()).is_some_and(|n| !n.starts_with('.') && keep(n)))
        .collect();
    v.sort();
    v
}

/// A column's value in row `i` as a number (integers widened).
pub fn num(df: &DataFrame, col: &str, i: usize) -> Option<f64> {
    let c = df.column(col).ok()?;
    match c.dtype() {
        DataType::Int64 => c.i64().ok()?.get(i).map(|v| v as f64),
        DataType::Float64 => c.f64().ok()?.get(i),
        _ => c.cast(&DataType::Float64).ok()?.f64().ok()?.get(i),
    }
}

/// A column's value in row `i` as an integer (only for integer columns).
pub fn int(df: &DataFrame, col: &str, i: usize) -> Option<i64> {
    let c = df.column(col).ok()?;
    match c.dtype() {
        DataType::Int64 => c.i64().ok()?.get(i),
        DataType::Float64 => c.f64().ok()?.get(i).filter(|v| v.fract() == 0.0).map(|v| v as i64),
        DataType::String => None,
        _ => c.cast(&DataType::Int64).ok()?.i64().ok()?.get(i),
    }
}

/// A column's value in row `i` as text (numbers printed plainly).
pub fn text(df: &DataFrame, col: &str, i: usize) -> Option<String> {
    let c = df.column(col).ok()?;
    match c.dtype() {
        DataType::String => c.str().ok()?.get(i).map(str::to_string),
        DataType::Int64 => c.i64().ok()?.get(i).map(|v| v.to_string()),
        DataType::Float64 => c.f64().ok()?.get(i).map(|v| v.to_string()),
        _ => c.cast(&DataType::Int64).ok()?.i64().ok()?.get(i).map(|v| v.to_string()),
    }
}

/// Whether the frame has a column.
pub fn has(df: &DataFrame, col: &str) -> bool {
    df.column(col).is_ok()
}

/// Maps polars errors into anyhow with context.
pub fn pl<T>(r: PolarsResult<T>, what: &str) -> Result<T> {
    r.map_err(|e| anyhow!("{what}: {e}"))
}

/// The rows whose key columns equal the given values.
pub fn filter_eq(df: &DataFrame, eq: &[(&str, &str)]) -> Result<DataFrame> {
    let mut pred = lit(true);
    for (c, v) in eq {
        pred = pred.and(col(*c).eq(lit(v.to_string())));
    }
    pl(df.clone().lazy().filter(pred).collect(), "filtering rows")
}

/// The distinct orderings `(b, wa, wb)` of a frame, in the thesis's order.
pub fn orderings(df: &DataFrame) -> Vec<(String, String, String)> {
    let mut v: Vec<(String, String, String)> = (0..df.height()).filter_map(|i| Some((text(df, "b", i)?, text(df, "wa", i)?, text(df, "wb", i)?))).collect();
    v.sort_by_key(|o| super::ordering_rank(&o.0, &o.1, &o.2));
    v.dedup();
    v
}

/// Join arguments that keep the left frame's row order, so results do not
/// depend on polars' thread scheduling.
pub fn join_args(how: JoinType) -> JoinArgs {
    let mut a = JoinArgs::new(how);
    a.maintain_order = polars_ops::frame::MaintainOrderJoin::Left;
    a
}
