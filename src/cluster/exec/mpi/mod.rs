//! The real message-passing transport: the cluster's policies on MPI
//! processes (`docs/model.md` §9.8). Built with `--features mpi`
//! (Open MPI through rsmpi); the default build has none of it.
//!
//! One MPI rank is one process of a policy. [`OnMpi`] is a
//! [`Launch`]: every rank builds only its own process
//! (`make(rank)`), all ranks meet at a barrier, the clock starts, the
//! process's `start` runs, and then the rank loops: it waits for the next
//! message from any rank and hands it to `receive`; when the process asked
//! to be woken ([`Transport::wake`]) it first handles every message that
//! has arrived by then, then calls `resume`. The master's `done(v)` ends the
//! search: its time is the wall time from the barrier to that call.
//!
//! **Ending.** Rank 0 then sends every rank a *stop*; a rank that has it
//! leaves its loop and sends every other rank a *fin* (rank 0's carries the
//! rank's statistics), and keeps receiving — and dropping — the run's
//! messages until it has every other rank's fin. MPI keeps the messages
//! between two ranks in order, so once a rank has all fins nothing more of
//! the run is coming: no message is left in flight for the next run, and no
//! send waits for a receiver that has gone. Only the run's tags are taken:
//! a rank with all its fins may already send rank 0 its trace record or the
//! next run's clock ping. Messages are sent buffered (`MPI_Bsend`,
//! [`BSEND_BYTES`]), so a send never waits for its receiver (two ranks
//! sending large messages to each other cannot deadlock).
//!
//! **Never a hang.** Every wait (the barrier, a message, the fins) polls
//! (an immediate probe, then a yield; in an oversubscribed job, after a
//! thousand polls, a short sleep: [`Job::with_cores`]) and has a deadline:
//! with no message for the timeout (`--mpi-timeout`, 60 s by default), the
//! rank prints one line, `psearch: rank R: no message for 60 s (a rank
//! died or the network stalled)`, and aborts the job (`MPI_Abort`). Rank r
//! waits a second × r longer than rank 0 (at most 10 s longer), so that one
//! rank reports, not all: a rank's abort took more than 0.4 s to stop the
//! others on a loaded two-core host, when the step was 0.2 s.
//! A handler that runs longer than the timeout makes the ranks waiting for
//! it time out: the timeout must exceed the longest search a rank does
//! between messages (the sequential baseline on rank 0, which the others
//! wait out; the even split's share; a master-slave task).
//!
//! **What a rank measures**: nodes (`searched`), messages and their bytes
//! on the wire (the encoded message, [`wire`]), and the time it waited:
//! before its first message (start-up idle: a rank whose start did nothing
//! waits for its first message) and any other wait up to the stop; its busy
//! time is the rest of its time up to the stop (searching, handling and
//! sending), counted up to the search time (its processor load).
//!
//! **Traced** (`psearch --mpi --trace`): [`OnMpi`] calls the
//! cluster's [`Recorder`] where a rank measures anyway — the idle time a
//! wait adds, each handler (`start`, a message, `resume`), each send, the
//! master's `done` — in ns from the rank's own start, every call behind
//! [`Recorder::ON`] (the default, [`NoRecord`], compiles to the untraced
//! code). The recorder counts the messages per peer: MPI keeps one pair's
//! messages in order, so the k-th from r to s is the same at both ends and
//! nothing is added to the wire. Its clock against rank 0's and the
//! gathering of the ranks' records are [`gather`]'s.

pub mod gather;
pub mod run;
pub mod wire;

use crate::cluster::Launch;
use crate::cluster::exec::machine::ClusterStats;
use crate::cluster::exec::record::{Handler, NoRecord, RankRecorder, Recorder};
use crate::cluster::exec::transport::{Msg, OwnMsg, Process, Transport};
use crate::game::TreeSource;
use crate::search::NodeCounts;
use mpi::point_to_point::{MatchedReceiveVec, Message, Status};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// A policy's message.
const TAG_MSG: i32 = 1;
/// Rank 0 to every rank: the search is over.
const TAG_STOP: i32 = 2;
/// A rank that has left its loop, to every other rank (to rank 0 with its
/// statistics).
const TAG_FIN: i32 = 3;
/// A traced run's clock ping and its answer ([`gather`]).
const TAG_CLOCK: i32 = 4;
/// A traced run's record, to rank 0 after the fins ([`gather`]).
const TAG_TRACE: i32 = 5;

