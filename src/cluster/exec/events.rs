//! The event executor of the simulated cluster, apart from its model (as
//! the shared-memory simulator keeps its scheduler apart): messages in
//! flight, handed out in arrival order (ties by sending order), or — the
//! test transport — in an adversarial order: a seeded random pick among
//! all messages in flight, whatever their times.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How messages in flight are handed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// By arrival time, then sending order: the machine's own.
    Timed,
    /// A random message in flight each time (SplitMix64 stream from the
    /// seed), ignoring times: an adversarial network for tests.
    Adversarial(u64),
}

/// Messages in flight: `(arrival, sequence, item)`.
pub struct Events<E> {
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    pool: Vec<Option<(u64, E)>>,
    free: Vec<usize>,
    any: Vec<usize>,
    seq: u64,
    delivery: Delivery,
    rng: u64,
}

impl<E> Events<E> {
    /// An empty queue.
    pub fn new(delivery: Delivery) -> Events<E> {
        let rng = if let Delivery::Adversarial(s) = delivery { s } else { 0 };
        Events { heap: BinaryHeap::new(), pool: vec![], free: vec![], any: vec![], seq: 0, delivery, rng }
    }

    /// Adds an item arriving at `time`.
    pub fn push(&mut self, time: u64, e: E) {
        let i = self.free.pop().unwrap_or_else(|| {
            self.pool.push(None);
            self.pool.len() - 1
        });
        self.pool[i] = Some((time, e));
        match self.delivery {
            Delivery::Timed => self.heap.push(Reverse((time, self.seq, i))),
            Delivery::Adversarial(_) => self.any.push(i),
        }
        self.seq += 1;
    }

    /// The next item and its arrival time.
    pub fn pop(&mut self) -> Option<(u64, E)> {
        let i = match self.delivery {
            Delivery::Timed => self.heap.pop()?.0.2,
            Delivery::Adversarial(_) => {
                if self.any.is_empty() {
                    return None;
                }
                self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let k = (crate::tree::incremental::mix(self.rng) % self.any.len() as u64) as usize;
                self.any.swap_remove(k)
            }
        };
        self.free.push(i);
        self.pool[i].take()
    }

    /// The bytes one item in flight holds: its slot in the pool, its entry
    /// in the heap and, once handed out, its index on the free list (the
    /// memory estimate's, [`crate::cluster::memory`]).
    pub const fn bytes_per_item() -> u64 {
        (std::mem::size_of::<Option<(u64, E)>>() + std::mem::size_of::<Reverse<(u64, u64, usize)>>() + std::mem::size_of::<usize>()) as u64
    }

    /// Items in flight.
    pub fn len(&self) -> usize {
        self.pool.len() - self.free.len()
    }

    /// Whether nothing is in flight.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
