//! One typed configuration tree: built-in defaults < TOML file < `VERITAS__*` env < CLI flags.
//!
//! [`Config::load`] applies the layers in exactly that order, each one overriding the keys it
//! names and nothing else:
//!
//! 1. built-in defaults (`#[serde(default)]` on every section, values documented on `Default`);
//! 2. the TOML file (`veritas.toml` by default; see `veritas.example.toml` at the repo root);
//! 3. environment variables `VERITAS__<SECTION>__<KEY>`, e.g. `VERITAS__CHAIN__RPC_URL`;
//! 4. command-line flags, passed as dotted-key overrides (`chain.rpc_url`).
//!
//! Every section denies unknown keys (the `jury`, `evidence`, `routing` and `planner_model`
//! sections too, whose types are in [`jury`], [`evidence`], [`routing`] and [`model`]), so a
//! typo fails at start with a message naming the key instead of being silently ignored. The
//! one exception is an embedded (`kind = "local"`) juror, whose model keys are flattened into
//! it, which serde cannot check. Every command reads this one tree: `veritas run --config` and
//! `veritas resolve --config` take the same file.
//!
//! Secrets never live in this tree: the operator key and API keys come from the environment
//! (or an encrypted JSON keystore whose password comes from the environment or a file) and are
//! held in [`Secret`], whose `Debug` and `Display` redact.

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    time::Duration,
};

use alloy_primitives::{Address, U256};
use serde::{Deserialize, Serialize};

pub use crate::secret::Secret;

pub mod evidence;
pub mod jury;
pub mod model;
pub mod routing;

/// The prefix of configuration environment variables (`VERITAS__CHAIN__RPC_URL`).
pub const ENV_PREFIX: &str = "VERITAS";
/// The separator between prefix, section and key in configuration environment variables.
pub const ENV_SEPARATOR: &str = "__";
/// Environment variable holding the operator's hex private key.
pub const ENV_PRIVATE_KEY: &str = "VERITAS_PRIVATE_KEY";
/// Environment variable holding the password of the operator's keystore.
pub const ENV_KEYSTORE_PASSWORD: &str = "VERITAS_KEYSTORE_PASSWORD";

