//! The repository as a newcomer meets it: `make all` builds every binary
//! before the first stage, `make test`'s setup says what it installs, the
//! README's commands write under `results/` or `/tmp` and count the tools
//! right, and no document is executable.

use crate::util::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// `make all` built the report crate only after the simulations; then in a
/// cargo invocation of its own, resolved apart, which compiled the library
/// twice. Now every crate is downloaded and the tools built
/// before the first stage, every build resolves the whole workspace, and
/// the real processors' runs (they time this machine) come after every
/// simulation.
#[test]
fn make_all_builds_every_binary_first() {
    let out = Command::new("make").args(["-n", "-B", "all"]).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let at = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no `{needle}` in make -n all"));
    let builds: Vec<&&str> = lines.iter().filter(|l| l.starts_with("cargo build --release")).collect();
    assert!(builds.iter().all(|l| l.contains("--workspace")), "{builds:?}");
    let (fetch, tools, report) = (at("cargo fetch"), at("cargo build --release --workspace --bin "), at("cargo build --release --workspace --bins"));
    let first_run = at("/treegen ");
    assert!(fetch < tools && tools < first_run, "fetch at {fetch}, the tools built at {tools}, the first tree generation at {first_run}");
    assert!(
        ["treegen", "fbest", "trainset", "nntrain", "classify", "pabsim", "psearch", "positions"].iter().all(|t| lines[tools].contains(&format!("--bin {t}")))
    );
    assert!(report < at("/report --results"), "the report runs before it is built");
    // (-B makes the last step's make list the chapters again, for the report.)
    let real = at("/psearch ");
    let sims_before = lines[..real].iter().filter(|l| l.contains("/pabsim --procs 12,24,48")).count();
    assert_eq!(sims_before, 10, "a real run at command {real}, before chapter 6's ten simulations");
}

/// The timelines' traces: the simulated two are made with the
/// chapters; the real threads' times this machine, so it runs after every
/// simulation, and the report's page does not wait for it where it is
/// missing (it is optional there).
#[test]
fn the_real_trace_runs_after_the_simulations_and_the_report_does_not_need_it() {
    let out = Command::new("make").args(["-n", "-B", "all"]).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let traced = |tool: &str, file: &str| lines.iter().position(|l| l.contains(tool) && l.contains(&format!("--trace results/traces/{file}")));
    let real = traced("/psearch ", "threads-p2.json").expect("make all traces the real threads");
    for file in ["scheme-c-p48.json", "master-worker-p64.json"] {
        assert!(traced("/pabsim ", file).is_some_and(|at| at < real), "{file}: not traced before the real threads");
    }
    // (-B makes the last step's make list the chapters again, for the report.)
    let sims_before = lines[..real].iter().filter(|l| l.contains("/pabsim --procs 12,24,48")).count();
    assert_eq!(sims_before, 10, "the real threads' trace at command {real}, before chapter 6's ten simulations");
    // Without the real trace, `make report` makes neither it nor waits for it.
    let d = Dir::new("i41-report");
    let r = format!("R={}", d.join("results").display());
    let out = Command::new("make").args(["-n", "-B", "report", &r]).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("/traces/master-worker-p64.json"), "make report makes the simulated traces");
    assert!(!text.contains("threads-p2"), "make report runs the real threads' trace:\n{text}");
}

/// The library's docs are part of the gate: `make test` builds them with
/// warnings as errors (a link to a private item once warned 18 times unseen).
#[test]
fn make_test_builds_the_docs_without_warnings() {
    let out = Command::new("make").args(["-n", "-B", "test"]).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.contains("RUSTDOCFLAGS=\"-D warnings\"") && l.contains(" doc ") && l.contains("-p parab")),
        "make -n test has no `cargo doc` with -D warnings:\n{text}"
    );
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    assert!(lib.contains("#![deny(rustdoc::broken_intra_doc_links, rustdoc::private_intra_doc_links)]"));
}

