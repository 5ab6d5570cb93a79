//! The command-line options that choose the split-point schemes and the
//! algorithms' parameters, shared by `pabsim` (the simulated machine) and
//! `psearch` (real threads): one clap struct, flattened into each tool's
//! arguments and turned into a [`Request`] in one place, so the two tools
//! cannot drift apart in names, ranges or defaults (`docs/formats.md`).

use super::{IntRange, Request, Result};
use crate::policy::{
    LIMITS_CUT_WIDTH, LIMITS_M_A, LIMITS_M_B, LIMITS_M_CA, LIMITS_M_CC, LIMITS_MIN_SPLIT_DEPTH, LIMITS_PV_WAIT, LIMITS_SPLIT_GROUP, Limits, PolicyOpt, Scheme,
    Walk,
};
use std::path::PathBuf;

/// The scheme and parameter options of the parallel searches.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SearchArgs {
    /// Split-point schemes for p > 1: a (YBWC), b (DTS), c (network); which
    /// nodes dts, steal and active may split at (default a).
    #[arg(short, long, value_delimiter = ',')]
    pub scheme: Option<Vec<Scheme>>,
    /// Active splitting: plies a node needs below it to be split, V or LO..HI (1..64; default 2).
    #[arg(long)]
    pub min_split_depth: Option<String>,
    /// Active splitting: most processors working at one split point, V or LO..HI (2..1024; default 8).
    #[arg(long)]
    pub split_group: Option<String>,
    /// Work stealing: seed of the victims' choice (ChaCha8; default 1).
    #[arg(long)]
    pub steal_seed: Option<u64>,
    /// Scheme A: finished moves a Y-CUT node needs, V or LO..HI (1..64; default 2).
    #[arg(long, allow_hyphen_values = true)]
    pub m_a: Option<String>,
    /// Scheme B: finished moves that turn D-CUT into D-ALL, V or LO..HI (1..64; default 1).
    #[arg(long, allow_hyphen_values = true)]
    pub m_b: Option<String>,
    /// Scheme C: added to the network's wait, V or LO..HI (-64..64; default 0).
    #[arg(long, allow_hyphen_values = true)]
    pub m_ca: Option<String>,
    /// Scheme C: added again at N-CUT nodes, V or LO..HI (0..64; default 0).
    #[arg(long, allow_hyphen_values = true)]
    pub m_cc: Option<String>,
    /// Schemes A and B: finished moves a PV node needs before it may be a
    /// split point, V or LO..HI (0..64; default 1, as in YBWC and DTS; 0 is
    /// the control for scheme C, whose PV nodes wait w + m_Ca moves).
    #[arg(long)]
    pub pv_wait: Option<String>,
    /// Scheme C: classification width m, V or LO..HI (0..50; default: the thesis's for the ordering, else 10).
    #[arg(long, allow_hyphen_values = true)]
    pub cut_width: Option<String>,
    /// How far a split-point search walks the allocated tree (dts): `tree`
    /// (all of it; the default) or `level` (stop after the first level with
    /// an eligible node).
    #[arg(long)]
    pub split_walk: Option<Walk>,
    /// Use the thesis's best m_A, m_B, m_Ca, m_Cc for each ordering and p = 12, 24, 48.
    #[arg(long, conflicts_with_all = ["m_a", "m_b", "m_ca", "m_cc"])]
    pub thesis_params: bool,
    /// Network weights file(s) for scheme C (from nntrain), one per ordering.
    #[arg(long)]
    pub weights: Vec<PathBuf>,
}

fn range(v: &Option<String>, (name, lo, hi): Limits) -> Result<Option<IntRange>> {
    v.as_deref().map(|s| IntRange::parse(s, name, lo, hi)).transpose()
}

impl SearchArgs {
    /// The option names a tool refuses where they do not apply (the
    /// cluster), each with whether it was given: the request's options
    /// (set or not whatever values their ranges hold) and `--weights`.
    pub fn given(&self) -> Vec<(&'static str, bool)> {
        let set = |v: &Option<String>, _: Limits| Ok::<_, std::convert::Infallible>(v.as_ref().map(|_| IntRange { lo: 0, hi: 0 }));
        let Ok(req) = self.fields(Request::default(), set);
        let mut given = req.given();
        given.push((PolicyOpt::Weights.flag(), !self.weights.is_empty()));
        given
    }

    /// `req` with these options' schemes and parameter ranges, checked
    /// against their limits; an option that none of `req`'s algorithms (or
    /// their schemes) reads is refused here, before any tree is read
    /// ([`Request::check_given`]).
    pub fn request(&self, req: Request) -> Result<Request> {
        let req = self.fields(req, range)?;
        req.check_given(&self.given())?;
        Ok(req)
    }

    /// `req` with these options, each range made by `range`: the one
    /// mapping of the options onto a request's fields.
    fn fields<E>(&self, req: Request, range: impl Fn(&Option<String>, Limits) -> std::result::Result<Option<IntRange>, E>) -> std::result::Result<Request, E> {
        Ok(Request {
            schemes: self.scheme.clone(),
            m_a: range(&self.m_a, LIMITS_M_A)?,
            m_b: range(&self.m_b, LIMITS_M_B)?,
            m_ca: range(&self.m_ca, LIMITS_M_CA)?,
            m_cc: range(&self.m_cc, LIMITS_M_CC)?,
            cut_width: range(&self.cut_width, LIMITS_CUT_WIDTH)?,
            pv_wait: range(&self.pv_wait, LIMITS_PV_WAIT)?,
            thesis: self.thesis_params,
            walk: self.split_walk,
            min_split_depth: range(&self.min_split_depth, LIMITS_MIN_SPLIT_DEPTH)?,
            split_group: range(&self.split_group, LIMITS_SPLIT_GROUP)?,
            steal_seed: self.steal_seed,
            ..req
        })
    }
}

