//! Issue #41 point 5, one CLI convention, through the real binary against a real anvil and the
//! real oracle: the exit codes (0 done, 1 failure, 2 a usage error or a refusal by the
//! contract's rules) and the global `--json` (one JSON value on one line of stdout) of every
//! command that prints a result.
//!
//! Where each command's `--json` is parsed: here `ask`, `verdict`, `operator balance`, `abi`,
//! `prove`, `verify-proof`, `simulate`, `stats`, `commit` and `config`; `roles_cli` parses
//! `evidence`, `dispute`, `appeal`, `court`, `callback`, `finalize` and the other `operator`
//! commands (and checks that every refusal there, local or simulated, exits 2); `doctor`
//! parses `doctor`'s.

use std::path::Path;

use serde_json::Value;
use veritas::devnet::{ANVIL_KEYS, AnvilOptions};

use crate::support::{Chain, veritas_as};

/// Anvil key indices.
const OPERATOR: usize = 1;
const ASKER: usize = 2;

/// `veritas ARGS` (with the chain's RPC and oracle when `chain` is given) as anvil's `key`.
fn run(chain: Option<&Chain>, dir: &Path, key: usize, args: &[&str]) -> (i32, String, String) {
    let mut all: Vec<String> = args.iter().map(ToString::to_string).collect();
    if let Some(chain) = chain {
        all.extend([
            "--rpc-url".into(),
            chain.anvil.url.clone(),
            "--oracle".into(),
            chain.oracle.to_string(),
        ]);
    }
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    veritas_as(&all, dir, Some(ANVIL_KEYS[key]))
}

/// Run with `--json`; exit code 0 and stdout one line of JSON, parsed.
fn json(chain: Option<&Chain>, dir: &Path, key: usize, args: &[&str]) -> Value {
    let mut with_flag = args.to_vec();
    with_flag.push("--json");
    let (code, out, err) = run(chain, dir, key, &with_flag);
    assert_eq!(code, 0, "veritas {with_flag:?} failed:\n{err}");
    one_line(&with_flag, &out)
}

fn one_line(args: &[&str], out: &str) -> Value {
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: --json prints one line:\n{out}");
    serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_codes_and_one_json_line_per_result() {
    let chain = Chain::start_with(AnvilOptions::default(), &[OPERATOR], |_| {}).await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let c = Some(&chain);

    // 0, and one JSON line, from every command that prints a result.
    let asked = json(
        c,
        dir,
        ASKER,
        &["ask", "Is it open?", "--resolve-after", "1h"],
    );
    let id = asked["id"].as_str().unwrap().to_string();
    assert!(asked["tx"].as_str().unwrap().starts_with("0x"), "{asked}");
    assert_eq!(json(c, dir, ASKER, &["verdict", &id])["status"], "Asked");
    let balance = json(c, dir, OPERATOR, &["operator", "balance"]);
    assert!(balance["stake"].as_str().is_some(), "{balance}");
    assert!(json(None, dir, ASKER, &["abi"]).is_array());
    let config = json(c, dir, ASKER, &["config"]);
    assert!(config["chain"]["rpc_url"].is_string(), "{config}");
    std::fs::write(
        dir.join("bundle.json"),
        r#"{"question":"Q?","evidence":[{"id":1},{"id":2}]}"#,
    )
    .unwrap();
    let proof = json(None, dir, ASKER, &["prove", "bundle.json", "1"]);
    std::fs::write(dir.join("proof.json"), proof.to_string()).unwrap();
    assert_eq!(
        json(None, dir, ASKER, &["verify-proof", "proof.json"])["valid"],
        true
    );
    let simulated = json(None, dir, ASKER, &["simulate", "--questions", "20"]);
    assert!(simulated["panels"].is_array(), "{simulated}");
    // The JSON-lines filters write JSON lines with or without `--json`.
    std::fs::write(
        dir.join("ballots.jsonl"),
        r#"[{"iteration":1,"model":"m","archetype":"a","vote":"YES"}]"#,
    )
    .unwrap();
    assert!(json(None, dir, ASKER, &["stats", "ballots.jsonl"]).is_object());
    assert!(json(None, dir, ASKER, &["commit", "bundle.json"])["root"].is_string());

    // 2: a usage error, from clap and from the command's own check.
    let (code, _, err) = run(c, dir, ASKER, &["ask"]);
    assert_eq!(code, 2, "{err}");
    let no_yes = ["dispute", &id, "--claim", "0.1", "0.85", "0.05", "--json"];
    let (code, out, err) = run(c, dir, ASKER, &no_yes);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--json needs --yes") && out.is_empty(),
        "{out}{err}"
    );

    // 2: refused by the contract's rules, checked locally (the report window is still open)...
    let (code, _, err) = run(c, dir, ASKER, &["finalize", &id]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("checked before sending"), "{err}");
    // ... and by the chain (an epoch not in force passes the local checks, the simulation
    // reverts).
    let (code, _, err) = run(c, dir, ASKER, &["ask", "Is it closed?", "--epoch", "999"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("simulated; no transaction sent"), "{err}");

    // 1: a failure — no RPC at the URL; a proof that does not verify (its result still printed).
    let (code, _, err) = veritas_as(
        &["verdict", &id, "--rpc-url", "http://127.0.0.1:9"],
        dir,
        None,
    );
    assert_eq!(code, 1, "{err}");
    let mut bad = proof.clone();
    bad["root"] = Value::String(format!("0x{}", "00".repeat(32)));
    std::fs::write(dir.join("bad.json"), bad.to_string()).unwrap();
    let args = ["verify-proof", "bad.json", "--json"];
    let (code, out, err) = run(None, dir, ASKER, &args);
    assert_eq!(code, 1, "{err}");
    assert_eq!(one_line(&args, &out)["valid"], false);
}
