//! What the tests of the policies on the simulated machine share: the
//! engine's test kit (`crate::sim::engine::testkit`), the machine's
//! settings with the registry's policies, scheme A1, and the policies
//! beside the thesis's.

pub(crate) use crate::policy::{Active, Dts, Policy, PvSplit, Scheme, Steal, Walk};
pub(crate) use crate::sim::engine::testkit::*;

/// The machine's settings with the registry's policies.
pub(crate) type Spec = MachineSpec<Policy>;

/// Scheme A with m_A = 1, the engine tests' scheme (its rule is given as
/// `YbwcSplit { m_a: 1, pv_wait: 1 }`).
pub(crate) const A1: Scheme = Scheme::A { m_a: 1, pv_wait: 1 };

/// The thesis's search with scheme A1 and `walk`.
pub(crate) fn dts(walk: Walk) -> Policy {
    Policy::Dts(Dts { scheme: A1, walk })
}

pub(crate) fn new_policies() -> [Policy; 5] {
    [
        Policy::PvSplit(PvSplit),
        Policy::Steal(Steal { scheme: A1, seed: 1 }),
        Policy::Steal(Steal { scheme: A1, seed: 99 }),
        Policy::Active(Active { scheme: A1, min_split_depth: 1, split_group: 8 }),
        Policy::Active(Active { scheme: A1, min_split_depth: 2, split_group: 2 }),
    ]
}

pub(crate) fn traced(b: u32, depth: u32, procs: usize, algorithm: Policy) -> (i64, TreeStats) {
    let sh = shape(b, 100, 100);
    let root = Node { seed: 2024, pscore: ROOT_PSCORE as u32 };
    let want = search(&sh, &root, depth, &mut ()).value;
    let cfg = MachineSpec { policy: algorithm, trace: true, ..Spec::new(procs, depth) };
    (want, simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap())
}
