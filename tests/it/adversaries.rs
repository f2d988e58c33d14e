//! The adversarial suite, one module per party that can attack a node: each attack runs
//! against the real `veritas` binary and a real anvil (the book's threat model, book/src/threat-model.md, lists them
//! with what Veritas does about each).
//!
//! - [`api`]: a flood of the API's chain-reading requests.
//! - [`asker`]: hostile asks (extreme `resolveAfter`, hostile and invalid text).
//! - [`rpc`]: a lying `eth_getLogs`.
//! - [`supervision`]: what a panic left for an input to find costs (a job, or a loud stop).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod api;
mod asker;
mod rpc;
mod supervision;