/// `make test` said nothing while apt installed Chromium, Slurm (and Open MPI)
/// when its output was not a terminal. Run against a fake `apt-get` (and
/// a fake `id` saying root), with stderr a pipe.
#[test]
fn test_setup_says_what_it_installs() {
    let d = Dir::new("i20");
    let fake = d.join("bin");
    std::fs::create_dir(&fake).unwrap();
    let script = |name: &str, body: &str| {
        executable(&fake.join(name), &format!("#!/bin/sh\n{body}\n"));
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
    let mpi = "libopenmpi-dev openmpi-bin libclang-dev clang";
    assert!(err.lines().next().is_some_and(|l| l.starts_with(&format!("make test: installing chromium slurm-wlm munge {mpi} with apt-get"))), "{err}");
    assert!(d.read("apt-calls").contains(&format!("install -y --no-install-recommends chromium slurm-wlm munge {mpi}")));
    // The fake installed nothing: every check is skipped, and said so in one line.
    assert_eq!(d.read("env/skips.env"), "PARAB_SKIP_BROWSER=1\nPARAB_SKIP_SLURM=1\nPARAB_SKIP_MPI=1\n");
    assert!(err.lines().nth(1).is_some_and(|l| l.starts_with("make test: skipping the browser check, the Slurm test and the MPI build and tests: ")), "{err}");
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

/// The modules declared in the module at `within` (`[]`: the crate root,
/// `src/lib.rs`; `[sim, engine]`: `src/sim/engine/mod.rs` or
/// `src/sim/engine.rs`), from its `mod name;` lines and the lines of the
/// cluster's registry that declare one (`pub mod name: Type;`, or `pub mod
/// name:` with the types on the lines below).
fn child_modules(src: &Path, within: &[&str]) -> Vec<String> {
    let file = if within.is_empty() {
        src.join("lib.rs")
    } else {
        let dir = within.iter().fold(src.to_path_buf(), |p, m| p.join(m));
        let nested = dir.join("mod.rs");
        if nested.exists() { nested } else { dir.with_extension("rs") }
    };
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    code_only(&text)
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.rsplit_once(']').map_or(l, |(_, rest)| rest.trim());
            let l = match l.strip_prefix("pub") {
                Some(rest) if rest.starts_with('(') => rest.split_once(')')?.1.trim(),
                Some(rest) => rest.trim(),
                None => l,
            };
            let name = l.strip_prefix("mod ")?.split_once([';', ':'])?.0.trim();
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_').then(|| name.to_string())
        })
        .collect()
}

