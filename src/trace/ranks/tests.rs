//! The MPI ranks' recorder driven by hand: two ranks' records gathered,
//! shifted onto rank 0's clock and read back; the bound's cut; the widest
//! event within its bytes.

use super::*;
use crate::cluster::exec::transport::Task;
use crate::trace::check;
use crate::value::Window;

fn task(id: u32) -> Msg<u64> {
    Msg::Task(Task { id, node: 7, max: false, ply: 1, depth: 3, window: Window { alpha: -5, beta: 9 } })
}

/// A master-slave exchange on two ranks, each on its own clock: rank 0
/// sends task 1 at 100, rank 1 (idle until 1,000) searches it and
/// answers at 1,500, rank 0 (idle 200 to 2,000) has the value at 2,100;
/// then rank 0 stops rank 1, which has left its loop (no arrow).
fn two_ranks(bound: usize) -> (RankLog, RankLog) {
    let (mut r0, mut r1) = (RankLog::new(bound), RankLog::new(bound));
    r0.sent(0, 1, 100, u64::MAX, &task(1));
    r0.handled(0, Handler::Start, 0, 200, 0);
    r0.idle(0, 200, 2_000, false);
    r1.idle(1, 0, 1_000, true);
    r1.receiving(1, 0, &task(1), (), 1_000);
    r1.searched(1, 40);
    r1.sent(1, 0, 1_500, u64::MAX, &Msg::<u64>::Result { id: 1, value: 3 });
    r1.handled(1, Handler::Message { from: 0, kind: "Task" }, 1_000, 1_600, 40);
    r1.finish();
    r0.receiving(0, 1, &Msg::<u64>::Result { id: 1, value: 3 }, (), 2_000);
    r0.done(0, 2_100, 3);
    r0.handled(0, Handler::Message { from: 1, kind: "Result" }, 2_000, 2_100, 0);
    r0.sent(0, 1, 2_100, u64::MAX, &Msg::<u64>::Stop);
    r0.finish();
    (r0, r1)
}

/// Rank 0 started 10,000 ns after its answers' anchor; rank 1's best
/// ping left 5,000 ns before its start and came back 4,000 ns before,
/// rank 0 reading 5,300: −4,700 on rank 0's run clock against the
/// midpoint, −4,500 on rank 1's. Rank 1's times shift by −200 ns, within
/// ±500 ns (half the round trip).
const ROOT: ClockSync = ClockSync::Root { start: 10_000 };
const PING: ClockSync = ClockSync::Ping { sent: -5_000, back: -4_000, answer: 5_300 };

fn gathered(bound: usize) -> String {
    let (mut r0, mut r1) = two_ranks(bound);
    let b1 = r1.close(1, 1_700, PING);
    let b0 = r0.close(0, 2_200, ROOT);
    r0.gathered(vec![b0, b1]);
    String::from_utf8(write(&r0, "a run", 2, bound, vec![]).unwrap()).unwrap()
}

#[test]
fn ranks_are_shifted_onto_rank_0s_clock_and_arrows_matched() {
    let text = gathered(1000);
    let s = check::read(&text, 1000, None).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let about = &v["otherData"];
    // Rank 1's shift is −200 ns: the trace starts at rank 1's start, rank 0's 200 ns later.
    assert_eq!(about["ranks"][0]["start_ns"], 200);
    assert_eq!(about["ranks"][1]["start_ns"], 0);
    assert_eq!(about["ranks"][1]["end_ns"], 1_700);
    assert_eq!(about["ranks"][0]["end_ns"], 2_400);
    assert_eq!(about["ranks"][1]["clock_error_ns"], 500);
    assert_eq!(about["clock_error_ns"], 500);
    assert_eq!(about["tool"], "psearch --mpi");
    // Task and Result have arrows; Stop reached a rank out of its loop: none.
    assert_eq!(s.flows, (2, 2, 0));
    assert_eq!(about["sends_without_arrow"], 1);
    assert_eq!(about["receipts_without_arrow"], 0);
    // Rank 1's task opened and was answered.
    assert_eq!(s.spans, (1, 1));
    // Busy and idle per rank, in ns, and on the shifted clock.
    assert_eq!(s.in_cat((0, 0), "busy"), 300);
    assert_eq!(s.in_cat((0, 0), "idle"), 1_800);
    assert_eq!(s.in_cat((1, 1), "busy"), 600);
    assert_eq!(s.in_cat((1, 1), "idle"), 1_000);
    assert_eq!(s.slices[&(1, 1)], [(0, 1_000), (1_000, 1_600)]);
    assert_eq!(s.slices[&(0, 0)], [(200, 400), (400, 2_200), (2_200, 2_300)]);
    assert_eq!(s.instants["root value"], vec![((0, 0), 2_300)]);
    for track in s.slices.values() {
        assert_eq!(check::overlap(track), None);
    }
    let task = v["traceEvents"].as_array().unwrap().iter().find(|e| e["ph"] == "b").unwrap();
    assert_eq!((task["ts"].as_f64(), task["args"]["depth"].as_u64(), task["pid"].as_u64()), (Some(1.0), Some(3), Some(1)));
    let end = v["traceEvents"].as_array().unwrap().iter().find(|e| e["ph"] == "e").unwrap();
    assert_eq!((end["ts"].as_f64(), end["args"]["outcome"].as_str(), end["args"]["nodes"].as_u64()), (Some(1.5), Some("answered"), Some(40)));
}

