//! The simulated memory system of PABSim (thesis §6.1; `docs/model.md` §5.1):
//! per-processor infinite caches of 128-byte blocks in MSI states, a
//! directory at each block's home (clean or dirty, and the sharers), the read
//! and write delay tables, refusal of requests to a busy block, and
//! test-and-set locks stored in blocks.
//!
//! Time is the caller's: every access carries the requesting processor's
//! current simulated time `now`. An access that misses makes the block busy
//! for its delay, `[now, now + delay)`; a request from another processor that
//! falls inside that window is refused with the time the block becomes free,
//! and the requester retries then ([`Memory::read`], [`Memory::write`] do the
//! retry and report the stall). The network itself is uncontended.
//!
//! The caches are not stored apart from the directory: with infinite
//! caches (no evictions) the directory determines every copy. A processor
//! has a copy iff it is among the block's sharers; the copy is Modified iff
//! the block is dirty (it is then the only sharer, the owner), else Shared.
//! So [`Memory::state`] reads the directory, and [`Memory::check`] verifies
//! the directory's own invariants. (A cache array beside the directory
//! took a byte per processor per block, a kilobyte a block on 1,024
//! processors, and every access touched it.)

/// A processor number, `0..P`.
pub type Proc = usize;
/// A block number.
pub type Block = usize;

/// A cached copy's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cache {
    /// Invalid (or never loaded).
    I = 0,
    /// Shared, clean.
    S = 1,
    /// Modified: the only copy, dirty.
    M = 2,
}

/// Read delay in ticks: `docs/model.md` §5.1, first table.
#[inline(always)]
pub fn read_delay(mine: Cache, dirty: bool, local: bool) -> u64 {
    match (mine, dirty, local) {
        (Cache::M | Cache::S, _, _) => 0,
        (Cache::I, false, true) => 1,
        (Cache::I, false, false) => 2,
        (Cache::I, true, true) => 2,
        (Cache::I, true, false) => 3,
    }
}

/// Write delay in ticks: `docs/model.md` §5.1, second table. (A Shared copy of a
/// dirty block cannot exist; it is charged as Invalid.)
#[inline(always)]
pub fn write_delay(mine: Cache, dirty: bool, local: bool) -> u64 {
    match (mine, dirty, local) {
        (Cache::M, _, _) => 0,
        (Cache::S | Cache::I, false, true) => 1,
        (Cache::S, false, false) => 2,
        (Cache::I, false, false) => 3,
        (_, true, true) => 2,
        (_, true, false) => 4,
    }
}

/// The outcome of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Served after this many ticks.
    Done(u64),
    /// Refused: the block is busy serving another processor until this time.
    Refused(u64),
}

/// The memory system of a `P`-processor machine.
#[derive(Clone, Debug)]
pub struct Memory {
    procs: usize,
    words: usize,
    /// The directory entries and the rest of each block's state.
    dir: Vec<Entry>,
    /// Directory: `sharers[block * words + w]`, a bit per processor with a copy.
    sharers: Vec<u64>,
    /// `waiting[block * words + w]`: a bit per processor whose request the
    /// block has refused and which will issue it again ([`Memory::request`]).
    waiting: Vec<u64>,
}

/// A block's directory entry, its busy window and its lock word, in one
/// host cache line.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    busy_from: u64,
    busy_until: u64,
    home: u32,
    /// 0 when the block is clean; else it is dirty, and this is the
    /// processor with the Modified copy, plus one.
    modified: u32,
    busy_by: u32,
    /// The processor the block served last (round-robin among simultaneous requests).
    served: u32,
    /// Lock word: 0 free, else holder + 1.
    lock: u32,
    /// A bit per word of `sharers` that has a bit set, and the same for
    /// `waiting`: on a large machine most words are empty, and a write
    /// (which clears the sharers) or a fairness check (which looks for
    /// waiters) then visits only the others.
    sharer_words: u32,
    waiting_words: u32,
}

