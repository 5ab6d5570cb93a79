//! `positions`: a seeded set of game positions by random play (beyond the
//! thesis: training positions for chess and Othello, made, not downloaded).

use clap::Parser;
use parab::cli::{self, Output};
use parab::game::Game;
use parab::game::positions::{RandomPlay, random_positions};
use std::io::Write;
use std::path::PathBuf;

/// Write a position file of COUNT positions reached by seeded random play
/// from the game's start position (one ChaCha8 generator seeded with
/// --seed; plies drawn uniformly from --plies, each move uniformly among
/// the legal ones). Each line carries an `id` and a comment with the seed
/// and the number of plies; the same arguments give the same file.
#[derive(Parser, Debug)]
#[command(
    version,
    after_help = "Examples:\n  positions --game chess --count 200 --seed 1 --plies 16..40 -o /tmp/chess-train.epd\n  positions --game othello --count 24 --seed 2 --plies 20..30 | treegen --game othello --positions - --depth 6"
)]
struct Args {
    /// chess or othello.
    #[arg(long)]
    game: Game,
    /// Othello: the side of the board, 6, 8 (default), 10 or 12.
    #[arg(long, default_value_t = 8)]
    board: u32,
    /// Positions to write.
    #[arg(long)]
    count: usize,
    /// Seed of the generator.
    #[arg(long)]
    seed: u64,
    /// Plies from the start position, N or LO..HI (inclusive).
    #[arg(long)]
    plies: String,
    /// Output file (default stdout).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn main() {
    let args: Args = cli::parse("positions");
    cli::main("positions", || {
        cli::check_outputs(&[("-o", args.output.as_deref())])?;
        let plies = cli::bounded_range(&args.plies, "--plies", 0, 1000)?;
        let req = RandomPlay { game: args.game, board: args.board, count: args.count, seed: args.seed, plies: (*plies.start(), *plies.end()) };
        let lines = random_positions(&req)?;
        let mut out = Output::create(args.output.as_deref())?;
        let board = if args.board == 8 { String::new() } else { format!(" --board {}", args.board) };
        writeln!(
            out,
            "# {} positions by random play: positions --game {}{board} --count {} --seed {} --plies {}",
            args.count, args.game, args.count, args.seed, args.plies
        )?;
        for l in lines {
            writeln!(out, "{l}")?;
        }
        Ok(out.finish()?)
    })
}
