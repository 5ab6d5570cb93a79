//! The DTS-like parallel alpha-beta search of PABSim, run on the simulated
//! machine (thesis §6.1–6.2; `docs/model.md` §5.2–5.3).
//!
//! Every simulated processor is an explicit state machine ([`St`]): one call
//! of [`Sim::step`] runs one state of one processor *atomically* at that
//! processor's clock, charging the state's cost and the delays of the memory
//! accesses it makes (in program order, each at the time it is issued), then
//! yields to the scheduler. Locks that are held across steps (node locks,
//! the split-point variable's lock) are real test-and-set loops: a failed
//! attempt costs its write access (at least one tick) and the processor
//! retries in its next step. Locks taken and released inside one step (the
//! global heap's) can never be found held; they cost their accesses only.
//!
//! Memory layout (our choice, `docs/model.md` §5.1): block 0 is the end-of-search
//! flag, block 1 the split-point variable and its lock, block 2 the global
//! node heap and its lock (all three homed at processor 0); block `3 + p` is
//! processor p's private data and local heap (home p); node k lives in block
//! `3 + P + k`, homed at processor `k mod P`.

use super::memory::{Block, Memory, Proc};
use super::sched::{NEVER, Scheduler};
use super::schemes::{Candidate, Scheme, View};
use crate::search::{ROOT_ALPHA, ROOT_BETA};
use crate::tree::{MoveCursor, Node, Shape};
use anyhow::{Result, bail};

const NONE: u32 = u32::MAX;
const FLAG_BLOCK: Block = 0;
const SPLIT_BLOCK: Block = 1;
const HEAP_BLOCK: Block = 2;
const FIRST_PRIVATE: Block = 3;

/// Costs of the states in ticks (`docs/model.md` §5.3).
pub mod cost {
    /// One search step.
    pub const SEARCH: u64 = 1;
    /// One return.
    pub const RETURN: u64 = 1;
    /// Generating a node's moves.
    pub const EXPAND: u64 = 3;
    /// Evaluating a leaf.
    pub const EVAL: u64 = 8;
    /// An update, plus 1 per node told of a new bound.
    pub const UPDATE: u64 = 1;
    /// A split step, plus 1 per node a split-point search examines.
    pub const SPLIT: u64 = 1;
    /// The pause after a failed split-point search.
    pub const RETRY: u64 = 36;
}

/// A processor's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum St {
    /// Processor 0 before the search: allocates the root.
    Start,
    /// Generating the current node's moves.
    Expand,
    /// Handing out the current node's next move.
    Search,
    /// Evaluating a leaf.
    Eval,
    /// Leaving the current node.
    Return,
    /// Returning: waiting for the parent's lock.
    LockParent,
    /// Taking a finished move's value.
    Update,
    /// Idle: waiting for the split-point variable's lock.
    SplitStart,
    /// Idle: a split-point search failed; release the lock, then pause.
    SplitFail,
    /// Idle: joining the stored split point (waiting for its lock).
    SplitJoin,
    /// Done.
    Exit,
}

/// The seven states of `docs/model.md` §5.3, for the time breakdown.
pub const STATE_NAMES: [&str; 7] = ["expand", "search", "eval", "return", "split", "update", "exit"];

fn bucket(s: St) -> usize {
    match s {
        St::Expand => 0,
        St::Start | St::Search => 1,
        St::Eval => 2,
        St::Return | St::LockParent => 3,
        St::SplitStart | St::SplitFail | St::SplitJoin => 4,
        St::Update => 5,
        St::Exit => 6,
    }
}

/// Settings of one simulation.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Processors, at least 1.
    pub procs: usize,
    /// Search depth.
    pub depth: u32,
    /// Simulated ticks without a node created or returned after which the
    /// run is declared stuck.
    pub stall_limit: u64,
}

impl Config {
    /// `procs` processors, depth `depth`, the default stall limit.
    pub fn new(procs: usize, depth: u32) -> Config {
        Config { procs, depth, stall_limit: 2_000_000 }
    }
}

