//! The idle state (**split**, thesis §6.2, Figure 6.12): the hand-over to
//! the machine's policy ([`SimIdle`], which each policy of
//! [`crate::policy`] implements in its own file: its idle loop, and what
//! working processors do for idle ones), and what every policy may use
//! (joining a node, the end-of-search flag, the mailboxes, the set of idle
//! processors; `docs/model.md` §5.3 and §5.7).

use super::machine::{Machine, SimIdle};
use super::stats::State;
use super::types::Next;
use super::types::NodeRef;
use super::{FIRST_PRIVATE, FLAG_BLOCK, NONE};
use crate::game::TreeSource;
use crate::schemes::SplitScheme;
use crate::sim::engine::record::Recorder;
use crate::sim::memory::{Block, Proc};

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// **split**: look for work until there is some or the search is over
    /// (the policy's idle loop, [`SimIdle::idle`]).
    pub(crate) async fn idle(&self, p: Proc) -> Next {
        self.enter(p, State::Split, NONE).await;
        self.cfg.policy.idle(self, p).await
    }

    /// Under the node's lock: joins node `(n, g)` if it is still that
    /// allocation and still has moves to hand out.
    pub(crate) fn join(&self, (n, g): NodeRef) -> bool {
        let mut w = self.w.borrow_mut();
        let x = &mut w.nodes[n as usize];
        let ok = x.is(g) && x.open();
        if ok {
            x.threads += 1;
        }
        ok
    }

    /// Whether the search is over: a read of the end-of-search flag.
    pub(crate) async fn search_over(&self, p: Proc) -> bool {
        self.read(p, FLAG_BLOCK).await;
        self.w.borrow().flag
    }

    /// Processor `q`'s mailbox.
    #[inline(always)]
    pub(crate) fn mbox(&self, q: Proc) -> Block {
        FIRST_PRIVATE + self.cfg.procs + q
    }

    /// The set of idle processors (active splitting).
    #[inline(always)]
    pub(crate) fn idle_block(&self) -> Block {
        FIRST_PRIVATE + 2 * self.cfg.procs
    }

    /// Whether node `(n, g)` is still that allocation and still has moves
    /// to hand out (read without its lock: the join checks again).
    #[inline(always)]
    pub(crate) fn valid(&self, (n, g): NodeRef) -> bool {
        let w = self.w.borrow();
        let x = &w.nodes[n as usize];
        x.is(g) && x.open()
    }
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// Whether the policy's idle processors wait in their mailboxes
    /// ([`SimIdle::mailboxes`]).
    #[inline(always)]
    pub(crate) fn mailboxes(&self) -> bool {
        self.cfg.policy.mailboxes()
    }

    /// [`SimIdle::share_work`]: what a working processor at node `c`
    /// (locked, about to hand out a move) does for idle ones.
    pub(crate) async fn share_work(&self, p: Proc, c: u32) {
        self.cfg.policy.share_work(self, p, c).await
    }

    /// Whether the policy does something after an update ([`SimIdle::updates`]).
    #[inline(always)]
    pub(crate) fn updates(&self) -> bool {
        self.cfg.policy.updates()
    }

    /// [`SimIdle::updated`]: after a move of node `c` (locked) was folded in.
    pub(crate) async fn updated(&self, p: Proc, c: u32) {
        self.cfg.policy.updated(self, p, c).await
    }
}
