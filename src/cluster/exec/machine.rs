//! The simulated cluster (`docs/model.md` §9.1): P processes, each with
//! its own clock and memory, joined by a network. Handlers run to
//! completion; a process busy when a message arrives handles it when it is
//! free. Costs, every one a parameter ([`Costs`]):
//!
//! - searching costs `node_ps` per node visited (over the process's
//!   speed, [`crate::cluster::exec::speeds`]), or, where `leaf_ps` is
//!   given, `leaf_ps` per leaf and `node_ps` per other node (a leaf costs a
//!   value, any other node a move list and a table probe), in
//!   picoseconds, so that a cost measured on a host (about 10 ns a node)
//!   keeps its fraction of a ns; the master-worker's master walking its
//!   in-memory tree costs `master_ppm` millionths of `node_ps` per node;
//! - sending costs the sender `send_ns`, receiving costs the receiver
//!   `recv_ns` (software overhead per message); a wake-up a process asked
//!   for costs it `wake_ns` (its look for messages that found none);
//! - a message arrives its latency plus its bytes over `bandwidth` after
//!   it is sent: `latency_ns` on the flat network, plus its hops times
//!   the hop cost on another [`Topology`] (`crate::cluster::exec::topology`).
//!
//! One run is one sequential loop over the events ([`crate::cluster::exec::events`]), so
//! its result does not depend on how many runs go on at once (`--threads`).
//!
//! Time is checked arithmetic: each cost is at most [`MAX_COST_NS`] (the
//! tools refuse more up front), and a run whose clocks or idle sums would
//! still pass 2^64 ns stops with [`TimeOverflow`] rather than wrap.

use crate::cluster::exec::events::{Delivery, Events};
use crate::cluster::exec::record::{Handler, NoRecord, Recorder};
use crate::cluster::exec::speeds::ProcSpeeds;
use crate::cluster::exec::topology::Topology;
use crate::cluster::exec::transport::{Msg, OwnMsg, Process, TaskTally, Transport};
use crate::game::TreeSource;
use crate::search::NodeCounts;

/// The machine's costs (defaults and their sources: `docs/model.md` §9.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    /// Time per node searched, ps: every node's, or where `leaf_ps` is
    /// given every node's but a leaf's.
    pub node_ps: u64,
    /// Time per leaf searched, ps (`None`: `node_ps`, one cost for every
    /// node).
    pub leaf_ps: Option<u64>,
    /// Sender's time per message, ns.
    pub send_ns: u64,
    /// Receiver's time per message, ns.
    pub recv_ns: u64,
    /// A process's time per wake-up it asked for ([`Transport::wake`]), ns:
    /// a real transport's look for messages that found none.
    pub wake_ns: u64,
    /// Network latency, ns: every message's on the flat network, the ends'
    /// share on another topology (its hops cost more).
    pub latency_ns: u64,
    /// Bandwidth, bytes per µs (1,250 = 10 Gbit/s).
    pub bytes_per_us: u64,
    /// The master-worker's master's time per node of its passes over its
    /// in-memory tree, in millionths of `node_ps`
    /// ([`DEFAULT_MASTER_PPM`]).
    pub master_ppm: u64,
    /// The network: which pairs are how many hops apart, and a hop's cost.
    pub topology: Topology,
    /// The processes' speeds by rank (default: all the reference speed):
    /// a process's searching and walking take their time over its speed.
    pub speeds: ProcSpeeds,
}

impl Default for Costs {
    fn default() -> Costs {
        Costs {
            node_ps: DEFAULT_NODE_NS * 1_000,
            leaf_ps: None,
            send_ns: 1_000,
            recv_ns: 1_000,
            wake_ns: 0,
            latency_ns: 20_000,
            bytes_per_us: 1_250,
            master_ppm: DEFAULT_MASTER_PPM,
            topology: Topology::Flat,
            speeds: ProcSpeeds::default(),
        }
    }
}

