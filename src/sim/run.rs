//! Running many simulations.
