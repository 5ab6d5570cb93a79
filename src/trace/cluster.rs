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
use crate::cluster::exec::transport::{Msg, OwnMsg, Role};
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

/// A task's span opened or closed ([`Tasks`]).
pub(super) enum TaskEvent<'m> {
    /// A span `span` opens: a `task`, or a `job` (`name`).
    Begin {
        /// Its id.
        span: u64,
        /// `task` or `job`.
        name: &'static str,
        /// Its arguments.
        begin: Begin<'m>,
    },
    /// Span `span` closes with `outcome`, its task having searched `nodes`.
    End {
        /// Its id.
        span: u64,
        /// `task` or `job`.
        name: &'static str,
        /// Why it closed.
        outcome: &'static str,
        /// The nodes searched while it was the latest open task.
        nodes: u64,
    },
}

/// One process's open tasks, read off its messages (the module doc says
/// what opens and closes one): shared by the simulated cluster's trace and
/// the MPI ranks' ([`super::ranks`]).
#[derive(Default)]
pub(super) struct Tasks {
    open: Vec<Task>,
}

impl Tasks {
    fn find(&self, from: usize, id: u32) -> Option<usize> {
        self.open.iter().position(|t| t.from == from && t.id == id)
    }

    fn close<'m>(&mut self, i: usize, outcome: &'static str, out: &mut impl FnMut(TaskEvent<'m>)) {
        let task = self.open.remove(i);
        let name = if task.pass.is_some() { "job" } else { "task" };
        out(TaskEvent::End { span: task.span, name, outcome, nodes: task.nodes });
    }

    /// The process sent `msg` to `to`: an answer closes the task it answers.
    pub fn sent<'m, N, A: OwnMsg<N>>(&mut self, to: usize, msg: &Msg<N, A>, out: &mut impl FnMut(TaskEvent<'m>)) {
        let answered = match msg.role() {
            Role::Answers { id, depth: None } => self.find(to, id),
            Role::Answers { id, depth: Some(depth) } => self.find(to, id).filter(|&i| depth >= self.open[i].depth),
            _ => None,
        };
        if let Some(i) = answered {
            self.close(i, "answered", out);
        }
    }

    /// The process begins to handle `msg` from `from`: the tasks it closes,
    /// and the one it opens (its span's id from `span`).
    pub fn receiving<'m, N, A: OwnMsg<N>>(&mut self, from: usize, msg: &'m Msg<N, A>, span: impl FnOnce() -> u64, out: &mut impl FnMut(TaskEvent<'m>)) {
        let (task, pass, path) = match msg.role() {
            Role::Starts { task, pass, path } => (task, pass, path),
            Role::Aborts { id } => {
                if let Some(i) = self.find(from, id) {
                    self.close(i, "aborted", out);
                }
                return;
            }
            Role::Supersedes { pass } => {
                while let Some(i) = self.open.iter().position(|o| o.from == from && o.pass.is_some_and(|p| p < pass)) {
                    self.close(i, "dropped", out);
                }
                return;
            }
            Role::Stops => {
                self.close_all("dropped", out);
                return;
            }
            Role::Answers { .. } | Role::Other => return,
        };
        if let Some(i) = self.find(from, task.id) {
            self.close(i, "renewed", out);
        }
        let span = span();
        let begin = Begin { from, id: task.id, ply: task.ply, depth: task.depth, alpha: task.window.alpha, beta: task.window.beta, pass, path };
        let name = if pass.is_some() { "job" } else { "task" };
        out(TaskEvent::Begin { span, name, begin });
        self.open.push(Task { from, id: task.id, depth: task.depth, pass, span, nodes: 0 });
    }

    /// The process searched `nodes`: its latest open task's.
    pub fn searched(&mut self, nodes: u64) {
        if let Some(t) = self.open.last_mut() {
            t.nodes += nodes;
        }
    }

    /// Closes every open task with `outcome`, the oldest first.
    pub fn close_all<'m>(&mut self, outcome: &'static str, out: &mut impl FnMut(TaskEvent<'m>)) {
        while !self.open.is_empty() {
            self.close(0, outcome, out);
        }
    }
}

