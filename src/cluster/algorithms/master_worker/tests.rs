//! The master-worker's tests: the master's passes and windows worked by
//! hand (plain and NegaScout, its ε-windows), the NegaScout master's root
//! values on many trees, workers in tiny slices, the ring of shared
//! entries, the master's tree's size and its estimate.

use super::*;
use crate::cluster::exec::events::Delivery;
use crate::cluster::exec::machine::{self, Costs};
use crate::search::NodeCounts;
use crate::tree::incremental::{INode, Incremental};
use crate::value::{ROOT_ALPHA, ROOT_BETA};

/// A message of the master-worker on incremental trees.
type M = Msg<INode, MwMsg<INode>>;

/// A transport that records what the master sends.
struct Record {
    sent: Vec<(usize, M)>,
    done: Option<i64>,
    woken: u32,
}

impl Transport<INode, MwMsg<INode>> for Record {
    fn rank(&self) -> usize {
        0
    }
    fn procs(&self) -> usize {
        3
    }
    fn send(&mut self, to: usize, msg: M) {
        self.sent.push((to, msg));
    }
    fn searched(&mut self, _: NodeCounts) {}
    fn done(&mut self, v: i64) {
        self.done = Some(v);
    }
    fn wake(&mut self) {
        self.woken += 1;
    }
}

/// A task sent: (worker, leaf, window relative to 2^30, signature).
type Sent = (usize, u32, (i64, i64), Vec<u16>);

/// The tasks sent since the last call.
fn tasks(r: &mut Record) -> Vec<Sent> {
    let rel = |v: i64| if v == ROOT_ALPHA || v == ROOT_BETA { v } else { v - OFF };
    let out = r
        .sent
        .iter()
        .filter_map(|(to, m)| match m {
            Msg::Own(MwMsg::Work { job, sig, .. }) => Some((*to, job.id, (rel(job.window.alpha), rel(job.window.beta)), sig.clone())),
            _ => None,
        })
        .collect();
    r.sent.clear();
    out
}

const OFF: i64 = 1 << 30;
const A0: u32 = 3;
const B0: u32 = 5;
const B1: u32 = 6;

