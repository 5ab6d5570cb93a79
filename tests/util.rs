//! How the tests run the tools, in the style of ripgrep's `TestCommand`: a
//! [`Tool`] is a command line under construction (`Tool::new("pabsim")`, or
//! `dir.tool("pabsim")` to run it in a test's [`Dir`]) that ends in one of
//! the outcomes a test expects: [`Tool::ok`] (its stdout), [`Tool::rows`]
//! (its stdout read as typed rows by the crate's own CSV reader),
//! [`Tool::fails`] (the one refusal rule every tool follows) or
//! [`Tool::output`] (the raw output). The shared inputs the tests build the
//! same way (small tree files, a training set) are here too.

#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
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
    /// `tool` to run in this directory.
    pub fn tool(&self, tool: &str) -> Tool {
        Tool::new(tool).current_dir(&self.path)
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
        names_in(&self.path).into_iter().collect()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The names in directory `dir`.
pub fn names_in(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
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

/// A command line under construction: a tool, its arguments, its stdin,
/// its directory and environment, then what it must do.
pub struct Tool {
    /// The name its error lines start with (`pabsim: …`).
    name: String,
    cmd: Command,
    stdin: String,
}

impl Tool {
    /// The built tool `tool` (see [`bin`]).
    pub fn new(tool: &str) -> Tool {
        Tool::wrapping(tool, Command::new(bin(tool)))
    }

    /// A prepared command that runs tool `name` (under `mpirun`, say): its
    /// errors start with `name: ` as the tool's own do.
    pub fn wrapping(name: &str, cmd: Command) -> Tool {
        Tool { name: name.to_string(), cmd, stdin: String::new() }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Tool {
        self.cmd.arg(arg);
        self
    }

    pub fn args<I: IntoIterator<Item = A>, A: AsRef<OsStr>>(mut self, args: I) -> Tool {
        self.cmd.args(args);
        self
    }

    /// The text on the tool's stdin (none by default).
    pub fn stdin(mut self, text: &str) -> Tool {
        self.stdin = text.to_string();
        self
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Tool {
        self.cmd.current_dir(dir);
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Tool {
        self.cmd.env(key, value);
        self
    }

    pub fn envs<'a>(mut self, vars: impl IntoIterator<Item = &'a (&'a str, &'a str)>) -> Tool {
        for (k, v) in vars {
            self.cmd.env(k, v);
        }
        self
    }

    /// The command line, for messages.
    fn line(&self) -> String {
        let args: Vec<String> = self.cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        format!("{} {}", self.name, args.join(" "))
    }

    /// Runs it (stdin written from a thread of its own, so a tool that
    /// writes before it has read all of it cannot block): its raw output.
    pub fn output(mut self) -> Output {
        use std::io::Write;
        let cmd = &mut self.cmd;
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("{cmd:?} does not run: {e}"));
        let mut sin = child.stdin.take().unwrap();
        let input = std::mem::take(&mut self.stdin);
        let writer = std::thread::spawn(move || {
            let _ = sin.write_all(input.as_bytes());
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        out
    }

    /// Runs a command that must succeed: its stdout.
    pub fn ok(self) -> String {
        let line = self.line();
        let out = self.output();
        assert!(out.status.success(), "`{line}` failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("`{line}` wrote other than UTF-8: {e}"))
    }

    /// Runs a command that must succeed: its stdout as rows of `T`, read by
    /// the reader the tools use (every column named, no other).
    pub fn rows<T: serde::de::DeserializeOwned>(self) -> Vec<T> {
        let name = self.line();
        rows_of(&name, &self.ok())
    }

    /// Runs a command that must be refused, with exit code 1; see
    /// [`Tool::fails_with`].
    pub fn fails(self, needle: &str) -> String {
        self.fails_with(1, needle)
    }

    /// Runs a command that must be refused the way every tool refuses:
    /// exit code `code`; on stderr exactly one line, starting with the
    /// tool's name and containing `needle`, no panic; nothing on stdout; no
    /// file left behind in its directory, and its `-o` target as it was
    /// (absent if it was absent, its bytes if it was a file). Returns the
    /// line.
    pub fn fails_with(self, code: i32, needle: &str) -> String {
        let (line, name) = (self.line(), self.name.clone());
        let dir = self.cmd.get_current_dir().map(Path::to_path_buf);
        let before = dir.as_deref().map(names_in);
        let target = self.output_target();
        let target_before = target.as_ref().map(|t| (t.exists(), t.is_file().then(|| std::fs::read(t).unwrap())));
        let out = self.output();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(code), "`{line}` should fail with {code}: {err}");
        assert_eq!(err.lines().count(), 1, "`{line}`: one line of error expected, got: {err}");
        assert!(err.starts_with(&format!("{name}: ")), "`{line}`: the error should start with the tool's name: {err}");
        assert!(err.contains(needle), "`{line}`: `{needle}` expected in: {err}");
        assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "`{line}`: {err}");
        assert!(out.stdout.is_empty(), "`{line}`: nothing on stdout expected, got: {}", String::from_utf8_lossy(&out.stdout));
        if let (Some(dir), Some(before)) = (dir, before) {
            assert_eq!(names_in(&dir), before, "`{line}` left files behind");
        }
        if let (Some(t), Some((existed, bytes))) = (target, target_before) {
            assert_eq!(t.exists(), existed, "`{line}`: its output {} was created or removed", t.display());
            if let Some(bytes) = bytes {
                assert!(std::fs::read(&t).unwrap() == bytes, "`{line}`: its output {} was changed", t.display());
            }
        }
        err
    }

    /// The file named by `-o`/`--output`, from the command's directory.
    fn output_target(&self) -> Option<PathBuf> {
        let args: Vec<&OsStr> = self.cmd.get_args().collect();
        let named = args.windows(2).rev().find(|w| w[0] == "-o" || w[0] == "--output").map(|w| w[1]).filter(|t| *t != "-")?;
        Some(match self.cmd.get_current_dir() {
            Some(dir) => dir.join(named),
            None => PathBuf::from(named),
        })
    }
}

/// CSV `text` (named `name` in errors) as rows of `T`, read by the
/// crate's own reader: a struct's columns are checked against the header
/// (every field named, no other); `HashMap<String, String>` takes any.
pub fn rows_of<T: serde::de::DeserializeOwned>(name: &str, text: &str) -> Vec<T> {
    parab::formats::read_csv(parab::cli::Input::from_string(name, text)).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"))
}

/// One row of any table: column name → text.
pub type Row = HashMap<String, String>;

/// The rows of CSV `text`, each as column name → text.
pub fn table(text: &str) -> Vec<Row> {
    rows_of("csv", text)
}

/// Column `col` of every data row.
pub fn column(csv: &str, col: &str) -> Vec<String> {
    table(csv).into_iter().map(|mut r| r.remove(col).unwrap_or_else(|| panic!("no column {col} in {csv}"))).collect()
}

/// Sums an integer CSV column.
pub fn sum_column(csv: &str, col: &str) -> u64 {
    column(csv, col).iter().map(|v| v.parse::<u64>().unwrap_or_else(|e| panic!("{col}: `{v}`: {e}"))).sum()
}

/// The workspace's own file `p` (the tests of the report crate, one
/// folder down, share this module).
pub fn repo(p: &str) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = if manifest.join("data").is_dir() { manifest } else { manifest.parent().unwrap() };
    root.join(p)
}

/// `count` artificial trees of `ordering` (set tg1) at `depth`, written to `file`.
pub fn artificial_trees(d: &Dir, file: &str, ordering: &str, depth: u32, count: u32) {
    d.tool("treegen").args(["--ordering", ordering, "--depth", &depth.to_string(), "--count", &count.to_string(), "-o", file]).ok();
}

/// `count` incremental trees of branching `b` at `depth`, written to `file`.
pub fn incremental_trees(d: &Dir, file: &str, b: u32, depth: u32, count: u32) {
    let (b, depth, count) = (b.to_string(), depth.to_string(), count.to_string());
    d.tool("treegen").args(["--model", "incremental", "--branching", &b, "--depth", &depth, "--count", &count, "-o", file]).ok();
}

/// Trees of `game` (`chess`: the 24 Bratko-Kopec positions; `othello`:
/// the Othello test positions) at `depth`, the first `count` of them (all
/// with `None`), written to `file`.
pub fn game_trees(d: &Dir, file: &str, game: &str, depth: u32, count: Option<u32>) {
    let positions = match game {
        "chess" => repo("data/positions/bratko-kopec.epd"),
        "othello" => repo("data/positions/othello-test.txt"),
        other => panic!("no positions for {other}"),
    };
    let count = count.map(|c| c.to_string());
    let mut args = vec!["--game", game, "--positions", positions.to_str().unwrap(), "--depth"];
    let depth = depth.to_string();
    args.push(&depth);
    if let Some(c) = &count {
        args.extend(["--count", c]);
    }
    d.tool("treegen").args(args).args(["-o", file]).ok();
}

/// A small training set `p.csv` (8 tg2 trees of (20, 69, 19) at depth 3).
pub fn patterns(d: &Dir) {
    let trees = d.tool("treegen").args(["--set", "tg2", "--ordering", "20,69,19", "--depth", "3", "--count", "8"]).ok();
    d.write("p.csv", &d.tool("trainset").stdin(&trees).ok());
}

/// Experiment script `pipelines/NAME.sh` run by bash in `d`, with the built
/// tools as its BIN and `d`/results as its R, in a process group of its
/// own (a test that interrupts the group interrupts only it): a [`Tool`]
/// named NAME, whose refusals start `NAME: ` (`games: ` for
/// beyond-games.sh, as its other lines).
pub fn script(d: &Dir, name: &str) -> Tool {
    let mut cmd = Command::new("bash");
    cmd.arg(repo(&format!("pipelines/{name}.sh"))).current_dir(&d.path).env("BIN", bin("pabsim").parent().unwrap()).env("R", d.join("results"));
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    // SIGINT at its default, as a script started from a terminal has it: a
    // test run in the background of a non-interactive shell (`make test &`)
    // inherits it ignored, and the interrupt tests' Ctrl-C would do nothing.
    // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    Tool::wrapping(if name == "beyond-games" { "games" } else { name }, cmd)
}

/// Each of `cases` (variables beside `base`) must make script `name`
/// refuse up front ([`Tool::fails_with`] 2, the line containing the
/// case's text: nothing made in its fresh directory). Every case is
/// tried; the ones accepted are named together.
pub fn script_refuses(name: &str, base: &[(&str, &str)], cases: &[(&[(&str, &str)], &str)]) {
    let mut accepted = vec![];
    for (n, (env, needle)) in cases.iter().enumerate() {
        let d = Dir::new(&format!("{name}-refusal-{n}"));
        d.write("a-file", "not a directory\n");
        let tried = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut tool = script(&d, name).envs(base.iter());
            for (k, v) in env.iter() {
                tool = tool.env(k, v.replace("{dir}", &d.path.to_string_lossy()));
            }
            tool.fails_with(2, needle);
        }));
        if tried.is_err() {
            accepted.push(format!("{env:?}"));
        }
    }
    assert!(accepted.is_empty(), "{name}.sh did not refuse these up front: {accepted:?}");
}

