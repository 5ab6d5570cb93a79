//! Active splitting as in engines (Crafty; [`Active`](crate::policy::Active)):
//! idle processors wait in their mailboxes; a working processor at an
//! eligible node deep enough recruits them (an alternative to the thesis's
//! idle loop of §6.2; `docs/beyond.md`).

use super::SimIdle;
use crate::game::TreeSource;
use crate::policy::Active;
use crate::schemes::SplitScheme;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::record::Recorder;
use crate::sim::engine::stats::TimeKind;
use crate::sim::engine::types::Next;
use crate::sim::memory::Proc;

impl SimIdle for Active {
    fn mailboxes(&self) -> bool {
        true
    }

    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
        m.idle_active(p).await
    }

    /// The idle processors are recruited to `c`.
    async fn share_work<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
        m.recruit(p, c, self.min_split_depth, self.split_group).await
    }
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
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
            self.wait_for_write(p, mb, TimeKind::Work).await;
        }
    }

    /// The working processor's side: at node `c` (locked, about to hand
    /// out a move), if it is eligible, has `min_split_depth` plies below it
    /// and fewer than `group` processors, `p` recruits idle processors to
    /// it (at most one per move left beyond its own).
    pub(in crate::sim::engine) async fn recruit(&self, p: Proc, c: u32, min_split_depth: u32, group: u32) {
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

#[cfg(test)]
mod tests {
    use crate::sim::engine::testkit::*;

    /// Active splitting with 3 processors and a minimum split depth of 2 on
    /// a depth-3 tree: the root (3 plies left) and its children (2 left) may
    /// be split; nodes at ply 2 (1 ply left) never are, so all the leaves
    /// below one ply-2 node are evaluated by one processor.
    #[test]
    fn active_splitting_respects_the_minimum_depth() {
        let (want, r) = traced(3, 3, 3, Policy::Active(Active { scheme: A1, min_split_depth: 2, split_group: 8 }));
        assert_eq!(r.value, want);
        let ev = leaves(&r);
        let parent = |leaf: &str| leaf.rsplit_once('.').map(|(p, _)| p.to_string()).unwrap();
        for &(leaf, q) in &ev {
            assert!(ev.iter().filter(|f| parent(f.0) == parent(leaf)).all(|f| f.1 == q), "leaves below {}: {ev:?}", parent(leaf));
        }
        // The helpers did search: some leaves are not P0's.
        assert!(ev.iter().any(|e| e.1 != 0), "{ev:?}");
    }
}
