//! YBWC with work stealing (Feldmann; an alternative to the thesis's idle
//! loop of §6.2, `docs/beyond.md`).
//!
//! **Simulated**: an idle processor asks a random victim through its
//! mailbox; the victim answers at its next node with the highest eligible
//! node of its own part of the tree, or "no work".
//!
//! **Real threads**, with crossbeam-deque's work-stealing deques: a thread
//! at a node that the scheme makes eligible pushes the node, once, on its
//! own deque (the young-brothers-wait rule is the scheme's: scheme A waits
//! for the first move). An idle thread pops its own deque first (newest,
//! the deepest of its nodes), then steals from the others', starting at a
//! victim chosen at random (ChaCha8 from the seed, the tree and the
//! thread's number), from the far end: the oldest node, highest in the
//! tree. A thread that steals a node with moves still left after its own
//! pushes it on its own deque, so that others may steal it from there.

use super::{Columns, ConfigError, DEFAULT_M_A, DEFAULT_PV_WAIT, DEFAULT_STEAL_SEED, Given, IdlePolicy, PolicyOpt, Scheme};

/// Work stealing: `scheme` says which nodes may be offered; the victims'
/// choice is seeded with `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Steal {
    /// Which nodes may be offered.
    pub scheme: Scheme,
    /// The seed of the victims' choice.
    pub seed: u64,
}

impl IdlePolicy for Steal {
    const DEFAULT: Steal = Steal { scheme: Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT }, seed: DEFAULT_STEAL_SEED };

    const NAME: &'static str = "steal";

    const ABOUT_SIMULATED: &'static str =
        "YBWC with work stealing: an idle processor asks a random victim (--steal-seed) for its highest eligible node (--scheme)";

    const ABOUT_REAL: &'static str =
        "YBWC with work stealing (crossbeam-deque): eligible nodes go on the owner's deque, idle threads steal from a random victim (--scheme, --steal-seed)";

    fn reads(&self) -> &'static [PolicyOpt] {
        &[PolicyOpt::Scheme, PolicyOpt::StealSeed]
    }

    fn scheme(&self) -> Option<Scheme> {
        Some(self.scheme)
    }

    fn with_scheme(self, scheme: Scheme) -> Steal {
        Steal { scheme, ..self }
    }

    fn write(&self, c: &mut Columns) {
        c.steal_seed = Some(self.seed);
    }

    fn read(c: &Columns, scheme: Option<Scheme>) -> Result<Steal, ConfigError> {
        Ok(Steal {
            scheme: scheme.ok_or_else(|| Columns::bad("policy steal without a scheme"))?,
            seed: c.steal_seed.ok_or_else(|| Columns::bad("policy steal without steal_seed"))?,
        })
    }

    fn variants(self, given: &Given) -> Vec<Steal> {
        vec![Steal { seed: given.steal_seed, ..self }]
    }
}
