//! The node heaps and the links between the search's nodes (`SNode`, in
//! `types`): each processor's local heap and the global heap under its
//! lock, allocation and freeing, linking and unlinking children (thesis
//! §6.2; `docs/model.md` §5.3).

use super::machine::{Machine, SimIdle, make_node};
use super::types::{NodeRef, SNode};
use super::{FIRST_PRIVATE, HEAP_BLOCK, NONE};
use crate::game::TreeSource;
use crate::schemes::SplitScheme;
use crate::sim::engine::record::Recorder;
use crate::sim::memory::Proc;

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// Takes a node from the local heap, else from the global heap (under
    /// its lock), else makes a new one; the node comes back locked by `p`.
    pub(crate) async fn alloc(&self, p: Proc) -> u32 {
        self.write(p, FIRST_PRIVATE + p).await;
        let local = self.w.borrow_mut().local[p].pop();
        let n = match local {
            Some(n) => n,
            None => {
                self.lock(p, HEAP_BLOCK).await;
                let n = {
                    let mut w = self.w.borrow_mut();
                    match w.global.pop() {
                        Some(n) => n,
                        None => make_node(&mut w, self.b, self.cfg.procs),
                    }
                };
                self.unlock(p, HEAP_BLOCK).await;
                n
            }
        };
        // A processor that found this node's old allocation stale may still
        // hold its lock for a moment: a real test-and-set.
        self.lock(p, self.blk(n)).await;
        n
    }

    /// Returns a node (unlinked, marked free, still locked by `p`) to the
    /// local heap, or to the global heap when the local one holds `2d`.
    pub(crate) async fn free(&self, p: Proc, n: u32) {
        self.unlock(p, self.blk(n)).await;
        self.write(p, FIRST_PRIVATE + p).await;
        let full = {
            let mut w = self.w.borrow_mut();
            let full = w.local[p].len() >= 2 * self.cfg.depth.max(1) as usize;
            if !full {
                w.local[p].push(n);
            }
            full
        };
        if full {
            self.lock(p, HEAP_BLOCK).await;
            self.w.borrow_mut().global.push(n);
            self.unlock(p, HEAP_BLOCK).await;
        }
    }
}

pub(crate) fn link<D, T: TreeSource>(nodes: &mut [SNode<D, T>], parent: u32, c: u32) {
    let last = nodes[parent as usize].last_child;
    nodes[c as usize].prev_sib = last;
    nodes[c as usize].next_sib = NONE;
    if last == NONE {
        nodes[parent as usize].first_child = c;
    } else {
        nodes[last as usize].next_sib = c;
    }
    nodes[parent as usize].last_child = c;
}

pub(crate) fn unlink<D, T: TreeSource>(nodes: &mut [SNode<D, T>], parent: u32, c: u32) {
    let (prev, next) = (nodes[c as usize].prev_sib, nodes[c as usize].next_sib);
    if prev == NONE {
        nodes[parent as usize].first_child = next;
    } else {
        nodes[prev as usize].next_sib = next;
    }
    if next == NONE {
        nodes[parent as usize].last_child = prev;
    } else {
        nodes[next as usize].prev_sib = prev;
    }
}

/// Appends `x`'s children (as they are now, in creation order) to a stack
/// or queue.
pub(crate) fn push_children<D, T: TreeSource>(nodes: &[SNode<D, T>], x: u32, to: &mut Vec<NodeRef>) {
    let mut y = nodes[x as usize].first_child;
    while y != NONE {
        to.push((y, nodes[y as usize].generation));
        y = nodes[y as usize].next_sib;
    }
}
