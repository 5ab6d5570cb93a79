//! Command-line plumbing shared by every tool: the one `main` shape, inputs
//! from a path or stdin, outputs to stdout or atomically to a file, thread
//! count. Not a thesis concept; it keeps the binaries thin.
//!
//! Errors print as one line, `tool: what went wrong (file:line)`, and exit 1.
//! A closed stdout (`tool ... | head`) is not an error: the tool exits 0
//! quietly. File outputs are written to a temporary file beside the target
//! and renamed into place only when complete, so an interrupted run never
//! leaves a half-written file behind. A target that is not a regular file
//! (`/dev/null`, a FIFO, `/dev/stdout`) is written in place: a rename would
//! replace the device with a regular file for every program on the machine.
//!
//! All outputs of one run commit together ([`finish_all`]): every one is
//! flushed first, and only when all succeeded are the temporary files renamed,
//! so a failing output never leaves another one replaced. A new file gets the
//! permissions a shell's `> file` would give it (0666 less the umask); a
//! replaced file keeps its own. On SIGINT, SIGTERM or SIGHUP the temporary
//! files not yet renamed are removed before the process dies; the renames of
//! one commit run under the same lock, so a signal lands before or after all
//! of them, never between two.
//!
//! A closed stdout never costs a file output: once the reader of stdout (or
//! of a device) is gone, what is written there is dropped, the run goes on,
//! and its files commit as usual (`nntrain --curve - -o w.json | head`).
//! Two outputs of one run that name one file (`-o w.json --curve ./w.json`,
//! or a link to it) are refused: the second would silently replace the first.
//!
//! Library errors here are typed ([`Error`]); the binaries wrap them in
//! `anyhow` through [`main`].

use anyhow::{Context, Result};
use clap::Parser;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

mod output;
pub use output::{CreatedDirs, Output, check_dir, check_outputs, distinct_outputs, finish_all, say_on_signal};
mod uses;
pub use uses::{Reader, or_list, refuse_unread};

/// What can go wrong with the command line's inputs and outputs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An input cannot be opened.
    #[error("cannot open {path}")]
    Open {
        /// The input.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// An output path names a directory.
    #[error("output {0} is a directory (give a file name)")]
    IsDirectory(String),
    /// The temporary file beside an output (or a device) cannot be created.
    #[error("cannot create output {path}: {reason}")]
    Create {
        /// The target (never the temporary file).
        path: String,
        /// Why, without the temporary file's name.
        reason: String,
    },
    /// A directory for the outputs cannot be created.
    #[error("cannot create {what} {path}: {reason}")]
    CreateDir {
        /// The option that names it.
        what: String,
        /// The directory.
        path: String,
        /// Why.
        reason: String,
    },
    /// Writing, flushing or renaming an output failed.
    #[error("cannot write {path}")]
    Write {
        /// The target.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// A command-line value is out of its range or repeated.
    #[error("{0}")]
    Value(String),
}

/// Runs a tool's body with the shared error handling, then exits.
pub fn main<F: FnOnce() -> Result<()>>(tool: &str, body: F) -> ! {
    let code = match body() {
        Ok(()) => 0,
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            let msg = format!("{e:#}").replace('\n', " ");
            eprintln!("{tool}: {msg}");
            1
        }
    };
    std::process::exit(code)
}

/// Whether `e` is a closed stdout (`tool ... | head`): not an error.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}

/// Parses the command line; `--help`/`--version` print and exit 0, a usage
/// error prints one line and exits 2.
pub fn parse<T: Parser>(tool: &str) -> T {
    parse_with(tool, |c| c)
}

/// [`parse`], with the command changed by `edit` first (help text made at
/// run time, e.g. from a registry).
pub fn parse_with<T: Parser>(tool: &str, edit: impl FnOnce(clap::Command) -> clap::Command) -> T {
    let parsed = edit(T::command()).try_get_matches().and_then(|mut m| T::from_arg_matches_mut(&mut m));
    match parsed {
        Ok(t) => t,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
                let _ = e.print();
                std::process::exit(0);
            }
            eprintln!("{tool}: {} (see `{tool} --help`)", usage_error_line(&e.to_string()));
            std::process::exit(2);
        }
    }
}

