//! The JSON-RPC transport: alloy's HTTP transport with the answer's size bounded.
//!
//! alloy's reqwest transport reads a whole answer into memory (`Response::bytes`) and has no
//! setting to bound it, so an RPC endpoint (hostile, or a proxy gone wrong) could exhaust the
//! node's memory with one answer. This transport does what alloy's does (POST the request
//! packet with its headers; a JSON-RPC error body wins over the HTTP status; `Retry-After`
//! carried on HTTP errors) through [`read_body`], at most [`MAX_RPC_BODY_BYTES`].
//!
//! An answer over the limit becomes HTTP 413 ("response body over N bytes"), which
//! [`super::ChainError::is_range_refusal`] counts as the RPC refusing an `eth_getLogs` range:
//! the watcher halves its range and tries again, so a range of legitimately large logs still
//! goes through in smaller pieces, and anything else fails that call only. `Retry-After` is
//! read by [`retry_after`] (capped; alloy's own reader has no cap of its own but its
//! retry layer clamps hints to 5 minutes).

use std::task::{Context, Poll};

use alloy::rpc::json_rpc::{RequestPacket, ResponsePacket};
use alloy::transports::{TransportError, TransportErrorKind, TransportFut};

use crate::http_limits::{BodyError, read_body};
use crate::retry::retry_after;

/// Largest JSON-RPC answer read. A block's logs are at most a few MB of data (gas bounds
/// them), twice that as JSON hex; 64 MiB leaves room for a range of busy blocks, and the
/// watcher splits any range whose answer is larger.
pub const MAX_RPC_BODY_BYTES: usize = 64 * 1024 * 1024;

/// The status an answer over the limit is reported with (Payload Too Large).
const TOO_LARGE: u16 = 413;

/// An HTTP JSON-RPC transport reading at most `limit` bytes per answer.
#[derive(Debug, Clone)]
pub struct BoundedHttp {
    client: reqwest::Client,
    url: reqwest::Url,
    limit: usize,
}

impl BoundedHttp {
    /// A transport posting to `url` with `client` (its timeout bounds each request, from
    /// connecting to the answer's last byte), reading at most `limit` bytes per answer.
    pub fn new(client: reqwest::Client, url: reqwest::Url, limit: usize) -> Self {
        Self { client, url, limit }
    }

    async fn send(self, request: RequestPacket) -> Result<ResponsePacket, TransportError> {
        let response = self
            .client
            .post(self.url)
            .json(&request)
            .headers(request.headers())
            .send()
            .await
            .map_err(TransportErrorKind::custom)?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let body = match read_body(response, self.limit).await {
            Ok(body) => body,
            Err(e @ BodyError::TooLarge { .. }) => {
                return Err(TransportErrorKind::http_error(TOO_LARGE, e.to_string()));
            }
            // A failed read of an error answer still carries its status and retry hint.
            Err(BodyError::Read(e)) if !status.is_success() => {
                return Err(TransportErrorKind::http_error_with_retry_after(
                    status.as_u16(),
                    format!("<failed to read response body: {e}>"),
                    retry_after,
                ));
            }
            Err(BodyError::Read(e)) => return Err(TransportErrorKind::custom(e)),
        };
        if !status.is_success() {
            if let Ok(packet) = serde_json::from_slice::<ResponsePacket>(&body)
                && packet.is_error()
            {
                return Ok(packet);
            }
            return Err(TransportErrorKind::http_error_with_retry_after(
                status.as_u16(),
                String::from_utf8_lossy(&body).into_owned(),
                retry_after,
            ));
        }
        serde_json::from_slice(&body)
            .map_err(|e| TransportError::deser_err(e, String::from_utf8_lossy(&body)))
    }
}

impl tower_service::Service<RequestPacket> for BoundedHttp {
    type Response = ResponsePacket;
    type Error = TransportError;
    type Future = TransportFut<'static>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // reqwest is always ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: RequestPacket) -> Self::Future {
        Box::pin(self.clone().send(request))
    }
}
