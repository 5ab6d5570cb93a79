//! The CSV formats: the checked reader ([`read_csv`]) and one serde row
//! type per table the tools write (documented for users in
//! `docs/formats.md`, one section per tool).

use super::*;
use crate::macros::row;

/// Columns renamed since rows were first written, `(old, new)`: a file with
/// the old name is read as if it had the new one (`docs/formats.md`,
/// "Renamed columns").
pub const RENAMED_COLUMNS: [(&str, &str); 1] = [("thread_algorithm", "thread_policy")];

/// Reads CSV rows of `T`: the header must name every field of `T` and no
/// other column (checked on line 1, before any row; a column of
/// [`RENAMED_COLUMNS`] by either name); errors name `file:line` and, for a
/// bad value, the column.
pub fn read_csv<T: DeserializeOwned>(input: Input) -> Result<Vec<T>> {
    let name = input.name.clone();
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(input.reader);
    let mut header: Vec<String> = rdr.headers().map_err(|e| csv_error(&name, &[], e))?.iter().map(str::to_string).collect();
    if header.iter().any(|h| RENAMED_COLUMNS.iter().any(|(old, _)| h == old)) {
        header = header.into_iter().map(|h| RENAMED_COLUMNS.iter().find(|(old, _)| *old == h).map_or(h, |(_, new)| new.to_string())).collect();
        rdr.set_headers(csv::StringRecord::from(header.clone()));
    }
    let bad = |message: String| FormatError::Csv { name: name.clone(), line: 1, message };
    // An empty input has no rows; its reader says whether that is an error.
    if header.iter().all(|h| h.trim().is_empty()) {
        return Ok(vec![]);
    }
    let fields = struct_fields::<T>();
    if !fields.is_empty() {
        for (i, h) in header.iter().enumerate() {
            if !fields.contains(&h.as_str()) {
                return Err(bad(format!("unknown column `{h}`")));
            }
            if header[..i].contains(h) {
                return Err(bad(format!("column `{h}` appears twice")));
            }
        }
        if let Some(f) = fields.iter().find(|f| !header.iter().any(|h| h == *f)) {
            return Err(bad(format!("missing column `{f}`")));
        }
    }
    let mut out = vec![];
    for rec in rdr.deserialize() {
        let rec: T = rec.map_err(|e| csv_error(&name, &header, e))?;
        out.push(rec);
    }
    Ok(out)
}

fn csv_error(name: &str, header: &[String], e: csv::Error) -> FormatError {
    let line = e.position().map(|p| p.line()).unwrap_or(1);
    let msg = match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => {
            // csv names a bad value by its 0-based field number: say the column.
            let text = match err.kind() {
                csv::DeserializeErrorKind::ParseInt(x) => x.to_string(),
                csv::DeserializeErrorKind::ParseFloat(x) => x.to_string(),
                csv::DeserializeErrorKind::ParseBool(x) => x.to_string(),
                other => other.to_string(),
            };
            match err.field().and_then(|i| header.get(i as usize)) {
                Some(col) => format!("column `{col}`: {text}"),
                None => err.to_string(),
            }
        }
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => format!("{len} fields where the header has {expected_len}"),
        csv::ErrorKind::Utf8 { .. } => "not UTF-8".to_string(),
        _ => e.to_string(),
    };
    FormatError::Csv { name: name.to_string(), line, message: msg }
}

/// Ends a serde probe ([`struct_fields`], [`struct_columns`]) once it has
/// what it asked the type for.
#[derive(Debug)]
struct Stop;

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("probe done")
    }
}

impl std::error::Error for Stop {}

impl serde::de::Error for Stop {
    fn custom<M: std::fmt::Display>(_: M) -> Stop {
        Stop
    }
}

/// The field names a serde struct expects, as its derived `Deserialize`
/// declares them (renames applied); empty for a type that is not a struct.
pub fn struct_fields<T: DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{self, Visitor};
    struct Capture(Option<&'static [&'static str]>);
    impl<'de> de::Deserializer<'de> for &mut Capture {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], _: V) -> std::result::Result<V::Value, Stop> {
            self.0 = Some(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let mut c = Capture(None);
    let _ = T::deserialize(&mut c);
    c.0.unwrap_or(&[])
}

/// What a column of a row type holds, as its serde `Deserialize` asks for
/// it ([`struct_columns`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// An integer of any width.
    Int,
    /// A floating-point number.
    Float,
    /// Text (a string, a character, or an enum written by name).
    Text,
    /// `true` or `false`.
    Bool,
}

