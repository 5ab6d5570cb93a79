//! The traces held to the rows: on the simulated
//! machines each processor's time summed from its trace is the run's own
//! figures to the tick or ns, and the arrows are its messages; every
//! registered cluster algorithm, every shared-memory policy and scheme.

use super::check::{self, Summary};
use crate::cli::Input;
use crate::cluster::{Algorithm as _, ClusterAlgorithm, ClusterConfig, ClusterSettings};
use crate::policy::{Active, Dts, LazySmp, Policy, PvSplit, Scheme, Steal, Walk};
use crate::request::sim::SimConfig;
use crate::request::{Interleave, LockKind};
use crate::sim::engine::{State, TimeKind};
use crate::tree::{Tree, read_trees};

fn trees(text: &str) -> Vec<Tree> {
    read_trees(Input::from_string("t", text)).unwrap()
}

fn incremental(depth: u32) -> Tree {
    trees(&format!("{{\"set\":\"t\",\"index\":1,\"seed\":7,\"model\":\"incremental\",\"b\":5,\"scale\":100,\"depth\":{depth}}}\n")).remove(0)
}

fn artificial(depth: u32) -> Tree {
    trees(&format!(
        "{{\"set\":\"tg1\",\"index\":1,\"seed\":1335380035,\"pscore\":1073741823,\"model\":\"exponential\",\"b\":8,\"wa\":69,\"wb\":19,\"depth\":{depth}}}\n"
    ))
    .remove(0)
}

fn read(bytes: &[u8], scale: u64, end: u64) -> Summary {
    check::read(std::str::from_utf8(bytes).unwrap(), scale, Some(end)).unwrap_or_else(|e| panic!("{e}"))
}

/// Every registered cluster algorithm: each process's busy and idle time
/// from the trace is the run's, to the ns; one arrow per message, each
/// ended; every task span closed.
#[test]
fn cluster_traces_add_up_to_the_runs() {
    let tree = incremental(6);
    let mut algorithms = ClusterAlgorithm::parallel();
    algorithms.push(ClusterAlgorithm::SEQUENTIAL);
    for a in algorithms {
        let procs = if a.procs().contains(&8) { 8 } else { *a.procs().start() };
        let c: ClusterConfig = ClusterConfig { settings: ClusterSettings { tt_slots: 1 << 12, ..ClusterSettings::default() }, ..ClusterConfig::new(a, procs) };
        let (stats, out) = super::cluster::write(&tree, &c, Vec::new()).unwrap();
        let s = read(&out, 1000, stats.time_ns);
        let tag = a.name();
        assert_eq!(s.named.len(), procs, "{tag}");
        for r in 0..procs as u64 {
            let k = (r, r);
            assert_eq!(s.in_cat(k, "busy"), stats.busy_ns[r as usize], "{tag} rank {r} busy");
            assert_eq!(s.in_cat(k, "idle"), stats.time_ns - stats.busy_ns[r as usize], "{tag} rank {r} idle");
            assert_eq!(check::overlap(&s.slices[&k]), None, "{tag} rank {r}");
        }
        let startup: u64 = (0..procs as u64).map(|r| s.time[&(r, r)].get(&("idle".into(), "start-up idle".into(), String::new())).copied().unwrap_or(0)).sum();
        assert_eq!(startup, stats.startup_idle_ns, "{tag}");
        assert_eq!(s.flows, (stats.messages, stats.messages, 0), "{tag}");
        assert_eq!(s.spans.0, s.spans.1, "{tag}");
        assert_eq!(s.instants["root value"].len(), 1, "{tag}");
        // The counting run counts what the written one writes.
        let (events, bytes) = super::cluster::measure(&tree, &c).unwrap();
        assert_eq!((events, bytes), (s.events, out.len() as u64), "{tag}");
    }
}

/// The shared-memory machine, every policy, both schemes of the thesis
/// without a network, both locks and both interleavings: each processor's
/// events fill the run to the root's return, and each state's time of
/// each kind summed over the tracks is the row's.
#[test]
fn shared_traces_add_up_to_the_runs() {
    let tree = artificial(4);
    let a = Scheme::A { m_a: 1, pv_wait: 1 };
    let b = Scheme::B { m_b: 1, pv_wait: 1 };
    let mut algorithms = vec![None];
    for scheme in [a, b] {
        algorithms.extend([
            Some(Policy::Dts(Dts { scheme, walk: Walk::Tree })),
            Some(Policy::Dts(Dts { scheme, walk: Walk::Level })),
            Some(Policy::Steal(Steal { scheme, seed: 3 })),
            Some(Policy::Active(Active { scheme, min_split_depth: 2, split_group: 4 })),
        ]);
    }
    algorithms.push(Some(Policy::PvSplit(PvSplit)));
    for algorithm in algorithms {
        for (interleave, lock) in [(Interleave::Access, LockKind::Tas), (Interleave::Access, LockKind::Queue), (Interleave::State, LockKind::Tas)] {
            let procs = if algorithm.is_some() { 7 } else { 1 };
            let c = SimConfig { procs, algorithm, interleave, lock };
            let tag = format!("{algorithm:?} {interleave:?} {lock:?}");
            let m = super::sim::measure(&tree, &c, None).unwrap();
            let (stats, out) = super::sim::write(&tree, &c, None, m.end, Vec::new()).unwrap();
            assert_eq!(m.end, stats.ticks, "{tag}");
            assert!(m.bytes >= out.len() as u64, "{tag}: the count is at least the trace");
            let s = read(&out, 1, stats.ticks);
            for p in 0..procs as u64 {
                let k = (0, p);
                let total: u64 = s.time[&k].values().sum();
                assert_eq!(total, stats.ticks, "{tag} P{p}");
                assert_eq!(check::overlap(&s.slices[&k]), None, "{tag} P{p}");
            }
            for st in State::ALL {
                for (kind, cat) in [(TimeKind::Memory, "memory"), (TimeKind::Lock, "lock")] {
                    assert_eq!(s.state_time(st.name(), cat), stats.time[st as usize][kind as usize], "{tag} {} {cat}", st.name());
                }
                let work = super::sim::category(st, TimeKind::Work).1;
                assert_eq!(s.state_time(st.name(), work), stats.work(st), "{tag} {} work", st.name());
            }
            assert_eq!(s.instants["root returned"], [((0, 0), stats.ticks)], "{tag}");
        }
    }
}

