//! The frame-stack machine shared by the distributed YBWC
//! (`docs/model.md` §9.6, OthelloX's Feldmann et al.) and Fox et al.'s
//! master/slave (§9.11): a process searches the root or a task as a stack
//! of frames (nodes above the granularity) with a piece on top (a node
//! searched in slices), asks its machine for one wake-up at a time, and
//! aborts the children a dropped frame has out with other processes.
//!
//! What is here is the part the two copied from each other; each
//! algorithm's frame (its rules: when a child may start, who may take it,
//! what closing a frame stores) stays in its own file and reaches this
//! module through [`StackFrame`], and its process runs the loop between
//! slices, `StackProcess::advance`, through that trait's two rules.

use crate::cluster::algorithms::piece::Piece;
use crate::cluster::exec::transport::{Process, Transport, abort_out};
use crate::cluster::search::Searcher;
use crate::game::TreeSource;

/// What the shared machine asks of an algorithm's frame.
pub trait StackFrame {
    /// The frame is done: cut off, or every child evaluated.
    fn finished(&self) -> bool;
    /// Children out with other processes: (task id, process, child).
    fn remote(&mut self) -> &mut Vec<(u32, usize, usize)>;
}

/// A frame stack: what a process is searching, the root or a task. `O`
/// names its owner (`None`: the root); `F` is the algorithm's frame.
pub struct Stack<N, F, O> {
    /// Who gave it (`None`: the root).
    pub owner: Option<O>,
    /// The nodes above the granularity on the path, root first.
    pub frames: Vec<F>,
    /// The piece on top of the frames (or the stack's node itself, at or
    /// below the granularity).
    pub piece: Option<Piece<N>>,
}

/// What [`Stack::step`] found on top.
pub enum Step<F> {
    /// Nothing to do now: a piece is to be searched (a wake-up is asked
    /// for) or there is no frame.
    Wait,
    /// The top frame was finished: popped, its children out aborted; its
    /// value is for the frame below (or the owner).
    Closed(F),
    /// The top frame is open: the algorithm's rules say what it does next.
    Open,
}

impl<N, F: StackFrame, O> Stack<N, F, O> {
    /// An empty stack for `owner`.
    pub fn new(owner: Option<O>) -> Stack<N, F, O> {
        Stack { owner, frames: vec![], piece: None }
    }

    /// The common head of both algorithms' `advance` loops: with a piece
    /// on top, ask for a wake-up (once); close a finished top frame,
    /// aborting what it has out (counted in `aborts`) before its value
    /// goes down, as the copies did (the messages' order is the rows').
    pub fn step<A, T: Transport<N, A>>(&mut self, t: &mut T, waking: &mut bool, aborts: &mut u64) -> Step<F> {
        if self.piece.is_some() {
            wake(t, waking);
            return Step::Wait;
        }
        let Some(top) = self.frames.last() else { return Step::Wait };
        if !top.finished() {
            return Step::Open;
        }
        let Some(mut f) = self.frames.pop() else { return Step::Wait };
        *aborts += abort_out(t, f.remote());
        Step::Closed(f)
    }

    /// Drops the frames above frame `k` (and the piece), aborting their
    /// children out; the number aborted.
    pub fn truncate<A, T: Transport<N, A>>(&mut self, t: &mut T, k: usize) -> u64 {
        self.piece = None;
        let mut above = self.frames.split_off(k.min(self.frames.len()));
        above.iter_mut().map(|f| abort_out(t, f.remote())).sum()
    }

    /// One slice of the piece, with the process's searcher (made on first
    /// use with `slots` table slots): the piece's value once it finishes
    /// (the piece is then gone).
    pub fn slice<S: TreeSource<Node = N>, A, T: Transport<N, A>>(
        &mut self,
        searcher: &mut Option<Searcher<S>>,
        slots: usize,
        src: &S,
        t: &mut T,
    ) -> Option<i64> {
        let p = self.piece.as_mut()?;
        let v = p.slice(searcher.get_or_insert_with(|| Searcher::new(slots)), src, t)?;
        self.piece = None;
        Some(v)
    }
}

/// What [`StackProcess::current`] lends: the stack searched now, the
/// process's pending wake-up flag and its count of aborts sent.
pub(crate) type Current<'a, N, F, O> = (&'a mut Stack<N, F, O>, &'a mut bool, &'a mut u64);

/// A process searching frame stacks: the loop both algorithms run
/// between slices ([`StackProcess::advance`]) over what each says.
pub(crate) trait StackProcess<S: TreeSource>: Process<S> {
    /// The algorithm's frame.
    type Frame: StackFrame;
    /// Who gives a task (see [`Stack`]).
    type Owner;
    /// The stack searched now, if any, with the process's pending wake-up
    /// flag and its count of aborts sent.
    fn current(&mut self) -> Option<Current<'_, S::Node, Self::Frame, Self::Owner>>;
    /// A finished frame was popped: its value goes to the frame below (or
    /// the owner).
    fn close<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T, f: Self::Frame);
    /// The top frame is open: starts what its rules allow; `false` when it
    /// waits (for other processes, or nothing may start).
    fn start_next<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) -> bool;
    /// Clears the pending wake-up: whether the process still searches
    /// (it has not stopped).
    fn woken(&mut self) -> bool;
    /// One slice of the piece on top, its value delivered if it finished.
    fn slice<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T);

    /// The wake-up the process asked for: unless it has stopped, one slice
    /// of its piece, then [`StackProcess::advance`]; whether it went on.
    fn resume_stack<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) -> bool {
        if !self.woken() {
            return false;
        }
        self.slice(src, t);
        self.advance(src, t);
        true
    }

    /// Does everything but searching a slice: closes finished frames,
    /// starts what the top frame allows, until a piece is to be searched (a
    /// wake-up is asked for) or the frames wait for other processes.
    fn advance<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        loop {
            let Some((job, waking, aborts)) = self.current() else { return };
            match job.step(t, waking, aborts) {
                Step::Wait => return,
                Step::Closed(f) => self.close(src, t, f),
                Step::Open => {
                    if !self.start_next(src, t) {
                        return;
                    }
                }
            }
        }
    }
}

/// Asks the machine for a wake-up unless one is pending (`waking`; the
/// process clears it when woken): a second request would add a step.
fn wake<N, A, T: Transport<N, A>>(t: &mut T, waking: &mut bool) {
    if !*waking {
        *waking = true;
        t.wake();
    }
}
