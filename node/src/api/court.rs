//! The court's routes: what an arbitrator needs to rule on every disputed or escalated question
//! (`GET /cases`), and each case as a printable, downloadable ERC-1497 case file
//! (`GET /cases/{id}/evidence.json`).
//!
//! A case brings together what the node already serves piecemeal: the question, the evidence
//! submitted on-chain (one side), every operator's report with the evidence bundle it commits
//! to where this node has it (the other side), the committee's second opinion written after a
//! dispute, and the case as the chain holds it (arbitrator, dispute id, claimed triple, court
//! deadline, ruling). The chain part is read at request time, bounded like every read of the
//! API; without an answer the case is still listed, without it.

use alloy::primitives::{Address, U256};
use axum::{
    Json,
    extract::{Path, State},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use serde::Serialize;
use serde_json::{Value, json};

use super::{ApiState, SCRAPE_RPC_TIMEOUT, internal, read_report, submissions_of};
use crate::{contract::IVeritasOracle, overview, watcher::events::OperatorReport};

/// The overview's status words of the questions the court lists: before the court (disputed),
/// flagged for it (escalated), and ruled (arbitrated, kept so the ruling can be read).
pub const COURT_STATUSES: [&str; 3] = ["disputed", "escalated", "arbitrated"];

/// The case of a question as the oracle's `getCase` holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CourtCase {
    /// The question's ERC-792 arbitrator.
    pub arbitrator: Address,
    /// The arbitrator's dispute id.
    #[serde(with = "crate::decimal")]
    pub dispute_id: U256,
    /// Who disputed (zero when an escalation was taken to the court).
    pub disputer: Address,
    /// The disputer's bond in wei.
    #[serde(with = "crate::decimal")]
    pub bond: U256,
    /// Who paid the court.
    pub requester: Address,
    /// Unix seconds by which the court must rule (moved by each appeal).
    pub deadline: u64,
    /// The disputer's claimed triple (zero for an escalation), 1e18 scale.
    #[serde(with = "crate::decimal::triple")]
    pub claimed: [U256; 3],
    /// The ruling once given (0 before, or when the court refused).
    #[serde(with = "crate::decimal")]
    pub ruling: U256,
    /// What the ruling means ([`RULING_TITLES`]); null before a ruling.
    pub ruling_title: Option<&'static str>,
}

/// The title of ruling `ruling` (1 ..= 6), as the case file's ruling options name it.
pub fn ruling_title(ruling: U256) -> Option<&'static str> {
    let index = usize::try_from(ruling).ok()?.checked_sub(1)?;
    RULING_TITLES.get(index).copied()
}

impl From<IVeritasOracle::Case> for CourtCase {
    fn from(c: IVeritasOracle::Case) -> Self {
        Self {
            arbitrator: c.arbitrator,
            dispute_id: c.disputeId,
            disputer: c.disputer,
            bond: c.bond,
            requester: c.requester,
            deadline: c.deadline,
            claimed: [c.pYes, c.pNo, c.pNull],
            ruling: c.ruling,
            ruling_title: ruling_title(c.ruling),
        }
    }
}

/// One operator's report with the evidence bundle it commits to, when this node has it.
#[derive(Debug, Clone, Serialize)]
pub struct ReportEvidence {
    /// The report as the chain logged it.
    #[serde(flatten)]
    pub report: OperatorReport,
    /// The triple its counts give, computed as the contract computes it (1e18 scale).
    #[serde(with = "crate::decimal::triple")]
    pub triple: [u128; 3],
    /// The bundle's evidence items (the report file's `evidence`), or null.
    pub evidence: Option<Value>,
}

/// Everything the court page shows of one question.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    /// The question id.
    #[serde(with = "crate::decimal")]
    pub id: U256,
    /// The question text.
    pub question: String,
    /// The overview's status word (one of [`COURT_STATUSES`]).
    pub status: &'static str,
    /// The case on-chain, or null when the question has none (an escalation nobody took to
    /// the court yet) or the RPC did not answer in time.
    pub court: Option<CourtCase>,
    /// Every evidence item submitted on-chain, oldest first.
    pub submissions: Vec<Value>,
    /// Every operator's report.
    pub reports: Vec<ReportEvidence>,
    /// The committee's second opinion after a dispute (the report file), or null.
    pub second_opinion: Option<Value>,
}

