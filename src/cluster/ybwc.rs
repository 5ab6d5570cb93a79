//! The Young Brothers Wait Concept over messages (`docs/model.md` §9.6):
//! Feldmann's distributed YBWC (1993) as OthelloX's MPI search (2017,
//! §4.5) runs it, every process the same code.
//!
//! - **Frames.** Rank 0 owns the root. A process searches a node of
//!   remaining depth above the granularity g with an explicit stack of
//!   frames (its children in the source's order, the next child to start,
//!   the window as it narrows, the children given to other processes), so
//!   that it can answer messages between any two steps. At or below g a
//!   *piece* is searched by the sequential baseline
//!   ([`super::search::Searcher`], the process's own table) in slices of a
//!   node budget, with a [`Transport::wake`] between slices, as the
//!   master-worker's workers do.
//! - **The YBW rule.** A frame's children after the first are *available*
//!   to other processes only once its first child is fully evaluated.
//! - **Work requests.** A process without work sends a [`Msg::Request`]: at
//!   the start to rank 0, after a task to the process that gave it. A
//!   busy process with an available child gives the next one of its
//!   *shallowest* frame that has one (the largest piece) as a [`Msg::Task`];
//!   with none, it passes the request on to a helper searching a frame of
//!   its own (the work that is left lies below them), or, with none of
//!   those, keeps it. Kept requests stay with their keeper when its task
//!   ends and are served from its next task (the keeper's one request
//!   stands for them). An idle process passes a request it receives to
//!   rank 0, which owns the root and is busy until the end. No request is
//!   ever answered "no work", so no process polls, and no request waits in
//!   a cycle (`docs/decisions.md`, issue 25).
//! - **Results and cut-offs.** A helper searches its task with frames of its
//!   own (it can be helped in turn) and returns the fail-hard value in the
//!   window it was given; the owner combines it as a local child's value
//!   (exact: the owner's window only narrows, so a value fail-hard in an
//!   older, wider window still combines correctly). A frame cut off sends a
//!   [`Msg::Abort`] for each of its outstanding children, and so does every
//!   frame above it that it drops; a helper that receives one drops its task
//!   and aborts its own helpers' work; results for tasks no longer known are
//!   ignored.
//! - **No helpful master.** A process whose frames wait only for other
//!   processes' children waits (it answers requests meanwhile); it does not
//!   take other work.

use super::search::Searcher;
use super::transport::{Msg, Process, Transport};
use crate::game::{TreeSource, children};
use crate::search::NodeCounts;
use crate::value::Window;
use std::collections::VecDeque;

/// The default granularity's target: the largest g whose minimal tree
/// (Knuth and Moore: b^⌈g/2⌉ + b^⌊g/2⌋ − 1 leaves) has at most this many
/// leaves, so that a sequential piece is a few thousand nodes with the
/// baseline's iterative deepening.
pub const PIECE_LEAVES: u64 = 1_000;

/// Leaves of the minimal tree of uniform branching `b` and depth `d`.
fn minimal_leaves(b: u64, d: u32) -> u64 {
    b.saturating_pow(d.div_ceil(2)).saturating_add(b.saturating_pow(d / 2)) - 1
}

/// The default granularity for a search of `root` to `depth`: the largest
/// g with at most [`PIECE_LEAVES`] minimal-tree leaves (b the root's
/// number of moves), at most `depth − 1` so that the root is always a
/// frame: 7 for b = 5, 4 for b = 20.
pub fn default_granularity<S: TreeSource>(src: &S, root: &S::Node, depth: u32) -> u32 {
    let b = (children(src, root, true).len() as u64).max(2);
    let mut g = 0;
    while g + 1 < depth && minimal_leaves(b, g + 1) <= PIECE_LEAVES {
        g += 1;
    }
    g
}

