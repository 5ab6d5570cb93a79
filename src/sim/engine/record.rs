//! The machine's observer (`docs/formats.md`, "Traces"): a [`Recorder`]
//! sees every span of a processor's time as the machine books it (its
//! state, what the time went to, the node), each processor's exit and the
//! search's end. The machine is generic over it and every call sits behind
//! [`Recorder::ON`], so the default, [`NoRecord`], compiles to nothing:
//! a run without a trace is the same code as one before traces existed.

use super::stats::{State, TimeKind};

/// What watches a run's time. Spans of one processor come in time order
/// and without gaps from tick 0 (its start) to its exit or the end; a span
/// may reach past the end of the search (the machine gives such time back
/// when it ends: a recorder clips at [`Recorder::finish`]'s tick).
pub trait Recorder {
    /// Whether the machine calls the recorder at all (false: every call is
    /// compiled out).
    const ON: bool;
    /// Processor `p` spent ticks `start .. start + d` in state `s`, on
    /// `kind`, at node `node` (its identity: its slot and the slot's
    /// generation, equal only for one node while it lives; `u64::MAX` for
    /// none). `path` gives the node as 1-based move numbers from the root
    /// (`""` the root), walked only if called.
    #[allow(clippy::too_many_arguments)]
    fn span(&mut self, p: usize, start: u64, d: u64, s: State, kind: TimeKind, node: u64, path: &dyn Fn() -> Option<String>);
    /// Processor `p`'s latest ticks `start .. start + d`, booked as memory
    /// stalls, were a failed lock attempt: they count as `kind` (a lock
    /// wait) instead.
    fn relabel(&mut self, _p: usize, _start: u64, _d: u64, _kind: TimeKind) {}
    /// Processor `p` exited at tick `t`: it is in [`State::Exit`] from then
    /// to the end.
    fn exit(&mut self, _p: usize, _t: u64) {}
    /// The root returned at tick `t`: the run's end.
    fn finish(&mut self, _t: u64) {}
}

/// The recorder of a run without a trace: nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoRecord;

impl Recorder for NoRecord {
    const ON: bool = false;
    #[inline(always)]
    fn span(&mut self, _: usize, _: u64, _: u64, _: State, _: TimeKind, _: u64, _: &dyn Fn() -> Option<String>) {}
}