/// What one simulated search of one tree measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// The root's value.
    pub value: i64,
    /// Ticks until the root's value was returned (`t_p` of this tree).
    pub ticks: u64,
    /// Nodes created (`n_p` of this tree), the root included.
    pub nodes: u64,
    /// Leaves created.
    pub leaves: u64,
    /// Processor-ticks spent in each state's own costs ([`STATE_NAMES`]).
    pub state_ticks: [u64; 7],
    /// Processor-ticks waiting for memory (access delays and refusals).
    pub mem_stall: u64,
    /// Processor-ticks in failed lock attempts.
    pub lock_wait: u64,
    /// Split-point searches run.
    pub split_searches: u64,
    /// Nodes those searches examined.
    pub split_examined: u64,
    /// Nodes told of a new bound.
    pub told: u64,
    /// Nodes the machine had to make (the heaps' total size at the end).
    pub pool: u64,
    /// Simulation steps run, per state.
    pub steps: [u64; 7],
}

impl TreeStats {
    /// Adds another tree's counts.
    pub fn add(&mut self, o: &TreeStats) {
        self.ticks += o.ticks;
        self.nodes += o.nodes;
        self.leaves += o.leaves;
        for (a, b) in self.state_ticks.iter_mut().zip(o.state_ticks) {
            *a += b;
        }
        self.mem_stall += o.mem_stall;
        self.lock_wait += o.lock_wait;
        self.split_searches += o.split_searches;
        self.split_examined += o.split_examined;
        self.told += o.told;
        self.pool += o.pool;
        for (a, b) in self.steps.iter_mut().zip(o.steps) {
            *a += b;
        }
    }

    /// All processor-ticks accounted: `P * ticks` for one tree.
    pub fn accounted(&self) -> u64 {
        self.state_ticks.iter().sum::<u64>() + self.mem_stall + self.lock_wait
    }
}

#[derive(Clone, Copy, Debug)]
struct SNode<D> {
    alpha: i64,
    beta: i64,
    score: i64,
    cursor: Option<MoveCursor>,
    node: Node,
    parent: u32,
    first_child: u32,
    last_child: u32,
    next_sib: u32,
    prev_sib: u32,
    generation: u32,
    threads: u32,
    left: u32,
    fini: u32,
    ply: u32,
    index: u32,
    max: bool,
    pv: bool,
    allocated: bool,
    data: D,
}

impl<D: Default> SNode<D> {
    fn blank() -> SNode<D> {
        SNode {
            alpha: 0,
            beta: 0,
            score: 0,
            cursor: None,
            node: Node { seed: 0, pscore: 0 },
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

    #[inline(always)]
    fn view(&self) -> View {
        View { ply: self.ply, pv: self.pv, index: self.index, max: self.max, finished: self.fini, left: self.left }
    }

    /// Moves left and the score still inside the window.
    #[inline(always)]
    fn open(&self) -> bool {
        self.left > 0 && if self.max { self.score < self.beta } else { self.score > self.alpha }
    }
}

#[derive(Clone, Copy, Debug)]
struct ProcSt {
    st: St,
    cur: u32,
    value: i64,
    join: (u32, u32),
    /// The last step's charges, for trimming at the end: (bucket, cost, memory, lock).
    last: (usize, u64, u64, u64),
}

/// The charges of one step. The fields are written one at a time during the
/// step and read together at its end; `mem` and `lock` are kept apart in
/// memory because the compiler otherwise reads them with one 16-byte load
/// that cannot be forwarded from the two 8-byte stores just made (a stall
/// that cost a seventh of the simulator's time).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Step {
    t: u64,
    mem: u64,
    cost: u64,
    lock: u64,
}

/// One simulated search of one tree.
pub struct Sim<'a, S: Scheme> {
    shape: &'a Shape,
    scheme: &'a S,
    cfg: Config,
    b: usize,
    node_base: Block,
    mem: Memory,
    sched: Scheduler,
    nodes: Vec<SNode<S::Data>>,
    bufs: Vec<u32>,
    global: Vec<u32>,
    local: Vec<Vec<u32>>,
    procs: Vec<ProcSt>,
    root_node: Node,
    root: u32,
    flag: bool,
    split_var: Option<(u32, u32)>,
    gate: u64,
    finish: Option<u64>,
    last_progress: u64,
    stats: TreeStats,
    level: Vec<u32>,
    next_level: Vec<u32>,
    stack: Vec<u32>,
}

