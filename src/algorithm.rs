//! What a parallel search is asked to be: one typed configuration of the
//! algorithm (how idle processors find work) and of its split-point scheme
//! (which nodes may be shared), used by the simulator's engine, the runner,
//! `pabsim`'s arguments and rows, and the report (thesis §6.2–6.3 for the
//! DTS-like search and schemes A, B, C; `docs/beyond.md` for the other
//! algorithms).
//!
//! An [`Algorithm`] holds its [`Scheme`] where it takes one (PV splitting
//! has its own rule), so a configuration that cannot run cannot be
//! written. Each has one `Default` (the parameters a user gets without
//! asking) and is parsed from its name (`--policy steal`, `--scheme b`)
//! with those defaults. [`Columns`] is how a configuration is written in a
//! row and read back: the one list of configuration columns
//! ([`Columns::NAMES`]), from which the runner's configuration key and the
//! report's grouping follow.

use crate::macros::row;
use crate::macros::{named, require};
use serde::Serialize;

/// A configuration that cannot be named or read back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// An unknown name for an option.
    #[error("unknown {what} `{name}` (expected {expected})")]
    UnknownName {
        /// Which option.
        what: &'static str,
        /// The name given.
        name: String,
        /// The names it takes.
        expected: &'static str,
    },
    /// Configuration columns that do not describe one configuration.
    #[error("{0}")]
    Columns(String),
}

impl ConfigError {
    /// An unknown name for an option (the error of [`named!`](crate::macros::named)).
    pub(crate) fn unknown_name(what: &'static str, name: &str, expected: &'static str) -> ConfigError {
        ConfigError::UnknownName { what, name: name.to_string(), expected }
    }
}

/// How far the DTS-like search's split-point search walks the allocated
/// tree (breadth-first from the root in both cases, so both pick the same
/// node from the same tree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Walk {
    /// Every allocated node ("it can search through the entire tree").
    #[default]
    Tree,
    /// Stop after the first level that has an eligible node: no deeper node
    /// can be preferred to it.
    Level,
}

named!(Walk: ConfigError, "split-point walk", "tree or level", { Tree => "tree", Level => "level" });

/// Finished moves a PV node needs in schemes A and B unless told otherwise:
/// YBWC's and DTS's rule, the first move of a PV node is searched alone.
pub const DEFAULT_PV_WAIT: u32 = 1;
/// Scheme A's m_A unless given.
pub const DEFAULT_M_A: u32 = 2;
/// Scheme B's m_B unless given.
pub const DEFAULT_M_B: u32 = 1;
/// Scheme C's classification width unless given (and unless the thesis
/// gives one for the ordering).
pub const DEFAULT_CUT_WIDTH: u32 = 10;
/// Active splitting's minimum split depth unless given.
pub const DEFAULT_MIN_SPLIT_DEPTH: u32 = 2;
/// Active splitting's split group unless given.
pub const DEFAULT_SPLIT_GROUP: u32 = 8;
/// Work stealing's seed unless given.
pub const DEFAULT_STEAL_SEED: u64 = 1;

/// An option of the shared-memory searches' algorithms and schemes
/// (`pabsim --machine shared`, `psearch`), spelled once: what an algorithm
/// or a scheme reads ([`Algorithm::options`], [`Scheme::options`]), what
/// the command line and the request say was given
/// (`crate::request::SearchArgs::given`, `Request::check_applies`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SearchOpt {
    /// `--scheme`.
    Scheme,
    /// `--min-split-depth`.
    MinSplitDepth,
    /// `--split-group`.
    SplitGroup,
    /// `--steal-seed`.
    StealSeed,
    /// `--m-a`.
    MA,
    /// `--m-b`.
    MB,
    /// `--m-ca`.
    MCa,
    /// `--m-cc`.
    MCc,
    /// `--pv-wait`.
    PvWait,
    /// `--cut-width`.
    CutWidth,
    /// `--split-walk`.
    SplitWalk,
    /// `--thesis-params`.
    ThesisParams,
    /// `--weights` (read by scheme C; the networks are not part of a request).
    Weights,
}

impl SearchOpt {
    /// Every option, in the order of `--help`.
    pub const ALL: [SearchOpt; 13] = [
        SearchOpt::Scheme,
        SearchOpt::MinSplitDepth,
        SearchOpt::SplitGroup,
        SearchOpt::StealSeed,
        SearchOpt::MA,
        SearchOpt::MB,
        SearchOpt::MCa,
        SearchOpt::MCc,
        SearchOpt::PvWait,
        SearchOpt::CutWidth,
        SearchOpt::SplitWalk,
        SearchOpt::ThesisParams,
        SearchOpt::Weights,
    ];

