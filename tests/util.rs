//! A small `TestCommand` helper in the style of ripgrep's: runs a built tool
//! (`CARGO_BIN_EXE_*`) in a unique work directory.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory for one test, removed when dropped.
pub struct Dir {
    pub path: PathBuf,
}

impl Dir {
    pub fn new(name: &str) -> Dir {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!("parab-test-{}-{name}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Dir { path }
    }
    pub fn join(&self, p: &str) -> PathBuf {
        self.path.join(p)
    }
    pub fn write(&self, p: &str, text: &str) -> PathBuf {
        let f = self.join(p);
        std::fs::write(&f, text).unwrap();
        f
    }
    pub fn read(&self, p: &str) -> String {
        std::fs::read_to_string(self.join(p)).unwrap()
    }
    /// Names of the files in the directory, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.path).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The path of a built tool (from `PARAB_TEST_BIN_DIR` when it is set). Tools
/// of the package under test come from `CARGO_BIN_EXE_*`; the others (the report's tests also run `treegen` and
/// `fbest`, which live in the `parab` package) from the same target directory.
pub fn bin(tool: &str) -> PathBuf {
    // PARAB_TEST_BIN_DIR runs the tests against other builds of the tools (an
    // installed release, or an older commit to show a regression test fails there).
    if let Some(dir) = std::env::var_os("PARAB_TEST_BIN_DIR") {
        return PathBuf::from(dir).join(format!("{tool}{}", std::env::consts::EXE_SUFFIX));
    }
    let own = match tool {
        "treegen" => option_env!("CARGO_BIN_EXE_treegen"),
        "fbest" => option_env!("CARGO_BIN_EXE_fbest"),
        "pabsim" => option_env!("CARGO_BIN_EXE_pabsim"),
        "psearch" => option_env!("CARGO_BIN_EXE_psearch"),
        "trainset" => option_env!("CARGO_BIN_EXE_trainset"),
        "nntrain" => option_env!("CARGO_BIN_EXE_nntrain"),
        "classify" => option_env!("CARGO_BIN_EXE_classify"),
        "positions" => option_env!("CARGO_BIN_EXE_positions"),
        "report" => option_env!("CARGO_BIN_EXE_report"),
        other => panic!("unknown tool {other}"),
    };
    if let Some(p) = own {
        return PathBuf::from(p);
    }
    // The test binary is target/<profile>/deps/NAME: the tools are two levels up.
    let exe = std::env::current_exe().unwrap();
    let p = exe.parent().and_then(Path::parent).unwrap().join(format!("{tool}{}", std::env::consts::EXE_SUFFIX));
    assert!(p.is_file(), "{} is not built: run the workspace's tests (`cargo test --release --workspace`) or `cargo build --release` first", p.display());
    p
}

/// Runs `tool args` in `dir` with `stdin`, returning its output.
pub fn run_in(dir: &Path, tool: &str, args: &[&str], stdin: &str) -> Output {
    let mut cmd = Command::new(bin(tool));
    cmd.args(args).current_dir(dir);
    run_command(cmd, stdin)
}

/// Runs `cmd` with `stdin` (written from a thread of its own, so a tool
/// that writes before it has read all of it cannot block), returning its output.
#[allow(dead_code)]
pub fn run_command(mut cmd: Command, stdin: &str) -> Output {
    use std::io::Write;
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("{cmd:?} does not run: {e}"));
    let mut sin = child.stdin.take().unwrap();
    let input = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = sin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Runs a tool that must succeed; returns stdout.
pub fn ok(dir: &Path, tool: &str, args: &[&str], stdin: &str) -> String {
    let out = run_in(dir, tool, args, stdin);
    assert!(out.status.success(), "{tool} {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Runs a tool that must fail with exit 1 and one line on stderr starting
/// with `tool: ` and containing `needle`; stdout must be empty.
pub fn fails(dir: &Path, tool: &str, args: &[&str], stdin: &str, needle: &str) -> String {
    let out = run_in(dir, tool, args, stdin);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{tool} {args:?} should fail");
    assert_eq!(err.lines().count(), 1, "one line of error expected, got: {err}");
    assert!(err.starts_with(&format!("{tool}: ")), "error should start with the tool's name: {err}");
    assert!(err.contains(needle), "error should mention `{needle}`: {err}");
    assert!(out.stdout.is_empty(), "no output expected on error");
    err
}

/// Sums an integer CSV column.
pub fn sum_column(csv: &str, col: &str) -> u64 {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header.iter().position(|h| *h == col).unwrap_or_else(|| panic!("no column {col}"));
    lines.map(|l| l.split(',').nth(i).unwrap().parse::<u64>().unwrap()).sum()
}

/// Each `(args, needle)` must fail with one line of stderr containing
/// `needle`, and leave no `out.csv` behind in `dir`.
pub fn fails_cleanly(dir: &Dir, tool: &str, cases: &[(&[&str], &str)]) {
    for &(args, needle) in cases {
        let out = run_in(&dir.path, tool, args, "");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!dir.join("out.csv").exists(), "{args:?} left a file");
    }
}

/// Column `col` of every data row.
pub fn column(csv: &str, col: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header.iter().position(|h| *h == col).unwrap_or_else(|| panic!("no column {col}"));
    lines.map(|l| l.split(',').nth(i).unwrap().to_string()).collect()
}
