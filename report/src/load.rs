//! Result and published CSV files as typed tables ([`Frame`]).
//!
//! Files are parsed with the `csv` crate and typed here: declared columns
//! must parse as declared, and a bad value names the file and line; other
//! columns are inferred (integer, then float, then text). Headers are
//! lower-cased, so `E_type` and `e_type` are the same column. The key columns
//! [`KEYS`] are kept as normalised text (`"32"`, `"c"`), so that keys from
//! different files, and from published file names, join whatever their
//! spelling.

use super::frame::{Frame, Values};
use anyhow::{Context, Result, anyhow, bail};
use parab::sim::run::SimConfig;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
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
}

/// One or more CSV files read into one table.
pub struct Csv {
    /// The file(s), for messages.
    pub name: String,
    /// The rows, in file order.
    pub df: Frame,
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

fn csv_err(name: &str, e: csv::Error) -> anyhow::Error {
    let line = e.position().map(|p| p.line()).unwrap_or(0);
    match e.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            anyhow!("malformed CSV: {len} fields where the header has {expected_len} ({name}:{line})")
        }
        csv::ErrorKind::Utf8 { .. } => anyhow!("malformed CSV: not UTF-8 ({name}:{line})"),
        _ => anyhow!("malformed CSV: {e} ({name}:{line})"),
    }
}

/// Reads one file. `required` columns must be present and parse as their
/// kind; every other column is inferred.
pub fn read(path: &Path, required: &[(&str, ColumnKind)]) -> Result<Csv> {
    read_many(&[path.to_path_buf()], required)
}

/// Reads several files with the same kind of content into one table;
/// the union of their columns, a cell missing from a file is null.
pub fn read_many(paths: &[PathBuf], required: &[(&str, ColumnKind)]) -> Result<Csv> {
    let mut headers: Vec<String> = vec![];
    let mut cells: Vec<Vec<String>> = vec![];
    // For each row: file and line, for messages about its cells.
    let mut origin: Vec<(usize, u64)> = vec![];
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    for (fi, path) in paths.iter().enumerate() {
        let name = &names[fi];
        let f = File::open(path).with_context(|| format!("cannot open {name}"))?;
        let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(BufReader::new(f));
        let hs: Vec<String> = rdr.headers().map_err(|e| csv_err(name, e))?.iter().map(|h| h.trim().to_lowercase()).collect();
        if hs.iter().all(|h| h.is_empty()) {
            bail!("empty file or header ({name}:1)");
        }
        for (i, h) in hs.iter().enumerate() {
            if h.is_empty() {
                bail!("malformed CSV: column {} has no name ({name}:1)", i + 1);
            }
            if hs[..i].contains(h) {
                bail!("malformed CSV: column `{h}` appears twice ({name}:1)");
            }
        }
        for (c, _) in required {
            if !hs.iter().any(|h| h == c) {
                bail!("missing column `{c}` ({name}:1)");
            }
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
        let rows_before = origin.len();
        for rec in rdr.records() {
            let rec = rec.map_err(|e| csv_err(name, e))?;
            let line = rec.position().map(|p| p.line()).unwrap_or(0);
            for col in cells.iter_mut() {
                col.push(String::new());
            }
            for (i, field) in rec.iter().enumerate() {
                *cells[idx[i]].last_mut().expect("row pushed above") = field.trim().to_string();
            }
            origin.push((fi, line));
        }
        // Every tool writes at least one row: a header alone is a cut file.
        if origin.len() == rows_before {
            bail!("no rows after the header: a cut or empty results file ({name}:2)");
        }
    }
    let mut df = Frame::new(origin.len());
    let mut decimals = BTreeMap::new();
    let mut raw = BTreeMap::new();
    for (h, col) in headers.iter().zip(&cells) {
        let declared = required.iter().find(|(c, _)| c == h).map(|(_, k)| *k);
        let at = |row: usize| {
            let (fi, line) = origin[row];
            format!("{}:{line}", names[fi])
        };
        let column = match declared {
            Some(ColumnKind::Int) => {
                let mut v = Vec::with_capacity(col.len());
                for (r, s) in col.iter().enumerate() {
                    v.push(Some(s.parse::<i64>().map_err(|_| anyhow!("column `{h}`: `{s}` is not an integer ({})", at(r)))?));
                }
                Values::Int(v)
            }
            Some(ColumnKind::Float) => {
                let mut v = Vec::with_capacity(col.len());
                for (r, s) in col.iter().enumerate() {
                    let x = s.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| anyhow!("column `{h}`: `{s}` is not a number ({})", at(r)))?;
                    v.push(Some(x));
                }
                decimals.insert(h.clone(), col.iter().map(|s| decimals_of(s)).max().unwrap_or(0));
                Values::Float(v)
            }
            Some(ColumnKind::Text) => Values::Text(col.iter().map(|s| Some(s.clone())).collect()),
            Some(ColumnKind::Key) => keys(col),
            None if KEYS.contains(&h.as_str()) => keys(col),
            None => infer(h, col, &mut decimals),
        };
        df.set(h, column);
        raw.insert(h.clone(), col.clone());
    }
    let row_file = origin.iter().map(|(fi, _)| *fi).collect();
    let row_line = origin.iter().map(|(_, line)| *line).collect();
    Ok(Csv { name: names.join(", "), df, decimals, raw, files: names, row_file, row_line })
}

/// Key cells as normalised text, an empty cell empty.
pub fn keys(col: &[String]) -> Values {
    Values::Text(col.iter().map(|s| (!s.is_empty()).then(|| norm_key(s))).collect())
}

fn infer(h: &str, col: &[String], decimals: &mut BTreeMap<String, usize>) -> Values {
    let present = || col.iter().filter(|s| !s.is_empty());
    if present().all(|s| s.parse::<i64>().is_ok()) {
        return Values::Int(col.iter().map(|s| s.parse::<i64>().ok()).collect());
    }
    if present().all(|s| s.parse::<f64>().is_ok_and(|x| x.is_finite())) {
        decimals.insert(h.to_string(), present().map(|s| decimals_of(s)).max().unwrap_or(0));
        return Values::Float(col.iter().map(|s| s.parse::<f64>().ok()).collect());
    }
    Values::Text(col.iter().map(|s| (!s.is_empty()).then(|| s.clone())).collect())
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
        // host's load beside real timings, issue 32): say how to redo it.
        let stale =
            if e.to_string().contains("missing column") { " (written by an older version of the tools: rerun the make target that writes it)" } else { "" };
        anyhow::Error::from(e).context(format!("reading {}{stale}", path.display()))
    })
}

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

/// The distinct orderings `(b, wa, wb)` of a frame, in the thesis's order.
pub fn orderings(df: &Frame) -> Vec<(String, String, String)> {
    let mut v: Vec<(String, String, String)> = (0..df.height()).filter_map(|i| Some((df.text("b", i)?, df.text("wa", i)?, df.text("wb", i)?))).collect();
    v.sort_by_key(|o| super::ordering_rank(&o.0, &o.1, &o.2));
    v.dedup();
    v
}
