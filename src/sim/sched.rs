//! The PABSim scheduler (thesis §6.1; `docs/model.md` §5.2): every simulated
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

/// Slots of the calendar: clocks within this many ticks of the smallest
/// one sit in a slot; later ones wait in an overflow list.
const WINDOW: u64 = 1024;

/// Per-processor clocks and the choice of who runs next.
///
/// A calendar queue: slot `t mod WINDOW` holds a bit per processor whose
/// clock is `t`, for every `t` in `[base, base + WINDOW)`, where `base` is
/// never above the smallest clock; later clocks wait in `overflow`. The
/// choice is a scan to the first non-empty slot (clocks of busy processors
/// are a few ticks apart) and a bit search for round-robin. Only the
/// processor chosen last changes its clock between two choices.
#[derive(Clone, Debug)]
pub struct Scheduler {
    words: usize,
    clock: Vec<u64>,
    slots: Vec<u64>,
    /// With more than one word per slot, a bit per word of the slot that
    /// is not zero: on a large machine most are, and the choice then
    /// visits only the others.
    sums: Vec<u64>,
    base: u64,
    in_slots: usize,
    overflow: Vec<usize>,
    last: usize,
}

impl Scheduler {
    /// `procs` processors, all at time 0; processor 0 runs first.
    pub fn new(procs: usize) -> Scheduler {
        Scheduler::with_words(procs, procs.div_ceil(64))
    }

    /// `procs` processors with `words` words per slot (tests give more than
    /// `procs` needs, to force the general path of [`Scheduler::next`]).
    fn with_words(procs: usize, words: usize) -> Scheduler {
        assert!(words <= 64, "at most 4,096 processors (a word of the slot summary per 64)");
        let mut s = Scheduler {
            words,
            clock: vec![NEVER; procs],
            slots: vec![0; WINDOW as usize * words],
            sums: vec![0; WINDOW as usize],
            base: 0,
            in_slots: 0,
            overflow: vec![],
            last: procs - 1,
        };
        for p in 0..procs {
            s.set(p, 0);
        }
        s
    }

    /// Processor `p`'s clock.
    #[inline(always)]
    pub fn clock(&self, p: usize) -> u64 {
        self.clock[p]
    }

    #[inline(always)]
    fn slot(&self, t: u64) -> usize {
        (t % WINDOW) as usize * self.words
    }

    /// Sets processor `p`'s clock; it may not go below the smallest clock
    /// (`yield(n)` is `set(p, clock(p) + n)`).
    #[inline(always)]
    pub fn set(&mut self, p: usize, t: u64) {
        let old = self.clock[p];
        let (w, bit) = (p / 64, 1u64 << (p % 64));
        if old != NEVER {
            if old < self.base + WINDOW {
                let s = self.slot(old);
                self.slots[s + w] &= !bit;
                if self.words > 1 && self.slots[s + w] == 0 {
                    self.sums[(old % WINDOW) as usize] &= !(1 << w);
                }
                self.in_slots -= 1;
            } else {
                self.leave_overflow(p);
            }
        }
        debug_assert!(t >= self.base, "a clock went below the smallest clock");
        self.clock[p] = t;
        if t == NEVER {
        } else if t < self.base + WINDOW {
            let s = self.slot(t);
            self.slots[s + w] |= bit;
            if self.words > 1 {
                self.sums[(t % WINDOW) as usize] |= 1 << w;
            }
            self.in_slots += 1;
        } else {
            self.join_overflow(p);
        }
    }

    #[cold]
    #[inline(never)]
    fn leave_overflow(&mut self, p: usize) {
        if let Some(i) = self.overflow.iter().position(|&q| q == p) {
            self.overflow.swap_remove(i);
        }
    }

    #[cold]
    #[inline(never)]
    fn join_overflow(&mut self, p: usize) {
        self.overflow.push(p);
    }

    /// The processors among `64 w .. 64 w + 63` whose clock is `t` (a bit
    /// each); `t` is the smallest clock.
    #[inline(always)]
    pub fn at(&self, t: u64, w: usize) -> u64 {
        debug_assert!(t == self.base, "only the smallest clock's processors are asked for");
        self.slots[self.slot(t) + w]
    }

    /// The first processor after `p` (cyclically) whose clock is `t`, the
    /// smallest clock, as the next tie would go if `p` had just run; `p`
    /// itself if no other processor's clock is `t`.
    #[inline(always)]
    pub fn after(&self, t: u64, p: usize) -> usize {
        debug_assert!(t == self.base && self.clock[p] == t);
        if self.words == 1 { first_after(self.slots[self.slot(t)], p) } else { self.pick(t, p) }
    }

    /// A bit per word of 64 processors that has a processor whose clock is
    /// `t`, the smallest clock (with one word, that bit is set regardless).
    #[inline(always)]
    pub fn occupied(&self, t: u64) -> u64 {
        debug_assert!(t == self.base, "only the smallest clock's processors are asked for");
        if self.words == 1 { 1 } else { self.sums[(t % WINDOW) as usize] }
    }

