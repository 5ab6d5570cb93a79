//! The engine's shared vocabulary: the types the machine and its method
//! files (`executor`, `heap`, `locks`, `states`, `idle`) all name, kept
//! here so that the machine does not reach into the files that extend it
//! (`docs/model.md` §5.7): the search's node ([`SNode`], [`NodeRef`]), the
//! state a routine hands over to ([`Next`]), how far an access got in a
//! turn ([`Step`]) and the queue locks' hasher ([`BlockHasher`]).

use super::NONE;
use crate::game::TreeSource;
use crate::schemes::View;
use crate::value::Window;

/// How far an access got in one turn of its processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Served, and the processor goes on at once.
    Ready,
    /// Served; the processor waits out the delay while others run.
    Served,
    /// Refused: issued again at the processor's next turn.
    Refused,
}

/// The state a routine hands over to, with the data that state works on.
#[derive(Clone, Copy, Debug)]
pub enum Next {
    /// Expand this node.
    Expand(u32),
    /// Hand out this node's next move (its lock held).
    Search(u32),
    /// Evaluate this leaf.
    Eval(u32),
    /// Leave this node (its lock held).
    Return(u32),
    /// One more move of this node finished with this value (its lock held).
    Update(u32, i64),
    /// Look for work.
    Idle,
    /// Stop.
    Exit,
}

/// A node of the searched tree as the machine holds it: its window and
/// score, its place in the tree source, its links to parent and children,
/// its counts of moves and processors, and the scheme's data.
#[derive(Debug)]
pub(crate) struct SNode<D, T: TreeSource> {
    pub(crate) window: Window,
    pub(crate) score: i64,
    pub(crate) cursor: Option<T::Cursor>,
    /// The node's position in its tree source (none for a leaf at the horizon).
    pub(crate) node: Option<T::Node>,
    /// A leaf's value, known when it is created (or expanded, at a game over).
    pub(crate) value: i64,
    /// Moves the node has (set when it is expanded).
    pub(crate) moves: u32,
    pub(crate) parent: u32,
    pub(crate) first_child: u32,
    pub(crate) last_child: u32,
    pub(crate) next_sib: u32,
    pub(crate) prev_sib: u32,
    pub(crate) generation: u32,
    pub(crate) threads: u32,
    pub(crate) left: u32,
    pub(crate) fini: u32,
    pub(crate) ply: u32,
    pub(crate) index: u32,
    pub(crate) max: bool,
    pub(crate) pv: bool,
    pub(crate) allocated: bool,
    pub(crate) data: D,
}

impl<D: Default, T: TreeSource> SNode<D, T> {
    pub(crate) fn blank() -> SNode<D, T> {
        SNode {
            window: Window { alpha: 0, beta: 0 },
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
    pub(crate) fn view(&self) -> View {
        View { ply: self.ply, pv: self.pv, index: self.index, max: self.max, finished: self.fini, left: self.left }
    }

    /// Moves left and the score still inside the window.
    #[inline(always)]
    pub(crate) fn open(&self) -> bool {
        self.left > 0 && if self.max { self.score < self.window.beta } else { self.score > self.window.alpha }
    }

    /// Still the allocation `g` of this node (not freed, not reused).
    #[inline(always)]
    pub(crate) fn is(&self, g: u32) -> bool {
        self.allocated && self.generation == g
    }
}

/// A node as a processor remembers it: its number and the allocation
/// (generation) it saw, so a freed or reused node is recognised.
pub(crate) type NodeRef = (u32, u32);

/// Hashes a block number by one multiplication (the queue locks' map is
/// keyed by small integers, and nothing iterates it, so its order is never
/// seen: SipHash's protection buys nothing here and cost 6% of a run).
#[derive(Default)]
pub(crate) struct BlockHasher(u64);

impl std::hash::Hasher for BlockHasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &x in bytes {
            self.0 = (self.0 ^ x as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    #[inline(always)]
    fn write_usize(&mut self, x: usize) {
        self.0 = (x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}