/// Every column of a serde row struct with what it holds, in field order:
/// the schema of the CSV files written from it, taken from the type itself
/// (`Option<T>` is `T`'s, an empty cell allowed), so that a reader of those
/// files in another crate (the report's data frames) types each column as
/// the tools wrote it. Empty for a type that is not a struct.
pub fn struct_columns<T: DeserializeOwned>() -> Vec<(&'static str, ColumnType)> {
    use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
    /// Asks `T` for one field (the struct's `field`-th) and records the
    /// type its deserializer requests, then stops.
    struct Probe {
        field: usize,
        given: bool,
        found: Option<ColumnType>,
    }
    macro_rules! record {
        ($($method:ident => $t:ident),* $(,)?) => {
            $(fn $method<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Stop> {
                self.found = Some(ColumnType::$t);
                Err(Stop)
            })*
        };
    }
    impl<'de> de::Deserializer<'de> for &mut Probe {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(self, _: &'static str, fields: &'static [&'static str], v: V) -> std::result::Result<V::Value, Stop> {
            v.visit_map(Fields { probe: self, fields })
        }
        fn deserialize_option<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, Stop> {
            v.visit_some(self)
        }
        fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], _: V) -> std::result::Result<V::Value, Stop> {
            self.found = Some(ColumnType::Text);
            Err(Stop)
        }
        record! {
            deserialize_bool => Bool,
            deserialize_i8 => Int, deserialize_i16 => Int, deserialize_i32 => Int, deserialize_i64 => Int, deserialize_i128 => Int,
            deserialize_u8 => Int, deserialize_u16 => Int, deserialize_u32 => Int, deserialize_u64 => Int, deserialize_u128 => Int,
            deserialize_f32 => Float, deserialize_f64 => Float,
            deserialize_char => Text, deserialize_str => Text, deserialize_string => Text,
        }
        serde::forward_to_deserialize_any! {
            bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map identifier ignored_any
        }
    }
    /// The struct's one field the probe asks for, by name.
    struct Fields<'a> {
        probe: &'a mut Probe,
        fields: &'static [&'static str],
    }
    impl<'de> MapAccess<'de> for Fields<'_> {
        type Error = Stop;
        fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> std::result::Result<Option<K::Value>, Stop> {
            if self.probe.given {
                return Err(Stop);
            }
            self.probe.given = true;
            let name = self.fields.get(self.probe.field).copied().ok_or(Stop)?;
            seed.deserialize(de::value::BorrowedStrDeserializer::new(name)).map(Some)
        }
        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> std::result::Result<V::Value, Stop> {
            seed.deserialize(&mut *self.probe)
        }
    }
    struct_fields::<T>()
        .iter()
        .enumerate()
        .map(|(field, &name)| {
            let mut p = Probe { field, given: false, found: None };
            let _ = T::deserialize(&mut p);
            (name, p.found.unwrap_or(ColumnType::Text))
        })
        .collect()
}

/// Writes a probability with nine decimals.
pub fn prob<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:.9}"))
}

fbest_rows! {
    /// `fbest` default output: one row per move position.
    FbestRow,
    /// `fbest --per-tree`: one row per tree.
    PerTreeRow { ..ordering, }
    /// The root's minimax value.
}

/// Writes a number with two decimals.
pub fn two<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{v:.2}"))
}

row! {
    /// `fbest` default output for game positions: one row per move position.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct GameFbestRow {
        /// The game, with the board's side where it is not the usual
        /// one (`othello6`, `othello10`, `othello12`).
        pub game: Family,
        /// Search depth.
        pub depth: u32,
        /// Positions searched.
        pub trees: u32,
        /// Average branching factor: legal moves per contributing node (two decimals).
        #[serde(serialize_with = "two")]
        pub b: f64,
        ..fbest_counts,
    }
}

