//! A search that pauses instead of giving up (Ura, Tsuruoka and Chikayama
//! 2014, §3 and Fig. 5): a worker "frequently checks message arrivals even
//! during search"; on a message it suspends its search, files the message,
//! and resumes the search unless a more important task is now first, in
//! which case the search is aborted. The effort of a search that was only
//! interrupted is never repeated.
//!
//! A process's handlers cannot be interrupted (the executor runs one to
//! its end), so the search runs on a stack of its own (a stackful
//! coroutine, the `corosensei` crate): every [`Searcher::limit`] nodes it
//! suspends itself at a node's entry, before the node is counted, and hands
//! back the nodes searched and the table entries it stored for sharing. The
//! process charges those nodes, returns to the executor, which delivers
//! what arrived meanwhile, and on its next turn either [`Paused::go`]es on
//! (with entries to absorb) or [`Paused::stop`]s. A search that was never
//! stopped visits exactly the nodes of the same search run in one go (the
//! pause is at a node boundary and changes nothing the search reads, the
//! absorbed entries aside), so the slice is only how often messages are
//! looked at, not a cost.
//!
//! The coroutine borrows the tree source across the process's handlers:
//! the executors hand every handler of a run the same source, which
//! outlives the processes (see [`Paused::start`]).

use crate::cluster::search::SharedEntry;
use crate::cluster::search::{PauseHook, Searcher};
use crate::game::TreeSource;
use crate::search::NodeCounts;
use crate::value::Window;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

/// Bytes of each paused search's stack: a search's recursion is a few
/// frames a ply (a few kB), and depths stay below a hundred plies; only the
/// pages a search touches are ever committed.
pub const STACK_BYTES: usize = 256 << 10;

/// Bytes of a paused search's stack the memory estimate counts
/// ([`crate::cluster::memory`]): the pages a worker's searches touch, about
/// 17 kB a worker measured (peak resident memory of 512 workers at b = 20,
/// d = 12, with and without pausing), doubled for deeper or wider sources.
pub const STACK_COMMITTED: u64 = 32 << 10;

/// What the process tells a paused search.
enum Cmd<N> {
    /// Search this many more nodes, after storing these entries.
    Go(u64, Vec<SharedEntry<N>>),
    /// Give up (a more important task, or the end).
    Stop,
}

/// What a search hands back when it pauses: its node counts so far and
/// the entries it stored for sharing since the last pause.
struct Pause<N> {
    counts: NodeCounts,
    outbox: Vec<SharedEntry<N>>,
}

/// What a finished search hands back: the searcher, the value, whether it
/// was stopped.
struct Finished<S: TreeSource> {
    searcher: Searcher<S>,
    value: i64,
    stopped: bool,
}

/// The pause the search calls at its limit ([`Searcher::pause`]), its
/// coroutine's yielder and source behind raw pointers (valid while the
/// coroutine runs; it lives on the coroutine's stack).
struct Hook<S: TreeSource> {
    yielder: *const Yielder<Cmd<S::Node>, Pause<S::Node>>,
    src: *const S,
}

impl<S: TreeSource> Hook<S> {
    /// Suspends the search; `true` to give up.
    fn pause(&self, s: &mut Searcher<S>) -> bool {
        // SAFETY: the yielder lives on the coroutine's stack for its whole
        // run and the source outlives it (module doc).
        let (y, src) = unsafe { (&*self.yielder, &*self.src) };
        let outbox = std::mem::take(&mut s.outbox);
        match y.suspend(Pause { counts: s.counts, outbox }) {
            Cmd::Go(more, absorb) => {
                go_on(s, src, more, &absorb);
                false
            }
            Cmd::Stop => true,
        }
    }
}

/// What [`Cmd::Go`] asks of a search about to start or resume: store
/// `absorb` in its table, then search `more` nodes (at least one).
fn go_on<S: TreeSource>(s: &mut Searcher<S>, src: &S, more: u64, absorb: &[SharedEntry<S::Node>]) {
    absorb.iter().for_each(|e| s.absorb(src, e));
    s.limit = s.counts.nodes.saturating_add(more.max(1));
}

/// The searcher's pause hook: the [`Hook`] behind its context.
fn call_hook<S: TreeSource>(ctx: *const (), s: &mut Searcher<S>) -> bool {
    // SAFETY: `ctx` is the `Hook` on the paused search's stack, set for
    // that search only (`Paused::start`).
    let hook = unsafe { &*ctx.cast::<Hook<S>>() };
    hook.pause(s)
}

/// What one turn of a search gave (transient: returned and taken apart at
/// once, so the searcher is not boxed).
#[allow(clippy::large_enum_variant)]
pub enum Turn<S: TreeSource> {
    /// It paused: the nodes it searched this turn and the entries it stored
    /// for sharing.
    Paused(NodeCounts, Vec<SharedEntry<S::Node>>),
    /// It ended: this turn's nodes, the searcher back, the value (fail-hard
    /// in the window; meaningless if stopped) and whether it was stopped.
    Done {
        /// Nodes searched this turn.
        counts: NodeCounts,
        /// The searcher, its table updated.
        searcher: Searcher<S>,
        /// The value.
        value: i64,
        /// Whether [`Paused::stop`] ended it.
        stopped: bool,
    },
}

/// The coroutine a search runs in: told [`Cmd`]s, yielding [`Pause`]s,
/// returning [`Finished`].
type Search<S> = Coroutine<Cmd<<S as TreeSource>::Node>, Pause<<S as TreeSource>::Node>, Finished<S>, DefaultStack>;

/// A search on its own stack, paused between turns.
pub struct Paused<S: TreeSource> {
    co: Search<S>,
    /// The counts at the last pause (the searcher's, cumulative).
    seen: NodeCounts,
}

