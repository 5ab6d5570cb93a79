//! `report`: every table and figure of the thesis, ours beside the
//! published, as one HTML page, Markdown tables and SVG/PNG figures.

use clap::Parser;
use parab::cli;
use parab_report::{self as report, ReportSpec};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Read the results CSVs and the published tables; write
/// `REPORT/index.html` (self-contained, figures inline), one Markdown file
/// per table, and `FIGURES/*.svg`, `*.png`. Missing results become sections
/// that say which command produces them.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples:\n  report                                   # results/ -> results/report/index.html\n  mkdir -p /tmp/run/fbest && fbest --analytic --ordering 32,79,5 -o /tmp/run/fbest/analytic.csv\n  report --results /tmp/run --date 2001-06-30\n  SOURCE_DATE_EPOCH=0 report --results /tmp/run --out /tmp/page"
)]
struct Args {
    /// Results directory (fbest/, nodes/, weights/, classify/, pabsim/).
    #[arg(long, default_value = "results")]
    results: PathBuf,
    /// Published tables (one CSV per thesis table). Default: `data/published`
    /// here, else the repository's own, beside the binary's `target/`.
    #[arg(long)]
    published: Option<PathBuf>,
    /// Where index.html and the Markdown tables go (default RESULTS/report).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where the figures go (default RESULTS/figures).
    #[arg(long)]
    figures: Option<PathBuf>,
    /// Report date YYYY-MM-DD (default: SOURCE_DATE_EPOCH, else today, UTC).
    #[arg(long)]
    date: Option<String>,
}

/// The published tables when `--published` is not given: `data/published`
/// in the current directory (the repository, as `make` runs it), else the
/// repository the binary sits in (`target/release/report`), else the one it
/// was built from; so that `report --results /tmp/run` works from anywhere.
fn default_published() -> anyhow::Result<PathBuf> {
    let here = PathBuf::from("data/published");
    let beside = std::env::current_exe().ok().and_then(|e| Some(e.parent()?.parent()?.parent()?.join("data/published")));
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/published");
    let found = [Some(here), beside, Some(built)].into_iter().flatten().find(|p| p.is_dir());
    found.ok_or_else(|| {
        anyhow::anyhow!(
            "no published tables at data/published, nor beside this binary (run report from the parab repository, or give --published DIR, the repository's data/published)"
        )
    })
}

fn main() {
    let args: Args = cli::parse("report");
    cli::main("report", || {
        // A missing results directory (or a file given for one) is a typo,
        // not a page of missing sections.
        anyhow::ensure!(args.results.is_dir(), "--results {}: not a directory (give the results directory, e.g. results)", args.results.display());
        let epoch = std::env::var("SOURCE_DATE_EPOCH").ok();
        let cfg = ReportSpec {
            out: args.out.clone().unwrap_or_else(|| args.results.join("report")),
            figures: args.figures.clone().unwrap_or_else(|| args.results.join("figures")),
            date: report::report_date(args.date.as_deref(), epoch.as_deref())?,
            results: args.results.clone(),
            published: match &args.published {
                Some(p) => p.clone(),
                None => default_published()?,
            },
        };
        anyhow::ensure!(cfg.published.is_dir(), "no published tables at {} (give --published DIR, the repository's data/published)", cfg.published.display());
        let s = report::run(&cfg)?;
        // A summary for a person at a terminal; quiet in pipelines and logs.
        if s.incomplete > 0 && std::io::stderr().is_terminal() {
            eprintln!(
                "report: {} sections, {} tables, {} figures; {} sections wait for missing results -> {}",
                s.sections,
                s.tables,
                s.figures,
                s.incomplete,
                cfg.out.join("index.html").display()
            );
        }
        Ok(())
    })
}
