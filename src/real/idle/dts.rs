//! The thesis's DTS-like search on real threads ([`Dts`],
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

use super::RealSearch;
use crate::game::TreeSource;
use crate::policy::Dts;
use crate::policy::Walk;
use crate::real::heap::{self, HNode, HeapPolicy, NodeRef, Shared, Thread};
use crate::real::{Measured, Options, RealError};
use crate::schemes::{Candidate, SplitScheme};
use std::sync::atomic::Ordering::Acquire;
use std::sync::{Mutex, Weak};

impl RealSearch for Dts {
    fn run_real<S: TreeSource, Sc: SplitScheme>(&self, src: &S, root: &S::Node, depth: u32, scheme: &Sc, opts: &Options) -> Result<Measured, RealError>
    where
        Sc::Data: Send + Sync,
    {
        heap::run(src, root, depth, scheme, self, opts)
    }
}

/// The split-point variable.
pub struct SplitVar<S: TreeSource, D> {
    var: Mutex<Option<NodeRef<S, D, Dts>>>,
    walk: Walk,
}

impl<S: TreeSource, D> HeapPolicy<S, D> for Dts {
    type Shared = SplitVar<S, D>;
    type ThreadState = ();
    /// The node's children that are heap nodes, for the split-point search.
    type NodeState = Vec<Weak<HNode<S, D, Dts>>>;

    fn start(&self, threads: usize, _root_key: u64) -> (SplitVar<S, D>, Vec<()>) {
        (SplitVar { var: Mutex::new(None), walk: self.walk }, vec![(); threads])
    }

    fn made(th: &mut Thread<S, D, Dts>, x: &NodeRef<S, D, Dts>, child: &NodeRef<S, D, Dts>) {
        th.l.lock(&x.st).policy.push(std::sync::Arc::downgrade(child));
    }

    /// An idle thread: the variable's node if still valid, else the split
    /// point a search of the heap finds (stored for the next thread).
    fn find<Sc: SplitScheme<Data = D>>(sh: &Shared<'_, S, Sc, Dts>, th: &mut Thread<S, D, Dts>) -> Option<NodeRef<S, D, Dts>> {
        let root = sh.root.get()?;
        let mut var = th.l.lock(&sh.policy.var);
        if let Some(x) = var.as_ref() {
            let st = th.l.lock(&x.st);
            if x.open(&st) && x.alive() && sh.eligible(x, &st).is_some() {
                drop(st);
                return Some(x.clone());
            }
        }
        // The split-point search.
        let mut best: Option<(Candidate, NodeRef<S, D, Dts>)> = None;
        let mut level = vec![root.clone()];
        while !level.is_empty() {
            let mut next = vec![];
            for n in level {
                let mut st = th.l.lock(&n.st);
                if n.done.load(Acquire) {
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
                st.policy.retain(|k| k.upgrade().is_some_and(|k| !k.done.load(Acquire)));
                next.extend(st.policy.iter().filter_map(|k| k.upgrade()));
            }
            if sh.policy.walk == Walk::Level && best.is_some() {
                break;
            }
            level = next;
        }
        *var = best.as_ref().map(|b| b.1.clone());
        best.map(|b| b.1)
    }
}
