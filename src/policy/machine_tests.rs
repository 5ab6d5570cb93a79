//! The simulated machine (`src/sim/engine/`) run with the registry's
//! policies: the engine's tests that need a policy that finds work, here
//! above both because the engine names no policy (`docs/model.md` §5.2–5.3).

use crate::policy::testkit::*;
use crate::sim::engine::{GROUPED, ROUTINE_LOCKS};

// ---- the executor: grouped turns of waiting processors -----------------------

/// The executor's grouped turns of processors waiting at a busy block
/// (`pass_waiters`) give the run that turns one by one give, to the
/// last tick of every bucket: every policy, both locks, both walks,
/// small and large machines. And they are taken: thousands of times.
#[test]
fn grouped_waiter_turns_are_the_same_run() {
    let mut policies = vec![dts(Walk::Tree), dts(Walk::Level)];
    policies.extend(new_policies());
    GROUPED.with(|g| g.set(0));
    for (b, wa, wb, depth) in [(8, 79, 5, 4), (6, 50, 50, 4), (5, 0, 0, 4), (12, 69, 19, 3)] {
        let sh = shape(b, wa, wb);
        for seed in 1..4u32 {
            let root = Node { seed: seed * 7_368_787, pscore: ROOT_PSCORE as u32 };
            for procs in [2, 3, 7, 48, 64, 130] {
                for &algorithm in &policies {
                    for lock in [LockKind::Tas, LockKind::Queue] {
                        let cfg = MachineSpec { policy: algorithm, lock, ..Spec::new(procs, depth) };
                        let one_by_one = MachineSpec { group_waiters: false, ..cfg };
                        let tag = format!("b={b} seed={seed} p={procs} {algorithm:?} {lock:?}");
                        assert_eq!(
                            simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, cfg),
                            simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, one_by_one),
                            "A {tag}"
                        );
                        assert_eq!(
                            simulate(&sh, root, &ConfidenceSplit { m_b: 1, pv_wait: 1 }, cfg),
                            simulate(&sh, root, &ConfidenceSplit { m_b: 1, pv_wait: 1 }, one_by_one),
                            "B {tag}"
                        );
                    }
                }
            }
        }
    }
    // Sixteen words of processors: the thesis's machine at p = 1,024.
    let sh = shape(8, 79, 5);
    for seed in 1..3u32 {
        let root = Node { seed: seed * 7_368_787, pscore: ROOT_PSCORE as u32 };
        for algorithm in [dts(Walk::Tree), Policy::Steal(Steal { scheme: A1, seed: 5 })] {
            let cfg = MachineSpec { policy: algorithm, ..Spec::new(1024, 4) };
            let one_by_one = MachineSpec { group_waiters: false, ..cfg };
            assert_eq!(
                simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, cfg),
                simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, one_by_one),
                "seed={seed} {algorithm:?}"
            );
        }
    }
    let grouped = GROUPED.with(|g| g.get());
    assert!(grouped > 10_000, "grouped turns taken: {grouped}");
}

// ---- locks -------------------------------------------------------------------

/// With every processor spinning on the split-point lock, its holder must
/// win the block back access by access: the idle loop's lock wait grows
/// with the number of spinners.
#[test]
fn spinners_delay_the_split_lock_holder() {
    let sh = shape(8, 79, 5);
    let root = Node { seed: 31337, pscore: ROOT_PSCORE as u32 };
    let few = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(4, 4)).unwrap();
    let many = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(48, 4)).unwrap();
    let lock_share = |r: &TreeStats, p: u64| r.time[State::Split as usize][TimeKind::Lock as usize] as f64 / (r.ticks * p) as f64;
    assert!(lock_share(&many, 48) > lock_share(&few, 4), "{} vs {}", lock_share(&many, 48), lock_share(&few, 4));
}

/// The locks taken and released without their routines (a free lock
/// whose block the processor holds, an unlock that hits with no queue)
/// give the run the routines give, to the last tick of every bucket:
/// every policy, both locks, both interleavings, small and large
/// machines, schemes A and B.
#[test]
fn locks_taken_at_once_are_the_same_run() {
    let mut policies = vec![dts(Walk::Tree), dts(Walk::Level)];
    policies.extend(new_policies());
    let run = |sh: &Shape, root: Node, cfg: Spec, routines: bool| {
        ROUTINE_LOCKS.with(|r| r.set(routines));
        let a = simulate(sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, cfg);
        let b = simulate(sh, root, &ConfidenceSplit { m_b: 1, pv_wait: 1 }, cfg);
        ROUTINE_LOCKS.with(|r| r.set(false));
        (a, b)
    };
    for (b, wa, wb, depth) in [(8, 79, 5, 4), (6, 50, 50, 4), (12, 69, 19, 3)] {
        let sh = shape(b, wa, wb);
        for seed in 1..3u32 {
            let root = Node { seed: seed * 7_368_787, pscore: ROOT_PSCORE as u32 };
            for procs in [1, 3, 48, 130] {
                for &policy in &policies {
                    for lock in [LockKind::Tas, LockKind::Queue] {
                        for interleave in [Interleave::Access, Interleave::State] {
                            let cfg = MachineSpec { policy, lock, interleave, ..Spec::new(procs, depth) };
                            let tag = format!("b={b} seed={seed} p={procs} {policy:?} {lock:?} {interleave:?}");
                            assert_eq!(run(&sh, root, cfg, false), run(&sh, root, cfg, true), "{tag}");
                        }
                    }
                }
            }
        }
    }
}

