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

/// The examples write as the tools do: a reader that goes (`| head -1`)
/// ends them quietly with exit 0; a full disk (`> /dev/full`) is one
/// line and exit 1; never a panic.
#[test]
fn the_examples_stop_quietly_when_their_reader_goes_and_say_why_they_cannot_write() {
    use std::io::Read;
    use std::process::Stdio;
    for name in ["small_game", "work_stealing"] {
        let path = example(name);
        assert!(path.exists(), "{} is not built (cargo build --release --examples)", path.display());
        let mut child = Command::new(&path).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut first = [0u8; 1];
        out.read_exact(&mut first).unwrap();
        drop(out);
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let status = child.wait().unwrap();
        assert!(status.success() && err.is_empty(), "{name} | head -c 1: {status}: {err}");

        let full = std::fs::File::create("/dev/full").unwrap();
        let out = Command::new(&path).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name} > /dev/full: {err}");
        assert_eq!(err.lines().count(), 1, "{name} > /dev/full: {err}");
        assert!(err.starts_with(&format!("{name}: cannot write stdout: ")) && !err.contains("panicked"), "{err}");
    }
}