/// A node above the granularity being searched: its children, which are
/// started, which are out with other processes, and its window.
struct Frame<N> {
    max: bool,
    ply: u32,
    depth: u32,
    /// The window as it narrows: a MAX frame raises `a`, a MIN frame lowers
    /// `b`; the other bound is the one the frame was opened with.
    a: i64,
    b: i64,
    kids: Vec<N>,
    /// The next child to start (children before it are done, in progress
    /// here, or out with a helper).
    next: usize,
    /// A child is being searched by this process (the frame above, or the
    /// piece).
    local: bool,
    /// The first child is evaluated: the others are available (YBW).
    first_done: bool,
    cut: bool,
    /// Children out with other processes: (task id, helper).
    remote: Vec<(u32, usize)>,
}

impl<N> Frame<N> {
    fn window(&self) -> Window {
        Window { alpha: self.a, beta: self.b }
    }

    fn combine(&mut self, v: i64) {
        if self.max {
            self.a = self.a.max(v);
        } else {
            self.b = self.b.min(v);
        }
        self.cut |= self.a >= self.b;
    }

    fn finished(&self) -> bool {
        self.cut || (self.next == self.kids.len() && !self.local && self.remote.is_empty())
    }

    /// The fail-hard value in the frame's window (as the sequential search's).
    fn value(&self) -> i64 {
        match (self.max, self.cut) {
            (true, true) => self.b,
            (true, false) => self.a,
            (false, true) => self.a,
            (false, false) => self.b,
        }
    }

    fn available(&self) -> bool {
        self.first_done && !self.cut && self.next < self.kids.len()
    }
}

/// A node to search: at or below the granularity, a piece searched
/// sequentially in slices.
struct Piece<N> {
    node: N,
    max: bool,
    ply: u32,
    depth: u32,
    window: Window,
    /// Nodes of the next slice (doubling while the piece does not finish).
    budget: u64,
}

/// What a process is searching: the root (rank 0) or a task.
struct Job<N> {
    /// Who gave it and its id there (`None`: the root).
    owner: Option<(usize, u32)>,
    frames: Vec<Frame<N>>,
    /// The piece on top of the frames (or the job itself, if it is at or
    /// below the granularity).
    piece: Option<Piece<N>>,
}

/// One process of the YBWC search.
pub struct Ybwc<S: TreeSource> {
    /// Rank 0's root and depth until it starts.
    root: Option<(S::Node, u32)>,
    granularity: u32,
    slice: u64,
    slots: usize,
    searcher: Option<Searcher<S>>,
    job: Option<Job<S::Node>>,
    /// Requests kept until there is work to give (origins, oldest first).
    parked: VecDeque<u32>,
    next_id: u32,
    /// Round robin over the helpers a request is passed to.
    cursor: usize,
    waking: bool,
    stopped: bool,
    /// Tasks this process gave.
    pub given: u64,
    /// Tasks it received.
    pub taken: u64,
    /// Aborts it sent.
    pub aborts: u64,
    /// Requests it passed on (to a helper, an owner or rank 0).
    pub passed: u64,
}

impl<S: TreeSource> Ybwc<S> {
    /// What builds rank r's process of a run searching `root` to `depth`
    /// with granularity `granularity`, slices of `slice` nodes and `slots`
    /// table entries per process.
    pub fn maker(root: &S::Node, depth: u32, granularity: u32, slice: u64, slots: usize) -> impl FnMut(usize) -> Ybwc<S> {
        let root = root.clone();
        move |r| Ybwc {
            root: (r == 0).then(|| (root.clone(), depth)),
            granularity,
            slice: slice.max(1),
            slots,
            searcher: None,
            job: None,
            parked: VecDeque::new(),
            next_id: 0,
            cursor: 0,
            waking: false,
            stopped: false,
            given: 0,
            taken: 0,
            aborts: 0,
            passed: 0,
        }
    }

    fn wake<T: Transport<S::Node>>(&mut self, t: &mut T) {
        if !self.waking {
            self.waking = true;
            t.wake();
        }
    }

    fn pass<T: Transport<S::Node>>(&mut self, t: &mut T, to: usize, origin: u32) {
        self.passed += 1;
        t.send(to, Msg::Request { origin });
    }

