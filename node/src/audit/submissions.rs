//! The report's on-chain evidence: its `submissions` key lists every item submitted for the
//! question with its link of the contract's evidence hash chain.
//!
//! Offline ([`check_submissions`]), each link is recomputed
//! (`keccak256(abi.encode(prev_head, id, submitter, url, title, snippet)) == evidence_head`) and
//! each item the report says it bundled is checked against `evidence`. With the chain
//! ([`compare_submissions_with_chain`]), every `EvidenceSubmitted` log of the question must be
//! in the report with the same head (hence the same fields), and the count must equal
//! `evidenceCount(id)`.

use alloy::{
    primitives::{Address, U256},
    sol_types::SolEvent,
};

use super::{AuditError, AuditReport, Mismatch, QuestionOnChain, question_logs, shape};
use crate::chain::{ChainError, ViewCall};
use crate::contract::{IVeritasOracle, evidence_chain};
use crate::evidence::{
    normalize::normalize_url,
    onchain::{Status, SubmissionEntry},
};

/// The report's `submissions` count and entries (none when the key is absent).
fn submission_entries(report: &AuditReport) -> (u64, &[SubmissionEntry]) {
    report
        .submissions
        .as_ref()
        .map_or((0, &[][..]), |s| (s.count, s.items.as_slice()))
}

fn question_id(report: &AuditReport) -> Result<U256, AuditError> {
    report
        .question
        .id
        .ok_or_else(|| shape("question.id", "missing: submissions need the question id"))
}

fn describe(index: u64, submitter: Address, url: &str) -> String {
    format!("item {index} from {submitter} ({url})")
}

/// Check the report's `submissions` on its own: consecutive indexes, every hash-chain link
/// recomputed, and every item the report says it bundled present in `evidence`.
///
/// # Errors
/// [`AuditError::Shape`] when submissions have no `question.id` (which the links hash).
pub fn check_submissions(report: &AuditReport) -> Result<Vec<Mismatch>, AuditError> {
    let (count, items) = submission_entries(report);
    let mut out = Vec::new();
    if items.is_empty() && count == 0 {
        return Ok(out);
    }
    let id = question_id(report)?;
    if count != items.len() as u64 {
        out.push(Mismatch::in_report(
            "submissions.count",
            items.len().to_string(),
            count.to_string(),
        ));
    }
    for (position, entry) in (1..).zip(items) {
        out.extend(submission_differences(report, id, position, entry));
    }
    Ok(out)
}

/// One `submissions` entry, the `position`-th: its index is its position, its hash-chain
/// link recomputes, and the evidence item it says it became is there.
fn submission_differences(
    report: &AuditReport,
    id: U256,
    position: u64,
    entry: &SubmissionEntry,
) -> Vec<Mismatch> {
    let s = &entry.submission;
    let field = format!("submissions[{}]", s.index);
    let mut out = Vec::new();
    if s.index != position {
        out.push(Mismatch::in_report(
            &format!("{field}.index"),
            position.to_string(),
            s.index.to_string(),
        ));
    }
    let [url, title, snippet] = match s.field_bytes() {
        Ok(fields) => fields,
        Err(reason) => {
            out.push(Mismatch::in_report(
                &format!("{field}.encoding"),
                "hex fields",
                reason,
            ));
            return out;
        }
    };
    let head = evidence_chain::link(s.prev_head, id, s.submitter, &url, &title, &snippet);
    if head != s.evidence_head {
        out.push(Mismatch::in_report(
            &format!(
                "{field}.evidence_head ({})",
                describe(s.index, s.submitter, &s.url)
            ),
            head.to_string(),
            s.evidence_head.to_string(),
        ));
    }
    if matches!(entry.status, Status::Included | Status::Merged) {
        out.extend(bundled_item_differences(report, entry, &field));
    }
    out
}

