//! The thesis's node-classification network (§5.4; `docs/model.md` §3.2): a 3-12-2
//! feed-forward network with logistic units that maps a parent node's
//! `(pv, type, child index)` to the child's `(type, wait)`.
//!
//! Inputs and outputs travel in the variables' own units; the network works in
//! the scaled space `[0.1, 0.9]`. The ranges are stored with the weights, so a
//! network trained for one branching factor carries its own index and wait
//! ranges. Outputs are not clamped: the logistic's `(0, 1)` maps back to a
//! little beyond each range, and scheme C and the simulator see the raw value.
//!
//! Bias weights are the *last column* of each weight matrix: hidden neuron
//! `k` computes `f(sum_j wh[k][j] * x_j + wh[k][3])` over the three scaled
//! inputs, output neuron `k` computes `f(sum_j wo[k][j] * h_j + wo[k][12])`.
//!
//! [`Network`] is what the other tools use: load a weights file
//! ([`Network::load`]), check it against the trees' ordering
//! ([`Network::check_trees`]), and type the nodes with scheme C's rule
//! [`crate::classify::nn_node`]: an N-PV node takes the root's averaged type
//! and wait ([`Network::root_type`], [`Network::root_wait`]), every other
//! node the network's output ([`Network::predict`]); [`n_type`] applies the
//! classification width `m` of scheme C.

use crate::tree::artificial::{Model, Ordering};
use crate::tree::{Family, TreeKey};

/// Why a network could not be made, read or written.
#[derive(Debug, thiserror::Error)]
pub enum NnError {
    /// A branching factor below 2 (the index range would be empty).
    #[error("the network needs a branching factor of at least 2 (the index range is [1, b]), got b = {0}")]
    BranchingTooSmall(u32),
    /// The weights file cannot be read.
    #[error("cannot read weights file {path}")]
    Read {
        /// The file.
        path: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The weights file was read but is not a valid one.
    #[error("bad weights file {path}")]
    BadFile {
        /// The file.
        path: String,
        /// What is wrong with it.
        #[source]
        source: Box<NnError>,
    },
    /// Not JSON at all.
    #[error("not valid JSON ({0}); truncated or corrupted?")]
    NotJson(String),
    /// Another kind of file, or a version this build does not read.
    #[error("{0}")]
    NotWeights(String),
    /// A version-1 file, from before N-PV nodes kept the root's type.
    #[error(
        "version 1 is from an older trainset: that network was trained with the PV path's own patterns, which scheme C no longer uses, and has no root wait; retrain it (trainset, then nntrain) to get version {VERSION}"
    )]
    Version1,
    /// A field outside its allowed form or range (the message names it).
    #[error("{0}")]
    Invalid(String),
    /// A network of another model or ordering than the trees.
    #[error("the network was trained for {trained} but the trees are {trees}; use the network of that ordering (or --force)")]
    WrongOrdering {
        /// What the network was trained for.
        trained: String,
        /// The trees' model and ordering.
        trees: String,
    },
    /// Two weights files for one model and ordering: which one a tool used
    /// would depend on the order of the options.
    #[error("--weights {first} and {second} are both trained for {trained}: give one network per ordering")]
    TrainedTwice {
        /// The first file.
        first: String,
        /// The second file.
        second: String,
        /// What both were trained for.
        trained: String,
    },
    /// Weights that are not finite numbers cannot be written.
    #[error("the weights are not finite numbers (training diverged?)")]
    NotFinite,
}

/// A network's result.
pub type Result<T> = std::result::Result<T, NnError>;

/// Returns [`NnError::Invalid`] with the message unless the condition holds.
macro_rules! valid {
    ($cond:expr, $($msg:tt)*) => {
        if !$cond {
            return Err(NnError::Invalid(format!($($msg)*)));
        }
    };
}
use nalgebra::{SMatrix, SVector};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Format name written in every weights file.
pub const FORMAT: &str = "parab-nn-weights";
/// The weights-file version this build reads and writes. Version 2: the training set leaves out the PV path's own patterns, and the file
/// carries the root's averaged wait (`root_wait`). A version-1 network was
/// trained on those patterns, so it is refused rather than mixed in.
pub const VERSION: u32 = 2;
/// Inputs (pv, type, index), without the bias.
pub const INPUTS: usize = 3;
/// Hidden neurons, without the bias neuron.
pub const HIDDEN: usize = 12;
/// Outputs (type, wait).
pub const OUTPUTS: usize = 2;
/// The scaled space every variable is mapped into.
pub const SCALED: (f64, f64) = (0.1, 0.9);
/// The range of node types.
pub const TYPE_RANGE: (f64, f64) = (0.0, 100.0);

