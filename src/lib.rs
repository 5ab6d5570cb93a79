//! `parab`: a toolkit that reproduces the experiments of V. Manohararajah,
//! *Parallel Alpha-Beta Search on Shared Memory Multiprocessors* (M.A.Sc.
//! thesis, University of Toronto, 2001), and goes beyond them.
//!
//! One module per concept of the thesis: random streams ([`rng`]), artificial
//! trees ([`tree`]), seed sets ([`seeds`]), the sequential search with
//! pluggable observers ([`search`]), move-ordering statistics ([`fbest`]).
//! Beyond the thesis, [`game`] makes the search and the simulator generic
//! over a tree source, of which the artificial model is one and chess and
//! Othello are two more.
//! File formats live in [`formats`]; command-line plumbing (inputs, atomic
//! outputs, the shared `main`) in [`cli`]; progress bars for the long stages in
//! [`progress`].

pub mod classify;
pub mod cli;
pub mod fbest;
pub mod formats;
pub mod game;
pub mod nn;
pub mod nntrain;
pub mod progress;
pub mod rng;
pub mod search;
pub mod seeds;
pub mod sim;
pub mod trainset;
pub mod tree;
