//! The sequential baseline as an algorithm of the cluster (`seq`): one
//! process searching the whole tree with the baseline search
//! ([`crate::cluster::search::Searcher`], Ura et al.'s Fig. 1). Every
//! request's speed-ups and leaf ratios are against it.

use crate::cluster::Launch;
use crate::cluster::algorithm::{Algorithm, Run, TaskSearch};
use crate::cluster::exec::transport::{Msg, Process, Transport};
use crate::cluster::search::Searcher;
use crate::game::TreeSource;
use crate::value::Window;
use std::ops::RangeInclusive;

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
        l.launch(run.src, 1, |_| SequentialProcess::<S> { root: root.clone(), depth, slots })
    }
}

/// The sequential baseline as a process of its own.
struct SequentialProcess<S: TreeSource> {
    root: S::Node,
    depth: u32,
    slots: usize,
}

impl<S: TreeSource> Process<S> for SequentialProcess<S> {
    fn start<T: Transport<S::Node>>(&mut self, src: &S, t: &mut T) {
        let mut s = Searcher::new(self.slots);
        let v = s.search(src, &self.root, true, self.depth, 0, Window::ROOT);
        t.searched(s.counts);
        t.done(v);
    }
    fn receive<T: Transport<S::Node>>(&mut self, _: &S, _: &mut T, _: usize, _: Msg<S::Node>) {}
}
