//! YBWC's full version (`docs/model.md` §9.6): Feldmann's (1993)
//! refinements of the distributed search as OthelloX (2017, §4.4-4.5)
//! runs them, each behind its switch ([`Switches`]); with every switch off
//! none of this runs and the plain search's messages are unchanged.
//!
//! - **Table order** (`order`): a frame's children start with the move the
//!   process's table holds for the node; with none, a frame of depth
//!   d ≥ 3 is first searched to depth min(d − 2, g) by the sequential
//!   baseline (its nodes count), the baseline's internal iterative
//!   deepening capped at a piece, so that ordering a frame never costs
//!   more than one sequential piece.
//! - **Promising successors** (`promising`): node types as OthelloX §4.4
//!   gives them; a type-1 frame's children are available to others once
//!   the first is evaluated, a type-2 frame's once the child the table
//!   suggests is (at once if there is none), a type-3 frame's at once.
//! - **Windows** (`windows`): when a frame's window narrows, the frames
//!   above it (its local child's) narrow with it, and every frame whose
//!   window changed sends [`YbwcMsg::Narrow`] to its helpers, which narrow
//!   their job's frames and piece alike.
//! - **Three-stage load distribution** (`three_stage`): see [`YbwcProcess::seek`].
//! - **Helpful master** (`helpful`): see [`YbwcProcess::help_out`].

use super::{Ask, Frame, Piece, Switches, YbwcMsg, YbwcProcess, walk};
use crate::cluster::algorithms::frames::StackFrame;
use crate::cluster::exec::transport::{Msg, Transport};
use crate::cluster::search::Searcher;
use crate::game::TreeSource;
use crate::value::Window;

impl<S: TreeSource> YbwcProcess<S> {
    /// The promising child of the frame `p` opens (its children `kids`)
    /// with the `promising` switch; with the `order` switch the table's
    /// move is moved to the front of `kids` (after the ordering search if
    /// the table has none). `None` with neither switch, or when the table
    /// has no move.
    pub(super) fn table_move<T: Transport<S::Node, YbwcMsg>>(&mut self, src: &S, t: &mut T, p: &Piece<S::Node>, kids: &mut Vec<S::Node>) -> Option<usize> {
        let Piece { node, max, ply, depth, window, .. } = p;
        let (max, ply, depth, window) = (*max, *ply, *depth, *window);
        let Switches { order, promising, .. } = self.switches;
        if !order && !promising {
            return None;
        }
        let s = self.searcher.get_or_insert_with(|| Searcher::new(self.slots));
        let mut hint = s.best_move(src, node, ply);
        if order && hint.is_none() && depth >= 3 {
            let before = s.counts;
            s.search(src, node, max, (depth - 2).min(self.granularity.max(1)), ply, window);
            t.searched(s.counts - before);
            hint = s.best_move(src, node, ply);
        }
        let hint = hint.map(|h| h as usize).filter(|&h| h < kids.len());
        if !order {
            return hint;
        }
        let h = hint?;
        let k = kids.remove(h);
        kids.insert(0, k);
        Some(0)
    }

