//! The tree generator, the search and f_best, as the tools run them.

use crate::util::*;

const PUBLISHED: &str = include_str!("../data/published/table-6.3-uniprocessor.csv");

/// The acceptance test of the project: the 100 tg1 trees of each ordering
/// searched to depth 6 examine exactly the published uniprocessor node counts.
#[test]
fn node_counts_match_table_6_3_exactly() {
    let d = Dir::new("table63");
    for line in PUBLISHED.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let ordering = format!("{},{},{}", f[0], f[1], f[2]);
        let published: u64 = f[4].parse().unwrap();
        let trees = d.tool("treegen").args(["--set", "tg1", "--ordering", &ordering, "--depth", "6"]).ok();
        assert_eq!(trees.lines().count(), 100);
        let per_tree = d.tool("fbest").args(["--per-tree"]).stdin(&trees).ok();
        assert_eq!(sum_column(&per_tree, "nodes"), published, "ordering {ordering}");
        assert_eq!(sum_column(&per_tree, "nodes"), sum_column(&per_tree, "leaves") + sum_column(&per_tree, "internal"));
        // Every root returns its pscore, the tree's minimax value.
        for row in per_tree.lines().skip(1) {
            assert!(row.ends_with(",1073741823"), "{row}");
        }
    }
}

#[test]
fn table_4_4_workload_has_the_documented_node_count() {
    let d = Dir::new("t44");
    let trees = d.tool("treegen").args(["--ordering", "32,79,5", "--depth", "7"]).ok();
    let per_tree = d.tool("fbest").args(["--per-tree"]).stdin(&trees).ok();
    assert_eq!(sum_column(&per_tree, "nodes"), 215_222_220);
    let table = d.tool("fbest").stdin(&trees).ok();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[0], "b,wa,wb,depth,trees,n,fbest,pbest");
    assert_eq!(lines.len(), 33);
    // f_best sums to the contributing nodes, and p_best to 1.
    assert_eq!(sum_column(&table, "fbest"), sum_column(&per_tree, "contributing"));
    let p: f64 = column(&table, "pbest").iter().map(|p| p.parse::<f64>().unwrap()).sum();
    assert!((p - 1.0).abs() < 1e-6, "{p}");
}

#[test]
fn output_is_identical_for_one_and_two_threads() {
    let d = Dir::new("threads");
    let trees = d.tool("treegen").args(["--ordering", "32,66,66", "--ordering", "20,69,19", "--depth", "5", "--count", "30"]).ok();
    for mode in [&[][..], &["--per-tree"][..]] {
        let one = d.tool("fbest").args(["--threads", "1"]).args(mode).stdin(&trees).ok();
        let two = d.tool("fbest").args(["--threads", "2"]).args(mode).stdin(&trees).ok();
        assert_eq!(one, two);
        assert!(one.lines().count() > 10);
    }
}

#[test]
fn analytic_table_4_5() {
    let d = Dir::new("analytic");
    let out = d.tool("fbest").args(["--analytic", "--ordering", "20,69,19"]).ok();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "b,wa,wb,n,p_n,cumulative");
    assert_eq!(lines.len(), 21);
    let published = include_str!("../data/published/table-4.5-exponential-b20-69-19.csv");
    for (ours, theirs) in lines[1..].iter().zip(published.lines().skip(1)) {
        let o: Vec<f64> = ours.split(',').skip(3).map(|x| x.parse().unwrap()).collect();
        let t: Vec<f64> = theirs.split(',').map(|x| x.parse().unwrap()).collect();
        assert_eq!(o[0] as u32, t[0] as u32);
        assert_eq!(format!("{:.6}", o[1]), format!("{:.6}", t[1]), "p_{}", t[0]);
        assert_eq!(format!("{:.6}", o[2]), format!("{:.6}", t[2]), "cumulative at {}", t[0]);
    }
}

#[test]
fn rajahx_summary() {
    let d = Dir::new("rajahx");
    let csv = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/rajahx-fbest.csv")).unwrap();
    let path = d.write("r.csv", &csv);
    let out = d.tool("fbest").args(["--rajahx", path.to_str().unwrap()]).ok();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 11);
    // The thesis's average branching factor: 32.06.
    assert!(lines[1].starts_with("32.06,,,,24,1,"), "{}", lines[1]);
}

#[test]
fn treegen_writes_the_documented_fields() {
    let d = Dir::new("treegen");
    let out = d.tool("treegen").args(["--set", "tg2", "--ordering", "20,69,19", "--depth", "4", "--count", "2"]).ok();
    assert_eq!(
        out,
        "{\"set\":\"tg2\",\"index\":1,\"seed\":314159265,\"pscore\":1073741823,\"model\":\"exponential\",\"b\":20,\"wa\":69,\"wb\":19,\"depth\":4}\n\
         {\"set\":\"tg2\",\"index\":2,\"seed\":358979323,\"pscore\":1073741823,\"model\":\"exponential\",\"b\":20,\"wa\":69,\"wb\":19,\"depth\":4}\n"
    );
    let strong = d.tool("treegen").args(["--model", "strong", "--ordering", "20,0,0", "--depth", "4", "--count", "3"]).ok();
    let per = d.tool("fbest").args(["--per-tree"]).stdin(&strong).ok();
    assert_eq!(per.lines().count(), 4);
}

