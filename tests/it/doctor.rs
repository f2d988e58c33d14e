//! `veritas doctor` against the real world: a real anvil with the oracle, llama.cpp's real
//! `llama-server` for the juror and the planner, and the real `veritas` binary.
//!
//! The search API is the one double: an in-process HTTP server on 127.0.0.1 that speaks the
//! Tavily protocol (`POST /search`, Bearer key) and accepts only one key, so that a wrong key
//! can be shown without a real account. It is NOT Tavily.
//!
//! One passing run, then one run per failure, each changing one thing and naming exactly one
//! failing check: wrong chain id, a key that is not an operator, an operator with an empty
//! balance, an operator without stake (the fix names `veritas operator stake`), an unreachable
//! model server, a search key the API rejects, a deployment record without `deployBlock`, a
//! corpus folder and a model file that do not exist. (A config file the user cannot read needs
//! a user other than root: `scripts/test-ops.sh` installs the service and runs the doctor as
//! its user.) Without `llama-server`
//! (`make setup` builds it) the test is skipped loudly, and fails with `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{net::SocketAddr, path::Path};

use alloy::{
    primitives::{U256, aliases::U96},
    signers::local::PrivateKeySigner,
};
use axum::{Json, http::HeaderMap, http::StatusCode, response::IntoResponse, routing::post};
use serde_json::{Value, json};
use veritas::{
    contract::IVeritasOracle,
    devnet::{ANVIL_KEYS, AnvilOptions},
};

use crate::support::{
    self, Chain, Node,
    llama::{Server, llama_server},
};

const GOOD_KEY: &str = "doctor-good-key";
const KEY_ENV: &str = "DOCTOR_SEARCH_KEY";
/// A key none of anvil's funded accounts has.
const EMPTY_KEY: &str = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";

/// The search double: 200 with one result for the good key, 401 for any other.
async fn search_double() -> SocketAddr {
    async fn search(headers: HeaderMap, Json(_body): Json<Value>) -> axum::response::Response {
        let auth = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if auth == format!("Bearer {GOOD_KEY}") {
            Json(json!({"results": [{"url": "https://example.org/a", "title": "A", "content": "a"}]}))
                .into_response()
        } else {
            (StatusCode::UNAUTHORIZED, "invalid API key").into_response()
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route("/search", post(search));
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// `veritas doctor --json` with `key` as the operator key and `search_key` for the search API
/// (16 MiB of free space asked for the data directory, not the default 1 GiB: a test must not
/// fail on a full build disk); (exit code, the JSON, stderr).
fn doctor(config: &Path, key: &str, search_key: &str) -> (i32, Value, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_veritas"))
        .args(["doctor", "--json", "--min-free-mib", "16", "--config"])
        .arg(config)
        .env("VERITAS_PRIVATE_KEY", key)
        .env(KEY_ENV, search_key)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("doctor printed no JSON ({e}): {stdout}\n{stderr}"));
    (out.status.code().unwrap_or(-1), json, stderr)
}

fn failing(json: &Value) -> Vec<String> {
    json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["check"].as_str().unwrap().to_owned())
        .collect()
}

fn check<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {json}"))
}

