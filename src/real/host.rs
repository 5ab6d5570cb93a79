//! The host beside every real timing (beyond the thesis): how
//! loaded the machine was just before a timed run, how many of its cores
//! were free, and whether the run's threads (or a node's MPI ranks) each
//! had a free core. A real timing taken while another job runs measures
//! sharing, not the algorithm (2 threads gave SU 1.09 where the simulator
//! predicts 1.92, in a `make all` beside another job); the rows say so
//! (`docs/formats.md`, "psearch rows").
//!
//! Two numbers from `/proc/loadavg` (Linux; elsewhere the columns are
//! empty), sampled just before the run while only the sampling thread of
//! ours runs:
//!
//! - `host_load`: the 1-minute load average, as the kernel reports it
//!   (nothing subtracted, so it includes our own earlier runs of the last
//!   minutes: context for a reader, not the flag's basis);
//! - the threads runnable at that moment (the fourth field's numerator),
//!   the median of a few samples a millisecond apart (a kernel thread's
//!   blip is not a job); minus our own running threads, they are the other
//!   work, and `free_cores` = cores − other work (at least 0).
//!
//! A run is `oversubscribed` when its threads exceed the free cores (the
//! host's cores where the load cannot be read). The sampling is one
//! function ([`sample`]); the arithmetic ([`Occupancy::new`]) takes the
//! sample as an argument, so tests give it hand-made ones.

/// What `/proc/loadavg` says at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadSample {
    /// The 1-minute load average.
    pub load1: f64,
    /// Threads runnable or running on the host, the reader included.
    pub running: u32,
}

/// Samples [`sample`] takes, a millisecond apart; their median runnable count counts.
const SAMPLES: usize = 5;

/// Reads one line of `/proc/loadavg`: `0.52 0.58 0.59 3/467 12345`.
pub fn parse_loadavg(text: &str) -> Option<LoadSample> {
    let mut f = text.split_whitespace();
    let load1 = f.next()?.parse::<f64>().ok().filter(|l| l.is_finite() && *l >= 0.0)?;
    let running = f.nth(2)?.split_once('/')?.0.parse().ok()?;
    Some(LoadSample { load1, running })
}

/// The host's load now (Linux: `/proc/loadavg`; `None` elsewhere or where
/// it cannot be read): the last sample's load average, the median of
/// `SAMPLES` runnable counts.
pub fn sample() -> Option<LoadSample> {
    let mut seen = Vec::with_capacity(SAMPLES);
    for i in 0..SAMPLES {
        if i > 0 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        seen.push(parse_loadavg(&std::fs::read_to_string("/proc/loadavg").ok()?)?);
    }
    let load1 = seen.last()?.load1;
    let mut running: Vec<u32> = seen.iter().map(|s| s.running).collect();
    running.sort_unstable();
    Some(LoadSample { load1, running: running[SAMPLES / 2] })
}

/// The host's cores (available parallelism: the CPUs this process may use).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The host beside one timed run: what its row records.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Occupancy {
    /// The 1-minute load average before the run (`None`: not known).
    pub host_load: Option<f64>,
    /// The host's cores.
    pub cores: u32,
    /// Cores not busy with other work before the run (`None`: not known).
    pub free_cores: Option<u32>,
    /// The run's threads exceed the free cores (the cores, where those are
    /// not known).
    pub oversubscribed: bool,
}

impl Occupancy {
    /// `threads` threads about to run on `cores` cores, the host as
    /// `sample` saw it while `own` threads of the run's own were running
    /// (the sampling thread: 1; a node's MPI ranks: all of them).
    pub fn new(sample: Option<LoadSample>, cores: usize, own: u32, threads: usize) -> Occupancy {
        let cores = u32::try_from(cores).unwrap_or(u32::MAX);
        let free_cores = sample.map(|s| cores.saturating_sub(s.running.saturating_sub(own)));
        let threads = u32::try_from(threads).unwrap_or(u32::MAX);
        Occupancy { host_load: sample.map(|s| s.load1), cores, free_cores, oversubscribed: threads > free_cores.unwrap_or(cores) }
    }