/// Rust source with comments, string and character literals blanked (their
/// text could name a module without using it); line breaks are kept, so
/// byte offsets still give line numbers.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, c: u8| out.push(if c == b'\n' { b'\n' } else { b' ' });
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend(b"  ");
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if rest[0] == b'r'
            && (rest.starts_with(b"r\"") || rest.starts_with(b"r#"))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            // A raw string: r"…", r#"…"#.
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                out.push(b[i]);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let mut j = i + 2 + hashes;
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            let end = (j + close.len()).min(b.len());
            (i..end).for_each(|k| blank(&mut out, b[k]));
            i = end;
        } else if rest[0] == b'"' {
            blank(&mut out, b[i]);
            i += 1;
            while i < b.len() && b[i] != b'"' {
                let step = if b[i] == b'\\' { 2 } else { 1 };
                (i..(i + step).min(b.len())).for_each(|k| blank(&mut out, b[k]));
                i += step;
            }
            if i < b.len() {
                out.push(b' ');
                i += 1;
            }
        } else if rest[0] == b'\'' && (rest.get(2) == Some(&b'\'') || rest.get(1) == Some(&b'\\')) {
            // A character literal ('{', '\n', '\u{7b}'), not a lifetime.
            let mut j = i + 2;
            while j < b.len() && b[j] != b'\'' {
                j += 1;
            }
            (i..=j.min(b.len() - 1)).for_each(|k| blank(&mut out, b[k]));
            i = j + 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The absolute module paths a path in code names, from `at` in `code`
/// (just after `crate::`, the `super::`s or `self::`) under `prefix`,
/// groups (`{a::X, b}`) expanded; each with its offset in `code`.
fn expand_path(code: &str, at: usize, prefix: Vec<String>, out: &mut Vec<(Vec<String>, usize)>) {
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let rest = &code[at..];
    let at = at + (rest.len() - rest.trim_start().len());
    let rest = &code[at..];
    if let Some(group) = rest.strip_prefix('{') {
        let mut level = 0;
        let mut item_start = true;
        for (k, c) in group.char_indices() {
            match c {
                '{' => level += 1,
                '}' if level == 0 => break,
                '}' => level -= 1,
                ',' if level == 0 => item_start = true,
                c if item_start && level == 0 && !c.is_whitespace() => {
                    item_start = false;
                    expand_path(code, at + 1 + k, prefix.clone(), out);
                }
                _ => {}
            }
        }
        return;
    }
    let name = ident(rest);
    if name.is_empty() || name == "self" {
        out.push((prefix, at));
        return;
    }
    let after = &rest[name.len()..];
    let gap = after.len() - after.trim_start().len();
    let mut path = prefix;
    path.push(name.clone());
    match after.trim_start().strip_prefix("::") {
        Some(_) => expand_path(code, at + name.len() + gap + 2, path, out),
        None => out.push((path, at)),
    }
}

/// The references between the modules declared in the module at `within`
/// (`[]`: the crate's top-level modules; `[sim, engine]`: the files and
/// folders of `src/sim/engine/`), in code (tests included; comments and doc
/// links not): `crate::…`, `super::…` and `self::…` paths, groups
/// included, resolved with the file's place and the inline `mod name {`
/// blocks around them. Each edge keeps its first reference as `file:line`.
fn module_edges(src: &Path, within: &[&str]) -> std::collections::BTreeMap<(String, String), String> {
    let units = child_modules(src, within);
    let mut files = vec![];
    rust_files(&within.iter().fold(src.to_path_buf(), |p, m| p.join(m)), &mut files);
    files.sort();
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut edges = std::collections::BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap();
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if parts[0] == "bin" || parts[0] == "lib.rs" {
            continue;
        }
        // The file's module path: src/a.rs → [a]; src/a/mod.rs → [a]; src/a/b.rs → [a, b].
        let mut path: Vec<String> = parts.iter().map(|p| p.trim_end_matches(".rs").to_string()).collect();
        if path.last().is_some_and(|l| l == "mod") {
            path.pop();
        }
        // Files of the module at `within` itself hold none of its children.
        if path.len() <= within.len() || !path.iter().zip(within).all(|(a, b)| a == b) {
            continue;
        }
        let me = path[within.len()].clone();
        let text = std::fs::read_to_string(&f).unwrap();
        let code = code_only(&text);
        let line_of = |at: usize| code[..at].matches('\n').count() + 1;
        let mut add = |target: &[String], at: usize| {
            let inside = target.len() > within.len() && target.iter().zip(within).all(|(a, b)| a == b);
            if inside && target[within.len()] != me && units.contains(&target[within.len()]) {
                let to = target[within.len()].clone();
                edges.entry((me.clone(), to)).or_insert_with(|| format!("src/{}:{}", rel.display(), line_of(at)));
            }
        };
        // Inline modules open at a brace depth: (name, depth inside it).
        let mut inline: Vec<(String, usize)> = vec![];
        let mut depth = 0usize;
        let bytes = code.as_bytes();
        let word_start = |i: usize| i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b'$');
        let mut i = 0;
        while i < bytes.len() {
            let rest = &code[i..];
            // The module the code at `i` is in, with its inline modules.
            let here = |inline: &[(String, usize)]| path.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect::<Vec<String>>();
            let mut found = vec![];
            match bytes[i] {
                b'{' => depth += 1,
                b'}' => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                _ if word_start(i) && rest.starts_with("mod ") => {
                    let after = rest[4..].trim_start();
                    let name = ident(after);
                    if after[name.len()..].trim_start().starts_with('{') {
                        inline.push((name, depth + 1));
                    }
                }
                _ if word_start(i) && rest.starts_with("crate::") => expand_path(&code, i + 7, vec![], &mut found),
                _ if word_start(i) && rest.starts_with("self::") => expand_path(&code, i + 6, here(&inline), &mut found),
                _ if word_start(i) && rest.starts_with("super::") => {
                    let mut ups = 0;
                    let mut r = rest;
                    while let Some(t) = r.strip_prefix("super::") {
                        ups += 1;
                        r = t.trim_start();
                    }
                    let mut base = here(&inline);
                    if ups <= base.len() {
                        base.truncate(base.len() - ups);
                        expand_path(&code, i + (rest.len() - r.len()), base, &mut found);
                    }
                    found.iter().for_each(|(t, at)| add(t, *at));
                    i += rest.len() - r.len();
                    continue;
                }
                _ => {}
            }
            found.iter().for_each(|(t, at)| add(t, *at));
            i += 1;
        }
    }
    edges
}

