//! A node searched sequentially in slices: the pieces of the distributed
//! YBWC (`docs/model.md` §9.6), of Fox et al.'s master/slave (§9.11) and
//! the PV split's rank 0's own tasks (§9.10).
//!
//! A process of those searches answers its messages between two steps, so
//! a piece (a node at or below the granularity) is searched by the
//! process's sequential baseline ([`Searcher`]) in slices of a node budget,
//! with a wake-up between slices, as the master-worker's workers do; a
//! slice that runs out of budget is searched again with twice the budget
//! (its table keeps what the slice found).

use crate::cluster::exec::transport::Transport;
use crate::cluster::search::Searcher;
use crate::game::TreeSource;
use crate::value::Window;

/// A node to search sequentially, in slices.
pub struct Piece<N> {
    /// The node.
    pub node: N,
    /// Whether it is a MAX node.
    pub max: bool,
    /// Its ply.
    pub ply: u32,
    /// Its remaining depth.
    pub depth: u32,
    /// Its window.
    pub window: Window,
    /// Nodes of the next slice (doubling while the piece does not finish).
    pub budget: u64,
}

impl<N> Piece<N> {
    /// One slice with `s`, its nodes reported to `t`: the piece's
    /// fail-hard value when it is done, `None` (and twice the budget for
    /// the next slice) when the budget ran out.
    pub fn slice<S: TreeSource<Node = N>, A, T: Transport<N, A>>(&mut self, s: &mut Searcher<S>, src: &S, t: &mut T) -> Option<i64> {
        let before = s.counts;
        s.limit = before.nodes.saturating_add(self.budget);
        let v = s.search(src, &self.node, self.max, self.depth, self.ply, self.window);
        s.limit = u64::MAX;
        let aborted = std::mem::take(&mut s.aborted);
        t.searched(s.counts - before);
        if aborted {
            self.budget = self.budget.saturating_mul(2);
            return None;
        }
        Some(v)
    }
}