#[test]
fn the_masters_pass_and_task_windows_by_hand() {
    // b = 2, d = 3, d' = 2, 2 workers; values relative to 2^30. The
    // root (MAX) has A (id 1) and B (2), both MIN; A's leaves A0 (3),
    // A1 (4) are worth −272, +133 statically and −397, +344 at depth 1;
    // B's B0 (5), B1 (6): +108, +109 and +374, +176. Minimax: 176.
    // The root is 2 plies above its leaves: no shallow search first (it
    // would be the root's own static value).
    let t = Incremental::new(2, 100).unwrap();
    let root = t.root(3);
    assert_eq!(crate::search::minimax(&t, &root, true, 3, 0), OFF + 176);
    let mut m = Master::<Incremental>::new(&root, 3, 2, 3, None);
    let mut r = Record { sent: vec![], done: None, woken: 0 };
    let full = Window::ROOT;
    // Pass 1: static values only, nothing decided, so no task window moves
    // (Fig. 4 line 20: only a child without uncertain values moves it);
    // every leaf is a task with the full task window, round robin over the
    // workers. A = min(−272, 133 clamped to −272) = −272; B, in the pass
    // window (−272, ∞), = min(108, 109) = 108: the root 108.
    m.run_pass(&t, &mut r);
    let all = (ROOT_ALPHA, ROOT_BETA);
    assert_eq!(tasks(&mut r), [(1, A0, all, vec![0, 0]), (2, 4, all, vec![0, 1]), (1, B0, all, vec![1, 0]), (2, B1, all, vec![1, 1])]);
    // Pass 2, after A1's full-depth result (+344): B (108) now goes
    // first. B0, B1 are uncertain: B = 108, the root's pass window becomes
    // (108, ∞) and its task window stays full (B had uncertain values).
    // In A, A1 is decided (+344, inside (108, ∞)) and is used first
    // (§3.1: decided children narrow both windows before the others are
    // searched): b1 = b2 = 344. Then A0's static −272 is clamped to 108 =
    // the pass window's alpha: A fails low; A0's task goes with the task
    // window (−∞, 344).
    m.report(&mut r, 4, 1, full, OFF + 344);
    assert_eq!(r.woken, 1);
    m.run_pass(&t, &mut r);
    assert_eq!(tasks(&mut r), [(1, B0, all, vec![0, 0]), (2, B1, all, vec![0, 1]), (1, A0, (ROOT_ALPHA, 344), vec![1, 0])]);
    // Pass 3, after B0's (+374). In B (MIN): B0 is decided, 374, so
    // b1 = 374 and, B0 having no uncertain value, b2 = min(b2, b1) = 374:
    // B1's task window is (−∞, 374), as its pass window. B1 is uncertain
    // (static 109): B = 109 and the root's task window stays full while its
    // pass window is (109, ∞). In A, A1 goes first now (its pass-1 value was
    // clamped: −272 ties A0's, and A0's pass-2 value was 108, A1 kept
    // −272 < 108 for MIN); A1 is decided, +344, inside (109, ∞): b1 = 344
    // and b2 = min(∞, 344) = 344, so A0's task window is (−∞, 344).
    m.report(&mut r, B0, 1, full, OFF + 374);
    m.run_pass(&t, &mut r);
    assert_eq!(tasks(&mut r), [(2, B1, (ROOT_ALPHA, 374), vec![0, 1]), (1, A0, (ROOT_ALPHA, 344), vec![1, 1])]);
    assert_eq!(r.done, None);
    // Pass 4, after B1's (+176, in its task window) and A0's (−397): every
    // leaf visited is decided: B = min(374, 176) = 176, and in A, with the
    // pass window (176, ∞), A1 (+344) then A0 (−397 ≤ 176): A fails low.
    // The root is 176, and both workers are stopped.
    m.report(&mut r, B1, 1, Window { alpha: ROOT_ALPHA, beta: OFF + 374 }, OFF + 176);
    m.report(&mut r, A0, 1, Window { alpha: ROOT_ALPHA, beta: OFF + 344 }, OFF - 397);
    m.run_pass(&t, &mut r);
    assert_eq!(r.done, Some(OFF + 176));
    assert_eq!(r.sent, [(1, Msg::Stop), (2, Msg::Stop)]);
    assert_eq!(m.passes, 4);
}

#[test]
fn a_first_visit_searches_two_plies_shallower_first_by_hand() {
    // The tree above (seed 3) to d = 5 with d' = 4: the root is 4 plies
    // above its leaves, so its first visit is first searched to ply 2
    // (Fig. 4 lines 13-14), static values at ply 2, no task sent. There A
    // (id 1, MIN) = min(−272, 133 clamped) = −272 and B (id 2) = min(108,
    // 109) = 108 (A's children get ids 3, 4 and B's 5, 6 in that search).
    // The search proper orders the root's children by those values, B
    // first (the source's order would put A first); in B, B0 (108) before
    // B1 (109); B0 (id 5) is expanded now (ids 7, 8), and its first child,
    // 7 (ids 9, 10), never visited, keeps the source's order: the first
    // task is leaf 9, signature (0, 0, 0, 0), and no task went out before.
    let t = Incremental::new(2, 100).unwrap();
    let root = t.root(3);
    let mut m = Master::<Incremental>::new(&root, 5, 4, 3, None);
    let mut r = Record { sent: vec![], done: None, woken: 0 };
    m.run_pass(&t, &mut r);
    let sent = tasks(&mut r);
    assert_eq!(sent[0], (1, 9, (ROOT_ALPHA, ROOT_BETA), vec![0, 0, 0, 0]));
    // The shallow search expanded A and B (children 3, 4 and 5, 6) before
    // the search proper expanded B0 (7, 8) and 7 (9, 10).
    assert_eq!([1, 2, 5, 7].map(|i| m.tree.nodes[i].first), [3, 5, 7, 9]);
}

