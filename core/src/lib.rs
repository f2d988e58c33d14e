//! Veritas's code that needs no network, chain, database or model: the question and its
//! evidence, their Merkle commitment, the committee's statistics, the ballot and its checks,
//! the configuration tree, and the line-by-line halves of the offline commands.
//!
//! The node (`veritas-node`, library `veritas`) re-exports every module at the same path
//! (`veritas::stats`, `veritas::jury::ballot`, `veritas::config`), so nothing outside needs to
//! know this crate exists; the fuzz targets depend on it alone and build none of the node's
//! I/O (its HTTP clients, runtime, SQLite, search index and chain client).
//!
//! Pure code (statistics, commitment) does no I/O and is not async; the configuration reads
//! its file and environment, and nothing here opens a socket.
//!
//! # Layers
//!
//! As in the node: a module imports (`crate::…`) only modules of a lower layer, checked by the
//! node's `layers::core_arrows_point_down` against this table.
//!
//! | layer | modules |
//! |---|---|
//! | 0 | `bundle`, `decimal`, `secret` |
//! | 1 | `commitment`, `stats` |
//! | 2 | `ballot`, `config`, `lines`, `sql` |

// A function over 100 lines (clippy.toml) does several jobs: split it.
#![warn(clippy::too_many_lines)]

pub mod ballot;
pub mod bundle;
pub mod commitment;
pub mod config;
pub mod decimal;
pub mod lines;
pub mod secret;
#[cfg(feature = "sql")]
pub mod sql;
pub mod stats;
