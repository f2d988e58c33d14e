//! `GET /questions/{id}/check/{action}?from=0x…&…`: what an action on a question would do, by
//! the contract's rules, before the web view's wallet signs anything.
//!
//! The answer is the library's planner ([`crate::contract::plan`], the very code `veritas
//! evidence`, `clarify`, `dispute`, `appeal` and `finalize` run): the call to make, its value,
//! the lines to review. The page keeps no copy of the rules.
//!
//! | status | body |
//! |---|---|
//! | 200 | the plan: `{action, id, from, call: {function, args}, value, lines, block, now}`, big integers as decimal strings |
//! | 409 | the contract would refuse: `{refused: true, error, args, sentence}`, its own error and sentence |
//! | 400 | malformed input (an address, a percentage, a field too long, a missing field): `{error}` |
//! | 404 | an unknown action or a question id that is no number: `{error}` |
//! | 502 | the chain could not be read (or not in time): `{error}` |
//!
//! Inputs are hostile: each field is bounded and decoded into a typed value here, and a bad one
//! fails that request only.

use std::time::Duration;

use alloy::primitives::{Address, U256};
use axum::{
    Json,
    extract::{Path, Query, State, rejection::QueryRejection},
    http::StatusCode,
    response::{IntoResponse, Response},
};
use serde::Deserialize;
use serde_json::json;

use super::ApiState;
use crate::contract::plan::{self, Action, PlanError};

/// The chain reads of one check are bounded by this (a dozen views at one block).
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// The most bytes a text field may have here: above every cap of the contract (2,048 for a url
/// or a snippet), so that the contract's own refusal, with its sentence, answers a long one.
pub const MAX_FIELD_BYTES: usize = 4096;

/// The most characters of a percentage as typed.
const MAX_PERCENT_CHARS: usize = 24;

/// The query string, as the page's forms send it (every field text; decoded by [`decode`]).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckQuery {
    /// The account that would act (the wallet's).
    pub from: Option<String>,
    /// Evidence: where it is.
    pub url: Option<String>,
    /// Evidence: its title.
    pub title: Option<String>,
    /// Evidence: the relevant excerpt.
    pub snippet: Option<String>,
    /// Clarify: the text.
    pub text: Option<String>,
    /// Dispute: YES, as a percentage (`12.5`).
    pub yes: Option<String>,
    /// Dispute: NO, as a percentage.
    pub no: Option<String>,
    /// Dispute: NULL, as a percentage.
    pub null: Option<String>,
    /// Dispute: who is credited (blank: the sender).
    pub beneficiary: Option<String>,
}

/// Why a request is malformed (400) or names no action (404).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// 404: no such action.
    #[error("unknown action {0:?} (evidence, clarify, dispute, appeal or finalize)")]
    UnknownAction(String),
    /// 400: a required field is missing.
    #[error("{0} is required")]
    Missing(&'static str),
    /// 400: a field over [`MAX_FIELD_BYTES`].
    #[error("{field} is {bytes} bytes, more than this endpoint takes ({max})")]
    TooLong {
        /// The field.
        field: &'static str,
        /// Its length.
        bytes: usize,
        /// The bound.
        max: usize,
    },
    /// 400: not an address.
    #[error("{field} is not an address (0x and 40 hex digits)")]
    Address {
        /// The field.
        field: &'static str,
    },
    /// 400: not a percentage.
    #[error("{field} {value:?} is not a percentage (e.g. 12.5, at most 16 decimals)")]
    Percent {
        /// The field.
        field: &'static str,
        /// What was given (cut to a few characters).
        value: String,
    },
}

/// Decode the query of `action` into the account and the typed action.
///
/// # Errors
/// [`InputError`]: an unknown action, a missing, long or malformed field.
pub fn decode(action: &str, q: CheckQuery) -> Result<(Address, Action), InputError> {
    if !matches!(
        action,
        "evidence" | "clarify" | "dispute" | "appeal" | "finalize"
    ) {
        return Err(InputError::UnknownAction(cut(action)));
    }
    let from = address("from", &required("from", q.from)?)?;
    let action = match action {
        "evidence" => Action::Evidence {
            url: text("url", q.url)?,
            title: text("title", q.title)?,
            snippet: text("snippet", q.snippet)?,
        },
        "clarify" => Action::Clarify {
            text: text("text", q.text)?,
        },
        "dispute" => {
            let beneficiary = match text("beneficiary", q.beneficiary)?.trim() {
                "" => None,
                given => Some(address("beneficiary", given)?),
            };
            Action::Dispute {
                claim: [
                    percent("yes", &required("yes", q.yes)?)?,
                    percent("no", &required("no", q.no)?)?,
                    percent("null", &required("null", q.null)?)?,
                ],
                bond: None,
                beneficiary,
            }
        }
        "appeal" => Action::Appeal,
        _ => Action::Finalize,
    };
    Ok((from, action))
}