/// A submission the report says it bundled (included or merged): its evidence item has the
/// submitted URL (both sides normalised, as bundle items hold normalised URLs) and, when its
/// text was included, its submitter.
fn bundled_item_differences(
    report: &AuditReport,
    entry: &SubmissionEntry,
    field: &str,
) -> Vec<Mismatch> {
    let s = &entry.submission;
    let mut out = Vec::new();
    let item = entry
        .item
        .and_then(|n| report.evidence.iter().find(|i| i.id == n));
    let expected_url = normalize_url(&s.url).unwrap_or_else(|e| e.url);
    let found_url = item.map_or("(no such evidence item)", |i| i.url.as_str());
    let found_norm = normalize_url(found_url).unwrap_or_else(|e| e.url);
    if found_norm != expected_url {
        out.push(Mismatch::in_report(
            &format!("{field}.item"),
            expected_url,
            found_url,
        ));
    }
    let submitter = item
        .and_then(|i| i.submitter.as_deref())
        .unwrap_or_default();
    if entry.status == Status::Included && !submitter.eq_ignore_ascii_case(&s.submitter.to_string())
    {
        out.push(Mismatch::in_report(
            &format!("{field}.item.submitter"),
            s.submitter.to_string(),
            submitter,
        ));
    }
    out
}

/// `evidenceCount(id)` at the latest block and the question's `EvidenceSubmitted` logs from
/// `from_block` to it, decoded (removed logs skipped).
async fn chain_submissions(
    at: QuestionOnChain<'_>,
    from_block: u64,
) -> Result<(U256, Vec<evidence_chain::SubmittedLog>), ChainError> {
    let (latest, logs) = question_logs(
        at,
        IVeritasOracle::EvidenceSubmitted::SIGNATURE_HASH,
        from_block,
    )
    .await?;
    let on_chain = at
        .contract()
        .evidenceCount(at.id)
        .view_at(latest.into(), "evidenceCount")
        .await?;
    let mut chain_items = Vec::with_capacity(logs.len());
    for log in logs.iter().filter(|l| !l.removed) {
        let item = evidence_chain::decode(log).map_err(|e| ChainError::Contract {
            op: "EvidenceSubmitted",
            reason: e.to_string(),
        })?;
        chain_items.push(item);
    }
    Ok((on_chain, chain_items))
}

/// Compare the report's `submissions` with the question's `EvidenceSubmitted` logs (from
/// `from_block`) and `evidenceCount(id)`: an item on-chain but not in the report, or differing
/// from it, is a mismatch naming the item.
///
/// # Errors
/// [`ChainError`] when the chain cannot be read.
pub async fn compare_submissions_with_chain(
    report: &AuditReport,
    at: QuestionOnChain<'_>,
    from_block: u64,
) -> Result<Vec<Mismatch>, ChainError> {
    let mut out = Vec::new();
    let (count, items) = submission_entries(report);
    let (on_chain, chain_items) = chain_submissions(at, from_block).await?;
    out.extend(count_differences_with_chain(
        on_chain,
        chain_items.len(),
        count,
        from_block,
    ));
    out.extend(chain_items.iter().filter_map(|c| item_difference(c, items)));
    out.extend(
        items
            .iter()
            .filter(|e| !chain_items.iter().any(|c| c.index == e.submission.index))
            .map(|e| {
                let s = &e.submission;
                Mismatch::new(
                    format!("submissions[{}]", s.index),
                    "(not on-chain)",
                    describe(s.index, s.submitter, &s.url),
                )
            }),
    );
    Ok(out)
}

/// `evidenceCount(id)` against the `logs` read from `from_block` (too few: the scan started
/// late) and against the report's `submissions.count`.
fn count_differences_with_chain(
    on_chain: U256,
    logs: usize,
    reported: u64,
    from_block: u64,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    if U256::from(logs) != on_chain {
        out.push(Mismatch::new(
            "chain.EvidenceSubmitted logs",
            format!("{on_chain} (evidenceCount)"),
            format!("{logs} logs from block {from_block}"),
        ));
    }
    if U256::from(reported) != on_chain {
        out.push(Mismatch::new(
            "chain.evidenceCount",
            on_chain.to_string(),
            format!("{reported} in report.submissions.count"),
        ));
    }
    out
}

