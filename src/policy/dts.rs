//! The thesis's DTS-like search (thesis §6.2, Figure 6.12; `docs/model.md`
//! §5.3–5.4): one split-point variable under a lock. An idle processor or
//! thread takes the lock; if the variable holds a node that is still valid
//! (not done, moves left, still eligible under the scheme) it joins it;
//! otherwise, still holding the lock, it searches the allocated tree (the
//! simulated machine) or the node heap (real threads) for a split point,
//! breadth-first from the root, keeps the best eligible one by the shared
//! preference order ([`Candidate::better`](crate::schemes::Candidate::better)), stores it in the variable and
//! joins it. With [`Walk::Level`] the search stops after the first level
//! that has an eligible node. The simulated processor that finds none
//! unlocks and pauses 36 ticks; the other idle threads wait on the lock
//! meanwhile: the thesis's serial bottleneck, measured as lock time.

use super::{Columns, ConfigError, DEFAULT_M_A, DEFAULT_PV_WAIT, Given, IdlePolicy, PolicyOpt, Scheme, Walk};
use crate::game::TreeSource;
use crate::real::RealSearch;
use crate::real::heap::{self, HNode, HeapPolicy, Shared, Thread};
use crate::real::{Measured, Options, RealError};
use crate::schemes::{Candidate, SplitScheme};
use crate::sim::engine::SimIdle;
use crate::sim::engine::heap::push_children;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::record::Recorder;
use crate::sim::engine::spec::cost;
use crate::sim::engine::types::Next;
use crate::sim::engine::types::NodeRef;
use crate::sim::engine::{NONE, SPLIT_BLOCK};
use crate::sim::memory::Proc;
use std::sync::atomic::Ordering::Acquire;
use std::sync::{Mutex, Weak};

/// The DTS-like search: `scheme` says which nodes may be split points,
/// `walk` how far a split-point search walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dts {
    /// Which nodes may be split points.
    pub scheme: Scheme,
    /// How far a split-point search walks.
    pub walk: Walk,
}

impl IdlePolicy for Dts {
    const DEFAULT: Dts = Dts { scheme: Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT }, walk: Walk::Tree };

    const NAME: &'static str = "dts";

    const ABOUT_SIMULATED: &'static str =
        "the thesis's: idle processors take the split-point variable's lock and search the tree for a split point (--scheme, --split-walk)";

    const ABOUT_REAL: &'static str =
        "the thesis's: idle threads take the split-point variable's lock and search the node heap for a split point (--scheme, --split-walk)";

    fn reads(&self) -> &'static [PolicyOpt] {
        &[PolicyOpt::Scheme, PolicyOpt::SplitWalk]
    }

    fn scheme(&self) -> Option<Scheme> {
        Some(self.scheme)
    }

    fn with_scheme(self, scheme: Scheme) -> Dts {
        Dts { scheme, ..self }
    }

    fn write(&self, c: &mut Columns) {
        c.split_walk = self.walk.name().into();
    }

    fn read(c: &Columns, scheme: Option<Scheme>) -> Result<Dts, ConfigError> {
        Ok(Dts { scheme: scheme.ok_or_else(|| Columns::bad("policy dts without a scheme"))?, walk: c.split_walk.parse()? })
    }

    fn variants(self, given: &Given) -> Vec<Dts> {
        vec![Dts { walk: given.walk, ..self }]
    }
}

// ---- on the simulated machine ------------------------------------------------

impl SimIdle for Dts {
    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
        idle_dts(m, p, self.walk).await
    }
}

/// The thesis's idle loop: take the split-point variable's lock; join the
/// node it holds if that is still valid, else search the tree for a new
/// one, store and join it; if there is none, unlock and pause 36 ticks.
async fn idle_dts<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc, walk: Walk) -> Next {
    loop {
        m.step(p).await;
        if m.search_over(p).await {
            return Next::Exit;
        }
        m.lock(p, SPLIT_BLOCK).await;
        loop {
            m.step(p).await;
            m.work(p, cost::SPLIT).await;
            m.read(p, SPLIT_BLOCK).await;
            let mut sp = m.w.borrow().split_var;
            if let Some(s) = sp {
                m.read(p, m.blk(s.0)).await;
                if !m.valid(s) {
                    sp = None;
                }
            }
            if sp.is_none() {
                sp = find_split_point(m, p, walk).await;
                m.write(p, SPLIT_BLOCK).await;
                m.w.borrow_mut().split_var = sp;
            }
            let Some((n, g)) = sp else {
                m.unlock(p, SPLIT_BLOCK).await;
                m.work(p, cost::RETRY).await;
                break;
            };
            // Join: under the node's lock, it must still be the valid node seen.
            m.lock(p, m.blk(n)).await;
            if m.join((n, g)) {
                m.unlock(p, SPLIT_BLOCK).await;
                return Next::Search(n);
            }
            m.unlock(p, m.blk(n)).await;
        }
    }
}

