//! `treegen`: writes tree specs, one JSON line per tree (thesis §4.2, App. A).

use clap::Parser;
use parab::cli::{self, Output, write_json_lines};
use parab::formats::{MAX_DEPTH, TreeSpec};
use parab::seeds;
use parab::tree::{Model, Ordering, ROOT_PSCORE};
use std::path::PathBuf;

/// Write the specs of artificial game trees, one JSON line per tree.
///
/// Each line holds everything needed to regenerate and search one tree: the
/// seed set and 1-based index, the root seed and pscore, the model, (b, w_a,
/// w_b) and the search depth. Several --ordering flags give every tree of
/// the set for each ordering in turn.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Example:\n  treegen --set tg1 --ordering 32,79,5 --depth 7 | fbest\n  treegen --set tg1 --ordering 32,79,5 --ordering 32,0,0 --depth 6 -o trees.jsonl"
)]
struct Args {
    /// Seed set: tg1, tg2, or a path to a file with one seed a line.
    #[arg(long, default_value = "tg1")]
    set: String,
    /// Ordering B,WA,WB (repeatable), e.g. 32,79,5.
    #[arg(long, required = true)]
    ordering: Vec<Ordering>,
    /// Search depth.
    #[arg(long)]
    depth: u32,
    /// Tree model: exponential or strong (strong needs b = 20).
    #[arg(long, default_value = "exponential")]
    model: Model,
    /// Only the first N seeds of the set.
    #[arg(long)]
    count: Option<usize>,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn main() {
    let args: Args = cli::parse("treegen");
    cli::main("treegen", || {
        anyhow::ensure!(args.depth <= MAX_DEPTH, "--depth {} is larger than {MAX_DEPTH}", args.depth);
        cli::no_repeats("--ordering", &args.ordering)?;
        let set = seeds::load(&args.set)?;
        let n = args.count.unwrap_or(set.seeds.len());
        anyhow::ensure!(n >= 1, "--count must be at least 1");
        anyhow::ensure!(n <= set.seeds.len(), "--count {n} but set {} has only {} seeds", set.name, set.seeds.len());
        let mut specs = vec![];
        for o in &args.ordering {
            for (i, &seed) in set.seeds[..n].iter().enumerate() {
                let spec = TreeSpec {
                    set: set.name.clone(),
                    index: i as u32 + 1,
                    seed: seed as u64,
                    pscore: ROOT_PSCORE,
                    model: args.model,
                    b: o.b,
                    wa: o.wa,
                    wb: o.wb,
                    depth: args.depth,
                };
                spec.check()?;
                specs.push(spec);
            }
        }
        let mut out = Output::create(args.output.as_deref())?;
        write_json_lines(&mut out, &specs)?;
        Ok(out.finish()?)
    })
}
