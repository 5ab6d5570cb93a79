//! Traces of one run (`docs/formats.md`, "Traces"): the Chrome
//! trace-event JSON format, which Perfetto's UI and `chrome://tracing`
//! open. Every run ends in one row of sums; a trace shows how the time
//! went, processor by processor (or process, or thread), on the run's own
//! clock.
//!
//! The machines know nothing of this module: each has an observer trait
//! with a no-op default (the shared-memory machine's
//! [`crate::sim::engine::Recorder`], the cluster's
//! [`crate::cluster::exec::record::Recorder`], the real threads'
//! [`crate::real::record`]), and the recorders here implement them:
//! [`sim`], [`cluster`], [`real`], and the MPI ranks' [`ranks`] (the
//! cluster's recorder on each rank, gathered by rank 0). [`Writer`] streams the events as they
//! come (nothing but a processor's open span is held), counting what it
//! writes; [`check`] reads a trace back (the tests' schema check and sums).
//!
//! Times are exact decimals: a simulated tick is written as one
//! microsecond (`"ts":1234`), a nanosecond as a thousandth of one
//! (`"ts":1.234`), so `ts × 1000` gives the ns back exactly
//! ([`Clock`]).

pub mod check;
pub mod cluster;
pub mod ranks;
pub mod real;
pub mod sim;

use serde::Serialize;
use std::io::{self, Write};

/// The unit of a machine's clock, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// The shared-memory machine's ticks, one written as 1 µs.
    Ticks,
    /// Nanoseconds, written as µs with three decimals.
    Ns,
}

/// The default `--trace-limit`: 1 GiB (a trace larger than that is slow
/// to open in a browser's viewer anyway).
pub const DEFAULT_LIMIT: u64 = 1 << 30;

/// A trace being written: `{"traceEvents":[...], ...}` streamed to `out`,
/// each event as it comes. Write errors are kept and returned by
/// [`Writer::finish`] (the recorders' calls return nothing).
pub struct Writer<W: Write> {
    out: Counted<W>,
    clock: Clock,
    events: u64,
    error: Option<io::Error>,
    /// The event being built.
    buf: Vec<u8>,
}

/// A numeric field of an event.
#[derive(Clone, Copy)]
enum Field {
    /// A time on the trace's clock.
    Time(u64),
    /// A plain number (an id).
    Num(u64),
}

