//! What the web view's wallet module reads from the node before it asks the user's wallet to
//! sign anything: the oracle's address, chain id and JSON ABI (`GET /abi`), and the contract's
//! own sentence for a revert (`POST /explain`).
//!
//! The node never sees a key or a transaction: the page encodes the call with the ABI served
//! here, asks the wallet to simulate and send it, and sends only revert data back to be
//! explained. The sentences come from [`crate::contract::explain`] (the contracts' NatSpec), the
//! same source the CLI prints, so the page holds no second table of messages.

use alloy::{
    json_abi::JsonAbi,
    primitives::{Address, Bytes},
    providers::Provider,
};
use axum::{
    Json,
    extract::State,
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{ApiState, SCRAPE_RPC_TIMEOUT};
use crate::contract::explain;

/// The answer of `GET /abi`.
#[derive(Debug, Serialize)]
pub struct AbiAnswer {
    /// The oracle the node follows.
    pub oracle: Address,
    /// The chain id its RPC reports (null when the RPC did not answer in time): a wallet on
    /// another chain is refused before anything is signed.
    pub chain_id: Option<u64>,
    /// The oracle's JSON ABI, enum types named.
    pub abi: &'static JsonAbi,
    /// Every custom error's sentence template, by name.
    pub notices: std::collections::BTreeMap<&'static str, &'static str>,
}

/// `GET /abi`.
pub async fn abi(State(s): State<ApiState>) -> Json<AbiAnswer> {
    let chain_id = tokio::time::timeout(SCRAPE_RPC_TIMEOUT, s.provider.get_chain_id())
        .await
        .ok()
        .and_then(Result::ok);
    Json(AbiAnswer {
        oracle: s.oracle,
        chain_id,
        abi: explain::oracle_abi(),
        notices: explain::notices(),
    })
}

/// The body of `POST /explain`: revert data (selector and arguments), hex.
#[derive(Debug, Deserialize)]
pub struct ExplainRequest {
    /// The revert data.
    pub data: Bytes,
}

/// `POST /explain`: the error's name, its arguments and the contract's sentence; 422 when
/// the data is no error of the oracle.
pub async fn explain(Json(request): Json<ExplainRequest>) -> Response {
    match explain::explain(explain::oracle_abi(), &request.data) {
        Some(explained) => Json(explained).into_response(),
        None => (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"error": "not a custom error of the oracle"})),
        )
            .into_response(),
    }
}
