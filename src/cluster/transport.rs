//! What a message-passing policy may use: its rank, the process count,
//! sending a message, and telling its machine how much it searched
//! ([`Transport`]); the messages ([`Msg`]); and the policy's side
//! ([`Process`]): handlers run to completion on a start and on every
//! message. Nothing here knows whether the network is simulated: the
//! simulated cluster ([`super::machine`]) and the test transport with
//! adversarial delivery implement it today, an MPI transport next.

use crate::search::NodeCounts;
use crate::value::Window;

/// A message between processes. `N` is the tree source's node (a position).
#[derive(Clone, Debug, PartialEq)]
pub enum Msg<N> {
    /// Search `node` (a MAX node if `max`, at `ply`) to `depth` in `window`;
    /// answer with a [`Msg::Result`] of the same `id`.
    Task {
        /// The sender's name for the task.
        id: u32,
        /// The position.
        node: N,
        /// Whose move.
        max: bool,
        /// Distance from the tree's root.
        ply: u32,
        /// Remaining depth.
        depth: u32,
        /// The window (fail-hard).
        window: Window,
    },
    /// The value of task `id` (fail-hard in its window).
    Result {
        /// The task.
        id: u32,
        /// Its value.
        value: i64,
    },
    /// The search is over: stop.
    Stop,
}

/// Bytes of a message header on the wire: kind, id, ply, depth, flags.
pub const HEADER_BYTES: u64 = 16;

impl<N> Msg<N> {
    /// The message's size on the wire: the header, a task's node (its size
    /// in memory, a position as the source holds it) and window, a
    /// result's value.
    pub fn bytes(&self) -> u64 {
        HEADER_BYTES
            + match self {
                Msg::Task { .. } => std::mem::size_of::<N>() as u64 + 16,
                Msg::Result { .. } => 8,
                Msg::Stop => 0,
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
    /// The master has the root's value: the search is over once every
    /// message in flight is handled.
    fn done(&mut self, value: i64);
}

/// One process of a policy: handlers that run to completion.
pub trait Process<S: crate::game::TreeSource> {
    /// The machine starts (every process, rank order).
    fn start<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T);
    /// A message from process `from` arrives.
    fn receive<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T, from: usize, msg: Msg<S::Node>);
}
