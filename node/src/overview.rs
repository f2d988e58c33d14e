//! The question list as the web view shows it, and its live announcement.
//!
//! The store reports every change of a question to one hook ([`Store::on_change`]); this
//! module turns the store's [`QuestionSummary`] into the row the list shows (the leading
//! outcome and its probability) and publishes it as a `question` event. It sits above both the
//! store and the live log, so the database knows nothing of server-sent events or of how a
//! 1e18 integer reads as a probability.

use std::sync::Arc;

use alloy::primitives::U256;
use serde::Serialize;

use crate::{
    live::LiveEvents,
    stats::wad_to_f64,
    store::{QuestionSummary, Store, StoreError},
};

/// A question as the list shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionRow {
    /// Question id.
    #[serde(with = "crate::decimal")]
    pub id: U256,
    /// The question text.
    pub text: String,
    /// The store's status word ([`QuestionSummary::status`]).
    pub status: &'static str,
    /// The leading outcome (YES, NO, NULL) of the verdict on-chain, or of our report before
    /// the pooled verdict is posted.
    pub outcome: Option<&'static str>,
    /// Its probability (the posted 1e18 integer over 1e18).
    pub p_leading: Option<f64>,
    /// Unix ms when this node first saw the question.
    pub asked_at_ms: i64,
    /// Unix ms of the last change.
    pub updated_ms: i64,
    /// Whether a report file exists (the question page can show it).
    pub has_report: bool,
}

impl From<QuestionSummary> for QuestionRow {
    fn from(s: QuestionSummary) -> Self {
        // Our report's triple, before the pooled verdict is posted: the contract's rounding.
        let ours = s
            .reported_counts
            .map(|counts| crate::stats::to_wad(counts).map(U256::from));
        let (outcome, p_leading) = match s.posted.or(ours) {
            Some([p_yes, p_no, p_null]) => {
                let triple = [("YES", p_yes), ("NO", p_no), ("NULL", p_null)];
                // Ties go to the earlier outcome in K order, as in routing.
                let (name, p) = triple
                    .iter()
                    .copied()
                    .fold(triple[0], |best, x| if x.1 > best.1 { x } else { best });
                (Some(name), Some(wad_to_f64(p)))
            }
            None => (None, None),
        };
        Self {
            id: s.id,
            text: s.text,
            status: s.status,
            outcome,
            p_leading,
            asked_at_ms: s.asked_at_ms,
            updated_ms: s.updated_ms,
            has_report: s.has_report,
        }
    }
}

/// The list row of one question.
///
/// # Errors
/// [`StoreError`].
pub fn row(store: &Store, question_id: U256) -> Result<Option<QuestionRow>, StoreError> {
    Ok(store.question_summary(question_id)?.map(QuestionRow::from))
}

/// The list, newest first (the store's [`Store::question_summaries`]).
///
/// # Errors
/// [`StoreError`].
pub fn rows(store: &Store) -> Result<Vec<QuestionRow>, StoreError> {
    Ok(store
        .question_summaries()?
        .into_iter()
        .map(QuestionRow::from)
        .collect())
}

/// Publish every later change of a question in `store` to `live` as a `question` event. A
/// store error here only costs the live view an update (the page reloads on the next one).
pub fn announce_changes(store: &Store, live: Arc<LiveEvents>) {
    store.on_change(Box::new(move |store, question_id| {
        match row(store, question_id) {
            Ok(Some(row)) => {
                live.publish("question", &row);
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(target: "veritas::live", question = %question_id, error = %e, "no live update");
            }
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(posted: Option<[u64; 3]>) -> QuestionSummary {
        QuestionSummary {
            id: U256::from(7),
            text: "q".into(),
            status: "reported",
            posted: posted.map(|p| p.map(U256::from)),
            reported_counts: None,
            asked_at_ms: 1,
            updated_ms: 2,
            has_report: true,
        }
    }

    #[test]
    fn before_the_verdict_is_posted_the_row_shows_our_reports_triple() {
        let mut s = summary(None);
        s.reported_counts = Some([3, 1, 0]);
        let row = QuestionRow::from(s.clone());
        let wad = crate::stats::to_wad([3, 1, 0]);
        assert_eq!(row.outcome, Some("YES"));
        assert_eq!(row.p_leading, Some(wad_to_f64(U256::from(wad[0]))));
        // The chain's triple, once posted, wins over ours.
        s.posted = Some([0u64, 1_000_000_000_000_000_000, 0].map(U256::from));
        assert_eq!(QuestionRow::from(s).outcome, Some("NO"));
    }

    #[test]
    fn the_row_leads_with_the_largest_share_ties_to_the_earlier() {
        let row = QuestionRow::from(summary(Some([
            250_000_000_000_000_000,
            500_000_000_000_000_000,
            250_000_000_000_000_000,
        ])));
        assert_eq!((row.outcome, row.p_leading), (Some("NO"), Some(0.5)));
        let tie = QuestionRow::from(summary(Some([
            400_000_000_000_000_000,
            400_000_000_000_000_000,
            200_000_000_000_000_000,
        ])));
        assert_eq!(tie.outcome, Some("YES"));
        let none = QuestionRow::from(summary(None));
        assert_eq!((none.outcome, none.p_leading), (None, None));
    }
}
