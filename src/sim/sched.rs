//! The PABSim scheduler (thesis §6.1; spec `pabsim.md` §2): every simulated
//! processor has its own clock; the processor with the smallest clock runs
//! next, and ties go round-robin in processor order (the first processor
//! after the one that ran last, cyclically).
//!
//! A processor keeps running while its clock stays strictly below every
//! other processor's: [`Scheduler::next`] returns that bound with the choice,
//! so the engine runs such a burst without asking again. The result is the
//! same as asking after every step, because the others' clocks cannot
//! change meanwhile and a tie would go to them (they come after the running
//! processor in the round-robin order).

/// The clock of a processor that will never run again.
pub const NEVER: u64 = u64::MAX;

/// Per-processor clocks and the choice of who runs next.
///
/// The clocks sit in the leaves of a tournament tree (each inner node holds
/// the smallest clock below it), so the choice and the bound for a burst
/// cost O(log P). Only the processor that ran last may change its clock
/// between two choices; its path is repaired at the next choice.
#[derive(Clone, Debug)]
pub struct Scheduler {
    procs: usize,
    size: usize,
    tree: Vec<u64>,
    last: usize,
}

impl Scheduler {
    /// `procs` processors, all at time 0; processor 0 runs first.
    pub fn new(procs: usize) -> Scheduler {
        let size = procs.next_power_of_two();
        let mut tree = vec![NEVER; 2 * size];
        for p in 0..procs {
            tree[size + p] = 0;
        }
        for i in (1..size).rev() {
            tree[i] = tree[2 * i].min(tree[2 * i + 1]);
        }
        Scheduler { procs, size, tree, last: procs - 1 }
    }

    /// Processor `p`'s clock.
    #[inline(always)]
    pub fn clock(&self, p: usize) -> u64 {
        self.tree[self.size + p]
    }

    /// Sets the clock of the processor chosen last (`yield(n)` is
    /// `set(p, clock(p) + n)`); before the first choice, any processor's.
    #[inline(always)]
    pub fn set(&mut self, p: usize, t: u64) {
        self.tree[self.size + p] = t;
        if p != self.last {
            self.repair(p);
        }
    }

    #[inline(always)]
    fn repair(&mut self, p: usize) {
        let mut i = (self.size + p) >> 1;
        while i >= 1 {
            self.tree[i] = self.tree[2 * i].min(self.tree[2 * i + 1]);
            i >>= 1;
        }
    }

    /// The first processor at or after `s` whose clock is `m` (the minimum).
    #[inline(always)]
    fn first_from(&self, s: usize, m: u64) -> Option<usize> {
        let mut i = s + self.size;
        loop {
            if self.tree[i] <= m {
                while i < self.size {
                    i = if self.tree[2 * i] <= m { 2 * i } else { 2 * i + 1 };
                }
                return Some(i - self.size);
            }
            while i & 1 == 1 {
                i >>= 1;
            }
            if i == 0 {
                return None;
            }
            i += 1;
        }
    }

    /// The processor to run next and the clock it may run up to (exclusive)
    /// before the others must be considered; `None` when every clock is [`NEVER`].
    #[inline]
    pub fn next(&mut self) -> Option<(usize, u64)> {
        self.repair(self.last);
        let m = self.tree[1];
        if m == NEVER {
            return None;
        }
        let start = if self.last + 1 >= self.procs { 0 } else { self.last + 1 };
        let p = match self.first_from(start, m) {
            Some(p) => p,
            None => self.first_from(0, m).expect("the minimum is somewhere"),
        };
        self.last = p;
        // The smallest clock among the others: the siblings along p's path.
        let mut i = self.size + p;
        let mut others = NEVER;
        while i > 1 {
            others = others.min(self.tree[i ^ 1]);
            i >>= 1;
        }
        Some((p, others))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `steps` steps where processor p always yields `cost[p]`; returns the run order.
    fn trace(costs: &[u64], steps: usize, bursts: bool) -> Vec<usize> {
        let mut s = Scheduler::new(costs.len());
        let mut out = vec![];
        while out.len() < steps {
            let (p, limit) = s.next().unwrap();
            loop {
                out.push(p);
                s.set(p, s.clock(p) + costs[p]);
                if !bursts || s.clock(p) >= limit || out.len() == steps {
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn smallest_clock_first_ties_round_robin() {
        // Equal costs: pure round-robin.
        assert_eq!(trace(&[1, 1, 1], 7, false), vec![0, 1, 2, 0, 1, 2, 0]);
        // Processor 1 is cheap: it runs whenever its clock is smallest.
        // Clocks (0,0,0): 0 -> (2,0,0): 1 -> (2,1,0): 2 -> (2,1,2): 1 -> (2,2,2):
        // tie after 1 is 2, then 0, then 1.
        assert_eq!(trace(&[2, 1, 2], 7, false), vec![0, 1, 2, 1, 2, 0, 1]);
    }

    #[test]
    fn bursts_change_nothing() {
        for costs in [vec![1, 1, 1], vec![2, 1, 2], vec![5, 1, 3, 1], vec![1], vec![7, 3, 36, 1, 1, 2]] {
            assert_eq!(trace(&costs, 200, true), trace(&costs, 200, false), "{costs:?}");
        }
    }

    #[test]
    fn finished_processors_never_run() {
        let mut s = Scheduler::new(2);
        s.set(0, NEVER);
        assert_eq!(s.next(), Some((1, NEVER)));
        s.set(1, NEVER);
        assert_eq!(s.next(), None);
    }
}
