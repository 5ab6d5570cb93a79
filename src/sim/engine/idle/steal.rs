//! YBWC with work stealing (Feldmann; [`Idle::Steal`](crate::sim::engine::Idle)):
//! an idle processor asks a random victim through its mailbox; the victim
//! answers at its next node with the highest eligible node of its own part
//! of the tree, or "no work" (an alternative to the thesis's idle loop of
//! §6.2; `docs/model.md` §5.2).

use crate::game::TreeSource;
use crate::sim::engine::NONE;
use crate::sim::engine::heap::NodeRef;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::states::Next;
use crate::sim::engine::stats::Kind;
use crate::sim::memory::Proc;
use crate::sim::schemes::Scheme;
use rand_chacha::rand_core::Rng;

impl<'a, T: TreeSource, S: Scheme> Machine<'a, T, S> {
    /// Work stealing's idle loop: send a request to a random victim, wait
    /// for its answer (answering other thieves' requests with "no work"
    /// meanwhile); start at the node offered, or try another victim.
    pub(in crate::sim::engine) async fn idle_steal(&self, p: Proc) -> Next {
        let procs = self.cfg.procs;
        loop {
            if self.search_over(p).await {
                return Next::Exit;
            }
            self.read(p, self.mbox(p)).await;
            if self.w.borrow().requests[p].is_some() {
                self.refuse(p).await;
            }
            let v = {
                let mut w = self.w.borrow_mut();
                let k = w.rng[p].next_u64() % (procs as u64 - 1).max(1);
                (p + 1 + k as usize) % procs
            };
            let vb = self.mbox(v);
            self.lock(p, vb).await;
            let sent = {
                let mut w = self.w.borrow_mut();
                let free = w.requests[v].is_none();
                if free {
                    w.requests[v] = Some(p);
                }
                free
            };
            self.unlock(p, vb).await;
            if !sent {
                continue;
            }
            loop {
                let mb = self.mbox(p);
                self.read(p, mb).await;
                let (answer, asked) = {
                    let w = self.w.borrow();
                    (w.inbox[p], w.requests[p].is_some())
                };
                if asked {
                    self.refuse(p).await;
                    continue;
                }
                if let Some(offer) = answer {
                    self.write(p, mb).await;
                    self.w.borrow_mut().inbox[p] = None;
                    if let Some((n, _)) = offer {
                        // The victim counted us in: the node stays allocated.
                        self.lock(p, self.blk(n)).await;
                        return Next::Search(n);
                    }
                    break;
                }
                self.wait_for_write(p, mb, Kind::Work).await;
            }
        }
    }

    /// Answers the request in `p`'s mailbox with "no work".
    pub(in crate::sim::engine) async fn refuse(&self, p: Proc) {
        let mb = self.mbox(p);
        self.lock(p, mb).await;
        let r = self.w.borrow_mut().requests[p].take();
        self.unlock(p, mb).await;
        if let Some(r) = r {
            self.write(p, self.mbox(r)).await;
            self.w.borrow_mut().inbox[r] = Some(None);
        }
    }

    /// Work stealing's offer: the highest eligible node of `p`'s own part
    /// of the tree, walking up from `c` (locked) to the first node others
    /// work at too (each node read, 1 tick); the thief is counted in at it.
    pub(in crate::sim::engine) async fn offer(&self, p: Proc, c: u32) -> Option<NodeRef> {
        let mut best = None;
        let mut x = c;
        loop {
            if x != c {
                self.read(p, self.blk(x)).await;
            }
            self.work(p, 1).await;
            let (shared, parent) = {
                let w = self.w.borrow();
                let n = &w.nodes[x as usize];
                let room = if x == c { n.left >= 2 } else { n.open() };
                if room && self.scheme.eligible(&n.view(), &n.data).is_some() {
                    best = Some((x, n.generation));
                }
                (n.threads > 1, n.parent)
            };
            if shared || parent == NONE {
                break;
            }
            x = parent;
        }
        let (n, g) = best?;
        if n == c {
            self.w.borrow_mut().nodes[c as usize].threads += 1;
            return best;
        }
        self.lock(p, self.blk(n)).await;
        let ok = self.join((n, g));
        self.unlock(p, self.blk(n)).await;
        ok.then_some((n, g))
    }
}
