//! Timelines of one run: a trace (`docs/formats.md`, "Traces")
//! drawn as one row per processor, process or thread, time across, each
//! row coloured by the state its time went to.
//!
//! Input: `traces/scheme-c-p48.json` (the shared-memory machine),
//! `traces/master-worker-p64.json` (the simulated cluster), both made by
//! `make traces` and deterministic, and `traces/threads-p2.json` (real
//! threads, `psearch`), which depends on this machine's timing and is
//! optional. A trace has tens of thousands of slices, most far narrower than
//! a pixel; drawn one rectangle each, the SVG would be megabytes of
//! rectangles nobody can see. So each row's time is cut into [`COLUMNS`]
//! equal columns, each column takes the state that held most of its time,
//! and each run of equal columns is one rectangle ([`bands`]): the figure
//! shows where the time went at the resolution it can show, and the trace
//! itself (in Perfetto) shows every slice.

use super::Builder;
use super::doc::Section;
use super::figures::Plot;
use anyhow::{Context, Result, anyhow};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Columns a row's time is cut into: about one per pixel of the plotting
/// area, so nothing a pixel could show is lost.
pub const COLUMNS: usize = 700;

/// A trace read for drawing: its rows and their complete events.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// What ran (`otherData.run`).
    pub run: String,
    /// The clock (`otherData.clock`): `1 tick = 1 us` or ns.
    pub clock: String,
    /// The tool (`otherData.tool`).
    pub tool: String,
    /// The rows' labels, in track order (`P0`, `rank 0`, `thread 0`).
    pub rows: Vec<String>,
    /// The states (complete events' names), most time first.
    pub kinds: Vec<String>,
    /// Each kind's category (`cat`; its first event's): `work`, `busy`, ...
    pub cats: Vec<String>,
    /// Per row, its slices: (start, end, kind), in the trace's µs.
    pub spans: Vec<Vec<(f64, f64, usize)>>,
    /// The last slice's end, in the trace's µs.
    pub end: f64,
}

/// A complete event as read: (start, end, name), in the trace's µs.
type Slice = (f64, f64, String);

/// A run of columns of one state: (first column, past the last, kind).
pub type Band = (usize, usize, usize);

