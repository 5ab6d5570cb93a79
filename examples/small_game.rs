//! Using `parab` as a library: a small game of one's own, defined here
//! outside the crate, searched by the sequential alpha-beta search, the
//! simulated shared-memory machine (thesis chapter 6), real threads and
//! the simulated message-passing cluster, all through the public API.
//! Every search must return the same root value (the minimax value of the
//! game to the given depth); the program prints them and exits non-zero
//! when they differ. `cargo run --release --example small_game`.
//!
//! The game, "pebbles": a pile of stones; the players take 1, 2 or 3 in
//! turn, and each stone taken is worth points by its place in the pile
//! (stone `i` is worth `1 + i * 7 % 5`). The root player (MAX) wants the
//! largest difference between their points and the opponent's; at the
//! search horizon a position is worth the difference so far. Any
//! [`TreeSource`] works the same way: its nodes, a move list in search
//! order, and values on the scale of [`parab::value`].

use parab::cluster::{ClusterAlgorithm, ClusterConfig, simulate_source};
use parab::game::{MoveList, TreeSource, mix};
use parab::policy::{DEFAULT_PV_WAIT, Policy};
use parab::real::Options;
use parab::schemes::YbwcSplit;
use parab::sim::engine::{MachineSpec, simulate};
use parab::value::{off_scale, on_scale};
use serde::{Deserialize, Serialize};

/// Stones in the pile at the start.
const PILE: u8 = 21;
/// Plies searched.
const DEPTH: u32 = 8;
/// The most stones one move takes (the game's branching factor).
const MOST: u8 = 3;

/// The game: no state beyond its rules.
struct Pebbles;

/// A position: stones left, the root player's lead in points, and who moves.
/// Serde types, so that the message-passing machines can send a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Position {
    left: u8,
    lead: i64,
    max_to_move: bool,
}

/// One entry of a move list: stones taken and the points they are worth.
#[derive(Clone, Copy, Debug, Default)]
struct Take {
    stones: u8,
    points: i64,
}

/// A position's moves, best-looking first (most points), in the caller's buffer.
struct Moves<'a> {
    takes: &'a [Take],
    next: u32,
}

/// A move list without its buffer: how many moves there are and how many
/// were handed out.
#[derive(Clone, Copy, Debug)]
struct Cursor {
    len: u32,
    next: u32,
}

/// Points of taking `stones` from a pile of `left`: stones `left - 1`
/// down to `left - stones` (stone `i` counted from the bottom).
fn points(left: u8, stones: u8) -> i64 {
    (left - stones..left).map(|i| 1 + (i as i64 * 7) % 5).sum()
}

impl Position {
    /// The position after taking `t`.
    fn after(&self, t: Take) -> Position {
        let gain = if self.max_to_move { t.points } else { -t.points };
        Position { left: self.left - t.stones, lead: self.lead + gain, max_to_move: !self.max_to_move }
    }
}

impl TreeSource for Pebbles {
    type Node = Position;
    type Slot = Take;
    type Moves<'a> = Moves<'a>;
    type Cursor = Cursor;

    fn slots(&self) -> usize {
        MOST as usize
    }
    fn moves<'a>(&'a self, node: &Position, _max: bool, buf: &'a mut [Take]) -> Moves<'a> {
        let n = MOST.min(node.left) as usize;
        for (k, slot) in buf[..n].iter_mut().enumerate() {
            let stones = k as u8 + 1;
            *slot = Take { stones, points: points(node.left, stones) };
        }
        // The richest take first: a good move order makes alpha-beta prune.
        buf[..n].sort_by_key(|t| std::cmp::Reverse(t.points));
        Moves { takes: &buf[..n], next: 0 }
    }
    fn horizon_value(&self, node: &Position, _max: bool) -> i64 {
        // The scale's values are from the root player's point of view.
        on_scale(node.lead, true)
    }
    fn terminal_value(&self, node: &Position, _max: bool, _ply: u32) -> i64 {
        on_scale(node.lead, true)
    }
    fn detach(&self, m: Moves<'_>) -> Cursor {
        Cursor { len: m.takes.len() as u32, next: m.next }
    }
    fn resume<'a>(&'a self, c: Cursor, buf: &'a mut [Take]) -> Moves<'a> {
        Moves { takes: &buf[..c.len as usize], next: c.next }
    }
    fn handed_out(c: &Cursor) -> u32 {
        c.next
    }
    fn root_key(&self, node: &Position) -> u64 {
        self.tt_key(node, 0)
    }
    /// What lies below a position is a function of (stones left, lead, who
    /// moves); the ply folded in as the trait asks.
    fn tt_key(&self, n: &Position, ply: u32) -> u64 {
        mix(mix(n.left as u64 | (n.max_to_move as u64) << 8 | (ply as u64) << 16) ^ n.lead as u64)
    }
}

