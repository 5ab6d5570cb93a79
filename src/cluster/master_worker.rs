//! Ura, Tsuruoka and Chikayama's (2014, §3) master-worker search with
//! dynamic updates of the predicted minimal tree (`docs/model.md` §9.4).
//!
//! - **The master** (rank 0, [`Master`]) keeps its tree to depth d' in
//!   memory (moves generated once) and searches it again and again, each
//!   time a *pass*, with two windows: the *pass window*, narrowed by every
//!   value, and the *task window*, narrowed only by exact values that
//!   depend on no worker's unfinished search. A leaf at depth d' takes the
//!   worker's full-depth result if it settles the leaf in the pass window
//!   (*decided*); otherwise its deepest shallow result or its static
//!   evaluation (*uncertain*), and a task (the position, depth d − d', the
//!   task window, the signature) goes to a worker. A pass without
//!   uncertain values gives the root's value; otherwise the master tells
//!   every worker the pass is over and waits for results. The master's
//!   children are ordered by the values of the last pass, so the tree it
//!   predicts follows the workers' results.
//! - **A worker** ([`Worker`]) keeps a priority queue of tasks, searches
//!   the most important one by iterative deepening (+2 plies per
//!   repetition, reporting each finished depth when updates are on), drops
//!   the tasks a pass message did not renew, and owns a transposition
//!   table. Handlers cannot be interrupted, so a worker searches in slices
//!   of a node budget: after each it looks at its inbox ([`Transport::wake`])
//!   and takes the most important task again; an aborted search restarts
//!   from its table (the paper's own remark: the effort is not wasted).
//!
//! Exactness: the run ends only on a pass whose every leaf value is a
//! worker's full-depth result that settles the leaf in its pass window, so
//! the pass is a plain alpha-beta search of the whole tree.

use super::frontier::frontier;
use super::search::Searcher;
use super::transport::{Msg, Process, SharedEntry, Transport};
use crate::game::{MoveList, TreeSource, children};
use crate::search::NodeCounts;
use crate::value::{ROOT_ALPHA, ROOT_BETA, Window};
use std::collections::{BTreeMap, BTreeSet};

/// The master-worker's parameters, every default worked out
/// ([`super::launch_with`] resolves them from the asked
/// configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MwOptions {
    /// The master's depth d' (at most the search depth).
    pub master_depth: u32,
    /// Dynamic updates: workers report every finished depth (off: the full
    /// depth only, the paper's *without updates*).
    pub updates: bool,
    /// Nodes a worker searches before it looks at its inbox.
    pub slice: u64,
    /// *With share*: workers circulate the entries they store this many
    /// plies or fewer below a task's root around a ring (`None`: no
    /// sharing).
    pub share: Option<u32>,
    /// *NegaScout master*: children after the first are first searched
    /// with a window ε wide at the bound that can change (`None`: plain
    /// alpha-beta).
    pub epsilon: Option<i64>,
}

impl MwOptions {
    /// Master depth `master_depth`, with updates, the default slice, no
    /// sharing, the alpha-beta master.
    pub fn new(master_depth: u32) -> MwOptions {
        MwOptions { master_depth, updates: true, slice: DEFAULT_SLICE_NODES, share: None, epsilon: None }
    }
}

/// Nodes per worker slice (about 0.4 ms at the default node cost).
pub const DEFAULT_SLICE_NODES: u64 = 1024;

/// The default master's tree has at least this many leaves per worker.
pub const LEAVES_PER_WORKER: usize = 3;

/// A leaf whose full-depth results (this many) still do not settle it is
/// sent with the full window: its next result is exact, so every leaf is
/// settled in the end, whatever the windows of later passes.
const FULL_WINDOW_AFTER: u32 = 2;

/// The default d': the shallowest depth with at least
/// [`LEAVES_PER_WORKER`] leaves per worker, at most `depth − 1` (so a task
/// searches at least one ply).
pub fn default_master_depth<S: TreeSource>(src: &S, root: &S::Node, depth: u32, procs: usize) -> u32 {
    let most = depth.saturating_sub(1);
    let want = LEAVES_PER_WORKER * procs.saturating_sub(1).max(1);
    let mut d = 1.min(most);
    while d < most && frontier(src, root, d).0.len() < want {
        d += 1;
    }
    d
}