// ---- the machine: one processor, the cold start, stalls, the root value ------

#[test]
fn one_processor_is_the_sequential_search() {
    for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (1, 0, 0)] {
        let sh = shape(b, wa, wb);
        for seed in 1..20u32 {
            let root = Node { seed: seed * 7919, pscore: ROOT_PSCORE as u32 };
            for depth in 0..5 {
                for interleave in [Interleave::Access, Interleave::State] {
                    let seq = search(&sh, &root, depth, &mut ());
                    let cfg = MachineSpec { interleave, ..Spec::new(1, depth) };
                    let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap();
                    assert_eq!(r.value, seq.value);
                    assert_eq!(r.nodes, seq.counts.nodes, "b={b} seed={seed} depth={depth}");
                    assert_eq!(r.leaves, seq.counts.leaves);
                    let (n, l, i) = (seq.counts.nodes, seq.counts.leaves, seq.counts.internal);
                    // t_1 = 3 (n - 1) + 8 L + 4 I + 1 + cold-start memory costs.
                    let states = 3 * (n - 1) + 8 * l + 4 * i + 1;
                    let work: u64 = State::ALL.iter().map(|&s| r.work(s)).sum();
                    assert_eq!(work, states);
                    assert_eq!(r.ticks, states + r.mem_stall());
                    assert_eq!(r.accounted(), r.ticks);
                    assert_eq!(r.lock_wait(), 0);
                    // Cold start: 7 node blocks at most (root and one per
                    // level, recycled), the private block, the heap, the flag.
                    assert!(r.mem_stall() <= depth as u64 + 4, "{}", r.mem_stall());
                }
            }
        }
    }
}

/// The published uniprocessor constant: 11 ticks per tree of depth 6
/// beyond the state costs (the root's return and 10 cold misses).
#[test]
fn cold_start_of_a_depth_6_tree() {
    let sh = shape(32, 79, 5);
    let root = Node { seed: 1, pscore: ROOT_PSCORE as u32 };
    let seq = search(&sh, &root, 6, &mut ());
    let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(1, 6)).unwrap();
    let (n, l, i) = (seq.counts.nodes, seq.counts.leaves, seq.counts.internal);
    assert_eq!(r.ticks, 3 * (n - 1) + 8 * l + 4 * i + 11);
}

#[test]
fn no_progress_stops_with_the_processors_states() {
    let sh = shape(6, 50, 50);
    let root = Node { seed: 4242, pscore: ROOT_PSCORE as u32 };
    let cfg = MachineSpec { stall_limit: 5, ..Spec::new(4, 4) };
    let SimError::Stuck { limit, states, .. } = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap_err() else { panic!("not stuck") };
    assert_eq!(limit, 5);
    for q in 0..4 {
        assert!(states.contains(&format!("P{q} ")), "{states}");
    }
    assert!(states.contains("split"), "{states}");
    // With the default limit the same tree finishes, heaps balanced.
    let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(4, 4)).unwrap();
    assert_eq!(r.value, ROOT_PSCORE as i64);
    assert!(r.pool >= 4 * 4 * 2);
}

#[test]
fn zero_processors_are_refused() {
    let sh = shape(2, 0, 0);
    let root = Node { seed: 1, pscore: 5 };
    assert_eq!(simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(0, 2)).unwrap_err(), SimError::NoProcessors);
}

