//! The parameters of the shared-memory searches: what every idle policy's
//! configuration shares (thesis §6.3 for schemes
//! A, B, C): the split-point [`Scheme`] a policy holds where it takes one
//! (PV splitting has its own rule), so a configuration that cannot run
//! cannot be written; the DTS-like search's split-point [`Walk`]; the
//! options policies and schemes read ([`PolicyOpt`]) with their defaults
//! and limits; and [`Columns`], how a configuration is written in a row
//! and read back: the one list of configuration columns
//! ([`Columns::NAMES`]), from which the runner's configuration key and the
//! report's grouping follow. Each has one `Default` (the parameters a user
//! gets without asking) and is parsed from its name (`--scheme b`) with
//! those defaults. The policies themselves, and how a configuration becomes
//! its columns and is read back from them ([`Columns::of`],
//! [`Columns::read`]), are [`crate::policy`]'s: this module sits below both
//! machines, which name these parameters, and below the policies, which
//! name the machines.

use crate::macros::named;
use crate::macros::row;
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

/// An option of the shared-memory policies and their schemes (`pabsim
/// --machine shared`, `psearch`), spelled once: what a policy or a scheme
/// reads ([`Policy::options`](crate::policy::Policy::options), [`Scheme::options`]), what the command line
/// and the request say was given (`crate::request::SearchArgs::given`,
/// `Request::check_applies`). The cluster's algorithms declare theirs as
/// `cluster::algorithm::Opt` constants: those are single typed values,
/// these ranges and lists that a run multiplies out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PolicyOpt {
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

impl PolicyOpt {
    /// Every option, in the order of `--help`.
    pub const ALL: [PolicyOpt; 13] = [
        PolicyOpt::Scheme,
        PolicyOpt::MinSplitDepth,
        PolicyOpt::SplitGroup,
        PolicyOpt::StealSeed,
        PolicyOpt::MA,
        PolicyOpt::MB,
        PolicyOpt::MCa,
        PolicyOpt::MCc,
        PolicyOpt::PvWait,
        PolicyOpt::CutWidth,
        PolicyOpt::SplitWalk,
        PolicyOpt::ThesisParams,
        PolicyOpt::Weights,
    ];

    /// Its spelling on the command line.
    pub const fn flag(self) -> &'static str {
        match self {
            PolicyOpt::Scheme => "--scheme",
            PolicyOpt::MinSplitDepth => "--min-split-depth",
            PolicyOpt::SplitGroup => "--split-group",
            PolicyOpt::StealSeed => "--steal-seed",
            PolicyOpt::MA => "--m-a",
            PolicyOpt::MB => "--m-b",
            PolicyOpt::MCa => "--m-ca",
            PolicyOpt::MCc => "--m-cc",
            PolicyOpt::PvWait => "--pv-wait",
            PolicyOpt::CutWidth => "--cut-width",
            PolicyOpt::SplitWalk => "--split-walk",
            PolicyOpt::ThesisParams => "--thesis-params",
            PolicyOpt::Weights => "--weights",
        }
    }

    /// The flags of `opts`.
    pub fn flags(opts: &[PolicyOpt]) -> Vec<&'static str> {
        opts.iter().map(|o| o.flag()).collect()
    }
}

/// The values of the policies' own parameters that a request gives (each
/// policy's defaults where it gives none): what
/// [`IdlePolicy::variants`](crate::policy::IdlePolicy::variants) multiplies a
/// policy by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Given {
    /// `--split-walk`.
    pub walk: Walk,
    /// `--steal-seed`.
    pub steal_seed: u64,
    /// `--min-split-depth`, every value of its range.
    pub min_split_depths: Vec<u32>,
    /// `--split-group`, every value of its range.
    pub split_groups: Vec<u32>,
}

/// A parameter's option and its limits: `(option, min, max)`.
pub type Limits = (&'static str, i64, i64);
/// Limits of m_A.
pub const LIMITS_M_A: Limits = (PolicyOpt::MA.flag(), 1, 64);
/// Limits of m_B.
pub const LIMITS_M_B: Limits = (PolicyOpt::MB.flag(), 1, 64);
/// Limits of m_Ca.
pub const LIMITS_M_CA: Limits = (PolicyOpt::MCa.flag(), -64, 64);
/// Limits of m_Cc.
pub const LIMITS_M_CC: Limits = (PolicyOpt::MCc.flag(), 0, 64);
/// Limits of the finished moves a PV node needs in schemes A and B.
pub const LIMITS_PV_WAIT: Limits = (PolicyOpt::PvWait.flag(), 0, 64);
/// Limits of the classification width.
pub const LIMITS_CUT_WIDTH: Limits = (PolicyOpt::CutWidth.flag(), 0, 50);
/// Limits of active splitting's minimum split depth.
pub const LIMITS_MIN_SPLIT_DEPTH: Limits = (PolicyOpt::MinSplitDepth.flag(), 1, 64);
/// Limits of active splitting's split group.
pub const LIMITS_SPLIT_GROUP: Limits = (PolicyOpt::SplitGroup.flag(), 2, 1024);

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
    pub fn options(&self) -> &'static [PolicyOpt] {
        match self {
            Scheme::A { .. } => &[PolicyOpt::MA, PolicyOpt::PvWait, PolicyOpt::ThesisParams],
            Scheme::B { .. } => &[PolicyOpt::MB, PolicyOpt::PvWait, PolicyOpt::ThesisParams],
            Scheme::C { .. } => &[PolicyOpt::MCa, PolicyOpt::MCc, PolicyOpt::CutWidth, PolicyOpt::Weights, PolicyOpt::ThesisParams],
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

row! {
    /// A configuration as the columns of a row (`pabsim`'s rows; `-` or empty
    /// where a column does not apply). Written by [`Columns::of`], read back by
    /// [`Columns::read`]; the field names are the column names.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
    pub struct Columns {
        ..policy,
    }
}

impl Columns {
    /// The column names, as the fields of [`Columns`] (a test holds them equal).
    pub const NAMES: [&'static str; 12] =
        ["policy", "scheme", "m_a", "m_b", "m_ca", "m_cc", "cut_width", "pv_wait", "split_walk", "min_split_depth", "split_group", "steal_seed"];

    /// Columns that do not describe one configuration, and `what` is wrong.
    pub(crate) fn bad(what: &str) -> ConfigError {
        ConfigError::Columns(format!("configuration columns do not describe one configuration: {what}"))
    }
}

/// The [`Columns`] of a row that holds them among its own (`pabsim`'s
/// `SimRow`, `psearch`'s `RealRow`, whose column orders differ), read back
/// field by field: `columns_of!(row)`.
macro_rules! columns_of {
    ($row:expr) => {{
        let r = $row;
        $crate::params::Columns {
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
