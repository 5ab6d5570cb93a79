//! A traced run's two exchanges with rank 0 (`docs/decisions.md`,
//! "Traces"): before the run's barrier, each rank's clock against rank
//! 0's (`ping`); after the fins, each rank's record to rank 0
//! (`gather`). Both on tags of their own, both only when the run has a
//! recorder, and both done while no policy message is in flight (before
//! the barrier, after the fins), so they cannot meet one.
//!
//! **The clock.** Each rank sends rank 0 [`PINGS`] pings, one at a time;
//! rank 0 answers each with its own clock's reading, and the rank keeps
//! the ping of the shortest round trip. Rank 0 read its clock between the
//! ping's departure and the answer's arrival, so taking it at the midpoint
//! is wrong by at most half that round trip: the trace's error bound.
//! Ranks on one host share a clock, but the ping does not assume it.

use super::{Job, TAG_CLOCK, TAG_TRACE};
use crate::cluster::exec::record::{ClockSync, RankRecorder};
use mpi::point_to_point::MatchedReceiveVec;
use mpi::traits::*;
use std::time::Instant;

/// Pings a rank sends; the shortest round trip is kept (one ping may meet
/// a rank 0 descheduled on a loaded host).
pub const PINGS: usize = 16;

/// The most bytes of a record in one message (MPI counts in `i32`).
const CHUNK: usize = 1 << 28;

/// A rank's readings of the ping, on its own clock.
pub(super) enum Pinged {
    /// Rank 0: the instant its answers count from.
    Root(Instant),
    /// Another rank: its best ping's departure and answer, and the answer.
    Ping { sent: Instant, back: Instant, answer: u64 },
}

/// Every rank's clock against rank 0's, before the run (every rank calls
/// it; rank 0 answers the others' pings in rank order).
pub(super) fn ping(job: Job<'_>) -> Pinged {
    if job.rank == 0 {
        let anchor = Instant::now();
        for r in 1..job.size {
            for _ in 0..PINGS {
                let _ = job.wait_from(r, TAG_CLOCK).matched_receive_vec::<u8>();
                let now = anchor.elapsed().as_nanos() as u64;
                job.world.process_at_rank(r as i32).buffered_send_with_tag(&now, TAG_CLOCK);
            }
        }
        return Pinged::Root(anchor);
    }
    let zero = job.world.process_at_rank(0);
    let mut best: Option<(Instant, Instant, u64)> = None;
    for _ in 0..PINGS {
        let sent = Instant::now();
        zero.buffered_send_with_tag(&[0u8; 0][..], TAG_CLOCK);
        let (answer, _) = job.wait_from(0, TAG_CLOCK).matched_receive_vec::<u64>();
        let back = Instant::now();
        let Some(&answer) = answer.first() else { job.fatal("rank 0's clock answer is empty") };
        if best.is_none_or(|(s, b, _)| back - sent < b - s) {
            best = Some((sent, back, answer));
        }
    }
    let Some((sent, back, answer)) = best else { job.fatal("no clock ping was answered") };
    Pinged::Ping { sent, back, answer }
}

/// A reading of a rank's clock as ns from its run's start `t0` (negative
/// before it).
fn from_start(t0: Instant, t: Instant) -> i64 {
    match t.checked_duration_since(t0) {
        Some(d) => d.as_nanos() as i64,
        None => -((t0 - t).as_nanos() as i64),
    }
}

/// After the fins: this rank's record (its run started at `t0`, its loop
/// ended at `end` ns) to rank 0, whose recorder gets every rank's.
pub(super) fn gather<R: RankRecorder>(job: Job<'_>, rec: &mut R, pinged: Pinged, t0: Instant, end: u64) {
    let sync = match pinged {
        Pinged::Root(anchor) => ClockSync::Root { start: since(anchor, t0) },
        Pinged::Ping { sent, back, answer } => ClockSync::Ping { sent: from_start(t0, sent), back: from_start(t0, back), answer },
    };
    let mine = rec.close(job.rank, end, sync);
    if job.rank != 0 {
        send(job, &mine);
        return;
    }
    let mut all = Vec::with_capacity(job.size);
    all.push(mine);
    for r in 1..job.size {
        all.push(receive(job, r));
    }
    rec.gathered(all);
}

fn since(a: Instant, b: Instant) -> u64 {
    b.saturating_duration_since(a).as_nanos() as u64
}

/// Sends `bytes` to rank 0: its length, then chunks.
fn send(job: Job<'_>, bytes: &[u8]) {
    let head = (bytes.len() as u64).to_ne_bytes();
    send_part(job, &head);
    for part in bytes.chunks(CHUNK) {
        send_part(job, part);
    }
}

/// One message to rank 0, a standard send (a record can pass the buffered
/// sends' buffer) that polls to the timeout rather than blocking.
fn send_part(job: Job<'_>, part: &[u8]) {
    let zero = job.world.process_at_rank(0);
    mpi::request::scope(|scope| job.complete(zero.immediate_send_with_tag(scope, part, TAG_TRACE), |r| r.test().map(drop)));
}

/// Rank `from`'s record, sent by [`send`].
fn receive(job: Job<'_>, from: usize) -> Vec<u8> {
    let (head, _) = job.wait_from(from, TAG_TRACE).matched_receive_vec::<u8>();
    let Ok(len) = <[u8; 8]>::try_from(&head[..]) else { job.fatal(&format!("rank {from}'s trace record has no length")) };
    let len = u64::from_ne_bytes(len) as usize;
    let mut bytes = Vec::with_capacity(len);
    while bytes.len() < len {
        let (part, _) = job.wait_from(from, TAG_TRACE).matched_receive_vec::<u8>();
        bytes.extend_from_slice(&part);
    }
    bytes
}