/// Nodes this many or fewer plies below a task's root are shared by
/// default: the most plies k with b^k ≤ 625 — the paper's 4 for b = 5 and
/// 2 for b = 20.
pub const SHARED_NODES: u64 = 625;

/// The default sharing depth: the most plies k with b^k ≤
/// [`SHARED_NODES`], b the root's number of moves; at least 1.
pub fn default_share_depth<S: TreeSource>(src: &S, root: &S::Node) -> u32 {
    let b = (children(src, root, true).len() as u64).max(2);
    let (mut k, mut n) = (0, 1u64);
    while n.saturating_mul(b) <= SHARED_NODES {
        n *= b;
        k += 1;
    }
    k.max(1)
}

/// The default ε of the NegaScout master: the mean absolute difference
/// between the root's static value and its children's (the typical size
/// of one move's effect on the evaluation), at least 1.
pub fn default_epsilon<S: TreeSource>(src: &S, root: &S::Node) -> i64 {
    let kids = children(src, root, true);
    if kids.is_empty() {
        return 1;
    }
    let r = src.horizon_value(root, true);
    let sum: i64 = kids.iter().map(|k| (src.horizon_value(k, false) - r).abs()).sum();
    (sum / kids.len() as i64).max(1)
}

/// What `value`, searched fail-hard in `w`, says: (lower, upper) bounds.
fn bounds(value: i64, w: Window) -> (i64, i64) {
    if value <= w.alpha {
        (ROOT_ALPHA, value)
    } else if value >= w.beta {
        (value, ROOT_BETA)
    } else {
        (value, value)
    }
}

/// The fail-hard value in `w` that bounds `(lo, hi)` settle, if they do.
fn settled(lo: i64, hi: i64, w: Window) -> Option<i64> {
    if lo == hi {
        Some(lo.clamp(w.alpha, w.beta))
    } else if hi <= w.alpha {
        Some(w.alpha)
    } else if lo >= w.beta {
        Some(w.beta)
    } else {
        None
    }
}

/// A node of the master's tree.
struct MNode<N> {
    node: N,
    max: bool,
    ply: u32,
    /// Children in the current order (`None`: not expanded yet).
    kids: Option<Vec<u32>>,
    /// The value of its last visit (`None`: never visited): the order.
    est: Option<i64>,
    /// Bounds on its value at full depth, from decided searches.
    lo: i64,
    hi: i64,
    /// A task leaf's deepest shallow result: depth and bounds.
    shallow: Option<(u32, i64, i64)>,
    /// A task leaf's worker (0: none yet).
    owner: u32,
    /// Full-depth results received.
    tries: u32,
}

/// The master (rank 0).
pub struct Master<S: TreeSource> {
    depth: u32,
    dm: u32,
    nodes: Vec<MNode<S::Node>>,
    pass: u32,
    finished: bool,
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
    pending: NodeCounts,
    epsilon: Option<i64>,
    /// Passes run.
    pub passes: u32,
}

impl<S: TreeSource> Master<S> {
    fn new(root: &S::Node, depth: u32, dm: u32, procs: usize, epsilon: Option<i64>) -> Master<S> {
        let root = MNode { node: root.clone(), max: true, ply: 0, kids: None, est: None, lo: ROOT_ALPHA, hi: ROOT_BETA, shallow: None, owner: 0, tries: 0 };
        Master {
            depth,
            dm: dm.min(depth),
            nodes: vec![root],
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
            pending: NodeCounts::default(),
            epsilon,
            passes: 0,
        }
    }

    fn flush<T: Transport<S::Node>>(&mut self, t: &mut T) {
        if self.pending.nodes > 0 {
            t.searched(self.pending);
            self.pending = NodeCounts::default();
        }
    }

