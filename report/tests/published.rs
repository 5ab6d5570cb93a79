//! The thesis's published tables on the page: every cell the thesis
//! published is there beside ours, and the page reads as a newcomer needs
//! it to (headings, captions, numbers).

use crate::report::{chapter4, col, fake_chapters_5_and_6, repo, report, table};
use crate::util::*;
use parab_report::published::{ALIASES, SETTINGS, TABLE_COLUMN, label};

/// Key columns of published files, as `data/README.md` describes them.
const KEYS: [&str; 8] = ["b", "wa", "wb", "scheme", "p", "procs", "n", "param"];

fn grouped(i: i64) -> String {
    let s = i.unsigned_abs().to_string();
    let mut o = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            o.push(',');
        }
        o.push(c);
    }
    if i < 0 { format!("-{o}") } else { o }
}

/// The caption of the table with `id`.
fn caption(html: &str, id: &str) -> String {
    let start = html.find(&format!("<table id=\"{id}\"")).unwrap();
    let c = &html[start..];
    c[c.find("<caption>").unwrap() + 9..c.find("</caption>").unwrap()].replace("&#39;", "'")
}

/// Every published CSV, every row, every value: the page's comparison table
/// for it holds exactly one row with that row's keys, and in it the thesis's
/// column shows the value as printed (integers with thousands separators);
/// the thesis's parameters are shown too. Some tables have results of ours
/// (a tiny real chapter 4, chapters 5 and 6 worked by hand), most do not:
/// published cells are shown either way.
#[test]
fn every_published_cell_appears_in_the_page() {
    let d = Dir::new("report-every-cell");
    chapter4(&d);
    fake_chapters_5_and_6(&d);
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    let mut files: Vec<_> = std::fs::read_dir(repo("data/published")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut cells = 0;
    let mut ids = vec![];
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "csv")) {
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains('"'), "{stem}: the check reads plain CSV");
        let mut lines = text.lines();
        let header: Vec<String> = lines.next().unwrap().split(',').map(|h| h.trim().to_lowercase()).collect();
        let rows: Vec<Vec<&str>> = lines.filter(|l| !l.trim().is_empty()).map(|l| l.split(',').map(str::trim).collect()).collect();
        let decimals = |k: usize| rows.iter().map(|r| r[k].split_once('.').map_or(0, |(_, f)| f.len())).max().unwrap_or(0);
        let at = |r: &[&str], c: &str| header.iter().position(|h| h == c).map(|k| r[k].to_string());
        for r in &rows {
            let id = match at(r, TABLE_COLUMN) {
                Some(n) => format!("compare-table-{}", n.replace('.', "-")),
                None => format!("compare-{}", stem.replace('.', "-")),
            };
            let t = table(&html, &id);
            if !ids.contains(&id) {
                // One page row per published row of that table.
                let n = rows.iter().filter(|x| at(x, TABLE_COLUMN) == at(r, TABLE_COLUMN)).count();
                assert_eq!(t.len() - 1, n, "{id}: rows");
                ids.push(id.clone());
            }
            // The keys that vary are columns; the others are in the caption.
            let mut want: Vec<(usize, String)> = vec![];
            let ordering = at(r, "b").map(|b| format!("({b}, {}, {})", at(r, "wa").unwrap(), at(r, "wb").unwrap()));
            for (page, value) in [
                ("ordering", ordering.clone()),
                ("scheme", at(r, "scheme").map(|s| s.to_uppercase())),
                ("p", at(r, "p").or_else(|| at(r, "procs"))),
                ("n", at(r, "n")),
                ("param", at(r, "param")),
            ] {
                match (t[0].iter().position(|h| h == page), value) {
                    (Some(k), Some(v)) => want.push((k, v)),
                    (None, Some(v)) if page == "ordering" => assert!(caption(&html, &id).contains(&format!("ordering {v}")), "{id}: {v}"),
                    _ => {}
                }
            }
            let hits: Vec<&Vec<String>> = t.iter().skip(1).filter(|row| want.iter().all(|(k, v)| row[*k] == *v)).collect();
            assert_eq!(hits.len(), 1, "{id}: one row with keys {want:?}");
            let row = hits[0];
            for (k, h) in header.iter().enumerate() {
                if KEYS.contains(&h.as_str()) || SETTINGS.contains(&h.as_str()) || h == TABLE_COLUMN {
                    continue;
                }
                let ours = ALIASES.iter().find(|a| a.0 == h).map_or(h.as_str(), |a| a.1);
                let printed = match decimals(k) {
                    0 => grouped(r[k].parse().unwrap()),
                    d => format!("{:.d$}", r[k].parse::<f64>().unwrap()),
                };
                assert_eq!(row[col(&t, &format!("{}: thesis", label(ours)))], printed, "{id} {want:?} {h}");
                cells += 1;
            }
            let settings: Vec<String> = SETTINGS.iter().filter_map(|s| at(r, s)).filter(|s| !s.is_empty()).collect();
            if !settings.is_empty() {
                let shown = if settings.len() > 1 { format!("({})", settings.join(", ")) } else { settings[0].clone() };
                let cell = &row[col(&t, "parameters")];
                assert!(*cell == shown || cell.starts_with(&format!("{shown}; ours ")), "{id} {want:?}: {cell} for {shown}");
            }
        }
    }
    // At least the tables the issue names, with all their cells: 4.4 (20),
    // 4.5 (40), 5.1 (10), 5.2-5.4 (25 each), 6.3 (10), 6.4-6.8 (45 each).
    for n in ["4-4", "4-5", "5-1", "5-2", "5-3", "5-4", "6-3", "6-4", "6-5", "6-6", "6-7", "6-8"] {
        assert!(ids.iter().any(|id| id.starts_with(&format!("compare-table-{n}"))), "Table {n}");
    }
    assert!(cells >= 20 + 40 + 10 + 75 + 10 + 225, "{cells} cells");
    // And each table ends in its agreement summary.
    for n in ["6.4", "6.8"] {
        assert!(html.contains(&format!("Table {n}, 45 cells: ")), "summary of Table {n}");
    }
}