/// Reads a trace's text. Only complete events (`ph` `X`) are drawn: the
/// cluster's tasks (`b`/`e`) lie on tracks of their own and overlap by
/// design, and arrows and instants have no duration. A row is a track
/// (`pid`, `tid`) that has complete events, in track order; it is labelled by
/// its process's name when the trace has several processes (the cluster's
/// `rank r`), else by its thread's (`P0`, `thread 0`).
pub fn read(text: &str) -> Result<Trace> {
    let v: Value = serde_json::from_str(text).context("not JSON")?;
    let events = v.get("traceEvents").and_then(Value::as_array).ok_or_else(|| anyhow!("no `traceEvents` array"))?;
    let other = |k: &str| v.pointer(&format!("/otherData/{k}")).and_then(Value::as_str).unwrap_or("").to_string();
    let mut process_names: BTreeMap<u64, String> = BTreeMap::new();
    let mut thread_names: BTreeMap<(u64, u64), String> = BTreeMap::new();
    // Per track (pid, tid): its slices (start, end, name).
    let mut slices: BTreeMap<(u64, u64), Vec<Slice>> = BTreeMap::new();
    let mut cat_of: BTreeMap<String, String> = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        let field = |k: &str| e.get(k).ok_or_else(|| anyhow!("event {i}: no `{k}`"));
        let ph = field("ph")?.as_str().unwrap_or("");
        let pid = field("pid")?.as_u64().ok_or_else(|| anyhow!("event {i}: `pid` is not a number"))?;
        let tid = field("tid")?.as_u64().ok_or_else(|| anyhow!("event {i}: `tid` is not a number"))?;
        let name = field("name")?.as_str().unwrap_or("").to_string();
        match ph {
            "M" => {
                let arg = e.pointer("/args/name").and_then(Value::as_str).unwrap_or("").to_string();
                match name.as_str() {
                    "process_name" => {
                        process_names.insert(pid, arg);
                    }
                    "thread_name" => {
                        thread_names.insert((pid, tid), arg);
                    }
                    _ => {}
                }
            }
            "X" => {
                let num = |k: &str| field(k).and_then(|x| x.as_f64().ok_or_else(|| anyhow!("event {i}: `{k}` is not a number")));
                let (ts, dur) = (num("ts")?, num("dur")?);
                anyhow::ensure!(ts >= 0.0 && dur >= 0.0, "event {i}: a negative time");
                // An end past f64's range would be ∞: every column infinitely wide.
                anyhow::ensure!((ts + dur).is_finite(), "event {i}: `ts` {ts:e} + `dur` {dur:e} ends past any time (not a finite number of µs)");
                let cat = e.get("cat").and_then(Value::as_str).unwrap_or("");
                cat_of.entry(name.clone()).or_insert_with(|| cat.to_string());
                slices.entry((pid, tid)).or_default().push((ts, ts + dur, name));
            }
            _ => {}
        }
    }
    // The states, most time first (ties by name), so that the commonest
    // take the palette's first colours and win ties between columns.
    let mut total: BTreeMap<&str, f64> = BTreeMap::new();
    for (a, b, k) in slices.values().flatten() {
        *total.entry(k.as_str()).or_default() += b - a;
    }
    let mut kinds: Vec<(&str, f64)> = total.into_iter().collect();
    kinds.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(y.0)));
    let kinds: Vec<String> = kinds.into_iter().map(|(k, _)| k.to_string()).collect();
    let index = |k: &str| kinds.iter().position(|x| x == k).unwrap_or(0);
    let processes = slices.keys().map(|k| k.0).collect::<std::collections::BTreeSet<_>>().len();
    let mut t = Trace { run: other("run"), clock: other("clock"), tool: other("tool"), ..Default::default() };
    for (&(pid, tid), s) in &slices {
        let label = if processes > 1 { process_names.get(&pid).cloned() } else { thread_names.get(&(pid, tid)).cloned() };
        t.rows.push(label.unwrap_or_else(|| format!("{pid}/{tid}")));
        t.spans.push(s.iter().map(|(a, b, k)| (*a, *b, index(k))).collect());
        t.end = s.iter().map(|x| x.1).fold(t.end, f64::max);
    }
    t.cats = kinds.iter().map(|k| cat_of.get(k).cloned().unwrap_or_default()).collect();
    t.kinds = kinds;
    Ok(t)
}

/// One row's slices cut into `columns` equal columns over `0..end`: each
/// column takes the kind that held most of its time (the lower index on a
/// tie), a column no slice touches is left out, and each run of equal
/// columns is one band.
pub fn bands(spans: &[(f64, f64, usize)], kinds: usize, end: f64, columns: usize) -> Vec<Band> {
    if columns == 0 || kinds == 0 || end <= 0.0 {
        return vec![];
    }
    let w = end / columns as f64;
    let mut acc = vec![0f64; columns * kinds];
    for &(a, b, k) in spans {
        let (a, b) = (a.max(0.0), b.min(end));
        if b <= a || k >= kinds {
            continue;
        }
        let c0 = ((a / w) as usize).min(columns - 1);
        let c1 = ((b / w).ceil() as usize).clamp(c0 + 1, columns);
        for c in c0..c1 {
            let (lo, hi) = ((c as f64 * w).max(a), ((c + 1) as f64 * w).min(b));
            if hi > lo {
                acc[c * kinds + k] += hi - lo;
            }
        }
    }
    let mut out: Vec<Band> = vec![];
    for c in 0..columns {
        let col = &acc[c * kinds..(c + 1) * kinds];
        let mut best: Option<(usize, f64)> = None;
        for (k, &x) in col.iter().enumerate() {
            if x > 0.0 && best.is_none_or(|(_, y)| x > y) {
                best = Some((k, x));
            }
        }
        let Some((k, _)) = best else { continue };
        match out.last_mut() {
            Some(last) if last.1 == c && last.2 == k => last.1 = c + 1,
            _ => out.push((c, c + 1, k)),
        }
    }
    out
}

