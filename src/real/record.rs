//! A real run's trace as its threads record it (`psearch --trace`):
//! each thread's idle and lock-wait spans, on the run's clock. The
//! threads record only where they already read the clock (a contended
//! lock, a search for work), so a run without a trace does one more test
//! of a flag on those paths and nothing in the search; a traced thread
//! keeps at most [`super::Options::trace`] spans (the trace's bound), and
//! notes where it stopped.

/// What a span of a thread's time went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// Looking for or waiting for work.
    Idle,
    /// Waiting on a contended lock.
    Lock,
}

/// One span of a thread's time, ns from the run's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// What it went to.
    pub kind: SpanKind,
    /// Its start.
    pub start: u64,
    /// Its end.
    pub end: u64,
}

/// One thread's recorded spans.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadSpans {
    /// When the thread started and ended (its lifetime as the rows count
    /// it: until the run's threads were joined), ns from the run's start.
    pub life: (u64, u64),
    /// Its idle and lock spans, in the order recorded (a lock wait may lie
    /// inside an idle span: the idle time is less the lock waits in it).
    pub spans: Vec<Span>,
    /// Where the thread stopped recording, its span limit reached.
    pub cut: Option<u64>,
}

/// A real run's trace: its wall time and each thread's spans.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RealTrace {
    /// The run's wall time, ns (every span lies within it).
    pub wall_ns: u64,
    /// Each thread's, by id.
    pub threads: Vec<ThreadSpans>,
}

impl ThreadSpans {
    /// The thread's time as flat, ordered, non-overlapping spans covering
    /// its life: a lock wait over idle over search (the rest), consecutive
    /// spans of one kind merged; after a cut, one span of `None` (not
    /// recorded).
    pub fn flat(&self) -> Vec<(Option<FlatKind>, u64, u64)> {
        let (s0, e0) = self.life;
        let stop = self.cut.map_or(e0, |c| c.clamp(s0, e0));
        let mut cuts: Vec<u64> = vec![s0, stop];
        for s in &self.spans {
            cuts.push(s.start.clamp(s0, stop));
            cuts.push(s.end.clamp(s0, stop));
        }
        cuts.sort_unstable();
        cuts.dedup();
        // Each elementary piece's kind: the strongest span covering it.
        let mut out: Vec<(Option<FlatKind>, u64, u64)> = vec![];
        let mut lock = vec![0i32; cuts.len()];
        let mut idle = vec![0i32; cuts.len()];
        for s in &self.spans {
            let a = cuts.partition_point(|&c| c < s.start.clamp(s0, stop));
            let b = cuts.partition_point(|&c| c < s.end.clamp(s0, stop));
            let v = if s.kind == SpanKind::Lock { &mut lock } else { &mut idle };
            v[a] += 1;
            v[b] -= 1;
        }
        let (mut l, mut i) = (0, 0);
        for k in 0..cuts.len().saturating_sub(1) {
            l += lock[k];
            i += idle[k];
            let kind = if l > 0 {
                FlatKind::Lock
            } else if i > 0 {
                FlatKind::Idle
            } else {
                FlatKind::Search
            };
            match out.last_mut() {
                Some(last) if last.0 == Some(kind) && last.2 == cuts[k] => last.2 = cuts[k + 1],
                _ => out.push((Some(kind), cuts[k], cuts[k + 1])),
            }
        }
        if stop < e0 {
            out.push((None, stop, e0));
        }
        out
    }
}

/// The kinds of a thread's flat time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatKind {
    /// Searching (neither idle nor waiting on a lock).
    Search,
    /// Idle.
    Idle,
    /// Waiting on a lock.
    Lock,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_time_covers_the_life_without_overlaps() {
        let t = ThreadSpans {
            life: (10, 100),
            spans: vec![
                Span { kind: SpanKind::Idle, start: 10, end: 40 },
                Span { kind: SpanKind::Lock, start: 20, end: 25 },
                Span { kind: SpanKind::Lock, start: 50, end: 60 },
            ],
            cut: None,
        };
        use FlatKind::*;
        assert_eq!(
            t.flat(),
            [(Some(Idle), 10, 20), (Some(Lock), 20, 25), (Some(Idle), 25, 40), (Some(Search), 40, 50), (Some(Lock), 50, 60), (Some(Search), 60, 100)]
        );
        let cut = ThreadSpans { cut: Some(30), ..t };
        assert_eq!(cut.flat().last(), Some(&(None, 30, 100)));
    }
}
