//! Active splitting on real threads ([`Active`];
//! Crafty, Stockfish before 2014): idle threads put themselves in an idle
//! set and wait on their own mailbox. A thread at a node that the scheme
//! makes eligible, with at least `min_split_depth` plies below it, recruits
//! idle threads there: at most one per move left beyond the one it takes,
//! and at most `split_group` threads sent to one node in all (its first
//! thread included).

use super::RealSearch;
use crate::game::TreeSource;
use crate::policy::Active;
use crate::real::heap::{self, HState, HeapPolicy, NodeRef, Shared, Thread};
use crate::real::{Measured, Options, RealError};
use crate::schemes::SplitScheme;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::*};

impl RealSearch for Active {
    fn run_real<S: TreeSource, Sc: SplitScheme>(&self, src: &S, root: &S::Node, depth: u32, scheme: &Sc, opts: &Options) -> Result<Measured, RealError>
    where
        Sc::Data: Send + Sync,
    {
        heap::run(src, root, depth, scheme, self, opts)
    }
}

/// The idle set and the mailboxes.
pub struct Recruits<S: TreeSource, D> {
    /// Idle threads waiting to be recruited (their mailboxes are set under this lock).
    idle: Mutex<Vec<usize>>,
    /// How many wait: read without the lock by working threads.
    waiting: AtomicUsize,
    mbox: Vec<Mutex<Option<NodeRef<S, D, Active>>>>,
    params: Active,
}

/// Threads sent to a node by a recruiter, its first thread included.
pub struct Joined(u32);

impl Default for Joined {
    /// The thread that made the node.
    fn default() -> Joined {
        Joined(1)
    }
}

impl<S: TreeSource, D> HeapPolicy<S, D> for Active {
    type Shared = Recruits<S, D>;
    type ThreadState = ();
    type NodeState = Joined;

    /// No thread idle yet.
    fn start(&self, threads: usize, _root_key: u64) -> (Recruits<S, D>, Vec<()>) {
        let r = Recruits { idle: Mutex::new(vec![]), waiting: AtomicUsize::new(0), mbox: (0..threads).map(|_| Mutex::new(None)).collect(), params: *self };
        (r, vec![(); threads])
    }

    /// Recruits idle threads to `x`.
    fn share<Sc: SplitScheme<Data = D>>(
        sh: &Shared<'_, S, Sc, Active>,
        th: &mut Thread<S, D, Active>,
        x: &NodeRef<S, D, Active>,
        st: &mut HState<S, D, Active>,
    ) {
        let r = &sh.policy;
        let Active { min_split_depth, split_group, .. } = r.params;
        if r.waiting.load(Relaxed) == 0 || x.depth < min_split_depth || st.policy.0 >= split_group || sh.eligible(x, st).is_none() {
            return;
        }
        let room = (st.moves - st.handed - 1).min(split_group - st.policy.0);
        let mut idle = th.l.lock(&r.idle);
        for _ in 0..room {
            let Some(q) = idle.pop() else { break };
            *th.l.lock(&r.mbox[q]) = Some(x.clone());
            st.policy.0 += 1;
        }
        r.waiting.store(idle.len(), Relaxed);
    }

    /// An idle thread: the node it was recruited to, else it joins the
    /// idle set (once) and waits.
    fn find<Sc: SplitScheme<Data = D>>(sh: &Shared<'_, S, Sc, Active>, th: &mut Thread<S, D, Active>) -> Option<NodeRef<S, D, Active>> {
        let r = &sh.policy;
        let me = th.l.id;
        if let Some(x) = th.l.lock(&r.mbox[me]).take() {
            return Some(x);
        }
        let mut idle = th.l.lock(&r.idle);
        // Mailboxes are filled under the idle set's lock: look again under it.
        if let Some(x) = th.l.lock(&r.mbox[me]).take() {
            return Some(x);
        }
        if !idle.contains(&me) {
            idle.push(me);
            r.waiting.store(idle.len(), Relaxed);
        }
        None
    }
}
