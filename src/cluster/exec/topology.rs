//! The simulated cluster's network topology (`docs/model.md` §9.1,
//! beyond the thesis): how many links (hops) a message crosses between
//! its two ends, so that its latency depends on who talks to whom.
//!
//! - **Flat**: one latency for every pair (the cluster of §9.1; every
//!   message crosses no link that costs extra).
//! - **Hypercube**: the nCUBE of Fox et al. ("Solving Problems on
//!   Concurrent Processors", §14.3: the chess program's machine). Process
//!   r sits at the corner of a d-cube numbered r; a message is routed one
//!   dimension at a time, so it crosses as many links as the two numbers
//!   differ in bits (their Hamming distance). For P not a power of two,
//!   the processes are the corners 0..P of the smallest cube holding them.
//! - **Fat tree, two levels**: today's clusters (Ura et al.'s 1,536 cores
//!   on Ethernet, OthelloX's MPI cluster): nodes of k cores each (ranks
//!   r with the same r / k share a node, as `mpirun` places them by
//!   default); a message inside a node crosses no link, one between nodes
//!   goes up to the switch and down to the other node: [`FAT_TREE_HOPS`].
//!   A fat tree's links are as wide near the root as below it, so hops
//!   are the whole of the distance (no contention is modelled, as on the
//!   flat network).
//!
//! A message's latency is `--latency-ns` (the ends' own share: the
//! sender's and receiver's interfaces and software, the whole latency of
//! the flat network and inside a node) plus its hops times `--hop-ns`
//! ([`Topology::latency_ns`]); with `--latency-ns 0` a hypercube's is
//! hops × per-hop cost, as Fox et al. count it. Only latency changes:
//! bandwidth, send and receive costs are the flat network's.

use std::fmt;

/// The hops of a message between two nodes of the two-level fat tree:
/// up from the sender's node to the switch, down to the receiver's.
pub const FAT_TREE_HOPS: u32 = 2;

/// The default cost of one hop (`--hop-ns`), ns: 1 µs, the order of one
/// store-and-forward 10 Gbit/s Ethernet switch (hundreds of ns to a few
/// µs, as commonly published), the network Ura et al. name; not fitted.
pub const DEFAULT_HOP_NS: u64 = 1_000;

/// The default cores of a fat tree's node (`--node-cores`): 8, a round
/// count of the period's two-socket nodes; the sources do not give theirs.
pub const DEFAULT_NODE_CORES: usize = 8;

/// The network joining the simulated cluster's processes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Topology {
    /// Every pair alike: `--latency-ns` (today's, the default).
    #[default]
    Flat,
    /// Fox et al.'s hypercube: hops = the Hamming distance of the ranks.
    Hypercube {
        /// Cost of one hop, ns.
        hop_ns: u64,
    },
    /// A two-level fat tree of nodes of `node_cores` processes: no hop
    /// inside a node, [`FAT_TREE_HOPS`] between nodes.
    FatTree {
        /// Processes per node (k, at least 1).
        node_cores: usize,
        /// Cost of one hop, ns.
        hop_ns: u64,
    },
}

impl Topology {
    /// The links a message from rank `a` to rank `b` crosses.
    pub fn hops(&self, a: usize, b: usize) -> u32 {
        match *self {
            Topology::Flat => 0,
            Topology::Hypercube { .. } => (a ^ b).count_ones(),
            Topology::FatTree { node_cores, .. } => {
                let k = node_cores.max(1);
                if a / k == b / k { 0 } else { FAT_TREE_HOPS }
            }
        }
    }

    /// The cost of one hop, ns (0 on the flat network).
    pub fn hop_ns(&self) -> u64 {
        match *self {
            Topology::Flat => 0,
            Topology::Hypercube { hop_ns } | Topology::FatTree { hop_ns, .. } => hop_ns,
        }
    }

    /// The latency of a message from rank `a` to rank `b`: `base` (the
    /// ends' share, `--latency-ns`) plus its hops times the hop cost;
    /// `None` past 2^64 ns (the machine's checked clock stops the run).
    pub fn latency_ns(&self, base: u64, a: usize, b: usize) -> Option<u64> {
        base.checked_add(u64::from(self.hops(a, b)).checked_mul(self.hop_ns())?)
    }

