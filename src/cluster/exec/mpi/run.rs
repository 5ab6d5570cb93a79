//! An MPI job as a tool's `main` (`docs/model.md` §9.8): MPI
//! set up and wound down, one-line errors from rank 0 ([`main`]), rank 0's
//! outcome shared ([`agree`]), its input broadcast ([`share_input`]) and
//! the hosts' load gathered ([`host`]). What the job runs is the
//! request's (`crate::cluster::run::mpi`, `psearch --mpi`).
//!
//! Errors before the searches (options, input, output file) are found
//! alike on every rank, or on rank 0 and broadcast, so every rank stops
//! and only rank 0 prints the line.

use super::{Job, MpiOptions};
use crate::cli::Input;
use crate::real::host::Occupancy;
use anyhow::{Result, anyhow};
use mpi::traits::*;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// Runs `body` on this MPI rank as a tool's `main`: MPI set up (with the
/// buffer for buffered sends), then `body`; an error prints one line
/// `tool: what went wrong` on rank 0 and exits 1 on every rank (`body`'s
/// errors must be the same on every rank: see the module doc); a closed
/// stdout exits 0.
pub fn main(tool: &'static str, timeout: Duration, body: impl FnOnce(Job<'_>) -> Result<()>) -> ! {
    // Funneled: a rank may run threads (a task's search, `--threads`), and
    // only its main thread calls MPI.
    let Some((mut universe, threading)) = mpi::initialize_with_threading(mpi::Threading::Funneled) else {
        eprintln!("{tool}: MPI was set up twice (a defect: please report it)");
        std::process::exit(1)
    };
    universe.set_buffer_size(super::BSEND_BYTES);
    let code = {
        let world = universe.world();
        let opts = MpiOptions { tool, timeout, threads_allowed: threading >= mpi::Threading::Funneled };
        let job = Job::new(&world, &opts);
        if job.rank == 0 {
            // mpirun ends the other ranks with SIGTERM when one dies or the
            // job is interrupted: one line says so, from rank 0 alone.
            crate::cli::say_on_signal(Some(format!("{tool}: rank 0: the job was stopped (a rank exited, or the run was interrupted)")));
        }
        let result = body(job);
        // The job's end is rank 0's to say from here: a signal while MPI
        // winds down (mpirun stopping a rank that has said why) adds nothing.
        if job.rank == 0 {
            crate::cli::say_on_signal(None);
        }
        match result {
            Ok(()) => 0,
            Err(e) if crate::cli::is_broken_pipe(&e) => 0,
            Err(e) => {
                if job.rank == 0 {
                    eprintln!("{tool}: {}", format!("{e:#}").replace('\n', " "));
                }
                1
            }
        }
    };
    // MPI_Finalize: every buffered send has been received by now (the fins).
    drop(universe);
    std::process::exit(code)
}

/// Broadcasts rank 0's outcome: `Ok` on every rank if rank 0's `r` is
/// `Ok`; otherwise rank 0's error on rank 0 and a silent one elsewhere.
pub fn agree<T>(job: Job<'_>, r: Result<T>) -> Result<T> {
    job.barrier();
    let mut ok = u8::from(r.is_ok() || job.rank != 0);
    job.world.process_at_rank(0).broadcast_into(&mut ok);
    match (ok, r) {
        (1, r) => r,
        (_, Err(e)) => Err(e),
        (_, Ok(_)) => Err(anyhow!("rank 0 stopped")),
    }
}

/// The input `path` (stdin for `None`, which MPI gives rank 0 only), read
/// by rank 0 and broadcast to every rank.
pub fn share_input(job: Job<'_>, path: Option<&Path>) -> Result<Input> {
    let read = if job.rank == 0 {
        Input::open(path).map_err(anyhow::Error::from).and_then(|mut i| {
            let mut bytes = vec![];
            i.reader.read_to_end(&mut bytes).map_err(|e| anyhow!("cannot read {}: {e}", i.name))?;
            Ok((i.name, bytes))
        })
    } else {
        Ok((String::new(), vec![]))
    };
    let (name, bytes) = agree(job, read)?;
    // The text, then the input's name (for error messages), in one buffer.
    let root = job.world.process_at_rank(0);
    let mut len = [bytes.len() as u64, name.len() as u64];
    root.broadcast_into(&mut len[..]);
    let mut buf = if job.rank == 0 { [bytes, name.into_bytes()].concat() } else { vec![0u8; (len[0] + len[1]) as usize] };
    root.broadcast_into(&mut buf[..]);
    let name = String::from_utf8_lossy(&buf[len[0] as usize..]).into_owned();
    buf.truncate(len[0] as usize);
    Ok(Input::from_bytes(&name, buf))
}

