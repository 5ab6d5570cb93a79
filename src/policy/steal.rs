//! YBWC with work stealing (Feldmann; an alternative to the thesis's idle
//! loop of §6.2, `docs/beyond.md`).
//!
//! **Simulated**: an idle processor asks a random victim through its
//! mailbox; the victim answers at its next node with the highest eligible
//! node of its own part of the tree, or "no work".
//!
//! **Real threads**, with crossbeam-deque's work-stealing deques: a thread
//! at a node that the scheme makes eligible pushes the node, once, on its
//! own deque (the young-brothers-wait rule is the scheme's: scheme A waits
//! for the first move). An idle thread pops its own deque first (newest,
//! the deepest of its nodes), then steals from the others', starting at a
//! victim chosen at random (ChaCha8 from the seed, the tree and the
//! thread's number), from the far end: the oldest node, highest in the
//! tree. A thread that steals a node with moves still left after its own
//! pushes it on its own deque, so that others may steal it from there.

use super::{Columns, ConfigError, DEFAULT_M_A, DEFAULT_PV_WAIT, DEFAULT_STEAL_SEED, Given, IdlePolicy, PolicyOpt, Scheme};
use crate::game::TreeSource;
use crate::real::RealSearch;
use crate::real::heap::{self, HState, HeapPolicy, Shared, Thread};
use crate::real::{Measured, Options, RealError};
use crate::schemes::SplitScheme;
use crate::sim::engine::NONE;
use crate::sim::engine::SimIdle;
use crate::sim::engine::machine::Machine;
use crate::sim::engine::record::Recorder;
use crate::sim::engine::stats::TimeKind;
use crate::sim::engine::types::Next;
use crate::sim::engine::types::NodeRef;
use crate::sim::memory::Proc;
use crossbeam_deque::{Steal as Stolen, Stealer, Worker};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use std::sync::atomic::Ordering::Acquire;

/// Work stealing: `scheme` says which nodes may be offered; the victims'
/// choice is seeded with `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Steal {
    /// Which nodes may be offered.
    pub scheme: Scheme,
    /// The seed of the victims' choice.
    pub seed: u64,
}

impl IdlePolicy for Steal {
    const DEFAULT: Steal = Steal { scheme: Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT }, seed: DEFAULT_STEAL_SEED };

    const NAME: &'static str = "steal";

    const ABOUT_SIMULATED: &'static str =
        "YBWC with work stealing: an idle processor asks a random victim (--steal-seed) for its highest eligible node (--scheme)";

    const ABOUT_REAL: &'static str =
        "YBWC with work stealing (crossbeam-deque): eligible nodes go on the owner's deque, idle threads steal from a random victim (--scheme, --steal-seed)";

    fn reads(&self) -> &'static [PolicyOpt] {
        &[PolicyOpt::Scheme, PolicyOpt::StealSeed]
    }

    fn scheme(&self) -> Option<Scheme> {
        Some(self.scheme)
    }

    fn with_scheme(self, scheme: Scheme) -> Steal {
        Steal { scheme, ..self }
    }

    fn write(&self, c: &mut Columns) {
        c.steal_seed = Some(self.seed);
    }

    fn read(c: &Columns, scheme: Option<Scheme>) -> Result<Steal, ConfigError> {
        Ok(Steal {
            scheme: scheme.ok_or_else(|| Columns::bad("policy steal without a scheme"))?,
            seed: c.steal_seed.ok_or_else(|| Columns::bad("policy steal without steal_seed"))?,
        })
    }

    fn variants(self, given: &Given) -> Vec<Steal> {
        vec![Steal { seed: given.steal_seed, ..self }]
    }
}

// ---- on the simulated machine ------------------------------------------------

impl SimIdle for Steal {
    fn mailboxes(&self) -> bool {
        true
    }

    async fn idle<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc) -> Next {
        idle_steal(m, p, self.seed).await
    }

    /// A thief's request is answered.
    async fn share_work<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(&self, m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
        answer_thief(m, p, c).await
    }
}

