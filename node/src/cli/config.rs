//! `veritas config`: the configuration a node would run with, as TOML, secrets redacted (as
//! `forge config` prints Foundry's); `veritas config --reference`: every key with its type,
//! default and doc comment, generated from the configuration types
//! ([`super::config_reference`]; the book's configuration reference is this output).
//!
//! ```text
//! veritas config --config /etc/veritas/veritas.toml     # defaults < file < env < flags
//! veritas config --reference > book/src/config-reference.md
//! ```
//!
//! The configuration tree holds no secret (keys and passwords come from the environment or a
//! keystore), but URLs may carry one: an RPC provider's key in the path (`/v3/<key>`), a
//! password or a token in the user part or the query. Those parts are printed as
//! `[redacted]`, and the secrets the node would read from the environment are listed by name
//! with whether they are set, never with their value.

use clap::Args;

use serde_json::json;

use super::{output::Output, run::ConfigArgs};
use crate::config::{Config, ENV_KEYSTORE_PASSWORD, ENV_PRIVATE_KEY};
use crate::jury::pool::JurorKind;

/// What replaces a secret part of a URL.
const REDACTED: &str = "[redacted]";

/// `veritas config` arguments.
#[derive(Debug, Args)]
pub struct ConfigCmdArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Print the reference of every key (Markdown: type, default, doc comment) instead.
    #[arg(long)]
    reference: bool,
}

/// Run `veritas config`.
///
/// # Errors
/// The configuration error, naming the key.
pub fn run(args: ConfigCmdArgs) -> anyhow::Result<Output> {
    if args.reference {
        let markdown = super::config_reference::markdown();
        return Ok(Output::text(json!({ "markdown": markdown }), markdown));
    }
    let config = args.config.load(Vec::new())?;
    let text = resolved(&config, |name| std::env::var_os(name).is_some())?;
    // `--json`: the same tree, redacted the same way.
    let mut tree = toml::Value::try_from(&config)?;
    redact(&mut tree);
    Ok(Output::text(serde_json::to_value(tree)?, text))
}

/// `config` as TOML with every URL's secret parts redacted, after a header naming the secrets
/// read from the environment and whether `is_set` says they are set.
///
/// # Errors
/// When the tree cannot be written as TOML (it always can).
pub fn resolved(config: &Config, is_set: impl Fn(&str) -> bool) -> anyhow::Result<String> {
    let mut value = toml::Value::try_from(config)?;
    redact(&mut value);
    let mut secrets = vec![ENV_PRIVATE_KEY.to_owned(), ENV_KEYSTORE_PASSWORD.to_owned()];
    let models = config
        .jury
        .jurors
        .iter()
        .filter_map(|j| match &j.kind {
            JurorKind::Openai(o) => Some(o),
            _ => None,
        })
        .chain(config.planner_model.as_ref());
    secrets.extend(models.filter_map(|m| m.api_key_env.clone()));
    if config.evidence.collectors.tavily.enabled {
        secrets.push(config.evidence.collectors.tavily.api_key_env.clone());
    }
    let mut seen = std::collections::BTreeSet::new();
    secrets.retain(|name| seen.insert(name.clone()));
    let mut out = String::from(
        "# The configuration `veritas run` would use (defaults < file < VERITAS__* env < flags),\n\
         # secret parts of URLs redacted. Secrets read from the environment:\n",
    );
    for name in secrets.iter().filter(|n| !n.is_empty()) {
        let state = if is_set(name) { "set" } else { "unset" };
        out.push_str(&format!("#   {name}: {state}\n"));
    }
    out.push('\n');
    out.push_str(&toml::to_string(&value)?);
    Ok(out)
}

/// Redact the secret parts of every URL in `value`.
fn redact(value: &mut toml::Value) {
    match value {
        toml::Value::String(s) => {
            if let Some(clean) = redact_url(s) {
                *s = clean;
            }
        }
        toml::Value::Float(f) => {
            // An f32 key as written (0.8), not as its f64 widening (0.800000011920929).
            if let Some(short) = super::config_reference::short_float(&toml::Value::Float(*f))
                .and_then(|t| t.parse().ok())
            {
                *f = short;
            }
        }
        toml::Value::Table(t) => t.iter_mut().for_each(|(_, v)| redact(v)),
        toml::Value::Array(a) => a.iter_mut().for_each(redact),
        _ => {}
    }
}

/// A path segment that looks like an API key: 20 or more letters, digits, `-` or `_` (Infura
/// and Alchemy put a 32-character key there; no route segment is that long).
fn looks_like_key(segment: &str) -> bool {
    segment.len() >= 20
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// `text` with its user part, query and key-like path segments redacted, when it is an
/// http(s) or ws(s) URL that has any; `None` otherwise.
fn redact_url(text: &str) -> Option<String> {
    let mut url = reqwest::Url::parse(text).ok()?;
    if !matches!(url.scheme(), "http" | "https" | "ws" | "wss") {
        return None;
    }
    let mut changed = false;
    if !url.username().is_empty() || url.password().is_some() {
        url.set_username(REDACTED).ok()?;
        url.set_password(None).ok()?;
        changed = true;
    }
    if url.query().is_some() {
        url.set_query(Some(REDACTED));
        changed = true;
    }
    let segments: Vec<String> = url
        .path_segments()
        .map(|s| s.map(str::to_owned).collect())
        .unwrap_or_default();
    if segments.iter().any(|s| looks_like_key(s)) {
        let path: Vec<&str> = segments
            .iter()
            .map(|s| if looks_like_key(s) { REDACTED } else { s })
            .collect();
        url.set_path(&path.join("/"));
        changed = true;
    }
    // The URL crate percent-encodes the brackets; the mark reads better as written.
    changed.then(|| url.to_string().replace("%5Bredacted%5D", REDACTED))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn urls_lose_their_secret_parts_only() {
        let key = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            redact_url(&format!("https://sepolia.infura.io/v3/{key}")).as_deref(),
            Some("https://sepolia.infura.io/v3/[redacted]")
        );
        assert_eq!(
            redact_url("https://user:hunter2@rpc.example/x?apikey=abc").as_deref(),
            Some("https://[redacted]@rpc.example/x?[redacted]")
        );
        assert_eq!(redact_url("http://127.0.0.1:8545"), None);
        assert_eq!(redact_url("https://api.openai.com/v1"), None);
        assert_eq!(redact_url("tools/models/x.gguf"), None);
    }

    #[test]
    fn the_resolved_config_is_toml_that_loads_back_and_names_secrets_by_name_only() {
        let key = "0123456789abcdef0123456789abcdef";
        let mut config = Config::default();
        config.chain.rpc_url = format!("https://eth-sepolia.g.alchemy.com/v2/{key}");
        config.node.concurrency = 7;
        let text = resolved(&config, |name| name == ENV_PRIVATE_KEY).unwrap();
        assert!(!text.contains(key), "{text}");
        assert!(
            text.contains(&format!("#   {ENV_PRIVATE_KEY}: set\n")),
            "{text}"
        );
        assert!(
            text.contains(&format!("#   {ENV_KEYSTORE_PASSWORD}: unset\n")),
            "{text}"
        );
        let back = Config::from_toml_str(&text).unwrap();
        assert_eq!(back.node.concurrency, 7);
        assert_eq!(
            back.chain.rpc_url,
            "https://eth-sepolia.g.alchemy.com/v2/[redacted]"
        );
        let mut expected = config.clone();
        expected.chain.rpc_url = back.chain.rpc_url.clone();
        assert_eq!(
            back, expected,
            "everything but the secret survives the round trip"
        );
    }
}
