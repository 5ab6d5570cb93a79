//! Seed sets of the thesis (Appendix A; `docs/model.md` §1.5).
//!
//! `tg1` (100 seeds) drives the f_best, classification and simulation
//! experiments; `tg2` (200 seeds, 9-digit groups of pi) produces the
//! network's training data. Both are compiled into the tools from `data/`, so
//! the binaries work from any directory; a path to any seed file works too.

use crate::cli::Input;
use crate::tree::artificial::{TreeError, check_seed};
use std::collections::HashMap;
use std::path::Path;

/// What is wrong with a seed set.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// A line that is not a number.
    #[error("`{}` is not a seed (a positive integer) ({name}:{line})", crate::cli::excerpt(text))]
    NotANumber {
        /// The set.
        name: String,
        /// 1-based line.
        line: usize,
        /// The line's text.
        text: String,
    },
    /// A number that is not a usable root seed.
    #[error("bad seed ({name}:{line})")]
    BadSeed {
        /// The set.
        name: String,
        /// 1-based line.
        line: usize,
        /// Why.
        source: TreeError,
    },
    /// The same seed twice: the same tree twice, counted twice in every sum.
    #[error("seed {seed} repeats line {first} ({name}:{line}): give each seed once")]
    Repeated {
        /// The set.
        name: String,
        /// 1-based line of the repeat.
        line: usize,
        /// 1-based line of the first.
        first: usize,
        /// The seed.
        seed: u32,
    },
    /// A line that is not UTF-8 text.
    #[error("{why} ({name}:{line})")]
    Line {
        /// The set.
        name: String,
        /// 1-based line.
        line: usize,
        /// What is wrong with it.
        why: crate::cli::LineError,
    },
    /// No seeds at all.
    #[error("seed file {0} holds no seeds")]
    Empty(String),
    /// The file cannot be read.
    #[error("cannot read seed file {path} (use tg1, tg2 or a readable file)")]
    Read {
        /// The path.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

type Result<T> = std::result::Result<T, SeedError>;

const TG1: &str = include_str!("../data/tg1.txt");
const TG2: &str = include_str!("../data/tg2.txt");

/// A named list of root seeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedSet {
    /// `tg1`, `tg2`, or the file's path.
    pub name: String,
    /// The seeds in order.
    pub seeds: Vec<u32>,
}

/// Parses a seed file: one seed a line; blank lines and `#` comments
/// ignored; a byte-order mark at the start is dropped; a seed given twice
/// is refused.
pub fn parse(name: &str, text: &str) -> Result<SeedSet> {
    parse_lines(name, Input::from_string(name, text))
}

fn parse_lines(name: &str, input: Input) -> Result<SeedSet> {
    let mut seeds = vec![];
    let mut seen: HashMap<u32, usize> = HashMap::new();
    for (i, line) in input.numbered_lines() {
        let line = line.map_err(|why| match why {
            crate::cli::LineError::Io(source) => SeedError::Read { path: name.to_string(), source },
            why => SeedError::Line { name: name.to_string(), line: i, why },
        })?;
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let seed: u64 = line.parse().map_err(|_| SeedError::NotANumber { name: name.to_string(), line: i, text: line.to_string() })?;
        let seed = check_seed(seed).map_err(|source| SeedError::BadSeed { name: name.to_string(), line: i, source })?;
        if let Some(&first) = seen.get(&seed) {
            return Err(SeedError::Repeated { name: name.to_string(), line: i, first, seed });
        }
        seen.insert(seed, i);
        seeds.push(seed);
    }
    if seeds.is_empty() {
        return Err(SeedError::Empty(name.to_string()));
    }
    Ok(SeedSet { name: name.to_string(), seeds })
}

/// `tg1`, `tg2`, or a path to a seed file.
pub fn load(set: &str) -> Result<SeedSet> {
    match set {
        "tg1" => parse("tg1", TG1),
        "tg2" => parse("tg2", TG2),
        path => {
            // Line by line, so that text that is not UTF-8 is named by its line.
            let f = std::fs::File::open(Path::new(path)).map_err(|source| SeedError::Read { path: path.to_string(), source })?;
            parse_lines(path, Input { name: path.to_string(), reader: Box::new(std::io::BufReader::new(f)) })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::tg1_recurrence;

    #[test]
    fn tg1_is_the_recurrence_plus_one() {
        let set = load("tg1").unwrap();
        assert_eq!(set.seeds.len(), 100);
        assert_eq!(set.seeds[0], 1_335_380_035);
        let regen: Vec<u32> = tg1_recurrence(100).into_iter().map(|s| s as u32).collect();
        assert_eq!(set.seeds, regen);
    }

    #[test]
    fn tg2_is_pi() {
        let set = load("tg2").unwrap();
        assert_eq!(set.seeds.len(), 200);
        assert_eq!(&set.seeds[..3], &[314_159_265, 358_979_323, 846_264_338]);
    }

    #[test]
    fn bad_seed_files() {
        assert!(matches!(parse("x", "12\nabc\n"), Err(SeedError::NotANumber { line: 2, .. })));
        assert!(matches!(parse("x", "2147483647\n"), Err(SeedError::BadSeed { line: 1, source: TreeError::StuckSeed(2147483647), .. })));
        assert!(matches!(parse("x", "\n# nothing\n"), Err(SeedError::Empty(_))));
        assert!(matches!(load("/nonexistent/seeds.txt"), Err(SeedError::Read { .. })));
    }
}
