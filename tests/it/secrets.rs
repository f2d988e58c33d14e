//! Secrets: the real node runs with a known operator key (env) and a known juror API key (env,
//! named by `api_key_env`), and neither may appear in anything it writes or serves: the log,
//! the reports, the SQLite store, `/metrics`, `/questions/{id}` (with `last_error`),
//! `/bundles/{root}`, or the CLI's error output. The HTTP API binds 127.0.0.1 by default and
//! answers every write method with 405, changing nothing.
//!
//! The juror is the real `openai` juror of the committee resolver, pointed at the shared
//! chat-completions *protocol double* (`tests/it/support/chat_double.rs`, not a model). The double
//! is hostile on purpose: its 401 and 500 error bodies, and its ballots' reasoning, echo the
//! request's `Authorization` header, as some gateways do.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    sync::atomic::{AtomicUsize, Ordering},
    time::Duration,
};

use axum::{http::StatusCode, response::IntoResponse};
use serde_json::{Value, json};
use veritas::devnet::{ANVIL_KEYS, AnvilOptions};

use crate::support::{Chain, Node, chat_double, veritas, wait};

/// The juror API key the node is given (made up; it is a secret for this test only).
const API_KEY: &str = "sk-veritas-test-4f1d0c9b7e2a58366a1b";
const API_KEY_ENV: &str = "VERITAS_TEST_JUROR_API_KEY";
const QUESTION: &str = "Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?";

/// The operator key without `0x`, lowercase: how it would look in any hex dump.
fn operator_key_hex() -> String {
    ANVIL_KEYS[1].trim_start_matches("0x").to_lowercase()
}

/// Fails naming `what` if either secret appears in `text` (case-insensitive).
fn assert_clean(what: &str, text: &str) {
    let lower = text.to_lowercase();
    assert!(
        !lower.contains(&operator_key_hex()),
        "the operator private key leaked into {what}"
    );
    assert!(
        !lower.contains(&API_KEY.to_lowercase()),
        "the juror API key leaked into {what}"
    );
}

/// A ballot valid for the request's own schema, its reasoning echoing the Authorization header.
fn ballot_for(request: &Value, auth: Option<&str>) -> String {
    let schema = &request["response_format"]["json_schema"]["schema"];
    let scores: serde_json::Map<String, Value> =
        schema["properties"]["rubric_scores"]["properties"]
            .as_object()
            .map(|c| c.keys().map(|k| (k.clone(), json!(0.5))).collect())
            .unwrap_or_default();
    json!({
        "vote": "YES", "confidence": 0.8, "supporting_evidence_ids": [],
        "refuting_evidence_ids": [], "rubric_scores": scores,
        "reasoning": format!("echo of the request: {}", auth.unwrap_or("-")),
    })
    .to_string()
}

