//! The thesis's DTS-like search on real threads ([`Algorithm::Dts`](crate::algorithm::Algorithm),
//! thesis §6.2, Figure 6.12): one split-point variable under a lock. An
//! idle thread takes the lock; if the variable holds a node that is still
//! valid (not done, moves left, still eligible under the scheme) the
//! thread joins it; otherwise, still holding the lock, it searches the
//! heap for a split point, breadth-first from the root over the heap
//! nodes, keeps the best eligible one by the simulator's preference order
//! ([`Candidate::better`]), stores it in the variable and joins it. With
//! [`Walk::Level`] the search stops after the first level that has an
//! eligible node. The other idle threads wait on the lock meanwhile: the
//! thesis's serial bottleneck, measured here as lock time.

use super::heap::{HNode, Shared, Thread};
use crate::algorithm::Walk;
use crate::game::TreeSource;
use crate::sim::schemes::{Candidate, SplitScheme};
use std::sync::{Arc, Mutex};

/// The split-point variable.
pub struct SplitVar<S: TreeSource, D> {
    var: Mutex<Option<Arc<HNode<S, D>>>>,
    walk: Walk,
}

impl<S: TreeSource, D> SplitVar<S, D> {
    /// An empty variable; split-point searches walk as `walk` says.
    pub fn new(walk: Walk) -> SplitVar<S, D> {
        SplitVar { var: Mutex::new(None), walk }
    }

    /// An idle thread: the variable's node if still valid, else the split
    /// point a search of the heap finds (stored for the next thread).
    pub fn find<Sc: SplitScheme<Data = D>>(&self, sh: &Shared<'_, S, Sc>, th: &mut Thread<S, D>) -> Option<Arc<HNode<S, D>>>
    where
        D: Send + Sync,
    {
        let root = sh.root.get()?;
        let mut var = th.l.lock(&self.var);
        if let Some(x) = var.as_ref() {
            let st = th.l.lock(&x.st);
            if x.open(&st) && x.alive() && sh.eligible(x, &st).is_some() {
                drop(st);
                return Some(x.clone());
            }
        }
        // The split-point search.
        let mut best: Option<(Candidate, Arc<HNode<S, D>>)> = None;
        let mut level = vec![root.clone()];
        while !level.is_empty() {
            let mut next = vec![];
            for n in level {
                let mut st = th.l.lock(&n.st);
                if n.done.load(std::sync::atomic::Ordering::Acquire) {
                    continue;
                }
                if n.open(&st)
                    && let Some(progress) = sh.eligible(&n, &st)
                {
                    let c = Candidate::new(n.ply, progress, st.moves - st.handed, st.moves);
                    if best.as_ref().is_none_or(|(b, _)| c.better(b)) {
                        best = Some((c, n.clone()));
                    }
                }
                // Heap children still under way (finished ones are dropped).
                st.kids.retain(|k| k.upgrade().is_some_and(|k| !k.done.load(std::sync::atomic::Ordering::Acquire)));
                next.extend(st.kids.iter().filter_map(|k| k.upgrade()));
            }
            if self.walk == Walk::Level && best.is_some() {
                break;
            }
            level = next;
        }
        *var = best.as_ref().map(|b| b.1.clone());
        best.map(|b| b.1)
    }
}
