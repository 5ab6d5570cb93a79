//! The thesis's DTS-like search (thesis §6.2, Figure 6.12; `docs/model.md`
//! §5.3–5.4): one split-point variable under a lock. An idle processor or
//! thread takes the lock; if the variable holds a node that is still valid
//! (not done, moves left, still eligible under the scheme) it joins it;
//! otherwise, still holding the lock, it searches the allocated tree (the
//! simulated machine) or the node heap (real threads) for a split point,
//! breadth-first from the root, keeps the best eligible one by the shared
//! preference order ([`Candidate::better`](crate::schemes::Candidate::better)), stores it in the variable and
//! joins it. With [`Walk::Level`] the search stops after the first level
//! that has an eligible node. The simulated processor that finds none
//! unlocks and pauses 36 ticks; the other idle threads wait on the lock
//! meanwhile: the thesis's serial bottleneck, measured as lock time.

use super::{Columns, ConfigError, DEFAULT_M_A, DEFAULT_PV_WAIT, Given, IdlePolicy, PolicyOpt, Scheme, Walk};

/// The DTS-like search: `scheme` says which nodes may be split points,
/// `walk` how far a split-point search walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dts {
    /// Which nodes may be split points.
    pub scheme: Scheme,
    /// How far a split-point search walks.
    pub walk: Walk,
}

impl IdlePolicy for Dts {
    const DEFAULT: Dts = Dts { scheme: Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT }, walk: Walk::Tree };

    const NAME: &'static str = "dts";

    const ABOUT_SIMULATED: &'static str =
        "the thesis's: idle processors take the split-point variable's lock and search the tree for a split point (--scheme, --split-walk)";

    const ABOUT_REAL: &'static str =
        "the thesis's: idle threads take the split-point variable's lock and search the node heap for a split point (--scheme, --split-walk)";

    fn reads(&self) -> &'static [PolicyOpt] {
        &[PolicyOpt::Scheme, PolicyOpt::SplitWalk]
    }

    fn scheme(&self) -> Option<Scheme> {
        Some(self.scheme)
    }

    fn with_scheme(self, scheme: Scheme) -> Dts {
        Dts { scheme, ..self }
    }

    fn write(&self, c: &mut Columns) {
        c.split_walk = self.walk.name().into();
    }

    fn read(c: &Columns, scheme: Option<Scheme>) -> Result<Dts, ConfigError> {
        Ok(Dts { scheme: scheme.ok_or_else(|| Columns::bad("policy dts without a scheme"))?, walk: c.split_walk.parse()? })
    }

    fn variants(self, given: &Given) -> Vec<Dts> {
        vec![Dts { walk: given.walk, ..self }]
    }
}
