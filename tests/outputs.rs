//! How the tools write their outputs: new files get the umask's
//! permissions and replaced ones keep theirs, a signal during a write
//! leaves the old target whole, all outputs of a run commit together, a
//! closed stdout costs no file output, and two outputs naming one file are
//! refused.

use crate::util::*;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `nntrain --curve - -o w.json | head` lost w.json: the closed stdout
/// ended the run before the files were committed.
#[test]
fn a_closed_stdout_does_not_cost_the_file_outputs() {
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

/// `-o w.json --curve w.json` (or `./w.json`, or a link to it) wrote
/// the curve over the weights.
#[test]
fn two_outputs_naming_one_file_are_refused() {
    let d = Dir::new("i2");
    patterns(&d);
    d.write("w.json", "old\n");
    std::os::unix::fs::symlink("w.json", d.join("link.json")).unwrap();
    let start = Instant::now();
    let absolute = d.join("w.json").display().to_string();
    for curve in ["w.json", "./w.json", "link.json", &absolute] {
        d.tool("nntrain").args(["p.csv", "--iterations", "1000000", "-o", "w.json", "--curve", curve]).fails("are the same file");
    }
    // Both on stdout would run the weights and the curve together.
    d.tool("nntrain").args(["p.csv", "--iterations", "1000000", "--curve", "-"]).fails("-o stdout and --curve stdout are the same file");
    assert!(start.elapsed() < Duration::from_secs(20), "refused before training: {:?}", start.elapsed());
    assert_eq!(d.read("w.json"), "old\n");
    assert_eq!(d.files(), vec!["link.json", "p.csv", "w.json"]);
    // Two files are fine.
    d.tool("nntrain").args(["p.csv", "--iterations", "5", "-o", "w.json", "--curve", "c.csv"]).ok();
    assert!(d.read("c.csv").starts_with("iteration,"));
}

/// Runs `sh -c script` in `dir` (for umask and redirections).
fn sh(dir: &Path, script: &str) -> std::process::Output {
    Command::new("sh").arg("-c").arg(script).current_dir(dir).output().unwrap()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// Outputs get the permissions of `> file` (0666 less the umask); a
/// replaced file keeps its own.
#[test]
fn outputs_have_the_umask_permissions_or_keep_the_replaced_ones() {
    let d = Dir::new("d6");
    let treegen = bin("treegen");
    let t = treegen.display();
    let out = sh(
        &d.path,
        &format!(
            "umask 022 && {t} --ordering 20,69,19 --depth 3 --count 2 -o new.jsonl && umask 027 && {t} --ordering 20,69,19 --depth 3 --count 2 -o new2.jsonl"
        ),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(mode(&d.join("new.jsonl")), 0o644);
    assert_eq!(mode(&d.join("new2.jsonl")), 0o640);
    d.write("old.jsonl", "x\n");
    std::fs::set_permissions(d.join("old.jsonl"), std::fs::Permissions::from_mode(0o664)).unwrap();
    let out = sh(&d.path, &format!("umask 077 && {t} --ordering 20,69,19 --depth 3 --count 2 -o old.jsonl"));
    assert!(out.status.success());
    assert_eq!(mode(&d.join("old.jsonl")), 0o664);
    assert!(d.read("old.jsonl").starts_with('{'));
}

/// SIGTERM while an output is being written removes the temporary file;
/// the old target stays as it was; the process still dies of the signal.
/// The test runs this test binary again, on this test alone, as the child
/// that writes and is killed ([`killed_while_writing`]).
#[test]
fn a_signal_during_the_write_removes_the_temporary_file() {
    if let Some(dir) = std::env::var_os("PARAB_TEST_SIGNAL_DIR") {
        killed_while_writing(Path::new(&dir));
    }
    let d = Dir::new("d7");
    d.write("out.csv", "old\n");
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "outputs::a_signal_during_the_write_removes_the_temporary_file", "--test-threads", "1"])
        .env("PARAB_TEST_SIGNAL_DIR", &d.path)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(15), "the child should die of SIGTERM: {out:?}");
    assert_eq!(d.files(), vec!["out.csv"]);
    assert_eq!(d.read("out.csv"), "old\n");
}

