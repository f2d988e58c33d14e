//! The node's read-only HTTP API: health, readiness, metrics, questions and bundles.
//!
//! | route | answers |
//! |---|---|
//! | `GET /healthz` | 200 while the process serves requests |
//! | `GET /readyz` | 200 when the RPC answers and the cursor lags the confirmed head by at most `node.ready_max_lag` blocks, else 503 with the reason |
//! | `GET /metrics` | OpenMetrics text, which Prometheus scrapes (every metric is declared in [`crate::metrics`]) |
//! | `GET /questions` | every question's list row (status, leading outcome) and the live event id it reflects |
//! | `GET /questions/{id}` | the job, its post intent, its transactions, its report, what the chain holds, its on-chain submissions and provisional runs |
//! | `GET /questions/{id}/provisional` | the question's on-chain submissions and its provisional runs (committee re-runs while open; never posted), oldest first |
//! | `GET /bundles/{root}` | the committed question, evidence and leaves for a Merkle root |
//! | `GET /reports/{id}` | the node's report file for a question, byte for byte (`veritas audit --question --report URL`) |
//! | `GET /abi` | the oracle's address, chain id, JSON ABI and error sentences, for the web view's wallet ([`wallet`]) |
//! | `POST /explain` | `{data}` revert data → `{error, args, sentence}`, the contract's own sentence ([`wallet`]) |
//! | `GET /questions/{id}/check/{action}?from=0x…&…` | what `evidence`, `clarify`, `dispute`, `appeal` or `finalize` from that account would do by the contract's rules: 200 the plan (call, value, lines), 409 the contract's refusal `{refused, error, args, sentence}`, 400 malformed input, 404 unknown action ([`check`]) |
//! | `GET /cases` | every disputed, escalated or ruled question with what its court needs ([`court`]) |
//! | `GET /cases/{id}/evidence.json` | the case as an ERC-1497 case file, a download ([`court`]) |
//!
//! A question page, a check and the court's pages read the chain: at most
//! [`shed::MAX_CHAIN_READS_IN_FLIGHT`] of them run at once, and one more is answered 503 with
//! `Retry-After: 1` at once ([`shed`]), so the API cannot spend the RPC the node needs.
//!
//! It binds 127.0.0.1 by default and has no write route (`POST /explain` only decodes what it
//! is sent; a check only reads the chain): it is safe to expose to a local Prometheus, and needs a reverse proxy (with its own
//! auth) to go further. It never holds a user's key: the web view's wallet signs in the browser.

pub mod check;
pub mod court;
pub mod reports;
pub mod shed;
pub mod wallet;

use std::{
    net::SocketAddr,
    sync::{Arc, atomic::Ordering},
    time::Duration,
};

