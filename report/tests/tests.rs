//! Integration tests of `report`. The helper module is the workspace's own
//! (`tests/util.rs`), shared rather than copied.

#[path = "../../tests/util.rs"]
mod util;

mod files;
mod published;
mod real;
mod report;
mod runs;
mod timeline;
