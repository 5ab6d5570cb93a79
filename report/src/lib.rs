//! `report`: every table and figure of the thesis's experiment matrix (the
//! `docs/model.md` §6), ours beside the published numbers, as one
//! self-contained HTML page, Markdown tables and SVG/PNG figures.
//!
//! The report reads whatever results exist under the results directory and
//! every published table; a missing input becomes a section that names the
//! command producing it. The CSV tables are polars frames, read by polars'
//! reader with each file kind's schema ([`load`]); [`published`] joins the
//! published tables to ours generically by their keys, and the chapter
//! modules sum per-tree rows per configuration by the library's one rule
//! ([`summary`]). Everything written
//! is a pure function of the inputs and the report date, so two runs give
//! byte-identical files.

pub mod beyond;
pub mod chapter4;
pub mod chapter5;
pub mod chapter6;
pub mod distributed;
pub mod doc;
pub mod figures;
pub mod games;
pub mod keyed;
pub mod legend;
pub mod load;
pub mod othellox;
pub mod published;
pub mod real;
pub mod summary;
pub mod timeline;
pub mod ura2014;

use anyhow::{Context, Result, bail};
use doc::{Cell, Figure, Meta, Section, Status, Table};
use published::{Comparison, Measures};
use std::path::{Path, PathBuf};

/// What to read and where to write.
#[derive(Clone, Debug)]
pub struct ReportSpec {
    /// Results directory (`results/`).
    pub results: PathBuf,
    /// Published tables (`data/published/`).
    pub published: PathBuf,
    /// Where the page and Markdown tables go (`results/report/`).
    pub out: PathBuf,
    /// Where the figures go (`results/figures/`).
    pub figures: PathBuf,
    /// The report date, `YYYY-MM-DD`.
    pub date: String,
}

/// What a run wrote.
#[derive(Debug, Default)]
pub struct Summary {
    /// Sections on the page.
    pub sections: usize,
    /// Tables (each also a Markdown file).
    pub tables: usize,
    /// Figures (each an SVG and a PNG).
    pub figures: usize,
    /// Sections with missing inputs.
    pub incomplete: usize,
}

/// The thesis's five orderings, in its order.
pub const THESIS_ORDERINGS: [(u32, u32, u32); 5] = [(32, 79, 5), (20, 69, 19), (32, 66, 66), (32, 33, 33), (32, 0, 0)];

/// An ordering as written in the thesis: `(32, 79, 5)`.
pub fn ordering_label(b: &str, wa: &str, wb: &str) -> String {
    format!("({b}, {wa}, {wb})")
}

/// Sort key for orderings: the thesis's order first, then any other.
pub fn ordering_rank(b: &str, wa: &str, wb: &str) -> (usize, String) {
    let t = (b.parse().unwrap_or(u32::MAX), wa.parse().unwrap_or(u32::MAX), wb.parse().unwrap_or(u32::MAX));
    match THESIS_ORDERINGS.iter().position(|o| *o == t) {
        Some(i) => (i, String::new()),
        None => (THESIS_ORDERINGS.len(), format!("{:>6}{:>6}{:>6}", b, wa, wb)),
    }
}