row! {
    /// `fbest --per-tree` for game positions: one row per position.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct GamePerTreeRow {
        /// The game, with the board's side where it is not the usual
        /// one (`othello6`, `othello10`, `othello12`).
        pub game: Family,
        /// The position file's name.
        pub set: String,
        /// 1-based index of the position in its file.
        pub index: u32,
        /// The position's id.
        pub id: String,
        /// Search depth.
        pub depth: u32,
        ..search_counts,
        /// Legal moves of those nodes, summed.
        pub moves: u64,
        /// The root's minimax value in the game's units (centipawns; Othello
        /// evaluation units), from the side to move's point of view.
        pub root_value: i64,
        /// The root's recorded move (the last score update), UCI or square.
        pub best_move: String,
    }
}

/// `fbest --fit`: the exponential ordering closest to measured p_best.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitRow {
    /// What was fitted: the game and depth, or `rajahx`.
    pub data: String,
    /// `analytic` (equations 4.1–4.2) or `searched` (artificial trees
    /// searched as the measured ones: the first `trees` of tg_1 at `depth`).
    pub method: String,
    /// Trees searched per ordering (empty for `analytic`).
    pub trees: Option<u32>,
    /// Their depth (empty for `analytic`).
    pub depth: Option<u32>,
    /// The measured average branching factor.
    #[serde(serialize_with = "two")]
    pub avg_b: f64,
    /// b of the fit (the average, rounded).
    pub b: u32,
    /// Fitted w_a.
    pub wa: u32,
    /// Fitted w_b.
    pub wb: u32,
    /// Move positions fitted (n = 1..positions).
    pub positions: u32,
    /// Sum of squared differences between measured p_best and analytic p_n.
    #[serde(serialize_with = "prob")]
    pub sse: f64,
}

/// `fbest --analytic`: equations 4.1–4.2.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyticRow {
    /// Branching factor.
    pub b: u32,
    /// w_a.
    pub wa: u32,
    /// w_b.
    pub wb: u32,
    /// Move position.
    pub n: u32,
    /// Probability that move n is best.
    #[serde(serialize_with = "prob")]
    pub p_n: f64,
    /// Running total.
    #[serde(serialize_with = "prob")]
    pub cumulative: f64,
}

/// `fbest --rajahx`: the chess program's statistics in the columns of
/// [`FbestRow`]; `b` is the average branching factor, the ordering and depth
/// columns are empty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChessFbestRow {
    /// Average branching factor (pseudo-legal moves per contributing node).
    pub b: String,
    /// Empty.
    pub wa: String,
    /// Empty.
    pub wb: String,
    /// Empty.
    pub depth: String,
    /// Test positions.
    pub trees: u32,
    /// Move position.
    pub n: u32,
    /// Summed f_best(n).
    pub fbest: u64,
    /// fbest / contributing nodes.
    #[serde(serialize_with = "prob")]
    pub pbest: f64,
}

/// One row of `data/rajahx-fbest.csv` (thesis Tables 4.1–4.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RajahxRow {
    /// Bratko-Kopec position number.
    pub position: u32,
    /// Internal nodes that contributed to f_best.
    pub nodes_valid: u64,
    /// Pseudo-legal moves at those nodes.
    pub pseudo_legal_moves: u64,
    /// f_best(1).
    pub fbest_1: u64,
    /// f_best(2).
    pub fbest_2: u64,
    /// f_best(3).
    pub fbest_3: u64,
    /// f_best(4).
    pub fbest_4: u64,
    /// f_best(5).
    pub fbest_5: u64,
    /// f_best(6).
    pub fbest_6: u64,
    /// f_best(7).
    pub fbest_7: u64,
    /// f_best(8).
    pub fbest_8: u64,
    /// f_best(9).
    pub fbest_9: u64,
    /// f_best(10).
    pub fbest_10: u64,
}

impl RajahxRow {
    /// f_best(1..=10).
    pub fn fbest(&self) -> [u64; 10] {
        [self.fbest_1, self.fbest_2, self.fbest_3, self.fbest_4, self.fbest_5, self.fbest_6, self.fbest_7, self.fbest_8, self.fbest_9, self.fbest_10]
    }
}