/// The largest sampling weight of an archetype or a juror: the sampler adds the weights in a
/// u64, and a configuration must write back as TOML (whose integers are i64). A huge number the
/// file layer saturates (`4.3e33` read as u64::MAX) is refused, not summed.
pub const MAX_WEIGHT: u64 = 1_000_000;

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file, an environment variable or a flag has a bad or unknown key or value.
    #[error(transparent)]
    Load(#[from] config::ConfigError),
    /// A value parsed but makes no sense.
    #[error("configuration key `{key}`: {reason}")]
    Invalid {
        /// Dotted key, e.g. `chain.confirmations`.
        key: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The deployment file that should name the oracle address is missing or malformed.
    #[error("deployment file {path}: {reason}")]
    Deployment {
        /// The file read.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// The operator key could not be loaded (the message never contains the key).
    #[error("operator key: {0}")]
    Secret(String),
}

/// The whole node configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// RPC endpoint, contract and how the chain is read and written.
    pub chain: ChainConfig,
    /// The daemon: concurrency, data directory, HTTP API, retries, shutdown.
    pub node: NodeConfig,
    /// Where the operator key comes from (paths only: secrets stay in env or keystore).
    pub keys: KeysConfig,
    /// Juror pool, archetypes and the committee loop (T, M, ε, τ, minimum ballots); the jury's
    /// own type.
    pub jury: jury::JuryConfig,
    /// Planner, collectors and bundle rules; the evidence code's own type.
    pub evidence: evidence::EvidenceConfig,
    /// Routing thresholds; the policy's own type.
    pub routing: routing::RoutingPolicy,
    /// The OpenAI-compatible model that plans evidence searches (queries and rubric), set
    /// like a juror's model; absent, the fallback plan (the question and its key terms) is
    /// used. `veritas resolve` and the daemon read the same section.
    pub planner_model: Option<model::OpenAiConfig>,
}

/// The chain side: RPC, oracle contract, confirmations, polling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChainConfig {
    /// JSON-RPC HTTP endpoint (anvil, a Sepolia provider, ...).
    pub rpc_url: String,
    /// Expected chain id; the node refuses to start if the RPC reports another. `None`: take
    /// whatever the RPC reports.
    pub chain_id: Option<u64>,
    /// The VeritasOracle address. `None`: read it from `<deployments_dir>/<chainId>.json`.
    pub oracle: Option<Address>,
    /// Directory of the deploy script's `<chainId>.json` files.
    pub deployments_dir: PathBuf,
    /// A log is acted on once its block has this many confirmations (1 = the head block).
    pub confirmations: u64,
    /// How often the head is polled for new logs.
    #[serde(with = "humantime_serde")]
    pub poll_interval: Duration,
    /// Largest `eth_getLogs` block range; halved whenever the RPC refuses a range.
    pub max_log_range: u64,
    /// First block to scan when the store has no cursor yet (the deployment block is ideal).
    pub start_block: u64,
    /// Blocks re-read below the persisted cursor on restart (duplicates are ignored).
    pub restart_overlap: u64,
    /// How long to wait for a verdict transaction's receipt before checking again.
    #[serde(with = "humantime_serde")]
    pub receipt_timeout: Duration,
    /// Per-request RPC timeout.
    #[serde(with = "humantime_serde")]
    pub rpc_timeout: Duration,
    /// How long a ready report waits for others to share one `submitReports` transaction
    /// (a stale report in a batch is skipped instead of reverting, and a report costs
    /// ~40% less gas in a batch of 20; see the gas table in the book's integrator guide).
    #[serde(with = "humantime_serde")]
    pub batch_window: Duration,
    /// Most reports in one transaction.
    pub max_batch: usize,
    /// Most wei the node stakes in all by topping its own stake up from the key's balance
    /// when a question's report bond exceeds the free stake (a decimal string); "0" never
    /// tops up, and the question waits until settled questions free their bonds or someone
    /// calls `stake` for the operator.
    #[serde(with = "crate::decimal")]
    pub stake_top_up_limit: U256,
}

impl Default for ChainConfig {
    fn default() -> Self {
        Self {
            rpc_url: "http://127.0.0.1:8545".into(),
            chain_id: None,
            oracle: None,
            deployments_dir: PathBuf::from("deployments"),
            // Three blocks (~36 s on Sepolia) keeps shallow reorgs out; anvil demos use 1.
            confirmations: 3,
            poll_interval: Duration::from_secs(2),
            // Public providers commonly cap eth_getLogs between 1k and 10k blocks.
            max_log_range: 2_000,
            start_block: 0,
            restart_overlap: 32,
            receipt_timeout: Duration::from_secs(120),
            rpc_timeout: Duration::from_secs(15),
            batch_window: Duration::from_millis(100),
            max_batch: 50,
            stake_top_up_limit: U256::ZERO,
        }
    }
}

