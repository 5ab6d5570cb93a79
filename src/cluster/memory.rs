//! What a run of the simulated cluster needs in memory, estimated before it
//! starts, and the budget it must fit (beyond the thesis; Ura et al.'s
//! 1,536 processes are the reason: `docs/model.md` §9.1).
//!
//! A simulated run holds every process at once, so its memory is what its
//! processes hold, and the largest part is known before anything runs:
//!
//! - **tables**: every searching process's [`crate::tt::ProcessTable`], at
//!   its full size (a table is allocated at its first store and a search
//!   writes it all over soon enough: at depth 18, 100,000 stores a worker);
//! - **the frontier** of the root-splitting baselines: every node at the
//!   split ply (b^split for a tree of b moves a node; counted, or
//!   extrapolated from the plies near the root, by
//!   [`crate::cluster::algorithms::frontier::size`]), each with process 0's slot for its value
//!   and, with the even split, a result in flight for every node of a
//!   worker's share ([`super::algorithms::root_split::frontier_bytes`]);
//! - **the master's tree** of the master-worker: the nodes its passes
//!   expand, bounded by a measured model
//!   ([`crate::cluster::algorithms::master_worker::master_memory`]),
//!   and its workers' search stacks (the pages a paused search touches,
//!   [`crate::cluster::pause::STACK_COMMITTED`]);
//! - a fixed amount per process (its state, queues, messages in flight).
//!
//! Runs of one request go on `threads` at a time (rayon), so the request
//! needs its largest run that many times, plus the sequential baselines'
//! tables. A request whose estimate exceeds the budget (`--memory`, by
//! default what the process may take less a tenth: the least of the
//! machine's available memory, its address-space limit and its cgroup's
//! limit, [`crate::limits`]) is refused before anything runs, in one line
//! naming the estimate and what to lower.

use super::ClusterConfig;
use super::algorithm::{Algorithm, Run};
use crate::game::TreeSource;
use crate::tree::{SourceVisitor, Tree};
use crate::tt::ProcessTable;

/// Bytes a process holds besides its table: its state, its move buffers,
/// its queue and its messages in flight (a margin over what they measure).
pub const PER_PROCESS: u64 = 16 << 10;

/// What one run needs, by part, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// The processes' tables.
    pub tables: u64,
    /// The root-splitting baselines' frontier, or the master's tree.
    pub tree: u64,
    /// Everything else the processes hold.
    pub processes: u64,
    /// The tree part's name and the option that lowers it
    /// ([`super::algorithm::Part`]).
    pub part: (&'static str, &'static str),
}

impl Estimate {
    /// The whole.
    pub fn total(&self) -> u64 {
        self.tables.saturating_add(self.tree).saturating_add(self.processes)
    }
}

/// The estimate of `cfg` on `root` of `src` searched to `depth`: the
/// algorithm resolved as a run resolves it ([`Algorithm::resolve`]), then
/// its part ([`Algorithm::memory`]), its tables and every process's fixed
/// part.
pub fn estimate<S: TreeSource, A: Algorithm>(cfg: &ClusterConfig<A>, src: &S, root: &S::Node, depth: u32) -> Estimate {
    let run = Run { src, root, depth, procs: cfg.procs, settings: &cfg.settings, reference: &super::reference::Reference::None };
    let part = cfg.algorithm.resolve(&run).memory(&run);
    let table = ProcessTable::bytes(cfg.settings.tt_slots, false);
    Estimate {
        tables: part.tables.saturating_mul(table),
        tree: part.tree,
        processes: (cfg.procs as u64).saturating_mul(PER_PROCESS),
        part: (part.name, part.lower),
    }
}

/// The estimate of `cfg` on `tree`.
pub fn of_tree<A: Algorithm>(cfg: &ClusterConfig<A>, tree: &Tree) -> Estimate {
    struct V<'a, A>(&'a ClusterConfig<A>);
    impl<A: Algorithm> SourceVisitor for V<'_, A> {
        type Output = Estimate;
        fn visit<S: TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Estimate {
            estimate(self.0, src, root, depth)
        }
    }
    tree.visit(V(cfg))
}

/// What a request of runs `threads` at a time needs at its peak: the
/// sequential baselines' tables (one a tree, `threads` at a time) and
/// `threads` times its largest run, with the part that makes it largest.
pub fn peak<A: Algorithm>(cfgs: &[ClusterConfig<A>], trees: &[Tree], threads: usize) -> (u64, Option<(ClusterConfig<A>, Estimate)>) {
    let at_once = threads.max(1) as u64;
    let mut worst: Option<(ClusterConfig<A>, Estimate)> = None;
    let mut base = 0;
    for t in trees {
        for c in cfgs {
            let e = of_tree(c, t);
            if worst.as_ref().is_none_or(|(_, w)| e.total() > w.total()) {
                worst = Some((*c, e));
            }
        }
        if let Some(c) = cfgs.first() {
            base = base.max(ProcessTable::bytes(c.settings.tt_slots, false) + PER_PROCESS);
        }
    }
    let largest = worst.as_ref().map_or(0, |(_, e)| e.total());
    (base.saturating_mul(at_once).max(largest.saturating_mul(at_once)), worst)
}

/// What to lower when a run does not fit: the larger part's option
/// (`lower`, the tree part's), and the runs at once if there are several.
pub fn advice(lower: &str, tables: u64, tree: u64, at_once: usize) -> String {
    let part = if tree > tables { format!("lower {lower}") } else { "lower --tt-slots or --procs".to_string() };
    let threads = if at_once > 1 { ", or --threads" } else { "" };
    format!("{part}{threads}, or raise --memory")
}