#[test]
fn output_file_is_written_atomically_and_not_left_on_error() {
    let d = Dir::new("atomic");
    artificial_trees(&d, "t.jsonl", "5,50,50", 3, 4);
    assert_eq!(d.files(), vec!["t.jsonl"]);
    d.tool("fbest").args(["t.jsonl", "-o", "f.csv"]).ok();
    assert_eq!(d.read("f.csv").lines().count(), 6);
    d.tool("fbest").args(["-o", "bad.csv"]).stdin("{\"oops\":1}\n").fails("<stdin>:1");
    assert_eq!(d.files(), vec!["f.csv", "t.jsonl"]);
}

/// `-o /dev/null`, a FIFO or a symlink: the output goes to what the path names
/// and the path keeps its kind. (A rename over /dev/null once left a regular
/// file there, which cargo's compiler probes then read as source.)
#[test]
fn output_to_a_device_fifo_or_symlink_keeps_the_target() {
    use std::os::unix::fs::FileTypeExt;
    let d = Dir::new("special");
    let args = ["--ordering", "5,50,50", "--depth", "2", "--count", "3"];
    let expected = d.tool("treegen").args(args).ok();

    d.tool("treegen").args(args).args(["-o", "/dev/null"]).ok();
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());

    let fifo = d.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    d.tool("treegen").args(args).args(["-o", "fifo"]).ok();
    assert_eq!(reader.join().unwrap(), expected);
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    d.write("real.jsonl", "old\n");
    std::os::unix::fs::symlink("real.jsonl", d.join("link.jsonl")).unwrap();
    d.tool("treegen").args(args).args(["-o", "link.jsonl"]).ok();
    assert!(d.join("link.jsonl").is_symlink());
    assert_eq!(d.read("real.jsonl"), expected);

    std::fs::create_dir(d.join("sub")).unwrap();
    d.tool("treegen").args(args).args(["-o", "sub"]).fails("output sub is a directory");
}

#[test]
fn bad_inputs_give_one_line_errors() {
    let d = Dir::new("bad");
    let good = r#"{"set":"tg1","index":1,"seed":1335380035,"pscore":1073741823,"model":"exponential","b":3,"wa":50,"wb":50,"depth":2}"#;
    d.tool("fbest").stdin(&format!("{good}\nnot json\n")).fails("<stdin>:2");
    d.tool("fbest").stdin(&good.replace("\"depth\":2", "\"depth\":2,\"extra\":1")).fails("unknown field `extra`");
    d.tool("fbest").stdin(&good.replace(",\"depth\":2", "")).fails("missing field `depth`");
    d.tool("fbest").stdin(&good.replace("\"b\":3", "\"b\":0")).fails("b must be at least 1");
    d.tool("fbest").stdin(&good.replace("\"wa\":50", "\"wa\":101")).fails("w_a and w_b must lie in 0..=100");
    d.tool("fbest").stdin(&good.replace("1335380035", "2147483647")).fails("stuck at 0");
    d.tool("fbest").fails("no tree specs");
    d.tool("fbest").args(["missing.jsonl"]).fails("cannot open missing.jsonl");
    d.tool("treegen").args(["--set", "nope.txt", "--ordering", "32,79,5", "--depth", "6"]).fails("cannot read seed file nope.txt");
    d.tool("treegen").args(["--ordering", "0,79,5", "--depth", "6"]).fails_with(2, "b must be at least 1");
    d.tool("treegen").args(["--ordering", "32,79,500", "--depth", "6"]).fails_with(2, "w_a and w_b");
    let seeds = d.write("zero.txt", "5\n4294967294\n");
    d.tool("treegen").args(["--set", seeds.to_str().unwrap(), "--ordering", "2,0,0", "--depth", "1"]).fails("stuck at 0");
}

/// Reads one line of `tool args`, closes the pipe as `| head -1` does, and
/// checks the tool exits 0 with nothing on stderr.
fn head_one(tool: &str, args: &[&str], first: &str) {
    let d = Dir::new("pipe");
    let mut child = std::process::Command::new(bin(tool))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .current_dir(&d.path)
        .spawn()
        .unwrap();
    // Read one line, then close the pipe, as `| head -1` does.
    {
        use std::io::BufRead;
        let mut r = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        assert!(line.starts_with(first), "{line}");
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{tool}: exit status {:?}", out.status);
    assert!(out.stderr.is_empty(), "{tool}: stderr: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn closed_stdout_exits_quietly() {
    // Each writes a few hundred KB: more than the pipe and the tool's buffer hold.
    let mut args = vec!["--depth", "6"];
    let orderings: Vec<String> = (0..12).map(|w| format!("32,{w},0")).collect();
    for o in &orderings {
        args.extend(["--ordering", o]);
    }
    head_one("treegen", &args, "{\"set\":\"tg1\"");
    head_one("fbest", &["--analytic", "--ordering", "4000,1,1", "--ordering", "4000,2,2", "--ordering", "4000,3,3"], "b,wa,wb,n,p_n,cumulative");
}
