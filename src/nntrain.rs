//! Training the node-classification network (thesis §5.4, Table 5.1; `docs/model.md` §3.2): on-line back-propagation over the patterns of [`crate::trainset`].
//!
//! Initial weights are uniform in `[-init, init]`, drawn from a ChaCha8
//! generator seeded with `seed` (hidden weights row by row, then output
//! weights row by row, one `next_u64` each: the top 53 bits give a uniform
//! number in `[0, 1)`). With `shuffle` (the default of `nntrain`), the same
//! generator then permutes the patterns before every iteration
//! (Fisher-Yates); without it, patterns are presented in file order. The errors `E_k = mean((d_k - o_k)^2 / 2)` are
//! computed in scaled space over the whole set with the current weights and
//! reported in each output's own units (multiplied by the square of the
//! output's range over 0.8).

use crate::formats::{CurveRow, PatternRow};
use crate::macros::require;
use crate::nn::NnError;
use crate::nn::{self, Errors, Flat, HIDDEN, HiddenWeights, INPUTS, Network, OUTPUTS, OutputWeights, TrainedFor, Training};

/// Why a network could not be trained.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A patterns file that is not a valid training set (the message names
    /// the file and line).
    #[error("{0}")]
    BadPatterns(String),
    /// Settings outside their range.
    #[error("{0}")]
    BadSettings(String),
    /// Nothing to train on.
    #[error("no patterns to train on")]
    NoPatterns,
    /// The weights or errors stopped being finite numbers.
    #[error("the network for {0}: training diverged (weights or errors are no longer finite numbers); use a smaller --eta or --init")]
    Diverged(TrainedFor),
    /// A worker thread ended without a result.
    #[error("a training job did not finish")]
    Unfinished,
    /// The network could not be made.
    #[error(transparent)]
    Network(#[from] NnError),
}

/// A training's result.
pub type Result<T> = std::result::Result<T, TrainError>;

use nalgebra::SVector;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// A trained network and its learning curve.
pub type Trained = (Network, Vec<CurveRow>);

/// A checked training set in the network's scaled space.
#[derive(Clone, Debug)]
pub struct PatternSet {
    /// The ordering the patterns come from.
    pub trained_for: TrainedFor,
    /// The averaged root type (from the level-0 row).
    pub root_type: f64,
    /// The averaged root wait (from the level-0 row).
    pub root_wait: f64,
    /// Scaled inputs, bias last.
    pub x: Vec<SVector<f64, { INPUTS + 1 }>>,
    /// Scaled targets.
    pub d: Vec<SVector<f64, OUTPUTS>>,
}

