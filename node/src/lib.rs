//! Veritas: an AI oracle node that resolves subjective questions for smart contracts.
//!
//! # Layout
//!
//! The modules follow one question through the node (see "Data flow and code layout" in the README and the book's operator guide):
//!
//! - [`bundle`]: the question and its evidence items, the shape everything else passes around.
//!   This and the other modules without I/O ([`commitment`], [`stats`], [`decimal`],
//!   [`secret`], the [`config`] tree, [`jury::ballot`]) live in the `veritas-core` crate, which
//!   the fuzz targets build alone; they are re-exported here at the same paths.
//! - [`question`]: what the question text alone says: yes/no or not, its key terms, and which
//!   evidence bears on it (pure; the planner and routing both read it).
//! - [`config`]: the one typed configuration tree every command reads (defaults < TOML file <
//!   `VERITAS__*` env < flags; unknown keys refused in every section), and the operator's key.
//! - [`contract`]: what the node knows of the contracts in one place: bindings, the rules they
//!   enforce (`roles`), their views (`reader`), their errors as sentences (`explain`), the
//!   reference court.
//! - [`chain`]: the connection, its bounded JSON-RPC transport and `ChainError` with its
//!   classifiers.
//! - [`watcher`]: where a question enters: the `QuestionAsked` scan behind confirmations, and
//!   `watcher::events`, the logs decoded into the checked types the store keeps.
//! - [`poster`]: where a verdict leaves: `submitReport` exactly once (intents, signed
//!   transactions recorded before they are sent, receipts, commit–reveal).
//! - [`devnet`]: anvil and the oracle deployed on it (`veritas demo`); anvil's test keys only
//!   with the `test-utils` feature.
//! - [`llm`]: model clients shared by the planner and the jurors.
//! - [`evidence`]: the search planner, the collectors and the bundle rules.
//! - [`commitment`]: RFC 6962 Merkle commitment of the question and its evidence (pure), and
//!   `commitment::root`, the one root type everything else holds.
//! - [`jury`]: archetypes, the seeded committee sampler, jurors and their ballots.
//! - [`stats`]: posterior, 1e18 fixed point, credible intervals, kappa, n_eff, entropy (pure).
//! - [`policy`]: routing: resolve automatically or escalate to the arbiter.
//! - [`report`]: the typed per-question report auditors rebuild verdicts from.
//! - [`verdict`]: the contract's pooling of several reports into one verdict, and the verdict
//!   as the chain states it (pure; the chain reader returns it, the audit compares with it).
//! - [`decimal`]: the JSON form of big integers (decimal strings), written and read in one place.
//! - [`pipeline`]: [`pipeline::resolve`], the one path from a question to its [`report::Report`]
//!   (evidence, one commitment, committee, stats, routing) that `veritas resolve`, `eval`,
//!   `demo` and the daemon all call.
//! - [`store`]: node state in SQLite, split by concern (schema, jobs, intents, transactions),
//!   with typed `U256`/`B256`/`I256` columns.
//! - [`clock`]: the node's one wall clock, injectable (a manual clock in tests).
//! - [`audit`]: rebuild a verdict from its report and compare it with the chain; `audit::pooled`
//!   compares a verdict pooled from several operators' reports.
//! - [`daemon`]: `veritas run`: watcher, scheduler, poster and HTTP API under one shutdown;
//!   the job runner (`daemon::jobs`: report file, intent, post), the evidence gate, the
//!   lifecycle follower and the provisional runs.
//! - [`tasks`]: the daemon's named long-running tasks under supervision (none ends silently).
//! - [`metrics`]: the counters and latencies the pipeline records and the API exports.
//! - [`api`]: the read-only HTTP API (health, metrics, questions, bundles).
//! - [`live`]: the ordered, bounded log of live events (status changes, ballots, reports).
//! - [`overview`]: the question list the web view shows, announced live on every change the
//!   store reports.
//! - [`web`]: the live committee view at `/` and its server-sent event stream.
//! - [`retry`]: the one backoff policy (full jitter, `Retry-After`) of every client and loop.
//! - [`http_limits`]: the one bounded reader of HTTP answer bodies (model server, search API).
//! - [`secret`]: the one secret type (keys and passwords that never print).
//! - [`plot`]: the SVG charts of `veritas eval`.
//! - [`cli`]: one file per `veritas` subcommand; nothing outside it imports from it.
//! - [`crashpoint`]: test-only self-SIGKILL at named pipeline points (debug builds only).
//!
//! Pure code (statistics, commitment) does no I/O and is not async: the daemon and the
//! auditor's `veritas audit` call the very same functions.
//!
//! # Layers
//!
//! A module imports (`crate::…`) only modules of a *lower* layer than its own; two modules of
//! one layer never import each other, and the submodules of one module never import each other
//! in a cycle. Arrows point down, so there is no import cycle and a reader can learn the code
//! bottom-up. A row may name a submodule that sits below the rest of its module
//! (`watcher::events`: the decoded events the store keeps). The unit test
//! `layers::arrows_point_down` reads every `crate::` and `super::` path under `src/` and checks
//! it against this table, so an arrow up or a cycle fails CI; a new module must be added here.
//!
//! | layer | modules |
//! |---|---|
//! | 0 | `bundle`, `commitment`, `config`, `decimal`, `secret`, `stats` |
//! | 1 | `clock`, `contract`, `crashpoint`, `http_limits`, `live`, `metrics`, `plot`, `tasks` |
//! | 2 | `devnet`, `retry`, `watcher::events` |
//! | 3 | `llm`, `question`, `store`, `verdict` |
//! | 4 | `chain`, `evidence`, `jury`, `policy` |
//! | 5 | `contract::plan`, `contract::reader`, `overview`, `report`, `watcher` |
//! | 6 | `audit`, `poster` |
//! | 7 | `pipeline`, `web` |
//! | 8 | `api` |
//! | 9 | `daemon` |
//! | 10 | `cli` |

// A function over 100 lines (clippy.toml) does several jobs: split it. The test crates keep long
// scenario functions, so the lint is on here, not in the workspace's lints.
#![warn(clippy::too_many_lines)]

pub mod api;
pub mod audit;
pub mod chain;
pub mod cli;
pub mod clock;
pub mod config;
pub mod contract;
pub mod crashpoint;
pub mod daemon;
pub mod devnet;
pub mod evidence;
pub mod http_limits;
pub mod jury;
pub mod live;
pub mod llm;
pub mod metrics;
pub mod overview;
pub mod pipeline;
pub mod plot;
pub mod policy;
pub mod poster;
pub mod question;
pub mod report;
pub mod retry;
pub mod store;
pub mod tasks;
pub mod verdict;
pub mod watcher;
pub mod web;

// The modules without I/O live in their own crate, which the fuzz targets build alone; they keep
// their paths here (`veritas::stats`, `crate::stats`).
pub use veritas_core::{bundle, commitment, decimal, secret, stats};

#[cfg(test)]
mod layers;

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
