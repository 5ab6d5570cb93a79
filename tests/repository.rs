//! The repository as a newcomer meets it: `make all` builds every binary
//! before the first stage, `make test`'s setup says what it installs, the
//! README's commands write under `results/` or `/tmp` and count the tools
//! right, and no document is executable.

use crate::bad_input::repo;
use crate::util::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// `make all` built the report crate only after the simulations.
#[test]
fn make_all_builds_every_binary_first() {
    let out = Command::new("make").args(["-n", "-B", "all"]).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let at = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no `{needle}` in make -n all"));
    let report = at("build --release -p parab-report");
    let first_run = at("/treegen ");
    assert!(report < first_run, "the report is built at command {report}, after the first tree generation at {first_run}");
}

/// `make test` said nothing while apt installed Chromium and Slurm
/// when its output was not a terminal. Run against a fake `apt-get` (and
/// a fake `id` saying root), with stderr a pipe.
#[test]
fn test_setup_says_what_it_installs() {
    let d = Dir::new("i20");
    let fake = d.join("bin");
    std::fs::create_dir(&fake).unwrap();
    let script = |name: &str, body: &str| {
        let p = fake.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    script("id", "echo 0");
    script("apt-get", &format!("echo \"$@\" >> {}", d.join("apt-calls").display()));
    for tool in ["mkdir", "dirname", "cat"] {
        let real = ["/usr/bin", "/bin"].iter().map(|b| Path::new(b).join(tool)).find(|p| p.exists()).unwrap();
        std::os::unix::fs::symlink(real, fake.join(tool)).unwrap();
    }
    let bash = ["/bin/bash", "/usr/bin/bash"].into_iter().find(|p| Path::new(p).exists()).unwrap();
    let out = Command::new(bash)
        .arg(repo("scripts/test-setup.sh"))
        .arg(d.join("env/skips.env"))
        .env("PATH", &fake)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.lines().next().is_some_and(|l| l.starts_with("make test: installing chromium slurm-wlm munge with apt-get")), "{err}");
    assert!(d.read("apt-calls").contains("install -y --no-install-recommends chromium slurm-wlm munge"));
    // The fake installed nothing: both checks are skipped, and said so.
    assert_eq!(d.read("env/skips.env"), "PARAB_SKIP_BROWSER=1\nPARAB_SKIP_SLURM=1\n");
}

/// The shell code blocks of the README, one command a line (continuations joined).
fn readme_commands() -> Vec<String> {
    let text = std::fs::read_to_string(repo("README.md")).unwrap();
    let mut out = vec![];
    let mut inside = false;
    let mut pending = String::new();
    for l in text.lines() {
        if l.starts_with("```") {
            inside = !inside;
            continue;
        }
        if !inside {
            continue;
        }
        let l = l.split(" # ").next().unwrap_or("").trim_end();
        if let Some(head) = l.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        pending.push_str(l);
        out.push(std::mem::take(&mut pending));
    }
    out
}

/// README examples wrote into the repository (`fbest -o chess.csv`,
/// `nntrain -o chess.json`). Every output a README command names lies under
/// `results/` or `/tmp` (the `--help` examples are run in
/// `report/tests/runs.rs`, which checks the same of them).
#[test]
fn readme_examples_write_under_results_or_tmp() {
    let commands = readme_commands();
    assert!(commands.iter().any(|c| c.contains("fbest -o /tmp/chess.csv")), "{commands:#?}");
    for c in &commands {
        let words: Vec<&str> = c.split_whitespace().collect();
        for w in words.windows(2) {
            if matches!(w[0], "-o" | "--out-dir" | "--curve" | "--out" | "--figures" | ">") {
                let target = w[1];
                let fine = ["/tmp/", "results/", "$R/", "$", "-"].iter().any(|p| target.starts_with(p)) || target == "/dev/null";
                assert!(fine, "`{c}` writes {target} into the repository");
            }
        }
    }
}

/// "six pipeline tools" in one place, "seven" in another; an executable
/// Markdown file.
#[test]
fn readme_counts_the_tools_and_docs_are_not_executable() {
    let tools = std::fs::read_dir(repo("src/bin")).unwrap().count();
    let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let said: Vec<&str> = readme.split(" pipeline tools").filter_map(|before| before.split_whitespace().last()).filter(|w| words.contains(w)).collect();
    assert!(!said.is_empty());
    assert!(said.iter().all(|w| *w == words[tools]), "src/bin holds {tools} tools; the README says {said:?}");
    let mut docs: Vec<std::path::PathBuf> = std::fs::read_dir(repo("docs")).unwrap().map(|e| e.unwrap().path()).collect();
    docs.extend(["README.md", "BENCHMARKS.md", "Makefile", "data/README.md"].iter().map(|p| repo(p)));
    for p in docs {
        let mode = std::fs::metadata(&p).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0, "{} is executable ({mode:o})", p.display());
    }
}