#[test]
fn shallow_results_are_checked_deepest_first_then_shallower() {
    // d = 5, d' = 2: a leaf's task is 3 plies, so depths 1 and 2 are
    // shallow. Leaf A0 (id 3, MAX to move; static −272) is reported a
    // lower bound −400 at depth 2 (it failed high in (−∞, −400)) and an
    // exact −350 at depth 1.
    let t = Incremental::new(2, 100).unwrap();
    let root = t.root(3);
    let mut m = Master::<Incremental>::new(&root, 5, 2, 3, None);
    let mut r = Record { sent: vec![], done: None, woken: 0 };
    m.run_pass(&t, &mut r);
    m.report(&mut r, A0, 2, Window { alpha: ROOT_ALPHA, beta: OFF - 400 }, OFF - 400);
    m.report(&mut r, A0, 1, Window::ROOT, OFF - 350);
    let w = |a: i64, b: i64| Window { alpha: OFF + a, beta: OFF + b };
    // Kept deepest first.
    assert_eq!(m.tree.shallow(A0 as usize), [(2, OFF - 400, ROOT_BETA), (1, OFF - 350, OFF - 350)]);
    // In (−500, −450) the depth-2 bound settles it: at least −400, so it
    // fails high, −450.
    assert_eq!(m.uncertain_value(&t, A0 as usize, w(-500, -450)), OFF - 450);
    // In the full window the depth-2 bound settles nothing: depth 1's
    // exact −350 is taken (not the static −272).
    assert_eq!(m.uncertain_value(&t, A0 as usize, Window::ROOT), OFF - 350);
    // A second depth-2 result, an upper bound −390 (failed low in
    // (−390, ∞)), narrows that depth to [−400, −390]: still not exact; in
    // (−395, 0) it settles nothing, and depth 1's −350 is inside: −350.
    m.report(&mut r, A0, 2, Window { alpha: OFF - 390, beta: ROOT_BETA }, OFF - 390);
    assert_eq!(m.tree.shallow(A0 as usize)[0], (2, OFF - 400, OFF - 390));
    assert_eq!(m.uncertain_value(&t, A0 as usize, w(-395, 0)), OFF - 350);
    // In (−380, 0) the depth-2 bounds do settle it (at most −390): −380.
    assert_eq!(m.uncertain_value(&t, A0 as usize, w(-380, 0)), OFF - 380);
    // A leaf without results takes its static value (A1, id 4: +133).
    assert_eq!(m.uncertain_value(&t, 4, Window::ROOT), OFF + 133);
}

#[test]
fn the_masters_tree_is_compact_and_its_estimate_covers_it() {
    // One 64-byte record per node for the incremental trees' 16-byte
    // positions (the children a range, the order a permutation in them).
    assert_eq!(master_node_bytes::<crate::tree::incremental::INode>(), 64);
    // b = 5, d = 9, d' = 4 on 64 processes: the minimal tree to d' stores
    // 1 + 5 × (1 + 5 + 9 + 29) = 221 nodes; the estimate takes 3 times
    // that, twice for capacity, plus shallow results and bookkeeping.
    let est = master_memory::<crate::tree::incremental::INode>(5, 9, 4, 64);
    assert_eq!(est, 221 * 3 * 2 * 64 + 49 * 3 * (24 + 3 * 24) + 32 * 64);
    let t = Incremental::new(5, 100).unwrap();
    for seed in 1..=4 {
        let root = t.root(seed);
        let mut p: Vec<MasterWorkerProcess<Incremental>> = (0..64).map(MasterWorkerProcess::maker(&root, 9, 64, 1 << 12, MwOptions::new(4))).collect();
        let s = machine::run(&t, &mut p, Costs::default(), Delivery::Timed).expect("time within 2^64 ns");
        assert_eq!(s.map(|s| s.value), Some(crate::search::minimax(&t, &root, true, 9, 0)));
        let MasterWorkerProcess::Master(m) = &p[0] else { panic!("rank 0 is the master") };
        assert!(m.tree_bytes() <= est, "seed {seed}: {} > {est}", m.tree_bytes());
        assert!(m.tree_nodes() >= 221, "seed {seed}: {}", m.tree_nodes());
    }
}

