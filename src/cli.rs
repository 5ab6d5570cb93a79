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
//! Library errors here are typed ([`Error`]); the binaries wrap them in
//! `anyhow` through [`main`].

use anyhow::{Context, Result};
use clap::Parser;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

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

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}

/// Parses the command line; `--help`/`--version` print and exit 0, a usage
/// error prints one line and exits 2.
pub fn parse<T: Parser>(tool: &str) -> T {
    match T::try_parse() {
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

/// Sets the number of worker threads (all cores when `None`).
pub fn threads(n: Option<usize>) -> Result<()> {
    if let Some(n) = n {
        anyhow::ensure!(n >= 1, "--threads must be at least 1");
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
        Input { name: name.into(), reader: Box::new(io::Cursor::new(text.to_string().into_bytes())) }
    }
}

/// Temporary files not yet renamed into place. The signal handler removes
/// them; a commit holds the lock while it renames.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static CLEANUP: Once = Once::new();

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts the thread that, on SIGINT, SIGTERM or SIGHUP, removes the pending
/// temporary files and then lets the signal do what it would have done.
fn install_cleanup() {
    CLEANUP.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                // Keep the lock: no rename may start after the files are gone.
                let files = pending();
                for p in files.iter() {
                    let _ = std::fs::remove_file(p);
                }
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        });
    });
}

/// Follows a chain of symlinks, also when the last target does not exist yet
/// (a dangling link): the output replaces the link's target, not the link.
fn resolve_links(p: &Path) -> PathBuf {
    let mut p = p.to_path_buf();
    // As the kernel does: give up after 40 links (a loop).
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(t) if t.is_absolute() => p = t,
            Ok(t) => p = p.parent().unwrap_or(Path::new("")).join(t),
            Err(_) => break,
        }
    }
    p
}

/// The OS's reason, without the path tempfile adds to its errors.
fn reason(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code).to_string(),
        None => io::Error::from(e.kind()).to_string(),
    }
}

/// A temporary file waiting to be renamed onto its target.
struct Staged {
    tmp: PathBuf,
    dest: PathBuf,
}

/// An output: stdout, a device written in place, or a file written to a
/// temporary file and renamed into place by [`Output::finish`] or
/// [`finish_all`].
pub struct Output {
    name: String,
    inner: BufWriter<Box<dyn Write>>,
    file: Option<Staged>,
}

impl Output {
    /// Stdout for `None` or `-`, else a temporary file renamed to `path` by
    /// [`Output::finish`]. Dropped without `finish`, the file is removed.
    pub fn create(path: Option<&Path>) -> std::result::Result<Output, Error> {
        use std::os::unix::fs::PermissionsExt;
        let p = match path {
            None => return Ok(Output::stdout()),
            Some(p) if p == Path::new("-") => return Ok(Output::stdout()),
            Some(p) => p,
        };
        // A device or FIFO (also behind a link, such as /dev/stdout, whose
        // target may be no path at all) is written in place.
        if let Ok(meta) = std::fs::metadata(p) {
            let name = p.display().to_string();
            if meta.is_dir() {
                return Err(Error::IsDirectory(name));
            }
            if !meta.is_file() {
                let f = std::fs::OpenOptions::new().write(true).open(p).map_err(|e| Error::Create { path: name.clone(), reason: reason(&e) })?;
                return Ok(Output::new(name, f, None));
            }
        }
        let p = resolve_links(p);
        let name = p.display().to_string();
        let existing = std::fs::metadata(&p).ok();
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        install_cleanup();
        // Mode 0666 at creation: the kernel applies the umask, as for `> file`.
        // The target's extension too: writers that pick a format by the name
        // (the report's PNG figures) write into the temporary file.
        let suffix = p.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
        let tmp =
            tempfile::Builder::new().prefix(".parab-").suffix(&suffix).permissions(std::fs::Permissions::from_mode(0o666)).tempfile_in(dir).map_err(|e| {
                let why = if e.kind() == io::ErrorKind::NotFound { format!("{} (does its directory exist?)", reason(&e)) } else { reason(&e) };
                Error::Create { path: name.clone(), reason: why }
            })?;
        let (f, tmp_path) = tmp.into_parts();
        // From here the signal handler or `Drop` removes the file, not tempfile.
        let tmp = tmp_path.keep().map_err(|e| Error::Create { path: name.clone(), reason: reason(&e.error) })?;
        pending().push(tmp.clone());
        let staged = Staged { tmp, dest: p.clone() };
        if let Some(meta) = &existing {
            // A replaced file keeps its permissions.
            f.set_permissions(meta.permissions()).map_err(|e| Error::Create { path: name.clone(), reason: reason(&e) })?;
        }
        Ok(Output::new(name, f, Some(staged)))
    }

