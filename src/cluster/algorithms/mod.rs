//! The message-passing algorithms (`docs/model.md` §9), each in its own
//! file or folder, and the pieces several of them share.

pub mod fox;
pub mod frontier;
pub mod master_worker;
pub mod piece;
pub mod pv_split;
pub mod root_split;
pub mod ybwc;
