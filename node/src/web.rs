//! The live committee view: a read-only web page served by the node at `/`, and the
//! server-sent event stream it follows (`GET /events`, see [`crate::live`]).
//!
//! Every asset is embedded in the binary (`node/web/`: plain HTML, CSS and JavaScript, no
//! framework, no CDN), so the page works offline and is exactly as reviewed. The page reads the
//! same JSON routes as any client (`/questions`, `/questions/{id}`) and recomputes each evidence
//! commitment in the browser (`verify.js`: RFC 8785 + RFC 6962 over WebCrypto's SHA-256).
//!
//! The wallet module (`/assets/wallet.js`: viem, bundled at build time, see `build.rs`) is
//! served too but loaded only when the user clicks "Connect wallet"; it is not part of the
//! read-only page's weight ([`page_weight`]) and is measured on its own ([`wallet_weight`]).
//!
//! Stream protocol: each event has an id (see [`LiveEvents`]); a client resumes with the
//! `Last-Event-ID` header (browsers send it when they reconnect) or `?after=<id>` (the id a
//! JSON answer carried in `event_id`, so nothing published between the two requests is
//! missed); without either it starts with the next event. A client that fell behind the
//! bounded buffer gets a `resync` event. A comment line is sent every `heartbeat` so proxies
//! keep the connection open and clients notice a dead one.

use std::{convert::Infallible, sync::Arc, time::Duration};

use axum::{
    Router,
    extract::{Path, Query, State},
    http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header},
    middleware::map_response,
    response::{
        IntoResponse, Response,
        sse::{Event, KeepAlive, Sse},
    },
    routing::get,
};
use futures::Stream;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::live::{LiveEvent, LiveEvents, Since};

/// Default interval of the SSE heartbeat comment.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(15);

/// Events sent to one client per read of the buffer.
const BATCH: usize = 256;

/// The wallet module as embedded: the bundle, or the stub `build.rs` writes without one.
const WALLET_JS: &str = include_str!(concat!(env!("OUT_DIR"), "/wallet.js"));

/// Whether this build embeds the wallet bundle (not the stub of a build without `make wallet`).
pub fn wallet_bundled() -> bool {
    !WALLET_JS.starts_with("// veritas: built without the wallet module")
}

/// Size in bytes of the embedded wallet module (loaded on "Connect wallet" only).
pub fn wallet_weight() -> usize {
    WALLET_JS.len()
}

/// The wallet module's entry in [`ASSETS`] (the last).
const WALLET: &str = "wallet.js";

/// The embedded assets: (path, content type, body).
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../web/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/app.js"),
    ),
    (
        "verify.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/verify.js"),
    ),
    (
        "act.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/act.js"),
    ),
    (
        "court.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/court.js"),
    ),
    (
        "charts.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/charts.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../web/style.css"),
    ),
    (
        "print.css",
        "text/css; charset=utf-8",
        include_str!("../web/print.css"),
    ),
    (WALLET, "text/javascript; charset=utf-8", WALLET_JS),
];

/// The page's Content-Security-Policy: scripts, styles, images and connections (the JSON API,
/// the event stream) from the node itself only; no inline script or style, no `javascript:`
/// URL, no plugin, no `<base>`, no form, no framing. Text from the chain or a model that
/// slipped past escaping still cannot run.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
    style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'none'";

/// The headers every response of the node's HTTP server carries: the CSP, no MIME sniffing
/// (a JSON answer holding submitted text is never run as a script or page), no referrer
/// (a followed evidence link does not reveal the node's address), no framing.
pub const SECURITY_HEADERS: [(HeaderName, &str); 4] = [
    (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::REFERRER_POLICY, "no-referrer"),
    (header::X_FRAME_OPTIONS, "DENY"),
];

/// `router` with [`SECURITY_HEADERS`] on every response, its fallbacks' included (the API's
/// and the web view's routers both go through here, so either served alone has them too).
pub fn with_security_headers<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    router.layer(map_response(|mut response: Response| async move {
        for (name, value) in SECURITY_HEADERS {
            response
                .headers_mut()
                .insert(name, HeaderValue::from_static(value));
        }
        response
    }))
}

/// What the web routes need.
#[derive(Clone)]
pub struct WebState {
    /// The node's event log.
    pub live: Arc<LiveEvents>,
    /// Interval of the heartbeat comment.
    pub heartbeat: Duration,
    /// Ends every open stream (so a graceful shutdown is not held up by browsers).
    pub cancel: CancellationToken,
}

/// The page, its assets and the event stream.
pub fn router(state: WebState) -> Router {
    with_security_headers(
        Router::new()
            .route("/", get(|| async { asset("index.html") }))
            // The court's page is the page's `#/court` view; `/court` is its printable address.
            .route("/court", get(|| async { asset("index.html") }))
            .route(
                "/assets/{file}",
                get(|Path(file): Path<String>| async move { asset(&file) }),
            )
            .route("/events", get(events))
            .with_state(state),
    )
}

