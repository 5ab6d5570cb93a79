//! Active splitting on real threads ([`Algorithm::Active`](crate::algorithm::Algorithm);
//! Crafty, Stockfish before 2014): idle threads put themselves in an idle
//! set and wait on their own mailbox. A thread at a node that the scheme
//! makes eligible, with at least `min_split_depth` plies below it, recruits
//! idle threads there: at most one per move left beyond the one it takes,
//! and at most `split_group` threads sent to one node in all (its first
//! thread included).

use super::heap::{HNode, HState, NodeRef, Shared, Thread};
use crate::game::TreeSource;
use crate::sim::schemes::SplitScheme;
use std::sync::atomic::{AtomicUsize, Ordering::*};
use std::sync::{Arc, Mutex};

/// The idle set and the mailboxes.
pub struct Recruits<S: TreeSource, D> {
    /// Idle threads waiting to be recruited (their mailboxes are set under this lock).
    idle: Mutex<Vec<usize>>,
    /// How many wait: read without the lock by working threads.
    waiting: AtomicUsize,
    mbox: Vec<Mutex<Option<NodeRef<S, D>>>>,
    min_split_depth: u32,
    split_group: u32,
}

impl<S: TreeSource, D> Recruits<S, D> {
    /// No thread idle yet, among `threads`.
    pub fn new(threads: usize, min_split_depth: u32, split_group: u32) -> Recruits<S, D> {
        Recruits {
            idle: Mutex::new(vec![]),
            waiting: AtomicUsize::new(0),
            mbox: (0..threads).map(|_| Mutex::new(None)).collect(),
            min_split_depth,
            split_group,
        }
    }

    /// A thread at `x` (locked in `st`) about to hand out a move with more
    /// left recruits idle threads to it.
    pub fn share<Sc: SplitScheme<Data = D>>(&self, sh: &Shared<'_, S, Sc>, th: &mut Thread<S, D>, x: &Arc<HNode<S, D>>, st: &mut HState<S, D>)
    where
        D: Send + Sync,
    {
        if self.waiting.load(Relaxed) == 0 || x.depth < self.min_split_depth || st.joined >= self.split_group || sh.eligible(x, st).is_none() {
            return;
        }
        let room = (st.moves - st.handed - 1).min(self.split_group - st.joined);
        let mut idle = th.l.lock(&self.idle);
        for _ in 0..room {
            let Some(q) = idle.pop() else { break };
            *th.l.lock(&self.mbox[q]) = Some(x.clone());
            st.joined += 1;
        }
        self.waiting.store(idle.len(), Relaxed);
    }

    /// An idle thread: the node it was recruited to, else it joins the
    /// idle set (once) and waits.
    pub fn find(&self, th: &mut Thread<S, D>) -> Option<Arc<HNode<S, D>>> {
        let me = th.l.id;
        if let Some(x) = th.l.lock(&self.mbox[me]).take() {
            return Some(x);
        }
        let mut idle = th.l.lock(&self.idle);
        // Mailboxes are filled under the idle set's lock: look again under it.
        if let Some(x) = th.l.lock(&self.mbox[me]).take() {
            return Some(x);
        }
        if !idle.contains(&me) {
            idle.push(me);
            self.waiting.store(idle.len(), Relaxed);
        }
        None
    }
}
