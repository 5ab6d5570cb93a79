//! The command-line options of the message-passing searches' algorithms,
//! shared by `pabsim --machine cluster` (the simulated cluster) and
//! `psearch --mpi` (real processes over MPI): one clap struct, flattened
//! into each tool and turned into the algorithms with their parameters
//! ([`ClusterArgs::algorithms`], from the `--algorithm` names) and the
//! machine's settings ([`ClusterArgs::settings`]) in one place, so the two
//! tools cannot drift apart in names, ranges or defaults.

use super::algorithm::{Algorithm, Given, Opt, OptKind, OptValue};
use super::algorithms::master_worker::MASTER_COST;
use super::exec::machine::MAX_COST_NS;
use super::exec::topology::{DEFAULT_HOP_NS, DEFAULT_NODE_CORES, Topology};
use super::{ClusterAlgorithm, ClusterSettings, MAX_CLUSTER_PROCS};
use crate::cli::{Reader, refuse_unread};
use anyhow::{Result, bail, ensure};

/// The algorithms' parameters on a cluster.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ClusterArgs {
    /// Transposition-table entries per process, 16 bytes each, any even
    /// number (default
    /// 2^14; Ura et al.'s workers had 31,250,000).
    #[arg(long)]
    pub tt_slots: Option<usize>,
    /// The options of the registered algorithms, each declared beside
    /// the algorithm that reads it.
    #[command(flatten)]
    pub options: AlgorithmArgs,
    /// The simulated cluster's network (read by no algorithm: the machine's).
    #[command(flatten)]
    pub network: NetworkArgs,
}

/// The options of the registered algorithms ([`ClusterAlgorithm::options`]),
/// built from their declarations ([`Opt`]) rather than written here: each
/// an argument of its kind's type, and the values given.
#[derive(Clone, Debug, Default)]
pub struct AlgorithmArgs {
    /// The options given, in the order of `--help`, with their values
    /// (unchecked).
    pub values: Vec<(Opt, OptValue)>,
}

impl AlgorithmArgs {
    /// Whether `o` was given.
    pub fn has(&self, o: Opt) -> bool {
        self.values.iter().any(|(g, _)| *g == o)
    }
}

impl clap::FromArgMatches for AlgorithmArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<AlgorithmArgs, clap::Error> {
        let mut values = vec![];
        for o in ClusterAlgorithm::options() {
            let id = o.id();
            let v = match o.kind {
                OptKind::U32 { .. } => m.try_get_one::<u32>(id).ok().flatten().map(|&v| OptValue::U32(v)),
                OptKind::Count { .. } => m.try_get_one::<u64>(id).ok().flatten().map(|&v| OptValue::Count(v)),
                OptKind::I64 { .. } => m.try_get_one::<i64>(id).ok().flatten().map(|&v| OptValue::I64(v)),
                OptKind::F64 { .. } => m.try_get_one::<f64>(id).ok().flatten().map(|&v| OptValue::F64(v)),
            };
            values.extend(v.map(|v| (o, v)));
        }
        Ok(AlgorithmArgs { values })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        let given = AlgorithmArgs::from_arg_matches(m)?;
        for (o, v) in given.values {
            self.values.retain(|(g, _)| *g != o);
            self.values.push((o, v));
        }
        Ok(())
    }
}

impl clap::Args for AlgorithmArgs {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for o in ClusterAlgorithm::options() {
            let arg = clap::Arg::new(o.id()).long(o.id()).value_name(o.value).help(o.help).action(clap::ArgAction::Set);
            cmd = cmd.arg(match o.kind {
                OptKind::U32 { .. } => arg.value_parser(clap::value_parser!(u32)),
                OptKind::Count { .. } => arg.value_parser(clap::value_parser!(u64)),
                OptKind::I64 { .. } => arg.value_parser(clap::value_parser!(i64)).allow_negative_numbers(true),
                OptKind::F64 { .. } => arg.value_parser(clap::value_parser!(f64)),
            });
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        AlgorithmArgs::augment_args(cmd)
    }
}

