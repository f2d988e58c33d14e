//! Hostile HTTP answers to the model client, the search collector and the JSON-RPC provider:
//! each fails that call with a clear error, without a panic, in bounded memory.
//!
//! The server is an in-process axum server on 127.0.0.1:0; it is neither a model server, nor
//! Tavily, nor an Ethereum node: whatever it is asked, it answers the one hostile reply the test chose — a
//! `Content-Length` of 1 GB with a body that never comes, a chunked body that does not end, or
//! a 429 whose `Retry-After` no `Duration` can hold. Memory is measured, not assumed: a
//! counting allocator records the peak of live heap bytes allocated by the test's thread
//! (`#[tokio::test]` runs the client, the connection and the server on that one thread).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a panic is the report

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::Response;
use futures::StreamExt as _;
use veritas::chain::{ChainError, connect, rpc_http::MAX_RPC_BODY_BYTES};
use veritas::evidence::collectors::{CollectorError, TavilyCollector, TavilyConfig};
use veritas::http_limits::MAX_BODY_BYTES;
use veritas::llm::openai::{OpenAiChat, OpenAiConfig};
use veritas::llm::{ChatModel, ChatRequest, LlmError};
use veritas::retry::MAX_RETRY_AFTER;

/// Live heap bytes of this thread, as the allocator saw them, and their peak.
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + delta;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is forwarded to `System` unchanged; only a thread-local counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `System.alloc`, with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `System.dealloc`, with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `System.realloc`, with the caller's arguments.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Run `f` and return its output with the peak growth of this thread's heap during it.
async fn peak_during<T>(f: impl Future<Output = T>) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f.await;
    let peak = PEAK.with(Cell::get);
    (out, usize::try_from(peak - base).unwrap_or(0))
}

/// What a call may cost in memory: the body buffer (a `Vec` that may double past the limit
/// once) and the connection's buffers, well under an unbounded read of [`SAFETY_STOP`].
const MEMORY_BUDGET: usize = 4 * MAX_BODY_BYTES;

/// The "endless" body ends after this many bytes, so a broken guard costs the test machine
/// 256 MiB and a failed assertion instead of all its memory.
const SAFETY_STOP: usize = 256 * 1024 * 1024;

#[derive(Clone, Copy)]
enum Hostile {
    /// 200, `Content-Length: 1000000000`, and no body ever.
    ClaimsAGigabyte,
    /// This status, a chunked body of 64 KiB chunks without end (up to [`SAFETY_STOP`]).
    Endless(u16),
    /// 429 with this `Retry-After`.
    RetryAfter(&'static str),
}

fn reply(hostile: Hostile) -> Response {
    match hostile {
        Hostile::ClaimsAGigabyte => {
            let never = futures::stream::pending::<Result<Vec<u8>, std::io::Error>>();
            let mut r = Response::new(Body::from_stream(never));
            r.headers_mut()
                .insert(header::CONTENT_LENGTH, "1000000000".parse().unwrap());
            r
        }
        Hostile::Endless(status) => {
            let chunk = 64 * 1024;
            let endless = futures::stream::iter(0..SAFETY_STOP / chunk)
                .map(move |_| Ok::<_, std::io::Error>(vec![b'{'; chunk]));
            let mut r = Response::new(Body::from_stream(endless));
            *r.status_mut() = StatusCode::from_u16(status).unwrap();
            r
        }
        Hostile::RetryAfter(value) => {
            let mut r = Response::new(Body::from("slow down"));
            *r.status_mut() = StatusCode::TOO_MANY_REQUESTS;
            r.headers_mut()
                .insert(header::RETRY_AFTER, value.parse().unwrap());
            r
        }
    }
}

/// Serve `hostile` to every request; returns the base URL and the request counter.
async fn serve(hostile: Hostile) -> (String, Arc<AtomicUsize>) {
    let requests = Arc::new(AtomicUsize::new(0));
    let seen = requests.clone();
    let app = axum::Router::new().fallback(move || {
        seen.fetch_add(1, Ordering::Relaxed);
        async move { reply(hostile) }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), requests)
}

/// One attempt unless `retries`; a timeout long enough that only a guard ends the calls
/// quickly (a broken guard fails the test at the timeout instead of hanging it).
fn model(base: &str, retries: u32) -> OpenAiChat {
    let config = OpenAiConfig {
        base_url: format!("{base}/v1"),
        model: "hostile".into(),
        api_key_env: None,
        timeout: Duration::from_secs(30),
        max_retries: retries,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(20),
        ..OpenAiConfig::default()
    };
    OpenAiChat::with_api_key(config, None).unwrap()
}

fn search(base: &str, attempts: u32) -> TavilyCollector {
    let config = TavilyConfig {
        enabled: true,
        endpoint: base.to_owned(),
        timeout: Duration::from_secs(30),
        max_attempts: attempts,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(20),
        ..TavilyConfig::default()
    };
    TavilyCollector::new(config, "tvly-key".into()).unwrap()
}

fn ask() -> ChatRequest {
    ChatRequest {
        system: "s".into(),
        user: "u".into(),
        json_schema: None,
        temperature: 0.0,
        max_tokens: 10,
        seed: None,
        cache_key: None,
    }
}

fn over_limit(text: &str) -> bool {
    text.contains(&format!("response body over {MAX_BODY_BYTES} bytes"))
}

#[tokio::test]
async fn a_gigabyte_content_length_fails_the_call_before_any_body() {
    let (url, _) = serve(Hostile::ClaimsAGigabyte).await;
    let (answer, peak) = peak_during(model(&url, 0).chat(&ask())).await;
    let err = answer.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        over_limit(&err) && err.contains("Content-Length 1000000000"),
        "{err}"
    );
    assert!(peak < MEMORY_BUDGET, "{peak} bytes");

