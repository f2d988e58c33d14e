//! Commit-reveal helpers shared by `commit_reveal.rs` and `crash_anywhere.rs`.

use std::{collections::BTreeMap, time::Duration};

use alloy::{
    primitives::{Address, B256, U256},
    providers::Provider,
    rpc::types::Filter,
    sol_types::SolEvent,
};
use veritas::{contract::IVeritasOracle, devnet::AnvilOptions};

use super::{Chain, Node};

const WAIT: Duration = Duration::from_secs(60);

/// A chain whose questions need 2 reports, committed then revealed within `reveal_window` s.
pub async fn chain(operators: &[usize], reveal_window: u32) -> Chain {
    Chain::start_with(AnvilOptions::default(), operators, |p| {
        p.quorum = 2;
        p.revealWindow = reveal_window;
        // A commit-reveal set needs a bond (`VeritasBondRequired`): one unit, 1e12 wei, so the
        // devnet's 1-ether stakes back any number of open commits.
        p.disputeBond = alloy::primitives::aliases::U96::from(1_000_000_000_000u64);
    })
    .await
}

/// Every `ReportCommitted` of `id`: (operator, commitment).
pub async fn commits(chain: &Chain, id: U256) -> Vec<(Address, B256)> {
    let filter = Filter::new()
        .address(chain.oracle)
        .event_signature(IVeritasOracle::ReportCommitted::SIGNATURE_HASH)
        .topic1(id)
        .from_block(0u64);
    chain
        .reader()
        .get_logs(&filter)
        .await
        .unwrap()
        .iter()
        .map(|log| {
            let e = log
                .log_decode::<IVeritasOracle::ReportCommitted>()
                .unwrap()
                .inner
                .data;
            (e.operator, e.commitment)
        })
        .collect()
}

/// `CommitSlashed` events on the whole chain.
pub async fn slashed(chain: &Chain) -> usize {
    let filter = Filter::new()
        .address(chain.oracle)
        .event_signature(IVeritasOracle::CommitSlashed::SIGNATURE_HASH)
        .from_block(0u64);
    chain.reader().get_logs(&filter).await.unwrap().len()
}

/// Each report audits against itself, and `veritas audit --question` pools them into the
/// verdict on-chain (each report file matching its operator's `ReportSubmitted`).
pub async fn assert_pooled_audits(chain: &Chain, id: U256, reports: &[&Node]) {
    let mut args = vec![
        "audit".to_string(),
        "--question".into(),
        id.to_string(),
        "--rpc".into(),
        chain.anvil.url.clone(),
        "--oracle".into(),
        chain.oracle.to_string(),
    ];
    for node in reports {
        let report = node.report_with_tx(id, WAIT).await;
        let report = veritas::audit::AuditReport::from_json(&report).unwrap();
        let rec = veritas::audit::recompute(&report).unwrap();
        assert_eq!(
            veritas::audit::compare_with_report(&rec, &report),
            vec![],
            "question {id}"
        );
        args.push("--report".into());
        args.push(node.report_path(id).display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = super::veritas(&args, reports[0].dir.path());
    assert_eq!(code, 0, "audit of {id}: {out}\n{err}");
    assert!(out.contains("OK:") && !out.contains("MISMATCH"), "{out}");
    assert_eq!(
        out.matches("report file").count(),
        reports.len(),
        "every report file pooled: {out}"
    );
}

/// The node's saved (commitment, salt) per question.
pub fn saved(node: &Node) -> BTreeMap<U256, (B256, B256)> {
    let commits = node.store().unwrap().commits().unwrap();
    commits
        .into_iter()
        .map(|c| (c.question_id, (c.commitment, c.salt)))
        .collect()
}