#[test]
fn workers_cut_into_tiny_slices_still_return_the_minimax_value() {
    // Slices of a few nodes: the workers pause every few nodes, look at
    // their messages, and abort a search when a more important task came.
    let t = Incremental::new(3, 100).unwrap();
    let mut aborts = 0;
    for seed in 1..=6 {
        let root = t.root(seed);
        let want = crate::search::minimax(&t, &root, true, 7, 0);
        for (procs, dm) in [(2, 1), (3, 2), (8, 3)] {
            for updates in [true, false] {
                for delivery in [Delivery::Timed, Delivery::Adversarial(seed)] {
                    let opts = MwOptions { updates, slice: 3, ..MwOptions::new(dm) };
                    let mut p: Vec<MasterWorkerProcess<Incremental>> = (0..procs).map(MasterWorkerProcess::maker(&root, 7, procs, 1 << 10, opts)).collect();
                    let s = machine::run(&t, &mut p, Costs::default(), delivery).expect("time within 2^64 ns");
                    assert_eq!(s.map(|s| s.value), Some(want), "seed {seed} procs {procs} updates {updates} {delivery:?}");
                    aborts += p.iter().map(|q| if let MasterWorkerProcess::Worker(w) = q { w.aborts } else { 0 }).sum::<u64>();
                }
            }
        }
    }
    assert!(aborts > 10, "{aborts}");
}

/// A worker's transport: its nodes and reports.
#[derive(Default)]
struct WRecord {
    nodes: u64,
    reports: Vec<(u32, u32, i64)>,
    woken: u32,
}

impl Transport<INode, MwMsg<INode>> for WRecord {
    fn rank(&self) -> usize {
        1
    }
    fn procs(&self) -> usize {
        2
    }
    fn send(&mut self, _to: usize, msg: M) {
        if let Msg::Own(MwMsg::Report { id, depth, value, .. }) = msg {
            self.reports.push((id, depth, value));
        }
    }
    fn searched(&mut self, c: NodeCounts) {
        self.nodes += c.nodes;
    }
    fn done(&mut self, _: i64) {}
    fn wake(&mut self) {
        self.woken += 1;
    }
}

#[test]
fn a_worker_aborts_only_for_a_more_important_task() {
    // Fig. 5: task 1 runs in slices of 10 nodes; task 2 (a later
    // signature) arrives and task 1 goes on where it paused; task 3 (an
    // earlier signature) arrives and task 1 is aborted, task 3 searched,
    // then task 1 again (its finished subtrees from the table).
    let t = Incremental::new(3, 100).unwrap();
    let root = t.root(5);
    let (a, b, c) = (t.child(&root, true, 0), t.child(&root, true, 1), t.child(&root, true, 2));
    let task = |node, sig: u16| WTask { node, max: false, ply: 1, full: 6, window: Window::ROOT, pass: 1, sig: vec![sig], outside: false };
    let opts = MwOptions { updates: false, slice: 10, ..MwOptions::new(1) };
    let mut w = Worker::<Incremental>::new(1 << 12, opts);
    let mut r = WRecord::default();
    let mut one = crate::cluster::search::Searcher::<Incremental>::new(1 << 12);
    let va = one.search(&t, &a, false, 6, 1, Window::ROOT);
    w.on_work(&mut r, 1, task(a, 1));
    w.on_resume(&t, &mut r);
    assert_eq!((r.nodes, w.aborts), (10, 0));
    w.on_work(&mut r, 2, task(c, 2));
    let mut turns = 0;
    while r.reports.is_empty() && turns < 100_000 {
        turns += 1;
        w.on_resume(&t, &mut r);
    }
    // Task 1 finished as if never interrupted: its nodes, its value.
    assert_eq!((r.nodes, w.aborts, r.reports[0]), (one.counts.nodes, 0, (1, 6, va)));
    // Again, now preempted after 20 nodes by task 3.
    let mut w = Worker::<Incremental>::new(1 << 12, opts);
    let mut r = WRecord::default();
    w.on_work(&mut r, 1, task(a, 1));
    w.on_resume(&t, &mut r);
    w.on_resume(&t, &mut r);
    w.on_work(&mut r, 3, task(b, 0));
    let mut turns = 0;
    while r.reports.len() < 2 && turns < 100_000 {
        w.on_resume(&t, &mut r);
        turns += 1;
    }
    assert_eq!(w.aborts, 1);
    assert_eq!(r.reports.iter().map(|x| x.0).collect::<Vec<_>>(), [3, 1]);
    assert_eq!(r.reports[1], (1, 6, va));
    assert!(r.nodes > one.counts.nodes);
}

