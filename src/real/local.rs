//! What one thread of a real search measures and does besides searching:
//! its node counts, the time it spends idle and waiting on contended locks
//! (on `std::time::Instant`, the vDSO's monotonic clock, some 20 ns a
//! read), the busy work per node (`--node-cost`) and, in tests, random
//! delays at the points where threads meet.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

/// One thread's counters and clock.
pub struct Local {
    /// The thread's number (0 starts the search).
    pub id: usize,
    /// Nodes entered.
    pub nodes: u64,
    /// Leaves entered.
    pub leaves: u64,
    /// Time idle, ns.
    pub idle_ns: u64,
    /// Time waiting on contended locks, ns.
    pub lock_ns: u64,
    cost_ns: u64,
    started: Instant,
    jitter: Option<ChaCha8Rng>,
    /// A traced run's idle and lock spans (ns from `started`), and the
    /// most it keeps ([`super::Options::trace`]); `None` untraced.
    spans: Option<(Vec<super::record::Span>, usize)>,
    /// Where the spans stopped, the limit reached.
    cut: Option<u64>,
}

impl Local {
    /// Thread `id` of a search with `opts`, its clock started now.
    pub fn new(id: usize, opts: &super::Options) -> Local {
        let jitter = opts.delays.map(|s| {
            let mut r = ChaCha8Rng::seed_from_u64(s);
            r.set_stream(id as u64);
            r
        });
        Local {
            id,
            nodes: 0,
            leaves: 0,
            idle_ns: 0,
            lock_ns: 0,
            cost_ns: opts.node_cost_ns,
            started: Instant::now(),
            jitter,
            spans: opts.trace.map(|n| (Vec::with_capacity(n.min(1 << 12)), n)),
            cut: None,
        }
    }

    /// A node is entered: count it and do its busy work.
    #[inline(always)]
    pub fn enter(&mut self, leaf: bool) {
        self.nodes += 1;
        self.leaves += leaf as u64;
        if self.cost_ns > 0 {
            spin(self.cost_ns);
        }
    }

    /// Locks `m`, timing the wait when another thread holds it. A lock
    /// whose holder panicked is taken anyway: the panic ends the run.
    #[inline]
    pub fn lock<'m, T>(&mut self, m: &'m Mutex<T>) -> MutexGuard<'m, T> {
        if let Ok(g) = m.try_lock() {
            return g;
        }
        let t = Instant::now();
        let g = m.lock().unwrap_or_else(|e| e.into_inner());
        let end = Instant::now();
        self.lock_ns += end.duration_since(t).as_nanos() as u64;
        if self.spans.is_some() {
            self.record(super::record::SpanKind::Lock, t, end);
        }
        g
    }

    /// Tests only: sometimes a short pause (a spin of up to 20 µs or a
    /// yield), so that threads meet in orders a quiet machine rarely shows.
    #[inline(always)]
    pub fn jitter(&mut self) {
        if let Some(r) = &mut self.jitter {
            let x = r.next_u32();
            match x % 16 {
                0 => spin((x >> 8) as u64 % 20_000),
                1 | 2 => std::thread::yield_now(),
                _ => {}
            }
        }
    }

    /// A traced thread's span of `kind` from `from` to `to` (nothing
    /// untraced; past the limit, only where it stopped).
    #[cold]
    #[inline(never)]
    pub fn record(&mut self, kind: super::record::SpanKind, from: Instant, to: Instant) {
        let at = |i: Instant| i.saturating_duration_since(self.started).as_nanos() as u64;
        let (start, end) = (at(from), at(to));
        if let Some((v, cap)) = &mut self.spans {
            if v.len() < *cap {
                v.push(super::record::Span { kind, start, end });
            } else if self.cut.is_none() {
                self.cut = Some(start);
            }
        }
    }

    /// Whether the thread records spans.
    #[inline(always)]
    pub fn traced(&self) -> bool {
        self.spans.is_some()
    }

    /// Nanoseconds since the thread started.
    pub fn lifetime_ns(&self) -> u64 {
        self.started.elapsed().as_nanos() as u64
    }
}

/// Busy work: spins on the clock for `ns` nanoseconds.
#[inline]
pub fn spin(ns: u64) {
    let t = Instant::now();
    while (t.elapsed().as_nanos() as u64) < ns {
        std::hint::spin_loop();
    }
}

/// The totals of a search's threads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    /// Nodes.
    pub nodes: u64,
    /// Leaves.
    pub leaves: u64,
    /// Working time, ns.
    pub search_ns: u64,
    /// Idle time, ns.
    pub idle_ns: u64,
    /// Lock waits, ns.
    pub lock_ns: u64,
}

impl Totals {
    /// Adds a finished thread (its lifetime split into search, idle and lock).
    pub fn add(&mut self, l: &Local) {
        let life = l.lifetime_ns();
        self.nodes += l.nodes;
        self.leaves += l.leaves;
        self.idle_ns += l.idle_ns;
        self.lock_ns += l.lock_ns;
        self.search_ns += life.saturating_sub(l.idle_ns + l.lock_ns);
    }
}

/// The outcome of a parallel run from its threads' locals, the root's
/// `(value, move)` its threads agreed on (`what` names the search in the
/// error if none was set) and its start `t` (its wall time is until now);
/// a traced run's spans on the run's clock.
pub fn outcome(locals: &[Local], result: Option<(i64, u32)>, t: Instant, what: &str) -> Result<super::Measured, super::RealError> {
    let now = Instant::now();
    let wall_ns = now.duration_since(t).as_nanos() as u64;
    let mut tot = Totals::default();
    locals.iter().for_each(|l| tot.add(l));
    let Some((value, root_move)) = result else {
        return Err(super::RealError::Internal(format!("{what} ended without a root value")));
    };
    let trace = locals.iter().any(Local::traced).then(|| {
        let threads = locals
            .iter()
            .map(|l| {
                let off = l.started.saturating_duration_since(t).as_nanos() as u64;
                let shift = |x: u64| (x + off).min(wall_ns);
                let spans = l
                    .spans
                    .as_ref()
                    .map_or(vec![], |(v, _)| v.iter().map(|s| super::record::Span { kind: s.kind, start: shift(s.start), end: shift(s.end) }).collect());
                super::record::ThreadSpans { life: (off.min(wall_ns), wall_ns), spans, cut: l.cut.map(shift) }
            })
            .collect();
        std::sync::Arc::new(super::record::RealTrace { wall_ns, threads })
    });
    Ok(super::Measured {
        value,
        root_move,
        nodes: tot.nodes,
        leaves: tot.leaves,
        wall_ns,
        search_ns: tot.search_ns,
        idle_ns: tot.idle_ns,
        lock_ns: tot.lock_ns,
        trace,
    })
}

/// Sets `flag` if the thread unwinds, so that the others stop waiting for
/// work that will never come.
pub struct PanicFlag<'a>(pub &'a std::sync::atomic::AtomicBool);

impl Drop for PanicFlag<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

/// Joins the threads of a scope, turning a panic into an error.
pub fn join_all<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, T>>) -> Result<Vec<T>, super::RealError> {
    let mut out = vec![];
    let mut err = None;
    for h in handles {
        match h.join() {
            Ok(t) => out.push(t),
            Err(e) => {
                let msg = e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned()).unwrap_or_default();
                err.get_or_insert(super::RealError::Panicked(msg));
            }
        }
    }
    err.map_or(Ok(out), Err)
}
