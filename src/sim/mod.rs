//! PABSim: the thesis's simulated cache-coherent shared-memory
//! multiprocessor and the DTS-like parallel alpha-beta search run on it
//! (thesis chapter 6; `docs/model.md` §5).
//!
//! - [`memory`]: caches, directory, delay tables, busy blocks, locks (§6.1).
//! - [`sched`]: per-processor clocks, smallest clock first (§6.1).
//! - [`engine`]: the search, one routine per state, nodes, heaps, bound
//!   propagation, the idle loop, and the executor that interleaves them (§6.2).
//! - The split-point schemes it runs are [`crate::schemes`]' (shared with
//!   the real threads).
//! - Many (tree, configuration) items run in parallel, results as rows:
//!   [`crate::request::sim`], beside what a run is asked
//!   ([`crate::request`], shared with the real threads).
//!
//! Processors interleave at every memory access, as the thesis's fibers do:
//! each simulated processor is an `async` routine per state, every access,
//! lock attempt and state cost an `.await`, and a small executor of our own
//! resumes the processor with the smallest clock (see [`engine`] for why
//! `async` rather than hand-written state machines). Determinism: one
//! simulation is single-threaded; who runs next depends only on the clocks
//! and the round-robin position, and who is served by a freed block only on
//! the round-robin position of that block.

pub mod engine;
pub mod memory;
pub mod sched;
