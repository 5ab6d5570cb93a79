//! positions (in progress).