/// Weights into the hidden layer: row k = hidden neuron k; columns = the
/// three inputs, then the bias.
pub type HiddenWeights = SMatrix<f64, HIDDEN, { INPUTS + 1 }>;
/// Weights into the output layer: row k = output k; columns = the twelve
/// hidden neurons, then the bias.
pub type OutputWeights = SMatrix<f64, OUTPUTS, { HIDDEN + 1 }>;

/// The logistic function.
#[inline(always)]
pub fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + exp(-x))
}

/// `e^x` to a few units in the last place, in plain IEEE arithmetic:
/// `x = k ln 2 + r` with `|r| <= ln 2 / 2`, a degree-12 Taylor polynomial for
/// `e^r`, and `2^k` put into the exponent bits. Training evaluates the
/// logistic 14 times per pattern, hundreds of millions of times; a libm call
/// each time was most of the cost, and plain arithmetic also gives the same
/// bits on every platform.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    // ln 2 split in two (fdlibm's constants): k * LN2_HI is exact.
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    // Adding and subtracting 1.5 * 2^52 rounds to the nearest integer.
    const ROUND: f64 = 6_755_399_441_055_744.0;
    let kr = x * std::f64::consts::LOG2_E + ROUND;
    let k = kr - ROUND;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    // Estrin's scheme: on-line training is one long chain of dependent
    // steps, so the polynomial's depth (not its operation count) sets the speed.
    const C: [f64; 13] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5_040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
    ];
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let q0 = (C[0] + C[1] * r) + (C[2] + C[3] * r) * r2;
    let q1 = (C[4] + C[5] * r) + (C[6] + C[7] * r) * r2;
    let q2 = (C[8] + C[9] * r) + (C[10] + C[11] * r) * r2;
    let p = (q0 + q1 * r4) + (q2 + C[12] * r4) * r8;
    // The low bits of `kr` hold k in two's complement; shifting `k + 1023`
    // into the exponent field gives 2^k without a float-to-int conversion,
    // which keeps the function vectorizable.
    // k is clamped to the normal exponents here, beside the polynomial
    // rather than in front of it (the clamp used to sit on the training's
    // critical path): beyond |x| = 708 the result saturates at 2^1023 or
    // 2^-1022 times e^r instead of overflowing, which the logistic does not
    // see. Valid for |x| < 2^51, far beyond any weighted sum of the network.
    // Plain comparisons, not `clamp`: they compile to vector min/max.
    let kc = if kr < ROUND - 1022.0 { ROUND - 1022.0 } else { kr };
    let kc = if kc > ROUND + 1023.0 { ROUND + 1023.0 } else { kc };
    let scale = f64::from_bits(kc.to_bits().wrapping_add(1023) << 52);
    p * scale
}

/// A variable's range in its own units, mapped linearly onto [`SCALED`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    /// The variable's name (`pv`, `type`, `index`, `wait`).
    pub name: String,
    /// Maps to 0.1.
    pub min: f64,
    /// Maps to 0.9.
    pub max: f64,
}

impl Range {
    fn new(name: &str, min: f64, max: f64) -> Range {
        Range { name: name.into(), min, max }
    }
    /// Own units to scaled space.
    #[inline(always)]
    pub fn scale(&self, x: f64) -> f64 {
        SCALED.0 + (SCALED.1 - SCALED.0) * (x - self.min) / (self.max - self.min)
    }
    /// Scaled space to own units.
    #[inline(always)]
    pub fn unscale(&self, y: f64) -> f64 {
        self.min + (y - SCALED.0) / (SCALED.1 - SCALED.0) * (self.max - self.min)
    }
    /// Own units per scaled unit.
    pub fn units(&self) -> f64 {
        (self.max - self.min) / (SCALED.1 - SCALED.0)
    }
}

/// The trees a network was trained for: an artificial model and ordering,
/// or a game (whose `b` is only the index range: the most moves at a node
/// of its training trees).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainedFor {
    /// Tree model, or the game.
    pub model: Family,
    /// Branching factor (a game: the index and wait range).
    pub b: u32,
    /// w_a (artificial trees only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wa: Option<u32>,
    /// w_b (artificial trees only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wb: Option<u32>,
}