/// One on-chain item against the report's entry of the same index: missing, or with another
/// head, submitter or field.
fn item_difference(
    c: &evidence_chain::SubmittedLog,
    items: &[SubmissionEntry],
) -> Option<Mismatch> {
    let url = String::from_utf8_lossy(&c.url);
    let name = describe(c.index, c.submitter, &url);
    let field = format!("submissions[{}]", c.index);
    let Some(entry) = items.iter().find(|e| e.submission.index == c.index) else {
        return Some(Mismatch::new(
            field,
            format!("on-chain {name}"),
            "(missing from the report)",
        ));
    };
    let s = &entry.submission;
    let same_fields = s.field_bytes().is_ok_and(|[u, t, sn]| {
        u == c.url.as_ref() && t == c.title.as_ref() && sn == c.snippet.as_ref()
    });
    let same = s.evidence_head == c.evidence_head && s.submitter == c.submitter && same_fields;
    (!same).then(|| {
        Mismatch::new(
            field,
            format!("on-chain {name} with head {}", c.evidence_head),
            format!(
                "{} with head {}",
                describe(s.index, s.submitter, &s.url),
                s.evidence_head
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::{Value, json};

    use super::*;

    use super::super::fixture::{read, report};

    /// A report whose `submissions` hold two linked items (one bundled as item 1).
    fn report_with_submissions() -> Value {
        use crate::evidence::onchain::{ChainSubmission, SubmissionsRecord};
        let id = U256::from(7);
        let oracle = Address::with_last_byte(0xaa);
        let submitter = Address::with_last_byte(0x51);
        let h0 = evidence_chain::head0(31337, oracle);
        let h1 = evidence_chain::link(h0, id, submitter, b"https://a", b"A", b"s");
        let h2 = evidence_chain::link(h1, id, submitter, b"https://b", b"B", b"t");
        let entry = |index, url: &str, title: &str, snippet: &str, prev, head, status, item| {
            SubmissionEntry {
                submission: ChainSubmission::from_bytes(
                    index,
                    submitter,
                    url.as_bytes(),
                    title.as_bytes(),
                    snippet.as_bytes(),
                    prev,
                    head,
                    5,
                    index,
                ),
                status,
                item,
                dropped: None,
            }
        };
        let record = SubmissionsRecord {
            count: 2,
            items: vec![
                entry(1, "https://a", "A", "s", h0, h1, Status::Merged, Some(1)),
                entry(
                    2,
                    "https://b",
                    "B",
                    "t",
                    h1,
                    h2,
                    Status::NotConsidered,
                    None,
                ),
            ],
        };
        let mut r = report();
        r["submissions"] = serde_json::to_value(record).unwrap();
        r
    }

    #[test]
    fn submission_links_are_recomputed() {
        let r = report_with_submissions();
        assert_eq!(check_submissions(&read(&r)).unwrap(), vec![]);
        // An edited snippet breaks its link, and the mismatch names the item.
        let mut edited = r.clone();
        edited["submissions"]["items"][1]["snippet"] = json!("edited");
        let m = check_submissions(&read(&edited)).unwrap();
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(
            m[0].field.contains("submissions[2]") && m[0].field.contains("https://b"),
            "{}",
            m[0]
        );
        // A removed item leaves a gap in the indexes and the count.
        let mut removed = r.clone();
        removed["submissions"]["items"]
            .as_array_mut()
            .unwrap()
            .remove(0);
        let fields: Vec<String> = check_submissions(&read(&removed))
            .unwrap()
            .into_iter()
            .map(|m| m.field)
            .collect();
        assert!(
            fields.contains(&"report.submissions.count".to_string())
                && fields.contains(&"report.submissions[2].index".to_string()),
            "{fields:?}"
        );
        // An item claimed as bundled must be in the evidence.
        let mut wrong = r;
        wrong["submissions"]["items"][0]["item"] = json!(4);
        let fields: Vec<String> = check_submissions(&read(&wrong))
            .unwrap()
            .into_iter()
            .map(|m| m.field)
            .collect();
        assert_eq!(fields, ["report.submissions[1].item"]);
    }
}