/// A date `YYYY-MM-DD` from days since 1970-01-01 (proleptic Gregorian).
pub fn civil_date(days: i64) -> String {
    // Howard Hinnant's days_from_civil inverse.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days in a month of the proleptic Gregorian calendar.
fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// The largest `SOURCE_DATE_EPOCH` we take: 9999-12-31T23:59:59Z (a date
/// must have four digits).
const MAX_EPOCH: i64 = 253_402_300_799;

/// The report date: `--date` if given (checked), else `SOURCE_DATE_EPOCH`,
/// else today (UTC).
pub fn report_date(arg: Option<&str>, source_date_epoch: Option<&str>) -> Result<String> {
    if let Some(d) = arg {
        let ok =
            d.len() == 10 && d.as_bytes()[4] == b'-' && d.as_bytes()[7] == b'-' && d.chars().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        if !ok {
            bail!("--date must be YYYY-MM-DD, not `{d}`");
        }
        let (y, m, day): (i64, i64, i64) = (d[..4].parse()?, d[5..7].parse()?, d[8..].parse()?);
        if !(1..=12).contains(&m) || !(1..=days_in_month(y, m)).contains(&day) {
            bail!("--date {d} is not a calendar date (YYYY-MM-DD)");
        }
        return Ok(d.to_string());
    }
    if let Some(e) = source_date_epoch {
        let secs: i64 = e.trim().parse().with_context(|| format!("SOURCE_DATE_EPOCH must be seconds since 1970, not `{e}`"))?;
        if !(0..=MAX_EPOCH).contains(&secs) {
            bail!("SOURCE_DATE_EPOCH {secs} is outside 0..{MAX_EPOCH} (1970-01-01 to 9999-12-31)");
        }
        return Ok(civil_date(secs.div_euclid(86_400)));
    }
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    Ok(civil_date(secs / 86_400))
}

/// A figure: drawn now as SVG; the PNG is drawn when the report is written.
pub struct PendingFigure {
    /// The figure for the page.
    pub figure: Figure,
    /// Its plot, for the PNG.
    pub plot: figures::Plot,
}

/// Draws a figure.
pub fn figure(id: &str, caption: &str, plot: figures::Plot) -> Result<PendingFigure> {
    let svg = figures::svg(&plot).with_context(|| format!("drawing {id}"))?;
    Ok(PendingFigure { figure: Figure { id: id.to_string(), caption: caption.to_string(), svg }, plot })
}

/// Collects sections and the figures' plots while the chapters build them.
#[derive(Default)]
pub struct Builder {
    /// Sections in page order.
    pub sections: Vec<Section>,
    /// Every figure's plot, by id.
    pub plots: Vec<(String, figures::Plot)>,
}

impl Builder {
    /// Adds a figure to a section.
    pub fn add_figure(&mut self, s: &mut Section, f: PendingFigure) {
        self.plots.push((f.figure.id.clone(), f.plot));
        s.figures.push(f.figure);
    }
}

/// The published comparisons, marked as shown once a section takes them.
pub struct Published {
    /// All comparisons, by file name.
    pub all: Vec<Comparison>,
    shown: Vec<bool>,
}

impl Published {
    /// Takes the comparisons whose thesis table number is in `numbers`.
    pub fn take(&mut self, numbers: &[&str]) -> Vec<&Comparison> {
        let mut out = vec![];
        for (i, c) in self.all.iter().enumerate() {
            if !self.shown[i] && numbers.contains(&c.number.as_str()) {
                self.shown[i] = true;
                out.push(c);
            }
        }
        out
    }

    fn rest(&mut self) -> Vec<&Comparison> {
        let mut out = vec![];
        for (i, c) in self.all.iter().enumerate() {
            if !self.shown[i] {
                self.shown[i] = true;
                out.push(c);
            }
        }
        out
    }
}

/// Adds a published comparison to a section: its table, and its agreement
/// summary as a finding.
pub fn add_comparison(s: &mut Section, c: &Comparison) -> Result<()> {
    s.tables.push(comparison_table(c)?);
    s.findings.push(published::summary(c));
    Ok(())
}

/// A published table beside ours: one row per published row, the keys that
/// vary between rows (the others go into the caption), the thesis's settings
/// where it states them, and for every published value ours, the thesis's
/// and the relative difference, coloured by how close they are.
pub fn comparison_table(c: &Comparison) -> Result<Table> {
    let varying = published::varying_keys(c);
    let ordering = ["b", "wa", "wb"];
    let ord_varies = varying.iter().any(|k| ordering.contains(&k.as_str()));
    let mut header = vec![];
    if ord_varies {
        header.push("ordering".to_string());
    }
    let others: Vec<&String> = varying.iter().filter(|k| !ordering.contains(&k.as_str())).collect();
    header.extend(others.iter().map(|k| published::label(k)));
    if !c.settings.is_empty() {
        header.push("parameters".into());
    }
    let mut groups = vec![(String::new(), header.len())];
    for col in &c.columns {
        header.extend(["ours", "thesis", "Δ"].map(String::from));
        groups.push((published::label(col), 3));
    }
    let rows = c
        .lines
        .iter()
        .map(|l| {
            let mut row = vec![];
            if ord_varies {
                row.push(Cell::Text(ordering_label(c.key(l, "b").unwrap_or("?"), c.key(l, "wa").unwrap_or("?"), c.key(l, "wb").unwrap_or("?"))));
            }
            for k in &others {
                let v = c.key(l, k).unwrap_or_default();
                row.push(Cell::Text(if k.as_str() == "scheme" { v.to_uppercase() } else { v.to_string() }));
            }
            if !c.settings.is_empty() {
                row.push(settings_cell(l));
            }
            for v in &l.values {
                // When ours only rounds to the published value, show the
                // digits the rounding hides.
                let od = if v.status == Status::Rounded { v.decimals + 2 } else { v.decimals };
                row.push(Cell::number(v.ours, od));
                row.push(if v.published.is_some() { Cell::number(v.published, v.decimals) } else { Cell::Text(v.published_text.clone()) });
                row.push(Cell::Verdict(v.status, published::delta_text(v)));
            }
            row
        })
        .collect();
    // The keys every row shares, for the caption.
    let mut shared = vec![];
    if !ord_varies
        && let Some(l) = c.lines.first()
        && let (Some(b), Some(wa), Some(wb)) = (c.key(l, "b"), c.key(l, "wa"), c.key(l, "wb"))
    {
        shared.push(format!("ordering {}", ordering_label(b, wa, wb)));
    }
    for k in c.keys.iter().filter(|k| !ordering.contains(&k.as_str()) && !varying.contains(k)) {
        let v = c.lines.first().and_then(|l| c.key(l, k)).unwrap_or_default();
        shared.push(match k.as_str() {
            "scheme" => format!("scheme {}", v.to_uppercase()),
            "procs" => format!("p = {v}"),
            other => format!("{other} = {v}"),
        });
    }
    let mut note = format!("Thesis: `data/published/{}.csv`", c.stem);
    if !c.name_keys.is_empty() {
        note.push_str(&format!(" (keys {} from its name)", c.name_keys.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")));
    }
    note.push('.');
    if c.sources.is_empty() {
        note.push_str(" None of its columns is among our results yet.");
    } else {
        // One entry per source, naming the columns it gave.
        let by_source = keyed::groups(vec![keyed::key("source", &c.sources, |(_, src)| src.as_str())])?;
        let parts: Vec<String> = by_source
            .iter()
            .map(|g| format!("{} from {}", g.iter().map(|&i| published::label(&c.sources[i].0)).collect::<Vec<_>>().join(", "), c.sources[g[0]].1))
            .collect();
        note.push_str(&format!(" Ours: {}.", parts.join("; ")));
    }
    if !c.settings.is_empty() {
        note.push_str(" Parameters: the thesis's choice for the row (ours are checked against them and marked where they differ).");
    }
    note.push_str(" Δ = (ours − thesis) / thesis; exact (rounded): ours rounds to the printed value.");
    Ok(Table {
        id: c.id.clone(),
        caption: format!("{} — ours beside the thesis's{}", c.name(), if shared.is_empty() { String::new() } else { format!(", {}", shared.join(", ")) }),
        header,
        groups,
        rows,
        note,
    })
}

/// The thesis's parameters of a row; marked when ours differ.
fn settings_cell(l: &published::Line) -> Cell {
    let join = |v: Vec<&str>| {
        let v: Vec<&str> = v.into_iter().filter(|x| !x.is_empty()).collect();
        if v.len() > 1 { format!("({})", v.join(", ")) } else { v.concat() }
    };
    let theirs = join(l.settings.iter().map(|(p, _)| p.as_str()).collect());
    // Without a run of ours there is nothing to check.
    if l.settings.iter().all(|(_, o)| o.is_none()) || l.settings.iter().all(|(p, o)| published::same_setting(p, o.as_deref())) {
        Cell::Text(theirs)
    } else {
        let ours = join(l.settings.iter().map(|(_, o)| o.as_deref().unwrap_or("")).collect());
        Cell::Verdict(Status::Differs, format!("{theirs}; ours {}", if ours.is_empty() { "none" } else { ours.as_str() }))
    }
}

/// The page's first table: every published table's agreement, by band.
pub fn glance(all: &[Comparison]) -> Option<Table> {
    if all.is_empty() {
        return None;
    }
    let bands = [Status::Exact, Status::Close, Status::Near, Status::Off, Status::Differs, Status::Missing];
    let mut rows = vec![];
    for c in all {
        let n = c.values().count();
        let mut row = vec![Cell::Link(c.name(), c.id.clone()), Cell::Int(n as i64)];
        for b in bands {
            let k = c.values().filter(|(_, v)| v.status == b || (b == Status::Exact && v.status == Status::Rounded)).count();
            row.push(if k == 0 { Cell::Text(String::new()) } else { Cell::Verdict(b, doc::group(k as i64)) });
        }
        rows.push(row);
    }
    Some(Table {
        id: "at-a-glance".into(),
        caption: "At a glance: how many of the thesis's published cells we reproduce, table by table".into(),
        header: ["table", "cells", "exact", "within 1%", "1–5%", "5–15%", "further apart", "no result of ours"].map(String::from).to_vec(),
        groups: vec![],
        rows,
        note: "Exact includes values equal to the decimals the thesis printed. The colours are those of the Δ column in every comparison below.".into(),
    })
}

/// Runs the report: reads, builds every section, writes the page, the
/// Markdown tables and the figures.
pub fn run(cfg: &ReportSpec) -> Result<Summary> {
    let ch4 = chapter4::load(&cfg.results)?;
    let ch5 = chapter5::load(&cfg.results)?;
    let ch6 = chapter6::load(&cfg.results)?;
    let beyond = beyond::load(&cfg.results)?;
    let real = real::load(&cfg.results)?;
    let traces = timeline::load(&cfg.results)?;
    let distributed = distributed::load(&cfg.results)?;
    let othellox = othellox::load(&cfg.results)?;
    let table3 = othellox::load_table3(&cfg.results, &cfg.published)?;
    let games = games::load(&cfg.results)?;
    let ura = ura2014::load(&cfg.results, &cfg.published)?;
    let mut pool: Vec<Measures> = vec![];
    pool.extend(chapter4::measures(&ch4)?);
    pool.extend(chapter5::measures(&ch5)?);
    pool.extend(chapter6::measures(&ch6)?);

    let mut comparisons = vec![];
    for path in load::files(&cfg.published, |n| n.ends_with(".csv")) {
        comparisons.extend(published::compare(&path, &pool)?);
    }
    // The glance table in the thesis's order (files sort "table-" before
    // "tables-", the number decides).
    comparisons.sort_by_key(|c| number_key(&c.number));
    let n_pub = comparisons.len();
    let mut published = Published { shown: vec![false; n_pub], all: comparisons };

    let mut b = Builder::default();
    chapter4::sections(&ch4, &games, &mut published, &mut b)?;
    chapter5::sections(&ch5, &mut published, &mut b)?;
    chapter6::sections(&ch6, &ch4, &mut published, &mut b)?;
    beyond::sections(beyond.as_ref(), &mut b)?;
    real::sections(real.as_ref(), &mut b)?;
    timeline::sections(&traces, &mut b)?;
    distributed::sections(distributed.as_ref(), &mut b)?;
    othellox::sections(othellox.as_deref(), &table3, &mut b)?;
    ura2014::sections(&ura, &mut b)?;
    games::sections(&games, chapter4::artificial_pbest(&ch4)?, &mut b)?;
    let rest = published.rest();
    if !rest.is_empty() {
        let mut s = Section {
            id: "other-published".into(),
            chapter: 8,
            title: "Tables no section above shows".into(),
            what: "Published tables that no section above claims, joined to our results by their key columns.".into(),
            ..Default::default()
        };
        for c in rest {
            add_comparison(&mut s, c)?;
        }
        b.sections.push(s);
    }

    let meta = Meta {
        version: format!("parab report {}", env!("CARGO_PKG_VERSION")),
        date: cfg.date.clone(),
        results: cfg.results.display().to_string(),
        published: cfg.published.display().to_string(),
    };
    let intro = vec![
        "This page sets the results of this toolkit beside the tables of V. Manohararajah, *Parallel Alpha-Beta Search on Shared Memory Multiprocessors* (M.A.Sc. thesis, University of Toronto, 2001). Each section is one item of the thesis's experiment matrix: what was measured, our numbers, the published ones where we hold them, and how far apart they are.".replace('*', ""),
        "Tree generation, f_best, scheme A and B counts and node counts should agree exactly; the network's errors and scheme C depend on random initial weights, and the simulated times on machine details the thesis leaves open, so for those the same magnitudes and the same conclusions are the goal. Every published cell is shown beside ours with the relative difference Δ = (ours − thesis) / thesis, coloured by band: exact (or exact to the decimals the thesis printed), within 1%, within 5%, within 15%, further apart. Each comparison ends in a one-line summary; the table below counts them all. Every number of ours is read from the CSV files under the results directory.".into(),
    ];
    let glance: Vec<Table> = glance(&published.all).into_iter().collect();
    let page = doc::html(&meta, &intro, &glance, &b.sections);

    // Directories made here are removed again if the run fails.
    let mut made = parab::cli::CreatedDirs::default();
    made.create(&cfg.out, "--out")?;
    made.create(&cfg.figures, "--figures")?;
    // Every file is written to a temporary file first; all are renamed in one
    // commit at the end, so the page and its figures replace the old ones as
    // one unit (an interrupted run changes nothing).
    let mut outs = vec![];
    let mut summary = Summary { sections: b.sections.len(), ..Default::default() };
    for (id, plot) in &b.plots {
        let f = b.sections.iter().flat_map(|s| &s.figures).find(|f| &f.id == id).map(|f| f.svg.clone()).unwrap_or_default();
        outs.push(staged(&cfg.figures.join(format!("{id}.svg")), f.as_bytes())?);
        let png_path = cfg.figures.join(format!("{id}.png"));
        let png = parab::cli::Output::create(Some(&png_path))?;
        figures::png(plot, png.temp_path().unwrap_or(&png_path)).with_context(|| format!("drawing {id}.png"))?;
        outs.push(png);
        summary.figures += 1;
    }
    for t in glance.iter().chain(b.sections.iter().flat_map(|s| &s.tables)) {
        outs.push(staged(&cfg.out.join(format!("{}.md", t.id)), doc::markdown(t).as_bytes())?);
        summary.tables += 1;
    }
    for s in &b.sections {
        if !s.missing.is_empty() {
            summary.incomplete += 1;
        }
    }
    outs.push(staged(&cfg.out.join("index.html"), page.as_bytes())?);
    parab::cli::finish_all(outs)?;
    made.keep();
    Ok(summary)
}

/// A file written to its temporary file (the tools' own
/// [`parab::cli::Output`]), to be committed with the others.
fn staged(path: &Path, bytes: &[u8]) -> Result<parab::cli::Output> {
    use std::io::Write;
    let mut out = parab::cli::Output::create(Some(path))?;
    out.write_all(bytes)?;
    Ok(out)
}

/// Writes one file through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(staged(path, bytes)?.finish()?)
}

/// A thesis table number as a sort key: `4.10` after `4.9`; tables
/// without a number last.
fn number_key(n: &str) -> (u32, u32, String) {
    let mut it = n.split('.').map(|x| x.parse::<u32>().unwrap_or(u32::MAX));
    match (it.next(), it.next()) {
        (Some(a), Some(b)) if !n.is_empty() => (a, b, String::new()),
        _ => (u32::MAX, u32::MAX, n.to_string()),
    }
}

/// A sentence naming a missing input and the command that makes it.
pub fn missing(what: &str, pattern: &str, command: &str) -> String {
    format!("Missing input: {what} (`{pattern}`). Produce it with `{command}`, then run `make report` again.")
}

/// A simulated cluster row for the sections' unit tests: one
/// configuration over 4 trees, every number a placeholder to set.
#[cfg(test)]
pub(crate) fn cluster_row(model: &str, algorithm: &str, procs: u32) -> parab::formats::ClusterRow {
    parab::formats::ClusterRow {
        tree: None,
        seed: None,
        model: model.into(),
        b: None,
        depth: 9,
        trees: 4,
        algorithm: algorithm.into(),
        procs,
        split_ply: None,
        master_depth: None,
        granularity: None,
        root_value: None,
        time_ns: 1.0,
        speedup: 1.0,
        leaves: 1,
        nodes: 1,
        leaf_ratio: 1.0,
        startup_idle_ns: 0.0,
        other_idle_ns: 0.0,
        load_mean: 1.0,
        load_min: 1.0,
        load_sd: 0.0,
        messages: 0,
        bytes: 0,
        passes: None,
        tasks_sent: None,
        full_window_sends: None,
        tasks_dropped: None,
        dropped_nodes: None,
        tasks_aborted: None,
        aborted_nodes: None,
        outside_nodes: None,
        transport: "simulated".into(),
        cores: None,
        host_load: None,
        free_cores: None,
        oversubscribed: None,
        threads: None,
        thread_policy: None,
        wake_ns: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(11016), "2000-02-29");
        assert_eq!(civil_date(20_000), "2024-10-04");
        assert_eq!(report_date(None, Some("86399")).unwrap(), "1970-01-01");
        assert_eq!(report_date(Some("2001-06-30"), Some("0")).unwrap(), "2001-06-30");
        assert!(report_date(Some("2001-6-30"), None).is_err());
        assert!(report_date(None, Some("soon")).is_err());
        assert!(report_date(Some("2001-13-45"), None).is_err());
        assert!(report_date(Some("2001-02-29"), None).is_err());
        assert_eq!(report_date(Some("2000-02-29"), None).unwrap(), "2000-02-29");
        assert!(report_date(None, Some("-99999999999999")).is_err());
        assert!(report_date(None, Some("253402300800")).is_err());
        assert_eq!(report_date(None, Some("253402300799")).unwrap(), "9999-12-31");
    }

    #[test]
    fn orderings_sort_in_thesis_order() {
        let mut v = vec![("32", "0", "0"), ("20", "69", "19"), ("8", "50", "50"), ("32", "79", "5")];
        v.sort_by_key(|o| ordering_rank(o.0, o.1, o.2));
        assert_eq!(v, vec![("32", "79", "5"), ("20", "69", "19"), ("32", "0", "0"), ("8", "50", "50")]);
    }
}