use alloy::{
    primitives::{Address, U256},
    providers::Provider,
};
use axum::{
    Json, Router,
    extract::{Path, State},
    http::{StatusCode, header},
    middleware::from_fn_with_state,
    response::{IntoResponse, Response},
    routing::{get, post},
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::{
    chain::ChainProvider,
    commitment::root::Root,
    contract::IVeritasOracle,
    live::LiveEvents,
    metrics::{self, Metrics, Scrape, Wei, load},
    overview,
    poster::Poster,
    store::{Counts, Job, PostIntent, Stage, Store, Wait},
    watcher::WatchState,
};

/// Everything the handlers read.
#[derive(Clone)]
pub struct ApiState {
    /// Job store.
    pub store: Arc<Store>,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Watcher status.
    pub watch: Arc<WatchState>,
    /// RPC for readiness.
    pub provider: ChainProvider,
    /// For the wallet balance.
    pub poster: Arc<Poster>,
    /// Confirmation depth (for the lag).
    pub confirmations: u64,
    /// Largest lag `/readyz` accepts.
    pub ready_max_lag: u64,
    /// The live event log (its latest id goes with the list, see [`crate::web`]).
    pub live: Arc<LiveEvents>,
    /// The oracle, read for the on-chain side of a question.
    pub oracle: Address,
    /// The report files served, each checked once per version of the file.
    pub reports: Arc<reports::ReportCache>,
}

/// The API's routes. Those that read the chain for a page share one bound on requests in
/// flight ([`shed`]).
pub fn router(state: ApiState) -> Router {
    let chain_reading = Router::new()
        .route("/questions/{id}", get(question))
        .route("/questions/{id}/check/{action}", get(check::check))
        .route("/cases", get(court::cases))
        .route("/cases/{id}/evidence.json", get(court::case_file))
        .route_layer(from_fn_with_state(
            shed::ChainReads::default(),
            shed::bounded,
        ));
    crate::web::with_security_headers(
        Router::new()
            .route("/healthz", get(|| async { "ok\n" }))
            .route("/readyz", get(readyz))
            .route("/metrics", get(metrics))
            .route("/questions", get(questions))
            .route("/questions/{id}/provisional", get(provisional))
            .route("/bundles/{root}", get(bundle))
            .route("/reports/{id}", get(report_file))
            .route("/abi", get(wallet::abi))
            .route("/explain", post(wallet::explain))
            .merge(chain_reading)
            .with_state(state),
    )
}

/// Serve the API on `addr` until `cancel` fires.
///
/// # Errors
/// The bind or serve error.
pub async fn serve(
    addr: SocketAddr,
    state: ApiState,
    cancel: CancellationToken,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    info!(target: "veritas::api", addr = %listener.local_addr()?, "HTTP API listening");
    axum::serve(listener, router(state))
        .with_graceful_shutdown(cancel.cancelled_owned())
        .await
}

/// RPC calls made while answering a scrape are bounded by this.
const SCRAPE_RPC_TIMEOUT: Duration = Duration::from_secs(3);

/// What `/readyz` answers, and the `veritas_ready` and `veritas_rpc_up` gauges.
struct Readiness {
    /// The head the RPC answered now, when it did.
    head: Option<u64>,
    /// The cursor's lag behind the confirmed head (the head read now, when there is one).
    lag: u64,
    /// Why the node is not ready, if it is not.
    not_ready: Option<String>,
}

/// Read the head from the RPC now (bounded by [`SCRAPE_RPC_TIMEOUT`]) and judge readiness on it:
/// the watcher's own head stops moving when the RPC fails, so a lag computed from it alone
/// would freeze at its last value and look healthy through an outage.
async fn readiness(s: &ApiState) -> Readiness {
    let head = tokio::time::timeout(SCRAPE_RPC_TIMEOUT, s.provider.get_block_number()).await;
    let head = match head {
        Ok(Ok(head)) => head,
        Ok(Err(e)) => {
            return Readiness {
                head: None,
                lag: s.watch.lag(s.confirmations),
                not_ready: Some(format!("rpc unreachable: {e}")),
            };
        }
        Err(_) => {
            return Readiness {
                head: None,
                lag: s.watch.lag(s.confirmations),
                not_ready: Some("rpc timed out".into()),
            };
        }
    };
    s.watch.head.fetch_max(head, Ordering::Relaxed);
    let lag = s.watch.lag(s.confirmations);
    let not_ready =
        (lag > s.ready_max_lag).then(|| format!("cursor lags the confirmed head by {lag} blocks"));
    Readiness {
        head: Some(head),
        lag,
        not_ready,
    }
}

async fn readyz(State(s): State<ApiState>) -> Response {
    let r = readiness(&s).await;
    if let Some(reason) = r.not_ready {
        return not_ready(reason);
    }
    (
        StatusCode::OK,
        Json(json!({"ready": true, "head": r.head, "lag": r.lag})),
    )
        .into_response()
}

fn not_ready(reason: String) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({"ready": false, "reason": reason})),
    )
        .into_response()
}

