//! The DTS-like parallel alpha-beta search of PABSim, run on the simulated
//! machine (thesis §6.2–6.3; `docs/model.md` §5.2–5.3).
//!
//! **Processors interleave at every memory access**, as the thesis's fibers
//! do: its `CREAD`/`CWRITE` yield whenever an access has a delay, and a
//! request refused by a busy block is issued again and competes afresh.
//! Here every simulated processor is an `async` routine, and every memory
//! access, lock attempt and state cost is an `.await` on the machine
//! ([`Machine::read`], [`Machine::write`], [`Machine::lock`],
//! [`Machine::work`]): the access takes effect when the block accepts it,
//! the processor's clock advances by its delay, and a small deterministic
//! executor ([`Machine::run`]) resumes whichever processor has the smallest
//! clock (ties round-robin in processor order). A processor runs on without
//! being suspended while its clock stays strictly below every other
//! processor's, so hits and zero-delay work cost no scheduling.
//!
//! The states read like the thesis's figures: one routine per state
//! (`Machine::expand`, `Machine::search`, `Machine::eval`,
//! `Machine::ret`, `Machine::update`, the idle loop `Machine::idle`),
//! straight-line, with the simulated accesses in program order; a state's
//! data (the node it works at, the value it carries) lives in [`Next`], the
//! state a routine hands over to. Two seams keep extensions small: a new
//! split-point rule is a [`SplitScheme`](crate::schemes::SplitScheme)
//! (what is eligible, and in what order of preference); a new way for an
//! idle processor to find work is a [`SimIdle`], called from
//! `Machine::idle`. The machine is generic over its policy and names none:
//! the runs instantiate it with the registry's
//! [`Policy`](crate::policy::Policy) alone, whose `SimIdle` hands each
//! call to its variant's (static dispatch, one copy of the engine).
//!
//! Why `async`: each state stays one readable routine however many times it
//! is suspended inside, and the compiler builds the resumable state machine
//! that hand-written code would need per access (dozens of sub-states). The
//! executor is ours (a few lines, no runtime crate): the scheduler's choice
//! is the only thing that decides who runs, so runs are deterministic.
//!
//! [`Interleave::State`] keeps the earlier model for comparison: accesses
//! inside a state never suspend the processor (they are served at its
//! running clock as if no other processor could come between them), and
//! the executor switches only between states and after failed lock
//! attempts.
//!
//! Memory layout (our choice): block 0 is the end-of-search flag, block 1
//! the split-point variable and its lock (PV splitting: the published PV
//! node), block 2 the global node heap and its lock (all three homed at
//! processor 0); block `3 + p` is processor p's private data and local heap
//! (home p); block `3 + P + p` is processor p's mailbox (home p; work
//! stealing and active splitting); block `3 + 2P` the set of idle
//! processors (home 0; active splitting); node k lives in block
//! `3 + 2P + 1 + k`, homed at processor `k mod P`.
//!
//! A processor that waits for a block to change (PV splitting's and the
//! mailboxes' waits) spins on its cached copy, which costs nothing until
//! another processor writes the block: the engine puts it to sleep
//! (`Machine::wait_for_write`) and wakes it when the write is served.
//!
//! A request refused by a busy block parks its processor: the executor
//! issues it again at the processor's turns without resuming its routine.
//! The turns of processors parked at one block at one clock (dozens to a
//! thousand spinners on a test-and-set lock) are taken together where the
//! block alone decides them, with the same result as one by one
//! (`pass_waiters`; `docs/decisions.md`, "Shared-memory simulator").
//!
//! ## The rooms
//!
//! - `spec`: what a run is asked to do: [`MachineSpec`] (with
//!   [`Interleave`] and [`LockKind`], the machine's own options, which a
//!   [`Request`](crate::request::Request) carries), the state costs
//!   ([`cost`]) and [`SimError`].
//! - `stats`: what a run measured: [`State`] (the time buckets), [`TimeKind`],
//!   [`TreeStats`], [`TraceEvent`].
//! - `machine`: [`Machine`], its shared data (`World`), the run loop
//!   ([`Machine::run`]), [`simulate`], and [`SimIdle`], what the machine
//!   asks of an idle policy.
//! - `record`: the run's observer, [`Recorder`] (a trace; [`NoRecord`],
//!   the default, is compiled out).
//! - `executor`: the scheduling points: [`Suspend`], [`AccessFuture`],
//!   access steps, the grouped turns of waiters, charging and booking.
//! - `locks`: test-and-set and queue locks.
//! - `heap`: the search's nodes, their links and the node heaps.
//! - `states`: the thesis's states, one routine each.
//! - `types`: what the machine and the rooms above all name: the search's
//!   node (`SNode`, `NodeRef`), the state a routine hands over to
//!   ([`Next`]), an access's turn (`Step`), the queue locks' hasher. No
//!   room reaches itself through the others: the machine names only this
//!   file, `spec` and `stats`; the rooms name the machine.
//! - `idle`: the idle state's hand-over to the machine's policy, and what
//!   every policy may use; the policies' idle loops are each policy's own
//!   file in [`crate::policy`].

pub(crate) mod executor;
pub(crate) mod heap;
mod idle;
pub(crate) mod locks;
pub(crate) mod machine;
pub(crate) mod record;
pub(crate) mod spec;
pub(crate) mod states;
pub(crate) mod stats;
#[cfg(test)]
pub(crate) mod testkit;
pub(crate) mod types;

pub use executor::{AccessFuture, Suspend};
pub use machine::{Machine, SimIdle, simulate, simulate_recorded};
pub use record::{NoRecord, Recorder};
pub use spec::{Interleave, LockKind, MachineSpec, Result, SimError, cost};
pub use stats::{State, TimeKind, TraceEvent, TreeStats};
pub use types::Next;

use super::memory::Block;
#[cfg(test)]
use std::cell::Cell;

/// No node (a link's end, an idle processor's node).
pub(crate) const NONE: u32 = u32::MAX;
/// The end-of-search flag (the memory layout is in the module's doc).
pub(crate) const FLAG_BLOCK: Block = 0;
/// The split-point variable and its lock (PV splitting: the published PV node).
pub(crate) const SPLIT_BLOCK: Block = 1;
/// The global node heap and its lock.
pub(crate) const HEAP_BLOCK: Block = 2;
/// Processor 0's private data and local heap; then the others', the
/// mailboxes, the idle set and the nodes.
pub(crate) const FIRST_PRIVATE: Block = 3;

#[cfg(test)]
thread_local! {
    /// Turns taken together by `pass_waiters` on this thread (a test shows they happen).
    pub(crate) static GROUPED: Cell<u64> = const { Cell::new(0) };
    /// Set by a test: every lock and unlock goes through its routine, the
    /// run the fast path must give again.
    pub(crate) static ROUTINE_LOCKS: Cell<bool> = const { Cell::new(false) };
}
