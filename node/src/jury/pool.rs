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

use std::path::PathBuf;
use std::sync::Arc;

use super::archetype::{Archetype, ArchetypeError};
use super::committee::{Committee, PoolMember};
use super::juror::{ChatJuror, Juror, JurorError};
use super::local::LocalJuror;
use super::replay::{ReplayJuror, Script};
use crate::llm::LlmError;
use crate::llm::llama::{LocalModel, LocalModelConfig, resolve_model_path};
use crate::llm::openai::OpenAiChat;
pub use veritas_core::config::jury::{
    JurorConfig, JurorKind, JuryConfig, LocalJurorConfig, ReplayConfig,
};

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

/// The archetypes of a `[jury]` section, in sampler order.
///
/// # Errors
/// [`ArchetypeError`] for an unreadable or invalid folder.
pub fn archetypes(config: &JuryConfig) -> Result<Vec<Archetype>, ArchetypeError> {
    match &config.archetypes_dir {
        Some(dir) => Archetype::load_dir(dir),
        None => Ok(Archetype::shipped()),
    }
}

/// Build the committee a `[jury]` section describes: load archetypes, the models and the
/// clients.
///
/// Local jurors with the same model file share one loaded model.
///
/// # Errors
/// [`PoolError`] naming the juror or archetype at fault.
pub fn build(config: &JuryConfig) -> Result<Committee, PoolError> {
    let archetypes = archetypes(config)?;
    for name in config.archetype_weights.keys() {
        if !archetypes.iter().any(|a| &a.name == name) {
            return Err(PoolError::UnknownArchetype(name.clone()));
        }
    }
    let archetype_weights = archetypes
        .iter()
        .map(|a| config.archetype_weights.get(&a.name).copied().unwrap_or(1))
        .collect();
    if config.jurors.is_empty() {
        return Err(PoolError::Empty);
    }
    let mut models = Models::default();
    let mut jurors = Vec::new();
    for (index, j) in config.jurors.iter().enumerate() {
        let juror = juror(&j.kind, &archetypes, &mut models)
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
        config: config.committee.clone(),
    })
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

/// The juror a pool member's kind describes.
fn juror(
    kind: &JurorKind,
    archetypes: &[Archetype],
    models: &mut Models,
) -> Result<Arc<dyn Juror>, JurorError> {
    Ok(match kind {
        JurorKind::Local(c) => Arc::new(LocalJuror::new(
            models.get(&c.model)?,
            archetypes.to_vec(),
            c.calibrate,
        )),
        JurorKind::Openai(c) => {
            let client = OpenAiChat::new(c.clone())?;
            Arc::new(ChatJuror::new(
                Arc::new(client),
                c.temperature,
                c.max_tokens,
            ))
        }
        JurorKind::Replay(c) => {
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::llm::openai::OpenAiConfig;
    use crate::stats::Outcome;

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
        let committee = build(&c).unwrap();
        assert_eq!(committee.archetypes.len(), 5);
        assert_eq!(committee.archetype_weights, [1; 5]);
        c.archetype_weights.insert("Nobody".into(), 2);
        assert!(matches!(build(&c), Err(PoolError::UnknownArchetype(_))));
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
        let err = build(&c).unwrap_err().to_string();
        assert!(err.contains("VERITAS_TEST_SURELY_UNSET_KEY"), "{err}");
    }
}