#[test]
fn the_negascout_master_scouts_with_null_windows_and_sends_epsilon_windows_by_hand() {
    // The tree of the hand-worked case above, ε = 10 (relative values).
    let t = Incremental::new(2, 100).unwrap();
    let root = t.root(3);
    let mut m = Master::<Incremental>::new(&root, 3, 2, 3, Some(10));
    let mut r = Record { sent: vec![], done: None, woken: 0 };
    let all = (ROOT_ALPHA, ROOT_BETA);
    // Pass 1. A (first child) whole: A0 −272 (its ε-window around the
    // full pass window is the full window), then A1 scouted with A's null
    // window (−273, −272): its 133 fails high there, A = −272, and A1's
    // task gets (−283, −262), 2ε + 1 wide. B scouted in (−272, −271): B0
    // and B1 (B1 whole: B's window is null already) both −271, ε-windows
    // (−282, −261); B fails high and is searched again in (−272, ∞): B0 =
    // 108 with a new ε-window (−282, ∞), the pass window having left the
    // old one, and B1 scouted in (107, 108) stands: (97, 118). Both go
    // again to the worker they went to in this pass. The root is 108.
    m.run_pass(&t, &mut r);
    assert_eq!(
        tasks(&mut r),
        [
            (1, A0, all, vec![0, 0]),
            (2, 4, (-283, -262), vec![0, 1]),
            (1, B0, (-282, -261), vec![1, 0]),
            (2, B1, (-282, -261), vec![1, 1]),
            (1, B0, (-282, ROOT_BETA), vec![1, 0]),
            (2, B1, (97, 118), vec![1, 1]),
        ]
    );
    assert_eq!(m.tree.nodes[0].est, OFF + 108);
    // Pass 2, after A0's exact −397: B (108) goes first, whole: B0 in the
    // full window leaves its ε-window (−282, ∞), so it gets the full one;
    // B1's scout window (107, 108) lies inside its ε-window (97, 118): the
    // same window again, the worker's search goes on. The root's scout of
    // A in (108, 109) stands: A0 (−397) cuts A off. A1 is not visited.
    m.report(&mut r, A0, 1, Window::ROOT, OFF - 397);
    m.run_pass(&t, &mut r);
    assert_eq!(tasks(&mut r), [(1, B0, all, vec![0, 0]), (2, B1, (97, 118), vec![0, 1])]);
    // Pass 3, after B0's exact +374: B1's scout (373, 374) leaves (97,
    // 118): a new ε-window (363, 384); its static 109 fails low there, so
    // B1 is searched again in (−∞, 374), a new window again, (−∞, 384).
    m.report(&mut r, B0, 1, Window::ROOT, OFF + 374);
    m.run_pass(&t, &mut r);
    assert_eq!(tasks(&mut r), [(2, B1, (363, 384), vec![0, 1]), (2, B1, (ROOT_ALPHA, 384), vec![0, 1])]);
    assert_eq!(r.done, None);
    // Pass 4, after B1's +176 in (−∞, 384): exact. B = min(374, 176) =
    // 176 (B1's scout fails low, its whole search 176), the scout of A in
    // (176, 177) stands on A0: every leaf decided, the root 176.
    m.report(&mut r, B1, 1, Window { alpha: ROOT_ALPHA, beta: OFF + 384 }, OFF + 176);
    m.run_pass(&t, &mut r);
    assert_eq!(r.done, Some(OFF + 176));
    assert_eq!(tasks(&mut r), []);
    assert_eq!(m.passes, 4);
}