/// The cycles among the modules of `edges`: one line per group of modules
/// that reach each other, a shortest cycle through its first module with
/// the reference behind each step.
fn module_cycles(edges: &std::collections::BTreeMap<(String, String), String>) -> Vec<String> {
    let mut names: Vec<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    names.sort();
    names.dedup();
    let n = names.len();
    let at = |m: &String| names.iter().position(|x| *x == m).unwrap();
    let mut reach = vec![vec![false; n]; n];
    for (a, b) in edges.keys() {
        reach[at(a)][at(b)] = true;
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                reach[i][j] |= reach[i][k] && reach[k][j];
            }
        }
    }
    let mut done = vec![false; n];
    let mut out = vec![];
    for s in 0..n {
        if done[s] || !reach[s][s] {
            continue;
        }
        let group: Vec<usize> = (0..n).filter(|&j| reach[s][j] && reach[j][s]).collect();
        group.iter().for_each(|&j| done[j] = true);
        // Breadth first from s inside the group, back to s.
        let mut prev = vec![usize::MAX; n];
        let mut queue = std::collections::VecDeque::from([s]);
        let mut last = None;
        while let Some(u) = queue.pop_front() {
            for &v in &group {
                if edges.contains_key(&(names[u].clone(), names[v].clone())) {
                    if v == s {
                        last = Some(u);
                        queue.clear();
                        break;
                    }
                    if prev[v] == usize::MAX {
                        prev[v] = u;
                        queue.push_back(v);
                    }
                }
            }
        }
        let mut path = vec![s];
        let mut u = last.unwrap();
        while u != s {
            path.push(u);
            u = prev[u];
        }
        path[1..].reverse();
        path.push(s);
        let steps: Vec<String> =
            path.windows(2).map(|w| format!("{} -> {} ({})", names[w[0]], names[w[1]], edges[&(names[w[0]].clone(), names[w[1]].clone())])).collect();
        let members: Vec<&str> = group.iter().map(|&j| names[j].as_str()).collect();
        let inside: Vec<String> =
            edges.iter().filter(|((a, b), _)| group.contains(&at(a)) && group.contains(&at(b))).map(|((a, b), w)| format!("{a} -> {b} ({w})")).collect();
        out.push(format!("cycle among {{{}}}: {}; all uses inside: {}", members.join(", "), steps.join(", "), inside.join(", ")));
    }
    out
}

/// `tree` implemented `game::TreeSource` while `game` took `tree`'s value
/// scale: a cycle between two top-level modules, each needing the other to
/// be read. No top-level module of the library may reach itself through
/// the others (tests included; comments and doc links are not uses).
#[test]
fn no_cycle_between_top_level_modules() {
    let edges = module_edges(&repo("src"), &[]);
    // The scanner sees the library's real uses.
    for (a, b) in [("search", "game"), ("sim", "search"), ("formats", "cli")] {
        assert!(edges.contains_key(&(a.to_string(), b.to_string())), "no {a} -> {b} in {edges:#?}");
    }
    let cycles = module_cycles(&edges);
    assert!(cycles.is_empty(), "{}", cycles.join("\n"));
}

