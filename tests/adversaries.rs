//! The adversarial suite, one module per party that can attack a node: each attack runs
//! against the real `veritas` binary and a real anvil (README, "Threat model", lists them
//! with what Veritas does about each).
//!
//! - [`asker`]: hostile asks (extreme `resolveAfter`, hostile and invalid text).
//! - [`rpc`]: a lying `eth_getLogs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

#[path = "adversaries/asker.rs"]
mod asker;
#[path = "adversaries/rpc.rs"]
mod rpc;