/// The buffer attached for buffered sends, per rank: 64 MiB, thousands of
/// times what the searches here have in flight at once (a send that does not
/// fit is an MPI error, which ends the job).
pub const BSEND_BYTES: usize = 64 << 20;

/// The default `--mpi-timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The test-only environment variable that makes a rank fail at the start
/// of each parallel run: `exit:R` (rank R exits at once, without MPI's
/// goodbye) or `stall:R` (rank R stops answering); or, at each parallel
/// run's end, `late-fin:R` (rank R sends its fin to rank 0 last, 0.3 s
/// after the others'). The tests use it to check that a failed rank ends
/// the job rather than hanging it, and that a rank 0 still waiting for a fin
/// keeps the messages other ranks send it after the run.
pub const FAULT_ENV: &str = "PARAB_MPI_TEST_FAULT";

/// How the ranks of a job run.
#[derive(Clone, Debug)]
pub struct MpiOptions {
    /// The tool's name, for the one-line error.
    pub tool: &'static str,
    /// The longest wait for a message.
    pub timeout: Duration,
    /// Whether the MPI library lets a rank run threads whose main thread
    /// alone calls MPI (`MPI_THREAD_FUNNELED` or more), as `--threads` needs.
    pub threads_allowed: bool,
}

/// This rank in its job: who it is, and how it gives up.
#[derive(Clone, Copy)]
pub struct Job<'w> {
    /// The job's ranks.
    pub world: &'w SimpleCommunicator,
    /// Timeout and the tool's name.
    pub opts: &'w MpiOptions,
    /// This rank.
    pub rank: usize,
    /// The job's ranks.
    pub size: usize,
    /// Whether a wait may sleep between polls ([`Job::with_cores`]).
    pub sleeps: bool,
}

impl<'w> Job<'w> {
    /// This rank of `world`.
    pub fn new(world: &'w SimpleCommunicator, opts: &'w MpiOptions) -> Job<'w> {
        Job { world, opts, rank: world.rank() as usize, size: world.size() as usize, sleeps: true }
    }

    /// This job, its waits polling without sleeping when every rank has a
    /// core of its own (`oversubscribed` false): a rank that
    /// slept 50 µs between polls handled a message up to a sleep late —
    /// later still on a busy host — and pushed out its own buffered sends
    /// only when it woke, a delay no model of the machine has. An
    /// oversubscribed job keeps the sleeps, so that its waiting ranks leave
    /// their cores to the ranks searching.
    pub fn with_cores(self, oversubscribed: bool) -> Job<'w> {
        Job { sleeps: oversubscribed, ..self }
    }

    /// The deadline of a wait begun now (see the module doc: rank r waits
    /// a second × r longer, so that one rank reports).
    fn deadline(&self) -> Instant {
        Instant::now() + self.opts.timeout + Duration::from_secs(self.rank.min(10) as u64)
    }

    /// Reports that nothing came and ends the job.
    fn timed_out(&self) -> ! {
        let t = self.opts.timeout.as_secs_f64();
        eprintln!("{}: rank {}: no message for {t} s (a rank died or the network stalled)", self.opts.tool, self.rank);
        self.world.abort(1)
    }

    /// Reports a fault on this rank in one line and ends the job.
    pub fn fatal(&self, what: &str) -> ! {
        eprintln!("{}: rank {}: {what}", self.opts.tool, self.rank);
        self.world.abort(1)
    }

    /// The next message from any rank, or `None` at once.
    fn poll(&self) -> Option<(Message, Status)> {
        self.world.any_process().immediate_matched_probe()
    }

    /// The next message, waiting up to the timeout for it.
    fn wait(&self) -> (Message, Status) {
        self.wait_for(|| self.poll())
    }

    /// The next message from rank `from` with `tag`, waiting up to the
    /// timeout for it.
    fn wait_from(&self, from: usize, tag: i32) -> (Message, Status) {
        let source = self.world.process_at_rank(from as i32);
        self.wait_for(|| source.immediate_matched_probe_with_tag(tag))
    }

    /// The first message `probe` finds, up to the timeout.
    fn wait_for(&self, probe: impl Fn() -> Option<(Message, Status)>) -> (Message, Status) {
        let deadline = self.deadline();
        let mut polls = 0u32;
        loop {
            if let Some(m) = probe() {
                return m;
            }
            if Instant::now() > deadline {
                self.timed_out();
            }
            pause(&mut polls, self.sleeps);
        }
    }

    /// Waits for every rank at a barrier, with the timeout.
    pub fn barrier(&self) {
        self.complete(self.world.immediate_barrier(), |r| r.test().map(drop));
    }

    /// Polls the request `req` with `test` until it completes, up to the
    /// timeout.
    pub(crate) fn complete<Q>(&self, mut req: Q, test: impl Fn(Q) -> Result<(), Q>) {
        let deadline = self.deadline();
        let mut polls = 0u32;
        loop {
            match test(req) {
                Ok(()) => return,
                Err(r) => req = r,
            }
            if Instant::now() > deadline {
                self.timed_out();
            }
            pause(&mut polls, self.sleeps);
        }
    }
}