impl Costs {
    /// The time of searching `c`, ps (no overflow: each count below 2^64,
    /// each cost below 2^64 ps).
    pub fn search_ps(&self, c: NodeCounts) -> u128 {
        match self.leaf_ps {
            None => c.nodes as u128 * self.node_ps as u128,
            Some(leaf) => {
                debug_assert!(c.leaves <= c.nodes);
                c.leaves as u128 * leaf as u128 + c.nodes.saturating_sub(c.leaves) as u128 * self.node_ps as u128
            }
        }
    }
}

/// The largest cost of one node, send, receive or latency the tools take:
/// one second (`--node-ns` and the others refuse more, in one line). The
/// default node costs 380 ns; at one second a node, 2^64 ns is 1.8 × 10^10
/// nodes away, and a run that gets there is stopped ([`TimeOverflow`]).
pub const MAX_COST_NS: u64 = 1_000_000_000;

/// A run whose simulated time, or a sum of its idle times, passed 2^64 ns
/// (costs too large for its size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeOverflow;

/// The default search cost per node: this host's own sequential search
/// (the baseline of `crate::cluster::search`) on incremental b = 5 trees, measured
/// as `BENCHMARKS.md` records.
pub const DEFAULT_NODE_NS: u64 = 380;

/// The master-worker's master's default cost per node of a pass over its
/// in-memory tree, in millionths of `node_ns` (`--master-cost` 0.5): what
/// this host measured, a pass's time per node (about 38 ns, warm, sends
/// excluded) over the sequential search's time per node (69 ns with the
/// compact tables; `docs/decisions.md`, "Transposition tables"). A pass walks stored
/// nodes and sorts stored values; a search generates moves, evaluates and
/// probes its table at every node.
pub const DEFAULT_MASTER_PPM: u64 = 500_000;

/// What a run measured.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterStats {
    /// The root's value the master reported.
    pub value: i64,
    /// Search time: when the master had the value, ns.
    pub time_ns: u64,
    /// Nodes searched by every process.
    pub counts: NodeCounts,
    /// Idle time of every process before its first message (after the
    /// start), summed, ns.
    pub startup_idle_ns: u64,
    /// Every other idle time up to the search time, summed, ns.
    pub other_idle_ns: u64,
    /// Each process's busy time up to the search time, ns, by rank: the
    /// search time less the process's idle time (its share of the two sums
    /// above); its processor load (OthelloX's LD) over the search time.
    pub busy_ns: Vec<u64>,
    /// Messages sent.
    pub messages: u64,
    /// Bytes sent.
    pub bytes: u64,
    /// What the processes counted of their tasks, summed (`None`: an
    /// algorithm without tasks).
    pub tasks: Option<TaskTally>,
}

#[derive(Clone, Copy, Debug, Default)]
struct ProcState {
    clock: u64,
    started: bool,
    /// Idle time up to the search time, ns (start-up and other).
    idle: u64,
    /// Walked time not yet charged, in billionths of a ns.
    walk_rem: u64,
    /// Searched time not yet charged, ps.
    search_rem: u64,
}

/// (to, from, message, the recorder's tag; `None` is a process's own
/// wake-up). Without a recorder the tag is `()`: no larger.
type Event<N, A, G = ()> = (usize, usize, Option<Msg<N, A>>, G);

/// The bytes one message in flight holds on the simulated cluster (the
/// memory estimate's, [`crate::cluster::memory`]) for an algorithm whose
/// own messages are `A`.
pub const fn message_bytes<N, A>() -> u64 {
    Events::<Event<N, A>>::bytes_per_item()
}

struct Net<'a, N, A, R: Recorder> {
    rank: usize,
    procs: usize,
    costs: Costs,
    st: &'a mut ProcState,
    events: &'a mut Events<Event<N, A, R::Tag>>,
    stats: &'a mut ClusterStats,
    done: &'a mut Option<(i64, u64)>,
    overflow: &'a mut bool,
    rec: &'a mut R,
}

