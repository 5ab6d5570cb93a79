//! The command-line options of the message-passing searches' algorithms,
//! shared by `pabsim --machine cluster` (the simulated cluster) and
//! `psearch --mpi` (real processes over MPI): one clap struct, flattened
//! into each tool and turned into a [`ClusterConfig`] in one place, so the
//! two tools cannot drift apart in names, ranges or defaults. The policy
//! names (`--policy`) are parsed by [`parse_policies`] for both.

use super::{ClusterAlgorithm, ClusterConfig, master_worker, search::DEFAULT_TT_SLOTS};
use anyhow::{Result, ensure};

/// The algorithms' parameters on a cluster.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ClusterArgs {
    /// Cluster: transposition-table entries per process (default 2^20).
    #[arg(long)]
    pub tt_slots: Option<usize>,
    /// Cluster: the ply even-split and master-slave split the tree at
    /// (default: the shallowest with at least p nodes).
    #[arg(long)]
    pub split_ply: Option<u32>,
    /// Cluster: the master-worker's master depth d' (default: the
    /// shallowest with at least 3 leaves per worker, at most depth − 1).
    #[arg(long)]
    pub master_depth: Option<u32>,
    /// Cluster: nodes a master-worker's worker searches before it looks at
    /// its inbox (default 1024).
    #[arg(long)]
    pub slice_nodes: Option<u64>,
    /// Cluster: master-worker-share's depth below a task's root whose table
    /// entries go round the workers' ring (default: the most plies k with
    /// b^k <= 625, b the root's moves: 4 for b = 5, 2 for b = 20).
    #[arg(long)]
    pub share_depth: Option<u32>,
    /// Cluster: master-worker-negascout's ε, the width of the scout windows
    /// in score units (default: the mean |static value change| of the
    /// root's moves).
    #[arg(long)]
    pub epsilon: Option<i64>,
}

impl ClusterArgs {
    /// The option names, each with whether it was given (a tool refuses
    /// them where they do not apply).
    pub fn given(&self) -> [(&'static str, bool); 6] {
        [
            ("--tt-slots", self.tt_slots.is_some()),
            ("--split-ply", self.split_ply.is_some()),
            ("--master-depth", self.master_depth.is_some()),
            ("--slice-nodes", self.slice_nodes.is_some()),
            ("--share-depth", self.share_depth.is_some()),
            ("--epsilon", self.epsilon.is_some()),
        ]
    }

    /// The settings of every run (algorithm and process count to be
    /// replaced by each run's), checked.
    pub fn settings(&self) -> Result<ClusterConfig> {
        let tt_slots = self.tt_slots.unwrap_or(DEFAULT_TT_SLOTS);
        ensure!((1..=1 << 30).contains(&tt_slots), "--tt-slots {tt_slots} must lie in 1..2^30");
        let slice_nodes = self.slice_nodes.unwrap_or(master_worker::DEFAULT_SLICE_NODES);
        ensure!(slice_nodes >= 1, "--slice-nodes 0: a worker would never search");
        Ok(ClusterConfig {
            tt_slots,
            split: self.split_ply,
            master_depth: self.master_depth,
            slice_nodes,
            share_depth: self.share_depth,
            epsilon: self.epsilon,
            ..ClusterConfig::new(ClusterAlgorithm::Sequential, 1)
        })
    }
}

/// The `--policy` names of the cluster's algorithms, in order, without
/// repeats; a name of the shared-memory machine is refused with a hint.
pub fn parse_policies(names: &[String]) -> Result<Vec<ClusterAlgorithm>> {
    let mut algorithms = vec![];
    for p in names {
        algorithms.push(p.parse::<ClusterAlgorithm>().map_err(|e| {
            if p.parse::<crate::algorithm::Algorithm>().is_ok() {
                anyhow::anyhow!("--policy {p} is a --machine shared algorithm (the cluster runs even-split, master-slave and the master-worker family)")
            } else {
                e.into()
            }
        })?);
    }
    crate::cli::no_repeats("--policy", &algorithms.iter().map(|a| a.name()).collect::<Vec<_>>())?;
    Ok(algorithms)
}