/// Whether any bit in positions `lo..hi` of the bit set `words` is set;
/// `summary` has a bit for each word that is not zero.
#[inline(always)]
fn any_in(words: &[u64], summary: u32, lo: usize, hi: usize) -> bool {
    if lo >= hi {
        return false;
    }
    let (first, last) = (lo / 64, (hi - 1) / 64);
    // The non-zero words in first..=last.
    let mut ws = summary & (!0u32 << first) & (!0u32 >> (31 - last));
    while ws != 0 {
        let w = ws.trailing_zeros() as usize;
        ws &= ws - 1;
        let from = if w == first { lo % 64 } else { 0 };
        let to = if w == last { (hi - 1) % 64 + 1 } else { 64 };
        let mask = (!0u64 << from) & (!0u64 >> (64 - to));
        if words[w] & mask != 0 {
            return true;
        }
    }
    false
}

impl Memory {
    /// A cold machine of `procs` processors with no blocks.
    pub fn new(procs: usize) -> Memory {
        assert!((1..=2048).contains(&procs), "1 to 2,048 processors (a bit of the directory's summaries per 64)");
        Memory { procs, words: procs.div_ceil(64), dir: vec![], sharers: vec![], waiting: vec![] }
    }

    /// Processors.
    pub fn procs(&self) -> usize {
        self.procs
    }

    /// Blocks.
    pub fn blocks(&self) -> usize {
        self.dir.len()
    }

    /// Adds a block, clean and uncached, homed at processor `home`.
    pub fn add_block(&mut self, home: Proc) -> Block {
        debug_assert!(home < self.procs);
        let b = self.dir.len();
        self.dir.push(Entry { home: home as u32, served: self.procs as u32 - 1, ..Entry::default() });
        self.sharers.extend(std::iter::repeat_n(0, self.words));
        self.waiting.extend(std::iter::repeat_n(0, self.words));
        b
    }

    /// Processor `p`'s copy of `block`.
    #[inline(always)]
    pub fn state(&self, p: Proc, block: Block) -> Cache {
        if !self.has_copy(p, block) {
            Cache::I
        } else if self.dir[block].modified != 0 {
            Cache::M
        } else {
            Cache::S
        }
    }

    /// Whether `p`'s read (or write) of `block` hits: it takes no time and
    /// changes nothing.
    #[inline(always)]
    pub fn hits(&self, p: Proc, block: Block, write: bool) -> bool {
        if write { self.owns(p, block) } else { self.has_copy(p, block) }
    }

    /// Whether `p` has a copy of `block` (a read hits).
    #[inline(always)]
    fn has_copy(&self, p: Proc, block: Block) -> bool {
        self.sharers[block * self.words + p / 64] >> (p % 64) & 1 == 1
    }

    /// Whether `p` has the Modified copy of `block` (a write hits).
    #[inline(always)]
    fn owns(&self, p: Proc, block: Block) -> bool {
        self.dir[block].modified == p as u32 + 1
    }

    /// The block's home.
    #[inline(always)]
    pub fn home(&self, block: Block) -> Proc {
        self.dir[block].home as usize
    }

    /// Whether the directory has the block dirty.
    pub fn is_dirty(&self, block: Block) -> bool {
        self.dir[block].modified != 0
    }

    /// The lock holder of the block's lock word.
    #[inline(always)]
    pub fn lock_holder(&self, block: Block) -> Option<Proc> {
        match self.dir[block].lock {
            0 => None,
            h => Some(h as usize - 1),
        }
    }

    /// If the block is busy at `now` serving a processor other than `p`,
    /// the time it frees: a request by `p` is then refused until that time.
    #[inline(always)]
    pub fn refused(&self, p: Proc, block: Block, now: u64) -> Option<u64> {
        let e = &self.dir[block];
        if now < e.busy_until && now >= e.busy_from && e.busy_by as usize != p { Some(e.busy_until) } else { None }
    }