    fn stdout() -> Output {
        Output::new("<stdout>".into(), io::stdout(), None)
    }

    /// Buffers `w`; `file` is the temporary file to rename into place, if any.
    fn new(name: String, w: impl Write + 'static, file: Option<Staged>) -> Output {
        Output { name, inner: BufWriter::with_capacity(1 << 16, Box::new(w)), file }
    }

    /// The target's name (`<stdout>` for stdout), for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The temporary file, for writers that want a path (the report's PNG
    /// figures); `None` for stdout and devices.
    pub fn temp_path(&self) -> Option<&Path> {
        self.file.as_ref().map(|s| s.tmp.as_path())
    }

    /// Flushes and, for a file, renames it into place.
    pub fn finish(self) -> std::result::Result<(), Error> {
        finish_all(vec![self])
    }

    fn flush_named(&mut self) -> std::result::Result<(), Error> {
        let name = self.name.clone();
        self.inner.flush().map_err(|source| Error::Write { path: name, source: unwrap_named(source) })
    }
}

/// Commits several outputs as one: flushes every one (files before devices
/// and stdout), and only when all succeeded renames the temporary files into
/// place. On an error nothing is renamed and the temporary files are removed.
pub fn finish_all(mut outs: Vec<Output>) -> std::result::Result<(), Error> {
    outs.sort_by_key(|o| o.file.is_none());
    for o in &mut outs {
        o.flush_named()?;
    }
    let mut files = pending();
    for o in &mut outs {
        if let Some(s) = o.file.take() {
            let renamed = std::fs::rename(&s.tmp, &s.dest);
            files.retain(|p| p != &s.tmp);
            if let Err(source) = renamed {
                let _ = std::fs::remove_file(&s.tmp);
                return Err(Error::Write { path: o.name.clone(), source });
            }
        }
    }
    Ok(())
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(s) = self.file.take() {
            let _ = std::fs::remove_file(&s.tmp);
            pending().retain(|p| p != &s.tmp);
        }
    }
}

/// Our own write errors already name the file: take the inner error back out
/// so that a message does not name it twice.
fn unwrap_named(e: io::Error) -> io::Error {
    if e.get_ref().is_some_and(|i| i.is::<Named>()) {
        let kind = e.kind();
        let inner = e.into_inner().expect("checked above");
        return match inner.downcast::<Named>() {
            Ok(n) => n.0,
            Err(other) => io::Error::new(kind, other),
        };
    }
    e
}

/// An I/O error of a named output.
#[derive(Debug)]
struct Named(io::Error, String);

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The reason is the source: `{:#}` chains print it once.
        write!(f, "cannot write {}", self.1)
    }
}

impl std::error::Error for Named {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let name = &self.name;
        self.inner.write(buf).map_err(|e| io::Error::new(e.kind(), Named(e, name.clone())))
    }
    fn flush(&mut self) -> io::Result<()> {
        let name = &self.name;
        self.inner.flush().map_err(|e| io::Error::new(e.kind(), Named(e, name.clone())))
    }
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
