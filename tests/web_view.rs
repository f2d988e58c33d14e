//! End to end in a real browser: the live committee view of a real node (anvil, the oracle,
//! the committee path with the jury's replay juror and the demo corpus) driven in headless
//! Chromium by `tests/browser/web_view.mjs` (playwright-core from tools/node_modules, Debian's
//! `chromium`).
//!
//! Checks: the list page's event stream connects; a question asked on-chain afterwards
//! appears and settles *without a reload*; its verdict event reaches the browser within 1 s of
//! the node publishing it; on the question page every evidence leaf and the root recomputed in
//! the browser match; a tampered copy of the report is caught and the differing leaf named.
//! Screenshots go to `target/web-view/`.
//!
//! Without `chromium` the test is skipped with a loud message, except with `CI=true`, where a
//! missing browser fails the run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::{
    io::{BufRead, BufReader, Write},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Duration,
};

use support::{Chain, Node};
use veritas::chain::devnet::AnvilOptions;

const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;

const INSTALL_CHROMIUM: &str = "install Debian's chromium (make setup does as root)";

/// The browser: `CHROMIUM` or `chromium` on PATH.
fn chromium() -> Option<PathBuf> {
    let name = std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".into());
    let path = PathBuf::from(&name);
    if path.is_absolute() {
        return path.is_file().then_some(path);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(&name))
            .find(|p| p.is_file())
    })
}

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verdict_appears_live_and_its_evidence_verifies_in_the_browser() {
    let Some(browser) = support::tool_or_skip(chromium(), "chromium", INSTALL_CHROMIUM) else {
        return;
    };
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure_committee(&chain, REPLAY);
    node.start();
    let addr = node.api_addr(Duration::from_secs(30)).await;
    let out = repo_root().join("target/web-view");

    let mut script = Command::new("node")
        .arg(repo_root().join("tests/browser/web_view.mjs"))
        .args(["--url", &format!("http://{addr}")])
        .args(["--out", out.to_str().unwrap()])
        .args(["--chromium", browser.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node (Node.js) runs the browser script");
    let mut lines = BufReader::new(script.stdout.take().unwrap()).lines();
    let mut next = move || lines.next().map(|l| l.unwrap()).unwrap_or_default();

    let ready = next();
    assert_eq!(ready, "READY", "browser script: {ready}");
    let ids = chain
        .ask(&["Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?"])
        .await;
    writeln!(script.stdin.as_mut().unwrap(), "ASKED {}", ids[0]).unwrap();

    let result = next();
    let status = script.wait().unwrap();
    assert!(
        status.success() && result.starts_with("RESULT "),
        "browser script failed ({status}): {result}\nnode log:\n{}",
        node.log_text()
    );
    let figures: serde_json::Value = serde_json::from_str(&result["RESULT ".len()..]).unwrap();
    let latency = figures["latency_ms"].as_f64().unwrap();
    eprintln!("web view: {figures}");
    assert!(
        latency <= 1000.0,
        "verdict event reached the browser {latency} ms after the node published it"
    );
    for shot in ["questions.png", "question.png", "tampered.png"] {
        assert!(out.join(shot).is_file(), "no screenshot {shot}");
    }
    node.stop();
}

/// A pooled verdict's life on the question page: two operators' reports (quorum 2), the
/// challenge window counting down, then a dispute and the node's second opinion appearing live
/// (`tests/browser/lifecycle.mjs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pooled_verdict_its_window_and_a_dispute_show_live_in_the_browser() {
    let Some(browser) = support::tool_or_skip(chromium(), "chromium", INSTALL_CHROMIUM) else {
        return;
    };
    use veritas::chain::IVeritasOracle;
    let chain = Chain::start_with(AnvilOptions::default(), &[1, 3], |p| {
        p.quorum = 2;
        p.challengeWindow = 3600;
    })
    .await;
    let mut first = Node::configure_as(&chain, 1, REPLAY, "");
    let mut second = Node::configure_as(&chain, 3, REPLAY, "");
    first.start();
    second.start();
    let addr = first.api_addr(Duration::from_secs(30)).await;
    let id = chain
        .ask(&["Did the lantern festival draw a record crowd?"])
        .await[0];
    chain
        .wait_status(
            id,
            IVeritasOracle::VerdictStatus::Resolved,
            Duration::from_secs(60),
        )
        .await;
    first
        .wait_stage(id, "finalised", Duration::from_secs(30))
        .await;

    let out = repo_root().join("target/web-view");
    let mut script = Command::new("node")
        .arg(repo_root().join("tests/browser/lifecycle.mjs"))
        .args(["--url", &format!("http://{addr}")])
        .args(["--question", &id.to_string()])
        .args(["--out", out.to_str().unwrap()])
        .args(["--chromium", browser.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node (Node.js) runs the browser script");
    let mut lines = BufReader::new(script.stdout.take().unwrap()).lines();
    let mut next = move || lines.next().map(|l| l.unwrap()).unwrap_or_default();
    let ready = next();
    assert_eq!(
        ready,
        "READY",
        "browser script: {ready}\n{}",
        first.log_text()
    );

    let disputer = chain.wallet(5);
    let receipt = IVeritasOracle::new(chain.oracle, &disputer)
        .dispute(id)
        .send()
        .await
        .unwrap()
        .get_receipt()
        .await
        .unwrap();
    assert!(receipt.status());
    writeln!(script.stdin.as_mut().unwrap(), "DISPUTED").unwrap();
    let result = next();
    let status = script.wait().unwrap();
    assert!(
        status.success() && result.starts_with("RESULT "),
        "browser script failed ({status}): {result}\nnode log:\n{}",
        first.log_text()
    );
    eprintln!("lifecycle view: {}", &result["RESULT ".len()..]);
    for shot in ["pooled.png", "disputed.png"] {
        assert!(out.join(shot).is_file(), "no screenshot {shot}");
    }
    first.stop();
    second.stop();
}
