//! PV splitting on real threads ([`PvSplit`];
//! Marsland and Popowich): thread 0 goes down the principal variation; a
//! PV node is published once its first move has finished, and every idle
//! thread takes moves of the deepest published PV node still under way. A
//! thread with nothing left waits for the next publication rather than
//! look for work elsewhere: no other node is ever shared.

use super::RealSearch;
use crate::game::TreeSource;
use crate::policy::PvSplit;
use crate::real::heap::{self, HeapPolicy, NodeRef, Shared, Thread};
use crate::real::{Measured, Options, RealError};
use crate::schemes::SplitScheme;
use std::sync::Mutex;
use std::sync::atomic::Ordering::Acquire;

impl RealSearch for PvSplit {
    fn run_real<S: TreeSource, Sc: SplitScheme>(&self, src: &S, root: &S::Node, depth: u32, scheme: &Sc, opts: &Options) -> Result<Measured, RealError>
    where
        Sc::Data: Send + Sync,
    {
        heap::run(src, root, depth, scheme, self, opts)
    }
}

/// The published PV nodes, deepest last.
pub struct Published<S: TreeSource, D> {
    stack: Mutex<Vec<NodeRef<S, D, PvSplit>>>,
}

impl<S: TreeSource, D> HeapPolicy<S, D> for PvSplit {
    type Shared = Published<S, D>;
    type ThreadState = ();
    /// Published already.
    type NodeState = bool;

    fn start(&self, threads: usize, _root_key: u64) -> (Published<S, D>, Vec<()>) {
        (Published { stack: Mutex::new(vec![]) }, vec![(); threads])
    }

    /// A PV node whose first move has finished is published, once.
    fn share<Sc: SplitScheme<Data = D>>(
        sh: &Shared<'_, S, Sc, PvSplit>,
        th: &mut Thread<S, D, PvSplit>,
        x: &NodeRef<S, D, PvSplit>,
        st: &mut crate::real::heap::HState<S, D, PvSplit>,
    ) {
        if x.pv && st.finished >= 1 && !st.policy {
            st.policy = true;
            th.l.lock(&sh.policy.stack).push(x.clone());
        }
    }

    /// An idle thread: the deepest published PV node not yet done (the
    /// thread joins it if it still has moves; else it waits and asks again).
    fn find<Sc: SplitScheme<Data = D>>(sh: &Shared<'_, S, Sc, PvSplit>, th: &mut Thread<S, D, PvSplit>) -> Option<NodeRef<S, D, PvSplit>> {
        let mut s = th.l.lock(&sh.policy.stack);
        while s.last().is_some_and(|x| x.done.load(Acquire)) {
            s.pop();
        }
        s.last().cloned()
    }
}
