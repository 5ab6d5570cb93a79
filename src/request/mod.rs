//! What a shared-memory run is asked, whichever machine runs it: the
//! simulated one (`pabsim`, [`crate::sim`]) or this machine's threads
//! (`psearch`, [`crate::real`]). The [`Request`] as the command line gives
//! it (processor or thread counts, algorithms, schemes, parameter ranges
//! as [`IntRange`]s, and the simulated machine's own two options,
//! [`Interleave`] and [`LockKind`]), its expansion into the points of the
//! experiment's grid ([`configurations`], thesis chapter 6), the thesis's
//! best parameters, the network scheme C takes for a group of trees
//! ([`network_for`]), and the `seed` column that names a tree in rows and
//! messages ([`row_seed`], the clusters' rows too). The options that fill
//! a request, shared by both tools, are [`SearchArgs`] (`args.rs`).
//!
//! Then the request run, on each machine: [`sim`] (`pabsim`: many (tree,
//! configuration) items in parallel, shards, and the final per-tree or
//! per-configuration table) and [`real`] (`psearch`: one item at a time on
//! a fresh pool of threads, each checked against the sequential search).
//! They are here, above the policies and both machines, because they name
//! the registry's [`Policy`] that the machines do not (`docs/model.md` §8.3).

mod args;
pub mod real;
pub mod sim;

pub use args::{SearchArgs, parse_algorithms};

pub use crate::sim::engine::{Interleave, LockKind};

use crate::cli::{Reader, refuse_unread};
use crate::macros::{named, require};
use crate::nn::Network;
use crate::policy::{
    ConfigError, DEFAULT_CUT_WIDTH, DEFAULT_M_A, DEFAULT_M_B, DEFAULT_MIN_SPLIT_DEPTH, DEFAULT_PV_WAIT, DEFAULT_SPLIT_GROUP, DEFAULT_STEAL_SEED, Given, Policy,
    PolicyOpt, Scheme, Walk,
};
use crate::tree::artificial::Ordering;
use crate::tree::{Tree, TreeKey as GroupKey};

/// Why a request cannot run.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// A command-line value out of its form or range (the message names the option).
    #[error("{0}")]
    BadArgument(String),
    /// Scheme C without a network for the trees' ordering.
    #[error("{0}")]
    NoNetwork(String),
}

/// A request's result.
pub type Result<T> = std::result::Result<T, RequestError>;

impl From<ConfigError> for RequestError {
    fn from(e: ConfigError) -> RequestError {
        RequestError::BadArgument(e.to_string())
    }
}

/// One point of a request's grid: processors (or threads) and the
/// parallel search (`None` at one: the sequential run).
pub type Point = (usize, Option<Policy>);

named!(Interleave: ConfigError, "interleaving", "access or state", { Access => "access", State => "state" });
named!(LockKind: ConfigError, "lock", "tas or queue", { Tas => "tas", Queue => "queue" });

/// An inclusive integer range of a parameter, checked against its limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntRange {
    /// First value.
    pub lo: i64,
    /// Last value.
    pub hi: i64,
}

impl IntRange {
    /// Parses `V` or `LO..HI` (inclusive) for parameter `name`, whose values
    /// must lie in `min..=max`.
    pub fn parse(text: &str, name: &str, min: i64, max: i64) -> Result<IntRange> {
        let num =
            |x: &str| -> Result<i64> { x.trim().parse().map_err(|_| RequestError::BadArgument(format!("{name}: `{x}` is not an integer (give V or LO..HI)"))) };
        let (lo, hi) = match text.split_once("..") {
            Some((a, b)) => (num(a)?, num(b.trim_start_matches('='))?),
            None => {
                let v = num(text)?;
                (v, v)
            }
        };
        require!(lo <= hi, RequestError::BadArgument, "{name}: empty range {lo}..{hi}");
        require!(lo >= min && hi <= max, RequestError::BadArgument, "{name} must lie in {min}..{max}, got {text}");
        Ok(IntRange { lo, hi })
    }

    /// The values.
    pub fn values(&self) -> impl Iterator<Item = i64> {
        self.lo..=self.hi
    }
}

/// The largest machine.
pub const MAX_PROCS: usize = 1024;

