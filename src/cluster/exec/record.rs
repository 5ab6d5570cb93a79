//! The simulated cluster's observer (`docs/formats.md`, "Traces"): a
//! [`Recorder`] sees each handler a process runs (when it started and
//! ended, what it handled), each idle wait as the machine counts it, each
//! message sent and handled, and the search's end. The machine is generic
//! over it and every call sits behind [`Recorder::ON`], so the default,
//! [`NoRecord`], compiles to nothing and its message tag is `()`.
//!
//! A real transport (MPI) calls the same [`Recorder`] on each rank, for
//! that rank alone, with ns from the rank's own start; a [`RankRecorder`]
//! is told beyond that how the rank's clock stands against rank 0's and
//! hands its record to rank 0, which has every rank's in the end.

use super::transport::{Msg, OwnMsg};

/// What a handler ran on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handler {
    /// The machine's start.
    Start,
    /// A message from `from`.
    Message {
        /// The sender.
        from: usize,
        /// The message's kind ([`Msg::kind`]).
        kind: &'static str,
    },
    /// The wake-up the process asked for.
    Resume,
}

/// What watches a simulated cluster's run (of any tree source: the
/// messages' node type is each call's own).
pub trait Recorder {
    /// Whether the machine calls the recorder at all.
    const ON: bool;
    /// What travels with a message to name it at its receiver (a flow id;
    /// `()` for no recorder, so events are no larger; a real transport
    /// carries none and passes the default).
    type Tag: Copy + Default;
    /// Process `from` began to send `msg` to `to` at `t` (the send's cost
    /// follows); it arrives at `arrival` (`u64::MAX` where the transport
    /// cannot know it: a real one).
    fn sent<N, A: OwnMsg<N>>(&mut self, from: usize, to: usize, t: u64, arrival: u64, msg: &Msg<N, A>) -> Self::Tag;
    /// Process `rank` begins to handle `msg` (sent with `tag` by `from`) at `t`.
    fn receiving<N, A: OwnMsg<N>>(&mut self, _rank: usize, _from: usize, _msg: &Msg<N, A>, _tag: Self::Tag, _t: u64) {}
    /// Process `rank` searched (or walked) `nodes` nodes, just now.
    fn searched(&mut self, _rank: usize, _nodes: u64) {}
    /// Process `rank` ran a handler from `start` to `end`, searching `nodes`.
    fn handled(&mut self, _rank: usize, _what: Handler, _start: u64, _end: u64, _nodes: u64) {}
    /// Process `rank` was idle from `start` to `end`, before its first
    /// message (`startup`) or after: exactly what the machine counts.
    fn idle(&mut self, _rank: usize, _start: u64, _end: u64, _startup: bool) {}
    /// The master reported the root's value at `t`, the search time.
    fn done(&mut self, _rank: usize, _t: u64, _value: i64) {}
    /// The run is over (no message in flight).
    fn finish(&mut self) {}
}

/// The recorder of a run without a trace: nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoRecord;

impl Recorder for NoRecord {
    const ON: bool = false;
    type Tag = ();
    #[inline(always)]
    fn sent<N, A: OwnMsg<N>>(&mut self, _: usize, _: usize, _: u64, _: u64, _: &Msg<N, A>) {}
}

/// How a rank's clock stands against rank 0's, measured by a ping before
/// the run (the run's start is each rank's own: its clock after the
/// barrier that starts the run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ClockSync {
    /// Rank 0: its run started `start` ns after the instant its answers to
    /// the pings count from.
    Root {
        /// The run's start on the answers' clock.
        start: u64,
    },
    /// Another rank: its ping left at `sent` and rank 0's answer came back
    /// at `back` (ns on this rank's clock from its run's start: negative,
    /// the ping being before the run), the answer saying `answer` (ns on
    /// rank 0's clock, from the instant its answers count from).
    Ping {
        /// The ping's departure.
        sent: i64,
        /// The answer's arrival.
        back: i64,
        /// Rank 0's reading.
        answer: u64,
    },
}

/// A [`Recorder`] of one rank of a real transport: its record leaves the
/// rank as bytes, and rank 0 gathers every rank's.
pub trait RankRecorder: Recorder {
    /// This rank (`rank`) left its loop at `end` ns from its start; `sync`
    /// is its clock against rank 0's: its record, as bytes for rank 0.
    fn close(&mut self, rank: usize, end: u64, sync: ClockSync) -> Vec<u8>;
    /// On rank 0: every rank's [`RankRecorder::close`], in rank order (an
    /// empty one from a rank that took no part).
    fn gathered(&mut self, records: Vec<Vec<u8>>);
}

impl RankRecorder for NoRecord {
    fn close(&mut self, _: usize, _: u64, _: ClockSync) -> Vec<u8> {
        vec![]
    }
    fn gathered(&mut self, _: Vec<Vec<u8>>) {}
}