/// The daemon itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NodeConfig {
    /// Questions whose committee runs at the same time (the CPU- or API-bound stage).
    pub concurrency: usize,
    /// Questions in flight at once, resolving or waiting for their transaction to be mined.
    /// Saved verdicts wait for blocks outside the `concurrency` limit, so the node keeps up to
    /// this many transactions pipelined instead of `concurrency` per block.
    pub max_in_flight: usize,
    /// Where the SQLite store and the reports live.
    pub data_dir: PathBuf,
    /// Address of the read-only HTTP API (localhost by default; it is not authenticated).
    pub http_addr: SocketAddr,
    /// Attempts before a question is marked failed (while resolving; a saved verdict is retried
    /// until it is on-chain).
    pub max_attempts: u32,
    /// Delay before the first retry; doubles on each further attempt.
    #[serde(with = "humantime_serde")]
    pub retry_backoff: Duration,
    /// Upper bound of the retry delay.
    #[serde(with = "humantime_serde")]
    pub max_retry_backoff: Duration,
    /// How long in-flight questions may take to finish after SIGINT/SIGTERM.
    #[serde(with = "humantime_serde")]
    pub drain_timeout: Duration,
    /// `/readyz` fails when the cursor lags the confirmed head by more than this many blocks.
    pub ready_max_lag: u64,
    /// What resolves questions: the LLM committee, or the scripted replay resolver (tests).
    pub resolver: ResolverKind,
    /// The replay script (JSON) when `resolver = "replay"`; `None` replays YES, YES, NO.
    pub replay_file: Option<PathBuf>,
    /// Call `finalize(id)` when the report window of a question this node reported on ran
    /// out before the quorum (the contract then posts it escalated).
    pub finalize_expired: bool,
    /// Call `settle(id)` when a Resolved verdict this node reported on is final, so the fee
    /// reaches the operators' credits (`veritas operator withdraw` pays them out).
    pub settle_final: bool,
    /// Shortest time between two provisional runs of one question (re-runs of the committee
    /// on evidence submitted on-chain while the question is open; never posted). Submissions
    /// that arrive meanwhile are coalesced into the next run. `0s` turns provisional runs off.
    #[serde(with = "humantime_serde")]
    pub provisional_interval: Duration,
    /// After `resolveAfter`, how long the final run waits for a block at or past it before
    /// trusting that no more evidence can be submitted (chains that mine only on demand).
    #[serde(with = "humantime_serde")]
    pub evidence_settle: Duration,
}

/// Which resolver the daemon runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResolverKind {
    /// Evidence, commitment, the LLM committee and routing (the product).
    #[default]
    Committee,
    /// Scripted votes, instant (tests and load runs only; see `pipeline::replay`).
    Replay,
}

impl Default for NodeConfig {
    fn default() -> Self {
        Self {
            concurrency: 4,
            max_in_flight: 256,
            data_dir: PathBuf::from("veritas-data"),
            http_addr: SocketAddr::from(([127, 0, 0, 1], 9464)),
            max_attempts: 5,
            retry_backoff: Duration::from_secs(5),
            max_retry_backoff: Duration::from_secs(600),
            drain_timeout: Duration::from_secs(30),
            ready_max_lag: 64,
            resolver: ResolverKind::Committee,
            replay_file: None,
            finalize_expired: true,
            settle_final: true,
            // One committee run per question per minute at most: a flood of submissions costs
            // at most 60 runs an hour, and each run sees every submission so far.
            provisional_interval: Duration::from_secs(60),
            // Longer than a Sepolia/mainnet slot (12 s), so a live chain always shows its first
            // block past `resolveAfter` first.
            evidence_settle: Duration::from_secs(15),
        }
    }
}

/// Where the operator key comes from. Only paths here: the key itself and the keystore
/// password are read from the environment ([`ENV_PRIVATE_KEY`], [`ENV_KEYSTORE_PASSWORD`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KeysConfig {
    /// An encrypted JSON keystore (Web3 Secret Storage) holding the operator key.
    pub keystore: Option<PathBuf>,
    /// A file holding the keystore password (used when `VERITAS_KEYSTORE_PASSWORD` is unset).
    pub keystore_password_file: Option<PathBuf>,
}

/// Where [`Config::load`] reads from, besides the defaults.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The TOML file; `None` reads `veritas.toml` in the working directory when it exists.
    pub file: Option<PathBuf>,
    /// Environment to read `VERITAS__*` from; `None` reads the process environment.
    pub env: Option<std::collections::HashMap<String, String>>,
    /// Flag overrides as (dotted key, value), applied last.
    pub overrides: Vec<(String, String)>,
}

/// The file read when no `--config` is given (optional).
pub const DEFAULT_FILE: &str = "veritas.toml";