impl PatternSet {
    /// Checks the rows (one ordering; the root row first and only there;
    /// no child on the PV path; every value in its range) and scales them.
    /// `name` is the file name for messages; row numbers count the header
    /// as line 1.
    pub fn new(rows: &[PatternRow], name: &str) -> Result<PatternSet> {
        let Some(first) = rows.first() else { return Err(TrainError::BadPatterns(format!("no patterns in {name}"))) };
        let trained_for = TrainedFor { model: first.model, b: first.b, wa: first.wa, wb: first.wb };
        // Games and incremental trees have no ordering weights.
        let game = !first.model.has_weights();
        require!(
            if game { first.wa.is_none() && first.wb.is_none() } else { first.wa.is_some() && first.wb.is_some() },
            TrainError::BadPatterns,
            "{} patterns {} wa and wb ({name}:2)",
            first.model,
            if game { "must leave empty" } else { "need" }
        );
        if let (false, Some(wa), Some(wb)) = (game, first.wa, first.wb) {
            // The weights file's loader checks the ordering: a network it
            // would refuse is not worth training.
            crate::tree::artificial::Ordering::new(first.b, wa, wb).map_err(|e| TrainError::BadPatterns(format!("{e} ({name}:2)")))?;
        }
        let (inputs, outputs) = nn::ranges(first.b)?;
        let b = first.b as f64;
        // The same (parent, child) pair twice would count twice in every
        // iteration: trainset writes each once.
        let mut seen: std::collections::HashMap<(u32, &str, u32), usize> = std::collections::HashMap::new();
        require!(
            first.level == 0,
            TrainError::BadPatterns,
            "the first row of {name} must be the root row (level 0) that carries the root type; is this a trainset file? ({name}:2)"
        );
        // The parent addresses' width: trainset writes depth - 1 moves in each.
        let width = rows.get(1).map_or(0, |r| r.parent.split('.').count());
        let mut x = Vec::with_capacity(rows.len());
        let mut d = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate() {
            let at = format!("({name}:{})", i + 2);
            let rf = TrainedFor { model: r.model, b: r.b, wa: r.wa, wb: r.wb };
            require!(rf == trained_for, TrainError::BadPatterns, "patterns of two orderings in one file: {rf} after {trained_for} {at}");
            require!(r.pv <= 1, TrainError::BadPatterns, "pv must be 0 or 1, got {} {at}", r.pv);
            let in_type = |v: f64, what: &str| -> Result<()> {
                require!(v.is_finite() && (0.0..=100.0).contains(&v), TrainError::BadPatterns, "{what} {v} is outside the type range [0, 100] {at}");
                Ok(())
            };
            in_type(r.ty, "type")?;
            in_type(r.child_type, "child_type")?;
            require!(
                r.child_wait.is_finite() && (0.0..=b).contains(&r.child_wait),
                TrainError::BadPatterns,
                "child_wait {} is outside [0, b = {}] {at}",
                r.child_wait,
                r.b
            );
            require!(r.count >= 1, TrainError::BadPatterns, "count must be at least 1 {at}");
            if let Some(first) = seen.insert((r.level, r.parent.as_str(), r.index), i + 2) {
                return Err(TrainError::BadPatterns(format!(
                    "the pattern of level {}, parent `{}`, index {} repeats line {first}: give each pattern once {at}",
                    r.level,
                    crate::cli::excerpt(&r.parent),
                    r.index
                )));
            }
            if i == 0 {
                require!(r.parent.is_empty(), TrainError::BadPatterns, "the root row's parent must be empty, got `{}` {at}", crate::cli::excerpt(&r.parent));
                continue;
            }
            require!(r.level >= 1, TrainError::BadPatterns, "only the first row may be the root row (level 0) {at}");
            check_parent(r, width, &at)?;
            require!((1..=r.b).contains(&r.index), TrainError::BadPatterns, "index {} is outside [1, b = {}] {at}", r.index, r.b);
            // A PV parent's first child is on the PV path: trainset no longer
            // writes that pattern (`docs/decisions.md`, "Classification"), so a file with one is from an
            // older trainset and would train another network.
            require!(
                !(r.pv == 1 && r.index == 1),
                TrainError::BadPatterns,
                "a pattern whose child is on the PV path (pv 1, index 1): this file is from an older trainset; rerun trainset to write the current training set {at}"
            );
            x.push(SVector::<f64, { INPUTS + 1 }>::new(inputs[0].scale(r.pv as f64), inputs[1].scale(r.ty), inputs[2].scale(r.index as f64), 1.0));
            d.push(SVector::<f64, OUTPUTS>::new(outputs[0].scale(r.child_type), outputs[1].scale(r.child_wait)));
        }
        require!(!x.is_empty(), TrainError::BadPatterns, "{name} has the root row but no patterns");
        Ok(PatternSet { trained_for, root_type: first.child_type, root_wait: first.child_wait, x, d })
    }

    /// The patterns as plain arrays, the training loop's layout.
    pub fn arrays(&self) -> (Vec<[f64; INPUTS + 1]>, Vec<[f64; OUTPUTS]>) {
        (self.x.iter().map(|x| (*x).into()).collect(), self.d.iter().map(|d| (*d).into()).collect())
    }

    /// Number of patterns (the root row not counted).
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are no patterns.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
}

/// Checks a pattern's level and parent address against the file's address
/// `width` (trainset writes `p_1.p_2...`, depth - 1 moves: the parent's
/// moves from the root, each in 1..b, then zeros for the levels below it).
/// `at` is the row's `(file:line)`.
fn check_parent(r: &PatternRow, width: usize, at: &str) -> Result<()> {
    let parent = crate::cli::excerpt(&r.parent);
    let moves: Vec<u32> = match r.parent.split('.').map(str::parse).collect() {
        Ok(m) => m,
        Err(_) => {
            return Err(TrainError::BadPatterns(format!(
                "parent `{parent}` is not an address p_1.p_2... of move numbers (trainset writes `0.0` for the root's children at depth 3) {at}"
            )));
        }
    };
    require!(
        moves.len() == width,
        TrainError::BadPatterns,
        "parent `{parent}` has {} moves where the first pattern's has {width} (one depth per file) {at}",
        moves.len()
    );
    require!(
        (1..=width as u32).contains(&r.level),
        TrainError::BadPatterns,
        "level {} is outside [1, {width}] (the parent addresses have {width} moves: trees of depth {}) {at}",
        r.level,
        width + 1
    );
    let up = r.level as usize - 1;
    require!(
        moves[..up].iter().all(|m| (1..=r.b).contains(m)) && moves[up..].iter().all(|&m| m == 0),
        TrainError::BadPatterns,
        "parent `{parent}` of a level-{} child must have {up} moves in 1..{} and then zeros {at}",
        r.level,
        r.b
    );
    Ok(())
}