    /// Sets the clocks of the processors of `mask` among `64 w .. 64 w + 63`,
    /// all at the smallest clock `from`, to `to`: [`Scheduler::set`] for each,
    /// a word at a time.
    pub fn advance(&mut self, from: u64, w: usize, mask: u64, to: u64) {
        debug_assert!(from == self.base && to > from);
        debug_assert_eq!(self.slots[self.slot(from) + w] & mask, mask, "advanced processors not at the clock given");
        if to >= self.base + WINDOW {
            for i in bits(mask) {
                self.set(w * 64 + i, to);
            }
            return;
        }
        for i in bits(mask) {
            self.clock[w * 64 + i] = to;
        }
        let (s, d) = (self.slot(from), self.slot(to));
        self.slots[s + w] &= !mask;
        self.slots[d + w] |= mask;
        if self.words > 1 {
            if self.slots[s + w] == 0 {
                self.sums[(from % WINDOW) as usize] &= !(1 << w);
            }
            self.sums[(to % WINDOW) as usize] |= 1 << w;
        }
    }

    /// Makes `p` the processor that ran last: the next tie goes to the
    /// first processor after it (cyclically), as if `p` had just run.
    #[inline(always)]
    pub fn set_last(&mut self, p: usize) {
        self.last = p;
    }

    /// Moves overflow clocks that now fall inside the window into slots.
    fn migrate(&mut self) {
        let mut i = 0;
        while i < self.overflow.len() {
            let p = self.overflow[i];
            let t = self.clock[p];
            if t < self.base + WINDOW {
                self.overflow.swap_remove(i);
                let s = self.slot(t);
                self.slots[s + p / 64] |= 1 << (p % 64);
                if self.words > 1 {
                    self.sums[(t % WINDOW) as usize] |= 1 << (p / 64);
                }
                self.in_slots += 1;
            } else {
                i += 1;
            }
        }
    }

    /// Whether no clock is `t` (more than one word per slot).
    #[inline(always)]
    fn slot_empty(&self, t: u64) -> bool {
        self.sums[(t % WINDOW) as usize] == 0
    }

    /// The first processor after `last` (cyclically) in the slot of `t`.
    #[inline(always)]
    fn pick(&self, t: u64, last: usize) -> usize {
        let s = self.slot(t);
        let sum = self.sums[(t % WINDOW) as usize];
        let from = last + 1;
        let fw = from / 64;
        if fw < self.words {
            let x = self.slots[s + fw] & (!0u64 << (from % 64));
            if x != 0 {
                return fw * 64 + x.trailing_zeros() as usize;
            }
        }
        // The next non-empty word after `fw`, else the first one (cyclically).
        let later = if fw + 1 < 64 { sum & (!0u64 << (fw + 1)) } else { 0 };
        let w = if later != 0 { later.trailing_zeros() } else { sum.trailing_zeros() } as usize;
        debug_assert!(w < self.words, "pick from an empty slot");
        w * 64 + self.slots[s + w].trailing_zeros() as usize
    }

    /// The processor to run next and the clock it may run up to (exclusive)
    /// before the others must be considered; `None` when every clock is [`NEVER`].
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<(usize, u64)> {
        if self.words == 1 {
            return self.next_one_word();
        }
        if self.in_slots == 0 {
            let m = self.overflow.iter().map(|&p| self.clock[p]).min()?;
            self.base = m;
            self.migrate();
        }
        while self.slot_empty(self.base) {
            self.base += 1;
            if !self.overflow.is_empty() {
                self.migrate();
            }
        }
        let p = self.pick(self.base, self.last);
        self.last = p;
        // The smallest clock among the others.
        let s = self.slot(self.base);
        let alone = self.sums[(self.base % WINDOW) as usize] == 1 << (p / 64) && self.slots[s + p / 64] == 1 << (p % 64);
        let others = if !alone {
            self.base
        } else if self.in_slots > 1 {
            let mut t = self.base + 1;
            while self.slot_empty(t) {
                t += 1;
            }
            t
        } else {
            self.overflow.iter().map(|&q| self.clock[q]).min().unwrap_or(NEVER)
        };
        Some((p, others))
    }