/// The memory this process may take now, less a tenth: the least of the
/// machine's available memory, the process's address-space limit and its
/// cgroup's limit ([`crate::limits::memory_available`]; `None` where the
/// system says none of them: then no budget is enforced by default).
pub fn available() -> Option<u64> {
    crate::limits::memory_available().map(|b| b / 10 * 9)
}

/// A byte count for people: `12.4 GB`, `820 MB`, `3 kB` (decimal units),
/// below 1 kB in bytes (`512 B`).
pub fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000_000 => format!("{:.1} GB", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{:.0} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{:.0} kB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

/// Parses a `--memory` amount: a number of bytes with an optional unit
/// `k`, `M`, `G`, `T` (powers of 1,000) or `KiB`, `MiB`, `GiB`, `TiB`
/// (powers of 1,024), e.g. `12G`, `800MiB`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| format!("`{s}` is not an amount of memory (e.g. 12G, 800MiB)"))?;
    let m: f64 = match unit.trim() {
        "" | "B" => 1.0,
        "k" | "K" | "kB" | "KB" => 1e3,
        "M" | "MB" => 1e6,
        "G" | "GB" => 1e9,
        "T" | "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        u => return Err(format!("`{u}` is not a unit of memory (k, M, G, T or KiB, MiB, GiB, TiB)")),
    };
    let bytes = n * m;
    if !(1.0..1.8e19).contains(&bytes) {
        return Err(format!("`{s}` is not an amount of memory between 1 byte and 16 EiB"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{ClusterAlgorithm, ClusterSettings, MwVariant};

    fn cfg(algorithm: ClusterAlgorithm, procs: usize, tt_slots: usize) -> ClusterConfig {
        ClusterConfig { algorithm, procs, settings: ClusterSettings { tt_slots, ..ClusterSettings::default() } }
    }

    #[test]
    fn estimates_by_hand() {
        use crate::cluster::algorithms::master_worker::{MasterWorker, master_memory};
        use crate::cluster::algorithms::root_split::{EvenSplit, MasterSlave, frontier_bytes};
        use crate::cluster::algorithms::seq::Sequential;
        use crate::cluster::exec::machine::message_bytes;
        type N = crate::tree::incremental::INode;
        let t = crate::tree::read_trees(crate::cli::Input::from_string(
            "t",
            r#"{"set":"tg1","index":1,"seed":1335380035,"model":"incremental","b":5,"scale":100,"depth":18}"#,
        ))
        .unwrap();
        // Depth 18 at P = 1,536 with 2^18 entries and d′ = 12: 1,535 tables
        // of 4 MiB, the master's tree and the workers' search stacks.
        let mw = MasterWorker { master_depth: Some(12), ..MasterWorker::new(MwVariant::Updates) };
        let e = of_tree(&cfg(mw.into(), 1536, 1 << 18), &t[0]);
        let master = master_memory::<N>(5, 18, 12, 1536);
        let stacks = 1535 * crate::cluster::pause::STACK_COMMITTED;
        assert_eq!(
            e,
            Estimate { tables: 1535 << 22, tree: master + stacks, processes: 1536 << 14, part: ("master's tree and search stacks", "--master-depth") }
        );
        assert!(master < 200_000_000, "{master}");
        // A deep split ply: 5^14 frontier nodes of 48 bytes (the node 24,
        // process 0's value 16 and its copy 8); the even split on 2
        // processes adds half of them as results in flight.
        let n14 = 5u64.pow(14);
        assert_eq!(frontier_bytes::<N>(false, n14, 2), n14 * 48);
        assert_eq!(frontier_bytes::<N>(true, n14, 2), n14 * 48 + n14 / 2 * message_bytes::<N, crate::cluster::exec::transport::NoOwn>());
        // The default split ply is worked out as a run does: the shallowest
        // with at least 64 nodes, 3 (125 nodes).
        let ms64 = cfg(MasterSlave::default().into(), 64, 1 << 10);
        assert_eq!(of_tree(&ms64, &t[0]).tree, 125 * 48);
        assert_eq!(of_tree(&ms64, &t[0]).part, ("frontier", "--split-ply"));
        let es2 = cfg(EvenSplit { split: Some(3) }.into(), 2, 1 << 10);
        assert_eq!(of_tree(&es2, &t[0]).tree, 125 * 48 + 62 * message_bytes::<N, crate::cluster::exec::transport::NoOwn>());
        // A split ply as deep as the tree (18): its frontier is every leaf,
        // 5^18, extrapolated from the plies counted near the root.
        let deep = cfg(MasterSlave { split: Some(18) }.into(), 4096, 1 << 10);
        assert_eq!(of_tree(&deep, &t[0]).tree, 5u64.pow(18) * 48);
        assert_eq!(of_tree(&cfg(Sequential.into(), 1, 1 << 20), &t[0]).total(), (16 << 20) + (16 << 10));
    }

    #[test]
    fn amounts_parse_with_their_units() {
        assert_eq!(parse_bytes("12G"), Ok(12_000_000_000));
        assert_eq!(parse_bytes("800MiB"), Ok(800 << 20));
        assert_eq!(parse_bytes("1.5 GB"), Ok(1_500_000_000));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert!(parse_bytes("12X").unwrap_err().contains("not a unit"));
        assert!(parse_bytes("G").unwrap_err().contains("not an amount"));
        assert!(parse_bytes("0").is_err());
        assert!(parse_bytes("99999999T").is_err());
    }
}