impl MoveList<Pebbles> for Moves<'_> {
    type Handle = usize;
    fn len(&self) -> u32 {
        self.takes.len() as u32
    }
    fn next(&mut self) -> Option<usize> {
        let k = self.next as usize;
        (k < self.takes.len()).then(|| {
            self.next += 1;
            k
        })
    }
    fn child(&mut self, parent: &Position, k: usize) -> Position {
        parent.after(self.takes[k])
    }
    fn leaf_value(&mut self, parent: &Position, k: usize) -> i64 {
        on_scale(parent.after(self.takes[k]).lead, true)
    }
}

fn main() {
    if let Err(e) = run(&mut std::io::stdout().lock()) {
        // A reader that has gone (`| head -1`) ends the program quietly, as
        // the tools do; any other failure to write is one line.
        match e.downcast_ref::<std::io::Error>() {
            Some(io) if io.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            Some(io) => eprintln!("small_game: cannot write stdout: {io}"),
            None => eprintln!("small_game: {e}"),
        }
        std::process::exit(1);
    }
}

fn run(out: &mut impl std::io::Write) -> anyhow::Result<()> {
    let game = Pebbles;
    let root = Position { left: PILE, lead: 0, max_to_move: true };

    // (a) The sequential search (the thesis's fail-hard alpha-beta); `()`
    // observes nothing.
    let seq = parab::search::search(&game, &root, DEPTH, &mut ());
    // (b) The simulated shared-memory machine: 4 processors, the thesis's
    // DTS-like search with scheme A (YBWC) split points.
    let spec = MachineSpec { policy: "dts".parse::<Policy>()?, ..MachineSpec::new(4, DEPTH) };
    let sim = simulate(&game, root, &YbwcSplit { m_a: 1, pv_wait: DEFAULT_PV_WAIT }, spec)?;
    // (c) Real threads: work stealing on 2 OS threads.
    let real = parab::request::real::search(&game, &root, DEPTH, Some("steal".parse::<Policy>()?), &Options { threads: 2, ..Options::default() }, None)?;
    // (d) The simulated cluster: the Young Brothers Wait Concept over
    // messages on 4 processes (the root value is checked against the
    // cluster's sequential baseline inside; checked here again below).
    let cluster = simulate_source(&game, &root, DEPTH, &ClusterConfig::new("ybwc".parse::<ClusterAlgorithm>()?, 4), None)?;

    let values = [
        ("sequential search", seq.value, seq.counts.nodes),
        ("simulated shared memory, 4 processors", sim.value, sim.nodes),
        ("real threads, 2", real.value, real.nodes),
        ("simulated cluster, 4 processes", cluster.output.value, cluster.output.counts.nodes),
    ];
    writeln!(out, "pebbles: a pile of {PILE}, take 1 to {MOST}, searched {DEPTH} plies deep")?;
    for (what, value, nodes) in values {
        writeln!(out, "{what:<40} root value {:>4}  ({nodes} nodes)", off_scale(value))?;
    }
    out.flush()?;
    // Plain minimax (no pruning) is the reference every search must meet.
    let want = parab::search::minimax(&game, &root, true, DEPTH, 0);
    match values.iter().find(|v| v.1 != want) {
        Some((what, value, _)) => anyhow::bail!("the {what} gives root value {}, minimax {}", off_scale(*value), off_scale(want)),
        None => Ok(()),
    }
}
