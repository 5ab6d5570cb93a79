//! The shared-memory machine's trace (`pabsim --machine shared --trace`):
//! one track per processor, its time as the machine booked it, in the
//! thesis's categories: working (the states expand, search, eval, return,
//! update), looking for work (`split`), memory stalls, lock waits, and
//! `exit` after a processor is done; an instant event where a processor
//! leaves the idle state for a node (the split point it joined).
//!
//! A processor behind the end when the root returns (the run stops
//! there) is in `exit` for the rest, as the machine books it.
//!
//! A processor's consecutive charges of the same state, kind and node are
//! one event. Spans are clipped to the root's return, as the machine
//! gives back the time past it: the tick of the end is known from a first
//! run that only counts (its output a sink), so each processor's
//! events add up to the row's figures exactly (`tests/trace.rs`).

use super::{Clock, Writer};
use crate::sim::engine::{Recorder, State, TimeKind};
use serde::Serialize;
use std::io::Write;

/// A processor's span not yet written (it may grow).
struct Open {
    start: u64,
    end: u64,
    state: State,
    kind: TimeKind,
    at: u64,
    node: Option<std::rc::Rc<str>>,
}

/// The recorder writing a shared-memory run's trace.
pub struct SimTrace<W: Write> {
    w: Writer<W>,
    /// The root's return (spans are clipped to it); `None` when counting.
    end: Option<u64>,
    open: Vec<Option<Open>>,
    exits: Vec<Option<u64>>,
    idle: Vec<bool>,
    /// Where each processor's recorded time reaches.
    reach: Vec<u64>,
    /// An event's arguments being written.
    args: String,
    /// Each processor's latest node and its path.
    paths: Vec<Option<(u64, Option<std::rc::Rc<str>>)>>,
}

#[derive(Serialize)]
struct At<'a> {
    node: &'a str,
}

/// The event's name and category for a span of `kind` in state `s`.
pub fn category(s: State, kind: TimeKind) -> (&'static str, &'static str) {
    match (kind, s) {
        (TimeKind::Memory, _) => ("memory stall", "memory"),
        (TimeKind::Lock, _) => ("lock wait", "lock"),
        (TimeKind::Work, State::Split) => ("looking for work", "split"),
        (TimeKind::Work, State::Exit) => ("exit", "exit"),
        (TimeKind::Work, s) => (s.name(), "work"),
    }
}

impl<W: Write> SimTrace<W> {
    /// A trace of `procs` processors written to `out`, clipped at tick
    /// `end` (the root's return, from a counting run).
    pub fn new(out: W, run: &str, procs: usize, end: Option<u64>) -> SimTrace<W> {
        let mut w = Writer::new(out, "pabsim --machine shared", run, Clock::Ticks);
        w.process_name(0, &format!("shared-memory machine: {run}"));
        for p in 0..procs {
            w.thread_name(0, p as u64, &format!("P{p}"));
        }
        SimTrace {
            w,
            end,
            open: (0..procs).map(|_| None).collect(),
            exits: vec![None; procs],
            idle: vec![true; procs],
            reach: vec![0; procs],
            args: String::new(),
            paths: vec![None; procs],
        }
    }

    /// The writer, once the run is over.
    pub fn into_writer(self) -> Writer<W> {
        self.w
    }

    fn flush(&mut self, p: usize) {
        if let Some(o) = self.open[p].take() {
            let (name, cat) = category(o.state, o.kind);
            // The arguments by hand: a state's name and a path of digits
            // and dots need no escaping (the trace's commonest event).
            self.args.clear();
            self.args.push_str("{\"state\":\"");
            self.args.push_str(o.state.name());
            self.args.push('"');
            if let Some(n) = &o.node {
                self.args.push_str(",\"node\":\"");
                self.args.push_str(n);
                self.args.push('"');
            }
            self.args.push('}');
            self.w.complete_raw(0, p as u64, name, cat, o.start, o.end - o.start, &self.args);
        }
    }
}

impl SimTrace<std::io::Sink> {
    /// A trace that writes nothing and counts (the size before a run
    /// writes, and the tick of its end).
    pub fn counting(run: &str, procs: usize) -> SimTrace<std::io::Sink> {
        SimTrace::new(std::io::sink(), run, procs, None)
    }
}

impl<W: Write> Recorder for SimTrace<W> {
    const ON: bool = true;