impl TrainedFor {
    /// Artificial trees of `model` and ordering `o`.
    pub fn artificial(model: Model, o: Ordering) -> TrainedFor {
        TrainedFor { model: model.into(), b: o.b, wa: Some(o.wa), wb: Some(o.wb) }
    }

    /// The ordering, for artificial trees.
    pub fn ordering(&self) -> Option<Ordering> {
        Some(Ordering { b: self.b, wa: self.wa?, wb: self.wb? })
    }

    /// The stem of the network's files: `<b>-<wa>-<wb>`, or the game's name.
    pub fn key(&self) -> String {
        match (self.model.has_weights(), self.wa, self.wb) {
            (true, Some(wa), Some(wb)) => format!("{}-{wa}-{wb}", self.b),
            _ => self.model.name().to_string(),
        }
    }

    /// Whether trees of group `key` are the ones the network was trained
    /// for: the family, and what of the group's shape a network records: the
    /// ordering where the group has one, else the branching factor where
    /// every node has the same (the network's index range; an incremental
    /// tree's edge scale is not recorded), else nothing (a game).
    pub fn fits(&self, key: &TreeKey) -> bool {
        self.model == key.family()
            && match (key.ordering(), key.b()) {
                (Some(o), _) => self.ordering() == Some(o),
                (None, Some(b)) => self.b == b,
                (None, None) => true,
            }
    }
}

impl std::fmt::Display for TrainedFor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.ordering() {
            Some(o) if self.model.has_weights() => write!(f, "{} ({o})", self.model.name()),
            None if self.model == Family::Incremental => write!(f, "incremental (b {})", self.b),
            _ => write!(f, "{}", self.model.name()),
        }
    }
}

/// How a network was trained (recorded for the reader; not used to predict).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Training {
    /// The generator of the initial weights (and of the shuffle).
    pub rng: String,
    /// Its seed.
    pub seed: u64,
    /// Initial weights are uniform in `[-init, init]`.
    pub init: f64,
    /// Iterations (each presents every pattern once).
    pub iterations: u32,
    /// Learning rate.
    pub eta: f64,
    /// Whether the pattern order was shuffled every iteration.
    pub shuffle: bool,
    /// Number of training patterns.
    pub patterns: u64,
}

/// Final training errors, `E_k = mean((d_k - o_k)^2 / 2)` in the output's own
/// units (type units, moves).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Errors {
    /// E_type.
    pub e_type: f64,
    /// E_wait.
    pub e_wait: f64,
}

/// The weights file, as stored (`docs/formats.md`). [`Network::from_file`]
/// validates it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightsFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// `[3, 12, 2]`: inputs, hidden neurons, outputs (biases not counted).
    pub layers: Vec<usize>,
    /// Always `logistic`.
    pub activation: String,
    /// Always `[0.1, 0.9]`.
    pub scaled: [f64; 2],
    /// Where the bias weight sits in each row: always `last`.
    pub bias: String,
    /// Input ranges: pv, type, index.
    pub inputs: Vec<Range>,
    /// Output ranges: type, wait.
    pub outputs: Vec<Range>,
    /// 12 rows of 4: weights into hidden neuron k from pv, type, index, bias.
    pub hidden_weights: Vec<Vec<f64>>,
    /// 2 rows of 13: weights into output k from hidden 1..12, bias.
    pub output_weights: Vec<Vec<f64>>,
    /// The averaged type of the root: every N-PV node's type in scheme C.
    pub root_type: f64,
    /// The averaged wait of the root: every N-PV node's wait in the simulator.
    pub root_wait: f64,
    /// The ordering the network was trained for.
    pub ordering: TrainedFor,
    /// The training settings.
    pub training: Training,
    /// The final errors.
    pub errors: Errors,
}

/// A checked network, ready to predict.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// Weights into the hidden layer (bias last).
    pub wh: HiddenWeights,
    /// Weights into the outputs (bias last).
    pub wo: OutputWeights,
    /// Input ranges: pv, type, index.
    pub inputs: [Range; INPUTS],
    /// Output ranges: type, wait.
    pub outputs: [Range; OUTPUTS],
    /// Averaged root type.
    pub root_type: f64,
    /// Averaged root wait.
    pub root_wait: f64,
    /// The ordering it was trained for.
    pub trained_for: TrainedFor,
    /// Training settings.
    pub training: Training,
    /// Final errors.
    pub errors: Errors,
}

