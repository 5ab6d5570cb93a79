//! Progress bars for the long stages (`make all` runs minutes of `classify`
//! and `pabsim`): one line on stderr, redrawn at most five times a second,
//! shown only when stderr is a terminal, so logs and pipes stay quiet.
//!
//! A [`Progress`] is shared by the worker threads: they count finished
//! items with one atomic add, and whichever thread finds the line stale
//! redraws it. Drawing never changes what a tool computes or writes.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Redraw interval.
const EVERY: Duration = Duration::from_millis(200);
/// Bar width in characters.
const WIDTH: u64 = 30;

/// A progress bar over `total` items.
#[derive(Debug)]
pub struct Progress {
    label: String,
    unit: &'static str,
    total: u64,
    done: AtomicU64,
    start: Instant,
    /// When the line was last drawn; `None` when the bar is hidden.
    drawn: Option<Mutex<Instant>>,
}

impl Progress {
    /// A bar labelled `label` (the tool's name, say) counting `total`
    /// `unit`s; shown only if stderr is a terminal.
    pub fn new(label: &str, total: u64, unit: &'static str) -> Progress {
        Progress::with_display(label, total, unit, std::io::stderr().is_terminal())
    }

    /// A bar that never draws (library callers, tests).
    pub fn hidden() -> Progress {
        Progress::with_display("", 0, "", false)
    }

    fn with_display(label: &str, total: u64, unit: &'static str, show: bool) -> Progress {
        let start = Instant::now();
        let drawn = (show && total > 0).then(|| Mutex::new(start - EVERY));
        Progress { label: label.to_string(), unit, total, done: AtomicU64::new(0), start, drawn }
    }

    /// Counts `n` more finished items.
    pub fn inc(&self, n: u64) {
        let done = self.done.fetch_add(n, Ordering::Relaxed) + n;
        let Some(drawn) = &self.drawn else { return };
        // Another thread drawing right now is as good as drawing ourselves.
        let Ok(mut last) = drawn.try_lock() else { return };
        let now = Instant::now();
        if now.duration_since(*last) < EVERY && done < self.total {
            return;
        }
        *last = now;
        let _ = write!(std::io::stderr().lock(), "\r{}\x1b[K", self.line(done, now.duration_since(self.start)));
    }

    /// Items counted so far.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Clears the line (call when the stage is over).
    pub fn finish(&self) {
        if self.drawn.is_some() {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
        }
    }

    /// The text of the bar after `done` items in `elapsed`.
    fn line(&self, done: u64, elapsed: Duration) -> String {
        let done = done.min(self.total);
        let filled = (done * WIDTH).checked_div(self.total).unwrap_or(WIDTH);
        let bar: String = (0..WIDTH).map(|i| if i < filled { '#' } else { '.' }).collect();
        let secs = elapsed.as_secs_f64();
        let left =
            if done > 0 && done < self.total { format!(", about {} left", human(secs * (self.total - done) as f64 / done as f64)) } else { String::new() };
        format!("{}: [{bar}] {done}/{} {} ({}{left})", self.label, self.total, self.unit, human(secs))
    }
}

/// `75` -> `1m15s`, `8.2` -> `8s`.
fn human(secs: f64) -> String {
    let s = secs.round() as u64;
    if s >= 60 { format!("{}m{:02}s", s / 60, s % 60) } else { format!("{s}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_count_bar_and_estimate() {
        let p = Progress::with_display("pabsim", 40, "runs", false);
        assert_eq!(p.line(10, Duration::from_secs(30)), "pabsim: [#######.......................] 10/40 runs (30s, about 1m30s left)");
        assert_eq!(p.line(40, Duration::from_secs(75)), "pabsim: [##############################] 40/40 runs (1m15s)");
        assert_eq!(p.line(0, Duration::ZERO), "pabsim: [..............................] 0/40 runs (0s)");
    }

    #[test]
    fn counting_works_when_hidden() {
        let p = Progress::hidden();
        p.inc(3);
        p.inc(4);
        assert_eq!(p.done(), 7);
        p.finish();
    }
}