/// The same inside the three machines: no file (or folder) module of
/// `src/real/`, `src/sim/`, `src/sim/engine/`, `src/sim/engine/idle/`,
/// `src/cluster/`, `src/cluster/exec/` (the executor),
/// `src/cluster/exec/mpi/` or `src/cluster/algorithms/` may reach itself
/// through its siblings, so that each can be read after the ones it uses.
#[test]
fn no_cycle_between_the_modules_of_each_machine() {
    let src = repo("src");
    let mut cycles = vec![];
    for within in [
        &["real"][..],
        &["sim"],
        &["sim", "engine"],
        &["sim", "engine", "idle"],
        &["cluster"],
        &["cluster", "exec"],
        &["cluster", "exec", "mpi"],
        &["cluster", "algorithms"],
    ] {
        let edges = module_edges(&src, within);
        // The scanner sees the uses inside each machine (the folders of
        // the engine's idle rules and of the MPI transport may have none).
        assert!(!edges.is_empty() || within.len() > 1 && within != ["sim", "engine"], "no uses between the modules of src/{}", within.join("/"));
        cycles.extend(module_cycles(&edges).into_iter().map(|c| format!("src/{}: {c}", within.join("/"))));
        if within == ["cluster"] {
            // The executor knows no algorithm.
            assert!(!edges.contains_key(&("exec".to_string(), "algorithms".to_string())), "src/cluster/exec uses the algorithms: {edges:#?}");
        }
    }
    assert!(cycles.is_empty(), "{}", cycles.join("\n"));
}

/// The machines name no policy: the simulated machine is generic over
/// `SimIdle`, the real threads' heap over `HeapPolicy`, and each policy's
/// code for both is its one file of `src/policy/`. No file of `src/sim/`
/// or `src/real/` (tests included) names a policy or the registry, so
/// adding a policy edits neither machine.
#[test]
fn the_machines_name_no_policy() {
    let mut files = vec![];
    rust_files(&repo("src/sim"), &mut files);
    rust_files(&repo("src/real"), &mut files);
    assert!(files.len() > 10, "{files:?}");
    let mut named = vec![];
    for f in files {
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        if let Some(at) = code.find("crate::policy") {
            named.push(format!("{}:{}", f.display(), code[..at].matches('\n').count() + 1));
        }
    }
    assert!(named.is_empty(), "the machines name the policies at {named:?}");
}

/// The scanner on a small crate: paths in code count (`crate::a`, groups,
/// `super::` up to the root from a file or an inline module); comments,
/// strings and `$crate` do not.
#[test]
fn module_scanner_finds_uses_and_names_the_cycle() {
    let d = Dir::new("modules");
    std::fs::create_dir_all(d.join("src/a")).unwrap();
    d.write("src/lib.rs", "pub mod a;\npub mod b;\nmod c;\npub mod d;\n");
    d.write("src/a/mod.rs", "mod inner;\n// crate::d in a comment\nconst S: &str = \"crate::d\";\nconst C: char = '{';\nfn f() {}\n");
    d.write("src/a/inner.rs", "mod tests {\n    use super::super::super::b::X;\n}\n");
    d.write("src/b.rs", "use crate::{c::Y, rng as _};\nmacro_rules! m { () => { $crate::d::Z } }\n");
    d.write("src/c.rs", "fn g() { let _ = r#\"crate::d\"#; }\npub fn h() -> u32 { super::a::f(); 1 }\n");
    d.write("src/d.rs", "");
    let edges = module_edges(&d.join("src"), &[]);
    let keys: Vec<(&str, &str)> = edges.keys().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(keys, [("a", "b"), ("b", "c"), ("c", "a")]);
    assert_eq!(edges[&("a".to_string(), "b".to_string())], "src/a/inner.rs:2");
    assert_eq!(
        module_cycles(&edges),
        [
            "cycle among {a, b, c}: a -> b (src/a/inner.rs:2), b -> c (src/b.rs:1), c -> a (src/c.rs:2); all uses inside: a -> b (src/a/inner.rs:2), b -> c (src/b.rs:1), c -> a (src/c.rs:2)"
        ]
    );
}

