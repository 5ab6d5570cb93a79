//! The MPI ranks' trace (`psearch --mpi --trace`): the
//! simulated cluster's trace ([`super::cluster`]: a track per rank, its
//! handlers busy, its waits idle, messages as arrows, tasks as async
//! spans) of a run on real ranks, in ns of wall time.
//!
//! Each rank records its own run in memory ([`RankLog`], the cluster's
//! [`Recorder`] for one rank), in ns from its own start (its clock right
//! after the barrier that starts the run), at most [`events_per_rank`]
//! events: a real run cannot be counted first, so the bound is made up
//! front, and a rank past it stops recording, the rest of its run drawn as
//! one `not traced` span. After the run each rank's record goes to rank 0
//! (`cluster::exec::mpi`), which writes them all ([`write()`]), each rank's
//! events shifted onto rank 0's clock by the ping before the run
//! ([`ClockSync`]).
//!
//! **Arrows without a word on the wire.** MPI keeps the messages of one
//! pair of ranks in order, so the k-th message from r to s is the k-th s
//! receives from r: each end counts per peer and the arrow's id is (r, s,
//! k) packed into one number ([`arrow`]). A message sent but never
//! handled (it reached a rank that had left its loop, or a rank past its
//! bound) has no end: rank 0 drops such arrows and says how many in
//! `otherData.sends_without_arrow`.
//!
//! This module needs no MPI: the recorder is driven by the executor, and
//! its tests drive it by hand.

use super::cluster::{Begin, Busy, End, TaskEvent, Tasks};
use super::{Clock, Writer};
use crate::cluster::exec::record::{ClockSync, Handler, RankRecorder, Recorder};
use crate::cluster::exec::transport::{Msg, OwnMsg};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{self, Write};

/// The most bytes one recorded event takes in the trace (the largest, a
/// task's start with every number at its widest and a time below 2^53 ns,
/// is 254: a test writes it).
pub const BYTES_PER_EVENT: u64 = 256;

/// The bytes of a trace's head, names, `otherData`, `not traced` spans and
/// end, at most, for `ranks`.
fn fixed(ranks: usize) -> u64 {
    4096 + 1024 * ranks as u64
}

/// How many events each of `ranks` ranks may record for the trace to stay
/// within `limit` bytes (at least one); `None` if even that passes.
pub fn events_per_rank(limit: u64, ranks: usize) -> Option<usize> {
    let room = limit.checked_sub(fixed(ranks) + BYTES_PER_EVENT * ranks as u64)?;
    Some(((room / (BYTES_PER_EVENT * ranks.max(1) as u64)) as usize).max(1))
}

/// The arrow id of the `k`-th message from rank `from` to rank `to` in a
/// job of `size` ranks: the pair in the high bits, `k` in the low 32
/// (unique below 2^32 messages a pair; below 2^53, exact in a JavaScript
/// viewer, up to 1,448 ranks).
pub fn arrow(from: usize, to: usize, k: u64, size: usize) -> u64 {
    (((from * size + to) as u64) << 32) | (k & 0xffff_ffff)
}

