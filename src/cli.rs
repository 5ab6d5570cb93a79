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

/// Temporary files not yet renamed into place. The signal handler removes
/// them; a commit holds the lock while it renames, and [`Output::create`]
/// while it creates one, so a signal finds every temporary file listed.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static CLEANUP: Once = Once::new();
/// The files the outputs not yet committed or dropped will replace, by
/// identity, with the name each was given: two outputs of one run may not
/// name one file.
static TARGETS: Mutex<Vec<(Identity, String)>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

fn targets() -> MutexGuard<'static, Vec<(Identity, String)>> {
    TARGETS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The line a signal prints before it ends the tool ([`say_on_signal`]).
static SIGNAL_LINE: Mutex<Option<String>> = Mutex::new(None);

/// On SIGINT, SIGTERM or SIGHUP, print `line` (one line on stderr) before
/// the pending files are removed and the signal ends the tool: for a tool
/// whose end by a signal would otherwise be silent (rank 0 of an MPI job,
/// which mpirun stops with SIGTERM when another rank dies or the job is
/// interrupted). `None` says nothing again (once the tool has said why it
/// ends).
pub fn say_on_signal(line: Option<String>) {
    *SIGNAL_LINE.lock().unwrap_or_else(|e| e.into_inner()) = line;
    install_cleanup();
}

/// Starts the thread that, on SIGINT, SIGTERM or SIGHUP, removes the pending
/// temporary files and then lets the signal do what it would have done.
fn install_cleanup() {
    CLEANUP.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                if let Some(line) = SIGNAL_LINE.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                    // One write: a launcher that forwards the tool's stderr
                    // (mpirun) may stop reading it at any moment.
                    use std::io::Write;
                    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
                }
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

/// What makes two paths one file: the same device and inode for a file that
/// exists (hard links too), else the same name in the same directory
/// (`w.json`, `./w.json` and `dir/../w.json` alike).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Name(PathBuf),
}

/// The identity of the file a path names, links followed; `None` for a
/// target that is not a regular file (a device is written in place, and
/// `/dev/null` may take any number of outputs).
fn identity(p: &Path) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(p) {
        Ok(m) if m.is_file() => Some(Identity::Inode(m.dev(), m.ino())),
        Ok(_) => None,
        Err(_) => {
            let p = resolve_links(p);
            let dir = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            Some(Identity::Name(dir.join(p.file_name().unwrap_or_default())))
        }
    }
}

/// Refuses a command line whose outputs name one file twice, before any
/// work is done: `(option, path)` pairs, `None` or `-` for stdout (which two
/// outputs cannot share either: their contents would run together).
pub fn distinct_outputs(outputs: &[(&str, Option<&Path>)]) -> std::result::Result<(), Error> {
    let is_stdout = |p: Option<&Path>| p.is_none_or(|p| p == Path::new("-"));
    for (i, (a, pa)) in outputs.iter().enumerate() {
        for (b, pb) in &outputs[..i] {
            let same = match (is_stdout(*pa), is_stdout(*pb)) {
                (true, true) => true,
                (false, false) => {
                    let (pa, pb) = (pa.unwrap_or(Path::new("-")), pb.unwrap_or(Path::new("-")));
                    identity(pa).is_some_and(|x| identity(pb).is_some_and(|y| x == y))
                }
                _ => false,
            };
            if same {
                let shown = |p: Option<&Path>| if is_stdout(p) { "stdout".to_string() } else { p.unwrap_or(Path::new("-")).display().to_string() };
                return Err(Error::Value(format!(
                    "{b} {} and {a} {} are the same file: the second would replace the first (give each output its own file)",
                    shown(*pb),
                    shown(*pa)
                )));
            }
        }
    }
    Ok(())
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
    id: Identity,
}

/// An output: stdout, a device written in place, or a file written to a
/// temporary file and renamed into place by [`Output::finish`] or
/// [`finish_all`].
pub struct Output {
    name: String,
    inner: BufWriter<Box<dyn Write>>,
    file: Option<Staged>,
    /// Stdout or a device whose reader has gone (a broken pipe): later
    /// writes are dropped.
    closed: bool,
}

