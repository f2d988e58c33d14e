//! The off-chain services: every juror and the planner answer one tiny structured request,
//! and the search API accepts its key.

use std::time::Instant;

use serde_json::json;

use super::{Check, fail, ok, skip};
use crate::{
    config::{Config, ResolverKind},
    evidence::collectors::{CollectorError, tavily::TavilyCollector},
    jury::pool::JurorKind,
    llm::{
        ChatModel, ChatRequest, JsonSchema,
        llama::{LocalModel, resolve_model_path},
        openai::{OpenAiChat, OpenAiConfig},
    },
};

/// The smallest structured request: one boolean, under a JSON Schema.
fn tiny_request() -> ChatRequest {
    ChatRequest {
        system: "You answer with one JSON object and nothing else.".to_owned(),
        user: "Reply with {\"ok\": true}.".to_owned(),
        json_schema: Some(JsonSchema {
            name: "doctor".to_owned(),
            schema: json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean"}},
                "required": ["ok"],
                "additionalProperties": false
            }),
        }),
        temperature: 0.0,
        max_tokens: 32,
        seed: Some(1),
        cache_key: None,
    }
}

async fn ask_model(name: &str, config: &OpenAiConfig) -> Check {
    // One attempt: a doctor reports what is wrong now instead of waiting out the backoff.
    let config = OpenAiConfig {
        max_retries: 0,
        ..config.clone()
    };
    let fix_server = format!(
        "start the model server at {} or fix base_url, model and api_key_env",
        config.base_url
    );
    let client = match OpenAiChat::new(config.clone()) {
        Ok(c) => c,
        Err(e) => return fail(name, e.to_string(), fix_server),
    };
    let started = Instant::now();
    match client.chat(&tiny_request()).await {
        Ok(answer) => {
            let value = serde_json::from_str::<serde_json::Value>(&answer.content).ok();
            let parsed = value
                .as_ref()
                .and_then(|v| v.get("ok").and_then(serde_json::Value::as_bool));
            let mode = format!("{:?}", client.output_mode());
            match parsed {
                Some(_) => ok(
                    name,
                    format!(
                        "{} ({}) answered {} in {:.1} s; structured output: {mode}",
                        config.model,
                        config.base_url,
                        value.map(|v| v.to_string()).unwrap_or_default(),
                        started.elapsed().as_secs_f64()
                    ),
                ),
                None => fail(
                    name,
                    format!(
                        "{} answered {:?}, not the JSON object asked for (structured output: {mode})",
                        config.model, answer.content
                    ),
                    "use a model or server that follows a JSON schema (json_schema or json_object response_format)",
                ),
            }
        }
        Err(e) => fail(name, format!("{}: {e}", config.base_url), fix_server),
    }
}

pub(super) async fn model_checks(config: &Config) -> Vec<Check> {
    let mut out = Vec::new();
    if config.node.resolver == ResolverKind::Replay {
        out.push(skip(
            "jurors",
            "node.resolver = \"replay\": no juror is called (tests and load runs only)",
        ));
    } else {
        for (i, juror) in config.jury.jurors.iter().enumerate() {
            let name = format!("juror[{i}]");
            let check = match &juror.kind {
                JurorKind::Openai(c) => ask_model(&name, c).await,
                JurorKind::Local(c) => {
                    let mut model = c.model.clone();
                    model.path = resolve_model_path(&model.path);
                    if !model.path.is_file() {
                        // A relative path resolves against the working directory (the
                        // service's WorkingDirectory=, /var/lib/veritas): name the one it tried.
                        let tried =
                            std::path::absolute(&model.path).unwrap_or_else(|_| model.path.clone());
                        out.push(fail(
                            &name,
                            format!("model file {} does not exist", tried.display()),
                            "set the juror's path to the model file's absolute path (e.g. /var/lib/veritas/models/gemma-3-270m-q4_k_m.gguf; make setup-demo downloads it into tools/models/)",
                        ));
                        continue;
                    }
                    let started = Instant::now();
                    match LocalModel::load(&model) {
                        Ok(_) => ok(
                            &name,
                            format!(
                                "embedded model {} loads ({:.1} s)",
                                model.path.display(),
                                started.elapsed().as_secs_f64()
                            ),
                        ),
                        Err(e) => fail(
                            &name,
                            e.to_string(),
                            "install the model (make setup-demo) or fix the juror's path",
                        ),
                    }
                }
                JurorKind::Replay(_) => skip(&name, "a replay juror (tests only) calls no model"),
            };
            out.push(check);
        }
    }
    match &config.planner_model {
        Some(c) => out.push(ask_model("planner", c).await),
        None => out.push(skip(
            "planner",
            "no [planner_model]: the fallback plan is used",
        )),
    }
    out
}

pub(super) async fn search_check(config: &Config) -> Check {
    let tavily = &config.evidence.collectors.tavily;
    if !tavily.enabled {
        return skip(
            "search",
            "web search is off (evidence.collectors.tavily.enabled = false)",
        );
    }
    let one_try = crate::evidence::collectors::tavily::TavilyConfig {
        max_attempts: 1,
        max_results: 1,
        ..tavily.clone()
    };
    let client = match TavilyCollector::from_env(one_try) {
        Ok(c) => c,
        Err(e) => {
            return fail(
                "search",
                e.to_string(),
                format!("put the search API key in {}", tavily.api_key_env),
            );
        }
    };
    match client.search("veritas doctor", None).await {
        Ok(hits) => ok(
            "search",
            format!(
                "{} accepted the key ({} result(s))",
                tavily.endpoint,
                hits.len()
            ),
        ),
        Err(e @ CollectorError::Unauthorized { .. }) => fail(
            "search",
            e.to_string(),
            format!(
                "put a valid key in {} (the provider's dashboard shows it)",
                tavily.api_key_env
            ),
        ),
        Err(e) => fail(
            "search",
            format!("{}: {e}", tavily.endpoint),
            "check evidence.collectors.tavily.endpoint and the network",
        ),
    }
}
