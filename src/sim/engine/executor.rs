//! The executor's scheduling points: the futures a processor awaits
//! ([`Suspend`], [`AccessFuture`]), one turn of an access (served, waited
//! out, or refused and parked), the grouped turns of processors parked at
//! one busy block (`pass_waiters`), sleeping until a block is written, and
//! charging time to states (thesis §6.1, the fibers' `CREAD`/`CWRITE`;
//! `docs/model.md` §5.2; `docs/decisions.md`, "Shared-memory simulator").

use super::NONE;
use super::machine::{Machine, SimIdle, World};
use super::record::{NoRecord, Recorder};
use super::spec::Interleave;
use super::stats::{State, TimeKind, TraceEvent};
use super::types::Step;
use crate::game::TreeSource;
use crate::schemes::SplitScheme;
use crate::sim::memory::{Access, Block, Proc};
use crate::sim::sched::{NEVER, bits};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Resolves at once, or after being suspended once: the executor resumes
/// the processor when its clock is the smallest again.
pub struct Suspend(bool);

impl Future for Suspend {
    type Output = ();
    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            self.0 = false;
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}

/// One memory access: issued when first polled. Refused by a busy block,
/// the processor is parked: the executor issues the request again each
/// time the processor's turn comes, without resuming its task, until the
/// block accepts it (`Machine::access_step`). Once accepted, the access
/// takes effect and the processor waits out its delay; the next poll
/// finds it done. (A future of its own rather than an `async fn`: it is
/// the simulator's innermost loop.)
pub struct AccessFuture<'m, 'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder = NoRecord> {
    m: &'m Machine<'a, T, S, P, R>,
    p: Proc,
    b: Block,
    write: bool,
    /// Issued and suspended: the access is served when the task is polled again.
    issued: bool,
}

