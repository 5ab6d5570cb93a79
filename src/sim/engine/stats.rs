//! What a simulation measured: the states that are the time breakdown's
//! buckets ([`State`], [`TimeKind`]), a tree's statistics ([`TreeStats`]) and
//! the trace of state entries (thesis §6.2;
//! `docs/model.md` §5.3 and §5.5).

/// A processor's state: the seven states of the thesis, which are also the
/// buckets of the time breakdown (the one list of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Generating the current node's moves.
    Expand,
    /// Handing out the current node's next move (and allocating the root).
    Search,
    /// Evaluating a leaf.
    Eval,
    /// Leaving the current node.
    Return,
    /// Idle: looking for work (the whole idle loop, its lock waits and pauses).
    Split,
    /// Taking a finished move's value, and telling the subtree a new bound.
    Update,
    /// Done.
    Exit,
}

impl State {
    /// Every state, in the order of the output's columns.
    pub const ALL: [State; 7] = [State::Expand, State::Search, State::Eval, State::Return, State::Split, State::Update, State::Exit];

    /// The state's name in columns and messages.
    pub fn name(self) -> &'static str {
        match self {
            State::Expand => "expand",
            State::Search => "search",
            State::Eval => "eval",
            State::Return => "return",
            State::Split => "split",
            State::Update => "update",
            State::Exit => "exit",
        }
    }
}

/// What a processor's time in a state went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeKind {
    /// The state's own costs (and the idle loop's pauses).
    Work = 0,
    /// Waiting for memory: access delays and refused requests.
    Memory = 1,
    /// Failed lock attempts.
    Lock = 2,
}

/// One state entry of a traced run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// The processor's clock.
    pub t: u64,
    /// The processor.
    pub proc: usize,
    /// The state entered.
    pub state: State,
    /// The node, as the 1-based move numbers from the root (`""` is the
    /// root; `"2.1"` the first move of the root's second); `None` when idle.
    pub node: Option<String>,
}

/// What one simulated search of one tree measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// The root's value.
    pub value: i64,
    /// Ticks until the root's value was returned (`t_p` of this tree).
    pub ticks: u64,
    /// Nodes created (`n_p` of this tree), the root included.
    pub nodes: u64,
    /// Leaves created.
    pub leaves: u64,
    /// Processor-ticks per state ([`State::ALL`]) and kind ([`TimeKind`]); they
    /// add up to `P * ticks`.
    pub time: [[u64; 3]; 7],
    /// Split-point searches run.
    pub split_searches: u64,
    /// Nodes those searches examined.
    pub split_examined: u64,
    /// Nodes told of a new bound.
    pub told: u64,
    /// Nodes the machine had to make (the heaps' total size at the end).
    pub pool: u64,
    /// Every state entry, with [`super::MachineSpec::trace`].
    pub trace: Vec<TraceEvent>,
}

impl TreeStats {
    /// Processor-ticks of a state's own costs.
    pub fn work(&self, s: State) -> u64 {
        self.time[s as usize][TimeKind::Work as usize]
    }

    /// All processor-ticks spent in a state.
    pub fn in_state(&self, s: State) -> u64 {
        self.time[s as usize].iter().sum()
    }

    /// Processor-ticks waiting for memory, over all states.
    pub fn mem_stall(&self) -> u64 {
        self.time.iter().map(|t| t[TimeKind::Memory as usize]).sum()
    }

    /// Processor-ticks in failed lock attempts, over all states.
    pub fn lock_wait(&self) -> u64 {
        self.time.iter().map(|t| t[TimeKind::Lock as usize]).sum()
    }

    /// All processor-ticks accounted: `P * ticks` for one tree.
    pub fn accounted(&self) -> u64 {
        self.time.iter().flatten().sum()
    }
}
