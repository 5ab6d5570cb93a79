//! `psearch --mpi`: a [`ClusterRequest`] on real MPI ranks (see
//! `docs/model.md` §9.8), one job of `mpirun -np N`, run on the MPI
//! transport of [`crate::cluster::exec::mpi`].
//!
//! Every rank runs the same plan: rank 0 reads the tree specs (stdin goes
//! to rank 0 only) and broadcasts them; then, tree by tree, the sequential
//! baseline on rank 0 alone (the other ranks wait), and every asked
//! algorithm on all N ranks. Rank 0 checks each run's root value against
//! the baseline's — a difference ends the job with one line — and writes
//! the rows: the same [`ClusterRow`]s as `pabsim --machine cluster`, with
//! measured wall times, `transport` = `mpi`, the busiest host's load and
//! free cores before the searches, and whether some host ran more ranks
//! than it had free cores.
//!
//! The job is asked a [`ClusterRequest`] of [`Procs::Ranks`], the request
//! type of the simulated cluster. With threads inside the ranks (its
//! settings' `threads`, `psearch --mpi --threads T`), the root-splitting
//! algorithms search each task on T threads ([`crate::cluster::hybrid`]);
//! the baseline stays the sequential search on one thread.
//!
//! One run may be traced ([`run_traced`], `psearch --mpi --trace`): it is
//! picked as the other tools pick theirs, by its place among the
//! `--per-tree` rows (configuration by configuration, tree by tree; the
//! baseline's runs, on rank 0 alone, first), and runs with the recorder
//! every rank is given; the others run as without a trace.

use super::{ClusterRequest, Done, Procs, RowSource, configs, rows, traced_run};
use crate::cluster::exec::machine::ClusterStats;
use crate::cluster::exec::mpi::run::host;
use crate::cluster::exec::mpi::{Job, OnMpi};
use crate::cluster::exec::record::RankRecorder;
use crate::cluster::hybrid::Threads;
use crate::cluster::reference::Reference;
use crate::cluster::{Algorithm, ClusterAlgorithm, ClusterConfig, ClusterError, Launched, launch, launch_with};
use crate::formats::ClusterRow;
use crate::tree::Tree;
use anyhow::{Result, ensure};

struct OnTree<'a, 'w, 'r, R> {
    cfg: &'a ClusterConfig,
    job: Job<'w>,
    /// The run's recorder, when it is the traced one.
    rec: Option<&'r mut R>,
}

impl<R: RankRecorder> crate::tree::SourceVisitor for OnTree<'_, '_, '_, R> {
    type Output = Result<Launched<Option<ClusterStats>>, ClusterError>;
    fn visit<S: crate::game::TreeSource>(self, src: &S, root: &S::Node, depth: u32) -> Self::Output {
        let faults = self.cfg.algorithm != ClusterAlgorithm::SEQUENTIAL;
        // Two instances of the launch: the untraced one is the code it was.
        match self.rec {
            Some(rec) => on_tree(src, root, depth, self.cfg, OnMpi { job: self.job, faults, rec }),
            None => on_tree(src, root, depth, self.cfg, OnMpi::new(self.job, faults)),
        }
    }
}

/// `cfg` for a search of `root` to `depth` on `on`'s ranks.
fn on_tree<S: crate::game::TreeSource, R: RankRecorder>(
    src: &S,
    root: &S::Node,
    depth: u32,
    cfg: &ClusterConfig,
    on: OnMpi<'_, '_, R>,
) -> Result<Launched<Option<ClusterStats>>, ClusterError> {
    match cfg.settings.threads {
        None => launch(src, root, depth, cfg, on),
        Some(t) => {
            let job = on.job;
            let fatal = move |m: &str| job.fatal(m);
            launch_with(src, root, depth, cfg, on, || Threads::new(t, &fatal), &Reference::None)
        }
    }
}

/// Runs every (tree, configuration) of `req` on the job's ranks, tree by
/// tree; rank 0 gets the rows, the other ranks `None`.
/// `req` must be asked of [`Procs::Ranks`] of the job's size.
pub fn run(job: Job<'_>, trees: &[Tree], req: &ClusterRequest) -> Result<Option<Vec<ClusterRow>>> {
    run_traced(job, trees, req, None::<(usize, &mut crate::cluster::exec::record::NoRecord)>)
}

/// [`run`], run `i` (0-based, in the order of the `--per-tree` rows:
/// [`traced_run`]) watched on every rank by `rec`: rank 0's has every
/// rank's record in the end.
pub fn run_traced<R: RankRecorder>(job: Job<'_>, trees: &[Tree], req: &ClusterRequest, mut traced: Option<(usize, &mut R)>) -> Result<Option<Vec<ClusterRow>>> {
    ensure!(req.procs == Procs::Ranks(job.size), "a request for {:?} run on a job of {} ranks", req.procs, job.size);
    let cfgs = configs(req)?;
    let (host, wake_ns) = host(job, req.settings.threads.map_or(1, |t| t.threads));
    let job = job.with_cores(host.oversubscribed);
    let mut base = vec![];
    let mut done = vec![];
    for (t, tree) in trees.iter().enumerate() {
        let mut want = None;
        for (c, cfg) in cfgs.iter().enumerate() {
            let rec = match &mut traced {
                Some((i, rec)) if traced_run(*i, trees.len()) == (c, t) => Some(&mut **rec),
                _ => None,
            };
            let Launched { output, algorithm: ran } = tree.visit(OnTree { cfg, job, rec })?;
            let Some(stats) = output else { continue };
            match want {
                None => {
                    want = Some(stats.value);
                    base.push(stats.clone());
                }
                Some(v) if v != stats.value => {
                    let e = ClusterError::Inexact { algorithm: cfg.algorithm.name(), procs: cfg.procs, got: Some(stats.value), want: v };
                    job.fatal(&format!("tree {}: {e}", t + 1));
                }
                Some(_) => {}
            }
            done.push(Done { cfg: c, tree: t, ran, stats });
        }
    }
    Ok((job.rank == 0).then(|| rows(trees, &cfgs, &done, &base, req.per_tree, RowSource::Mpi { host, wake_ns })))
}