/// Training settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainSettings {
    /// Seed of the ChaCha8 generator.
    pub seed: u64,
    /// Iterations.
    pub iterations: u32,
    /// Learning rate.
    pub eta: f64,
    /// Initial weights uniform in `[-init, init]`.
    pub init: f64,
    /// Shuffle the patterns before every iteration.
    pub shuffle: bool,
    /// Record the learning curve every this many iterations (and at the end).
    pub curve_every: u32,
}

impl TrainSettings {
    /// The thesis's settings: 10,000 iterations, eta = 0.1; ours: weights
    /// in [-0.5, 0.5], shuffled every iteration.
    pub fn thesis(seed: u64) -> TrainSettings {
        TrainSettings { seed, iterations: 10_000, eta: 0.1, init: 0.5, shuffle: true, curve_every: 10 }
    }

    /// Checks the settings.
    pub fn check(&self) -> Result<()> {
        require!(self.eta.is_finite() && self.eta > 0.0, TrainError::BadSettings, "eta must be a positive number, got {}", self.eta);
        require!(self.init.is_finite() && self.init >= 0.0, TrainError::BadSettings, "init must be a non-negative number, got {}", self.init);
        require!(self.curve_every >= 1, TrainError::BadSettings, "the curve interval must be at least 1");
        Ok(())
    }
}

/// A uniform number in `[0, 1)` from the top 53 bits of one draw.
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The untrained network: weights from the seeded generator.
pub fn initial(set: &PatternSet, cfg: &TrainSettings, rng: &mut ChaCha8Rng) -> Result<Network> {
    let mut draw = || cfg.init * (2.0 * unit(rng) - 1.0);
    let mut wh = HiddenWeights::zeros();
    for r in 0..HIDDEN {
        for c in 0..INPUTS + 1 {
            wh[(r, c)] = draw();
        }
    }
    let mut wo = OutputWeights::zeros();
    for r in 0..OUTPUTS {
        for c in 0..HIDDEN + 1 {
            wo[(r, c)] = draw();
        }
    }
    let training = Training {
        rng: "ChaCha8".into(),
        seed: cfg.seed,
        init: cfg.init,
        iterations: cfg.iterations,
        eta: cfg.eta,
        shuffle: cfg.shuffle,
        patterns: set.len() as u64,
    };
    Ok(Network::new(wh, wo, set.trained_for, set.root_type, training)?.with_root_wait(set.root_wait))
}

/// The errors of `net` over the set, in the outputs' own units.
pub fn errors(net: &Network, set: &PatternSet) -> Errors {
    let (xs, ds) = set.arrays();
    errors_of(&Flat::of(net), net, &xs, &ds)
}

/// [`errors`] for weights `flat` (the rest of `net`: the output ranges).
fn errors_of(flat: &Flat, net: &Network, xs: &[[f64; INPUTS + 1]], ds: &[[f64; OUTPUTS]]) -> Errors {
    let sum = flat.squared_errors(xs, ds);
    let n = xs.len().max(1) as f64;
    let u0 = net.outputs[0].units();
    let u1 = net.outputs[1].units();
    Errors { e_type: sum[0] / (2.0 * n) * u0 * u0, e_wait: sum[1] / (2.0 * n) * u1 * u1 }
}