/// Between two polls: yield (a rank with a core of its own polls on), or,
/// where waits may sleep, yield for the first thousand (a message expected
/// within microseconds arrives without a sleep's delay), then sleep 50 µs
/// (an oversubscribed rank must leave its core to the ranks searching).
fn pause(polls: &mut u32, sleeps: bool) {
    *polls = polls.saturating_add(1);
    if !sleeps || *polls < 1_000 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// A rank's statistics, sent to rank 0 with its fin.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
struct RankStats {
    nodes: u64,
    leaves: u64,
    internal: u64,
    messages: u64,
    bytes: u64,
    startup_idle_ns: u64,
    other_idle_ns: u64,
    /// The rank's time from the clock's start to leaving its loop, less
    /// its waits: searching, handling and sending messages.
    busy_ns: u64,
}

/// What a received message was.
enum Got<N, A> {
    /// A policy's message, and its sender.
    Msg(usize, Msg<N, A>),
    /// Stop, or a fin (another rank has stopped: the search is over).
    Stop,
}

/// One rank's side of a run: receiving, counting, ending.
struct Inbox<'w, 'r, R> {
    job: Job<'w>,
    /// The fins received so far, with their statistics.
    fins: Vec<Option<RankStats>>,
    /// The rank has had a message, or did something on start.
    started: bool,
    stats: RankStats,
    /// The run's start on this rank (right after the barrier).
    t0: Instant,
    rec: &'r mut R,
}

/// The ns from `t0` to `t` (0 before it).
fn since(t0: Instant, t: Instant) -> u64 {
    t.saturating_duration_since(t0).as_nanos() as u64
}

impl<'w, 'r, R: Recorder> Inbox<'w, 'r, R> {
    fn new(job: Job<'w>, t0: Instant, rec: &'r mut R) -> Inbox<'w, 'r, R> {
        Inbox { job, fins: vec![None; job.size], started: false, stats: RankStats::default(), t0, rec }
    }

    /// The ns since the run's start.
    fn now(&self) -> u64 {
        since(self.t0, Instant::now())
    }

    /// The next message, waiting for it (the wait counts as idle time).
    fn wait(&mut self) -> (Message, Status) {
        let begun = Instant::now();
        let got = self.job.wait();
        let idle = begun.elapsed().as_nanos() as u64;
        if R::ON {
            // The very numbers added below: the trace's idle time is the row's.
            let start = since(self.t0, begun);
            self.rec.idle(self.job.rank, start, start + idle, !self.started);
        }
        if self.started {
            self.stats.other_idle_ns += idle;
        } else {
            self.stats.startup_idle_ns += idle;
        }
        got
    }

    /// Receives a probed message: a policy's message decoded, or the end.
    fn take<N: serde::de::DeserializeOwned, A: OwnMsg<N>>(&mut self, got: (Message, Status)) -> Got<N, A> {
        let (data, st) = got.matched_receive_vec::<u8>();
        let from = st.source_rank() as usize;
        match st.tag() {
            TAG_MSG => {
                self.started = true;
                let msg = wire::decode::<N, A>(&data).unwrap_or_else(|e| self.job.fatal(&format!("a message from rank {from} does not decode ({e})")));
                Got::Msg(from, msg)
            }
            TAG_FIN => {
                self.fin(from, &data);
                Got::Stop
            }
            _ => Got::Stop,
        }
    }

    fn fin(&mut self, from: usize, data: &[u8]) {
        let s = if data.is_empty() {
            RankStats::default()
        } else {
            postcard::from_bytes(data).unwrap_or_else(|e| self.job.fatal(&format!("the statistics of rank {from} do not decode ({e})")))
        };
        self.fins[from] = Some(s);
    }

    /// Ends this rank's part: rank 0 stops every rank; every rank says fin
    /// to every other and drops the run's messages until it has all fins
    /// (with `faults`, the test-only late fin may fire). Rank 0 returns
    /// every rank's statistics (its own included).
    fn finish(&mut self, faults: bool) -> Option<Vec<RankStats>> {
        let job = self.job;
        if job.rank == 0 {
            for r in 1..job.size {
                job.world.process_at_rank(r as i32).buffered_send_with_tag(&[0u8; 0][..], TAG_STOP);
            }
        }
        let mine = postcard::to_stdvec(&self.stats).unwrap_or_else(|e| job.fatal(&format!("statistics do not encode ({e})")));
        let late = faults && fault_named("late-fin", job.rank);
        let mut order: Vec<usize> = (0..job.size).filter(|&r| r != job.rank).collect();
        if late {
            // The test-only late fin: rank 0's last, a while after the others'.
            order.rotate_left(usize::from(job.rank != 0));
        }
        for r in order {
            if late && r == 0 {
                std::thread::sleep(Duration::from_millis(300));
            }
            let payload: &[u8] = if r == 0 { &mine } else { &[] };
            job.world.process_at_rank(r as i32).buffered_send_with_tag(payload, TAG_FIN);
        }
        self.fins[job.rank] = Some(self.stats);
        // Only this run's tags: a rank that has all its fins may already be
        // sending its trace record, or pinging for the next run, to a rank 0
        // still here — messages for after the run that must not be dropped.
        // A sender's fin is its last message of the run (after its policy
        // messages and rank 0's stop), so the fins are probed last; and once
        // every fin is in, every earlier message has arrived: what is left of
        // them goes too, or the next run would find it.
        let any = job.world.any_process();
        let probe = |tags: &[i32]| tags.iter().find_map(|&t| any.immediate_matched_probe_with_tag(t));
        while self.fins.iter().any(Option::is_none) {
            let (data, st) = job.wait_for(|| probe(&[TAG_MSG, TAG_STOP, TAG_FIN])).matched_receive_vec::<u8>();
            if st.tag() == TAG_FIN {
                self.fin(st.source_rank() as usize, &data);
            }
        }
        while let Some(left) = probe(&[TAG_MSG, TAG_STOP]) {
            let _ = left.matched_receive_vec::<u8>();
        }
        let fins = std::mem::take(&mut self.fins);
        (job.rank == 0).then(|| fins.into_iter().map(Option::unwrap_or_default).collect())
    }
}

/// The transport a rank's process sees.
struct Net<'a, 'w, 'r, R> {
    inbox: &'a mut Inbox<'w, 'r, R>,
    procs: usize,
    done: Option<(i64, u64)>,
    wakes: u32,
    /// Something was sent or searched (on start: the process has begun).
    active: bool,
}