impl Config {
    /// Load the configuration: defaults < TOML file < `VERITAS__*` env < flags.
    ///
    /// # Errors
    /// [`ConfigError::Load`] naming the bad key (unknown keys are refused) or file,
    /// [`ConfigError::Invalid`] when a value is out of range.
    pub fn load(sources: &Sources) -> Result<Self, ConfigError> {
        // 1. Defaults come from `#[serde(default)]` when a key is absent from every layer.
        let mut builder = config::Config::builder();
        // 2. The TOML file: required when named explicitly, optional otherwise.
        builder = match &sources.file {
            Some(path) => builder.add_source(config::File::from(path.as_path()).required(true)),
            None => builder.add_source(config::File::with_name(DEFAULT_FILE).required(false)),
        };
        // 3. Environment: VERITAS__SECTION__KEY (the crate lowercases the keys).
        let env = config::Environment::with_prefix(ENV_PREFIX)
            .prefix_separator(ENV_SEPARATOR)
            .separator(ENV_SEPARATOR)
            .try_parsing(true)
            .source(sources.env.clone());
        builder = builder.add_source(env);
        // 4. Flags.
        for (key, value) in &sources.overrides {
            builder = builder.set_override(key.as_str(), value.as_str())?;
        }
        let config: Config = builder.build()?.try_deserialize()?;
        config.validate()?;
        Ok(config)
    }

    /// Parse a TOML document alone (defaults < document), as the example-config test does.
    ///
    /// # Errors
    /// As [`Config::load`].
    pub fn from_toml_str(text: &str) -> Result<Self, ConfigError> {
        let config: Config = config::Config::builder()
            .add_source(config::File::from_str(text, config::FileFormat::Toml))
            .build()?
            .try_deserialize()?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |key, reason: &str| {
            Err(ConfigError::Invalid {
                key,
                reason: reason.into(),
            })
        };
        if self.chain.confirmations == 0 {
            return invalid(
                "chain.confirmations",
                "must be at least 1 (1 = the head block)",
            );
        }
        if self.chain.max_log_range == 0 {
            return invalid("chain.max_log_range", "must be at least 1");
        }
        if self.chain.poll_interval.is_zero() {
            return invalid("chain.poll_interval", "must be positive");
        }
        if self.node.concurrency == 0 {
            return invalid("node.concurrency", "must be at least 1");
        }
        if self.node.max_in_flight < self.node.concurrency {
            return invalid(
                "node.max_in_flight",
                "must be at least node.concurrency (every resolving question is in flight)",
            );
        }
        if self.node.max_attempts == 0 {
            return invalid("node.max_attempts", "must be at least 1");
        }
        let committee = &self.jury.committee;
        if committee.iterations == 0 || committee.ballots_per_iteration == 0 {
            return invalid(
                "jury.committee",
                "iterations and ballots_per_iteration must be at least 1",
            );
        }
        if self
            .jury
            .archetype_weights
            .values()
            .chain(self.jury.jurors.iter().map(|j| &j.weight))
            .any(|w| *w > MAX_WEIGHT)
        {
            return invalid(
                "jury",
                &format!("archetype_weights and juror weights must be at most {MAX_WEIGHT}"),
            );
        }
        let epsilon = committee.stopping.epsilon;
        if !(epsilon > 0.0 && epsilon.is_finite()) {
            return invalid(
                "jury.committee.stopping.epsilon",
                "must be a positive number",
            );
        }
        if url::Url::parse(&self.chain.rpc_url).is_err() {
            return invalid("chain.rpc_url", "is not a URL");
        }
        Ok(())
    }

    /// The oracle address: `chain.oracle` when set, else `<deployments_dir>/<chain_id>.json`.
    ///
    /// The deployment file is the deploy script's output; any of the keys `VeritasOracle`,
    /// `oracle` or `address` (top level or under `contracts`) is accepted.
    ///
    /// # Errors
    /// [`ConfigError::Deployment`] when there is no address and the file is missing or has none.
    pub fn oracle_address(&self, chain_id: u64) -> Result<Address, ConfigError> {
        if let Some(address) = self.chain.oracle {
            return Ok(address);
        }
        let path = self.chain.deployments_dir.join(format!("{chain_id}.json"));
        read_deployment(&path)
    }
}

