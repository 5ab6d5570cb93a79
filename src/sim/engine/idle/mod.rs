//! The idle state (**split**, thesis Figure 6.12): the dispatch to the idle
//! policies, one file each, and what they share (joining a node, the
//! end-of-search flag, the mailboxes). A new policy is a variant of
//! [`Idle`], a file here with its idle loop (and, if working processors
//! must do something for idle ones, its hook in [`Machine::share_work`])
//! and its arms in the two `match`es below (`docs/model.md` §5.2).

mod active;
mod pv;
mod split_variable;
mod steal;

use super::heap::NodeRef;
use super::machine::Machine;
use super::spec::Idle;
use super::states::Next;
use super::stats::State;
use super::{FIRST_PRIVATE, FLAG_BLOCK, NONE};
use crate::game::TreeSource;
use crate::sim::memory::{Block, Proc};
use crate::sim::schemes::Scheme;

impl<'a, T: TreeSource, S: Scheme> Machine<'a, T, S> {
    // ---- the idle loop (thesis Figure 6.12) ------------------------------------------

    /// **split**: look for work until there is some or the search is over.
    pub(in crate::sim::engine) async fn idle(&self, p: Proc) -> Next {
        self.enter(p, State::Split, NONE).await;
        match self.cfg.idle {
            Idle::SplitVariable(walk) => self.idle_split_variable(p, walk).await,
            Idle::PvSplit => self.idle_pv(p).await,
            Idle::Steal { .. } => self.idle_steal(p).await,
            Idle::Active { .. } => self.idle_active(p).await,
        }
    }

    /// Under the node's lock: joins node `(n, g)` if it is still that
    /// allocation and still has moves to hand out.
    pub(in crate::sim::engine) fn join(&self, (n, g): NodeRef) -> bool {
        let mut w = self.w.borrow_mut();
        let x = &mut w.nodes[n as usize];
        let ok = x.is(g) && x.open();
        if ok {
            x.threads += 1;
        }
        ok
    }

    /// Whether the search is over: a read of the end-of-search flag.
    pub(in crate::sim::engine) async fn search_over(&self, p: Proc) -> bool {
        self.read(p, FLAG_BLOCK).await;
        self.w.borrow().flag
    }

    /// Processor `q`'s mailbox.
    #[inline(always)]
    pub(in crate::sim::engine) fn mbox(&self, q: Proc) -> Block {
        FIRST_PRIVATE + self.cfg.procs + q
    }

    /// The set of idle processors (active splitting).
    #[inline(always)]
    pub(in crate::sim::engine) fn idle_block(&self) -> Block {
        FIRST_PRIVATE + 2 * self.cfg.procs
    }

    /// What a working processor at node `c` (locked, about to hand out a
    /// move) does for idle ones: nothing for the thesis's idle loop and PV
    /// splitting; answer a thief's request (work stealing); recruit the
    /// idle processors to `c` (active splitting).
    pub(in crate::sim::engine) async fn share_work(&self, p: Proc, c: u32) {
        match self.cfg.idle {
            Idle::SplitVariable(_) | Idle::PvSplit => {}
            Idle::Steal { .. } => {
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
            Idle::Active { min_split_depth, group } => {
                let eligible = {
                    let w = self.w.borrow();
                    let n = &w.nodes[c as usize];
                    n.left >= 2 && n.threads < group && self.cfg.depth - n.ply >= min_split_depth && self.scheme.eligible(&n.view(), &n.data).is_some()
                };
                if !eligible {
                    return;
                }
                let ib = self.idle_block();
                self.read(p, ib).await;
                if self.w.borrow().idle_count == 0 {
                    return;
                }
                self.lock(p, ib).await;
                let (recruits, at) = {
                    let mut w = self.w.borrow_mut();
                    let w = &mut *w;
                    let n = &w.nodes[c as usize];
                    let room = (n.left as usize - 1).min((group as usize).saturating_sub(n.threads as usize));
                    let mut recruits = std::mem::take(&mut w.recruits);
                    recruits.clear();
                    for q in 0..self.cfg.procs {
                        if recruits.len() == room {
                            break;
                        }
                        if w.idle_set[q] {
                            w.idle_set[q] = false;
                            w.idle_count -= 1;
                            recruits.push(q);
                        }
                    }
                    let n = &mut w.nodes[c as usize];
                    n.threads += recruits.len() as u32;
                    (recruits, (c, n.generation))
                };
                self.unlock(p, ib).await;
                for &q in &recruits {
                    self.write(p, self.mbox(q)).await;
                    self.w.borrow_mut().inbox[q] = Some(Some(at));
                }
                self.w.borrow_mut().recruits = recruits;
            }
        }
    }

    #[inline(always)]
    pub(in crate::sim::engine) fn valid(&self, (n, g): NodeRef) -> bool {
        let w = self.w.borrow();
        let x = &w.nodes[n as usize];
        x.is(g) && x.open()
    }
}