impl<N, A: OwnMsg<N>, R: Recorder> Transport<N, A> for Net<'_, N, A, R> {
    fn rank(&self) -> usize {
        self.rank
    }
    fn procs(&self) -> usize {
        self.procs
    }
    fn send(&mut self, to: usize, msg: Msg<N, A>) {
        debug_assert!(to != self.rank && to < self.procs);
        let bytes = msg.bytes();
        let began = self.st.clock;
        self.advance(Some(self.costs.send_ns));
        let wire = bytes.checked_mul(1_000).map(|b| b / self.costs.bytes_per_us.max(1));
        let latency = self.costs.topology.latency_ns(self.costs.latency_ns, self.rank, to);
        let arrival = wire.and_then(|w| self.st.clock.checked_add(latency?)?.checked_add(w));
        self.overflowed(arrival.is_none());
        let tag = if R::ON { self.rec.sent(self.rank, to, began, arrival.unwrap_or(u64::MAX), &msg) } else { R::Tag::default() };
        self.events.push(arrival.unwrap_or(u64::MAX), (to, self.rank, Some(msg), tag));
        self.stats.messages += 1;
        self.stats.bytes += bytes;
    }
    fn searched(&mut self, c: NodeCounts) {
        // Picoseconds, the remainder carried (whole-ns costs leave none).
        let t = self.costs.speeds.scale(self.rank, self.costs.search_ps(c)).and_then(|t| t.checked_add(self.st.search_rem as u128));
        self.advance(t.and_then(|t| u64::try_from(t / 1_000).ok()));
        self.st.search_rem = t.map_or(0, |t| (t % 1_000) as u64);
        self.count(c);
    }
    fn walked(&mut self, c: NodeCounts) {
        // Billionths of a ns (ps × millionths), the remainder carried: a
        // pass charges its nodes in many small pieces (before each task it
        // sends).
        let t = (c.nodes as u128)
            .checked_mul(self.costs.node_ps as u128 * self.costs.master_ppm as u128)
            .and_then(|t| self.costs.speeds.scale(self.rank, t))
            .and_then(|t| t.checked_add(self.st.walk_rem as u128));
        self.advance(t.and_then(|t| u64::try_from(t / 1_000_000_000).ok()));
        self.st.walk_rem = t.map_or(0, |t| (t % 1_000_000_000) as u64);
        self.count(c);
    }
    fn done(&mut self, value: i64) {
        if self.done.is_none() {
            *self.done = Some((value, self.st.clock));
            if R::ON {
                self.rec.done(self.rank, self.st.clock, value);
            }
        }
    }
    fn wake(&mut self) {
        // At the process's own clock: after every message that has arrived
        // by then (ties go by sending order); free, and not a message.
        self.events.push(self.st.clock, (self.rank, self.rank, None, R::Tag::default()));
    }
}

impl<N, A, R: Recorder> Net<'_, N, A, R> {
    /// Moves the clock on by `by` (`None`: a product that overflowed).
    fn advance(&mut self, by: Option<u64>) {
        let clock = by.and_then(|b| self.st.clock.checked_add(b));
        self.overflowed(clock.is_none());
        self.st.clock = clock.unwrap_or(u64::MAX);
    }

    fn overflowed(&mut self, yes: bool) {
        *self.overflow |= yes;
    }

    fn count(&mut self, c: NodeCounts) {
        if R::ON {
            self.rec.searched(self.rank, c.nodes);
        }
        self.stats.counts.nodes += c.nodes;
        self.stats.counts.leaves += c.leaves;
        self.stats.counts.internal += c.internal;
    }
}

/// Runs processes `procs` (one per rank) on the simulated cluster until
/// no message is in flight; `None` if the master never reported a value,
/// [`TimeOverflow`] (at once) if time passed 2^64 ns.
pub fn run<S: TreeSource, P: Process<S>>(src: &S, procs: &mut [P], costs: Costs, delivery: Delivery) -> Result<Option<ClusterStats>, TimeOverflow> {
    run_recorded(src, procs, costs, delivery, &mut NoRecord)
}

