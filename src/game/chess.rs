//! chess (in progress).
