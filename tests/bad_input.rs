//! Bad input as a user meets it: values out of their ranges, repeated
//! values, seeds, positions, patterns, keys and networks, options that
//! would be ignored, malformed positions and text, missing arguments,
//! unbounded requests. Each refusal is checked for its exit code, its one
//! line naming the input and the value, and the files it leaves
//! ([`Tool::fails`]).

use crate::util::*;
use std::os::unix::fs::MetadataExt;
use std::process::Command;
use std::time::{Duration, Instant};

/// A network `name` trained for 5 iterations on `p.csv` with `seed`.
fn network(d: &Dir, name: &str, seed: &str) {
    d.tool("nntrain").args(["p.csv", "--iterations", "5", "--seed", seed, "-o", name]).ok();
}

const BK01: &str = "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - -";

/// Two networks for one ordering: the first was used, silently.
#[test]
fn classify_refuses_two_networks_for_one_ordering() {
    let d = Dir::new("i4");
    patterns(&d);
    network(&d, "w1.json", "1");
    network(&d, "w2.json", "2");
    artificial_trees(&d, "t.jsonl", "20,69,19", 3, 4);
    let err =
        d.tool("classify").args(["t.jsonl", "--weights", "w1.json", "--weights", "w2.json", "-o", "c.csv"]).fails("both trained for exponential (20,69,19)");
    assert!(err.contains("w1.json") && err.contains("w2.json"), "{err}");
    assert!(!d.join("c.csv").exists());
    d.tool("classify").args(["t.jsonl", "--weights", "w1.json", "-o", "c.csv"]).ok();
}

/// The data file's header and a row of position `p` with the given counts.
fn rajahx_row(p: u32, nodes: u64, moves: u64, f1: u64, f2: u64) -> String {
    format!("{p},{nodes},{moves},{f1},{f2},0,0,0,0,0,0,0,0\n")
}

const RAJAHX_HEADER: &str = "position,nodes_valid,pseudo_legal_moves,fbest_1,fbest_2,fbest_3,fbest_4,fbest_5,fbest_6,fbest_7,fbest_8,fbest_9,fbest_10\n";

/// A NaN p_best fitted to a NaN; RajahX sums wrapped; f_best above the
/// node count gave p_best 5.0.
#[test]
fn fbest_refuses_nan_fits_and_impossible_chess_counts() {
    let d = Dir::new("i5");
    let mut game = String::from("game,depth,trees,b,n,fbest,pbest\n");
    for (n, p) in ["0.5", "0.2", "NaN", "0.1"].iter().enumerate() {
        game.push_str(&format!("chess,5,24,30.00,{},10,{p}\n", n + 1));
    }
    d.write("g.csv", &game);
    d.tool("fbest").args(["--fit", "g.csv", "-o", "f.csv"]).fails("p_best NaN at n = 3 is not a probability in [0, 1] (g.csv:4)");
    d.write("g.csv", &game.replace("30.00", "inf").replace("NaN", "0.1"));
    d.tool("fbest").args(["--fit", "g.csv", "-o", "f.csv"]).fails("average branching factor inf");
    // f_best(1) + f_best(2) above the node count: p_best 5.0 before.
    d.write("r.csv", &format!("{RAJAHX_HEADER}{}{}", rajahx_row(1, 100, 3000, 60, 30), rajahx_row(2, 10, 300, 30, 20)));
    d.tool("fbest").args(["--rajahx", "r.csv", "-o", "f.csv"]).fails("position 2: f_best(1..10) add up to 50, more than its 10 contributing nodes (r.csv:3)");
    // Counts whose totals wrap around 2^64 (checked addition).
    let big = 1u64 << 63;
    d.write("r.csv", &format!("{RAJAHX_HEADER}{}{}", rajahx_row(1, big, big, 5, 0), rajahx_row(2, big, big, 5, 0)));
    d.tool("fbest").args(["--rajahx", "r.csv", "-o", "f.csv"]).fails("do not fit a 64-bit count (r.csv)");
    assert!(!d.join("f.csv").exists());
    // The thesis's own file still works.
    let out = d.tool("fbest").args(["--rajahx", repo("data/rajahx-fbest.csv").to_str().unwrap()]).ok();
    assert_eq!(out.lines().count(), 11);
}

