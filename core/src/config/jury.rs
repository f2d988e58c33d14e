//! The `[jury]` section: the juror pool, the archetypes' weights and the committee loop. The
//! node's `jury` builds the committee from it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::model::{LocalModelConfig, OpenAiConfig};
use crate::stats::{EarlyStopping, Outcome};

/// The `[jury]` configuration section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JuryConfig {
    /// A folder of archetype TOML files replacing the shipped five.
    pub archetypes_dir: Option<PathBuf>,
    /// Integer sampling weight per archetype name (missing names weigh 1), at most 1,000,000.
    pub archetype_weights: BTreeMap<String, u64>,
    /// The juror pool.
    pub jurors: Vec<JurorConfig>,
    /// The committee loop.
    pub committee: CommitteeConfig,
}

impl Default for JuryConfig {
    /// The shipped archetypes, uniformly weighted, and one embedded juror.
    fn default() -> Self {
        Self {
            archetypes_dir: None,
            archetype_weights: BTreeMap::new(),
            jurors: vec![JurorConfig {
                weight: 1,
                kind: JurorKind::Local(LocalJurorConfig::default()),
            }],
            committee: CommitteeConfig::default(),
        }
    }
}

/// One pool member.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JurorConfig {
    /// Integer sampling weight, at most 1,000,000.
    #[serde(default = "one")]
    pub weight: u64,
    /// What kind of juror, and its settings.
    #[serde(flatten)]
    pub kind: JurorKind,
}

fn one() -> u64 {
    1
}

/// The kinds of juror.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum JurorKind {
    /// The embedded llama.cpp model.
    Local(LocalJurorConfig),
    /// An OpenAI-compatible server.
    Openai(OpenAiConfig),
    /// A scripted juror for tests and load runs (never a default).
    Replay(ReplayConfig),
}

/// The embedded juror's settings (default: the shipped model, no calibration).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LocalJurorConfig {
    /// Model file and runtime.
    #[serde(flatten)]
    pub model: LocalModelConfig,
    /// Contextual calibration (divide by the content-free distribution).
    pub calibrate: bool,
}

/// The replay juror's settings: a fixed `vote` or a JSONL `script`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReplayConfig {
    /// Label in ballots.
    pub label: String,
    /// Always answer this vote.
    pub vote: Option<Outcome>,
    /// Or answer these lines in turn.
    pub script: Option<PathBuf>,
    /// Wait before answering.
    #[serde(with = "humantime_serde")]
    pub delay: Duration,
}

impl Default for ReplayConfig {
    fn default() -> Self {
        Self {
            label: "replay".to_owned(),
            vote: None,
            script: None,
            delay: Duration::ZERO,
        }
    }
}

/// The committee's shape and stopping rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CommitteeConfig {
    /// T: the most iterations run.
    pub iterations: u32,
    /// M: ballots per iteration.
    pub ballots_per_iteration: u32,
    /// KL early stopping (ε bits, τ iterations, minimum valid ballots before stopping).
    pub stopping: EarlyStopping,
    /// Turn early stopping off (always run T iterations), e.g. to measure its savings.
    pub early_stopping: bool,
    /// Ballots in flight at once.
    pub concurrency: usize,
    /// Deadline of one ballot, retries included; a late ballot fails.
    #[serde(with = "humantime_serde")]
    pub ballot_timeout: Duration,
}

impl Default for CommitteeConfig {
    /// T = 10, M = 3, ε = 0.02 bit, τ = 2 (see [`EarlyStopping`]), 6 ballots before stopping, 3 ballots
    /// in flight (one iteration), 120 s per ballot.
    fn default() -> Self {
        Self {
            iterations: 10,
            ballots_per_iteration: 3,
            stopping: EarlyStopping::default(),
            early_stopping: true,
            concurrency: 3,
            ballot_timeout: Duration::from_secs(120),
        }
    }
}
