//! Veritas: an AI oracle node that resolves subjective questions for smart contracts.
//!
//! # Layout
//!
//! The modules follow one question through the node (see `DESIGN.md` §1 of the project docs):
//!
//! - [`bundle`]: the question and its evidence items, the shape everything else passes around.
//! - [`config`]: one typed configuration tree (defaults < TOML file < `VERITAS__*` env < flags).
//! - [`chain`]: contract bindings, the `QuestionAsked` watcher and the verdict poster.
//! - [`llm`]: model clients shared by the planner and the jurors.
//! - [`evidence`]: the search planner, the collectors and the bundle rules.
//! - [`commitment`]: RFC 6962 Merkle commitment of the question and its evidence (pure).
//! - [`jury`]: archetypes, the seeded committee sampler, jurors and their ballots.
//! - [`stats`]: posterior, 1e18 fixed point, credible intervals, kappa, n_eff, entropy (pure).
//! - [`policy`]: routing: resolve automatically or escalate to the arbiter.
//! - [`report`]: the per-question report file auditors rebuild verdicts from.
//! - [`store`]: node state in SQLite (cursor, jobs, intent to post).
//! - [`pipeline`]: runs one question through evidence, commitment, committee, routing and post.
//! - [`audit`]: rebuild a verdict from its report and compare it with the chain.
//! - [`daemon`]: `veritas run`: watcher, scheduler, poster and HTTP API under one shutdown.
//! - [`api`]: the read-only HTTP API (health, metrics, questions, bundles).
//! - [`cli`]: one file per `veritas` subcommand.
//! - [`crashpoint`]: test-only self-SIGKILL at named pipeline points (debug builds only).
//!
//! Pure code (statistics, commitment) does no I/O and is not async: the daemon and the
//! auditor's `veritas audit` call the very same functions.

pub mod api;
pub mod audit;
pub mod bundle;
pub mod chain;
pub mod cli;
pub mod commitment;
pub mod config;
pub mod crashpoint;
pub mod daemon;
pub mod evidence;
pub mod jury;
pub mod llm;
pub mod pipeline;
pub mod policy;
pub mod report;
pub mod stats;
pub mod store;

/// The gates' self-test (`scripts/test-gates.sh`) proves that a failing Rust test fails
/// `make test-rust` by arming this test with `VERITAS_GATE_CANARY`; unarmed, it passes.
#[cfg(test)]
mod gate_canary {
    #[test]
    fn gate_canary() {
        assert!(
            std::env::var_os("VERITAS_GATE_CANARY").is_none(),
            "gate canary: failing on purpose"
        );
    }
}
