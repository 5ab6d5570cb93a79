//! What a message-passing policy may use: its rank, the process count,
//! sending a message, and telling its machine how much it searched
//! ([`Transport`]); the messages ([`Msg`]); and the policy's side
//! ([`Process`]): handlers run to completion on a start and on every
//! message. Nothing here knows whether the network is simulated: the
//! simulated cluster ([`crate::cluster::exec::machine`]), the test transport with
//! adversarial delivery and the MPI transport (`crate::cluster::exec::mpi`, feature `mpi`)
//! implement it.

use crate::search::NodeCounts;
use crate::value::Window;
use serde::{Deserialize, Serialize};

/// A search one process asks of another: `node` (a MAX node if `max`, at
/// `ply`) to `depth` in `window`, fail-hard; `id` is the asker's name for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task<N> {
    /// The asker's name for the search.
    pub id: u32,
    /// The position.
    pub node: N,
    /// Whose move.
    pub max: bool,
    /// Distance from the tree's root.
    pub ply: u32,
    /// Remaining depth.
    pub depth: u32,
    /// The window (fail-hard).
    pub window: Window,
}

/// A message between processes: the executor's own, which any algorithm
/// that hands out tasks may use, and the algorithm's own messages
/// ([`Msg::Own`], declared in the algorithm's file as an [`OwnMsg`]).
/// `N` is the tree source's node (a position), `A` the algorithm's
/// messages ([`NoOwn`]: none). Serde types: a real transport encodes them
/// (the MPI transport, §9.8), and a new message is encoded with no more
/// code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Msg<N, A = NoOwn> {
    /// Search the task; answer with a [`Msg::Result`] of the same `id`.
    Task(Task<N>),
    /// The value of task `id` (fail-hard in its window).
    Result {
        /// The task.
        id: u32,
        /// Its value.
        value: i64,
    },
    /// The search is over: stop.
    Stop,
    /// Task `id` the sender gave is no longer needed (its parent was cut
    /// off): drop it, and its helpers' work with it.
    Abort {
        /// The task.
        id: u32,
    },
    /// One of the algorithm's own messages.
    Own(A),
}

/// An algorithm's own messages (one enum, in the algorithm's file): what
/// the executor needs of them, their name and their size, and what the
/// task traces need, their [`Role`].
pub trait OwnMsg<N>: Clone + std::fmt::Debug + PartialEq + Serialize + serde::de::DeserializeOwned {
    /// The message's name (a trace's label for it).
    fn kind(&self) -> &'static str;
    /// Its size on the wire besides the header ([`HEADER_BYTES`]).
    fn bytes(&self) -> u64;
    /// What it is to the task traces: [`Role::Other`] unless it starts,
    /// answers or drops a task.
    fn role(&self) -> Role<'_, N> {
        Role::Other
    }
}

/// No messages of its own: the algorithms that speak only the executor's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum NoOwn {}

impl<N> OwnMsg<N> for NoOwn {
    fn kind(&self) -> &'static str {
        match *self {}
    }
    fn bytes(&self) -> u64 {
        match *self {}
    }
}

/// What a message is to the task traces (`crate::trace`), which follow
/// a task from the message that hands it out to the one that answers,
/// aborts or drops it.
pub enum Role<'m, N> {
    /// Hands the receiver a task (renewing one of the same sender and id):
    /// for a master's job, also its pass and its signature.
    Starts {
        /// The task.
        task: &'m Task<N>,
        /// The master's pass that sent it.
        pass: Option<u32>,
        /// Its signature.
        path: Option<&'m [u16]>,
    },
    /// Answers the receiver's task `id`: whole, or searched to `depth`
    /// (an answer shallower than the task's depth leaves it open).
    Answers {
        /// The task.
        id: u32,
        /// The depth searched, for an iterative answer.
        depth: Option<u32>,
    },
    /// Aborts the receiver's task `id`.
    Aborts {
        /// The task.
        id: u32,
    },
    /// Drops the receiver's jobs of passes before `pass`.
    Supersedes {
        /// The master's pass.
        pass: u32,
    },
    /// Ends the search: every open task is dropped.
    Stops,
    /// None of these.
    Other,
}