async fn get(client: &reqwest::Client, url: String) -> (StatusCode, String) {
    let r = client.get(&url).send().await.unwrap();
    (r.status(), r.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_in_logs_reports_store_api_or_cli_errors() {
    // The double: OK questions get ballots; "401"/"500" questions get echoing errors; "MIX"
    // alternates a 401 and a ballot, so a written report holds failed ballots and their reasons.
    let mix = AtomicUsize::new(0);
    let (double, base_url) = chat_double::serve_with(move |body, auth| {
        let prompt = body["messages"][1]["content"].as_str().unwrap_or("");
        let echo = format!(
            r#"{{"error":{{"message":"rejected {}"}}}}"#,
            auth.unwrap_or("-")
        );
        let fail = if prompt.contains("[401]") {
            Some(401)
        } else if prompt.contains("[500]") {
            Some(500)
        } else if prompt.contains("[MIX]") && mix.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) {
            Some(401)
        } else {
            None
        };
        match fail {
            Some(code) => (StatusCode::from_u16(code).unwrap(), echo).into_response(),
            None => chat_double::completion(&body["model"], &ballot_for(body, auth)),
        }
    })
    .await;

    let chain = Chain::start(AnvilOptions::default()).await;
    let corpus = veritas::devnet::repo_root().unwrap().join("corpus/demo");
    let extra = format!(
        r#"
[[jury.jurors]]
kind = "openai"
base_url = "{base_url}"
model = "double-1"
api_key_env = "{API_KEY_ENV}"
max_retries = 1
initial_backoff = "10ms"
timeout = "5s"

[jury.committee]
iterations = 2
ballots_per_iteration = 3

[evidence.collectors.local]
dir = "{}"
"#,
        corpus.display()
    );
    let mut node = Node::configure(&chain, r#"{"default": {"votes": ["YES"]}}"#, &extra);
    let config = std::fs::read_to_string(&node.config)
        .unwrap()
        .replace("resolver = \"replay\"", "resolver = \"committee\"")
        // A committee without a valid ballot is retried; two attempts show it, quickly.
        .replace("max_attempts = 50", "max_attempts = 2");
    std::fs::write(&node.config, config).unwrap();
    node.start_with_env(&[(API_KEY_ENV, API_KEY)]);

    let questions: Vec<String> = ["[OK]", "[MIX]", "[401]", "[500]"]
        .iter()
        .map(|tag| format!("{tag} {QUESTION}"))
        .collect();
    let refs: Vec<&str> = questions.iter().map(String::as_str).collect();
    let ids = chain.ask(&refs).await;
    chain
        .wait_verdicts(&ids[..2], Duration::from_secs(120))
        .await;

    let client = reqwest::Client::new();
    let addr = node.api_addr(Duration::from_secs(30)).await;
    // The failing two end `failed` with a reason.
    let mut bodies = Vec::new();
    for id in &ids {
        // Settled: the verdict posted and the chain's lifecycle read (nothing moves after that).
        let failing = bodies.len() >= 2;
        let want: &[&str] = if failing {
            &["failed"]
        } else {
            &["finalised", "final"]
        };
        let last = std::cell::RefCell::new(Value::Null);
        let settled = wait::until(
            Duration::from_secs(60),
            || format!("question {id} never {want:?}: {}", last.borrow()),
            async || {
                let (_, text) = get(&client, format!("http://{addr}/questions/{id}")).await;
                let body: Value = serde_json::from_str(&text).unwrap();
                let settled = failing || body["lifecycle"].is_object();
                let done = settled && want.iter().any(|w| body["job"]["stage"] == *w);
                *last.borrow_mut() = body.clone();
                done.then_some((text, body))
            },
        )
        .await;
        bodies.push(settled);
    }
    // The key was really used, and the double really echoed it (else this test proves nothing).
    let requests = double.requests.lock().unwrap().clone();
    assert!(
        requests
            .iter()
            .all(|(_, auth, _)| auth.as_deref() == Some(&format!("Bearer {API_KEY}"))),
        "every juror request carries the key"
    );
    let mix_report = bodies[1].1["report"].to_string();
    assert_clean("the [MIX] report", &mix_report);
    assert!(
        mix_report.contains("rejected Bearer ***"),
        "the MIX report keeps the (masked) failure reasons: {mix_report}"
    );
    assert!(mix_report.contains("echo of the request: Bearer ***"));
    for (i, (_, body)) in bodies[2..].iter().enumerate() {
        let error = body["job"]["last_error"].as_str().unwrap();
        assert!(error.contains("no valid ballot"), "question {i}: {error}");
        assert_eq!(
            body["job"]["attempts"], 2,
            "retried once, then failed: {body}"
        );
    }

    // Everything the node serves.
    let root = bodies[0].1["report"]["root"].as_str().unwrap().to_string();
    let mut served = Vec::new();
    for path in [
        "/healthz".to_string(),
        "/readyz".into(),
        "/metrics".into(),
        format!("/bundles/{root}"),
    ]
    .into_iter()
    .chain(ids.iter().map(|id| format!("/questions/{id}")))
    {
        let (status, text) = get(&client, format!("http://{addr}{path}")).await;
        assert!(status.is_success(), "{path}: {status} {text}");
        served.push((path, text));
    }
    let metrics = &served[2].1;
    assert!(
        metrics.contains("veritas_juror_failures_total"),
        "{metrics}"
    );
    for (path, text) in &served {
        assert_clean(&format!("GET {path}"), text);
    }

    // Read-only: every write method on every route is 405, and nothing changes.
    let before: Vec<String> = served[4..].iter().map(|(_, t)| t.clone()).collect();
    for (path, _) in &served {
        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let response = client
                .request(method.parse().unwrap(), format!("http://{addr}{path}"))
                .body(r#"{"stage":"queued"}"#)
                .header("content-type", "application/json")
                .send()
                .await
                .unwrap();
            assert_eq!(
                response.status(),
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}"
            );
        }
    }
    for (i, id) in ids.iter().enumerate() {
        let (_, text) = get(&client, format!("http://{addr}/questions/{id}")).await;
        assert_eq!(
            text, before[i],
            "question {id} changed after write attempts"
        );
    }

    // CLI error output, with both secrets in the environment.
    let dir = node.dir.path();
    let config = node.config.to_str().unwrap();
    let cli_env = [
        ("VERITAS_PRIVATE_KEY", ANVIL_KEYS[1]),
        (API_KEY_ENV, API_KEY),
    ];
    let bad_key = format!("0xzz{API_KEY}");
    type Run<'a> = (&'a str, Vec<&'a str>, Vec<(&'a str, &'a str)>);
    let runs: Vec<Run> = vec![
        // A second node on the same data directory: refused, the directory is in use.
        (
            "run (data dir locked)",
            vec!["run", "--config", config],
            cli_env.to_vec(),
        ),
        // No chain at that address.
        (
            "run (RPC down)",
            vec!["run", "--config", config, "--rpc-url", "http://127.0.0.1:9"],
            cli_env.to_vec(),
        ),
        (
            "ask (RPC down)",
            vec![
                "ask",
                "Is it?",
                "--config",
                config,
                "--rpc-url",
                "http://127.0.0.1:9",
            ],
            cli_env.to_vec(),
        ),
        // A malformed operator key that contains the API key: neither may be echoed.
        (
            "run (malformed key)",
            vec!["run", "--config", config],
            vec![
                ("VERITAS_PRIVATE_KEY", bad_key.as_str()),
                (API_KEY_ENV, API_KEY),
            ],
        ),
    ];
    for (what, args, env) in runs {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_veritas"))
            .args(&args)
            .envs(env.iter().copied())
            .env("NO_COLOR", "1")
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{what} should fail");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("error"), "{what}: {text}");
        assert_clean(
            &format!("the CLI error output of `veritas {what}`: {text}"),
            &text,
        );
    }
    let (code, _, err) = veritas(&["audit", "/nonexistent.json"], dir);
    assert_ne!(code, 0);
    assert_clean("veritas audit's error", &err);

    // Files: the log (after a graceful stop, so it is complete), reports, SQLite with its WAL.
    assert_eq!(node.terminate(), Some(0));
    let log = node.log_text();
    assert!(log.contains("HTTP API listening addr=127.0.0.1:"), "{log}");
    assert!(
        log.contains("retrying chat completion"),
        "errors were logged: {log}"
    );
    assert_clean("the node log", &log);
    let mut files = 0;
    for entry in walk(&node.data_dir()) {
        let bytes = std::fs::read(&entry).unwrap();
        assert_clean(
            &entry.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        );
        files += 1;
    }
    assert!(
        files >= 3,
        "reports and the store were checked ({files} files)"
    );
    let reports = node.data_dir().join("reports");
    assert_eq!(std::fs::read_dir(&reports).unwrap().count(), 2);
    println!(
        "secrets: {} juror requests, {files} files, {} API responses, 4 CLI errors: no secret anywhere",
        requests.len(),
        served.len()
    );
}

/// Every file under `dir`, recursively.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_api_binds_localhost_by_default() {
    let default = veritas::config::Config::default().node.http_addr;
    assert!(default.ip().is_loopback(), "{default}");
    assert_eq!(default.ip().to_string(), "127.0.0.1");
    // The example config does not widen it.
    let example = veritas::devnet::repo_root()
        .unwrap()
        .join("veritas.example.toml");
    let example =
        veritas::config::Config::from_toml_str(&std::fs::read_to_string(example).unwrap()).unwrap();
    assert!(example.node.http_addr.ip().is_loopback());

    // The real node without `http_addr` in its config logs where it listens (or, if another
    // process holds the default port, fails naming that address).
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure(&chain, r#"{"default": {"votes": ["YES"]}}"#, "");
    let config = std::fs::read_to_string(&node.config)
        .unwrap()
        .replace("http_addr = \"127.0.0.1:0\"\n", "");
    assert!(!config.contains("http_addr"));
    std::fs::write(&node.config, config).unwrap();
    node.start();
    let expected = format!("{default}");
    // The log line is the subject here: it is how an operator learns the address.
    wait::until(
        Duration::from_secs(30),
        || format!("no bind line for {expected}: {}", node.log_text()),
        async || {
            let log = node.log_text();
            (log.contains(&format!("HTTP API listening addr={expected}"))
                || log.contains(&format!("HTTP API on {expected}")))
            .then_some(())
        },
    )
    .await;
    node.stop();
}
