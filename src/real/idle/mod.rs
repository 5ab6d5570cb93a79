//! The idle policies on real threads: [`RealSearch`], which each policy of
//! [`crate::policy`] implements in a file of its own here (Lazy SMP in
//! [`super::lazy`]); the split-based ones through the shared node heap,
//! whose [`HeapPolicy`](super::heap::HeapPolicy) each implements with its
//! own state: how an idle thread finds a heap node to join, and what a
//! working thread does for the idle ones (the simulator's counterpart:
//! `sim::engine::idle`; `docs/model.md` §8.3).
//!
//! - [`dts`]: the thesis's DTS-like search (the split-point variable under
//!   a lock, refilled by a split-point search of the heap; schemes A, B, C);
//! - [`pv_split`]: PV splitting;
//! - [`steal`]: YBWC with work stealing (crossbeam-deque);
//! - [`active`]: active splitting (idle threads wait to be recruited).

pub mod active;
pub mod dts;
pub mod pv_split;
pub mod steal;

use super::{Measured, Options, RealError};
use crate::game::TreeSource;
use crate::schemes::SplitScheme;

/// A policy on real threads: implemented by every type of
/// [`crate::policy`], each in its file of this folder.
pub trait RealSearch {
    /// Searches `src` from `root` to `depth` on `opts.threads` threads,
    /// split points chosen by `scheme`'s rules where the policy consults
    /// them.
    fn run_real<S: TreeSource, Sc: SplitScheme>(&self, src: &S, root: &S::Node, depth: u32, scheme: &Sc, opts: &Options) -> Result<Measured, RealError>
    where
        Sc::Data: Send + Sync;
}