/// Activations of one forward pass, in scaled space.
#[derive(Clone, Copy, Debug)]
pub struct Forward {
    /// Scaled inputs, bias (1) last.
    pub x: SVector<f64, { INPUTS + 1 }>,
    /// Hidden outputs, bias neuron (1) last.
    pub h: SVector<f64, { HIDDEN + 1 }>,
    /// Outputs.
    pub o: SVector<f64, OUTPUTS>,
}

/// The standard ranges for branching factor `b`: pv {0,1}, type `[0,100]`,
/// index `[1,b]`; outputs type `[0,100]`, wait `[0,b]`.
pub fn ranges(b: u32) -> Result<([Range; INPUTS], [Range; OUTPUTS])> {
    if b < 2 {
        return Err(NnError::BranchingTooSmall(b));
    }
    let b = b as f64;
    Ok((
        [Range::new("pv", 0.0, 1.0), Range::new("type", TYPE_RANGE.0, TYPE_RANGE.1), Range::new("index", 1.0, b)],
        [Range::new("type", TYPE_RANGE.0, TYPE_RANGE.1), Range::new("wait", 0.0, b)],
    ))
}

impl Network {
    /// A network with the given weights and the standard ranges for the
    /// ordering; training fields are filled in by the trainer. The root's
    /// wait is 0 until [`Network::with_root_wait`] sets it.
    pub fn new(wh: HiddenWeights, wo: OutputWeights, trained_for: TrainedFor, root_type: f64, training: Training) -> Result<Network> {
        let (inputs, outputs) = ranges(trained_for.b)?;
        Ok(Network { wh, wo, inputs, outputs, root_type, root_wait: 0.0, trained_for, training, errors: Errors { e_type: f64::NAN, e_wait: f64::NAN } })
    }

    /// The network with the root's averaged wait set.
    pub fn with_root_wait(self, root_wait: f64) -> Network {
        Network { root_wait, ..self }
    }

    /// Reads and validates a weights file.
    pub fn load(path: &Path) -> Result<Network> {
        let text = std::fs::read_to_string(path).map_err(|source| NnError::Read { path: path.display().to_string(), source })?;
        Network::from_json(crate::cli::strip_bom(&text)).map_err(|e| NnError::BadFile { path: path.display().to_string(), source: Box::new(e) })
    }

    /// Reads the weights files of a tool's `--weights` options, each with
    /// its name; two files trained for the same model and ordering are refused.
    pub fn load_each(paths: &[std::path::PathBuf]) -> Result<Vec<(String, Network)>> {
        let mut nets: Vec<(String, Network)> = vec![];
        for p in paths {
            let net = Network::load(p)?;
            if let Some((first, _)) = nets.iter().find(|(_, n)| n.trained_for == net.trained_for) {
                return Err(NnError::TrainedTwice { first: first.clone(), second: p.display().to_string(), trained: net.trained_for.to_string() });
            }
            nets.push((p.display().to_string(), net));
        }
        Ok(nets)
    }

