//! The sequential baseline as an algorithm of the cluster (`seq`): one
//! process searching the whole tree with the baseline search
//! ([`crate::cluster::search::Searcher`], Ura et al.'s Fig. 1). Every
//! request's speed-ups and leaf ratios are against it; asked to, it
//! records the nodes it searched to full depth near the root (its tasks,
//! [`crate::cluster::reference`]).

use crate::cluster::Launch;
use crate::cluster::algorithm::{Algorithm, Run, TaskSearch};
use crate::cluster::exec::transport::{Msg, NoOwn, Process, Transport};
use crate::cluster::reference::{Reference, SeqTasks};
use crate::cluster::search::Searcher;
use crate::game::TreeSource;
use crate::value::Window;
use std::ops::RangeInclusive;
use std::sync::{Arc, Mutex};

/// The sequential baseline (`seq`; one process).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sequential;

impl Algorithm for Sequential {
    fn registered() -> Vec<Sequential> {
        vec![Sequential]
    }
    fn name(&self) -> &'static str {
        "seq"
    }
    fn label(&self) -> String {
        "sequential".into()
    }
    fn about(&self) -> &'static str {
        "the sequential baseline (p = 1)"
    }
    fn procs(&self) -> RangeInclusive<usize> {
        1..=1
    }
    fn launch<S: TreeSource, L: Launch<S>, Q: TaskSearch<S>>(&self, run: &Run<'_, S>, l: L, _: impl Fn() -> Q) -> L::Output {
        let (root, depth, slots) = (run.root.clone(), run.depth, run.settings.tt_slots);
        let record = match run.reference {
            Reference::Record { below, into } => Some((*below, into.clone())),
            _ => None,
        };
        l.launch(run.src, 1, |_| SequentialProcess::<S> { root: root.clone(), depth, slots, record: record.clone() })
    }
}

/// The sequential baseline as a process of its own.
struct SequentialProcess<S: TreeSource> {
    root: S::Node,
    depth: u32,
    slots: usize,
    /// Its tasks recorded at the plies below the first, into the second.
    record: Option<(u32, Arc<Mutex<Option<SeqTasks>>>)>,
}

impl<S: TreeSource> Process<S> for SequentialProcess<S> {
    type Own = NoOwn;

    fn start<T: Transport<S::Node, Self::Own>>(&mut self, src: &S, t: &mut T) {
        let mut s = Searcher::new(self.slots);
        if let Some((below, _)) = &self.record {
            s.watch(SeqTasks::new(self.depth, *below));
        }
        let v = s.search(src, &self.root, true, self.depth, 0, Window::ROOT);
        if let Some((_, into)) = &self.record {
            *into.lock().unwrap_or_else(|e| e.into_inner()) = s.watched();
        }
        t.searched(s.counts);
        t.done(v);
    }
    fn receive<T: Transport<S::Node, Self::Own>>(&mut self, _: &S, _: &mut T, _: usize, _: Msg<S::Node, Self::Own>) {}
}