/// Trains a network; `progress(iteration, errors)` is called at every curve
/// point. Returns the network (final errors filled in) and the curve.
pub fn train(set: &PatternSet, cfg: &TrainSettings, mut progress: impl FnMut(u32, &Errors)) -> Result<(Network, Vec<CurveRow>)> {
    cfg.check()?;
    if set.is_empty() {
        return Err(TrainError::NoPatterns);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut net = initial(set, cfg, &mut rng)?;
    let mut curve = vec![];
    let (xs, ds) = set.arrays();
    let mut flat = Flat::of(&net);
    let mut record = |it: u32, flat: &Flat, curve: &mut Vec<CurveRow>| {
        let e = errors_of(flat, &net, &xs, &ds);
        progress(it, &e);
        curve.push(CurveRow { iteration: it, e_type: e.e_type, e_wait: e.e_wait });
    };
    record(0, &flat, &mut curve);
    // The patterns in presentation order, shuffled in place: the same
    // Fisher-Yates swaps applied to an index array and then a gather would
    // give the same order, with a second pass of scattered reads.
    let (mut bx, mut bd) = (xs.clone(), ds.clone());
    for it in 1..=cfg.iterations {
        if cfg.shuffle {
            for i in (1..bx.len()).rev() {
                let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
                bx.swap(i, j);
                bd.swap(i, j);
            }
        }
        flat.iteration(&bx, &bd, cfg.eta);
        if it % cfg.curve_every == 0 || it == cfg.iterations {
            record(it, &flat, &mut curve);
        }
    }
    flat.store(&mut net);
    net.errors = errors(&net, set);
    // A diverged training (too large an eta or init) is an error, not a
    // weights file full of nulls.
    let finite = net.wh.iter().chain(net.wo.iter()).all(|w| w.is_finite())
        && net.errors.e_type.is_finite()
        && net.errors.e_wait.is_finite()
        && curve.iter().all(|c| c.e_type.is_finite() && c.e_wait.is_finite());
    if !finite {
        return Err(TrainError::Diverged(set.trained_for));
    }
    Ok((net, curve))
}

/// Trains one network per set on all worker threads; results in input
/// order. On-line training is serial within a network, so the networks are
/// the unit of work: each worker takes the largest set not yet started
/// (longest job first), which keeps two cores busy to the end when one
/// ordering has as many patterns as the other four together.
/// `progress(set index, iteration, errors)` as in [`train`].
pub fn train_many(sets: &[PatternSet], cfg: &TrainSettings, progress: impl Fn(usize, u32, &Errors) + Sync) -> Result<Vec<Trained>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut jobs: Vec<usize> = (0..sets.len()).collect();
    jobs.sort_by_key(|&i| std::cmp::Reverse(sets[i].len()));
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<Trained>>>> = sets.iter().map(|_| Mutex::new(None)).collect();
    let workers = rayon::current_num_threads().min(sets.len()).max(1);
    rayon::scope(|s| {
        for _ in 0..workers {
            s.spawn(|_| {
                loop {
                    let j = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&i) = jobs.get(j) else { break };
                    let r = train(&sets[i], cfg, |it, e| progress(i, it, e));
                    if let Ok(mut slot) = results[i].lock() {
                        *slot = Some(r);
                    }
                }
            });
        }
    });
    results.into_iter().map(|m| m.into_inner().ok().flatten().unwrap_or(Err(TrainError::Unfinished))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::artificial::Model;

    fn row(level: u32, pv: u8, ty: f64, index: u32, child_type: f64, child_wait: f64) -> PatternRow {
        PatternRow {
            model: Model::Exponential.into(),
            b: 4,
            wa: Some(70),
            wb: Some(10),
            level,
            // Depth-4 addresses: the root; its child 2; that one's child 1.
            parent: ["", "0.0.0", "2.0.0", "2.1.0"][level.min(3) as usize].to_string(),
            pv,
            ty,
            index,
            child_type,
            child_wait,
            count: 3,
        }
    }

    /// A root row and eight patterns: the PV root's children 2..4 (type
    /// 50) and their children 1..4 (100 for the first, else 50), in no
    /// particular order. The root's first child, on the PV path, gives none.
    fn rows() -> Vec<PatternRow> {
        let mut v = vec![row(0, 1, 0.0, 0, 0.0, 2.0)];
        for i in 1..=4 {
            if i > 1 {
                v.push(row(1, 1, 0.0, i, 50.0, 1.0));
            }
            v.push(row(2, 0, 50.0, i, if i == 1 { 100.0 } else { 50.0 }, 1.0 + i as f64 / 2.0));
        }
        v.push(row(3, 0, 100.0, 2, 0.0, 0.5));
        v
    }

    #[test]
    fn training_lowers_the_error_and_is_deterministic() {
        let set = PatternSet::new(&rows(), "t").unwrap();
        assert_eq!(set.len(), 8);
        assert_eq!((set.root_type, set.root_wait), (0.0, 2.0));
        let cfg = TrainSettings { iterations: 30000, curve_every: 10000, ..TrainSettings::thesis(7) };
        let (a, curve) = train(&set, &cfg, |_, _| {}).unwrap();
        let (b, _) = train(&set, &cfg, |_, _| {}).unwrap();
        assert_eq!(a, b);
        assert_eq!(curve.iter().map(|c| c.iteration).collect::<Vec<_>>(), vec![0, 10000, 20000, 30000]);
        assert!(curve[3].e_type < curve[0].e_type / 10.0, "{curve:?}");
        assert_eq!(a.errors.e_type, curve[3].e_type);
        let (c, _) = train(&set, &TrainSettings { seed: 8, ..cfg }, |_, _| {}).unwrap();
        assert_ne!(a.wh, c.wh);
        let (s, _) = train(&set, &TrainSettings { shuffle: false, ..cfg }, |_, _| {}).unwrap();
        assert_ne!(a.wh, s.wh);
        assert_eq!(a.training.seed, 7);
        assert_eq!(a.training.patterns, 8);
        // It learned the PV parent's later children and the rest; the root's
        // averages travel with it.
        assert!((a.predict(true, 0.0, 3).0 - 50.0).abs() < 10.0);
        assert!((a.predict(false, 50.0, 1).0 - 100.0).abs() < 10.0);
        assert_eq!((a.root_type(), a.root_wait()), (0.0, 2.0));
    }

    #[test]
    fn failures_are_typed_errors() {
        assert!(matches!(PatternSet::new(&[], "t"), Err(TrainError::BadPatterns(m)) if m == "no patterns in t"));
        let mut old = rows();
        old.push(row(1, 1, 0.0, 1, 0.0, 2.0));
        assert!(matches!(PatternSet::new(&old, "t"), Err(TrainError::BadPatterns(m)) if m.contains("older trainset") && m.ends_with("(t:11)")));
        let set = PatternSet::new(&rows(), "t").unwrap();
        let cfg = TrainSettings { iterations: 20, ..TrainSettings::thesis(1) };
        assert!(matches!(train(&set, &TrainSettings { eta: 0.0, ..cfg }, |_, _| {}), Err(TrainError::BadSettings(_))));
        // A learning rate far too large: the weights overflow to infinity.
        let Err(TrainError::Diverged(t)) = train(&set, &TrainSettings { eta: 1e300, ..cfg }, |_, _| {}) else { panic!("not Diverged") };
        assert_eq!(t, set.trained_for);
    }

    #[test]
    fn initial_weights_are_small_and_seeded() {
        let set = PatternSet::new(&rows(), "t").unwrap();
        let cfg = TrainSettings::thesis(1);
        let n = initial(&set, &cfg, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        assert!(n.wh.iter().chain(n.wo.iter()).all(|w| w.abs() <= 0.5));
        assert!(n.wh.iter().any(|w| w.abs() > 0.1));
    }

    #[test]
    fn error_is_in_own_units() {
        let set = PatternSet::new(&rows(), "t").unwrap();
        let n = initial(&set, &TrainSettings::thesis(3), &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        let e = errors(&n, &set);
        let mut et = 0.0;
        for r in &rows()[1..] {
            let (t, _) = n.predict(r.pv == 1, r.ty, r.index);
            et += (r.child_type - t).powi(2) / 2.0;
        }
        assert_eq!(set.len(), 8);
        assert!((e.e_type - et / 8.0).abs() < 1e-9, "{} vs {}", e.e_type, et / 8.0);
    }

    fn bad(f: impl FnOnce(&mut Vec<PatternRow>), needle: &str) {
        let mut r = rows();
        f(&mut r);
        let e = PatternSet::new(&r, "p.csv").unwrap_err().to_string();
        assert!(e.contains(needle), "`{needle}` not in {e}");
    }

    #[test]
    fn bad_patterns_are_refused() {
        bad(|r| r[3].ty = 101.0, "type 101 is outside the type range [0, 100] (p.csv:5)");
        bad(|r| r[2].child_type = -1.0, "child_type -1");
        bad(|r| r[2].child_wait = 5.0, "child_wait 5 is outside [0, b = 4]");
        bad(|r| r[4].index = 5, "index 5");
        bad(|r| r[4].pv = 2, "pv must be 0 or 1");
        bad(|r| r[4].wa = Some(71), "two orderings");
        bad(|r| r[0].wa = None, "need wa and wb");
        bad(
            |r| {
                r.remove(0);
            },
            "must be the root row",
        );
        bad(|r| r[5].level = 0, "only the first row");
        // A version-1-era file: the PV root's first child as a pattern.
        bad(|r| r.insert(1, row(1, 1, 0.0, 1, 0.0, 2.0)), "child is on the PV path (pv 1, index 1): this file is from an older trainset; rerun trainset");
        bad(|r| r.insert(1, row(1, 1, 0.0, 1, 0.0, 2.0)), "(p.csv:3)");
        bad(|r| r.truncate(1), "no patterns");
        bad(|r| r.clear(), "no patterns in p.csv");
    }
}
