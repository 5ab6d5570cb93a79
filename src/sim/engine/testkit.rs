//! What the engine's tests share: the artificial trees they search and
//! readers of traced runs (the policies they run with are
//! `crate::policy::testkit`'s).

pub(crate) use super::{Interleave, LockKind, MachineSpec, SimError, State, TimeKind, TraceEvent, TreeStats, simulate};
pub(crate) use crate::schemes::{ConfidenceSplit, YbwcSplit};
pub(crate) use crate::search::search;
pub(crate) use crate::tree::artificial::{Model, Node, Ordering, Shape};
pub(crate) use crate::value::ROOT_PSCORE;

pub(crate) fn shape(b: u32, wa: u32, wb: u32) -> Shape {
    Shape::new(Model::Exponential, Ordering::new(b, wa, wb).unwrap()).unwrap()
}

/// The leaves each processor evaluated, in order of time.
pub(crate) fn leaves(r: &TreeStats) -> Vec<(&str, usize)> {
    r.trace.iter().filter(|e| e.state == State::Eval).map(|e| (e.node.as_deref().unwrap_or("?"), e.proc)).collect()
}

/// The first state entry of processor `q` outside the idle loop.
pub(crate) fn first_work(r: &TreeStats, q: usize) -> &TraceEvent {
    r.trace.iter().find(|e| e.proc == q && e.state != State::Split).unwrap()
}