    /// Parses and validates the JSON of a weights file.
    pub fn from_json(text: &str) -> Result<Network> {
        // Look at format and version first, so a file of another kind or a
        // newer version gets that message rather than a missing-field one.
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| NnError::NotJson(e.to_string()))?;
        match v.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => return Err(NnError::NotWeights(format!("format is `{other}`, expected `{FORMAT}`"))),
            None => return Err(NnError::NotWeights(format!("no `format` field: not a {FORMAT} file"))),
        }
        match v.get("version").and_then(|f| f.as_u64()) {
            Some(x) if x == VERSION as u64 => {}
            Some(1) => return Err(NnError::Version1),
            Some(x) => return Err(NnError::NotWeights(format!("unknown version {x} (this build reads version {VERSION})"))),
            None => return Err(NnError::NotWeights("no numeric `version` field".into())),
        }
        // JSON has no NaN or infinity: another program writes them as null or
        // strings. Name the weight rather than serde's bare type error.
        for key in ["hidden_weights", "output_weights"] {
            for (i, row) in v.get(key).and_then(|m| m.as_array()).into_iter().flatten().enumerate() {
                for (j, w) in row.as_array().into_iter().flatten().enumerate() {
                    valid!(w.is_number(), "{key}: weight [{}][{}] is `{w}`, not a finite number", i + 1, j + 1);
                }
            }
        }
        // Straight into the types, not from the `Value` above: a `Value`
        // keeps the last of a key given twice, the derived reader refuses it.
        let file: WeightsFile = serde_json::from_str(text).map_err(|e| NnError::Invalid(e.to_string()))?;
        Network::from_file(&file)
    }

    /// Validates a parsed weights file.
    pub fn from_file(f: &WeightsFile) -> Result<Network> {
        valid!(f.format == FORMAT, "format is `{}`, expected `{FORMAT}`", f.format);
        valid!(f.version == VERSION, "unknown version {} (this build reads version {VERSION})", f.version);
        valid!(f.layers == [INPUTS, HIDDEN, OUTPUTS], "layer sizes {:?}, expected [{INPUTS}, {HIDDEN}, {OUTPUTS}]", f.layers);
        valid!(f.activation == "logistic", "activation `{}`, expected `logistic`", f.activation);
        valid!(f.scaled == [SCALED.0, SCALED.1], "scaled range {:?}, expected [{}, {}]", f.scaled, SCALED.0, SCALED.1);
        valid!(f.bias == "last", "bias position `{}`, expected `last`", f.bias);
        let inputs = check_ranges("inputs", &f.inputs, &["pv", "type", "index"])?;
        let outputs = check_ranges("outputs", &f.outputs, &["type", "wait"])?;
        let wh = HiddenWeights::from_row_iterator(check_matrix("hidden_weights", &f.hidden_weights, HIDDEN, INPUTS + 1)?);
        let wo = OutputWeights::from_row_iterator(check_matrix("output_weights", &f.output_weights, OUTPUTS, HIDDEN + 1)?);
        valid!(f.root_type.is_finite(), "root_type is not a finite number");
        valid!(f.root_wait.is_finite(), "root_wait is not a finite number");
        valid!(
            (TYPE_RANGE.0..=TYPE_RANGE.1).contains(&f.root_type),
            "root_type {:?} lies outside the type range [{}, {}]",
            f.root_type,
            TYPE_RANGE.0,
            TYPE_RANGE.1
        );
        let b = f.ordering.b as f64;
        valid!((0.0..=b).contains(&f.root_wait), "root_wait {:?} lies outside the wait range [0, b = {b}]", f.root_wait);
        valid!(
            inputs[2].max == b && outputs[1].max == b,
            "ordering.b is {b} but the index and wait ranges end at {} and {} (they must end at b)",
            inputs[2].max,
            outputs[1].max
        );
        let family = f.ordering.model;
        match (family.has_weights(), f.ordering.wa, f.ordering.wb) {
            (true, Some(wa), Some(wb)) => {
                Ordering::new(f.ordering.b, wa, wb).map_err(|e| NnError::Invalid(format!("bad ordering: {e}")))?;
            }
            (true, _, _) => return Err(NnError::Invalid(format!("ordering of {family} trees without wa and wb"))),
            (false, None, None) => valid!(f.ordering.b >= 2, "ordering.b is {} for {family}: the index range needs b >= 2", f.ordering.b),
            (false, _, _) => return Err(NnError::Invalid(format!("ordering of {family} trees with wa or wb (they have no ordering parameters)"))),
        }
        valid!(f.training.iterations == 0 || f.training.eta.is_finite(), "training.eta is not a finite number");
        valid!(f.errors.e_type.is_finite() && f.errors.e_wait.is_finite(), "errors are not finite numbers");
        Ok(Network {
            wh,
            wo,
            inputs: [inputs[0].clone(), inputs[1].clone(), inputs[2].clone()],
            outputs: [outputs[0].clone(), outputs[1].clone()],
            root_type: f.root_type,
            root_wait: f.root_wait,
            trained_for: f.ordering,
            training: f.training.clone(),
            errors: f.errors,
        })
    }

    /// The file form of the network.
    pub fn to_file(&self) -> WeightsFile {
        WeightsFile {
            format: FORMAT.into(),
            version: VERSION,
            layers: vec![INPUTS, HIDDEN, OUTPUTS],
            activation: "logistic".into(),
            scaled: [SCALED.0, SCALED.1],
            bias: "last".into(),
            inputs: self.inputs.to_vec(),
            outputs: self.outputs.to_vec(),
            hidden_weights: (0..HIDDEN).map(|r| self.wh.row(r).iter().copied().collect()).collect(),
            output_weights: (0..OUTPUTS).map(|r| self.wo.row(r).iter().copied().collect()).collect(),
            root_type: self.root_type,
            root_wait: self.root_wait,
            ordering: self.trained_for,
            training: self.training.clone(),
            errors: self.errors,
        }
    }

    /// The weights file as pretty JSON with a final newline.
    pub fn to_json(&self) -> Result<String> {
        // serde_json writes NaN and infinity as null: never write a non-number.
        if !(self.wh.iter().chain(self.wo.iter()).all(|w| w.is_finite()) && self.root_type.is_finite()) {
            return Err(NnError::NotFinite);
        }
        Ok(serde_json::to_string_pretty(&self.to_file()).map_err(|e| NnError::Invalid(e.to_string()))? + "\n")
    }

    /// Refuses a network trained for another model, ordering or game than
    /// the trees of group `key`.
    pub fn check_trees(&self, key: &TreeKey) -> Result<()> {
        let t = self.trained_for;
        if t.fits(key) {
            Ok(())
        } else {
            let trees = match key.ordering() {
                Some(o) => format!("{} ({o})", key.family()),
                None => key.family().to_string(),
            };
            Err(NnError::WrongOrdering { trained: t.to_string(), trees })
        }
    }

    /// The averaged root type: scheme C's type of every N-PV node.
    pub fn root_type(&self) -> f64 {
        self.root_type
    }

    /// The averaged root wait: the simulator's wait of every N-PV node.
    pub fn root_wait(&self) -> f64 {
        self.root_wait
    }

    /// Scales `(pv, type, index)` into the network's input vector (bias last).
    #[inline(always)]
    pub fn scale_inputs(&self, pv: bool, parent_type: f64, index: f64) -> SVector<f64, { INPUTS + 1 }> {
        SVector::<f64, { INPUTS + 1 }>::new(
            self.inputs[0].scale(if pv { 1.0 } else { 0.0 }),
            self.inputs[1].scale(parent_type),
            self.inputs[2].scale(index),
            1.0,
        )
    }

    /// The forward pass in scaled space.
    #[inline(always)]
    pub fn forward(&self, x: &SVector<f64, { INPUTS + 1 }>) -> Forward {
        let a = self.wh * x;
        let mut h = SVector::<f64, { HIDDEN + 1 }>::repeat(1.0);
        for k in 0..HIDDEN {
            h[k] = logistic(a[k]);
        }
        let o = (self.wo * h).map(logistic);
        Forward { x: *x, h, o }
    }

    /// Predicts a child's `(type, wait)` in own units from its parent's PV
    /// flag and type and the child's 1-based index.
    #[inline]
    pub fn predict(&self, pv: bool, parent_type: f64, index: u32) -> (f64, f64) {
        let f = self.forward(&self.scale_inputs(pv, parent_type, index as f64));
        (self.outputs[0].unscale(f.o[0]), self.outputs[1].unscale(f.o[1]))
    }

    /// The gradient step of one pattern (on-line back-propagation, `docs/model.md` §3.2):
    /// the weight changes *divided by eta*, i.e. minus the gradient of
    /// `sum_k (d_k - o_k)^2 / 2` in scaled space. The hidden deltas use the
    /// output weights before the update.
    #[inline(always)]
    pub fn gradient(&self, x: &SVector<f64, { INPUTS + 1 }>, d: &SVector<f64, OUTPUTS>) -> (HiddenWeights, OutputWeights, Forward) {
        let f = self.forward(x);
        let gamma = (d - f.o).component_mul(&f.o.map(|o| o * (1.0 - o)));
        let dwo = gamma * f.h.transpose();
        let back = self.wo.transpose() * gamma;
        let mut delta = SVector::<f64, HIDDEN>::zeros();
        for k in 0..HIDDEN {
            delta[k] = f.h[k] * (1.0 - f.h[k]) * back[k];
        }
        let dwh = delta * x.transpose();
        (dwh, dwo, f)
    }

    /// One on-line training step on one (scaled) pattern; returns the forward
    /// pass before the update.
    #[inline(always)]
    pub fn train_step(&mut self, x: &SVector<f64, { INPUTS + 1 }>, d: &SVector<f64, OUTPUTS>, eta: f64) -> Forward {
        let (dwh, dwo, f) = self.gradient(x, d);
        self.wh += eta * dwh;
        self.wo += eta * dwo;
        f
    }
}

