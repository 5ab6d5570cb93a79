//! `make eval-noise` (`pipelines/eval-noise.sh`, the calibration of
//! `treegen --eval-noise shogi`, `docs/model.md` §7.8) on small trees: every
//! step it measures is the accuracy the tools give by hand, the step it
//! keeps is the one nearest the target, each target takes its own number of
//! trees, the check measures the law `shogi` compiles in, a tool that fails
//! midway stops it with nothing written, and bad variables are refused
//! before any work.

use crate::util::*;

/// b = 5, accuracy between depths 2 and 4, on 8 trees of tg2: steps 0, 100,
/// 200 measure 70.8%, 66.7%, 62.5%, so the search brackets 65% between 100
/// and 200 and halves the bracket until it is at most 150 / 16 wide.
const SMALL: [(&str, &str); 4] = [("TARGETS", "5:2:65:8"), ("COUNT", "3"), ("CHECK_COUNT", "4"), ("XMAX", "400")];

/// The accuracy row `fbest --accuracy K` gives by hand for `trees` trees of
/// `set` at step `step` (persistence 794, or `shogi`'s own): its
/// `nodes,kept,accuracy`.
fn by_hand(d: &Dir, set: &str, trees: u32, b: u32, k: u32, step: &str) -> String {
    let mut make = d.tool("treegen").args(["--model", "incremental", "--set", set, "--count", &trees.to_string()]);
    make = make.args(["--branching", &b.to_string(), "--depth", &k.to_string(), "--eval-noise", step]);
    if step != "0" && step != "shogi" {
        make = make.args(["--eval-persist", "794"]);
    }
    let acc = d.tool("fbest").args(["--accuracy", &k.to_string()]).stdin(&make.ok()).ok();
    let row: Vec<&str> = acc.lines().nth(1).expect("an accuracy row").split(',').collect();
    row[7..10].join(",")
}

/// The rows of a CSV file after its header.
fn body(d: &Dir, file: &str) -> Vec<Vec<String>> {
    d.read(file).lines().skip(1).map(|l| l.split(',').map(String::from).collect()).collect()
}

#[test]
fn eval_noise_calibrates_on_the_targets_trees_and_checks_the_compiled_law() {
    let d = Dir::new("eval-noise");
    script(&d, "eval-noise").envs(SMALL.iter()).env("STEP", "all").ok();
    let search = body(&d, "results/eval-noise/search.csv");
    let steps: Vec<&str> = search.iter().map(|r| r[3].as_str()).collect();
    // Doubling from 100 until at or below 65%, then halving [100, 200]: 150
    // (64.6%, the new top), 125, 137, 143 (all above), and 150 − 143 ≤ 150 / 16.
    assert_eq!(steps, ["0", "100", "200", "150", "125", "137", "143"], "{search:?}");
    for r in &search {
        assert_eq!(r[..3], ["5", "2", "794"]);
        // The target's own 8 trees (6 nodes each), not COUNT's 3.
        assert_eq!(r[4], "48", "{r:?}");
        assert_eq!(r[4..].join(","), by_hand(&d, "tg2", 8, 5, 2, &r[3]), "step {}", r[3]);
    }
    let acc: Vec<f64> = search.iter().map(|r| r[6].parse().unwrap()).collect();
    assert_eq!(&search.iter().take(3).map(|r| r[6].as_str()).collect::<Vec<_>>(), &["0.708333333", "0.666666667", "0.625000000"]);
    // The step kept is the one measured nearest 65% (the smaller on a tie).
    let off = |a: f64| (100.0 * a - 65.0).abs();
    let step = |i: usize| steps[i].parse::<u32>().unwrap();
    let best = (0..search.len()).min_by(|&i, &j| off(acc[i]).total_cmp(&off(acc[j])).then(step(i).cmp(&step(j)))).unwrap();
    let calibration = body(&d, "results/eval-noise/calibration.csv");
    assert_eq!(calibration, [vec!["5", "2", "65", "794", steps[best], search[best][6].as_str()]]);
    // The check measures the law `shogi` compiles in, on CHECK_COUNT trees of tg1.
    let check = body(&d, "results/eval-noise/check.csv");
    assert_eq!(check.len(), 1);
    assert_eq!(check[0][..6], ["5", "2", "65", "tg1", "4", "794"]);
    assert_eq!(check[0][7..].join(","), by_hand(&d, "tg1", 4, 5, 2, "shogi"));
    assert_eq!(names_in(&d.join("results/eval-noise")), ["calibration.csv", "check.csv", "search.csv"].map(String::from).into());
}

/// A tool that fails on its second call (the step 100 trees' accuracy)
/// stops the calibration with exit 1 and leaves nothing: before, the
/// failure was passed over inside the doubling loop's condition and every
/// later step read step 0's accuracy file again.
#[test]
fn eval_noise_stops_when_a_tool_fails_midway() {
    let d = Dir::new("eval-noise-failing-tool");
    let calls = d.join("calls");
    let (log, fbest) = (calls.display(), bin("fbest").display().to_string());
    let fails_second =
        format!("#!/bin/sh\necho x >> {log}\n[ $(wc -l < {log}) -lt 2 ] || {{ echo 'fbest: made to fail' >&2; exit 1; }}\nexec {fbest} \"$@\"\n");
    let bin_dir = tools_dir(&d, &["treegen"], &[("fbest", &fails_second)]);
    let out = script(&d, "eval-noise").envs(SMALL.iter()).env("BIN", &bin_dir).env("STEP", "search").output();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("fbest: made to fail") && !err.contains("step 200"), "{err}");
    assert_eq!(d.read("calls").lines().count(), 2);
    let left = names_in(&d.join("results/eval-noise"));
    assert!(left.is_empty(), "{left:?}");
}

/// Every variable is checked before a directory is made or a tool runs.
#[test]
fn eval_noise_refuses_bad_variables_before_making_anything() {
    let targets = "TARGETS must be b:K:percent[:trees] entries";
    script_refuses(
        "eval-noise",
        &SMALL,
        &[
            (&[("TARGETS", "5:2")], targets),
            (&[("TARGETS", "5:2:65 5:2:65")], targets),
            (&[("TARGETS", "5:2:100")], targets),
            (&[("TARGETS", "5:2:65:0")], targets),
            // tg2 holds 200 seeds, tg1 100.
            (&[("TARGETS", "5:2:65:201")], "at most 200 trees, the seeds of tg2 (not 201)"),
            (&[("TARGETS", "5:2:65:101"), ("SET", "tg1")], "at most 100 trees, the seeds of tg1 (not 101)"),
            (&[("COUNT", "201")], "COUNT must be a whole number from 1 to 200"),
            (&[("CHECK_COUNT", "101")], "CHECK_COUNT must be a whole number from 1 to 100"),
            (&[("SET", "tg3")], "SET must be tg1 or tg2"),
            (&[("PERSIST", "951")], "PERSIST must be a whole number from 0 to 950"),
            (&[("XMAX", "99")], "XMAX must be a whole number from 100 to 65536"),
            (&[("TOLERANCE", "x")], "TOLERANCE must be a whole number"),
            (&[("STEP", "both")], "STEP must be"),
            (&[("R", "{dir}/a-file")], "R must be a directory (this is a file)"),
            (&[("BIN", "{dir}")], "BIN must be the directory of the built tools"),
        ],
    );
}
