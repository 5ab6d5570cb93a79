//! The report's page: sections for every item, published tables joined
//! generically, numbers that are the CSVs' numbers, missing and malformed
//! inputs, determinism, and a real browser rendering the page.

use crate::util::*;
use std::path::Path;
use std::process::Command;

/// A path in the repository (the tests run in `report/`).
pub(crate) fn repo(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(p)
}

pub(crate) const ORDERINGS: [&str; 5] = ["32-79-5", "20-69-19", "32-66-66", "32-33-33", "32-0-0"];

/// A tiny chapter 4 run (4 trees per ordering, depth 3) under `dir/results`.
pub(crate) fn chapter4(d: &Dir) {
    for sub in ["results/fbest", "results/nodes"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    for o in ORDERINGS {
        let ord = o.replace('-', ",");
        let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", &ord, "--depth", "3", "--count", "4"]).ok();
        d.tool("fbest").args(["--per-tree", "-o", &format!("results/nodes/tg1-{o}-d3.csv")]).stdin(&trees).ok();
        if o == "32-79-5" {
            d.tool("fbest").args(["-o", "results/fbest/tg1-32-79-5-d3.csv"]).stdin(&trees).ok();
        }
    }
    let mut args = vec!["--analytic".to_string()];
    for o in ORDERINGS {
        args.push("--ordering".into());
        args.push(o.replace('-', ","));
    }
    args.extend(["-o".into(), "results/fbest/analytic.csv".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    d.tool("fbest").args(&args).ok();
    let rajahx = std::fs::canonicalize(repo("data/rajahx-fbest.csv")).unwrap();
    d.tool("fbest").args(["--rajahx", rajahx.to_str().unwrap(), "-o", "results/fbest/rajahx.csv"]).ok();
}

pub(crate) fn published() -> String {
    std::fs::canonicalize(repo("data/published")).unwrap().display().to_string()
}

/// Runs the report on `dir/results`; returns stderr.
pub(crate) fn report(d: &Dir, extra: &[&str]) -> String {
    let p = published();
    let mut args = vec!["--published", p.as_str(), "--date", "2001-06-30"];
    args.extend_from_slice(extra);
    let out = d.tool("report").args(&args).output();
    assert!(out.status.success(), "report failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Copies the directory `from` to `to`, subdirectories included.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.path().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// The cells of the table with `id`, tags stripped, row by row (header row
/// included). Where columns are grouped under a heading ("SU" over "ours",
/// "thesis", "Δ"), the header cells carry it: "SU: ours".
pub(crate) fn table(html: &str, id: &str) -> Vec<Vec<String>> {
    let start = html.find(&format!("<table id=\"{id}\"")).unwrap_or_else(|| panic!("no table {id}"));
    let body = &html[start..start + html[start..].find("</table>").unwrap()];
    let cells_of = |r: &str| -> Vec<String> {
        let r = r[..r.find("</tr>").unwrap_or(r.len())].replace("</th>", "</td>");
        let mut cells: Vec<String> =
            r.split("</td>").map(|c| c.rfind('>').map(|i| c[i + 1..].to_string()).unwrap_or_default().replace("&amp;", "&").trim().to_string()).collect();
        cells.pop();
        cells
    };
    let mut rows: Vec<Vec<String>> = body.split("<tr>").skip(1).map(cells_of).collect();
    if let Some(g) = body.find("<tr class=\"group\">") {
        let g = &body[g..g + body[g..].find("</tr>").unwrap()];
        let mut labels = vec![];
        for th in g.split("<th").skip(1) {
            let span: usize = th.split("colspan=\"").nth(1).and_then(|x| x[..x.find('"')?].parse().ok()).unwrap_or(1);
            let label = th[th.find('>').unwrap() + 1..th.find("</th>").unwrap()].to_string();
            labels.extend(std::iter::repeat_n(label, span));
        }
        for (h, l) in rows[0].iter_mut().zip(labels) {
            if !l.is_empty() {
                *h = format!("{l}: {h}");
            }
        }
    }
    rows
}

pub(crate) fn row<'a>(t: &'a [Vec<String>], first: &str) -> &'a [String] {
    t.iter().find(|r| r[0] == first).unwrap_or_else(|| panic!("no row {first} in {t:?}"))
}

pub(crate) fn col(t: &[Vec<String>], name: &str) -> usize {
    t[0].iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {:?}", t[0]))
}

pub(crate) fn ungroup(s: &str) -> String {
    s.replace(',', "")
}

#[test]
fn page_numbers_are_the_csv_numbers() {
    let d = Dir::new("report-cells");
    chapter4(&d);
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    // Table 6.3: n_1 (search) is the sum of the per-tree node counts.
    let t = table(&html, "table-6-3");
    for o in ORDERINGS {
        let csv = d.read(&format!("results/nodes/tg1-{o}-d3.csv"));
        let label = format!("({})", o.replace('-', ", "));
        let r = row(&t, &label);
        assert_eq!(ungroup(&r[col(&t, "n_1 (search)")]), sum_column(&csv, "nodes").to_string(), "{o}");
        assert_eq!(r[col(&t, "trees")], "4");
    }
    // Table 4.4: f_best and p_best by position, as in the CSV.
    let csv = d.read("results/fbest/tg1-32-79-5-d3.csv");
    let t = table(&html, "table-4-4-32-79-5");
    let fb = column(&csv, "fbest");
    let pb = column(&csv, "pbest");
    for n in [1usize, 2, 7] {
        let r = row(&t, &n.to_string());
        assert_eq!(ungroup(&r[1]), fb[n - 1]);
        assert_eq!(r[2], format!("{:.6}", pb[n - 1].parse::<f64>().unwrap()));
    }
    // Table 4.5 comparison: ours is analytic.csv, published the thesis's,
    // and the analytic values agree to every printed decimal.
    // The ordering every row shares is stated once, in the caption (as the page says:
    // not 40 rows repeating b, wa, wb).
    let t = table(&html, "compare-table-4-5-exponential-b20-69-19");
    assert_eq!(t[0], ["n", "p_n: ours", "p_n: thesis", "p_n: Δ", "cumulative: ours", "cumulative: thesis", "cumulative: Δ"]);
    assert!(
        html.contains("Table 4.5 — ours beside the thesis&#39;s, ordering (20, 69, 19)")
            || html.contains("Table 4.5 — ours beside the thesis's, ordering (20, 69, 19)")
    );
    let r = row(&t, "1");
    assert_eq!(r[col(&t, "p_n: thesis")], "0.705500");
    assert_eq!(r[col(&t, "p_n: Δ")], "exact");
    let exact = t.iter().skip(1).flat_map(|r| [&r[3], &r[6]]).filter(|d| d.starts_with("exact")).count();
    assert_eq!(t.len(), 21);
    assert_eq!(exact, 40, "p_n and cumulative for n = 1..20");
    // Table 6.3 comparison: depth 3 counts are far from the published depth-6
    // ones, and the difference says how far.
    let t = table(&html, "compare-table-6-3-uniprocessor");
    let r = row(&t, "(32, 79, 5)");
    let nodes = sum_column(&d.read("results/nodes/tg1-32-79-5-d3.csv"), "nodes") as f64;
    assert_eq!(ungroup(&r[col(&t, "n_1: ours")]), nodes.to_string());
    assert_eq!(r[col(&t, "n_1: thesis")], "22,123,280");
    let rel: f64 = r[col(&t, "n_1: Δ")].trim_end_matches('%').parse().unwrap();
    assert!((rel - (nodes / 22_123_280.0 - 1.0) * 100.0).abs() < 0.1, "{r:?}");
    assert!(t.iter().skip(1).all(|r| r[col(&t, "t_1 (ticks): Δ")] == "no result of ours"));
    // The chess comparison: p_best(1) of both, from their CSVs.
    let t = table(&html, "table-4-3");
    let raj = d.read("results/fbest/rajahx.csv");
    let r = row(&t, "1");
    assert_eq!(r[2], format!("{:.6}", column(&raj, "pbest")[0].parse::<f64>().unwrap()));
    // Every table is also a Markdown file, with the same digits.
    let md = d.read("results/report/table-6-3.md");
    let n: u64 = sum_column(&d.read("results/nodes/tg1-32-0-0-d3.csv"), "nodes");
    assert!(md.contains(&format!("| (32, 0, 0) | 4 | 3 | {} |", crate_group(n))), "{md}");
}

fn crate_group(n: u64) -> String {
    let s = n.to_string();
    let mut o = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            o.push(',');
        }
        o.push(c);
    }
    o
}

#[test]
fn every_item_has_a_section_and_missing_inputs_say_what_to_run() {
    let d = Dir::new("report-empty");
    std::fs::create_dir_all(d.join("results")).unwrap();
    let err = report(&d, &[]);
    assert_eq!(err, "", "quiet when stderr is not a terminal");
    let html = d.read("results/report/index.html");
    for id in [
        "tables-4-1-4-3",
        "table-4-4",
        "table-4-5",
        "figure-4-6",
        "table-5-1",
        "table-5-2",
        "table-5-3",
        "table-5-4",
        "figures-5-4-5-5",
        "table-6-3",
        "tables-6-4-6-8",
        "time-per-state",
    ] {
        assert!(html.contains(&format!("<section id=\"{id}\">")), "section {id}");
    }
    for cmd in ["make chapter4", "make chapter5", "make chapter6", "make results/fbest/analytic.csv"] {
        assert!(html.contains(&format!("<code>{cmd}</code>")), "{cmd}");
    }
    // Published tables are still shown, ours marked missing.
    let t = table(&html, "compare-table-5-1-nn-error");
    assert_eq!(t.len(), 6, "5 orderings + header");
    assert!(t.iter().skip(1).all(|r| r[col(&t, "E_type: Δ")] == "no result of ours" && r[col(&t, "E_wait: Δ")] == "no result of ours"));
    // Tables 6.4-6.8 have a section each, the thesis's numbers already there.
    for (o, n) in [("32-79-5", 4), ("20-69-19", 5), ("32-66-66", 6), ("32-33-33", 7), ("32-0-0", 8)] {
        assert!(html.contains(&format!("<section id=\"chapter6-{o}\">")), "{o}");
        let t = table(&html, &format!("compare-table-6-{n}"));
        assert_eq!(t.len(), 10, "3 schemes x 3 processor counts + header");
        assert!(t.iter().skip(1).all(|r| r[col(&t, "SU: Δ")] == "no result of ours"));
    }
}

#[test]
fn a_new_published_table_is_shown_and_joined_by_its_keys() {
    let d = Dir::new("report-generic");
    chapter4(&d);
    let pubdir = d.join("published");
    std::fs::create_dir_all(&pubdir).unwrap();
    for e in std::fs::read_dir(repo("data/published")).unwrap() {
        let e = e.unwrap();
        // The thesis's tables (other papers' are in folders of their own).
        if e.path().is_file() {
            std::fs::copy(e.path(), pubdir.join(e.file_name())).unwrap();
        }
    }
    // Keys from the file name (b32-79-5) and the column n; one value we
    // reproduce exactly, one we do not, one we do not have.
    let csv = d.read("results/fbest/tg1-32-79-5-d3.csv");
    let fb = column(&csv, "fbest");
    let f2: u64 = fb[1].parse().unwrap();
    std::fs::write(pubdir.join("table-4.4-fbest-b32-79-5.csv"), format!("n,fbest,pbest_made_up\n1,{},0.5\n2,{},0.25\n", fb[0], f2 + 10)).unwrap();
    // A table number no section claims, keyed by ordering columns.
    let n1 = sum_column(&d.read("results/nodes/tg1-20-69-19-d3.csv"), "nodes");
    std::fs::write(pubdir.join("table-9.1-extra.csv"), format!("b,wa,wb,n1_nodes\n20,69,19,{n1}\n")).unwrap();
    let p = pubdir.display().to_string();
    let out = d.tool("report").args(["--published", &p, "--date", "2001-06-30"]).output();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = d.read("results/report/index.html");
    let t = table(&html, "compare-table-4-4-fbest-b32-79-5");
    assert_eq!(t[0][..4], ["n", "f_best: ours", "f_best: thesis", "f_best: Δ"]);
    assert_eq!(row(&t, "1")[3], "exact");
    let r = row(&t, "2");
    assert_eq!((ungroup(&r[1]), ungroup(&r[2])), (f2.to_string(), (f2 + 10).to_string()));
    // The relative difference with at least two significant digits.
    let rel: f64 = r[3].trim_end_matches('%').parse().unwrap();
    let want = -10.0 / (f2 + 10) as f64 * 100.0;
    assert!((rel - want).abs() <= want.abs() * 0.05, "{r:?} against {want}");
    assert!(t.iter().skip(1).all(|r| r[col(&t, "pbest_made_up: Δ")] == "no result of ours"));
    let t = table(&html, "compare-table-9-1-extra");
    assert_eq!(t[1][col(&t, "n_1: Δ")], "exact");
    assert!(html.contains("<section id=\"other-published\">"));
    // Under its own heading, which its section title does not repeat.
    assert!(html.contains("<h2>Other published tables</h2>\n<section id=\"other-published\">\n<h3>Tables no section above shows</h3>"));
}

#[test]
fn malformed_inputs_name_file_and_line() {
    let d = Dir::new("report-bad");
    std::fs::create_dir_all(d.join("results/nodes")).unwrap();
    let p = published();
    d.write(
        "results/nodes/bad.csv",
        "tree,seed,b,wa,wb,depth,nodes,leaves,internal,contributing,root_value\n1,5,32,79,5,3,10,8,2,2,7\n2,6,32,79,5,3,ten,8,2,2,7\n",
    );
    let err = d.tool("report").args(["--published", &p]).fails("bad.csv:3");
    assert!(err.contains("nodes"), "{err}");
    d.write("results/nodes/bad.csv", "tree,seed,b,wa,wb,depth,nodes,leaves,internal,contributing,root_value\n1,5,32,79,5,3,10,8,2,2\n");
    d.tool("report").args(["--published", &p]).fails("bad.csv:2");
    d.write("results/nodes/bad.csv", "tree,seed,b,wa,wb,depth,leaves,internal,contributing,root_value\n");
    d.tool("report").args(["--published", &p]).fails("missing column `nodes`");
    // A key the tools write as a number holding text is refused, not shown
    // as a key (p = x); a number column holding NaN likewise.
    d.write("results/nodes/bad.csv", "tree,seed,b,wa,wb,depth,nodes,leaves,internal,contributing,root_value\n1,5,x,79,5,3,10,8,2,2,7\n");
    d.tool("report").args(["--published", &p]).fails("column `b`: `x` is not an integer (results/nodes/bad.csv:2)");
    std::fs::remove_file(d.join("results/nodes/bad.csv")).unwrap();
    std::fs::create_dir_all(d.join("results/pabsim")).unwrap();
    d.write("results/pabsim/p.csv", "b,wa,wb,depth,scheme,procs,tp_ticks,np_nodes,su\n32,79,5,3,a,x,10,10,\n");
    d.tool("report").args(["--published", &p]).fails("column `procs`: `x` is not an integer (results/pabsim/p.csv:2)");
    d.write("results/pabsim/p.csv", "b,wa,wb,depth,scheme,procs,tp_ticks,np_nodes,su\n32,79,5,3,a,4,10,10,NaN\n");
    d.tool("report").args(["--published", &p]).fails("column `su`: `NaN` is not a number (results/pabsim/p.csv:2)");
    std::fs::remove_dir_all(d.join("results/pabsim")).unwrap();
    std::fs::create_dir_all(d.join("results/weights")).unwrap();
    d.write("results/weights/32-79-5.json", "{\n  \"e_type\": 1.0,\n  oops\n}\n");
    d.tool("report").args(["--published", &p]).fails("32-79-5.json:3");
    assert!(!d.join("results/report/index.html").exists(), "no page after an error");
    d.tool("report").args(["--published", &p, "--date", "30/06/2001"]).fails("YYYY-MM-DD");
}

#[test]
fn same_inputs_give_identical_files() {
    let d = Dir::new("report-det");
    chapter4(&d);
    fake_chapters_5_and_6(&d);
    report(&d, &["--out", "a", "--figures", "a/fig"]);
    let p = published();
    let out = Command::new(bin("report"))
        .args(["--published", &p, "--out", "b", "--figures", "b/fig"])
        .env("SOURCE_DATE_EPOCH", "993859200")
        .current_dir(&d.path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let list = |dir: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        v.sort();
        v
    };
    for (a, b) in [(d.join("a"), d.join("b")), (d.join("a/fig"), d.join("b/fig"))] {
        let names = list(&a);
        assert_eq!(names, list(&b));
        for n in names {
            if a.join(&n).is_file() {
                assert!(std::fs::read(a.join(&n)).unwrap() == std::fs::read(b.join(&n)).unwrap(), "{n:?} differs");
            }
        }
    }
    // Figures 4.5, 4.6, 5.4, 5.5, the learning curves, 6.13-6.17 (the
    // thesis's points even where we have no run), one time-per-state chart,
    // Ura et al.'s Fig. 7 and the trend per b (b = 5 and 20: the committed
    // reference run stands in for a run of the user's).
    assert_eq!(list(&d.join("a/fig")).len(), 2 * 14, "svg and png for every figure");
}

/// Chapter 5 and 6 outputs in the documented columns, with numbers worked
/// by hand.
pub(crate) fn fake_chapters_5_and_6(d: &Dir) {
    for sub in ["results/weights", "results/classify", "results/pabsim"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    d.write(
        "results/weights/32-66-66.json",
        r#"{"format":"parab-nn","version":1,"training":{"seed":7,"iterations":10000,"eta":0.1},"final":{"E_type":18.5,"E_wait":0.07}}"#,
    );
    d.write("results/weights/32-66-66-curve.csv", "iteration,E_type,E_wait\n0,400.0,3.0\n5000,30.0,0.2\n10000,18.5,0.07\n");
    let mut c = String::from("b,wa,wb,depth,trees,scheme,param,true_cut,false_cut,true_all,false_all,error,scored,best\n");
    c += "32,66,66,6,100,a,,900,60,30,10,70,1000,1\n";
    c += "32,66,66,6,100,b,1,920,30,40,10,40,1000,1\n32,66,66,6,100,b,2,900,50,30,20,70,1000,0\n";
    c += "32,66,66,6,100,c,19,930,25,35,10,35,1000,0\n32,66,66,6,100,c,20,935,20,40,5,25,1000,1\n32,66,66,6,100,c,21,935,20,40,5,25,1000,0\n";
    d.write("results/classify/tg1-32-66-66-d6.csv", &c);
    // p = 1: t1 = 2000, n1 = 1000. Scheme A at p = 12: tp = 400, np = 1250:
    // SU = 5, SO = 0.25, CSS = 12 / (5 * 1.25) - 1 = 0.92. Two settings of
    // scheme B at p = 12: the faster (tp = 250, SU = 8) is shown.
    let mut p = String::from("b,wa,wb,depth,trees,scheme,procs,m_a,m_b,m_ca,m_cc,cut_width,tp_ticks,np_nodes,ticks_search,ticks_split,mem_stall\n");
    p += "32,66,66,6,100,a,1,4,,,,,2000,1000,1800,0,200\n";
    p += "32,66,66,6,100,a,12,4,,,,,400,1250,3000,1000,800\n";
    p += "32,66,66,6,100,b,12,,5,,,,300,1300,3000,400,200\n32,66,66,6,100,b,12,,6,,,,250,1200,2500,300,200\n";
    p += "32,66,66,6,100,c,12,,,0,3,20,320,1100,3000,500,340\n";
    d.write("results/pabsim/tg1-32-66-66-d6.csv", &p);
}

#[test]
fn chapters_5_and_6_are_aggregated_and_joined() {
    let d = Dir::new("report-ch56");
    chapter4(&d);
    fake_chapters_5_and_6(&d);
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    let t = table(&html, "table-5-1");
    let r = row(&t, "(32, 66, 66)");
    assert_eq!(r[1..5], ["18.500000", "0.070000", "7", "10000"]);
    // Best parameters: lowest error, smallest parameter on ties.
    // Scheme B at our best n beside the thesis's n (as the page says: say which).
    let t = table(&html, "table-5-3");
    assert_eq!(t[0][1..3], ["best n (ours)", "n (thesis)"]);
    assert_eq!(row(&t, "(32, 66, 66)")[1..9], ["1", "1", "920", "30", "40", "10", "40", "1,000"]);
    let t = table(&html, "table-5-4");
    assert_eq!(row(&t, "(32, 66, 66)")[1..3], ["20", "20"]);
    // Published Table 5.4 has param 20 for (32, 66, 66): joined on it.
    let t = table(&html, "compare-table-5-4-scheme-c");
    let r = row(&t, "(32, 66, 66)");
    assert_eq!(r[col(&t, "param")], "20");
    assert_eq!(ungroup(&r[col(&t, "True_CUT: ours")]), "935");
    assert_eq!(r[col(&t, "True_CUT: thesis")], "5,270,913");
    // Table 5.1 comparison uses the JSON's final errors.
    let t = table(&html, "compare-table-5-1-nn-error");
    assert_eq!(row(&t, "(32, 66, 66)")[col(&t, "E_type: ours")], "18.500000");
    // Chapter 6: SU, SO, CSS computed against p = 1, beside the thesis's
    // Table 6.6; the faster B shown, its parameter marked as not the thesis's.
    let t = table(&html, "compare-table-6-6");
    let a12 = t.iter().find(|r| r[0] == "A" && r[1] == "12").unwrap();
    let at = |r: &[String], c: &str| r[col(&t, c)].clone();
    assert_eq!(["t_p (ticks): ours", "SU: ours", "n_p: ours", "SO: ours", "CSS: ours"].map(|c| at(a12, c)), ["400", "5.000", "1,250", "0.250", "0.920"]);
    assert_eq!(at(a12, "parameters"), "4");
    assert_eq!(at(a12, "SU: thesis"), "6.395");
    assert_eq!(at(a12, "SU: Δ"), "-21.8%");
    let b12 = t.iter().find(|r| r[0] == "B" && r[1] == "12").unwrap();
    assert_eq!(at(b12, "parameters"), "5; ours 6");
    assert_eq!(at(b12, "SU: ours"), "8.000");
    let c12 = t.iter().find(|r| r[0] == "C" && r[1] == "12").unwrap();
    assert_eq!(at(c12, "parameters"), "(0, 3)");
    let t = table(&html, "table-6-3");
    assert_eq!(row(&t, "(32, 66, 66)")[col(&t, "t_1 (ticks)")], "2,000");
    for id in ["figure-5-4", "figure-5-5", "figure-5-learning", "figure-6-15", "figure-time-32-66-66"] {
        assert!(html.contains(&format!("<figure class=\"plot\" id=\"{id}\">")), "{id}");
        assert!(d.join(&format!("results/figures/{id}.png")).is_file());
    }
    assert!(html.contains("scheme C&#39;s error") || html.contains("scheme C's error"));

    // The same runs in a second file (a merged table beside its parts) and
    // the p = 1 run as per-tree rows too: every run still counts once.
    let runs = d.read("results/pabsim/tg1-32-66-66-d6.csv");
    d.write("results/pabsim/all.csv", &runs);
    let mut per_tree = String::from("tree,b,wa,wb,depth,trees,scheme,procs,m_a,m_b,m_ca,m_cc,cut_width,tp_ticks,np_nodes\n");
    per_tree += "1,32,66,66,6,1,a,1,4,,,,,1200,600\n2,32,66,66,6,1,a,1,4,,,,,800,400\n";
    d.write("results/pabsim/p1-per-tree.csv", &per_tree);
    d.write("results/pabsim/p1-per-tree-again.csv", &per_tree);
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    let t = table(&html, "compare-table-6-6");
    let a12 = t.iter().find(|r| r[0] == "A" && r[1] == "12").unwrap();
    assert_eq!(["t_p (ticks): ours", "SU: ours", "n_p: ours"].map(|c| a12[col(&t, c)].clone()), ["400", "5.000", "1,250"]);
    let t = table(&html, "table-6-3");
    assert_eq!(row(&t, "(32, 66, 66)")[col(&t, "t_1 (ticks)")], "2,000");
}

/// Renders the page in headless Chromium and checks the DOM it built: every
/// table and figure present, every figure drawn, no image failed.
#[test]
fn chromium_renders_every_table_and_figure() {
    let Some(chromium) =
        ["chromium", "chromium-browser", "google-chrome"].into_iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
    else {
        if std::env::var_os("PARAB_SKIP_BROWSER").is_some() {
            eprintln!("chromium missing: browser check skipped (PARAB_SKIP_BROWSER)");
            return;
        }
        panic!("the browser check needs headless Chromium: `make test` installs it as root with apt-get (else it sets PARAB_SKIP_BROWSER=1 and says so)");
    };
    let d = Dir::new("report-browser");
    chapter4(&d);
    fake_chapters_5_and_6(&d);
    report(&d, &[]);
    let page = d.join("results/report/index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let profile = d.join("profile");
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            &format!("--user-data-dir={}", profile.display()),
            "--virtual-time-budget=5000",
            "--dump-dom",
            &format!("file://{}", page.display()),
        ])
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    let attr = |name: &str| -> usize {
        let key = format!("{name}=\"");
        let i = dom.find(&key).unwrap_or_else(|| panic!("no {name} in the rendered DOM (did the page's script run?)")) + key.len();
        dom[i..i + dom[i..].find('"').unwrap()].parse().unwrap()
    };
    assert!(dom.contains("data-checked=\"yes\""));
    let tables = html.matches("<table id=").count();
    let figures = html.matches("<figure class=\"plot\"").count();
    assert!(tables >= 12 && figures >= 7, "{tables} tables, {figures} figures");
    assert_eq!(attr("data-tables"), tables);
    assert_eq!(attr("data-figures"), figures);
    assert_eq!(attr("data-figures-drawn"), figures, "every figure's SVG has a size and text");
    assert_eq!(attr("data-images-failed"), 0);
    // The DOM holds every table by id, as the browser parsed it.
    for id in html.match_indices("<table id=\"").map(|(i, _)| &html[i + 11..i + 11 + html[i + 11..].find('"').unwrap()]) {
        assert!(dom.contains(&format!("id=\"{id}\"")), "table {id} missing from the DOM");
    }
}

/// The message-passing section from `make distributed`'s two tables: one
/// figure and one table per tree group, the §5.2 factors as ratios.
#[test]
fn the_simulated_cluster_gets_its_figures_and_tables() {
    let d = Dir::new("report-distributed");
    chapter4(&d);
    let head = "tree,seed,model,b,depth,trees,algorithm,procs,split_ply,master_depth,granularity,root_value,time_ns,speedup,leaves,nodes,leaf_ratio,startup_idle_ns,other_idle_ns,load_mean,load_min,load_sd,messages,bytes,passes,tasks_sent,full_window_sends,tasks_dropped,dropped_nodes,tasks_aborted,aborted_nodes,outside_nodes,transport,cores,host_load,free_cores,oversubscribed,threads,thread_policy,wake_ns\n";
    let rows = [
        ",,incremental,5,9,4,seq,1,,,,,4000000.00,1.000000000,25000,42000,1.000000000,0.00,0.00,1.000000000,1.000000000,0.000000000,0,0,,,,,,,,,simulated,,,,,,,",
        ",,incremental,5,9,4,master-worker,2,,,,,2000000.00,2.000000000,30000,50000,1.200000000,10.00,20.00,0.999985000,0.999970000,0.000015000,40,1440,,,,,,,,,simulated,,,,,,,",
        ",,incremental,5,9,4,master-worker,64,,,,,500000.00,8.000000000,100000,150000,4.000000000,10.00,20.00,0.999940000,0.999000000,0.000100000,2560,9000,,,,,,,,,simulated,,,,,,,",
        ",,incremental,5,9,4,even-split,64,3,,,,1000000.00,4.000000000,250000,400000,10.000000000,0.00,20.00,0.720000000,0.500000000,0.100000000,256,900,,,,,,,,,simulated,,,,,,,",
    ];
    std::fs::create_dir_all(d.join("results/distributed")).unwrap();
    d.write("results/distributed/distributed.csv", &format!("{head}{}\n", rows.join("\n")));
    d.write(
        "results/distributed/factors.csv",
        "model,b,depth,master_depth,share_depth,trees,leaves,leaves_unshared,leaves_partial,leaves_full_window\nchess,,4,2,1,24,100000,104700,100000,206400\n",
    );
    // The hypercube's file (`TOPOLOGIES`): the flat baseline's row, then its
    // own; a group of its own, the baseline's row not shown twice.
    let hyper = ",,incremental,5,9,4,master-worker,64,,,,,1000000.00,4.000000000,100000,150000,4.000000000,10.00,20.00,0.999940000,0.999000000,0.000100000,2560,9000,,,,,,,,,simulated/hypercube,,,,,,,";
    d.write("results/distributed/distributed-hypercube.csv", &format!("{head}{}\n{hyper}\n", rows[0]));
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    let h = table(&html, "distributed-incremental-b5-d9-hypercube");
    assert_eq!(row(&h, "master-worker (Ura et al.)")[col(&h, "P = 64")], "4.00 / 4.00 / 1.00");
    assert_eq!(h.len(), 2, "{h:?}");
    assert!(html.contains("incremental, b = 5, depth 9, 4 trees, hypercube network, P = 64: master-worker (Ura et al.) is fastest"));
    let t = table(&html, "distributed-incremental-b5-d9");
    assert_eq!(row(&t, "master-worker (Ura et al.)")[col(&t, "P = 64")], "8.00 / 4.00 / 1.00");
    assert_eq!(row(&t, "even split at the root")[col(&t, "P = 64")], "4.00 / 10.00 / 0.72");
    assert_eq!(row(&t, "master-worker (Ura et al.)")[col(&t, "messages per process, largest P")], "10.0");
    assert_eq!(row(&t, "even split at the root")[col(&t, "P = 2")], "—");
    let f = table(&html, "distributed-factors");
    assert_eq!(row(&f, "chess, 24 positions")[col(&f, "tables not shared")], "1.047");
    assert_eq!(row(&f, "chess, 24 positions")[col(&f, "full windows")], "2.064");
    assert!(html.contains("<figure class=\"plot\" id=\"distributed-incremental-b5-d9\">"));
    assert!(d.join("results/figures/distributed-incremental-b5-d9.png").is_file());
    assert!(html.contains("incremental, b = 5, depth 9, 4 trees, P = 64: master-worker (Ura et al.) is fastest"));
}

/// OthelloX's grid (`make othellox`): a figure per network, the grid's
/// table per network with SPE / SO / LD, the networks side by side, and
/// the helpful master's finding counted over the grid.
#[test]
fn othellox_grid_gets_its_tables_and_findings() {
    let d = Dir::new("report-othellox");
    chapter4(&d);
    // A file written before `thread_policy` was renamed: read as the new name.
    let head = "tree,seed,model,b,depth,trees,algorithm,procs,split_ply,master_depth,granularity,root_value,time_ns,speedup,leaves,nodes,leaf_ratio,startup_idle_ns,other_idle_ns,load_mean,load_min,load_sd,messages,bytes,passes,tasks_sent,full_window_sends,tasks_dropped,dropped_nodes,tasks_aborted,aborted_nodes,outside_nodes,transport,cores,host_load,free_cores,oversubscribed,threads,thread_algorithm,wake_ns\n";
    let r = |model: &str, alg: &str, p: u32, t: f64, nodes: u64, load: f64, net: &str| {
        format!(
            ",,{model},,5,4,{alg},{p},,,,,{t:.2},{:.9},{nodes},{nodes},1.000000000,100.00,0.00,{load:.9},{load:.9},0.000000000,0,0,,,,,,,,,{net},,,,,,,",
            8000.0 / t
        )
    };
    let rows = [
        r("othello", "seq", 1, 8000.0, 1000, 1.0, "simulated"),
        r("othello", "ybwc-full-no-helpful", 8, 4000.0, 1500, 0.5, "simulated"),
        r("othello", "ybwc-full", 8, 2000.0, 1250, 0.75, "simulated"),
        r("othello", "seq", 1, 8000.0, 1000, 1.0, "simulated/hypercube"),
        r("othello", "ybwc-full-no-helpful", 8, 5000.0, 1500, 0.5, "simulated/hypercube"),
        r("othello", "ybwc-full", 8, 2500.0, 1250, 0.75, "simulated/hypercube"),
    ];
    std::fs::create_dir_all(d.join("results/othellox")).unwrap();
    d.write("results/othellox/othellox.csv", &format!("{head}{}\n", rows.join("\n")));
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    let t = table(&html, "othellox-grid-flat");
    assert_eq!(row(&t, "8 × 8")[col(&t, "full YBWC (Feldmann)")], "4.00 / 25 / 75");
    assert_eq!(row(&t, "8 × 8")[col(&t, "full YBWC, no helpful")], "2.00 / 50 / 50");
    let n = table(&html, "othellox-networks");
    let full: Vec<&Vec<String>> = n.iter().filter(|r| r.iter().any(|c| c == "full YBWC (Feldmann)")).collect();
    assert_eq!((full[0][col(&n, "flat")].as_str(), full[0][col(&n, "hypercube")].as_str()), ("4.00", "3.20"));
    assert!(html.contains("The helpful master (YBWC with it against YBWC without it): faster in 2 of 2 configurations; median speed-up ratio 2.00."));
    assert!(html.contains("<figure class=\"plot\" id=\"othellox-speedup-hypercube\">"));
    // OthelloX's Table 3 beside ours: two positions' rows, the
    // published table's row of P = 4 with none of ours.
    let t3 = |tree: u32, alg: &str, p: u32, t: f64, nodes: u64, load: f64| {
        format!(
            "{tree},{tree}1,othello,,5,1,{alg},{p},,,,,{t:.2},{:.9},{nodes},{nodes},1.000000000,0.00,0.00,{load:.9},{load:.9},0.000000000,0,0,,,,,,,,,simulated,,,,,,,",
            1000.0 / t
        )
    };
    let per_tree =
        [t3(1, "seq", 1, 1000.0, 100, 1.0), t3(2, "seq", 1, 1000.0, 200, 1.0), t3(1, "pv-split", 2, 500.0, 110, 0.5), t3(2, "pv-split", 2, 1000.0, 200, 0.7)];
    d.write("results/othellox/pv-split-table3.csv", &format!("{head}{}\n", per_tree.join("\n")));
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    let t = table(&html, "othellox-table-3");
    let two = row(&t, "2");
    assert_eq!(
        [&two[col(&t, "speed-up: ours")], &two[col(&t, "search overhead (%): ours")], &two[col(&t, "time idle (%): ours")]],
        ["1.50 ± 0.71", "5.0 ± 7.1", "40.0 ± 14.1"]
    );
    assert_eq!(two[col(&t, "speed-up: OthelloX")], "1.48 ± 0.33");
    assert_eq!(row(&t, "64")[col(&t, "speed-up: OthelloX")], "4.21 ± 1.45");
    assert_eq!(row(&t, "64")[col(&t, "speed-up: ours")], "—");
}

/// Ura et al.'s Tables 1 and 6 (`make ura2014`): the paper's rows, each
/// followed by ours of the same b, P and method at every depth run, the
/// trend figure per b, and one line when ours are missing.
#[test]
fn ura2014_shows_the_paper_beside_ours_at_every_depth() {
    let d = Dir::new("report-ura2014");
    std::fs::create_dir_all(d.join("results")).unwrap();
    // The published tables without the committed reference run beside them.
    let alone = d.join("alone/published");
    copy_tree(&repo("data/published"), &alone);
    let p = alone.display().to_string();
    let report = |d: &Dir, _: &[&str]| d.tool("report").args(["--published", p.as_str(), "--date", "2001-06-30"]).ok();
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    assert!(html.contains("<section id=\"ura2014\">"));
    assert!(html.contains("Ours are not run yet"));
    let t = table(&html, "ura2014-table-1");
    assert_eq!(t.len(), 11, "the paper's ten rows and the header");
    assert_eq!(t[3][..6], ["5", "512", "without updates", "paper", "24 (12)", "32"]);
    assert_eq!(t[3][col(&t, "leaf ratio")], "1.276", "1,008 / 790 leaves");

    std::fs::create_dir_all(d.join("results/ura2014")).unwrap();
    let head = "b,d,d_prime,procs,method,search_time_s,speedup,leaves_millions,startup_idle_s,other_idle_s,algorithm,trees,leaf_ratio\n";
    d.write(
        "results/ura2014/table1.csv",
        &format!(
            "{head}5,18,9,1,sequential,12.500000,1.000,2.000000,,,seq,4,1.0000\n5,18,9,512,with updates,0.250000,50.000,5.000000,0.010000,0.020000,master-worker,4,2.5000\n\
             5,18,9,512,without updates,0.312500,40.000,4.000000,0.010000,0.030000,master-worker-noupdate,4,2.0000\n\
             5,16,8,512,with updates,0.100000,20.000,1.000000,0.010000,0.020000,master-worker,4,3.0000\n\
             5,16,8,512,without updates,0.125000,16.000,1.000000,0.010000,0.020000,master-worker-noupdate,4,3.0000\n"
        ),
    );
    d.write(
        "results/ura2014/table6.csv",
        "b,d,d_prime,procs,method,epsilon,search_time_s,speedup,leaves_millions,startup_idle_s,other_idle_s,algorithm,trees,leaf_ratio\n\
         5,18,9,512,without epsilon-windows,,0.250000,50.000,5.000000,0.010000,0.020000,master-worker,4,2.5000\n\
         5,18,9,512,with epsilon-windows,200,0.200000,62.500,4.000000,0.010000,0.020000,master-worker-negascout,4,2.0000\n",
    );
    d.write("results/ura2014/calibration.csv", "b,d,d_prime,trees,leaves,nodes,paper_ns_per_leaf,node_ns\n5,18,9,4,8000000,14000000,24606.228,14061\n");
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    assert!(!html.contains("Ours are not run yet"));
    let t = table(&html, "ura2014-table-1");
    // The paper's row at P = 512 with updates, then ours at d = 16 and 18.
    let at = t.iter().position(|r| r[..4] == ["5", "512", "with updates", "paper"]).unwrap();
    assert_eq!(t[at + 1][..6], ["5", "512", "with updates", "ours", "16 (8)", "4"]);
    assert_eq!(t[at + 2][..6], ["5", "512", "with updates", "ours", "18 (9)", "4"]);
    assert_eq!(t[at + 2][col(&t, "speed-up")], "50.0");
    assert_eq!(t[at + 2][col(&t, "search time (s)")], "0.2500");
    let t6 = table(&html, "ura2014-table-6");
    let eps = t6.iter().find(|r| r[2] == "with epsilon-windows" && r[4] == "ours").unwrap();
    assert_eq!((eps[3].as_str(), eps[col(&t6, "leaf ratio")].as_str()), ("200", "2.000"));
    assert!(html.contains("<figure class=\"plot\" id=\"ura2014-b5\">"));
    assert!(d.join("results/figures/ura2014-b5.png").is_file());
    assert!(html.contains("b = 5, P = 512, d = 18: speed-up 50.00 with updates, 40.00 without; leaf ratio 2.50 with updates (the paper at d = 24: 343.00 and 385.00, leaf ratio 1.47)."));
    assert!(html.contains("b = 5, d = 18, synthetic: 14,061 ns"));
}

/// A fresh page (no run of the user's) shows the committed reference run
/// (`data/reference/ura2014/`) beside the paper's Table 1, labelled as
/// such, at both of the paper's sizes, with its trees' spread.
#[test]
fn a_fresh_page_shows_the_reference_run_beside_the_paper() {
    let d = Dir::new("report-ura2014-reference");
    std::fs::create_dir_all(d.join("results")).unwrap();
    report(&d, &[]);
    let html = d.read("results/report/index.html");
    assert!(!html.contains("Ours are not run yet"));
    assert!(html.contains("committed reference run"));
    let t = table(&html, "ura2014-table-1");
    let at = t.iter().position(|r| r[..4] == ["5", "512", "with updates", "paper"]).unwrap();
    assert_eq!(t[at + 1][..6], ["5", "512", "with updates", "reference run", "24 (12)", "8"]);
    assert_eq!(t[at + 1][col(&t, "speed-up")], "313.1");
    assert_eq!(t[at + 1][col(&t, "trees' leaf ratios")], "1.524–1.861");
    let at = t.iter().position(|r| r[..4] == ["20", "1,536", "without updates", "paper"]).unwrap();
    assert_eq!(t[at + 1][..6], ["20", "1,536", "without updates", "reference run", "12 (6)", "8"]);
    assert_eq!(t[at + 1][col(&t, "leaf ratio")], "2.990");
}

/// A bad cell is quoted with its control characters escaped, on one line.
#[test]
fn a_bad_cell_is_quoted_escaped() {
    let d = Dir::new("report-escape");
    std::fs::create_dir_all(d.join("results/nodes")).unwrap();
    d.write("results/nodes/bad.csv", "tree,seed,b,wa,wb,depth,nodes,leaves,internal,contributing,root_value\n1,5,32,79,5,3,\x1b[31m,8,2,2,7\n");
    let err = d.tool("report").args(["--published", &published()]).fails("column `nodes`: `\\u{1b}[31m` is not an integer (results/nodes/bad.csv:2)");
    assert!(!err.contains('\x1b'), "{err}");
}
