//! Integration tests of `report`. The helper module is the workspace's own
//! (`tests/util.rs`), shared rather than copied.

#[path = "../../tests/util.rs"]
mod util;

mod hardening;
mod hardening2;
mod published;
mod report;