fn check_ranges(what: &str, rs: &[Range], names: &[&str]) -> Result<Vec<Range>> {
    valid!(rs.len() == names.len(), "{what}: {} ranges, expected {} ({})", rs.len(), names.len(), names.join(", "));
    for (r, n) in rs.iter().zip(names) {
        valid!(r.name == *n, "{what}: range `{}` where `{n}` was expected", r.name);
        valid!(r.min.is_finite() && r.max.is_finite() && r.min < r.max, "{what}: range `{n}` must be finite with min < max, got [{}, {}]", r.min, r.max);
    }
    Ok(rs.to_vec())
}

fn check_matrix(what: &str, m: &[Vec<f64>], rows: usize, cols: usize) -> Result<Vec<f64>> {
    valid!(m.len() == rows, "{what}: {} rows, expected {rows}", m.len());
    let mut out = Vec::with_capacity(rows * cols);
    for (i, row) in m.iter().enumerate() {
        valid!(row.len() == cols, "{what}: row {} has {} weights, expected {cols}", i + 1, row.len());
        for (j, w) in row.iter().enumerate() {
            valid!(w.is_finite(), "{what}: weight [{}][{}] is not a finite number", i + 1, j + 1);
        }
        out.extend_from_slice(row);
    }
    Ok(out)
}

