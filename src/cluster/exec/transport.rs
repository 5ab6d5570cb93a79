//! What a message-passing policy may use: its rank, the process count,
//! sending a message, and telling its machine how much it searched
//! ([`Transport`]); the messages ([`Msg`]); and the policy's side
//! ([`Process`]): handlers run to completion on a start and on every
//! message. Nothing here knows whether the network is simulated: the
//! simulated cluster ([`crate::cluster::exec::machine`]), the test transport with
//! adversarial delivery and the MPI transport (`crate::cluster::exec::mpi`, feature `mpi`)
//! implement it.

use crate::search::NodeCounts;
use crate::tt::Bound;
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

/// A message between processes. `N` is the tree source's node (a position).
/// Serde types: a real transport encodes them (the MPI transport, §9.8), and
/// a new variant is encoded with no more code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Msg<N> {
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
    /// Ura et al.'s task: the job (its `id` the master's leaf, its depth
    /// the full remaining depth d − d′, its window the task window),
    /// reporting shallower iterations too; `pass` is the master's pass that
    /// sent it, `sig` its signature (the ranks of the moves on its path in
    /// the master's order).
    Work {
        /// The search asked.
        job: Task<N>,
        /// The master's pass.
        pass: u32,
        /// The signature.
        sig: Vec<u16>,
    },
    /// A worker's result for leaf `id`: searched to `depth` in `window`,
    /// worth `value` (fail-hard).
    Report {
        /// The master's leaf.
        id: u32,
        /// The depth searched.
        depth: u32,
        /// The window searched with.
        window: Window,
        /// The value.
        value: i64,
    },
    /// The master finished pass `pass`: tasks not sent in it (or later)
    /// may be dropped.
    Pass {
        /// The pass.
        pass: u32,
    },
    /// Transposition-table entries going round the workers' ring (the
    /// master-worker *with share*).
    Share {
        /// The entries.
        entries: Vec<SharedEntry<N>>,
    },
    /// YBWC: process `origin` has no work and asks for some; answered by a
    /// [`Msg::Task`] to `origin`, by whichever process has work to give
    /// (the request is passed on until one has).
    Request {
        /// The process that asks.
        origin: u32,
    },
    /// YBWC: task `id` the sender gave is no longer needed (its parent was
    /// cut off): drop it, and its helpers' work with it.
    Abort {
        /// The task.
        id: u32,
    },
    /// Full YBWC, three-stage load distribution: process `origin` has no
    /// work; `seen` processes besides it have been asked. Answered by a
    /// [`Msg::Task`] to `origin`, or passed to the next process of the
    /// walk, or, once every process has seen it, by a [`Msg::NoWork`].
    Seek {
        /// The process that asks.
        origin: u32,
        /// The processes asked so far.
        seen: u32,
    },
    /// Full YBWC, the helpful master: `origin`, whose frames wait for the
    /// receiver's task `id` (its name there) among others, asks for work
    /// in that task's subtree: a [`Msg::Task`] to `origin` or a
    /// [`Msg::NoWork`].
    Help {
        /// The process that asks.
        origin: u32,
        /// The receiver's task, as its owner names it.
        id: u32,
    },
    /// Full YBWC: the [`Msg::Seek`] or [`Msg::Help`] found no work.
    NoWork,
    /// Full YBWC: the window of task `id` the sender gave has narrowed to
    /// `window`.
    Narrow {
        /// The task.
        id: u32,
        /// Its new window.
        window: Window,
    },
}

/// A transposition-table entry as one worker shares it with the others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedEntry<N> {
    /// The position.
    pub node: N,
    /// Its distance from the tree's root.
    pub ply: u32,
    /// The remaining depth it was searched to.
    pub depth: u32,
    /// Its value.
    pub value: i64,
    /// What `value` is.
    pub bound: Bound,
    /// The best (or cut-off) move's place in the source's order.
    pub best: u32,
    /// The worker that found it.
    pub origin: u32,
}