    fn run_pass<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        self.pass += 1;
        self.passes += 1;
        let procs = t.procs();
        self.count_this.iter_mut().for_each(|c| *c = 0);
        self.idle = (1..procs as u32).filter(|&w| self.count_last[w as usize] == 0).collect();
        self.loadv.copy_from_slice(&self.count_last);
        self.load = (1..procs as u32).map(|w| (self.loadv[w as usize], w)).collect();
        let (v, decided) = self.visit(src, t, 0, Window::ROOT, Window::ROOT);
        self.flush(t);
        if decided {
            self.finished = true;
            t.done(v);
            for w in 1..procs {
                t.send(w, Msg::Stop);
            }
        } else {
            for w in 1..procs {
                t.send(w, Msg::Pass { pass: self.pass });
            }
            self.count_last.copy_from_slice(&self.count_this);
        }
    }

    /// Visits node `i` with pass window `w1` and task window `w2` (both
    /// from MAX's side, `w2` ⊇ `w1`): its fail-hard value in `w1` and
    /// whether it is decided.
    fn visit<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, i: usize, w1: Window, w2: Window) -> (i64, bool) {
        self.pending.nodes += 1;
        let n = &self.nodes[i];
        if let Some(v) = settled(n.lo, n.hi, w1) {
            return (v, true);
        }
        let (max, ply) = (n.max, n.ply);
        if ply >= self.dm {
            return self.leaf(src, t, i, w1, w2);
        }
        if self.nodes[i].kids.is_none() {
            self.expand(src, i);
        }
        self.pending.internal += 1;
        let Some(kids) = self.nodes[i].kids.take() else { unreachable!("expanded above") };
        if kids.is_empty() {
            let v = src.terminal_value(&self.nodes[i].node, max, ply);
            let n = &mut self.nodes[i];
            (n.lo, n.hi, n.kids) = (v, v, Some(kids));
            return (v.clamp(w1.alpha, w1.beta), true);
        }
        let mut kids = kids;
        // The prediction: the last pass's values, best first for the side to
        // move; children never visited keep the source's order, last.
        let nodes = &self.nodes;
        kids.sort_by_key(|&k| match nodes[k as usize].est {
            Some(v) => (0, if max { -v } else { v }),
            None => (1, 0),
        });
        let (mut a1, mut b1, mut a2, mut b2) = (w1.alpha, w1.beta, w2.alpha, w2.beta);
        let (mut all, mut cut) = (true, false);
        for (r, &k) in kids.iter().enumerate() {
            self.sig.push(r.min(u16::MAX as usize) as u16);
            let (v, dec) = self.child(src, t, k as usize, r > 0 && max, r > 0 && !max, (a1, b1, a2, b2));
            self.sig.pop();
            all &= dec;
            // Only an exact decided value narrows the task window.
            let exact = dec && v > a1 && v < b1;
            if max {
                a1 = a1.max(v);
                if exact {
                    a2 = a2.max(v);
                }
            } else {
                b1 = b1.min(v);
                if exact {
                    b2 = b2.min(v);
                }
            }
            if a1 >= b1 {
                cut = true;
                break;
            }
        }
        let value = match (max, cut) {
            (true, true) => w1.beta,
            (true, false) => a1,
            (false, true) => w1.alpha,
            (false, false) => b1,
        };
        let n = &mut self.nodes[i];
        n.kids = Some(kids);
        n.est = Some(value);
        if all {
            let (lo, hi) = bounds(value, w1);
            (n.lo, n.hi) = (n.lo.max(lo), n.hi.min(hi));
        }
        (value, all)
    }

    /// Child `k` in windows `(a1, b1)` and `(a2, b2)`; a later child of a
    /// MAX (`scout_max`) or MIN (`scout_min`) node with the NegaScout
    /// master: first with the ε-window at the bound that can change, then,
    /// if it fails there, with the whole window.
    fn child<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, k: usize, scout_max: bool, scout_min: bool, w: (i64, i64, i64, i64)) -> (i64, bool) {
        let (a1, b1, a2, b2) = w;
        let whole = |m: &mut Self, t: &mut T| m.visit(src, t, k, Window { alpha: a1, beta: b1 }, Window { alpha: a2, beta: b2 });
        let Some(e) = self.epsilon else { return whole(self, t) };
        if scout_max && a1.saturating_add(e) < b1 {
            let top = a1 + e;
            let (v, d) = self.visit(src, t, k, Window { alpha: a1, beta: top }, Window { alpha: a2, beta: top });
            if v < top { (v, d) } else { whole(self, t) }
        } else if scout_min && b1.saturating_sub(e) > a1 {
            let bottom = b1 - e;
            let (v, d) = self.visit(src, t, k, Window { alpha: bottom, beta: b1 }, Window { alpha: bottom, beta: b2 });
            if v > bottom { (v, d) } else { whole(self, t) }
        } else {
            whole(self, t)
        }
    }

    fn expand(&mut self, src: &S, i: usize) {
        let mut buf = vec![S::Slot::default(); src.slots()];
        let (node, max, ply) = (self.nodes[i].node.clone(), self.nodes[i].max, self.nodes[i].ply);
        let mut m = src.moves(&node, max, &mut buf);
        let mut kids = vec![];
        while let Some(h) = m.next() {
            kids.push(self.nodes.len() as u32);
            let child = m.child(&node, h);
            self.nodes.push(MNode {
                node: child,
                max: !max,
                ply: ply + 1,
                kids: None,
                est: None,
                lo: ROOT_ALPHA,
                hi: ROOT_BETA,
                shallow: None,
                owner: 0,
                tries: 0,
            });
        }
        self.nodes[i].kids = Some(kids);
    }

    /// A leaf of the master's tree (not settled by a full-depth result).
    fn leaf<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, i: usize, w1: Window, w2: Window) -> (i64, bool) {
        let n = &mut self.nodes[i];
        if n.ply >= self.depth {
            // The master's tree reaches the full depth: its own leaf.
            let v = src.horizon_value(&n.node, n.max);
            self.pending.leaves += 1;
            (n.lo, n.hi) = (v, v);
            return (v.clamp(w1.alpha, w1.beta), true);
        }
        let est = match n.shallow {
            Some((_, lo, hi)) => settled(lo, hi, w1),
            None => None,
        };
        let est = est.unwrap_or_else(|| src.horizon_value(&n.node, n.max).clamp(w1.alpha, w1.beta));
        n.est = Some(est);
        self.send_task(t, i, w2);
        (est, false)
    }

    /// Sends leaf `i`'s task with window `w2` to its worker (chosen for
    /// load balance; the owner kept unless the paper's three conditions
    /// move it).
    fn send_task<T: Transport<S::Node>>(&mut self, t: &mut T, i: usize, w2: Window) {
        let owner = self.nodes[i].owner;
        let w = if owner == 0 {
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
        self.count_this[w as usize] += 1;
        self.idle.remove(&w);
        let n = &mut self.nodes[i];
        n.owner = w;
        let window = if n.tries >= FULL_WINDOW_AFTER { Window::ROOT } else { w2 };
        let msg =
            Msg::Work { id: i as u32, node: n.node.clone(), max: n.max, ply: n.ply, depth: self.depth - n.ply, window, pass: self.pass, sig: self.sig.clone() };
        self.flush(t);
        t.send(w as usize, msg);
    }

    fn report<T: Transport<S::Node>>(&mut self, t: &mut T, id: u32, depth: u32, window: Window, value: i64) {
        if self.finished {
            return;
        }
        let Some(n) = self.nodes.get_mut(id as usize) else { return };
        let (lo, hi) = bounds(value, window);
        if n.ply + depth >= self.depth {
            (n.lo, n.hi) = (n.lo.max(lo), n.hi.min(hi));
            n.tries += 1;
        } else {
            n.shallow = match n.shallow {
                Some((d, l, h)) if d == depth => Some((d, l.max(lo), h.min(hi))),
                Some((d, l, h)) if d > depth => Some((d, l, h)),
                _ => Some((depth, lo, hi)),
            };
        }
        if !self.waking {
            self.waking = true;
            t.wake();
        }
    }
}