/// The busiest host of the job just before its searches
/// ([`crate::real::host`]): on each host its first rank samples the load
/// while the host's other ranks wait in a barrier (running: MPI polls), so
/// the host's ranks are its own running threads; rank 0 gathers the worst
/// (the highest load, the fewest free cores). Oversubscribed: some host
/// runs more of the job's threads (its ranks times `threads` each) than
/// its free cores (its CPUs online where the load cannot be read; its own
/// count, not the ranks' bindings: `mpirun` binds each rank to a core when
/// it can), or some rank runs more threads than the CPUs it is bound to.
/// Every rank must call it; rank 0 has the answer, and every rank its
/// `oversubscribed` (how the ranks wait: [`Job::with_cores`]). With it,
/// rank 0's [`probe_ns`] (0 on the other ranks), measured while the others
/// wait in the last collective, so that no message of theirs can be there.
pub fn host(job: Job<'_>, threads: usize) -> (Occupancy, u64) {
    let shared = job.world.split_shared(0);
    let local = shared.size() as usize;
    let first = shared.rank() == 0;
    if !first {
        shared.barrier();
    }
    let sample = if first { crate::real::host::sample() } else { None };
    if first {
        shared.barrier();
    }
    let mine = Occupancy::new(sample, host_cpus(), local as u32, local * threads);
    let bound = threads > crate::real::host::cores();
    // Sent as numbers: the load (−1: none), the cores, the free cores
    // (−1: none), oversubscribed, whether this rank sampled, over its binding.
    let enc = [
        mine.host_load.unwrap_or(-1.0),
        f64::from(mine.cores),
        mine.free_cores.map_or(-1.0, f64::from),
        f64::from(u8::from(mine.oversubscribed)),
        f64::from(u8::from(first)),
        f64::from(u8::from(bound)),
    ];
    let root = job.world.process_at_rank(0);
    if job.rank != 0 {
        root.gather_into(&enc[..]);
        let mut over = 0u8;
        root.broadcast_into(&mut over);
        return (Occupancy { oversubscribed: over == 1, ..mine }, 0);
    }
    let mut all = vec![0f64; enc.len() * job.size];
    root.gather_into_root(&enc[..], &mut all[..]);
    let mut worst: Option<Occupancy> = None;
    let mut over = false;
    for r in all.chunks_exact(enc.len()) {
        over |= r[5] == 1.0;
        if r[4] == 1.0 {
            let o = Occupancy {
                host_load: (r[0] >= 0.0).then_some(r[0]),
                cores: r[1] as u32,
                free_cores: (r[2] >= 0.0).then_some(r[2] as u32),
                oversubscribed: r[3] == 1.0,
            };
            worst = Some(worst.map_or(o, |w| w.worst(o)));
        }
    }
    let mut w = worst.unwrap_or(mine);
    w.oversubscribed |= over;
    let wake_ns = probe_ns(job);
    let mut over = u8::from(w.oversubscribed);
    root.broadcast_into(&mut over);
    (w, wake_ns)
}

/// This host's time of one look for messages that finds none, ns: the
/// median of five batches of a thousand immediate probes of any rank, on
/// rank 0, while no other rank can send ([`host`] calls it). It is what
/// each wake-up a process asks for costs on this transport — the look for
/// messages before `resume` — and the simulated cluster's `--wake-ns`
/// too: YBWC's ranks wake every few dozen nodes.
fn probe_ns(job: Job<'_>) -> u64 {
    let mut batches: Vec<u64> = (0..5)
        .map(|_| {
            let t = std::time::Instant::now();
            for _ in 0..1_000 {
                if job.poll().is_some() {
                    job.fatal("a message before the searches began");
                }
            }
            t.elapsed().as_nanos() as u64
        })
        .collect();
    batches.sort_unstable();
    (batches[2] + 500) / 1_000
}

/// The host's CPUs online (Linux: `/sys/devices/system/cpu/online`, e.g.
/// `0-3,6`), else the threads this process may use.
fn host_cpus() -> usize {
    let parsed = std::fs::read_to_string("/sys/devices/system/cpu/online").ok().and_then(|s| {
        s.trim().split(',').try_fold(0usize, |n, part| {
            let (lo, hi) = part.split_once('-').unwrap_or((part, part));
            Some(n + hi.parse::<usize>().ok()?.checked_sub(lo.parse::<usize>().ok()?)? + 1)
        })
    });
    parsed.filter(|&n| n > 0).unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
