//! `veritas audit --question ID`: rebuild a pooled verdict from every operator's report and
//! compare it with the chain.
//!
//! ```text
//! veritas audit --question 7 --rpc http://127.0.0.1:8545 --oracle 0x5FbD... \
//!     --report node-a/reports/7.json --report http://node-b:9464
//! ```
//!
//! The question's `ReportSubmitted` events (in report order), `getVerdict`, `verdictStatus`,
//! `questionParameters` and the `VerdictPosted` event are read at one block. Each report given
//! (a file, or a node's API: a base URL gets `/reports/ID` appended) is audited on its own
//! (bundle root, integers, routing: [`audit::recompute`]) and must equal its operator's event;
//! a report is matched to its event by an explicit `0xOPERATOR=SOURCE`, else by the operator of
//! its committee seed inputs, else by its `tx.hash`, else by its recomputed root, else by the
//! root it claims. The seed inputs that only the chain can confirm (the operator, the hash of
//! the block holding the question) are compared with it. Events without a report are used as
//! they stand (the output says so). The pooled verdict ([`pooled::pool`]) must then equal the
//! chain. Exit status 0 when everything matches, 1 with every difference named otherwise.
//! Reports are read bounded, from a file or a response body ([`audit::MAX_REPORT_BYTES`]).

use std::{fmt::Write as _, time::Duration};

use alloy::primitives::{Address, U256};
use anyhow::{Context, bail};

use serde_json::json;

use super::output::{FailedWith, Output};
use crate::{
    audit::{self, pooled, question::GivenReport},
    chain,
    contract::reader,
};

/// What `veritas audit --question` needs.
#[derive(Debug, Clone)]
pub struct QuestionAudit {
    /// Question id.
    pub id: U256,
    /// JSON-RPC URL.
    pub rpc: String,
    /// The oracle (else the first report's `question.oracle`).
    pub oracle: Option<Address>,
    /// Report sources: paths or URLs, each optionally `0xOPERATOR=` prefixed.
    pub reports: Vec<String>,
    /// First block of the event scan.
    pub from_block: u64,
}

/// How long fetching one report over HTTP may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(15);

/// Split `0xOPERATOR=SOURCE` (an explicit match) from a plain source.
fn split_source(arg: &str) -> anyhow::Result<(Option<Address>, String)> {
    if let Some((addr, rest)) = arg.split_once('=')
        && addr.starts_with("0x")
        && addr.len() == 42
    {
        let operator = addr
            .parse()
            .with_context(|| format!("--report {arg}: bad operator address"))?;
        return Ok((Some(operator), rest.to_owned()));
    }
    Ok((None, arg.to_owned()))
}

/// The URL a report of `id` is fetched from: a node's base URL gets `/reports/ID`.
fn report_url(source: &str, id: U256) -> anyhow::Result<reqwest::Url> {
    let mut url: reqwest::Url = source
        .parse()
        .with_context(|| format!("bad URL {source}"))?;
    if url.path() == "/" || url.path().is_empty() {
        url.set_path(&format!("/reports/{id}"));
    }
    Ok(url)
}

async fn load(arg: &str, id: U256) -> anyhow::Result<GivenReport> {
    let (operator, source) = split_source(arg)?;
    let report = if source.starts_with("http://") || source.starts_with("https://") {
        let url = report_url(&source, id)?;
        let response = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .build()?
            .get(url.clone())
            .send()
            .await
            .with_context(|| format!("fetching {url}"))?;
        let status = response.status();
        if !status.is_success() {
            bail!("fetching {url}: HTTP {status}");
        }
        let body = read_body(response, url.as_str()).await?;
        audit::file::parse_report(&body, url.as_str())?
    } else {
        audit::read_report(std::path::Path::new(&source))?
    };
    let report = audit::AuditReport::from_json(&report)
        .map_err(|m| anyhow::anyhow!("{source}: does not read as a report: {m}"))?;
    Ok(GivenReport {
        source,
        operator,
        report,
    })
}