    /// The host now, before a run of `threads` threads of this process
    /// (only the calling thread of ours running).
    pub fn now(threads: usize) -> Occupancy {
        Occupancy::new(sample(), cores(), 1, threads)
    }

    /// Two runs in one row (a configuration summed over trees): the worse
    /// host of the two, oversubscribed if either was.
    pub fn worst(self, o: Occupancy) -> Occupancy {
        let both = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Occupancy {
            host_load: both(self.host_load, o.host_load),
            cores: self.cores.min(o.cores),
            free_cores: match (self.free_cores, o.free_cores) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            oversubscribed: self.oversubscribed || o.oversubscribed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_line_is_read_and_a_bad_one_refused() {
        assert_eq!(parse_loadavg("1.82 2.22 2.00 6/118 10181\n"), Some(LoadSample { load1: 1.82, running: 6 }));
        for bad in ["", "1.82 2.22 2.00", "x 2.22 2.00 6/118 1", "1.82 2.22 2.00 6-118 1", "-1 2 2 6/118 1", "NaN 2 2 1/1 1"] {
            assert_eq!(parse_loadavg(bad), None, "{bad}");
        }
    }

    /// Hand-worked hosts: others = runnable − own; free = cores − others.
    #[test]
    fn free_cores_are_the_cores_less_the_other_work() {
        let s = |running| Some(LoadSample { load1: 1.5, running });
        // A quiet host: only the sampler runs; 2 threads on 2 cores fit.
        let o = Occupancy::new(s(1), 2, 1, 2);
        assert_eq!((o.host_load, o.cores, o.free_cores, o.oversubscribed), (Some(1.5), 2, Some(2), false));
        // Another job of 1 thread: 1 core free, 2 threads do not fit, 1 does.
        assert_eq!((Occupancy::new(s(2), 2, 1, 2).free_cores, Occupancy::new(s(2), 2, 1, 2).oversubscribed), (Some(1), true));
        assert!(!Occupancy::new(s(2), 2, 1, 1).oversubscribed);
        // More other work than cores: none free, even 1 thread shares.
        assert_eq!(Occupancy::new(s(6), 2, 1, 1).free_cores, Some(0));
        assert!(Occupancy::new(s(6), 2, 1, 1).oversubscribed);
        // 4 MPI ranks of ours on a node of 8, polling while sampled: 2 others.
        assert_eq!(Occupancy::new(s(6), 8, 4, 4).free_cores, Some(6));
        // Fewer runnable than our own (some rank asleep): nothing subtracted below 0.
        assert_eq!(Occupancy::new(s(2), 8, 4, 4).free_cores, Some(8));
        // No sample (not Linux): empty columns, the cores decide.
        let none = Occupancy::new(None, 2, 1, 3);
        assert_eq!((none.host_load, none.free_cores, none.oversubscribed), (None, None, true));
        assert!(!Occupancy::new(None, 2, 1, 2).oversubscribed);
    }

    #[test]
    fn a_summed_row_keeps_the_worse_host() {
        let a = Occupancy { host_load: Some(0.5), cores: 4, free_cores: Some(4), oversubscribed: false };
        let b = Occupancy { host_load: Some(2.5), cores: 4, free_cores: Some(1), oversubscribed: true };
        assert_eq!(a.worst(b), Occupancy { host_load: Some(2.5), cores: 4, free_cores: Some(1), oversubscribed: true });
        assert_eq!(a.worst(Occupancy { host_load: None, free_cores: None, ..a }), a);
    }

    /// Where /proc/loadavg exists the sample is read, and consistent.
    #[test]
    fn the_host_is_sampled_where_it_can_be() {
        let o = Occupancy::now(3);
        assert_eq!(o.host_load.is_some(), std::path::Path::new("/proc/loadavg").exists());
        assert_eq!(o.oversubscribed, 3 > o.free_cores.unwrap_or(o.cores));
        assert!(o.free_cores.is_none_or(|f| f <= o.cores));
    }
}