    /// Its spelling on the command line.
    pub const fn flag(self) -> &'static str {
        match self {
            SearchOpt::Scheme => "--scheme",
            SearchOpt::MinSplitDepth => "--min-split-depth",
            SearchOpt::SplitGroup => "--split-group",
            SearchOpt::StealSeed => "--steal-seed",
            SearchOpt::MA => "--m-a",
            SearchOpt::MB => "--m-b",
            SearchOpt::MCa => "--m-ca",
            SearchOpt::MCc => "--m-cc",
            SearchOpt::PvWait => "--pv-wait",
            SearchOpt::CutWidth => "--cut-width",
            SearchOpt::SplitWalk => "--split-walk",
            SearchOpt::ThesisParams => "--thesis-params",
            SearchOpt::Weights => "--weights",
        }
    }

    /// The flags of `opts`.
    pub fn flags(opts: &[SearchOpt]) -> Vec<&'static str> {
        opts.iter().map(|o| o.flag()).collect()
    }
}

/// A parameter's option and its limits: `(option, min, max)`.
pub type Limits = (&'static str, i64, i64);
/// Limits of m_A.
pub const LIMITS_M_A: Limits = (SearchOpt::MA.flag(), 1, 64);
/// Limits of m_B.
pub const LIMITS_M_B: Limits = (SearchOpt::MB.flag(), 1, 64);
/// Limits of m_Ca.
pub const LIMITS_M_CA: Limits = (SearchOpt::MCa.flag(), -64, 64);
/// Limits of m_Cc.
pub const LIMITS_M_CC: Limits = (SearchOpt::MCc.flag(), 0, 64);
/// Limits of the finished moves a PV node needs in schemes A and B.
pub const LIMITS_PV_WAIT: Limits = (SearchOpt::PvWait.flag(), 0, 64);
/// Limits of the classification width.
pub const LIMITS_CUT_WIDTH: Limits = (SearchOpt::CutWidth.flag(), 0, 50);
/// Limits of active splitting's minimum split depth.
pub const LIMITS_MIN_SPLIT_DEPTH: Limits = (SearchOpt::MinSplitDepth.flag(), 1, 64);
/// Limits of active splitting's split group.
pub const LIMITS_SPLIT_GROUP: Limits = (SearchOpt::SplitGroup.flag(), 2, 1024);

/// A split-point scheme and its parameters (thesis §6.3; `docs/model.md`
/// §5.4). The rules themselves are in [`crate::schemes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// YBWC's strong node types.
    A {
        /// Finished moves a Y-CUT node needs.
        m_a: u32,
        /// Finished moves a PV node needs.
        pv_wait: u32,
    },
    /// DTS's node types with a confidence value.
    B {
        /// Finished moves that turn a D-CUT node into D-ALL.
        m_b: u32,
        /// Finished moves a PV node needs.
        pv_wait: u32,
    },
    /// Types and waits from the neural network.
    C {
        /// Added to the network's wait.
        m_ca: i32,
        /// Added again at N-CUT nodes.
        m_cc: i32,
        /// The classification width m.
        cut_width: u32,
    },
}

impl Default for Scheme {
    /// Scheme A with its defaults.
    fn default() -> Scheme {
        Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT }
    }
}

impl Scheme {
    /// Every scheme with its defaults, in the order of the thesis.
    pub const ALL: [Scheme; 3] = [
        Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT },
        Scheme::B { m_b: DEFAULT_M_B, pv_wait: DEFAULT_PV_WAIT },
        Scheme::C { m_ca: 0, m_cc: 0, cut_width: DEFAULT_CUT_WIDTH },
    ];

    /// The name in rows and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Scheme::A { .. } => "a",
            Scheme::B { .. } => "b",
            Scheme::C { .. } => "c",
        }
    }

    /// Whether `other` is the same scheme (whatever its parameters).
    pub fn same_kind(&self, other: &Scheme) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// The options the scheme reads: an option no chosen scheme (of an
    /// algorithm that takes one) or algorithm reads is refused
    /// ([`crate::request::Request::check_given`]).
    pub fn options(&self) -> &'static [SearchOpt] {
        match self {
            Scheme::A { .. } => &[SearchOpt::MA, SearchOpt::PvWait, SearchOpt::ThesisParams],
            Scheme::B { .. } => &[SearchOpt::MB, SearchOpt::PvWait, SearchOpt::ThesisParams],
            Scheme::C { .. } => &[SearchOpt::MCa, SearchOpt::MCc, SearchOpt::CutWidth, SearchOpt::Weights, SearchOpt::ThesisParams],
        }
    }
}

