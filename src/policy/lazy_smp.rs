//! Lazy SMP as in engines today (Stockfish): every thread searches the
//! whole tree from the root, sharing only a lock-free transposition table;
//! helpers take the moves of shallow nodes in rotated orders. Real threads
//! only: the search is [`crate::real::lazy`], and the simulated machine,
//! which has no shared transposition table, refuses it.

use super::{Columns, ConfigError, IdlePolicy, PolicyOpt, Scheme};
use crate::game::TreeSource;
use crate::real::{Measured, Options, RealError, RealSearch};
use crate::schemes::SplitScheme;
use crate::sim::engine::{Machine, Next, Recorder, SimIdle};
use crate::sim::memory::Proc;

/// Why the simulator refuses Lazy SMP: the one line `pabsim` prints.
pub const LAZY_SMP_REAL_ONLY: &str = "lazy-smp runs on real threads only (psearch): the simulated machine has no shared transposition table";

/// Lazy SMP (no parameters: the table's size is the search's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LazySmp;

impl IdlePolicy for LazySmp {
    const DEFAULT: LazySmp = LazySmp;

    const NAME: &'static str = "lazy-smp";

    const ABOUT_SIMULATED: &'static str = "refused here: real threads only (psearch), the simulated machine has no shared transposition table";

    const ABOUT_REAL: &'static str = "Lazy SMP: every thread searches the whole tree, sharing a lock-free transposition table (real threads only)";

    fn reads(&self) -> &'static [PolicyOpt] {
        &[]
    }

    fn read(_c: &Columns, _scheme: Option<Scheme>) -> Result<LazySmp, ConfigError> {
        Ok(LazySmp)
    }
}

/// Lazy SMP is refused before any processor runs ([`SimIdle::simulated`]):
/// it never idles here.
impl SimIdle for LazySmp {
    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, _m: &Machine<'_, T, S, P, R>, _p: Proc) -> Next {
        Next::Exit
    }

    fn simulated(&self) -> Result<(), &'static str> {
        Err(LAZY_SMP_REAL_ONLY)
    }
}

/// Lazy SMP's real threads: no node is shared, so the scheme is never
/// consulted.
impl RealSearch for LazySmp {
    fn run_real<S: TreeSource, Sc: SplitScheme>(&self, src: &S, root: &S::Node, depth: u32, _scheme: &Sc, opts: &Options) -> Result<Measured, RealError>
    where
        Sc::Data: Send + Sync,
    {
        crate::real::lazy::run(src, root, depth, opts)
    }
}
