//! PV splitting (Marsland and Popowich; an alternative to the thesis's idle
//! loop of §6.2, `docs/beyond.md`): one processor or thread goes down the
//! principal variation; a PV node is published once its first move has
//! finished, and every idle one takes moves of the published PV node (the
//! deepest still under way, on real threads). One with nothing left waits
//! for the next publication rather than look for work elsewhere: no other
//! node is ever shared, and the scheme is never consulted.

use super::{Columns, ConfigError, IdlePolicy, PolicyOpt, Scheme};
use crate::game::TreeSource;
use crate::real::RealSearch;
use crate::real::heap::{self, HeapPolicy, NodeRef, Shared, Thread};
use crate::real::{Measured, Options, RealError};
use crate::schemes::SplitScheme;
use crate::sim::engine::SPLIT_BLOCK;
use crate::sim::engine::SimIdle;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::record::Recorder;
use crate::sim::engine::stats::TimeKind;
use crate::sim::engine::types::Next;
use crate::sim::memory::Proc;
use std::sync::Mutex;
use std::sync::atomic::Ordering::Acquire;

/// PV splitting (no parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PvSplit;

impl IdlePolicy for PvSplit {
    const DEFAULT: PvSplit = PvSplit;

    const NAME: &'static str = "pvsplit";

    const ABOUT_SIMULATED: &'static str = "PV splitting: all processors share each PV node's moves once its first is searched, and wait for the next PV node";

    const ABOUT_REAL: &'static str = "PV splitting: all threads share each PV node's moves once its first is searched, and wait for the next PV node";

    fn reads(&self) -> &'static [PolicyOpt] {
        &[]
    }

    fn read(_c: &Columns, _scheme: Option<Scheme>) -> Result<PvSplit, ConfigError> {
        Ok(PvSplit)
    }
}

// ---- on the simulated machine ------------------------------------------------

impl SimIdle for PvSplit {
    fn updates(&self) -> bool {
        true
    }

    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
        idle_pvsplit(m, p).await
    }

    /// A PV node whose first move has just finished is published.
    async fn updated<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
        publish_pv(m, p, c).await
    }
}

/// PV splitting: a PV node (locked) whose first move has just finished
/// and that still has moves to hand out is published for all.
async fn publish_pv<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
    let at = {
        let w = m.w.borrow();
        let n = &w.nodes[c as usize];
        (n.pv && n.fini == 1 && n.open()).then_some((c, n.generation))
    };
    if at.is_some() {
        m.write(p, SPLIT_BLOCK).await;
        m.w.borrow_mut().split_var = at;
    }
}

/// PV splitting's idle loop: join the published PV node while it has
/// moves to hand out; else wait for the next publication (no work
/// elsewhere).
async fn idle_pvsplit<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
    loop {
        if m.search_over(p).await {
            return Next::Exit;
        }
        m.read(p, SPLIT_BLOCK).await;
        let seen = m.w.borrow().split_var;
        if let Some((n, g)) = seen {
            m.read(p, m.blk(n)).await;
            if m.valid((n, g)) {
                m.lock(p, m.blk(n)).await;
                if m.join((n, g)) {
                    return Next::Search(n);
                }
                m.unlock(p, m.blk(n)).await;
            }
        }
        // Published meanwhile: look again rather than wait.
        if m.w.borrow().split_var == seen {
            m.wait_for_write(p, SPLIT_BLOCK, TimeKind::Work).await;
        }
    }
}

// ---- on real threads ---------------------------------------------------------

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

#[cfg(test)]
mod tests {
    use super::PvSplit;
    use crate::policy::testkit::*;

    /// PV splitting, 2 processors, a depth-2 tree of branching 3 whose first
    /// move is always best (so nodes 2 and 3 are cut off after one leaf).
    /// P0 goes down the PV alone: root, node 1, leaf 1.1. When leaf 1.1 is
    /// back, node 1 is published (P0's update of node 1) and P1, idle until
    /// then, joins it: P0 evaluates 1.2, P1 1.3. The root is published only
    /// when node 1 has finished (P1, last out, carries it up); then root
    /// moves 2 and 3 go one to each processor, and each is searched whole
    /// by its processor.
    #[test]
    fn pv_splitting_by_hand() {
        let (want, r) = traced(3, 2, 2, Policy::PvSplit(PvSplit));
        assert_eq!(r.value, want);
        assert_eq!(leaves(&r), [("1.1", 0), ("1.2", 0), ("1.3", 1), ("2.1", 1), ("3.1", 0)]);
        let update_1 = r.trace.iter().find(|e| e.state == State::Update && e.node.as_deref() == Some("1")).unwrap();
        let p1 = first_work(&r, 1);
        assert_eq!((p1.state, p1.node.as_deref()), (State::Search, Some("1")));
        assert!(update_1.proc == 0 && p1.t > update_1.t);
        // Nobody starts a root move other than the first before node 1 is done.
        let node_1_done = r.trace.iter().filter(|e| e.state == State::Update && e.node.as_deref() == Some("")).map(|e| e.t).min().unwrap();
        let node_1_last = r.trace.iter().filter(|e| e.node.as_deref().is_some_and(|n| n.starts_with('1'))).map(|e| e.t).max().unwrap();
        assert!(node_1_done > node_1_last);
        assert!(r.trace.iter().filter(|e| e.node.as_deref().is_some_and(|n| n.starts_with('2') || n.starts_with('3'))).all(|e| e.t > node_1_done));
    }
}
