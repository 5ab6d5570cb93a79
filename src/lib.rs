//! `parab`: a toolkit that reproduces the experiments of V. Manohararajah,
//! *Parallel Alpha-Beta Search on Shared Memory Multiprocessors* (M.A.Sc.
//! thesis, University of Toronto, 2001), and goes beyond them.
//!
//! The library holds everything; each tool in `src/bin/` is a thin `main`
//! over one module (the report is its own crate, `report/`). One module per
//! concept of the thesis, in the order the pipeline uses them. No module
//! reaches itself through the modules it uses (`tests/repository.rs`
//! checks that no cycle forms):
//!
//! - [`rng`]: the Park–Miller random streams every tree node owns (§4.2,
//!   App. A).
//! - [`seeds`]: the seed sets `tg1` and `tg2`, compiled in from `data/`
//!   (App. A).
//! - [`value`]: the value scale every tree is valued on (scores, the root
//!   pscore, a game's evaluation placed on it), the search's infinite bounds
//!   and the alpha-beta [`value::Window`].
//! - [`game`]: tree sources, what the one search walks
//!   ([`game::TreeSource`]): [`game::chess`] and [`game::othello`] (beyond
//!   the thesis), their position files ([`game::read_positions`]) and
//!   [`game::positions`], seeded training positions by random play.
//! - [`tree`]: what a tree is, whatever its family: [`tree::Tree`] (a
//!   source, a root and a depth), [`tree::TreeKey`] and [`tree::Family`]
//!   (what tables group and name trees by), [`tree::SourceVisitor`]; tree
//!   specs as JSON lines and [`tree::read_trees`]; and
//!   [`tree::artificial`], the artificial trees of the thesis, the
//!   exponential ordering model and a strongly ordered one, regenerated from
//!   their seeds, never stored (§4.2); [`tree::incremental`], the
//!   incremental random trees of Ura et al. (2014), beyond the thesis.
//! - [`tt`]: transposition tables behind one interface ([`tt::Table`]),
//!   with one [`tt::Bound`]: Lazy SMP's lock-free shared table and a
//!   cluster process's own table (beyond the thesis).
//! - [`search`]: the one sequential alpha-beta search
//!   ([`search::alphabeta`]), generic over its [`search::Hooks`] (a table's
//!   probe and store, the move order, giving up, node hooks): the thesis's
//!   search with its pluggable observers (§2, §4.3) and every other search
//!   of the project are hook sets on it.
//! - [`fbest`]: move-ordering statistics, f_best and p_best (§4.3), and
//!   the ordering accuracy of Ura et al. ([`fbest::accuracy`]); the `fbest`
//!   tool.
//! - [`trainset`]: the network's training patterns from searched trees
//!   (§5.3); the `trainset` tool.
//! - [`nn`]: the 3-12-2 node-classification network (§5.4).
//! - [`nntrain`]: its on-line back-propagation training (§5.4, Table 5.1);
//!   the `nntrain` tool.
//! - [`classify`]: node-classification schemes A, B and C scored over a
//!   sequential search (§5.5); the `classify` tool. Its `node_types` holds
//!   the typing rules themselves ([`classify::NodeType`],
//!   [`classify::DtsNode`], [`classify::nn_node`]), which the simulator's
//!   split schemes share.
//! - [`policy`]: what a shared-memory parallel search is asked to be: the
//!   idle policy (the DTS-like search, PV splitting, work stealing, active
//!   splitting, Lazy SMP) and its split-point scheme (A, B, C) as one typed
//!   configuration, one file per policy (with how each machine runs it) and
//!   one registry (§6.2–6.3); the
//!   parameters they share, with their defaults, option names, limits and
//!   row columns, are [`params`], below both machines.
//! - [`request`]: what a shared-memory run is asked, whichever machine
//!   runs it (simulated or real threads): the request and its parameter
//!   ranges, the options that fill it, its expansion into configurations
//!   (§6.2–6.3), scheme C's network per group of trees, the `seed` column
//!   of rows; and the request run on each machine ([`request::sim`],
//!   [`request::real`]).
//! - [`schemes`]: split-point selection, schemes A, B and C (§6.3:
//!   `YbwcSplit`, `ConfidenceSplit`, `NetworkSplit`), shared by the
//!   simulated machine and the real threads.
//! - [`sim`]: PABSim, the simulated multiprocessor and the parallel search
//!   run on it (chapter 6); the `pabsim` tool:
//!   - [`sim::memory`]: caches, directory, delay tables, busy blocks (§6.1);
//!   - [`sim::sched`]: per-processor clocks, smallest clock first (§6.1);
//!   - [`sim::engine`]: the parallel search, a folder of rooms: `spec`
//!     (what a run is asked), `stats` (what it measured), `machine` (the
//!     shared data and the run loop), `types` (what the rooms share),
//!     `executor` (futures, access steps, waiter groups, charging),
//!     `locks`, `heap` (nodes and node heaps), `states` (one routine per
//!     thesis state) and `idle/` (the split state's hand-over to the
//!     policy) (§6.2);
//!   - its runs, many (tree, configuration) items in parallel, shards, and
//!     the final per-tree or per-configuration table, are
//!     [`request::sim`].
//! - [`real`]: the same shared-memory searches on this machine's OS
//!   threads (beyond the thesis; the `psearch` tool): the shared node heap
//!   ([`real::heap`]) behind [`real::heap::HeapPolicy`], the trait a
//!   policy implements on real threads ([`real::RealSearch`]), Lazy SMP ([`real::lazy`]),
//!   the one-thread path and the search below shared nodes
//!   ([`real::seq`]), each run checked against the sequential search
//!   ([`request::real`]).
//! - [`cluster`]: beyond shared memory, the message-passing machines
//!   (`docs/model.md` §9): one core against a transport, the simulated
//!   cluster, the sequential baseline with iterative deepening and a
//!   transposition table, OthelloX's root-splitting baselines, Ura et
//!   al.'s master-worker, YBWC over messages, each algorithm with its own
//!   parameters ([`cluster::ClusterAlgorithm`]) mapped to its processes in
//!   one place; `pabsim --machine cluster`;
//!   with the feature `mpi`, the real transport on MPI ranks
//!   (`cluster::exec::mpi`, `psearch --mpi`).
//! - [`formats`]: the tables the tools exchange (CSV rows, JSON lines), as
//!   serde types with strict readers (`docs/formats.md`); tree specs are
//!   read by [`tree`], position files by [`game`].
//! - [`cli`]: command-line plumbing, not a thesis concept: the one `main`
//!   shape, inputs from a path or stdin, atomic file outputs, thread count,
//!   the argument parsers the tools share, and the line reading every
//!   reader shares.
//! - [`progress`]: progress bars on stderr for the long stages, shown only on
//!   a terminal.
//! - [`limits`]: the memory this process may still take (available
//!   memory, `ulimit -v`, its cgroup's limit), the default budget of
//!   `pabsim --memory` and `trainset`.
//! - `macros` (crate-private): `require!`, `named!` and `row!`, one home
//!   each.
//!
//! `docs/architecture.md` is the short map of how these fit together.

// A library user reads these docs: a link to a missing or private item is an
// error wherever they are built (`make test` builds them with -D warnings too).
#![deny(rustdoc::broken_intra_doc_links, rustdoc::private_intra_doc_links)]

pub mod classify;
pub mod cli;
pub mod cluster;
pub mod fbest;
pub mod formats;
pub mod game;
pub mod limits;
mod macros;
pub mod nn;
pub mod nntrain;
pub mod params;
pub mod policy;
pub mod progress;
pub mod real;
pub mod request;
pub mod rng;
pub mod schemes;
pub mod search;
pub mod seeds;
pub mod sim;
pub mod trace;
pub mod trainset;
pub mod tree;
pub mod tt;
pub mod value;
