//! The report's document model (sections, tables, figures) and its two
//! renderings: one self-contained HTML page and Markdown tables.
//!
//! Numbers are formatted here and only here, so the page and the Markdown
//! files show the same digits.

use std::fmt::Write as _;

/// How our value compares with the published one: the bands of the
/// agreement summaries (exact, then within 1%, 5% and 15%).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Equal, digit for digit.
    Exact,
    /// Equal once ours is rounded to the decimals the thesis printed.
    Rounded,
    /// Within 1 %.
    Close,
    /// Within 5 %.
    Near,
    /// Within 15 %.
    Off,
    /// Further apart.
    Differs,
    /// One side has no value.
    Missing,
}

impl Status {
    /// The CSS class of a status cell.
    pub fn class(self) -> &'static str {
        match self {
            Status::Exact | Status::Rounded => "ok",
            Status::Close => "close",
            Status::Near => "near",
            Status::Off => "off",
            Status::Differs => "bad",
            Status::Missing => "missing",
        }
    }
}

/// Decimals that show at least two significant digits of `x` (at least
/// `min`, at most 9): a difference of 0.0038 is "0.0038", not "0.00".
pub fn sig_decimals(x: f64, min: usize) -> usize {
    if x == 0.0 || !x.is_finite() {
        return min;
    }
    let d = 1 - x.abs().log10().floor() as i64;
    (d.max(min as i64) as usize).min(9)
}

/// A relative difference as a signed percentage with two significant digits
/// at least: `+0.0040%`, `-41.7%` (never a misleading `0.00%`).
pub fn rel_pct(rel: f64) -> String {
    let pct = rel * 100.0;
    format!("{pct:+.*}%", sig_decimals(pct, 1))
}

/// One table cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Text as is.
    Text(String),
    /// An integer, digits grouped by thousands.
    Int(i64),
    /// A number with a fixed number of decimals.
    Num(f64, usize),
    /// A fraction shown as a signed percentage with two decimals.
    Pct(f64),
    /// A comparison verdict in words.
    Verdict(Status, String),
    /// Text linking to an anchor of the page (`#id`).
    Link(String, String),
    /// No value.
    Empty,
}

impl Cell {
    /// A number: an integer cell when it is whole and `decimals` is 0.
    pub fn number(v: Option<f64>, decimals: usize) -> Cell {
        match v {
            None => Cell::Empty,
            Some(x) if decimals == 0 && x.fract() == 0.0 && x.abs() < 9e15 => Cell::Int(x as i64),
            Some(x) => Cell::Num(x, decimals),
        }
    }

    /// The cell as plain text (Markdown and tests).
    pub fn plain(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Int(i) => group(*i),
            Cell::Num(x, d) => format!("{x:.d$}"),
            Cell::Pct(x) => format!("{:+.2}%", x * 100.0),
            Cell::Verdict(_, s) => s.clone(),
            Cell::Link(s, _) => s.clone(),
            Cell::Empty => "—".into(),
        }
    }

    fn numeric(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::Num(..) | Cell::Pct(_))
    }
}

/// An integer with thousands separators.
pub fn group(i: i64) -> String {
    let digits = i.unsigned_abs().to_string();
    let mut out = String::new();
    for (k, ch) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if i < 0 { format!("-{out}") } else { out }
}

/// A table: also written as `<id>.md`.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// File stem and HTML id, e.g. `table-4-4`.
    pub id: String,
    /// Caption: which thesis table, what the rows are.
    pub caption: String,
    /// Column headings.
    pub header: Vec<String>,
    /// Headings over groups of columns (label, columns spanned), left to
    /// right; empty for none. The Markdown table prefixes each column's
    /// heading with its group's instead.
    pub groups: Vec<(String, usize)>,
    /// Rows of cells.
    pub rows: Vec<Vec<Cell>>,
    /// A note under the table (sources, units).
    pub note: String,
}

/// A figure: written as `<id>.svg` and `<id>.png`, inlined as SVG.
#[derive(Clone, Debug, Default)]
pub struct Figure {
    /// File stem and HTML id, e.g. `figure-4-5`.
    pub id: String,
    /// Caption.
    pub caption: String,
    /// The SVG text.
    pub svg: String,
}