/// The axis: the unit the trace's µs are divided by, and its label.
pub fn axis(t: &Trace) -> (f64, String) {
    if t.clock.contains("tick") {
        return (1.0, "simulated time (ticks)".into());
    }
    let what = if t.tool.starts_with("psearch") { "wall time" } else { "simulated time" };
    let (unit, name) = if t.end >= 1e6 {
        (1e6, "s")
    } else if t.end >= 1e3 {
        (1e3, "ms")
    } else {
        (1.0, "µs")
    };
    (unit, format!("{what} ({name})"))
}

/// Each kind's share of all rows' time up to the end.
pub fn shares(t: &Trace) -> Vec<(String, f64)> {
    let mut sum = vec![0f64; t.kinds.len()];
    for (a, b, k) in t.spans.iter().flatten() {
        sum[*k] += b - a;
    }
    let all: f64 = sum.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    t.kinds.iter().cloned().zip(sum.into_iter().map(|x| x / all)).collect()
}

/// The figure of a trace.
pub fn plot(t: &Trace, title: &str) -> Plot {
    let (unit, x_label) = axis(t);
    Plot::Timeline {
        title: title.to_string(),
        x_label,
        end: t.end / unit,
        columns: COLUMNS,
        rows: t.rows.clone(),
        kinds: t.kinds.clone(),
        bands: t.spans.iter().map(|s| bands(s, t.kinds.len(), t.end, COLUMNS)).collect(),
    }
}

/// The three traces, each `None` when its file is absent.
#[derive(Default)]
pub struct Traces {
    /// Scheme C at p = 48 on the shared-memory machine.
    pub shared: Option<Trace>,
    /// The master-worker at P = 64 on the simulated cluster.
    pub cluster: Option<Trace>,
    /// Real threads at p = 2.
    pub real: Option<Trace>,
}

/// The traces' files under the results directory.
pub const SHARED: &str = "traces/scheme-c-p48.json";
/// The cluster's trace.
pub const CLUSTER: &str = "traces/master-worker-p64.json";
/// The real threads' trace.
pub const REAL: &str = "traces/threads-p2.json";

/// Reads the traces that exist; a file that exists but does not read is an
/// error naming it.
pub fn load(results: &Path) -> Result<Traces> {
    let one = |rel: &str| -> Result<Option<Trace>> {
        let p = results.join(rel);
        if !p.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
        Ok(Some(read(&text).with_context(|| format!("{}: not a trace (redo it with `make traces`)", p.display()))?))
    };
    Ok(Traces { shared: one(SHARED)?, cluster: one(CLUSTER)?, real: one(REAL)? })
}

/// `share` as a percentage with the kind: `search 41%`.
fn top(t: &Trace, n: usize) -> String {
    let mut s = shares(t);
    s.sort_by(|a, b| b.1.total_cmp(&a.1));
    s.iter().take(n).map(|(k, x)| format!("{k} {:.0}%", x * 100.0)).collect::<Vec<_>>().join(", ")
}