/// A node's class under scheme C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NType {
    /// On the PV path (not classified).
    Pv,
    /// Type within `[50 - m, 50 + m]`: predicted to cut off.
    Cut,
    /// Any other type: predicted to search all moves.
    All,
}

/// Scheme C's rule (`docs/model.md` §4.3): a PV node is N-PV; any other node is
/// N-CUT if its type lies in `[50 - m, 50 + m]`, else N-ALL.
#[inline]
pub fn n_type(pv: bool, node_type: f64, m: f64) -> NType {
    if pv {
        NType::Pv
    } else if is_cut(node_type, m) {
        NType::Cut
    } else {
        NType::All
    }
}

/// Whether a type lies in `[50 - m, 50 + m]`.
#[inline(always)]
pub fn is_cut(node_type: f64, m: f64) -> bool {
    50.0 - m <= node_type && node_type <= 50.0 + m
}

#[cfg(test)]
mod tests;

/// The training hot loop's copy of the weights, one on-line
/// back-propagation step per call: the same arithmetic as
/// [`Network::gradient`] followed by the update (a test holds them equal),
/// laid out so that every loop runs across the twelve hidden neurons and
/// vectorizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flat {
    /// `wh[i][k]`: weight from input i (pv, type, index, bias) into hidden neuron k.
    pub wh: [[f64; HIDDEN]; INPUTS + 1],
    /// `wo[k][j]`: weight from hidden neuron j (bias last) into output k.
    pub wo: [[f64; HIDDEN + 1]; OUTPUTS],
}

impl Flat {
    /// Copies a network's weights.
    pub fn of(net: &Network) -> Flat {
        let mut f = Flat { wh: [[0.0; HIDDEN]; INPUTS + 1], wo: [[0.0; HIDDEN + 1]; OUTPUTS] };
        for (i, col) in f.wh.iter_mut().enumerate() {
            for (k, w) in col.iter_mut().enumerate() {
                *w = net.wh[(k, i)];
            }
        }
        for (r, row) in f.wo.iter_mut().enumerate() {
            for (c, w) in row.iter_mut().enumerate() {
                *w = net.wo[(r, c)];
            }
        }
        f
    }

    /// Writes the weights back into a network.
    pub fn store(&self, net: &mut Network) {
        net.wh = HiddenWeights::from_fn(|k, i| self.wh[i][k]);
        net.wo = OutputWeights::from_fn(|r, c| self.wo[r][c]);
    }