#[test]
fn a_rank_past_its_bound_ends_in_one_not_traced_span() {
    // Four events a rank: rank 1 keeps its idle, the Task's receipt and
    // its task's start (two: its end kept for it); the Result's send at
    // 1,500 does not fit. Rank 0 keeps its send, start, idle and the
    // Result's receipt; its handler at 2,000 does not fit.
    let text = gathered(4);
    let s = check::read(&text, 1000, None).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["otherData"]["ranks"][1]["cut_ns"], 1_500);
    assert_eq!(v["otherData"]["ranks"][0]["cut_ns"], 2_200);
    let not = ("not traced".to_string(), "not traced".to_string(), String::new());
    assert_eq!(s.time[&(1, 1)][&not], 200);
    assert_eq!(s.time[&(0, 0)][&not], 200);
    // The task's end was cut: it ends with the rank's run.
    assert_eq!(s.spans, (1, 1));
    let end = v["traceEvents"].as_array().unwrap().iter().find(|e| e["ph"] == "e").unwrap();
    assert_eq!((end["ts"].as_f64(), end["args"]["outcome"].as_str()), (Some(1.7), Some("not traced")));
    // The root's value is kept past the bound.
    assert_eq!(s.instants["root value"], vec![((0, 0), 2_300)]);
    // The Result's send was cut on rank 1: rank 0's receipt has no arrow.
    assert_eq!(v["otherData"]["receipts_without_arrow"], 1);
    assert_eq!(s.flows.0, s.flows.1);
    assert_eq!(s.flows.2, 0);
    for track in s.slices.values() {
        assert_eq!(check::overlap(track), None);
    }
}

#[test]
fn the_bound_is_the_limit_shared_by_the_ranks() {
    assert_eq!(events_per_rank(1 << 30, 4), Some(((1u64 << 30) - fixed(4) - 4 * 256) as usize / (4 * 256)));
    assert_eq!(events_per_rank(1000, 4), None);
    assert_eq!(events_per_rank(fixed(2) + 512, 2), Some(1));
    assert_eq!(arrow(2, 1, 5, 3), (7 << 32) | 5);
}

#[test]
fn the_widest_events_fit_their_bytes() {
    // Times below 2^53 ns (104 days), span ids at their widest (rank 4,095,
    // 2^40 spans), every other number at its type's widest.
    let mut w = Writer::new(vec![], "psearch --mpi", "r", Clock::Ns);
    let big = (1 << 53) - 1;
    let span = (1 << 52) - 1;
    let r = 4095;
    let before = w.bytes();
    let b = Begin { from: r as usize, id: u32::MAX, ply: u32::MAX, depth: u32::MAX, alpha: i64::MIN, beta: i64::MIN, pass: Some(u32::MAX), path: None };
    w.async_begin(r, r, "task", "task", span, big, &b);
    let mut widest = w.bytes() - before;
    let mut each = |f: &mut dyn FnMut(&mut Writer<Vec<u8>>)| {
        let before = w.bytes();
        f(&mut w);
        widest = widest.max(w.bytes() - before);
    };
    each(&mut |w| w.complete(r, r, "Request", "busy", big, big, &Busy { from: Some(r as usize), handled: "Request", nodes: u64::MAX }));
    each(&mut |w| w.complete(r, r, "start-up idle", "idle", big, big, &NoArgs {}));
    each(&mut |w| w.flow_start(r, r, "Request", u64::MAX, big));
    each(&mut |w| w.flow_end(r, r, "Request", u64::MAX, big));
    each(&mut |w| w.async_end(r, r, "task", "task", span, big, &End { outcome: "open at the end", nodes: u64::MAX }));
    assert!(widest <= BYTES_PER_EVENT, "{widest}");
}