/// The one line of a clap usage error: its first line, with the indented
/// lines that follow it (the names of missing arguments) joined on.
fn usage_error_line(text: &str) -> String {
    let mut lines = text.lines();
    let mut line = lines.next().unwrap_or("bad arguments").trim_start_matches("error: ").trim_end().to_string();
    let names: Vec<&str> = lines.take_while(|l| l.starts_with(' ') && !l.trim().is_empty()).map(str::trim).collect();
    if !names.is_empty() {
        line = format!("{} {}", line.trim_end_matches(':'), names.join(", "));
        line = line.replace("were not provided", "were not provided:");
    }
    line
}

/// The most worker threads `--threads` accepts: 256, or the machine's cores
/// if it has more. More threads than cores never speed a run up, and each
/// one costs a stack and spins while idle: `--threads 100000` would bury the
/// machine rather than finish sooner.
pub fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).max(256)
}

/// Sets the number of worker threads (all cores when `None`).
pub fn threads(n: Option<usize>) -> Result<()> {
    if let Some(n) = n {
        anyhow::ensure!(n >= 1, "--threads must be at least 1");
        let max = max_threads();
        anyhow::ensure!(n <= max, "--threads {n} is more than {max} (more threads than cores only add overhead)");
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global().context("cannot set up worker threads")?;
    }
    Ok(())
}

/// An input: a named buffered reader.
pub struct Input {
    /// The path, or `<stdin>`.
    pub name: String,
    /// The reader.
    pub reader: Box<dyn BufRead>,
}

impl Input {
    /// Opens `path`, or stdin for `None` or `-`.
    pub fn open(path: Option<&Path>) -> std::result::Result<Input, Error> {
        match path {
            None => Ok(Input::stdin()),
            Some(p) if p == Path::new("-") => Ok(Input::stdin()),
            Some(p) => {
                let f = File::open(p).map_err(|source| Error::Open { path: p.display().to_string(), source })?;
                Ok(Input { name: p.display().to_string(), reader: Box::new(BufReader::new(f)) })
            }
        }
    }

    /// Standard input.
    pub fn stdin() -> Input {
        Input { name: "<stdin>".into(), reader: Box::new(BufReader::new(io::stdin())) }
    }

    /// An in-memory input (tests).
    pub fn from_string(name: &str, text: &str) -> Input {
        Input::from_bytes(name, text.as_bytes().to_vec())
    }

    /// An in-memory input of raw bytes.
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Input {
        Input { name: name.into(), reader: Box::new(io::Cursor::new(bytes)) }
    }

    /// The lines of the input, numbered from 1, without their line endings
    /// (`\n` or `\r\n`). A byte-order mark at the start of the first line is
    /// dropped (editors on Windows write one; it is invisible in a message).
    /// A line that is not UTF-8 is an error that names it, where
    /// [`BufRead::lines`] would say only that the stream was not UTF-8.
    pub fn numbered_lines(self) -> impl Iterator<Item = (usize, std::result::Result<String, LineError>)> {
        let mut reader = self.reader;
        let mut n = 0;
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let mut buf = vec![];
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) => {
                    done = true;
                    None
                }
                Ok(_) => {
                    n += 1;
                    if buf.last() == Some(&b'\n') {
                        buf.pop();
                        if buf.last() == Some(&b'\r') {
                            buf.pop();
                        }
                    }
                    if n == 1 && buf.starts_with(BOM) {
                        buf.drain(..BOM.len());
                    }
                    Some((n, String::from_utf8(buf).map_err(|e| LineError::NotUtf8 { byte: e.utf8_error().valid_up_to() + 1 })))
                }
                Err(e) => {
                    done = true;
                    Some((n + 1, Err(LineError::Io(e))))
                }
            }
        })
    }
}

/// The UTF-8 byte-order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Removes a byte-order mark from the start of a whole file's text.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Why a line of an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// The reader failed.
    #[error(transparent)]
    Io(io::Error),
    /// The line is not UTF-8.
    #[error("not UTF-8 text (byte {byte} of the line)")]
    NotUtf8 {
        /// 1-based byte of the line where the invalid sequence starts.
        byte: usize,
    },
}

/// An input whose lines could not be read: the error every line reader of
/// the tools shares (tree specs, position files, JSON lines), wrapped by
/// each reader's own error.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The input cannot be read.
    #[error("cannot read {name}")]
    Read {
        /// The input.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// A line that is not UTF-8 text.
    #[error("{why} ({name}:{line})")]
    Line {
        /// The input.
        name: String,
        /// 1-based line.
        line: usize,
        /// What is wrong with it.
        why: LineError,
    },
}