impl<N: Serialize, A: OwnMsg<N>, R: Recorder> Transport<N, A> for Net<'_, '_, '_, R> {
    fn rank(&self) -> usize {
        self.inbox.job.rank
    }
    fn procs(&self) -> usize {
        self.procs
    }
    fn send(&mut self, to: usize, msg: Msg<N, A>) {
        let job = self.inbox.job;
        debug_assert!(to != job.rank && to < self.procs);
        if R::ON {
            // The arrival is not known here: the receiver's handler says it.
            let t = self.inbox.now();
            self.inbox.rec.sent(job.rank, to, t, u64::MAX, &msg);
        }
        let bytes = wire::encode(&msg).unwrap_or_else(|e| job.fatal(&format!("a message does not encode ({e})")));
        job.world.process_at_rank(to as i32).buffered_send_with_tag(&bytes[..], TAG_MSG);
        self.inbox.stats.messages += 1;
        self.inbox.stats.bytes += bytes.len() as u64;
        self.active = true;
    }
    fn searched(&mut self, c: NodeCounts) {
        if R::ON {
            self.inbox.rec.searched(self.inbox.job.rank, c.nodes);
        }
        let s = &mut self.inbox.stats;
        s.nodes += c.nodes;
        s.leaves += c.leaves;
        s.internal += c.internal;
        self.active = true;
    }
    fn done(&mut self, value: i64) {
        if self.done.is_none() {
            let t = self.inbox.now();
            self.done = Some((value, t));
            if R::ON {
                self.inbox.rec.done(self.inbox.job.rank, t, value);
            }
        }
    }
    fn wake(&mut self) {
        self.wakes += 1;
    }
}