fn required(field: &'static str, value: Option<String>) -> Result<String, InputError> {
    value.ok_or(InputError::Missing(field))
}

/// A text field (absent: empty), bounded.
fn text(field: &'static str, value: Option<String>) -> Result<String, InputError> {
    let value = value.unwrap_or_default();
    if value.len() > MAX_FIELD_BYTES {
        return Err(InputError::TooLong {
            field,
            bytes: value.len(),
            max: MAX_FIELD_BYTES,
        });
    }
    Ok(value)
}

fn address(field: &'static str, value: &str) -> Result<Address, InputError> {
    let value = value.trim();
    if value.len() != 42 {
        return Err(InputError::Address { field });
    }
    value.parse().map_err(|_| InputError::Address { field })
}

/// A percentage as the form takes it (`12.5`, at most 16 decimals) on the 1e18 scale.
fn percent(field: &'static str, value: &str) -> Result<U256, InputError> {
    let value = value.trim();
    let bad = || InputError::Percent {
        field,
        value: cut(value),
    };
    if value.len() > MAX_PERCENT_CHARS {
        return Err(bad());
    }
    let (whole, fraction) = value.split_once('.').unwrap_or((value, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || !digits(whole)
        || !digits(fraction)
        || fraction.len() > 16
        || (value.contains('.') && fraction.is_empty())
    {
        return Err(bad());
    }
    let scaled = format!("{whole}{fraction:0<16}");
    scaled.parse::<U256>().map_err(|_| bad())
}

/// The first characters of a hostile value, for a message.
fn cut(value: &str) -> String {
    value.chars().take(32).collect()
}

/// `GET /questions/{id}/check/{action}`.
pub async fn check(
    State(s): State<ApiState>,
    Path((id, action)): Path<(String, String)>,
    query: Result<Query<CheckQuery>, QueryRejection>,
) -> Response {
    let answer = |status: StatusCode, body: serde_json::Value| (status, Json(body)).into_response();
    let Ok(id) = id.parse::<U256>() else {
        return answer(StatusCode::NOT_FOUND, json!({"error": "unknown question"}));
    };
    let query = match query {
        Ok(Query(q)) => q,
        Err(e) => return answer(StatusCode::BAD_REQUEST, json!({"error": e.body_text()})),
    };
    let (from, action) = match decode(&action, query) {
        Ok(decoded) => decoded,
        Err(e @ InputError::UnknownAction(_)) => {
            return answer(StatusCode::NOT_FOUND, json!({"error": e.to_string()}));
        }
        Err(e) => return answer(StatusCode::BAD_REQUEST, json!({"error": e.to_string()})),
    };
    let planned = tokio::time::timeout(
        CHECK_TIMEOUT,
        plan::plan(&s.provider, s.oracle, id, from, &action),
    )
    .await;
    match planned {
        Ok(Ok(plan)) => Json(plan).into_response(),
        Ok(Err(PlanError::Refused(refusal))) => {
            let explained = refusal.explained();
            answer(
                StatusCode::CONFLICT,
                json!({"refused": true, "error": explained.error, "args": explained.args,
                       "sentence": explained.sentence}),
            )
        }
        Ok(Err(PlanError::Chain(e))) => answer(
            StatusCode::BAD_GATEWAY,
            json!({"error": format!("the chain could not be read: {e}")}),
        ),
        Err(_) => answer(
            StatusCode::BAD_GATEWAY,
            json!({"error": "the chain did not answer in time"}),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FROM: &str = "0x000000000000000000000000000000000000dEaD";

    fn query(fields: &[(&str, &str)]) -> CheckQuery {
        let text: Vec<String> = fields
            .iter()
            .map(|(k, v)| {
                format!(
                    "{k}={}",
                    url::form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()
                )
            })
            .collect();
        let uri: axum::http::Uri = format!("/?{}", text.join("&")).parse().unwrap();
        Query::<CheckQuery>::try_from_uri(&uri).unwrap().0
    }

    fn wad_pct(whole: u64) -> U256 {
        U256::from(whole) * U256::from(10u64).pow(U256::from(16))
    }

    #[test]
    fn a_dispute_decodes_percentages_and_an_optional_beneficiary() {
        let q = query(&[
            ("from", FROM),
            ("yes", "10"),
            ("no", "85.5"),
            ("null", " 4.5 "),
            ("beneficiary", " "),
        ]);
        let (from, action) = decode("dispute", q).unwrap();
        assert_eq!(from, FROM.parse::<Address>().unwrap());
        let half = U256::from(5) * U256::from(10u64).pow(U256::from(15));
        assert_eq!(
            action,
            Action::Dispute {
                claim: [wad_pct(10), wad_pct(85) + half, wad_pct(4) + half],
                bond: None,
                beneficiary: None
            }
        );
        let q = query(&[
            ("from", FROM),
            ("yes", "0.0000000000000001"),
            ("no", "1"),
            ("null", "1"),
            ("beneficiary", FROM),
        ]);
        let (_, action) = decode("dispute", q).unwrap();
        let Action::Dispute {
            claim, beneficiary, ..
        } = action
        else {
            panic!()
        };
        assert_eq!(claim[0], U256::from(1), "16 decimals of a percent: 1 wei");
        assert_eq!(beneficiary, Some(FROM.parse().unwrap()));
    }

    #[test]
    fn malformed_fields_fail_with_a_message_and_unknown_actions_are_404() {
        let bad =
            |action: &str, fields: &[(&str, &str)]| decode(action, query(fields)).unwrap_err();
        assert_eq!(
            bad("withdraw", &[("from", FROM)]),
            InputError::UnknownAction("withdraw".into())
        );
        assert_eq!(bad("appeal", &[]), InputError::Missing("from"));
        assert_eq!(
            bad("appeal", &[("from", "0x12")]),
            InputError::Address { field: "from" }
        );
        assert_eq!(
            bad(
                "appeal",
                &[("from", "0xZZ0000000000000000000000000000000000dEaD")]
            ),
            InputError::Address { field: "from" }
        );
        for p in [
            "",
            "-1",
            "1e3",
            "12.",
            ".5",
            "0x10",
            "1.00000000000000001",
            "1,5",
            "99999999999999999999999999",
        ] {
            assert!(
                matches!(
                    bad(
                        "dispute",
                        &[("from", FROM), ("yes", p), ("no", "1"), ("null", "1")]
                    ),
                    InputError::Percent { field: "yes", .. }
                ),
                "{p:?}"
            );
        }
        assert_eq!(
            bad("dispute", &[("from", FROM), ("yes", "1"), ("no", "1")]),
            InputError::Missing("null")
        );
        assert_eq!(
            bad(
                "dispute",
                &[
                    ("from", FROM),
                    ("yes", "1"),
                    ("no", "1"),
                    ("null", "1"),
                    ("beneficiary", "me")
                ]
            ),
            InputError::Address {
                field: "beneficiary"
            }
        );
        let long = "x".repeat(MAX_FIELD_BYTES + 1);
        assert_eq!(
            bad("evidence", &[("from", FROM), ("url", &long)]),
            InputError::TooLong {
                field: "url",
                bytes: MAX_FIELD_BYTES + 1,
                max: MAX_FIELD_BYTES
            }
        );
        // The contract's own caps are below the bound: its refusal answers those.
        let at_bound = "x".repeat(MAX_FIELD_BYTES);
        assert!(decode("clarify", query(&[("from", FROM), ("text", &at_bound)])).is_ok());
    }

    #[test]
    fn an_unknown_or_repeated_field_is_refused_by_the_query_decoder() {
        let uri: axum::http::Uri = format!("/?from={FROM}&amount=1").parse().unwrap();
        assert!(Query::<CheckQuery>::try_from_uri(&uri).is_err());
        let uri: axum::http::Uri = format!("/?from={FROM}&from={FROM}").parse().unwrap();
        assert!(Query::<CheckQuery>::try_from_uri(&uri).is_err());
    }
}
