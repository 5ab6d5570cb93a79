//! The sequential baseline of the message-passing machines (Ura,
//! Tsuruoka and Chikayama 2014, Fig. 1): fail-hard alpha-beta with internal
//! iterative deepening and a transposition table (`docs/model.md` §9.2).
//!
//! Before searching a node's children to depth d, a node of depth d ≥ 3
//! with no best move in the table is searched to depth d − 2; the best move
//! that search stores goes first, the others follow in the source's order
//! (its static evaluation for the incremental trees). The table is a fixed
//! number of slots indexed by the node's key ([`crate::tt::ProcessTable`]:
//! 16 bytes an entry, buckets of two that keep the deeper result); an
//! entry is used only for the same key at the same ply and remaining
//! depth, so every value it returns is the fixed-depth minimax value the
//! plain search returns (tested). Workers of the parallel policies each
//! own one.
//!
//! The search is the project's one alpha-beta
//! ([`crate::search::alphabeta`]) with the [`Searcher`] as its hook set
//! (the node limit, the table's cut or best move, the deepening, the order,
//! the tasks, the outbox); the table is [`crate::tt::ProcessTable`], whose
//! storage is private to `tt`. A node's moves are taken in the source's
//! order, children made one at a time and leaves valued inline, unless the
//! table's best move is another: then they are all generated first.

use crate::cluster::reference::SeqTasks;
use crate::game::TreeSource;
use crate::search::{Hooks, NodeCounts, Observer, Order, Probe, Visit, alphabeta};
use crate::tt::{Bound, Entry, ProcessTable, Table};
use crate::value::Window;
use serde::{Deserialize, Serialize};

/// A transposition-table entry as one process shares it with the others
/// (the master-worker *with share*, its workers' ring).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedEntry<N> {
    /// The position.
    pub node: N,
    /// Its distance from the tree's root.
    pub ply: u32,
    /// The remaining depth it was searched to.
    pub depth: u32,
    /// Its value.
    pub value: i64,
    /// What `value` is.
    pub bound: Bound,
    /// The best (or cut-off) move's place in the source's order.
    pub best: u32,
    /// The process that found it.
    pub origin: u32,
}

/// Ura et al.'s §5.2 simulations of the workers with the sequential
/// search: the nodes at ply `ply` (d′) are the tasks; entries above them
/// go to a table of their own (the master's), those below to a second
/// one, which a task may use as [`Sharing`] says; with `full_window` a task
/// is searched with the full window (the result clamped to its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tasks {
    /// The master's depth d′.
    pub ply: u32,
    /// Which deep entries a task may use.
    pub sharing: Sharing,
    /// Tasks searched with the full window.
    pub full_window: bool,
}

/// Which deep entries (below ply d′) a task may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Every task's: one table fully shared among workers (the baseline).
    All,
    /// Its own only: workers that share nothing.
    Own,
    /// Its own, and other tasks' at most this many plies below d′ (the
    /// partial share of §3.2).
    Near(u32),
}

/// Default transposition-table entries per process, 2^14 (256 KiB): at
/// depth 18 on 1,536 processes a 2^16 table saves 7% of the sequential
/// search's leaves and 3-12% of the master-worker's for four times the
/// memory, and 2^14 keeps that run within 1 GB (`docs/decisions.md`,
/// "Transposition tables", for the measurement).
pub const DEFAULT_TT_SLOTS: usize = 1 << 14;

