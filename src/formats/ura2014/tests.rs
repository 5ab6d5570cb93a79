//! Ura et al.'s tables on hand-made rows, against values worked out by hand.

use super::*;

fn grid() -> Grid {
    Grid {
        groups: vec!["5:6:3".parse().unwrap()],
        count: 2,
        procs: vec![4],
        algorithms: vec!["master-worker".into()],
        epsilon_procs: vec![4],
        epsilon: 200,
        seq_node_ns: 1000,
    }
}

/// An item row of group 5:6:3.
fn item(tree: u32, algorithm: &str, procs: u32, time_s: f64, leaves: u64, idle_ms: (f64, f64)) -> ItemRow {
    ItemRow {
        b: 5,
        d: 6,
        d_prime: 3,
        tree,
        algorithm: algorithm.into(),
        procs,
        epsilon: None,
        time_ns: time_s * 1e9,
        leaves,
        nodes: leaves * 2,
        startup_idle_ns: idle_ms.0 * 1e6,
        other_idle_ns: idle_ms.1 * 1e6,
        wall_s: Some(1.5),
        cpu_s: 1.25,
        max_rss_kb: Some(2304),
        eval_noise: None,
    }
}

fn csv_of<T: Serialize>(rows: &[T]) -> String {
    let mut w = csv::Writer::from_writer(vec![]);
    for r in rows {
        w.serialize(r).unwrap();
    }
    String::from_utf8(w.into_inner().unwrap()).unwrap()
}

#[test]
fn groups_parse_and_the_configurations_are_listed_once() {
    assert_eq!("5:24:12".parse::<Group>(), Ok(Group { b: 5, d: 24, d_prime: 12, noise: None }));
    assert!("5:24:24".parse::<Group>().is_err() && "5:24".parse::<Group>().is_err() && "5:x:2".parse::<Group>().is_err());
    // A noisy family: its own directory, the generator's refusals before any item.
    let shogi: Group = "20:12:6:shogi".parse().unwrap();
    assert_eq!((shogi.noise.as_deref(), shogi.dir(), shogi.to_string()), (Some("shogi"), "b20-d12-m6-noise-shogi".into(), "20:12:6:shogi".into()));
    assert_eq!("5:24:12:300".parse::<Group>().unwrap().dir(), "b5-d24-m12-noise-300");
    assert_eq!("5:24:12:shogi".parse::<Group>().unwrap().dir(), "b5-d24-m12-noise-shogi");
    assert!("7:24:12:shogi".parse::<Group>().unwrap_err().contains("b = 5 and b = 20"));
    assert!("5:24:12:0".parse::<Group>().unwrap_err().contains("plain trees"));
    assert!("5:24:12:x".parse::<Group>().is_err() && "5:24:12:1:2".parse::<Group>().is_err());
    let names: Vec<String> = grid().configs().into_iter().map(|c| c.name).collect();
    // Table 6's plain master-worker at P = 4 is Table 1's.
    assert_eq!(names, ["master-worker-p4", "master-worker-negascout-e200-p4"]);
}

/// Two trees: the baseline at 100 s and 400 s (geometric mean 200 s),
/// the master-worker at 1 s and 4 s (2 s): speed-up 100. Leaves 2 and 4
/// million against 3 and 5 (means 3 and 4 million, ratio 8/6). A third
/// tree without its baseline is left out.
#[test]
fn summary_rows_are_geometric_means_and_ratios_over_the_trees_with_a_baseline() {
    let items = vec![
        item(1, "seq", 1, 100.0, 2_000_000, (0.0, 0.0)),
        item(2, "seq", 1, 400.0, 4_000_000, (0.0, 0.0)),
        item(1, "master-worker", 4, 1.0, 3_000_000, (1.0, 3.0)),
        item(2, "master-worker", 4, 4.0, 5_000_000, (3.0, 5.0)),
        item(3, "master-worker", 4, 9.0, 7_000_000, (9.0, 9.0)),
    ];
    let t1 = table1(&grid(), &items);
    assert_eq!(
        csv_of(&t1),
        "b,d,d_prime,procs,method,search_time_s,speedup,leaves_millions,startup_idle_s,other_idle_s,algorithm,trees,leaf_ratio,speedup_min,speedup_max,leaf_ratio_min,leaf_ratio_max,eval_noise\n\
         5,6,3,1,sequential,200.000000,1.000,3.000000,,,seq,2,1.0000,,,,,\n\
         5,6,3,4,with updates,2.000000,100.000,4.000000,0.002000,0.004000,master-worker,2,1.3333,100.000,100.000,1.2500,1.5000,\n"
    );
    // Table 6: its plain master-worker is Table 1's row; no ε-window items, no row.
    let t6 = table6(&grid(), &items);
    assert_eq!(t6.len(), 1);
    assert_eq!((t6[0].method.as_str(), t6[0].epsilon, t6[0].search_time_s), ("without epsilon-windows", None, t1[1].search_time_s));
    // A configuration without items has no row.
    assert_eq!(summary_row(&items, &grid().groups[0], "ybwc", 4, None, "ybwc"), None);
}