/// The child: starts writing `dir/out.csv`, then sends itself SIGTERM.
fn killed_while_writing(dir: &Path) -> ! {
    use std::io::Write;
    let mut o = parab::cli::Output::create(Some(&dir.join("out.csv"))).unwrap();
    o.write_all(&vec![b'x'; 1 << 20]).unwrap();
    o.flush().unwrap();
    assert!(o.temp_path().unwrap().exists());
    Command::new("kill").args(["-TERM", &std::process::id().to_string()]).status().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(20));
    panic!("not killed");
}

/// All outputs of a run commit together: a failing `-o` leaves `--curve`
/// as it was.
#[test]
fn outputs_commit_together() {
    let d = Dir::new("d8");
    let trees = d.tool("treegen").args(["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "8"]).ok();
    d.write("p.csv", &d.tool("trainset").stdin(&trees).ok());
    d.write("c.csv", "old curve\n");
    d.tool("nntrain").args(["p.csv", "--iterations", "5", "-o", "/dev/full", "--curve", "c.csv"]).fails("cannot write /dev/full");
    assert_eq!(d.read("c.csv"), "old curve\n");
    assert_eq!(d.files(), vec!["c.csv", "p.csv"]);
}

/// Every tool's command line with a long piece of work (minutes at least:
/// a b = 32 tree of depth 12, ten million training iterations, a million
/// positions), writing to `out`, run in a directory holding `big.jsonl`
/// and `p.csv` ([`long_work_inputs`]).
fn long_commands(out: &str) -> Vec<(&'static str, Vec<String>)> {
    let cmd = |tool, args: &[&str]| (tool, args.iter().map(|a| a.to_string()).chain(["-o".to_string(), out.to_string()]).collect());
    vec![
        cmd("treegen", &["--ordering", "32,79,5", "--depth", "12"]),
        cmd("positions", &["--game", "chess", "--count", "1000000", "--seed", "1", "--plies", "16..40"]),
        cmd("fbest", &["big.jsonl"]),
        cmd("trainset", &["big.jsonl"]),
        cmd("classify", &["big.jsonl", "--scheme", "a"]),
        cmd("nntrain", &["p.csv", "--iterations", "100000000"]),
        cmd("nntrain", &["p.csv", "--iterations", "100000000", "--curve", "c.csv"]),
        cmd("pabsim", &["big.jsonl", "--procs", "1,64"]),
        cmd("pabsim", &["--machine", "cluster", "big.jsonl", "--procs", "1,8", "--algorithm", "even-split"]),
        cmd("pabsim", &["--machine", "cluster", "big.jsonl", "--leaf-factors", "--master-depth", "2"]),
        cmd("pabsim", &["--merge", "missing-shard.csv"]),
        cmd("psearch", &["big.jsonl", "--threads", "1"]),
    ]
}

/// `big.jsonl` (one tree of b = 32 at depth 12) and `p.csv` (a small
/// training set) in `d`.
fn long_work_inputs(d: &Dir) {
    artificial_trees(d, "big.jsonl", "32,79,5", 12, 1);
    patterns(d);
}

/// Runs `tool args` in `d` and waits at most 30 s: a run still at work
/// then checks its output only after the work (it is killed).
fn ends_within_30s(d: &Dir, tool: &str, args: &[String]) {
    let mut child = Command::new(bin(tool)).args(args).current_dir(&d.path).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{tool} {}` still at work after 30 s: its output is checked only after the work", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `psearch T -o nodir/x.csv` failed after the whole search (hours in real
/// use), and so did every other tool: an output that cannot be written is
/// refused before any work, in one line naming it, and nothing is left
/// behind.
#[test]
fn an_output_that_cannot_be_written_is_refused_before_the_work() {
    let d = Dir::new("d9");
    long_work_inputs(&d);
    d.write("file.txt", "not a directory\n");
    for (out, needle) in
        [("nodir/x.csv", "cannot create output nodir/x.csv: directory nodir does not exist"), ("file.txt/x.csv", "cannot create output file.txt/x.csv")]
    {
        for (tool, args) in long_commands(out) {
            ends_within_30s(&d, tool, &args);
            d.tool(tool).args(&args).fails(needle);
        }
    }
    // nntrain's other outputs: --curve, and --out-dir (made at the end).
    let nntrain = |extra: &[&str]| d.tool("nntrain").args(["p.csv", "--iterations", "100000000"]).args(extra);
    for extra in [&["--curve", "nodir/c.csv"][..], &["--out-dir", "file.txt/w"], &["--out-dir", "file.txt"]] {
        let args: Vec<String> = ["p.csv", "--iterations", "100000000"].iter().chain(extra).map(|a| a.to_string()).collect();
        ends_within_30s(&d, "nntrain", &args);
        nntrain(extra).fails(extra[1].split('/').next().unwrap());
    }
    nntrain(&["--out-dir", "file.txt/w"]).fails("cannot create --out-dir file.txt/w: file.txt is not a directory");
    assert_eq!(d.files(), vec!["big.jsonl", "file.txt", "p.csv"]);
    // A directory to be made is no error: nntrain makes it at the end.
    d.tool("nntrain").args(["p.csv", "--iterations", "2", "--out-dir", "new/w"]).ok();
    assert_eq!(names(&d.join("new/w")), vec!["20-69-19-curve.csv", "20-69-19.json"]);
}

/// The names in directory `p`, sorted.
fn names(p: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(p).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// `-o a` with `a → b → a` replaced the link with a file and exited 0, in
/// every tool: a loop of links is refused in one line (before the work),
/// both links stay. A valid link is written through, as `> link` in a
/// shell: its target gets the output, the link stays a link.
#[test]
fn a_loop_of_links_is_refused_and_a_valid_link_is_written_through() {
    let d = Dir::new("d10");
    long_work_inputs(&d);
    std::os::unix::fs::symlink("b", d.join("a")).unwrap();
    std::os::unix::fs::symlink("a", d.join("b")).unwrap();
    std::os::unix::fs::symlink("self", d.join("self")).unwrap();
    for out in ["a", "self"] {
        for (tool, args) in long_commands(out) {
            ends_within_30s(&d, tool, &args);
            d.tool(tool).args(&args).fails(&format!("cannot create output {out}: it is a loop of symbolic links"));
        }
    }
    for l in ["a", "b", "self"] {
        assert!(std::fs::symlink_metadata(d.join(l)).unwrap().file_type().is_symlink(), "{l} is still a link");
    }
    assert_eq!(d.files(), vec!["a", "b", "big.jsonl", "p.csv", "self"]);
    // Through a link to a file, and a dangling link (its target is made).
    d.write("real.jsonl", "old\n");
    std::os::unix::fs::symlink("real.jsonl", d.join("link.jsonl")).unwrap();
    std::os::unix::fs::symlink("made.jsonl", d.join("dangling.jsonl")).unwrap();
    let want = d.tool("treegen").args(["--ordering", "4,50,10", "--depth", "3", "--count", "2"]).ok();
    for (link, target) in [("link.jsonl", "real.jsonl"), ("dangling.jsonl", "made.jsonl")] {
        d.tool("treegen").args(["--ordering", "4,50,10", "--depth", "3", "--count", "2", "-o", link]).ok();
        assert!(std::fs::symlink_metadata(d.join(link)).unwrap().file_type().is_symlink(), "{link} is still a link");
        assert_eq!(d.read(target), want);
    }
}
