//! PABSim: the thesis's simulated cache-coherent shared-memory
//! multiprocessor and the DTS-like parallel alpha-beta search run on it
//! (thesis chapter 6; `docs/model.md` §5).
//!
//! - [`memory`]: caches, directory, delay tables, busy blocks, locks (§6.1).
//! - [`sched`]: per-processor clocks, smallest clock first (§6.1).
//! - [`engine`]: the search as per-processor state machines, nodes, heaps,
//!   bound propagation, the split state (§6.2).
//! - [`schemes`]: split-point selection, schemes A, B and C (§6.3).
//! - [`run`]: many (tree, configuration) items in parallel, results as rows.
//!
//! We chose explicit per-processor state machines over `async` coroutines:
//! the search has few states, each state is one atomic step at the
//! processor's clock, and a step is a plain function call (no executor, no
//! boxed futures), which keeps the simulator fast and its order of events
//! obvious. Determinism: one simulation is single-threaded; the scheduler's
//! choice depends only on the clocks and the round-robin position.

pub mod engine;
pub mod memory;
pub mod run;
pub mod sched;
pub mod schemes;
