//! Active splitting as in engines (Crafty, Stockfish before 2014; an
//! alternative to the thesis's idle loop of §6.2, `docs/beyond.md`): idle
//! processors or threads put themselves in an idle set and wait in their
//! own mailbox. One at a node that the scheme makes eligible, with at
//! least `min_split_depth` plies below it, recruits idle ones there: at
//! most one per move left beyond the one it takes, and at most
//! `split_group` at one node in all (its first included).

use super::{Columns, ConfigError, DEFAULT_M_A, DEFAULT_MIN_SPLIT_DEPTH, DEFAULT_PV_WAIT, DEFAULT_SPLIT_GROUP, Given, IdlePolicy, PolicyOpt, Scheme};

/// Active splitting: `scheme` says which nodes may be split, and its two
/// parameters how deep and how wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Active {
    /// Which nodes may be split.
    pub scheme: Scheme,
    /// Plies a node needs below it to be split.
    pub min_split_depth: u32,
    /// Most processors or threads working at one split point, its first
    /// included (Crafty's split group).
    pub split_group: u32,
}

impl IdlePolicy for Active {
    const DEFAULT: Active =
        Active { scheme: Scheme::A { m_a: DEFAULT_M_A, pv_wait: DEFAULT_PV_WAIT }, min_split_depth: DEFAULT_MIN_SPLIT_DEPTH, split_group: DEFAULT_SPLIT_GROUP };

    const NAME: &'static str = "active";

    const ABOUT_SIMULATED: &'static str =
        "active splitting: a processor at an eligible node with --min-split-depth plies left recruits the idle processors (--scheme)";

    const ABOUT_REAL: &'static str = "active splitting: a thread at an eligible node with --min-split-depth plies left recruits the idle threads (--scheme)";

    fn reads(&self) -> &'static [PolicyOpt] {
        &[PolicyOpt::Scheme, PolicyOpt::MinSplitDepth, PolicyOpt::SplitGroup]
    }

    fn scheme(&self) -> Option<Scheme> {
        Some(self.scheme)
    }

    fn with_scheme(self, scheme: Scheme) -> Active {
        Active { scheme, ..self }
    }

    fn write(&self, c: &mut Columns) {
        c.min_split_depth = Some(self.min_split_depth);
        c.split_group = Some(self.split_group);
    }

    fn read(c: &Columns, scheme: Option<Scheme>) -> Result<Active, ConfigError> {
        Ok(Active {
            scheme: scheme.ok_or_else(|| Columns::bad("policy active without a scheme"))?,
            min_split_depth: c.min_split_depth.ok_or_else(|| Columns::bad("policy active without min_split_depth"))?,
            split_group: c.split_group.ok_or_else(|| Columns::bad("policy active without split_group"))?,
        })
    }

    /// Every minimum split depth by every split group the request gives.
    fn variants(self, given: &Given) -> Vec<Active> {
        let groups = &given.split_groups;
        given.min_split_depths.iter().flat_map(|&d| groups.iter().map(move |&g| Active { min_split_depth: d, split_group: g, ..self })).collect()
    }
}