/// The section "Timelines of one run".
pub fn sections(data: &Traces, b: &mut Builder) -> Result<()> {
    let mut s = Section {
        id: "timelines".into(),
        chapter: 7,
        title: "Timelines of one run".into(),
        what: format!(
            "One small run of each machine drawn in time from its trace (pabsim --trace, psearch --trace; docs/formats.md, \"Traces\"): one row per processor, process or thread, time across, each stretch coloured by the state the time went to. Each row's time is cut into {COLUMNS} columns, each column coloured by the state that held most of it; the trace file itself, opened in Perfetto (docs/formats.md, \"Opening a trace\"), shows every slice."
        ),
        ..Default::default()
    };
    match &data.shared {
        Some(t) => {
            let caption = format!("The shared-memory machine, scheme C at p = 48 ({}). Processors' time: {}. {}", t.run, top(t, 4), shared_sentence(t));
            b.add_figure(&mut s, super::figure("timeline-scheme-c-p48", &caption, plot(t, "Scheme C, p = 48 (shared memory)"))?);
        }
        None => s.missing.push(super::missing("the shared-memory machine's trace", &format!("results/{SHARED}"), "make traces")),
    }
    match &data.cluster {
        Some(t) => {
            let caption = format!("The simulated cluster, the master-worker at P = 64 ({}). Processes' time: {}. {}", t.run, top(t, 4), cluster_sentence(t));
            b.add_figure(&mut s, super::figure("timeline-master-worker-p64", &caption, plot(t, "Master-worker, P = 64 (cluster)"))?);
        }
        None => s.missing.push(super::missing("the simulated cluster's trace", &format!("results/{CLUSTER}"), "make traces")),
    }
    match &data.real {
        Some(t) => {
            let caption = format!(
                "Real threads at p = 2 on this machine ({}). Threads' time: {}. This run's timing is this machine's at the time it ran: another run differs in detail. {}",
                t.run,
                top(t, 3),
                real_sentence(t)
            );
            b.add_figure(&mut s, super::figure("timeline-threads-p2", &caption, plot(t, "Real threads, p = 2"))?);
        }
        None => s.optional.push(format!(
            "No trace of real threads yet (`results/{REAL}`): `make traces` runs it (its timing is this machine's, so it is not redone with the simulations; `make all` makes it after them)."
        )),
    }
    b.sections.push(s);
    Ok(())
}

/// When each row first enters a kind that `is` accepts (`None`: never).
fn first(t: &Trace, is: impl Fn(&str, &str) -> bool) -> Vec<Option<f64>> {
    t.spans.iter().map(|row| row.iter().find(|x| is(&t.kinds[x.2], &t.cats[x.2])).map(|x| x.0)).collect()
}

/// Per column of [`COLUMNS`], the share of the rows in `among` whose
/// column is held most by a kind that `is` accepts.
fn busy_share(t: &Trace, among: std::ops::Range<usize>, is: impl Fn(&str, &str) -> bool) -> Vec<f64> {
    let mut n = vec![0usize; COLUMNS];
    let rows = among.len().max(1) as f64;
    for row in t.spans.get(among).unwrap_or_default() {
        for (c0, c1, k) in bands(row, t.kinds.len(), t.end, COLUMNS) {
            if is(&t.kinds[k], &t.cats[k]) {
                n[c0..c1].iter_mut().for_each(|x| *x += 1);
            }
        }
    }
    n.into_iter().map(|x| x as f64 / rows).collect()
}

/// What the shared machine's timeline shows: processors joining one at a
/// time through the split-point variable's lock, and those that never do.
fn shared_sentence(t: &Trace) -> String {
    let work = first(t, |_, cat| cat == "work");
    let never = work.iter().filter(|w| w.is_none()).count();
    let last = work.iter().flatten().copied().fold(0.0, f64::max);
    let mut out = format!(
        "The processors start work one at a time, each after waiting its turn at the split-point variable's lock (lock wait in the idle state) and then at memory to join: the last to start, at tick {} ({:.0}% into the run)",
        super::doc::group(last.round() as i64),
        100.0 * last / t.end.max(f64::MIN_POSITIVE)
    );
    if never > 0 {
        out.push_str(&format!(", and {never} of the {} never find work in a tree this small, spinning on that lock to the end.", t.rows.len()));
    } else {
        out.push('.');
    }
    out
}

/// What the cluster's timeline shows: the workers' first jobs, the
/// passes' idle stretches and the tail.
fn cluster_sentence(t: &Trace) -> String {
    let jobs = first(t, |k, _| k == "Work");
    let workers = t.rows.len().saturating_sub(1);
    let started = jobs.iter().skip(1).flatten().count();
    let last = jobs.iter().skip(1).flatten().copied().fold(0.0, f64::max);
    let busy = busy_share(t, 1..t.rows.len(), |_, cat| cat == "busy");
    // The tail: from the last column where at least half the workers were busy.
    let tail = busy.iter().rposition(|x| *x >= 0.5).map_or(0.0, |c| (c + 1) as f64 * t.end / COLUMNS as f64);
    let master: f64 = t.spans.first().map_or(0.0, |row| row.iter().filter(|x| t.cats[x.2] == "busy").map(|x| x.1 - x.0).sum());
    format!(
        "Rank 0, the master, is busy {:.0}% of the run (its passes over the tree it keeps, and the workers' reports). {started} of the {workers} workers get a first job, the last {:.2} ms in; from {:.2} ms ({:.0}% into the run) fewer than half of them are busy at any time, the rest idle until the master's next job or the end.",
        100.0 * master / t.end.max(f64::MIN_POSITIVE),
        last / 1e3,
        tail / 1e3,
        100.0 * tail / t.end.max(f64::MIN_POSITIVE)
    )
}

