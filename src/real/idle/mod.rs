//! The idle policies of the split-based real searches, one file each, and
//! the one place an [`Algorithm`] chooses its policy ([`run`]): how an idle
//! thread finds a heap node to join, and what a working thread does for
//! the idle ones (the simulator's counterpart: `sim::engine::idle`;
//! `docs/model.md` §8.3).
//!
//! Each policy implements [`Policy`](super::heap::Policy) with its
//! parameters, and keeps its state in its own types: what the threads
//! share, what each thread keeps, what each heap node keeps. A new policy
//! is a file here and its `mod` line and arm in [`run`].
//!
//! - [`dts`]: the thesis's DTS-like search (the split-point variable under
//!   a lock, refilled by a split-point search of the heap; schemes A, B, C);
//! - [`pvsplit`]: PV splitting;
//! - [`steal`]: YBWC with work stealing (crossbeam-deque);
//! - [`active`]: active splitting (idle threads wait to be recruited).

pub mod active;
pub mod dts;
pub mod pvsplit;
pub mod steal;

use super::heap;
use super::{Measured, Options, RealError};
use crate::algorithm::Algorithm;
use crate::game::TreeSource;
use crate::schemes::SplitScheme;

/// Searches `src` from `root` to `depth` with the split-based `algorithm`,
/// its split points chosen by `scheme`'s rules, on the shared heap.
pub fn run<S: TreeSource, Sc: SplitScheme>(
    src: &S,
    root: &S::Node,
    depth: u32,
    scheme: &Sc,
    algorithm: Algorithm,
    opts: &Options,
) -> Result<Measured, RealError>
where
    Sc::Data: Send + Sync,
{
    match algorithm {
        Algorithm::Dts { walk, .. } => heap::run(src, root, depth, scheme, &dts::Dts { walk }, opts),
        Algorithm::PvSplit => heap::run(src, root, depth, scheme, &pvsplit::PvSplit, opts),
        Algorithm::Steal { seed, .. } => heap::run(src, root, depth, scheme, &steal::Steal { seed }, opts),
        Algorithm::Active { min_split_depth, split_group, .. } => heap::run(src, root, depth, scheme, &active::Active { min_split_depth, split_group }, opts),
        // `super::search` runs Lazy SMP itself.
        Algorithm::LazySmp => Err(RealError::Internal("lazy-smp is not a split-based search".into())),
    }
}
