//! A *protocol double* of an OpenAI-compatible chat-completions server, shared by the juror
//! protocol tests and the node's secrets test.
//!
//! A few lines of axum on 127.0.0.1:0 that speak the chat-completions wire format (request
//! body, `choices[0].message.content`, `usage`, error statuses, `Retry-After`) and answer from
//! a per-test script, or from a per-test function of the request. It is not a model; it checks
//! that our client speaks the protocol and survives the ways real servers fail.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

/// What the double answers to one request.
#[derive(Clone)]
pub enum Reply {
    /// 200 with this message content.
    Content(&'static str),
    /// This status, body and optional Retry-After seconds.
    Status(u16, &'static str, Option<&'static str>),
    /// 200 with a body that is not JSON.
    RawBody(&'static str),
    /// Wait, then answer with the ballot.
    Slow(Duration),
}

/// Answers one request from its JSON body and its `Authorization` header.
pub type Responder = dyn Fn(&Value, Option<&str>) -> Response + Send + Sync;

/// The double's state: the script, and every request seen (body, Authorization, when).
#[derive(Default)]
pub struct Double {
    pub script: Mutex<VecDeque<Reply>>,
    pub requests: Mutex<Vec<(Value, Option<String>, Instant)>>,
    /// When set, it answers every request (the script is not used).
    pub responder: Option<Box<Responder>>,
}

/// A valid ballot for a bundle with at least two evidence items and a `relevance` criterion.
pub const BALLOT: &str = r#"{"vote":"NO","confidence":0.7,"supporting_evidence_ids":[],
  "refuting_evidence_ids":[2],"rubric_scores":{"relevance":0.8},"reasoning":"item 2 contradicts"}"#;

/// A 200 chat completion holding `content` (1000 prompt + 50 completion tokens).
pub fn completion(model: &Value, content: &str) -> Response {
    Json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}
    }))
    .into_response()
}

async fn completions(
    State(d): State<Arc<Double>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    d.requests
        .lock()
        .unwrap()
        .push((body.clone(), auth.clone(), Instant::now()));
    if let Some(respond) = &d.responder {
        return respond(&body, auth.as_deref());
    }
    let reply = d
        .script
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or(Reply::Content(BALLOT));
    match reply {
        Reply::Content(c) => completion(&body["model"], c),
        Reply::Status(code, text, retry_after) => {
            let mut r = (StatusCode::from_u16(code).unwrap(), text.to_owned()).into_response();
            if let Some(s) = retry_after {
                r.headers_mut().insert("retry-after", s.parse().unwrap());
            }
            r
        }
        Reply::RawBody(text) => (StatusCode::OK, text.to_owned()).into_response(),
        Reply::Slow(wait) => {
            tokio::time::sleep(wait).await;
            completion(&body["model"], BALLOT)
        }
    }
}

async fn start(double: Double) -> (Arc<Double>, String) {
    let double = Arc::new(double);
    let app = Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(double.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (double, format!("http://{addr}/v1"))
}

/// Serve `script` (then [`BALLOT`] forever); returns the state and the base URL (`.../v1`).
pub async fn serve(script: Vec<Reply>) -> (Arc<Double>, String) {
    start(Double {
        script: Mutex::new(script.into()),
        ..Double::default()
    })
    .await
}

/// Serve answers computed by `responder`; returns the state and the base URL (`.../v1`).
pub async fn serve_with(
    responder: impl Fn(&Value, Option<&str>) -> Response + Send + Sync + 'static,
) -> (Arc<Double>, String) {
    start(Double {
        responder: Some(Box::new(responder)),
        ..Double::default()
    })
    .await
}
