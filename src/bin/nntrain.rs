//! `nntrain`: trains the 3-12-2 node-classification network (thesis §5.4).

use clap::Parser;
use parab::cli::{self, Input, Output, write_csv};
use parab::formats::{CurveRow, PatternRow, read_csv};
use parab::nn::Network;
use parab::nntrain::{self, PatternSet, TrainSettings};
use parab::progress::Progress;
use std::io::Write;
use std::path::PathBuf;

/// Train the 3-12-2 network on training patterns (from trainset) by on-line
/// back-propagation and write its weights file (JSON) and learning curve (CSV).
///
/// With several pattern files, the networks train in parallel and go to
/// --out-dir as B-WA-WB.json and B-WA-WB-curve.csv. Progress goes to stderr
/// when it is a terminal.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples (1,000 iterations for a quick try; the thesis's 10,000 are the default):\n  treegen --set tg2 --ordering 32,79,5 --depth 4 | trainset | nntrain --seed 1 --iterations 1000 -o /tmp/net.json --curve /tmp/curve.csv\n  nntrain --seed 1 --iterations 1000 --out-dir /tmp/weights /tmp/patterns-32-79-5.csv /tmp/patterns-20-69-19.csv"
)]
struct Args {
    /// Pattern files (CSV from trainset); `-` or none for stdin.
    inputs: Vec<PathBuf>,
    /// Seed of the ChaCha8 generator for the initial weights (and the shuffle).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Iterations; each presents every pattern once.
    #[arg(long, default_value_t = 10_000)]
    iterations: u32,
    /// Learning rate.
    #[arg(long, default_value_t = 0.1)]
    eta: f64,
    /// Initial weights are uniform in [-INIT, INIT].
    #[arg(long, default_value_t = 0.5)]
    init: f64,
    /// Present the patterns in file order (default: a fresh seeded shuffle
    /// before every iteration).
    #[arg(long)]
    no_shuffle: bool,
    /// Learning-curve interval in iterations.
    #[arg(long, default_value_t = 10)]
    curve_every: u32,
    /// Learning curve CSV (iteration, e_type, e_wait); one input only.
    #[arg(long, value_name = "FILE", conflicts_with = "out_dir")]
    curve: Option<PathBuf>,
    /// Write each network to DIR/B-WA-WB.json and its curve to DIR/B-WA-WB-curve.csv.
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    out_dir: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Weights file (default stdout); one input only.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn main() {
    let args: Args = cli::parse("nntrain");
    cli::main("nntrain", || {
        cli::threads(args.threads)?;
        let cfg = TrainSettings {
            seed: args.seed,
            iterations: args.iterations,
            eta: args.eta,
            init: args.init,
            shuffle: !args.no_shuffle,
            curve_every: args.curve_every,
        };
        cfg.check()?;
        // Before hours of training: an output that cannot be written, or
        // `-o w.json --curve w.json` (which would lose the weights).
        match (&args.out_dir, &args.curve) {
            (Some(dir), _) => cli::check_dir(dir, "--out-dir")?,
            (None, Some(curve)) => cli::check_outputs(&[("-o", args.output.as_deref()), ("--curve", Some(curve))])?,
            (None, None) => cli::check_outputs(&[("-o", args.output.as_deref())])?,
        }
        let inputs: Vec<Option<PathBuf>> = if args.inputs.is_empty() { vec![None] } else { args.inputs.iter().cloned().map(Some).collect() };
        anyhow::ensure!(inputs.len() == 1 || args.out_dir.is_some(), "several pattern files need --out-dir (one network per file)");
        let mut sets = vec![];
        for p in &inputs {
            let input = Input::open(p.as_deref())?;
            let name = input.name.clone();
            let rows: Vec<PatternRow> = read_csv(input)?;
            sets.push(PatternSet::new(&rows, &name)?);
        }
        if let Some(dir) = &args.out_dir {
            for (i, a) in sets.iter().enumerate() {
                if let Some(j) = sets[..i].iter().position(|b| b.trained_for == a.trained_for) {
                    anyhow::bail!("pattern files {} and {} are both for {}: their outputs would collide in {}", j + 1, i + 1, a.trained_for, dir.display());
                }
            }
        }
        let labels: Vec<String> = sets.iter().map(|s| format!("nntrain {}", s.trained_for.key())).collect();
        let bars = Progress::many(&labels, cfg.iterations as u64, "iterations");
        let trained: Vec<(Network, Vec<CurveRow>)> =
            nntrain::train_many(&sets, &cfg, |i, it, e| bars[i].set(it as u64, format!("E_type {:.3} E_wait {:.4}", e.e_type, e.e_wait)))?;
        for b in &bars {
            b.finish();
        }
        if let Some(dir) = &args.out_dir {
            // Made now, removed again if a file cannot be written.
            let mut made = cli::CreatedDirs::default();
            made.create(dir, "--out-dir")?;
            let mut outs = vec![];
            for (net, curve) in &trained {
                let key = net.trained_for.key();
                let mut w = Output::create(Some(&dir.join(format!("{key}.json"))))?;
                w.write_all(net.to_json()?.as_bytes())?;
                let mut c = Output::create(Some(&dir.join(format!("{key}-curve.csv"))))?;
                write_csv(&mut c, curve)?;
                outs.push(w);
                outs.push(c);
            }
            // Rename only when every file is complete.
            cli::finish_all(outs)?;
            made.keep();
            return Ok(());
        }
        let (net, curve) = &trained[0];
        let mut w = Output::create(args.output.as_deref())?;
        w.write_all(net.to_json()?.as_bytes())?;
        let mut outs = vec![w];
        if let Some(p) = &args.curve {
            let mut c = Output::create(Some(p))?;
            write_csv(&mut c, curve)?;
            outs.push(c);
        }
        // Both files commit together, after both are written.
        Ok(cli::finish_all(outs)?)
    })
}