    #[inline(always)]
    fn set_busy(&mut self, p: Proc, block: Block, now: u64, delay: u64) {
        if delay > 0 {
            let e = &mut self.dir[block];
            e.busy_from = now;
            e.busy_until = now + delay;
            e.busy_by = p as u32;
        }
    }

    #[inline(always)]
    fn add_sharer(&mut self, p: Proc, block: Block) {
        self.sharers[block * self.words + p / 64] |= 1 << (p % 64);
        self.dir[block].sharer_words |= 1 << (p / 64);
    }

    /// One read request by `p` at time `now`.
    #[inline]
    pub fn try_read(&mut self, p: Proc, block: Block, now: u64) -> Access {
        if self.has_copy(p, block) {
            return Access::Done(0);
        }
        if let Some(until) = self.refused(p, block, now) {
            return Access::Refused(until);
        }
        Access::Done(self.serve_read(p, block, now))
    }

    /// Serves a read miss that the block has accepted; the delay.
    #[inline(always)]
    fn serve_read(&mut self, p: Proc, block: Block, now: u64) -> u64 {
        let dirty = self.dir[block].modified != 0;
        let delay = read_delay(Cache::I, dirty, self.dir[block].home as usize == p);
        // A dirty block's owner supplies it and drops to Shared (it stays
        // a sharer of the now clean block).
        self.dir[block].modified = 0;
        self.add_sharer(p, block);
        self.set_busy(p, block, now, delay);
        delay
    }

    /// One write request by `p` at time `now`: invalidates every other copy.
    #[inline]
    pub fn try_write(&mut self, p: Proc, block: Block, now: u64) -> Access {
        if self.owns(p, block) {
            return Access::Done(0);
        }
        if let Some(until) = self.refused(p, block, now) {
            return Access::Refused(until);
        }
        Access::Done(self.serve_write(p, block, now))
    }

    /// Serves a write that the block has accepted (`p`'s copy not Modified); the delay.
    #[inline(always)]
    fn serve_write(&mut self, p: Proc, block: Block, now: u64) -> u64 {
        let mine = self.state(p, block);
        let dirty = self.dir[block].modified != 0;
        let delay = write_delay(mine, dirty, self.dir[block].home as usize == p);
        // Every other copy is invalidated: the sharers are cleared.
        let base = block * self.words;
        let mut words = std::mem::take(&mut self.dir[block].sharer_words);
        while words != 0 {
            let w = words.trailing_zeros() as usize;
            words &= words - 1;
            self.sharers[base + w] = 0;
        }
        self.add_sharer(p, block);
        self.dir[block].modified = p as u32 + 1;
        self.set_busy(p, block, now, delay);
        delay
    }

    /// One request by `p` at time `now` on a machine whose processors issue
    /// a refused request again until it is served (the simulator's): like
    /// [`Memory::try_read`] / [`Memory::try_write`], and in addition fair.
    /// When the block is free and other processors it refused are asking
    /// again at this same moment, it serves them round-robin: the first
    /// after the processor it served last. A request that is not first in
    /// that order is refused until `now` (issue it again after the others
    /// at this time have had their turn). Without this, a processor whose
    /// retries always came after the same others in the scheduler's order
    /// at the moment the block freed could be refused forever.
    #[inline(always)]
    pub fn request(&mut self, p: Proc, block: Block, now: u64, write: bool) -> Access {
        if self.hits(p, block, write) {
            return Access::Done(0);
        }
        self.request_miss(p, block, now, write)
    }

    #[inline(never)]
    fn request_miss(&mut self, p: Proc, block: Block, now: u64, write: bool) -> Access {
        if let Some(until) = self.refused(p, block, now) {
            self.set_waiting(p, block, true);
            return Access::Refused(until);
        }
        // No processor waits for the block (the usual case): nothing to check.
        if self.dir[block].waiting_words != 0 {
            if self.behind_a_waiter(p, block) {
                self.set_waiting(p, block, true);
                return Access::Refused(now);
            }
            self.set_waiting(p, block, false);
        }
        self.dir[block].served = p as u32;
        Access::Done(if write { self.serve_write(p, block, now) } else { self.serve_read(p, block, now) })
    }

