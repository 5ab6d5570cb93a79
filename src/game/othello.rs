//! othello (in progress).