impl<'a, S: Scheme> Sim<'a, S> {
    /// A cold machine ready to search the tree rooted at `root` (a MAX node).
    pub fn new(shape: &'a Shape, root: Node, scheme: &'a S, cfg: Config) -> Result<Sim<'a, S>> {
        if cfg.procs == 0 {
            bail!("the machine needs at least 1 processor");
        }
        let p = cfg.procs;
        let mut mem = Memory::new(p);
        for _ in 0..FIRST_PRIVATE {
            mem.add_block(0);
        }
        for q in 0..p {
            mem.add_block(q);
        }
        let d = cfg.depth.max(1) as usize;
        let initial = p * d * 2;
        let b = shape.b();
        let mut sim = Sim {
            shape,
            scheme,
            cfg,
            b,
            node_base: FIRST_PRIVATE + p,
            mem,
            sched: Scheduler::new(p),
            nodes: Vec::with_capacity(initial),
            bufs: Vec::with_capacity(initial * b),
            global: Vec::with_capacity(initial),
            local: vec![Vec::with_capacity(2 * d); p],
            procs: vec![ProcSt { st: St::SplitStart, cur: NONE, value: 0, join: (NONE, 0), last: (4, 0, 0, 0) }; p],
            root_node: root,
            root: NONE,
            flag: false,
            split_var: None,
            gate: 0,
            finish: None,
            last_progress: 0,
            stats: TreeStats::default(),
            level: vec![],
            next_level: vec![],
            stack: vec![],
        };
        for _ in 0..initial {
            sim.make_node();
        }
        // The heap hands out the lowest-numbered node first.
        sim.global = (0..initial as u32).rev().collect();
        sim.procs[0].st = St::Start;
        Ok(sim)
    }

    fn make_node(&mut self) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(SNode::blank());
        self.bufs.extend(std::iter::repeat_n(0, self.b));
        self.mem.add_block(id as usize % self.cfg.procs);
        id
    }

    #[inline(always)]
    fn blk(&self, n: u32) -> Block {
        self.node_base + n as usize
    }

    #[inline(always)]
    fn rd(&mut self, p: Proc, b: Block, s: &mut Step) {
        let (d, _) = self.mem.read(p, b, s.t);
        s.t += d;
        s.mem += d;
    }

    #[inline(always)]
    fn wr(&mut self, p: Proc, b: Block, s: &mut Step) {
        let (d, _) = self.mem.write(p, b, s.t);
        s.t += d;
        s.mem += d;
    }

    #[inline(always)]
    fn unlock(&mut self, p: Proc, b: Block, s: &mut Step) {
        let d = self.mem.unlock(p, b, s.t);
        s.t += d;
        s.mem += d;
    }

    /// One test-and-set attempt; a failed one costs at least a tick.
    #[inline(always)]
    fn try_lock(&mut self, p: Proc, b: Block, s: &mut Step) -> bool {
        let (d, ok) = self.mem.try_lock(p, b, s.t);
        if ok {
            s.t += d;
            s.mem += d;
        } else {
            s.t += d.max(1);
            s.lock += d.max(1);
        }
        ok
    }

    /// Takes a node from the local heap, else from the global heap (under
    /// its lock), else makes a new one; the node comes back locked by `p`.
    fn alloc(&mut self, p: Proc, s: &mut Step) -> u32 {
        self.wr(p, FIRST_PRIVATE + p, s);
        let n = match self.local[p].pop() {
            Some(n) => n,
            None => {
                let got = self.try_lock(p, HEAP_BLOCK, s);
                debug_assert!(got, "the heap lock is never held across steps");
                let n = match self.global.pop() {
                    Some(n) => n,
                    None => self.make_node(),
                };
                self.unlock(p, HEAP_BLOCK, s);
                n
            }
        };
        let b = self.blk(n);
        self.wr(p, b, s);
        self.mem.set_lock(b, Some(p));
        n
    }

    /// Returns a node to the local heap, or to the global heap when the
    /// local one holds `2d` nodes already; the node's lock is released.
    fn free(&mut self, p: Proc, n: u32, s: &mut Step) {
        let b = self.blk(n);
        self.unlock(p, b, s);
        let node = &mut self.nodes[n as usize];
        node.allocated = false;
        node.generation = node.generation.wrapping_add(1);
        node.cursor = None;
        self.wr(p, FIRST_PRIVATE + p, s);
        if self.local[p].len() < 2 * self.cfg.depth.max(1) as usize {
            self.local[p].push(n);
        } else {
            let got = self.try_lock(p, HEAP_BLOCK, s);
            debug_assert!(got);
            self.global.push(n);
            self.unlock(p, HEAP_BLOCK, s);
        }
    }

    fn link(&mut self, parent: u32, c: u32) {
        let last = self.nodes[parent as usize].last_child;
        self.nodes[c as usize].prev_sib = last;
        self.nodes[c as usize].next_sib = NONE;
        if last == NONE {
            self.nodes[parent as usize].first_child = c;
        } else {
            self.nodes[last as usize].next_sib = c;
        }
        self.nodes[parent as usize].last_child = c;
    }

    fn unlink(&mut self, parent: u32, c: u32) {
        let (prev, next) = (self.nodes[c as usize].prev_sib, self.nodes[c as usize].next_sib);
        if prev == NONE {
            self.nodes[parent as usize].first_child = next;
        } else {
            self.nodes[prev as usize].next_sib = next;
        }
        if next == NONE {
            self.nodes[parent as usize].last_child = prev;
        } else {
            self.nodes[next as usize].prev_sib = prev;
        }
    }

    /// Runs the search to the root's return; the machine's statistics.
    pub fn run(mut self) -> Result<TreeStats> {
        'outer: while let Some((p, limit)) = self.sched.next() {
            if self.sched.clock(p) > self.last_progress.saturating_add(self.cfg.stall_limit) {
                bail!("{}", self.stuck_message());
            }
            loop {
                self.step(p);
                if self.finish.is_some() {
                    break 'outer;
                }
                if self.sched.clock(p) >= limit {
                    break;
                }
            }
        }
        let Some(t) = self.finish else { bail!("internal error: every processor stopped before the root returned") };
        self.stats.ticks = t;
        // Charge every processor up to t exactly: top up the idle ones in
        // their current state, trim the tails of steps that end after t.
        for q in 0..self.cfg.procs {
            let c = self.sched.clock(q);
            if c == NEVER || c == t {
                continue;
            }
            if c < t {
                self.stats.state_ticks[bucket(self.procs[q].st)] += t - c;
            } else {
                let (bk, cost, mem, _) = self.procs[q].last;
                let mut excess = c - t;
                let from_cost = excess.min(cost);
                self.stats.state_ticks[bk] -= from_cost;
                excess -= from_cost;
                let from_mem = excess.min(mem);
                self.stats.mem_stall -= from_mem;
                excess -= from_mem;
                self.stats.lock_wait -= excess;
            }
        }
        let root = self.root;
        let mut s = Step::default();
        self.free(0, root, &mut s);
        let in_heaps = self.global.len() + self.local.iter().map(Vec::len).sum::<usize>();
        let allocated = self.nodes.iter().filter(|n| n.allocated).count();
        if in_heaps != self.nodes.len() || allocated != 0 {
            bail!("internal error: heaps unbalanced after the tree: {in_heaps} of {} nodes in the heaps, {allocated} still allocated", self.nodes.len());
        }
        self.stats.pool = self.nodes.len() as u64;
        Ok(self.stats)
    }

    fn stuck_message(&self) -> String {
        let states: Vec<String> = self
            .procs
            .iter()
            .enumerate()
            .map(|(q, ps)| {
                let at = if ps.cur == NONE { String::new() } else { format!(" at node {} (ply {})", ps.cur, self.nodes[ps.cur as usize].ply) };
                format!("P{q} {:?}{at} t={}", ps.st, self.sched.clock(q))
            })
            .collect();
        format!("no progress for {} simulated ticks (no node created or returned since t={}): {}", self.cfg.stall_limit, self.last_progress, states.join("; "))
    }

    /// Runs one state of processor `p` and yields.
    fn step(&mut self, p: Proc) {
        let t0 = self.sched.clock(p);
        let mut s = Step { t: t0, ..Step::default() };
        let st = self.procs[p].st;
        match st {
            St::Start => self.start(p, &mut s),
            St::Expand => self.expand(p, &mut s),
            St::Search => self.search(p, &mut s),
            St::Eval => self.eval(p, &mut s),
            St::Return => self.ret(p, &mut s),
            St::LockParent => self.lock_parent(p, &mut s),
            St::Update => self.update(p, &mut s),
            St::SplitStart => self.split_start(p, &mut s),
            St::SplitFail => self.split_fail(p, &mut s),
            St::SplitJoin => self.split_join(p, &mut s),
            St::Exit => {
                self.sched.set(p, NEVER);
                return;
            }
        }
        let bk = bucket(st);
        self.stats.steps[bk] += 1;
        self.stats.state_ticks[bk] += s.cost;
        self.stats.mem_stall += s.mem;
        self.stats.lock_wait += s.lock;
        self.procs[p].last = (bk, s.cost, s.mem, s.lock);
        self.sched.set(p, s.t + s.cost);
    }

    fn start(&mut self, p: Proc, s: &mut Step) {
        let r = self.alloc(p, s);
        self.root = r;
        let n = &mut self.nodes[r as usize];
        *n = SNode { generation: n.generation, ..SNode::blank() };
        n.node = self.root_node;
        n.alpha = ROOT_ALPHA;
        n.beta = ROOT_BETA;
        n.score = ROOT_ALPHA;
        n.threads = 1;
        n.pv = true;
        n.allocated = true;
        n.data = self.scheme.root();
        self.stats.nodes += 1;
        self.procs[p].cur = r;
        self.procs[p].st = if self.cfg.depth == 0 {
            self.stats.leaves += 1;
            St::Eval
        } else {
            St::Expand
        };
        s.cost = 0;
    }

    fn expand(&mut self, p: Proc, s: &mut Step) {
        let c = self.procs[p].cur;
        let b = self.blk(c);
        self.wr(p, b, s);
        let bw = self.b;
        let n = &mut self.nodes[c as usize];
        n.cursor = Some(self.shape.cursor(n.node, n.max, &mut self.bufs[c as usize * bw..(c as usize + 1) * bw]));
        n.left = bw as u32;
        n.fini = 0;
        s.cost = cost::EXPAND;
        self.procs[p].st = St::Search;
    }

    fn search(&mut self, p: Proc, s: &mut Step) {
        let c = self.procs[p].cur;
        let cb = self.blk(c);
        self.wr(p, cb, s);
        s.cost = cost::SEARCH;
        let bw = self.b;
        let n = &mut self.nodes[c as usize];
        let cut = if n.max {
            if n.score >= n.beta {
                n.score = n.beta;
                true
            } else {
                false
            }
        } else if n.score <= n.alpha {
            n.score = n.alpha;
            true
        } else {
            false
        };
        if cut || n.left == 0 {
            self.procs[p].st = St::Return;
            return;
        }
        let cursor = n.cursor.as_mut().expect("an expanded node has a cursor");
        let (k, pscore) = self.shape.next_move(cursor, &mut self.bufs[c as usize * bw..(c as usize + 1) * bw]).expect("moves left");
        let index = cursor.handed_out() as u32;
        let ply = n.ply + 1;
        let leaf = ply >= self.cfg.depth;
        let seed = if leaf { 0 } else { cursor.seed(self.shape, k) };
        let (alpha, beta) = if n.max { (n.score, n.beta) } else { (n.alpha, n.score) };
        let child_max = !n.max;
        let pv = n.pv && index == 1;
        let pview = n.view();
        let data = self.scheme.child(&pview, &n.data, index, child_max, alpha, beta);
        n.left -= 1;
        let id = self.alloc(p, s);
        let m = &mut self.nodes[id as usize];
        *m = SNode {
            alpha,
            beta,
            score: if child_max { alpha } else { beta },
            cursor: None,
            node: Node { seed, pscore },
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
        self.link(c, id);
        self.unlock(p, cb, s);
        self.stats.nodes += 1;
        self.last_progress = s.t;
        self.procs[p].cur = id;
        self.procs[p].st = if leaf {
            self.stats.leaves += 1;
            St::Eval
        } else {
            St::Expand
        };
    }

    fn eval(&mut self, p: Proc, s: &mut Step) {
        let c = self.procs[p].cur;
        let b = self.blk(c);
        self.wr(p, b, s);
        let n = &mut self.nodes[c as usize];
        n.score = n.node.pscore as i64;
        s.cost = cost::EVAL;
        self.procs[p].st = St::Return;
    }

    fn ret(&mut self, p: Proc, s: &mut Step) {
        let c = self.procs[p].cur;
        let cb = self.blk(c);
        self.wr(p, cb, s);
        s.cost = cost::RETURN;
        let n = &mut self.nodes[c as usize];
        if n.threads > 1 {
            n.threads -= 1;
            self.unlock(p, cb, s);
            self.procs[p].cur = NONE;
            self.procs[p].st = St::SplitStart;
            return;
        }
        if c == self.root {
            let v = n.score;
            self.unlock(p, cb, s);
            self.wr(p, FLAG_BLOCK, s);
            self.flag = true;
            self.stats.value = v;
            self.finish = Some(s.t + s.cost);
            self.procs[p].st = St::Exit;
            return;
        }
        self.procs[p].value = n.score;
        self.procs[p].st = St::LockParent;
        self.lock_parent(p, s);
    }

    fn lock_parent(&mut self, p: Proc, s: &mut Step) {
        let c = self.procs[p].cur;
        let parent = self.nodes[c as usize].parent;
        let pb = self.blk(parent);
        if !self.try_lock(p, pb, s) {
            return;
        }
        self.unlink(parent, c);
        self.free(p, c, s);
        self.last_progress = s.t;
        self.procs[p].cur = parent;
        self.procs[p].st = St::Update;
    }

    fn update(&mut self, p: Proc, s: &mut Step) {
        let c = self.procs[p].cur;
        let cb = self.blk(c);
        self.wr(p, cb, s);
        let value = self.procs[p].value;
        let n = &mut self.nodes[c as usize];
        n.fini += 1;
        let v = n.view();
        self.scheme.finished(&v, &mut n.data);
        let improved = if n.max { value > n.score } else { value < n.score };
        let mut told = 0;
        if improved {
            n.score = value;
            if n.threads > 1 {
                let (max, first) = (n.max, n.first_child);
                told = self.propagate(p, first, max, value, s);
            }
        }
        self.stats.told += told;
        s.cost = cost::UPDATE + told;
        self.procs[p].st = St::Search;
    }

    /// Tells the allocated subtree below a node (its children from `first`)
    /// of a new bound `v`: a new lower bound if the node is MAX, else a new
    /// upper bound. Bounds only tighten going down, so a node that already
    /// has the bound has it in its whole subtree and the walk stops there.
    fn propagate(&mut self, p: Proc, first: u32, from_max: bool, v: i64, s: &mut Step) -> u64 {
        let mut told = 0;
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        let mut x = first;
        while x != NONE {
            stack.push(x);
            x = self.nodes[x as usize].next_sib;
        }
        while let Some(x) = stack.pop() {
            let b = self.blk(x);
            self.rd(p, b, s);
            let n = &self.nodes[x as usize];
            let tell = if from_max { n.alpha < v } else { n.beta > v };
            if !tell {
                continue;
            }
            self.wr(p, b, s);
            let n = &mut self.nodes[x as usize];
            if from_max {
                n.alpha = v;
                if n.max && n.score < v {
                    n.score = v;
                }
            } else {
                n.beta = v;
                if !n.max && n.score > v {
                    n.score = v;
                }
            }
            told += 1;
            let mut y = n.first_child;
            while y != NONE {
                stack.push(y);
                y = self.nodes[y as usize].next_sib;
            }
        }
        self.stack = stack;
        told
    }

    #[inline(always)]
    fn valid(&self, (n, g): (u32, u32)) -> bool {
        let x = &self.nodes[n as usize];
        x.allocated && x.generation == g && x.open()
    }

    fn split_start(&mut self, p: Proc, s: &mut Step) {
        self.rd(p, FLAG_BLOCK, s);
        if self.flag {
            self.procs[p].st = St::Exit;
            return;
        }
        if !self.try_lock(p, SPLIT_BLOCK, s) {
            return;
        }
        self.split_locked(p, s);
    }

    /// Holding the split-point variable's lock: join the stored split point
    /// if it is still valid, else search for a new one (at most one search
    /// per 36 ticks).
    fn split_locked(&mut self, p: Proc, s: &mut Step) {
        self.rd(p, SPLIT_BLOCK, s);
        if let Some(sp) = self.split_var {
            let b = self.blk(sp.0);
            self.rd(p, b, s);
            if self.valid(sp) {
                s.cost = cost::SPLIT;
                self.procs[p].join = sp;
                self.procs[p].st = St::SplitJoin;
                return;
            }
        }
        if s.t < self.gate {
            self.unlock(p, SPLIT_BLOCK, s);
            s.cost = self.gate - s.t;
            self.procs[p].st = St::SplitStart;
            return;
        }
        let (found, examined) = self.find_split_point(p, s);
        self.stats.split_searches += 1;
        self.stats.split_examined += examined;
        s.cost = cost::SPLIT + examined;
        self.gate = s.t + s.cost + cost::RETRY;
        match found {
            Some(n) => {
                let sp = (n, self.nodes[n as usize].generation);
                self.split_var = Some(sp);
                self.procs[p].join = sp;
                self.procs[p].st = St::SplitJoin;
            }
            None => {
                self.split_var = None;
                self.procs[p].st = St::SplitFail;
            }
        }
    }

    /// Walks the allocated tree level by level from the root and returns the
    /// best eligible node of the highest level that has one, and the number
    /// of nodes examined.
    fn find_split_point(&mut self, p: Proc, s: &mut Step) -> (Option<u32>, u64) {
        let mut level = std::mem::take(&mut self.level);
        let mut next = std::mem::take(&mut self.next_level);
        level.clear();
        if self.root != NONE {
            level.push(self.root);
        }
        let mut examined = 0;
        let bw = self.b as u32;
        let mut best: Option<(u32, Candidate)> = None;
        while !level.is_empty() && best.is_none() {
            next.clear();
            for &x in &level {
                let b = self.blk(x);
                let (d, _) = self.mem.read(p, b, s.t);
                s.t += d;
                s.mem += d;
                examined += 1;
                let n = &self.nodes[x as usize];
                if n.open()
                    && let Some(progress) = self.scheme.eligible(&n.view(), &n.data)
                {
                    let c = Candidate::new(n.ply, progress, n.left, bw);
                    if best.is_none_or(|(_, o)| c.better(&o)) {
                        best = Some((x, c));
                    }
                }
                let mut y = n.first_child;
                while y != NONE {
                    next.push(y);
                    y = self.nodes[y as usize].next_sib;
                }
            }
            std::mem::swap(&mut level, &mut next);
        }
        self.level = level;
        self.next_level = next;
        (best.map(|(x, _)| x), examined)
    }

    fn split_fail(&mut self, p: Proc, s: &mut Step) {
        self.unlock(p, SPLIT_BLOCK, s);
        s.cost = cost::RETRY;
        self.procs[p].st = St::SplitStart;
    }

    fn split_join(&mut self, p: Proc, s: &mut Step) {
        let sp = self.procs[p].join;
        let b = self.blk(sp.0);
        if !self.try_lock(p, b, s) {
            return;
        }
        if self.valid(sp) {
            self.nodes[sp.0 as usize].threads += 1;
            self.unlock(p, SPLIT_BLOCK, s);
            self.procs[p].cur = sp.0;
            self.procs[p].st = St::Search;
        } else {
            self.unlock(p, b, s);
            self.split_locked(p, s);
        }
    }
}