impl std::str::FromStr for Scheme {
    type Err = ConfigError;
    /// `a`, `b` or `c` in any case, with the scheme's defaults.
    fn from_str(s: &str) -> Result<Scheme, ConfigError> {
        let lower = s.to_ascii_lowercase();
        Scheme::ALL.into_iter().find(|k| k.name() == lower).ok_or_else(|| ConfigError::unknown_name("scheme", s, "a, b or c"))
    }
}

/// A parallel search algorithm: how idle processors find work, and the
/// scheme that says which nodes they may share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// The thesis's DTS-like search: a global split-point variable under a
    /// lock, refilled by a split-point search of the allocated tree when it
    /// no longer holds a valid node (thesis Figure 6.12).
    Dts {
        /// Which nodes may be split points.
        scheme: Scheme,
        /// How far a split-point search walks.
        walk: Walk,
    },
    /// PV splitting (Marsland and Popowich): one processor goes down the
    /// principal variation; at each PV node, once its first move is
    /// searched, the node is published and every processor takes its
    /// remaining moves; a processor with nothing left waits (for the next
    /// publication) rather than look for work elsewhere.
    PvSplit,
    /// YBWC with work stealing (Feldmann): an idle processor asks a victim
    /// chosen at random (ChaCha8, this seed and the processor's number) for
    /// work; the victim answers at its next node with the highest eligible
    /// node of its own part of the tree, or with "no work".
    Steal {
        /// Which nodes may be offered.
        scheme: Scheme,
        /// Seed of the victims' choice.
        seed: u64,
    },
    /// Active splitting as in engines (Crafty, Stockfish before 2014): a
    /// processor at an eligible node with at least `min_split_depth` plies
    /// left below it recruits idle processors (at most one per move left
    /// beyond its own, and at most `split_group` processors at the node in
    /// all), which wait to be recruited.
    Active {
        /// Which nodes may be split.
        scheme: Scheme,
        /// Plies a node needs below it to be split.
        min_split_depth: u32,
        /// Most processors working at one split point (Crafty's split group).
        split_group: u32,
    },
    /// Lazy SMP as in engines today (Stockfish): every thread searches the
    /// whole tree from the root, sharing only a lock-free transposition
    /// table; helpers take the moves of shallow nodes in rotated orders.
    /// Real threads only (`psearch`): the simulated machine has no shared
    /// transposition table ([`LAZY_SMP_REAL_ONLY`]).
    LazySmp,
}

/// Why the simulator refuses Lazy SMP: the one line `pabsim` prints.
pub const LAZY_SMP_REAL_ONLY: &str = "lazy-smp runs on real threads only (psearch): the simulated machine has no shared transposition table";

impl Default for Algorithm {
    /// The thesis's search with scheme A and the whole-tree walk.
    fn default() -> Algorithm {
        Algorithm::Dts { scheme: Scheme::default(), walk: Walk::default() }
    }
}

