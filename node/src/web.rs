//! The live committee view: a read-only web page served by the node at `/`, and the
//! server-sent event stream it follows (`GET /events`, see [`crate::live`]).
//!
//! Every asset is embedded in the binary (`node/web/`: plain HTML, CSS and JavaScript, no
//! framework, no CDN), so the page works offline and is exactly as reviewed. The page reads the
//! same JSON routes as any client (`/questions`, `/questions/{id}`) and recomputes each evidence
//! commitment in the browser (`verify.js`: RFC 8785 + RFC 6962 over WebCrypto's SHA-256).
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
    http::{HeaderMap, StatusCode, header},
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

/// The embedded assets: (path, content type, body).
const ASSETS: &[(&str, &str, &str)] = &[
    ("index.html", "text/html; charset=utf-8", include_str!("../web/index.html")),
    ("app.js", "text/javascript; charset=utf-8", include_str!("../web/app.js")),
    ("verify.js", "text/javascript; charset=utf-8", include_str!("../web/verify.js")),
    ("charts.js", "text/javascript; charset=utf-8", include_str!("../web/charts.js")),
    ("style.css", "text/css; charset=utf-8", include_str!("../web/style.css")),
];

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
    Router::new()
        .route("/", get(|| async { asset("index.html") }))
        .route("/assets/{file}", get(|Path(file): Path<String>| async move { asset(&file) }))
        .route("/events", get(events))
        .with_state(state)
}

/// Total size of the embedded assets in bytes (the page weight).
pub fn page_weight() -> usize {
    ASSETS.iter().map(|(_, _, body)| body.len()).sum()
}

fn asset(name: &str) -> Response {
    match ASSETS.iter().find(|(path, _, _)| *path == name) {
        Some((_, kind, body)) => (
            [(header::CONTENT_TYPE, *kind), (header::CACHE_CONTROL, "no-cache")],
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
                    let event = Event::default().id(e.id.to_string()).event(e.kind).data(e.data);
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
    use super::*;

    #[test]
    fn the_page_weighs_at_most_300_kb() {
        // The budget for all embedded assets.
        assert!(page_weight() <= 300 * 1024, "{} bytes", page_weight());
        assert!(page_weight() > 1000, "the assets are embedded");
    }
}