#[test]
fn an_epsilon_window_is_kept_while_the_pass_window_moves_inside_it() {
    // The tree above to d = 5 with d' = 2: the same first pass (tasks of 3
    // plies now), so B1's last ε-window is (97, 118) (ε = 10). Then
    // shallow results move B0 to 113 and B1 to 115: in pass 2 B (first,
    // whole) takes B0 = 113 and scouts B1 in (112, 113) — a pass window
    // that moved but lies inside (97, 118), so B1 is sent (97, 118) again,
    // not (102, 123) around its new pass window; B1's 115 makes the scout
    // stand. B0's full pass window leaves its (−282, ∞): the full window.
    // A0, scouted in (113, 114) inside its full ε-window, keeps it too.
    let t = Incremental::new(2, 100).unwrap();
    let root = t.root(3);
    let mut m = Master::<Incremental>::new(&root, 5, 2, 3, Some(10));
    let mut r = Record { sent: vec![], done: None, woken: 0 };
    m.run_pass(&t, &mut r);
    assert_eq!(tasks(&mut r).last(), Some(&(2, B1, (97, 118), vec![1, 1])));
    m.report(&mut r, B0, 1, Window::ROOT, OFF + 113);
    m.report(&mut r, B1, 1, Window::ROOT, OFF + 115);
    m.run_pass(&t, &mut r);
    let all = (ROOT_ALPHA, ROOT_BETA);
    assert_eq!(tasks(&mut r), [(1, B0, all, vec![0, 0]), (2, B1, (97, 118), vec![0, 1]), (1, A0, all, vec![1, 0])]);
    assert_eq!(m.tree.nodes[0].est, OFF + 113);
    assert_eq!(m.sent.get(&B1), Some(&(Window { alpha: OFF + 97, beta: OFF + 118 }, 2)));
}

#[test]
fn an_epsilon_window_settles_every_pass_window_inside_it() {
    // A result in an ε-window W is fail-hard in W: strictly inside, exact;
    // at a bound, a bound that settles every pass window inside W. Leaf A0
    // (MAX to move), W = (−20, 1), as a null window (−10, −9) with ε = 10
    // gives.
    let w = |a: i64, b: i64| Window { alpha: OFF + a, beta: OFF + b };
    assert_eq!(master::epsilon_window(w(-10, -9), 10), w(-20, 1));
    assert_eq!(master::epsilon_window(w(-10, -9), MAX_EPSILON), Window::ROOT);
    assert_eq!(master::epsilon_window(Window { alpha: ROOT_ALPHA, beta: OFF }, 5), Window { alpha: ROOT_ALPHA, beta: OFF + 5 });
    let t = Incremental::new(2, 100).unwrap();
    let root = t.root(3);
    let mut m = Master::<Incremental>::new(&root, 5, 2, 3, Some(10));
    let mut r = Record { sent: vec![], done: None, woken: 0 };
    m.run_pass(&t, &mut r);
    // The worker's value 1 is at W's upper bound: at least 1. Every pass
    // window inside W — (−10, −9), (−20, 1), (0, 1) — fails high on it;
    // one reaching past W, (0, 5), is not settled by it.
    m.report(&mut r, A0, 3, w(-20, 1), OFF + 1);
    let n = &m.tree.nodes[A0 as usize];
    for (pass, want) in [(w(-10, -9), Some(OFF - 9)), (w(-20, 1), Some(OFF + 1)), (w(0, 1), Some(OFF + 1)), (w(0, 5), None)] {
        assert_eq!(settled(n.lo, n.hi, pass), want, "{pass:?}");
    }
    // Strictly inside W, −5: exact for every pass window.
    m.report(&mut r, 4, 3, w(-20, 1), OFF - 5);
    let n = &m.tree.nodes[4];
    assert_eq!((n.lo, n.hi), (OFF - 5, OFF - 5));
    assert_eq!(settled(n.lo, n.hi, w(0, 5)), Some(OFF));
}

