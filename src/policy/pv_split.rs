//! PV splitting (Marsland and Popowich; an alternative to the thesis's idle
//! loop of §6.2, `docs/beyond.md`): one processor or thread goes down the
//! principal variation; a PV node is published once its first move has
//! finished, and every idle one takes moves of the published PV node (the
//! deepest still under way, on real threads). One with nothing left waits
//! for the next publication rather than look for work elsewhere: no other
//! node is ever shared, and the scheme is never consulted.

use super::{Columns, ConfigError, IdlePolicy, PolicyOpt, Scheme};

/// PV splitting (no parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PvSplit;

impl IdlePolicy for PvSplit {
    const DEFAULT: PvSplit = PvSplit;

    const NAME: &'static str = "pvsplit";

    const ABOUT_SIMULATED: &'static str = "PV splitting: all processors share each PV node's moves once its first is searched, and wait for the next PV node";

    const ABOUT_REAL: &'static str = "PV splitting: all threads share each PV node's moves once its first is searched, and wait for the next PV node";

    fn reads(&self) -> &'static [PolicyOpt] {
        &[]
    }

    fn read(_c: &Columns, _scheme: Option<Scheme>) -> Result<PvSplit, ConfigError> {
        Ok(PvSplit)
    }
}
