//! The crate as a library: `examples/small_game.rs` defines a game of its
//! own outside the crate and searches it with the sequential search, the
//! simulated shared-memory machine, real threads and the simulated cluster
//! through the public API. `cargo test` builds the examples beside the
//! tools (`target/<profile>/examples/`); this runs it.

use std::path::PathBuf;
use std::process::Command;

/// The built example `name`, beside this test binary's `deps/` directory.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(|deps| deps.parent()).unwrap();
    profile.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

#[test]
fn a_game_of_ones_own_runs_on_every_machine_with_one_root_value() {
    let path = example("small_game");
    assert!(path.exists(), "{} is not built (cargo test builds the examples; cargo build --release --examples)", path.display());
    let out = Command::new(&path).output().unwrap();
    assert!(out.status.success(), "small_game failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let values: Vec<i64> = text.lines().filter_map(|l| l.split("root value").nth(1)?.split_whitespace().next()?.parse().ok()).collect();
    // One line per machine, each with the same root value: the game's
    // minimax value to depth 8 from a pile of 21, worked out by the
    // sequential search (the example checks them against plain minimax).
    assert_eq!(values, [-5; 4], "{text}");
    for what in ["sequential search", "simulated shared memory", "real threads", "simulated cluster"] {
        assert!(text.contains(what), "{what} missing from:\n{text}");
    }
}
