//! PV splitting on real threads ([`Algorithm::PvSplit`](crate::algorithm::Algorithm);
//! Marsland and Popowich): thread 0 goes down the principal variation; a
//! PV node is published once its first move has finished, and every idle
//! thread takes moves of the deepest published PV node still under way. A
//! thread with nothing left waits for the next publication rather than
//! look for work elsewhere: no other node is ever shared.

use super::heap::{HNode, HState, Thread};
use crate::game::TreeSource;
use std::sync::atomic::Ordering::Acquire;
use std::sync::{Arc, Mutex};

/// The published PV nodes, deepest last.
pub struct Published<S: TreeSource, D> {
    stack: Mutex<Vec<Arc<HNode<S, D>>>>,
}

impl<S: TreeSource, D> Default for Published<S, D> {
    fn default() -> Self {
        Published { stack: Mutex::new(vec![]) }
    }
}

impl<S: TreeSource, D> Published<S, D> {
    /// Nothing published.
    pub fn new() -> Published<S, D> {
        Published::default()
    }

    /// A thread at `x` (locked in `st`) about to hand out a move with more
    /// left: a PV node whose first move has finished is published, once.
    pub fn share(&self, th: &mut Thread<S, D>, x: &Arc<HNode<S, D>>, st: &mut HState<S, D>) {
        if x.pv && st.finished >= 1 && !st.offered {
            st.offered = true;
            th.l.lock(&self.stack).push(x.clone());
        }
    }

    /// An idle thread: the deepest published PV node not yet done (the
    /// thread joins it if it still has moves; else it waits and asks again).
    pub fn find(&self, th: &mut Thread<S, D>) -> Option<Arc<HNode<S, D>>> {
        let mut s = th.l.lock(&self.stack);
        while s.last().is_some_and(|x| x.done.load(Acquire)) {
            s.pop();
        }
        s.last().cloned()
    }
}
