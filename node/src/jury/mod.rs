//! The Monte Carlo committee: archetypes, the seeded sampler, jurors and their ballots.
//!
//! A committee runs T iterations; in each it draws M (archetype, juror) pairs with a ChaCha20
//! RNG seeded from values the chain fixed before any evidence existed ([`seed`], [`sampler`]), asks every drawn juror for a ballot in
//! parallel ([`committee`]), and after each iteration checks the auditor specification's KL rule to stop
//! early. A ballot that fails (transport error, malformed or invalid answer) is kept in the
//! report with its reason but never counted.
//!
//! - [`archetype`]: juror personas, loaded from TOML files (`archetypes/` in the repository).
//! - [`ballot`]: the ballot JSON, its per-question JSON Schema and its validation.
//! - [`juror`]: the [`juror::Juror`] trait and the chat juror (any [`crate::llm::ChatModel`]).
//! - [`local`]: the embedded llama.cpp juror (next-token probabilities of YES / NO / NULL).
//! - [`replay`]: a scripted juror for tests and load runs.
//! - [`seed`]: where the committee seed comes from (the chain, or the evidence off-chain).
//! - [`sampler`]: the reproducible weighted draws from that seed.
//! - [`committee`]: the iteration loop, concurrency limit and early stopping.
//! - [`pool`]: building jurors from configuration.

pub mod archetype;
pub use veritas_core::ballot;
pub mod committee;
pub mod juror;
pub mod local;
pub mod pool;
pub mod replay;
pub mod sampler;
pub mod seed;

pub use archetype::Archetype;
pub use ballot::{BallotContent, BallotError, BallotRow, Usage};
pub use committee::{CommitteeConfig, CommitteeRun, run_committee};
pub use juror::{BallotTask, ChatJuror, Juror, JurorAnswer, JurorError};
pub use sampler::{Sampler, committee_seed};
pub use seed::{SeedInputs, SeedSource};