    fn span(&mut self, p: usize, start: u64, d: u64, s: State, kind: TimeKind, at: u64, path: &dyn Fn() -> Option<String>) {
        let mut end = start + d;
        if let Some(e) = self.end {
            if start >= e {
                return;
            }
            end = end.min(e);
        }
        if end == start {
            return;
        }
        self.reach[p] = end;
        // One span per stay at a node's slot: a node freed in its return
        // state is still the node returned from (its generation, in the
        // key's high half, has moved on).
        if let Some(o) = &mut self.open[p]
            && o.end == start
            && o.state == s
            && o.kind == kind
            && o.at as u32 == at as u32
        {
            o.end = end;
            return;
        }
        self.flush(p);
        // A processor's spans mostly stay at one node (expand, search,
        // their stalls): its path is walked once.
        let node = match &self.paths[p] {
            Some((a, n)) if *a == at => n.clone(),
            _ => {
                let n: Option<std::rc::Rc<str>> = path().map(Into::into);
                self.paths[p] = Some((at, n.clone()));
                n
            }
        };
        // Leaving the idle state for a node: the split point joined (or,
        // for processor 0, the root).
        let idle = s == State::Split;
        if self.idle[p] && !idle && s != State::Exit {
            let n = node.as_deref().unwrap_or("");
            self.w.instant(0, p as u64, "split point", "split point", start, &At { node: n });
        }
        self.idle[p] = idle;
        self.open[p] = Some(Open { start, end, state: s, kind, at, node });
    }

    fn relabel(&mut self, p: usize, start: u64, d: u64, kind: TimeKind) {
        let mut end = start + d;
        if let Some(e) = self.end {
            if start >= e {
                return;
            }
            end = end.min(e);
        }
        // The attempt's stalls are the tail of the open span (one state,
        // one node, all memory): split it there.
        let Some(o) = self.open[p].take() else { return };
        if o.end != end || o.start > start || o.kind != TimeKind::Memory {
            self.open[p] = Some(o);
            return;
        }
        let tail = Open { start, end, state: o.state, kind, at: o.at, node: o.node.clone() };
        if o.start < start {
            self.open[p] = Some(Open { end: start, ..o });
            self.flush(p);
        }
        self.open[p] = Some(tail);
    }

    fn exit(&mut self, p: usize, t: u64) {
        self.exits[p] = Some(t);
    }

    fn finish(&mut self, t: u64) {
        for p in 0..self.open.len() {
            self.flush(p);
            // After its exit, or (the run stops when the root returns) from
            // where a processor behind the end got to: the machine books
            // the rest of the run to the exit state.
            if let Some(x) = self.exits[p].or(Some(self.reach[p])).filter(|&x| x < t) {
                self.w.complete_raw(0, p as u64, "exit", "exit", x, t - x, "{\"state\":\"exit\"}");
            }
        }
        self.w.instant(0, 0, "root returned", "end", t, &serde_json::json!({}));
    }
}

/// What a counting run found: the root's return (where the written run
/// clips) and the trace's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measure {
    /// The tick the root returned at.
    pub end: u64,
    /// Events the trace holds (clipping only removes some).
    pub events: u64,
    /// Bytes the trace takes, at most.
    pub bytes: u64,
}

/// A label for a run: its tree and configuration.
pub fn label(tree: &crate::tree::Tree, c: &crate::request::sim::SimConfig) -> String {
    let algorithm = c.algorithm.map_or_else(
        || "sequential".to_string(),
        |a| {
            let k = crate::policy::Columns::of(Some(&a));
            if k.scheme == "-" { a.name().to_string() } else { format!("{} scheme {}", a.name(), k.scheme) }
        },
    );
    format!("{} tree {}, {} processors, {algorithm}", tree.key(), tree.index(), c.procs)
}

/// Simulates `tree` under `c` counting its trace: its size and end.
pub fn measure(tree: &crate::tree::Tree, c: &crate::request::sim::SimConfig, net: Option<&crate::nn::Network>) -> crate::request::sim::Result<Measure> {
    let mut sink = std::io::sink();
    let (stats, w) = traced(tree, c, net, None, &mut sink)?;
    // The closing bracket is not written until the end: count it in.
    Ok(Measure { end: stats.ticks, events: w.events(), bytes: w.bytes() + 4 })
}

/// Simulates `tree` under `c` again, writing its trace to `out`, clipped
/// at `end` (the [`measure`]d run's): the statistics and the writer.
pub fn write<W: Write>(
    tree: &crate::tree::Tree,
    c: &crate::request::sim::SimConfig,
    net: Option<&crate::nn::Network>,
    end: u64,
    mut out: W,
) -> Result<(crate::sim::engine::TreeStats, W), super::TraceError> {
    let (stats, w) = traced(tree, c, net, Some(end), &mut out)?;
    w.finish()?;
    Ok((stats, out))
}

/// The traced run of [`measure`] and [`write`]: one recorder type,
/// `SimTrace<&mut dyn Write>`, whatever the output. Why: the simulator
/// is compiled once per recorder type (every tree source and scheme), and
/// a generic writer compiled it again in each tool that traces (measured:
/// 77 s of `pabsim`'s build, alone at the end of the tools' build); one
/// virtual call per event is nothing beside the simulation.
fn traced<'o>(
    tree: &crate::tree::Tree,
    c: &crate::request::sim::SimConfig,
    net: Option<&crate::nn::Network>,
    end: Option<u64>,
    out: &'o mut dyn Write,
) -> crate::request::sim::Result<(crate::sim::engine::TreeStats, Writer<&'o mut dyn Write>)> {
    let rec = SimTrace::new(out, &label(tree, c), c.procs, end);
    let (stats, rec) = crate::request::sim::simulate_recorded(tree, c, net, rec)?;
    Ok((stats, rec.into_writer()))
}
