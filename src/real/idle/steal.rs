//! YBWC with work stealing on real threads ([`Steal`];
//! Feldmann), with crossbeam-deque's work-stealing deques: a thread at a
//! node that the scheme makes eligible pushes the node, once, on its own
//! deque (the young-brothers-wait rule is the scheme's: scheme A waits for
//! the first move). An idle thread pops its own deque first (newest, the
//! deepest of its nodes), then steals from the others', starting at a
//! victim chosen at random (ChaCha8 from the seed, the tree and the
//! thread's number), from the far end: the oldest node, highest in the
//! tree. A thread that steals a node with moves still left after its own
//! pushes it on its own deque, so that others may steal it from there.

use super::RealSearch;
use crate::game::TreeSource;
use crate::policy::Steal;
use crate::real::heap::{self, HState, HeapPolicy, NodeRef, Shared, Thread};
use crate::real::{Measured, Options, RealError};
use crate::schemes::SplitScheme;
use crossbeam_deque::{Steal as Stolen, Stealer, Worker};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use std::sync::atomic::Ordering::Acquire;

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
    stealers: Vec<Stealer<NodeRef<S, D, Steal>>>,
}

/// One thread's own deque and its choice of victims.
pub struct Own<S: TreeSource, D> {
    deque: Worker<NodeRef<S, D, Steal>>,
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
    fn share<Sc: SplitScheme<Data = D>>(sh: &Shared<'_, S, Sc, Steal>, th: &mut Thread<S, D, Steal>, x: &NodeRef<S, D, Steal>, st: &mut HState<S, D, Steal>) {
        if !st.policy && sh.eligible(x, st).is_some() {
            st.policy = true;
            th.policy.deque.push(x.clone());
        }
    }

    /// An idle thread: a node of its own deque, or one stolen.
    fn find<Sc: SplitScheme<Data = D>>(sh: &Shared<'_, S, Sc, Steal>, th: &mut Thread<S, D, Steal>) -> Option<NodeRef<S, D, Steal>> {
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
