//! The master of Ura, Tsuruoka and Chikayama's (2014) master-worker (§3.1,
//! Fig. 4, "MasterAlphaBeta"): passes over its tree to depth d' with a pass
//! window and a task window, as the paper states its three rules:
//!
//! - the task window rises with the pass window after every child that had
//!   no uncertain value (Fig. 4 lines 19-21: `a2 = max(a2, score)`,
//!   `score = max(a1, value)`; the MIN mirror);
//! - a node visited for the first time is first searched 2 plies shallower
//!   (lines 13-14: iterative deepening at the master; the shallow search's
//!   leaves take static values and send no task), which orders its
//!   children;
//! - a task leaf (EvalAndSendTask) takes the deepest result that settles it
//!   in the pass window, full-depth bounds first, then each shallower
//!   result in turn, then the static evaluation; unless a full-depth result
//!   decides it, it is sent as a task in the task window.
//!
//! The NegaScout master (§5.4, Table 6; `epsilon` set) searches every child
//! after a node's first with a null pass window, again with the whole pass
//! window only when that fails toward the side to move, and sends a task
//! its leaf's *ε-window*, (a1 − ε, b1 + ε) around the leaf's pass window,
//! instead of the task window; the same ε-window again as long as later pass
//! windows lie inside it, so the worker's search goes on and its results
//! keep settling the leaf.
//!
//! The master's pass costs its own time per node (the simulated machine
//! charges it [`Transport::walked`]), not a worker's search cost.

use super::tree::MTree;
use super::{FULL_WINDOW_AFTER, settled};
use super::MwMsg;
use crate::cluster::exec::transport::{Msg, Task, Transport};
use crate::game::TreeSource;
use crate::search::NodeCounts;
use crate::tt::Bound;
use crate::value::{ROOT_ALPHA, ROOT_BETA, Window};
use std::collections::{BTreeSet, HashMap};

/// The master (rank 0).
pub struct Master<S: TreeSource> {
    depth: u32,
    dm: u32,
    pub(super) tree: MTree<S::Node>,
    pass: u32,
    pub(super) finished: bool,
    waking: bool,
    /// Positions sent to each worker in the last pass and in this one.
    count_last: Vec<u32>,
    count_this: Vec<u32>,
    /// (load, worker) for new positions: last pass's count plus this pass's
    /// new positions.
    load: BTreeSet<(u32, u32)>,
    loadv: Vec<u32>,
    cursor: u32,
    /// Workers with no positions in the last pass nor yet in this one.
    idle: BTreeSet<u32>,
    sig: Vec<u16>,
    /// Which children of the nodes on the current path were taken first
    /// as decided, each node's from where its visit began.
    decided: Vec<bool>,
    pending: NodeCounts,
    epsilon: Option<i64>,
    /// The NegaScout master's ε-window last sent for each task leaf, and
    /// the pass that sent it (a side table: only the leaves that had a
    /// task, and only with `epsilon`).
    pub(super) sent: HashMap<u32, (Window, u32)>,
    /// Passes run.
    pub passes: u32,
    /// Tasks sent, and of them with the full window.
    pub tasks_sent: u64,
    pub full_window_sends: u64,
}

impl<S: TreeSource> Master<S> {
    pub(super) fn new(root: &S::Node, depth: u32, dm: u32, procs: usize, epsilon: Option<i64>) -> Master<S> {
        Master {
            depth,
            dm: dm.min(depth),
            tree: MTree::new(root),
            pass: 0,
            finished: false,
            waking: false,
            count_last: vec![0; procs],
            count_this: vec![0; procs],
            load: BTreeSet::new(),
            loadv: vec![0; procs],
            cursor: 1,
            idle: BTreeSet::new(),
            sig: vec![],
            decided: vec![],
            pending: NodeCounts::default(),
            epsilon,
            sent: HashMap::new(),
            passes: 0,
            tasks_sent: 0,
            full_window_sends: 0,
        }
    }

    /// Nodes in the master's tree.
    pub fn tree_nodes(&self) -> usize {
        self.tree.nodes.len()
    }

    /// Bytes the master's tree takes.
    pub fn tree_bytes(&self) -> u64 {
        self.tree.bytes()
    }