    /// Marks `p` as waiting for `block` (its request was refused) or not.
    #[inline(always)]
    fn set_waiting(&mut self, p: Proc, block: Block, on: bool) {
        let wi = block * self.words + p / 64;
        let bit = 1u64 << (p % 64);
        if on {
            self.waiting[wi] |= bit;
            self.dir[block].waiting_words |= 1 << (p / 64);
        } else if self.waiting[wi] & bit != 0 {
            self.waiting[wi] &= !bit;
            if self.waiting[wi] == 0 {
                self.dir[block].waiting_words &= !(1 << (p / 64));
            }
        }
    }

    /// Processors `64 w .. 64 w + 63` waiting for `block` (a bit each): those
    /// whose request it refused and which will issue it again.
    #[inline(always)]
    pub fn waiting_word(&self, block: Block, w: usize) -> u64 {
        self.waiting[block * self.words + w]
    }

    /// Whether a processor other than `p` waits for `block`.
    #[inline(always)]
    pub fn other_waiters(&self, p: Proc, block: Block) -> bool {
        let (w, bit) = (p / 64, 1u64 << (p % 64));
        self.dir[block].waiting_words & !(1 << w) != 0 || self.waiting[block * self.words + w] & !bit != 0
    }

    /// Whether `p` waits for `block` (the block refused its request, and
    /// it will issue it again).
    #[inline(always)]
    pub fn waits(&self, p: Proc, block: Block) -> bool {
        self.waiting[block * self.words + p / 64] >> (p % 64) & 1 == 1
    }

    /// The waiting processor the block serves first once it is free: the
    /// first after the processor it served last, in round-robin order
    /// (see [`Memory::request`]).
    pub fn first_waiter(&self, block: Block) -> Option<Proc> {
        let first = (self.dir[block].served as usize + 1) % self.procs;
        let words = &self.waiting[block * self.words..(block + 1) * self.words];
        let (fw, fb) = (first / 64, first % 64);
        // From `first` to the end of its word, the later words, the earlier
        // words, and the start of `first`'s word.
        (0..=self.words).find_map(|k| {
            let w = (fw + k) % self.words;
            let x = match k {
                0 => words[w] & (!0u64 << fb),
                k if k == self.words => words[w] & ((1u64 << fb) - 1),
                _ => words[w],
            };
            (x != 0).then(|| w * 64 + x.trailing_zeros() as usize)
        })
    }

    /// Whether another processor waiting for `block` comes before `p` in
    /// round-robin order after the processor the block served last.
    #[inline(always)]
    fn behind_a_waiter(&self, p: Proc, block: Block) -> bool {
        let n = self.procs;
        let first = (self.dir[block].served as usize + 1) % n;
        // The waiters in first..p, or in first..n and 0..p when p comes
        // before first: a mask per word, no walk over the waiters.
        let summary = self.dir[block].waiting_words;
        let words = &self.waiting[block * self.words..(block + 1) * self.words];
        if p >= first { any_in(words, summary, first, p) } else { any_in(words, summary, first, n) || any_in(words, summary, 0, p) }
    }

    /// A read by `p` starting at `now`, retried until served: returns
    /// `(delay, stall)`, the ticks until served in total and the part of
    /// them spent refused.
    #[inline(always)]
    pub fn read(&mut self, p: Proc, block: Block, now: u64) -> (u64, u64) {
        // Most accesses hit: checked inline, the miss path is a call.
        if self.has_copy(p, block) {
            return (0, 0);
        }
        self.read_miss(p, block, now)
    }

    #[inline(never)]
    fn read_miss(&mut self, p: Proc, block: Block, now: u64) -> (u64, u64) {
        self.retry(now, |m, t| m.try_read(p, block, t))
    }

