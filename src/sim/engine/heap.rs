//! The search's nodes (`SNode`: window, score, links, counts, the
//! scheme's data), their links, and the node heaps: each processor's local
//! heap and the global heap under its lock (thesis §6.2; `docs/model.md`
//! §5.3).

use super::machine::{Machine, World};
use super::{FIRST_PRIVATE, HEAP_BLOCK, NONE};
use crate::game::TreeSource;
use crate::sim::memory::Proc;
use crate::sim::schemes::{SplitScheme, View};

/// A node of the searched tree as the machine holds it: its window and
/// score, its place in the tree source, its links to parent and children,
/// its counts of moves and processors, and the scheme's data.
#[derive(Debug)]
pub(super) struct SNode<D, T: TreeSource> {
    pub(super) alpha: i64,
    pub(super) beta: i64,
    pub(super) score: i64,
    pub(super) cursor: Option<T::Cursor>,
    /// The node's position in its tree source (none for a leaf at the horizon).
    pub(super) node: Option<T::Node>,
    /// A leaf's value, known when it is created (or expanded, at a game over).
    pub(super) value: i64,
    /// Moves the node has (set when it is expanded).
    pub(super) moves: u32,
    pub(super) parent: u32,
    pub(super) first_child: u32,
    pub(super) last_child: u32,
    pub(super) next_sib: u32,
    pub(super) prev_sib: u32,
    pub(super) generation: u32,
    pub(super) threads: u32,
    pub(super) left: u32,
    pub(super) fini: u32,
    pub(super) ply: u32,
    pub(super) index: u32,
    pub(super) max: bool,
    pub(super) pv: bool,
    pub(super) allocated: bool,
    pub(super) data: D,
}

impl<D: Default, T: TreeSource> SNode<D, T> {
    pub(super) fn blank() -> SNode<D, T> {
        SNode {
            alpha: 0,
            beta: 0,
            score: 0,
            cursor: None,
            node: None,
            value: 0,
            moves: 0,
            parent: NONE,
            first_child: NONE,
            last_child: NONE,
            next_sib: NONE,
            prev_sib: NONE,
            generation: 0,
            threads: 0,
            left: 0,
            fini: 0,
            ply: 0,
            index: 0,
            max: true,
            pv: false,
            allocated: false,
            data: D::default(),
        }
    }
}

impl<D, T: TreeSource> SNode<D, T> {
    #[inline(always)]
    pub(super) fn view(&self) -> View {
        View { ply: self.ply, pv: self.pv, index: self.index, max: self.max, finished: self.fini, left: self.left }
    }

    /// Moves left and the score still inside the window.
    #[inline(always)]
    pub(super) fn open(&self) -> bool {
        self.left > 0 && if self.max { self.score < self.beta } else { self.score > self.alpha }
    }

    /// Still the allocation `g` of this node (not freed, not reused).
    #[inline(always)]
    pub(super) fn is(&self, g: u32) -> bool {
        self.allocated && self.generation == g
    }
}

/// A node as a processor remembers it: its number and the allocation
/// (generation) it saw, so a freed or reused node is recognised.
pub(super) type NodeRef = (u32, u32);

impl<'a, T: TreeSource, S: SplitScheme> Machine<'a, T, S> {
    /// Takes a node from the local heap, else from the global heap (under
    /// its lock), else makes a new one; the node comes back locked by `p`.
    pub(super) async fn alloc(&self, p: Proc) -> u32 {
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
    pub(super) async fn free(&self, p: Proc, n: u32) {
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

pub(super) fn make_node<D: Default, T: TreeSource>(w: &mut World<D, T>, b: usize, procs: usize) -> u32 {
    let id = w.nodes.len() as u32;
    w.nodes.push(SNode::blank());
    w.bufs.extend(std::iter::repeat_n(T::Slot::default(), b));
    w.mem.add_block(id as usize % procs);
    id
}

pub(super) fn link<D, T: TreeSource>(nodes: &mut [SNode<D, T>], parent: u32, c: u32) {
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

pub(super) fn unlink<D, T: TreeSource>(nodes: &mut [SNode<D, T>], parent: u32, c: u32) {
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
pub(super) fn push_children<D, T: TreeSource>(nodes: &[SNode<D, T>], x: u32, to: &mut Vec<NodeRef>) {
    let mut y = nodes[x as usize].first_child;
    while y != NONE {
        to.push((y, nodes[y as usize].generation));
        y = nodes[y as usize].next_sib;
    }
}