    /// Starts searching `p` as the next local child of the top frame (or as
    /// the job itself): a piece, a frame, or a terminal node's value.
    fn open<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, p: Piece<S::Node>) -> Option<i64> {
        let job = self.job.as_mut()?;
        if p.depth <= self.granularity {
            job.piece = Some(p);
            return None;
        }
        let Piece { node, max, ply, depth, window, .. } = p;
        let kids = children(src, &node, max);
        if kids.is_empty() {
            t.searched(NodeCounts { nodes: 1, leaves: 1, internal: 0 });
            return Some(src.terminal_value(&node, max, ply));
        }
        t.searched(NodeCounts { nodes: 1, leaves: 0, internal: 1 });
        let Window { alpha: a, beta: b } = window;
        job.frames.push(Frame { max, ply, depth, a, b, kids, next: 0, local: false, first_done: false, cut: false, remote: vec![] });
        None
    }

    /// The value of the top frame's local child (or of the job).
    fn deliver<T: Transport<S::Node>>(&mut self, t: &mut T, v: i64) {
        let Some(job) = self.job.as_mut() else { return };
        if let Some(f) = job.frames.last_mut() {
            f.local = false;
            f.first_done = true;
            f.combine(v);
            return;
        }
        let owner = job.owner;
        self.job = None;
        match owner {
            None => {
                t.done(v);
                self.stopped = true;
                self.parked.clear();
                for r in 1..t.procs() {
                    t.send(r, Msg::Stop);
                }
            }
            Some((to, id)) => {
                t.send(to, Msg::Result { id, value: v });
                self.idle(t, to);
            }
        }
    }

    /// The job is over: this process asks `to` (the job's owner, whose frame
    /// has just changed) for work; the requests it keeps stay with it and
    /// are served from its next task.
    fn idle<T: Transport<S::Node>>(&mut self, t: &mut T, to: usize) {
        let me = t.rank() as u32;
        self.pass(t, to, me);
    }

    /// Aborts the outstanding children of `f`.
    fn abort_remote<T: Transport<S::Node>>(&mut self, t: &mut T, f: &mut Frame<S::Node>) {
        for (id, h) in f.remote.drain(..) {
            self.aborts += 1;
            t.send(h, Msg::Abort { id });
        }
    }

    /// Drops the frames above frame `k` (and the piece), aborting their
    /// helpers' work.
    fn truncate<T: Transport<S::Node>>(&mut self, t: &mut T, k: usize) {
        let Some(job) = self.job.as_mut() else { return };
        job.piece = None;
        let mut above = job.frames.split_off(k);
        for f in &mut above {
            self.abort_remote(t, f);
        }
    }

    /// Does everything but searching a slice: closes finished frames,
    /// starts local children, until a piece is to be searched (a wake-up is
    /// asked for) or the frames wait for other processes.
    fn advance<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        loop {
            let Some(job) = self.job.as_mut() else { return };
            if job.piece.is_some() {
                self.wake(t);
                return;
            }
            let Some(top) = job.frames.last_mut() else { return };
            if top.finished() {
                let Some(mut f) = job.frames.pop() else { return };
                self.abort_remote(t, &mut f);
                self.deliver(t, f.value());
                continue;
            }
            if top.next < top.kids.len() && (top.next == 0 || top.first_done) {
                let i = top.next;
                top.next += 1;
                top.local = true;
                let p = Piece { node: top.kids[i].clone(), max: !top.max, ply: top.ply + 1, depth: top.depth - 1, window: top.window(), budget: self.slice };
                if let Some(v) = self.open(src, t, p) {
                    self.deliver(t, v);
                }
                continue;
            }
            return;
        }
    }

    /// One slice of the piece.
    fn slice<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        let Some(p) = self.job.as_mut().and_then(|j| j.piece.as_mut()) else { return };
        let s = self.searcher.get_or_insert_with(|| Searcher::new(self.slots));
        let before = s.counts;
        s.limit = before.nodes.saturating_add(p.budget);
        let v = s.search(src, &p.node, p.max, p.depth, p.ply, p.window);
        s.limit = u64::MAX;
        let aborted = std::mem::take(&mut s.aborted);
        let c = s.counts;
        t.searched(NodeCounts { nodes: c.nodes - before.nodes, leaves: c.leaves - before.leaves, internal: c.internal - before.internal });
        if aborted {
            p.budget = p.budget.saturating_mul(2);
            return;
        }
        if let Some(j) = self.job.as_mut() {
            j.piece = None;
        }
        self.deliver(t, v);
    }

    /// Gives kept requests the available children, shallowest frame first;
    /// passes those left to helpers if there are any.
    fn serve<T: Transport<S::Node>>(&mut self, t: &mut T) {
        let Some(job) = self.job.as_mut() else { return };
        while let Some(&o) = self.parked.front() {
            let Some(f) = job.frames.iter_mut().find(|f| f.available()) else { break };
            self.parked.pop_front();
            let i = f.next;
            f.next += 1;
            let id = self.next_id;
            self.next_id += 1;
            f.remote.push((id, o as usize));
            self.given += 1;
            t.send(
                o as usize,
                Msg::Task(crate::cluster::transport::Job { id, node: f.kids[i].clone(), max: !f.max, ply: f.ply + 1, depth: f.depth - 1, window: f.window() }),
            );
        }
        if self.parked.is_empty() {
            return;
        }
        // Helpers searching frames of their own (above the granularity): a
        // piece's helper has nothing to give until it is idle again.
        let g = self.granularity;
        let helpers: Vec<usize> = job.frames.iter().filter(|f| f.depth - 1 > g).flat_map(|f| f.remote.iter().map(|r| r.1)).collect();
        let mut keep = VecDeque::new();
        while let Some(o) = self.parked.pop_front() {
            // Never back to the process that asks (its result may still be
            // on its way here).
            let to = (0..helpers.len()).map(|k| helpers[(self.cursor + k) % helpers.len()]).find(|&h| h != o as usize);
            match to {
                Some(h) => {
                    self.cursor = self.cursor.wrapping_add(1);
                    self.pass(t, h, o);
                }
                None => keep.push_back(o),
            }
        }
        self.parked = keep;
    }

    fn result<T: Transport<S::Node>>(&mut self, t: &mut T, from: usize, id: u32, value: i64) {
        let Some(job) = self.job.as_mut() else { return };
        let Some(k) = job.frames.iter().position(|f| f.remote.contains(&(id, from))) else { return };
        let f = &mut job.frames[k];
        f.remote.retain(|&r| r != (id, from));
        f.combine(value);
        if f.cut {
            f.local = false;
            self.truncate(t, k + 1);
        }
    }
}

