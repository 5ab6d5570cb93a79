//! Unit tests of `nn`.

use super::*;

fn net() -> Network {
    let wh = HiddenWeights::from_fn(|r, c| ((r * 7 + c * 3) % 11) as f64 / 10.0 - 0.5);
    let wo = OutputWeights::from_fn(|r, c| ((r * 5 + c * 2) % 13) as f64 / 12.0 - 0.5);
    let t = Training { rng: "ChaCha8".into(), seed: 1, init: 0.5, iterations: 0, eta: 0.1, shuffle: false, patterns: 0 };
    let mut n = Network::new(wh, wo, TrainedFor::artificial(Model::Exponential, Ordering { b: 4, wa: 50, wb: 10 }), 42.5, t).unwrap().with_root_wait(2.25);
    n.errors = Errors { e_type: 1.0, e_wait: 0.5 };
    n
}

#[test]
fn exp_matches_std_to_a_few_ulp() {
    let mut worst: f64 = 0.0;
    for i in -200_000..=200_000 {
        let x = i as f64 * 0.003_5;
        let (a, b) = (exp(x), x.exp());
        worst = worst.max(((a - b) / b).abs());
    }
    assert!(worst < 1e-15, "{worst}");
    assert_eq!(exp(0.0), 1.0);
    assert!(exp(-1000.0) > 0.0 && exp(-1000.0) < 1e-307 && exp(1000.0).is_finite() && exp(1000.0) > 1e307);
    assert!(logistic(-1000.0) < 1e-300 && logistic(1000.0) == 1.0);
    assert!((logistic(0.0) - 0.5).abs() < 1e-16);
}

#[test]
fn scaling_maps_ranges_onto_point_one_to_point_nine() {
    let n = net();
    assert_eq!(n.inputs[2].scale(1.0), 0.1);
    assert!((n.inputs[2].scale(4.0) - 0.9).abs() < 1e-15);
    assert!((n.outputs[1].unscale(0.9) - 4.0).abs() < 1e-12);
    assert!((n.outputs[0].unscale(n.outputs[0].scale(37.25)) - 37.25).abs() < 1e-12);
}

#[test]
fn weights_round_trip_exactly() {
    let n = net();
    let back = Network::from_json(&n.to_json().unwrap()).unwrap();
    assert_eq!(back, n);
    assert_eq!(back.predict(false, 30.0, 3), n.predict(false, 30.0, 3));
}

#[test]
fn forward_pass_by_hand() {
    let n = net();
    let x = n.scale_inputs(true, 50.0, 2.0);
    let f = n.forward(&x);
    for k in 0..HIDDEN {
        let s: f64 = (0..4).map(|j| n.wh[(k, j)] * x[j]).sum();
        assert!((f.h[k] - 1.0 / (1.0 + (-s).exp())).abs() < 1e-15);
    }
    assert_eq!(f.h[HIDDEN], 1.0);
    for k in 0..OUTPUTS {
        let s: f64 = (0..13).map(|j| n.wo[(k, j)] * f.h[j]).sum();
        assert!((f.o[k] - logistic(s)).abs() < 1e-15);
    }
}

/// Back-propagation against central finite differences of
/// `sum_k (d_k - o_k)^2 / 2`, for every weight of both layers.
#[test]
fn gradient_matches_finite_differences() {
    let n = net();
    let x = n.scale_inputs(false, 63.0, 3.0);
    let d = SVector::<f64, 2>::new(0.8, 0.25);
    let loss = |m: &Network| {
        let f = m.forward(&x);
        ((d - f.o).norm_squared()) / 2.0
    };
    let (dwh, dwo, _) = n.gradient(&x, &d);
    let eps = 1e-6;
    let mut checked = 0;
    for r in 0..HIDDEN {
        for c in 0..INPUTS + 1 {
            let (mut p, mut m) = (n.clone(), n.clone());
            p.wh[(r, c)] += eps;
            m.wh[(r, c)] -= eps;
            let numeric = -(loss(&p) - loss(&m)) / (2.0 * eps);
            assert!((numeric - dwh[(r, c)]).abs() < 1e-9, "wh[{r}][{c}]: {numeric} vs {}", dwh[(r, c)]);
            checked += 1;
        }
    }
    for r in 0..OUTPUTS {
        for c in 0..HIDDEN + 1 {
            let (mut p, mut m) = (n.clone(), n.clone());
            p.wo[(r, c)] += eps;
            m.wo[(r, c)] -= eps;
            let numeric = -(loss(&p) - loss(&m)) / (2.0 * eps);
            assert!((numeric - dwo[(r, c)]).abs() < 1e-9, "wo[{r}][{c}]: {numeric} vs {}", dwo[(r, c)]);
            checked += 1;
        }
    }
    assert_eq!(checked, 48 + 26);
    // A step along the gradient lowers the loss.
    let mut s = n.clone();
    s.train_step(&x, &d, 0.1);
    assert!(loss(&s) < loss(&n));
}

