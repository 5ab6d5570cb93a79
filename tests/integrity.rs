//! What the tools count once and merge only whole: a tree is one tree
//! whatever its labels (set, index, id), a shard row changed by hand is
//! refused by `--merge`, and the tables a tool reads (training patterns,
//! the chess program's statistics) are checked value by value, with
//! errors naming the file.

use crate::util::*;

/// The same tree twice was caught only when its line was byte-identical:
/// under another index, set name or position id it was searched and
/// counted twice (`fbest` reported trees = 2). A tree is what it is (its
/// generating parameters), and a repeat is refused in one line naming both
/// lines.
#[test]
fn a_tree_repeated_under_other_labels_is_refused() {
    let d = Dir::new("int1");
    incremental_trees(&d, "i.jsonl", 3, 4, 2);
    artificial_trees(&d, "a.jsonl", "4,50,10", 3, 2);
    game_trees(&d, "c.jsonl", "chess", 2, Some(2));
    let first = |f: &str| d.read(f).lines().next().unwrap().to_string();
    let (inc, art, chess) = (first("i.jsonl"), first("a.jsonl"), first("c.jsonl"));
    let relabelled = [
        // An incremental tree under another index (the index names the seed, it does not change the tree).
        (&inc, inc.replace(r#""index":1"#, r#""index":7"#)),
        (&inc, inc.replace(r#""set":"tg1""#, r#""set":"mine""#)),
        // An artificial tree under another set name or index.
        (&art, art.replace(r#""set":"tg1""#, r#""set":"tg2""#)),
        (&art, art.replace(r#""index":1"#, r#""index":3"#)),
        // A position under another id, index or set, or with other move clocks (the search has no fifty-move rule).
        (&chess, chess.replace(r#""index":1"#, r#""index":9"#).replace(r#""set":"bratko-kopec""#, r#""set":"bk""#)),
        (&chess, chess.replace(r#""id":""#, r#""id":"x"#)),
        (&chess, chess.replace(" 0 1\"", " 7 30\"")),
    ];
    for (one, other) in &relabelled {
        assert_ne!(*one, other, "the test changes the line");
        d.write("twice.jsonl", &format!("{one}\n{other}\n"));
        d.tool("fbest").arg("twice.jsonl").fails("tree spec repeats line 1 (twice.jsonl:2): the same tree under another set, index or id");
    }
    // Every tool reads trees the same way.
    d.write("twice.jsonl", &format!("{inc}\n\n{}\n", inc.replace(r#""index":1"#, r#""index":7"#)));
    d.tool("pabsim").args(["twice.jsonl", "-o", "out.csv"]).fails("tree spec repeats line 1 (twice.jsonl:3)");
    d.tool("psearch").args(["twice.jsonl", "-o", "out.csv"]).fails("tree spec repeats line 1 (twice.jsonl:3)");
    // A byte-identical line says only that it repeats.
    d.write("twice.jsonl", &format!("{art}\n{art}\n"));
    d.tool("fbest").arg("twice.jsonl").fails("tree spec repeats line 1 (twice.jsonl:2): give each tree once");
    // Other trees are other trees: another seed, depth, scale or pscore.
    let others = [
        (&inc, inc.replace(r#""depth":4"#, r#""depth":3"#)),
        (&inc, inc.replace(r#""scale":100"#, r#""scale":99"#)),
        (&art, art.replace(r#""pscore":1073741823"#, r#""pscore":1073741822"#)),
    ];
    for (one, other) in &others {
        assert_ne!(*one, other, "the test changes the line");
        d.write("two.jsonl", &format!("{one}\n{other}\n"));
        assert_eq!(column(&d.tool("fbest").args(["two.jsonl", "--per-tree"]).ok(), "tree"), ["1", "1"]);
    }
    let both = format!("{}\n", d.read("i.jsonl").trim_end());
    assert_eq!(column(&d.tool("fbest").args(["--per-tree"]).stdin(&both).ok(), "tree"), ["1", "2"]);
}

/// Changes column `col` of data row `row` (0-based) of CSV `text` to `value`.
fn edit(text: &str, row: usize, col: &str, value: &str) -> String {
    let mut lines: Vec<Vec<String>> = text.lines().map(|l| l.split(',').map(str::to_string).collect()).collect();
    let i = lines[0].iter().position(|c| c == col).unwrap_or_else(|| panic!("no column {col}"));
    assert_ne!(lines[row + 1][i], value, "the test changes the value");
    lines[row + 1][i] = value.to_string();
    lines.iter().map(|l| l.join(",") + "\n").collect()
}

/// `pabsim --merge` merged hand-edited shards: a changed `procs` made a
/// bogus configuration row, a changed tree index emptied SU/SO. Every
/// per-tree row is sealed (its `run` column: the run id and a digest of
/// the row); a changed row is refused in one line naming the file and line.
#[test]
fn merge_refuses_a_changed_shard_row() {
    let d = Dir::new("int2");
    artificial_trees(&d, "t.jsonl", "4,50,10", 4, 3);
    for k in 1..=2 {
        d.tool("pabsim").args(["t.jsonl", "--procs", "1,4", "--per-tree", "--shard", &format!("{k}/2"), "-o", &format!("s{k}.csv")]).ok();
    }
    let single = d.tool("pabsim").args(["t.jsonl", "--procs", "1,4"]).ok();
    let merge = |s1: &str| d.tool("pabsim").args(["--merge", s1, "s2.csv", "-o", "m.csv"]);
    merge("s1.csv").ok();
    assert_eq!(d.read("m.csv"), single, "valid shards merge to the single run's bytes");
    let s1 = d.read("s1.csv");
    // Rows of s1: items 0, 2, 4 (line 2, 3, 4): p = 1 on tree 1 and 3, p = 4 on tree 2.
    assert_eq!(column(&s1, "procs"), ["1", "1", "4"]);
    for (row, col, value) in [(1, "procs", "2"), (2, "tree", "3"), (0, "tp_ticks", "1"), (2, "seed", "5"), (0, "item", "1")] {
        d.write("e.csv", &edit(&s1, row, col, value));
        let err = d.tool("pabsim").args(["--merge", "e.csv", "s2.csv", "-o", "m.csv"]).fails("was changed after pabsim wrote it");
        assert!(err.contains(&format!("(e.csv:{})", row + 2)), "{col}: {err}");
    }
    // A row of another run keeps its own run id: "different runs".
    let run = column(&s1, "run")[0].clone();
    let other = format!("{}{}", &run[..15], if run.as_bytes()[15] == b'0' { '1' } else { '0' });
    d.write("e.csv", &edit(&s1, 0, "run", &format!("{other}{}", &run[16..])));
    d.tool("pabsim").args(["--merge", "s2.csv", "e.csv", "-o", "m.csv"]).fails("come from different runs");
    // A row without a seal (an older pabsim's) is refused, not trusted.
    d.write("e.csv", &edit(&s1, 0, "run", &run[..16]));
    d.tool("pabsim").args(["--merge", "e.csv", "s2.csv", "-o", "m.csv"]).fails("e.csv: a row has no sealed run id");
    // The ratios are recomputed by the merge, so they are not sealed: an
    // edit there changes nothing.
    d.write("e.csv", &edit(&s1, 2, "su", "9.000000"));
    d.tool("pabsim").args(["--merge", "e.csv", "s2.csv", "-o", "m.csv"]).ok();
    assert_eq!(d.read("m.csv"), single);
}

/// `fbest --rajahx` errors did not name the file.
#[test]
fn rajahx_errors_name_the_file() {
    let d = Dir::new("int3");
    let header = "position,nodes_valid,pseudo_legal_moves,fbest_1,fbest_2,fbest_3,fbest_4,fbest_5,fbest_6,fbest_7,fbest_8,fbest_9,fbest_10\n";
    d.write("empty.csv", header);
    d.tool("fbest").args(["--rajahx", "empty.csv", "-o", "out.csv"]).fails("the chess statistics file empty.csv has no rows");
    d.write("zero.csv", &format!("{header}1,0,0,0,0,0,0,0,0,0,0,0,0\n"));
    d.tool("fbest").args(["--rajahx", "zero.csv", "-o", "out.csv"]).fails("the chess statistics in zero.csv have no contributing nodes");
}

/// `nntrain` accepted a `parent` of `banana` and a `level` of 40 at depth 4:
/// a pattern's level lies in 1..depth - 1 and its parent is its address
/// (the parent's moves from the root in 1..b, then zeros).
#[test]
fn nntrain_checks_each_patterns_level_and_parent() {
    let d = Dir::new("int4");
    let trees = d.tool("treegen").args(["--set", "tg2", "--ordering", "4,50,10", "--depth", "4", "--count", "3"]).ok();
    let p = d.tool("trainset").stdin(&trees).ok();
    d.write("p.csv", &p);
    d.tool("nntrain").args(["p.csv", "--iterations", "2"]).ok();
    // Data row 1 is a root's child (level 1, parent 0.0.0); find a level-2 row too.
    assert_eq!(table(&p)[1]["parent"], "0.0.0");
    let level2 = table(&p).iter().position(|r| r["level"] == "2").unwrap();
    assert_eq!(table(&p)[level2]["parent"], "1.0.0");
    for (row, col, value, needle) in [
        (1, "parent", "banana", "parent `banana` is not an address p_1.p_2... of move numbers"),
        (1, "level", "40", "level 40 is outside [1, 3] (the parent addresses have 3 moves: trees of depth 4)"),
        (level2, "parent", "1.0", "parent `1.0` has 2 moves where the first pattern's has 3"),
        (1, "parent", "1.0.0", "parent `1.0.0` of a level-1 child must have 0 moves in 1..4 and then zeros"),
        (level2, "parent", "5.0.0", "parent `5.0.0` of a level-2 child must have 1 moves in 1..4 and then zeros"),
        (level2, "parent", "1.1.0", "parent `1.1.0` of a level-2 child"),
        (0, "parent", "0.0.0", "the root row's parent must be empty, got `0.0.0`"),
    ] {
        d.write("e.csv", &edit(&p, row, col, value));
        let err = d.tool("nntrain").args(["e.csv", "--iterations", "2", "-o", "w.json"]).fails(needle);
        assert!(err.trim_end().ends_with(&format!("(e.csv:{})", row + 2)), "{err}");
    }
}