async fn metrics(State(s): State<ApiState>) -> Response {
    let counts = match s.store.counts() {
        Ok(c) => c,
        Err(e) => {
            return (StatusCode::INTERNAL_SERVER_ERROR, format!("store: {e}\n")).into_response();
        }
    };
    let (ready, gauges) = chain_reads(&s).await;
    let scrape = Scrape {
        rpc_up: ready.head.is_some(),
        ready: ready.not_ready.is_none(),
        ready_max_lag: s.ready_max_lag,
        cursor_lag_blocks: ready.lag,
        wallet_balance_ether: gauges.balance_ether,
        operator_credits_wei: gauges.credits,
        operator_free_stake_wei: gauges.free_stake,
        report_bond_wei: gauges.bond,
        ..stored_and_watched(&s, &counts)
    };
    match s.metrics.encode(&scrape) {
        Ok(page) => ([(header::CONTENT_TYPE, metrics::CONTENT_TYPE)], page).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("metrics: {e}\n")).into_response(),
    }
}

/// The operator's gauges read from the chain at a scrape; `None` where a read failed or timed out.
struct OperatorGauges {
    balance_ether: Option<f64>,
    /// The fees this operator may `withdraw`.
    credits: Option<Wei>,
    /// The free stake against the bond one more report locks: an alert before reports wait.
    free_stake: Option<Wei>,
    bond: Option<Wei>,
}

/// The chain reads of a scrape, run at once, each bounded by [`SCRAPE_RPC_TIMEOUT`], so a dead
/// RPC delays the page by one timeout, well inside Prometheus's 10 s scrape timeout.
async fn chain_reads(s: &ApiState) -> (Readiness, OperatorGauges) {
    let operator = s.poster.address();
    let (ready, balance, credits, stake) = tokio::join!(
        readiness(s),
        tokio::time::timeout(SCRAPE_RPC_TIMEOUT, s.poster.balance()),
        tokio::time::timeout(
            SCRAPE_RPC_TIMEOUT,
            crate::contract::reader::credits(&s.provider, s.oracle, operator)
        ),
        tokio::time::timeout(
            SCRAPE_RPC_TIMEOUT,
            crate::contract::reader::free_stake_and_bond(&s.provider, s.oracle, operator)
        ),
    );
    let stake = stake.ok().and_then(Result::ok);
    let gauges = OperatorGauges {
        // f64 keeps 15 significant digits: plenty for a balance gauge in ether.
        balance_ether: balance
            .ok()
            .and_then(Result::ok)
            .map(|wei| f64::from(wei) / 1e18),
        credits: credits.ok().and_then(Result::ok).map(gauge_wei),
        free_stake: stake.map(|(free, _)| gauge_wei(free)),
        bond: stake.map(|(_, bond)| gauge_wei(bond)),
    };
    (ready, gauges)
}

/// The scrape's values from the store's counts and the watcher's counters.
fn stored_and_watched(s: &ApiState, counts: &Counts) -> Scrape {
    let w = &s.watch;
    Scrape {
        questions_seen: counts.total,
        by_stage: Stage::ALL
            .iter()
            .zip(counts.by_stage)
            .map(|(stage, n)| (stage.as_str(), n))
            .collect(),
        posting_by_wait: Wait::ALL
            .iter()
            .zip(counts.posting_by_wait)
            .map(|(wait, n)| (wait.as_str(), n))
            .collect(),
        resolved: counts.reported - counts.escalated.min(counts.reported),
        escalated: counts.escalated,
        failed: counts.failed,
        chain_head: load(&w.head),
        cursor_block: load(&w.cursor),
        rpc_errors: load(&w.rpc_errors),
        incomplete_log_pages: load(&w.incomplete_pages),
        evidence_submissions_seen: load(&w.submissions_seen),
        broken_evidence_pages: load(&w.broken_evidence_pages),
        rejected_log_pages: load(&w.rejected_pages),
        questions_rejected: load(&w.questions_rejected),
        log_range_blocks: load(&w.range),
        ..Scrape::default()
    }
}

/// A wei amount as a gauge: exact while it fits 64 bits.
fn gauge_wei(wei: U256) -> Wei {
    u64::try_from(wei).map_or_else(|_| Wei::Approximate(f64::from(wei)), Wei::Exact)
}

