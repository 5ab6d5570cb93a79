//! PV splitting (Marsland and Popowich; [`PvSplit`](crate::policy::PvSplit)):
//! the PV node whose first move is searched is published in the
//! split-point variable, and idle processors join it or wait for the next
//! publication (an alternative to the thesis's idle loop of §6.2;
//! `docs/beyond.md`).

use super::SimIdle;
use crate::game::TreeSource;
use crate::policy::PvSplit;
use crate::schemes::SplitScheme;
use crate::sim::engine::SPLIT_BLOCK;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::record::Recorder;
use crate::sim::engine::stats::TimeKind;
use crate::sim::engine::types::Next;
use crate::sim::memory::Proc;

impl SimIdle for PvSplit {
    fn updates(&self) -> bool {
        true
    }

    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
        m.idle_pvsplit(p).await
    }

    /// A PV node whose first move has just finished is published.
    async fn updated<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
        m.publish_pv(p, c).await
    }
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// PV splitting: a PV node (locked) whose first move has just finished
    /// and that still has moves to hand out is published for all.
    pub(in crate::sim::engine) async fn publish_pv(&self, p: Proc, c: u32) {
        let at = {
            let w = self.w.borrow();
            let n = &w.nodes[c as usize];
            (n.pv && n.fini == 1 && n.open()).then_some((c, n.generation))
        };
        if at.is_some() {
            self.write(p, SPLIT_BLOCK).await;
            self.w.borrow_mut().split_var = at;
        }
    }

    /// PV splitting's idle loop: join the published PV node while it has
    /// moves to hand out; else wait for the next publication (no work
    /// elsewhere).
    pub(in crate::sim::engine) async fn idle_pvsplit(&self, p: Proc) -> Next {
        loop {
            if self.search_over(p).await {
                return Next::Exit;
            }
            self.read(p, SPLIT_BLOCK).await;
            let seen = self.w.borrow().split_var;
            if let Some((n, g)) = seen {
                self.read(p, self.blk(n)).await;
                if self.valid((n, g)) {
                    self.lock(p, self.blk(n)).await;
                    if self.join((n, g)) {
                        return Next::Search(n);
                    }
                    self.unlock(p, self.blk(n)).await;
                }
            }
            // Published meanwhile: look again rather than wait.
            if self.w.borrow().split_var == seen {
                self.wait_for_write(p, SPLIT_BLOCK, TimeKind::Work).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::engine::testkit::*;

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