/// A number where a move counter would be was read as an EPD
/// opcode: it swallowed the `id`, or a negative clock was dropped and the
/// clocks reset to `0 1`, without a word.
#[test]
fn move_counters_must_be_counters() {
    let d = Dir::new("i6");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    d.write("big.epd", &format!("{start} 99999999999 1 id \"big\";\n"));
    d.tool("treegen")
        .args(["--game", "chess", "--positions", "big.epd", "--depth", "2"])
        .fails("the halfmove clock `99999999999` is not a non-negative integer");
    d.write("neg.epd", &format!("{start} -5 1 id \"neg\";\n"));
    d.tool("treegen").args(["--game", "chess", "--positions", "neg.epd", "--depth", "2"]).fails("the halfmove clock `-5` is not a non-negative integer");
    d.write("neg.epd", &format!("{start} 5 -1\n"));
    d.tool("treegen").args(["--game", "chess", "--positions", "neg.epd", "--depth", "2"]).fails("the fullmove number `-1`");
    d.write("one.epd", &format!("{start} 5\n"));
    d.tool("treegen").args(["--game", "chess", "--positions", "one.epd", "--depth", "2"]).fails("the fullmove number is missing");
    // An opcode starts with a letter.
    d.write("op.epd", &format!("{start} 7x id \"a\";\n"));
    d.tool("treegen").args(["--game", "chess", "--positions", "op.epd", "--depth", "2"]).fails("`7x` is not an EPD operation");
    // Counters and operations that are what they say are read as before.
    d.write("ok.epd", &format!("{start} 3 9 id \"ok\";\n{BK01} id \"BK.01\";\n"));
    let out = d.tool("treegen").args(["--game", "chess", "--positions", "ok.epd", "--depth", "2"]).ok();
    assert!(out.contains("\"id\":\"ok\"") && out.contains("KQkq - 3 9") && out.contains("\"id\":\"BK.01\""), "{out}");
}

/// The same seed, position, RajahX row or training pattern twice was
/// counted twice.
#[test]
fn repeated_seeds_positions_rows_and_patterns_are_refused() {
    let d = Dir::new("i7");
    d.write("seeds.txt", "12345\n# a comment\n67890\n12345\n");
    d.tool("treegen").args(["--set", "seeds.txt", "--ordering", "4,50,10", "--depth", "3"]).fails("seed 12345 repeats line 1 (seeds.txt:4)");
    // The same position twice, under another id and other move counters.
    d.write("p.epd", &format!("{BK01} id \"BK.01\";\n\n{BK01} 4 20 id \"again\";\n"));
    d.tool("treegen").args(["--game", "chess", "--positions", "p.epd", "--depth", "2"]).fails("position repeats line 1 (p.epd:3)");
    let othello = std::fs::read_to_string(repo("data/positions/othello-test.txt")).unwrap();
    let first = othello.lines().find(|l| !l.starts_with('#') && !l.trim().is_empty()).unwrap();
    d.write("o.txt", &format!("{first}\n{first}\n"));
    d.tool("treegen").args(["--game", "othello", "--positions", "o.txt", "--depth", "2"]).fails("position repeats line 1 (o.txt:2)");
    d.write("r.csv", &format!("{RAJAHX_HEADER}{}{}{}", rajahx_row(1, 100, 3000, 60, 20), rajahx_row(2, 10, 300, 3, 2), rajahx_row(1, 100, 3000, 60, 20)));
    d.tool("fbest").args(["--rajahx", "r.csv"]).fails("position 1 repeats line 2 (r.csv:4)");
    // A pattern row twice: nntrain would train on it twice.
    patterns(&d);
    let p = d.read("p.csv");
    let mut lines: Vec<&str> = p.lines().collect();
    lines.push(lines[5]);
    d.write("twice.csv", &(lines.join("\n") + "\n"));
    d.tool("nntrain")
        .args(["twice.csv", "--iterations", "5", "-o", "w.json"])
        .fails(&format!("repeats line 6: give each pattern once (twice.csv:{})", lines.len()));
    assert!(!d.join("w.json").exists());
}

/// A weights file with `root_wait` ±1e300 was accepted; nntrain trained
/// b = 4097 and wrote weights its own loader refuses.
#[test]
fn weights_out_of_their_ranges_are_refused() {
    let d = Dir::new("i8");
    patterns(&d);
    network(&d, "w.json", "1");
    artificial_trees(&d, "t.jsonl", "20,69,19", 3, 4);
    let w = d.read("w.json");
    let line = w.lines().find(|l| l.contains("\"root_wait\"")).unwrap().to_string();
    for v in ["1e300", "-1e300", "20.5"] {
        d.write("bad.json", &w.replace(&line, &format!("  \"root_wait\": {v},")));
        d.tool("classify").args(["t.jsonl", "--weights", "bad.json"]).fails("lies outside the wait range [0, b = 20]");
    }
    // b = 4097: refused before training, no file written.
    let p = d.read("p.csv");
    let wide: String = p.lines().enumerate().map(|(i, l)| if i == 0 { format!("{l}\n") } else { format!("{}\n", l.replacen(",20,", ",4097,", 1)) }).collect();
    d.write("wide.csv", &wide);
    d.tool("nntrain").args(["wide.csv", "--iterations", "5", "-o", "w4097.json"]).fails("4097");
    assert!(!d.join("w4097.json").exists());
}