/// An alpha-beta searcher with its own transposition table
/// ([`ProcessTable`]): the project's one alpha-beta
/// ([`crate::search::alphabeta`]) with the searcher as its hook set.
pub struct Searcher<S: TreeSource> {
    /// The table (with tasks: the deep one, below d′).
    tt: ProcessTable,
    /// With tasks: the master's table, at d′ and above (as many slots).
    master: Option<ProcessTable>,
    /// Move buffers, reused across searches.
    buf: Vec<S::Slot>,
    /// Nodes searched so far (internal iterative deepening included).
    pub counts: NodeCounts,
    /// The search aborts once `counts.nodes` reaches this (a worker's
    /// slice; `u64::MAX` by default): it returns a meaningless value, sets
    /// [`Searcher::aborted`] and stores nothing it had not finished.
    pub limit: u64,
    /// Whether a search hit [`Searcher::limit`] (cleared by the caller).
    pub aborted: bool,
    /// What the search does at [`Searcher::limit`]: pause and go on (the
    /// hook returns `false`, having raised the limit) or give up (`true`);
    /// `None`: give up ([`crate::cluster::pause`] sets it).
    pub pause: Option<PauseHook<S>>,
    /// Entries stored at this ply or nearer the root are also copied to
    /// [`Searcher::outbox`] (the master-worker *with share*; `None`: none).
    pub share_ply: Option<u32>,
    /// Entries to share, in the order they were stored.
    pub outbox: Vec<SharedEntry<S::Node>>,
    /// The workers' simulation of §5.2 (`None`: the plain search).
    tasks: Option<Tasks>,
    /// The task being searched (a key of its node; 0 above d′).
    task: u64,
    /// d′ + 1 with tasks, 0 without: the plies below it are the master's
    /// (one compare on the hot path instead of a match).
    deep_ply: u32,
    /// The table's size, for the master's.
    slots: usize,
    /// The nodes searched to full depth at the plies it records, recorded
    /// ([`Searcher::watch`]).
    watch: Option<Box<SeqTasks>>,
    /// The larger of `deep_ply` and the watch's plies: a node nearer the
    /// root than this may start a task or be recorded (one compare on the
    /// hot path for both; [`Searcher::near`]).
    near_below: u32,
}

/// A search's pause at its node limit ([`Searcher::pause`]): a function
/// and the context it is called with, set by [`crate::cluster::pause`] for
/// the length of one search (the context lives on that search's stack).
pub struct PauseHook<S: TreeSource> {
    /// The context, valid while the hook is set.
    pub ctx: *const (),
    /// Suspends the search (`ctx`, the searcher); `true` to give up.
    pub call: fn(*const (), &mut Searcher<S>) -> bool,
}

// SAFETY: a hook is set only inside a paused search's own stack and
// removed before the search returns; the searcher holding it never leaves
// the thread that runs that search.
unsafe impl<S: TreeSource> Send for PauseHook<S> {}

impl<S: TreeSource> Searcher<S> {
    /// At the node limit: the pause hook's answer, or give up.
    #[cold]
    #[inline(never)]
    fn at_limit(&mut self) -> bool {
        match self.pause.take() {
            None => true,
            Some(p) => {
                let stop = (p.call)(p.ctx, self);
                self.pause = Some(p);
                stop
            }
        }
    }

    /// A searcher with `slots` table entries (rounded up to an even number).
    pub fn new(slots: usize) -> Searcher<S> {
        Searcher {
            tt: ProcessTable::new(slots),
            master: None,
            buf: vec![],
            counts: NodeCounts::default(),
            limit: u64::MAX,
            aborted: false,
            pause: None,
            share_ply: None,
            outbox: vec![],
            tasks: None,
            task: 0,
            deep_ply: 0,
            slots,
            watch: None,
            near_below: 0,
        }
    }

    /// Records in `t` the nodes every later search enters at full depth
    /// at the plies `t` records (the sequential baseline's tasks,
    /// [`SeqTasks`]).
    pub fn watch(&mut self, t: SeqTasks) {
        self.watch = Some(Box::new(t));
        self.near();
    }

    /// What [`Searcher::watch`] recorded, sealed; the watch ends.
    pub fn watched(&mut self) -> Option<SeqTasks> {
        let t = self.watch.take();
        self.near();
        t.map(|mut t| {
            t.seal();
            *t
        })
    }

    /// Sets [`Searcher::near_below`] from the tasks' ply and the watch.
    fn near(&mut self) {
        self.near_below = self.deep_ply.max(self.watch.as_ref().map_or(0, |w| w.plies()));
    }

    /// A node nearer the root than [`Searcher::near_below`]: recorded if
    /// watched at its full depth; with tasks, a node at d′ starts a task of
    /// its own (searched with the full window if asked, its value clamped
    /// to its own).
    #[inline(never)]
    fn descend_near(&mut self, src: &S, buf: &mut [S::Slot], node: &S::Node, depth: u32, v: Visit) -> i64 {
        if let Some(w) = &mut self.watch {
            w.record(v.ply, depth, src.tt_key(node, v.ply));
        }
        if v.ply + 1 == self.deep_ply
            && let Some(t) = self.tasks
        {
            let outer = std::mem::replace(&mut self.task, src.root_key(node) | 1);
            let value = if t.full_window {
                alphabeta(src, self, buf, node, depth, Visit { window: Window::ROOT, ..v }).clamp(v.window.alpha, v.window.beta)
            } else {
                alphabeta(src, self, buf, node, depth, v)
            };
            self.task = outer;
            return value;
        }
        alphabeta(src, self, buf, node, depth, v)
    }

