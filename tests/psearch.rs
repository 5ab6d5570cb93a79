//! The parallel searches on real threads, as the library and `psearch`
//! run them: exact root values and moves on every ordering, chess and
//! Othello at 1, 2, 3, 8 and 17 threads with random delays; the rows; bad
//! inputs; and the simulator's refusal of Lazy SMP.

use crate::util::*;
use parab::nn::{Errors, HiddenWeights, Network, OutputWeights, TrainedFor, Training};
use parab::policy::{Active, Dts, LazySmp, Policy, PvSplit, Scheme, Steal, Walk};
use parab::real::Options;
use parab::request::real::search_tree;
use parab::tree::Family;
use parab::tree::Tree;

/// A fixed (untrained) network for trees of `trained`: scheme C only needs
/// some types and waits to exercise the machinery.
fn network(trained: TrainedFor) -> Network {
    let wh = HiddenWeights::from_fn(|r, c| ((r * 7 + c * 3) % 11) as f64 / 5.0 - 1.0);
    let wo = OutputWeights::from_fn(|r, c| ((r * 5 + c * 2) % 13) as f64 / 6.0 - 1.0);
    let t = Training { rng: "ChaCha8".into(), seed: 1, init: 0.5, iterations: 0, eta: 0.1, shuffle: false, patterns: 0 };
    let mut n = Network::new(wh, wo, trained, 40.0, t).unwrap();
    n.errors = Errors { e_type: 1.0, e_wait: 0.5 };
    n
}

fn trees(args: &[&str]) -> Vec<Tree> {
    let d = Dir::new("psearch-trees");
    let text = d.tool("treegen").args(args).ok();
    parab::tree::read_trees(parab::cli::Input::from_string("trees", &text)).unwrap()
}

/// Every algorithm, schemes A, B and C where they apply.
fn algorithms() -> Vec<Policy> {
    let c = Scheme::C { m_ca: -1, m_cc: 1, cut_width: 10 };
    let mut v = vec![Policy::PvSplit(PvSplit), Policy::LazySmp(LazySmp), Policy::Dts(Dts { scheme: Scheme::default(), walk: Walk::Level })];
    for s in [Scheme::A { m_a: 2, pv_wait: 1 }, Scheme::B { m_b: 1, pv_wait: 0 }, c] {
        v.push(Policy::Dts(Dts { scheme: s, walk: Walk::Tree }));
        v.push(Policy::Steal(Steal { scheme: s, seed: 7 }));
        v.push(Policy::Active(Active { scheme: s, min_split_depth: 2, split_group: 4 }));
    }
    v
}

/// Runs every algorithm on `trees` at 1, 2, 3, 8 and 17 threads (random
/// delays on every other run) and checks the root value and move against
/// the sequential search.
fn exact_everywhere(trees: &[Tree], net: &Network) {
    for (i, t) in trees.iter().enumerate() {
        let seq = search_tree(t, None, &Options { threads: 1, ..Options::default() }, None).unwrap();
        // The sequential value is the one search's.
        assert_eq!(seq.value, t.search(&mut ()).value);
        for threads in [1, 2, 3, 8, 17] {
            for (k, a) in algorithms().into_iter().enumerate() {
                let delays = ((i + k) % 2 == 0).then_some((i * 31 + k) as u64);
                let opts = Options { threads, node_cost_ns: 0, delays, trace: None };
                let r = search_tree(t, Some(a), &opts, Some(net)).unwrap();
                assert_eq!((r.value, r.root_move), (seq.value, seq.root_move), "tree {} {a:?} at {threads} threads, delays {delays:?}", t.index());
                assert!(r.nodes > 0 && r.leaves <= r.nodes);
            }
        }
    }
}

#[test]
fn every_algorithm_is_exact_on_every_ordering() {
    for (b, wa, wb) in [(32, 79, 5), (20, 69, 19), (32, 66, 66), (32, 33, 33), (32, 0, 0)] {
        let o = format!("{b},{wa},{wb}");
        let ts = trees(&["--set", "tg1", "--ordering", &o, "--depth", "4", "--count", "2"]);
        let net = network(TrainedFor::artificial(parab::tree::artificial::Model::Exponential, parab::tree::artificial::Ordering { b, wa, wb }));
        exact_everywhere(&ts, &net);
    }
}

