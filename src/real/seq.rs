//! The one-thread path and the search below shared nodes.
//!
//! One thread runs the project's one sequential search
//! ([`crate::search::search`]) with an observer that does the busy work per
//! node and notes the root's best move: no locks, no atomics, no heap
//! (`psearch` at one thread against `fbest`: `BENCHMARKS.md`, "psearch").
//!
//! The parallel searches run [`ab`] below their shared nodes: the same
//! fail-hard alpha-beta ([`crate::search::alphabeta`]: left to right, a
//! node with no moves valued by the game) from any node and window, with a
//! hook set that counts into the thread's [`Local`].

use super::local::Local;
use super::{Measured, Options};
use crate::game::TreeSource;
use crate::search::{Hooks, Observer, Outcome, Visit, alphabeta};
use crate::value::Window;

/// Busy work per node and the root's move, for the sequential search.
struct Watch {
    cost_ns: u64,
    root_move: u32,
}

impl Observer for Watch {
    #[inline(always)]
    fn enter(&mut self, _v: &Visit) {
        if self.cost_ns > 0 {
            super::local::spin(self.cost_ns);
        }
    }
    #[inline(always)]
    fn leave(&mut self, v: &Visit, o: &Outcome) {
        if v.ply == 0 {
            // The full window: the root never cuts off, and its last score
            // update is the first move with the best value.
            self.root_move = o.best_move().unwrap_or(0);
        }
    }
}

/// The sequential search of `src` from `root` to `depth`, timed.
pub fn run<S: TreeSource>(src: &S, root: &S::Node, depth: u32, opts: &Options) -> Measured {
    let t = std::time::Instant::now();
    let mut w = Watch { cost_ns: opts.node_cost_ns, root_move: 0 };
    let r = crate::search::search(src, root, depth, &mut w);
    let wall_ns = t.elapsed().as_nanos() as u64;
    // One thread, searching from start to end.
    let trace = opts.trace.map(|_| {
        std::sync::Arc::new(super::record::RealTrace { wall_ns, threads: vec![super::record::ThreadSpans { life: (0, wall_ns), ..Default::default() }] })
    });
    Measured {
        value: r.value,
        root_move: w.root_move,
        nodes: r.counts.nodes,
        leaves: r.counts.leaves,
        wall_ns,
        search_ns: wall_ns,
        idle_ns: 0,
        lock_ns: 0,
        trace,
    }
}

/// The hook set of [`ab`]: nodes counted into the thread's [`Local`].
struct Count<'l>(&'l mut Local);

impl Observer for Count<'_> {
    #[inline(always)]
    fn enter(&mut self, v: &Visit) {
        self.0.enter(v.leaf);
    }
}

impl<S: TreeSource> Hooks<S> for Count<'_> {}

/// Fail-hard alpha-beta of `node` (MAX if `max`, `ply` from the root) to
/// `depth` in `window`; `buf` holds at least `depth` move lists.
#[allow(clippy::too_many_arguments)]
pub fn ab<S: TreeSource>(src: &S, l: &mut Local, buf: &mut [S::Slot], node: &S::Node, depth: u32, ply: u32, max: bool, window: Window) -> i64 {
    let v = Visit { ply, index: 0, max, window, pv: false, leaf: false, moves: 0 };
    alphabeta(src, &mut Count(l), buf, node, depth, v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::artificial::{Model, Node, Ordering, Shape};
    use crate::value::ROOT_PSCORE;

    /// [`ab`] from the root with the full window is the sequential search:
    /// same value, same nodes and leaves.
    #[test]
    fn ab_is_the_sequential_search() {
        let shape = Shape::new(Model::Exponential, Ordering::new(5, 60, 20).unwrap()).unwrap();
        let opts = Options { threads: 1, ..Options::default() };
        for seed in 1..30u32 {
            let root = Node { seed: seed * 7919, pscore: ROOT_PSCORE as u32 };
            for depth in 0..5 {
                let s = run(&shape, &root, depth, &opts);
                let mut l = Local::new(0, &opts);
                let mut buf = vec![0u32; 5 * depth.max(1) as usize];
                let v = ab(&shape, &mut l, &mut buf, &root, depth, 0, true, Window::ROOT);
                assert_eq!((v, l.nodes, l.leaves), (s.value, s.nodes, s.leaves), "seed {seed} depth {depth}");
                assert_eq!(s.root_move == 0, depth == 0);
            }
        }
    }

    /// [`ab`] from inner nodes and in any window: the fail-hard minimax
    /// value of the node.
    #[test]
    fn ab_is_fail_hard_minimax_in_any_window() {
        let t = crate::tree::incremental::Incremental::new(4, 100).unwrap();
        let opts = Options { threads: 1, ..Options::default() };
        for seed in 1..20 {
            let root = t.root(seed);
            for (i, kid) in crate::game::children(&t, &root, true).iter().enumerate() {
                let want = crate::search::minimax(&t, kid, false, 4, 1);
                for (a, b) in [(want - 20, want + 20), (want, want + 1), (want - 1, want), (want + 1, want + 50)] {
                    let w = Window { alpha: a, beta: b };
                    let mut l = Local::new(0, &opts);
                    let mut buf = vec![Default::default(); 4 * 4];
                    assert_eq!(ab(&t, &mut l, &mut buf, kid, 4, 1, false, w), want.clamp(a, b), "seed {seed} child {i} {w:?}");
                    assert!(l.nodes > l.leaves && l.leaves > 0);
                }
            }
        }
    }
}