    /// Sets Ura et al.'s §5.2 simulation of the workers ([`Tasks`]).
    pub fn simulate_tasks(&mut self, t: Tasks) {
        self.tasks = Some(t);
        self.deep_ply = t.ply + 1;
        self.near();
        self.tt.keep_tags();
        self.master.get_or_insert_with(|| ProcessTable::new(self.slots));
    }

    /// The table of entries at `ply`: the master's (tasks only) above the deep plies.
    #[inline(always)]
    fn table(&mut self, ply: u32) -> &mut ProcessTable {
        match &mut self.master {
            Some(m) if ply < self.deep_ply => m,
            _ => &mut self.tt,
        }
    }

    /// The table of entries at `ply`, to read.
    #[inline(always)]
    fn table_at(&self, ply: u32) -> &ProcessTable {
        match &self.master {
            Some(m) if ply < self.deep_ply => m,
            _ => &self.tt,
        }
    }

    #[inline(always)]
    fn find(&self, src: &S, node: &S::Node, ply: u32) -> Option<Entry> {
        self.table_at(ply).probe(src.tt_key(node, ply), ply).filter(|e| self.usable(e.tag, ply))
    }

    /// Whether the task being searched may use an entry of task `tag` at `ply`
    /// ([`Sharing`]).
    #[inline(always)]
    fn usable(&self, tag: u64, ply: u32) -> bool {
        if tag == self.task || ply < self.deep_ply {
            return true;
        }
        match self.tasks {
            Some(t) => match t.sharing {
                Sharing::All => true,
                Sharing::Own => false,
                Sharing::Near(k) => ply <= t.ply + k,
            },
            None => true,
        }
    }

    /// The fixed-depth minimax value of `node` (a MAX node if `max`, at
    /// distance `ply` from the tree's root) searched to `depth` in window
    /// `w`, fail-hard: within `[alpha, beta]`, exact strictly inside.
    pub fn search(&mut self, src: &S, node: &S::Node, max: bool, depth: u32, ply: u32, w: Window) -> i64 {
        let mut buf = std::mem::take(&mut self.buf);
        buf.resize(src.slots() * depth as usize, S::Slot::default());
        let v = Visit { ply, index: 0, max, window: w, pv: false, leaf: false, moves: 0 };
        let value = self.descend(src, &mut buf, node, depth, v);
        self.buf = buf;
        value
    }

    /// The entry the table holds for `node` at `ply`, if any: a search
    /// run above the searcher's pieces (Fox et al.'s master, `crate::cluster::algorithms::fox`)
    /// reads the best move the pieces stored.
    pub fn entry(&self, src: &S, node: &S::Node, ply: u32) -> Option<Entry> {
        self.find(src, node, ply)
    }

    /// Stores what a search run above the searcher's pieces found for
    /// `node` at `ply` (its fail-hard value, bound, depth and best move).
    pub fn remember(&mut self, src: &S, node: &S::Node, ply: u32, e: Entry) {
        let key = src.tt_key(node, ply);
        let tag = self.task;
        self.table(ply).store(key, ply, Entry { tag, ..e });
    }

    /// The best move the table holds for `node` at `ply` (its place in the
    /// source's order), whatever depth it was searched to: what YBWC's
    /// frames order and wait by (`crate::cluster::algorithms::ybwc`).
    pub fn best_move(&self, src: &S, node: &S::Node, ply: u32) -> Option<u32> {
        self.entry(src, node, ply).map(|e| e.best)
    }

    /// Stores an entry another process found (every entry is the
    /// fixed-depth value of its node, whoever found it).
    pub fn absorb(&mut self, src: &S, e: &SharedEntry<S::Node>) {
        let key = src.tt_key(&e.node, e.ply);
        let hit = Entry { value: e.value, bound: e.bound, depth: e.depth, best: e.best, tag: 0 };
        self.table(e.ply).store(key, e.ply, hit);
    }
}

/// The searcher's node hook: every node entered is counted.
impl<S: TreeSource> Observer for Searcher<S> {
    #[inline(always)]
    fn enter(&mut self, v: &Visit) {
        self.counts.count(v);
    }
}

