//! The idle state (**split**, thesis §6.2, Figure 6.12) and the idle
//! algorithms: the dispatch on the [`Algorithm`] to them, and
//! what they share (joining a node, the end-of-search flag, the mailboxes);
//! each policy's routines are in a file of their own (`docs/model.md` §5.3
//! and §5.7; the policies beyond the thesis: `docs/beyond.md`).
//!
//! A new policy touches this folder and one enum: its variant in
//! [`Algorithm`] (`src/algorithm.rs`), a file here with its idle loop (and,
//! if working processors must do something for idle ones, its hook, called
//! from `share_work`), and here its `mod` line and its arms in `idle` and
//! `share_work` (`docs/model.md`, "How to add an idle policy").
mod active;
mod dts;
mod pvsplit;
mod steal;

use super::machine::Machine;
use super::stats::State;
use super::types::Next;
use super::types::NodeRef;
use super::{FIRST_PRIVATE, FLAG_BLOCK, NONE};
use crate::algorithm::Algorithm;
use crate::game::TreeSource;
use crate::schemes::SplitScheme;
use crate::sim::engine::record::Recorder;
use crate::sim::memory::{Block, Proc};

/// Whether idle processors of `a` wait in their mailboxes (the engine then keeps them).
pub(in crate::sim::engine) fn mailboxes(a: &Algorithm) -> bool {
    matches!(a, Algorithm::Steal { .. } | Algorithm::Active { .. })
}

impl<'a, T: TreeSource, S: SplitScheme, R: Recorder> Machine<'a, T, S, R> {
    /// **split**: look for work until there is some or the search is over.
    pub(in crate::sim::engine) async fn idle(&self, p: Proc) -> Next {
        self.enter(p, State::Split, NONE).await;
        match self.cfg.algorithm {
            Algorithm::Dts { walk, .. } => self.idle_dts(p, walk).await,
            Algorithm::PvSplit => self.idle_pvsplit(p).await,
            Algorithm::Steal { .. } => self.idle_steal(p).await,
            Algorithm::Active { .. } => self.idle_active(p).await,
            // `Machine::new` refuses Lazy SMP before any processor runs.
            Algorithm::LazySmp => unreachable!("{}", crate::algorithm::LAZY_SMP_REAL_ONLY),
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
        match self.cfg.algorithm {
            Algorithm::Dts { .. } | Algorithm::PvSplit | Algorithm::LazySmp => {}
            Algorithm::Steal { .. } => self.answer_thief(p, c).await,
            Algorithm::Active { min_split_depth, split_group, .. } => self.recruit(p, c, min_split_depth, split_group).await,
        }
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
                                    let cfg = MachineSpec { algorithm, lock, interleave, ..MachineSpec::new(procs, depth) };
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
                            let cfg = MachineSpec { algorithm, lock, ..MachineSpec::new(1024, depth) };
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
