//! Integration tests: the tools as a user runs them. One test binary (with
//! modules) keeps link time down. Run with `cargo test --release`: some
//! tests search millions of nodes.

mod util;

mod foundation;
mod pabsim;
mod psearch;

mod chapter5;
mod cluster;
mod eval_noise;
mod games;
mod incremental;
mod integrity;
mod othellox;
mod ura2014;

mod algorithms;

mod bad_input;
mod library;
mod options;
mod outputs;
mod repository;
mod trace;