/// Bytes of a shared entry on the wire besides its position: ply, depth,
/// value, bound, best move, origin.
pub const SHARED_ENTRY_BYTES: u64 = 4 + 4 + 8 + 1 + 4 + 4;

/// Bytes of a message header on the wire: kind, id, ply, depth, flags.
pub const HEADER_BYTES: u64 = 16;

impl<N> Msg<N> {
    /// The variant's name (a trace's label for the message).
    pub fn kind(&self) -> &'static str {
        match self {
            Msg::Task(_) => "Task",
            Msg::Result { .. } => "Result",
            Msg::Stop => "Stop",
            Msg::Work { .. } => "Work",
            Msg::Report { .. } => "Report",
            Msg::Pass { .. } => "Pass",
            Msg::Share { .. } => "Share",
            Msg::Request { .. } => "Request",
            Msg::Abort { .. } => "Abort",
            Msg::Seek { .. } => "Seek",
            Msg::Help { .. } => "Help",
            Msg::NoWork => "NoWork",
            Msg::Narrow { .. } => "Narrow",
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
                // A request's origin and an abort's task travel in the header's id.
                Msg::Stop | Msg::Pass { .. } | Msg::Request { .. } | Msg::Abort { .. } | Msg::NoWork => 0,
                // The count seen and the task beside the origin in the header.
                Msg::Seek { .. } | Msg::Help { .. } => 4,
                Msg::Narrow { .. } => 16,
                // The window, the pass number and 2 bytes per signature entry.
                Msg::Work { sig, .. } => std::mem::size_of::<N>() as u64 + 16 + 4 + 2 * sig.len() as u64,
                Msg::Report { .. } => 16 + 8,
                Msg::Share { entries } => entries.len() as u64 * (std::mem::size_of::<N>() as u64 + SHARED_ENTRY_BYTES),
            }
    }
}

/// What a process sees of its machine.
pub trait Transport<N> {
    /// This process's rank, 0..procs (0 is the master where there is one).
    fn rank(&self) -> usize;
    /// The number of processes.
    fn procs(&self) -> usize;
    /// Sends `msg` to process `to` (not itself).
    fn send(&mut self, to: usize, msg: Msg<N>);
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
pub fn abort_out<N, T: Transport<N>>(t: &mut T, out: &mut Vec<(u32, usize, usize)>) -> u64 {
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
    /// The machine starts (every process, rank order).
    fn start<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T);
    /// A message from process `from` arrives.
    fn receive<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node>);
    /// The wake-up this process asked for ([`Transport::wake`]).
    fn resume<T: Transport<S::Node>>(&mut self, _src: &S, _t: &mut T) {}
    /// What it counted of its tasks, if it farms them ([`TaskTally`]).
    fn tally(&self) -> Option<TaskTally> {
        None
    }
}

/// One process's transport for hand-worked tests of a policy: it records
/// what the process sends, its nodes, its value and its wake-ups.
#[cfg(test)]
pub(crate) struct Record<N> {
    /// The process's rank.
    pub rank: usize,
    /// Processes in the run.
    pub procs: usize,
    /// What it sent, in order: (to, message).
    pub sent: Vec<(usize, Msg<N>)>,
    /// The root's value, once the master has it.
    pub done: Option<i64>,
    /// Wake-ups asked for.
    pub woken: u32,
    /// Nodes searched.
    pub nodes: u64,
}

#[cfg(test)]
impl<N> Record<N> {
    /// Rank `rank` of `procs`, nothing recorded yet.
    pub fn new(rank: usize, procs: usize) -> Record<N> {
        Record { rank, procs, sent: vec![], done: None, woken: 0, nodes: 0 }
    }

    /// What was sent since the last call.
    pub fn take(&mut self) -> Vec<(usize, Msg<N>)> {
        std::mem::take(&mut self.sent)
    }
}

#[cfg(test)]
impl<N> Transport<N> for Record<N> {
    fn rank(&self) -> usize {
        self.rank
    }
    fn procs(&self) -> usize {
        self.procs
    }
    fn send(&mut self, to: usize, msg: Msg<N>) {
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
