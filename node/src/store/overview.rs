//! One summary row per question for the web view's list, and the live announcement of every
//! change: the store is where every stage change passes, so announcing here covers the
//! watcher, the pipeline and the poster alike, and no caller can forget it.

use std::sync::Arc;

use alloy::primitives::U256;
use serde::Serialize;

use super::{ChainStatus, Stage, Store, StoreError, jobs::decimal, sql::Dec};
use crate::{live::LiveEvents, stats::WAD};

/// Questions the list shows (the most recent first).
pub(super) const LIST_LIMIT: usize = 500;

/// A question as the list shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionRow {
    /// Question id.
    #[serde(serialize_with = "decimal")]
    pub id: U256,
    /// The question text.
    pub text: String,
    /// `queued`, `resolving`, `reported` (our report is on-chain), `finalised` (the pooled
    /// verdict is posted, its challenge window open), `escalated` (posted and flagged for the
    /// arbiter), `final`, `disputed`, `arbitrated`, `expired` or `failed`.
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

impl Store {
    /// Announce every later change of a question to `live` (once; later calls are ignored).
    pub fn attach_live(&self, live: Arc<LiveEvents>) {
        let _ = self.live.set(live);
    }

    /// Publish the question's row as a `question` event, if a listener is attached. A store
    /// error here only costs the live view an update (the page reloads on the next one).
    pub(super) fn announce(&self, question_id: U256) {
        let Some(live) = self.live.get() else {
            return;
        };
        match self.question_row(question_id) {
            Ok(Some(row)) => {
                live.publish("question", &row);
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(target: "veritas::live", question = %question_id, error = %e, "no live update");
            }
        }
    }

    /// The list row of one question.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn question_row(&self, question_id: U256) -> Result<Option<QuestionRow>, StoreError> {
        let Some(job) = self.job(question_id)? else {
            return Ok(None);
        };
        let intent = self.intent(question_id)?;
        let chain = self.lifecycle(question_id)?;
        let status = match (job.stage, chain.as_ref().map(|c| c.status)) {
            (Stage::Queued, _) => "queued",
            (Stage::Resolving | Stage::Posting, _) => "resolving",
            (Stage::Finalised, Some(ChainStatus::Escalated)) => "escalated",
            (stage, _) => stage.as_str(),
        };
        let posted = chain.as_ref().and_then(|c| c.p).or_else(|| {
            intent
                .as_ref()
                .filter(|_| job.stage.is_reported())
                .map(|i| [i.p_yes, i.p_no, i.p_null])
        });
        let (outcome, p_leading) = match posted {
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
        Ok(Some(QuestionRow {
            id: question_id,
            text: job.question.question,
            status,
            outcome,
            p_leading,
            asked_at_ms: job.seen_at,
            updated_ms: job.updated_at,
            has_report: intent.is_some(),
        }))
    }

    /// The list: the [`LIST_LIMIT`] most recently seen questions, newest first.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn question_rows(&self) -> Result<Vec<QuestionRow>, StoreError> {
        let ids: Vec<U256> = {
            let conn = self.conn();
            let mut stmt = conn.prepare_cached(
                "SELECT question_id FROM jobs ORDER BY seen_at DESC, question_id DESC LIMIT ?1",
            )?;
            let rows = stmt.query_map([LIST_LIMIT as i64], |row| row.get::<_, Dec<U256>>(0))?;
            rows.map(|r| r.map(|d| d.0)).collect::<Result<_, _>>()?
        };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            out.extend(self.question_row(id)?);
        }
        Ok(out)
    }
}

/// A posted 1e18 integer as a probability (for display only; the integer is the truth).
fn wad_to_f64(value: U256) -> f64 {
    let wad = U256::from(WAD);
    // Integer part and 18 decimals, each exact in f64's range for values ≤ 1e18.
    let whole = u64::try_from(value / wad).unwrap_or(u64::MAX) as f64;
    let frac = u64::try_from(value % wad).unwrap_or(0) as f64 / 1e18;
    whole + frac
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn wad_values_read_as_probabilities() {
        assert_eq!(wad_to_f64(U256::from(WAD)), 1.0);
        // Display only: within a unit in the last place of the true quotient.
        let two_thirds = wad_to_f64(U256::from(666_666_666_666_666_667u64));
        assert!((two_thirds - 2.0 / 3.0).abs() < 1e-15, "{two_thirds}");
        assert_eq!(wad_to_f64(U256::ZERO), 0.0);
    }
}
