//! The simulated cluster's trace (`pabsim --machine cluster --trace`): one
//! track per process (a trace "process" per rank, so that its tasks sit
//! under it), its handlers as busy slices named after what they handled
//! (`start`, `resume` — a slice of search the process woke itself for —,
//! or the message's kind), its idle waits as the machine counts them
//! (`start-up idle` before the first message, `idle` after), every message
//! as an arrow from the send to the handler that took it, and the tasks
//! and jobs it was given as async spans (`docs/formats.md`, "Traces").
//!
//! What a task's span is, the executor being blind to the algorithms: it
//! opens when a `Task` or `Work` message is handled and closes when the
//! process sends its answer (`Result`, or a `Report` at the job's full
//! depth: `answered`), when the asker aborts it (`Abort`: `aborted`),
//! sends it again (`renewed`), ends the pass it belonged to (`Pass`:
//! `dropped`) or stops the search (`Stop`: `dropped`); its `nodes` are
//! those the process searched while it was its latest open task.

use super::{Clock, Writer};
use crate::cluster::exec::record::{Handler, Recorder};
use crate::cluster::exec::transport::Msg;
use serde::Serialize;
use std::io::Write;

/// A task open on a process.
struct Task {
    from: usize,
    id: u32,
    depth: u32,
    pass: Option<u32>,
    span: u64,
    nodes: u64,
}

/// The recorder writing a simulated cluster run's trace.
pub struct ClusterTrace<W: Write> {
    w: Writer<W>,
    flows: u64,
    spans: u64,
    open: Vec<Vec<Task>>,
    last: Vec<u64>,
    end: Option<u64>,
}

#[derive(Serialize)]
struct Busy<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<usize>,
    handled: &'a str,
    nodes: u64,
}

#[derive(Serialize)]
struct Begin<'a> {
    from: usize,
    id: u32,
    ply: u32,
    depth: u32,
    alpha: i64,
    beta: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pass: Option<u32>,
    /// The job's signature: the ranks of the moves on its path, the master's order.
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a [u16]>,
}

#[derive(Serialize)]
struct End<'a> {
    outcome: &'a str,
    nodes: u64,
}

impl<W: Write> ClusterTrace<W> {
    /// A trace of `procs` processes written to `out`.
    pub fn new(out: W, run: &str, procs: usize) -> ClusterTrace<W> {
        let mut w = Writer::new(out, "pabsim --machine cluster", run, Clock::Ns);
        for r in 0..procs {
            w.process_name(r as u64, &format!("rank {r}"));
            w.thread_name(r as u64, r as u64, &format!("rank {r}: {run}"));
        }
        ClusterTrace { w, flows: 0, spans: 0, open: (0..procs).map(|_| vec![]).collect(), last: vec![0; procs], end: None }
    }

    /// The writer, once the run is over.
    pub fn into_writer(self) -> Writer<W> {
        self.w
    }

    /// The search time, once the master has the root's value.
    pub fn end(&self) -> Option<u64> {
        self.end
    }

    fn close(&mut self, rank: usize, i: usize, outcome: &str, t: u64) {
        let task = self.open[rank].remove(i);
        let name = if task.pass.is_some() { "job" } else { "task" };
        self.w.async_end(rank as u64, rank as u64, name, "task", task.span, t, &End { outcome, nodes: task.nodes });
    }

    fn find(&self, rank: usize, from: usize, id: u32) -> Option<usize> {
        self.open[rank].iter().position(|t| t.from == from && t.id == id)
    }
}

impl ClusterTrace<std::io::Sink> {
    /// A trace that writes nothing and counts (the size before a run writes).
    pub fn counting(run: &str, procs: usize) -> ClusterTrace<std::io::Sink> {
        ClusterTrace::new(std::io::sink(), run, procs)
    }
}

impl<W: Write> Recorder for ClusterTrace<W> {
    const ON: bool = true;
    type Tag = u64;

    fn sent<N>(&mut self, from: usize, to: usize, t: u64, _arrival: u64, msg: &Msg<N>) -> u64 {
        self.flows += 1;
        let id = self.flows;
        self.w.flow_start(from as u64, from as u64, msg.kind(), id, t);
        let answered = match *msg {
            Msg::Result { id, .. } => self.find(from, to, id),
            Msg::Report { id, depth, .. } => self.find(from, to, id).filter(|&i| depth >= self.open[from][i].depth),
            _ => None,
        };
        if let Some(i) = answered {
            self.close(from, i, "answered", t);
        }
        id
    }