/// Work stealing's idle loop: send a request to a random victim, wait
/// for its answer (answering other thieves' requests with "no work"
/// meanwhile); start at the node offered, or try another victim.
async fn idle_steal<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc, seed: u64) -> Next {
    let procs = m.cfg.procs;
    loop {
        if m.search_over(p).await {
            return Next::Exit;
        }
        m.read(p, m.mbox(p)).await;
        if m.w.borrow().requests[p].is_some() {
            refuse(m, p).await;
        }
        let v = {
            let mut w = m.w.borrow_mut();
            if w.rng.is_empty() {
                // One stream per processor, from the seed and the tree's root key.
                let key = m.src.root_key(&m.root_node);
                w.rng = (0..procs)
                    .map(|q| {
                        let mut r = ChaCha8Rng::seed_from_u64(seed ^ (key << 32));
                        r.set_stream(q as u64);
                        r
                    })
                    .collect();
            }
            let k = w.rng[p].next_u64() % (procs as u64 - 1).max(1);
            (p + 1 + k as usize) % procs
        };
        let vb = m.mbox(v);
        m.lock(p, vb).await;
        let sent = {
            let mut w = m.w.borrow_mut();
            let free = w.requests[v].is_none();
            if free {
                w.requests[v] = Some(p);
            }
            free
        };
        m.unlock(p, vb).await;
        if !sent {
            continue;
        }
        loop {
            let mb = m.mbox(p);
            m.read(p, mb).await;
            let (answer, asked) = {
                let w = m.w.borrow();
                (w.inbox[p], w.requests[p].is_some())
            };
            if asked {
                refuse(m, p).await;
                continue;
            }
            if let Some(offer) = answer {
                m.write(p, mb).await;
                m.w.borrow_mut().inbox[p] = None;
                if let Some((n, _)) = offer {
                    // The victim counted us in: the node stays allocated.
                    m.lock(p, m.blk(n)).await;
                    return Next::Search(n);
                }
                break;
            }
            m.wait_for_write(p, mb, TimeKind::Work).await;
        }
    }
}

/// Answers the request in `p`'s mailbox with "no work".
async fn refuse<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc) {
    let mb = m.mbox(p);
    m.lock(p, mb).await;
    let r = m.w.borrow_mut().requests[p].take();
    m.unlock(p, mb).await;
    if let Some(r) = r {
        m.write(p, m.mbox(r)).await;
        m.w.borrow_mut().inbox[r] = Some(None);
    }
}

/// Work stealing's offer: the highest eligible node of `p`'s own part
/// of the tree, walking up from `c` (locked) to the first node others
/// work at too (each node read, 1 tick); the thief is counted in at it.
async fn offer<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) -> Option<NodeRef> {
    let mut best = None;
    let mut x = c;
    loop {
        if x != c {
            m.read(p, m.blk(x)).await;
        }
        m.work(p, 1).await;
        let (shared, parent) = {
            let w = m.w.borrow();
            let n = &w.nodes[x as usize];
            let room = if x == c { n.left >= 2 } else { n.open() };
            if room && m.scheme.eligible(&n.view(), &n.data).is_some() {
                best = Some((x, n.generation));
            }
            (n.threads > 1, n.parent)
        };
        if shared || parent == NONE {
            break;
        }
        x = parent;
    }
    let (n, g) = best?;
    if n == c {
        m.w.borrow_mut().nodes[c as usize].threads += 1;
        return best;
    }
    m.lock(p, m.blk(n)).await;
    let ok = m.join((n, g));
    m.unlock(p, m.blk(n)).await;
    ok.then_some((n, g))
}

/// The working processor's side: a thief's request in `p`'s mailbox
/// is answered, at node `c` (locked, about to hand out a move), with
/// `p`'s offer.
async fn answer_thief<T: TreeSource, S: SplitScheme, P: SimIdle, R: Recorder>(m: &Machine<'_, T, S, P, R>, p: Proc, c: u32) {
    let mb = m.mbox(p);
    m.read(p, mb).await;
    if m.w.borrow().requests[p].is_none() {
        return;
    }
    m.lock(p, mb).await;
    let r = m.w.borrow_mut().requests[p].take();
    m.unlock(p, mb).await;
    let Some(r) = r else { return };
    let offer = offer(m, p, c).await;
    m.write(p, m.mbox(r)).await;
    m.w.borrow_mut().inbox[r] = Some(offer);
}

// ---- on real threads ---------------------------------------------------------

impl RealSearch for Steal {
    fn run_real<S: TreeSource, Sc: SplitScheme>(&self, src: &S, root: &S::Node, depth: u32, scheme: &Sc, opts: &Options) -> Result<Measured, RealError>
    where
        Sc::Data: Send + Sync,
    {
        heap::run(src, root, depth, scheme, self, opts)
    }
}

