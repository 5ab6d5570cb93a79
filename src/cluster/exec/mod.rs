//! The executor of the message-passing searches, kept apart from the
//! algorithms (`docs/model.md` §9): what a process may use
//! ([`transport`]), the simulated cluster that runs processes by discrete
//! events ([`machine`] over [`events`]) on a network of a shape
//! ([`topology`]) with processes of one speed or several ([`speeds`]), and the real transport on MPI ranks (`mpi`, with the
//! feature `mpi`). Nothing here names an algorithm: a process is anything
//! implementing [`transport::Process`]. A run may be watched by a
//! [`record::Recorder`] (a trace), compiled out when it is not.

pub mod events;
pub mod machine;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod record;
pub mod speeds;
pub mod topology;
pub mod transport;