/// Every question the court has to look at, newest first.
pub async fn cases(State(s): State<ApiState>) -> Response {
    let rows = match overview::rows(&s.store) {
        Ok(rows) => rows,
        Err(e) => return internal(&e),
    };
    let mut out = Vec::new();
    for row in rows.iter().filter(|r| COURT_STATUSES.contains(&r.status)) {
        out.push(case_of(&s, row.id, &row.text, row.status).await);
    }
    out.sort_by_key(|c| std::cmp::Reverse(c.id));
    Json(json!({"cases": out})).into_response()
}

/// The ERC-1497 case file of question `id`, as a download.
pub async fn case_file(State(s): State<ApiState>, Path(id): Path<String>) -> Response {
    let not_found = || {
        (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "no case for this question"})),
        )
            .into_response()
    };
    let Ok(id) = id.parse::<U256>() else {
        return not_found();
    };
    let row = match overview::row(&s.store, id) {
        Ok(Some(row)) if COURT_STATUSES.contains(&row.status) => row,
        Ok(_) => return not_found(),
        Err(e) => return internal(&e),
    };
    let case = case_of(&s, id, &row.text, row.status).await;
    let file = erc1497(s.oracle, &case);
    let disposition = format!("attachment; filename=\"veritas-case-{id}.json\"");
    (
        [
            (header::CONTENT_TYPE, "application/json".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        Json(file),
    )
        .into_response()
}

/// The case of `id` on-chain; `None` when it has none or the RPC did not answer in time.
pub async fn court_case(s: &ApiState, id: U256) -> Option<CourtCase> {
    let oracle = IVeritasOracle::new(s.oracle, &s.provider);
    match tokio::time::timeout(SCRAPE_RPC_TIMEOUT, oracle.getCase(id).call()).await {
        Ok(Ok(c)) if c.arbitrator != Address::ZERO => Some(CourtCase::from(c)),
        _ => None,
    }
}

async fn case_of(s: &ApiState, id: U256, text: &str, status: &'static str) -> Case {
    let court = court_case(s, id).await;
    let reports = s
        .store
        .operator_reports(id)
        .unwrap_or_default()
        .into_iter()
        .map(|report| {
            let evidence = s
                .store
                .intents_by_root(report.merkle_root)
                .unwrap_or_default()
                .iter()
                .find_map(|i| read_report(s, &i.report_path))
                .and_then(|r| r.get("evidence").cloned());
            ReportEvidence {
                triple: crate::stats::to_wad(report.counts),
                report,
                evidence,
            }
        })
        .collect();
    let second_opinion = s
        .store
        .lifecycle(id)
        .ok()
        .flatten()
        .and_then(|l| l.second_opinion)
        .and_then(|path| read_report(s, &path))
        .map(std::sync::Arc::unwrap_or_clone);
    Case {
        id,
        question: text.to_owned(),
        status,
        court,
        submissions: submissions_of(s, id),
        reports,
        second_opinion,
    }
}

/// The titles of the oracle's rulings by number (`RULING_*`), as the MetaEvidence names them.
pub const RULING_TITLES: [&str; 6] = [
    "The verdict stands",
    "YES",
    "NO",
    "Unresolvable",
    "Too early: defer the question",
    "The disputer's triple",
];

/// The case as an ERC-1497 case file: the MetaEvidence (the question and the ruling options)
/// and one Evidence JSON per item (`name`, `description`, `fileURI`), each with the party that
/// brought it; the operators' reports and the second opinion are evidence too (pure).
pub fn erc1497(oracle: Address, case: &Case) -> Value {
    let submitted = case.submissions.iter().map(|s| {
        json!({"name": s.get("title"), "description": s.get("snippet"), "fileURI": s.get("url"),
               "party": s.get("submitter"), "kind": "submitted", "index": s.get("index")})
    });
    let reports = case.reports.iter().map(|r| {
        let [yes, no, null] = r.report.counts;
        json!({"name": format!("Report of operator {}", r.report.operator),
               "description": format!("ballots YES {yes} / NO {no} / NULL {null}; Fleiss' kappa {} (1e18 scale); {}; \
                                       evidence Merkle root {}", r.report.kappa,
                                      if r.report.escalated { "asks for the court" } else { "resolves" },
                                      r.report.merkle_root),
               "fileURI": format!("/bundles/{}", r.report.merkle_root),
               "party": r.report.operator, "kind": "report", "transaction": r.report.tx_hash,
               "evidence": r.evidence})
    });
    let second = case.second_opinion.iter().map(|so| {
        json!({"name": "Second opinion of the committee", "kind": "second_opinion",
               "description": "The committee ran again on the evidence after the dispute.",
               "fileURI": so.get("root").map(|root| format!("/bundles/{}", root.as_str().unwrap_or_default())),
               "stats": so.get("stats"), "routing": so.get("routing"), "root": so.get("root")})
    });
    let court = case.court.as_ref();
    json!({
        "standard": "ERC-1497",
        "arbitrable": oracle,
        "arbitrator": court.map(|c| c.arbitrator),
        "disputeID": court.map(|c| c.dispute_id.to_string()),
        "evidenceGroupID": case.id.to_string(),
        "metaEvidence": {
            "category": "Veritas oracle question",
            "title": format!("Veritas question {}", case.id),
            "question": case.question,
            "rulingOptions": {"type": "single-select", "titles": RULING_TITLES},
        },
        "status": case.status,
        "court": court,
        "evidence": submitted.chain(reports).chain(second).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use alloy::primitives::{B256, I256};

    use crate::commitment::root::Root;

    use super::*;

    fn case() -> Case {
        Case {
            id: U256::from(7),
            question: "Did the lane open?".into(),
            status: "disputed",
            court: Some(CourtCase {
                arbitrator: Address::repeat_byte(0xc0),
                dispute_id: U256::from(3),
                disputer: Address::repeat_byte(0xd1),
                bond: U256::from(1),
                requester: Address::repeat_byte(0xd1),
                deadline: 1_800_000_000,
                claimed: [U256::from(1), U256::from(2), U256::from(3)],
                ruling: U256::ZERO,
                ruling_title: None,
            }),
            submissions: vec![
                json!({"index": 1, "submitter": "0xd1", "url": "https://a.example/",
                                     "title": "A", "snippet": "the lane opened"}),
            ],
            reports: vec![ReportEvidence {
                report: OperatorReport {
                    question_id: U256::from(7),
                    operator: Address::repeat_byte(0x01),
                    merkle_root: Root::from([0xaa; 32]),
                    counts: [4, 1, 1],
                    kappa: I256::ZERO,
                    escalated: false,
                    block_number: 9,
                    log_index: 0,
                    tx_hash: B256::repeat_byte(0xbb),
                },
                triple: crate::stats::to_wad([4, 1, 1]),
                evidence: Some(json!([{"url": "https://b.example/"}])),
            }],
            second_opinion: Some(json!({"root": "0xcc", "stats": {}, "routing": {}})),
        }
    }

    #[test]
    fn the_case_file_holds_both_sides_and_the_court() {
        let file = erc1497(Address::repeat_byte(0x0e), &case());
        assert_eq!(file["standard"], "ERC-1497");
        assert_eq!(file["evidenceGroupID"], "7");
        assert_eq!(file["disputeID"], "3");
        assert_eq!(file["metaEvidence"]["question"], "Did the lane open?");
        assert_eq!(
            file["metaEvidence"]["rulingOptions"]["titles"][2], "NO",
            "ruling 3 is NO (titles start at ruling 1)"
        );
        let kinds: Vec<&str> = file["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["submitted", "report", "second_opinion"]);
        assert_eq!(file["evidence"][0]["fileURI"], "https://a.example/");
        assert_eq!(
            file["evidence"][1]["evidence"][0]["url"],
            "https://b.example/"
        );
        // Big integers are decimal strings (the node's JSON convention).
        assert_eq!(file["court"]["claimed"], json!(["1", "2", "3"]));
        assert_eq!(file["court"]["deadline"], 1_800_000_000u64);
        // Each report carries the triple its counts give, as the contract pools them.
        let reported = serde_json::to_value(&case().reports[0]).unwrap();
        assert_eq!(
            reported["triple"],
            json!([
                "555555555555555556",
                "222222222222222222",
                "222222222222222222"
            ])
        );
    }

    #[test]
    fn rulings_are_named_by_the_oracles_numbers() {
        assert_eq!(
            ruling_title(U256::ZERO),
            None,
            "0: no ruling yet (or refused)"
        );
        assert_eq!(ruling_title(U256::from(1)), Some("The verdict stands"));
        assert_eq!(ruling_title(U256::from(3)), Some("NO"));
        assert_eq!(
            ruling_title(U256::from(5)),
            Some("Too early: defer the question")
        );
        assert_eq!(ruling_title(U256::from(6)), Some("The disputer's triple"));
        assert_eq!(ruling_title(U256::from(7)), None);
    }
}