/// The block to start scanning at: `chain.start_block` when set (non-zero), else the
/// `deployBlock` of `<deployments_dir>/<chain_id>.json` when the oracle comes from that file,
/// else 0.
pub fn start_block(config: &Config, chain_id: u64) -> u64 {
    if config.chain.start_block != 0 || config.chain.oracle.is_some() {
        return config.chain.start_block;
    }
    let path = config
        .chain
        .deployments_dir
        .join(format!("{chain_id}.json"));
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|json| match json.get("deployBlock") {
            Some(serde_json::Value::Number(n)) => n.as_u64(),
            Some(serde_json::Value::String(s)) => s.parse().ok(),
            _ => None,
        })
        .unwrap_or(0)
}

/// Read the oracle address from a deployment file.
///
/// # Errors
/// [`ConfigError::Deployment`] when the file is missing, not JSON, or names no address.
pub fn read_deployment(path: &Path) -> Result<Address, ConfigError> {
    let fail = |reason: String| ConfigError::Deployment {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| {
        fail(format!(
            "{e} (set chain.oracle, or deploy first: the deploy script writes this file)"
        ))
    })?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
    let candidates = [
        json.get("VeritasOracle"),
        json.get("oracle"),
        json.get("address"),
        json.get("contracts").and_then(|c| c.get("VeritasOracle")),
    ];
    let value = candidates
        .into_iter()
        .flatten()
        .find_map(|v| {
            v.as_str()
                .or_else(|| v.get("address").and_then(|a| a.as_str()))
        })
        .ok_or_else(|| fail("no `VeritasOracle`, `oracle` or `address` key".into()))?;
    value
        .parse()
        .map_err(|e| fail(format!("bad address {value:?}: {e}")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::collections::HashMap;

    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Option<HashMap<String, String>> {
        Some(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    fn write(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join("veritas.toml");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn defaults_alone_are_valid() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "");
        let config = Config::load(&Sources {
            file: Some(path),
            env: env(&[]),
            overrides: vec![],
        })
        .unwrap();
        assert_eq!(config, Config::default());
        assert_eq!(config.node.http_addr.ip().to_string(), "127.0.0.1");
    }

    #[test]
    fn layers_override_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "[chain]\nconfirmations = 5\npoll_interval = \"500ms\"\nmax_log_range = 10\n\
             [node]\nconcurrency = 2\n",
        );
        let sources = Sources {
            file: Some(path),
            env: env(&[
                ("VERITAS__CHAIN__CONFIRMATIONS", "7"),
                ("VERITAS__NODE__CONCURRENCY", "3"),
                ("VERITAS_PRIVATE_KEY", "not a config key"),
            ]),
            overrides: vec![("node.concurrency".into(), "9".into())],
        };
        let config = Config::load(&sources).unwrap();
        assert_eq!(config.chain.max_log_range, 10, "file beats default");
        assert_eq!(config.chain.poll_interval, Duration::from_millis(500));
        assert_eq!(config.chain.confirmations, 7, "env beats file");
        assert_eq!(config.node.concurrency, 9, "flag beats env");
        assert_eq!(
            config.chain.receipt_timeout,
            Duration::from_secs(120),
            "default kept"
        );
    }

    #[test]
    fn unknown_key_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "[chain]\nrpc_ur = \"http://x\"\n");
        let err = Config::load(&Sources {
            file: Some(path),
            env: env(&[]),
            overrides: vec![],
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("rpc_ur"), "{err}");
        let err = Config::load(&Sources {
            file: Some(write(dir.path(), "")),
            env: env(&[("VERITAS__NODE__CONCURENCY", "3")]),
            overrides: vec![],
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("concurency"), "{err}");
    }

    #[test]
    fn unknown_keys_are_refused_in_every_section() {
        for (doc, key) in [
            ("[jury]\njurorz = []\n", "jurorz"),
            ("[jury.committee]\niteratons = 3\n", "iteratons"),
            (
                "[jury.committee.stopping]\nepsilon = 0.1\ntau = 2\nmin_ballots = 1\ntua = 1\n",
                "tua",
            ),
            (
                "[[jury.jurors]]\nkind = \"openai\"\nmodel_name = \"x\"\n",
                "model_name",
            ),
            (
                "[[jury.jurors]]\nkind = \"replay\"\nvotes = \"YES\"\n",
                "votes",
            ),
            ("[evidence]\nplaner = {}\n", "planer"),
            ("[evidence.planner]\nmax_querys = 3\n", "max_querys"),
            ("[evidence.collectors.local]\ndirr = \"x\"\n", "dirr"),
            ("[evidence.collectors.tavily]\napi_key = \"x\"\n", "api_key"),
            ("[evidence.bundle]\nmax_item = 3\n", "max_item"),
            ("[routing]\nmin_kapa = 0.2\n", "min_kapa"),
            ("[planner_model]\nbase_ur = \"http://x\"\n", "base_ur"),
        ] {
            let err = Config::from_toml_str(doc)
                .err()
                .unwrap_or_else(|| panic!("accepted {doc:?}"))
                .to_string();
            assert!(err.contains(key), "{doc:?}: {err}");
        }
        let config = Config::from_toml_str(
            "[planner_model]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"planner\"\napi_key_env = \"\"\n",
        )
        .unwrap();
        assert_eq!(config.planner_model.unwrap().model, "planner");
    }

    /// Found by the `config` fuzz target: a float weight far past u64 was saturated to
    /// u64::MAX by the file layer, accepted, and then could not be written back as TOML.
    #[test]
    fn a_weight_past_the_bound_is_refused_however_it_is_written() {
        for doc in [
            "[jury.archetype_weights]\nSkeptic = 4333333333333333333333333333333333.3\n",
            "[jury.archetype_weights]\nSkeptic = 1000001\n",
            "[[jury.jurors]]\nkind = \"replay\"\nvote = \"YES\"\nweight = 18446744073709551615\n",
        ] {
            let err = match Config::from_toml_str(doc) {
                Ok(_) => panic!("accepted: {doc}"),
                Err(e) => e.to_string(),
            };
            assert!(err.contains("weight"), "{doc}: {err}");
        }
        let at_bound = "[jury.archetype_weights]\nSkeptic = 1000000\n";
        let config = Config::from_toml_str(at_bound).unwrap();
        assert_eq!(config.jury.archetype_weights["Skeptic"], MAX_WEIGHT);
    }

    #[test]
    fn bad_values_are_named() {
        let err = Config::from_toml_str("[chain]\nconfirmations = 0\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("chain.confirmations"), "{err}");
        let err = Config::from_toml_str("[chain]\npoll_interval = \"soon\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("poll_interval") || err.contains("soon"),
            "{err}"
        );
        let err = Config::from_toml_str("[chain]\noracle = \"0x12\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("oracle") || err.contains("0x12"), "{err}");
    }

    #[test]
    fn example_config_parses() {
        let text = include_str!("../../../veritas.example.toml");
        let config = Config::from_toml_str(text).unwrap();
        assert_eq!(config.node.http_addr.ip().to_string(), "127.0.0.1");
        assert!(
            config.chain.oracle.is_none(),
            "the example must not commit an address"
        );
    }

    #[test]
    fn deployment_file_gives_the_address() {
        let dir = tempfile::tempdir().unwrap();
        let address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
        std::fs::write(
            dir.path().join("31337.json"),
            format!(r#"{{"VeritasOracle":"{address}"}}"#),
        )
        .unwrap();
        let mut config = Config::default();
        config.chain.deployments_dir = dir.path().to_path_buf();
        assert_eq!(
            config.oracle_address(31337).unwrap(),
            address.parse::<Address>().unwrap()
        );
        let err = config.oracle_address(1).unwrap_err().to_string();
        assert!(err.contains("1.json"), "{err}");
        assert_eq!(start_block(&config, 31337), 0);
        std::fs::write(
            dir.path().join("31337.json"),
            format!(r#"{{"address":"{address}","deployBlock":"1234"}}"#),
        )
        .unwrap();
        assert_eq!(start_block(&config, 31337), 1234);
        config.chain.start_block = 7;
        assert_eq!(start_block(&config, 31337), 7);
    }

    #[test]
    fn secret_redacts() {
        let secret = Secret::new("0xdeadbeef");
        assert_eq!(format!("{secret}"), "[redacted]");
        assert!(!format!("{secret:?}").contains("dead"));
        assert_eq!(secret.expose(), "0xdeadbeef");
    }
}