impl Output {
    /// Stdout for `None` or `-`, else a temporary file renamed to `path` by
    /// [`Output::finish`]. Dropped without `finish`, the file is removed.
    /// Refuses a file another live output of this run already targets.
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
        let id = identity(p).unwrap_or_else(|| Identity::Name(p.to_path_buf()));
        let p = resolve_links(p);
        let name = p.display().to_string();
        let existing = std::fs::metadata(&p).ok();
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // Always the temporary files' lock first, then the targets' (as
        // `finish_all` takes them).
        let mut files = pending();
        let mut live = targets();
        if let Some((_, other)) = live.iter().find(|(x, _)| *x == id) {
            return Err(Error::Value(format!(
                "outputs {other} and {name} are the same file: the second would replace the first (give each output its own file)"
            )));
        }
        install_cleanup();
        // Mode 0666 at creation: the kernel applies the umask, as for `> file`.
        // The target's extension too: writers that pick a format by the name
        // (the report's PNG figures) write into the temporary file.
        let suffix = p.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
        // Created and listed under the lock: a signal between the two would
        // leave the file behind (the handler takes the same lock).
        let tmp =
            tempfile::Builder::new().prefix(".parab-").suffix(&suffix).permissions(std::fs::Permissions::from_mode(0o666)).tempfile_in(dir).map_err(|e| {
                let why = if e.kind() == io::ErrorKind::NotFound { format!("{} (does its directory exist?)", reason(&e)) } else { reason(&e) };
                Error::Create { path: name.clone(), reason: why }
            })?;
        let (f, tmp_path) = tmp.into_parts();
        // From here the signal handler or `Drop` removes the file, not tempfile.
        let tmp = tmp_path.keep().map_err(|e| Error::Create { path: name.clone(), reason: reason(&e.error) })?;
        files.push(tmp.clone());
        drop(files);
        live.push((id.clone(), name.clone()));
        drop(live);
        // A replaced file keeps its permissions. On an error, dropping the
        // output removes the temporary file.
        let kept = existing.map(|meta| f.set_permissions(meta.permissions()));
        let out = Output::new(name.clone(), f, Some(Staged { tmp, dest: p.clone(), id }));
        if let Some(Err(e)) = kept {
            return Err(Error::Create { path: name, reason: reason(&e) });
        }
        Ok(out)
    }

    fn stdout() -> Output {
        Output::new("<stdout>".into(), io::stdout(), None)
    }

    /// Buffers `w`; `file` is the temporary file to rename into place, if any.
    fn new(name: String, w: impl Write + 'static, file: Option<Staged>) -> Output {
        Output { name, inner: BufWriter::with_capacity(1 << 16, Box::new(w)), file, closed: false }
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
        Write::flush(self).map_err(|source| Error::Write { path: name, source: unwrap_named(source) })
    }

    /// A broken pipe on stdout or a device: the reader is gone, and what
    /// would have gone to it is dropped (the run's files still commit).
    fn reader_gone(&mut self, e: &io::Error) -> bool {
        if self.file.is_none() && e.kind() == io::ErrorKind::BrokenPipe {
            self.closed = true;
            // What is still buffered can never be delivered.
            let _ = std::mem::replace(&mut self.inner, BufWriter::new(Box::new(io::sink())));
            return true;
        }
        false
    }
}

/// Directories a run made for its outputs (`--out-dir`, the report's
/// `--out` and `--figures`). Dropped before [`CreatedDirs::keep`], it removes
/// the ones it made, deepest first and only while empty, so a run that fails
/// leaves no empty directories behind.
#[derive(Debug, Default)]
pub struct CreatedDirs {
    made: Vec<PathBuf>,
}

impl CreatedDirs {
    /// Creates `dir` and its missing parents (`what` names it in a message).
    pub fn create(&mut self, dir: &Path, what: &str) -> std::result::Result<(), Error> {
        let mut missing = vec![];
        let mut d = dir;
        while !d.as_os_str().is_empty() && std::fs::symlink_metadata(d).is_err() {
            missing.push(d.to_path_buf());
            match d.parent() {
                Some(p) => d = p,
                None => break,
            }
        }
        for m in missing.into_iter().rev() {
            match std::fs::create_dir(&m) {
                Ok(()) => self.made.push(m),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && m.is_dir() => {}
                Err(e) => return Err(Error::CreateDir { what: what.into(), path: dir.display().to_string(), reason: reason(&e) }),
            }
        }
        if !dir.is_dir() {
            let why = if dir.exists() { "it is not a directory" } else { "it does not exist" };
            return Err(Error::CreateDir { what: what.into(), path: dir.display().to_string(), reason: why.into() });
        }
        Ok(())
    }

    /// The run succeeded: the directories stay.
    pub fn keep(mut self) {
        self.made.clear();
    }
}

impl Drop for CreatedDirs {
    fn drop(&mut self) {
        for d in self.made.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
}

/// Commits several outputs as one: flushes every one (files before devices
/// and stdout), and only when all succeeded renames the temporary files into
/// place. On an error nothing is renamed and the temporary files are removed.
/// A reader of stdout that went away (`| head`) is no error (see
/// the `Write` impl of [`Output`]), so it cannot cost the files.
pub fn finish_all(mut outs: Vec<Output>) -> std::result::Result<(), Error> {
    outs.sort_by_key(|o| o.file.is_none());
    for o in &mut outs {
        o.flush_named()?;
    }
    let mut files = pending();
    let mut live = targets();
    for o in &mut outs {
        if let Some(s) = o.file.take() {
            let renamed = std::fs::rename(&s.tmp, &s.dest);
            files.retain(|p| p != &s.tmp);
            live.retain(|(x, _)| *x != s.id);
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
            targets().retain(|(x, _)| *x != s.id);
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
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if self.reader_gone(&e) => Ok(buf.len()),
            Err(e) => Err(io::Error::new(e.kind(), Named(e, self.name.clone()))),
            ok => ok,
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if self.reader_gone(&e) => Ok(()),
            Err(e) => Err(io::Error::new(e.kind(), Named(e, self.name.clone()))),
            ok => ok,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
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

    /// Issue 22: a temporary file is made and listed under the lock the
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

    /// Issue 22: two live outputs naming one file (also through `./`, a
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

    /// Issue 22: directories made for a run that fails are removed again
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