    fn flush<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, t: &mut T) {
        if self.pending.nodes > 0 {
            t.walked(self.pending);
            self.pending = NodeCounts::default();
        }
    }

    pub(super) fn run_pass<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, src: &S, t: &mut T) {
        self.pass += 1;
        self.passes += 1;
        let procs = t.procs();
        self.count_this.iter_mut().for_each(|c| *c = 0);
        self.idle = (1..procs as u32).filter(|&w| self.count_last[w as usize] == 0).collect();
        self.loadv.copy_from_slice(&self.count_last);
        self.load = (1..procs as u32).map(|w| (self.loadv[w as usize], w)).collect();
        let (v, decided) = self.visit(src, t, 0, Window::ROOT, Window::ROOT, self.dm);
        self.flush(t);
        if decided {
            self.finished = true;
            t.done(v);
            for w in 1..procs {
                t.send(w, Msg::Stop);
            }
        } else {
            for w in 1..procs {
                t.send(w, Msg::Own(MwMsg::Pass { pass: self.pass }));
            }
            self.count_last.copy_from_slice(&self.count_this);
        }
    }

    /// Visits node `i` with pass window `w1` and task window `w2` (both
    /// from MAX's side, `w2` ⊇ `w1`), its leaves at ply `leaf` (d' in a
    /// pass, less in a shallow search, which sends no task): its fail-hard
    /// value in `w1` and whether it is decided (no uncertain value below).
    fn visit<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, src: &S, t: &mut T, i: usize, w1: Window, w2: Window, leaf: u32) -> (i64, bool) {
        self.pending.nodes += 1;
        let n = &self.tree.nodes[i];
        if let Some(v) = settled(n.lo, n.hi, w1) {
            return (v, true);
        }
        let (max, ply) = (n.max, n.ply);
        if ply >= leaf {
            return if leaf == self.dm { self.leaf(src, t, i, w1, w2) } else { self.static_leaf(src, i, w1) };
        }
        if !self.tree.expanded(i) {
            self.tree.expand(src, i);
            // Fig. 4 lines 13-14: the first visit searches 2 plies
            // shallower first, to order the children (unless that search
            // would be the node's own static value).
            if ply + 2 < leaf {
                self.visit(src, t, i, w1, w2, leaf - 2);
            }
        }
        self.pending.internal += 1;
        let kids = self.tree.nodes[i].kids as usize;
        if kids == 0 {
            let v = src.terminal_value(&self.tree.nodes[i].node, max, ply);
            let n = &mut self.tree.nodes[i];
            (n.lo, n.hi, n.est) = (v, v, v);
            return (v.clamp(w1.alpha, w1.beta), true);
        }
        // The prediction: the last visit's values, best first for the side
        // to move; children never visited keep their order, last.
        self.tree.sort_children(i);
        // Both windows: (a1, b1, a2, b2).
        let mut w = (w1.alpha, w1.beta, w2.alpha, w2.beta);
        let (mut all, mut cut) = (true, false);
        // §3.1: "When the master can use decided values of some children
        // with the pass window, it updates both the pass window and the
        // task window using the decided values, and then searches other
        // children": the children whose full-depth bounds settle them
        // first, in order, each narrowing both windows (a decided value
        // narrows the task window too), then the others in the narrowed
        // windows. Which were taken is marked on a stack shared by the
        // recursion (`decided`, this node's `kids` entries from `base`).
        let base = self.decided.len();
        self.decided.resize(base + kids, false);
        for r in 0..kids {
            let n = &self.tree.nodes[self.tree.child(i, r)];
            let Some(v) = settled(n.lo, n.hi, Window { alpha: w.0, beta: w.1 }) else { continue };
            self.pending.nodes += 1;
            self.decided[base + r] = true;
            w = narrow(max, w, v, true);
            cut = w.0 >= w.1;
            if cut {
                break;
            }
        }
        for r in 0..kids {
            if cut {
                break;
            }
            if self.decided[base + r] {
                continue;
            }
            let k = self.tree.child(i, r);
            self.sig.push(r.min(u16::MAX as usize) as u16);
            let (v, dec) = self.child(src, t, k, r > 0 && max, r > 0 && !max, w, leaf);
            self.sig.pop();
            all &= dec;
            w = narrow(max, w, v, dec);
            cut = w.0 >= w.1;
        }
        self.decided.truncate(base);
        let (a1, b1) = (w.0, w.1);
        let value = match (max, cut) {
            (true, true) => w1.beta,
            (true, false) => a1,
            (false, true) => w1.alpha,
            (false, false) => b1,
        };
        let n = &mut self.tree.nodes[i];
        n.est = value;
        if all {
            let (lo, hi) = Bound::of(value, w1).range(value);
            (n.lo, n.hi) = (n.lo.max(lo), n.hi.min(hi));
        }
        (value, all)
    }

    /// Child `k` in windows `(a1, b1)` and `(a2, b2)`; a later child of a
    /// MAX (`scout_max`) or MIN (`scout_min`) node with the NegaScout
    /// master: first with the null window at the bound that can change,
    /// (a1, a1 + 1) or (b1 − 1, b1), then with the whole window if it fails
    /// toward the side to move (the first child, and a window already null,
    /// whole at once).
    #[allow(clippy::too_many_arguments)]
    fn child<T: Transport<S::Node, MwMsg<S::Node>>>(
        &mut self,
        src: &S,
        t: &mut T,
        k: usize,
        scout_max: bool,
        scout_min: bool,
        w: (i64, i64, i64, i64),
        leaf: u32,
    ) -> (i64, bool) {
        let (a1, b1, a2, b2) = w;
        let w2 = Window { alpha: a2, beta: b2 };
        let whole = |m: &mut Self, t: &mut T| m.visit(src, t, k, Window { alpha: a1, beta: b1 }, w2, leaf);
        if self.epsilon.is_none() {
            return whole(self, t);
        }
        // The scout's value is fail-hard in the null window: at its lower
        // bound the child cannot raise a1 (MAX) and the scout stands; at
        // the upper bound it may, and only the whole window tells by how
        // much. A scout that stands is decided only if its leaves were, so
        // a pass without uncertain values is still an exact search. The
        // task window is not narrowed: the leaves send their ε-window.
        if scout_max && a1 + 1 < b1 {
            let (v, d) = self.visit(src, t, k, Window { alpha: a1, beta: a1 + 1 }, w2, leaf);
            if v <= a1 { (v, d) } else { whole(self, t) }
        } else if scout_min && b1 - 1 > a1 {
            let (v, d) = self.visit(src, t, k, Window { alpha: b1 - 1, beta: b1 }, w2, leaf);
            if v >= b1 { (v, d) } else { whole(self, t) }
        } else {
            whole(self, t)
        }
    }

    /// A leaf of a shallow search: its static value, uncertain.
    fn static_leaf(&mut self, src: &S, i: usize, w1: Window) -> (i64, bool) {
        let n = &mut self.tree.nodes[i];
        let v = src.horizon_value(&n.node, n.max).clamp(w1.alpha, w1.beta);
        n.est = v;
        (v, false)
    }

    /// A leaf of the master's tree (not settled by a full-depth result):
    /// EvalAndSendTask.
    fn leaf<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, src: &S, t: &mut T, i: usize, w1: Window, w2: Window) -> (i64, bool) {
        let n = &mut self.tree.nodes[i];
        if n.ply >= self.depth {
            // The master's tree reaches the full depth: its own leaf.
            let v = src.horizon_value(&n.node, n.max);
            self.pending.leaves += 1;
            (n.lo, n.hi, n.est) = (v, v, v);
            return (v.clamp(w1.alpha, w1.beta), true);
        }
        let est = self.uncertain_value(src, i, w1);
        self.tree.nodes[i].est = est;
        self.send_task(t, i, w1, w2);
        (est, false)
    }

    /// The value of leaf `i` in pass window `w1` when its full-depth bounds
    /// do not settle it (`visit` checked them first): its shallow results,
    /// deepest first, then each shallower in turn, the first that settles
    /// it; else its static evaluation.
    pub(super) fn uncertain_value(&self, src: &S, i: usize, w1: Window) -> i64 {
        let shallow = self.tree.shallow(i).iter().find_map(|&(_, lo, hi)| settled(lo, hi, w1));
        let n = &self.tree.nodes[i];
        shallow.unwrap_or_else(|| src.horizon_value(&n.node, n.max).clamp(w1.alpha, w1.beta))
    }

    /// Sends leaf `i`'s task to its worker (chosen for load balance; the
    /// owner kept unless the paper's three conditions move it): with
    /// window `w2`, or with the NegaScout master its ε-window around pass
    /// window `w1`.
    fn send_task<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, t: &mut T, i: usize, w1: Window, w2: Window) {
        let full = self.tree.nodes[i].tries as u32 >= FULL_WINDOW_AFTER;
        let (window, again) = match self.epsilon {
            None => (if full { Window::ROOT } else { w2 }, false),
            Some(e) => {
                let last = self.sent.get(&(i as u32)).copied();
                let window = match last {
                    // Two unsettling full-depth results: the full window, as
                    // without ε (it contains every later pass window, so it
                    // is kept from then on).
                    _ if full => Window::ROOT,
                    Some((w, _)) if w.alpha <= w1.alpha && w1.beta <= w.beta => w,
                    _ => epsilon_window(w1, e),
                };
                // The scout and the whole search of one pass may both reach
                // a leaf: the same window twice in a pass is one task, and a
                // new one goes to the worker that has it, not counted twice.
                let again = last.is_some_and(|(_, p)| p == self.pass);
                if again && last.is_some_and(|(w, _)| w == window) {
                    return;
                }
                self.sent.insert(i as u32, (window, self.pass));
                (window, again)
            }
        };
        let owner = self.tree.nodes[i].owner;
        let w = if again {
            owner
        } else if owner == 0 {
            // A new position: the least loaded worker, round robin among equals.
            let Some(&(l, _)) = self.load.first() else { return };
            let pick = self.load.range((l, self.cursor)..=(l, u32::MAX)).next().or(self.load.first()).copied();
            let Some((l, w)) = pick else { return };
            self.load.remove(&(l, w));
            self.load.insert((l + 1, w));
            self.loadv[w as usize] = l + 1;
            self.cursor = w + 1;
            w
        } else if self.count_this[owner as usize] >= 1 && !self.idle.is_empty() {
            // Not sent yet in this pass (a leaf is visited once a pass), an
            // idle worker exists and the owner already has a position: move.
            self.idle.pop_first().unwrap_or(owner)
        } else {
            owner
        };
        if !again {
            self.count_this[w as usize] += 1;
            self.idle.remove(&w);
        }
        let n = &mut self.tree.nodes[i];
        n.owner = w;
        self.tasks_sent += 1;
        self.full_window_sends += u64::from(full);
        let msg = Msg::Own(MwMsg::Work {
            job: Task { id: i as u32, node: n.node.clone(), max: n.max, ply: n.ply, depth: self.depth - n.ply, window },
            pass: self.pass,
            sig: self.sig.clone(),
        });
        self.flush(t);
        t.send(w as usize, msg);
    }

    /// A worker's result for leaf `id`: to `depth` in `window`, worth `value`.
    pub(super) fn report<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, t: &mut T, id: u32, depth: u32, window: Window, value: i64) {
        if self.finished || id as usize >= self.tree.nodes.len() {
            return;
        }
        let (lo, hi) = Bound::of(value, window).range(value);
        let n = &mut self.tree.nodes[id as usize];
        if n.ply + depth >= self.depth {
            (n.lo, n.hi) = (n.lo.max(lo), n.hi.min(hi));
            n.tries = n.tries.saturating_add(1);
        } else {
            self.tree.add_shallow(id as usize, depth, lo, hi);
        }
        if !self.waking {
            self.waking = true;
            t.wake();
        }
    }

    /// The wake-up it asked for: the next pass.
    pub(super) fn on_resume<T: Transport<S::Node, MwMsg<S::Node>>>(&mut self, src: &S, t: &mut T) {
        self.waking = false;
        if !self.finished {
            self.run_pass(src, t);
        }
    }
}

/// Fig. 4 lines 19-21 at a MAX (`max`) or MIN node, both windows as
/// (a1, b1, a2, b2): the pass window takes a child's value `v`; the task
/// window takes the pass window's bound after a child with no uncertain
/// value (`dec`: score = max(a1, value) ≥ a2); the MIN node the mirror.
fn narrow(max: bool, (a1, b1, a2, b2): (i64, i64, i64, i64), v: i64, dec: bool) -> (i64, i64, i64, i64) {
    if max {
        let a1 = a1.max(v);
        (a1, b1, if dec { a2.max(a1) } else { a2 }, b2)
    } else {
        let b1 = b1.min(v);
        (a1, b1, a2, if dec { b2.min(b1) } else { b2 })
    }
}

/// The ε-window around pass window `w`: (α − ε, β + ε), within the root's
/// window.
pub(super) fn epsilon_window(w: Window, e: i64) -> Window {
    Window { alpha: w.alpha.saturating_sub(e).max(ROOT_ALPHA), beta: w.beta.saturating_add(e).min(ROOT_BETA) }
}