    let (hits, peak) = peak_during(search(&url, 1).search("q", None)).await;
    let err = hits.err();
    assert!(
        matches!(&err, Some(CollectorError::Malformed { reason, .. }) if over_limit(reason)),
        "{err:?}"
    );
    assert!(peak < MEMORY_BUDGET, "{peak} bytes");
}

#[tokio::test]
async fn an_endless_chunked_body_fails_the_call_in_bounded_memory() {
    let (url, requests) = serve(Hostile::Endless(200)).await;
    let (answer, peak) = peak_during(model(&url, 3).chat(&ask())).await;
    assert!(peak < MEMORY_BUDGET, "{peak} bytes");
    assert!(
        matches!(&answer, Err(LlmError::Malformed(m)) if over_limit(m)),
        "{:?}",
        answer.map(|r| r.content.len())
    );
    assert_eq!(requests.load(Ordering::Relaxed), 1, "not retried");

    let (hits, peak) = peak_during(search(&url, 3).search("q", None)).await;
    let err = hits.err();
    assert!(
        matches!(&err, Some(CollectorError::Malformed { reason, .. }) if over_limit(reason)),
        "{err:?}"
    );
    assert_eq!(requests.load(Ordering::Relaxed), 2, "not retried");
    assert!(peak < MEMORY_BUDGET, "{peak} bytes");
}

#[tokio::test]
async fn an_endless_error_page_stays_that_error() {
    let (url, requests) = serve(Hostile::Endless(503)).await;
    let (answer, peak) = peak_during(model(&url, 1).chat(&ask())).await;
    assert!(
        matches!(&answer, Err(LlmError::Status { status: 503, body }) if over_limit(body)),
        "{:?}",
        answer.map(|r| r.content.len())
    );
    assert_eq!(requests.load(Ordering::Relaxed), 2, "a 503 is retried");
    assert!(peak < MEMORY_BUDGET, "{peak} bytes");

    let (hits, _) = peak_during(search(&url, 1).search("q", None)).await;
    let err = hits.err();
    assert!(
        matches!(&err, Some(CollectorError::Status { status: 503, body, .. }) if over_limit(body)),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_retry_after_no_duration_holds_is_capped_or_refused_without_a_panic() {
    // (header, what the client makes of it): above u64 seconds is capped, exponent notation
    // is not delay-seconds and is ignored.
    for (value, read) in [
        ("99999999999999999999", Some(MAX_RETRY_AFTER)),
        ("1e300", None),
    ] {
        let (url, requests) = serve(Hostile::RetryAfter(value)).await;
        let answer = model(&url, 1).chat(&ask()).await;
        assert!(
            matches!(&answer, Err(LlmError::Status { status: 429, .. })),
            "{value}: {:?}",
            answer.map(|r| r.content)
        );
        assert_eq!(requests.load(Ordering::Relaxed), 2, "{value}: retried once");

        let err = search(&url, 2).search("q", None).await.err();
        assert!(
            matches!(&err, Some(CollectorError::RateLimited { retry_after, .. }) if *retry_after == read),
            "{value}: {err:?}"
        );
        assert_eq!(requests.load(Ordering::Relaxed), 4, "{value}: retried once");
    }
}

/// The provider the node builds (`chain::connect`), asking a hostile endpoint for the block
/// number: an answer over the limit is an HTTP 413, which the watcher takes as "range too
/// large" and halves its `eth_getLogs` range on.
async fn block_number(url: &str) -> (ChainError, usize) {
    use alloy::providers::Provider as _;
    let provider = connect(url, Duration::from_secs(30)).unwrap();
    let (answer, peak) = peak_during(provider.get_block_number()).await;
    let err = ChainError::rpc("eth_blockNumber", answer.expect_err("a hostile answer"));
    (err, peak)
}

#[tokio::test]
async fn an_oversized_json_rpc_answer_fails_that_call_as_a_range_refusal() {
    let rpc_over_limit = |e: &ChainError| {
        e.to_string()
            .contains(&format!("response body over {MAX_RPC_BODY_BYTES} bytes"))
    };
    let (url, _) = serve(Hostile::ClaimsAGigabyte).await;
    let (err, peak) = block_number(&url).await;
    assert!(rpc_over_limit(&err) && err.is_range_refusal(), "{err}");
    assert!(peak < MEMORY_BUDGET, "{peak} bytes");

    let (url, requests) = serve(Hostile::Endless(200)).await;
    let (err, peak) = block_number(&url).await;
    assert!(peak < 3 * MAX_RPC_BODY_BYTES, "{peak} bytes");
    assert!(rpc_over_limit(&err) && err.is_range_refusal(), "{err}");
    assert_eq!(requests.load(Ordering::Relaxed), 1, "not retried");
}