/// A key given twice took the last value (the tree spec and the weights
/// file were read through `serde_json::Value`).
#[test]
fn repeated_keys_are_refused() {
    let d = Dir::new("i9");
    let spec = r#"{"set":"tg1","index":1,"seed":5,"pscore":7,"model":"exponential","b":32,"wa":0,"wb":0,"depth":3,"b":2}"#;
    d.tool("fbest").stdin(spec).fails("duplicate field `b`");
    let game = format!(r#"{{"game":"chess","set":"x","index":1,"id":"","position":"{BK01} 0 1","depth":2,"depth":9}}"#);
    d.tool("fbest").stdin(&game).fails("duplicate field `depth`");
    patterns(&d);
    network(&d, "w.json", "1");
    artificial_trees(&d, "t.jsonl", "20,69,19", 3, 4);
    let w = d.read("w.json");
    let line = w.lines().find(|l| l.contains("\"root_type\"")).unwrap().to_string();
    d.write("dup.json", &w.replace(&line, &format!("{line}\n  \"root_type\": 99.0,")));
    d.tool("classify").args(["t.jsonl", "--weights", "dup.json"]).fails("duplicate field `root_type`");
    let line = w.lines().find(|l| l.contains("\"iterations\"")).unwrap().to_string();
    d.write("dup.json", &w.replace(&line, &format!("{line}\n    \"iterations\": 7,")));
    d.tool("classify").args(["t.jsonl", "--weights", "dup.json"]).fails("duplicate field `iterations`");
}

/// Options that would be ignored without a word are refused.
#[test]
fn options_that_would_be_ignored_are_refused() {
    let d = Dir::new("i10");
    artificial_trees(&d, "t.jsonl", "20,69,19", 3, 4);
    let rajahx = repo("data/rajahx-fbest.csv").display().to_string();
    for (mode, input) in [(vec!["--analytic", "--ordering", "32,79,5"], "t.jsonl"), (vec!["--analytic", "--ordering", "32,79,5"], "missing.jsonl")] {
        let args = [mode.clone(), vec![input, "-o", "out.csv"]].concat();
        d.tool("fbest").args(&args).fails(&format!("--analytic reads no tree specs, but an input `{input}` was given"));
    }
    d.tool("fbest").args(["--rajahx", &rajahx, "t.jsonl", "-o", "out.csv"]).fails("--rajahx reads no tree specs");
    d.tool("fbest").args(["--fit", "x.csv", "t.jsonl", "-o", "out.csv"]).fails("--fit reads no tree specs");
    d.tool("classify").args(["t.jsonl", "--scheme", "a", "--m", "5", "-o", "out.csv"]).fails("--m 5 is scheme C's parameter, but scheme c is not scored");
    d.tool("classify").args(["t.jsonl", "--scheme", "a", "--n", "3", "-o", "out.csv"]).fails("--n 3 is scheme B's parameter, but scheme b is not scored");
    d.tool("pabsim").args(["t.jsonl", "--procs", "1,4", "--per-tree", "-o", "s.csv"]).ok();
    for opt in [&["--procs", "48"][..], &["--scheme", "a"], &["--m-a", "3"], &["--algorithm", "steal"], &["--lock", "queue"], &["--interleave", "state"]] {
        let args = [&["--merge", "s.csv", "-o", "out.csv"][..], opt].concat();
        let out = d.tool("pabsim").args(&args).output();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.lines().count() == 1 && err.contains("'--merge' cannot be used with") && err.contains(opt[0]), "{args:?}: {err}");
    }
    assert!(!d.join("out.csv").exists());
    d.tool("pabsim").args(["--merge", "s.csv", "-o", "out.csv"]).ok();
}