/// Total size in bytes of the embedded assets the read-only page loads (the page weight): all
/// but the wallet module.
pub fn page_weight() -> usize {
    ASSETS
        .iter()
        .filter(|(name, _, _)| *name != WALLET)
        .map(|(_, _, body)| body.len())
        .sum()
}

fn asset(name: &str) -> Response {
    match ASSETS.iter().find(|(path, _, _)| *path == name) {
        Some((_, kind, body)) => (
            [
                (header::CONTENT_TYPE, *kind),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            *body,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "no such asset\n").into_response(),
    }
}

#[derive(Debug, Deserialize)]
struct After {
    after: Option<u64>,
}

async fn events(
    State(s): State<WebState>,
    headers: HeaderMap,
    Query(query): Query<After>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let start = resume.or(query.after).unwrap_or_else(|| s.live.latest());
    Sse::new(stream(s.live.clone(), start, s.cancel.clone()))
        .keep_alive(KeepAlive::new().interval(s.heartbeat))
}

/// The events after `last` for one client, until `cancel`.
fn stream(
    live: Arc<LiveEvents>,
    last: u64,
    cancel: CancellationToken,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let rx = live.subscribe();
    let pending = std::collections::VecDeque::<LiveEvent>::new();
    futures::stream::unfold(
        (live, rx, last, pending, cancel),
        |(live, mut rx, mut last, mut pending, cancel)| async move {
            loop {
                if let Some(e) = pending.pop_front() {
                    last = e.id;
                    let event = Event::default()
                        .id(e.id.to_string())
                        .event(e.kind)
                        .data(e.data);
                    return Some((Ok(event), (live, rx, last, pending, cancel)));
                }
                match live.since(last, BATCH) {
                    Since::Events(events) if !events.is_empty() => pending.extend(events),
                    Since::Events(_) => {
                        // Mark what we have seen first, so a publish in between wakes us.
                        rx.borrow_and_update();
                        if live.latest() > last {
                            continue;
                        }
                        tokio::select! {
                            changed = rx.changed() => if changed.is_err() { return None },
                            () = cancel.cancelled() => return None,
                        }
                    }
                    Since::Resync { oldest } => {
                        last = oldest - 1;
                        let event = Event::default()
                            .id(last.to_string())
                            .event("resync")
                            .data(format!("{{\"from\":{oldest}}}"));
                        return Some((Ok(event), (live, rx, last, pending, cancel)));
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// Serve the web routes on 127.0.0.1:0; returns the base URL.
    async fn serve(live: Arc<LiveEvents>, heartbeat: Duration) -> (String, CancellationToken) {
        let cancel = CancellationToken::new();
        let app = router(WebState {
            live,
            heartbeat,
            cancel: cancel.clone(),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("http://{addr}"), cancel)
    }

    /// Read the stream until `until` holds for the text so far (or 5 s pass).
    async fn read_until(mut response: reqwest::Response, until: impl Fn(&str) -> bool) -> String {
        let mut text = String::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while !until(&text) {
            let chunk = tokio::time::timeout_at(deadline, response.chunk())
                .await
                .expect("stream stalled")
                .unwrap()
                .expect("stream ended");
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        text
    }

    /// Open `url` as a reconnecting browser does, with `Last-Event-ID: last`.
    async fn resume(url: &str, last: u64) -> reqwest::Response {
        reqwest::Client::new()
            .get(url)
            .header("Last-Event-ID", last.to_string())
            .send()
            .await
            .unwrap()
    }

    fn ids(text: &str) -> Vec<u64> {
        text.lines()
            .filter_map(|l| l.strip_prefix("id: "))
            .map(|id| id.parse().unwrap())
            .collect()
    }

    #[tokio::test]
    async fn events_arrive_in_order_with_their_ids_and_names() {
        let live = Arc::new(LiveEvents::default());
        let (url, _cancel) = serve(live.clone(), DEFAULT_HEARTBEAT).await;
        let response = reqwest::get(format!("{url}/events?after=0")).await.unwrap();
        assert_eq!(
            response.headers()["content-type"],
            "text/event-stream",
            "an SSE stream"
        );
        live.publish("question", &serde_json::json!({"id": "1"}));
        live.publish(
            "ballot",
            &serde_json::json!({"question": "1", "vote": "YES"}),
        );
        live.publish("report", &serde_json::json!({"question": "1"}));
        let text = read_until(response, |t| ids(t).len() == 3).await;
        assert_eq!(ids(&text), vec![1, 2, 3]);
        assert!(text.contains("event: ballot\ndata: {\"question\":\"1\",\"vote\":\"YES\"}"));
    }

    #[tokio::test]
    async fn last_event_id_resumes_right_after_it() {
        let live = Arc::new(LiveEvents::default());
        for i in 0..5 {
            live.publish("ballot", &i);
        }
        let (url, _cancel) = serve(live.clone(), DEFAULT_HEARTBEAT).await;
        // The header wins over `after` (a reconnecting browser keeps its original URL).
        let response = resume(&format!("{url}/events?after=1"), 3).await;
        let text = read_until(response, |t| ids(t).len() == 2).await;
        assert_eq!(ids(&text), vec![4, 5]);
        // Without an id a client starts with the next event, not with the history.
        let response = reqwest::get(format!("{url}/events")).await.unwrap();
        live.publish("ballot", &5);
        let text = read_until(response, |t| !ids(t).is_empty()).await;
        assert_eq!(ids(&text), vec![6]);
    }

    #[tokio::test]
    async fn a_client_behind_the_bounded_buffer_is_told_to_resync() {
        let live = Arc::new(LiveEvents::with_capacity(4));
        for i in 0..20 {
            live.publish("ballot", &i);
        }
        let (url, _cancel) = serve(live.clone(), DEFAULT_HEARTBEAT).await;
        let response = resume(&format!("{url}/events"), 2).await;
        let text = read_until(response, |t| ids(t).len() >= 5).await;
        assert!(
            text.contains("event: resync\ndata: {\"from\":17}"),
            "{text}"
        );
        // The resync marker carries id 16, then the buffered events follow in order.
        assert_eq!(ids(&text), vec![16, 17, 18, 19, 20]);
    }

    #[tokio::test]
    async fn an_idle_stream_gets_heartbeats_and_ends_on_shutdown() {
        let live = Arc::new(LiveEvents::default());
        let (url, cancel) = serve(live, Duration::from_millis(50)).await;
        let mut response = reqwest::get(format!("{url}/events")).await.unwrap();
        let mut text = String::new();
        while !text.starts_with(':') && !text.contains("\n:") {
            let chunk = tokio::time::timeout(Duration::from_secs(5), response.chunk())
                .await
                .expect("no heartbeat")
                .unwrap()
                .unwrap();
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        cancel.cancel();
        let end = tokio::time::timeout(Duration::from_secs(5), async {
            while let Ok(Some(_)) = response.chunk().await {}
        })
        .await;
        assert!(end.is_ok(), "the stream outlived the shutdown");
    }

    #[tokio::test]
    async fn every_response_carries_the_security_headers() {
        let live = Arc::new(LiveEvents::default());
        let (url, _cancel) = serve(live, DEFAULT_HEARTBEAT).await;
        let client = reqwest::Client::new();
        let requests = [
            client.get(format!("{url}/")),
            client.get(format!("{url}/assets/app.js")),
            client.get(format!("{url}/assets/wallet.js")),
            client.get(format!("{url}/court")),
            client.get(format!("{url}/assets/nope.js")),
            client.get(format!("{url}/events")),
            client.get(format!("{url}/no/such/route")),
            client.post(format!("{url}/")),
        ];
        for request in requests {
            let response = request.send().await.unwrap();
            let what = format!("{} {}", response.url(), response.status());
            let headers = response.headers();
            assert_eq!(
                headers["content-security-policy"],
                "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; \
                 connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
                "{what}"
            );
            assert_eq!(headers["x-content-type-options"], "nosniff", "{what}");
            assert_eq!(headers["referrer-policy"], "no-referrer", "{what}");
            assert_eq!(headers["x-frame-options"], "DENY", "{what}");
        }
    }

    #[test]
    fn the_page_has_no_inline_script_or_style() {
        let html = ASSETS[0].2;
        assert!(!html.contains("<script>"), "inline script in index.html");
        assert!(!html.contains("<style"), "inline style sheet in index.html");
        // The wallet bundle is viem's code, not markup: its strings are no inline handlers.
        for (name, _, body) in ASSETS.iter().filter(|(name, ..)| *name != WALLET) {
            // Inline styles and handlers are refused by the CSP (no 'unsafe-inline').
            for needle in ["style=", " onclick", " onload", " onerror", "javascript:"] {
                assert!(!body.contains(needle), "{name} contains {needle:?}");
            }
        }
    }

    #[test]
    fn the_wallet_module_loads_only_on_connect_and_keeps_its_own_budget() {
        // No page references it: act.js adds its script tag on "Connect wallet".
        for (name, _, body) in ASSETS.iter().filter(|(name, ..)| *name != WALLET) {
            let tag = body.contains("src=\"/assets/wallet.js\"");
            assert!(!tag, "{name} loads the wallet module with the page");
        }
        let act = ASSETS.iter().find(|(name, ..)| *name == "act.js");
        assert!(act.is_some_and(|(_, _, body)| body.contains("\"/assets/wallet.js\"")));
        // viem minified is ~190 kB; the module must not grow past what a wallet page needs.
        assert!(wallet_weight() <= 300 * 1024, "{} bytes", wallet_weight());
    }

    #[test]
    fn the_page_weighs_at_most_300_kb() {
        // The budget for all embedded assets.
        assert!(page_weight() <= 300 * 1024, "{} bytes", page_weight());
        assert!(page_weight() > 1000, "the assets are embedded");
    }
}