impl<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Future for AccessFuture<'_, '_, T, S, P, R> {
    type Output = ();
    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.issued {
            return Poll::Ready(());
        }
        let (m, p, b, write) = (self.m, self.p, self.b, self.write);
        let mut w = m.w.borrow_mut();
        // Most accesses hit and change nothing: checked here, at each of
        // the many places an access is awaited; the rest is one call.
        if m.at_once(&w, p, b, write) {
            return Poll::Ready(());
        }
        let r = m.access_first(&mut w, p, b, write);
        if r.is_pending() {
            self.issued = true;
        }
        r
    }
}

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// Whether processors wait for a write to block `b` (only the shared
    /// variables and mailboxes are waited on).
    #[inline(always)]
    pub(crate) fn has_waiters(&self, w: &World<S::Data, T>, b: Block) -> bool {
        b < self.node_base && !w.waiters[b].is_empty()
    }

    /// Whether `p`'s access to block `b` takes effect at once, with no
    /// time and no other change: a hit that wakes no one.
    #[inline(always)]
    pub(crate) fn at_once(&self, w: &World<S::Data, T>, p: Proc, b: Block, write: bool) -> bool {
        w.mem.hits(p, b, write) && !(write && self.has_waiters(w, b))
    }

    /// The first turn of an access that may miss: parks the processor if
    /// the block refuses it.
    #[inline(never)]
    pub(crate) fn access_first(&self, w: &mut World<S::Data, T>, p: Proc, b: Block, write: bool) -> Poll<()> {
        match self.access_step(w, p, b, write) {
            Step::Ready => Poll::Ready(()),
            Step::Served => Poll::Pending,
            Step::Refused => {
                w.parked[p] = Some((b, write));
                Poll::Pending
            }
        }
    }

    /// One turn of processor `p`'s access to block `b`: the request,
    /// issued again within the turn while the block refuses it for less
    /// than the time `p` may run on.
    #[inline(always)]
    pub(crate) fn access_step(&self, w: &mut World<S::Data, T>, p: Proc, b: Block, write: bool) -> Step {
        loop {
            let now = w.sched.clock(p);
            let r = w.mem.request(p, b, now, write);
            // Only a request that missed (or a lock, recorded in `lock`) can
            // hold a processor up: hits need no record for a stuck run.
            if r != Access::Done(0) {
                w.on[p] = b;
            }
            // A write wakes the processors waiting for the block to change
            // (only the shared variables and mailboxes are waited on).
            if write
                && self.has_waiters(w, b)
                && let Access::Done(d) = r
            {
                self.wake(w, b, now + d);
                // The woken run from the write's end: the writer may not run past them.
                self.limit.set(self.limit.get().min(now + d));
            }
            match r {
                Access::Done(0) => return Step::Ready,
                Access::Done(d) => return if self.charge(w, p, d, TimeKind::Memory) { Step::Served } else { Step::Ready },
                // Refused until now: others asking at this moment go first.
                Access::Refused(until) if until == now => return Step::Refused,
                Access::Refused(until) => {
                    if self.charge(w, p, until - now, TimeKind::Memory) {
                        return Step::Refused;
                    }
                }
            }
        }
    }

    /// The turns of processors parked at one block, taken together. It is
    /// the turn of `p`, parked on block `b`, at the smallest clock `t`, which
    /// other processors share. A parked processor's turn changes nothing
    /// but its own clock and charges (and who ran last), so the executor
    /// need not run such turns one by one:
    /// - if the block is busy until `u` serving another processor, `p` and
    ///   the processors at `t` after it (round-robin) that wait for `b`
    ///   too, up to the first that does not, are each refused until `u`:
    ///   charged `u - t` of memory stall and moved to `u`, as their turns
    ///   would do (at `t` they cannot run on, since others are at `t` or `u`);
    /// - if the block is free and serves another waiter `f` first, `p` and
    ///   the waiters after it are refused until now, which changes nothing:
    ///   the scheduler goes on at the first processor at `t` that is `f` or
    ///   does not wait for `b`.
    ///
    /// Returns false, having done nothing, when `p` is the waiter the free
    /// block serves: its turn is an ordinary one. (At a lock that dozens of
    /// processors spin on, most turns are such refusals: 690 M of a run's
    /// 700 M turns at p = 1,024.)
    #[inline(never)]
    pub(crate) fn pass_waiters(&self, w: &mut World<S::Data, T>, p: Proc, b: Block, t: u64) -> bool {
        let until = w.mem.refused(p, b, t);
        let first = match until {
            Some(_) => NONE as Proc,
            None => match w.mem.first_waiter(b) {
                Some(f) if f != p => f,
                // A free block serves `p` first: an ordinary turn.
                _ => return false,
            },
        };
        // The processors at `t` from `p` on, cyclically, a word at a time:
        // `p`'s word from `p`, the later words, the earlier words, `p`'s
        // word below `p` (words with no processor at `t` are passed over).
        let (pw, pb) = (p / 64, p % 64);
        let occupied = w.sched.occupied(t);
        let later = if pw + 1 < 64 { occupied & (!0u64 << (pw + 1)) } else { 0 };
        let earlier = occupied & ((1u64 << pw) - 1);
        let words =
            std::iter::once((pw, !0u64 << pb)).chain(bits(later).chain(bits(earlier)).map(|wi| (wi, !0))).chain(std::iter::once((pw, (1u64 << pb) - 1)));
        for (wi, part) in words {
            let here = w.sched.at(t, wi) & part;
            let waiting = w.mem.waiting_word(b, wi);
            let stops = here & !waiting;
            if let Some(u) = until {
                let run = if stops == 0 { here } else { here & waiting & ((stops & stops.wrapping_neg()) - 1) };
                if run != 0 {
                    for q in bits(run) {
                        let q = wi * 64 + q;
                        debug_assert_eq!(w.mem.refused(q, b, t), Some(u), "P{q} is parked on block {b} at {t}");
                        self.book(w, q, u - t, TimeKind::Memory);
                    }
                    w.sched.advance(t, wi, run, u);
                    w.sched.set_last(wi * 64 + 63 - run.leading_zeros() as usize);
                }
                if stops != 0 {
                    return true;
                }
            } else {
                let f_here = if first / 64 == wi { here & (1u64 << (first % 64)) } else { 0 };
                let next = stops | f_here;
                if next != 0 {
                    let j = wi * 64 + next.trailing_zeros() as usize;
                    w.sched.set_last((j + self.cfg.procs - 1) % self.cfg.procs);
                    return true;
                }
            }
        }
        // Every processor at `t` was refused until `u`; or (a broken
        // invariant: the first waiter is not at `t`) nothing was done.
        until.is_some()
    }

    // ---- the machine's primitives: every one a scheduling point -----------------

    /// Spends `d > 0` ticks of `kind` in `p`'s current state; whether `p`
    /// must now let the others run: another processor's clock is at or below
    /// its own (with [`Interleave::State`], only for lock waits).
    #[inline(always)]
    pub(crate) fn charge(&self, w: &mut World<S::Data, T>, p: Proc, d: u64, kind: TimeKind) -> bool {
        self.book(w, p, d, kind);
        let t = w.sched.clock(p) + d;
        w.sched.set(p, t);
        // A processor that has made no progress for the stall limit is
        // suspended in any case, so that the executor can stop the run.
        let stalled = t > w.last_progress.saturating_add(self.cfg.stall_limit);
        (t >= self.limit.get() && (self.cfg.interleave == Interleave::Access || kind == TimeKind::Lock)) || stalled
    }

    /// Books `d` ticks of `kind` to `p`'s current state: the time per
    /// state, and `p`'s latest charge (or, with [`Interleave::State`], its
    /// log of charges), which the end of the run trims. The clock is the
    /// caller's to move.
    #[inline(always)]
    pub(crate) fn book(&self, w: &mut World<S::Data, T>, p: Proc, d: u64, kind: TimeKind) {
        if R::ON {
            let start = w.sched.clock(p);
            self.record(w, p, start, d, kind);
        }
        self.tally(w, p, d, kind);
    }

    /// Tells the recorder of `p`'s `d` ticks of `kind` from `start`, in its
    /// current state.
    #[cold]
    #[inline(never)]
    pub(crate) fn record(&self, w: &World<S::Data, T>, p: Proc, start: u64, d: u64, kind: TimeKind) {
        let (s, at) = w.state[p];
        self.rec.borrow_mut().span(p, start, d, s, kind, super::machine::node_key(w, at), &|| super::machine::path(w, at));
    }

    /// [`Machine::book`] without the recorder (its caller tells it).
    #[inline(always)]
    pub(crate) fn tally(&self, w: &mut World<S::Data, T>, p: Proc, d: u64, kind: TimeKind) {
        let s = w.state[p].0;
        w.stats.time[s as usize][kind as usize] += d;
        w.last[p] = (s, kind, d);
        if self.cfg.interleave == Interleave::State {
            log_charge(w, p, (s, kind, d));
        }
    }

    /// [`Machine::charge`] as a future: suspends `p` if it must let the others run.
    #[inline(always)]
    pub(crate) fn pause(&self, p: Proc, d: u64, kind: TimeKind) -> Suspend {
        Suspend(self.charge(&mut self.w.borrow_mut(), p, d, kind))
    }

    /// Lets the others run if `p` has moved past them since it was resumed.
    #[inline(always)]
    pub(crate) fn reschedule(&self, p: Proc) -> Suspend {
        let c = self.clock(p);
        Suspend(c >= self.limit.get() && c > self.resumed.get())
    }

    /// The state's own work: `d` ticks.
    #[inline(always)]
    pub fn work(&self, p: Proc, d: u64) -> Suspend {
        if d > 0 { self.pause(p, d, TimeKind::Work) } else { Suspend(false) }
    }

    /// A read of block `b`.
    #[inline(always)]
    pub fn read(&self, p: Proc, b: Block) -> AccessFuture<'_, 'a, T, S, P, R> {
        AccessFuture { m: self, p, b, write: false, issued: false }
    }

    /// A write of block `b`.
    #[inline(always)]
    pub fn write(&self, p: Proc, b: Block) -> AccessFuture<'_, 'a, T, S, P, R> {
        AccessFuture { m: self, p, b, write: true, issued: false }
    }

    /// Waits until another processor writes block `b`: a spin on the cached
    /// copy, which costs nothing until the write invalidates it. The wait
    /// is the state's own time; the processor resumes when the write is
    /// served, and must read the block again (a miss).
    pub(crate) fn wait_for_write(&self, p: Proc, b: Block, kind: TimeKind) -> Suspend {
        let mut w = self.w.borrow_mut();
        let now = w.sched.clock(p);
        w.asleep[p] = Some((now, kind));
        w.waiters[b].push(p);
        w.sched.set(p, NEVER);
        Suspend(true)
    }

    /// Wakes the processors waiting for block `b` at time `t`.
    #[cold]
    pub(crate) fn wake(&self, w: &mut World<S::Data, T>, b: Block, t: u64) {
        let waiting = std::mem::take(&mut w.waiters[b]);
        for &q in &waiting {
            if let Some((since, kind)) = w.asleep[q].take() {
                // Its clock is `NEVER` while asleep: the span starts where
                // it fell asleep. With `Interleave::State` the writer can
                // be behind the sleeper (which ran its whole state ahead of
                // the others): the sleeper then wakes where it fell asleep,
                // having waited nothing, and no clock goes back.
                let at = t.max(since);
                if R::ON {
                    self.record(w, q, since, at - since, kind);
                }
                self.tally(w, q, at - since, kind);
                w.sched.set(q, at);
            }
        }
        // Keep the list's allocation.
        let mut waiting = waiting;
        waiting.clear();
        if w.waiters[b].is_empty() {
            w.waiters[b] = waiting;
        }
    }

    /// Enters state `s` at node `at`.
    #[inline(always)]
    pub(crate) fn enter(&self, p: Proc, s: State, at: u32) -> Suspend {
        let mut w = self.w.borrow_mut();
        w.state[p] = (s, at);
        if self.cfg.trace {
            trace_entry(&mut w, p, s, at);
        }
        drop(w);
        self.step(p)
    }

    /// The end of a step of the earlier model ([`Interleave::State`]): a
    /// state, or one pass of the idle loop. Nothing with [`Interleave::Access`].
    #[inline(always)]
    pub(crate) fn step(&self, p: Proc) -> Suspend {
        if self.cfg.interleave == Interleave::State { self.reschedule(p) } else { Suspend(false) }
    }
}

/// Adds a charge to `p`'s log ([`Interleave::State`]).
#[inline(never)]
pub(crate) fn log_charge<D, T: TreeSource>(w: &mut World<D, T>, p: Proc, c: (State, TimeKind, u64)) {
    w.charges[p].push(c);
}

/// Records `p`'s entry into state `s` at node `at` (a path of move numbers).
#[cold]
#[inline(never)]
pub(crate) fn trace_entry<D, T: TreeSource>(w: &mut World<D, T>, p: Proc, s: State, at: u32) {
    let node = super::machine::path(w, at);
    let t = w.sched.clock(p);
    w.stats.trace.push(TraceEvent { t, proc: p, state: s, node });
}