/// Bytes of a message header on the wire: kind, id, ply, depth, flags.
pub const HEADER_BYTES: u64 = 16;

impl<N, A: OwnMsg<N>> Msg<N, A> {
    /// The message's name (a trace's label for it).
    pub fn kind(&self) -> &'static str {
        match self {
            Msg::Task(_) => "Task",
            Msg::Result { .. } => "Result",
            Msg::Stop => "Stop",
            Msg::Abort { .. } => "Abort",
            Msg::Own(m) => m.kind(),
        }
    }

    /// The message's size on the wire: the header, a task's node (its size
    /// in memory, a position as the source holds it) and window, a
    /// result's value.
    pub fn bytes(&self) -> u64 {
        HEADER_BYTES
            + match self {
                Msg::Task(_) => std::mem::size_of::<N>() as u64 + 16,
                Msg::Result { .. } => 8,
                // An abort's task travels in the header's id.
                Msg::Stop | Msg::Abort { .. } => 0,
                Msg::Own(m) => m.bytes(),
            }
    }

    /// What it is to the task traces.
    pub fn role(&self) -> Role<'_, N> {
        match self {
            Msg::Task(task) => Role::Starts { task, pass: None, path: None },
            Msg::Result { id, .. } => Role::Answers { id: *id, depth: None },
            Msg::Stop => Role::Stops,
            Msg::Abort { id } => Role::Aborts { id: *id },
            Msg::Own(m) => m.role(),
        }
    }
}

/// What a process sees of its machine.
pub trait Transport<N, A = NoOwn> {
    /// This process's rank, 0..procs (0 is the master where there is one).
    fn rank(&self) -> usize;
    /// The number of processes.
    fn procs(&self) -> usize;
    /// Sends `msg` to process `to` (not itself).
    fn send(&mut self, to: usize, msg: Msg<N, A>);
    /// The process has just searched `counts` nodes (a simulated machine
    /// charges their time; a real one has spent it).
    fn searched(&mut self, counts: NodeCounts);
    /// The process has walked `counts` nodes of a tree it keeps in memory
    /// (the master-worker's master, its passes): counted as searched nodes,
    /// but a simulated machine charges them the master's own cost per node
    /// ([`crate::cluster::exec::machine::Costs::master_ppm`]); a real one has spent the
    /// time, as for any search.
    fn walked(&mut self, counts: NodeCounts) {
        self.searched(counts)
    }
    /// The master has the root's value: the search is over once every
    /// message in flight is handled.
    fn done(&mut self, value: i64);
    /// Calls this process's [`Process::resume`] once every message that
    /// has arrived for it by now is handled (a real transport: drain the
    /// inbox, then resume). A handler that cuts its work into slices uses it
    /// to look at its inbox between slices.
    fn wake(&mut self);
}

/// Sends an [`Msg::Abort`] for each task in `out` (task id, process,
/// child index: a frame's work out with other processes, YBWC's and
/// Fox's), which it empties: the number of aborts sent.
pub fn abort_out<N, A, T: Transport<N, A>>(t: &mut T, out: &mut Vec<(u32, usize, usize)>) -> u64 {
    let n = out.len() as u64;
    for (id, to, _) in out.drain(..) {
        t.send(to, Msg::Abort { id });
    }
    n
}