    /// The most hops between any two of `procs` processes.
    pub fn diameter(&self, procs: usize) -> u32 {
        match *self {
            Topology::Flat => 0,
            // The smallest cube holding ranks 0..procs: ceil(log2 procs) dimensions.
            Topology::Hypercube { .. } => procs.max(1).next_power_of_two().trailing_zeros(),
            Topology::FatTree { node_cores, .. } => {
                if procs > node_cores.max(1) {
                    FAT_TREE_HOPS
                } else {
                    0
                }
            }
        }
    }
}

/// The name rows give the network: `flat`, `hypercube`, `fat-tree-K` (K
/// cores a node).
impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Topology::Flat => f.write_str("flat"),
            Topology::Hypercube { .. } => f.write_str("hypercube"),
            Topology::FatTree { node_cores, .. } => write!(f, "fat-tree-{node_cores}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked hops: the hypercube's are the bits two ranks differ in
    /// (0 and 7 = 111b: three), the fat tree's 0 inside a node of k = 4
    /// (ranks 0..3) and 2 between nodes.
    #[test]
    fn hops_by_hand() {
        let cube = Topology::Hypercube { hop_ns: 500 };
        assert_eq!([(0, 7), (0, 1), (5, 6), (3, 4), (2, 2), (0, 4095)].map(|(a, b)| cube.hops(a, b)), [3, 1, 2, 3, 0, 12]);
        let tree = Topology::FatTree { node_cores: 4, hop_ns: 500 };
        assert_eq!([(0, 3), (0, 4), (3, 4), (4, 7), (1, 9), (8, 11)].map(|(a, b)| tree.hops(a, b)), [0, 2, 2, 0, 2, 0]);
        assert_eq!(Topology::Flat.hops(0, 4095), 0);
    }

    /// Latency = base + hops × hop cost, per pair; the flat network's is
    /// the base for every pair.
    #[test]
    fn latency_by_hand() {
        let cube = Topology::Hypercube { hop_ns: 500 };
        assert_eq!(cube.latency_ns(20_000, 0, 7), Some(21_500));
        assert_eq!(cube.latency_ns(0, 0, 7), Some(1_500));
        assert_eq!(cube.latency_ns(0, 6, 7), Some(500));
        let tree = Topology::FatTree { node_cores: 4, hop_ns: 3_000 };
        assert_eq!(tree.latency_ns(100, 0, 3), Some(100));
        assert_eq!(tree.latency_ns(100, 0, 4), Some(6_100));
        assert!((0..16).all(|a| (0..16).all(|b| Topology::Flat.latency_ns(20_000, a, b) == Some(20_000))));
        // Past 2^64 ns: none, for the machine's checked clock.
        assert_eq!(Topology::Hypercube { hop_ns: u64::MAX / 2 }.latency_ns(1, 0, 3), Some(u64::MAX));
        assert_eq!(Topology::Hypercube { hop_ns: u64::MAX / 2 }.latency_ns(2, 0, 3), None);
        assert_eq!(Topology::Hypercube { hop_ns: u64::MAX / 2 + 1 }.latency_ns(0, 0, 3), None);
        assert_eq!(cube.latency_ns(u64::MAX, 0, 1), None);
    }

    /// The diameter: a P that is not a power of two sits in the smallest
    /// cube holding it (P = 5..8: 3 dimensions), and it is the largest
    /// hop count of any pair.
    #[test]
    fn diameter_is_the_most_hops() {
        let cube = Topology::Hypercube { hop_ns: 1 };
        assert_eq!([1, 2, 3, 4, 5, 8, 9, 4096].map(|p| cube.diameter(p)), [0, 1, 2, 2, 3, 3, 4, 12]);
        let tree = Topology::FatTree { node_cores: 4, hop_ns: 1 };
        assert_eq!([1, 4, 5, 64].map(|p| tree.diameter(p)), [0, 0, 2, 2]);
        for t in [cube, tree, Topology::Flat] {
            for p in 1..=20 {
                let most = (0..p).flat_map(|a| (0..p).map(move |b| (a, b))).map(|(a, b)| t.hops(a, b)).max();
                assert_eq!(most, Some(t.diameter(p)), "{t} on {p}");
            }
        }
        assert_eq!([Topology::Flat.to_string(), cube.to_string(), tree.to_string()], ["flat", "hypercube", "fat-tree-4"]);
    }
}
