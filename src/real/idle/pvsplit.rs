//! PV splitting on real threads ([`Algorithm::PvSplit`](crate::algorithm::Algorithm);
//! Marsland and Popowich): thread 0 goes down the principal variation; a
//! PV node is published once its first move has finished, and every idle
//! thread takes moves of the deepest published PV node still under way. A
//! thread with nothing left waits for the next publication rather than
//! look for work elsewhere: no other node is ever shared.

use crate::game::TreeSource;
use crate::real::heap::{NodeRef, Policy, Shared, Thread};
use crate::schemes::SplitScheme;
use std::sync::Mutex;
use std::sync::atomic::Ordering::Acquire;

/// PV splitting (no parameters).
#[derive(Clone, Copy, Debug)]
pub struct PvSplit;

/// The published PV nodes, deepest last.
pub struct Published<S: TreeSource, D> {
    stack: Mutex<Vec<NodeRef<S, D, PvSplit>>>,
}

impl<S: TreeSource, D> Policy<S, D> for PvSplit {
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
