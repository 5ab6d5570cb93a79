//! Active splitting as in engines (Crafty; [`Idle::Active`](crate::sim::engine::Idle)):
//! idle processors wait in their mailboxes; a working processor at an
//! eligible node deep enough recruits them (an alternative to the thesis's
//! idle loop of §6.2; `docs/model.md` §5.2).

use crate::game::TreeSource;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::states::Next;
use crate::sim::engine::stats::Kind;
use crate::sim::memory::Proc;
use crate::sim::schemes::Scheme;

impl<'a, T: TreeSource, S: Scheme> Machine<'a, T, S> {
    /// Active splitting's idle loop: register as idle, then wait in the
    /// mailbox until a working processor recruits us to a node.
    pub(in crate::sim::engine) async fn idle_active(&self, p: Proc) -> Next {
        let ib = self.idle_block();
        self.lock(p, ib).await;
        {
            let mut w = self.w.borrow_mut();
            w.idle_set[p] = true;
            w.idle_count += 1;
        }
        self.unlock(p, ib).await;
        loop {
            if self.search_over(p).await {
                return Next::Exit;
            }
            let mb = self.mbox(p);
            self.read(p, mb).await;
            let assigned = self.w.borrow().inbox[p];
            if let Some(Some((n, _))) = assigned {
                self.write(p, mb).await;
                self.w.borrow_mut().inbox[p] = None;
                // The recruiter counted us in: the node stays allocated.
                self.lock(p, self.blk(n)).await;
                return Next::Search(n);
            }
            self.wait_for_write(p, mb, Kind::Work).await;
        }
    }
}