/// `trainset` output, `nntrain` input (thesis §5.3; `docs/model.md` §3.1): one
/// parent→child training pattern per row, in order of the child's level,
/// then address. The first row (level 0) describes the root itself: no parent
/// (`parent` empty, `index` 0, `pv` 1), `child_type` and `child_wait` the
/// root's averages, and `type` repeats the root's type. Scheme C starts from
/// that root type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternRow {
    /// Tree model, or the game.
    pub model: Family,
    /// Branching factor; for a game, the most moves at any internal node of
    /// the training trees (the network's index and wait range).
    pub b: u32,
    /// w_a (empty for a game).
    pub wa: Option<u32>,
    /// w_b (empty for a game).
    pub wb: Option<u32>,
    /// The child's level (ply): 1 for the root's children; 0 for the root row.
    pub level: u32,
    /// The parent's address `p_1.p_2...` (zeros for levels not reached); empty
    /// in the root row.
    pub parent: String,
    /// Input: 1 if the parent is on the PV path, else 0.
    pub pv: u8,
    /// Input: the parent's averaged type, 0..100.
    #[serde(rename = "type")]
    pub ty: f64,
    /// Input: the child's 1-based index.
    pub index: u32,
    /// Output: the child's averaged type, 0..100.
    pub child_type: f64,
    /// Output: the child's averaged wait, 0..b.
    pub child_wait: f64,
    /// Trees in which the child was entered.
    pub count: u64,
}

/// `nntrain --curve`: the learning curve, one row per recorded iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveRow {
    /// Iterations completed (0 = the initial weights).
    pub iteration: u32,
    /// E_type after that many iterations, in type units.
    pub e_type: f64,
    /// E_wait, in moves.
    pub e_wait: f64,
}

classify_row! {
    /// `classify` output (thesis §5.5, Tables 5.2–5.4): counts of one scheme and
    /// parameter value over the trees of one ordering.
    ClassifyRow {
        /// Branching factor.
        b: u32,
        /// w_a.
        wa: u32,
        /// w_b.
        wb: u32,
    }
    /// 1 on the parameter value with the lowest error for this ordering and
    /// scheme (the smallest such value on a tie; scheme A's single row is
    /// always 1), else 0.
}

classify_row! {
    /// `classify` output for game positions: the columns of [`ClassifyRow`]
    /// with the game in place of the ordering.
    GameClassifyRow {
        /// The game, with the board's side where it is not the usual
        /// one (`othello6`, `othello10`, `othello12`).
        game: Family,
    }
    /// 1 on the lowest error of the game and scheme, else 0.
}