impl<S: TreeSource> Process<S> for Ybwc<S> {
    fn start<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        match self.root.take() {
            Some((root, depth)) => {
                self.job = Some(Job { owner: None, frames: vec![], piece: None });
                let p = Piece { node: root, max: true, ply: 0, depth, window: Window::ROOT, budget: self.slice };
                if let Some(v) = self.open(src, t, p) {
                    self.deliver(t, v);
                }
                self.advance(src, t);
            }
            None => {
                let me = t.rank() as u32;
                self.pass(t, 0, me);
            }
        }
    }

    fn receive<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node>) {
        if self.stopped {
            return;
        }
        match msg {
            Msg::Task(crate::cluster::transport::Job { id, node, max, ply, depth, window }) => {
                // Only ever sent to a process that asked and is idle.
                debug_assert!(self.job.is_none());
                self.taken += 1;
                self.job = Some(Job { owner: Some((from, id)), frames: vec![], piece: None });
                if let Some(v) = self.open(src, t, Piece { node, max, ply, depth, window, budget: self.slice }) {
                    self.deliver(t, v);
                }
            }
            Msg::Result { id, value } => self.result(t, from, id, value),
            Msg::Request { origin } => {
                if self.job.is_some() {
                    self.parked.push_back(origin);
                } else {
                    // Idle: rank 0 owns the root and has work until the end.
                    self.pass(t, 0, origin);
                }
            }
            Msg::Abort { id } if self.job.as_ref().is_some_and(|j| j.owner == Some((from, id))) => {
                self.truncate(t, 0);
                self.job = None;
                self.idle(t, from);
            }
            Msg::Stop => {
                self.stopped = true;
                self.job = None;
                self.parked.clear();
            }
            _ => {}
        }
        self.advance(src, t);
        self.serve(t);
    }

    fn resume<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        self.waking = false;
        if self.stopped {
            return;
        }
        self.slice(src, t);
        self.advance(src, t);
        self.serve(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::events::Delivery;
    use crate::cluster::machine::{self, Costs};
    use crate::search::minimax;
    use crate::tree::incremental::{INode, Incremental};
    use crate::value::{ROOT_ALPHA, ROOT_BETA};

    /// Rank 0 of two, recording what it sends.
    struct Record {
        sent: Vec<(usize, Msg<INode>)>,
        done: Option<i64>,
        woken: u32,
        nodes: u64,
    }

    impl Transport<INode> for Record {
        fn rank(&self) -> usize {
            0
        }
        fn procs(&self) -> usize {
            2
        }
        fn send(&mut self, to: usize, msg: Msg<INode>) {
            self.sent.push((to, msg));
        }
        fn searched(&mut self, c: NodeCounts) {
            self.nodes += c.nodes;
        }
        fn done(&mut self, v: i64) {
            self.done = Some(v);
        }
        fn wake(&mut self) {
            self.woken += 1;
        }
    }

    const OFF: i64 = 1 << 30;

    #[test]
    fn default_granularity_keeps_pieces_near_a_thousand_minimal_leaves() {
        // b = 5: 5^4 + 5^3 − 1 = 749 leaves at g = 7, 5^4 + 5^4 − 1 = 1,249
        // at 8; b = 20: 20^2 + 20^2 − 1 = 799 at g = 4, 8,399 at 5.
        assert_eq!((minimal_leaves(5, 7), minimal_leaves(5, 8), minimal_leaves(20, 4), minimal_leaves(20, 5)), (749, 1_249, 799, 8_399));
        let b5 = Incremental::new(5, 100).unwrap();
        let b20 = Incremental::new(20, 100).unwrap();
        assert_eq!(default_granularity(&b5, &b5.root(1), 12), 7);
        assert_eq!(default_granularity(&b20, &b20.root(1), 6), 4);
        // Never the whole tree: the root is a frame.
        assert_eq!(default_granularity(&b5, &b5.root(1), 5), 4);
        assert_eq!(default_granularity(&b5, &b5.root(1), 1), 0);
    }

    #[test]
    fn which_child_is_given_and_when_by_hand() {
        // b = 3, depth 2, g = 0 (every leaf a piece), values relative to
        // 2^30. The root (MAX) has A, B, C (MIN, in the source's order);
        // A's leaves are 466, 467, 670, B's 43, …, C's −369, …: the root is
        // worth 466.
        let t = Incremental::new(3, 100).unwrap();
        let root = t.root(1);
        assert_eq!(minimax(&t, &root, true, 2, 0), OFF + 466);
        let kids = children(&t, &root, true);
        let a = children(&t, &kids[0], false);
        let mut p = Ybwc::<Incremental>::maker(&root, 2, 0, 1024, 1 << 10)(0);
        let mut r = Record { sent: vec![], done: None, woken: 0, nodes: 0 };
        // Start: the root's frame, A's, and A0 as a piece (one wake-up).
        p.start(&t, &mut r);
        assert_eq!((r.nodes, r.woken), (2, 1));
        // Process 1 asks: nothing is available (no first child is done), so
        // the request is kept.
        p.receive(&t, &mut r, 1, Msg::Request { origin: 1 });
        assert_eq!(r.sent, []);
        // A0 = 466: A's first child is done, A1 starts here, and A2 — of the
        // shallowest frame with an available child — goes to process 1 with
        // A's window (−∞, 466).
        p.resume(&t, &mut r);
        let w = |alpha, beta| Window { alpha, beta };
        assert_eq!(
            r.sent,
            [(1, Msg::Task(crate::cluster::transport::Job { id: 0, node: a[2], max: true, ply: 2, depth: 0, window: w(ROOT_ALPHA, OFF + 466) }))]
        );
        r.sent.clear();
        // A1 = 467: A waits for A2 alone.
        p.resume(&t, &mut r);
        assert_eq!((r.sent.len(), r.woken), (0, 2));
        // A2's result (670) closes A (466); B opens here with (466, ∞); the
        // process asks again and gets C, the root's next child.
        p.receive(&t, &mut r, 1, Msg::Result { id: 0, value: OFF + 670 });
        p.receive(&t, &mut r, 1, Msg::Request { origin: 1 });
        assert_eq!(
            r.sent,
            [(1, Msg::Task(crate::cluster::transport::Job { id: 1, node: kids[2], max: false, ply: 1, depth: 1, window: w(OFF + 466, ROOT_BETA) }))]
        );
        r.sent.clear();
        // B0 = 43 ≤ 466 cuts B; the root waits for C, whose value in its
        // window is 466 (C0 = −369 fails low); then the run is over.
        p.resume(&t, &mut r);
        assert_eq!((r.sent.len(), r.done), (0, None));
        p.receive(&t, &mut r, 1, Msg::Result { id: 1, value: OFF + 466 });
        assert_eq!(r.done, Some(OFF + 466));
        assert_eq!(r.sent, [(1, Msg::Stop)]);
        // Root, A, B frames and the leaves A0, A1, B0.
        assert_eq!(r.nodes, 6);
        assert_eq!((p.given, p.aborts), (2, 0));
    }

    #[test]
    fn two_processes_on_the_same_tree_by_messages() {
        // The tree above on the simulated machine with 100 µs per node: the
        // request arrives while A0 is searched, so the same two tasks go to
        // process 1, which asks three times (at the start and after each
        // task): 3 requests, 2 tasks, 2 results and the stop.
        let t = Incremental::new(3, 100).unwrap();
        let root = t.root(1);
        let mut p: Vec<Ybwc<Incremental>> = (0..2).map(Ybwc::maker(&root, 2, 0, 1024, 1 << 10)).collect();
        let costs = Costs { node_ns: 100_000, ..Costs::default() };
        let s = machine::run(&t, &mut p, costs, Delivery::Timed).expect("time within 2^64 ns").expect("a value");
        assert_eq!(s.value, OFF + 466);
        assert_eq!((p[0].given, p[1].taken, p[1].passed), (2, 2, 3));
        assert_eq!(s.messages, 3 + 2 + 2 + 1);
        // Process 1: C's frame and C0.
        assert_eq!(s.counts.nodes, 6 + 1 + 2);
    }

    #[test]
    fn every_granularity_is_exact_and_aborts_happen() {
        // Small granularities (every internal node a frame at g = 0) on
        // b = 3, 5 and 20 trees, tiny slices, every process count and
        // adversarial deliveries.
        let mut trees: Vec<(Incremental, u32)> = vec![];
        for (b, depth) in [(3, 7), (5, 6), (20, 3)] {
            trees.push((Incremental::new(b, 100).unwrap(), depth));
        }
        let mut aborts = 0;
        for (t, depth) in &trees {
            for seed in 1..=3 {
                let root = t.root(seed);
                let want = minimax(t, &root, true, *depth, 0);
                for g in [0, 1, 2] {
                    for procs in [2, 3, 8, 64, 4096] {
                        for delivery in [Delivery::Timed, Delivery::Adversarial(seed), Delivery::Adversarial(77)] {
                            for slice in [4, 1024] {
                                let mut p: Vec<Ybwc<Incremental>> = (0..procs).map(Ybwc::maker(&root, *depth, g, slice, 1 << 10)).collect();
                                let s = machine::run(t, &mut p, Costs::default(), delivery).expect("time within 2^64 ns");
                                assert_eq!(s.map(|s| s.value), Some(want), "seed {seed} depth {depth} g {g} procs {procs} {delivery:?}");
                                aborts += p.iter().map(|q| q.aborts).sum::<u64>();
                                // Tasks in flight at the stop are never taken.
                                assert!(p.iter().map(|q| q.taken).sum::<u64>() <= p.iter().map(|q| q.given).sum::<u64>());
                            }
                        }
                    }
                }
            }
        }
        assert!(aborts > 100, "{aborts}");
    }
}
