//! The thesis's idle loop ([`Dts`](crate::policy::Dts)):
//! a global split-point variable under a lock, refilled by a split-point
//! search of the allocated tree when it no longer holds a valid node
//! (thesis §6.2, Figure 6.12; `docs/model.md` §5.3–5.4).

use super::SimIdle;
use crate::game::TreeSource;
use crate::policy::Dts;
use crate::policy::Walk;
use crate::schemes::{Candidate, SplitScheme};
use crate::sim::engine::heap::push_children;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::record::Recorder;
use crate::sim::engine::spec::cost;
use crate::sim::engine::types::Next;
use crate::sim::engine::types::NodeRef;
use crate::sim::engine::{NONE, SPLIT_BLOCK};
use crate::sim::memory::Proc;

impl SimIdle for Dts {
    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
        m.idle_dts(p, self.walk).await
    }
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// The thesis's idle loop: take the split-point variable's lock; join the
    /// node it holds if that is still valid, else search the tree for a new
    /// one, store and join it; if there is none, unlock and pause 36 ticks.
    pub(in crate::sim::engine) async fn idle_dts(&self, p: Proc, walk: Walk) -> Next {
        loop {
            self.step(p).await;
            if self.search_over(p).await {
                return Next::Exit;
            }
            self.lock(p, SPLIT_BLOCK).await;
            loop {
                self.step(p).await;
                self.work(p, cost::SPLIT).await;
                self.read(p, SPLIT_BLOCK).await;
                let mut sp = self.w.borrow().split_var;
                if let Some(s) = sp {
                    self.read(p, self.blk(s.0)).await;
                    if !self.valid(s) {
                        sp = None;
                    }
                }
                if sp.is_none() {
                    sp = self.find_split_point(p, walk).await;
                    self.write(p, SPLIT_BLOCK).await;
                    self.w.borrow_mut().split_var = sp;
                }
                let Some((n, g)) = sp else {
                    self.unlock(p, SPLIT_BLOCK).await;
                    self.work(p, cost::RETRY).await;
                    break;
                };
                // Join: under the node's lock, it must still be the valid node seen.
                self.lock(p, self.blk(n)).await;
                if self.join((n, g)) {
                    self.unlock(p, SPLIT_BLOCK).await;
                    return Next::Search(n);
                }
                self.unlock(p, self.blk(n)).await;
            }
        }
    }

    /// The split-point search: walks the allocated tree breadth-first from
    /// the root (each node read, 1 tick) and returns the best eligible node
    /// by the shared preference order (ties: the first found).
    pub(in crate::sim::engine) async fn find_split_point(&self, p: Proc, walk: Walk) -> Option<NodeRef> {
        let mut q = std::mem::take(&mut self.w.borrow_mut().walks[p]);
        q.clear();
        {
            let w = self.w.borrow();
            if w.root != NONE {
                q.push((w.root, w.nodes[w.root as usize].generation));
            }
        }
        let (mut head, mut level_end) = (0, q.len());
        let mut best: Option<(NodeRef, Candidate)> = None;
        let mut examined = 0;
        while head < q.len() {
            if head == level_end {
                if walk == Walk::Level && best.is_some() {
                    break;
                }
                level_end = q.len();
            }
            let (x, g) = q[head];
            head += 1;
            self.read(p, self.blk(x)).await;
            self.work(p, 1).await;
            examined += 1;
            let w = self.w.borrow();
            let n = &w.nodes[x as usize];
            if !n.is(g) {
                continue;
            }
            if n.open()
                && let Some(progress) = self.scheme.eligible(&n.view(), &n.data)
            {
                let c = Candidate::new(n.ply, progress, n.left, n.moves);
                if best.is_none_or(|(_, o)| c.better(&o)) {
                    best = Some(((x, g), c));
                }
            }
            push_children(&w.nodes, x, &mut q);
        }
        let mut w = self.w.borrow_mut();
        w.stats.split_searches += 1;
        w.stats.split_examined += examined;
        w.walks[p] = q;
        best.map(|(r, _)| r)
    }
}