    /// One iteration: a step on every pattern, `xs[i]` with `ds[i]`, in
    /// slice order. The caller lays the patterns out in presentation order:
    /// the steps form one dependent chain, so a pattern fetched from a
    /// random place in memory stalls the whole chain (a gather before the
    /// iteration made training a quarter faster). On x86-64 with AVX2 the
    /// same code is compiled for four-lane vectors; without fused
    /// multiply-add and without reordering any sum, so the bits are those of
    /// the plain build (a test compares them).
    pub fn iteration(&mut self, xs: &[[f64; INPUTS + 1]], ds: &[[f64; OUTPUTS]], eta: f64) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { self.iteration_avx2(xs, ds, eta) };
            return;
        }
        self.iteration_plain(xs, ds, eta);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn iteration_avx2(&mut self, xs: &[[f64; INPUTS + 1]], ds: &[[f64; OUTPUTS]], eta: f64) {
        self.iteration_plain(xs, ds, eta);
    }

    /// [`Flat::iteration`] without the AVX2 build.
    #[inline(always)]
    pub fn iteration_plain(&mut self, xs: &[[f64; INPUTS + 1]], ds: &[[f64; OUTPUTS]], eta: f64) {
        for (x, d) in xs.iter().zip(ds) {
            self.step(x, d, eta);
        }
    }

    /// The sums over the patterns of `(d_k - o_k)^2`, in scaled space, with
    /// the forward pass of [`Flat::step`]. The learning curve evaluates the
    /// whole set every few iterations, so this is vectorized like the step.
    pub fn squared_errors(&self, xs: &[[f64; INPUTS + 1]], ds: &[[f64; OUTPUTS]]) -> [f64; OUTPUTS] {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            return unsafe { self.squared_errors_avx2(xs, ds) };
        }
        self.squared_errors_plain(xs, ds)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn squared_errors_avx2(&self, xs: &[[f64; INPUTS + 1]], ds: &[[f64; OUTPUTS]]) -> [f64; OUTPUTS] {
        self.squared_errors_plain(xs, ds)
    }

    #[inline(always)]
    fn squared_errors_plain(&self, xs: &[[f64; INPUTS + 1]], ds: &[[f64; OUTPUTS]]) -> [f64; OUTPUTS] {
        let mut sum = [0.0; OUTPUTS];
        for (x, d) in xs.iter().zip(ds) {
            let (_, o) = self.forward(x);
            for k in 0..OUTPUTS {
                sum[k] += (d[k] - o[k]) * (d[k] - o[k]);
            }
        }
        sum
    }

    /// The forward pass of [`Flat::step`]: hidden outputs (bias last) and outputs.
    // Index loops over fixed sizes: the form the vectorizer handles best.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    pub fn forward(&self, x: &[f64; INPUTS + 1]) -> ([f64; HIDDEN + 1], [f64; OUTPUTS]) {
        let w = &self.wh;
        let mut h = [1.0; HIDDEN + 1];
        for k in 0..HIDDEN {
            // Summed pairwise, as everywhere on the chain from one pattern to the next.
            h[k] = logistic((w[0][k] * x[0] + w[1][k] * x[1]) + (w[2][k] * x[2] + w[3][k] * x[3]));
        }
        // Plain loops, not `array::from_fn`: its closure is not inlined into
        // the AVX2 build, and the call cost a quarter of the training time.
        let mut o = [0.0; OUTPUTS];
        for k in 0..OUTPUTS {
            // A pairwise sum: shallower than a running sum on the critical path.
            let w = &self.wo[k];
            let mut p = [0.0; 6];
            for j in 0..6 {
                p[j] = w[2 * j] * h[2 * j] + w[2 * j + 1] * h[2 * j + 1];
            }
            o[k] = logistic(((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + w[12] * h[12]));
        }
        (h, o)
    }

    /// One on-line step on scaled input `x` (bias last) and target `d`.
    // Index loops over fixed sizes: the form the vectorizer handles best.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    pub fn step(&mut self, x: &[f64; INPUTS + 1], d: &[f64; OUTPUTS], eta: f64) {
        let (h, o) = self.forward(x);
        // Everything that does not need the outputs is computed beside the
        // chain from this step's outputs to the next step's hidden weights:
        // eta times the inputs, and h (1 - h) times the output weights.
        let mut ex = [0.0; INPUTS + 1];
        for i in 0..=INPUTS {
            ex[i] = eta * x[i];
        }
        let mut a = [[0.0; HIDDEN]; OUTPUTS];
        for k in 0..OUTPUTS {
            for j in 0..HIDDEN {
                a[k][j] = h[j] * (1.0 - h[j]) * self.wo[k][j];
            }
        }
        let mut gamma = [0.0; OUTPUTS];
        for k in 0..OUTPUTS {
            gamma[k] = (d[k] - o[k]) * (o[k] * (1.0 - o[k]));
        }
        let mut delta = [0.0; HIDDEN];
        for j in 0..HIDDEN {
            delta[j] = a[0][j] * gamma[0] + a[1][j] * gamma[1];
        }
        for k in 0..OUTPUTS {
            let g = eta * gamma[k];
            for j in 0..=HIDDEN {
                self.wo[k][j] += g * h[j];
            }
        }
        for (i, col) in self.wh.iter_mut().enumerate() {
            for k in 0..HIDDEN {
                col[k] += delta[k] * ex[i];
            }
        }
    }
}