/// Simulates the search of one tree rooted at `root` with `scheme`.
pub fn simulate<S: Scheme>(shape: &Shape, root: Node, scheme: &S, cfg: Config) -> Result<TreeStats> {
    Sim::new(shape, root, scheme, cfg)?.run()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::search;
    use crate::sim::schemes::{SchemeA, SchemeB};
    use crate::tree::{Model, Ordering, ROOT_PSCORE};

    fn shape(b: u32, wa: u32, wb: u32) -> Shape {
        Shape::new(Model::Exponential, Ordering::new(b, wa, wb).unwrap()).unwrap()
    }

    #[test]
    fn one_processor_is_the_sequential_search() {
        for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (1, 0, 0)] {
            let sh = shape(b, wa, wb);
            for seed in 1..20u32 {
                let root = Node { seed: seed * 7919, pscore: ROOT_PSCORE as u32 };
                for depth in 0..5 {
                    let seq = search(&sh, root, depth, &mut ());
                    let r = simulate(&sh, root, &SchemeA { m_a: 1 }, Config::new(1, depth)).unwrap();
                    assert_eq!(r.value, seq.value);
                    assert_eq!(r.nodes, seq.counts.nodes, "b={b} seed={seed} depth={depth}");
                    assert_eq!(r.leaves, seq.counts.leaves);
                    let (n, l, i) = (seq.counts.nodes, seq.counts.leaves, seq.counts.internal);
                    // t_1 = 3 (n - 1) + 8 L + 4 I + 1 + cold-start memory costs.
                    let states = 3 * (n - 1) + 8 * l + 4 * i + 1;
                    assert_eq!(r.state_ticks.iter().sum::<u64>(), states);
                    assert_eq!(r.ticks, states + r.mem_stall);
                    assert_eq!(r.accounted(), r.ticks);
                    assert_eq!(r.lock_wait, 0);
                }
            }
        }
    }

    #[test]
    fn no_progress_stops_with_the_processors_states() {
        let sh = shape(6, 50, 50);
        let root = Node { seed: 4242, pscore: ROOT_PSCORE as u32 };
        let cfg = Config { stall_limit: 5, ..Config::new(4, 4) };
        let e = simulate(&sh, root, &SchemeA { m_a: 1 }, cfg).unwrap_err().to_string();
        assert!(e.starts_with("no progress for 5 simulated ticks"), "{e}");
        for q in 0..4 {
            assert!(e.contains(&format!("P{q} ")), "{e}");
        }
        assert!(e.contains("SplitStart") || e.contains("SplitFail"), "{e}");
        // With the default limit the same tree finishes, heaps balanced.
        let r = simulate(&sh, root, &SchemeA { m_a: 1 }, Config::new(4, 4)).unwrap();
        assert_eq!(r.value, ROOT_PSCORE as i64);
        assert!(r.pool >= 4 * 4 * 2);
    }

    #[test]
    fn zero_processors_are_refused() {
        let sh = shape(2, 0, 0);
        let root = Node { seed: 1, pscore: 5 };
        assert!(simulate(&sh, root, &SchemeA { m_a: 1 }, Config::new(0, 2)).is_err());
    }

    #[test]
    fn parallel_root_value_is_minimax() {
        for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (4, 100, 100)] {
            let sh = shape(b, wa, wb);
            for seed in 1..15u32 {
                let root = Node { seed: seed * 104729, pscore: ROOT_PSCORE as u32 };
                for depth in 1..5 {
                    for procs in [2, 3, 7, 16, 64, 256] {
                        let cfg = Config::new(procs, depth);
                        let a = simulate(&sh, root, &SchemeA { m_a: 2 }, cfg).unwrap();
                        assert_eq!(a.value, ROOT_PSCORE as i64, "A b={b} seed={seed} depth={depth} p={procs}");
                        assert_eq!(a.accounted(), a.ticks * procs as u64);
                        let bb = simulate(&sh, root, &SchemeB { m_b: 1 }, cfg).unwrap();
                        assert_eq!(bb.value, ROOT_PSCORE as i64, "B b={b} seed={seed} depth={depth} p={procs}");
                    }
                }
            }
        }
    }
}