impl<S: TreeSource> Paused<S> {
    /// Starts `searcher` on `node` (MAX if `max`, `ply` from the root) to
    /// `depth` in `window` on `stack`; nothing runs before the first
    /// [`Paused::go`].
    ///
    /// # Safety
    /// `src` must stay valid, and the same, until the search is [`Turn::Done`]
    /// or this value dropped: the executors pass a run's one source to
    /// every handler and drop the processes before it.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn start(stack: DefaultStack, mut searcher: Searcher<S>, src: &S, node: S::Node, max: bool, depth: u32, ply: u32, window: Window) -> Paused<S> {
        let seen = searcher.counts;
        let srcp: *const S = src;
        let body = move |y: &Yielder<Cmd<S::Node>, Pause<S::Node>>, first: Cmd<S::Node>| {
            // SAFETY: as `start`'s contract.
            let src = unsafe { &*srcp };
            match first {
                Cmd::Go(more, absorb) => go_on(&mut searcher, src, more, &absorb),
                Cmd::Stop => return Finished { searcher, value: window.alpha, stopped: true },
            }
            let hook = Hook::<S> { yielder: y, src: srcp };
            searcher.pause = Some(PauseHook { ctx: std::ptr::from_ref(&hook).cast(), call: call_hook::<S> });
            let value = searcher.search(src, &node, max, depth, ply, window);
            searcher.pause = None;
            searcher.limit = u64::MAX;
            let stopped = std::mem::take(&mut searcher.aborted);
            Finished { searcher, value, stopped }
        };
        // SAFETY: the body borrows nothing but through `srcp` (the
        // caller's contract) and the yielder (the coroutine's own).
        let co = unsafe { Coroutine::with_stack_unchecked(stack, body) };
        Paused { co, seen }
    }

    /// Searches `more` nodes further (at least one), after storing
    /// `absorb` in the table.
    pub fn go(&mut self, more: u64, absorb: Vec<SharedEntry<S::Node>>) -> Turn<S> {
        self.turn(Cmd::Go(more, absorb))
    }

    /// Gives the search up: it returns through its abort path, storing
    /// nothing it had not finished.
    pub fn stop(&mut self) -> Turn<S> {
        self.turn(Cmd::Stop)
    }

    fn turn(&mut self, cmd: Cmd<S::Node>) -> Turn<S> {
        match self.co.resume(cmd) {
            CoroutineResult::Yield(p) => {
                let counts = p.counts - self.seen;
                self.seen = p.counts;
                Turn::Paused(counts, p.outbox)
            }
            CoroutineResult::Return(f) => {
                let counts = f.searcher.counts - self.seen;
                self.seen = f.searcher.counts;
                Turn::Done { counts, searcher: f.searcher, value: f.value, stopped: f.stopped }
            }
        }
    }

    /// The stack back, once the search is done (for the next search).
    pub fn into_stack(self) -> DefaultStack {
        self.co.into_stack()
    }
}

/// A fresh stack for a paused search.
pub fn stack() -> DefaultStack {
    // An mmap that fails is the machine out of memory, as a failed
    // allocation is.
    DefaultStack::new(STACK_BYTES).unwrap_or_else(|e| panic!("cannot map a search stack of {STACK_BYTES} bytes: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::minimax;
    use crate::tree::incremental::Incremental;

    /// Paused every few nodes, a search visits exactly the nodes of the
    /// same search in one go and returns its value; stopped, it returns
    /// through its abort path.
    #[test]
    fn a_paused_search_is_the_search_run_in_one_go() {
        let t = Incremental::new(4, 100).unwrap();
        for seed in 1..6 {
            let root = t.root(seed);
            let mut one = Searcher::new(1 << 10);
            let want = one.search(&t, &root, true, 7, 0, Window::ROOT);
            assert_eq!(want, minimax(&t, &root, true, 7, 0));
            let mut st = stack();
            for slice in [1, 7, 100, 1 << 20] {
                // SAFETY: `t` outlives the paused search.
                let mut p = unsafe { Paused::start(st, Searcher::new(1 << 10), &t, root, true, 7, 0, Window::ROOT) };
                let (mut total, mut turns) = (NodeCounts::default(), 0);
                let (s, v) = loop {
                    turns += 1;
                    match p.go(slice, vec![]) {
                        Turn::Paused(c, _) => total = total + c,
                        Turn::Done { counts, searcher, value, stopped } => {
                            assert!(!stopped);
                            total = total + counts;
                            break (searcher, value);
                        }
                    }
                };
                st = p.into_stack();
                assert_eq!((v, total, s.counts), (want, one.counts, one.counts), "seed {seed} slice {slice}");
                assert!(turns as u64 >= one.counts.nodes / slice, "{turns}");
            }
            // SAFETY: as above.
            let mut p = unsafe { Paused::start(st, Searcher::new(1 << 10), &t, root, true, 7, 0, Window::ROOT) };
            assert!(matches!(p.go(50, vec![]), Turn::Paused(c, _) if c.nodes == 50));
            let Turn::Done { counts, stopped, searcher, .. } = p.stop() else { panic!("a stopped search ends") };
            assert!(stopped);
            assert_eq!((counts.nodes, searcher.counts.nodes), (0, 50));
        }
    }

    /// A search dropped while paused unwinds its own stack.
    #[test]
    fn a_paused_search_can_be_dropped() {
        let t = Incremental::new(3, 100).unwrap();
        // SAFETY: `t` outlives the paused search.
        let mut p = unsafe { Paused::start(stack(), Searcher::new(64), &t, t.root(1), true, 6, 0, Window::ROOT) };
        assert!(matches!(p.go(10, vec![]), Turn::Paused(..)));
        drop(p);
    }
}