impl Algorithm {
    /// Every algorithm with its defaults, in the order of the experiment's
    /// tables (Lazy SMP last: real threads only).
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Dts { scheme: Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT }, walk: Walk::Tree },
        Algorithm::PvSplit,
        Algorithm::Steal { scheme: Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT }, seed: DEFAULT_STEAL_SEED },
        Algorithm::Active {
            scheme: Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT },
            min_split_depth: DEFAULT_MIN_SPLIT_DEPTH,
            split_group: DEFAULT_SPLIT_GROUP,
        },
        Algorithm::LazySmp,
    ];

    /// The names [`FromStr`](std::str::FromStr) takes, for messages.
    pub const EXPECTED: &'static str = "dts, pvsplit, steal, active or lazy-smp";

    /// The name in rows and on the command line (`--policy`).
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Dts { .. } => "dts",
            Algorithm::PvSplit => "pvsplit",
            Algorithm::Steal { .. } => "steal",
            Algorithm::Active { .. } => "active",
            Algorithm::LazySmp => "lazy-smp",
        }
    }

    /// The scheme, for the algorithms that take one.
    pub fn scheme(&self) -> Option<Scheme> {
        match *self {
            Algorithm::Dts { scheme, .. } | Algorithm::Steal { scheme, .. } | Algorithm::Active { scheme, .. } => Some(scheme),
            Algorithm::PvSplit | Algorithm::LazySmp => None,
        }
    }

    /// The same algorithm with `scheme` (no change for PV splitting and Lazy SMP).
    pub fn with_scheme(self, s: Scheme) -> Algorithm {
        match self {
            Algorithm::Dts { walk, .. } => Algorithm::Dts { scheme: s, walk },
            Algorithm::Steal { seed, .. } => Algorithm::Steal { scheme: s, seed },
            Algorithm::Active { min_split_depth, split_group, .. } => Algorithm::Active { scheme: s, min_split_depth, split_group },
            Algorithm::PvSplit => Algorithm::PvSplit,
            Algorithm::LazySmp => Algorithm::LazySmp,
        }
    }

    /// Whether `other` is the same algorithm (whatever its parameters).
    pub fn same_kind(&self, other: &Algorithm) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// The options the algorithm reads itself (its scheme's are
    /// [`Scheme::options`]): an option no chosen algorithm or scheme
    /// reads is refused ([`crate::request::Request::check_given`]).
    pub fn options(&self) -> &'static [SearchOpt] {
        match self {
            Algorithm::Dts { .. } => &[SearchOpt::Scheme, SearchOpt::SplitWalk],
            Algorithm::PvSplit | Algorithm::LazySmp => &[],
            Algorithm::Steal { .. } => &[SearchOpt::Scheme, SearchOpt::StealSeed],
            Algorithm::Active { .. } => &[SearchOpt::Scheme, SearchOpt::MinSplitDepth, SearchOpt::SplitGroup],
        }
    }
}

impl std::str::FromStr for Algorithm {
    type Err = ConfigError;
    /// A name of [`Algorithm::EXPECTED`] in any case, with the algorithm's defaults.
    fn from_str(s: &str) -> Result<Algorithm, ConfigError> {
        let lower = s.to_ascii_lowercase();
        Algorithm::ALL.into_iter().find(|a| a.name() == lower).ok_or_else(|| ConfigError::unknown_name("policy", s, Algorithm::EXPECTED))
    }
}

row! {
    /// A configuration as the columns of a row (`pabsim`'s rows; `-` or empty
    /// where a column does not apply). Written by [`Columns::of`], read back by
    /// [`Columns::algorithm`]; the field names are the column names.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
    pub struct Columns {
        ..algorithm,
    }
}

