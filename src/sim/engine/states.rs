//! The thesis's states, one routine each: start, **expand**, **search**,
//! **eval**, **return**, **update** and the propagation of new bounds; a
//! routine returns the state it hands over to ([`Next`]) (thesis §6.2;
//! `docs/model.md` §5.3). The idle state is in `idle`.

use super::heap::{link, push_children, unlink};
use super::machine::{Machine, SimIdle};
use super::spec::cost;
use super::stats::State;
use super::types::{Next, SNode};
use super::{FLAG_BLOCK, NONE};
use crate::game::{MoveList, TreeSource};
use crate::schemes::SplitScheme;
use crate::sim::engine::record::Recorder;
use crate::sim::memory::Proc;
use crate::value::{ROOT_ALPHA, Window};

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// Processor 0 before the search: allocates the root.
    pub(crate) async fn start(&self, p: Proc) -> Next {
        self.enter(p, State::Search, NONE).await;
        let r = self.alloc(p).await;
        let mut w = self.w.borrow_mut();
        w.root = r;
        let n = &mut w.nodes[r as usize];
        *n = SNode { generation: n.generation, ..SNode::blank() };
        if self.cfg.depth == 0 {
            n.value = self.src.horizon_value(&self.root_node, true);
        }
        n.node = Some(self.root_node.clone());
        n.window = Window::ROOT;
        n.score = ROOT_ALPHA;
        n.threads = 1;
        n.pv = true;
        n.allocated = true;
        n.data = self.scheme.root();
        w.stats.nodes += 1;
        if self.cfg.depth == 0 {
            w.stats.leaves += 1;
            Next::Eval(r)
        } else {
            Next::Expand(r)
        }
    }

    /// **expand**: generate the node's moves (it is locked since its creation).
    pub(crate) async fn expand(&self, p: Proc, c: u32) -> Next {
        self.enter(p, State::Expand, c).await;
        self.work(p, cost::EXPAND).await;
        self.write(p, self.blk(c)).await;
        let mut w = self.w.borrow_mut();
        let w = &mut *w;
        let bw = self.b;
        let n = &mut w.nodes[c as usize];
        let node = n.node.as_ref().expect("an internal node has its position");
        let moves = self.src.moves(node, n.max, &mut w.bufs[c as usize * bw..(c as usize + 1) * bw]);
        let len = moves.len();
        // A game over before the horizon: a leaf after all, valued now.
        let terminal = (len == 0).then(|| self.src.terminal_value(node, n.max, n.ply));
        n.cursor = Some(self.src.detach(moves));
        n.left = len;
        n.moves = len;
        n.fini = 0;
        if let Some(v) = terminal {
            n.value = v;
            w.stats.leaves += 1;
            return Next::Eval(c);
        }
        Next::Search(c)
    }

    /// **search** (node locked): return on a cut-off or when no move is
    /// left; else allocate the next move's child, unlock, go to the child.
    pub(crate) async fn search(&self, p: Proc, c: u32) -> Next {
        self.enter(p, State::Search, c).await;
        self.work(p, cost::SEARCH).await;
        let cb = self.blk(c);
        self.write(p, cb).await;
        {
            let mut w = self.w.borrow_mut();
            let n = &mut w.nodes[c as usize];
            if n.max && n.score >= n.window.beta {
                n.score = n.window.beta;
                return Next::Return(c);
            }
            if !n.max && n.score <= n.window.alpha {
                n.score = n.window.alpha;
                return Next::Return(c);
            }
            if n.left == 0 {
                return Next::Return(c);
            }
        }
        if self.mailboxes() {
            self.share_work(p, c).await;
        }
        let id = self.alloc(p).await;
        let leaf = {
            let mut w = self.w.borrow_mut();
            let w = &mut *w;
            let bw = self.b;
            let n = &mut w.nodes[c as usize];
            let cursor = n.cursor.expect("an expanded node has a cursor");
            let mut moves = self.src.resume(cursor, &mut w.bufs[c as usize * bw..(c as usize + 1) * bw]);
            let k = moves.next().expect("moves left");
            let ply = n.ply + 1;
            let leaf = ply >= self.cfg.depth;
            let parent = n.node.as_ref().expect("an internal node has its position");
            let (node, value) = if leaf { (None, moves.leaf_value(parent, k)) } else { (Some(moves.child(parent, k)), 0) };
            let cursor = self.src.detach(moves);
            n.cursor = Some(cursor);
            let index = T::handed_out(&cursor);
            // The child's window is the parent's at the moment it is created.
            let window = n.window.child(n.max, n.score);
            let child_max = !n.max;
            let pv = n.pv && index == 1;
            let data = self.scheme.child(&n.view(), &n.data, index, child_max, window);
            n.left -= 1;
            let m = &mut w.nodes[id as usize];
            *m = SNode {
                window,
                score: if child_max { window.alpha } else { window.beta },
                node,
                value,
                parent: c,
                generation: m.generation,
                threads: 1,
                ply,
                index,
                max: child_max,
                pv,
                allocated: true,
                data,
                ..SNode::blank()
            };
            link(&mut w.nodes, c, id);
            w.stats.nodes += 1;
            w.last_progress = w.sched.clock(p);
            if leaf {
                w.stats.leaves += 1;
            }
            leaf
        };
        self.unlock(p, cb).await;
        if leaf { Next::Eval(id) } else { Next::Expand(id) }
    }

    /// **eval**: the leaf's score is its value (an artificial leaf's pscore).
    pub(crate) async fn eval(&self, p: Proc, c: u32) -> Next {
        self.enter(p, State::Eval, c).await;
        self.work(p, cost::EVAL).await;
        self.write(p, self.blk(c)).await;
        let mut w = self.w.borrow_mut();
        let n = &mut w.nodes[c as usize];
        n.score = n.value;
        Next::Return(c)
    }

    /// **return** (node locked): leave it to the others still working at it;
    /// else end the search at the root; else free it and update the parent.
    pub(crate) async fn ret(&self, p: Proc, c: u32) -> Next {
        self.enter(p, State::Return, c).await;
        self.work(p, cost::RETURN).await;
        let cb = self.blk(c);
        self.write(p, cb).await;
        let (shared, root, value, parent) = {
            let mut w = self.w.borrow_mut();
            let root = w.root == c;
            let n = &mut w.nodes[c as usize];
            let shared = n.threads > 1;
            if shared {
                n.threads -= 1;
            }
            (shared, root, n.score, n.parent)
        };
        if shared {
            self.unlock(p, cb).await;
            return Next::Idle;
        }
        if root {
            self.unlock(p, cb).await;
            self.write(p, FLAG_BLOCK).await;
            let mut w = self.w.borrow_mut();
            w.flag = true;
            w.stats.value = value;
            w.finish = Some(w.sched.clock(p));
            return Next::Exit;
        }
        // The node stays locked until the parent's lock is held, so nobody
        // walking the tree meets a freed node through the parent.
        self.lock(p, self.blk(parent)).await;
        {
            let mut w = self.w.borrow_mut();
            unlink(&mut w.nodes, parent, c);
            let n = &mut w.nodes[c as usize];
            n.allocated = false;
            n.generation = n.generation.wrapping_add(1);
            n.cursor = None;
            n.node = None;
            w.last_progress = w.sched.clock(p);
        }
        self.free(p, c).await;
        Next::Update(parent, value)
    }

    /// **update** (node locked): one more move finished; take its value if
    /// better, and tell the subtree others search below of the new bound.
    pub(crate) async fn update(&self, p: Proc, c: u32, value: i64) -> Next {
        self.enter(p, State::Update, c).await;
        self.work(p, cost::UPDATE).await;
        self.write(p, self.blk(c)).await;
        let tell = {
            let mut w = self.w.borrow_mut();
            let n = &mut w.nodes[c as usize];
            n.fini += 1;
            let v = n.view();
            self.scheme.finished(&v, &mut n.data);
            let improved = if n.max { value > n.score } else { value < n.score };
            if improved {
                n.score = value;
            }
            (improved && n.threads > 1).then_some(n.max)
        };
        if let Some(from_max) = tell {
            self.propagate(p, c, from_max, value).await;
        }
        if self.updates() {
            self.updated(p, c).await;
        }
        Next::Search(c)
    }

    /// Tells the allocated subtree below node `c` of a new bound `v`: a new
    /// lower bound if `c` is MAX, else a new upper bound. Bounds only
    /// tighten going down, so below a node that has the bound already the
    /// walk stops. Each node is read, and written if told (1 tick).
    pub(crate) async fn propagate(&self, p: Proc, c: u32, from_max: bool, v: i64) {
        let mut stack = std::mem::take(&mut self.w.borrow_mut().walks[p]);
        stack.clear();
        push_children(&self.w.borrow().nodes, c, &mut stack);
        while let Some((x, g)) = stack.pop() {
            let b = self.blk(x);
            self.read(p, b).await;
            {
                let w = self.w.borrow();
                let n = &w.nodes[x as usize];
                if !n.is(g) || !if from_max { n.window.alpha < v } else { n.window.beta > v } {
                    continue;
                }
            }
            self.write(p, b).await;
            {
                let mut w = self.w.borrow_mut();
                let n = &mut w.nodes[x as usize];
                if !n.is(g) {
                    continue;
                }
                n.window = n.window.raise(from_max, v);
                // A node on the bound's side keeps its score inside the window.
                if n.max == from_max {
                    n.score = if n.max { n.score.max(n.window.alpha) } else { n.score.min(n.window.beta) };
                }
                w.stats.told += 1;
                push_children(&w.nodes, x, &mut stack);
            }
            self.work(p, 1).await;
        }
        self.w.borrow_mut().walks[p] = stack;
    }
}