    /// Repeats a request refused by a busy block until it is served:
    /// `(delay, stall)` from `now`.
    #[inline(always)]
    fn retry(&mut self, now: u64, mut request: impl FnMut(&mut Memory, u64) -> Access) -> (u64, u64) {
        let mut t = now;
        loop {
            match request(self, t) {
                Access::Done(d) => return (t + d - now, t - now),
                Access::Refused(until) => t = until,
            }
        }
    }

    /// A write by `p` starting at `now`, retried until served (see [`Memory::read`]).
    #[inline(always)]
    pub fn write(&mut self, p: Proc, block: Block, now: u64) -> (u64, u64) {
        if self.owns(p, block) {
            return (0, 0);
        }
        self.write_miss(p, block, now)
    }

    #[inline(never)]
    fn write_miss(&mut self, p: Proc, block: Block, now: u64) -> (u64, u64) {
        self.retry(now, |m, t| m.try_write(p, block, t))
    }

    /// One test-and-set attempt on the block's lock word (a write access):
    /// returns the ticks it took and whether `p` now holds the lock.
    #[inline]
    pub fn try_lock(&mut self, p: Proc, block: Block, now: u64) -> (u64, bool) {
        let (d, _) = self.write(p, block, now);
        if self.dir[block].lock == 0 {
            self.dir[block].lock = p as u32 + 1;
            (d, true)
        } else {
            (d, self.dir[block].lock == p as u32 + 1)
        }
    }

    /// Releases `p`'s lock (a write access); returns the ticks it took.
    #[inline]
    pub fn unlock(&mut self, p: Proc, block: Block, now: u64) -> u64 {
        debug_assert_eq!(self.dir[block].lock, p as u32 + 1, "unlock of a lock not held");
        let (d, _) = self.write(p, block, now);
        self.dir[block].lock = 0;
        d
    }

    /// The test-and-set on the lock word itself, once the write access
    /// that carries it has been served: takes the lock if it is free;
    /// whether `p` holds it now.
    #[inline(always)]
    pub fn test_and_set(&mut self, p: Proc, block: Block) -> bool {
        let e = &mut self.dir[block];
        if e.lock == 0 {
            e.lock = p as u32 + 1;
        }
        e.lock == p as u32 + 1
    }

    /// Clears `p`'s lock word, once the write access that carries the
    /// release has been served.
    #[inline(always)]
    pub fn release(&mut self, p: Proc, block: Block) {
        debug_assert_eq!(self.dir[block].lock, p as u32 + 1, "release of a lock not held");
        self.dir[block].lock = 0;
    }

    /// Sets the lock word without a memory access (a node handed out by
    /// the allocator comes locked: its block was written by the allocation).
    #[inline(always)]
    pub fn set_lock(&mut self, block: Block, holder: Option<Proc>) {
        self.dir[block].lock = holder.map_or(0, |h| h as u32 + 1);
    }

