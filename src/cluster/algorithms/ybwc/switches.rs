//! The switches of YBWC's full version (`docs/model.md` §9.6): Feldmann's
//! (1993) refinements as OthelloX (2017, §4.4-4.5) describes them, each
//! on or off on its own so that the plain `ybwc` stays measurable beside
//! them, and the algorithm names that say which are on.
//!
//! A name is `ybwc` (all off), `ybwc-full` (all on), `ybwc-full-no-W`
//! (all but W) or `ybwc+W+W…` (those named, in this order), W one of
//! `helpful`, `three-stage`, `promising`, `order`, `windows`. A name lists
//! its switches once; rows print the name in this one spelling.

/// The switches' words in names, in bit order.
const WORDS: [&str; 5] = ["helpful", "three-stage", "promising", "order", "windows"];

/// Which refinements a YBWC run uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Switches {
    /// The helpful master: a process whose frames wait only for other
    /// processes helps one of their helpers.
    pub helpful: bool,
    /// The three-stage load distribution: ask a neighbour, pass the
    /// request on around the network, prefer earlier helpers.
    pub three_stage: bool,
    /// The promising-successor rule with Knuth and Moore's node types.
    pub promising: bool,
    /// Frames order their children with the table's best move first.
    pub order: bool,
    /// An owner sends its frame's narrowed window to that frame's helpers.
    pub windows: bool,
}

/// The name of each set of switches, indexed by [`Switches::bits`] (the
/// rule of the module's doc, tested).
const NAMES: [&str; 32] = [
    "ybwc",
    "ybwc+helpful",
    "ybwc+three-stage",
    "ybwc+helpful+three-stage",
    "ybwc+promising",
    "ybwc+helpful+promising",
    "ybwc+three-stage+promising",
    "ybwc+helpful+three-stage+promising",
    "ybwc+order",
    "ybwc+helpful+order",
    "ybwc+three-stage+order",
    "ybwc+helpful+three-stage+order",
    "ybwc+promising+order",
    "ybwc+helpful+promising+order",
    "ybwc+three-stage+promising+order",
    "ybwc-full-no-windows",
    "ybwc+windows",
    "ybwc+helpful+windows",
    "ybwc+three-stage+windows",
    "ybwc+helpful+three-stage+windows",
    "ybwc+promising+windows",
    "ybwc+helpful+promising+windows",
    "ybwc+three-stage+promising+windows",
    "ybwc-full-no-order",
    "ybwc+order+windows",
    "ybwc+helpful+order+windows",
    "ybwc+three-stage+order+windows",
    "ybwc-full-no-promising",
    "ybwc+promising+order+windows",
    "ybwc-full-no-three-stage",
    "ybwc-full-no-helpful",
    "ybwc-full",
];

impl Switches {
    /// All off: the plain YBWC.
    pub const NONE: Switches = Switches { helpful: false, three_stage: false, promising: false, order: false, windows: false };
    /// All on: `ybwc-full`.
    pub const ALL: Switches = Switches { helpful: true, three_stage: true, promising: true, order: true, windows: true };

    /// One bit per switch, in the names' order.
    pub const fn bits(self) -> usize {
        self.helpful as usize | (self.three_stage as usize) << 1 | (self.promising as usize) << 2 | (self.order as usize) << 3 | (self.windows as usize) << 4
    }

    /// The switches of `bits` (the inverse of [`Switches::bits`]).
    pub const fn from_bits(b: usize) -> Switches {
        Switches { helpful: b & 1 != 0, three_stage: b & 2 != 0, promising: b & 4 != 0, order: b & 8 != 0, windows: b & 16 != 0 }
    }

    /// The algorithm's name with these switches.
    pub const fn name(self) -> &'static str {
        NAMES[self.bits()]
    }

    /// The rule of the names, for messages and `--help`.
    pub const RULE: &str = "YBWC with some switches: ybwc-full-no-W or ybwc+W+…, W in helpful, three-stage, promising, order, windows, in that order";

    /// The legend of these switches in the report's figures.
    pub fn label(self) -> String {
        let words = |on: bool| (0..5).filter(|i| (self.bits() >> i & 1 == 1) == on).map(|i| WORDS[i]).collect::<Vec<_>>();
        match words(true).len() {
            0 => "YBWC (plain)".into(),
            5 => "full YBWC (Feldmann)".into(),
            4 => format!("full YBWC, no {}", words(false)[0]),
            _ => format!("YBWC + {}", words(true).join(" + ")),
        }
    }

    /// The switches a name says, if it is one of [`Switches::name`]'s.
    pub fn parse(s: &str) -> Option<Switches> {
        NAMES.iter().position(|&n| n == s).map(Switches::from_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name follows the rule, and names and switches round-trip.
    #[test]
    fn names_follow_the_rule_and_round_trip() {
        for b in 0..32 {
            let on: Vec<&str> = (0..5).filter(|i| b >> i & 1 == 1).map(|i| WORDS[i]).collect();
            let off: Vec<&str> = (0..5).filter(|i| b >> i & 1 == 0).map(|i| WORDS[i]).collect();
            let want = match on.len() {
                0 => "ybwc".to_string(),
                5 => "ybwc-full".to_string(),
                4 => format!("ybwc-full-no-{}", off[0]),
                _ => format!("ybwc+{}", on.join("+")),
            };
            let s = Switches::from_bits(b);
            assert_eq!((s.name(), s.bits()), (want.as_str(), b));
            assert_eq!(Switches::parse(&want), Some(s));
        }
        assert_eq!(Switches::parse("ybwc-full-no-helpful"), Some(Switches { helpful: false, ..Switches::ALL }));
        assert_eq!((Switches::NONE.name(), Switches::ALL.name()), ("ybwc", "ybwc-full"));
        // One spelling: another order of the words is not a name.
        assert_eq!(Switches::parse("ybwc+order+helpful"), None);
        let labels =
            [Switches::NONE, Switches::ALL, Switches { helpful: false, ..Switches::ALL }, Switches { order: true, ..Switches::NONE }].map(Switches::label);
        assert_eq!(labels, ["YBWC (plain)", "full YBWC (Feldmann)", "full YBWC, no helpful", "YBWC + order"]);
    }
}