/// The page as a newcomer read it.
#[test]
fn the_page_reads_as_a_newcomer_needs() {
    let d = Dir::new("report-newcomer");
    chapter4(&d);
    fake_chapters_5_and_6(&d);
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    // One heading for the material beyond the thesis, no h3 repeating an h2.
    let texts =
        |tag: &str| -> Vec<String> { html.split(&format!("<{tag}>")).skip(1).map(|x| x[..x.find(&format!("</{tag}>")).unwrap()].to_string()).collect() };
    let (h2, h3) = (texts("h2"), texts("h3"));
    assert_eq!(h2.iter().filter(|h| h.as_str() == "Beyond the thesis").count(), 1, "{h2:?}");
    assert!(h3.iter().all(|h| !h2.contains(h)), "{h3:?} repeats {h2:?}");
    let section = |id: &str| {
        let s = html.find(&format!("<section id=\"{id}\">")).unwrap_or_else(|| panic!("section {id}"));
        html[s..s + html[s..].find("</section>").unwrap()].to_string()
    };
    // The time per state: no reference to a table that is not there, and it
    // says where the waits went.
    let t = section("time-per-state");
    assert!(!t.contains("table above") && !html.contains("each run shown in the table above"), "{t}");
    assert!(t.contains("one bar per run of Table 6.6"), "{t}");
    // The algorithms experiment is optional, not a failure.
    let b = section("beyond-algorithms");
    assert!(!b.contains("class=\"missing\"") && b.contains("class=\"optional\"") && b.contains("<code>make beyond-algorithms</code>"), "{b}");
    assert!(!html.contains("Parallel search algorithms from 2 to 1,024 processors</a> (incomplete)"));
    // Scheme A has no parameter: no empty column.
    assert!(!table(&html, "table-5-2")[0].iter().any(|h| h.contains("param")));
    // Findings print numbers with thousands separators: no run of five or
    // more digits outside decimals.
    for li in texts("li").iter().filter(|l| !l.contains("<a href")) {
        let b = li.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() {
                let j = (i..b.len()).find(|&j| !b[j].is_ascii_digit()).unwrap_or(b.len());
                assert!(j - i < 5 || (i > 0 && b[i - 1] == b'.'), "ungrouped number in: {li}");
                i = j;
            } else {
                i += 1;
            }
        }
    }
    // The at-a-glance table links every comparison.
    let g = table(&html, "at-a-glance");
    assert!(g.len() > 12, "{g:?}");
    assert!(html.contains("<a href=\"#compare-table-6-4\">Table 6.4</a>"));
}
