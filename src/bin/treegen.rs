//! `treegen`: writes tree specs, one JSON line per tree (thesis §4.2, App. A).

use clap::Parser;
use parab::cli::{self, Input, Output, write_json_lines};
use parab::game::{Game, read_positions};
use parab::seeds;
use parab::tree::artificial::{Model, Ordering};
use parab::tree::incremental::{DEFAULT_SCALE, EvalNoise, IncrementalModel};
use parab::tree::{GameSpec, IncrementalSpec, MAX_DEPTH, TreeSpec};
use parab::value::ROOT_PSCORE;
use std::path::PathBuf;

/// Write the specs of artificial game trees, or of real game positions, one
/// JSON line per tree.
///
/// Each line holds everything needed to regenerate and search one tree: the
/// seed set and 1-based index, the root seed and pscore, the model, (b, w_a,
/// w_b) and the search depth. Several --ordering flags give every tree of
/// the set for each ordering in turn.
///
/// With --model incremental, incremental random trees (Ura et al. 2014):
/// --branching B children everywhere, edge values of the stepped
/// exponential law with step --scale, one tree per seed of the set; with
/// --eval-noise (and --eval-persist), a static evaluation that errs
/// (docs/model.md §7.8).
///
/// With --game chess or --game othello and --positions FILE, one line per
/// position of the file instead (chess: EPD or FEN lines; Othello: 64
/// squares and the side to move), with the position, its id and the depth.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples:\n  treegen --set tg1 --ordering 32,79,5 --depth 7 | fbest\n  treegen --set tg1 --ordering 20,69,19 --ordering 32,79,5 --depth 5 --count 10 -o /tmp/trees.jsonl\n  treegen --game chess --positions data/positions/bratko-kopec.epd --depth 6 | fbest\n  treegen --game othello --positions data/positions/othello-test.txt --depth 8\n  treegen --game othello --board 10 --depth 6 | pabsim --machine cluster --procs 1,8\n  treegen --model incremental --branching 5 --depth 10 --count 32"
)]
struct Args {
    /// Seed set: tg1 (default), tg2, or a path to a file with one seed a line.
    #[arg(long)]
    set: Option<String>,
    /// Ordering B,WA,WB (repeatable), e.g. 32,79,5 (artificial trees:
    /// needed unless --game or --model incremental).
    #[arg(long, required_unless_present_any = ["game", "branching", "model"], conflicts_with_all = ["game", "branching"])]
    ordering: Vec<Ordering>,
    /// --model incremental: children per node.
    #[arg(long, conflicts_with = "game")]
    branching: Option<u32>,
    /// --model incremental: the edge distribution's step (default 100).
    #[arg(long)]
    scale: Option<u32>,
    /// --model incremental: the static evaluation's error, a step of the
    /// edges' law (default 0: none), or `shogi` (the law whose ordering
    /// accuracy is Ura et al.'s shogi trees', calibrated for b = 5 and 20).
    #[arg(long)]
    eval_noise: Option<EvalNoise>,
    /// --eval-noise STEP: the share of its parent's error a node's error
    /// keeps, in thousandths (0..=950; default 0: every error its node's
    /// own; `shogi` uses 794, an error halving every three plies).
    #[arg(long, requires = "eval_noise")]
    eval_persist: Option<u32>,
    /// A real game instead of artificial trees: chess or othello (needs
    /// --positions, or --board for Othello's start position).
    #[arg(long, conflicts_with_all = ["set", "model"])]
    game: Option<Game>,
    /// The position file of --game.
    #[arg(long, requires = "game")]
    positions: Option<PathBuf>,
    /// --game othello without --positions: one tree, the usual start
    /// position of an N × N board (6, 8, 10 or 12).
    #[arg(long, requires = "game", conflicts_with = "positions")]
    board: Option<u32>,
    /// Search depth.
    #[arg(long)]
    depth: u32,
    /// Tree model: exponential (default), strong (needs b = 20) or
    /// incremental (needs --branching).
    #[arg(long)]
    model: Option<TreeModel>,
    /// Only the first N seeds of the set.
    #[arg(long)]
    count: Option<usize>,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// What `--model` names: a model of the thesis or the incremental trees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TreeModel {
    Artificial(Model),
    Incremental,
}

impl std::str::FromStr for TreeModel {
    type Err = String;
    fn from_str(s: &str) -> Result<TreeModel, String> {
        match s {
            "incremental" => Ok(TreeModel::Incremental),
            _ => s.parse().map(TreeModel::Artificial).map_err(|e: parab::tree::artificial::TreeError| e.to_string()),
        }
    }
}

