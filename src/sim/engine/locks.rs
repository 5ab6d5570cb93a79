//! Locks: test-and-set retried (the thesis's machine, §6.1) and queue
//! locks (Mellor-Crummey and Scott), and the hasher of the queue locks'
//! map (`docs/model.md` §5.1–5.2).

use super::machine::{Machine, SimIdle};
use super::record::Recorder;
use super::spec::LockKind;
use super::stats::TimeKind;
use crate::game::TreeSource;
use crate::schemes::SplitScheme;
use crate::sim::memory::{Block, Proc};
use std::future::Future;

impl<'a, T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder> Machine<'a, T, S, P, R> {
    /// Takes the lock of block `b`. A free test-and-set lock whose block
    /// `p` holds Modified is taken at once, as the first attempt of
    /// `Machine::lock_contended` would take it (its write hits, no time
    /// passes, nothing else changes); any other goes through that routine.
    /// The check is made when the future is made, which every caller
    /// awaits at once: most locks in a run are such (a node's own lock,
    /// taken again by the processor that holds its block), and they then
    /// cost no routine of their own.
    #[inline(always)]
    pub fn lock(&self, p: Proc, b: Block) -> impl Future<Output = ()> + '_ {
        let done = {
            let mut w = self.w.borrow_mut();
            w.on[p] = b;
            self.cfg.lock == LockKind::Tas && fast_locks() && self.at_once(&w, p, b, true) && w.mem.test_and_set(p, b)
        };
        async move {
            if !done {
                self.lock_contended(p, b).await
            }
        }
    }

    /// Takes the lock of block `b` by test-and-set: every attempt is a write
    /// access; the time of a failed attempt (at least a tick) is lock wait.
    /// (With [`LockKind::Queue`], `Machine::lock_queued`.)
    pub(crate) async fn lock_contended(&self, p: Proc, b: Block) {
        if self.cfg.lock == LockKind::Queue {
            return self.lock_queued(p, b).await;
        }
        loop {
            let t0 = self.clock(p);
            self.write(p, b).await;
            let spent = {
                let mut w = self.w.borrow_mut();
                if w.mem.test_and_set(p, b) {
                    return;
                }
                let spent = w.sched.clock(p) - t0;
                let s = w.state[p].0 as usize;
                w.stats.time[s][TimeKind::Memory as usize] -= spent;
                w.stats.time[s][TimeKind::Lock as usize] += spent;
                // The attempt's own charges are the latest ones, `spent`
                // ticks in all (those since p was last resumed, in the log).
                if spent > 0 {
                    w.last[p].1 = TimeKind::Lock;
                    if R::ON {
                        self.rec.borrow_mut().relabel(p, t0, spent, TimeKind::Lock);
                    }
                }
                let mut left = spent;
                for c in w.charges[p].iter_mut().rev() {
                    if left == 0 {
                        break;
                    }
                    c.1 = TimeKind::Lock;
                    left = left.saturating_sub(c.2);
                }
                spent
            };
            if spent == 0 {
                self.pause(p, 1, TimeKind::Lock).await;
            } else {
                self.reschedule(p).await;
            }
        }
    }

    /// A queue lock: one write access (the swap on the queue's tail) takes
    /// a free lock or joins the queue; a queued processor waits on its own
    /// flag until the holder hands the lock over, then reads the flag.
    pub(crate) async fn lock_queued(&self, p: Proc, b: Block) {
        self.write(p, b).await;
        {
            let mut w = self.w.borrow_mut();
            if w.mem.test_and_set(p, b) {
                return;
            }
            w.queues.entry(b).or_default().push_back(p);
            w.granted[p] = false;
        }
        let mb = self.mbox(p);
        while !self.w.borrow().granted[p] {
            self.wait_for_write(p, mb, TimeKind::Lock).await;
        }
        self.read(p, mb).await;
    }

    /// Releases `p`'s lock of block `b`: at once when the write hits and no
    /// processor is queued at any lock (as `Machine::unlock_routine`
    /// would: its write hits and it clears the lock word); else by that
    /// routine. Checked when the future is made, as [`Machine::lock`].
    #[inline(always)]
    pub fn unlock(&self, p: Proc, b: Block) -> impl Future<Output = ()> + '_ {
        let done = {
            let mut w = self.w.borrow_mut();
            let done = w.queues.is_empty() && fast_locks() && self.at_once(&w, p, b, true);
            if done {
                w.mem.release(p, b);
            }
            done
        };
        async move {
            if !done {
                self.unlock_routine(p, b).await
            }
        }
    }

    /// Releases `p`'s lock of block `b` (a write access); a queue lock goes
    /// to the first processor queued, whose flag is then written.
    pub(crate) async fn unlock_routine(&self, p: Proc, b: Block) {
        self.write(p, b).await;
        let next = {
            let mut w = self.w.borrow_mut();
            // A queue is dropped once empty, so an uncontended unlock finds
            // the map empty and does no hashing.
            let next = match w.queues.get_mut(&b) {
                Some(q) => {
                    let next = q.pop_front();
                    if q.is_empty() {
                        w.queues.remove(&b);
                    }
                    next
                }
                None => None,
            };
            match next {
                Some(q) => {
                    w.mem.set_lock(b, Some(q));
                    w.granted[q] = true;
                }
                None => w.mem.release(p, b),
            }
            next
        };
        if let Some(q) = next {
            self.write(p, self.mbox(q)).await;
        }
    }
}

/// Whether `Machine::lock` and `Machine::unlock` may skip their routines
/// (always, but for a test that checks the routines give the same run).
#[inline(always)]
fn fast_locks() -> bool {
    #[cfg(test)]
    return !super::ROUTINE_LOCKS.with(|r| r.get());
    #[cfg(not(test))]
    true
}