/// A task in a worker's queue.
struct WTask<N> {
    node: N,
    max: bool,
    ply: u32,
    full: u32,
    window: Window,
    pass: u32,
    sig: Vec<u16>,
}

/// A worker.
pub struct Worker<S: TreeSource> {
    searcher: Option<Searcher<S>>,
    slots: usize,
    opts: MwOptions,
    queue: BTreeMap<u32, WTask<S::Node>>,
    /// The deepest finished search of each task and its window.
    done: BTreeMap<u32, (u32, Window)>,
    pass_seen: u32,
    waking: bool,
    stopped: bool,
    /// The (task, depth) the last slice aborted, and the budget it had.
    last: Option<(u32, u32)>,
    budget: u64,
    /// Slices that ended before their search did.
    pub aborts: u64,
    /// Table entries received from the ring.
    pub absorbed: u64,
}

/// The next worker on the sharing ring (workers 1..procs).
fn next_on_ring(rank: usize, procs: usize) -> usize {
    if rank + 1 >= procs { 1 } else { rank + 1 }
}

impl<S: TreeSource> Worker<S> {
    fn new(slots: usize, opts: MwOptions) -> Worker<S> {
        Worker {
            searcher: None,
            slots,
            opts,
            queue: BTreeMap::new(),
            done: BTreeMap::new(),
            pass_seen: 0,
            waking: false,
            stopped: false,
            last: None,
            budget: opts.slice,
            aborts: 0,
            absorbed: 0,
        }
    }

