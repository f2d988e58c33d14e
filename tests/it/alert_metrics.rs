//! Every metric the shipped alert rules and the Grafana dashboard name is one a running node
//! exports.
//!
//! A real node (the `veritas` binary, replay resolver) on a real anvil with the oracle answers
//! one question, so that every series the rules read exists (the stage timings appear with the
//! first verdict); then its `/metrics` page is scraped and each `veritas_*` name in
//! `ops/prometheus/alerts.yml` and `ops/grafana/veritas.json` must be a sample name on it. A rule that names a metric the node
//! does not export (renamed, removed, misspelt) would never fire: this test fails instead.
//!
//! `VERITAS_GATE_CANARY=armed` adds one name the node does not export, so the gates' self-test
//! (scripts/test-gates.sh) sees this test fail for that reason.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::{collections::BTreeSet, time::Duration};

use veritas::devnet::repo_root;

use crate::support::{self, wait};

/// The `veritas_*` metric names a rules (or dashboard) file mentions.
fn names_in(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("veritas_") {
        let start = i + at;
        let boundary =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let end = text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(text.len(), |n| start + n);
        if boundary {
            names.insert(text[start..end].to_owned());
        }
        i = end;
    }
    names
}

/// Sample names on a Prometheus text page (labels and values dropped).
fn exported(page: &str) -> BTreeSet<String> {
    page.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split(['{', ' ']).next().unwrap().to_owned())
        .collect()
}

#[test]
fn names_are_found_in_rule_text() {
    let text = "expr: rate(veritas_a_total[5m]) / veritas_b{stage=\"x\"} > 0 # not xveritas_c";
    let want: BTreeSet<String> = ["veritas_a_total", "veritas_b"]
        .map(String::from)
        .into_iter()
        .collect();
    assert_eq!(names_in(text), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_metric_the_alert_rules_name_is_exported_by_a_running_node() {
    let root = repo_root().unwrap();
    let rules = std::fs::read_to_string(root.join("ops/prometheus/alerts.yml")).unwrap();
    let mut wanted = names_in(&rules);
    assert!(wanted.len() >= 10, "too few metric names found: {wanted:?}");
    let dashboard = std::fs::read_to_string(root.join("ops/grafana/veritas.json")).unwrap();
    let on_dashboard = names_in(&dashboard);
    assert!(
        on_dashboard.len() >= 20,
        "too few metric names found: {on_dashboard:?}"
    );
    wanted.extend(on_dashboard);
    if std::env::var("VERITAS_GATE_CANARY").is_ok_and(|v| v == "armed") {
        wanted.insert("veritas_gate_canary_not_exported".to_owned());
    }

    let (chain, mut node) =
        support::chain_and_node_in_process(r#"{"default": {"votes": ["YES", "YES", "NO"]}}"#, "")
            .await;
    chain
        .ask_and_wait(&["Is the sky blue?"], Duration::from_secs(60))
        .await;
    // The verdict is on-chain; the node records its stage timings right after the receipt.
    let page = wait::until(
        Duration::from_secs(10),
        || "no post-stage timing on the metrics page".to_owned(),
        async || {
            let page = node.metrics().await;
            page.contains("veritas_stage_seconds_count{stage=\"post\"}")
                .then_some(page)
        },
    )
    .await;
    node.stop_in_process().await;
    let have = exported(&page);
    let missing: Vec<&String> = wanted.difference(&have).collect();
    assert!(
        missing.is_empty(),
        "alert rules or the dashboard name metrics the node does not export: {missing:?}\n--- /metrics\n{page}"
    );
    eprintln!(
        "{} metric names in the rules and the dashboard, all exported",
        wanted.len()
    );
}
