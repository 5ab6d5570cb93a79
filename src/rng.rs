//! Park–Miller random streams, as the thesis's tree generator uses them
//! (thesis §4.2 and Appendix A; `docs/model.md` §1.1).
//!
//! Every tree node owns one stream. A stream is seeded with multiplier 16807
//! and advanced with multiplier 48271, both modulo the Mersenne prime
//! `LIMIT = 2^31 - 1`. All arithmetic is integer.
//!
//! Two speed-ups keep results bit-identical to the pseudo-code:
//! the reduction modulo `2^31 - 1` uses shifts and adds instead of `%`, and
//! [`Powers`] jumps a stream ahead (the k-th draw after seeding is
//! `48271^k * s mod LIMIT`), so draws that the search never uses are never
//! computed and the ones it does use do not wait on each other.

/// The modulus, `2^31 - 1`, also the upper end of the seed space.
pub const LIMIT: u64 = 2_147_483_647;
/// Multiplier of the seeding step.
pub const SEED_MUL: u64 = 16_807;
/// Multiplier of the stream.
pub const STREAM_MUL: u64 = 48_271;

/// `a * b mod LIMIT` for `a, b < 2^31`, by Mersenne reduction.
#[inline(always)]
pub fn mulmod(a: u64, b: u64) -> u64 {
    debug_assert!(a < (1 << 31) && b < (1 << 31));
    let x = a * b;
    // x = hi * 2^31 + lo  ≡  hi + lo  (mod 2^31 - 1); hi + lo < 2^32.
    let r = (x & LIMIT) + (x >> 31);
    // r <= 2 LIMIT only if x is a multiple of LIMIT, impossible for a, b in
    // [1, LIMIT - 1], so one conditional subtraction suffices.
    if r >= LIMIT { r - LIMIT } else { r }
}

/// Maps a draw `v` in `[1, LIMIT - 1]` to `[lo, hi]` exactly as the thesis
/// does: `v * (hi - lo + 1) / LIMIT + lo`, integer division, 64-bit product,
/// for `hi - lo < LIMIT`.
#[inline(always)]
pub fn scale(v: u64, lo: u64, hi: u64) -> u64 {
    debug_assert!(v < LIMIT && hi - lo < LIMIT);
    div_limit(v * (hi - lo + 1)) + lo
}

/// `x / LIMIT` for `x < LIMIT^2`, by shifts and adds (the Mersenne form
/// of the division, cheaper than the multiplication by a reciprocal that
/// `/` compiles to). With `x = q LIMIT + r` (`r < LIMIT`) and `x = q 2^31 +
/// (r - q)`: if `r >= q`, `x >> 31 = q` and `x + q + 1 = q 2^31 + r + 1`,
/// whose top is `q` as `r + 1 < 2^31`; else `x >> 31 = q - 1` and `x + q =
/// q 2^31 + r`, whose top is `q`.
#[inline(always)]
pub fn div_limit(x: u64) -> u64 {
    debug_assert!(x < LIMIT * LIMIT);
    (x + (x >> 31) + 1) >> 31
}

/// The initial state of the stream of a node with this seed.
#[inline(always)]
pub fn seed_state(seed: u64) -> u64 {
    (SEED_MUL * (seed % LIMIT)) % LIMIT
}

/// A Park–Miller stream: the reference, one-draw-at-a-time form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    state: u64,
}

impl Stream {
    /// `seed_stream(seed)`: `state = 16807 * seed mod LIMIT`.
    pub fn new(seed: u64) -> Stream {
        Stream { state: seed_state(seed) }
    }

    /// A stream whose current state is `state` (already seeded).
    pub fn from_state(state: u64) -> Stream {
        Stream { state }
    }

    /// `next(stream)`: `state = 48271 * state mod LIMIT`, returned.
    #[inline(always)]
    pub fn next_draw(&mut self) -> u64 {
        self.state = mulmod(STREAM_MUL, self.state);
        self.state
    }

