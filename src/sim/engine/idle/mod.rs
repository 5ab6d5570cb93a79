//! The idle state (**split**, thesis §6.2, Figure 6.12) and the idle
//! policies: [`Idle`] (one variant per policy), the dispatch to them, and
//! what they share (joining a node, the end-of-search flag, the mailboxes);
//! each policy's routines are in a file of their own (`docs/model.md` §5.3
//! and §5.7; the policies beyond the thesis: `docs/beyond.md`).
//!
//! A new policy touches this folder only: a file with its idle loop (and,
//! if working processors must do something for idle ones, its hook, called
//! from `share_work`), and here its `mod` line, its variant with its name,
//! and its arms in `idle` and `share_work`.
mod active;
mod pv;
mod split_variable;
mod steal;

use super::heap::NodeRef;
use super::machine::Machine;
use super::spec::Walk;
use super::states::Next;
use super::stats::State;
use super::{FIRST_PRIVATE, FLAG_BLOCK, NONE};
use crate::game::TreeSource;
use crate::sim::memory::{Block, Proc};
use crate::sim::schemes::Scheme;

/// How an idle processor finds work (and what a working processor does for
/// idle ones): the seam for new parallel search algorithms. Each variant
/// is one routine called from [`Machine::idle`], plus at most one hook in
/// the working states ([`Machine::share_work`], and PV splitting's
/// publication in [`Machine::update`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Idle {
    /// The thesis's: a global split-point variable under a lock, refilled by
    /// a split-point search of the allocated tree when it no longer holds a
    /// valid node (thesis Figure 6.12).
    SplitVariable(Walk),
    /// PV splitting (Marsland and Popowich): one processor goes down the
    /// principal variation; at each PV node, once its first move is
    /// searched, the node is published and every processor takes its
    /// remaining moves; a processor with nothing left waits (for the next
    /// publication) rather than look for work elsewhere.
    PvSplit,
    /// YBWC with work stealing (Feldmann): an idle processor asks a victim
    /// chosen at random (ChaCha8, this seed and the processor's number) for
    /// work through the victim's mailbox; the victim answers at its next
    /// node with the highest eligible node of its own part of the tree (from
    /// where it works up to the first node shared with others), or with
    /// "no work".
    Steal {
        /// Seed of the victims' choice.
        seed: u64,
    },
    /// Active splitting as in engines (Crafty, Stockfish before 2014): a
    /// processor at an eligible node with at least `min_split_depth` plies
    /// left below it recruits idle processors (at most one per move left
    /// beyond its own, and at most `group` processors at the node in all),
    /// which wait in their mailboxes to be recruited.
    Active {
        /// Plies a node needs below it to be split.
        min_split_depth: u32,
        /// Most processors working at one split point (Crafty's split group).
        group: u32,
    },
}

impl Default for Idle {
    fn default() -> Idle {
        Idle::SplitVariable(Walk::default())
    }
}

impl Idle {
    /// The policy's name in rows and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Idle::SplitVariable(_) => "dts",
            Idle::PvSplit => "pvsplit",
            Idle::Steal { .. } => "steal",
            Idle::Active { .. } => "active",
        }
    }

    /// Whether idle processors wait in their mailboxes (the engine then keeps them).
    pub(in crate::sim::engine) fn mailboxes(self) -> bool {
        matches!(self, Idle::Steal { .. } | Idle::Active { .. })
    }
}

impl<'a, T: TreeSource, S: Scheme> Machine<'a, T, S> {
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
            Idle::Steal { .. } => self.answer_thief(p, c).await,
            Idle::Active { min_split_depth, group } => self.recruit(p, c, min_split_depth, group).await,
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
        all.push(Idle::SplitVariable(Walk::Tree));
        for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (4, 100, 100), (6, 69, 19)] {
            let sh = shape(b, wa, wb);
            for seed in 1..5u32 {
                let root = Node { seed: seed * 15485863, pscore: ROOT_PSCORE as u32 };
                for depth in 1..5 {
                    let want = search(&sh, &root, depth, &mut ()).value;
                    for procs in [2, 3, 7, 48, 64] {
                        for &idle in &all {
                            for lock in [LockKind::Tas, LockKind::Queue] {
                                for interleave in [Interleave::Access, Interleave::State] {
                                    if interleave == Interleave::State && procs != 3 {
                                        continue;
                                    }
                                    let cfg = MachineSpec { idle, lock, interleave, ..MachineSpec::new(procs, depth) };
                                    let tag = format!("b={b} seed={seed} depth={depth} p={procs} {idle:?} {lock:?} {interleave:?}");
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
        all.push(Idle::SplitVariable(Walk::Tree));
        for (b, wa, wb) in [(8, 79, 5), (5, 0, 0)] {
            let sh = shape(b, wa, wb);
            for seed in 1..3u32 {
                let root = Node { seed: seed * 7727, pscore: ROOT_PSCORE as u32 };
                for depth in [2, 4] {
                    let want = search(&sh, &root, depth, &mut ()).value;
                    for &idle in &all {
                        for lock in [LockKind::Tas, LockKind::Queue] {
                            let cfg = MachineSpec { idle, lock, ..MachineSpec::new(1024, depth) };
                            let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap();
                            assert_eq!(r.value, want, "b={b} seed={seed} depth={depth} {idle:?} {lock:?}");
                            assert_eq!(r.accounted(), r.ticks * 1024);
                        }
                    }
                }
            }
        }
    }
}