/// A report's response body, refused once it passes [`audit::MAX_REPORT_BYTES`] (announced
/// by `Content-Length` or seen while reading): a node being audited chooses what it sends.
async fn read_body(mut response: reqwest::Response, url: &str) -> anyhow::Result<Vec<u8>> {
    let limit = audit::MAX_REPORT_BYTES;
    if let Some(len) = response.content_length().filter(|n| *n > limit) {
        return Err(audit::file::too_large(url.to_owned(), len, "").into());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .with_context(|| format!("reading {url}"))?
    {
        body.extend_from_slice(&chunk);
        if body.len() as u64 > limit {
            return Err(audit::file::too_large(url.to_owned(), body.len() as u64, "+").into());
        }
    }
    Ok(body)
}

/// Run the pooled audit and print its table.
///
/// # Errors
/// Unreadable reports, RPC failures, and any disagreement (each named).
pub async fn run(args: QuestionAudit) -> anyhow::Result<Output> {
    let id = args.id;
    let mut loaded = Vec::new();
    for arg in &args.reports {
        loaded.push(load(arg, id).await?);
    }
    let oracle = oracle_of(args.oracle, &loaded)?;
    let provider = chain::connect(&args.rpc, Duration::from_secs(15))?;
    let view = reader::question_view(&provider, oracle, id, args.from_block)
        .await
        .with_context(|| format!("question {id} on oracle {oracle} via {}", args.rpc))?;
    let audited = audit::question::audit_question(&view, &loaded, args.from_block)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "question {id} on {oracle} (chain {}, block {}): {}, {} report(s), quorum {}",
        view.chain_id,
        view.block,
        view.status,
        view.reports.len(),
        view.parameters.quorum
    );
    for line in &audited.lines {
        let _ = writeln!(out, "{line}");
    }
    let (checks, problems) = (audited.checks, audited.problems);
    write_checks(&mut out, &checks);
    let mismatches = pooled::failures(&checks);
    for m in &mismatches {
        let _ = writeln!(out, "MISMATCH {m}");
    }
    for p in &problems {
        let _ = writeln!(out, "PROBLEM {p}");
    }
    let ok = mismatches.is_empty() && problems.is_empty();
    let value = json!({"question": id.to_string(), "oracle": oracle,
        "chain_id": view.chain_id, "block": view.block, "status": view.status, "ok": ok,
        "checks": checks.iter().map(|c| json!({"check": c.field.to_string(),
            "recomputed": c.expected.to_string(), "found": c.found.to_string(), "ok": c.ok()}))
            .collect::<Vec<_>>(),
        "mismatches": mismatches.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "problems": problems.iter().map(ToString::to_string).collect::<Vec<_>>()});
    if ok {
        let _ = writeln!(
            out,
            "OK: {} check(s) match; pooled verdict of question {id} rebuilt",
            checks.len()
        );
        return Ok(Output::text(value, out));
    }
    Err(FailedWith::error(
        Output::text(value, out),
        format!(
            "{} mismatch(es), {} problem(s)",
            mismatches.len(),
            problems.len()
        ),
    ))
}

/// The oracle audited: `--oracle`, else the first report that names one.
fn oracle_of(given: Option<Address>, loaded: &[GivenReport]) -> anyhow::Result<Address> {
    if let Some(o) = given {
        return Ok(o);
    }
    loaded
        .iter()
        .find_map(|l| l.report.question.oracle)
        .context("no --oracle and no report naming question.oracle")
}

/// The table of checks: recomputed against on-chain or stated, one row each, the field
/// column as wide as its longest name.
fn write_checks(out: &mut String, checks: &[pooled::Check]) {
    let width = checks
        .iter()
        .map(|c| c.field.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = writeln!(
        out,
        "\n{:<width$}  {:<66}  {:<66}  result",
        "check", "recomputed", "on-chain / stated"
    );
    for c in checks {
        let _ = writeln!(
            out,
            "{:<width$}  {:<66}  {:<66}  {}",
            c.field,
            c.expected,
            c.found,
            if c.ok() { "ok" } else { "MISMATCH" }
        );
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// A node answering `/announced` with a body one byte over the limit (Content-Length set),
    /// `/streamed` with 64 MiB in 1 MiB chunks and no length, `/ok` with a small report.
    async fn hostile_node() -> String {
        use axum::{Router, body::Body, routing::get};
        use futures::StreamExt as _;
        let limit = usize::try_from(audit::MAX_REPORT_BYTES).unwrap();
        let app = Router::new()
            .route(
                "/announced",
                get(move || async move { vec![b' '; limit + 1] }),
            )
            .route(
                "/streamed",
                get(|| async {
                    let chunk = axum::body::Bytes::from(vec![b' '; 1 << 20]);
                    let chunks = futures::stream::repeat(chunk)
                        .take(64)
                        .map(Ok::<_, std::io::Error>);
                    Body::from_stream(chunks)
                }),
            )
            .route(
                "/ok",
                get(|| async { audit::fixture::report().to_string() }),
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://{addr}")
    }

    #[tokio::test]
    async fn a_report_body_past_the_limit_is_refused() {
        let base = hostile_node().await;
        let limit = audit::MAX_REPORT_BYTES;
        let e = load(&format!("{base}/announced"), U256::from(1))
            .await
            .err()
            .unwrap();
        assert!(
            format!("{e:#}").ends_with(&format!("({} bytes, limit {limit}): refused", limit + 1)),
            "{e:#}"
        );
        let e = load(&format!("{base}/streamed"), U256::from(1))
            .await
            .err()
            .unwrap();
        // 64 MiB sent, no length announced: reading stops within a chunk of the limit.
        let e = format!("{e:#}");
        let seen: u64 = e
            .split_once(" (")
            .and_then(|(_, rest)| rest.split_once("+ bytes, limit"))
            .and_then(|(n, _)| n.parse().ok())
            .unwrap_or(u64::MAX);
        assert!(seen > limit && seen <= limit + (1 << 20), "{e}");
        let ok = load(&format!("{base}/ok"), U256::from(1)).await.unwrap();
        assert_eq!(ok.report.question.text, audit::fixture::QUESTION);
    }

    #[test]
    fn sources_and_urls() {
        let (op, s) = split_source("0x70997970C51812dc3A010C7d01b50e0d17dc79C8=a=b.json").unwrap();
        assert!(op.is_some());
        assert_eq!(s, "a=b.json");
        let (op, s) = split_source("reports/7.json").unwrap();
        assert!(op.is_none());
        assert_eq!(s, "reports/7.json");
        let id = U256::from(7);
        assert_eq!(
            report_url("http://127.0.0.1:9464", id).unwrap().as_str(),
            "http://127.0.0.1:9464/reports/7"
        );
        assert_eq!(
            report_url("http://h:1/reports/9", id).unwrap().as_str(),
            "http://h:1/reports/9"
        );
    }
}
