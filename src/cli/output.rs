//! File and stdout outputs of the tools (see the module doc of
//! [`crate::cli`]): written to a temporary file beside the target and
//! renamed into place when complete, all outputs of a run committed
//! together, devices written in place, two outputs naming one file
//! refused, and the temporary files removed on SIGINT, SIGTERM or SIGHUP
//! (with the line a tool asked to say then, [`say_on_signal`]).

use super::Error;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

/// Temporary files not yet renamed into place. The signal handler removes
/// them; a commit holds the lock while it renames, and [`Output::create`]
/// while it creates one, so a signal finds every temporary file listed.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static CLEANUP: Once = Once::new();
/// The files the outputs not yet committed or dropped will replace, by
/// identity, with the name each was given: two outputs of one run may not
/// name one file.
static TARGETS: Mutex<Vec<(Identity, String)>> = Mutex::new(Vec::new());

pub(super) fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
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
/// (a dangling link): the output replaces the link's target, not the link,
/// as `> link` in a shell writes through it. A chain that never ends (a loop,
/// `a → b → a`) is refused: no file is its target, and renaming onto the
/// last link read would replace a link with a file.
fn resolve_links(given: &Path) -> std::result::Result<PathBuf, Error> {
    let mut p = given.to_path_buf();
    // As the kernel does: a chain of more than 40 links is a loop.
    for _ in 0..=40 {
        match std::fs::read_link(&p) {
            Ok(t) if t.is_absolute() => p = t,
            Ok(t) => p = p.parent().unwrap_or(Path::new("")).join(t),
            Err(_) => return Ok(p),
        }
    }
    Err(Error::Create { path: given.display().to_string(), reason: "it is a loop of symbolic links (point the link at a file, or give another name)".into() })
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
            // A loop: its own name (creating the output refuses it).
            let p = resolve_links(p).unwrap_or_else(|_| p.to_path_buf());
            let dir = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
            Some(Identity::Name(dir.join(p.file_name().unwrap_or_default())))
        }
    }
}

/// Whether `p` is the file this process's stdout writes to (`/dev/stdout`,
/// `/proc/self/fd/1`, or the file stdout was redirected to): an output
/// there would run together with stdout's. `/dev/null` is no one's.
fn names_stdout(p: &Path) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() else { return false };
    let (Ok(out), Ok(file)) = (std::fs::File::from(fd).metadata(), std::fs::metadata(p)) else { return false };
    let null = std::fs::metadata("/dev/null").is_ok_and(|n| (n.dev(), n.ino()) == (file.dev(), file.ino()));
    (out.dev(), out.ino()) == (file.dev(), file.ino()) && !null
}

/// Refuses a command line whose outputs name one file twice, before any
/// work is done: `(option, path)` pairs, `None` or `-` for stdout (which two
/// outputs cannot share either: their contents would run together).
pub fn distinct_outputs(outputs: &[(&str, Option<&Path>)]) -> std::result::Result<(), Error> {
    let is_stdout = |p: Option<&Path>| p.is_none_or(|p| p == Path::new("-") || names_stdout(p));
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
                let shown = |p: Option<&Path>| match p {
                    Some(p) if p != Path::new("-") => p.display().to_string(),
                    _ => "stdout".to_string(),
                };
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

/// Refuses, before any work, outputs that could not be written when the work
/// is done (hours later, for a long search): two naming one file
/// ([`distinct_outputs`]), or a file that cannot be created (its directory
/// missing or not writable, a directory as the target, a loop of links).
/// Each file output is created as its temporary file and removed again at
/// once; a device or FIFO is not opened here (opening a FIFO would wait for
/// its reader, and closing it would end the reader's input).
pub fn check_outputs(outputs: &[(&str, Option<&Path>)]) -> std::result::Result<(), Error> {
    distinct_outputs(outputs)?;
    for (_, p) in outputs {
        if p.is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir())) {
            continue;
        }
        drop(Output::create(*p)?);
    }
    Ok(())
}

/// Refuses, before any work, a directory for outputs (`what` names its
/// option) that could not be made or written in when the work is done: its
/// deepest existing ancestor must be a directory in which a file can be
/// created. Nothing is made or left behind.
pub fn check_dir(dir: &Path, what: &str) -> std::result::Result<(), Error> {
    let fail = |reason: String| Error::CreateDir { what: what.into(), path: dir.display().to_string(), reason };
    let mut base = dir;
    while !base.as_os_str().is_empty() && std::fs::symlink_metadata(base).is_err() {
        base = base.parent().unwrap_or(Path::new(""));
    }
    let base = if base.as_os_str().is_empty() { Path::new(".") } else { base };
    if !base.is_dir() {
        return Err(fail(format!("{} is not a directory", base.display())));
    }
    // Removed when dropped, at once.
    tempfile::Builder::new().prefix(".parab-").tempfile_in(base).map_err(|e| fail(reason(&e)))?;
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
        let p = resolve_links(p)?;
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
                let why =
                    if e.kind() == io::ErrorKind::NotFound { format!("directory {} does not exist (create it first)", dir.display()) } else { reason(&e) };
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