/// `--threads 100000` started 100,000 threads; `positions` walked for
/// 20 minutes before a refusal; `trainset` on a depth-10 tree died of an
/// allocation failure at 11.5 GB.
#[test]
fn unbounded_requests_are_refused_at_once() {
    let d = Dir::new("i12");
    // (Values an old build would accept cheaply, so that the test fails
    // there rather than burying the machine.)
    for n in ["257", "1000"] {
        d.tool("fbest").args(["--threads", n, "--analytic", "--ordering", "32,79,5"]).fails(&format!("--threads {n} is more than"));
    }
    let start = Instant::now();
    d.tool("positions").args(["--game", "othello", "--count", "2000", "--seed", "1", "--plies", "100"]).fails("the last 10000 of them adding none");
    assert!(start.elapsed() < Duration::from_secs(10), "gave up after {:?}", start.elapsed());
    // Under a 2 GB address-space limit an old build aborts in seconds; this
    // one refuses before searching, with its estimate.
    d.tool("treegen").args(["--set", "tg2", "--ordering", "32,0,0", "--depth", "10", "--count", "1", "-o", "d10.jsonl"]).ok();
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

/// A byte-order mark was part of the first seed, FEN or tree spec
/// (and invisible in the message).
#[test]
fn a_byte_order_mark_is_dropped() {
    let d = Dir::new("i13");
    let bom = "\u{feff}";
    d.write("s.txt", "12345\n67890\n");
    d.write("sb.txt", &format!("{bom}12345\n67890\n"));
    let plain = d.tool("treegen").args(["--set", "s.txt", "--ordering", "4,50,10", "--depth", "3"]).ok();
    let marked = d.tool("treegen").args(["--set", "sb.txt", "--ordering", "4,50,10", "--depth", "3"]).ok();
    assert_eq!(marked, plain.replace("\"s.txt\"", "\"sb.txt\""));
    d.write("p.epd", &format!("{bom}{BK01} id \"BK.01\";\n"));
    let specs = d.tool("treegen").args(["--game", "chess", "--positions", "p.epd", "--depth", "2"]).ok();
    assert!(specs.contains("\"id\":\"BK.01\""), "{specs}");
    // Tree specs, a weights file and a table to fit.
    let fb = d.tool("fbest").stdin(&format!("{bom}{plain}")).ok();
    assert_eq!(fb, d.tool("fbest").stdin(&plain).ok());
    patterns(&d);
    network(&d, "w.json", "1");
    d.write("wb.json", &format!("{bom}{}", d.read("w.json")));
    artificial_trees(&d, "t.jsonl", "20,69,19", 3, 4);
    d.tool("classify").args(["t.jsonl", "--weights", "wb.json"]).ok();
}

/// `docs/decisions.md` said `--n 0..4096` where n = 0 is refused.
#[test]
fn classify_n_starts_at_one_as_documented() {
    let d = Dir::new("i14");
    artificial_trees(&d, "t.jsonl", "20,69,19", 3, 2);
    d.tool("classify").args(["t.jsonl", "--n", "0..3"]).fails("--n values must lie in 1..4096, got 0..3");
    let decisions = std::fs::read_to_string(repo("docs/decisions.md")).unwrap();
    assert!(decisions.contains("`classify --n` lies in 1..4096"));
    assert!(!decisions.contains("0..4096"));
}

/// Castling rights that standard chess cannot have were searched as
/// Chess960 (perft 26/549/12693 where standard chess gives 24/503/11463).
#[test]
fn castling_rights_of_standard_chess_only() {
    let d = Dir::new("i15");
    for (fen, needle) in [
        ("r3k2r/8/8/8/8/8/8/R4K1R w KQkq -", "castling rights for White with its king on f1"),
        ("r4k1r/8/8/8/8/8/8/R3K2R w KQkq -", "castling rights for Black with its king on f8"),
    ] {
        d.write("p.epd", &format!("{fen}\n"));
        let err = d.tool("treegen").args(["--game", "chess", "--positions", "p.epd", "--depth", "2"]).fails(needle);
        assert!(err.contains("(p.epd:1)"), "{err}");
        let spec = format!(r#"{{"game":"chess","set":"x","index":1,"id":"","position":"{fen} 0 1","depth":2}}"#);
        d.tool("fbest").stdin(&spec).fails(needle);
    }
    // Standard rights, and the same board without them, are accepted.
    d.write("p.epd", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq -\nr3k2r/8/8/8/8/8/8/R4K1R w kq -\n");
    let out = d.tool("treegen").args(["--game", "chess", "--positions", "p.epd", "--depth", "2"]).ok();
    assert_eq!(out.lines().count(), 2);
}

/// Text that is not UTF-8 was reported without its line.
#[test]
fn text_that_is_not_utf8_is_named_by_its_line() {
    let d = Dir::new("i16");
    std::fs::write(d.join("p.epd"), [format!("{BK01} id \"a\";\n").as_bytes(), b"8/8/8/8/8/8/8/K6k w - - id \"\xff\";\n"].concat()).unwrap();
    d.tool("treegen").args(["--game", "chess", "--positions", "p.epd", "--depth", "2"]).fails("not UTF-8 text (byte 29 of the line) (p.epd:2)");
    std::fs::write(d.join("s.txt"), b"12345\n\n6\xe97890\n").unwrap();
    d.tool("treegen").args(["--set", "s.txt", "--ordering", "4,50,10", "--depth", "3"]).fails("not UTF-8 text (byte 2 of the line) (s.txt:3)");
    let spec = d.tool("treegen").args(["--ordering", "20,69,19", "--depth", "3", "--count", "1"]).ok();
    std::fs::write(d.join("t.jsonl"), [spec.as_bytes(), b"{\"set\":\"\xc3\"}\n"].concat()).unwrap();
    d.tool("fbest").args(["t.jsonl"]).fails("not UTF-8 text (byte 9 of the line) (t.jsonl:2)");
}

/// A 2 MB FEN field was echoed whole into the error line, NUL bytes raw.
#[test]
fn messages_quote_a_short_escaped_excerpt() {
    let d = Dir::new("i17");
    let huge = format!("{}\0{} w - -\n", "x".repeat(1_000_000), "y".repeat(1_000_000));
    d.write("p.epd", &huge);
    let err = d.tool("treegen").args(["--game", "chess", "--positions", "p.epd", "--depth", "2"]).fails("bad FEN `xxxxxxxx");
    assert!(err.len() < 400, "{} bytes: {}", err.len(), &err[..400.min(err.len())]);
    assert!(err.contains("… (2000007 characters)") && err.contains("(p.epd:1)"), "{err}");
    d.write("p.epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN\0 w - -\n");
    let err = d.tool("treegen").args(["--game", "chess", "--positions", "p.epd", "--depth", "2"]).fails("RNBQKBN\\u{0} w - -");
    assert!(!err.contains('\0'));
    d.write("s.txt", &format!("{}\n", "9".repeat(100_000)));
    let err = d.tool("treegen").args(["--set", "s.txt", "--ordering", "4,50,10", "--depth", "3"]).fails("is not a seed");
    assert!(err.len() < 300, "{err}");
}

/// Two tree files, `t.jsonl` (20,69,19) and `u.jsonl` (32,79,5): 4 trees at depth 3.
fn t_and_u(d: &Dir) {
    for (name, o) in [("t.jsonl", "20,69,19"), ("u.jsonl", "32,79,5")] {
        artificial_trees(d, name, o, 3, 4);
    }
}

/// `--n` is bounded like `--m`, and checked before any value exists: a
/// huge range fails at once instead of allocating 16 GiB or running forever.
#[test]
fn classify_n_is_bounded_before_it_is_materialised() {
    let d = Dir::new("d2");
    t_and_u(&d);
    let start = std::time::Instant::now();
    d.tool("classify").args(["t.jsonl", "--n", "1..4294967295", "-o", "c.csv"]).fails("--n values must lie in 1..4096");
    d.tool("classify").args(["t.jsonl", "--n", "1..1000000", "-o", "c.csv"]).fails("--n values must lie in 1..4096");
    d.tool("classify").args(["t.jsonl", "--n", "1..99999999999999999999", "-o", "c.csv"]).fails("is not a non-negative integer");
    d.tool("classify").args(["t.jsonl", "--m", "0..101", "-o", "c.csv"]).fails("--m values must lie in 0..100");
    assert!(start.elapsed().as_secs() < 10, "the refusals took {:?}", start.elapsed());
    assert!(!d.join("c.csv").exists());
    // The bounds themselves are accepted.
    let out = d.tool("classify").args(["t.jsonl", "--scheme", "b", "--n", "4090..4096"]).ok();
    assert_eq!(out.lines().count(), 1 + 7);
}

/// Every shard carries its run's identity; `--merge` refuses shards of
/// different runs (other trees, processors, seed sets) and names the files.
#[test]
fn merge_refuses_shards_of_different_runs() {
    let d = Dir::new("d3");
    t_and_u(&d);
    d.tool("treegen").args(["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "4", "-o", "t2.jsonl"]).ok();
    let shard = |input: &str, procs: &str, k: u32, out: &str| {
        d.tool("pabsim").args([input, "--procs", procs, "--per-tree", "--shard", &format!("{k}/2"), "-o", out]).ok();
    };
    shard("t.jsonl", "1,4", 1, "t1.csv");
    shard("t.jsonl", "1,4", 2, "t2.csv");
    shard("u.jsonl", "1,4", 2, "u2.csv");
    shard("t.jsonl", "1,8", 2, "t8-2.csv");
    shard("t2.jsonl", "1,4", 2, "tg2-2.csv");
    // The same trees and processors on the other machine model.
    d.tool("pabsim").args(["t.jsonl", "--procs", "1,4", "--per-tree", "--shard", "2/2", "--interleave", "state", "-o", "state-2.csv"]).ok();
    for other in ["u2.csv", "t8-2.csv", "tg2-2.csv", "state-2.csv"] {
        let err = d.tool("pabsim").args(["--merge", "t1.csv", other, "-o", "m.csv"]).fails("come from different runs");
        assert!(err.contains("t1.csv") && err.contains(other), "{err}");
        assert!(!d.join("m.csv").exists());
    }
    // Shards of one run still merge into exactly the single-machine output.
    let single = d.tool("pabsim").args(["t.jsonl", "--procs", "1,4", "--per-tree"]).ok();
    assert_eq!(d.tool("pabsim").args(["--merge", "--per-tree", "t2.csv", "t1.csv"]).ok(), single);
    // The first column: the run id, then each row's seal (16 hex digits each).
    let run = single.lines().nth(1).unwrap().split(['-', ',']).next().unwrap().to_string();
    assert_eq!(run.len(), 16, "a run id in the first column: {single}");
    assert!(single.lines().skip(1).all(|l| l.starts_with(&format!("{run}-")) && l.split(',').next().unwrap().len() == 33));
}

/// A value given twice is refused, the same way in every tool.
#[test]
fn repeated_values_are_refused() {
    let d = Dir::new("d4");
    t_and_u(&d);
    d.tool("pabsim").args(["t.jsonl", "--procs", "1,4,4", "-o", "p.csv"]).fails("--procs: `4` is given twice");
    d.tool("pabsim").args(["t.jsonl", "--procs", "1,1,1", "-o", "p.csv"]).fails("--procs: `1` is given twice");
    d.tool("pabsim").args(["t.jsonl", "--procs", "4", "--scheme", "a,A", "-o", "p.csv"]).fails("--scheme: `a` is given twice");
    d.tool("classify").args(["t.jsonl", "--scheme", "a,a", "-o", "p.csv"]).fails("--scheme: `a` is given twice");
    d.tool("treegen").args(["--ordering", "20,69,19", "--ordering", "20,69,19", "--depth", "3", "-o", "p.csv"]).fails("is given twice");
    d.tool("fbest").args(["--analytic", "--ordering", "20,69,19", "--ordering", "20,69,19", "-o", "p.csv"]).fails("is given twice");
    assert!(!d.join("p.csv").exists());
    // Once each, the rows say what the trees say: p = 1 counts the 4 trees once.
    let out = d.tool("pabsim").args(["t.jsonl", "--procs", "1,4"]).ok();
    assert_eq!(sum_column(&out, "trees"), 8);
}

/// A diverged training is an error, and no weights file with `null`s is written.
#[test]
fn diverged_training_is_an_error() {
    let d = Dir::new("d5");
    let trees = d.tool("treegen").args(["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "8"]).ok();
    d.write("p.csv", &d.tool("trainset").stdin(&trees).ok());
    for flag in ["--init", "--eta"] {
        d.tool("nntrain").args(["p.csv", "--iterations", "20", flag, "1e300", "-o", "w.json", "--curve", "c.csv"]).fails("training diverged");
        assert!(!d.join("w.json").exists() && !d.join("c.csv").exists());
    }
    let w = d.tool("nntrain").args(["p.csv", "--iterations", "20"]).ok();
    assert!(!w.contains("null"));
}

/// A missing required argument is named.
#[test]
fn missing_arguments_are_named() {
    let d = Dir::new("d9");
    t_and_u(&d);
    d.tool("fbest").args(["--analytic"]).fails_with(2, "not provided: --ordering <ORDERING>");
    d.tool("treegen").args(["--depth", "3"]).fails_with(2, "not provided: --ordering <ORDERING>");
    d.tool("pabsim").args(["t.jsonl", "--procs", "1,4", "--shard", "1/2"]).fails("--shard needs --per-tree");
}

/// Inputs that used to be accepted silently.
#[test]
fn questionable_inputs_are_errors() {
    let d = Dir::new("d10");
    t_and_u(&d);
    // A tree spec with index 0.
    let t = d.read("t.jsonl");
    d.write("zero.jsonl", &t.replacen("\"index\":1,", "\"index\":0,", 1));
    d.tool("fbest").args(["zero.jsonl"]).fails("(zero.jsonl:1): index 0");
    // The same trees twice.
    d.write("twice.jsonl", &format!("{t}{t}"));
    d.tool("trainset").args(["twice.jsonl", "-o", "p.csv"]).fails("tree spec repeats line 1 (twice.jsonl:5)");
    assert!(!d.join("p.csv").exists());
    // A baseline for other trees.
    d.tool("pabsim").args(["u.jsonl", "--procs", "1", "--per-tree", "-o", "base-u.csv"]).ok();
    d.tool("pabsim").args(["t.jsonl", "--procs", "4", "--baseline", "base-u.csv", "-o", "p.csv"]).fails("none of its p = 1 rows is for these trees");
    assert!(!d.join("p.csv").exists());
    // Weights whose root type or ranges are impossible.
    let trees = d.tool("treegen").args(["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "8"]).ok();
    d.write("pat.csv", &d.tool("trainset").stdin(&trees).ok());
    let w = d.tool("nntrain").args(["pat.csv", "--iterations", "5"]).ok();
    let mut v: serde_json::Value = serde_json::from_str(&w).unwrap();
    v["root_type"] = serde_json::json!(1e308);
    d.write("root.json", &v.to_string());
    d.tool("classify").args(["t.jsonl", "--weights", "root.json"]).fails("root_type 1e308 lies outside the type range");
    let mut v: serde_json::Value = serde_json::from_str(&w).unwrap();
    v["ordering"]["b"] = serde_json::json!(32);
    d.write("b.json", &v.to_string());
    d.tool("pabsim")
        .args(["t.jsonl", "--procs", "4", "--scheme", "c", "--weights", "b.json"])
        .fails("ordering.b is 32 but the index and wait ranges end at 20");
    // `-o` at a dangling symlink writes the link's target and keeps the link.
    std::os::unix::fs::symlink("target.jsonl", d.join("link.jsonl")).unwrap();
    artificial_trees(&d, "link.jsonl", "20,69,19", 3, 4);
    assert!(std::fs::symlink_metadata(d.join("link.jsonl")).unwrap().file_type().is_symlink());
    assert_eq!(d.read("target.jsonl"), t);
}

/// Messages name the target, the column, and the header's line.
#[test]
fn messages_name_what_the_user_gave() {
    let d = Dir::new("d11");
    t_and_u(&d);
    // An output directory we cannot write to: the target is named, never the temporary file.
    let err =
        d.tool("treegen").args(["--ordering", "20,69,19", "--depth", "3", "-o", "/proc/parab-out.jsonl"]).fails("cannot create output /proc/parab-out.jsonl");
    assert!(!err.contains(".parab-"), "{err}");
    d.tool("classify").args(["t.jsonl", "-o", "/dev/full"]).fails("cannot write /dev/full");
    d.tool("pabsim").args(["t.jsonl", "-o", "/dev/full"]).fails("cannot write /dev/full");
    // A bad number in a shard: the column by name.
    d.tool("pabsim").args(["t.jsonl", "--procs", "1", "--per-tree", "--shard", "1/1", "-o", "s.csv"]).ok();
    let s = d.read("s.csv");
    let mut lines: Vec<String> = s.lines().map(String::from).collect();
    let i = lines[0].split(',').position(|c| c == "tp_ticks").unwrap();
    let mut f: Vec<String> = lines[2].split(',').map(String::from).collect();
    f[i] = "12x".into();
    lines[2] = f.join(",");
    d.write("bad.csv", &(lines.join("\n") + "\n"));
    d.tool("pabsim").args(["--merge", "bad.csv"]).fails("column `tp_ticks`: invalid digit found in string (bad.csv:3)");
    // A bad header is reported on line 1, naming the column.
    d.write("head.csv", &s.replacen("tp_ticks", "tp_tick", 1));
    d.tool("pabsim").args(["--merge", "head.csv"]).fails("unknown column `tp_tick` (head.csv:1)");
    d.write("short.csv", &s.replacen(",pool_nodes", "", 1));
    d.tool("pabsim").args(["--merge", "short.csv"]).fails("(short.csv:1)");
    // A header alone (no rows) is read as no rows, with its columns checked.
    d.write("only.csv", s.lines().next().unwrap());
    d.tool("pabsim").args(["--merge", "only.csv"]).fails("nothing to merge");
    assert_eq!(std::fs::metadata(d.join("s.csv")).unwrap().nlink(), 1);
}

/// The refusal rule ([`Tool::fails`]) itself, on a stand-in tool (`sh`):
/// it passes a clean refusal and catches each way a refusal can go wrong.
#[test]
fn the_refusal_rule_catches_each_way_to_break_it() {
    let d = Dir::new("rule");
    d.write("kept.csv", "old\n");
    let sh = |script: &str| Tool::wrapping("sh", std::process::Command::new("sh")).args(["-c", script]).current_dir(&d.path);
    let caught = |script: &str, code: i32| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sh(script).fails_with(code, "bad"))).is_err();
    assert_eq!(sh("echo 'sh: bad value' >&2; exit 1").fails("bad"), "sh: bad value\n");
    assert_eq!(sh("echo 'sh: bad usage' >&2; exit 2").fails_with(2, "usage"), "sh: bad usage\n");
    for (script, code, why) in [
        ("echo 'sh: bad' >&2; exit 0", 1, "success"),
        ("echo 'sh: bad' >&2; exit 2", 1, "another exit code"),
        ("echo 'sh: good' >&2; exit 1", 1, "another message"),
        ("echo 'sh: bad'; echo 'sh: bad' >&2; exit 1", 1, "stdout"),
        ("printf 'sh: bad\\nmore\\n' >&2; exit 1", 1, "two lines"),
        ("echo 'bad' >&2; exit 1", 1, "no tool name"),
        ("echo 'sh: bad: panicked at src/x.rs' >&2; exit 1", 1, "a panic"),
        ("touch left.csv; echo 'sh: bad' >&2; exit 1", 1, "a file left"),
    ] {
        assert!(caught(script, code), "{why} not caught");
    }
    // The `-o` target is named by the tool's arguments (here `sh`'s $0 and $1).
    sh("echo 'sh: bad' >&2; exit 1").args(["-o", "kept.csv"]).fails("bad");
    sh("echo 'sh: bad' >&2; exit 1").args(["-o", "/dev/full"]).fails("bad");
    let changed =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sh("echo new > \"$1\"; echo 'sh: bad' >&2; exit 1").args(["-o", "kept.csv"]).fails("bad")));
    assert!(changed.is_err(), "an -o target rewritten not caught");
    let _ = std::fs::remove_file(d.join("left.csv"));
}

/// `--memory`'s default is what the process may take, the
/// address-space limit among it: under `ulimit -v` a run whose tables
/// alone are four times the limit is refused up front with its estimate
/// (an old build measured the machine's free memory only, started, and
/// aborted when an allocation failed).
#[test]
fn the_memory_default_is_the_address_space_limit_under_ulimit() {
    let d = Dir::new("ulimit-memory");
    incremental_trees(&d, "t.jsonl", 5, 6, 1);
    let start = Instant::now();
    // 4,096 tables of 131,072 slots: about 8.6 GB, against 2 GB.
    let run = format!(
        "ulimit -v 2000000; exec {} --machine cluster t.jsonl --procs 1,4096 --tt-slots 131072 --algorithm even-split --threads 1",
        bin("pabsim").display()
    );
    let mut sh = Command::new("sh");
    sh.args(["-c", &run]);
    let line = Tool::wrapping("pabsim", sh).current_dir(&d.path).fails("more than --memory 1.");
    assert!(line.starts_with("pabsim: the run needs about 8.") && line.contains("(4096 processes: tables 8.6 GB"), "{line}");
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
}

/// `--board` is Othello's alone (an artificial or incremental
/// tree ignored it), and `--memory` below 1 kB is quoted in bytes (it
/// said `--memory 0 kB`).
#[test]
fn board_goes_with_othello_and_small_memory_is_in_bytes() {
    let d = Dir::new("board-memory");
    d.tool("treegen").args(["--board", "10", "--ordering", "32,79,5", "--depth", "2", "--count", "1"]).fails("--board 10 goes with --game othello only");
    d.tool("treegen").args(["--board", "10", "--model", "incremental", "--branching", "5", "--depth", "2"]).fails("--board 10 goes with --game othello only");
    incremental_trees(&d, "t.jsonl", 5, 4, 1);
    for (memory, quoted) in [("1B", "--memory 1 B:"), ("999", "--memory 999 B:"), ("1k", "--memory 1 kB:")] {
        d.tool("pabsim").args(["--machine", "cluster", "--procs", "1,8", "--memory", memory, "t.jsonl"]).fails(quoted);
    }
}

/// Every experiment script of pipelines/ checks its variables
/// through the one shared helper before it makes a directory or runs a
/// tool: a BIN without the tools, and in the sharded ones a SHARD or STEP
/// they cannot do, is refused in one line with nothing made.
#[test]
fn every_pipeline_checks_its_variables_before_any_work() {
    let positions = repo("data/positions");
    let mut scripts: Vec<String> = std::fs::read_dir(repo("pipelines"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|f| f.strip_suffix(".sh").map(str::to_string))
        .filter(|f| f != "lib")
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 10, "{scripts:?}");
    for name in &scripts {
        let text = std::fs::read_to_string(repo(&format!("pipelines/{name}.sh"))).unwrap();
        assert!(text.contains("lib.sh\"\n"), "{name}.sh does not source the shared checks");
        let base = [("POS", positions.to_str().unwrap())];
        script_refuses(name, &base, &[(&[("BIN", "{dir}")], "BIN must be the directory of the built tools")]);
        if text.contains("SHARD") {
            script_refuses(name, &base, &[(&[("SHARD", "2")], "SHARD must be K/N"), (&[("STEP", "bogus")], "STEP must be")]);
        }
    }
}