impl Columns {
    /// The column names, as the fields of [`Columns`] (a test holds them equal).
    pub const NAMES: [&'static str; 12] =
        ["policy", "scheme", "m_a", "m_b", "m_ca", "m_cc", "cut_width", "pv_wait", "split_walk", "min_split_depth", "split_group", "steal_seed"];

    /// The columns of `algorithm`, or of the sequential run (`None`).
    pub fn of(algorithm: Option<&Algorithm>) -> Columns {
        let mut c = Columns {
            policy: "-".into(),
            scheme: "-".into(),
            // The sequential run has no split-point search; its rows have
            // always said `tree`, the default.
            split_walk: Walk::Tree.name().into(),
            ..Columns::default()
        };
        let Some(a) = algorithm else { return c };
        c.policy = a.name().into();
        c.split_walk = "-".into();
        match *a {
            Algorithm::Dts { walk, .. } => c.split_walk = walk.name().into(),
            Algorithm::PvSplit | Algorithm::LazySmp => {}
            Algorithm::Steal { seed, .. } => c.steal_seed = Some(seed),
            Algorithm::Active { min_split_depth, split_group, .. } => {
                c.min_split_depth = Some(min_split_depth);
                c.split_group = Some(split_group);
            }
        }
        if let Some(s) = a.scheme() {
            c.scheme = s.name().into();
            match s {
                Scheme::A { m_a, pv_wait } => (c.m_a, c.pv_wait) = (Some(m_a), Some(pv_wait)),
                Scheme::B { m_b, pv_wait } => (c.m_b, c.pv_wait) = (Some(m_b), Some(pv_wait)),
                Scheme::C { m_ca, m_cc, cut_width } => (c.m_ca, c.m_cc, c.cut_width) = (Some(m_ca), Some(m_cc), Some(cut_width)),
            }
        }
        c
    }

    /// The configuration these columns describe (`None`: the sequential
    /// run). Refuses columns that [`Columns::of`] would not write, naming
    /// the first that is out of place. Rows written before a column existed
    /// read it as its default (`policy` `-` with a scheme is the thesis's
    /// search; no `pv_wait` is 1).
    pub fn algorithm(&self) -> Result<Option<Algorithm>, ConfigError> {
        let bad = |what: &str| ConfigError::Columns(format!("configuration columns do not describe one configuration: {what}"));
        let need = |v: Option<u32>, name: &str| v.ok_or_else(|| bad(&format!("scheme {} without {name}", self.scheme)));
        let scheme = match self.scheme.as_str() {
            "-" => None,
            name => Some(match name.parse::<Scheme>()? {
                Scheme::A { .. } => Scheme::A { m_a: need(self.m_a, "m_a")?, pv_wait: self.pv_wait.unwrap_or(DEFAULT_PV_WAIT) },
                Scheme::B { .. } => Scheme::B { m_b: need(self.m_b, "m_b")?, pv_wait: self.pv_wait.unwrap_or(DEFAULT_PV_WAIT) },
                Scheme::C { .. } => Scheme::C {
                    m_ca: self.m_ca.ok_or_else(|| bad("scheme c without m_ca"))?,
                    m_cc: self.m_cc.ok_or_else(|| bad("scheme c without m_cc"))?,
                    cut_width: need(self.cut_width, "cut_width")?,
                },
            }),
        };
        let policy = match (self.policy.as_str(), scheme) {
            ("-", None) => None,
            // Rows from before the policy column: the thesis's search.
            ("-", Some(_)) => Some(Algorithm::default()),
            (name, _) => Some(name.parse::<Algorithm>()?),
        };
        let walk = || self.split_walk.parse::<Walk>();
        let a = match policy {
            None => None,
            Some(Algorithm::Dts { .. }) => Some(Algorithm::Dts { scheme: scheme.ok_or_else(|| bad("policy dts without a scheme"))?, walk: walk()? }),
            Some(Algorithm::PvSplit) => Some(Algorithm::PvSplit),
            Some(Algorithm::LazySmp) => Some(Algorithm::LazySmp),
            Some(Algorithm::Steal { .. }) => Some(Algorithm::Steal {
                scheme: scheme.ok_or_else(|| bad("policy steal without a scheme"))?,
                seed: self.steal_seed.ok_or_else(|| bad("policy steal without steal_seed"))?,
            }),
            Some(Algorithm::Active { .. }) => Some(Algorithm::Active {
                scheme: scheme.ok_or_else(|| bad("policy active without a scheme"))?,
                min_split_depth: self.min_split_depth.ok_or_else(|| bad("policy active without min_split_depth"))?,
                split_group: self.split_group.ok_or_else(|| bad("policy active without split_group"))?,
            }),
        };
        // Read back, the configuration must write these very columns (up to
        // the defaults of columns older rows lack).
        let mut again = Columns::of(a.as_ref());
        if self.pv_wait.is_none() {
            again.pv_wait = None;
        }
        if self.policy == "-" {
            again.policy = "-".into();
        }
        // The sequential run's walk is never used: older rows wrote the one asked for.
        if a.is_none() {
            walk()?;
            again.split_walk = self.split_walk.clone();
        }
        require!(again == *self, ConfigError::Columns, "configuration columns do not describe one configuration: {self:?} (expected {again:?})");
        Ok(a)
    }
}

/// The [`Columns`] of a row that holds them among its own (`pabsim`'s
/// `SimRow`, `psearch`'s `RealRow`, whose column orders differ), read back
/// field by field: `columns_of!(row)`.
macro_rules! columns_of {
    ($row:expr) => {{
        let r = $row;
        $crate::algorithm::Columns {
            policy: r.policy.clone(),
            scheme: r.scheme.clone(),
            m_a: r.m_a,
            m_b: r.m_b,
            m_ca: r.m_ca,
            m_cc: r.m_cc,
            cut_width: r.cut_width,
            pv_wait: r.pv_wait,
            split_walk: r.split_walk.clone(),
            min_split_depth: r.min_split_depth,
            split_group: r.split_group,
            steal_seed: r.steal_seed,
        }
    }};
}
pub(crate) use columns_of;

#[cfg(test)]
mod tests {
    use super::*;

