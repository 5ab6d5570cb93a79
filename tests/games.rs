//! Real game trees (chess, Othello) through the library and the
//! tools: move generation against published perft counts, the search
//! against a plain minimax, determinism, and bad positions.

use crate::util::*;
use parab::game::chess::{self, Chess};
use parab::game::othello::{self, Othello};
use parab::game::{MoveList, TreeSource, perft};
use parab::search::{minimax, search};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const BK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/positions/bratko-kopec.epd");
const OTHELLO_TEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/positions/othello-test.txt");

fn positions(path: &str, game: parab::game::Game) -> Vec<String> {
    parab::game::read_positions(game, parab::cli::Input::open(Some(std::path::Path::new(path))).unwrap()).unwrap().into_iter().map(|p| p.position).collect()
}

/// Published perft counts: the start position (depth 4: 197,281; depth 5:
/// 4,865,609) and Kiwipete (depth 3: 97,862; depth 4: 4,085,603).
#[test]
fn chess_perft_matches_the_published_counts() {
    let start = chess::Position::new(cozy_chess::Board::default());
    assert_eq!(perft(&Chess, &start, 4), 197_281);
    assert_eq!(perft(&Chess, &start, 5), 4_865_609);
    let kiwi = chess::Position::parse(KIWIPETE).unwrap();
    assert_eq!(perft(&Chess, &kiwi, 3), 97_862);
    assert_eq!(perft(&Chess, &kiwi, 4), 4_085_603);
}

/// Othello from the start position, depths 1..9 (the published counts, as
/// magpie's own tests have them). Passes count as moves (a pass is a node).
/// Our perft counts nodes at exactly the depth, as chess perft does; the
/// published Othello counts also count a game that ended before the depth
/// as one leaf, which first matters at depth 10 (ours 24,571,056, published
/// 24,571,284: 228 games end at ply 9).
#[test]
fn othello_perft_matches_the_published_counts() {
    let start = othello::Position::start();
    let got: Vec<u64> = (1..=9).map(|d| perft(&Othello, &start, d)).collect();
    assert_eq!(got, vec![4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]);
}

/// The value of every Bratko-Kopec position at depths 1 to 3 is the plain
/// minimax value, by the source's own move lists and by a reference that
/// knows nothing of them: cozy-chess's moves, the evaluation from scratch
/// at every leaf, mate and stalemate by hand.
#[test]
fn chess_search_value_is_the_minimax_value() {
    fn reference(board: &cozy_chess::Board, depth: u32, ply: u32) -> i64 {
        let white = board.side_to_move() == cozy_chess::Color::White;
        if depth == 0 {
            let e = chess::evaluate(board) as i64;
            return if white { e } else { -e };
        }
        let mut moves = vec![];
        board.generate_moves(|pm| {
            moves.extend(pm);
            false
        });
        if moves.is_empty() {
            return if board.checkers().is_empty() { 0 } else { -(chess::MATE - ply as i64) };
        }
        moves
            .into_iter()
            .map(|m| {
                let mut b = board.clone();
                b.play(m);
                -reference(&b, depth - 1, ply + 1)
            })
            .max()
            .unwrap()
    }
    let bk = positions(BK, parab::game::Game::Chess);
    assert_eq!(bk.len(), 24);
    for (i, fen) in bk.iter().enumerate() {
        let root = chess::Position::parse(fen).unwrap();
        for depth in 1..=3 {
            let r = search(&Chess, &root, depth, &mut ());
            assert_eq!(r.value, minimax(&Chess, &root, true, depth, 0), "BK.{:02} depth {depth}", i + 1);
            assert_eq!(parab::value::off_scale(r.value), reference(&root.board, depth, 0), "BK.{:02} depth {depth}", i + 1);
        }
    }
    // A mate in one is found, and valued as a mate one ply away.
    let m1 = chess::Position::parse("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").unwrap();
    assert_eq!(parab::value::off_scale(search(&Chess, &m1, 2, &mut ()).value), chess::MATE - 1);
}