/// An event's arguments: none, a serde value, or an object already written
/// as JSON (a recorder's own, of strings that need no escaping).
enum Args<'a> {
    None,
    Serde(&'a dyn erased::Args),
    Raw(&'a str),
}

/// Writes `s` as a JSON string: as it is when nothing in it needs
/// escaping (the names here), else through serde.
fn string(b: &mut Vec<u8>, s: &str) -> io::Result<()> {
    if s.bytes().all(|c| c >= 0x20 && c != b'"' && c != b'\\') {
        b.push(b'"');
        b.extend_from_slice(s.as_bytes());
        b.push(b'"');
        Ok(())
    } else {
        serde_json::to_writer(b, s).map_err(io::Error::from)
    }
}

/// A writer that counts the bytes through it.
struct Counted<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Appends `n` in decimal (no formatting machinery: the commonest field).
fn push_u64(b: &mut Vec<u8>, mut n: u64) {
    let mut d = [0u8; 20];
    let mut i = d.len();
    loop {
        i -= 1;
        d[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    b.extend_from_slice(&d[i..]);
}

/// Appends a time on `clock`, exactly: a tick as 1 µs, a ns as 0.001 µs
/// with three decimals (none when whole).
fn push_ts(b: &mut Vec<u8>, t: u64, clock: Clock) {
    match clock {
        Clock::Ticks => push_u64(b, t),
        Clock::Ns => {
            push_u64(b, t / 1000);
            let r = t % 1000;
            if r != 0 {
                b.extend_from_slice(&[b'.', b'0' + (r / 100) as u8, b'0' + (r / 10 % 10) as u8, b'0' + (r % 10) as u8]);
            }
        }
    }
}

/// What a trace says about itself (`otherData`): the tool, the run and
/// the clock's unit, then a machine's own fields.
#[derive(Serialize)]
struct About<'a, E> {
    tool: &'a str,
    run: &'a str,
    clock: &'a str,
    #[serde(flatten)]
    more: &'a E,
}

/// No more fields in `otherData`.
#[derive(Serialize)]
struct Nothing {}

impl<W: Write> Writer<W> {
    /// A trace of `run` (a label: the tree and configuration) by `tool`
    /// on `clock`, written to `out`.
    pub fn new(out: W, tool: &str, run: &str, clock: Clock) -> Writer<W> {
        Writer::with_about(out, tool, run, clock, &Nothing {})
    }

    /// [`Writer::new`] with `more`'s fields (a struct's) in `otherData`
    /// after the tool, the run and the clock.
    pub fn with_about(out: W, tool: &str, run: &str, clock: Clock, more: &impl Serialize) -> Writer<W> {
        let mut w = Writer { out: Counted { inner: out, bytes: 0 }, clock, events: 0, error: None, buf: Vec::with_capacity(256) };
        let unit = match clock {
            Clock::Ticks => "1 tick = 1 us",
            Clock::Ns => "ns (ts and dur in us, three decimals)",
        };
        let about = About { tool, run, clock: unit, more };
        let r = write!(w.out, "{{\"displayTimeUnit\":\"ns\",\"otherData\":")
            .and_then(|_| serde_json::to_writer(&mut w.out, &about).map_err(io::Error::from))
            .and_then(|_| write!(w.out, ",\"traceEvents\":["));
        w.keep(r);
        w
    }

    fn keep(&mut self, r: io::Result<()>) {
        if let Err(e) = r
            && self.error.is_none()
        {
            self.error = Some(e);
        }
    }

    /// Events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.out.bytes
    }

    /// One event: its `cat`, then `fields` (`"name":number` pairs, times
    /// on the trace's clock or plain numbers), then `extra` (raw JSON
    /// fields) and `args`. Built in a buffer of its own and written at
    /// once (one call through the output's layers per event).
    #[allow(clippy::too_many_arguments)]
    fn event(&mut self, ph: &str, pid: u64, tid: u64, name: &str, cat: Option<&str>, fields: &[(&str, Field)], extra: &str, args: Args<'_>) {
        if self.error.is_some() {
            return;
        }
        let mut b = std::mem::take(&mut self.buf);
        b.clear();
        b.extend_from_slice(if self.events == 0 { b"\n{\"ph\":\"" } else { b",\n{\"ph\":\"" });
        self.events += 1;
        b.extend_from_slice(ph.as_bytes());
        b.extend_from_slice(b"\",\"pid\":");
        push_u64(&mut b, pid);
        b.extend_from_slice(b",\"tid\":");
        push_u64(&mut b, tid);
        b.extend_from_slice(b",\"name\":");
        let mut r = string(&mut b, name);
        if let Some(c) = cat {
            b.extend_from_slice(b",\"cat\":");
            r = r.and_then(|_| string(&mut b, c));
        }
        for (k, v) in fields {
            b.extend_from_slice(b",\"");
            b.extend_from_slice(k.as_bytes());
            b.extend_from_slice(b"\":");
            match *v {
                Field::Time(t) => push_ts(&mut b, t, self.clock),
                Field::Num(n) => push_u64(&mut b, n),
            }
        }
        b.extend_from_slice(extra.as_bytes());
        match args {
            Args::None => {}
            Args::Serde(a) => {
                b.extend_from_slice(b",\"args\":");
                r = r.and_then(|_| a.write(&mut b));
            }
            Args::Raw(a) => {
                b.extend_from_slice(b",\"args\":");
                b.extend_from_slice(a.as_bytes());
            }
        }
        b.push(b'}');
        let r = r.and_then(|_| self.out.write_all(&b));
        self.buf = b;
        self.keep(r);
    }

    /// Names process `pid` (a track group) and sorts it by `pid`.
    pub fn process_name(&mut self, pid: u64, name: &str) {
        self.event("M", pid, 0, "process_name", None, &[], "", Args::Serde(&Name { name }));
        self.event("M", pid, 0, "process_sort_index", None, &[], "", Args::Serde(&Sort { sort_index: pid }));
    }

    /// Names thread `tid` of `pid` (one track) and sorts it by `tid`.
    pub fn thread_name(&mut self, pid: u64, tid: u64, name: &str) {
        self.event("M", pid, tid, "thread_name", None, &[], "", Args::Serde(&Name { name }));
        self.event("M", pid, tid, "thread_sort_index", None, &[], "", Args::Serde(&Sort { sort_index: tid }));
    }

    /// A complete event: `name` of category `cat` from `ts` for `dur`.
    #[allow(clippy::too_many_arguments)]
    pub fn complete(&mut self, pid: u64, tid: u64, name: &str, cat: &str, ts: u64, dur: u64, args: &impl Serialize) {
        self.event("X", pid, tid, name, Some(cat), &[("ts", Field::Time(ts)), ("dur", Field::Time(dur))], "", Args::Serde(args));
    }

    /// [`Writer::complete`] with `args` already a JSON object (of strings
    /// that need no escaping: a recorder's own).
    #[allow(clippy::too_many_arguments)]
    pub fn complete_raw(&mut self, pid: u64, tid: u64, name: &str, cat: &str, ts: u64, dur: u64, args: &str) {
        self.event("X", pid, tid, name, Some(cat), &[("ts", Field::Time(ts)), ("dur", Field::Time(dur))], "", Args::Raw(args));
    }

    /// An instant event on a thread's track.
    pub fn instant(&mut self, pid: u64, tid: u64, name: &str, cat: &str, ts: u64, args: &impl Serialize) {
        self.event("i", pid, tid, name, Some(cat), &[("ts", Field::Time(ts))], ",\"s\":\"t\"", Args::Serde(args));
    }

    /// A message's arrow leaves the slice enclosing `ts` on the sender's track.
    pub fn flow_start(&mut self, pid: u64, tid: u64, name: &str, id: u64, ts: u64) {
        self.event("s", pid, tid, name, Some("message"), &[("id", Field::Num(id)), ("ts", Field::Time(ts))], "", Args::None);
    }

    /// A message's arrow reaches the slice that starts at `ts` (`"bp":"e"`)
    /// on the receiver's track.
    pub fn flow_end(&mut self, pid: u64, tid: u64, name: &str, id: u64, ts: u64) {
        self.event("f", pid, tid, name, Some("message"), &[("id", Field::Num(id)), ("ts", Field::Time(ts))], ",\"bp\":\"e\"", Args::None);
    }

    /// The start of an async span (a task): its own track under `pid`.
    #[allow(clippy::too_many_arguments)]
    pub fn async_begin(&mut self, pid: u64, tid: u64, name: &str, cat: &str, id: u64, ts: u64, args: &impl Serialize) {
        self.event("b", pid, tid, name, Some(cat), &[("id", Field::Num(id)), ("ts", Field::Time(ts))], "", Args::Serde(args));
    }

    /// The end of async span `id`.
    #[allow(clippy::too_many_arguments)]
    pub fn async_end(&mut self, pid: u64, tid: u64, name: &str, cat: &str, id: u64, ts: u64, args: &impl Serialize) {
        self.event("e", pid, tid, name, Some(cat), &[("id", Field::Num(id)), ("ts", Field::Time(ts))], "", Args::Serde(args));
    }

    /// Closes the JSON; the writer back, or the first write error.
    pub fn finish(mut self) -> io::Result<W> {
        let r = write!(self.out, "\n]}}\n").and_then(|_| self.out.flush());
        self.keep(r);
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.out.inner),
        }
    }
}