impl InputError {
    /// Line `line` of input `name` could not be read: the reader's error
    /// (the input's), or text that is not UTF-8 (the line's).
    pub fn at(name: &str, line: usize, why: LineError) -> InputError {
        match why {
            LineError::Io(source) => InputError::Read { name: name.to_string(), source },
            why => InputError::Line { name: name.to_string(), line, why },
        }
    }
}

/// The longest piece of a user's text a message quotes.
pub const EXCERPT_CHARS: usize = 60;

/// A user's text as a message quotes it: control characters and other
/// invisible ones escaped (`\0`, `\u{feff}`), and at most
/// [`EXCERPT_CHARS`] characters of it, with `…` and the full length when it
/// is longer. A 2 MB field or a NUL byte never lands raw in an error line.
pub fn excerpt(text: &str) -> String {
    let mut out = String::new();
    for (shown, c) in text.chars().enumerate() {
        if shown == EXCERPT_CHARS {
            out.push_str(&format!("… ({} characters)", text.chars().count()));
            return out;
        }
        if c.is_control() || c == '\u{feff}' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Parses `V` or `LO..HI` (inclusive, also `LO..=HI`) for option `name`,
/// whose values must lie in `min..=max`; checked before any value is
/// materialised, so `1..4294967295` is refused, not allocated.
pub fn bounded_range(text: &str, name: &str, min: u32, max: u32) -> std::result::Result<std::ops::RangeInclusive<u32>, Error> {
    let num = |x: &str| -> std::result::Result<u64, Error> {
        x.trim().parse::<u64>().map_err(|_| Error::Value(format!("{name} `{text}`: `{}` is not a non-negative integer (give V or LO..HI)", x.trim())))
    };
    let (lo, hi) = match text.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
        None => {
            let v = num(text)?;
            (v, v)
        }
    };
    if lo > hi {
        return Err(Error::Value(format!("{name} `{text}`: the range is empty (LO..HI is inclusive, LO <= HI)")));
    }
    if lo < min as u64 || hi > max as u64 {
        return Err(Error::Value(format!("{name} values must lie in {min}..{max}, got {text}")));
    }
    Ok(lo as u32..=hi as u32)
}

/// Refuses a value given twice in a list option (`--procs 1,4,4`): a
/// repeated configuration would be run again and summed into one row.
pub fn no_repeats<T: PartialEq + std::fmt::Display>(name: &str, values: &[T]) -> std::result::Result<(), Error> {
    for (i, v) in values.iter().enumerate() {
        if values[..i].contains(v) {
            return Err(Error::Value(format!("{name}: `{v}` is given twice (give each value once)")));
        }
    }
    Ok(())
}

/// Writes serde rows as CSV (header from the first row's field names).
pub fn write_csv<T: serde::Serialize>(out: &mut Output, rows: impl IntoIterator<Item = T>) -> Result<()> {
    let mut w = csv::Writer::from_writer(out);
    for r in rows {
        w.serialize(r).map_err(csv_io)?;
    }
    w.flush()?;
    Ok(())
}

/// Keeps an I/O error (a broken pipe) visible under a CSV error.
fn csv_io(e: csv::Error) -> anyhow::Error {
    if let csv::ErrorKind::Io(_) = e.kind() {
        match e.into_kind() {
            csv::ErrorKind::Io(io) => anyhow::Error::new(io),
            _ => unreachable!(),
        }
    } else {
        anyhow::Error::new(e)
    }
}

/// Writes values as JSON lines.
pub fn write_json_lines<T: serde::Serialize>(out: &mut Output, rows: &[T]) -> Result<()> {
    for r in rows {
        // Through io::Error, so a closed pipe stays recognisable.
        serde_json::to_writer(&mut *out, r).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::output::pending;
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("parab-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    /// A temporary file is made and listed under the lock the
    /// signal handler takes, so a signal can never find one unlisted (a
    /// SIGINT storm left `.parab-*.png` files in 3 of 200 runs). While the
    /// lock is held elsewhere, `create` makes no file at all.
    #[test]
    fn a_temporary_file_is_made_under_the_signal_handlers_lock() {
        let d = scratch("lock");
        let target = d.join("fig.png");
        let held = pending();
        let maker = std::thread::spawn(move || Output::create(Some(&target)).map(|o| o.temp_path().map(Path::to_path_buf)));
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(names(&d), Vec::<String>::new(), "a temporary file exists that the handler could not see");
        drop(held);
        let tmp = maker.join().unwrap().unwrap().unwrap();
        assert!(pending().contains(&tmp) || !tmp.exists(), "made and listed together");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Two live outputs naming one file (also through `./`, a
    /// link or another spelling of the directory) are refused; once the
    /// first is committed or dropped, the name is free again.
    #[test]
    fn two_outputs_naming_one_file_are_refused() {
        let d = scratch("same");
        std::fs::write(d.join("w.json"), "old").unwrap();
        std::os::unix::fs::symlink("w.json", d.join("link")).unwrap();
        std::os::unix::fs::symlink("new.json", d.join("dangling")).unwrap();
        let first = Output::create(Some(&d.join("w.json"))).unwrap();
        for other in [d.join("./w.json"), d.join("link"), d.join("sub/../w.json")] {
            if other.to_string_lossy().contains("sub") {
                std::fs::create_dir_all(d.join("sub")).unwrap();
            }
            let err = Output::create(Some(&other)).err().unwrap_or_else(|| panic!("{} accepted", other.display())).to_string();
            assert!(err.contains("are the same file"), "{err}");
        }
        let new = Output::create(Some(&d.join("new.json"))).unwrap();
        assert!(Output::create(Some(&d.join("dangling"))).is_err(), "a dangling link to a pending output");
        drop(new);
        first.finish().unwrap();
        Output::create(Some(&d.join("w.json"))).unwrap().finish().unwrap();
        // Devices take any number of outputs.
        let a = Output::create(Some(Path::new("/dev/null"))).unwrap();
        let b = Output::create(Some(Path::new("/dev/null"))).unwrap();
        finish_all(vec![a, b]).unwrap();
        assert!(distinct_outputs(&[("-o", None), ("--curve", Some(Path::new("-")))]).is_err());
        assert!(distinct_outputs(&[("-o", Some(&d.join("a"))), ("--curve", Some(&d.join("b")))]).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// Directories made for a run that fails are removed again
    /// (`report --out new/deep/o --figures /proc/x` left `new/deep/o`).
    #[test]
    fn directories_of_a_failed_run_are_removed() {
        let d = scratch("dirs");
        let mut made = CreatedDirs::default();
        made.create(&d.join("new/deep/o"), "--out").unwrap();
        assert!(d.join("new/deep/o").is_dir());
        let err = made.create(Path::new("/proc/parab-no-such/x"), "--figures").unwrap_err().to_string();
        assert!(err.starts_with("cannot create --figures /proc/parab-no-such/x: "), "{err}");
        drop(made);
        assert_eq!(names(&d), Vec::<String>::new());
        // Kept on success; an existing directory is never removed.
        let mut made = CreatedDirs::default();
        made.create(&d.join("a/b"), "--out").unwrap();
        made.create(&d, "--figures").unwrap();
        made.keep();
        assert!(d.join("a/b").is_dir());
        let mut made = CreatedDirs::default();
        made.create(&d.join("a/b/c"), "--out").unwrap();
        drop(made);
        assert!(d.join("a/b").is_dir() && !d.join("a/b/c").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn excerpts_are_short_and_escaped() {
        assert_eq!(excerpt("abc"), "abc");
        assert_eq!(excerpt("a\0b\u{feff}c\n"), "a\\u{0}b\\u{feff}c\\n");
        let long = "é".repeat(100);
        assert_eq!(excerpt(&long), format!("{}… (100 characters)", "é".repeat(EXCERPT_CHARS)));
    }

    #[test]
    fn numbered_lines_drop_a_bom_and_name_bad_utf8() {
        let lines: Vec<(usize, std::result::Result<String, LineError>)> =
            Input::from_bytes("x", b"\xEF\xBB\xBFa\r\nb\n\xff\nlast".to_vec()).numbered_lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].1.as_ref().unwrap(), "a");
        assert_eq!(lines[1].1.as_ref().unwrap(), "b");
        assert!(matches!(lines[2], (3, Err(LineError::NotUtf8 { byte: 1 }))));
        assert_eq!(lines[3].1.as_ref().unwrap(), "last");
        // A mark later in the file is text.
        let second: Vec<_> = Input::from_string("x", "a\n\u{feff}b\n").numbered_lines().map(|(_, l)| l.unwrap()).collect();
        assert_eq!(second, vec!["a".to_string(), "\u{feff}b".to_string()]);
    }

    #[test]
    fn threads_are_bounded() {
        assert!(max_threads() >= 256);
        assert!(threads(Some(max_threads() + 1)).unwrap_err().to_string().contains("is more than"));
    }
}