    /// `range(stream, lo, hi)`.
    #[inline(always)]
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        scale(self.next_draw(), lo, hi)
    }

    /// The current state.
    pub fn state(&self) -> u64 {
        self.state
    }
}

/// Precomputed `48271^k mod LIMIT` for `k = 0..len`: jumping a stream ahead.
#[derive(Clone, Debug)]
pub struct Powers {
    pow: Vec<u64>,
}

impl Powers {
    /// Powers `48271^0 .. 48271^(len-1)`.
    pub fn new(len: usize) -> Powers {
        let mut pow = Vec::with_capacity(len);
        let mut p = 1;
        for _ in 0..len {
            pow.push(p);
            p = mulmod(p, STREAM_MUL);
        }
        Powers { pow }
    }

    /// The state after `k` draws from `state` (the value of the k-th draw).
    #[inline(always)]
    pub fn jump(&self, state: u64, k: usize) -> u64 {
        mulmod(state, self.pow[k])
    }
}

/// The thesis's seed-set recurrence for `tg_1`, as the published values show
/// it: `r_n = (16807 r_(n-1) mod LIMIT) + 1` from `r_0 = 12345678`.
pub fn tg1_recurrence(count: usize) -> Vec<u64> {
    let mut r = 12_345_678u64;
    (0..count)
        .map(|_| {
            r = (SEED_MUL * r) % LIMIT + 1;
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mulmod_matches_plain_modulo() {
        let samples = [1u64, 2, 16807, 48271, 1 << 30, LIMIT - 1, LIMIT - 2, 123456789];
        for &a in &samples {
            for &b in &samples {
                assert_eq!(mulmod(a, b), a * b % LIMIT, "{a} * {b}");
            }
        }
    }

    #[test]
    fn div_limit_is_the_division() {
        let mut edges = vec![0u64, 1, LIMIT - 1, LIMIT, LIMIT + 1, LIMIT * LIMIT - 1, (LIMIT - 1) * LIMIT];
        for q in [1u64, 2, 3, 1 << 20, LIMIT - 2, LIMIT - 1] {
            for r in [0, 1, q - 1, q, q + 1, LIMIT - 2, LIMIT - 1] {
                if r < LIMIT && q * LIMIT + r < LIMIT * LIMIT {
                    edges.push(q * LIMIT + r);
                }
            }
        }
        let mut s = Stream::from_state(12_345);
        for _ in 0..200_000 {
            edges.push(s.next_draw() * s.next_draw());
            edges.push(s.next_draw() * (s.next_draw() % 1000 + 1));
        }
        for x in edges {
            assert_eq!(div_limit(x), x / LIMIT, "{x}");
        }
    }

    #[test]
    fn minimal_standard_check_value() {
        // Park and Miller's published check: with multiplier 16807, seed 1,
        // the 10,000th state is 1043618065. The stream uses 48271; its
        // check value (Park, Miller and Stockmeyer 1993) is 399268537.
        let mut s = Stream::from_state(1);
        let mut v = 0;
        for _ in 0..10_000 {
            v = s.next_draw();
        }
        assert_eq!(v, 399_268_537);
        let mut x = 1u64;
        for _ in 0..10_000 {
            x = mulmod(x, SEED_MUL);
        }
        assert_eq!(x, 1_043_618_065);
    }

    #[test]
    fn jump_equals_stepping() {
        let p = Powers::new(80);
        let mut s = Stream::new(1_335_380_035);
        let start = s.state();
        for k in 1..80 {
            assert_eq!(p.jump(start, k), s.next_draw(), "k = {k}");
        }
    }

    #[test]
    fn range_is_the_thesis_formula() {
        // By hand: v = 1073741823 (LIMIT / 2), [0, 99]: 1073741823*100/2147483647 = 49.
        assert_eq!(scale(1_073_741_823, 0, 99), 49);
        assert_eq!(scale(LIMIT - 1, 0, 99), 99);
        assert_eq!(scale(1, 5, 9), 5);
    }
}