#[derive(Serialize)]
struct Name<'a> {
    name: &'a str,
}

#[derive(Serialize)]
struct Sort {
    sort_index: u64,
}

/// Arguments of any serde type behind one object-safe call.
mod erased {
    use std::io;

    pub trait Args {
        fn write(&self, out: &mut Vec<u8>) -> io::Result<()>;
    }

    impl<T: serde::Serialize> Args for T {
        fn write(&self, out: &mut Vec<u8>) -> io::Result<()> {
            serde_json::to_writer(out, self).map_err(io::Error::from)
        }
    }
}

/// What stops a trace.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The shared-memory machine's run failed.
    #[error(transparent)]
    Sim(#[from] crate::request::sim::RunError),
    /// The cluster's run failed.
    #[error(transparent)]
    Cluster(#[from] crate::cluster::ClusterError),
    /// Writing failed.
    #[error("writing the trace: {0}")]
    Io(#[from] io::Error),
}

/// Which run of a request a trace shows: `--trace-run N` (1-based, in the
/// order of the `--per-tree` rows), or the only run. A request of several
/// runs without it is refused, naming the choice.
pub fn pick_run(given: Option<usize>, runs: usize) -> Result<usize, String> {
    match given {
        Some(n) if (1..=runs).contains(&n) => Ok(n - 1),
        Some(n) => {
            Err(format!("--trace-run {n}: the request holds {runs} run{} (1..{runs}, in the order of --per-tree's rows)", if runs == 1 { "" } else { "s" }))
        }
        None if runs == 1 => Ok(0),
        None => Err(format!(
            "--trace: the request holds {runs} runs (trees × configurations); pick one with --trace-run 1..{runs}, in the order of --per-tree's rows"
        )),
    }
}

/// The one-line refusal of a trace larger than `limit` bytes: its size
/// (counted by a run that wrote nothing) and what to lower.
pub fn too_large(bytes: u64, events: u64, limit: u64, lower: &str) -> String {
    use crate::cluster::memory::human;
    // Both in bytes when rounding would show them alike.
    let (size, max) = match (human(bytes), human(limit)) {
        (a, b) if a == b => (format!("{bytes} bytes"), format!("{limit} bytes")),
        pair => pair,
    };
    format!("the trace would take {size} ({events} events), more than --trace-limit {max}: {lower}, or raise --trace-limit")
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn times_are_exact_decimals() {
        let ts = |t, c| {
            let mut b = vec![];
            push_ts(&mut b, t, c);
            String::from_utf8(b).unwrap()
        };
        assert_eq!(ts(1234, Clock::Ticks), "1234");
        assert_eq!(ts(1234, Clock::Ns), "1.234");
        assert_eq!(ts(1005, Clock::Ns), "1.005");
        assert_eq!(ts(7, Clock::Ns), "0.007");
        assert_eq!(ts(0, Clock::Ns), "0");
        assert_eq!(ts(20_000, Clock::Ns), "20");
        assert_eq!(ts(u64::MAX, Clock::Ns), "18446744073709551.615");
    }

    #[test]
    fn a_trace_is_json_and_counted() {
        let mut w = Writer::new(Vec::new(), "t", "run \"1\"", Clock::Ns);
        w.process_name(0, "machine");
        w.thread_name(0, 1, "P1");
        w.complete(0, 1, "search", "work", 1500, 250, &serde_json::json!({"node": "1.2"}));
        w.flow_start(0, 1, "Task", 9, 1600);
        w.flow_end(0, 2, "Task", 9, 21_600);
        let (events, bytes) = (w.events(), w.bytes());
        let out = w.finish().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["traceEvents"].as_array().unwrap().len() as u64, events);
        assert_eq!(v["traceEvents"][4]["dur"].as_f64(), Some(0.25));
        assert!(bytes + 5 >= out.len() as u64 && bytes < out.len() as u64);
        assert_eq!(v["otherData"]["run"], "run \"1\"");
    }

    #[test]
    fn the_run_is_picked_or_asked_for() {
        assert_eq!(pick_run(None, 1), Ok(0));
        assert_eq!(pick_run(Some(3), 4), Ok(2));
        assert!(pick_run(None, 4).unwrap_err().contains("--trace-run 1..4"));
        assert!(pick_run(Some(5), 4).unwrap_err().contains("holds 4 runs"));
        assert!(pick_run(Some(0), 4).is_err());
    }
}
