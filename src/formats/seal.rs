//! Row seals: what lets a merge of shards (`pabsim --merge`) find a
//! per-tree row that was changed after the tool wrote it, or that belongs to
//! another run. Not a thesis concept: it guards the sharded runs of
//! `docs/model.md` §6 (a hand-edited `procs` made a bogus configuration row,
//! a changed tree index emptied SU and SO).
//!
//! A sealed row's `run` column is its run's id, a `-`, and the row's seal:
//! 16 hex digits of a SHA-256 digest of the run id and the row's other
//! columns, as the row type writes them (CSV, without a header), with the
//! columns a merge recomputes cleared by the caller. The seal catches an
//! edit by hand or a row moved between runs; it is a checksum, not a
//! signature (whoever changes a row can reseal it on purpose).

use serde::Serialize;

/// The `run` column of `row` in run `run_id`: `<run id>-<seal>`. `row` is
/// the row as sealed: its `run` column and every column a merge
/// recomputes empty.
pub fn sealed_run<R: Serialize>(run_id: &str, row: &R) -> String {
    format!("{run_id}-{}", seal(run_id, row))
}

/// Splits a `run` column into the run id and the seal; `None` for a row
/// without a seal (written before rows were sealed).
pub fn split_run(run: &str) -> Option<(&str, &str)> {
    run.split_once('-').filter(|(id, seal)| !id.is_empty() && seal.len() == 16)
}

/// Whether `seal` is `row`'s in run `run_id` (`row` cleared as for
/// [`sealed_run`]).
pub fn seal_matches<R: Serialize>(run_id: &str, seal_text: &str, row: &R) -> bool {
    seal(run_id, row) == seal_text
}

/// 16 hex digits of the SHA-256 digest of `run_id` and `row`'s CSV record.
fn seal<R: Serialize>(run_id: &str, row: &R) -> String {
    use sha2::{Digest, Sha256};
    let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(vec![]);
    // Serializing a row into memory cannot fail for the row types (they are
    // written the same way); were it to, the seal of the empty record would
    // not match, and the merge would refuse the row rather than pass it.
    let _ = w.serialize(row);
    let record = w.into_inner().unwrap_or_default();
    let mut h = Sha256::new();
    h.update(run_id.as_bytes());
    h.update(b"\n");
    h.update(&record);
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        procs: u32,
        tree: Option<u32>,
    }

    #[test]
    fn a_seal_changes_with_every_column_and_the_run() {
        let run = sealed_run("0123456789abcdef", &Row { procs: 4, tree: Some(2) });
        let (id, seal) = split_run(&run).unwrap();
        assert_eq!(id, "0123456789abcdef");
        assert!(seal_matches(id, seal, &Row { procs: 4, tree: Some(2) }));
        assert!(!seal_matches(id, seal, &Row { procs: 5, tree: Some(2) }));
        assert!(!seal_matches(id, seal, &Row { procs: 4, tree: None }));
        assert!(!seal_matches("0123456789abcdee", seal, &Row { procs: 4, tree: Some(2) }));
        assert_eq!(split_run("0123456789abcdef"), None, "an unsealed run id");
    }
}
