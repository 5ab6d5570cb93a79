//! A trace read back (`docs/formats.md`, "Traces"): the schema of every
//! event by its phase, and the sums the tests hold against the rows: each
//! track's time per name and category (up to an end, in whole ticks or
//! ns), its slices' overlaps, and the messages' arrows.

use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// A track: `(pid, tid)`.
pub type Track = (u64, u64);

/// A kind of complete event: (category, name, `args.state`).
pub type Kind = (String, String, String);

/// What a trace holds, summed per track (`(pid, tid)`).
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Events read.
    pub events: u64,
    /// Per track, per (category, name, `args.state`): the complete
    /// events' time up to the end given to [`read`], in the clock's units
    /// (ticks or ns).
    pub time: BTreeMap<Track, BTreeMap<Kind, u64>>,
    /// Per track, its complete events (start, end), in the clock's units.
    pub slices: BTreeMap<Track, Vec<(u64, u64)>>,
    /// Tracks named by `thread_name`.
    pub named: BTreeMap<Track, String>,
    /// Arrows begun (`s`) and ended (`f`), and ids ended without a start.
    pub flows: (u64, u64, u64),
    /// Async spans begun and ended.
    pub spans: (u64, u64),
    /// Instant events by name: (track, time).
    pub instants: BTreeMap<String, Vec<(Track, u64)>>,
}

impl Summary {
    /// Track `k`'s time in events of category `cat` up to the end.
    pub fn in_cat(&self, k: Track, cat: &str) -> u64 {
        self.time.get(&k).map_or(0, |m| m.iter().filter(|(key, _)| key.0 == cat).map(|(_, &v)| v).sum())
    }

    /// The time in events whose `args.state` is `state` and category `cat`
    /// (any name), over every track.
    pub fn state_time(&self, state: &str, cat: &str) -> u64 {
        self.time.values().flat_map(|m| m.iter()).filter(|(key, _)| key.2 == state && key.0 == cat).map(|(_, &v)| v).sum()
    }
}

/// A time field in the clock's units: `scale` 1 for ticks (written as
/// µs), 1000 for ns (µs with three decimals), checked to be whole.
fn units(v: &Value, field: &str, scale: u64, i: usize) -> Result<u64, String> {
    let x = v.get(field).and_then(Value::as_f64).ok_or_else(|| format!("event {i}: no number `{field}`"))?;
    if x < 0.0 {
        return Err(format!("event {i}: negative `{field}`"));
    }
    let u = (x * scale as f64).round();
    if (u - x * scale as f64).abs() > 1e-3 {
        return Err(format!("event {i}: `{field}` {x} is not a whole unit"));
    }
    Ok(u as u64)
}

/// Reads a trace's text: the JSON object format with `traceEvents`, each
/// event checked for its phase's fields (`ph`, `pid`, `tid`, `name`
/// everywhere; `ts` but on metadata; `dur` and `cat` on complete events;
/// `id` and `cat` on arrows and async spans; `bp` `e` on arrow ends;
/// `args.name` on names). Complete events are summed up to `end` (all if
/// `None`) in units of 1/`scale` µs.
pub fn read(text: &str, scale: u64, end: Option<u64>) -> Result<Summary, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let events = v.get("traceEvents").and_then(Value::as_array).ok_or("no `traceEvents` array")?;
    let mut s = Summary::default();
    let mut started: HashMap<u64, u64> = HashMap::new();
    let mut ended: Vec<u64> = vec![];
    for (i, e) in events.iter().enumerate() {
        s.events += 1;
        let ph = e.get("ph").and_then(Value::as_str).ok_or(format!("event {i}: no `ph`"))?;
        let pid = e.get("pid").and_then(Value::as_u64).ok_or(format!("event {i}: no `pid`"))?;
        let tid = e.get("tid").and_then(Value::as_u64).ok_or(format!("event {i}: no `tid`"))?;
        let name = e.get("name").and_then(Value::as_str).ok_or(format!("event {i}: no `name`"))?;
        let k = (pid, tid);
        let cat = || e.get("cat").and_then(Value::as_str).ok_or(format!("event {i}: no `cat`"));
        let id = || e.get("id").and_then(Value::as_u64).ok_or(format!("event {i}: no `id`"));
        match ph {
            "M" => {
                let arg = e.pointer("/args/name").and_then(Value::as_str);
                match name {
                    "process_name" | "thread_name" => {
                        let a = arg.ok_or(format!("event {i}: {name} without args.name"))?;
                        if name == "thread_name" {
                            s.named.insert(k, a.to_string());
                        }
                    }
                    "process_sort_index" | "thread_sort_index" => {
                        e.pointer("/args/sort_index").and_then(Value::as_u64).ok_or(format!("event {i}: {name} without args.sort_index"))?;
                    }
                    _ => return Err(format!("event {i}: unknown metadata {name}")),
                }
            }
            "X" => {
                let (c, ts, dur) = (cat()?, units(e, "ts", scale, i)?, units(e, "dur", scale, i)?);
                let state = e.pointer("/args/state").and_then(Value::as_str).unwrap_or("").to_string();
                let stop = end.map_or(ts + dur, |x| (ts + dur).min(x));
                *s.time.entry(k).or_default().entry((c.to_string(), name.to_string(), state)).or_default() += stop.saturating_sub(ts);
                s.slices.entry(k).or_default().push((ts, ts + dur));
            }
            "i" => {
                cat()?;
                let ts = units(e, "ts", scale, i)?;
                s.instants.entry(name.to_string()).or_default().push((k, ts));
            }
            "s" => {
                cat()?;
                units(e, "ts", scale, i)?;
                if started.insert(id()?, i as u64).is_some() {
                    return Err(format!("event {i}: arrow id started twice"));
                }
                s.flows.0 += 1;
            }
            "f" => {
                cat()?;
                units(e, "ts", scale, i)?;
                if e.get("bp").and_then(Value::as_str) != Some("e") {
                    return Err(format!("event {i}: arrow end without \"bp\":\"e\""));
                }
                ended.push(id()?);
                s.flows.1 += 1;
            }
            "b" | "e" => {
                cat()?;
                id()?;
                units(e, "ts", scale, i)?;
                if ph == "b" {
                    s.spans.0 += 1;
                } else {
                    s.spans.1 += 1;
                }
            }
            _ => return Err(format!("event {i}: unknown phase {ph}")),
        }
    }
    s.flows.2 = ended.iter().filter(|id| !started.contains_key(id)).count() as u64;
    Ok(s)
}

/// Whether the slices of one track overlap (each track's slices sorted):
/// the first overlap found.
pub fn overlap(slices: &[(u64, u64)]) -> Option<((u64, u64), (u64, u64))> {
    let mut v = slices.to_vec();
    v.sort();
    v.windows(2).find(|w| w[1].0 < w[0].1).map(|w| (w[0], w[1]))
}