/// Fig. 1's search as hooks: the node limit, the table's cut or best move,
/// internal iterative deepening, best move first, the tasks, the outbox.
impl<S: TreeSource> Hooks<S> for Searcher<S> {
    #[inline(always)]
    fn abort(&mut self, _depth: u32) -> bool {
        if self.counts.nodes >= self.limit && !self.aborted {
            self.aborted = self.at_limit();
        }
        self.aborted
    }
    #[inline(always)]
    fn aborted(&self) -> bool {
        self.aborted
    }
    /// A node the table decides counts as a node (neither leaf nor internal).
    #[inline(always)]
    fn probe(&mut self, src: &S, node: &S::Node, v: &Visit, depth: u32) -> Probe {
        match self.find(src, node, v.ply) {
            Some(e) => match e.cut(depth, v.window) {
                Some(value) => {
                    self.counts.nodes += 1;
                    Probe::Cut(value)
                }
                None => Probe::Hint(e.best),
            },
            None => Probe::Miss,
        }
    }
    #[inline(always)]
    fn prefetch(&mut self, src: &S, moves: &S::Moves<'_>, ply: u32) {
        let t = self.table_at(ply);
        src.child_keys(moves, ply, |k| t.prefetch(k));
    }
    /// Internal iterative deepening: a node of depth d ≥ 3 with no best
    /// move in the table is searched to depth d − 2 first; the best move
    /// it stores goes first.
    #[inline(always)]
    fn prepare(&mut self, src: &S, buf: &mut [S::Slot], node: &S::Node, depth: u32, v: &Visit, hint: Option<u32>) -> Option<u32> {
        if hint.is_some() || depth < 3 {
            return hint;
        }
        self.descend(src, buf, node, depth - 2, *v);
        if self.aborted {
            return None;
        }
        self.find(src, node, v.ply).map(|e| e.best)
    }
    /// The best move first, the others in the source's order (its static
    /// evaluation for the incremental trees).
    #[inline(always)]
    fn order(&self, _v: &Visit, _depth: u32, moves: u32, hint: Option<u32>) -> Order {
        match hint.map_or(0, |f| f.min(moves - 1)) {
            0 => Order::Source,
            first => Order::Permuted { first, shift: 0 },
        }
    }
    /// Near the root, the watch and the tasks (`Searcher::descend_near`).
    #[inline(always)]
    fn descend(&mut self, src: &S, buf: &mut [S::Slot], node: &S::Node, depth: u32, v: Visit) -> i64 {
        if v.ply < self.near_below {
            return self.descend_near(src, buf, node, depth, v);
        }
        alphabeta(src, self, buf, node, depth, v)
    }
    #[inline(always)]
    fn store(&mut self, src: &S, node: &S::Node, v: &Visit, e: Entry) {
        let ply = v.ply;
        if self.share_ply.is_some_and(|p| ply <= p) {
            self.outbox.push(SharedEntry { node: node.clone(), ply, depth: e.depth, value: e.value, bound: e.bound, best: e.best, origin: 0 });
        }
        let key = src.tt_key(node, ply);
        let tag = self.task;
        self.table(ply).store(key, ply, Entry { tag, ..e });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{minimax, search};
    use crate::tree::artificial::{Model, Node, Ordering, Shape};
    use crate::tree::incremental::Incremental;

    #[test]
    fn iid_and_table_return_the_minimax_value() {
        let t = Incremental::new(4, 100).unwrap();
        for seed in 1..30 {
            let root = t.root(seed);
            for depth in 0..7 {
                // A tiny table forces collisions and replacements.
                for slots in [1, 64, 1 << 12] {
                    let mut s = Searcher::new(slots);
                    let v = s.search(&t, &root, true, depth, 0, Window::ROOT);
                    assert_eq!(v, minimax(&t, &root, true, depth, 0), "seed {seed} depth {depth} slots {slots}");
                }
            }
        }
        let shape = Shape::new(Model::Exponential, Ordering::new(6, 50, 20).unwrap()).unwrap();
        for seed in 1..20 {
            let root = Node { seed, pscore: crate::value::ROOT_PSCORE as u32 };
            let mut s = Searcher::new(1 << 10);
            assert_eq!(s.search(&shape, &root, true, 6, 0, Window::ROOT), search(&shape, &root, 6, &mut ()).value);
        }
    }

    /// On the games too (a mate's distance in the value, Othello's passes),
    /// from inner nodes and in narrow windows: the fail-hard minimax value.
    #[test]
    fn iid_and_table_return_the_minimax_value_on_games() {
        fn check<S: TreeSource>(src: &S, root: &S::Node, depth: u32) {
            let want = minimax(src, root, true, depth, 0);
            for w in [
                Window::ROOT,
                Window { alpha: want - 50, beta: want + 50 },
                Window { alpha: want, beta: want + 1 },
                Window { alpha: want + 1, beta: want + 99 },
            ] {
                for slots in [1, 1 << 10] {
                    let mut s = Searcher::new(slots);
                    assert_eq!(s.search(src, root, true, depth, 0, w), want.clamp(w.alpha, w.beta), "depth {depth} {w:?} slots {slots}");
                    assert!(s.counts.nodes >= s.counts.leaves + s.counts.internal);
                }
            }
        }
        let mate = crate::game::chess::Position::parse("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap();
        let open = crate::game::chess::Position::parse("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
        for depth in 1..4 {
            check(&crate::game::chess::Chess, &mate, depth);
            check(&crate::game::chess::Chess, &open, depth);
        }
        for depth in 1..6 {
            check(&crate::game::othello::Othello, &crate::game::othello::Position::start(), depth);
        }
    }

    /// With tasks (every sharing and full windows), with entries absorbed
    /// from another searcher: still the minimax value.
    #[test]
    fn tasks_and_absorbed_entries_keep_the_minimax_value() {
        let t = Incremental::new(5, 100).unwrap();
        for seed in 1..8 {
            let root = t.root(seed);
            let want = minimax(&t, &root, true, 6, 0);
            for sharing in [Sharing::All, Sharing::Own, Sharing::Near(1)] {
                for full_window in [false, true] {
                    let mut s = Searcher::new(1 << 8);
                    s.simulate_tasks(Tasks { ply: 2, sharing, full_window });
                    assert_eq!(s.search(&t, &root, true, 6, 0, Window::ROOT), want, "{sharing:?} {full_window}");
                }
            }
            let mut a = Searcher::new(1 << 12);
            a.share_ply = Some(3);
            a.search(&t, &root, true, 6, 0, Window::ROOT);
            assert!(!a.outbox.is_empty());
            let mut b = Searcher::new(1 << 12);
            a.outbox.iter().for_each(|e| b.absorb(&t, e));
            // The root's own entry, absorbed, decides the search at once.
            assert_eq!(b.search(&t, &root, true, 6, 0, Window::ROOT), want);
            assert_eq!((b.counts.nodes, b.counts.internal), (1, 0));
        }
    }

    /// The watch records the nodes searched to full depth: at ply 1 every
    /// root child (alpha-beta searches them all), at ply 2 every child of
    /// the first and at least one of each other; the deepening's shallower
    /// searches of the same nodes are not recorded, and the search is the
    /// same watched or not.
    #[test]
    fn the_watch_records_the_full_depth_nodes() {
        let t = Incremental::new(5, 100).unwrap();
        for seed in 1..10 {
            let root = t.root(seed);
            let mut plain = Searcher::new(1 << 10);
            let want = plain.search(&t, &root, true, 7, 0, Window::ROOT);
            let mut s = Searcher::new(1 << 10);
            s.watch(SeqTasks::new(7, 3));
            assert_eq!((s.search(&t, &root, true, 7, 0, Window::ROOT), s.counts), (want, plain.counts));
            let w = s.watched().unwrap();
            assert!(s.watched().is_none());
            assert_eq!(w.at(1), 5);
            assert!((5 + 4..=25).contains(&w.at(2)), "seed {seed}: {}", w.at(2));
            let kids = crate::game::children(&t, &root, true);
            assert!(kids.iter().all(|k| w.contains(1, t.tt_key(k, 1)) == Some(true)));
            assert_eq!(w.contains(3, 0), None);
        }
    }

    #[test]
    fn iterative_deepening_searches_fewer_leaves_on_a_deep_tree() {
        // 32 b = 5 trees at depth 10: the table and the deeper search's
        // best move first cost the shallower searches but cut leaves.
        let t = Incremental::new(5, 100).unwrap();
        let (mut plain, mut iid) = (0, 0);
        for seed in 1..=32 {
            let root = t.root(seed);
            plain += search(&t, &root, 10, &mut ()).counts.leaves;
            let mut s = Searcher::new(1 << 16);
            s.search(&t, &root, true, 10, 0, Window::ROOT);
            iid += s.counts.leaves;
        }
        assert_eq!((plain, iid), (465_891, 363_781));
    }
}
