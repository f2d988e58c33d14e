//! Bad input end to end: questions at and past the contract's length limits, and reports
//! edited by hand, which `veritas audit` must catch naming the field, with a non-zero exit.
//!
//! The limits are the contract's: `askQuestion` refuses an empty question
//! (`VeritasEmptyQuestion`) and one longer than `MAX_QUESTION_LENGTH` = 2048 bytes
//! (`VeritasQuestionTooLong`), so the node only ever sees 1..=2048 bytes; the longest one must
//! go through the whole pipeline. (Invalid UTF-8 in an event is covered in `node_e2e.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use alloy::primitives::U256;
use serde_json::json;
use veritas::{
    audit,
    contract::IVeritasOracle,
    devnet::{ANVIL_KEYS, AnvilOptions},
};

use crate::support::{self, Chain, Node, veritas};

const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;

/// `veritas ask <question>` against the chain; returns (exit code, stdout + stderr).
fn ask_cli(chain: &Chain, node: &Node, question: &str) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_veritas"))
        .args(["ask", question, "--rpc-url", &chain.anvil.url])
        .args(["--oracle", &chain.oracle.to_string()])
        .env("VERITAS_PRIVATE_KEY", ANVIL_KEYS[2])
        .env("NO_COLOR", "1")
        .current_dir(node.dir.path())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Exactly `len` bytes of valid UTF-8 with 1-, 2-, 3- and 4-byte characters, ending in `?`.
fn question_of_len(len: usize) -> String {
    let mut q = String::from("Is this the longest question the oracle takes? ");
    for c in ['é', '€', '🦀', 'x'].into_iter().cycle() {
        if q.len() + c.len_utf8() > len - 1 {
            break;
        }
        q.push(c);
    }
    while q.len() < len - 1 {
        q.push('x');
    }
    q.push('?');
    assert_eq!(q.len(), len);
    q
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn question_length_limits_give_clear_errors_and_the_longest_is_resolved() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let reader = chain.reader();
    let contract = IVeritasOracle::new(chain.oracle, &reader);
    let max = contract
        .MAX_QUESTION_LENGTH()
        .call()
        .await
        .unwrap()
        .to::<usize>();
    assert_eq!(max, 2048);
    let mut node = Node::configure(&chain, REPLAY, "");
    node.start();

    // Refused by the contract, with the reason, before anything reaches the node.
    let (code, out) = ask_cli(&chain, &node, "");
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("VeritasEmptyQuestion"), "{out}");
    let too_long = question_of_len(max + 1);
    let (code, out) = ask_cli(&chain, &node, &too_long);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("VeritasQuestionTooLong"), "{out}");
    assert_eq!(
        contract.questionCount().call().await.unwrap(),
        U256::ZERO,
        "nothing was asked"
    );

    // The longest accepted question goes through the whole pipeline, byte for byte.
    let longest = question_of_len(max);
    let (code, out) = ask_cli(&chain, &node, &longest);
    assert_eq!(code, 0, "{out}");
    let id: U256 = out.lines().next().unwrap().trim().parse().unwrap();
    let short = chain.ask(&["A short one after it?"]).await;
    chain
        .wait_verdicts(&[id, short[0]], Duration::from_secs(60))
        .await;
    assert_eq!(chain.verdict_events(id).await, 1);
    let report = node.report_with_tx(id, Duration::from_secs(10)).await;
    assert_eq!(report["question"]["text"], longest.as_str());
    let path = node.report_path(id);
    let (code, out, err) = veritas(
        &["audit", path.to_str().unwrap(), "--rpc", &chain.anvil.url],
        node.dir.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("OK"), "{out}");
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hand_edited_reports_are_caught_naming_the_field() {
    // The committee path with the jury's replay juror and the demo corpus: a report with
    // real evidence items and ballots.
    let (chain, mut node) = support::chain_and_committee_node(REPLAY).await;
    let ids = chain
        .ask_and_wait(
            &["Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?"],
            Duration::from_secs(120),
        )
        .await;
    node.report_with_tx(ids[0], Duration::from_secs(10)).await;
    node.stop();
    let original = node.report(ids[0]);
    assert!(!original["evidence"].as_array().unwrap().is_empty());
    assert_eq!(original["ballots"][0]["vote"], "YES");
    let rpc = chain.anvil.url.clone();
    let audit_file = |name: &str, text: String| -> (i32, String) {
        let path = node.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let (code, out, err) = veritas(
            &["audit", path.to_str().unwrap(), "--rpc", &rpc],
            node.dir.path(),
        );
        (code, format!("{out}{err}"))
    };
    let (code, out) = audit_file(
        "original.json",
        serde_json::to_string_pretty(&original).unwrap(),
    );
    assert_eq!(code, 0, "{out}");

    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit, &[&str]); 4] = [
        (
            "evidence snippet changed",
            |r| r["evidence"][0]["snippet"] = json!("The council rejected the bike lane."),
            &[
                "MISMATCH report.root",
                "MISMATCH report.leaves",
                "MISMATCH chain.merkleRoot",
            ],
        ),
        (
            "a ballot's vote flipped",
            |r| r["ballots"][0]["vote"] = json!("NO"),
            &[
                "MISMATCH report.stats.p_fixed[0] (YES)",
                "MISMATCH report.stats.counts.YES",
                "MISMATCH chain.pYes",
            ],
        ),
        (
            "root changed",
            |r| {
                r["root"] =
                    json!("0x1111111111111111111111111111111111111111111111111111111111111111")
            },
            &["MISMATCH report.root"],
        ),
        (
            "a ballot removed",
            |r| {
                r["ballots"].as_array_mut().unwrap().remove(0);
            },
            &[
                "MISMATCH report.stats.ballots",
                "MISMATCH report.stats.valid",
                "MISMATCH chain.pYes",
            ],
        ),
    ];
    for (what, edit, fields) in edits {
        let mut edited = original.clone();
        edit(&mut edited);
        let (code, out) = audit_file(
            "edited.json",
            serde_json::to_string_pretty(&edited).unwrap(),
        );
        assert_ne!(code, 0, "{what}: {out}");
        for field in fields {
            assert!(out.contains(field), "{what}: no `{field}` in\n{out}");
        }
        // Each edit is caught from the file alone, before any chain comparison.
        let edited = audit::AuditReport::from_json(&edited).unwrap();
        let rec = audit::recompute(&edited).unwrap();
        assert!(
            !audit::compare_with_report(&rec, &edited).is_empty(),
            "{what}"
        );
    }

    // A truncated file and a non-committable evidence item: a clear error, non-zero exit.
    let text = serde_json::to_string_pretty(&original).unwrap();
    let (code, out) = audit_file("truncated.json", text[..text.len() / 2].to_string());
    assert_ne!(code, 0);
    assert!(out.contains("is not JSON"), "{out}");
    let mut float = original.clone();
    float["evidence"][0]["score"] = json!(0.5);
    let (code, out) = audit_file("float.json", serde_json::to_string(&float).unwrap());
    assert_ne!(code, 0);
    assert!(out.contains("evidence"), "{out}");
}
