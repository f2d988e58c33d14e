//! The Tavily collector against a protocol double.
//!
//! The server below is NOT Tavily: it is an in-process axum server on 127.0.0.1:0 that speaks
//! Tavily's `POST /search` protocol (Bearer key, JSON body, `{"results": [...]}` answer) and
//! plays a scripted sequence of answers — success, 401, 429 with `Retry-After`, 500, a slow
//! answer that times out — so the client's retries, backoff and error classification are
//! tested offline, deterministically, with real HTTP. It records every request it receives.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use veritas::bundle::Source;
use veritas::clock::{Clock as _, ManualClock};
use veritas::evidence::collectors::{CollectorError, TavilyCollector, TavilyConfig};

const KEY: &str = "tvly-test-key-7f3a";

/// One scripted answer of the double.
#[derive(Clone)]
enum Answer {
    Results(Value),
    Status(u16, &'static str),
    RateLimited(&'static str),
    Slow(Duration),
    Garbage,
}

#[derive(Default)]
struct Script {
    answers: Mutex<VecDeque<Answer>>,
    requests: Mutex<Vec<(Option<String>, Value)>>,
}

async fn search(
    State(script): State<Arc<Script>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Ok(mut requests) = script.requests.lock() {
        requests.push((auth, body));
    }
    let answer = script.answers.lock().ok().and_then(|mut a| a.pop_front());
    match answer {
        Some(Answer::Results(results)) => Json(json!({
            "query": "q", "answer": null, "images": [], "results": results, "response_time": 0.42
        }))
        .into_response(),
        Some(Answer::Status(code, body)) => (
            StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            body,
        )
            .into_response(),
        Some(Answer::RateLimited(after)) => (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", after)],
            "slow down",
        )
            .into_response(),
        Some(Answer::Slow(delay)) => {
            tokio::time::sleep(delay).await;
            Json(json!({"results": []})).into_response()
        }
        Some(Answer::Garbage) => (StatusCode::OK, "<html>not json</html>").into_response(),
        None => (StatusCode::IM_A_TEAPOT, "script exhausted").into_response(),
    }
}

/// Start the double with a script; returns its base URL and the shared script.
async fn double(answers: Vec<Answer>) -> (String, Arc<Script>) {
    let script = Arc::new(Script {
        answers: Mutex::new(answers.into()),
        requests: Mutex::new(Vec::new()),
    });
    let app = axum::Router::new()
        .route("/search", post(search))
        .with_state(Arc::clone(&script));
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(err) => panic!("bind: {err}"),
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(err) => panic!("local_addr: {err}"),
    };
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), script)
}

/// When the tests' manual clocks start.
const START_MS: i64 = 1_700_000_000_000;

/// A collector whose backoffs are read off a manual clock instead of slept.
fn client(endpoint: &str) -> TavilyCollector {
    client_on_clock(endpoint).0
}

fn client_on_clock(endpoint: &str) -> (TavilyCollector, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::at_ms(START_MS));
    let config = TavilyConfig {
        enabled: true,
        endpoint: endpoint.to_owned(),
        timeout: Duration::from_millis(300),
        max_attempts: 3,
        initial_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_secs(5),
        ..TavilyConfig::default()
    };
    match TavilyCollector::new(config, KEY.to_owned()) {
        Ok(c) => (c.with_clock(clock.clone()), clock),
        Err(err) => panic!("client: {err}"),
    }
}

fn calls(script: &Script) -> usize {
    script.requests.lock().map(|r| r.len()).unwrap_or(0)
}

fn results() -> Value {
    json!([
        {"title": "Council approves bike lane", "url": "https://ledger.example/bike?utm_source=x",
         "content": "The council voted 6–3.", "score": 0.91, "raw_content": null,
         "published_date": "Wed, 11 Mar 2026 09:00:00 GMT"},
        {"title": "Harbor Street plans", "url": "https://city.example/harbor",
         "content": "Plans for Harbor Street.", "score": 0.55}
    ])
}

