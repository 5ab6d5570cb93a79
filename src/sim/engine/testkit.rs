//! What the engine's tests share: the artificial trees they search, the
//! idle policies beside the thesis's, and readers of traced runs.

pub(super) use super::{Interleave, LockKind, MachineSpec, SimError, State, TimeKind, TraceEvent, TreeStats, simulate};
pub(super) use crate::policy::{Active, Dts, Policy, PvSplit, Scheme, Steal, Walk};
pub(super) use crate::schemes::{ConfidenceSplit, YbwcSplit};
pub(super) use crate::search::search;
pub(super) use crate::tree::artificial::{Model, Node, Ordering, Shape};
pub(super) use crate::value::ROOT_PSCORE;

pub(super) fn shape(b: u32, wa: u32, wb: u32) -> Shape {
    Shape::new(Model::Exponential, Ordering::new(b, wa, wb).unwrap()).unwrap()
}

/// The machine's settings with the registry's policies.
pub(super) type Spec = MachineSpec<Policy>;

/// Scheme A with m_A = 1, the engine tests' scheme (its rule is given as
/// `YbwcSplit { m_a: 1, pv_wait: 1 }`).
pub(super) const A1: Scheme = Scheme::A { m_a: 1, pv_wait: 1 };

/// The thesis's search with scheme A1 and `walk`.
pub(super) fn dts(walk: Walk) -> Policy {
    Policy::Dts(Dts { scheme: A1, walk })
}

pub(super) fn new_policies() -> [Policy; 5] {
    [
        Policy::PvSplit(PvSplit),
        Policy::Steal(Steal { scheme: A1, seed: 1 }),
        Policy::Steal(Steal { scheme: A1, seed: 99 }),
        Policy::Active(Active { scheme: A1, min_split_depth: 1, split_group: 8 }),
        Policy::Active(Active { scheme: A1, min_split_depth: 2, split_group: 2 }),
    ]
}

pub(super) fn traced(b: u32, depth: u32, procs: usize, algorithm: Policy) -> (i64, TreeStats) {
    let sh = shape(b, 100, 100);
    let root = Node { seed: 2024, pscore: ROOT_PSCORE as u32 };
    let want = search(&sh, &root, depth, &mut ()).value;
    let cfg = MachineSpec { policy: algorithm, trace: true, ..Spec::new(procs, depth) };
    (want, simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap())
}

/// The leaves each processor evaluated, in order of time.
pub(super) fn leaves(r: &TreeStats) -> Vec<(&str, usize)> {
    r.trace.iter().filter(|e| e.state == State::Eval).map(|e| (e.node.as_deref().unwrap_or("?"), e.proc)).collect()
}

/// The first state entry of processor `q` outside the idle loop.
pub(super) fn first_work(r: &TreeStats, q: usize) -> &TraceEvent {
    r.trace.iter().find(|e| e.proc == q && e.state != State::Split).unwrap()
}
