//! Real threads' traces (`psearch --trace`): one track per thread, its
//! life from its start to the run's join as flat complete events —
//! `search` (the rest), `idle` (looking for or waiting for work), `lock`
//! (waiting on a contended lock; a lock wait inside an idle span cuts it)
//! — in ns of wall time from the run's start (`docs/formats.md`,
//! "Traces"). The threads record their spans in memory
//! ([`crate::real::record`]), at most [`spans_per_thread`] each, so the
//! trace stays under its limit; a thread past it ends in one `not
//! traced` span.

use super::{Clock, Writer};
use crate::real::record::{FlatKind, RealTrace};
use serde::Serialize;
use std::io::Write;

/// The most bytes a thread's recorded span takes in the trace: it may cut
/// an idle span in two, so two events of at most 128 bytes each (`ts` and
/// `dur` of up to 13 digits, a thread number of up to 4).
pub const BYTES_PER_SPAN: u64 = 256;

/// The bytes of a trace's head, names and end, at most, for `threads`.
fn fixed(threads: usize) -> u64 {
    1024 + 256 * threads as u64
}

/// How many spans each of `threads` threads may record for the trace to
/// stay within `limit` bytes (at least one); `None` if even that passes.
pub fn spans_per_thread(limit: u64, threads: usize) -> Option<usize> {
    let room = limit.checked_sub(fixed(threads) + 2 * 128 * threads as u64)?;
    Some(((room / (BYTES_PER_SPAN * threads.max(1) as u64)) as usize).max(1))
}

#[derive(Serialize)]
struct NoArgs {}

/// Writes `trace` (the run `run`) to `out`.
pub fn write<W: Write>(run: &str, trace: &RealTrace, out: W) -> std::io::Result<W> {
    let mut w = Writer::new(out, "psearch", run, Clock::Ns);
    w.process_name(0, &format!("threads: {run}"));
    for (i, t) in trace.threads.iter().enumerate() {
        w.thread_name(0, i as u64, &format!("thread {i}"));
        for (kind, a, b) in t.flat() {
            let name = match kind {
                Some(FlatKind::Search) => "search",
                Some(FlatKind::Idle) => "idle",
                Some(FlatKind::Lock) => "lock",
                None => "not traced",
            };
            w.complete(0, i as u64, name, name, a, b - a, &NoArgs {});
        }
    }
    w.instant(0, 0, "joined", "end", trace.wall_ns, &NoArgs {});
    w.finish()
}