/// The report file of question `id` exactly as the node wrote it (an auditor recomputes its
/// root and integers; re-serialising could change nothing they check, but bytes are simplest).
async fn report_file(State(s): State<ApiState>, Path(id): Path<String>) -> Response {
    let not_found = || {
        (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "no report for this question"})),
        )
            .into_response()
    };
    let Ok(id) = id.parse::<U256>() else {
        return not_found();
    };
    let Some(intent) = s.store.intent(id).ok().flatten() else {
        return not_found();
    };
    match std::fs::read(&intent.report_path) {
        Ok(bytes) => ([(header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(_) => not_found(),
    }
}

/// A report file this node wrote, as written (its evidence items as committed), once checked to
/// be a [`crate::report::Report`] ([`reports`]); a file that is not one (a damaged disk, a hand
/// edit) is served as absent and logged.
fn read_report(s: &ApiState, path: &str) -> Option<Arc<Value>> {
    s.reports
        .read(std::path::Path::new(path))
        .map_err(|e| {
            let error = e.to_string();
            warn!(target: "veritas::api", error, "report file not served");
        })
        .ok()
}

async fn question(State(s): State<ApiState>, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<U256>() else {
        return unknown_question();
    };
    match s.store.job(id) {
        Ok(Some(job)) => Json(question_page(&s, id, job).await).into_response(),
        Ok(None) => unknown_question(),
        Err(e) => internal(&e),
    }
}

/// 404 `{error}` for an id that is no stored question.
fn unknown_question() -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"error": "unknown question"})),
    )
        .into_response()
}

/// 500 `{error}`: the store failed.
fn internal(e: &impl std::fmt::Display) -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        Json(json!({"error": e.to_string()})),
    )
        .into_response()
}

/// Everything `/questions/{id}` shows of a stored question.
async fn question_page(s: &ApiState, id: U256, job: Job) -> Value {
    let intent = s.store.intent(id).ok().flatten();
    let txs = transactions(s, id);
    let report = intent.as_ref().and_then(|i| read_report(s, &i.report_path));
    let status = s
        .store
        .question_summary(id)
        .ok()
        .flatten()
        .map(|r| r.status);
    let chain = on_chain(s, id).await;
    let verdict = intent.map(|i| our_verdict(&i));
    // After the reports: the chain's lifecycle as the watcher read it, every operator's report,
    // and on a dispute the committee's second opinion for the arbiter.
    let lifecycle = s.store.lifecycle(id).ok().flatten();
    let second_opinion = lifecycle
        .as_ref()
        .and_then(|l| l.second_opinion.as_deref())
        .and_then(|path| read_report(s, path));
    let operator_reports = s.store.operator_reports(id).unwrap_or_default();
    // While open: the on-chain submissions and the provisional runs they triggered.
    let submissions = submissions_of(s, id);
    let provisional = s.store.provisional_runs(id).unwrap_or_default();
    // Before its court: the case, its deadline and the ruling once given.
    let court = court::court_case(s, id).await;
    // "Not yet": each deferral (when reports reopen, our report of the round it ended).
    let deferrals = s.store.deferrals(id).unwrap_or_default();
    json!({"job": job, "status": status, "verdict": verdict, "transactions": txs,
            "report": report.as_deref(), "chain": chain, "lifecycle": lifecycle,
            "operator_reports": operator_reports, "second_opinion": second_opinion.as_deref(),
            "submissions": submissions, "provisional": provisional, "court": court,
            "deferrals": deferrals,
            "max_deferrals": crate::contract::roles::MAX_DEFERRALS})
}

/// The question's posting transactions, fees as decimal strings.
fn transactions(s: &ApiState, id: U256) -> Vec<Value> {
    s.store
        .txs_for(id)
        .unwrap_or_default()
        .into_iter()
        .map(|t| {
            json!({"hash": t.tx_hash, "nonce": t.nonce, "status": t.status, "block": t.block_number,
                   "max_fee_per_gas": t.max_fee_per_gas.to_string(),
                   "max_priority_fee_per_gas": t.max_priority_fee_per_gas.to_string()})
        })
        .collect()
}