/// A test-only failure ([`FAULT_ENV`]) for this rank at the run's start,
/// if asked.
fn fault(rank: usize) {
    if fault_named("exit", rank) {
        std::process::exit(3)
    }
    if fault_named("stall", rank) {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}

/// Whether [`FAULT_ENV`] asks for the fault `what` on `rank`.
fn fault_named(what: &str, rank: usize) -> bool {
    std::env::var(FAULT_ENV).is_ok_and(|v| v.split_once(':').is_some_and(|(w, r)| w == what && r.parse() == Ok(rank)))
}

/// The policies on MPI ranks as a [`Launch`]: every rank asks for the same
/// run; rank 0 gets the run's statistics, the others `None`. Ranks at or
/// above the run's process count (the sequential baseline on a job of
/// several ranks) take no part but wait for the end.
///
/// With a recorder (`R::ON`), every rank also pings rank 0 before the
/// barrier (its clock against rank 0's) and, after the fins, sends its
/// record to rank 0, whose recorder gathers them all ([`gather`]).
pub struct OnMpi<'w, 'r, R = NoRecord> {
    /// This rank.
    pub job: Job<'w>,
    /// Whether the test-only failure ([`FAULT_ENV`]) may fire in this run.
    pub faults: bool,
    /// What watches this rank's run ([`NoRecord`]: nothing).
    pub rec: &'r mut R,
}

impl<'w> OnMpi<'w, 'static> {
    /// A run on `job` without a recorder.
    pub fn new(job: Job<'w>, faults: bool) -> OnMpi<'w, 'static> {
        // A unit struct: leaking one allocates nothing.
        OnMpi { job, faults, rec: Box::leak(Box::new(NoRecord)) }
    }
}

