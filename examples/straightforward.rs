//! The straightforward search that `fbest`'s speed is measured against
//! (`BENCHMARKS.md`, "Chapter 4"): the thesis's generator as its
//! pseudo-code reads (`docs/model.md` §1.2: all of a node's children drawn
//! and ordered, draw by draw, before the first is searched;
//! [`reference_children`]) under a plain recursive fail-hard alpha-beta that
//! counts f_best as `fbest` does. For every artificial tree of a spec file
//! it runs that search and then the library's (`fbest::tree_fbest`, what
//! `fbest --threads 1` runs), one tree at a time on one thread; it checks
//! that both enter the same nodes, reach the same root value and count the
//! same f_best, and prints both speeds and their ratio (exit status 1 if
//! they differ).
//!
//! `cargo run --release --example straightforward -- TREES.jsonl`, e.g. on
//! the Table 4.4 workload: `treegen --set tg1 --ordering 32,79,5 --depth 7`.

use parab::cli::Input;
use parab::fbest::tree_fbest;
use parab::tree::artificial::{Node, Shape, reference_children};
use parab::tree::{Tree, read_trees};
use parab::value::{ROOT_ALPHA, ROOT_BETA};
use std::path::Path;
use std::time::{Duration, Instant};

/// What the straightforward search counts.
#[derive(Default)]
struct Counts {
    nodes: u64,
    fbest: Vec<u64>,
}

/// Fail-hard alpha-beta in minimax form, children made eagerly by the
/// pseudo-code; an internal node records its cut-off move, else the last
/// move that raised its score, as `fbest` does.
fn search(shape: &Shape, node: Node, depth: u32, max: bool, mut alpha: i64, mut beta: i64, c: &mut Counts) -> i64 {
    c.nodes += 1;
    if depth == 0 {
        return node.pscore as i64;
    }
    let mut recorded = None;
    for (j, &kid) in reference_children(shape, node, max).iter().enumerate() {
        let v = search(shape, kid, depth - 1, !max, alpha, beta, c);
        if max {
            if v >= beta {
                (alpha, recorded) = (beta, Some(j));
                break;
            }
            if v > alpha {
                (alpha, recorded) = (v, Some(j));
            }
        } else {
            if v <= alpha {
                (beta, recorded) = (alpha, Some(j));
                break;
            }
            if v < beta {
                (beta, recorded) = (v, Some(j));
            }
        }
    }
    if let Some(j) = recorded {
        c.fbest[j] += 1;
    }
    if max { alpha } else { beta }
}

fn run() -> Result<bool, String> {
    let path = std::env::args().nth(1).ok_or("usage: straightforward TREES.jsonl")?;
    let trees = read_trees(Input::open(Some(Path::new(&path))).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let (mut plain, mut library, mut nodes, mut same) = (Duration::ZERO, Duration::ZERO, 0u64, true);
    for t in &trees {
        let Tree::Artificial(a) = t else {
            return Err(format!("tree {} is not an artificial tree", t.index()));
        };
        let mut c = Counts { nodes: 0, fbest: vec![0; a.source.b()] };
        let start = Instant::now();
        let value = search(&a.source, a.root, a.spec.depth, true, ROOT_ALPHA, ROOT_BETA, &mut c);
        plain += start.elapsed();
        let start = Instant::now();
        let r = tree_fbest(t);
        library += start.elapsed();
        nodes += c.nodes;
        if (c.nodes, value, &c.fbest) != (r.counts.nodes, r.value, &r.counter.fbest) {
            eprintln!(
                "straightforward: tree {}: {} nodes, value {value} against the library's {} nodes, value {}",
                t.index(),
                c.nodes,
                r.counts.nodes,
                r.value
            );
            same = false;
        }
    }
    let rate = |d: Duration| nodes as f64 / d.as_secs_f64() / 1e6;
    println!("{} trees, {nodes} nodes, the same in both searches: {same}", trees.len());
    println!("straightforward: {:.2} s, {:.1} M nodes/s", plain.as_secs_f64(), rate(plain));
    println!("library (fbest): {:.2} s, {:.1} M nodes/s", library.as_secs_f64(), rate(library));
    println!("ratio: {:.2}", plain.as_secs_f64() / library.as_secs_f64());
    Ok(same)
}

fn main() {
    match run() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("straightforward: {e}");
            std::process::exit(2);
        }
    }
}