    fn wake<T: Transport<S::Node>>(&mut self, t: &mut T) {
        if !self.waking && !self.stopped && !self.queue.is_empty() {
            self.waking = true;
            t.wake();
        }
    }

    /// The most important task (the paper's four levels: renewed since the
    /// last pass message, shallower finished search, earlier signature,
    /// narrower window; then the id).
    fn top(&self) -> Option<u32> {
        let key = |(&id, task): (&u32, &WTask<S::Node>)| {
            let fresh = task.pass > self.pass_seen;
            let depth = self.done.get(&id).map_or(0, |d| d.0);
            (!fresh, depth, task.sig.clone(), task.window.beta.saturating_sub(task.window.alpha), id)
        };
        self.queue.iter().map(key).min().map(|k| k.4)
    }

    /// The depth to search task `id` to next (`None`: nothing left to do).
    fn next_depth(&self, id: u32, task: &WTask<S::Node>) -> Option<u32> {
        let first = if task.full % 2 == 0 { 2 } else { 1 };
        let Some(&(d, w)) = self.done.get(&id) else { return Some(if self.opts.updates { first.min(task.full) } else { task.full }) };
        let covered = w.alpha <= task.window.alpha && w.beta >= task.window.beta;
        if covered && d >= task.full {
            None
        } else if self.opts.updates {
            Some((d + 2).min(task.full))
        } else {
            Some(task.full)
        }
    }

    fn slice<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        let (id, depth) = loop {
            let Some(id) = self.top() else { return };
            match self.queue.get(&id).and_then(|task| self.next_depth(id, task)) {
                Some(d) => break (id, d),
                None => {
                    self.queue.remove(&id);
                }
            }
        };
        let Some(task) = self.queue.get(&id) else { return };
        self.budget = if self.last == Some((id, depth)) { self.budget.saturating_mul(2) } else { self.opts.slice };
        let s = self.searcher.get_or_insert_with(|| Searcher::new(self.slots));
        s.share_ply = self.opts.share.map(|k| task.ply + k);
        let before = s.counts;
        s.limit = before.nodes.saturating_add(self.budget);
        let value = s.search(src, &task.node, task.max, depth, task.ply, task.window);
        s.limit = u64::MAX;
        let aborted = std::mem::take(&mut s.aborted);
        let c = s.counts;
        t.searched(NodeCounts { nodes: c.nodes - before.nodes, leaves: c.leaves - before.leaves, internal: c.internal - before.internal });
        if aborted {
            self.aborts += 1;
            self.last = Some((id, depth));
            return;
        }
        self.last = None;
        let (window, full) = (task.window, task.full);
        self.done.insert(id, (depth, window));
        if self.opts.updates || depth == full {
            t.send(0, Msg::Report { id, depth, window, value });
        }
        if depth >= full {
            self.queue.remove(&id);
        }
    }
}

/// One process of the master-worker search.
pub enum MasterWorker<S: TreeSource> {
    /// Rank 0.
    Master(Master<S>),
    /// The others.
    Worker(Worker<S>),
}

impl<S: TreeSource> MasterWorker<S> {
    /// What builds rank r's process of a run on `procs` (≥ 2) processes
    /// searching `root` to `depth` with `slots` table entries per worker (a
    /// real transport builds its own rank's only).
    pub fn maker(root: &S::Node, depth: u32, procs: usize, slots: usize, opts: MwOptions) -> impl FnMut(usize) -> MasterWorker<S> {
        let dm = opts.master_depth;
        let root = root.clone();
        move |r| {
            if r == 0 { MasterWorker::Master(Master::new(&root, depth, dm, procs, opts.epsilon)) } else { MasterWorker::Worker(Worker::new(slots, opts)) }
        }
    }
}

