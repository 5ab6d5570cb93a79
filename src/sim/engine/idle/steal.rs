//! YBWC with work stealing (Feldmann; [`Steal`](crate::policy::Steal)):
//! an idle processor asks a random victim through its mailbox; the victim
//! answers at its next node with the highest eligible node of its own part
//! of the tree, or "no work" (an alternative to the thesis's idle loop of
//! §6.2; `docs/beyond.md`).

use super::SimIdle;
use crate::game::TreeSource;
use crate::policy::Steal;
use crate::schemes::SplitScheme;
use crate::sim::engine::NONE;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::record::Recorder;
use crate::sim::engine::stats::TimeKind;
use crate::sim::engine::types::Next;
use crate::sim::engine::types::NodeRef;
use crate::sim::memory::Proc;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

impl SimIdle for Steal {
    fn mailboxes(&self) -> bool {
        true
    }

    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
        m.idle_steal(p, self.seed).await
    }

    /// A thief's request is answered.
    async fn share_work<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
        m.answer_thief(p, c).await
    }
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// Work stealing's idle loop: send a request to a random victim, wait
    /// for its answer (answering other thieves' requests with "no work"
    /// meanwhile); start at the node offered, or try another victim.
    pub(in crate::sim::engine) async fn idle_steal(&self, p: Proc, seed: u64) -> Next {
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
                if w.rng.is_empty() {
                    // One stream per processor, from the seed and the tree's root key.
                    let key = self.src.root_key(&self.root_node);
                    w.rng = (0..procs)
                        .map(|q| {
                            let mut r = ChaCha8Rng::seed_from_u64(seed ^ (key << 32));
                            r.set_stream(q as u64);
                            r
                        })
                        .collect();
                }
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
                self.wait_for_write(p, mb, TimeKind::Work).await;
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

    /// The working processor's side: a thief's request in `p`'s mailbox
    /// is answered, at node `c` (locked, about to hand out a move), with
    /// `p`'s offer.
    pub(in crate::sim::engine) async fn answer_thief(&self, p: Proc, c: u32) {
        let mb = self.mbox(p);
        self.read(p, mb).await;
        if self.w.borrow().requests[p].is_none() {
            return;
        }
        self.lock(p, mb).await;
        let r = self.w.borrow_mut().requests[p].take();
        self.unlock(p, mb).await;
        let Some(r) = r else { return };
        let offer = self.offer(p, c).await;
        self.write(p, self.mbox(r)).await;
        self.w.borrow_mut().inbox[r] = Some(offer);
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::engine::testkit::*;

    /// Work stealing, the same tree. P1's requests reach P0 while nothing is
    /// eligible and are answered "no work", until P0, at node 1 after leaf
    /// 1.1, offers node 1 (its highest node whose eldest brother is
    /// searched: the root's first move is not back yet). P1 evaluates 1.3,
    /// finishes node 1 last and carries it up to the root, where it takes
    /// move 2; P0, idle, steals the root from P1 and takes move 3.
    #[test]
    fn work_stealing_by_hand() {
        let (want, r) = traced(3, 2, 2, Policy::Steal(Steal { scheme: A1, seed: 5 }));
        assert_eq!(r.value, want);
        assert_eq!(leaves(&r), [("1.1", 0), ("1.2", 0), ("1.3", 1), ("2.1", 1), ("3.1", 0)]);
        let p1 = first_work(&r, 1);
        assert_eq!((p1.state, p1.node.as_deref()), (State::Search, Some("1")));
        let p0_idle = r.trace.iter().find(|e| e.proc == 0 && e.state == State::Split).unwrap();
        let p0_back = r.trace.iter().find(|e| e.proc == 0 && e.t > p0_idle.t && e.state != State::Split).unwrap();
        assert_eq!((p0_back.state, p0_back.node.as_deref()), (State::Search, Some("")));
    }
}