/// One section of the page: one item of the experiment matrix.
#[derive(Clone, Debug, Default)]
pub struct Section {
    /// HTML id.
    pub id: String,
    /// Thesis chapter (4, 5, 6; 0 for the extra material).
    pub chapter: u32,
    /// Heading.
    pub title: String,
    /// What was measured, in a sentence or two.
    pub what: String,
    /// What the comparison shows, sentence by sentence.
    pub findings: Vec<String>,
    /// Settings and seeds that produced the item.
    pub settings: Vec<String>,
    /// Inputs that are missing, each with the command that produces it.
    pub missing: Vec<String>,
    /// Optional work not run yet (not part of `make all`), with the command
    /// that adds it: shown plainly, not as missing.
    pub optional: Vec<String>,
    /// Tables.
    pub tables: Vec<Table>,
    /// Figures.
    pub figures: Vec<Figure>,
}

impl Section {
    /// What the contents list says beside the title: what the section
    /// shows, not only what it lacks. A section with results and an
    /// optional part not run (the real threads' runs without the MPI runs)
    /// is not "not run".
    pub fn contents_note(&self) -> &'static str {
        let shows = !(self.tables.is_empty() && self.figures.is_empty() && self.findings.is_empty());
        match (self.missing.is_empty(), self.optional.is_empty(), shows) {
            (false, _, _) => " (incomplete)",
            (true, true, _) => "",
            (true, false, false) => " (optional, not run)",
            (true, false, true) => " (an optional part not run)",
        }
    }
}

/// The page's header facts.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// Tool name and version.
    pub version: String,
    /// Date of the report (from `--date` or `SOURCE_DATE_EPOCH`).
    pub date: String,
    /// Results directory as given.
    pub results: String,
    /// Published tables directory as given.
    pub published: String,
}

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(c),
        }
    }
    o
}

/// Inline markup for prose: `code` spans become `<code>`; everything else is
/// escaped.
pub fn prose(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", esc(part));
        } else {
            out.push_str(&esc(part));
        }
    }
    out
}

