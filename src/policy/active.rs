//! Active splitting as in engines (Crafty, Stockfish before 2014; an
//! alternative to the thesis's idle loop of §6.2, `docs/beyond.md`): idle
//! processors or threads put themselves in an idle set and wait in their
//! own mailbox. One at a node that the scheme makes eligible, with at
//! least `min_split_depth` plies below it, recruits idle ones there: at
//! most one per move left beyond the one it takes, and at most
//! `split_group` at one node in all (its first included).

use super::{Columns, ConfigError, DEFAULT_M_A, DEFAULT_MIN_SPLIT_DEPTH, DEFAULT_PV_WAIT, DEFAULT_SPLIT_GROUP, Given, IdlePolicy, PolicyOpt, Scheme};
use crate::game::TreeSource;
use crate::real::RealSearch;
use crate::real::heap::{self, HState, HeapPolicy, NodeRef, Shared, Thread};
use crate::real::{Measured, Options, RealError};
use crate::schemes::SplitScheme;
use crate::sim::engine::SimIdle;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::record::Recorder;
use crate::sim::engine::stats::TimeKind;
use crate::sim::engine::types::Next;
use crate::sim::memory::Proc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::*};

/// Active splitting: `scheme` says which nodes may be split, and its two
/// parameters how deep and how wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Active {
    /// Which nodes may be split.
    pub scheme: Scheme,
    /// Plies a node needs below it to be split.
    pub min_split_depth: u32,
    /// Most processors or threads working at one split point, its first
    /// included (Crafty's split group).
    pub split_group: u32,
}

impl IdlePolicy for Active {
    const DEFAULT: Active =
        Active { scheme: Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT }, min_split_depth: DEFAULT_MIN_SPLIT_DEPTH, split_group: DEFAULT_SPLIT_GROUP };

    const NAME: &'static str = "active";

    const ABOUT_SIMULATED: &'static str =
        "active splitting: a processor at an eligible node with --min-split-depth plies left recruits the idle processors (--scheme)";

    const ABOUT_REAL: &'static str = "active splitting: a thread at an eligible node with --min-split-depth plies left recruits the idle threads (--scheme)";

    fn reads(&self) -> &'static [PolicyOpt] {
        &[PolicyOpt::Scheme, PolicyOpt::MinSplitDepth, PolicyOpt::SplitGroup]
    }

    fn scheme(&self) -> Option<Scheme> {
        Some(self.scheme)
    }

    fn with_scheme(self, scheme: Scheme) -> Active {
        Active { scheme, ..self }
    }

    fn write(&self, c: &mut Columns) {
        c.min_split_depth = Some(self.min_split_depth);
        c.split_group = Some(self.split_group);
    }

    fn read(c: &Columns, scheme: Option<Scheme>) -> Result<Active, ConfigError> {
        Ok(Active {
            scheme: scheme.ok_or_else(|| Columns::bad("policy active without a scheme"))?,
            min_split_depth: c.min_split_depth.ok_or_else(|| Columns::bad("policy active without min_split_depth"))?,
            split_group: c.split_group.ok_or_else(|| Columns::bad("policy active without split_group"))?,
        })
    }

    /// Every minimum split depth by every split group the request gives.
    fn variants(self, given: &Given) -> Vec<Active> {
        let groups = &given.split_groups;
        given.min_split_depths.iter().flat_map(|&d| groups.iter().map(move |&g| Active { min_split_depth: d, split_group: g, ..self })).collect()
    }
}

// ---- on the simulated machine ------------------------------------------------

impl SimIdle for Active {
    fn mailboxes(&self) -> bool {
        true
    }

    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
        idle_active(m, p).await
    }

    /// The idle processors are recruited to `c`.
    async fn share_work<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
        recruit(m, p, c, self.min_split_depth, self.split_group).await
    }
}

/// Active splitting's idle loop: register as idle, then wait in the
/// mailbox until a working processor recruits us to a node.
async fn idle_active<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
    let ib = m.idle_block();
    m.lock(p, ib).await;
    {
        let mut w = m.w.borrow_mut();
        w.idle_set[p] = true;
        w.idle_count += 1;
    }
    m.unlock(p, ib).await;
    loop {
        if m.search_over(p).await {
            return Next::Exit;
        }
        let mb = m.mbox(p);
        m.read(p, mb).await;
        let assigned = m.w.borrow().inbox[p];
        if let Some(Some((n, _))) = assigned {
            m.write(p, mb).await;
            m.w.borrow_mut().inbox[p] = None;
            // The recruiter counted us in: the node stays allocated.
            m.lock(p, m.blk(n)).await;
            return Next::Search(n);
        }
        m.wait_for_write(p, mb, TimeKind::Work).await;
    }
}

/// The working processor's side: at node `c` (locked, about to hand
/// out a move), if it is eligible, has `min_split_depth` plies below it
/// and fewer than `group` processors, `p` recruits idle processors to
/// it (at most one per move left beyond its own).
async fn recruit<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc, c: u32, min_split_depth: u32, group: u32) {
    let eligible = {
        let w = m.w.borrow();
        let n = &w.nodes[c as usize];
        n.left >= 2 && n.threads < group && m.cfg.depth - n.ply >= min_split_depth && m.scheme.eligible(&n.view(), &n.data).is_some()
    };
    if !eligible {
        return;
    }
    let ib = m.idle_block();
    m.read(p, ib).await;
    if m.w.borrow().idle_count == 0 {
        return;
    }
    m.lock(p, ib).await;
    let (recruits, at) = {
        let mut w = m.w.borrow_mut();
        let w = &mut *w;
        let n = &w.nodes[c as usize];
        let room = (n.left as usize - 1).min((group as usize).saturating_sub(n.threads as usize));
        let mut recruits = std::mem::take(&mut w.recruits);
        recruits.clear();
        for q in 0..m.cfg.procs {
            if recruits.len() == room {
                break;
            }
            if w.idle_set[q] {
                w.idle_set[q] = false;
                w.idle_count -= 1;
                recruits.push(q);
            }
        }
        let n = &mut w.nodes[c as usize];
        n.threads += recruits.len() as u32;
        (recruits, (c, n.generation))
    };
    m.unlock(p, ib).await;
    for &q in &recruits {
        m.write(p, m.mbox(q)).await;
        m.w.borrow_mut().inbox[q] = Some(Some(at));
    }
    m.w.borrow_mut().recruits = recruits;
}

// ---- on real threads ---------------------------------------------------------

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

#[cfg(test)]
mod tests {
    use super::Active;
    use crate::policy::testkit::*;

    /// Active splitting with 3 processors and a minimum split depth of 2 on
    /// a depth-3 tree: the root (3 plies left) and its children (2 left) may
    /// be split; nodes at ply 2 (1 ply left) never are, so all the leaves
    /// below one ply-2 node are evaluated by one processor.
    #[test]
    fn active_splitting_respects_the_minimum_depth() {
        let (want, r) = traced(3, 3, 3, Policy::Active(Active { scheme: A1, min_split_depth: 2, split_group: 8 }));
        assert_eq!(r.value, want);
        let ev = leaves(&r);
        let parent = |leaf: &str| leaf.rsplit_once('.').map(|(p, _)| p.to_string()).unwrap();
        for &(leaf, q) in &ev {
            assert!(ev.iter().filter(|f| parent(f.0) == parent(leaf)).all(|f| f.1 == q), "leaves below {}: {ev:?}", parent(leaf));
        }
        // The helpers did search: some leaves are not P0's.
        assert!(ev.iter().any(|e| e.1 != 0), "{ev:?}");
    }
}