/// [`run`] watched by `rec` (a trace).
pub fn run_recorded<S: TreeSource, P: Process<S>, R: Recorder>(
    src: &S,
    procs: &mut [P],
    costs: Costs,
    delivery: Delivery,
    rec: &mut R,
) -> Result<Option<ClusterStats>, TimeOverflow> {
    let n = procs.len();
    let mut states = vec![ProcState::default(); n];
    let mut events: Events<Event<S::Node, P::Own, R::Tag>> = Events::new(delivery);
    let mut stats = ClusterStats::default();
    let mut done = None;
    let mut overflow = false;
    for (r, p) in procs.iter_mut().enumerate() {
        let before = stats.counts.nodes;
        let mut net =
            Net { rank: r, procs: n, costs, st: &mut states[r], events: &mut events, stats: &mut stats, done: &mut done, overflow: &mut overflow, rec };
        p.start(src, &mut net);
        if R::ON {
            rec.handled(r, Handler::Start, 0, states[r].clock, stats.counts.nodes - before);
        }
    }
    // A process whose start did something has begun: its later waits are
    // "other" idle time.
    for s in &mut states {
        s.started = s.clock > 0;
    }
    while let Some((t, (to, from, msg, tag))) = events.pop() {
        if overflow {
            return Err(TimeOverflow);
        }
        let st = &mut states[to];
        if st.clock < t {
            // Idle time counts up to the search time only.
            let idle = done.map_or(t, |(_, end)| t.min(end)).saturating_sub(st.clock);
            if R::ON && idle > 0 {
                rec.idle(to, st.clock, st.clock + idle, !st.started);
            }
            add_idle(&mut stats, st, idle)?;
            st.clock = t;
        }
        let (start, before) = (st.clock, stats.counts.nodes);
        let Some(msg) = msg else {
            let mut net = Net { rank: to, procs: n, costs, st, events: &mut events, stats: &mut stats, done: &mut done, overflow: &mut overflow, rec };
            net.advance(Some(costs.wake_ns));
            procs[to].resume(src, &mut net);
            if R::ON {
                rec.handled(to, Handler::Resume, start, states[to].clock, stats.counts.nodes - before);
            }
            continue;
        };
        st.started = true;
        let kind = if R::ON {
            rec.receiving(to, from, &msg, tag, start);
            msg.kind()
        } else {
            ""
        };
        let mut net = Net { rank: to, procs: n, costs, st, events: &mut events, stats: &mut stats, done: &mut done, overflow: &mut overflow, rec };
        net.advance(Some(costs.recv_ns));
        procs[to].receive(src, &mut net, from, msg);
        if R::ON {
            rec.handled(to, Handler::Message { from, kind }, start, states[to].clock, stats.counts.nodes - before);
        }
    }
    if overflow {
        return Err(TimeOverflow);
    }
    let Some((value, time)) = done else { return Ok(None) };
    stats.value = value;
    stats.time_ns = time;
    // Idle to the end of the search: the processes that finished early (or
    // never began). Time past the search (late messages) is not counted.
    for (r, s) in states.iter_mut().enumerate() {
        let idle = time - s.clock.min(time);
        if R::ON && idle > 0 {
            rec.idle(r, s.clock, time, !s.started);
        }
        add_idle(&mut stats, s, idle)?;
    }
    if R::ON {
        rec.finish();
    }
    // Busy is the rest of the search time. (An adversarial delivery,
    // ignoring times, may count more idle than that: none busy then.)
    stats.busy_ns = states.iter().map(|s| time.saturating_sub(s.idle)).collect();
    stats.tasks = procs.iter().filter_map(|p| p.tally()).reduce(|a, b| a + b);
    Ok(Some(stats))
}

/// Adds `idle` ns to process `s`'s own idle time, and to the run's other
/// idle time if the process has started, to its start-up idle time if not.
fn add_idle(stats: &mut ClusterStats, s: &mut ProcState, idle: u64) -> Result<(), TimeOverflow> {
    let sum = if s.started { &mut stats.other_idle_ns } else { &mut stats.startup_idle_ns };
    *sum = sum.checked_add(idle).ok_or(TimeOverflow)?;
    s.idle = s.idle.checked_add(idle).ok_or(TimeOverflow)?;
    Ok(())
}