#[test]
fn othello_search_value_is_the_minimax_value() {
    let set = positions(OTHELLO_TEST, parab::game::Game::Othello);
    for text in set.iter().take(12) {
        let root = othello::Position::parse(text).unwrap();
        for depth in 1..=4 {
            assert_eq!(search(&Othello, &root, depth, &mut ()).value, minimax(&Othello, &root, true, depth, 0), "{text} depth {depth}");
        }
    }
    // Near the end, passes and game overs inside the tree.
    let mut buf = vec![0u32; 64];
    let mut p = othello::Position::start();
    let mut k = 0;
    while p.no_moves().is_none() {
        let mut m = Othello.moves(&p, true, &mut buf);
        let h = (0..=(k % m.len().max(1))).filter_map(|_| m.next()).last().unwrap();
        p = m.child(&p, h);
        k += 7;
        if (p.board.empty_squares().count_set()) == 9 {
            for depth in 1..=6 {
                assert_eq!(search(&Othello, &p, depth, &mut ()).value, minimax(&Othello, &p, true, depth, 0), "{} depth {depth}", p.text());
            }
        }
    }
}

/// The positions files are exactly what their documented commands write.
#[test]
fn generated_position_files_are_reproducible() {
    let d = Dir::new("positions");
    for (file, args) in [
        ("chess-train.epd", "--game chess --count 200 --seed 1 --plies 16..40"),
        ("othello-train.txt", "--game othello --count 200 --seed 1 --plies 10..40"),
        ("othello-test.txt", "--game othello --count 24 --seed 2 --plies 20..36"),
    ] {
        let args: Vec<&str> = args.split(' ').collect();
        let out = d.tool("positions").args(&args).ok();
        let want = std::fs::read_to_string(format!("{}/data/positions/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert_eq!(out, want, "{file}");
    }
}

/// Tree specs of game positions are read by every downstream tool, and
/// their outputs do not depend on the thread count.
#[test]
fn game_specs_through_the_tools_and_thread_counts() {
    let d = Dir::new("gametools");
    game_trees(&d, "bk.jsonl", "chess", 4, None);
    d.tool("positions").args(["--game", "chess", "--count", "30", "--seed", "3", "--plies", "12..30", "-o", "train.epd"]).ok();
    d.tool("treegen").args(["--game", "chess", "--positions", "train.epd", "--depth", "3", "-o", "train.jsonl"]).ok();
    let spec = d.read("bk.jsonl");
    assert_eq!(spec.lines().count(), 24);
    assert!(spec.starts_with(
        r#"{"game":"chess","set":"bratko-kopec","index":1,"id":"BK.01","position":"1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1","depth":4}"#
    ));
    for args in [&["bk.jsonl"][..], &["bk.jsonl", "--per-tree"][..]] {
        let one = d.tool("fbest").args([args, &["--threads", "1"]].concat()).ok();
        let two = d.tool("fbest").args([args, &["--threads", "2"]].concat()).ok();
        assert_eq!(one, two);
    }
    let table = d.tool("fbest").args(["bk.jsonl"]).ok();
    assert!(table.starts_with("game,depth,trees,b,n,fbest,pbest\nchess,4,24,"), "{table}");
    let per = d.tool("fbest").args(["bk.jsonl", "--per-tree"]).ok();
    assert_eq!(per.lines().next().unwrap(), "game,set,index,id,depth,nodes,leaves,internal,contributing,moves,root_value,best_move");
    // BK.01: Qd1+ mates in three (five plies): depth 6 finds it, worth MATE - 5.
    let bk1 = d.tool("treegen").args(["--game", "chess", "--positions", BK, "--depth", "6", "--count", "1"]).ok();
    let bk1 = d.tool("fbest").args(["--per-tree"]).stdin(&bk1).ok();
    assert!(bk1.lines().nth(1).unwrap().ends_with(",999995,Qd1+"), "{bk1}");
    assert_eq!(sum_column(&per, "nodes"), sum_column(&per, "leaves") + sum_column(&per, "internal"));
    let f: u64 = sum_column(&table, "fbest");
    assert_eq!(f, sum_column(&per, "contributing"));
    // trainset -> nntrain -> classify, on chess.
    d.tool("trainset").args(["train.jsonl", "-o", "p.csv"]).ok();
    let p = d.read("p.csv");
    assert!(p.lines().nth(1).unwrap().starts_with("chess,"), "{p}");
    d.tool("nntrain").args(["p.csv", "--seed", "1", "--iterations", "50", "-o", "chess.json"]).ok();
    let one = d.tool("classify").args(["bk.jsonl", "--weights", "chess.json", "--threads", "1"]).ok();
    let two = d.tool("classify").args(["bk.jsonl", "--weights", "chess.json", "--threads", "2"]).ok();
    assert_eq!(one, two);
    assert!(one.starts_with("game,depth,trees,scheme,param,true_cut,false_cut,true_all,false_all,error,scored,best\nchess,4,24,a,,"), "{one}");
    // A network of the artificial trees is refused on chess.
    d.tool("treegen").args(["--set", "tg2", "--ordering", "4,50,10", "--depth", "3", "--count", "20", "-o", "a.jsonl"]).ok();
    d.tool("trainset").args(["a.jsonl", "-o", "ap.csv"]).ok();
    d.tool("nntrain").args(["ap.csv", "--iterations", "5", "-o", "a.json"]).ok();
    d.tool("classify").args(["bk.jsonl", "--weights", "a.json", "--scheme", "c"]).fails("trained for exponential (4,50,10) but the trees are chess");
    // Othello too.
    game_trees(&d, "o.jsonl", "othello", 5, None);
    let o = d.tool("fbest").args(["o.jsonl"]).ok();
    assert!(o.starts_with("game,depth,trees,b,n,fbest,pbest\nothello,5,24,"), "{o}");
    d.tool("classify").args(["o.jsonl", "--scheme", "a,b"]).ok();
}

/// Bad positions and requests: one line naming the file and line, exit 1,
/// nothing written.
#[test]
fn bad_positions_are_one_line_errors() {
    let d = Dir::new("badpos");
    let cases = [
        ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq -\n", "bad position (p:1)"),
        ("chess", "# a comment\n\n4k3/4R3/8/8/8/8/8/4K3 w - -\n", "illegal side to move: Black is in check but it is White's move"),
        ("chess", "7k/6Q1/6K1/8/8/8/8/8 b - -\n", "no legal moves at the root: checkmate"),
        ("chess", "7k/8/6QK/8/8/8/8/8 b - -\n", "no legal moves at the root: stalemate"),
        ("chess", "8/8/8/8 w\n", "fields"),
        ("othello", "XO X\n", "2 squares"),
        ("othello", &format!("{} X\n", "O".repeat(64)), "the game is over"),
        ("othello", &format!("{} X\n", "-".repeat(64)), "centre"),
        ("chess", "# nothing\n", "no positions in p"),
    ];
    for (game, text, needle) in cases {
        d.write("p", text);
        let err = d.tool("treegen").args(["--game", game, "--positions", "p", "--depth", "3", "-o", "out.jsonl"]).fails(needle);
        assert!(!d.join("out.jsonl").exists(), "{err}");
    }
    d.write("p", "7k/8/6QK/8/8/8/8/8 w - -\n");
    d.tool("treegen").args(["--game", "chess", "--positions", "p", "--depth", "0"]).fails("--depth 0");
    // A spec written by hand is checked as treegen checks it.
    let spec = r#"{"game":"chess","set":"x","index":1,"id":"","position":"7k/6Q1/6K1/8/8/8/8/8 b - - 0 1","depth":3}"#;
    d.tool("fbest").stdin(spec).fails("checkmate");
    d.tool("fbest").stdin(&spec.replace(r#""depth":3"#, r#""depth":0"#)).fails("depth 0");
    d.tool("fbest").stdin(&spec.replace(r#""id":"","#, "")).fails("missing field `id`");
    d.tool("fbest").stdin(&spec.replace("chess", "go")).fails("unknown variant `go`");
    // Artificial trees and positions in one input: tables that differ.
    let art = d.tool("treegen").args(["--ordering", "3,50,50", "--depth", "2", "--count", "1"]).ok();
    let good = spec.replace("7k/6Q1/6K1/8/8/8/8/8 b", "7k/8/6QK/8/8/8/8/8 w");
    d.tool("fbest").args(["-o", "f.csv"]).stdin(&format!("{art}{good}\n")).fails("mixes artificial trees and game positions");
    assert!(!d.join("f.csv").exists());
}

/// The simulator on chess trees: on one processor it examines exactly the
/// sequential search's nodes, every machine returns the minimax value, the
/// output does not depend on the thread count, and shards merge back.
#[test]
fn pabsim_on_chess_positions() {
    let d = Dir::new("gamesim");
    game_trees(&d, "bk.jsonl", "chess", 4, Some(8));
    let seq = d.tool("fbest").args(["bk.jsonl", "--per-tree"]).ok();
    let one = d.tool("pabsim").args(["bk.jsonl", "--procs", "1,12,48", "--scheme", "a,b", "--per-tree", "--threads", "1"]).ok();
    let two = d.tool("pabsim").args(["bk.jsonl", "--procs", "1,12,48", "--scheme", "a,b", "--per-tree", "--threads", "2"]).ok();
    assert_eq!(one, two);
    assert_eq!(column(&one, "model")[0], "chess");
    assert_eq!(column(&one, "b")[0], "");
    let values = column(&seq, "root_value");
    let (procs, got) = (column(&one, "procs"), column(&one, "root_value"));
    for (k, v) in got.iter().enumerate() {
        assert_eq!(v, &values[k % 8], "row {k}, {} processors", procs[k]);
    }
    let nodes1: Vec<String> = column(&one, "np_nodes")[..8].to_vec();
    assert_eq!(nodes1, column(&seq, "nodes"));
    // Shards of the run merge into the single-machine table, speed-ups included.
    let all = d.tool("pabsim").args(["bk.jsonl", "--procs", "1,12", "--scheme", "a"]).ok();
    d.tool("pabsim").args(["bk.jsonl", "--procs", "1,12", "--scheme", "a", "--per-tree", "--shard", "1/2", "-o", "s1.csv"]).ok();
    d.tool("pabsim").args(["bk.jsonl", "--procs", "1,12", "--scheme", "a", "--per-tree", "--shard", "2/2", "-o", "s2.csv"]).ok();
    assert_eq!(d.tool("pabsim").args(["--merge", "s1.csv", "s2.csv"]).ok(), all);
    assert!(!column(&all, "su")[1].is_empty(), "{all}");
    // The thesis's parameters are for its orderings only.
    d.tool("pabsim").args(["bk.jsonl", "--procs", "12", "--thesis-params"]).fails("no parameters for chess depth 4 trees");
}

/// A game's root value is in the game's own units in every
/// tool's rows (`docs/formats.md`): the cluster's as `fbest`'s, `pabsim`'s
/// and `psearch`'s, not on the score scale.
#[test]
fn every_tool_writes_a_games_root_value_in_its_units() {
    let d = Dir::new("game-values");
    game_trees(&d, "bk.jsonl", "chess", 2, Some(2));
    game_trees(&d, "ot.jsonl", "othello", 3, Some(2));
    for (file, want) in [("bk.jsonl", ["-225", "-70"]), ("ot.jsonl", ["20", "-60"])] {
        let fbest = d.tool("fbest").args([file, "--per-tree"]).ok();
        let sim = d.tool("pabsim").args([file, "--procs", "1", "--per-tree"]).ok();
        let cluster = d.tool("pabsim").args([file, "--machine", "cluster", "--procs", "1,2", "--per-tree"]).ok();
        let real = d.tool("psearch").args([file, "--per-tree"]).ok();
        for out in [&fbest, &sim, &real] {
            assert_eq!(column(out, "root_value"), want, "{file}: {out}");
        }
        assert_eq!(column(&cluster, "root_value"), [want, want, want].concat(), "{file}: {cluster}");
        assert_eq!(column(&cluster, "b"), ["", "", "", "", "", ""]);
    }
}

/// The N × N Othello generator (`game::othello_n`) against the 8 × 8 one
/// on every position of the shipped files: the same move lists in the same
/// order, the same children, the same horizon and final values, node by
/// node to depth 4 (about 1.3 M nodes); and the same perft to depth 5.
#[test]
fn othello_on_any_board_agrees_with_the_eight_by_eight_source_on_every_shipped_position() {
    use parab::game::othello_n::{self, OthelloN};
    fn walk(a: &othello::Position, b: &othello_n::Position, depth: u32, max: bool) -> u64 {
        assert_eq!(a.text(), b.text());
        assert_eq!(Othello.horizon_value(a, max), OthelloN.horizon_value(b, max), "{}", a.text());
        assert_eq!(a.no_moves(), b.no_moves(), "{}", a.text());
        if a.no_moves().is_some() {
            assert_eq!(Othello.terminal_value(a, max, 0), OthelloN.terminal_value(b, max, 0));
        }
        if depth == 0 {
            return 1;
        }
        let (mut ba, mut bb) = (vec![0u32; 64], vec![0u32; 144]);
        let (mut ma, mut mb) = (Othello.moves(a, max, &mut ba), OthelloN.moves(b, max, &mut bb));
        assert_eq!(ma.len(), mb.len(), "{}", a.text());
        let mut n = 1;
        while let Some(ka) = ma.next() {
            let kb = mb.next().unwrap();
            assert_eq!(othello::square_name(ka), othello_n::square_name(8, kb), "{}", a.text());
            assert_eq!(ma.leaf_value(a, ka), mb.leaf_value(b, kb));
            n += walk(&ma.child(a, ka), &mb.child(b, kb), depth - 1, !max);
        }
        assert!(mb.next().is_none());
        n
    }
    let (mut nodes, mut count) = (0, 0);
    for path in [OTHELLO_TEST, concat!(env!("CARGO_MANIFEST_DIR"), "/data/positions/othello-train.txt")] {
        for text in positions(path, parab::game::Game::Othello) {
            let (a, b) = (othello::Position::parse(&text).unwrap(), othello_n::Position::parse(&text).unwrap());
            nodes += walk(&a, &b, 4, true);
            count += 1;
        }
    }
    assert_eq!(count, 224);
    assert!(nodes > 1_000_000, "{nodes}");
}

/// Othello on 6 × 6, 10 × 10 and 12 × 12 through the tools: `treegen
/// --board` writes the start position, whose searched value (fbest) is the
/// plain minimax value, and whose parallel searches (the simulated shared
/// machine, real threads, the simulated cluster) return it; positions by
/// random play on each board read back; the rows name the board
/// (`othello6` ...); a board of no size, or of chess, is refused.
#[test]
fn othello_on_every_board_through_the_tools() {
    use parab::game::othello_n::{self, OthelloN};
    let d = Dir::new("othello-boards");
    for n in [6u32, 10, 12] {
        let file = format!("o{n}.jsonl");
        let specs = d.tool("treegen").args(["--game", "othello", "--board", &n.to_string(), "--depth", "5", "-o", &file]).ok();
        assert!(specs.is_empty());
        let start = othello_n::Position::start(n).unwrap();
        let value = parab::search::minimax(&OthelloN, &start, true, 5, 0);
        let fb = d.tool("fbest").args(["--per-tree", &file]).ok();
        assert_eq!(column(&fb, "game"), [format!("othello{n}")]);
        let eval = |v: i64| parab::value::on_scale(v, true);
        let root: i64 = column(&fb, "root_value")[0].parse().unwrap();
        assert_eq!(eval(root), value, "{n} × {n}");
        let sim = d.tool("pabsim").args(["--procs", "1,8", "--per-tree", &file]).ok();
        assert_eq!(column(&sim, "model"), [format!("othello{n}"), format!("othello{n}")]);
        let roots = column(&sim, "root_value");
        assert_eq!(roots[0], roots[1]);
        d.tool("psearch").args([&file, "--threads", "1,2"]).ok();
        d.tool("pabsim").args(["--machine", "cluster", "--procs", "1,8", "--algorithm", "even-split,master-worker,ybwc", "--master-depth", "2", &file]).ok();
        let pos = d.tool("positions").args(["--game", "othello", "--board", &n.to_string(), "--count", "3", "--seed", "1", "--plies", "6..10"]).ok();
        assert!(pos.starts_with(&format!("# 3 positions by random play: positions --game othello --board {n} ")), "{pos}");
        d.write(&format!("p{n}.txt"), &pos);
        let trees = d.tool("treegen").args(["--game", "othello", "--positions", &format!("p{n}.txt"), "--depth", "3"]).ok();
        assert_eq!(trees.lines().count(), 3);
    }
    d.tool("treegen").args(["--game", "othello", "--board", "7", "--depth", "3"]).fails("an Othello board of 7 × 7: give 6, 8, 10 or 12");
    d.tool("treegen").args(["--game", "chess", "--board", "10", "--depth", "3"]).fails("--board 10 goes with --game othello only");
    d.tool("treegen").args(["--game", "othello", "--depth", "3"]).fails("--game needs --positions FILE (or, for Othello, --board N");
    d.tool("positions").args(["--game", "othello", "--board", "9", "--count", "3", "--seed", "1", "--plies", "6"]).fails("give 6, 8, 10 or 12");
    // The 8 × 8 start through --board is the usual Othello.
    let o8 = d.tool("treegen").args(["--game", "othello", "--board", "8", "--depth", "3"]).ok();
    assert!(o8.contains(&othello::Position::start().text()));
    assert_eq!(column(&d.tool("fbest").args(["--per-tree"]).stdin(&o8).ok(), "game"), ["othello"]);
}
