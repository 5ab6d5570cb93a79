//! The path a work request walks in YBWC's three-stage load distribution
//! (OthelloX 2017, §4.5, after Feldmann 1993): an idle process asks its
//! nearest neighbour, and a process with nothing to give passes the
//! request to *its* nearest neighbour, until p processes have seen it.
//!
//! The walk is a cycle through every rank whose steps are as short as the
//! network allows, so that p − 1 steps reach every other process once:
//! on a hypercube the reflected Gray code (each step one link; for P not a
//! power of two the corners ≥ P are skipped, a step of a few links), on the
//! flat network and the fat tree the ring r → r + 1 mod P (inside a node
//! of the fat tree, then one step to the next node).

use crate::cluster::exec::topology::Topology;

/// The rank after `r` on the walk through `procs` processes of `net`.
pub fn next(net: Topology, r: usize, procs: usize) -> usize {
    match net {
        Topology::Hypercube { .. } => {
            let cube = procs.max(1).next_power_of_two();
            let mut i = gray_index(r);
            loop {
                i = (i + 1) % cube;
                let g = i ^ (i >> 1);
                if g < procs {
                    return g;
                }
            }
        }
        Topology::Flat | Topology::FatTree { .. } => (r + 1) % procs.max(1),
    }
}

/// The place of `g` in the reflected Gray code (the inverse of i ^ (i >> 1)).
fn gray_index(g: usize) -> usize {
    let mut i = g;
    let mut s = g >> 1;
    while s != 0 {
        i ^= s;
        s >>= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked: the Gray walk of 8 corners is 0 1 3 2 6 7 5 4, each
    /// step one link; of 6 it skips 7 and 6's successor; every walk visits
    /// every rank once in p steps.
    #[test]
    fn walks_visit_every_rank_once_by_nearest_steps() {
        let cube = Topology::Hypercube { hop_ns: 1 };
        let walk = |net, p| (0..p).scan(0, |r, _| Some(std::mem::replace(r, next(net, *r, p)))).collect::<Vec<_>>();
        assert_eq!(walk(cube, 8), [0, 1, 3, 2, 6, 7, 5, 4]);
        assert_eq!(walk(cube, 6), [0, 1, 3, 2, 5, 4]);
        assert_eq!(walk(Topology::Flat, 4), [0, 1, 2, 3]);
        for p in 1..=70 {
            for net in [cube, Topology::Flat, Topology::FatTree { node_cores: 4, hop_ns: 1 }] {
                let mut w = walk(net, p);
                assert_eq!(next(net, w[p - 1], p), 0);
                w.sort_unstable();
                assert_eq!(w, (0..p).collect::<Vec<_>>(), "{net} {p}");
            }
        }
        assert!((0..64).all(|r| cube.hops(r, next(cube, r, 64)) == 1));
    }
}