/// The simulated network's shape (`crate::cluster::exec::topology`): options of the
/// machine, not of an algorithm, so `psearch --mpi` (real ranks on a real
/// network) refuses them ([`NetworkArgs::real_network`]).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct NetworkArgs {
    /// The network (the simulated cluster only): flat (one latency for
    /// every pair; default), hypercube (Fox et al.'s nCUBE: a message
    /// crosses as many links as its ends' ranks differ in bits) or
    /// fat-tree (nodes of --node-cores processes; 2 links between nodes,
    /// none inside one). Latency: --latency-ns plus links × --hop-ns.
    #[arg(long)]
    pub topology: Option<TopologyKind>,
    /// The cost of one link (hop) of a hypercube or fat tree, ns
    /// (0..10^9; default 1000).
    #[arg(long)]
    pub hop_ns: Option<u64>,
    /// A fat tree's processes per node (1..4096; default 8): ranks r with
    /// the same r / k share a node.
    #[arg(long)]
    pub node_cores: Option<usize>,
}

/// `--topology`'s names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TopologyKind {
    /// One latency for every pair.
    Flat,
    /// Fox et al.'s hypercube.
    Hypercube,
    /// A two-level fat tree.
    FatTree,
}

/// A cost of the simulated cluster, checked: `name`'s value `v` within
/// 0..[`MAX_COST_NS`], or one line saying so.
pub fn cost_ns(name: &str, v: u64) -> Result<u64> {
    ensure!(v <= MAX_COST_NS, "{name} {v} must lie in 0..{MAX_COST_NS} (ns, at most one second)");
    Ok(v)
}

/// A search cost in ns with up to three decimals (`--node-ns 9.412`): a
/// cost measured on a host, about 10 ns a node, keeps its fraction.
/// Parsed as written; [`CostNs::ps`] checks its range. Whole-ns values
/// are the costs they always were.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostNs {
    /// The whole ns.
    pub ns: u64,
    /// The thousandths of a ns (0..1000).
    pub frac_ps: u64,
}

impl CostNs {
    /// The cost in ps, within 0..[`MAX_COST_NS`] ns, or one line naming
    /// `name` and the range.
    pub fn ps(self, name: &str) -> Result<u64> {
        let ps = self.ns.checked_mul(1_000).and_then(|p| p.checked_add(self.frac_ps)).filter(|&p| p <= MAX_COST_NS * 1_000);
        ps.ok_or_else(|| anyhow::anyhow!("{name} {self} must lie in 0..{MAX_COST_NS} (ns, at most one second)"))
    }

    /// The cost in whole ns, where it is one.
    pub fn whole_ns(self) -> Option<u64> {
        (self.frac_ps == 0).then_some(self.ns)
    }
}

impl std::fmt::Display for CostNs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.frac_ps == 0 {
            return write!(f, "{}", self.ns);
        }
        let frac = format!("{:03}", self.frac_ps);
        write!(f, "{}.{}", self.ns, frac.trim_end_matches('0'))
    }
}

impl std::str::FromStr for CostNs {
    type Err = String;
    fn from_str(s: &str) -> Result<CostNs, String> {
        let bad = || format!("`{s}` is not a cost in ns (digits, at most three decimals: 380, 9.412)");
        let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(frac) || frac.len() > 3 || (s.contains('.') && frac.is_empty()) {
            return Err(bad());
        }
        let ns = whole.parse().map_err(|_| bad())?;
        let frac_ps = if frac.is_empty() { 0 } else { format!("{frac:0<3}").parse().map_err(|_| bad())? };
        Ok(CostNs { ns, frac_ps })
    }
}

