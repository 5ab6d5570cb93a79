//! Processes of unequal speed on the simulated cluster (`pabsim --machine
//! cluster --proc-speeds`, `docs/model.md` §9.1).
//!
//! Ura, Tsuruoka and Chikayama's 1,536-core cluster mixed three processor
//! models (their §4.3), and their runs up to 512 cores used the fastest
//! model's nodes only. A [`ProcSpeeds`] gives the machine's ranks in
//! classes, in rank order: `512:1,1024:0.8` is ranks 0–511 at the reference
//! speed and every rank from 512 on at 0.8 of it (the ranks past the listed
//! counts take the last class's speed), as a job fills its nodes in rank
//! order. A process's speed divides its computing time (its searching and
//! the master's passes over its tree); a message's send and receive costs,
//! the network's, are not scaled. Without classes every process has the
//! reference speed and every run is the same as before the option existed.

/// The most classes.
pub const MAX_CLASSES: usize = 4;

/// The reference speed, in millionths.
pub const REFERENCE_PPM: u32 = 1_000_000;

/// Speed classes by rank: `(ranks, speed in millionths of the reference)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcSpeeds {
    classes: [(u32, u32); MAX_CLASSES],
    n: usize,
}

impl ProcSpeeds {
    /// The speed of rank `rank`, in millionths of the reference.
    #[inline]
    pub fn ppm(&self, rank: usize) -> u32 {
        let mut first = 0usize;
        for &(ranks, ppm) in &self.classes[..self.n] {
            first += ranks as usize;
            if rank < first {
                return ppm;
            }
        }
        self.classes[..self.n].last().map_or(REFERENCE_PPM, |c| c.1)
    }

    /// Whether every rank has the reference speed.
    pub fn uniform(&self) -> bool {
        self.classes[..self.n].iter().all(|c| c.1 == REFERENCE_PPM)
    }

    /// The classes, as given.
    pub fn classes(&self) -> &[(u32, u32)] {
        &self.classes[..self.n]
    }

    /// `time` at rank `rank`'s speed (`time` at the reference speed; any
    /// unit): `time` itself at the reference speed; `None` past 2^128.
    #[inline]
    pub fn scale(&self, rank: usize, time: u128) -> Option<u128> {
        match self.ppm(rank) {
            REFERENCE_PPM => Some(time),
            ppm => Some(time.checked_mul(REFERENCE_PPM as u128)? / ppm as u128),
        }
    }
}

impl std::str::FromStr for ProcSpeeds {
    type Err = String;
    /// `RANKS:SPEED[,RANKS:SPEED…]`: up to [`MAX_CLASSES`] classes, each
    /// of 1 or more ranks at a speed from 0.01 to 100 (up to six
    /// decimals; 1 is the reference).
    fn from_str(s: &str) -> Result<ProcSpeeds, String> {
        let what = "RANKS:SPEED classes separated by commas (e.g. 512:1,1024:0.8; a speed from 0.01 to 100, up to six decimals)";
        let mut out = ProcSpeeds::default();
        for part in s.split(',') {
            let (ranks, speed) = part.split_once(':').ok_or_else(|| format!("`{part}` is not RANKS:SPEED: {what}"))?;
            let ranks: u32 = ranks.trim().parse().ok().filter(|&r| r >= 1).ok_or_else(|| format!("`{ranks}` ranks: a whole number >= 1 ({what})"))?;
            let ppm = parse_ppm(speed.trim()).filter(|p| (10_000..=100_000_000).contains(p)).ok_or_else(|| format!("speed `{speed}`: {what}"))?;
            if out.n == MAX_CLASSES {
                return Err(format!("more than {MAX_CLASSES} classes: {what}"));
            }
            out.classes[out.n] = (ranks, ppm);
            out.n += 1;
        }
        Ok(out)
    }
}

/// A decimal with up to six decimals, in millionths.
fn parse_ppm(s: &str) -> Option<u32> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() || frac.len() > 6 || !whole.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) || whole.len() > 3 {
        return None;
    }
    let frac_ppm: u32 = format!("{frac:0<6}").parse().ok()?;
    whole.parse::<u32>().ok()?.checked_mul(REFERENCE_PPM)?.checked_add(frac_ppm)
}

impl std::fmt::Display for ProcSpeeds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.classes().iter().map(|(r, p)| format!("{r}:{}", *p as f64 / REFERENCE_PPM as f64)).collect();
        f.write_str(&parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_take_their_class_in_order_and_the_rest_the_last() {
        let s: ProcSpeeds = "512:1,256:0.8,256:0.75".parse().unwrap();
        assert_eq!([s.ppm(0), s.ppm(511), s.ppm(512), s.ppm(767), s.ppm(768), s.ppm(5000)], [1_000_000, 1_000_000, 800_000, 800_000, 750_000, 750_000]);
        assert!(!s.uniform());
        assert_eq!(s.scale(0, 1_000), Some(1_000));
        assert_eq!(s.scale(600, 1_000), Some(1_250));
        assert_eq!(s.scale(600, u128::MAX / 2), None);
        assert_eq!(s.scale(0, u128::MAX), Some(u128::MAX));
        assert_eq!(s.to_string(), "512:1,256:0.8,256:0.75");
        let none = ProcSpeeds::default();
        assert!(none.uniform() && none.ppm(7) == REFERENCE_PPM && none.scale(3, 17) == Some(17));
        assert!("4:1".parse::<ProcSpeeds>().unwrap().uniform());
    }

    #[test]
    fn bad_classes_are_refused() {
        for bad in ["", "512", "0:1", "x:1", "512:0", "512:0.001", "512:101", "512:1.0000001", "512:-1", "512:1e3", "1:1,1:1,1:1,1:1,1:1", "512:.5"] {
            assert!(bad.parse::<ProcSpeeds>().is_err(), "{bad}");
        }
        assert_eq!("2:0.125".parse::<ProcSpeeds>().unwrap().ppm(0), 125_000);
    }
}