/// The scanner inside a folder (`src/m/e/`): siblings named by
/// `super::x`, `self::`-relative paths from the folder's own files,
/// `crate::m::e::x`, groups under the folder (`crate::m::{e::{x, y}}`),
/// and a sub-folder module (`idle/`) as one unit; uses of the parent
/// (`super::Shared`) or of other folders are not sibling uses.
#[test]
fn module_scanner_finds_uses_between_siblings_in_a_folder() {
    let d = Dir::new("modules-nested");
    std::fs::create_dir_all(d.join("src/m/e/idle")).unwrap();
    d.write("src/lib.rs", "pub mod m;\npub mod other;\n");
    d.write("src/other.rs", "use crate::m::e::x::X;\n");
    d.write("src/m/mod.rs", "pub mod e;\npub(crate) mod z;\n");
    d.write("src/m/z.rs", "use super::e::y::Y;\n");
    d.write("src/m/e/mod.rs", "mod x;\n#[cfg(test)]\nmod y;\nmod idle;\npub struct Shared;\nuse self::x::X;\n");
    d.write("src/m/e/x.rs", "use super::Shared;\nuse super::y::Y;\n");
    d.write("src/m/e/y.rs", "use crate::m::{z::Z, e::{idle::I, x}};\n");
    d.write("src/m/e/idle/mod.rs", "mod steal;\n");
    d.write("src/m/e/idle/steal.rs", "fn f() { self::g(); super::super::x::X; }\nfn g() {}\n");
    let edges = module_edges(&d.join("src"), &["m", "e"]);
    let keys: Vec<(&str, &str)> = edges.keys().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(keys, [("idle", "x"), ("x", "y"), ("y", "idle"), ("y", "x")]);
    assert_eq!(edges[&("idle".to_string(), "x".to_string())], "src/m/e/idle/steal.rs:1");
    assert_eq!(edges[&("y".to_string(), "idle".to_string())], "src/m/e/y.rs:1");
    assert_eq!(module_cycles(&edges).len(), 1);
    assert!(module_cycles(&edges)[0].starts_with("cycle among {idle, x, y}: idle -> x (src/m/e/idle/steal.rs:1), x -> y (src/m/e/x.rs:2), y -> idle"));
    // One level up, the same files make one unit `e` that uses `z`.
    let up = module_edges(&d.join("src"), &["m"]);
    assert_eq!(up.keys().map(|(a, b)| (a.as_str(), b.as_str())).collect::<Vec<_>>(), [("e", "z"), ("z", "e")]);
}

/// `docs/architecture.md`, the map a newcomer reads first, and
/// `docs/decisions.md`, the choices by topic, name only what exists: every
/// path they quote (`src/...`, `tests/...`, ...) is a file or folder of the
/// repository, and every type they quote (`Tree`, `Tree::visit`,
/// `cluster::Algorithm`) is declared in the code, with the member named.
#[test]
fn the_architecture_map_names_what_exists() {
    let mut files = vec![];
    for dir in ["src", "tests", "report/src", "report/tests", "examples"] {
        rust_files(&repo(dir), &mut files);
    }
    let code: String = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect::<Vec<_>>().join("\n");
    for doc in ["docs/architecture.md", "docs/decisions.md"] {
        let missing = names_missing(&std::fs::read_to_string(repo(doc)).unwrap(), &code);
        assert!(missing.is_empty(), "{doc} names what the code does not have:\n{}", missing.join("\n"));
    }
}

