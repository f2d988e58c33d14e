//! The jury's configuration and how it becomes a [`Committee`]: archetypes, jurors, weights.
//!
//! ```toml
//! [jury]
//! archetypes_dir = "my-archetypes"        # optional; replaces the five shipped personas
//! archetype_weights = { "Skeptic" = 2 }   # optional; others weigh 1
//!
//! [[jury.jurors]]
//! kind = "local"                          # the offline default
//! weight = 1
//!
//! [[jury.jurors]]
//! kind = "openai"
//! base_url = "https://openrouter.ai/api/v1"
//! model = "meta-llama/llama-3.1-8b-instruct"
//! api_key_env = "OPENROUTER_API_KEY"
//! weight = 2
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::archetype::{Archetype, ArchetypeError};
use super::committee::{Committee, CommitteeConfig, PoolMember};
use super::juror::{ChatJuror, Juror, JurorError};
use super::local::LocalJuror;
use super::replay::{ReplayJuror, Script};
use crate::llm::LlmError;
use crate::llm::llama::{LocalModel, LocalModelConfig, resolve_model_path};
use crate::llm::openai::{OpenAiChat, OpenAiConfig};
use crate::stats::Outcome;

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

/// Why the pool could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// Archetypes could not be loaded.
    #[error(transparent)]
    Archetype(#[from] ArchetypeError),
    /// A juror could not be built.
    #[error("juror {index}: {source}")]
    Juror {
        /// Position in `jury.jurors`.
        index: usize,
        /// Why.
        source: JurorError,
    },
    /// A weight names an archetype that does not exist.
    #[error("archetype_weights names unknown archetype {0:?}")]
    UnknownArchetype(String),
    /// The pool is empty.
    #[error("the jury has no juror")]
    Empty,
}

impl JuryConfig {
    /// The archetypes in sampler order.
    ///
    /// # Errors
    /// [`ArchetypeError`] for an unreadable or invalid folder.
    pub fn archetypes(&self) -> Result<Vec<Archetype>, ArchetypeError> {
        match &self.archetypes_dir {
            Some(dir) => Archetype::load_dir(dir),
            None => Ok(Archetype::shipped()),
        }
    }

    /// Build the committee: load archetypes, the models and the clients.
    ///
    /// Local jurors with the same model file share one loaded model.
    ///
    /// # Errors
    /// [`PoolError`] naming the juror or archetype at fault.
    pub fn build(&self) -> Result<Committee, PoolError> {
        let archetypes = self.archetypes()?;
        for name in self.archetype_weights.keys() {
            if !archetypes.iter().any(|a| &a.name == name) {
                return Err(PoolError::UnknownArchetype(name.clone()));
            }
        }
        let archetype_weights = archetypes
            .iter()
            .map(|a| self.archetype_weights.get(&a.name).copied().unwrap_or(1))
            .collect();
        if self.jurors.is_empty() {
            return Err(PoolError::Empty);
        }
        let mut models = Models::default();
        let mut jurors = Vec::new();
        for (index, j) in self.jurors.iter().enumerate() {
            let juror = j
                .kind
                .juror(&archetypes, &mut models)
                .map_err(|source| PoolError::Juror { index, source })?;
            jurors.push(PoolMember {
                juror,
                weight: j.weight,
            });
        }
        Ok(Committee {
            archetypes,
            archetype_weights,
            jurors,
            config: self.committee.clone(),
        })
    }
}

/// The local models loaded while building a pool, one per model file: jurors that name the
/// same file share it.
#[derive(Default)]
struct Models(Vec<(PathBuf, Arc<LocalModel>)>);