/// One recorded event, ns from the rank's start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Ev {
    /// A handler: `start`, `resume` or a message's kind (from `from`).
    Busy { start: u64, end: u64, name: Cow<'static, str>, from: Option<u32>, nodes: u64 },
    /// A wait, before the first message (`startup`) or after.
    Idle { start: u64, end: u64, startup: bool },
    /// The `k`-th message to `to` left.
    Sent { t: u64, to: u32, k: u64, kind: Cow<'static, str> },
    /// The `k`-th message from `from` is handled.
    Got { t: u64, from: u32, k: u64, kind: Cow<'static, str> },
    /// A task (or job) span opens.
    Begin { t: u64, span: u64, job: bool, from: u32, id: u32, ply: u32, depth: u32, alpha: i64, beta: i64, pass: Option<u32> },
    /// Span `span` closes.
    End { t: u64, span: u64, job: bool, outcome: Cow<'static, str>, nodes: u64 },
}

/// What a rank sends rank 0 after the run.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    rank: u32,
    /// When the rank left its loop.
    end: u64,
    sync: ClockSync,
    /// Where it stopped recording, its bound reached.
    cut: Option<u64>,
    /// The master's root value and search time.
    done: Option<(u64, i64)>,
    events: Vec<Ev>,
}

/// One rank's recorder of an MPI run (see the module doc); on rank 0, in
/// the end, every rank's record.
pub struct RankLog {
    /// Events this rank may still record.
    left: usize,
    events: Vec<Ev>,
    cut: Option<u64>,
    done: Option<(u64, i64)>,
    /// Messages sent to and received from each peer so far.
    sent: Vec<u64>,
    got: Vec<u64>,
    tasks: Tasks,
    spans: u64,
    rank: usize,
    /// The end of the rank's latest handler.
    last: u64,
    /// Rank 0, after the run: every rank's record.
    records: Vec<Vec<u8>>,
}

impl RankLog {
    /// A recorder that keeps at most `bound` events ([`events_per_rank`]).
    pub fn new(bound: usize) -> RankLog {
        RankLog {
            left: bound,
            events: vec![],
            cut: None,
            done: None,
            sent: vec![],
            got: vec![],
            tasks: Tasks::default(),
            spans: 0,
            rank: 0,
            last: 0,
            records: vec![],
        }
    }

    /// Keeps `e`, which begins at `t`, if `cost` events are left (a task's
    /// start costs two: its end is kept for it); else the rank stops
    /// recording from `t`.
    fn push(&mut self, e: Ev, t: u64, cost: usize) {
        if self.cut.is_some() {
            return;
        }
        if self.left < cost {
            self.cut = Some(t);
            return;
        }
        self.left -= cost;
        self.events.push(e);
    }

    fn task(&mut self, e: TaskEvent<'_>, t: u64) {
        match e {
            TaskEvent::Begin { span, name, begin: b } => {
                let e = Ev::Begin {
                    t,
                    span,
                    job: name == "job",
                    from: b.from as u32,
                    id: b.id,
                    ply: b.ply,
                    depth: b.depth,
                    alpha: b.alpha,
                    beta: b.beta,
                    pass: b.pass,
                };
                self.push(e, t, 2);
            }
            TaskEvent::End { span, name, outcome, nodes } => self.push(Ev::End { t, span, job: name == "job", outcome: Cow::Borrowed(outcome), nodes }, t, 0),
        }
    }

    /// The next message count to or from `peer` in `counts`.
    fn count(counts: &mut Vec<u64>, peer: usize) -> u64 {
        if counts.len() <= peer {
            counts.resize(peer + 1, 0);
        }
        counts[peer] += 1;
        counts[peer] - 1
    }
}

impl Recorder for RankLog {
    const ON: bool = true;
    type Tag = ();

    fn sent<N, A: OwnMsg<N>>(&mut self, from: usize, to: usize, t: u64, _arrival: u64, msg: &Msg<N, A>) {
        self.rank = from;
        let k = Self::count(&mut self.sent, to);
        self.push(Ev::Sent { t, to: to as u32, k, kind: Cow::Borrowed(msg.kind()) }, t, 1);
        let mut closed = vec![];
        self.tasks.sent(to, msg, &mut |e| closed.push(owned(e)));
        for e in closed {
            self.task(e, t);
        }
    }

    fn receiving<N, A: OwnMsg<N>>(&mut self, rank: usize, from: usize, msg: &Msg<N, A>, _tag: (), t: u64) {
        self.rank = rank;
        let k = Self::count(&mut self.got, from);
        self.push(Ev::Got { t, from: from as u32, k, kind: Cow::Borrowed(msg.kind()) }, t, 1);
        // Span ids unique in the job: the rank in the high bits.
        let spans = &mut self.spans;
        let span = || {
            *spans += 1;
            ((rank as u64) << 40) | *spans
        };
        let mut events = vec![];
        self.tasks.receiving(from, msg, span, &mut |e| events.push(owned(e)));
        for e in events {
            self.task(e, t);
        }
    }

    fn searched(&mut self, _rank: usize, nodes: u64) {
        self.tasks.searched(nodes);
    }

    fn handled(&mut self, rank: usize, what: Handler, start: u64, end: u64, nodes: u64) {
        self.rank = rank;
        self.last = end;
        if end == start {
            return;
        }
        let (name, from) = match what {
            Handler::Start => ("start", None),
            Handler::Resume => ("resume", None),
            Handler::Message { from, kind } => (kind, Some(from as u32)),
        };
        self.push(Ev::Busy { start, end, name: Cow::Borrowed(name), from, nodes }, start, 1);
    }

    fn idle(&mut self, rank: usize, start: u64, end: u64, startup: bool) {
        self.rank = rank;
        if end > start {
            self.push(Ev::Idle { start, end, startup }, start, 1);
        }
    }

    fn done(&mut self, _rank: usize, t: u64, value: i64) {
        self.done = Some((t, value));
    }

    fn finish(&mut self) {
        let t = self.last;
        let mut events = vec![];
        self.tasks.close_all("open at the end", &mut |e| events.push(owned(e)));
        for e in events {
            self.task(e, t);
        }
    }
}

/// A task event without its borrow of the message (the path, which the
/// MPI trace leaves out: a job's path has no bound on its length).
fn owned(e: TaskEvent<'_>) -> TaskEvent<'static> {
    match e {
        TaskEvent::Begin { span, name, begin: b } => {
            let begin = Begin { from: b.from, id: b.id, ply: b.ply, depth: b.depth, alpha: b.alpha, beta: b.beta, pass: b.pass, path: None };
            TaskEvent::Begin { span, name, begin }
        }
        TaskEvent::End { span, name, outcome, nodes } => TaskEvent::End { span, name, outcome, nodes },
    }
}

impl RankRecorder for RankLog {
    fn close(&mut self, rank: usize, end: u64, sync: ClockSync) -> Vec<u8> {
        let r = Record { rank: rank as u32, end, sync, cut: self.cut, done: self.done, events: std::mem::take(&mut self.events) };
        // An encoding failure leaves the record empty: rank 0 says so.
        postcard::to_stdvec(&r).unwrap_or_default()
    }

    fn gathered(&mut self, records: Vec<Vec<u8>>) {
        self.records = records;
    }
}

/// A rank's place on the trace's clock, as `otherData.ranks` says it.
#[derive(Serialize)]
struct Placed {
    rank: u32,
    /// The rank's start (its clock after the barrier), on the trace's clock.
    start_ns: u64,
    /// When it left its loop, on the trace's clock.
    end_ns: u64,
    /// How far its clock's alignment to rank 0's may be wrong: half the
    /// ping's round trip (0 for rank 0).
    clock_error_ns: u64,
    /// Where it stopped recording, on the trace's clock (its bound reached).
    #[serde(skip_serializing_if = "Option::is_none")]
    cut_ns: Option<u64>,
}

/// `otherData`'s fields beyond the tool, run and clock.
#[derive(Serialize)]
struct About {
    /// The largest of the ranks' `clock_error_ns`.
    clock_error_ns: u64,
    /// The events a rank could record.
    events_per_rank: usize,
    /// Sends recorded whose handling is not (the message reached a rank
    /// that had left its loop, or one past its bound): no arrow.
    sends_without_arrow: u64,
    /// Handlings recorded whose send is not (its sender past its bound).
    receipts_without_arrow: u64,
    ranks: Vec<Placed>,
}

#[derive(Serialize)]
struct NoArgs {}

#[derive(Serialize)]
struct Value {
    value: i64,
}

/// Each rank's shift onto rank 0's clock (ns to add to its times) and the
/// shift's error bound, from the records' pings.
fn shifts(records: &[Record]) -> io::Result<Vec<(i128, u64)>> {
    let root = match records.first().map(|r| r.sync) {
        Some(ClockSync::Root { start }) => start as i128,
        _ => return Err(bad("rank 0's record has no clock")),
    };
    records
        .iter()
        .map(|r| match r.sync {
            ClockSync::Root { .. } => Ok((0, 0)),
            ClockSync::Ping { sent, back, answer } => {
                // Rank 0 read `answer` between the ping's departure and the
                // answer's arrival: taken at their midpoint.
                let theirs = answer as i128 - root;
                let mid = (sent as i128 + back as i128) / 2;
                Ok((theirs - mid, ((back as i128 - sent as i128).max(0) as u64).div_ceil(2)))
            }
        })
        .collect()
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// Writes the gathered trace (rank 0's [`RankLog`] after the run) of `run`
/// on `procs` ranks to `out`, each rank a trace process (`pid` = rank);
/// `bound` is the events a rank could record.
pub fn write<W: Write>(log: &RankLog, run: &str, procs: usize, bound: usize, out: W) -> io::Result<W> {
    let records: Vec<Record> = log
        .records
        .iter()
        .enumerate()
        .map(|(r, b)| postcard::from_bytes::<Record>(b).map_err(|e| bad(&format!("rank {r}'s trace record does not decode ({e})"))))
        .collect::<io::Result<_>>()?;
    let size = records.len();
    let shift = shifts(&records)?;
    // The trace's zero: the earliest rank's start, so that no time is negative.
    let lead = shift.iter().map(|s| -s.0).max().unwrap_or(0).max(0);
    let at = |r: usize, t: u64| (t as i128 + shift[r].0 + lead) as u64;
    // The arrows with both ends recorded.
    let ends = |sent: bool| -> HashSet<u64> {
        let mut ids = HashSet::new();
        for (r, rec) in records.iter().enumerate() {
            for e in &rec.events {
                match *e {
                    Ev::Sent { to, k, .. } if sent => ids.insert(arrow(r, to as usize, k, size)),
                    Ev::Got { from, k, .. } if !sent => ids.insert(arrow(from as usize, r, k, size)),
                    _ => false,
                };
            }
        }
        ids
    };
    let (began, ended) = (ends(true), ends(false));
    let both: HashSet<u64> = began.intersection(&ended).copied().collect();
    let ranks: Vec<Placed> = records
        .iter()
        .enumerate()
        .take(procs)
        .map(|(r, rec)| Placed { rank: r as u32, start_ns: at(r, 0), end_ns: at(r, rec.end), clock_error_ns: shift[r].1, cut_ns: rec.cut.map(|c| at(r, c)) })
        .collect();
    let about = About {
        clock_error_ns: ranks.iter().map(|p| p.clock_error_ns).max().unwrap_or(0),
        events_per_rank: bound,
        sends_without_arrow: (began.len() - both.len()) as u64,
        receipts_without_arrow: (ended.len() - both.len()) as u64,
        ranks,
    };
    let mut w = Writer::with_about(out, "psearch --mpi", run, Clock::Ns, &about);
    for r in 0..procs.min(size) {
        w.process_name(r as u64, &format!("rank {r}"));
        w.thread_name(r as u64, r as u64, &format!("rank {r}: {run}"));
    }
    for (r, rec) in records.iter().enumerate().take(procs) {
        let p = r as u64;
        let mut open: Vec<(u64, bool)> = vec![];
        for e in &rec.events {
            match e {
                Ev::Busy { start, end, name, from, nodes } => {
                    let args = Busy { from: from.map(|f| f as usize), handled: name, nodes: *nodes };
                    w.complete(p, p, name, "busy", at(r, *start), end - start, &args);
                }
                Ev::Idle { start, end, startup } => {
                    let name = if *startup { "start-up idle" } else { "idle" };
                    w.complete(p, p, name, "idle", at(r, *start), end - start, &NoArgs {});
                }
                Ev::Sent { t, to, k, kind } => {
                    let id = arrow(r, *to as usize, *k, size);
                    if both.contains(&id) {
                        w.flow_start(p, p, kind, id, at(r, *t));
                    }
                }
                Ev::Got { t, from, k, kind } => {
                    let id = arrow(*from as usize, r, *k, size);
                    if both.contains(&id) {
                        w.flow_end(p, p, kind, id, at(r, *t));
                    }
                }
                Ev::Begin { t, span, job, from, id, ply, depth, alpha, beta, pass } => {
                    let b = Begin { from: *from as usize, id: *id, ply: *ply, depth: *depth, alpha: *alpha, beta: *beta, pass: *pass, path: None };
                    w.async_begin(p, p, task_name(*job), "task", *span, at(r, *t), &b);
                    open.push((*span, *job));
                }
                Ev::End { t, span, job, outcome, nodes } => {
                    w.async_end(p, p, task_name(*job), "task", *span, at(r, *t), &End { outcome, nodes: *nodes });
                    open.retain(|o| o.0 != *span);
                }
            }
        }
        // Spans whose end the bound cut off end with the rank's run.
        for (span, job) in open {
            w.async_end(p, p, task_name(job), "task", span, at(r, rec.end), &End { outcome: "not traced", nodes: 0 });
        }
        if let Some(c) = rec.cut {
            w.complete(p, p, "not traced", "not traced", at(r, c), rec.end.saturating_sub(c), &NoArgs {});
        }
        if let Some((t, value)) = rec.done {
            w.instant(p, p, "root value", "end", at(r, t), &Value { value });
        }
    }
    w.finish()
}

fn task_name(job: bool) -> &'static str {
    if job { "job" } else { "task" }
}

#[cfg(test)]
mod tests;