impl NetworkArgs {
    /// The option names, each with whether it was given.
    pub fn given(&self) -> [(&'static str, bool); 3] {
        [("--topology", self.topology.is_some()), self.hop_ns_given(), self.node_cores_given()]
    }

    fn hop_ns_given(&self) -> (&'static str, bool) {
        ("--hop-ns", self.hop_ns.is_some())
    }

    fn node_cores_given(&self) -> (&'static str, bool) {
        ("--node-cores", self.node_cores.is_some())
    }

    /// The topology asked, checked: each parameter within its range and
    /// read by the topology chosen.
    pub fn topology(&self) -> Result<Topology> {
        let kind = self.topology.unwrap_or(TopologyKind::Flat);
        if kind == TopologyKind::Flat
            && let Some((name, _)) = [self.hop_ns_given(), self.node_cores_given()].into_iter().find(|o| o.1)
        {
            bail!("{name} applies to --topology hypercube or fat-tree (the flat network's one latency is --latency-ns)");
        }
        if kind != TopologyKind::FatTree && self.node_cores.is_some() {
            bail!("--node-cores applies to --topology fat-tree only");
        }
        let hop_ns = cost_ns("--hop-ns", self.hop_ns.unwrap_or(DEFAULT_HOP_NS))?;
        Ok(match kind {
            TopologyKind::Flat => Topology::Flat,
            TopologyKind::Hypercube => Topology::Hypercube { hop_ns },
            TopologyKind::FatTree => {
                let node_cores = self.node_cores.unwrap_or(DEFAULT_NODE_CORES);
                ensure!((1..=MAX_CLUSTER_PROCS).contains(&node_cores), "--node-cores {node_cores} must lie in 1..{MAX_CLUSTER_PROCS} (processes per node)");
                Topology::FatTree { node_cores, hop_ns }
            }
        })
    }

    /// Refuses every network option, for runs on real ranks.
    pub fn real_network(&self) -> Result<()> {
        if let Some((name, _)) = self.given().iter().find(|o| o.1) {
            bail!("{name} applies to the simulated cluster; MPI ranks run on the real network");
        }
        Ok(())
    }
}

impl ClusterArgs {
    /// The algorithms' options, each with whether it was given (a tool
    /// refuses them where they do not apply).
    pub fn given_options(&self) -> Vec<(Opt, bool)> {
        ClusterAlgorithm::options().into_iter().map(|o| (o, self.options.has(o))).collect()
    }

    /// Every option of the algorithms and `--tt-slots`, by spelling, each
    /// with whether it was given (`psearch` refuses them without `--mpi`).
    pub fn given(&self) -> Vec<(&'static str, bool)> {
        let mut g = vec![("--tt-slots", self.tt_slots.is_some())];
        g.extend(self.given_options().into_iter().map(|(o, on)| (o.flag, on)));
        g
    }

    /// The algorithms' parameters given here, each checked against its
    /// range ([`Opt::check`]).
    pub fn parameters(&self) -> Result<Given> {
        let values = self.options.values.iter().map(|&(o, v)| o.check(v).map(|v| (o, v)));
        Ok(Given::new(values.collect::<Result<_, String>>().map_err(anyhow::Error::msg)?))
    }

    /// The machine every run shares (the simulated machine's costs and
    /// the ranks' threads to be set by each tool), checked.
    pub fn settings(&self) -> Result<ClusterSettings> {
        let tt_slots = self.tt_slots.unwrap_or(ClusterSettings::default().tt_slots);
        ensure!((1..=1 << 30).contains(&tt_slots), "--tt-slots {tt_slots} must lie in 1..2^30");
        Ok(ClusterSettings { tt_slots, ..ClusterSettings::default() })
    }

    /// The master's cost per pass node in millionths of the search's
    /// ([`super::exec::machine::Costs::master_ppm`]), checked: `--master-cost`,
    /// or the measured default.
    pub fn master_ppm(&self) -> Result<u64> {
        let Some(r) = self.parameters()?.f64(MASTER_COST) else { return Ok(super::exec::machine::DEFAULT_MASTER_PPM) };
        Ok((r * 1e6).round() as u64)
    }