/// Exactly `name` fails, with a fix, and the exit status says so.
fn assert_only_failure((code, json, stderr): (i32, Value, String), name: &str, detail_part: &str) {
    assert_eq!(code, 1, "{json}\n{stderr}");
    assert_eq!(failing(&json), vec![name.to_owned()], "{json}");
    let c = check(&json, name);
    let detail = c["detail"].as_str().unwrap();
    assert!(
        detail.contains(detail_part),
        "{name}: {detail:?} lacks {detail_part:?}"
    );
    assert!(c["fix"].as_str().is_some_and(|f| !f.is_empty()), "{c}");
    assert!(stderr.contains(name), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_passes_a_good_node_and_names_each_broken_check() {
    let found = llama_server();
    let Some(binary) = support::tool_or_skip(found, "llama-server", "make setup builds it") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&binary, dir.path()).await;
    // A set with a challenge window, so that each report locks a bond of the stake (0.01 ETH;
    // the devnet stakes 1 ETH for each operator it adds).
    let chain = Chain::start_with(AnvilOptions::default(), &[1], |p| {
        p.challengeWindow = 3600;
        p.disputeBond = U96::from(10_000_000_000_000_000u64);
    })
    .await;
    let search = search_double().await;
    // A generous timeout: five doctors at once ask the one three-slot server twice each, and on
    // a loaded machine a queued answer took over 60 s, failing juror[0] beside the check a case
    // is about. A down server is still refused at once (case 5).
    let model = |url: &str| {
        format!(
            "base_url = \"{url}/v1\"\nmodel = \"gemma-3-270m\"\napi_key_env = \"\"\ntimeout = \"600s\"\n"
        )
    };
    let extra = format!(
        "[[jury.jurors]]\nkind = \"openai\"\n{}\n\
         [planner_model]\n{}\n\
         [evidence.collectors.tavily]\nenabled = true\nendpoint = \"http://{search}\"\napi_key_env = \"{KEY_ENV}\"\n\
         [evidence.collectors.local]\ndir = \"{corpus}\"\n",
        model(&server.url),
        model(&server.url),
        corpus = veritas::devnet::repo_root()
            .unwrap()
            .join("corpus/demo")
            .display(),
    );
    let node = Node::configure(&chain, "{}", &extra);
    node.edit_config("resolver = \"replay\"", "resolver = \"committee\"");
    let operator = ANVIL_KEYS[1];

    // 1. Everything right: exit 0, no failure, and the checks that matter say ok.
    let (code, json, stderr) = doctor(&node.config, operator, GOOD_KEY);
    assert_eq!(code, 0, "{json}\n{stderr}");
    assert_eq!(failing(&json), Vec::<String>::new(), "{json}");
    for name in [
        "key",
        "rpc",
        "chain_id",
        "oracle",
        "operator",
        "stake",
        "balance",
        "data_dir",
        "http_addr",
        "deploy_block",
        "corpus",
        "juror[0]",
        "planner",
        "search",
    ] {
        assert_eq!(check(&json, name)["status"], "ok", "{name}: {json}");
    }
    let juror = check(&json, "juror[0]")["detail"].as_str().unwrap();
    assert!(juror.contains("structured output"), "{juror}");
    eprintln!("passing run: {json}");

    // The failures, each on its own copy of the config, run at once (the server has three
    // slots): (what changed, the one check that must fail, part of its detail).
    let variant = |name: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(&node.config).unwrap();
        assert!(text.contains(from), "{from:?} not in the config");
        let path = node.dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, text.replace(from, to)).unwrap();
        path
    };
    // 2. Wrong chain id.
    let wrong_chain = variant(
        "wrong-chain",
        "confirmations = 1\n",
        "confirmations = 1\nchain_id = 1\n",
    );
    // 4. An operator with an empty balance: a key anvil never funded, added by the owner, and
    // staked by it (anyone may fund a stake), so the balance is all it lacks.
    let owner = IVeritasOracle::new(chain.oracle, chain.wallet(0));
    let empty: PrivateKeySigner = EMPTY_KEY.parse().unwrap();
    let unstaked: PrivateKeySigner = ANVIL_KEYS[6].parse().unwrap();
    let one_ether = U256::from(10).pow(U256::from(18));
    for (call, what) in [
        (
            owner
                .addOperator(empty.address())
                .into_transaction_request(),
            "addOperator",
        ),
        (
            owner
                .stake(empty.address())
                .value(one_ether)
                .into_transaction_request(),
            "stake",
        ),
        // 7. An operator without stake: anvil's funded account 6, added but never staked.
        (
            owner
                .addOperator(unstaked.address())
                .into_transaction_request(),
            "addOperator",
        ),
    ] {
        chain.send_ok(0, call, what).await;
    }
    // 5. The model server unreachable: juror and planner point at a port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let no_model = variant("no-model", &model(&server.url), &model(&dead));
    let good = node.config.clone();
    // 8. The oracle from a deployment record that a bare `forge script` wrote: no deployBlock,
    // and no chain.start_block, so the watcher would scan from block 0.
    let records = tempfile::tempdir().unwrap();
    let chain_id = alloy::providers::Provider::get_chain_id(&chain.reader())
        .await
        .unwrap();
    std::fs::write(
        records.path().join(format!("{chain_id}.json")),
        format!(
            r#"{{"contract":"VeritasOracle","address":"{}"}}"#,
            chain.oracle
        ),
    )
    .unwrap();
    let no_deploy_block = {
        let path = variant(
            "no-deploy-block",
            &format!("oracle = \"{}\"\n", chain.oracle),
            &format!("deployments_dir = \"{}\"\n", records.path().display()),
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let start = format!("start_block = {}\n", chain.deploy_block);
        assert!(text.contains(&start), "{start:?} not in the config");
        std::fs::write(&path, text.replace(&start, "start_block = 0\n")).unwrap();
        path
    };
    // 9. A corpus folder that does not exist.
    let corpus = veritas::devnet::repo_root()
        .unwrap()
        .join("corpus/demo")
        .display()
        .to_string();
    let no_corpus = variant(
        "no-corpus",
        &format!("dir = \"{corpus}\""),
        "dir = \"/nonexistent/veritas-corpus\"",
    );
    // 10. A local juror whose model file does not exist (a relative path from the example
    // config resolves against the service's working directory, not the repository).
    let no_model_file = {
        let path = node.dir.path().join("no-model-file.toml");
        let text = std::fs::read_to_string(&node.config).unwrap();
        std::fs::write(
            &path,
            format!("{text}\n[[jury.jurors]]\nkind = \"local\"\npath = \"/nonexistent/veritas-doctor.gguf\"\n"),
        )
        .unwrap();
        path
    };
    // Blocking threads inside the async test: block_in_place hands the runtime's other tasks
    // (the search double) to the other worker first.
    tokio::task::block_in_place(|| {
        std::thread::scope(|s| {
            let cases = [
                s.spawn(|| {
                    assert_only_failure(
                        doctor(&wrong_chain, operator, GOOD_KEY),
                        "chain_id",
                        "wrong chain",
                    );
                }),
                // 3. A funded key that is not an operator (anvil's account 5).
                s.spawn(|| {
                    assert_only_failure(
                        doctor(&good, ANVIL_KEYS[5], GOOD_KEY),
                        "operator",
                        "is not an operator",
                    );
                }),
                s.spawn(|| {
                    assert_only_failure(doctor(&good, EMPTY_KEY, GOOD_KEY), "balance", "0 ETH");
                }),
                s.spawn(|| {
                    let run = doctor(&good, ANVIL_KEYS[6], GOOD_KEY);
                    let fix = check(&run.1, "stake")["fix"].as_str().unwrap().to_owned();
                    assert!(fix.contains("veritas operator stake 0.03"), "{fix}");
                    assert_only_failure(run, "stake", "0 ETH free");
                }),
            ];
            for case in cases {
                case.join().unwrap();
            }
        });
        // The new checks' cases after the first ones: the model server has three slots.
        std::thread::scope(|s| {
            let cases = [
                s.spawn(|| {
                    let run = doctor(&no_deploy_block, operator, GOOD_KEY);
                    let fix = check(&run.1, "deploy_block")["fix"]
                        .as_str()
                        .unwrap()
                        .to_owned();
                    assert!(fix.contains("script/record-deployment.js"), "{fix}");
                    assert_only_failure(run, "deploy_block", "has no deployBlock");
                }),
                s.spawn(|| {
                    assert_only_failure(
                        doctor(&no_corpus, operator, GOOD_KEY),
                        "corpus",
                        "/nonexistent/veritas-corpus is not a folder",
                    );
                }),
                s.spawn(|| {
                    assert_only_failure(
                        doctor(&no_model_file, operator, GOOD_KEY),
                        "juror[1]",
                        "/nonexistent/veritas-doctor.gguf does not exist",
                    );
                }),
                s.spawn(|| {
                    let (code, json, stderr) = doctor(&no_model, operator, GOOD_KEY);
                    assert_eq!(code, 1, "{json}\n{stderr}");
                    assert_eq!(failing(&json), vec!["juror[0]", "planner"], "{json}");
                }),
                // 6. A search key the API rejects.
                s.spawn(|| {
                    assert_only_failure(
                        doctor(&good, operator, "wrong-key"),
                        "search",
                        "rejected the API key",
                    );
                }),
            ];
            for case in cases {
                case.join().unwrap();
            }
        })
    });
    drop(server);
    drop(records);
}
