//! Progress bars for the long stages (`make all` runs minutes of `classify`
//! and `pabsim`), drawn by `indicatif`: one line on stderr with the count,
//! rate and time left, shown only when stderr is a terminal, so logs and
//! pipes stay quiet.
//!
//! A [`Progress`] is shared by the worker threads: each counts its finished
//! items; `indicatif` redraws at most a few times a second. Drawing never
//! changes what a tool computes or writes.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Items per second as the bar shows them: three significant figures at
/// most (`44.9/s`, `1234/s`), where indicatif's own `{per_sec}` prints four
/// decimals (`44.9551/s`).
pub fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() {
        return "-/s".into();
    }
    let decimals = if per_sec >= 100.0 {
        0
    } else if per_sec >= 10.0 {
        1
    } else {
        2
    };
    format!("{per_sec:.decimals$}/s")
}

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
        let template = format!("{{prefix}}: [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} ({{elapsed}}, {{rate}}, about {{eta}} left)");
        let style = ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("#>.").with_key(
            "rate",
            |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate(state.per_sec()));
            },
        );
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

    /// A terminal that keeps what is drawn on it.
    #[derive(Debug, Clone, Default)]
    struct Screen(std::sync::Arc<std::sync::Mutex<String>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(&format!("{s}\n"))
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The rate is drawn with at most three significant figures,
    /// not indicatif's four decimals ("44.9551/s").
    #[test]
    fn the_rate_is_drawn_without_four_decimals() {
        assert_eq!(rate(44.9551), "45.0/s");
        assert_eq!(rate(1234.56), "1235/s");
        assert_eq!(rate(0.123456), "0.12/s");
        let screen = Screen::default();
        let p = Progress::with_target("pabsim", 1000, "simulations", ProgressDrawTarget::term_like(Box::new(screen.clone())));
        for _ in 0..7 {
            std::thread::sleep(std::time::Duration::from_millis(3));
            p.inc(1);
        }
        p.bar.tick();
        let drawn = screen.0.lock().unwrap().clone();
        let shown = drawn.lines().rev().find(|l| l.contains("/s")).unwrap_or_else(|| panic!("no rate drawn: {drawn:?}")).to_string();
        let number = shown.split("/s").next().unwrap().rsplit(' ').next().unwrap().replace(',', "");
        let decimals = number.split_once('.').map_or(0, |(_, d)| d.len());
        assert!(decimals <= 2 && number.parse::<f64>().is_ok(), "rate drawn as `{number}` in: {shown}");
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
