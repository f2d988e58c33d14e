//! A bound on the API requests that read the chain at once.
//!
//! A question page, a check or the court page each make several RPC calls (a check about ten),
//! and the API needs no account: without a bound, anyone who can reach it could spend the
//! node's RPC quota, which the watcher and the poster share. Past the bound a request is
//! answered at once, 503 with `Retry-After`, instead of queueing: a queue would only hold the
//! flood's sockets open while honest users wait behind it. `/healthz`, `/readyz` and
//! `/metrics` are not behind it (monitoring must not be crowded out; their reads are bounded
//! by their own timeout).

use std::sync::Arc;

use axum::{
    Json,
    extract::{Request, State},
    http::{StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
};
use serde_json::json;
use tokio::sync::Semaphore;
use tracing::debug;

/// Requests that read the chain at once, at most.
pub const MAX_CHAIN_READS_IN_FLIGHT: usize = 16;

/// The permits of one API server (each server holds its own).
#[derive(Debug, Clone)]
pub struct ChainReads(Arc<Semaphore>, usize);

impl ChainReads {
    /// A bound of `permits` requests in flight.
    pub fn new(permits: usize) -> Self {
        Self(Arc::new(Semaphore::new(permits)), permits)
    }
}

impl Default for ChainReads {
    fn default() -> Self {
        Self::new(MAX_CHAIN_READS_IN_FLIGHT)
    }
}

/// Middleware: run the request while holding a permit, or answer 503 at once.
pub async fn bounded(State(reads): State<ChainReads>, request: Request, next: Next) -> Response {
    let Ok(_permit) = reads.0.try_acquire() else {
        debug!(target: "veritas::api", path = %request.uri().path(), "busy: request shed");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "1")],
            Json(json!({
                "error": format!(
                    "busy: {} requests are reading the chain; retry in a second",
                    reads.1
                )
            })),
        )
            .into_response();
    };
    next.run(request).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::time::Duration;

    use axum::{Router, middleware::from_fn_with_state, routing::get};

    use super::*;

    /// A server on port 0 whose one route answers once it takes a permit of `gate` (the test
    /// adds them: a request held in the handler, not a delay).
    async fn serve(reads: ChainReads, gate: Arc<Semaphore>) -> String {
        let app = Router::new()
            .route(
                "/slow",
                get(move || {
                    let gate = Arc::clone(&gate);
                    async move {
                        gate.acquire().await.unwrap().forget();
                        "done"
                    }
                }),
            )
            .layer(from_fn_with_state(reads, bounded));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/slow", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        url
    }

    #[tokio::test]
    async fn past_the_bound_a_request_is_shed_at_once_and_a_freed_permit_serves_again() {
        let reads = ChainReads::new(2);
        let gate = Arc::new(Semaphore::new(0));
        let url = serve(reads.clone(), Arc::clone(&gate)).await;
        let client = reqwest::Client::new();
        let held: Vec<_> = (0..2)
            .map(|_| tokio::spawn(client.get(&url).send()))
            .collect();
        // Both permits taken: the held requests are inside the handler.
        tokio::time::timeout(Duration::from_secs(10), async {
            while reads.0.available_permits() > 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .unwrap();

        // Answered at once, not queued behind the held two.
        let shed = tokio::time::timeout(Duration::from_secs(10), client.get(&url).send())
            .await
            .expect("a request past the bound waited instead of being shed")
            .unwrap();
        assert_eq!(shed.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(shed.headers()[header::RETRY_AFTER], "1");
        let body: serde_json::Value = shed.json().await.unwrap();
        assert!(
            body["error"].as_str().unwrap().starts_with("busy"),
            "{body}"
        );

        gate.add_permits(2);
        for h in held {
            let answer = h.await.unwrap().unwrap();
            assert_eq!(answer.status(), StatusCode::OK);
        }
        assert_eq!(reads.0.available_permits(), 2, "permits come back");
        let again = tokio::spawn(client.get(&url).send());
        tokio::time::timeout(Duration::from_secs(10), async {
            while reads.0.available_permits() > 1 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .unwrap();
        gate.add_permits(1);
        assert_eq!(again.await.unwrap().unwrap().status(), StatusCode::OK);
    }
}