/// Per configuration: items counted, times summed, the largest memory;
/// then the grid. 2304 kB is 2.25 MB, written 2.2 (ties to even, as
/// printf rounds).
#[test]
fn cost_sums_per_configuration_then_the_grid() {
    let mut items = vec![item(1, "seq", 1, 1.0, 1, (0.0, 0.0)), item(1, "master-worker", 4, 1.0, 1, (0.0, 0.0)), item(2, "seq", 1, 1.0, 1, (0.0, 0.0))];
    items[1].max_rss_kb = Some(10_240);
    items[2].wall_s = None;
    assert_eq!(
        csv_of(&cost(&items)),
        "b,d,d_prime,algorithm,procs,epsilon,items,wall_s,cpu_s,cpu_hours,max_rss_mb,eval_noise\n\
         5,6,3,seq,1,,2,1.50,2.50,0.0007,2.2,\n\
         5,6,3,master-worker,4,,1,1.50,1.25,0.0003,10.0,\n\
         all,,,,,,3,3.00,3.75,0.0010,10.0,\n"
    );
}

/// The calibration and the items from files: the paper's 100 s for 2
/// million leaves is 50,000 ns per leaf; our baseline's 40 leaves in 60
/// nodes make 33,333.3 ns per node, rounded to 33,333; its times are
/// its nodes at that cost.
#[test]
fn calibration_and_items_from_the_pipelines_files() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("run/b5-d6-m3");
    std::fs::create_dir_all(&g).unwrap();
    let published = dir.path().join("table-1.csv");
    std::fs::write(&published, "b,d,method,search_time_s,leaves_millions\n5,24,sequential,100,2\n5,24,with updates,1,3\n").unwrap();
    let row = |algorithm: &str, procs: u32, time_ns: f64, leaves: u64, nodes: u64| ClusterRow {
        tree: Some(1),
        seed: Some(1),
        model: "incremental".into(),
        b: Some(5),
        depth: 6,
        trees: 1,
        algorithm: algorithm.into(),
        procs,
        split_ply: None,
        master_depth: None,
        granularity: None,
        root_value: Some(0),
        time_ns,
        speedup: 1.0,
        leaves,
        nodes,
        leaf_ratio: 1.0,
        startup_idle_ns: 1.25,
        other_idle_ns: 2.5,
        load_mean: 1.0,
        load_min: 1.0,
        load_sd: 0.0,
        messages: 0,
        bytes: 0,
        passes: None,
        tasks_sent: None,
        full_window_sends: None,
        tasks_dropped: None,
        dropped_nodes: None,
        tasks_aborted: None,
        aborted_nodes: None,
        outside_nodes: None,
        transport: "simulated".into(),
        cores: None,
        host_load: None,
        free_cores: None,
        oversubscribed: None,
        threads: None,
        thread_policy: None,
        wake_ns: None,
    };
    // Each row of the tree its file names.
    let put = |name: &str, r: ClusterRow, time: &str| {
        let r = ClusterRow { tree: Some(name[1..3].parse().unwrap()), ..r };
        std::fs::write(g.join(format!("{name}.csv")), csv_of(&[r])).unwrap();
        std::fs::write(g.join(format!("{name}.time")), time).unwrap();
    };
    put("t01-seq", row("seq", 1, 40_000.0, 30, 40), "0.50,0.25,0.05,1000\n");
    // Not calibrated yet: the second tree's baseline is missing.
    assert!(calibrate(dir.path(), &grid(), &published).unwrap().is_empty());
    put("t02-seq", row("seq", 1, 20_000.0, 10, 20), ",,,\n");
    put("t02-master-worker-p4", row("master-worker", 4, 123.45, 11, 25), "2.00,1.00,0.10,2048\n");
    let cal = calibrate(dir.path(), &grid(), &published).unwrap();
    assert_eq!(csv_of(&cal), "b,d,d_prime,trees,leaves,nodes,paper_ns_per_leaf,node_ns,eval_noise\n5,6,3,2,40,60,50000.000,33333,\n");
    let (items, missing) = items(dir.path(), &grid(), &cal).unwrap();
    assert!(missing.is_empty());
    assert_eq!(
        csv_of(&items),
        "b,d,d_prime,tree,algorithm,procs,epsilon,time_ns,leaves,nodes,startup_idle_ns,other_idle_ns,wall_s,cpu_s,max_rss_kb,eval_noise\n\
         5,6,3,1,seq,1,,1333320.00,30,40,1.25,2.50,0.50,0.30,1000,\n\
         5,6,3,2,seq,1,,666660.00,10,20,1.25,2.50,,0.00,,\n\
         5,6,3,2,master-worker,4,,123.45,11,25,1.25,2.50,2.00,1.10,2048,\n"
    );
    assert_eq!(as_written(&items).unwrap()[0].cpu_s, 0.3);
    // A baseline that did not run at 1,000 ns per node is refused.
    put("t01-seq", row("seq", 1, 40_001.0, 30, 40), ",,,\n");
    let e = super::items(dir.path(), &grid(), &cal).unwrap_err().to_string();
    assert!(e.ends_with("t01-seq.csv: time 40001.00 is not nodes x 1000 ns"), "{e}");
    // No sequential row for b = 20 in the paper's table.
    let other = Grid { groups: vec!["20:4:2".parse().unwrap()], ..grid() };
    std::fs::create_dir_all(dir.path().join("run/b20-d4-m2")).unwrap();
    for t in [1, 2] {
        let r = ClusterRow { b: Some(20), depth: 4, tree: Some(t), ..row("seq", 1, 20_000.0, 10, 20) };
        std::fs::write(dir.path().join(format!("run/b20-d4-m2/t{t:02}-seq.csv")), csv_of(&[r])).unwrap();
    }
    let e = calibrate(dir.path(), &other, &published).unwrap_err().to_string();
    assert!(e.starts_with("no sequential row for b = 20 in "), "{e}");
    // A noisy family of the same (b, d, d′): its own directory, calibration
    // and rows, never mixed with the plain trees'.
    let noisy = Grid { groups: vec!["5:6:3".parse().unwrap(), "5:6:3:300".parse().unwrap()], ..grid() };
    put("t01-seq", row("seq", 1, 40_000.0, 30, 40), ",,,\n");
    let n = dir.path().join("run/b5-d6-m3-noise-300");
    std::fs::create_dir_all(&n).unwrap();
    for t in [1, 2] {
        let r = ClusterRow { tree: Some(t), ..row("seq", 1, 30_000.0, 15, 30) };
        std::fs::write(n.join(format!("t{t:02}-seq.csv")), csv_of(&[r])).unwrap();
        std::fs::write(n.join(format!("t{t:02}-seq.time")), ",,,\n").unwrap();
    }
    let cal = calibrate(dir.path(), &noisy, &published).unwrap();
    assert_eq!(
        csv_of(&cal),
        "b,d,d_prime,trees,leaves,nodes,paper_ns_per_leaf,node_ns,eval_noise\n5,6,3,2,40,60,50000.000,33333,\n5,6,3,2,30,60,50000.000,25000,300\n"
    );
    let (items, _) = super::items(dir.path(), &noisy, &cal).unwrap();
    let t1 = table1(&noisy, &items);
    let seqs: Vec<(Option<&str>, f64)> = t1.iter().filter(|r| r.procs == 1).map(|r| (r.eval_noise.as_deref(), r.leaves_millions * 1e6)).collect();
    assert_eq!(seqs, [(None, 20.0), (Some("300"), 15.0)]);
}