/// Refuses shape options the chosen kind of tree does not take, and asks
/// for the one it needs, each in one line: `--branching` and `--scale`
/// (incremental trees) beside `--ordering` (the other models) or `--game`,
/// where they would be dropped; an incremental tree without `--branching`
/// (not `--ordering`, which it refuses), an artificial one without
/// `--ordering`.
fn shape_options(args: &Args) -> anyhow::Result<()> {
    let incremental = args.model == Some(TreeModel::Incremental);
    let artificial = if args.game.is_some() { "not with --game" } else { "--ordering with the other models" };
    anyhow::ensure!(incremental || args.branching.is_none(), "--branching goes with --model incremental, {artificial}");
    anyhow::ensure!(incremental || args.scale.is_none(), "--scale (the edge distribution's step) goes with --model incremental, {artificial}");
    anyhow::ensure!(incremental || args.eval_noise.is_none(), "--eval-noise goes with --model incremental, {artificial}");
    anyhow::ensure!(!incremental || args.ordering.is_empty(), "--branching goes with --model incremental, --ordering with the other models");
    anyhow::ensure!(
        !incremental || args.branching.is_some(),
        "--model incremental needs --branching B (children per node; incremental trees take no --ordering)"
    );
    anyhow::ensure!(
        incremental || args.game.is_some() || !args.ordering.is_empty(),
        "--ordering B,WA,WB is needed (e.g. --ordering 32,79,5), or --model incremental with --branching B, or --game with --positions (or --board for Othello)"
    );
    Ok(())
}

fn main() {
    let args: Args = cli::parse("treegen");
    cli::main("treegen", || {
        cli::check_outputs(&[("-o", args.output.as_deref())])?;
        anyhow::ensure!(args.depth <= MAX_DEPTH, "--depth {} is larger than {MAX_DEPTH}", args.depth);
        if let Some(n) = args.board {
            anyhow::ensure!(
                args.game == Some(Game::Othello),
                "--board {n} goes with --game othello only (the start position of an N × N Othello board; other trees have no board)"
            );
        }
        shape_options(&args)?;
        anyhow::ensure!(
            args.game.is_none() || args.positions.is_some() || args.board.is_some(),
            "--game needs --positions FILE (or, for Othello, --board N: the start position of an N × N board)"
        );
        if let (Some(game), Some(n)) = (args.game, args.board) {
            anyhow::ensure!(args.depth >= 1, "--depth 0: a game tree needs depth 1 or more (at depth 0 the root is its own static evaluation)");
            anyhow::ensure!(args.count.is_none_or(|c| c == 1), "--count with --board: the start position is one tree");
            let start = parab::game::othello_n::Position::start(n)?;
            let spec = GameSpec { game, set: "start".into(), index: 1, id: format!("{n}x{n}"), position: start.text(), depth: args.depth };
            spec.check()?;
            let mut out = Output::create(args.output.as_deref())?;
            write_json_lines(&mut out, &[spec])?;
            return Ok(out.finish()?);
        }
        if let (Some(game), Some(path)) = (args.game, &args.positions) {
            anyhow::ensure!(args.depth >= 1, "--depth 0: a game tree needs depth 1 or more (at depth 0 the root is its own static evaluation)");
            let lines = read_positions(game, Input::open(Some(path))?)?;
            let n = args.count.unwrap_or(lines.len());
            anyhow::ensure!(n >= 1, "--count must be at least 1");
            anyhow::ensure!(n <= lines.len(), "--count {n} but {} has only {} positions", path.display(), lines.len());
            let set = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let mut specs = vec![];
            for (i, p) in lines[..n].iter().enumerate() {
                let spec = GameSpec { game, set: set.clone(), index: i as u32 + 1, id: p.id.clone(), position: p.position.clone(), depth: args.depth };
                spec.check()?;
                specs.push(spec);
            }
            let mut out = Output::create(args.output.as_deref())?;
            write_json_lines(&mut out, &specs)?;
            return Ok(out.finish()?);
        }
        let set = seeds::load(args.set.as_deref().unwrap_or("tg1"))?;
        let n = args.count.unwrap_or(set.seeds.len());
        anyhow::ensure!(n >= 1, "--count must be at least 1");
        anyhow::ensure!(n <= set.seeds.len(), "--count {n} but set {} has only {} seeds", set.name, set.seeds.len());
        if let Some(b) = args.branching {
            let scale = args.scale.unwrap_or(DEFAULT_SCALE);
            let noise = args.eval_noise.unwrap_or(EvalNoise::Step(0)).law(b, scale, args.eval_persist).map_err(anyhow::Error::msg)?;
            let mut specs = vec![];
            for (i, &seed) in set.seeds[..n].iter().enumerate() {
                let spec = IncrementalSpec {
                    set: set.name.clone(),
                    index: i as u32 + 1,
                    seed: seed as u64,
                    model: IncrementalModel::Incremental,
                    b,
                    scale,
                    eval_noise: noise.step,
                    eval_persist: noise.persist,
                    depth: args.depth,
                };
                spec.check()?;
                specs.push(spec);
            }
            let mut out = Output::create(args.output.as_deref())?;
            write_json_lines(&mut out, &specs)?;
            return Ok(out.finish()?);
        }
        cli::no_repeats("--ordering", &args.ordering)?;
        let model = match args.model {
            Some(TreeModel::Artificial(m)) => m,
            _ => Model::Exponential,
        };
        let mut specs = vec![];
        for o in &args.ordering {
            for (i, &seed) in set.seeds[..n].iter().enumerate() {
                let spec = TreeSpec {
                    set: set.name.clone(),
                    index: i as u32 + 1,
                    seed: seed as u64,
                    pscore: ROOT_PSCORE,
                    model,
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
