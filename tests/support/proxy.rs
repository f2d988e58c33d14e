//! A fault-injecting JSON-RPC proxy between the node and anvil.

use std::sync::{
    Arc,
    atomic::{AtomicBool, AtomicU64, Ordering},
};

use axum::{Json, Router, extract::State, http::StatusCode, routing::post};
use serde_json::{Value, json};

/// Shared switches and counters.
#[derive(Clone)]
pub struct Proxy {
    upstream: String,
    /// `eth_getLogs` over more blocks than this is refused with a JSON-RPC error.
    pub max_range: u64,
    /// Every request answers 503 while set.
    pub down: Arc<AtomicBool>,
    /// When non-zero, every Nth request fails: alternately a 429 (not forwarded) and a 502
    /// after forwarding (the request took effect, the answer was lost).
    pub fail_every: Arc<AtomicU64>,
    /// Ranges refused.
    pub refused: Arc<AtomicU64>,
    /// Faults injected.
    pub faults: Arc<AtomicU64>,
    requests: Arc<AtomicU64>,
    client: reqwest::Client,
}

async fn forward(
    State(p): State<Proxy>,
    Json(body): Json<Value>,
) -> Result<Json<Value>, StatusCode> {
    if p.down.load(Ordering::Relaxed) {
        return Err(StatusCode::SERVICE_UNAVAILABLE);
    }
    let k = p.requests.fetch_add(1, Ordering::Relaxed) + 1;
    let every = p.fail_every.load(Ordering::Relaxed);
    let fault = every > 0 && k % every == 0;
    if fault && (k / every) % 2 == 1 {
        p.faults.fetch_add(1, Ordering::Relaxed);
        return Err(StatusCode::TOO_MANY_REQUESTS);
    }
    if body["method"] == "eth_getLogs" {
        let hex = |v: &Value| {
            u64::from_str_radix(v.as_str().unwrap_or("0x0").trim_start_matches("0x"), 16)
                .unwrap_or(0)
        };
        let (from, to) = (
            hex(&body["params"][0]["fromBlock"]),
            hex(&body["params"][0]["toBlock"]),
        );
        if to.saturating_sub(from) + 1 > p.max_range {
            p.refused.fetch_add(1, Ordering::Relaxed);
            return Ok(Json(json!({"jsonrpc": "2.0", "id": body["id"],
                "error": {"code": -32602, "message": format!("query exceeds max block range {}", p.max_range)}})));
        }
    }
    let resp = p
        .client
        .post(&p.upstream)
        .json(&body)
        .send()
        .await
        .map_err(|_| StatusCode::BAD_GATEWAY)?;
    let value: Value = resp.json().await.map_err(|_| StatusCode::BAD_GATEWAY)?;
    if fault {
        p.faults.fetch_add(1, Ordering::Relaxed);
        return Err(StatusCode::BAD_GATEWAY);
    }
    Ok(Json(value))
}

/// Start a proxy to `upstream` on a free port; returns its URL and handle.
pub async fn start_proxy(upstream: &str, max_range: u64) -> (String, Proxy) {
    let proxy = Proxy {
        upstream: upstream.into(),
        max_range,
        down: Arc::default(),
        fail_every: Arc::default(),
        refused: Arc::default(),
        faults: Arc::default(),
        requests: Arc::default(),
        client: reqwest::Client::new(),
    };
    let app = Router::new()
        .route("/", post(forward))
        .with_state(proxy.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind proxy");
    let url = format!("http://{}", listener.local_addr().expect("proxy addr"));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, proxy)
}
