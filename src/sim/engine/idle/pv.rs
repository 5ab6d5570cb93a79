//! PV splitting (Marsland and Popowich; [`Idle::PvSplit`](crate::sim::engine::Idle)):
//! the PV node whose first move is searched is published in the
//! split-point variable, and idle processors join it or wait for the next
//! publication (an alternative to the thesis's idle loop of §6.2;
//! `docs/model.md` §5.2).

use crate::game::TreeSource;
use crate::sim::engine::SPLIT_BLOCK;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::states::Next;
use crate::sim::engine::stats::Kind;
use crate::sim::memory::Proc;
use crate::sim::schemes::Scheme;

impl<'a, T: TreeSource, S: Scheme> Machine<'a, T, S> {
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
    pub(in crate::sim::engine) async fn idle_pv(&self, p: Proc) -> Next {
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
                self.wait_for_write(p, SPLIT_BLOCK, Kind::Work).await;
            }
        }
    }
}