/// The split-point search: walks the allocated tree breadth-first from
/// the root (each node read, 1 tick) and returns the best eligible node
/// by the shared preference order (ties: the first found).
async fn find_split_point<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc, walk: Walk) -> Option<NodeRef> {
    let mut q = std::mem::take(&mut m.w.borrow_mut().walks[p]);
    q.clear();
    {
        let w = m.w.borrow();
        if w.root != NONE {
            q.push((w.root, w.nodes[w.root as usize].generation));
        }
    }
    let (mut head, mut level_end) = (0, q.len());
    let mut best: Option<(NodeRef, Candidate)> = None;
    let mut examined = 0;
    while head < q.len() {
        if head == level_end {
            if walk == Walk::Level && best.is_some() {
                break;
            }
            level_end = q.len();
        }
        let (x, g) = q[head];
        head += 1;
        m.read(p, m.blk(x)).await;
        m.work(p, 1).await;
        examined += 1;
        let w = m.w.borrow();
        let n = &w.nodes[x as usize];
        if !n.is(g) {
            continue;
        }
        if n.open()
            && let Some(progress) = m.scheme.eligible(&n.view(), &n.data)
        {
            let c = Candidate::new(n.ply, progress, n.left, n.moves);
            if best.is_none_or(|(_, o)| c.better(&o)) {
                best = Some(((x, g), c));
            }
        }
        push_children(&w.nodes, x, &mut q);
    }
    let mut w = m.w.borrow_mut();
    w.stats.split_searches += 1;
    w.stats.split_examined += examined;
    w.walks[p] = q;
    best.map(|(r, _)| r)
}

// ---- on real threads ---------------------------------------------------------

impl RealSearch for Dts {
    fn run_real<S: TreeSource, Sc: SplitScheme>(&self, src: &S, root: &S::Node, depth: u32, scheme: &Sc, opts: &Options) -> Result<Measured, RealError>
    where
        Sc::Data: Send + Sync,
    {
        heap::run(src, root, depth, scheme, self, opts)
    }
}

/// The split-point variable.
pub struct SplitVar<S: TreeSource, D> {
    var: Mutex<Option<heap::NodeRef<S, D, Dts>>>,
    walk: Walk,
}

impl<S: TreeSource, D> HeapPolicy<S, D> for Dts {
    type Shared = SplitVar<S, D>;
    type ThreadState = ();
    /// The node's children that are heap nodes, for the split-point search.
    type NodeState = Vec<Weak<HNode<S, D, Dts>>>;

    fn start(&self, threads: usize, _root_key: u64) -> (SplitVar<S, D>, Vec<()>) {
        (SplitVar { var: Mutex::new(None), walk: self.walk }, vec![(); threads])
    }

    fn made(th: &mut Thread<S, D, Dts>, x: &heap::NodeRef<S, D, Dts>, child: &heap::NodeRef<S, D, Dts>) {
        th.l.lock(&x.st).policy.push(std::sync::Arc::downgrade(child));
    }

    /// An idle thread: the variable's node if still valid, else the split
    /// point a search of the heap finds (stored for the next thread).
    fn find<Sc: SplitScheme<Data = D>>(sh: &Shared<'_, S, Sc, Dts>, th: &mut Thread<S, D, Dts>) -> Option<heap::NodeRef<S, D, Dts>> {
        let root = sh.root.get()?;
        let mut var = th.l.lock(&sh.policy.var);
        if let Some(x) = var.as_ref() {
            let st = th.l.lock(&x.st);
            if x.open(&st) && x.alive() && sh.eligible(x, &st).is_some() {
                drop(st);
                return Some(x.clone());
            }
        }
        // The split-point search.
        let mut best: Option<(Candidate, heap::NodeRef<S, D, Dts>)> = None;
        let mut level = vec![root.clone()];
        while !level.is_empty() {
            let mut next = vec![];
            for n in level {
                let mut st = th.l.lock(&n.st);
                if n.done.load(Acquire) {
                    continue;
                }
                if n.open(&st)
                    && let Some(progress) = sh.eligible(&n, &st)
                {
                    let c = Candidate::new(n.ply, progress, st.moves - st.handed, st.moves);
                    if best.as_ref().is_none_or(|(b, _)| c.better(b)) {
                        best = Some((c, n.clone()));
                    }
                }
                // Heap children still under way (finished ones are dropped).
                st.policy.retain(|k| k.upgrade().is_some_and(|k| !k.done.load(Acquire)));
                next.extend(st.policy.iter().filter_map(|k| k.upgrade()));
            }
            if sh.policy.walk == Walk::Level && best.is_some() {
                break;
            }
            level = next;
        }
        *var = best.as_ref().map(|b| b.1.clone());
        best.map(|b| b.1)
    }
}