/// The recorder writing a simulated cluster run's trace.
pub struct ClusterTrace<W: Write> {
    w: Writer<W>,
    flows: u64,
    spans: u64,
    open: Vec<Tasks>,
    last: Vec<u64>,
    end: Option<u64>,
}

#[derive(Serialize)]
pub(super) struct Busy<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<usize>,
    pub handled: &'a str,
    pub nodes: u64,
}

/// A task span's arguments.
#[derive(Serialize)]
pub(super) struct Begin<'a> {
    pub from: usize,
    pub id: u32,
    pub ply: u32,
    pub depth: u32,
    pub alpha: i64,
    pub beta: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pass: Option<u32>,
    /// The job's signature: the ranks of the moves on its path, the master's order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<&'a [u16]>,
}

#[derive(Serialize)]
pub(super) struct End<'a> {
    pub outcome: &'a str,
    pub nodes: u64,
}

/// Writes a task's span event to `w` on `rank`'s track at `t`.
pub(super) fn write_task<W: Write>(w: &mut Writer<W>, rank: usize, t: u64, e: TaskEvent<'_>) {
    let r = rank as u64;
    match e {
        TaskEvent::Begin { span, name, begin } => w.async_begin(r, r, name, "task", span, t, &begin),
        TaskEvent::End { span, name, outcome, nodes } => w.async_end(r, r, name, "task", span, t, &End { outcome, nodes }),
    }
}

impl<W: Write> ClusterTrace<W> {
    /// A trace of `procs` processes written to `out`.
    pub fn new(out: W, run: &str, procs: usize) -> ClusterTrace<W> {
        let mut w = Writer::new(out, "pabsim --machine cluster", run, Clock::Ns);
        for r in 0..procs {
            w.process_name(r as u64, &format!("rank {r}"));
            w.thread_name(r as u64, r as u64, &format!("rank {r}: {run}"));
        }
        ClusterTrace { w, flows: 0, spans: 0, open: (0..procs).map(|_| Tasks::default()).collect(), last: vec![0; procs], end: None }
    }

    /// The writer, once the run is over.
    pub fn into_writer(self) -> Writer<W> {
        self.w
    }

    /// The search time, once the master has the root's value.
    pub fn end(&self) -> Option<u64> {
        self.end
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

    fn sent<N, A: OwnMsg<N>>(&mut self, from: usize, to: usize, t: u64, _arrival: u64, msg: &Msg<N, A>) -> u64 {
        self.flows += 1;
        let id = self.flows;
        self.w.flow_start(from as u64, from as u64, msg.kind(), id, t);
        let w = &mut self.w;
        self.open[from].sent(to, msg, &mut |e| write_task(w, from, t, e));
        id
    }

    fn receiving<N, A: OwnMsg<N>>(&mut self, rank: usize, from: usize, msg: &Msg<N, A>, tag: u64, t: u64) {
        self.w.flow_end(rank as u64, rank as u64, msg.kind(), tag, t);
        let (w, spans) = (&mut self.w, &mut self.spans);
        let span = || {
            *spans += 1;
            *spans
        };
        self.open[rank].receiving(from, msg, span, &mut |e| write_task(w, rank, t, e));
    }

    fn searched(&mut self, rank: usize, nodes: u64) {
        self.open[rank].searched(nodes);
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
            let (w, t) = (&mut self.w, self.last[r]);
            self.open[r].close_all("open at the end", &mut |e| write_task(w, r, t, e));
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
/// that traces (as `super::sim`'s).
fn traced<'o>(
    tree: &crate::tree::Tree,
    c: &crate::cluster::ClusterConfig,
    out: &'o mut dyn Write,
) -> Result<(crate::cluster::exec::machine::ClusterStats, Writer<&'o mut dyn Write>), super::TraceError> {
    let mut rec = ClusterTrace::new(out, &label(tree, c), c.procs);
    let r = crate::cluster::simulate_tree_recorded(tree, c, None, &mut rec)?;
    Ok((r.output, rec.into_writer()))
}