/// The parameters the thesis found best (`docs/model.md` §6): for one
/// ordering and p = 12, 24, 48, `(m_A, m_B, m_Ca, m_Cc)`; and the
/// classification width of §5.5.
pub fn thesis_params(o: Ordering, procs: usize) -> Option<(u32, u32, i32, i32)> {
    let col = match procs {
        12 => 0,
        24 => 1,
        48 => 2,
        _ => return None,
    };
    let t: [(u32, u32, i32, i32); 3] = match (o.b, o.wa, o.wb) {
        (32, 79, 5) => [(4, 6, -1, 3), (5, 5, -1, 3), (2, 1, -5, 3)],
        (20, 69, 19) => [(3, 4, -1, 3), (2, 2, -3, 3), (1, 1, -4, 3)],
        (32, 66, 66) => [(4, 5, 0, 3), (3, 3, 0, 3), (3, 2, -3, 3)],
        (32, 33, 33) => [(6, 7, 0, 1), (6, 5, -1, 1), (3, 2, -3, 1)],
        (32, 0, 0) => [(6, 8, -5, 0), (4, 6, -8, 0), (5, 4, -12, 0)],
        _ => return None,
    };
    Some(t[col])
}

/// The classification width m the thesis found best for an ordering (§5.5).
pub fn thesis_cut_width(o: Ordering) -> Option<u32> {
    match (o.b, o.wa, o.wb) {
        (32, 79, 5) | (20, 69, 19) => Some(10),
        (32, 66, 66) | (32, 0, 0) => Some(20),
        (32, 33, 33) => Some(15),
        _ => None,
    }
}

/// What to run, as the command line asks for it (`Default`: every option
/// unset and no policy; [`Request::new`] is the request that runs).
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Processor counts.
    pub procs: Vec<usize>,
    /// Parallel search algorithms (for p > 1), with their defaults: the
    /// options below fill in their parameters.
    pub algorithms: Vec<Policy>,
    /// Schemes (for p > 1; default a), with their defaults.
    pub schemes: Option<Vec<Scheme>>,
    /// m_A values (default 2).
    pub m_a: Option<IntRange>,
    /// m_B values (default 1).
    pub m_b: Option<IntRange>,
    /// m_Ca values (default 0).
    pub m_ca: Option<IntRange>,
    /// m_Cc values (default 0).
    pub m_cc: Option<IntRange>,
    /// Classification widths (default: the thesis's for the ordering, else 10).
    pub cut_width: Option<IntRange>,
    /// Finished moves a PV node needs in schemes A and B (default 1).
    pub pv_wait: Option<IntRange>,
    /// Use the thesis's parameters for each ordering and processor count.
    pub thesis: bool,
    /// Run only shard `k` (0-based) of `n`.
    pub shard: Option<(usize, usize)>,
    /// When processors interleave.
    pub interleave: Interleave,
    /// How far a split-point search walks (default: the whole tree).
    pub walk: Option<Walk>,
    /// Active splitting's minimum split depths.
    pub min_split_depth: Option<IntRange>,
    /// Active splitting's split groups.
    pub split_group: Option<IntRange>,
    /// Work stealing's seed.
    pub steal_seed: Option<u64>,
    /// How processors wait for locks.
    pub lock: LockKind,
}

impl Request {
    /// A request for `procs` with every other setting at its default.
    pub fn new(procs: Vec<usize>) -> Request {
        Request { procs, algorithms: vec![Policy::default()], ..Request::default() }
    }

    /// The schemes asked for (default a).
    fn schemes(&self) -> Vec<Scheme> {
        self.schemes.clone().unwrap_or(vec![Scheme::default()])
    }

    /// Refuses parameters that no requested algorithm or scheme reads
    /// ([`Request::check_given`] with the request's own options).
    pub fn check_applies(&self) -> Result<()> {
        self.check_given(&self.given())
    }

    /// The request's options, each with whether it was set (those of
    /// [`SearchArgs::given`], less `--weights`: the networks are not part
    /// of a request).
    pub(crate) fn given(&self) -> Vec<(&'static str, bool)> {
        let set = |o: PolicyOpt| match o {
            PolicyOpt::Scheme => self.schemes.is_some(),
            PolicyOpt::MinSplitDepth => self.min_split_depth.is_some(),
            PolicyOpt::SplitGroup => self.split_group.is_some(),
            PolicyOpt::StealSeed => self.steal_seed.is_some(),
            PolicyOpt::MA => self.m_a.is_some(),
            PolicyOpt::MB => self.m_b.is_some(),
            PolicyOpt::MCa => self.m_ca.is_some(),
            PolicyOpt::MCc => self.m_cc.is_some(),
            PolicyOpt::PvWait => self.pv_wait.is_some(),
            PolicyOpt::CutWidth => self.cut_width.is_some(),
            PolicyOpt::SplitWalk => self.walk.is_some(),
            PolicyOpt::ThesisParams => self.thesis,
            PolicyOpt::Weights => false,
        };
        PolicyOpt::ALL.into_iter().filter(|&o| o != PolicyOpt::Weights).map(|o| (o.flag(), set(o))).collect()
    }