impl SimRow {
    /// The columns that hold processor-ticks by where they went: the seven
    /// states, memory stalls and lock waits (together `procs * tp_ticks`).
    /// The report's time-per-state breakdown reads exactly these.
    pub const STATE_COLUMNS: [&'static str; 9] =
        ["ticks_expand", "ticks_search", "ticks_eval", "ticks_return", "ticks_split", "ticks_update", "ticks_exit", "mem_stall", "lock_wait"];

    /// The columns that hold all the processor-ticks spent in each of the
    /// seven states, memory stalls and lock waits included (together
    /// `procs * tp_ticks`): the breakdown the thesis argues with, where the
    /// idle loop's waits count as the split state.
    pub const TIME_COLUMNS: [&'static str; 7] = ["time_expand", "time_search", "time_eval", "time_return", "time_split", "time_update", "time_exit"];

    /// The policy's configuration columns of the row (read back with
    /// [`Columns::read`](crate::params::Columns::read)).
    pub fn columns(&self) -> crate::params::Columns {
        crate::params::columns_of!(self)
    }
}

/// Writes an optional ratio with six decimals (empty when absent).
pub fn ratio6<S: Serializer>(v: &Option<f64>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match v {
        Some(x) => s.serialize_str(&format!("{x:.6}")),
        None => s.serialize_none(),
    }
}

row! {
    /// `pabsim` output: one row per (tree, configuration) with `--per-tree`
    /// (then `item`, `items`, `tree`, `seed`, `root_value` are filled), else one
    /// per configuration (trees summed). Ticks are simulated ticks; the
    /// `ticks_*` columns (each state's own costs), `mem_stall` and `lock_wait`
    /// are processor-ticks and add up to `procs * tp_ticks`; so do the `time_*`
    /// columns (all the time spent in each state: its costs, memory stalls and
    /// lock waits), and `split_share` is `time_split / (procs * tp_ticks)`. `t1_ticks`, `n1_nodes`, `su`, `so`, `css`
    /// are empty when no p = 1 run of the same trees is known.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SimRow {
        /// What identifies the run (per tree only): a digest of its tree specs,
        /// configurations and networks, the same in every shard of one run.
        pub run: Option<String>,
        /// Position of the (tree, configuration) item in the run (per tree only).
        pub item: Option<u64>,
        /// Items in the whole run (per tree only).
        pub items: Option<u64>,
        ..tree_columns,
        /// Split-point scheme `a`, `b`, `c`, or `-` for one processor.
        pub scheme: String,
        /// Processors.
        pub procs: u32,
        /// Scheme A: finished moves a Y-CUT node needs.
        pub m_a: Option<u32>,
        /// Scheme B: finished moves that turn a D-CUT node D-ALL.
        pub m_b: Option<u32>,
        /// Scheme C: added to the network's wait.
        pub m_ca: Option<i32>,
        /// Scheme C: added again at N-CUT nodes.
        pub m_cc: Option<i32>,
        /// Scheme C: classification width m.
        pub cut_width: Option<u32>,
        /// When processors interleave: `access` (the thesis's machine) or `state`.
        pub interleave: String,
        /// How far a split-point search walks: `tree` (all of it) or `level`.
        pub split_walk: String,
        /// The root's value (per tree only).
        pub root_value: Option<i64>,
        /// Simulated time until the root's value was returned, summed over trees.
        pub tp_ticks: u64,
        /// Nodes created, summed over trees.
        pub np_nodes: u64,
        /// Leaves created.
        pub leaves: u64,
        /// Processor-ticks in the expand state's costs.
        pub ticks_expand: u64,
        /// ... search state.
        pub ticks_search: u64,
        /// ... eval state.
        pub ticks_eval: u64,
        /// ... return state.
        pub ticks_return: u64,
        /// ... split state (split-point searches and the waits after them).
        pub ticks_split: u64,
        /// ... update state (bound propagation included).
        pub ticks_update: u64,
        /// ... after exit.
        pub ticks_exit: u64,
        /// Processor-ticks waiting for memory.
        pub mem_stall: u64,
        /// Processor-ticks in failed lock attempts.
        pub lock_wait: u64,
        /// Processor-ticks in the expand state, everything included.
        pub time_expand: u64,
        /// ... search state.
        pub time_search: u64,
        /// ... eval state.
        pub time_eval: u64,
        /// ... return state.
        pub time_return: u64,
        /// ... split state: the whole idle loop, its lock waits and pauses.
        pub time_split: u64,
        /// ... update state.
        pub time_update: u64,
        /// ... after exit.
        pub time_exit: u64,
        /// The machine's share of time in the split state, `time_split / (procs * tp_ticks)`.
        #[serde(serialize_with = "ratio6")]
        pub split_share: Option<f64>,
        /// Split-point searches.
        pub split_searches: u64,
        /// Nodes examined by them.
        pub split_examined: u64,
        /// Nodes told of a new bound.
        pub told: u64,
        /// Nodes the machine needed (the heaps' size), summed over trees.
        pub pool_nodes: u64,
        /// The p = 1 time of the same trees.
        pub t1_ticks: Option<u64>,
        /// The p = 1 node count of the same trees.
        pub n1_nodes: Option<u64>,
        /// Speed-up t1 / tp.
        #[serde(serialize_with = "ratio6")]
        pub su: Option<f64>,
        /// Search overhead np / n1 - 1.
        #[serde(serialize_with = "ratio6")]
        pub so: Option<f64>,
        /// Communication-synchronisation-split overhead (tp p / np) / (t1 / n1) - 1.
        #[serde(serialize_with = "ratio6")]
        pub css: Option<f64>,
        /// The parallel search algorithm: `dts` (the thesis's), `pvsplit`,
        /// `steal` or `active`; `-` with one processor.
        pub policy: String,
        /// Active splitting: plies a node needs below it to be split.
        pub min_split_depth: Option<u32>,
        /// Active splitting: most processors at one split point.
        pub split_group: Option<u32>,
        /// Work stealing: the seed of the victims' choice.
        pub steal_seed: Option<u64>,
        /// How processors wait for locks: `tas` (test-and-set, the thesis's) or `queue`.
        pub lock: String,
        /// Schemes A and B: finished moves a PV node needs before it may be a
        /// split point (1 unless `--pv-wait`; empty for scheme C and p = 1).
        pub pv_wait: Option<u32>,
    }
}