    fn receiving<N>(&mut self, rank: usize, from: usize, msg: &Msg<N>, tag: u64, t: u64) {
        self.w.flow_end(rank as u64, rank as u64, msg.kind(), tag, t);
        let (task, pass, path) = match msg {
            Msg::Task(task) => (task, None, None),
            Msg::Work { job, pass, sig } => (job, Some(*pass), Some(&sig[..])),
            Msg::Abort { id } => {
                if let Some(i) = self.find(rank, from, *id) {
                    self.close(rank, i, "aborted", t);
                }
                return;
            }
            Msg::Pass { pass } => {
                while let Some(i) = self.open[rank].iter().position(|o| o.from == from && o.pass.is_some_and(|p| p < *pass)) {
                    self.close(rank, i, "dropped", t);
                }
                return;
            }
            Msg::Stop => {
                while !self.open[rank].is_empty() {
                    self.close(rank, 0, "dropped", t);
                }
                return;
            }
            _ => return,
        };
        if let Some(i) = self.find(rank, from, task.id) {
            self.close(rank, i, "renewed", t);
        }
        self.spans += 1;
        let span = self.spans;
        let begin = Begin { from, id: task.id, ply: task.ply, depth: task.depth, alpha: task.window.alpha, beta: task.window.beta, pass, path };
        let name = if pass.is_some() { "job" } else { "task" };
        self.w.async_begin(rank as u64, rank as u64, name, "task", span, t, &begin);
        self.open[rank].push(Task { from, id: task.id, depth: task.depth, pass, span, nodes: 0 });
    }

    fn searched(&mut self, rank: usize, nodes: u64) {
        if let Some(t) = self.open[rank].last_mut() {
            t.nodes += nodes;
        }
    }

    fn handled(&mut self, rank: usize, what: Handler, start: u64, end: u64, nodes: u64) {
        self.last[rank] = end;
        if end == start {
            return;
        }
        let (name, from) = match what {
            Handler::Start => ("start", None),
            Handler::Resume => ("resume", None),
            Handler::Message { from, kind } => (kind, Some(from)),
        };
        self.w.complete(rank as u64, rank as u64, name, "busy", start, end - start, &Busy { from, handled: name, nodes });
    }

    fn idle(&mut self, rank: usize, start: u64, end: u64, startup: bool) {
        let name = if startup { "start-up idle" } else { "idle" };
        self.w.complete(rank as u64, rank as u64, name, "idle", start, end - start, &serde_json::json!({}));
    }

    fn done(&mut self, rank: usize, t: u64, value: i64) {
        self.end = Some(t);
        self.w.instant(rank as u64, rank as u64, "root value", "end", t, &serde_json::json!({ "value": value }));
    }

    fn finish(&mut self) {
        for r in 0..self.open.len() {
            while !self.open[r].is_empty() {
                let t = self.last[r];
                self.close(r, 0, "open at the end", t);
            }
        }
    }
}

/// A label for a run: its tree and configuration.
pub fn label(tree: &crate::tree::Tree, c: &crate::cluster::ClusterConfig) -> String {
    use crate::cluster::Algorithm;
    format!("{} tree {}, {} processes, {}", tree.key(), tree.index(), c.procs, c.algorithm.name())
}

/// Simulates `tree` under `c` counting its trace: (events, bytes).
pub fn measure(tree: &crate::tree::Tree, c: &crate::cluster::ClusterConfig) -> Result<(u64, u64), super::TraceError> {
    let mut sink = std::io::sink();
    let (_, w) = traced(tree, c, &mut sink)?;
    // The closing bracket is not written until the end: count it in.
    Ok((w.events(), w.bytes() + 4))
}

/// Simulates `tree` under `c` writing its trace to `out`: the run's
/// statistics and the writer.
pub fn write<W: Write>(
    tree: &crate::tree::Tree,
    c: &crate::cluster::ClusterConfig,
    mut out: W,
) -> Result<(crate::cluster::exec::machine::ClusterStats, W), super::TraceError> {
    let (stats, w) = traced(tree, c, &mut out)?;
    w.finish()?;
    Ok((stats, out))
}

/// The traced run of [`measure`] and [`write`], with one recorder type
/// whatever the output: the cluster's simulator is compiled once per
/// recorder type, and a generic writer compiled it again in each tool
/// that traces (issue 42; as `super::sim`'s).
fn traced<'o>(
    tree: &crate::tree::Tree,
    c: &crate::cluster::ClusterConfig,
    out: &'o mut dyn Write,
) -> Result<(crate::cluster::exec::machine::ClusterStats, Writer<&'o mut dyn Write>), super::TraceError> {
    let mut rec = ClusterTrace::new(out, &label(tree, c), c.procs);
    let r = crate::cluster::simulate_tree_recorded(tree, c, None, &mut rec)?;
    Ok((r.output, rec.into_writer()))
}