/// Our report's verdict with the triple it gives, computed from its counts as the contract
/// computes it.
fn our_verdict(i: &PostIntent) -> Value {
    let [p_yes, p_no, p_null] = i
        .counts
        .map(|c| crate::stats::to_wad(c).map(|p| p.to_string()).map(Some))
        .unwrap_or_default();
    json!({"merkle_root": i.merkle_root, "p_yes": p_yes, "p_no": p_no, "p_null": p_null,
           "kappa": i.kappa.to_string(), "counts": i.counts, "escalated": i.escalated})
}

/// The question's stored on-chain submissions as the report lists them (hash-chain links).
fn submissions_of(s: &ApiState, id: U256) -> Vec<Value> {
    crate::pipeline::submissions::for_question(&s.store, id)
        .unwrap_or_default()
        .iter()
        .filter_map(|sub| serde_json::to_value(sub).ok())
        .collect()
}

async fn provisional(State(s): State<ApiState>, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<U256>() else {
        return unknown_question();
    };
    match s.store.provisional_runs(id) {
        Ok(runs) => Json(
            json!({"question": id.to_string(), "submissions": submissions_of(&s, id),
                                "runs": runs}),
        )
        .into_response(),
        Err(e) => internal(&e),
    }
}

/// The list rows, newest first, with the id of the latest live event they include: a client
/// that streams `/events?after=<event_id>` misses nothing in between.
async fn questions(State(s): State<ApiState>) -> Response {
    // Read the id first: an event published while the rows are read is then sent again
    // rather than lost.
    let event_id = s.live.latest();
    match overview::rows(&s.store) {
        Ok(rows) => Json(json!({"questions": rows, "event_id": event_id})).into_response(),
        Err(e) => internal(&e),
    }
}

/// What the chain holds for `id` (status and root), or null when the RPC does not answer in
/// time: the page then compares with the report only, and says so.
async fn on_chain(s: &ApiState, id: U256) -> Option<Value> {
    let oracle = IVeritasOracle::new(s.oracle, &s.provider);
    let status = tokio::time::timeout(SCRAPE_RPC_TIMEOUT, oracle.verdictStatus(id).call())
        .await
        .ok()?
        .ok()?;
    let root = match tokio::time::timeout(SCRAPE_RPC_TIMEOUT, oracle.getVerdict(id).call()).await {
        Ok(Ok(v)) => Some(Root::from(v.merkleRoot)),
        _ => None,
    };
    Some(json!({"status": format!("{status:?}"), "merkle_root": root}))
}

async fn bundle(State(s): State<ApiState>, Path(root): Path<String>) -> Response {
    let Ok(root) = root.parse::<Root>() else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "unknown root"})),
        )
            .into_response();
    };
    let intents = match s.store.intents_by_root(root) {
        Ok(i) => i,
        Err(e) => return internal(&e),
    };
    for intent in intents {
        if let Some(report) = read_report(&s, &intent.report_path) {
            return Json(json!({
                "root": report.get("root"),
                "question": report.get("question"),
                "evidence": report.get("evidence"),
                "leaves": report.get("leaves"),
            }))
            .into_response();
        }
    }
    (
        StatusCode::NOT_FOUND,
        Json(json!({"error": "unknown root"})),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::path::Path;

    use super::reports::ReportCache;

    #[test]
    fn a_file_that_is_not_a_report_is_not_served() {
        let reports = ReportCache::default();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.json");
        for text in [r#"{"root": "0x01", "stats": {}}"#, "not json", "[]"] {
            std::fs::write(&path, text).unwrap();
            assert!(reports.read(&path).is_err(), "{text}");
        }
        assert!(reports.read(Path::new("/nonexistent/1.json")).is_err());
    }
}