    /// Frame `k` of job `j` has narrowed: the frames above it and the piece
    /// narrow to it (each frame's window is its parent's, narrowed by its
    /// own children), and each frame whose window changed tells its
    /// helpers. A frame cut by it drops those above it, as a result would.
    pub(super) fn tighten<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, j: usize, k: usize) {
        let mut k = k;
        loop {
            let Some(job) = self.jobs.get_mut(j) else { return };
            let Some(f) = job.frames.get_mut(k) else { return };
            if f.cut() {
                f.local = false;
                self.truncate(t, j, k + 1);
                return;
            }
            let w = f.w;
            let sends: Vec<(u32, usize)> = f.remote.iter().map(|r| (r.0, r.1)).collect();
            for (id, h) in sends {
                self.narrowed += 1;
                t.send(h, Msg::Own(YbwcMsg::Narrow { id, window: w }));
            }
            let Some(job) = self.jobs.get_mut(j) else { return };
            match job.frames.get_mut(k + 1) {
                Some(up) => {
                    if !clip(up, w) {
                        return;
                    }
                    k += 1;
                }
                None => {
                    if let Some(p) = job.piece.as_mut() {
                        p.window = p.window.meet(w);
                    }
                    return;
                }
            }
        }
    }

    /// The owner of task `id` narrowed its window: the job's frames (from
    /// its root up) and piece narrow to it.
    pub(super) fn narrow<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, from: usize, id: u32, w: Window) {
        let Some(j) = self.jobs.iter().position(|job| job.owner == Some((from, id))) else { return };
        let job = &mut self.jobs[j];
        match job.frames.first_mut() {
            Some(f) => {
                if clip(f, w) {
                    self.tighten(t, j, 0);
                }
            }
            None => {
                if let Some(p) = job.piece.as_mut() {
                    p.window = p.window.meet(w);
                }
            }
        }
    }

    /// The three-stage load distribution (OthelloX §4.5). *Local*: an idle
    /// process asks its nearest neighbour ([`walk`]) with a
    /// [`YbwcMsg::Seek`]. *Medium range*: a process with no child available
    /// gives none and passes the request to its own nearest neighbour,
    /// until p processes (the asker too) have seen it; the last tells the
    /// asker [`YbwcMsg::NoWork`], and the asker retries once, with the plain
    /// request to the owner of its last task, which is kept until work
    /// appears ([`YbwcProcess::no_work`]): an idle period costs at most p + 1
    /// messages and no process polls. *Global*: a process serving kept
    /// requests gives to processes that worked for it before first.
    pub(super) fn seek<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, origin: u32, seen: u32) {
        let o = origin as usize;
        if let Some((j, k)) = self.find_available(0) {
            self.give(t, j, k, o);
            return;
        }
        let next = walk::next(self.net, t.rank(), t.procs());
        if seen as usize + 1 >= t.procs() || next == o {
            t.send(o, Msg::Own(YbwcMsg::NoWork));
        } else {
            self.passed += 1;
            t.send(next, Msg::Own(YbwcMsg::Seek { origin, seen: seen + 1 }));
        }
    }

    /// The helpful master's request for work in the subtree of task `id`
    /// that `from` gave this process: a child available in that job or the
    /// jobs searched over it (all in its subtree), else the request goes
    /// on to a helper of theirs searching a frame, else no work. Work
    /// outside the subtree is never given: the asker searches it over its
    /// waiting job, and a job's completion then depends only on its own
    /// subtree, so no two jobs wait for each other.
    pub(super) fn help<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T, from: usize, origin: u32, id: u32) {
        let o = origin as usize;
        let Some(m) = self.jobs.iter().position(|job| job.owner == Some((from, id))) else {
            t.send(o, Msg::Own(YbwcMsg::NoWork));
            return;
        };
        if let Some((j, k)) = self.find_available(m) {
            self.give(t, j, k, o);
            return;
        }
        match self.frame_helpers(m).into_iter().find(|h| h.1 != o) {
            Some((hid, h)) => {
                self.passed += 1;
                t.send(h, Msg::Own(YbwcMsg::Help { origin, id: hid }));
            }
            None => t.send(o, Msg::Own(YbwcMsg::NoWork)),
        }
    }

    /// The request out found no work: an idle process asks again (a
    /// helpful master's refusal: as any idle process; a walk's: with the
    /// plain request, kept until work appears).
    pub(super) fn no_work<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T) {
        let asked = self.asking.take();
        if !self.jobs.is_empty() {
            return;
        }
        if asked == Some(Ask::Seek) {
            self.asking = Some(Ask::Request);
            let (to, me) = (self.last_owner, t.rank() as u32);
            self.pass(t, to, me);
        } else {
            self.idle(t);
        }
    }

    /// The helpful master (Feldmann; OthelloX §4.5): a process whose top
    /// frame waits only for children out with other processes asks one of
    /// that frame's helpers searching a frame ([`YbwcMsg::Help`]), each at most
    /// once between two results; a task it gets is searched over the
    /// waiting job (a stack of jobs), and finished before the job below
    /// goes on (the waiting frame's results are combined meanwhile); an
    /// abort of the job below drops it with the jobs over it.
    pub(super) fn help_out<T: Transport<S::Node, YbwcMsg>>(&mut self, t: &mut T) {
        if !self.switches.helpful || self.asking.is_some() || self.stopped {
            return;
        }
        let Some(job) = self.jobs.last() else { return };
        if job.piece.is_some() {
            return;
        }
        let Some(top) = job.frames.last() else { return };
        if top.finished() || top.can_start() || top.depth - 1 <= self.granularity {
            return;
        }
        let Some(&(id, h, _)) = top.remote.iter().find(|r| !self.refused.contains(&(r.0, r.1))) else { return };
        self.refused.push((id, h));
        self.asking = Some(Ask::Help);
        self.passed += 1;
        t.send(h, Msg::Own(YbwcMsg::Help { origin: t.rank() as u32, id }));
    }
}

/// Narrows frame `f` to `w`; whether its window changed.
fn clip<N>(f: &mut Frame<N>, w: Window) -> bool {
    f.narrow_to(f.w.meet(w))
}
