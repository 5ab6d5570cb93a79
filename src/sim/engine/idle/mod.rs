//! The idle state (**split**, thesis §6.2, Figure 6.12) and the idle
//! policies on the simulated machine: [`SimIdle`], which each policy of
//! [`crate::policy`] implements in a file of its own here (its idle loop,
//! and what working processors do for idle ones), the hand-over to it, and
//! what every policy may use (joining a node, the end-of-search flag, the
//! mailboxes, the set of idle processors; `docs/model.md` §5.3 and §5.7).

mod active;
mod dts;
mod pv_split;
mod steal;

use super::machine::{Machine, SimIdle};
use super::stats::State;
use super::types::Next;
use super::types::NodeRef;
use super::{FIRST_PRIVATE, FLAG_BLOCK, NONE};
use crate::game::TreeSource;
use crate::policy::{LazySmp, Policy, dispatch};
use crate::schemes::SplitScheme;
use crate::sim::engine::record::Recorder;
use crate::sim::memory::{Block, Proc};

/// The registry's policy: each call is its variant's.
impl SimIdle for Policy {
    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
        dispatch!(self, a => a.idle(m, p).await)
    }

    async fn share_work<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
        dispatch!(self, a => a.share_work(m, p, c).await)
    }

    async fn updated<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
        dispatch!(self, a => a.updated(m, p, c).await)
    }

    #[inline(always)]
    fn mailboxes(&self) -> bool {
        dispatch!(self, a => a.mailboxes())
    }

    #[inline(always)]
    fn updates(&self) -> bool {
        dispatch!(self, a => a.updates())
    }

    fn simulated(&self) -> std::result::Result<(), &'static str> {
        Policy::simulated(self)
    }
}

/// Lazy SMP is refused before any processor runs
/// ([`crate::policy::IdlePolicy::simulated`]): it never idles here.
impl SimIdle for LazySmp {
    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, _m: &Machine<'_, T, S, P, R>, _p: Proc) -> Next {
        Next::Exit
    }
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// **split**: look for work until there is some or the search is over
    /// (the policy's idle loop, [`SimIdle::idle`]).
    pub(in crate::sim::engine) async fn idle(&self, p: Proc) -> Next {
        self.enter(p, State::Split, NONE).await;
        self.cfg.policy.idle(self, p).await
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

    /// Whether node `(n, g)` is still that allocation and still has moves
    /// to hand out (read without its lock: the join checks again).
    #[inline(always)]
    pub(in crate::sim::engine) fn valid(&self, (n, g): NodeRef) -> bool {
        let w = self.w.borrow();
        let x = &w.nodes[n as usize];
        x.is(g) && x.open()
    }
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// Whether the policy's idle processors wait in their mailboxes
    /// ([`SimIdle::mailboxes`]).
    #[inline(always)]
    pub(super) fn mailboxes(&self) -> bool {
        self.cfg.policy.mailboxes()
    }

    /// [`SimIdle::share_work`]: what a working processor at node `c`
    /// (locked, about to hand out a move) does for idle ones.
    pub(super) async fn share_work(&self, p: Proc, c: u32) {
        self.cfg.policy.share_work(self, p, c).await
    }

    /// Whether the policy does something after an update ([`SimIdle::updates`]).
    #[inline(always)]
    pub(super) fn updates(&self) -> bool {
        self.cfg.policy.updates()
    }

    /// [`SimIdle::updated`]: after a move of node `c` (locked) was folded in.
    pub(super) async fn updated(&self, p: Proc, c: u32) {
        self.cfg.policy.updated(self, p, c).await
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::engine::testkit::*;

    /// Every policy with both locks returns the sequential minimax value,
    /// accounts for every processor-tick, and leaves the heaps balanced
    /// (checked by `run`).
    #[test]
    fn every_policy_returns_minimax() {
        let mut all = new_policies().to_vec();
        all.push(dts(Walk::Tree));
        for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (4, 100, 100), (6, 69, 19)] {
            let sh = shape(b, wa, wb);
            for seed in 1..5u32 {
                let root = Node { seed: seed * 15485863, pscore: ROOT_PSCORE as u32 };
                for depth in 1..5 {
                    let want = search(&sh, &root, depth, &mut ()).value;
                    for procs in [2, 3, 7, 48, 64] {
                        for &algorithm in &all {
                            for lock in [LockKind::Tas, LockKind::Queue] {
                                for interleave in [Interleave::Access, Interleave::State] {
                                    if interleave == Interleave::State && procs != 3 {
                                        continue;
                                    }
                                    let cfg = MachineSpec { policy: algorithm, lock, interleave, ..Spec::new(procs, depth) };
                                    let tag = format!("b={b} seed={seed} depth={depth} p={procs} {algorithm:?} {lock:?} {interleave:?}");
                                    let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap_or_else(|e| panic!("{tag}: {e}"));
                                    assert_eq!(r.value, want, "{tag}");
                                    assert_eq!(r.accounted(), r.ticks * procs as u64, "{tag}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The largest machine: 1,024 processors, every policy and lock.
    #[test]
    fn every_policy_returns_minimax_on_1024_processors() {
        let mut all = new_policies().to_vec();
        all.push(dts(Walk::Tree));
        for (b, wa, wb) in [(8, 79, 5), (5, 0, 0)] {
            let sh = shape(b, wa, wb);
            for seed in 1..3u32 {
                let root = Node { seed: seed * 7727, pscore: ROOT_PSCORE as u32 };
                for depth in [2, 4] {
                    let want = search(&sh, &root, depth, &mut ()).value;
                    for &algorithm in &all {
                        for lock in [LockKind::Tas, LockKind::Queue] {
                            let cfg = MachineSpec { policy: algorithm, lock, ..Spec::new(1024, depth) };
                            let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap();
                            assert_eq!(r.value, want, "b={b} seed={seed} depth={depth} {algorithm:?} {lock:?}");
                            assert_eq!(r.accounted(), r.ticks * 1024);
                        }
                    }
                }
            }
        }
    }
}