impl<S: TreeSource> Process<S> for MasterWorker<S> {
    fn start<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        match self {
            MasterWorker::Master(m) => m.run_pass(src, t),
            // The first worker starts the ring's message (three processes
            // or more: a ring of one worker shares with nobody).
            MasterWorker::Worker(w) if w.opts.share.is_some() && t.rank() == 1 && t.procs() > 2 => t.send(2, Msg::Share { entries: vec![] }),
            MasterWorker::Worker(_) => {}
        }
    }

    fn receive<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, _from: usize, msg: Msg<S::Node>) {
        match (self, msg) {
            (MasterWorker::Master(m), Msg::Report { id, depth, window, value }) => m.report(t, id, depth, window, value),
            (MasterWorker::Worker(w), Msg::Work { id, node, max, ply, depth, window, pass, sig }) => {
                // A task of a pass whose end has been heard of is stale: the
                // later pass sent it again if it still mattered.
                if w.stopped || pass < w.pass_seen || w.queue.get(&id).is_some_and(|q| q.pass > pass) {
                    return;
                }
                w.queue.insert(id, WTask { node, max, ply, full: depth, window, pass, sig });
                w.wake(t);
            }
            (MasterWorker::Worker(w), Msg::Pass { pass }) => {
                w.pass_seen = w.pass_seen.max(pass);
                let seen = w.pass_seen;
                w.queue.retain(|_, q| q.pass >= seen);
            }
            (MasterWorker::Worker(w), Msg::Share { mut entries }) => {
                if w.stopped {
                    return;
                }
                let (me, next) = (t.rank(), next_on_ring(t.rank(), t.procs()));
                let s = w.searcher.get_or_insert_with(|| Searcher::new(w.slots));
                for e in &entries {
                    s.absorb(src, e);
                }
                w.absorbed += entries.len() as u64;
                // Entries the next worker found have been all the way round.
                entries.retain(|e| e.origin as usize != next);
                entries.extend(s.outbox.drain(..).map(|e| SharedEntry { origin: me as u32, ..e }));
                t.send(next, Msg::Share { entries });
            }
            (MasterWorker::Worker(w), Msg::Stop) => {
                w.stopped = true;
                w.queue.clear();
            }
            _ => {}
        }
    }

    fn resume<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        match self {
            MasterWorker::Master(m) => {
                m.waking = false;
                if !m.finished {
                    m.run_pass(src, t);
                }
            }
            MasterWorker::Worker(w) => {
                w.waking = false;
                if !w.stopped {
                    w.slice(src, t);
                    w.wake(t);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::events::Delivery;
    use crate::cluster::machine::{self, Costs};
    use crate::tree::incremental::Incremental;

    /// A transport that records what the master sends.
    struct Record {
        sent: Vec<(usize, Msg<crate::tree::incremental::INode>)>,
        done: Option<i64>,
        woken: u32,
    }

    impl Transport<crate::tree::incremental::INode> for Record {
        fn rank(&self) -> usize {
            0
        }
        fn procs(&self) -> usize {
            3
        }
        fn send(&mut self, to: usize, msg: Msg<crate::tree::incremental::INode>) {
            self.sent.push((to, msg));
        }
        fn searched(&mut self, _: NodeCounts) {}
        fn done(&mut self, v: i64) {
            self.done = Some(v);
        }
        fn wake(&mut self) {
            self.woken += 1;
        }
    }

    /// A task sent: (worker, leaf, window relative to 2^30, signature).
    type Sent = (usize, u32, (i64, i64), Vec<u16>);

    /// The tasks sent since the last call.
    fn tasks(r: &mut Record) -> Vec<Sent> {
        let rel = |v: i64| if v == ROOT_ALPHA || v == ROOT_BETA { v } else { v - OFF };
        let out = r
            .sent
            .iter()
            .filter_map(|(to, m)| match m {
                Msg::Work { id, window, sig, .. } => Some((*to, *id, (rel(window.alpha), rel(window.beta)), sig.clone())),
                _ => None,
            })
            .collect();
        r.sent.clear();
        out
    }

    const OFF: i64 = 1 << 30;
    const A0: u32 = 3;
    const B0: u32 = 5;
    const B1: u32 = 6;

    #[test]
    fn the_masters_pass_and_task_windows_by_hand() {
        // b = 2, d = 3, d' = 2, 2 workers; values relative to 2^30. The
        // root (MAX) has A (id 1) and B (2), both MIN; A's leaves A0 (3),
        // A1 (4) are worth −272, +133 statically and −397, +344 at depth 1;
        // B's B0 (5), B1 (6): +108, +109 and +374, +176. Minimax: 176.
        let t = Incremental::new(2, 100).unwrap();
        let root = t.root(3);
        assert_eq!(crate::search::minimax(&t, &root, true, 3, 0), OFF + 176);
        let mut m = Master::<Incremental>::new(&root, 3, 2, 3, None);
        let mut r = Record { sent: vec![], done: None, woken: 0 };
        let full = Window::ROOT;
        // Pass 1: static values only, nothing decided; every leaf is a task
        // with the full task window, round robin over the workers. A = −272,
        // B = min(108, 109) in the pass window (−272, ∞): root 108.
        m.run_pass(&t, &mut r);
        let all = (ROOT_ALPHA, ROOT_BETA);
        assert_eq!(tasks(&mut r), [(1, A0, all, vec![0, 0]), (2, 4, all, vec![0, 1]), (1, B0, all, vec![1, 0]), (2, B1, all, vec![1, 1])]);
        // Pass 2, after A1's full-depth result (+344): B (108) now goes
        // first. B0, B1 are uncertain: B = 108 and the root's pass window is
        // (108, ∞), its task window still the full one. In A, A0's static
        // −272 is cut by the pass window (A = 108 ≤ 108), A1 is not visited;
        // A0's task keeps the full window: the pass window is a guess.
        m.report(&mut r, 4, 1, full, OFF + 344);
        assert_eq!(r.woken, 1);
        m.run_pass(&t, &mut r);
        assert_eq!(tasks(&mut r), [(1, B0, all, vec![0, 0]), (2, B1, all, vec![0, 1]), (1, A0, all, vec![1, 0])]);
        // Pass 3, after B0's (+374): B0 is decided and exact, so B1's task
        // window is (−∞, 374), as its pass window; B = 109 (B1's static
        // value) is uncertain, so the root's task window stays full while
        // its pass window is (109, ∞). In A, A1 goes first now (its pass-1
        // value was clamped to A's window then: −272 < A0's 108); its
        // decided +344 is exact in (109, ∞), so A0's task window is (−∞, 344).
        m.report(&mut r, B0, 1, full, OFF + 374);
        m.run_pass(&t, &mut r);
        assert_eq!(tasks(&mut r), [(2, B1, (ROOT_ALPHA, 374), vec![0, 1]), (1, A0, (ROOT_ALPHA, 344), vec![1, 1])]);
        assert_eq!(r.done, None);
        // Pass 4, after B1's (+176, in its task window) and A0's (−397): every
        // leaf visited is decided: B = 176, and in A, A1 (+344) then A0
        // (−397 ≤ 176) cut: the root is 176, and both
        // workers are stopped.
        m.report(&mut r, B1, 1, Window { alpha: ROOT_ALPHA, beta: OFF + 374 }, OFF + 176);
        m.report(&mut r, A0, 1, Window { alpha: ROOT_ALPHA, beta: OFF + 344 }, OFF - 397);
        m.run_pass(&t, &mut r);
        assert_eq!(r.done, Some(OFF + 176));
        assert_eq!(r.sent, [(1, Msg::Stop), (2, Msg::Stop)]);
        assert_eq!(m.passes, 4);
    }

    #[test]
    fn workers_cut_into_tiny_slices_still_return_the_minimax_value() {
        // Slices of a few nodes: nearly every search is aborted and restarted
        // from the worker's table, many times, with budgets that double.
        let t = Incremental::new(3, 100).unwrap();
        for seed in 1..=6 {
            let root = t.root(seed);
            let want = crate::search::minimax(&t, &root, true, 7, 0);
            for (procs, dm) in [(2, 1), (3, 2), (8, 3)] {
                for updates in [true, false] {
                    for delivery in [Delivery::Timed, Delivery::Adversarial(seed)] {
                        let opts = MwOptions { updates, slice: 3, ..MwOptions::new(dm) };
                        let mut p: Vec<MasterWorker<Incremental>> = (0..procs).map(MasterWorker::maker(&root, 7, procs, 1 << 10, opts)).collect();
                        let s = machine::run(&t, &mut p, Costs::default(), delivery);
                        assert_eq!(s.map(|s| s.value), Some(want), "seed {seed} procs {procs} updates {updates} {delivery:?}");
                        let aborts: u64 = p.iter().map(|q| if let MasterWorker::Worker(w) = q { w.aborts } else { 0 }).sum();
                        assert!(aborts > 10, "{aborts}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_negascout_master_scouts_with_epsilon_windows_by_hand() {
        // The tree of the hand-worked case above, ε = 10 (relative values).
        let t = Incremental::new(2, 100).unwrap();
        let root = t.root(3);
        let mut m = Master::<Incremental>::new(&root, 3, 2, 3, Some(10));
        let mut r = Record { sent: vec![], done: None, woken: 0 };
        let all = (ROOT_ALPHA, ROOT_BETA);
        // Pass 1. A (first child) whole: A0 −272, then A1 scouted at A's
        // bound that can fall, (−282, −272): its 133 fails high there, so
        // A = −272. B scouted in (−272, −262): B0 and B1 fail high (−262),
        // so B fails high and is searched again in (−272, ∞): B0 = 108,
        // then B1 scouted in (98, 108) fails high: B = 108, the root 108.
        // Each scout's task window is cut at the scout's bound.
        m.run_pass(&t, &mut r);
        assert_eq!(
            tasks(&mut r),
            [
                (1, A0, all, vec![0, 0]),
                (2, 4, (-282, ROOT_BETA), vec![0, 1]),
                (1, B0, (ROOT_ALPHA, -262), vec![1, 0]),
                (2, B1, (ROOT_ALPHA, -262), vec![1, 1]),
                (1, B0, all, vec![1, 0]),
                (2, B1, (98, ROOT_BETA), vec![1, 1]),
            ]
        );
        // Pass 2, every leaf's exact depth-1 value known: B goes first,
        // B0 = 374, B1's scout (364, 374) fails low (176) and its whole
        // search gives 176; A's scout (176, 186) fails low at A0 (−397):
        // decided, 176, no task.
        for (id, v) in [(A0, -397), (4, 344), (B0, 374), (B1, 176)] {
            m.report(&mut r, id, 1, Window::ROOT, OFF + v);
        }
        m.run_pass(&t, &mut r);
        assert_eq!(r.done, Some(OFF + 176));
        assert_eq!(tasks(&mut r), []);
    }

    #[test]
    fn workers_with_share_absorb_the_rings_entries() {
        // b = 5, d = 9 on 4 workers, sharing 4 plies below each task's root:
        // every worker receives entries, the run is exact, and without
        // sharing no entry moves.
        let t = Incremental::new(5, 100).unwrap();
        let root = t.root(11);
        let want = crate::search::minimax(&t, &root, true, 9, 0);
        assert_eq!(default_share_depth(&t, &root), 4);
        assert_eq!(default_share_depth(&Incremental::new(20, 100).unwrap(), &Incremental::new(20, 100).unwrap().root(1)), 2);
        for share in [Some(4), None] {
            let opts = MwOptions { share, ..MwOptions::new(2) };
            let mut p: Vec<MasterWorker<Incremental>> = (0..5).map(MasterWorker::maker(&root, 9, 5, 1 << 16, opts)).collect();
            let s = machine::run(&t, &mut p, Costs::default(), Delivery::Timed);
            assert_eq!(s.map(|s| s.value), Some(want));
            let absorbed: Vec<u64> = p.iter().filter_map(|q| if let MasterWorker::Worker(w) = q { Some(w.absorbed) } else { None }).collect();
            if share.is_some() {
                assert!(absorbed.iter().all(|&a| a > 0), "{absorbed:?}");
            } else {
                assert_eq!(absorbed, [0; 4]);
            }
        }
    }
}