    /// Refuses an option of `given` (names, and whether each was given)
    /// that none of the request's algorithms reads ([`Policy::options`]),
    /// nor any of its schemes where an algorithm takes one
    /// ([`Scheme::options`]): one rule for every option of the shared
    /// machine and the real threads, `--m-b` under scheme a as
    /// `--steal-seed` with dts ([`crate::cli::refuse_unread`]).
    pub fn check_given(&self, given: &[(&'static str, bool)]) -> Result<()> {
        require!(!self.algorithms.is_empty(), RequestError::BadArgument, "--algorithm: give at least one algorithm");
        let takes_scheme = self.algorithms.iter().any(|a| a.scheme().is_some());
        let schemes = self.schemes();
        let algorithms = Policy::ALL.iter().map(|a| Reader {
            flag: "--algorithm",
            name: a.name(),
            options: PolicyOpt::flags(a.options()).into(),
            chosen: self.algorithms.iter().any(|p| p.same_kind(a)),
        });
        let scheme_readers = Scheme::ALL.iter().map(|s| Reader {
            flag: PolicyOpt::Scheme.flag(),
            name: s.name(),
            options: PolicyOpt::flags(s.options()).into(),
            chosen: takes_scheme && schemes.iter().any(|c| c.same_kind(s)),
        });
        let readers: Vec<Reader> = algorithms.chain(scheme_readers).collect();
        let names = |v: Vec<&str>| v.join(",");
        let chosen = names(self.algorithms.iter().map(|a| a.name()).collect());
        let run = match takes_scheme {
            true => format!("--algorithm {chosen}, --scheme {}", names(schemes.iter().map(|s| s.name()).collect())),
            false => format!("--algorithm {chosen}, no scheme"),
        };
        refuse_unread(given, &readers, &run).map_err(|e| RequestError::BadArgument(e.to_string()))
    }
}

/// The configurations `req` asks for on trees of `key`: its algorithms, each
/// with every value of its parameters and of its scheme's, at every
/// processor count (the sequential run alone at 1), in row order. Shared
/// by `pabsim`'s plan and `psearch` (real threads), so both expand a
/// request alike.
pub fn configurations(req: &Request, key: &GroupKey) -> Result<Vec<Point>> {
    req.check_applies()?;
    configs_for(req, key)
}

/// The network of `nets` trained for trees of `key` (scheme C needs one per
/// ordering or game; `Network::load_each` refuses two for one).
pub fn network_for(key: &GroupKey, nets: &[Network]) -> Result<usize> {
    require!(!nets.is_empty(), RequestError::NoNetwork, "scheme c needs the network: give --weights FILE (from nntrain)");
    nets.iter().position(|n| n.check_trees(key).is_ok()).ok_or_else(|| {
        let have: Vec<String> = nets.iter().map(|n| n.trained_for.to_string()).collect();
        let trees = match key.ordering() {
            Some(o) => format!("ordering {} {o}", key.family()),
            None => format!("game {}", key.family()),
        };
        RequestError::NoNetwork(format!("scheme c: no --weights for the trees' {trees} (weights given for: {})", have.join("; ")))
    })
}

fn configs_for(req: &Request, key: &GroupKey) -> Result<Vec<Point>> {
    let o = key.ordering();
    let pv_waits = vals(req.pv_wait, DEFAULT_PV_WAIT as i64);
    // The policies' own parameters: the same for every processor count.
    let given = Given {
        walk: req.walk.unwrap_or_default(),
        steal_seed: req.steal_seed.unwrap_or(DEFAULT_STEAL_SEED),
        min_split_depths: vals(req.min_split_depth, DEFAULT_MIN_SPLIT_DEPTH as i64).into_iter().map(|d| d as u32).collect(),
        split_groups: vals(req.split_group, DEFAULT_SPLIT_GROUP as i64).into_iter().map(|g| g as u32).collect(),
    };
    let mut out = vec![];
    for &procs in &req.procs {
        require!((1..=MAX_PROCS).contains(&procs), RequestError::BadArgument, "--procs {procs}: the machine has 1..{MAX_PROCS} processors");
        if procs == 1 {
            out.push((procs, None));
            continue;
        }
        let thesis = if req.thesis {
            Some(o.and_then(|o| thesis_params(o, procs)).ok_or_else(|| {
                RequestError::BadArgument(format!(
                    "--thesis-params: the thesis gives no parameters for {key} trees with {procs} processors (only the five orderings at 12, 24, 48)"
                ))
            })?)
        } else {
            None
        };
        // Every scheme asked for, with every value of its parameters.
        let mut schemes: Vec<Scheme> = vec![];
        for scheme in req.schemes() {
            match scheme {
                Scheme::A { .. } => {
                    let v = thesis.map_or_else(|| vals(req.m_a, DEFAULT_M_A as i64), |t| vec![t.0 as i64]);
                    schemes.extend(v.into_iter().flat_map(|m| pv_waits.iter().map(move |&w| Scheme::A { m_a: m as u32, pv_wait: w as u32 })));
                }
                Scheme::B { .. } => {
                    let v = thesis.map_or_else(|| vals(req.m_b, DEFAULT_M_B as i64), |t| vec![t.1 as i64]);
                    schemes.extend(v.into_iter().flat_map(|m| pv_waits.iter().map(move |&w| Scheme::B { m_b: m as u32, pv_wait: w as u32 })));
                }
                Scheme::C { .. } => {
                    let widths = vals(req.cut_width, o.and_then(thesis_cut_width).unwrap_or(DEFAULT_CUT_WIDTH) as i64);
                    let (cas, ccs) = match thesis {
                        Some(t) => (vec![t.2 as i64], vec![t.3 as i64]),
                        None => (vals(req.m_ca, 0), vals(req.m_cc, 0)),
                    };
                    for &w in &widths {
                        for &ca in &cas {
                            for &cc in &ccs {
                                schemes.push(Scheme::C { m_ca: ca as i32, m_cc: cc as i32, cut_width: w as u32 });
                            }
                        }
                    }
                }
            }
        }
        for &policy in &req.algorithms {
            // The algorithm with each value of its own parameters ...
            let variants = policy.variants(&given);
            // ... and each scheme, where it takes one.
            for a in variants {
                if a.scheme().is_none() {
                    out.push((procs, Some(a)));
                } else {
                    out.extend(schemes.iter().map(|&s| (procs, Some(a.with_scheme(s)))));
                }
            }
        }
    }
    Ok(out)
}

/// The tree columns of a per-tree row of `pabsim` and `psearch`
/// (`docs/formats.md`), made in one place so that the two tools' rows join.
pub struct TreeColumns {
    /// 1-based index in the seed set or position file.
    pub tree: Option<u32>,
    /// [`row_seed`].
    pub seed: Option<u64>,
    /// The tree family.
    pub model: crate::tree::Family,
    /// The branching factor of every tree that has one (incremental trees
    /// too): the report joins the tools' rows by it.
    pub b: Option<u32>,
    /// An artificial tree's ordering weights.
    pub wa: Option<u32>,
    /// (See `wa`.)
    pub wb: Option<u32>,
    /// Search depth.
    pub depth: u32,
}

impl TreeColumns {
    /// `tree`'s columns.
    pub fn of(tree: &Tree) -> TreeColumns {
        let key = tree.key();
        let o = key.ordering();
        TreeColumns {
            tree: Some(tree.index()),
            seed: Some(row_seed(tree)),
            model: key.family(),
            b: key.b(),
            wa: o.map(|o| o.wa),
            wb: o.map(|o| o.wb),
            depth: key.depth(),
        }
    }
}

/// The `seed` column: an artificial tree's root seed; for a game position,
/// a digest of the position (the first 6 bytes of its SHA-256), so that
/// rows of different positions with the same index never match.
pub fn row_seed(tree: &Tree) -> u64 {
    tree.row_seed()
}

/// The values of a range option, or its default alone when not given.
fn vals(r: Option<IntRange>, default: i64) -> Vec<i64> {
    r.map_or(vec![default], |r| r.values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PvSplit;

    /// Ranges parse as `V` or `LO..HI` within their limits; anything else
    /// is refused with the option's name.
    #[test]
    fn ranges_parse_within_their_limits() {
        assert!(matches!(IntRange::parse("5..1", "--m-a", 1, 64), Err(RequestError::BadArgument(m)) if m == "--m-a: empty range 5..1"));
        assert!(matches!(IntRange::parse("0", "--m-a", 1, 64), Err(RequestError::BadArgument(m)) if m == "--m-a must lie in 1..64, got 0"));
        assert_eq!(IntRange::parse("-3..2", "--m-ca", -64, 64).unwrap(), IntRange { lo: -3, hi: 2 });
        assert_eq!(IntRange::parse("4", "--m-b", 1, 64).unwrap().values().collect::<Vec<_>>(), [4]);
    }

    /// The machine's names parse in any case (`--lock TAS`), print in lower
    /// case; an unknown name is the typed error with the name as given.
    #[test]
    fn machine_names_parse_in_any_case_and_print_in_lower_case() {
        for (text, lock) in [("tas", LockKind::Tas), ("QUEUE", LockKind::Queue)] {
            assert_eq!(text.parse::<LockKind>().unwrap(), lock);
            assert_eq!(lock.name(), text.to_ascii_lowercase());
        }
        for (text, interleave) in [("Access", Interleave::Access), ("state", Interleave::State)] {
            assert_eq!(text.parse::<Interleave>().unwrap(), interleave);
            assert_eq!(interleave.name(), text.to_ascii_lowercase());
        }
        let err = "MCS".parse::<LockKind>().unwrap_err();
        assert!(matches!(&err, ConfigError::UnknownName { what: "lock", name, expected: "tas or queue" } if name == "MCS"));
        assert_eq!(err.to_string(), "unknown lock `MCS` (expected tas or queue)");
    }

    /// The options the algorithms and schemes declare are the
    /// options of the command line, spelt alike: a reader's typo, or an
    /// option added to [`SearchArgs`] that no algorithm declares (which the
    /// rule would then never refuse), fails here.
    #[test]
    fn every_option_has_a_reader_and_every_reader_an_option() {
        let declared: std::collections::BTreeSet<&str> =
            Policy::ALL.iter().flat_map(|a| a.options()).chain(Scheme::ALL.iter().flat_map(|s| s.options())).map(|o| o.flag()).collect();
        let options: std::collections::BTreeSet<&str> = SearchArgs::default().given().iter().map(|g| g.0).collect();
        assert_eq!(declared, options);
        let of_request: Vec<&str> = Request::default().given().iter().map(|g| g.0).collect();
        let without_weights: Vec<&str> = SearchArgs::default().given().iter().map(|g| g.0).filter(|&o| o != "--weights").collect();
        assert_eq!(of_request, without_weights);
    }

    /// Processor counts times algorithms times their parameters, in row
    /// order, the sequential run alone at 1; parameters no algorithm takes
    /// are refused.
    #[test]
    fn a_request_expands_into_its_grid() {
        let key =
            crate::tree::TreeKey::Artificial { model: crate::tree::artificial::Model::Exponential, ordering: Ordering::new(4, 50, 50).unwrap(), depth: 4 };
        let mut req = Request::new(vec![1, 3]);
        req.algorithms = vec!["dts".parse().unwrap(), Policy::PvSplit(PvSplit)];
        req.m_a = Some(IntRange { lo: 1, hi: 2 });
        let points = configurations(&req, &key).unwrap();
        let names: Vec<(usize, String)> = points.iter().map(|(p, a)| (*p, a.map_or("-".into(), |a| format!("{} {:?}", a.name(), a.scheme())))).collect();
        assert_eq!(
            names,
            [
                (1, "-".to_string()),
                (3, "dts Some(A { m_a: 1, pv_wait: 1 })".to_string()),
                (3, "dts Some(A { m_a: 2, pv_wait: 1 })".to_string()),
                (3, "pvsplit None".to_string())
            ]
        );
        req.algorithms = vec![Policy::PvSplit(PvSplit)];
        assert_eq!(configurations(&req, &key).unwrap_err().to_string(), "--m-a applies to --scheme a only (this run: --algorithm pvsplit, no scheme)");
        assert!(matches!(network_for(&key, &[]), Err(RequestError::NoNetwork(_))));
    }
}