    /// [`Scheduler::next`] for at most 64 processors (every run of the
    /// thesis): one word per slot, so the pick and the "alone" test are a
    /// few bit operations. Same choices (a test compares the two).
    #[inline]
    fn next_one_word(&mut self) -> Option<(usize, u64)> {
        if self.in_slots == 0 {
            let m = self.overflow.iter().map(|&p| self.clock[p]).min()?;
            self.base = m;
            self.migrate();
        }
        let mut x = self.slots[(self.base % WINDOW) as usize];
        while x == 0 {
            self.base += 1;
            if !self.overflow.is_empty() {
                self.migrate();
            }
            x = self.slots[(self.base % WINDOW) as usize];
        }
        let p = first_after(x, self.last);
        self.last = p;
        let others = if x & !(1u64 << p) != 0 {
            self.base
        } else if self.in_slots > 1 {
            let mut t = self.base + 1;
            while self.slots[(t % WINDOW) as usize] == 0 {
                t += 1;
            }
            t
        } else {
            self.overflow.iter().map(|&q| self.clock[q]).min().unwrap_or(NEVER)
        };
        Some((p, others))
    }
}

/// The first processor after `last` (cyclically) among the bits of the
/// non-empty word `x` (at most 64 processors).
#[inline(always)]
fn first_after(x: u64, last: usize) -> usize {
    let from = last + 1;
    let after = if from >= 64 { 0 } else { x & (!0u64 << from) };
    (if after != 0 { after.trailing_zeros() } else { x.trailing_zeros() }) as usize
}

/// The positions of the set bits of `x`, lowest first.
#[inline(always)]
pub fn bits(mut x: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (x != 0).then(|| {
            let i = x.trailing_zeros() as usize;
            x &= x - 1;
            i
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next number of a xorshift generator (random yields for the tests).
    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

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

    /// The rule itself, by brute force.
    fn reference_next(clock: &[u64], last: usize) -> Option<usize> {
        let n = clock.len();
        let m = *clock.iter().min()?;
        if m == NEVER {
            return None;
        }
        (1..=n).map(|i| (last + i) % n).find(|&p| clock[p] == m)
    }

    #[test]
    fn calendar_equals_brute_force() {
        use rand::{RngExt, SeedableRng};
        for procs in [1usize, 2, 3, 48, 64, 65, 130] {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(procs as u64);
            let mut s = Scheduler::new(procs);
            let mut clock = vec![0u64; procs];
            let mut last = procs - 1;
            for _ in 0..20_000 {
                let want = reference_next(&clock, last);
                let got = s.next();
                assert_eq!(got.map(|g| g.0), want);
                let Some((p, bound)) = got else { break };
                let others = (0..procs).filter(|&q| q != p).map(|q| clock[q]).min().unwrap_or(NEVER);
                assert_eq!(bound, others);
                last = p;
                let step = match rng.random_range(0..100) {
                    0 => 5000,
                    1 => NEVER,
                    2..=10 => 0,
                    k => k % 9,
                };
                clock[p] = if step == NEVER { NEVER } else { clock[p] + step };
                s.set(p, clock[p]);
            }
        }
    }

    /// Moving a word's processors from the smallest clock together, and
    /// making another processor the one that ran last, is the same as
    /// setting each clock (and running up to that processor): the same
    /// choices and bounds afterwards, inside and beyond the calendar's window.
    #[test]
    fn advancing_a_word_is_setting_each_clock() {
        for procs in [3usize, 48, 64, 130, 1024] {
            let mut together = Scheduler::new(procs);
            let mut each = Scheduler::new(procs);
            let mut x = 0x853c_49e6_748f_ea9bu64 ^ procs as u64;
            for _ in 0..5_000 {
                let a = together.next();
                assert_eq!(a, each.next());
                let Some((p, _)) = a else { break };
                let x = xorshift(&mut x);
                let t = together.clock(p);
                if x.is_multiple_of(3) {
                    // Some processors at the smallest clock in p's word (p among them) move on.
                    let w = p / 64;
                    let mask = together.at(t, w) & (x >> 8 | 1 << (p % 64));
                    let to = t + 1 + if x.is_multiple_of(7) { 3_000 } else { x % 5 };
                    together.advance(t, w, mask, to);
                    for i in bits(mask) {
                        each.set(w * 64 + i, to);
                    }
                    // The last one moved ran last (the others ran before it).
                    let last = w * 64 + 63 - mask.leading_zeros() as usize;
                    together.set_last(last);
                    each.last = last;
                } else {
                    let to = t + x % 4;
                    together.set(p, to);
                    each.set(p, to);
                }
            }
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

    #[test]
    fn one_word_fast_path_makes_the_general_choices() {
        // Random yields (some far beyond the calendar window, some processors
        // stopping), 48 processors: the same choices and bounds.
        for procs in [1usize, 5, 48, 64] {
            let mut fast = Scheduler::new(procs);
            let mut general = Scheduler::with_words(procs, 2);
            let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ procs as u64;
            for _ in 0..20_000 {
                let a = fast.next();
                assert_eq!(a, general.next());
                let Some((p, _)) = a else { break };
                let x = xorshift(&mut x);
                let t = match x % 100 {
                    0 => NEVER,
                    1..=3 => fast.clock(p) + 5_000 + x % 3_000,
                    _ => fast.clock(p) + x % 12,
                };
                fast.set(p, t);
                general.set(p, t);
            }
        }
    }
}
