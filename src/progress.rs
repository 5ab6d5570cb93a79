//! Progress bars for the long stages (`make all` runs minutes of `classify`
//! and `pabsim`), drawn by `indicatif`: one line on stderr with the count,
//! rate and time left, shown only when stderr is a terminal, so logs and
//! pipes stay quiet.
//!
//! A [`Progress`] is shared by the worker threads: each counts its finished
//! items; `indicatif` redraws at most a few times a second. Drawing never
//! changes what a tool computes or writes.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar over a known number of items.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar labelled `label` (the tool's name, say) counting `total`
    /// `unit`s; drawn only if stderr is a terminal.
    pub fn new(label: &str, total: u64, unit: &'static str) -> Progress {
        // `stderr()` draws nothing when stderr is not a terminal.
        Progress::with_target(label, total, unit, ProgressDrawTarget::stderr())
    }

    /// A bar that never draws (library callers, tests).
    pub fn hidden() -> Progress {
        Progress::with_target("", 0, "", ProgressDrawTarget::hidden())
    }

    fn with_target(label: &str, total: u64, unit: &'static str, target: ProgressDrawTarget) -> Progress {
        let template = format!("{{prefix}}: [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} ({{elapsed}}, {{per_sec}}, about {{eta}} left)");
        let style = ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("#>.");
        let bar = ProgressBar::with_draw_target(Some(total), target).with_style(style).with_prefix(label.to_string());
        Progress { bar }
    }

    /// One bar per label, drawn together on stderr if it is a terminal, each
    /// with a message after it (`nntrain`'s networks training in parallel).
    pub fn many(labels: &[String], total: u64, unit: &'static str) -> Vec<Progress> {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let template = format!("{{prefix}}: [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} {{msg}} ({{elapsed}}, about {{eta}} left)");
        let style = ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("#>.");
        labels.iter().map(|l| Progress { bar: multi.add(ProgressBar::new(total).with_style(style.clone()).with_prefix(l.clone())) }).collect()
    }

    /// Sets the count and the message (for bars made by [`Progress::many`]).
    pub fn set(&self, done: u64, message: String) {
        self.bar.set_position(done);
        self.bar.set_message(message);
    }

    /// Counts `n` more finished items.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Items counted so far.
    pub fn done(&self) -> u64 {
        self.bar.position()
    }

    /// Clears the line (call when the stage is over).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_works_when_hidden() {
        let p = Progress::hidden();
        p.inc(3);
        p.inc(4);
        assert_eq!(p.done(), 7);
        p.finish();
    }

    #[test]
    fn a_bar_on_a_pipe_counts_and_draws_nothing() {
        // The test harness's stderr is captured, not a terminal.
        let p = Progress::new("pabsim", 40, "runs");
        p.inc(10);
        assert_eq!(p.done(), 10);
        assert!(p.bar.is_hidden());
        p.finish();
    }
}