    fn every_configuration() -> Vec<Option<Algorithm>> {
        let schemes = [Scheme::A { m_a: 3, pv_wait: 0 }, Scheme::B { m_b: 5, pv_wait: 1 }, Scheme::C { m_ca: -4, m_cc: 3, cut_width: 15 }];
        let mut all = vec![None, Some(Algorithm::PvSplit), Some(Algorithm::LazySmp)];
        for s in schemes {
            all.push(Some(Algorithm::Dts { scheme: s, walk: Walk::Level }));
            all.push(Some(Algorithm::Dts { scheme: s, walk: Walk::Tree }));
            all.push(Some(Algorithm::Steal { scheme: s, seed: 7 }));
            all.push(Some(Algorithm::Active { scheme: s, min_split_depth: 3, split_group: 4 }));
        }
        all
    }

    /// Every configuration is read back from its columns as itself; and
    /// every column of [`Columns::NAMES`] is written by some configuration,
    /// and no other: a field added to a configuration but forgotten in the
    /// columns fails here.
    #[test]
    fn every_configuration_reads_back_from_its_columns() {
        let all = every_configuration();
        for a in &all {
            assert_eq!(Columns::of(a.as_ref()).algorithm(), Ok(*a), "{a:?}");
        }
        let fields: Vec<String> = match serde_json::to_value(Columns::of(None)) {
            Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
            other => panic!("{other:?}"),
        };
        let mut names: Vec<String> = Columns::NAMES.iter().map(|s| s.to_string()).collect();
        let mut sorted = fields.clone();
        sorted.sort();
        names.sort();
        assert_eq!(sorted, names);
        // Each column tells some two configurations apart.
        let json: Vec<serde_json::Value> = all.iter().map(|a| serde_json::to_value(Columns::of(a.as_ref())).unwrap()).collect();
        for f in &fields {
            assert!(json.iter().any(|j| j[f] != json[0][f]), "column {f} is the same for every configuration");
        }
    }

    /// Names parse in any case with the defaults; unknown names and columns
    /// out of place are refused with what is wrong.
    #[test]
    fn names_parse_with_defaults_and_bad_columns_are_refused() {
        assert_eq!("STEAL".parse::<Algorithm>(), Ok(Algorithm::Steal { scheme: Scheme::A { m_a: 2, pv_wait: 1 }, seed: 1 }));
        assert_eq!("b".parse::<Scheme>(), Ok(Scheme::B { m_b: 1, pv_wait: 1 }));
        assert_eq!("C".parse::<Scheme>(), Ok(Scheme::C { m_ca: 0, m_cc: 0, cut_width: 10 }));
        assert_eq!("LEVEL".parse::<Walk>(), Ok(Walk::Level));
        assert_eq!("ybwc".parse::<Algorithm>().unwrap_err().to_string(), "unknown policy `ybwc` (expected dts, pvsplit, steal, active or lazy-smp)");
        assert_eq!("Lazy-SMP".parse::<Algorithm>(), Ok(Algorithm::LazySmp));
        assert_eq!("Z".parse::<Scheme>().unwrap_err().to_string(), "unknown scheme `Z` (expected a, b or c)");
        assert_eq!("spiral".parse::<Walk>().unwrap_err().to_string(), "unknown split-point walk `spiral` (expected tree or level)");
        let mut c = Columns::of(Some(&Algorithm::default()));
        c.m_b = Some(3);
        assert!(matches!(c.algorithm(), Err(ConfigError::Columns(m)) if m.contains("m_b: Some(3)")));
        let mut c = Columns::of(Some(&Algorithm::PvSplit));
        c.steal_seed = Some(1);
        assert!(c.algorithm().is_err());
        let mut c = Columns::of(Some(&"steal".parse().unwrap()));
        c.steal_seed = None;
        assert_eq!(c.algorithm().unwrap_err().to_string(), "configuration columns do not describe one configuration: policy steal without steal_seed");
        // Rows from before the policy and pv_wait columns: the thesis's search.
        let mut old = Columns::of(Some(&Algorithm::Dts { scheme: Scheme::B { m_b: 2, pv_wait: 1 }, walk: Walk::Tree }));
        old.policy = "-".into();
        old.pv_wait = None;
        assert_eq!(old.algorithm(), Ok(Some(Algorithm::Dts { scheme: Scheme::B { m_b: 2, pv_wait: 1 }, walk: Walk::Tree })));
    }
}