impl Models {
    /// The model of `config`'s file, loaded on first use.
    fn get(&mut self, config: &LocalModelConfig) -> Result<Arc<LocalModel>, JurorError> {
        let mut config = config.clone();
        config.path = resolve_model_path(&config.path);
        if let Some((_, model)) = self.0.iter().find(|(path, _)| *path == config.path) {
            return Ok(Arc::clone(model));
        }
        let model = Arc::new(LocalModel::load(&config)?);
        self.0.push((config.path, Arc::clone(&model)));
        Ok(model)
    }
}

impl JurorKind {
    /// The juror this configuration describes.
    fn juror(
        &self,
        archetypes: &[Archetype],
        models: &mut Models,
    ) -> Result<Arc<dyn Juror>, JurorError> {
        Ok(match self {
            Self::Local(c) => Arc::new(LocalJuror::new(
                models.get(&c.model)?,
                archetypes.to_vec(),
                c.calibrate,
            )),
            Self::Openai(c) => {
                let client = OpenAiChat::new(c.clone())?;
                Arc::new(ChatJuror::new(
                    Arc::new(client),
                    c.temperature,
                    c.max_tokens,
                ))
            }
            Self::Replay(c) => {
                let script = match (&c.vote, &c.script) {
                    (Some(v), None) => Script::Fixed(*v),
                    (None, Some(path)) => ReplayJuror::load_script(path)?,
                    _ => {
                        return Err(JurorError::Llm(LlmError::Unavailable(
                            "a replay juror needs exactly one of `vote` or `script`".to_owned(),
                        )));
                    }
                };
                Arc::new(ReplayJuror::new(c.label.clone(), script, c.delay))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_mixed_pool() {
        let text = r#"
            archetype_weights = { "Skeptic" = 2 }
            [committee]
            iterations = 15
            ballot_timeout = "30s"
            [[jurors]]
            kind = "local"
            calibrate = true
            [[jurors]]
            kind = "openai"
            model = "m"
            base_url = "http://127.0.0.1:9/v1"
            api_key_env = "SOME_KEY"
            weight = 3
            [[jurors]]
            kind = "replay"
            vote = "NULL"
        "#;
        let c: JuryConfig = toml::from_str(text).unwrap();
        assert_eq!(c.committee.iterations, 15);
        assert_eq!(c.committee.ballots_per_iteration, 3);
        assert_eq!(c.committee.ballot_timeout, Duration::from_secs(30));
        assert!(matches!(&c.jurors[0].kind, JurorKind::Local(l) if l.calibrate));
        assert!(matches!(&c.jurors[1].kind, JurorKind::Openai(o) if o.temperature == 0.8));
        assert_eq!(c.jurors[1].weight, 3);
        assert!(matches!(&c.jurors[2].kind, JurorKind::Replay(r) if r.vote == Some(Outcome::Null)));
    }

    #[test]
    fn builds_replay_pools_and_rejects_unknown_weights() {
        let mut c = JuryConfig {
            jurors: vec![JurorConfig {
                weight: 1,
                kind: JurorKind::Replay(ReplayConfig {
                    vote: Some(Outcome::Yes),
                    ..ReplayConfig::default()
                }),
            }],
            ..JuryConfig::default()
        };
        let committee = c.build().unwrap();
        assert_eq!(committee.archetypes.len(), 5);
        assert_eq!(committee.archetype_weights, [1; 5]);
        c.archetype_weights.insert("Nobody".into(), 2);
        assert!(matches!(c.build(), Err(PoolError::UnknownArchetype(_))));
    }

    #[test]
    fn a_missing_api_key_is_named_but_never_shown() {
        let c = JuryConfig {
            jurors: vec![JurorConfig {
                weight: 1,
                kind: JurorKind::Openai(OpenAiConfig {
                    api_key_env: Some("VERITAS_TEST_SURELY_UNSET_KEY".into()),
                    ..OpenAiConfig::default()
                }),
            }],
            ..JuryConfig::default()
        };
        let err = c.build().unwrap_err().to_string();
        assert!(err.contains("VERITAS_TEST_SURELY_UNSET_KEY"), "{err}");
    }
}
