//! Incremental random trees through the tools: `treegen`'s
//! specs, `fbest`'s tables and ordering accuracy, `classify`, `trainset`
//! → `nntrain` → scheme C, `pabsim`; the same bytes for any thread count;
//! one-line errors. (The cluster on these trees: `cluster`.)

use crate::util::*;

#[test]
fn incremental_trees_through_the_tools() {
    let d = Dir::new("incremental");
    incremental_trees(&d, "t.jsonl", 5, 6, 8);
    let spec = d.read("t.jsonl");
    assert_eq!(spec.lines().count(), 8);
    assert_eq!(spec.lines().next().unwrap(), r#"{"set":"tg1","index":1,"seed":1335380035,"model":"incremental","b":5,"scale":100,"depth":6}"#);
    // f_best: the children come in static-evaluation order, so the first
    // move is the best at most nodes.
    let f1 = d.tool("fbest").args(["t.jsonl", "--threads", "1"]).ok();
    assert_eq!(f1, d.tool("fbest").args(["t.jsonl", "--threads", "2"]).ok());
    assert_eq!(
        f1,
        "b,scale,depth,trees,n,fbest,pbest\n5,100,6,8,1,2257,0.945934619\n5,100,6,8,2,82,0.034367142\n5,100,6,8,3,33,0.013830679\n5,100,6,8,4,10,0.004191115\n5,100,6,8,5,4,0.001676446\n"
    );
    let per = d.tool("fbest").args(["t.jsonl", "--per-tree"]).ok();
    assert_eq!(per.lines().next().unwrap(), "tree,seed,b,scale,depth,nodes,leaves,internal,contributing,root_value");
    assert_eq!(sum_column(&per, "contributing"), 2257 + 82 + 33 + 10 + 4);
    assert_eq!(sum_column(&per, "nodes"), sum_column(&per, "leaves") + sum_column(&per, "internal"));
    // The ordering accuracy: 43 of the 48 nodes at plies 0..1 keep their
    // best child from depth 4 to depth 6.
    let acc = d.tool("fbest").args(["t.jsonl", "--accuracy", "4", "--threads", "1"]).ok();
    assert_eq!(acc, "model,b,scale,trees,k,k2,plies,nodes,kept,accuracy\nincremental,5,100,8,4,6,2,48,43,0.895833333\n");
    assert_eq!(acc, d.tool("fbest").args(["t.jsonl", "--accuracy", "4", "--threads", "2"]).ok());
    // classify, and a network trained on them for scheme C.
    let c = d.tool("classify").args(["t.jsonl", "--scheme", "a"]).ok();
    assert!(c.starts_with("b,scale,depth,trees,scheme,param,true_cut,false_cut,true_all,false_all,error,scored,best\n5,100,6,8,a,,"), "{c}");
    d.tool("trainset").args(["t.jsonl", "-o", "p.csv"]).ok();
    assert!(d.read("p.csv").lines().nth(1).unwrap().starts_with("incremental,5,,,0,"));
    d.tool("nntrain").args(["p.csv", "--iterations", "5", "-o", "n.json"]).ok();
    d.tool("classify").args(["t.jsonl", "--scheme", "c", "--weights", "n.json", "--m", "0..2"]).ok();
    // pabsim: the model column and b, no ordering weights; the root value
    // is the sequential search's.
    let sim = d.tool("pabsim").args(["t.jsonl", "--procs", "1,4", "--per-tree"]).ok();
    let rows = table(&sim);
    assert_eq!(rows.len(), 16);
    let roots = column(&per, "root_value");
    for r in &rows {
        assert_eq!([&r["model"], &r["b"], &r["wa"], &r["depth"]], ["incremental", "5", "", "6"], "{r:?}");
        let t: usize = r["tree"].parse().unwrap();
        assert_eq!(r["root_value"], roots[t - 1]);
    }
}

#[test]
fn incremental_requests_are_one_line_errors() {
    let d = Dir::new("incremental-bad");
    d.tool("treegen").args(["--model", "incremental", "--ordering", "5,0,0", "--depth", "3"]).fails("--branching goes with --model incremental");
    d.tool("treegen").args(["--branching", "5", "--depth", "3"]).fails("--branching goes with --model incremental");
    d.tool("treegen").args(["--model", "incremental", "--branching", "0", "--depth", "3"]).fails("branching factor b = 0 must lie in 1..=4096");
    d.tool("treegen").args(["--model", "incremental", "--branching", "5", "--scale", "0", "--depth", "3"]).fails("edge scale 0");
    d.tool("treegen").args(["--model", "bogus", "--ordering", "5,0,0", "--depth", "3"]).fails_with(2, "expected `exponential`, `strong` or `incremental`");
    let inc = d.tool("treegen").args(["--model", "incremental", "--branching", "3", "--depth", "3", "--count", "1"]).ok();
    let art = d.tool("treegen").args(["--ordering", "3,50,10", "--depth", "3", "--count", "1"]).ok();
    d.write("mixed.jsonl", &format!("{inc}{art}"));
    d.tool("fbest").args(["mixed.jsonl"]).fails("mixes incremental trees and artificial trees (line 2)");
    d.tool("classify").args(["mixed.jsonl", "--scheme", "a"]).fails("mixes incremental trees and artificial trees (line 2)");
    d.write("wa.jsonl", &inc.replace("\"b\":3", "\"b\":3,\"wa\":5"));
    d.tool("fbest").args(["wa.jsonl"]).fails("bad tree spec (wa.jsonl:1)");
    d.tool("fbest").args(["--accuracy", "0"]).stdin(&inc).fails("--accuracy 0");
}

/// `treegen` refuses `--scale` where it would be dropped
/// (artificial trees, games), as it refuses `--branching` there.
#[test]
fn treegen_refuses_a_scale_it_would_drop() {
    let d = Dir::new("incremental-scale");
    d.tool("treegen")
        .args(["--scale", "5", "--ordering", "32,79,5", "--depth", "3", "-o", "t.jsonl"])
        .fails("treegen: --scale (the edge distribution's step) goes with --model incremental, --ordering with the other models");
    d.tool("treegen")
        .args(["--model", "strong", "--scale", "5", "--depth", "3", "-o", "t.jsonl"])
        .fails("treegen: --scale (the edge distribution's step) goes with --model incremental");
    let bk = repo("data/positions/bratko-kopec.epd");
    d.tool("treegen")
        .args(["--game", "chess", "--positions", bk.to_str().unwrap(), "--scale", "5", "--depth", "2", "-o", "t.jsonl"])
        .fails("treegen: --scale (the edge distribution's step) goes with --model incremental, not with --game");
    // --scale still goes with incremental trees.
    let inc = d.tool("treegen").args(["--model", "incremental", "--branching", "3", "--scale", "7", "--depth", "2", "--count", "1"]).ok();
    assert!(inc.contains("\"b\":3,\"scale\":7,\"depth\":2"), "{inc}");
}

/// `treegen` asks an incremental tree for `--branching` (not the
/// `--ordering` it refuses), and a spec whose model is misspelt is told
/// every model, incremental too.
#[test]
fn treegen_and_the_spec_reader_ask_for_what_each_model_needs() {
    let d = Dir::new("incremental-shape");
    d.tool("treegen")
        .args(["--model", "incremental", "--depth", "3", "-o", "t.jsonl"])
        .fails("treegen: --model incremental needs --branching B (children per node; incremental trees take no --ordering)");
    d.tool("treegen")
        .args(["--model", "exponential", "--depth", "3", "-o", "t.jsonl"])
        .fails("treegen: --ordering B,WA,WB is needed (e.g. --ordering 32,79,5), or --model incremental with --branching B, or --game with --positions");
    d.tool("treegen")
        .args(["--model", "Incremental", "--branching", "5", "--depth", "3"])
        .fails_with(2, "unknown tree model `Incremental` (expected `exponential`, `strong` or `incremental`)");
    // The same in a spec, read by every tool.
    let spec = r#"{"set":"tg1","index":1,"seed":5,"model":"Incremental","b":5,"scale":100,"depth":4}"#;
    d.write("bad.jsonl", &format!("{spec}\n"));
    for tool in ["fbest", "pabsim", "psearch"] {
        d.tool(tool)
            .args(["bad.jsonl", "-o", "out.csv"])
            .fails("bad tree spec (bad.jsonl:1): unknown tree model `Incremental` (expected `exponential`, `strong` or `incremental`)");
    }
}

/// `psearch` writes an incremental tree's branching factor in
/// `b`, as `pabsim` on either machine does, and every tool writes its root
/// value on the score scale (`docs/formats.md`).
#[test]
fn every_tool_writes_b_and_the_root_value_of_incremental_trees_alike() {
    let d = Dir::new("incremental-columns");
    incremental_trees(&d, "t.jsonl", 5, 4, 2);
    let real = d.tool("psearch").args(["t.jsonl", "--per-tree"]).ok();
    let sim = d.tool("pabsim").args(["t.jsonl", "--procs", "1", "--per-tree"]).ok();
    let cluster = d.tool("pabsim").args(["t.jsonl", "--machine", "cluster", "--procs", "1", "--per-tree"]).ok();
    let fbest = d.tool("fbest").args(["t.jsonl", "--per-tree"]).ok();
    for out in [&real, &sim, &cluster, &fbest] {
        assert_eq!(column(out, "b"), ["5", "5"], "{out}");
        assert_eq!(column(out, "root_value"), ["1073741927", "1073741899"], "{out}");
    }
}

/// `treegen --eval-noise` and `--eval-persist`: 0 is today's spec line; a
/// law is written and read back, and through `fbest --accuracy` the noisy
/// trees are measured (the same best children whatever the thread count);
/// `shogi` is the calibrated law at b = 5 and 20 only; one input holds one
/// noise law.
#[test]
fn evaluation_noise_through_the_tools() {
    let d = Dir::new("eval-noise");
    incremental_trees(&d, "plain.jsonl", 5, 6, 8);
    let treegen = |x: &str, b: &str, out: &str| {
        d.tool("treegen").args(["--model", "incremental", "--branching", b, "--depth", "6", "--count", "8", "--eval-noise", x, "-o", out])
    };
    treegen("0", "5", "zero.jsonl").ok();
    assert_eq!(d.read("zero.jsonl"), d.read("plain.jsonl"));
    treegen("300", "5", "noisy.jsonl").ok();
    assert!(d.read("noisy.jsonl").lines().all(|l| l.contains(r#""eval_noise":300,"depth":6}"#)));
    let acc = |f: &str, threads: &str| d.tool("fbest").args([f, "--accuracy", "4", "--threads", threads]).ok();
    let noisy = acc("noisy.jsonl", "1");
    assert_eq!(noisy, acc("noisy.jsonl", "2"));
    assert!(noisy.starts_with("model,b,scale,trees,k,k2,plies,nodes,kept,accuracy\nincremental,5,100,8,4,6,2,48,"), "{noisy}");
    // The noise orders the children: the first child is the best less
    // often (p_best(1) 0.832 against 0.946), and the search is larger.
    let fb = |f: &str| d.tool("fbest").args([f, "--threads", "1"]).ok();
    let (p, n) = (fb("plain.jsonl"), fb("noisy.jsonl"));
    assert_eq!((column(&p, "pbest")[0].as_str(), column(&n, "pbest")[0].as_str()), ("0.945934619", "0.832439678"));
    // A persisting error: written, and it orders differently again (the
    // first child is best more often than under independent errors, but
    // the measure two plies deeper falls).
    let persisting = |r: &str| {
        d.tool("treegen").args(["--model", "incremental", "--branching", "5", "--depth", "6", "--count", "8", "--eval-noise", "300", "--eval-persist", r])
    };
    persisting("500").args(["-o", "persist.jsonl"]).ok();
    assert!(d.read("persist.jsonl").lines().all(|l| l.contains(r#""eval_noise":300,"eval_persist":500,"depth":6}"#)));
    assert_eq!(column(&fb("persist.jsonl"), "pbest")[0], "0.885403163");
    assert!(acc("persist.jsonl", "2").ends_with(",48,23,0.479166667\n"));
    persisting("0").args(["-o", "zero-persist.jsonl"]).ok();
    assert_eq!(d.read("zero-persist.jsonl"), d.read("noisy.jsonl"));
    persisting("951").fails("--eval-persist 951 must lie in 0..=950 (thousandths)");
    d.tool("treegen").args(["--model", "incremental", "--branching", "5", "--depth", "6", "--eval-persist", "500"]).fails_with(2, "--eval-noise");
    treegen("shogi", "5", "s.jsonl").ok();
    assert!(d.read("s.jsonl").lines().all(|l| l.contains(r#""eval_persist":794,"depth":6}"#)), "{}", d.read("s.jsonl"));
    treegen("shogi", "7", "s.jsonl").fails("calibrated for b = 5 and b = 20");
    treegen("shogi", "5", "s.jsonl").args(["--eval-persist", "500"]).fails("--eval-noise shogi sets its own persistence (794): drop --eval-persist");
    d.tool("treegen").args(["--ordering", "32,79,5", "--depth", "3", "--eval-noise", "5"]).fails("--eval-noise goes with --model incremental");
    let mixed = format!("{}{}", d.read("plain.jsonl").lines().next().unwrap(), "\n") + d.read("noisy.jsonl").lines().nth(1).unwrap() + "\n";
    d.write("mixed.jsonl", &mixed);
    d.tool("fbest").args(["mixed.jsonl", "--accuracy", "4"]).fails("mixes incremental trees of evaluation noise 0 and 300 (line 2)");
    let mixed = format!("{}{}", d.read("noisy.jsonl").lines().next().unwrap(), "\n") + d.read("persist.jsonl").lines().nth(1).unwrap() + "\n";
    d.write("mixed.jsonl", &mixed);
    d.tool("fbest").args(["mixed.jsonl"]).fails("mixes incremental trees of evaluation noise 300 and 300 persisting 500/1000 (line 2)");
}