#[test]
fn the_negascout_master_returns_the_minimax_value() {
    // Many small trees, process counts, master depths and ε (1: windows
    // 3 wide; 200, the paper's; the widest: every ε-window full), timed
    // and with a network that reorders messages; tiny slices, so tasks
    // are interrupted and their windows change while they run.
    let mut runs = 0;
    for b in 3..=5 {
        let t = Incremental::new(b, 100).unwrap();
        for depth in 4..=if b == 5 { 7 } else { 8 } {
            for seed in 1..=2 {
                let root = t.root(seed);
                let want = crate::search::minimax(&t, &root, true, depth, 0);
                for (procs, dm) in [(2, 1), (3, depth / 2), (8, depth - 1), (16, depth / 2 + 1)] {
                    for epsilon in [1, 10, 200, MAX_EPSILON] {
                        let delivery = if (seed + epsilon as u64).is_multiple_of(2) { Delivery::Timed } else { Delivery::Adversarial(seed + depth as u64) };
                        let opts = MwOptions { slice: 16, epsilon: Some(epsilon), ..MwOptions::new(dm) };
                        let mut p: Vec<MasterWorkerProcess<Incremental>> =
                            (0..procs).map(MasterWorkerProcess::maker(&root, depth, procs, 1 << 10, opts)).collect();
                        let s = machine::run(&t, &mut p, Costs::default(), delivery).expect("time within 2^64 ns");
                        assert_eq!(s.map(|s| s.value), Some(want), "b {b} d {depth} seed {seed} procs {procs} d' {dm} ε {epsilon} {delivery:?}");
                        runs += 1;
                    }
                }
            }
        }
    }
    assert_eq!(runs, (5 + 5 + 4) * 2 * 4 * 4);
}

#[test]
fn workers_with_share_absorb_the_rings_entries() {
    // b = 5, d = 9 on 4 workers, sharing 4 plies below each task's root:
    // every worker receives entries, the run is exact, and without
    // sharing no entry moves.
    let t = Incremental::new(5, 100).unwrap();
    let root = t.root(11);
    let want = crate::search::minimax(&t, &root, true, 9, 0);
    assert_eq!(default_share_depth(&t, &root), 4);
    assert_eq!(default_share_depth(&Incremental::new(20, 100).unwrap(), &Incremental::new(20, 100).unwrap().root(1)), 2);
    for share in [Some(4), None] {
        let opts = MwOptions { share, ..MwOptions::new(2) };
        let mut p: Vec<MasterWorkerProcess<Incremental>> = (0..5).map(MasterWorkerProcess::maker(&root, 9, 5, 1 << 16, opts)).collect();
        let s = machine::run(&t, &mut p, Costs::default(), Delivery::Timed).expect("time within 2^64 ns");
        assert_eq!(s.map(|s| s.value), Some(want));
        let absorbed: Vec<u64> = p.iter().filter_map(|q| if let MasterWorkerProcess::Worker(w) = q { Some(w.absorbed) } else { None }).collect();
        if share.is_some() {
            assert!(absorbed.iter().all(|&a| a > 0), "{absorbed:?}");
        } else {
            assert_eq!(absorbed, [0; 4]);
        }
    }
}
