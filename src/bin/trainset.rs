//! `trainset`: training patterns for the network from searched trees (thesis §5.3).

use clap::Parser;
use parab::cli::{self, Input, Output, write_csv};
use parab::trainset;
use parab::tree::read_trees;
use std::path::PathBuf;

/// Search the trees of one ordering, average every internal node's type and
/// wait per address over the trees, and write the parent->child training
/// patterns as CSV.
///
/// The first row (level 0) is the root itself: its averaged type and wait,
/// which scheme C gives every node on the PV path, are in `child_type` and
/// `child_wait` (the type repeated in `type`). A child on the PV path (the
/// first child of a PV node) gives no pattern: the network is never asked
/// for it.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples:\n  treegen --set tg2 --ordering 32,79,5 --depth 4 | trainset -o /tmp/patterns-32-79-5.csv\n  treegen --set tg2 --ordering 20,69,19 --depth 4 | trainset -o /tmp/patterns-20-69-19.csv\n  treegen --set tg2 --ordering 32,79,5 --depth 4 | trainset | nntrain --seed 1 --iterations 1000 -o /tmp/net.json"
)]
struct Args {
    /// Tree specs of one ordering and depth (JSON lines from treegen); `-` or absent for stdin.
    input: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn main() {
    let args: Args = cli::parse("trainset");
    cli::main("trainset", || {
        cli::threads(args.threads)?;
        cli::check_outputs(&[("-o", args.output.as_deref())])?;
        let trees = read_trees(Input::open(args.input.as_deref())?)?;
        let set = trainset::training_set(&trees)?;
        let mut out = Output::create(args.output.as_deref())?;
        write_csv(&mut out, set.rows())?;
        Ok(out.finish()?)
    })
}