    /// The `--algorithm` names of the cluster's algorithms, in order,
    /// without repeats, each with the parameters given here that it reads;
    /// `default` if none is named. A name of the shared-memory machine is
    /// refused with a hint.
    pub fn algorithms(&self, names: &[String], default: &[ClusterAlgorithm]) -> Result<Vec<ClusterAlgorithm>> {
        let mut algorithms = vec![];
        for p in names {
            let a = p.parse::<ClusterAlgorithm>().map_err(|e| {
                if p.parse::<crate::policy::Policy>().is_ok() {
                    anyhow::anyhow!("--algorithm {p} is a --machine shared algorithm (the cluster runs {})", ClusterAlgorithm::expected())
                } else {
                    e.into()
                }
            })?;
            algorithms.push(a);
        }
        crate::cli::no_repeats("--algorithm", &algorithms.iter().map(|a| a.name()).collect::<Vec<_>>())?;
        if algorithms.is_empty() {
            algorithms = default.to_vec();
        }
        self.check_read_by(&algorithms)?;
        let given = self.parameters()?;
        Ok(algorithms.into_iter().map(|a| a.given(&given)).collect())
    }

    /// Refuses an option given here that none of `chosen` reads
    /// ([`Algorithm::reads`]; `--epsilon` with even-split only), before any
    /// tree is read: one line naming it and the algorithms that read it.
    fn check_read_by(&self, chosen: &[ClusterAlgorithm]) -> Result<()> {
        let all = ClusterAlgorithm::all();
        let readers: Vec<Reader> = all
            .iter()
            .map(|a| Reader {
                flag: "--algorithm",
                name: a.name(),
                options: a.reads().iter().map(|o| o.flag).collect::<Vec<_>>().into(),
                // An algorithm reads the same options whatever its
                // parameters (YBWC's switches among them).
                chosen: chosen.iter().any(|c| std::mem::discriminant(c) == std::mem::discriminant(a) && c.reads() == a.reads()),
            })
            .collect();
        let run = format!("--algorithm {}", chosen.iter().map(|a| a.name()).collect::<Vec<_>>().join(","));
        let given: Vec<(&'static str, bool)> = self.given_options().iter().map(|&(o, on)| (o.flag, on)).collect();
        Ok(refuse_unread(&given, &readers, &run)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::MwVariant;

    /// The options of a command line that flattens [`ClusterArgs`].
    fn args(line: &[&str]) -> ClusterArgs {
        use clap::{Args, Command, FromArgMatches};
        let cmd = ClusterArgs::augment_args(Command::new("t").no_binary_name(true));
        ClusterArgs::from_arg_matches(&cmd.get_matches_from(line)).unwrap()
    }

    fn names(list: &str) -> Vec<String> {
        list.split(',').map(String::from).collect()
    }

    /// An option none of the chosen algorithms reads is refused
    /// in one line naming the ones that read it; one that some chosen
    /// algorithm reads passes, whatever the others.
    #[test]
    fn an_option_no_chosen_algorithm_reads_is_refused() {
        let default = ClusterAlgorithm::defaults();
        let eps = args(&["--epsilon", "5"]);
        let depth = args(&["--master-depth", "2"]);
        let slice = args(&["--slice-nodes", "64"]);
        let ply = args(&["--split-ply", "2"]);
        let share = args(&["--share-depth", "1"]);
        let cost = args(&["--master-cost", "0.25"]);
        let grain = args(&["--granularity", "3"]);
        let refused = [
            (&grain, "master-worker", "--granularity applies to --algorithm ybwc, ybwc-full or fox only (this run: --algorithm master-worker)"),
            (&eps, "even-split", "--epsilon applies to --algorithm master-worker-negascout only (this run: --algorithm even-split)"),
            (&eps, "", "--epsilon applies to --algorithm master-worker-negascout only (this run: --algorithm even-split,master-slave)"),
            (
                &depth,
                "even-split",
                "--master-depth applies to --algorithm master-worker, master-worker-noupdate, master-worker-share or master-worker-negascout only (this run: --algorithm even-split)",
            ),
            (
                &slice,
                "even-split,master-slave",
                "--slice-nodes applies to --algorithm master-worker, master-worker-noupdate, master-worker-share, master-worker-negascout, ybwc, ybwc-full, pv-split or fox only (this run: --algorithm even-split,master-slave)",
            ),
            (&ply, "master-worker", "--split-ply applies to --algorithm even-split, master-slave or pv-split only (this run: --algorithm master-worker)"),
            (&share, "master-worker", "--share-depth applies to --algorithm master-worker-share only (this run: --algorithm master-worker)"),
            (
                &cost,
                "ybwc",
                "--master-cost applies to --algorithm master-worker, master-worker-noupdate, master-worker-share or master-worker-negascout only (this run: --algorithm ybwc)",
            ),
        ];
        for (args, list, want) in refused {
            let given = if list.is_empty() { vec![] } else { names(list) };
            assert_eq!(args.algorithms(&given, &default).map(|_| ()).map_err(|e| e.to_string()), Err(want.to_string()), "{list}");
        }
        let all = args(&[
            "--epsilon",
            "5",
            "--master-depth",
            "2",
            "--slice-nodes",
            "64",
            "--granularity",
            "3",
            "--split-ply",
            "2",
            "--share-depth",
            "1",
            "--master-cost",
            "0.25",
            "--tt-slots",
            "1024",
        ]);
        let got = all.algorithms(&names("even-split,master-worker-share,master-worker-negascout,fox"), &default).unwrap();
        use crate::cluster::algorithms::{fox::Fox, master_worker::MasterWorker, root_split::EvenSplit};
        assert_eq!(got[0], EvenSplit { split: Some(2) }.into());
        assert_eq!(got[3], Fox { granularity: Some(3), slice: Some(64) }.into());
        assert!(grain.algorithms(&names("ybwc"), &default).is_ok());
        let deep = args(&["--granularity", "65"]);
        assert_eq!(
            deep.algorithms(&names("ybwc"), &default).map(|_| ()).map_err(|e| e.to_string()),
            Err("--granularity 65 must lie in 0..64 (a remaining depth)".into())
        );
        assert_eq!(got[2], MasterWorker { master_depth: Some(2), slice: Some(64), variant: MwVariant::NegaScout { epsilon: Some(5) } }.into());
        assert!(ply.algorithms(&names("seq"), &default).is_err());
        assert!(args(&["--tt-slots", "1024"]).algorithms(&names("seq"), &default).is_ok());
    }

    /// The network's options: each read by its topology only, each within
    /// its range, all refused on real ranks.
    #[test]
    fn the_network_options_by_topology() {
        use crate::cluster::exec::topology::Topology;
        let net = |topology, hop_ns, node_cores| NetworkArgs { topology, hop_ns, node_cores };
        let ok = [
            (net(None, None, None), Topology::Flat),
            (net(Some(TopologyKind::Flat), None, None), Topology::Flat),
            (net(Some(TopologyKind::Hypercube), None, None), Topology::Hypercube { hop_ns: 1_000 }),
            (net(Some(TopologyKind::Hypercube), Some(0), None), Topology::Hypercube { hop_ns: 0 }),
            (net(Some(TopologyKind::FatTree), None, None), Topology::FatTree { node_cores: 8, hop_ns: 1_000 }),
            (net(Some(TopologyKind::FatTree), Some(MAX_COST_NS), Some(4096)), Topology::FatTree { node_cores: 4096, hop_ns: MAX_COST_NS }),
        ];
        for (args, want) in ok {
            assert_eq!(args.topology().unwrap(), want, "{args:?}");
        }
        let refused = [
            (net(None, Some(5), None), "--hop-ns applies to --topology hypercube or fat-tree (the flat network's one latency is --latency-ns)"),
            (
                net(Some(TopologyKind::Flat), None, Some(4)),
                "--node-cores applies to --topology hypercube or fat-tree (the flat network's one latency is --latency-ns)",
            ),
            (net(Some(TopologyKind::Hypercube), None, Some(4)), "--node-cores applies to --topology fat-tree only"),
            (net(Some(TopologyKind::FatTree), None, Some(4097)), "--node-cores 4097 must lie in 1..4096 (processes per node)"),
            (net(Some(TopologyKind::Hypercube), Some(MAX_COST_NS + 1), None), "--hop-ns 1000000001 must lie in 0..1000000000 (ns, at most one second)"),
        ];
        for (args, want) in refused {
            assert_eq!(args.topology().map_err(|e| e.to_string()), Err(want.to_string()), "{args:?}");
        }
        assert!(net(None, None, None).real_network().is_ok());
        assert_eq!(
            net(None, None, Some(4)).real_network().map_err(|e| e.to_string()),
            Err("--node-cores applies to the simulated cluster; MPI ranks run on the real network".to_string())
        );
    }

    /// Every option a registered algorithm reads is an argument by its
    /// flag, of its kind's type, declared once (two algorithms reading an
    /// option read the same declaration); the struct has no other argument
    /// but the machine's; each option's range is checked.
    #[test]
    fn every_option_is_an_argument_with_a_reader() {
        use clap::{Args, Command};
        let cmd = ClusterArgs::augment_args(Command::new("t"));
        let options = ClusterAlgorithm::options();
        let flags: Vec<&str> = options.iter().map(|o| o.flag).collect();
        assert_eq!(flags, ["--split-ply", "--master-depth", "--slice-nodes", "--master-cost", "--share-depth", "--epsilon", "--granularity"]);
        for a in ClusterAlgorithm::all() {
            for r in a.reads() {
                let o = options.iter().find(|o| *o == r).unwrap();
                assert_eq!((o.value, o.help, o.kind), (r.value, r.help, r.kind), "{} declared twice by {a}", r.flag);
            }
        }
        for o in &options {
            let arg = cmd.get_arguments().find(|a| a.get_id() == o.id()).unwrap_or_else(|| panic!("{o:?}: no argument"));
            assert_eq!(format!("--{}", arg.get_long().unwrap()), o.flag);
        }
        let machine = ["tt_slots", "topology", "hop_ns", "node_cores"];
        let others: Vec<&str> =
            cmd.get_arguments().map(|a| a.get_id().as_str()).filter(|id| !machine.contains(id) && !options.iter().any(|o| o.id() == *id)).collect();
        assert!(others.is_empty(), "arguments that are no Opt: {others:?}");
        let checked = |line: &[&str]| args(line).parameters().map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(checked(&["--slice-nodes", "0"]), Err("--slice-nodes 0: a worker would never search".into()));
        assert_eq!(
            checked(&["--epsilon", "0"]),
            Err(format!("--epsilon 0 must lie in 1..{} (score units, the margin of an ε-window)", crate::cluster::algorithms::master_worker::MAX_EPSILON))
        );
        assert_eq!(checked(&["--master-cost", "1000.5"]), Err("--master-cost 1000.5 must lie in 0..1000 (a fraction of --node-ns)".into()));
        assert_eq!(checked(&["--master-cost", "NaN"]), Err("--master-cost NaN must lie in 0..1000 (a fraction of --node-ns)".into()));
        assert_eq!(
            checked(&["--epsilon", "-3"]),
            Err(format!("--epsilon -3 must lie in 1..{} (score units, the margin of an ε-window)", crate::cluster::algorithms::master_worker::MAX_EPSILON))
        );
        let g = args(&["--master-depth", "4", "--master-cost", "0.25", "--slice-nodes", "7"]).parameters().unwrap();
        use crate::cluster::algorithm::SLICE_NODES;
        use crate::cluster::algorithms::master_worker::MASTER_DEPTH;
        assert_eq!(
            (g.u32(MASTER_DEPTH), g.f64(MASTER_COST), g.count(SLICE_NODES), g.i64(crate::cluster::algorithms::master_worker::EPSILON)),
            (Some(4), Some(0.25), Some(7), None)
        );
    }
}