impl<S: TreeSource, R: RankRecorder> Launch<S> for OnMpi<'_, '_, R> {
    type Output = Option<ClusterStats>;
    fn launch<P: Process<S>>(self, src: &S, procs: usize, mut make: impl FnMut(usize) -> P) -> Option<ClusterStats> {
        let job = self.job;
        assert!(procs <= job.size, "a run of {procs} processes on {} ranks", job.size);
        let mut process = (job.rank < procs).then(|| make(job.rank));
        let pinged = R::ON.then(|| gather::ping(job));
        job.barrier();
        if self.faults {
            fault(job.rank);
        }
        let t0 = Instant::now();
        let mut inbox = Inbox::new(job, t0, self.rec);
        let done = match &mut process {
            Some(p) => {
                let done = run_rank(src, p, &mut inbox, procs);
                let st = &mut inbox.stats;
                st.busy_ns = since(t0, Instant::now()).saturating_sub(st.startup_idle_ns + st.other_idle_ns);
                if R::ON {
                    inbox.rec.finish();
                }
                done
            }
            None => {
                while let Got::Msg(..) = inbox.take::<S::Node, P::Own>(inbox.job.wait()) {}
                None
            }
        };
        let end = inbox.now();
        let all = inbox.finish(self.faults);
        if let Some(pinged) = pinged {
            gather::gather(job, inbox.rec, pinged, t0, end);
        }
        let all = all?;
        let (value, time_ns) = done.unwrap_or_else(|| job.fatal("the master stopped without the root's value"));
        let mut s = ClusterStats { value, time_ns, ..ClusterStats::default() };
        // Busy up to the search time: a rank that was still in a handler
        // when the master had the value counts it up to that time only.
        s.busy_ns = all[..procs].iter().map(|r| r.busy_ns.min(time_ns)).collect();
        for r in &all[..procs] {
            s.counts.nodes += r.nodes;
            s.counts.leaves += r.leaves;
            s.counts.internal += r.internal;
            s.messages += r.messages;
            s.bytes += r.bytes;
            s.startup_idle_ns += r.startup_idle_ns;
            s.other_idle_ns += r.other_idle_ns;
        }
        Some(s)
    }
}

/// The most messages a rank handles before a wake-up it asked for.
const DRAIN_MAX: u32 = 1024;

/// One rank's process from its start to the stop; rank 0's (value, time).
fn run_rank<S: TreeSource, P: Process<S>, R: Recorder>(src: &S, p: &mut P, inbox: &mut Inbox<'_, '_, R>, procs: usize) -> Option<(i64, u64)> {
    let rank = inbox.job.rank;
    let master = rank == 0;
    let mut net = Net { inbox, procs, done: None, wakes: 0, active: false };
    p.start(src, &mut net);
    if R::ON {
        let (end, nodes) = (net.inbox.now(), net.inbox.stats.nodes);
        net.inbox.rec.handled(rank, Handler::Start, 0, end, nodes);
    }
    net.inbox.started = net.active;
    // Messages handled since the last wake-up: a drain ends at an empty
    // inbox, or after DRAIN_MAX messages should they keep coming.
    let mut drained = 0;
    loop {
        if master && net.done.is_some() {
            break;
        }
        let got = if net.wakes > 0 {
            // Every message that has arrived by now, then the wake-up.
            // (A matched probe takes the message: probe only below the cap.)
            match if drained < DRAIN_MAX { net.inbox.job.poll() } else { None } {
                Some(got) => {
                    drained += 1;
                    got
                }
                None => {
                    drained = 0;
                    net.wakes -= 1;
                    let (start, before) = if R::ON { (net.inbox.now(), net.inbox.stats.nodes) } else { (0, 0) };
                    p.resume(src, &mut net);
                    if R::ON {
                        let (end, nodes) = (net.inbox.now(), net.inbox.stats.nodes - before);
                        net.inbox.rec.handled(rank, Handler::Resume, start, end, nodes);
                    }
                    continue;
                }
            }
        } else {
            net.inbox.wait()
        };
        // The handler's span begins as the message is taken (received and
        // decoded), where the wait's idle time ended.
        let (start, before) = if R::ON { (net.inbox.now(), net.inbox.stats.nodes) } else { (0, 0) };
        match net.inbox.take::<S::Node, P::Own>(got) {
            Got::Msg(from, msg) if R::ON => {
                let kind = msg.kind();
                net.inbox.rec.receiving(rank, from, &msg, R::Tag::default(), start);
                p.receive(src, &mut net, from, msg);
                let (end, nodes) = (net.inbox.now(), net.inbox.stats.nodes - before);
                net.inbox.rec.handled(rank, Handler::Message { from, kind }, start, end, nodes);
            }
            Got::Msg(from, msg) => p.receive(src, &mut net, from, msg),
            Got::Stop => break,
        }
    }
    net.done
}
