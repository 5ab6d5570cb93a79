//! Issue 22 (hardening II): what a hostile-input probe and a newcomer's
//! first day still found, one test per item (numbered in the issue's order;
//! the report's items are in `report/tests/hardening2.rs`). Each refusal is
//! checked for its exit code, its one line naming the input and the value,
//! and the files it leaves.

use crate::util::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The repository's own file `p`.
fn repo(p: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// Runs a tool that must fail with exit 1 and one line naming `needle`,
/// writing nothing to stdout.
fn refused(d: &Dir, tool: &str, args: &[&str], stdin: &str, needle: &str) -> String {
    let out = run_in(&d.path, tool, args, stdin);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{tool} {args:?} should fail with 1: {err}");
    assert_eq!(err.lines().count(), 1, "{tool} {args:?}: one line expected: {err}");
    assert!(err.starts_with(&format!("{tool}: ")), "{err}");
    assert!(err.contains(needle), "{tool} {args:?}: `{needle}` expected in: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty(), "{tool} {args:?} wrote to stdout");
    err
}

/// A small training set `p.csv` (8 tg2 trees of (20, 69, 19) at depth 3).
fn patterns(d: &Dir) {
    let trees = ok(&d.path, "treegen", &["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "8"], "");
    d.write("p.csv", &ok(&d.path, "trainset", &[], &trees));
}

/// A network `name` trained for 5 iterations on `p.csv` with `seed`.
fn network(d: &Dir, name: &str, seed: &str) {
    ok(&d.path, "nntrain", &["p.csv", "--iterations", "5", "--seed", seed, "-o", name], "");
}

const BK01: &str = "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - -";

/// 1: `nntrain --curve - -o w.json | head` lost w.json: the closed stdout
/// ended the run before the files were committed.
#[test]
fn i1_a_closed_stdout_does_not_cost_the_file_outputs() {
    let d = Dir::new("i1");
    patterns(&d);
    for curve_every in ["10", "1"] {
        let _ = std::fs::remove_file(d.join("w.json"));
        let mut child = Command::new(bin("nntrain"))
            .args(["p.csv", "--iterations", "2000", "--curve-every", curve_every, "--curve", "-", "-o", "w.json"])
            .current_dir(&d.path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before anything is written (`| true`).
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "a closed stdout is no error: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "quietly: {}", String::from_utf8_lossy(&out.stderr));
        assert!(d.read("w.json").contains("\"root_wait\""), "the weights file is committed");
    }
    assert_eq!(d.files(), vec!["p.csv", "w.json"], "no temporary file left");
}

/// 2: `-o w.json --curve w.json` (or `./w.json`, or a link to it) wrote
/// the curve over the weights.
#[test]
fn i2_two_outputs_naming_one_file_are_refused() {
    let d = Dir::new("i2");
    patterns(&d);
    d.write("w.json", "old\n");
    std::os::unix::fs::symlink("w.json", d.join("link.json")).unwrap();
    let start = Instant::now();
    let absolute = d.join("w.json").display().to_string();
    for curve in ["w.json", "./w.json", "link.json", &absolute] {
        refused(&d, "nntrain", &["p.csv", "--iterations", "1000000", "-o", "w.json", "--curve", curve], "", "are the same file");
    }
    // Both on stdout would run the weights and the curve together.
    refused(&d, "nntrain", &["p.csv", "--iterations", "1000000", "--curve", "-"], "", "-o stdout and --curve stdout are the same file");
    assert!(start.elapsed() < Duration::from_secs(20), "refused before training: {:?}", start.elapsed());
    assert_eq!(d.read("w.json"), "old\n");
    assert_eq!(d.files(), vec!["link.json", "p.csv", "w.json"]);
    // Two files are fine.
    ok(&d.path, "nntrain", &["p.csv", "--iterations", "5", "-o", "w.json", "--curve", "c.csv"], "");
    assert!(d.read("c.csv").starts_with("iteration,"));
}

/// 4: two networks for one ordering: the first was used, silently.
#[test]
fn i4_classify_refuses_two_networks_for_one_ordering() {
    let d = Dir::new("i4");
    patterns(&d);
    network(&d, "w1.json", "1");
    network(&d, "w2.json", "2");
    ok(&d.path, "treegen", &["--ordering", "20,69,19", "--depth", "3", "--count", "4", "-o", "t.jsonl"], "");
    let err =
        refused(&d, "classify", &["t.jsonl", "--weights", "w1.json", "--weights", "w2.json", "-o", "c.csv"], "", "both trained for exponential (20,69,19)");
    assert!(err.contains("w1.json") && err.contains("w2.json"), "{err}");
    assert!(!d.join("c.csv").exists());
    ok(&d.path, "classify", &["t.jsonl", "--weights", "w1.json", "-o", "c.csv"], "");
}

/// The data file's header and a row of position `p` with the given counts.
fn rajahx_row(p: u32, nodes: u64, moves: u64, f1: u64, f2: u64) -> String {
    format!("{p},{nodes},{moves},{f1},{f2},0,0,0,0,0,0,0,0\n")
}
const RAJAHX_HEADER: &str = "position,nodes_valid,pseudo_legal_moves,fbest_1,fbest_2,fbest_3,fbest_4,fbest_5,fbest_6,fbest_7,fbest_8,fbest_9,fbest_10\n";

/// 5: a NaN p_best fitted to a NaN; RajahX sums wrapped; f_best above the
/// node count gave p_best 5.0.
#[test]
fn i5_fbest_refuses_nan_fits_and_impossible_chess_counts() {
    let d = Dir::new("i5");
    let mut game = String::from("game,depth,trees,b,n,fbest,pbest\n");
    for (n, p) in ["0.5", "0.2", "NaN", "0.1"].iter().enumerate() {
        game.push_str(&format!("chess,5,24,30.00,{},10,{p}\n", n + 1));
    }
    d.write("g.csv", &game);
    refused(&d, "fbest", &["--fit", "g.csv", "-o", "f.csv"], "", "p_best NaN at n = 3 is not a probability in [0, 1] (g.csv:4)");
    d.write("g.csv", &game.replace("30.00", "inf").replace("NaN", "0.1"));
    refused(&d, "fbest", &["--fit", "g.csv", "-o", "f.csv"], "", "average branching factor inf");
    // f_best(1) + f_best(2) above the node count: p_best 5.0 before.
    d.write("r.csv", &format!("{RAJAHX_HEADER}{}{}", rajahx_row(1, 100, 3000, 60, 30), rajahx_row(2, 10, 300, 30, 20)));
    refused(&d, "fbest", &["--rajahx", "r.csv", "-o", "f.csv"], "", "position 2: f_best(1..10) add up to 50, more than its 10 contributing nodes (r.csv:3)");
    // Counts whose totals wrap around 2^64 (checked addition).
    let big = 1u64 << 63;
    d.write("r.csv", &format!("{RAJAHX_HEADER}{}{}", rajahx_row(1, big, big, 5, 0), rajahx_row(2, big, big, 5, 0)));
    refused(&d, "fbest", &["--rajahx", "r.csv", "-o", "f.csv"], "", "do not fit a 64-bit count (r.csv)");
    assert!(!d.join("f.csv").exists());
    // The thesis's own file still works.
    let out = ok(&d.path, "fbest", &["--rajahx", repo("data/rajahx-fbest.csv").to_str().unwrap()], "");
    assert_eq!(out.lines().count(), 11);
}

/// 6 and 17: a number where a move counter would be was read as an EPD
/// opcode: it swallowed the `id`, or a negative clock was dropped and the
/// clocks reset to `0 1`, without a word.
#[test]
fn i6_i17_move_counters_must_be_counters() {
    let d = Dir::new("i6");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    d.write("big.epd", &format!("{start} 99999999999 1 id \"big\";\n"));
    refused(
        &d,
        "treegen",
        &["--game", "chess", "--positions", "big.epd", "--depth", "2"],
        "",
        "the halfmove clock `99999999999` is not a non-negative integer",
    );
    d.write("neg.epd", &format!("{start} -5 1 id \"neg\";\n"));
    refused(&d, "treegen", &["--game", "chess", "--positions", "neg.epd", "--depth", "2"], "", "the halfmove clock `-5` is not a non-negative integer");
    d.write("neg.epd", &format!("{start} 5 -1\n"));
    refused(&d, "treegen", &["--game", "chess", "--positions", "neg.epd", "--depth", "2"], "", "the fullmove number `-1`");
    d.write("one.epd", &format!("{start} 5\n"));
    refused(&d, "treegen", &["--game", "chess", "--positions", "one.epd", "--depth", "2"], "", "the fullmove number is missing");
    // An opcode starts with a letter.
    d.write("op.epd", &format!("{start} 7x id \"a\";\n"));
    refused(&d, "treegen", &["--game", "chess", "--positions", "op.epd", "--depth", "2"], "", "`7x` is not an EPD operation");
    // Counters and operations that are what they say are read as before.
    d.write("ok.epd", &format!("{start} 3 9 id \"ok\";\n{BK01} id \"BK.01\";\n"));
    let out = ok(&d.path, "treegen", &["--game", "chess", "--positions", "ok.epd", "--depth", "2"], "");
    assert!(out.contains("\"id\":\"ok\"") && out.contains("KQkq - 3 9") && out.contains("\"id\":\"BK.01\""), "{out}");
}

/// 7: the same seed, position, RajahX row or training pattern twice was
/// counted twice.
#[test]
fn i7_repeated_seeds_positions_rows_and_patterns_are_refused() {
    let d = Dir::new("i7");
    d.write("seeds.txt", "12345\n# a comment\n67890\n12345\n");
    refused(&d, "treegen", &["--set", "seeds.txt", "--ordering", "4,50,10", "--depth", "3"], "", "seed 12345 repeats line 1 (seeds.txt:4)");
    // The same position twice, under another id and other move counters.
    d.write("p.epd", &format!("{BK01} id \"BK.01\";\n\n{BK01} 4 20 id \"again\";\n"));
    refused(&d, "treegen", &["--game", "chess", "--positions", "p.epd", "--depth", "2"], "", "position repeats line 1 (p.epd:3)");
    let othello = std::fs::read_to_string(repo("data/positions/othello-test.txt")).unwrap();
    let first = othello.lines().find(|l| !l.starts_with('#') && !l.trim().is_empty()).unwrap();
    d.write("o.txt", &format!("{first}\n{first}\n"));
    refused(&d, "treegen", &["--game", "othello", "--positions", "o.txt", "--depth", "2"], "", "position repeats line 1 (o.txt:2)");
    d.write("r.csv", &format!("{RAJAHX_HEADER}{}{}{}", rajahx_row(1, 100, 3000, 60, 20), rajahx_row(2, 10, 300, 3, 2), rajahx_row(1, 100, 3000, 60, 20)));
    refused(&d, "fbest", &["--rajahx", "r.csv"], "", "position 1 repeats line 2 (r.csv:4)");
    // A pattern row twice: nntrain would train on it twice.
    patterns(&d);
    let p = d.read("p.csv");
    let mut lines: Vec<&str> = p.lines().collect();
    lines.push(lines[5]);
    d.write("twice.csv", &(lines.join("\n") + "\n"));
    refused(
        &d,
        "nntrain",
        &["twice.csv", "--iterations", "5", "-o", "w.json"],
        "",
        &format!("repeats line 6: give each pattern once (twice.csv:{})", lines.len()),
    );
    assert!(!d.join("w.json").exists());
}

/// 8: a weights file with `root_wait` ±1e300 was accepted; nntrain trained
/// b = 4097 and wrote weights its own loader refuses.
#[test]
fn i8_weights_out_of_their_ranges_are_refused() {
    let d = Dir::new("i8");
    patterns(&d);
    network(&d, "w.json", "1");
    ok(&d.path, "treegen", &["--ordering", "20,69,19", "--depth", "3", "--count", "4", "-o", "t.jsonl"], "");
    let w = d.read("w.json");
    let line = w.lines().find(|l| l.contains("\"root_wait\"")).unwrap().to_string();
    for v in ["1e300", "-1e300", "20.5"] {
        d.write("bad.json", &w.replace(&line, &format!("  \"root_wait\": {v},")));
        refused(&d, "classify", &["t.jsonl", "--weights", "bad.json"], "", "lies outside the wait range [0, b = 20]");
    }
    // b = 4097: refused before training, no file written.
    let p = d.read("p.csv");
    let wide: String = p.lines().enumerate().map(|(i, l)| if i == 0 { format!("{l}\n") } else { format!("{}\n", l.replacen(",20,", ",4097,", 1)) }).collect();
    d.write("wide.csv", &wide);
    refused(&d, "nntrain", &["wide.csv", "--iterations", "5", "-o", "w4097.json"], "", "4097");
    assert!(!d.join("w4097.json").exists());
}

/// 9: a key given twice took the last value (the tree spec and the weights
/// file were read through `serde_json::Value`).
#[test]
fn i9_repeated_keys_are_refused() {
    let d = Dir::new("i9");
    let spec = r#"{"set":"tg1","index":1,"seed":5,"pscore":7,"model":"exponential","b":32,"wa":0,"wb":0,"depth":3,"b":2}"#;
    refused(&d, "fbest", &[], spec, "duplicate field `b`");
    let game = format!(r#"{{"game":"chess","set":"x","index":1,"id":"","position":"{BK01} 0 1","depth":2,"depth":9}}"#);
    refused(&d, "fbest", &[], &game, "duplicate field `depth`");
    patterns(&d);
    network(&d, "w.json", "1");
    ok(&d.path, "treegen", &["--ordering", "20,69,19", "--depth", "3", "--count", "4", "-o", "t.jsonl"], "");
    let w = d.read("w.json");
    let line = w.lines().find(|l| l.contains("\"root_type\"")).unwrap().to_string();
    d.write("dup.json", &w.replace(&line, &format!("{line}\n  \"root_type\": 99.0,")));
    refused(&d, "classify", &["t.jsonl", "--weights", "dup.json"], "", "duplicate field `root_type`");
    let line = w.lines().find(|l| l.contains("\"iterations\"")).unwrap().to_string();
    d.write("dup.json", &w.replace(&line, &format!("{line}\n    \"iterations\": 7,")));
    refused(&d, "classify", &["t.jsonl", "--weights", "dup.json"], "", "duplicate field `iterations`");
}

/// 10: options that would be ignored without a word are refused.
#[test]
fn i10_options_that_would_be_ignored_are_refused() {
    let d = Dir::new("i10");
    ok(&d.path, "treegen", &["--ordering", "20,69,19", "--depth", "3", "--count", "4", "-o", "t.jsonl"], "");
    let rajahx = repo("data/rajahx-fbest.csv").display().to_string();
    for (mode, input) in [(vec!["--analytic", "--ordering", "32,79,5"], "t.jsonl"), (vec!["--analytic", "--ordering", "32,79,5"], "missing.jsonl")] {
        let args = [mode.clone(), vec![input, "-o", "out.csv"]].concat();
        refused(&d, "fbest", &args, "", &format!("--analytic reads no tree specs, but an input `{input}` was given"));
    }
    refused(&d, "fbest", &["--rajahx", &rajahx, "t.jsonl", "-o", "out.csv"], "", "--rajahx reads no tree specs");
    refused(&d, "fbest", &["--fit", "x.csv", "t.jsonl", "-o", "out.csv"], "", "--fit reads no tree specs");
    refused(&d, "classify", &["t.jsonl", "--scheme", "a", "--m", "5", "-o", "out.csv"], "", "--m 5 is scheme C's parameter, but scheme c is not scored");
    refused(&d, "classify", &["t.jsonl", "--scheme", "a", "--n", "3", "-o", "out.csv"], "", "--n 3 is scheme B's parameter, but scheme b is not scored");
    ok(&d.path, "pabsim", &["t.jsonl", "--procs", "1,4", "--per-tree", "-o", "s.csv"], "");
    for opt in [&["--procs", "48"][..], &["--scheme", "a"], &["--m-a", "3"], &["--policy", "steal"], &["--lock", "queue"], &["--interleave", "state"]] {
        let args = [&["--merge", "s.csv", "-o", "out.csv"][..], opt].concat();
        let out = run_in(&d.path, "pabsim", &args, "");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.lines().count() == 1 && err.contains("'--merge' cannot be used with") && err.contains(opt[0]), "{args:?}: {err}");
    }
    assert!(!d.join("out.csv").exists());
    ok(&d.path, "pabsim", &["--merge", "s.csv", "-o", "out.csv"], "");
}

/// 12: `--threads 100000` started 100,000 threads; `positions` walked for
/// 20 minutes before a refusal; `trainset` on a depth-10 tree died of an
/// allocation failure at 11.5 GB.
#[test]
fn i12_unbounded_requests_are_refused_at_once() {
    let d = Dir::new("i12");
    // (Values an old build would accept cheaply, so that the test fails
    // there rather than burying the machine.)
    for n in ["257", "1000"] {
        refused(&d, "fbest", &["--threads", n, "--analytic", "--ordering", "32,79,5"], "", &format!("--threads {n} is more than"));
    }
    let start = Instant::now();
    refused(&d, "positions", &["--game", "othello", "--count", "2000", "--seed", "1", "--plies", "100"], "", "the last 10000 of them adding none");
    assert!(start.elapsed() < Duration::from_secs(10), "gave up after {:?}", start.elapsed());
    // Under a 2 GB address-space limit an old build aborts in seconds; this
    // one refuses before searching, with its estimate.
    ok(&d.path, "treegen", &["--set", "tg2", "--ordering", "32,0,0", "--depth", "10", "--count", "1", "-o", "d10.jsonl"], "");
    let start = Instant::now();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -v 2000000 && exec {} d10.jsonl -o p.csv", bin("trainset").display()))
        .current_dir(&d.path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("trainset: exponential (32,0,0) depth 10: the first tree alone enters about "), "{err}");
    assert!(err.contains("GB, more than the ") && err.contains("use a smaller depth"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert!(!d.join("p.csv").exists());
}

/// 13: a byte-order mark was part of the first seed, FEN or tree spec
/// (and invisible in the message).
#[test]
fn i13_a_byte_order_mark_is_dropped() {
    let d = Dir::new("i13");
    let bom = "\u{feff}";
    d.write("s.txt", "12345\n67890\n");
    d.write("sb.txt", &format!("{bom}12345\n67890\n"));
    let plain = ok(&d.path, "treegen", &["--set", "s.txt", "--ordering", "4,50,10", "--depth", "3"], "");
    let marked = ok(&d.path, "treegen", &["--set", "sb.txt", "--ordering", "4,50,10", "--depth", "3"], "");
    assert_eq!(marked, plain.replace("\"s.txt\"", "\"sb.txt\""));
    d.write("p.epd", &format!("{bom}{BK01} id \"BK.01\";\n"));
    let specs = ok(&d.path, "treegen", &["--game", "chess", "--positions", "p.epd", "--depth", "2"], "");
    assert!(specs.contains("\"id\":\"BK.01\""), "{specs}");
    // Tree specs, a weights file and a table to fit.
    let fb = ok(&d.path, "fbest", &[], &format!("{bom}{plain}"));
    assert_eq!(fb, ok(&d.path, "fbest", &[], &plain));
    patterns(&d);
    network(&d, "w.json", "1");
    d.write("wb.json", &format!("{bom}{}", d.read("w.json")));
    ok(&d.path, "treegen", &["--ordering", "20,69,19", "--depth", "3", "--count", "4", "-o", "t.jsonl"], "");
    ok(&d.path, "classify", &["t.jsonl", "--weights", "wb.json"], "");
}

/// 14: `docs/decisions.md` said `--n 0..4096` where n = 0 is refused.
#[test]
fn i14_classify_n_starts_at_one_as_documented() {
    let d = Dir::new("i14");
    ok(&d.path, "treegen", &["--ordering", "20,69,19", "--depth", "3", "--count", "2", "-o", "t.jsonl"], "");
    refused(&d, "classify", &["t.jsonl", "--n", "0..3"], "", "--n values must lie in 1..4096, got 0..3");
    let decisions = std::fs::read_to_string(repo("docs/decisions.md")).unwrap();
    assert!(decisions.contains("`classify --n` lies in 1..4096"));
    assert!(!decisions.contains("0..4096"));
}

/// 15: castling rights that standard chess cannot have were searched as
/// Chess960 (perft 26/549/12693 where standard chess gives 24/503/11463).
#[test]
fn i15_castling_rights_of_standard_chess_only() {
    let d = Dir::new("i15");
    for (fen, needle) in [
        ("r3k2r/8/8/8/8/8/8/R4K1R w KQkq -", "castling rights for White with its king on f1"),
        ("r4k1r/8/8/8/8/8/8/R3K2R w KQkq -", "castling rights for Black with its king on f8"),
    ] {
        d.write("p.epd", &format!("{fen}\n"));
        let err = refused(&d, "treegen", &["--game", "chess", "--positions", "p.epd", "--depth", "2"], "", needle);
        assert!(err.contains("(p.epd:1)"), "{err}");
        let spec = format!(r#"{{"game":"chess","set":"x","index":1,"id":"","position":"{fen} 0 1","depth":2}}"#);
        refused(&d, "fbest", &[], &spec, needle);
    }
    // Standard rights, and the same board without them, are accepted.
    d.write("p.epd", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq -\nr3k2r/8/8/8/8/8/8/R4K1R w kq -\n");
    let out = ok(&d.path, "treegen", &["--game", "chess", "--positions", "p.epd", "--depth", "2"], "");
    assert_eq!(out.lines().count(), 2);
}

/// 16: text that is not UTF-8 was reported without its line.
#[test]
fn i16_text_that_is_not_utf8_is_named_by_its_line() {
    let d = Dir::new("i16");
    std::fs::write(d.join("p.epd"), [format!("{BK01} id \"a\";\n").as_bytes(), b"8/8/8/8/8/8/8/K6k w - - id \"\xff\";\n"].concat()).unwrap();
    refused(&d, "treegen", &["--game", "chess", "--positions", "p.epd", "--depth", "2"], "", "not UTF-8 text (byte 29 of the line) (p.epd:2)");
    std::fs::write(d.join("s.txt"), b"12345\n\n6\xe97890\n").unwrap();
    refused(&d, "treegen", &["--set", "s.txt", "--ordering", "4,50,10", "--depth", "3"], "", "not UTF-8 text (byte 2 of the line) (s.txt:3)");
    let spec = ok(&d.path, "treegen", &["--ordering", "20,69,19", "--depth", "3", "--count", "1"], "");
    std::fs::write(d.join("t.jsonl"), [spec.as_bytes(), b"{\"set\":\"\xc3\"}\n"].concat()).unwrap();
    refused(&d, "fbest", &["t.jsonl"], "", "not UTF-8 text (byte 9 of the line) (t.jsonl:2)");
}

/// 17: a 2 MB FEN field was echoed whole into the error line, NUL bytes raw.
#[test]
fn i17_messages_quote_a_short_escaped_excerpt() {
    let d = Dir::new("i17");
    let huge = format!("{}\0{} w - -\n", "x".repeat(1_000_000), "y".repeat(1_000_000));
    d.write("p.epd", &huge);
    let err = refused(&d, "treegen", &["--game", "chess", "--positions", "p.epd", "--depth", "2"], "", "bad FEN `xxxxxxxx");
    assert!(err.len() < 400, "{} bytes: {}", err.len(), &err[..400.min(err.len())]);
    assert!(err.contains("… (2000007 characters)") && err.contains("(p.epd:1)"), "{err}");
    d.write("p.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN\0 w - -\n");
    let err = refused(&d, "treegen", &["--game", "chess", "--positions", "p.epd", "--depth", "2"], "", "RNBQKBN\\u{0} w - -");
    assert!(!err.contains('\0'));
    d.write("s.txt", &format!("{}\n", "9".repeat(100_000)));
    let err = refused(&d, "treegen", &["--set", "s.txt", "--ordering", "4,50,10", "--depth", "3"], "", "is not a seed");
    assert!(err.len() < 300, "{err}");
}

/// 19: `make all` built the report crate only after the simulations.
#[test]
fn i19_make_all_builds_every_binary_first() {
    let out = Command::new("make").args(["-n", "-B", "all"]).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let at = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no `{needle}` in make -n all"));
    let report = at("build --release -p parab-report");
    let first_run = at("/treegen ");
    assert!(report < first_run, "the report is built at command {report}, after the first tree generation at {first_run}");
}

/// 20: `make test` said nothing while apt installed Chromium and Slurm
/// when its output was not a terminal. Run against a fake `apt-get` (and
/// a fake `id` saying root), with stderr a pipe.
#[test]
fn i20_test_setup_says_what_it_installs() {
    let d = Dir::new("i20");
    let fake = d.join("bin");
    std::fs::create_dir(&fake).unwrap();
    let script = |name: &str, body: &str| {
        let p = fake.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    script("id", "echo 0");
    script("apt-get", &format!("echo \"$@\" >> {}", d.join("apt-calls").display()));
    for tool in ["mkdir", "dirname", "cat"] {
        let real = ["/usr/bin", "/bin"].iter().map(|b| Path::new(b).join(tool)).find(|p| p.exists()).unwrap();
        std::os::unix::fs::symlink(real, fake.join(tool)).unwrap();
    }
    let bash = ["/bin/bash", "/usr/bin/bash"].into_iter().find(|p| Path::new(p).exists()).unwrap();
    let out = Command::new(bash)
        .arg(repo("scripts/test-setup.sh"))
        .arg(d.join("env/skips.env"))
        .env("PATH", &fake)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.lines().next().is_some_and(|l| l.starts_with("make test: installing chromium slurm-wlm munge with apt-get")), "{err}");
    assert!(d.read("apt-calls").contains("install -y --no-install-recommends chromium slurm-wlm munge"));
    // The fake installed nothing: both checks are skipped, and said so.
    assert_eq!(d.read("env/skips.env"), "PARAB_SKIP_BROWSER=1\nPARAB_SKIP_SLURM=1\n");
}

/// The shell code blocks of the README, one command a line (continuations joined).
fn readme_commands() -> Vec<String> {
    let text = std::fs::read_to_string(repo("README.md")).unwrap();
    let mut out = vec![];
    let mut inside = false;
    let mut pending = String::new();
    for l in text.lines() {
        if l.starts_with("```") {
            inside = !inside;
            continue;
        }
        if !inside {
            continue;
        }
        let l = l.split(" # ").next().unwrap_or("").trim_end();
        if let Some(head) = l.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        pending.push_str(l);
        out.push(std::mem::take(&mut pending));
    }
    out
}

/// 21: README examples wrote into the repository (`fbest -o chess.csv`,
/// `nntrain -o chess.json`). Every output a README command names lies under
/// `results/` or `/tmp` (the `--help` examples are run in
/// `report/tests/hardening2.rs`, which checks the same of them).
#[test]
fn i21_readme_examples_write_under_results_or_tmp() {
    let commands = readme_commands();
    assert!(commands.iter().any(|c| c.contains("fbest -o /tmp/chess.csv")), "{commands:#?}");
    for c in &commands {
        let words: Vec<&str> = c.split_whitespace().collect();
        for w in words.windows(2) {
            if matches!(w[0], "-o" | "--out-dir" | "--curve" | "--out" | "--figures" | ">") {
                let target = w[1];
                let fine = ["/tmp/", "results/", "$R/", "$", "-"].iter().any(|p| target.starts_with(p)) || target == "/dev/null";
                assert!(fine, "`{c}` writes {target} into the repository");
            }
        }
    }
}

/// 24: "six pipeline tools" in one place, "seven" in another; an executable
/// Markdown file.
#[test]
fn i24_readme_counts_the_tools_and_docs_are_not_executable() {
    let tools = std::fs::read_dir(repo("src/bin")).unwrap().count();
    let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let said: Vec<&str> = readme.split(" pipeline tools").filter_map(|before| before.split_whitespace().last()).filter(|w| words.contains(w)).collect();
    assert!(!said.is_empty());
    assert!(said.iter().all(|w| *w == words[tools]), "src/bin holds {tools} tools; the README says {said:?}");
    let mut docs: Vec<std::path::PathBuf> = std::fs::read_dir(repo("docs")).unwrap().map(|e| e.unwrap().path()).collect();
    docs.extend(["README.md", "BENCHMARKS.md", "Makefile", "data/README.md"].iter().map(|p| repo(p)));
    for p in docs {
        let mode = std::fs::metadata(&p).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0, "{} is executable ({mode:o})", p.display());
    }
}
