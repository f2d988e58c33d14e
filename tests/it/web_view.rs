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
//! Hostile evidence (`tests/browser/web_hostile.mjs`): a question whose text is HTML, and
//! evidence submitted on-chain with `javascript:` and `data:` URLs and HTML in url, title and
//! snippet, and an asker's clarification with HTML in it (a leaf of the root the browser
//! recomputes); on the node's pages nothing runs, the only links are http(s), and every response
//! (page, assets, JSON API, event stream, errors) carries the CSP and the other security
//! headers. The pages keep no state for tests: the scripts read the DOM, and the event stream
//! through Chromium's DevTools protocol.
//!
//! Without `chromium` the test is skipped with a loud message, except with `CI=true`, where a
//! missing browser fails the run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{
    io::{BufRead, BufReader, Lines, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdout, Command, Stdio},
    time::Duration,
};

use alloy::{
    primitives::{U256, aliases::U96},
    providers::Provider,
};
use veritas::{contract::IVeritasOracle, devnet::AnvilOptions};

use crate::support::{self, Chain, Node, wait};

const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;

pub(crate) const INSTALL_CHROMIUM: &str = "install Debian's chromium (make setup does as root)";

/// The browser: `CHROMIUM` or `chromium` on PATH.
pub(crate) fn chromium() -> Option<PathBuf> {
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

/// Screenshots and report copies of the browser scripts.
pub(crate) fn out_dir() -> PathBuf {
    repo_root().join("target/web-view")
}

/// A browser script of `tests/browser/` talking to the test over stdio (see each script).
pub(crate) struct Script {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Script {
    /// Run `tests/browser/<name>` on the node at `addr` with `args` added.
    pub(crate) fn run(name: &str, browser: &Path, addr: &str, args: &[&str]) -> Self {
        let mut child = Command::new("node")
            .arg(repo_root().join("tests/browser").join(name))
            .args(["--url", &format!("http://{addr}")])
            .args(["--out", out_dir().to_str().unwrap()])
            .args(["--chromium", browser.to_str().unwrap()])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node (Node.js) runs the browser script");
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Self { child, lines }
    }

    /// The script's next line ("" once it has exited).
    pub(crate) fn next(&mut self) -> String {
        self.lines.next().map(|l| l.unwrap()).unwrap_or_default()
    }

    pub(crate) fn send(&mut self, line: &str) {
        writeln!(self.child.stdin.as_mut().unwrap(), "{line}").unwrap();
    }

    /// Its `RESULT` payload once it exits successfully; panics with its reason and `log`.
    pub(crate) fn result(mut self, log: impl FnOnce() -> String) -> serde_json::Value {
        let line = self.next();
        let status = self.child.wait().unwrap();
        assert!(
            status.success() && line.starts_with("RESULT "),
            "browser script failed ({status}): {line}\nnode log:\n{}",
            log()
        );
        serde_json::from_str(&line["RESULT ".len()..]).unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verdict_appears_live_and_its_evidence_verifies_in_the_browser() {
    let Some(browser) = support::tool_or_skip(chromium(), "chromium", INSTALL_CHROMIUM) else {
        return;
    };
    let (chain, mut node) = support::chain_and_committee_node_in_process(REPLAY).await;
    let addr = node.api_addr(Duration::from_secs(30)).await;

    let mut script = Script::run("web_view.mjs", &browser, &addr, &[]);
    let ready = script.next();
    assert_eq!(ready, "READY", "browser script: {ready}");
    let ids = chain
        .ask(&["Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?"])
        .await;
    script.send(&format!("ASKED {}", ids[0]));
    let figures = script.result(|| node.log_text());
    let latency = figures["latency_ms"].as_f64().unwrap();
    eprintln!("web view: {figures}");
    // What must hold on any machine: the verdict reached the open page by the live stream, not
    // by a reload, well inside the script's wait. Its latency (about 0.1 s on an idle machine) is
    // printed above, never asserted tightly: a busy machine must not turn the suite red.
    assert!(
        latency <= 30_000.0,
        "verdict event reached the browser {latency} ms after the node published it"
    );
    for shot in ["questions.png", "question.png", "tampered.png"] {
        assert!(out_dir().join(shot).is_file(), "no screenshot {shot}");
    }
    node.stop_in_process().await;
}

/// A pooled verdict's life on the question page: two operators' reports (quorum 2), the
/// challenge window counting down, then a dispute and the node's second opinion appearing live
/// (`tests/browser/lifecycle.mjs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pooled_verdict_its_window_and_a_dispute_show_live_in_the_browser() {
    let Some(browser) = support::tool_or_skip(chromium(), "chromium", INSTALL_CHROMIUM) else {
        return;
    };
    let chain = Chain::start_with(AnvilOptions::default(), &[1, 3], |p| {
        p.quorum = 2;
        p.challengeWindow = 3600;
        // Contract v3 refuses a challenge window without a bond, and one below a BOND_UNIT.
        p.disputeBond = U96::from(1_000_000_000_000u64);
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

    let mut script = Script::run(
        "lifecycle.mjs",
        &browser,
        &addr,
        &["--question", &id.to_string()],
    );
    let ready = script.next();
    assert_eq!(
        ready,
        "READY",
        "browser script: {ready}\n{}",
        first.log_text()
    );

    let wad = |x: u64| U256::from(x) * U256::from(10_000_000_000_000_000u64);
    chain
        .dispute(
            5,
            id,
            U256::from(1_000_000_000_000u64),
            [wad(10), wad(85), wad(5)],
        )
        .await;
    script.send("DISPUTED");
    let result = script.result(|| first.log_text());
    eprintln!("lifecycle view: {result}");
    for shot in ["pooled.png", "disputed.png"] {
        assert!(out_dir().join(shot).is_file(), "no screenshot {shot}");
    }
    first.stop();
    second.stop();
}

/// What a hostile submitter tries: each payload would set the page's title to `pwned:<where>`
/// if it ran, or navigate away. (url, title, snippet) as sent to `submitEvidence`.
const HOSTILE: &[(&str, &str, &str)] = &[
    (
        "javascript:document.title='pwned:url'",
        "<img src=x onerror=\"document.title='pwned:title'\">",
        "<script>document.title='pwned:snippet'</script>",
    ),
    // Case, a leading blank and a tab do not hide the scheme from a URL parser.
    (
        " JaVaScRiPt:location='https://pwned.example/'",
        "<a href=\"javascript:document.title='pwned:title-link'\">click</a>",
        "\"><img src=x onerror=\"document.title='pwned:break-out'\">",
    ),
    (
        "java\tscript:document.title='pwned:url-tab'",
        "tab in the scheme",
        "<svg><script>document.title='pwned:svg-snippet'</script></svg>",
    ),
    (
        "data:text/html,<script>parent.document.title='pwned:data'</script>",
        "<iframe src=\"javascript:parent.document.title='pwned:iframe'\"></iframe>",
        "data: URL <style>body{display:none}</style>",
    ),
    // A web URL trying to break out of its attribute, with HTML in its text: it is evidence
    // (the bundle keeps it), a link, and its text stays text.
    (
        "https://hostile.example/a\"><img src=x onerror=\"document.title='pwned:href'\">",
        "<svg onload=\"document.title='pwned:svg'\">Harbour lane",
        "<b onmouseover=\"document.title='pwned:hover'\">The harbour lane opened.</b>",
    ),
    // Bidi overrides and control characters that would reorder or hide what the reader sees.
    (
        "https://bidi.example/invoice",
        "\u{202E}fdp.exe\u{202C} harbour invoice \u{2066}x\u{2069}",
        "\u{7}bell \u{1b}[31m escape \u{202D}override\u{202C} text",
    ),
];

/// Hostile evidence on-chain, then the question page in Chromium: nothing runs, the only links
/// are http(s), every response carries the security headers; and the node dropped each
/// non-web URL from the bundle, saying why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_evidence_neither_runs_nor_links_in_the_browser() {
    let Some(browser) = support::tool_or_skip(chromium(), "chromium", INSTALL_CHROMIUM) else {
        return;
    };
    let chain = Chain::start(AnvilOptions::default()).await;
    // The chain's clock two hours behind the wall clock, so the question is open for evidence
    // on-chain while its `resolveAfter` has passed for the node: with the chain's clock moved
    // on after the submissions, the node (started then) answers at once, all evidence in.
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let _: serde_json::Value = chain
        .reader()
        .raw_request("evm_setTime".into(), (wall - 7200,))
        .await
        .unwrap();
    let id = chain
        .ask_paying(
            "<img src=x onerror=\"document.title='pwned:question'\"><script>document.title='pwned:q'</script> Did the harbour lane open?",
            U256::ZERO,
            wall - 3600,
        )
        .await;
    for (url, title, snippet) in HOSTILE {
        chain.submit_evidence(3, id, url, title, snippet).await;
    }
    // The asker's clarification is hostile too: it is a leaf of the root the browser recomputes.
    chain
        .clarify(
            id,
            "<img src=x onerror=\"document.title='pwned:clarification'\"> Open means open to riders.",
        )
        .await;
    chain.advance(7200).await;
    let mut node = Node::configure_committee(&chain, REPLAY);
    node.start();
    let addr = node.api_addr(Duration::from_secs(30)).await;
    // Posted: `finalised`, or `final` at once (no challenge window by default).
    wait::until(
        Duration::from_secs(60),
        || {
            format!(
                "no verdict for {id}: {:?}\n{}",
                node.stages(),
                node.log_text()
            )
        },
        async || {
            let stages = node.stages();
            matches!(
                stages.get(&id).map(String::as_str),
                Some("finalised" | "final")
            )
            .then_some(())
        },
    )
    .await;
    let report = node.report_with_tx(id, Duration::from_secs(30)).await;

    // The node kept the web URL and dropped the others with the scheme as the reason.
    let items = report["submissions"]["items"].as_array().unwrap();
    assert_eq!(items.len(), HOSTILE.len(), "{items:#?}");
    for (entry, (url, ..)) in items.iter().zip(HOSTILE) {
        let web = url.starts_with("https:");
        let status = entry["status"].as_str().unwrap_or_default();
        if web {
            assert_eq!(status, "included", "{entry}");
        } else {
            assert_eq!(status, "dropped", "{entry}");
            let detail = entry["dropped"].to_string();
            assert!(
                detail.contains("is not one of http, https, local"),
                "{entry}"
            );
        }
    }
    for item in report["evidence"].as_array().unwrap() {
        let url = item["url"].as_str().unwrap();
        assert!(
            url.starts_with("https://") || url.starts_with("http://"),
            "a bundle item's URL is not a web URL: {url}"
        );
    }

    // (c) outside the page: the JSON API's other routes, the errors and a wrong method.
    let base = format!("http://{addr}");
    let client = reqwest::Client::new();
    let root = report["root"].as_str().unwrap();
    let requests = [
        client.get(format!("{base}/healthz")),
        client.get(format!("{base}/readyz")),
        client.get(format!("{base}/metrics")),
        client.get(format!("{base}/questions/{id}/provisional")),
        client.get(format!("{base}/bundles/{root}")),
        client.get(format!("{base}/reports/{id}")),
        client.get(format!("{base}/assets/no-such.js")),
        client.get(format!("{base}/no/such/route")),
        client.post(format!("{base}/questions")),
    ];
    // (The values themselves are pinned by the unit test in `web.rs`.)
    for request in requests {
        let response = request.send().await.unwrap();
        for (name, value) in veritas::web::SECURITY_HEADERS {
            let got = response.headers().get(&name).map(|v| v.to_str().unwrap());
            let (url, status) = (response.url(), response.status());
            assert_eq!(got, Some(value), "{url} {status}: {name}");
        }
    }

    // (a), (b) and (c) in the browser.
    let script = Script::run(
        "web_hostile.mjs",
        &browser,
        &addr,
        &["--question", &id.to_string()],
    );
    let result = script.result(|| node.log_text());
    eprintln!("hostile evidence: {result}");
    assert!(out_dir().join("hostile.png").is_file(), "no screenshot");
    node.stop();
}
