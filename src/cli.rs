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

use anyhow::{Context, Result};
use clap::Parser;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

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
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad arguments").trim_start_matches("error: ");
            eprintln!("{tool}: {first} (see `{tool} --help`)");
            std::process::exit(2);
        }
    }
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
    pub fn open(path: Option<&Path>) -> Result<Input> {
        match path {
            None => Ok(Input::stdin()),
            Some(p) if p == Path::new("-") => Ok(Input::stdin()),
            Some(p) => {
                let f = File::open(p).with_context(|| format!("cannot open {}", p.display()))?;
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

/// An output: stdout, or a file written atomically.
pub struct Output {
    inner: BufWriter<Box<dyn Write>>,
    file: Option<(tempfile::TempPath, PathBuf)>,
}

impl Output {
    /// Stdout for `None` or `-`, else a temporary file renamed to `path` by
    /// [`Output::finish`]. Dropped without `finish`, the file is removed.
    pub fn create(path: Option<&Path>) -> Result<Output> {
        match path {
            None => Ok(Output::stdout()),
            Some(p) if p == Path::new("-") => Ok(Output::stdout()),
            Some(p) => {
                // Follow a symlink so the rename replaces its target, not the link.
                let p = &if p.is_symlink() { std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()) } else { p.to_path_buf() };
                if let Ok(meta) = std::fs::metadata(p) {
                    if meta.is_dir() {
                        anyhow::bail!("output {} is a directory (give a file name)", p.display());
                    }
                    if !meta.is_file() {
                        let f = std::fs::OpenOptions::new().write(true).open(p).with_context(|| format!("cannot open output {}", p.display()))?;
                        return Ok(Output::new(f, None));
                    }
                }
                let dir = match p.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                let tmp = tempfile::Builder::new()
                    .prefix(".parab-")
                    .tempfile_in(dir)
                    .with_context(|| format!("cannot create output {} (does its directory exist?)", p.display()))?;
                let (f, tmp_path) = tmp.into_parts();
                Ok(Output::new(f, Some((tmp_path, p.to_path_buf()))))
            }
        }
    }

    fn stdout() -> Output {
        Output::new(io::stdout(), None)
    }

    /// Buffers `w`; `file` is the temporary file to rename into place, if any.
    fn new(w: impl Write + 'static, file: Option<(tempfile::TempPath, PathBuf)>) -> Output {
        Output { inner: BufWriter::with_capacity(1 << 16, Box::new(w)), file }
    }

    /// Flushes and, for a file, renames it into place.
    pub fn finish(mut self) -> Result<()> {
        self.inner.flush().context("cannot write output")?;
        if let Some((tmp, dest)) = self.file.take() {
            tmp.persist(&dest).with_context(|| format!("cannot write {}", dest.display()))?;
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
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