#[tokio::test]
async fn success_sends_the_protocol_and_reads_results() {
    let (url, script) = double(vec![Answer::Results(results())]).await;
    let resolve_after = chrono::DateTime::parse_from_rfc3339("2026-04-01T00:00:00Z")
        .map(|d| d.to_utc())
        .ok();
    let hits = match client(&url)
        .search("harbor street bike lane", resolve_after)
        .await
    {
        Ok(h) => h,
        Err(err) => panic!("{err}"),
    };
    assert_eq!(hits.len(), 2);
    assert_eq!(
        hits[0].url, "https://ledger.example/bike?utm_source=x",
        "raw hits are raw"
    );
    assert_eq!(hits[0].rank, 0);
    assert_eq!(hits[1].rank, 1);
    assert_eq!(hits[0].score, 0.91);
    assert_eq!(
        hits[0].published_at.as_deref(),
        Some("Wed, 11 Mar 2026 09:00:00 GMT")
    );
    assert_eq!(hits[1].published_at, None);
    assert_eq!(hits[0].source, Source::Web);
    assert_eq!(hits[0].query.as_deref(), Some("harbor street bike lane"));

    let requests = script
        .requests
        .lock()
        .map(|r| r.clone())
        .unwrap_or_default();
    assert_eq!(requests.len(), 1);
    let (auth, body) = &requests[0];
    assert_eq!(auth.as_deref(), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(body["query"], "harbor street bike lane");
    assert_eq!(body["max_results"], 5);
    assert_eq!(body["search_depth"], "basic");
    assert_eq!(body["end_date"], "2026-04-01");
    assert!(
        body.get("api_key").is_none(),
        "the key travels only in the header"
    );
}

#[tokio::test]
async fn unauthorized_fails_at_once_without_leaking_the_key() {
    let (url, script) = double(vec![
        Answer::Status(401, "invalid key"),
        Answer::Results(results()),
    ])
    .await;
    let err = client(&url).search("q", None).await.err();
    assert!(
        matches!(err, Some(CollectorError::Unauthorized { status: 401, .. })),
        "{err:?}"
    );
    assert_eq!(calls(&script), 1, "401 is not retried");
    let text = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(text.contains("rejected the API key"), "{text}");
    assert!(!text.contains(KEY), "{text}");
}

#[tokio::test]
async fn rate_limiting_waits_for_retry_after_then_succeeds() {
    let (url, script) = double(vec![Answer::RateLimited("1"), Answer::Results(results())]).await;
    let (collector, clock) = client_on_clock(&url);
    let hits = collector.search("q", None).await;
    assert_eq!(hits.map(|h| h.len()).ok(), Some(2));
    assert_eq!(calls(&script), 2);
    // The backoff is at most 20 ms; the wait is the second Retry-After asked for.
    assert_eq!(clock.now_ms() - START_MS, 1_000);
}

#[tokio::test]
async fn rate_limiting_that_persists_is_a_retryable_error() {
    let (url, script) = double(vec![Answer::RateLimited("0"); 3]).await;
    let err = client(&url).search("q", None).await.err();
    assert!(
        matches!(err, Some(CollectorError::RateLimited { retry_after: Some(d), .. }) if d == Duration::ZERO),
        "{err:?}"
    );
    assert!(err.is_some_and(|e| e.is_retryable()));
    assert_eq!(calls(&script), 3, "max_attempts is 3");
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff() {
    let (url, script) = double(vec![
        Answer::Status(500, "oops"),
        Answer::Results(results()),
    ])
    .await;
    assert_eq!(
        client(&url).search("q", None).await.map(|h| h.len()).ok(),
        Some(2)
    );
    assert_eq!(calls(&script), 2);

    let (url, script) = double(vec![Answer::Status(500, "down"); 3]).await;
    let err = client(&url).search("q", None).await.err();
    assert!(
        matches!(&err, Some(CollectorError::Status { status: 500, body, .. }) if body == "down"),
        "{err:?}"
    );
    assert_eq!(calls(&script), 3);
}

#[tokio::test]
async fn a_slow_server_times_out_and_is_retried() {
    let (url, script) = double(vec![
        Answer::Slow(Duration::from_secs(3)),
        Answer::Results(results()),
    ])
    .await;
    // Two hits from the second answer prove the first was cut off: waited out, the slow answer
    // would have been the result, with no hit and no second call. No clock needed.
    let hits = client(&url).search("q", None).await;
    assert_eq!(hits.map(|h| h.len()).ok(), Some(2));
    assert_eq!(calls(&script), 2);

    let (url, script) = double(vec![Answer::Slow(Duration::from_secs(3)); 3]).await;
    let err = client(&url).search("q", None).await.err();
    assert!(
        matches!(err, Some(CollectorError::Timeout { after, .. }) if after == Duration::from_millis(300)),
        "{err:?}"
    );
    assert_eq!(calls(&script), 3);
}

#[tokio::test]
async fn an_unreadable_answer_is_not_retried() {
    let (url, script) = double(vec![Answer::Garbage, Answer::Results(results())]).await;
    let err = client(&url).search("q", None).await.err();
    assert!(
        matches!(err, Some(CollectorError::Malformed { .. })),
        "{err:?}"
    );
    assert_eq!(calls(&script), 1);
}

#[tokio::test]
async fn an_error_page_echoing_the_key_does_not_leak_it() {
    let echo = "upstream failed for Authorization: Bearer tvly-test-key-7f3a";
    let (url, _script) = double(vec![Answer::Status(502, echo); 3]).await;
    let text = client(&url)
        .search("q", None)
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        text.contains("502") && text.contains("<redacted>"),
        "{text}"
    );
    assert!(!text.contains(KEY), "{text}");
}

#[tokio::test]
async fn hostile_result_fields_are_bounded_and_inert() {
    use veritas::evidence::text::{MAX_SNIPPET_CHARS, MAX_TITLE_CHARS, MAX_URL_BYTES};
    // 2,048 bytes of control characters and bidi overrides around each field's text.
    let noise = "\u{202E}\u{2066}\u{2069}\u{202A}\u{0}\u{1b}\u{7}\u{7f}".repeat(128);
    assert_eq!(noise.len(), 2048);
    let long_url = format!("https://ledger.example/{}", "a".repeat(MAX_URL_BYTES));
    let (url, _script) = double(vec![Answer::Results(json!([
        {"title": format!("{noise}Council{noise}"), "url": "https://ledger.example/a",
         "content": format!("{noise}voted\n6–3{noise}")},
        {"title": "t".repeat(50_000), "url": long_url, "content": "x"},
        {"title": "T".repeat(50_000), "url": "https://ledger.example/b",
         "content": "word ".repeat(50_000), "published_date": "2".repeat(10_000)},
    ]))])
    .await;
    let hits = match client(&url).search("q", None).await {
        Ok(h) => h,
        Err(err) => panic!("{err}"),
    };
    assert_eq!(hits.len(), 2, "the result with an overlong URL is left out");
    assert_eq!(hits[0].title, "Council");
    assert_eq!(hits[0].snippet, "voted 6–3");
    assert_eq!(hits[1].url, "https://ledger.example/b");
    assert_eq!(hits[1].rank, 2, "the rank is Tavily's");
    assert_eq!(hits[1].title.chars().count(), MAX_TITLE_CHARS);
    assert_eq!(hits[1].snippet.chars().count(), MAX_SNIPPET_CHARS);
    assert_eq!(hits[1].published_at.as_deref().map(str::len), Some(64));
}