#[test]
fn every_algorithm_is_exact_on_chess_and_othello() {
    let root = env!("CARGO_MANIFEST_DIR");
    let chess = trees(&["--game", "chess", "--positions", &format!("{root}/data/positions/bratko-kopec.epd"), "--depth", "3"]);
    let net = network(TrainedFor { model: Family::Chess, b: 64, wa: None, wb: None });
    // Some positions are enough at 17 threads; the first four of the 24.
    exact_everywhere(&chess[..4], &net);
    let othello = trees(&["--game", "othello", "--positions", &format!("{root}/data/positions/othello-test.txt"), "--depth", "4"]);
    let net = network(TrainedFor { model: Family::Othello, b: 64, wa: None, wb: None });
    exact_everywhere(&othello[..4], &net);
}

/// Rows: the columns `pabsim` has, the new ones, the sequential root value
/// and move on every per-tree row, SU and SO against the one-thread rows,
/// and runs above the host's free cores marked.
#[test]
fn psearch_rows_line_up_with_pabsims() {
    let d = Dir::new("psearch-rows");
    d.tool("treegen").args(["--set", "tg1", "--ordering", "20,69,19", "--depth", "5", "--count", "3", "-o", "t.jsonl"]).ok();
    let out =
        d.tool("psearch").args(["t.jsonl", "--threads", "1,2,17", "--algorithm", "dts,lazy-smp", "--scheme", "a,b", "--per-tree", "--node-cost", "10"]).ok();
    let header = out.lines().next().unwrap();
    for c in ["tree", "seed", "model", "b", "wa", "wb", "depth", "trees", "procs", "policy", "scheme", "m_a", "m_b", "su", "so", "root_value"] {
        assert!(header.split(',').any(|h| h == c), "pabsim's column {c} missing: {header}");
    }
    for c in [
        "wall_ns",
        "nodes",
        "leaves",
        "root_move",
        "node_cost_ns",
        "time_search_ns",
        "time_idle_ns",
        "time_lock_ns",
        "cores",
        "host_load",
        "free_cores",
        "oversubscribed",
    ] {
        assert!(header.split(',').any(|h| h == c), "column {c} missing: {header}");
    }
    // 3 trees x (1 + 2 x (dts a, dts b, lazy-smp)).
    let policy = column(&out, "policy");
    assert_eq!(policy.len(), 3 * 7);
    let (tree, value, mv, procs) = (column(&out, "tree"), column(&out, "root_value"), column(&out, "root_move"), column(&out, "procs"));
    for i in 0..policy.len() {
        let j = (0..3).find(|&j| tree[j] == tree[i]).unwrap();
        assert_eq!((&value[i], &mv[i]), (&value[j], &mv[j]), "row {i}");
        assert!(mv[i].parse::<u32>().unwrap() >= 1);
    }
    assert_eq!(column(&out, "node_cost_ns").iter().filter(|c| *c == "10").count(), policy.len());
    // Beside every timing the host's load and free cores just before it;
    // oversubscribed: more threads than free cores (than cores, where the
    // load cannot be read: not Linux).
    let cores = std::thread::available_parallelism().unwrap().get();
    let linux = std::path::Path::new("/proc/loadavg").exists();
    let (load, free) = (column(&out, "host_load"), column(&out, "free_cores"));
    for (i, (p, o)) in procs.iter().zip(column(&out, "oversubscribed")).enumerate() {
        assert_eq!(load[i].parse::<f64>().is_ok_and(|l| l >= 0.0), linux, "row {i}: {out}");
        let free = free[i].parse::<usize>().ok();
        assert_eq!(free.is_some(), linux, "row {i}");
        assert!(free.is_none_or(|f| f <= cores), "row {i}");
        assert_eq!(o == "true", p.parse::<usize>().unwrap() > free.unwrap_or(cores), "row {i}: {out}");
    }
    // 17 threads exceed any free cores of a host of 16 or fewer.
    if cores < 17 {
        assert!(procs.iter().zip(column(&out, "oversubscribed")).all(|(p, o)| p != "17" || o == "true"));
    }
    assert!(column(&out, "so").iter().all(|s| s.parse::<f64>().is_ok()));
    assert!(column(&out, "su").iter().take(3).all(|s| s == "1.0"));
    // Summed per configuration: one row each, trees = 3.
    let sums = d.tool("psearch").args(["t.jsonl", "--threads", "1,2", "--algorithm", "steal"]).ok();
    assert_eq!(column(&sums, "trees"), vec!["3", "3"]);
    assert_eq!(column(&sums, "root_value"), vec!["", ""]);
    assert_eq!(column(&sums, "policy"), vec!["-", "steal"]);
    // Scheme C with its network.
    let net = network(TrainedFor::artificial(parab::tree::artificial::Model::Exponential, parab::tree::artificial::Ordering { b: 20, wa: 69, wb: 19 }));
    d.write("w.json", &net.to_json().unwrap());
    let c = d.tool("psearch").args(["t.jsonl", "--threads", "2", "--algorithm", "dts,active", "--scheme", "c", "--weights", "w.json", "--m-ca", "-2..-1"]).ok();
    assert_eq!(column(&c, "m_ca"), vec!["-2", "-1", "-2", "-1"]);
}