#[test]
fn a_trace_of_one_processor_has_no_split_points_but_the_root() {
    let tree = artificial(3);
    let c = SimConfig { procs: 1, algorithm: None, interleave: Interleave::Access, lock: LockKind::Tas };
    let m = super::sim::measure(&tree, &c, None).unwrap();
    let (_, out) = super::sim::write(&tree, &c, None, m.end, Vec::new()).unwrap();
    let s = read(&out, 1, m.end);
    assert_eq!(s.instants["split point"], [((0, 0), 0)]);
}

/// Real threads: every policy's trace parses, each thread's spans lie
/// within the run's wall time and do not overlap, and fill its life.
#[test]
fn real_traces_lie_within_the_wall_time() {
    use crate::real::Options;
    use crate::request::real::search_tree;
    let tree = artificial(5);
    let a = Scheme::A { m_a: 1, pv_wait: 1 };
    let algorithms = [
        Policy::Dts(Dts { scheme: a, walk: Walk::Tree }),
        Policy::PvSplit(PvSplit),
        Policy::Steal(Steal { scheme: a, seed: 1 }),
        Policy::Active(Active { scheme: a, min_split_depth: 2, split_group: 4 }),
        Policy::LazySmp(LazySmp),
    ];
    for (threads, algorithm) in algorithms.iter().map(|&a| (3, Some(a))).chain([(1, None)]) {
        let opts = Options { threads, trace: Some(1 << 16), ..Options::default() };
        let m = search_tree(&tree, algorithm, &opts, None).unwrap();
        let t = m.trace.clone().unwrap();
        let out = super::real::write("t", &t, Vec::new()).unwrap();
        let s = check::read(std::str::from_utf8(&out).unwrap(), 1000, None).unwrap();
        let tag = format!("{algorithm:?}");
        assert_eq!(s.named.len(), threads, "{tag}");
        for i in 0..threads as u64 {
            let sl = &s.slices[&(0, i)];
            assert_eq!(check::overlap(sl), None, "{tag} thread {i}");
            assert!(sl.iter().all(|&(a, b)| a <= b && b <= m.wall_ns), "{tag} thread {i}");
            let life = t.threads[i as usize].life;
            assert_eq!(sl.iter().map(|(a, b)| b - a).sum::<u64>(), life.1 - life.0, "{tag} thread {i}");
        }
    }
}

#[test]
fn the_real_span_limit_bounds_the_trace() {
    assert_eq!(super::real::spans_per_thread(100, 4), None);
    let n = super::real::spans_per_thread(1 << 20, 4).unwrap();
    assert!(n as u64 * super::real::BYTES_PER_SPAN * 4 < 1 << 20);
}

/// The shared machine's events name the node the machine itself records
/// for the state (its own trace of state entries, `MachineSpec::trace`):
/// each working event's node is the node of the processor's latest state
/// entry before it, whatever slot reuse did to the cached paths.
#[test]
fn shared_trace_nodes_are_the_machines() {
    use crate::schemes::YbwcSplit;
    use crate::sim::engine::{MachineSpec, simulate_recorded};
    use crate::tree::artificial::{Model, Node, Ordering, Shape};
    let sh = Shape::new(Model::Exponential, Ordering::new(6, 69, 19).unwrap()).unwrap();
    let root = Node { seed: 2024, pscore: crate::value::ROOT_PSCORE as u32 };
    let a = Scheme::A { m_a: 1, pv_wait: 1 };
    for algorithm in [Policy::Dts(Dts { scheme: a, walk: Walk::Tree }), Policy::Steal(Steal { scheme: a, seed: 2 }), Policy::PvSplit(PvSplit)] {
        let cfg = MachineSpec { policy: algorithm, trace: true, ..MachineSpec::new(5, 4) };
        let (stats, rec) = simulate_recorded(&sh, root, &YbwcSplit { m_a: 1, pv_wait: 1 }, cfg, super::sim::SimTrace::new(Vec::new(), "t", 5, None)).unwrap();
        let out = rec.into_writer().finish().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let mut checked = 0;
        for e in v["traceEvents"].as_array().unwrap().iter().filter(|e| e["cat"] == "work") {
            let (p, ts) = (e["tid"].as_u64().unwrap() as usize, e["ts"].as_u64().unwrap());
            let entry = stats.trace.iter().rfind(|x| x.proc == p && x.t <= ts).unwrap();
            assert_eq!(entry.state.name(), e["args"]["state"], "{algorithm:?} {e}");
            assert_eq!(entry.node.as_deref(), e["args"]["node"].as_str(), "{algorithm:?} {e}");
            checked += 1;
        }
        assert!(checked > 1000, "{checked}");
    }
}