    /// Checks the directory's invariants: a dirty block has exactly one
    /// copy, its owner's (Modified); no sharer bit beyond the last
    /// processor; every non-zero word of the sharers and of the waiters is
    /// in its summary; a lock is held by a real processor.
    pub fn check(&self) -> Result<(), String> {
        for b in 0..self.blocks() {
            let e = &self.dir[b];
            let copies: Vec<Proc> = (0..self.procs).filter(|&p| self.has_copy(p, b)).collect();
            let bits: u32 = self.sharers[b * self.words..(b + 1) * self.words].iter().map(|x| x.count_ones()).sum();
            if bits as usize != copies.len() {
                return Err(format!("block {b}: sharer bits beyond processor {}", self.procs - 1));
            }
            if e.modified != 0 && copies != [e.modified as usize - 1] {
                return Err(format!("block {b}: dirty, owner {}, but the copies are {copies:?}", e.modified - 1));
            }
            for w in 0..self.words {
                let i = b * self.words + w;
                if (self.sharers[i] != 0 && e.sharer_words >> w & 1 == 0) || (self.waiting[i] != 0 && e.waiting_words >> w & 1 == 0) {
                    return Err(format!("block {b}: word {w} of the sharers or waiters missing from the summary"));
                }
            }
            if e.lock as usize > self.procs {
                return Err(format!("block {b}: lock held by unknown processor {}", e.lock - 1));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn read_table_every_row() {
        // M or S: 0 whatever the home.
        for st in [Cache::M, Cache::S] {
            for dirty in [false, true] {
                for local in [false, true] {
                    assert_eq!(read_delay(st, dirty, local), 0);
                }
            }
        }
        assert_eq!(read_delay(Cache::I, false, true), 1);
        assert_eq!(read_delay(Cache::I, false, false), 2);
        assert_eq!(read_delay(Cache::I, true, true), 2);
        assert_eq!(read_delay(Cache::I, true, false), 3);
    }

    #[test]
    fn write_table_every_row() {
        for dirty in [false, true] {
            for local in [false, true] {
                assert_eq!(write_delay(Cache::M, dirty, local), 0);
            }
        }
        assert_eq!(write_delay(Cache::S, false, true), 1);
        assert_eq!(write_delay(Cache::I, false, true), 1);
        assert_eq!(write_delay(Cache::S, false, false), 2);
        assert_eq!(write_delay(Cache::I, false, false), 3);
        assert_eq!(write_delay(Cache::I, true, true), 2);
        assert_eq!(write_delay(Cache::I, true, false), 4);
    }

    /// The tables through the machine: each row reached by real requests.
    #[test]
    fn tables_through_the_machine() {
        let mut m = Memory::new(3);
        let b = m.add_block(0);
        // read, I, clean, local: 1; again (S): 0.
        assert_eq!(m.try_read(0, b, 0), Access::Done(1));
        assert_eq!(m.try_read(0, b, 10), Access::Done(0));
        // read, I, clean, remote: 2.
        assert_eq!(m.try_read(1, b, 20), Access::Done(2));
        // write, S, clean, remote: 2; invalidates processor 0.
        assert_eq!(m.try_write(1, b, 30), Access::Done(2));
        assert_eq!(m.state(0, b), Cache::I);
        assert_eq!(m.state(1, b), Cache::M);
        // write, M: 0.
        assert_eq!(m.try_write(1, b, 40), Access::Done(0));
        // read, I, dirty, local (home 0 reads, 1 owns): 2; owner drops to S.
        assert_eq!(m.try_read(0, b, 50), Access::Done(2));
        assert_eq!(m.state(1, b), Cache::S);
        assert!(!m.is_dirty(b));
        // write, S, clean, local: 1.
        assert_eq!(m.try_write(0, b, 60), Access::Done(1));
        assert_eq!(m.state(1, b), Cache::I);
        // read, I, dirty, remote: 3.
        assert_eq!(m.try_read(2, b, 70), Access::Done(3));
        // write, I, clean, remote: 3 (1 never had it since the invalidation).
        assert_eq!(m.try_write(1, b, 80), Access::Done(3));
        // write, I, dirty, remote: 4; write, I, dirty, local: 2.
        assert_eq!(m.try_write(2, b, 90), Access::Done(4));
        assert_eq!(m.try_write(0, b, 100), Access::Done(2));
        // write, I, clean, local: 1 (a fresh block).
        let c = m.add_block(2);
        assert_eq!(m.try_write(2, c, 0), Access::Done(1));
        m.check().unwrap();
    }

    #[test]
    fn busy_block_refuses_others() {
        let mut m = Memory::new(2);
        let b = m.add_block(0);
        assert_eq!(m.try_write(1, b, 100), Access::Done(3));
        // Busy [100, 103) for processor 1: processor 0 is refused until 103.
        assert_eq!(m.try_read(0, b, 101), Access::Refused(103));
        assert_eq!(m.try_read(0, b, 102), Access::Refused(103));
        // The retrying form waits, then pays the dirty-local read.
        assert_eq!(m.read(0, b, 101), (4, 2));
        // A hit is never refused, even while the block is busy.
        assert_eq!(m.try_read(1, b, 104), Access::Done(0));
    }

    /// Three processors keep asking for one block; each is refused while
    /// it is busy and asks again when it frees. The block serves the
    /// simultaneous requests round-robin, so every processor is served in
    /// turn whatever order they ask in at that moment.
    #[test]
    fn simultaneous_requests_are_served_round_robin() {
        let mut m = Memory::new(3);
        let b = m.add_block(0);
        // Processor 2 takes it at 10 (write, I, clean, remote: 3 ticks).
        assert_eq!(m.request(2, b, 10, true), Access::Done(3));
        // 0 and 1 are refused until 13.
        assert_eq!(m.request(0, b, 11, true), Access::Refused(13));
        assert_eq!(m.request(1, b, 12, true), Access::Refused(13));
        // At 13, 1 happens to ask first; but after 2 (served last) comes 0,
        // which is waiting: 1 must let 0 go first.
        assert_eq!(m.request(1, b, 13, true), Access::Refused(13));
        // (write, I, dirty, local: 2 ticks.)
        assert_eq!(m.request(0, b, 13, true), Access::Done(2));
        assert_eq!(m.request(1, b, 13, true), Access::Refused(15));
        // 2 wants it again at 15, before 1 asks: 1 is waiting and is next after 0.
        assert_eq!(m.request(2, b, 15, true), Access::Refused(15));
        assert_eq!(m.request(1, b, 15, true), Access::Done(4));
        assert_eq!(m.request(2, b, 19, true), Access::Done(4));
        // Hits are never refused: 2 holds it Modified.
        assert_eq!(m.request(2, b, 20, true), Access::Done(0));
        m.check().unwrap();
    }

    /// Processors that issue refused requests again when the block frees,
    /// in a random order at each moment (as the simulator's scheduler may
    /// order them): the coherence invariants hold after every request, and
    /// no request waits for ever — the round-robin at a freed block serves a
    /// waiting processor within P services of the block.
    #[test]
    fn retried_requests_keep_invariants_and_are_served() {
        for procs in [2usize, 5, 48, 70] {
            let mut rng = ChaCha8Rng::seed_from_u64(777 + procs as u64);
            let mut m = Memory::new(procs);
            let blocks: Vec<Block> = (0..3).map(|i| m.add_block(i % procs)).collect();
            // Each processor: its clock, the block it asks for, and since when.
            let mut clock = vec![0u64; procs];
            let mut want: Vec<Option<(Block, bool, u64)>> = vec![None; procs];
            let mut served = 0;
            for _ in 0..40_000 {
                // The smallest clock runs; ties in a random order.
                let t = *clock.iter().min().unwrap();
                let tied: Vec<usize> = (0..procs).filter(|&q| clock[q] == t).collect();
                let p = tied[rng.random_range(0..tied.len())];
                let (b, write, since) = *want[p].get_or_insert_with(|| (blocks[rng.random_range(0..blocks.len())], rng.random_bool(0.7), t));
                match m.request(p, b, t, write) {
                    Access::Done(d) => {
                        served += 1;
                        want[p] = None;
                        assert_ne!(m.state(p, b), Cache::I);
                        // Served within P services of each of the 3 blocks, at 4 ticks each at most.
                        assert!(t - since <= 3 * 4 * procs as u64 + 4, "P{p} waited {} ticks", t - since);
                        clock[p] = t + d.max(1);
                    }
                    Access::Refused(until) => {
                        assert!(until >= t);
                        // Refused until now: it asks again after the others at this moment.
                        clock[p] = if until == t { t } else { until };
                        if until == t {
                            // Let someone else at this time go first: move p to the back by
                            // giving the others a turn (they are tied with p).
                            assert!(tied.len() > 1, "refused until now, yet alone");
                        }
                    }
                }
                m.check().unwrap();
            }
            assert!(served > 1000, "{served}");
        }
    }

    #[test]
    fn locks_are_test_and_set() {
        let mut m = Memory::new(2);
        let l = m.add_block(1);
        assert_eq!(m.try_lock(0, l, 0), (3, true));
        assert_eq!(m.lock_holder(l), Some(0));
        // Processor 1 spins: each attempt is a write (dirty at 0, local home: 2).
        assert_eq!(m.try_lock(1, l, 10), (2, false));
        assert_eq!(m.try_lock(1, l, 20), (0, false));
        assert_eq!(m.unlock(0, l, 30), 4);
        assert_eq!(m.lock_holder(l), None);
        assert_eq!(m.try_lock(1, l, 40), (2, true));
        m.check().unwrap();
    }

    /// Many processors, random requests on few blocks, invariants after every step.
    #[test]
    fn waiter_ranges_by_masks_equal_the_ranks() {
        // The word masks of `behind_a_waiter` against the rule itself: a
        // waiter other than p whose rank after `first` is below p's; and
        // `first_waiter`, the waiter of lowest rank.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for procs in [2usize, 3, 63, 64, 65, 130, 200, 1024] {
            let mut m = Memory::new(procs);
            let b = m.add_block(0);
            for _ in 0..2_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let density = 1 + x % 64;
                for q in 0..procs {
                    let y = (x ^ q as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
                    m.set_waiting(q, b, y % 64 < density);
                }
                m.dir[b].served = (x % procs as u64) as u32;
                let p = (x >> 20) as usize % procs;
                let first = (m.dir[b].served as usize + 1) % procs;
                let rank = |q: usize| (q + procs - first) % procs;
                let waits = |q: usize| m.waits(q, b);
                let want = (0..procs).any(|q| q != p && waits(q) && rank(q) < rank(p));
                assert_eq!(m.behind_a_waiter(p, b), want, "procs {procs}, p {p}, first {first}");
                // The waiter served first: the one of lowest rank.
                let first_waiter = (0..procs).filter(|&q| waits(q)).min_by_key(|&q| rank(q));
                assert_eq!(m.first_waiter(b), first_waiter, "procs {procs}, first {first}");
            }
        }
    }

    #[test]
    fn random_stress_keeps_invariants() {
        for procs in [2usize, 5, 64, 70, 200] {
            let mut rng = ChaCha8Rng::seed_from_u64(20010 + procs as u64);
            let mut m = Memory::new(procs);
            let blocks: Vec<Block> = (0..6).map(|i| m.add_block(i % procs)).collect();
            let mut clock = vec![0u64; procs];
            let mut held: Vec<Option<Proc>> = vec![None; blocks.len()];
            for _ in 0..20_000 {
                let p = rng.random_range(0..procs);
                let bi = rng.random_range(0..blocks.len());
                let b = blocks[bi];
                let now = clock[p];
                let before = m.state(p, b);
                let d = match rng.random_range(0..4) {
                    0 => {
                        let (d, stall) = m.read(p, b, now);
                        assert!(d >= stall);
                        if before != Cache::I {
                            assert_eq!(d, 0);
                        }
                        assert_ne!(m.state(p, b), Cache::I);
                        d
                    }
                    1 => {
                        let (d, _) = m.write(p, b, now);
                        assert_eq!(m.state(p, b), Cache::M);
                        assert!((0..procs).all(|q| q == p || m.state(q, b) == Cache::I));
                        d
                    }
                    2 => {
                        let (d, got) = m.try_lock(p, b, now);
                        if got && held[bi].is_none() {
                            held[bi] = Some(p);
                        }
                        assert_eq!(got, held[bi] == Some(p));
                        d
                    }
                    _ => {
                        if held[bi] == Some(p) {
                            held[bi] = None;
                            m.unlock(p, b, now)
                        } else {
                            0
                        }
                    }
                };
                assert_eq!(m.lock_holder(b), held[bi]);
                clock[p] = now + d.max(1);
                m.check().unwrap();
            }
        }
    }
}