/// What the tools say about the shared-memory policies comes from the
/// one registry: `psearch --help` and `pabsim --help` give every policy
/// its line, `pabsim --list-algorithms` (with or without `--machine
/// shared`) is the policies the simulator runs, in order, the
/// unknown-name message names them all, and the rows' documentation lists
/// them; the simulator refuses Lazy SMP in one line.
#[test]
fn the_policy_registry_is_what_the_tools_say() {
    let d = Dir::new("psearch-help");
    for (tool, simulated) in [("psearch", false), ("pabsim", true)] {
        let help = d.tool(tool).args(["--help"]).ok();
        for a in Policy::ALL {
            let line = format!("\n  {}", a.name());
            let at = help.find(&line).unwrap_or_else(|| panic!("{} missing from {tool} --help", a.name()));
            let text = help[at..].lines().nth(1).unwrap_or_default();
            assert!(text.ends_with(a.about(simulated)), "{tool} --help: {text}");
        }
    }
    let simulated: Vec<&str> = Policy::ALL.iter().filter(|a| a.simulated().is_ok()).map(|a| a.name()).collect();
    assert_eq!(simulated, ["dts", "pvsplit", "steal", "active"]);
    for args in [&["--list-algorithms"][..], &["--machine", "shared", "--list-algorithms"]] {
        assert_eq!(d.tool("pabsim").args(args).ok().lines().collect::<Vec<_>>(), simulated);
    }
    let e = d.tool("psearch").args(["--threads", "2", "--algorithm", "nonesuch"]).fails("unknown");
    for a in Policy::ALL {
        assert!(e.contains(a.name()), "{e}");
    }
    let formats = std::fs::read_to_string(repo("docs/formats.md")).unwrap();
    let column = formats.lines().find(|l| l.starts_with("| `policy` |")).expect("formats.md's policy column");
    for n in &simulated {
        assert!(column.contains(&format!("`{n}`")), "docs/formats.md's policy column lacks {n}: {column}");
    }
    let err = d.tool("pabsim").args(["--procs", "2", "--policy", "dts,lazy-smp"]).fails("lazy-smp");
    assert_eq!(err.trim(), "pabsim: lazy-smp runs on real threads only (psearch): the simulated machine has no shared transposition table");
}

#[test]
fn bad_inputs_are_refused_in_one_line_and_leave_no_file() {
    let d = Dir::new("psearch-bad");
    d.tool("treegen").args(["--set", "tg1", "--ordering", "20,69,19", "--depth", "3", "--count", "2", "-o", "t.jsonl"]).ok();
    d.write("bad.jsonl", "{\"set\":\"tg1\"}\n");
    d.write("empty.jsonl", "");
    let cases: [(&[&str], &str); 11] = [
        (&["t.jsonl", "--threads", "0", "-o", "out.csv"], "--threads 0"),
        (&["t.jsonl", "--threads", "2,2", "-o", "out.csv"], "--threads"),
        (&["t.jsonl", "--threads", "2000", "-o", "out.csv"], "--threads 2000"),
        (&["t.jsonl", "--algorithm", "ybw", "-o", "out.csv"], "dts, pvsplit, steal, active or lazy-smp"),
        (&["t.jsonl", "--threads", "2", "--scheme", "c", "-o", "out.csv"], "scheme c needs the network"),
        (
            &["t.jsonl", "--threads", "2", "--algorithm", "lazy-smp", "--m-a", "3", "-o", "out.csv"],
            "--m-a applies to --scheme a only (this run: --algorithm lazy-smp, no scheme)",
        ),
        (&["t.jsonl", "--threads", "2", "--algorithm", "steal", "--split-walk", "level", "-o", "out.csv"], "--split-walk applies to --algorithm dts only"),
        (&["t.jsonl", "--repeat", "0", "-o", "out.csv"], "--repeat 0"),
        (&["bad.jsonl", "-o", "out.csv"], "bad.jsonl"),
        (&["empty.jsonl", "-o", "out.csv"], "no tree specs"),
        (&["missing.jsonl", "-o", "out.csv"], "missing.jsonl"),
    ];
    for (args, needle) in cases {
        d.tool("psearch").args(args).fails(needle);
    }
}
