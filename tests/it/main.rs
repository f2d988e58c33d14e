//! The integration tests, one binary (as reth and foundry do): each former `tests/*.rs` file is
//! a module here, and the shared fixtures are [`support`]. Every test target links the whole
//! crate and llama.cpp, so one binary links once instead of once per file.
//!
//! Run one area with a filter on the module path, e.g. `cargo test -p veritas-node --test it
//! node_e2e::` or `cargo test -p veritas-node --test it load:: -- --ignored --nocapture`.
//!
//! All tests share one process: nothing here may set process-wide state (environment
//! variables, the working directory, a global tracing subscriber). The node runs as a child
//! process with its own environment (`support::Node::start_with_env`), and the tests that time
//! something hold [`support::measuring`] so no other long test runs beside them.
//! `tests/bounded_http.rs` stays its own binary: it counts this process's allocations.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

mod adversaries;
mod alert_metrics;
mod audit_tamper;
mod bad_input;
mod chain_parts;
mod clarifications;
mod cli_convention;
mod commit_reveal;
mod crash_anywhere;
mod doctor;
mod evidence_demo;
mod jury_committee;
mod latency;
mod llama_server;
mod load;
#[cfg(feature = "llama")]
mod local_juror;
mod multi_node;
mod node_e2e;
mod not_yet;
mod openai_juror;
mod pooled_e2e;
mod quickstart;
mod reliability_rpc;
mod roles_cli;
#[cfg(feature = "llama")]
mod routing_guards;
mod secrets;
mod spec_check;
mod submitted_evidence;
mod tavily_protocol;
mod web_view;
mod web_wallet;