/// What the real threads' timeline shows: when the second thread first
/// searched, and how little of the run is spent otherwise.
fn real_sentence(t: &Trace) -> String {
    let search = first(t, |k, _| k == "search");
    let s = shares(t);
    let other: f64 = s.iter().filter(|(k, _)| k != "search").map(|x| x.1).sum();
    let later = search.iter().skip(1).flatten().copied().fold(0.0, f64::max);
    format!(
        "Thread 0 starts the search alone; the other thread searches from {:.2} ms in, and idle stretches and lock waits together take {:.2}% of the threads' time: most are far narrower than a column of the figure (open the trace to see them).",
        later / 1e3,
        100.0 * other
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ts` + `dur` past f64's range: refused (an end of ∞ hung the drawing).
    #[test]
    fn an_end_past_any_time_is_refused_not_drawn() {
        let text = FIXTURE.replace(r#""ts":2,"dur":8"#, r#""ts":1e308,"dur":1e308"#);
        let e = read(&text).unwrap_err().to_string();
        assert!(e.contains("event 6: `ts` 1e308 + `dur` 1e308 ends past any time"), "{e}");
    }

    /// Two processors over 10 ticks: P0 searches 0..6 and waits on a lock
    /// 6..10; P1 looks for work 0..2, searches 2..10.
    const FIXTURE: &str = r#"{"traceEvents":[
        {"ph":"M","pid":0,"tid":0,"name":"process_name","args":{"name":"machine"}},
        {"ph":"M","pid":0,"tid":0,"name":"thread_name","args":{"name":"P0"}},
        {"ph":"M","pid":0,"tid":1,"name":"thread_name","args":{"name":"P1"}},
        {"ph":"X","pid":0,"tid":0,"name":"search","cat":"work","ts":0,"dur":6},
        {"ph":"X","pid":0,"tid":0,"name":"lock wait","cat":"lock","ts":6,"dur":4},
        {"ph":"X","pid":0,"tid":1,"name":"looking for work","cat":"split","ts":0,"dur":2},
        {"ph":"X","pid":0,"tid":1,"name":"search","cat":"work","ts":2,"dur":8},
        {"ph":"i","pid":0,"tid":0,"name":"root returned","cat":"end","ts":10,"s":"t"}],
        "otherData":{"tool":"pabsim --machine shared","run":"fixture","clock":"1 tick = 1 us"}}"#;

    #[test]
    fn reads_rows_kinds_and_extent() {
        let t = read(FIXTURE).unwrap();
        assert_eq!(t.rows, ["P0", "P1"]);
        assert_eq!(t.kinds, ["search", "lock wait", "looking for work"]);
        assert_eq!(t.end, 10.0);
        assert_eq!(t.spans[1], [(0.0, 2.0, 2), (2.0, 10.0, 0)]);
        assert_eq!(axis(&t), (1.0, "simulated time (ticks)".to_string()));
        let s = shares(&t);
        assert_eq!(s[0], ("search".to_string(), 0.7));
        assert_eq!(t.cats, ["work", "lock", "split"]);
        assert_eq!(first(&t, |_, c| c == "work"), [Some(0.0), Some(2.0)]);
        assert_eq!(first(&t, |k, _| k == "lock wait"), [Some(6.0), None]);
        let busy = busy_share(&t, 0..2, |_, c| c == "work");
        assert_eq!((busy[0], busy[300], busy[699]), (0.5, 1.0, 0.5));
        assert!(shared_sentence(&t).contains("the last to start, at tick 2 (20% into the run)."));
    }

    #[test]
    fn columns_take_the_state_that_held_most_of_them() {
        let t = read(FIXTURE).unwrap();
        // 5 columns of 2 ticks: P0 search, search, search, lock, lock.
        assert_eq!(bands(&t.spans[0], 3, t.end, 5), [(0, 3, 0), (3, 5, 1)]);
        // 4 columns of 2.5 ticks: P1's first holds 2 of looking, 0.5 of search.
        assert_eq!(bands(&t.spans[1], 3, t.end, 4), [(0, 1, 2), (1, 4, 0)]);
        // A tie (1 of each in a 2-tick column) goes to the commoner kind.
        assert_eq!(bands(&[(0.0, 1.0, 2), (1.0, 2.0, 0)], 3, 2.0, 1), [(0, 1, 0)]);
        // A gap leaves columns out.
        assert_eq!(bands(&[(0.0, 1.0, 0), (3.0, 4.0, 0)], 1, 4.0, 4), [(0, 1, 0), (3, 4, 0)]);
    }

    #[test]
    fn the_cluster_labels_rows_by_process_and_reads_ns() {
        let text = r#"{"traceEvents":[
            {"ph":"M","pid":0,"tid":0,"name":"process_name","args":{"name":"rank 0"}},
            {"ph":"M","pid":1,"tid":1,"name":"process_name","args":{"name":"rank 1"}},
            {"ph":"X","pid":0,"tid":0,"name":"start","cat":"busy","ts":0,"dur":1500.5},
            {"ph":"X","pid":1,"tid":1,"name":"start-up idle","cat":"idle","ts":0,"dur":20},
            {"ph":"b","pid":1,"tid":1,"name":"job","cat":"task","id":1,"ts":20}],
            "otherData":{"tool":"pabsim --machine cluster","clock":"ns (ts and dur in us, three decimals)"}}"#;
        let t = read(text).unwrap();
        assert_eq!(t.rows, ["rank 0", "rank 1"]);
        assert_eq!(axis(&t), (1e3, "simulated time (ms)".to_string()));
        assert!(read("{}").is_err());
        assert!(read(r#"{"traceEvents":[{"ph":"X","pid":0,"tid":0,"name":"a","ts":1}]}"#).is_err());
    }

    /// The figure: one row per track, one rectangle per band (plus the
    /// background and a legend swatch per kind), P0 above P1.
    #[test]
    fn the_svg_has_a_row_per_track_and_a_rectangle_per_band() {
        let t = read(FIXTURE).unwrap();
        let p = plot(&t, "fixture");
        let Plot::Timeline { bands, end, .. } = &p else { panic!("not a timeline") };
        assert_eq!(bands, &[vec![(0, 420, 0), (420, 700, 1)], vec![(0, 140, 2), (140, 700, 0)]]);
        assert_eq!(*end, 10.0);
        let svg = crate::figures::svg(&p).unwrap();
        let rects: Vec<&str> = svg.split("<rect").skip(1).collect();
        assert_eq!(rects.len(), 1 + 4 + 3, "background, four bands, three swatches");
        // The bands (left of the legend strip at 800 px): two rows, P0 above P1.
        let attr = |r: &str, k: &str| -> i64 {
            let at = r.find(&format!(" {k}=\"")).unwrap() + k.len() + 3;
            r[at..].split('"').next().unwrap().parse().unwrap()
        };
        let colour = |k: usize| {
            let c = crate::figures::PALETTE[k];
            format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2)
        };
        let tops = |k: usize| -> Vec<i64> { rects.iter().filter(|r| r.contains(&colour(k)) && attr(r, "x") < 800).map(|r| attr(r, "y")).collect() };
        let (search, lock, looking) = (tops(0), tops(1), tops(2));
        assert_eq!(search.len(), 2);
        assert_eq!((lock.len(), looking.len()), (1, 1));
        assert_eq!(lock[0], search[0], "P0's two bands share a row");
        assert_eq!(looking[0], search[1], "P1's too");
        assert!(search[0] < search[1], "P0 above P1");
        assert!(svg.contains(">\nP0\n<") && svg.contains(">\nP1\n<"), "rows labelled");
    }
}
