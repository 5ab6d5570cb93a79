//! The simulated cluster's observer (`docs/formats.md`, "Traces"): a
//! [`Recorder`] sees each handler a process runs (when it started and
//! ended, what it handled), each idle wait as the machine counts it, each
//! message sent and handled, and the search's end. The machine is generic
//! over it and every call sits behind [`Recorder::ON`], so the default,
//! [`NoRecord`], compiles to nothing and its message tag is `()` (issue 41).

use super::transport::Msg;

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
    /// `()` for no recorder, so events are no larger).
    type Tag: Copy + Default;
    /// Process `from` began to send `msg` to `to` at `t` (the send's cost
    /// follows); it arrives at `arrival`.
    fn sent<N>(&mut self, from: usize, to: usize, t: u64, arrival: u64, msg: &Msg<N>) -> Self::Tag;
    /// Process `rank` begins to handle `msg` (sent with `tag` by `from`) at `t`.
    fn receiving<N>(&mut self, _rank: usize, _from: usize, _msg: &Msg<N>, _tag: Self::Tag, _t: u64) {}
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
    fn sent<N>(&mut self, _: usize, _: usize, _: u64, _: u64, _: &Msg<N>) {}
}