/// The training loop's hand-laid-out step is the back-propagation step
/// (to rounding: it sums in another order), and its vectorized build
/// gives the same bits as the plain one.
#[test]
fn flat_step_is_the_gradient_step() {
    let mut n = net();
    let mut f = Flat::of(&n);
    let mut g = f;
    let mut back = n.clone();
    f.store(&mut back);
    assert_eq!(back, n);
    let xs: Vec<[f64; 4]> = (0..50).map(|i| [(i % 2) as f64 * 0.8 + 0.1, 0.1 + (i % 7) as f64 * 0.1, 0.1 + (i % 4) as f64 * 0.2, 1.0]).collect();
    let ds: Vec<[f64; 2]> = (0..50).map(|i| [0.1 + (i % 5) as f64 * 0.2, 0.1 + (i % 3) as f64 * 0.3]).collect();
    for (x, d) in xs.iter().zip(&ds) {
        n.train_step(&SVector::<f64, 4>::from(*x), &SVector::<f64, 2>::from(*d), 0.1);
        f.step(x, d, 0.1);
    }
    let mut m = n.clone();
    f.store(&mut m);
    assert!((m.wh - n.wh).abs().max() < 1e-12 && (m.wo - n.wo).abs().max() < 1e-12);
    let mut h = g;
    g.iteration(&xs, &ds, 0.1);
    h.iteration_plain(&xs, &ds, 0.1);
    assert_eq!(g, h);
}

fn edited(f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::to_value(net().to_file()).unwrap();
    f(&mut v);
    serde_json::to_string(&v).unwrap()
}

/// The file is refused with an error of the expected kind whose message names the problem.
fn refused(text: &str, kind: fn(&NnError) -> bool, needle: &str) {
    let e = Network::from_json(text).unwrap_err();
    assert!(kind(&e), "{e:?} is not of the expected kind");
    assert!(e.to_string().contains(needle), "`{needle}` not in: {e}");
}

#[test]
fn bad_files_are_refused_with_the_problem_named() {
    let json = |e: &NnError| matches!(e, NnError::NotJson(_));
    let other = |e: &NnError| matches!(e, NnError::NotWeights(_));
    let invalid = |e: &NnError| matches!(e, NnError::Invalid(_));
    let good = net().to_json().unwrap();
    refused(&good[..good.len() / 2], json, "truncated");
    refused("[1,2]", other, "no `format`");
    refused(&edited(|v| v["format"] = "other".into()), other, "format is `other`");
    refused(&edited(|v| v["version"] = 7.into()), other, "unknown version 7");
    // A version-1 network (trained with the PV path's patterns) is refused with what to do.
    refused(&edited(|v| v["version"] = 1.into()), |e| matches!(e, NnError::Version1), "retrain it (trainset, then nntrain)");
    refused(&edited(|v| v.as_object_mut().unwrap().remove("root_wait").map(|_| ()).unwrap()), invalid, "missing field `root_wait`");
    refused(&edited(|v| v["layers"] = serde_json::json!([3, 10, 2])), invalid, "layer sizes");
    refused(&edited(|v| v["hidden_weights"].as_array_mut().unwrap().pop().map(|_| ()).unwrap()), invalid, "hidden_weights: 11 rows");
    refused(&edited(|v| v["output_weights"][1].as_array_mut().unwrap().push(0.5.into())), invalid, "row 2 has 14 weights");
    // JSON has no NaN; a NaN written by another program arrives as null or a string.
    refused(&edited(|v| v["hidden_weights"][2][1] = serde_json::Value::Null), invalid, "hidden_weights");
    refused(&good.replace("\"root_type\": 42.5", "\"root_type\": NaN"), json, "not valid JSON");
    refused(&edited(|v| v["inputs"][2]["max"] = 0.5.into()), invalid, "min < max");
    refused(&edited(|v| v["outputs"][0]["name"] = "wait".into()), invalid, "range `wait` where `type`");
    refused(&edited(|v| v["extra"] = 1.into()), invalid, "unknown field `extra`");
    refused(&edited(|v| v.as_object_mut().unwrap().remove("root_type").map(|_| ()).unwrap()), invalid, "missing field `root_type`");
    refused(&edited(|v| v["activation"] = "tanh".into()), invalid, "activation");
}

#[test]
fn ordering_mismatch_is_refused() {
    let n = net();
    let key = |o| TreeKey::Artificial { model: Model::Exponential, ordering: o, depth: 4 };
    n.check_trees(&key(Ordering { b: 4, wa: 50, wb: 10 })).unwrap();
    assert!(n.check_trees(&TreeKey::Game { game: crate::game::Game::Chess, board: 8, depth: 4 }).is_err());
    let NnError::WrongOrdering { trained, trees } = n.check_trees(&key(Ordering { b: 4, wa: 50, wb: 11 })).unwrap_err() else { panic!("not WrongOrdering") };
    assert_eq!((trained.as_str(), trees.as_str()), ("exponential (4,50,10)", "exponential (4,50,11)"));
}

#[test]
fn scheme_c_interval_is_closed() {
    assert_eq!(n_type(true, 50.0, 10.0), NType::Pv);
    assert_eq!(n_type(false, 40.0, 10.0), NType::Cut);
    assert_eq!(n_type(false, 60.0, 10.0), NType::Cut);
    assert_eq!(n_type(false, 60.000001, 10.0), NType::All);
    assert_eq!(n_type(false, 39.9, 10.0), NType::All);
    assert_eq!(n_type(false, 50.0, 0.0), NType::Cut);
    assert_eq!(n_type(false, -3.0, 50.0), NType::All);
}