/// What an algorithm that farms out tasks counts of them, summed over its
/// processes (the rows' task columns, `docs/formats.md`): the evidence of
/// where its extra leaves come from. An algorithm without tasks reports
/// none ([`Process::tally`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskTally {
    /// Rounds over the master's tree (the master-worker's passes).
    pub passes: u64,
    /// Tasks sent (the same task sent again in a later round counts again).
    pub tasks_sent: u64,
    /// Of them, sent with the full window because earlier results did not
    /// settle their leaf.
    pub full_window_sends: u64,
    /// Tasks a worker dropped unfinished (not renewed by the last round).
    pub tasks_dropped: u64,
    /// Nodes the workers had searched on the tasks they dropped.
    pub dropped_nodes: u64,
    /// Searches a worker aborted for a more important task.
    pub tasks_aborted: u64,
    /// Nodes of the aborted searches.
    pub aborted_nodes: u64,
    /// Nodes searched on tasks whose node the sequential search did not
    /// search to full depth (`None`: the run was not compared with it,
    /// [`crate::cluster::reference`]).
    pub outside_nodes: Option<u64>,
}

impl std::ops::Add for TaskTally {
    type Output = TaskTally;
    fn add(self, o: TaskTally) -> TaskTally {
        TaskTally {
            passes: self.passes + o.passes,
            tasks_sent: self.tasks_sent + o.tasks_sent,
            full_window_sends: self.full_window_sends + o.full_window_sends,
            tasks_dropped: self.tasks_dropped + o.tasks_dropped,
            dropped_nodes: self.dropped_nodes + o.dropped_nodes,
            tasks_aborted: self.tasks_aborted + o.tasks_aborted,
            aborted_nodes: self.aborted_nodes + o.aborted_nodes,
            // Counted where any process counted them.
            outside_nodes: match (self.outside_nodes, o.outside_nodes) {
                (Some(a), Some(b)) => Some(a + b),
                (a, None) => a,
                (None, b) => b,
            },
        }
    }
}

/// One process of a policy: handlers that run to completion.
pub trait Process<S: crate::game::TreeSource> {
    /// Its algorithm's own messages ([`NoOwn`]: none).
    type Own: OwnMsg<S::Node>;
    /// The machine starts (every process, rank order).
    fn start<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T);
    /// A message from process `from` arrives.
    fn receive<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node, Self::Own>);
    /// The wake-up this process asked for ([`Transport::wake`]).
    fn resume<T: Transport<S::Node, Self::Own>>(&mut self, _src: &S, _t: &mut T) {}
    /// What it counted of its tasks, if it farms them ([`TaskTally`]).
    fn tally(&self) -> Option<TaskTally> {
        None
    }
}

/// One process's transport for hand-worked tests of a policy: it records
/// what the process sends, its nodes, its value and its wake-ups.
#[cfg(test)]
pub(crate) struct Record<N, A = NoOwn> {
    /// The process's rank.
    pub rank: usize,
    /// Processes in the run.
    pub procs: usize,
    /// What it sent, in order: (to, message).
    pub sent: Vec<(usize, Msg<N, A>)>,
    /// The root's value, once the master has it.
    pub done: Option<i64>,
    /// Wake-ups asked for.
    pub woken: u32,
    /// Nodes searched.
    pub nodes: u64,
}

#[cfg(test)]
impl<N, A> Record<N, A> {
    /// Rank `rank` of `procs`, nothing recorded yet.
    pub fn new(rank: usize, procs: usize) -> Record<N, A> {
        Record { rank, procs, sent: vec![], done: None, woken: 0, nodes: 0 }
    }

    /// What was sent since the last call.
    pub fn take(&mut self) -> Vec<(usize, Msg<N, A>)> {
        std::mem::take(&mut self.sent)
    }
}

#[cfg(test)]
impl<N, A> Transport<N, A> for Record<N, A> {
    fn rank(&self) -> usize {
        self.rank
    }
    fn procs(&self) -> usize {
        self.procs
    }
    fn send(&mut self, to: usize, msg: Msg<N, A>) {
        self.sent.push((to, msg));
    }
    fn searched(&mut self, c: NodeCounts) {
        self.nodes += c.nodes;
    }
    fn done(&mut self, v: i64) {
        self.done = Some(v);
    }
    fn wake(&mut self) {
        self.woken += 1;
    }
}