#[test]
fn parallel_root_value_is_minimax() {
    for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (4, 100, 100)] {
        let sh = shape(b, wa, wb);
        for seed in 1..12u32 {
            let root = Node { seed: seed * 104729, pscore: ROOT_PSCORE as u32 };
            for depth in 1..5 {
                let want = search(&sh, &root, depth, &mut ()).value;
                for procs in [2, 3, 7, 16, 48, 64, 256] {
                    for (interleave, walk) in [(Interleave::Access, Walk::Tree), (Interleave::Access, Walk::Level), (Interleave::State, Walk::Tree)] {
                        let cfg = MachineSpec { interleave, policy: dts(walk), ..Spec::new(procs, depth) };
                        let a = simulate(&sh, root, &YbwcSplit { m_a: 2, pv_wait: 1 }, cfg).unwrap();
                        let tag = format!("b={b} seed={seed} depth={depth} p={procs} {interleave:?} {walk:?}");
                        assert_eq!(a.value, want, "A {tag}");
                        assert_eq!(a.accounted(), a.ticks * procs as u64, "A {tag}");
                        let bb = simulate(&sh, root, &ConfidenceSplit { m_b: 1, pv_wait: 1 }, cfg).unwrap();
                        assert_eq!(bb.value, want, "B {tag}");
                        assert_eq!(bb.accounted(), bb.ticks * procs as u64, "B {tag}");
                    }
                }
            }
        }
    }
}

/// Two processors on a depth-2 tree of branching 2. Processor 0 allocates
/// the root and searches; processor 1 starts idle and finds no eligible
/// node until the root's first move has returned (scheme A), so every
/// split-point search before that fails and is followed by its 36-tick
/// pause, charged to the split state.
#[test]
fn two_processors_interleave_their_accesses() {
    let sh = shape(2, 50, 50);
    let root = Node { seed: 777, pscore: ROOT_PSCORE as u32 };
    let want = search(&sh, &root, 2, &mut ()).value;
    let one = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(1, 2)).unwrap();
    let two = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, Spec::new(2, 2)).unwrap();
    assert_eq!(two.value, want);
    assert_eq!(two.accounted(), 2 * two.ticks);
    // Processor 1 ran at least one split-point search, each examining the root.
    assert!(two.split_searches >= 1 && two.split_examined >= two.split_searches);
    assert!(two.in_state(State::Split) > 0);
    // Its idle time includes the 36-tick pauses after failed searches.
    assert!(two.work(State::Split) >= 36 * (two.split_searches - 1));
    assert!(one.ticks > 0 && two.ticks > 0);
}

// ---- every policy ------------------------------------------------------------

/// Every policy with both locks returns the sequential minimax value,
/// accounts for every processor-tick, and leaves the heaps balanced
/// (checked by `run`).
#[test]
fn every_policy_returns_minimax() {
    let mut all = new_policies().to_vec();
    all.push(dts(Walk::Tree));
    for (b, wa, wb) in [(3, 50, 50), (5, 0, 0), (8, 79, 5), (4, 100, 100), (6, 69, 19)] {
        let sh = shape(b, wa, wb);
        for seed in 1..5u32 {
            let root = Node { seed: seed * 15485863, pscore: ROOT_PSCORE as u32 };
            for depth in 1..5 {
                let want = search(&sh, &root, depth, &mut ()).value;
                for procs in [2, 3, 7, 48, 64] {
                    for &algorithm in &all {
                        for lock in [LockKind::Tas, LockKind::Queue] {
                            for interleave in [Interleave::Access, Interleave::State] {
                                if interleave == Interleave::State && procs != 3 {
                                    continue;
                                }
                                let cfg = MachineSpec { policy: algorithm, lock, interleave, ..Spec::new(procs, depth) };
                                let tag = format!("b={b} seed={seed} depth={depth} p={procs} {algorithm:?} {lock:?} {interleave:?}");
                                let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap_or_else(|e| panic!("{tag}: {e}"));
                                assert_eq!(r.value, want, "{tag}");
                                assert_eq!(r.accounted(), r.ticks * procs as u64, "{tag}");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The largest machine: 1,024 processors, every policy and lock.
#[test]
fn every_policy_returns_minimax_on_1024_processors() {
    let mut all = new_policies().to_vec();
    all.push(dts(Walk::Tree));
    for (b, wa, wb) in [(8, 79, 5), (5, 0, 0)] {
        let sh = shape(b, wa, wb);
        for seed in 1..3u32 {
            let root = Node { seed: seed * 7727, pscore: ROOT_PSCORE as u32 };
            for depth in [2, 4] {
                let want = search(&sh, &root, depth, &mut ()).value;
                for &algorithm in &all {
                    for lock in [LockKind::Tas, LockKind::Queue] {
                        let cfg = MachineSpec { policy: algorithm, lock, ..Spec::new(1024, depth) };
                        let r = simulate(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg).unwrap();
                        assert_eq!(r.value, want, "b={b} seed={seed} depth={depth} {algorithm:?} {lock:?}");
                        assert_eq!(r.accounted(), r.ticks * 1024);
                    }
                }
            }
        }
    }
}