/// Every thread's deque, as seen by thieves.
pub struct Stealers<S: TreeSource, D> {
    stealers: Vec<Stealer<heap::NodeRef<S, D, Steal>>>,
}

/// One thread's own deque and its choice of victims.
pub struct Own<S: TreeSource, D> {
    deque: Worker<heap::NodeRef<S, D, Steal>>,
    rng: ChaCha8Rng,
}

impl<S: TreeSource, D> HeapPolicy<S, D> for Steal {
    type Shared = Stealers<S, D>;
    type ThreadState = Own<S, D>;
    /// Pushed on a deque already.
    type NodeState = bool;

    /// Each thread's deque, and its random stream: from the seed and the
    /// tree's root key, one stream per thread.
    fn start(&self, threads: usize, root_key: u64) -> (Stealers<S, D>, Vec<Own<S, D>>) {
        let own: Vec<Own<S, D>> = (0..threads)
            .map(|id| {
                let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ (root_key << 32));
                rng.set_stream(id as u64);
                Own { deque: Worker::new_lifo(), rng }
            })
            .collect();
        (Stealers { stealers: own.iter().map(|o| o.deque.stealer()).collect() }, own)
    }

    /// An eligible node is pushed on the thread's deque, once.
    fn share<Sc: SplitScheme<Data = D>>(
        sh: &Shared<'_, S, Sc, Steal>,
        th: &mut Thread<S, D, Steal>,
        x: &heap::NodeRef<S, D, Steal>,
        st: &mut HState<S, D, Steal>,
    ) {
        if !st.policy && sh.eligible(x, st).is_some() {
            st.policy = true;
            th.policy.deque.push(x.clone());
        }
    }

    /// An idle thread: a node of its own deque, or one stolen.
    fn find<Sc: SplitScheme<Data = D>>(sh: &Shared<'_, S, Sc, Steal>, th: &mut Thread<S, D, Steal>) -> Option<heap::NodeRef<S, D, Steal>> {
        let me = th.l.id;
        while let Some(x) = th.policy.deque.pop() {
            if !x.done.load(Acquire) && x.alive() {
                return Some(x);
            }
        }
        let stealers = &sh.policy.stealers;
        let n = stealers.len();
        let start = (th.policy.rng.next_u64() % n as u64) as usize;
        for i in 0..n {
            let v = (start + i) % n;
            if v == me {
                continue;
            }
            loop {
                match stealers[v].steal() {
                    Stolen::Success(x) => {
                        let st = th.l.lock(&x.st);
                        if x.open(&st) && x.alive() {
                            let more = st.handed + 1 < st.moves;
                            drop(st);
                            if more {
                                th.policy.deque.push(x.clone());
                            }
                            return Some(x);
                        }
                    }
                    Stolen::Retry => continue,
                    Stolen::Empty => break,
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::Steal;
    use crate::policy::testkit::*;

    /// Work stealing, the same tree. P1's requests reach P0 while nothing is
    /// eligible and are answered "no work", until P0, at node 1 after leaf
    /// 1.1, offers node 1 (its highest node whose eldest brother is
    /// searched: the root's first move is not back yet). P1 evaluates 1.3,
    /// finishes node 1 last and carries it up to the root, where it takes
    /// move 2; P0, idle, steals the root from P1 and takes move 3.
    #[test]
    fn work_stealing_by_hand() {
        let (want, r) = traced(3, 2, 2, Policy::Steal(Steal { scheme: A1, seed: 5 }));
        assert_eq!(r.value, want);
        assert_eq!(leaves(&r), [("1.1", 0), ("1.2", 0), ("1.3", 1), ("2.1", 1), ("3.1", 0)]);
        let p1 = first_work(&r, 1);
        assert_eq!((p1.state, p1.node.as_deref()), (State::Search, Some("1")));
        let p0_idle = r.trace.iter().find(|e| e.proc == 0 && e.state == State::Split).unwrap();
        let p0_back = r.trace.iter().find(|e| e.proc == 0 && e.t > p0_idle.t && e.state != State::Split).unwrap();
        assert_eq!((p0_back.state, p0_back.node.as_deref()), (State::Search, Some("")));
    }
}