/// The names quoted in `doc` (between backticks) that `code` or the
/// repository does not have: a path (`src/x.rs`, `src/x.rs:12`) that is no
/// file, a type, or a member of a type, that nothing declares.
fn names_missing(doc: &str, code: &str) -> Vec<String> {
    let declared =
        |name: &str| ["struct", "enum", "trait", "type", "fn", "mod", "const", "static", "macro_rules!"].iter().any(|k| code.contains(&format!("{k} {name}")));
    let word = |name: &str| code.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == name);
    let mut missing = vec![];
    for (i, quoted) in doc.split('`').enumerate() {
        if i % 2 == 0 || quoted.contains(['<', '*', ' ', '(', '{', '…']) || quoted.contains("...") {
            continue;
        }
        let roots = ["src/", "tests/", "report/", "docs/", "pipelines/", "scripts/", "examples/", "data/", "assets/"];
        if roots.iter().any(|r| quoted.starts_with(r)) {
            let path = quoted.split(':').next().unwrap_or(quoted);
            if !repo(path.trim_end_matches('/')).exists() {
                missing.push(format!("no file {quoted}"));
            }
            continue;
        }
        let parts: Vec<&str> = quoted.split("::").collect();
        let is_path = parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
        let Some(ty) = parts.iter().position(|p| p.starts_with(char::is_uppercase)) else {
            // A path of modules and a function (`tree::read_trees`): its last name is declared.
            if is_path && parts.len() > 1 && !declared(parts[parts.len() - 1]) {
                missing.push(format!("nothing declares {quoted}"));
            }
            continue;
        };
        if !is_path || parts[ty].chars().all(|c| c.is_uppercase() || c == '_' || c.is_ascii_digit()) {
            continue; // not a path, or a constant or an acronym
        }
        if !declared(parts[ty]) {
            missing.push(format!("no type {quoted}"));
        } else if let Some(member) = parts.get(ty + 1)
            && !word(member)
        {
            missing.push(format!("no member {quoted}"));
        }
    }
    missing
}

/// Where "issue" followed by a number (across a line break and the
/// comment markers that start the next line) occurs in `text`: a tracker's
/// number a reader of the repository cannot open.
fn tracker_numbers(text: &str) -> Vec<usize> {
    let lower = text.to_lowercase();
    let word = ["iss", "ue"].concat();
    let mut at = vec![];
    for (i, _) in lower.match_indices(&word) {
        let rest = lower[i + word.len()..].trim_start_matches('s');
        let mut breaks = 0;
        let after = rest.trim_start_matches(|c: char| {
            breaks += usize::from(c == '\n');
            breaks <= 1 && (c.is_whitespace() || "-#/!*".contains(c))
        });
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            at.push(lower[..i].matches('\n').count() + 1);
        }
    }
    at
}

/// Docs, code, tests, scripts, the Makefile: none cites a tracker's number
/// (cite the file, the command or the commit).
#[test]
fn no_file_cites_a_tracker_number() {
    let n = ["iss", "ue"].concat();
    assert_eq!(tracker_numbers(&format!("a\n// {n} 12\n{n}s #3 and\n/// {n}\n/// 41. {n} tracker, {n}-10")), [2, 3, 4, 5]);
    let mut files = vec![repo("Makefile"), repo("README.md"), repo("BENCHMARKS.md"), repo("Cargo.toml")];
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if !p.ends_with("target") {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| ["rs", "md", "sh", "toml", "py", "txt"].iter().any(|e| x == *e)) {
                out.push(p);
            }
        }
    }
    for d in ["src", "tests", "docs", "scripts", "pipelines", "examples", "report", "data"] {
        walk(&repo(d), &mut files);
    }
    assert!(files.len() > 100, "{} files", files.len());
    let cited: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            tracker_numbers(&text).into_iter().map(move |l| format!("{}:{l}", f.display()))
        })
        .collect();
    assert!(cited.is_empty(), "a tracker's number cited at {cited:#?}");
}