/// The shared-memory algorithms named by a tool's `flag` (`--policy` of
/// `pabsim`, `--algorithm` of `psearch`), in order; `dts` when none. A name
/// the message-passing machines know (`cluster_name`, given by the tool:
/// this module does not depend on them) is refused with `hint`, how to run
/// it in that tool.
pub fn parse_algorithms(flag: &str, names: &[String], cluster_name: impl Fn(&str) -> bool, hint: &str) -> anyhow::Result<Vec<crate::policy::Policy>> {
    let mut out = vec![];
    for a in names {
        if cluster_name(a) {
            anyhow::bail!("{flag} {a} is a cluster algorithm ({hint})");
        }
        out.push(a.parse::<crate::policy::Policy>()?);
    }
    if out.is_empty() {
        out.push("dts".parse::<crate::policy::Policy>()?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Tool {
        #[command(flatten)]
        search: SearchArgs,
    }

    /// The options parse into the request's ranges; out-of-range values are
    /// refused with the option's name; `given` names what was given.
    #[test]
    fn options_become_the_requests_ranges() {
        let t = Tool::parse_from(["tool", "--scheme", "a,C", "--m-a", "1..3", "--m-ca", "-2", "--split-group", "4"]);
        let active = Request { algorithms: vec!["active".parse().unwrap()], ..Request::new(vec![1, 2]) };
        let req = t.search.request(active).unwrap();
        assert_eq!(req.m_a, Some(IntRange { lo: 1, hi: 3 }));
        assert_eq!(req.m_ca, Some(IntRange { lo: -2, hi: -2 }));
        assert_eq!(req.split_group, Some(IntRange { lo: 4, hi: 4 }));
        assert_eq!(req.schemes.as_ref().map(|s| s.len()), Some(2));
        assert_eq!(req.procs, vec![1, 2]);
        let given: Vec<&str> = t.search.given().iter().filter(|g| g.1).map(|g| g.0).collect();
        assert_eq!(given, ["--scheme", "--split-group", "--m-a", "--m-ca"]);
        let bad = Tool::parse_from(["tool", "--m-b", "0"]);
        assert_eq!(bad.search.request(Request::new(vec![2])).unwrap_err().to_string(), "--m-b must lie in 1..64, got 0");
    }

    /// One rule for every option, the networks too: an option is
    /// refused when no chosen algorithm, nor any chosen scheme of an
    /// algorithm that takes one, reads it; one that some chosen one reads
    /// passes (`--scheme a,b --m-a 3 --m-b 2`).
    #[test]
    fn an_option_no_chosen_algorithm_or_scheme_reads_is_refused() {
        let run = |args: &[&str], algorithms: &str| {
            let t = Tool::parse_from([&["tool"], args].concat());
            let algorithms = algorithms.split(',').map(|p| p.parse().unwrap()).collect();
            t.search.request(Request { algorithms, ..Request::new(vec![1, 4]) }).map(|_| ()).map_err(|e| e.to_string())
        };
        let refused = [
            (&["--scheme", "a", "--m-b", "2"][..], "dts", "--m-b applies to --scheme b only (this run: --algorithm dts, --scheme a)"),
            (&["--scheme", "b", "--m-a", "2"], "steal", "--m-a applies to --scheme a only (this run: --algorithm steal, --scheme b)"),
            (&["--cut-width", "5"], "dts,active", "--cut-width applies to --scheme c only (this run: --algorithm dts,active, --scheme a)"),
            (&["--m-ca", "-1"], "dts", "--m-ca applies to --scheme c only (this run: --algorithm dts, --scheme a)"),
            (&["--weights", "w.json"], "dts", "--weights applies to --scheme c only (this run: --algorithm dts, --scheme a)"),
            (&["--scheme", "c", "--pv-wait", "0"], "dts", "--pv-wait applies to --scheme a or b only (this run: --algorithm dts, --scheme c)"),
            (&["--steal-seed", "3"], "dts,pvsplit", "--steal-seed applies to --algorithm steal only (this run: --algorithm dts,pvsplit, --scheme a)"),
            (
                &["--scheme", "b"],
                "pvsplit,lazy-smp",
                "--scheme applies to --algorithm dts, steal or active only (this run: --algorithm pvsplit,lazy-smp, no scheme)",
            ),
            (&["--m-a", "3"], "pvsplit", "--m-a applies to --scheme a only (this run: --algorithm pvsplit, no scheme)"),
            (&["--thesis-params"], "lazy-smp", "--thesis-params applies to --scheme a, b or c only (this run: --algorithm lazy-smp, no scheme)"),
            (&["--split-walk", "level"], "steal", "--split-walk applies to --algorithm dts only (this run: --algorithm steal, --scheme a)"),
            (&["--split-group", "4"], "dts", "--split-group applies to --algorithm active only (this run: --algorithm dts, --scheme a)"),
        ];
        for (args, policies, want) in refused {
            assert_eq!(run(args, policies), Err(want.to_string()), "{args:?} {policies}");
        }
        for (args, policies) in [
            (&["--scheme", "a,b", "--m-a", "3", "--m-b", "2"][..], "dts"),
            (&["--scheme", "a,c", "--pv-wait", "0", "--cut-width", "5", "--m-cc", "1"], "steal"),
            (&["--m-a", "3", "--steal-seed", "2", "--split-walk", "level", "--min-split-depth", "3"], "dts,pvsplit,steal,active"),
            (&["--thesis-params", "--scheme", "b"], "pvsplit,active"),
            (&[], "pvsplit,lazy-smp"),
        ] {
            assert_eq!(run(args, policies), Ok(()), "{args:?} {policies}");
        }
    }
}