/// A directory holding an `mv` that moves as `/bin/mv` does, except a file
/// whose name holds `$STOP_AT`: that move is interrupted as Ctrl-C does,
/// SIGINT to the whole process group (put it first on PATH).
pub fn interrupting_mv(d: &Dir) -> PathBuf {
    let dir = d.join("interrupt");
    std::fs::create_dir_all(&dir).unwrap();
    executable(&dir.join("mv"), "#!/bin/sh\ncase \"$1\" in *\"$STOP_AT\"*) kill -INT 0; sleep 5; exit 1 ;; esac\nexec /bin/mv \"$@\"\n");
    dir
}

/// Writes `text` to `path` as an executable file (a fake tool or command
/// a test puts first on PATH or in BIN).
pub fn executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// A BIN directory for a pipeline script, `d/bin`: the built tools named
/// in `real` linked in, and each `(name, text)` of `fakes` written as an
/// executable beside them.
pub fn tools_dir(d: &Dir, real: &[&str], fakes: &[(&str, &str)]) -> PathBuf {
    let dir = d.join("bin");
    std::fs::create_dir_all(&dir).unwrap();
    for tool in real {
        std::os::unix::fs::symlink(bin(tool), dir.join(tool)).unwrap();
    }
    for (name, text) in fakes {
        executable(&dir.join(name), text);
    }
    dir
}

/// The files under `dir` (recursively) whose names end in `.tmp`.
pub fn tmp_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(tmp_files(&p));
        } else if p.to_string_lossy().ends_with(".tmp") {
            out.push(p);
        }
    }
    out
}
