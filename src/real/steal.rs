//! YBWC with work stealing on real threads ([`Algorithm::Steal`](crate::algorithm::Algorithm);
//! Feldmann), with crossbeam-deque's work-stealing deques: a thread at a
//! node that the scheme makes eligible pushes the node, once, on its own
//! deque (the young-brothers-wait rule is the scheme's: scheme A waits for
//! the first move). An idle thread pops its own deque first (newest, the
//! deepest of its nodes), then steals from the others', starting at a
//! victim chosen at random (ChaCha8 from the seed, the tree and the
//! thread's number), from the far end: the oldest node, highest in the
//! tree. A thread that steals a node with moves still left after its own
//! pushes it on its own deque, so that others may steal it from there.

use super::heap::{HNode, HState, Shared, Thread};
use crate::algorithm::Algorithm;
use crate::game::TreeSource;
use crate::sim::schemes::SplitScheme;
use crossbeam_deque::{Steal, Stealer};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::Ordering::Acquire;

/// Every thread's deque, as seen by thieves.
pub struct Stealers<S: TreeSource, D> {
    stealers: Vec<Stealer<Arc<HNode<S, D>>>>,
}

/// Thread `id`'s random stream: from the steal seed (0 for the other
/// algorithms) and the tree's root key, one stream per thread.
pub fn rng(algorithm: Algorithm, root_key: u64, id: usize) -> ChaCha8Rng {
    let seed = match algorithm {
        Algorithm::Steal { seed, .. } => seed,
        _ => 0,
    };
    let mut r = ChaCha8Rng::seed_from_u64(seed ^ (root_key << 32));
    r.set_stream(id as u64);
    r
}

/// A thread at `x` (locked in `st`) about to hand out a move with more
/// left: an eligible node is pushed on the thread's deque, once.
pub fn share<S: TreeSource, Sc: SplitScheme>(sh: &Shared<'_, S, Sc>, th: &mut Thread<S, Sc::Data>, x: &Arc<HNode<S, Sc::Data>>, st: &mut HState<S, Sc::Data>)
where
    Sc::Data: Send + Sync,
{
    if !st.offered
        && sh.eligible(x, st).is_some()
        && let Some(d) = &th.deque
    {
        st.offered = true;
        d.push(x.clone());
    }
}

impl<S: TreeSource, D> Stealers<S, D> {
    /// The thieves' ends of the threads' deques.
    pub fn new(stealers: Vec<Stealer<Arc<HNode<S, D>>>>) -> Stealers<S, D> {
        Stealers { stealers }
    }

    /// An idle thread: a node of its own deque, or one stolen.
    pub fn find(&self, th: &mut Thread<S, D>) -> Option<Arc<HNode<S, D>>> {
        let me = th.l.id;
        if let Some(d) = &th.deque {
            while let Some(x) = d.pop() {
                if !x.done.load(Acquire) && x.alive() {
                    return Some(x);
                }
            }
        }
        let n = self.stealers.len();
        let start = (th.rng.next_u64() % n as u64) as usize;
        for i in 0..n {
            let v = (start + i) % n;
            if v == me {
                continue;
            }
            loop {
                match self.stealers[v].steal() {
                    Steal::Success(x) => {
                        let st = th.l.lock(&x.st);
                        if x.open(&st) && x.alive() {
                            let more = st.handed + 1 < st.moves;
                            drop(st);
                            if more && let Some(d) = &th.deque {
                                d.push(x.clone());
                            }
                            return Some(x);
                        }
                    }
                    Steal::Retry => continue,
                    Steal::Empty => break,
                }
            }
        }
        None
    }
}