/// A table as Markdown (GitHub style), with caption and note.
pub fn markdown(t: &Table) -> String {
    let mut s = format!("**{}**\n\n", t.caption.replace('\n', " "));
    let _ = writeln!(s, "| {} |", grouped_header(t).join(" | "));
    let aligns: Vec<&str> = (0..t.header.len()).map(|c| if t.rows.iter().any(|r| r.get(c).is_some_and(Cell::numeric)) { "---:" } else { "---" }).collect();
    let _ = writeln!(s, "| {} |", aligns.join(" | "));
    for r in &t.rows {
        let cells: Vec<String> = r.iter().map(|c| c.plain().replace('|', "\\|")).collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    if !t.note.is_empty() {
        let _ = writeln!(s, "\n{}", t.note);
    }
    s
}

/// Each column's heading with its group's in front ("SU: ours"), for
/// Markdown, which has one header row.
pub fn grouped_header(t: &Table) -> Vec<String> {
    let mut out = t.header.clone();
    let mut at = 0;
    for (g, span) in &t.groups {
        for h in out.iter_mut().skip(at).take(*span) {
            if !g.is_empty() {
                *h = format!("{g}: {h}");
            }
        }
        at += span;
    }
    out
}

fn table_html(t: &Table, out: &mut String) {
    let class = if t.groups.is_empty() { "data" } else { "data compare" };
    let _ = writeln!(out, "<div class=\"scroll\"><table id=\"{}\" class=\"{class}\">\n<caption>{}</caption>", esc(&t.id), prose(&t.caption));
    out.push_str("<thead>");
    if !t.groups.is_empty() {
        out.push_str("<tr class=\"group\">");
        for (g, span) in &t.groups {
            let _ = write!(out, "<th colspan=\"{span}\"{}>{}</th>", if g.is_empty() { " class=\"blank\"" } else { "" }, esc(g));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr>");
    for h in &t.header {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in &t.rows {
        out.push_str("<tr>");
        for c in r {
            let text = esc(&c.plain());
            match c {
                Cell::Verdict(st, _) => {
                    let _ = write!(out, "<td class=\"v {}\">{text}</td>", st.class());
                }
                Cell::Link(_, href) => {
                    let _ = write!(out, "<td><a href=\"#{}\">{text}</a></td>", esc(href));
                }
                c if c.numeric() => {
                    let _ = write!(out, "<td class=\"n\">{text}</td>");
                }
                Cell::Empty => {
                    let _ = write!(out, "<td class=\"e\">{text}</td>");
                }
                _ => {
                    let _ = write!(out, "<td>{text}</td>");
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    if !t.note.is_empty() {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", prose(&t.note));
    }
}

const STYLE: &str = r#"
body { font-family: "DejaVu Sans", Verdana, sans-serif; max-width: 88rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; line-height: 1.45; }
p, ul, figcaption { max-width: 68rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.3rem; border-bottom: 2px solid #ccc; margin-top: 2.5rem; }
h3 { font-size: 1.08rem; margin-top: 1.8rem; }
.meta { color: #555; font-size: .9rem; }
nav ol { columns: 2; column-gap: 3.5rem; font-size: .92rem; } nav li { break-inside: avoid; }
table.data { border-collapse: collapse; margin: .8rem 0; font-size: .86rem; }
table.data caption { caption-side: top; text-align: left; font-weight: bold; padding-bottom: .3rem; }
table.data th, table.data td { border: 1px solid #d0d0d0; padding: .18rem .5rem; }
table.data th { background: #f0f0f0; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.e { color: #999; text-align: center; }
td.v { text-align: right; white-space: nowrap; }
td.v.ok { background: #cdeccd; } td.v.close { background: #e3f4e3; } td.v.near { background: #fff6d6; } td.v.off { background: #ffe2bf; } td.v.bad { background: #fcc9c6; } td.v.missing { color: #888; text-align: center; }
.scroll { overflow-x: auto; }
table.compare { font-size: .8rem; } table.compare th, table.compare td { padding: .15rem .28rem; white-space: nowrap; }
table.compare tr.group th { background: #e4e4e4; } table.compare tr.group th.blank { background: none; border-top: none; border-left: none; }
.legend span { display: inline-block; padding: 0 .4rem; margin-right: .2rem; }
.optional { background: #eef4fb; border-left: 4px solid #5b8fc7; padding: .4rem .8rem; }
.settings { font-size: .86rem; color: #333; } .note { font-size: .82rem; color: #555; }
.missing { background: #fff6d6; border-left: 4px solid #e0b000; padding: .4rem .8rem; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .88rem; color: #333; }
code { background: #f4f4f4; padding: 0 .2rem; }
"#;

/// Counts the page's tables, figures and images once it is rendered, so a
/// headless browser's DOM dump shows whether everything was drawn.
const CHECK: &str = r#"
window.addEventListener('load', function () {
  var figs = document.querySelectorAll('figure.plot');
  var drawn = 0;
  figs.forEach(function (f) { var s = f.querySelector('svg'); if (s) { var r = s.getBoundingClientRect(); if (r.width > 0 && r.height > 0 && s.querySelectorAll('text').length > 0) drawn++; } });
  var imgs = document.querySelectorAll('img'); var failed = 0;
  imgs.forEach(function (i) { if (!i.complete || i.naturalWidth === 0) failed++; });
  var b = document.body;
  b.setAttribute('data-tables', document.querySelectorAll('table.data').length);
  b.setAttribute('data-figures', figs.length);
  b.setAttribute('data-figures-drawn', drawn);
  b.setAttribute('data-images', imgs.length);
  b.setAttribute('data-images-failed', failed);
  b.setAttribute('data-checked', 'yes');
});
"#;

fn chapter_name(c: u32) -> &'static str {
    match c {
        4 => "Chapter 4 — artificial game trees and move ordering",
        5 => "Chapter 5 — node classification with a neural network",
        6 => "Chapter 6 — the simulated shared-memory machine",
        7 => "Beyond the thesis",
        _ => "Other published tables",
    }
}

/// The whole page: the introduction, tables summarising the whole page
/// (`glance`), the contents, then the sections.
pub fn html(meta: &Meta, intro: &[String], glance: &[Table], sections: &[Section]) -> String {
    let mut o = String::new();
    o.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    o.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    o.push_str("<title>parab: reproduction of Manohararajah (2001)</title>\n");
    let _ = writeln!(o, "<style>{STYLE}</style>\n<script>{CHECK}</script>\n</head>\n<body>");
    o.push_str("<h1>Parallel alpha-beta search: the thesis's tables, reproduced</h1>\n");
    let _ = writeln!(
        o,
        "<p class=\"meta\">{} · report date {} · results from <code>{}</code> · published tables from <code>{}</code></p>",
        esc(&meta.version),
        esc(&meta.date),
        esc(&meta.results),
        esc(&meta.published)
    );
    for p in intro {
        let _ = writeln!(o, "<p>{}</p>", prose(p));
    }
    for t in glance {
        table_html(t, &mut o);
    }
    o.push_str("<nav><ol>\n");
    for s in sections {
        let _ = writeln!(o, "<li><a href=\"#{}\">{}</a>{}</li>", esc(&s.id), esc(&s.title), s.contents_note());
    }
    o.push_str("</ol></nav>\n");
    let mut chapter = u32::MAX;
    for s in sections {
        if s.chapter != chapter {
            chapter = s.chapter;
            let _ = writeln!(o, "<h2>{}</h2>", esc(chapter_name(chapter)));
        }
        let _ = writeln!(o, "<section id=\"{}\">\n<h3>{}</h3>", esc(&s.id), esc(&s.title));
        let _ = writeln!(o, "<p>{}</p>", prose(&s.what));
        for m in &s.missing {
            let _ = writeln!(o, "<p class=\"missing\">{}</p>", prose(m));
        }
        for m in &s.optional {
            let _ = writeln!(o, "<p class=\"optional\">{}</p>", prose(m));
        }
        if !s.findings.is_empty() {
            o.push_str("<ul class=\"findings\">\n");
            for f in &s.findings {
                let _ = writeln!(o, "<li>{}</li>", prose(f));
            }
            o.push_str("</ul>\n");
        }
        for t in &s.tables {
            table_html(t, &mut o);
        }
        for f in &s.figures {
            let _ = writeln!(
                o,
                "<figure class=\"plot\" id=\"{}\">\n{}\n<figcaption>{}</figcaption>\n</figure>",
                esc(&f.id),
                strip_xml_decl(&f.svg),
                prose(&f.caption)
            );
        }
        if !s.settings.is_empty() {
            o.push_str("<p class=\"settings\"><b>Settings.</b> ");
            o.push_str(&s.settings.iter().map(|x| prose(x)).collect::<Vec<_>>().join(" "));
            o.push_str("</p>\n");
        }
        o.push_str("</section>\n");
    }
    o.push_str("</body>\n</html>\n");
    o
}

fn strip_xml_decl(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(22123280), "22,123,280");
        assert_eq!(group(-1855606486), "-1,855,606,486");
    }

    #[test]
    fn markdown_table() {
        let t = Table {
            id: "t".into(),
            caption: "Cap".into(),
            header: vec!["a".into(), "b".into()],
            groups: vec![],
            rows: vec![vec![Cell::Text("x|y".into()), Cell::Num(0.5, 3)], vec![Cell::Empty, Cell::Pct(-0.01234)]],
            note: String::new(),
        };
        assert_eq!(markdown(&t), "**Cap**\n\n| a | b |\n| --- | ---: |\n| x\\|y | 0.500 |\n| — | -1.23% |\n");
    }

    #[test]
    fn small_differences_keep_their_digits() {
        // Tables 4.1-4.3's difference column printed -0.0038 points as "-0.00".
        assert_eq!(Cell::Num(-0.0038, sig_decimals(-0.0038, 2)).plain(), "-0.0038");
        assert_eq!(Cell::Num(0.47, sig_decimals(0.47, 2)).plain(), "0.47");
        assert_eq!(sig_decimals(0.0, 2), 2);
        assert_eq!(rel_pct(-4.0265e-5), "-0.0040%");
        assert_eq!(rel_pct(0.1234), "+12.3%");
        assert_eq!(rel_pct(2.757), "+275.7%");
    }

    #[test]
    fn grouped_headers_in_markdown() {
        let t = Table {
            id: "t".into(),
            caption: "C".into(),
            header: ["n", "ours", "thesis", "Δ"].map(String::from).to_vec(),
            groups: vec![(String::new(), 1), ("SU".into(), 3)],
            rows: vec![],
            note: String::new(),
        };
        assert_eq!(grouped_header(&t), ["n", "SU: ours", "SU: thesis", "SU: Δ"]);
        let mut html = String::new();
        table_html(&t, &mut html);
        assert!(html.contains("<tr class=\"group\"><th colspan=\"1\" class=\"blank\"></th><th colspan=\"3\">SU</th></tr>"), "{html}");
    }

    #[test]
    fn prose_marks_code_and_escapes() {
        assert_eq!(prose("run `make <x>` & see"), "run <code>make &lt;x&gt;</code> &amp; see");
    }
}
