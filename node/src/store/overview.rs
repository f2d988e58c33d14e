//! One summary per question for the web view's list, and the hook every change of a question
//! is reported to: the store is where every stage change passes, so reporting here covers the
//! watcher, the pipeline and the poster alike, and no caller can forget it. What a change
//! becomes (a live event, a row with a probability) is the hook's business: the store neither
//! publishes events nor formats numbers.

use std::sync::OnceLock;

use alloy::primitives::U256;

use super::{ChainStatus, Stage, Store, StoreError, sql::Dec};

/// Questions the list shows (the most recent first).
pub(super) const LIST_LIMIT: usize = 500;

/// Called with the store and a question's id after every change of that question.
pub type ChangeHook = Box<dyn Fn(&Store, U256) + Send + Sync>;

/// The hook, set once (a `Box<dyn Fn>` has no `Debug` of its own).
#[derive(Default)]
pub(super) struct OnChange(OnceLock<ChangeHook>);

impl std::fmt::Debug for OnChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "OnChange(set)"
        } else {
            "OnChange(unset)"
        })
    }
}

/// A question as the store knows it, for the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionSummary {
    /// Question id.
    pub id: U256,
    /// The question text.
    pub text: String,
    /// `queued`, `resolving`, `reported` (our report is on-chain), `finalised` (the pooled
    /// verdict is posted, its challenge window open), `escalated` (posted and flagged for the
    /// arbiter), `final`, `disputed`, `arbitrated`, `expired` or `failed`.
    pub status: &'static str,
    /// The 1e18 triple (YES, NO, NULL) of the verdict on-chain.
    pub posted: Option<[U256; 3]>,
    /// Our report's valid ballot counts (YES, NO, NULL), before the pooled verdict is posted
    /// (the display computes their triple as the contract does).
    pub reported_counts: Option<[u64; 3]>,
    /// Unix ms when this node first saw the question.
    pub asked_at_ms: i64,
    /// Unix ms of the last change.
    pub updated_ms: i64,
    /// Whether a report file exists (the question page can show it).
    pub has_report: bool,
}

impl Store {
    /// Call `hook` after every later change of a question (once; later calls are ignored).
    pub fn on_change(&self, hook: ChangeHook) {
        let _ = self.on_change.0.set(hook);
    }

    /// Report a change of the question to the hook, if one is set.
    pub(super) fn announce(&self, question_id: U256) {
        if let Some(hook) = self.on_change.0.get() {
            hook(self, question_id);
        }
    }

    /// The list summary of one question.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn question_summary(
        &self,
        question_id: U256,
    ) -> Result<Option<QuestionSummary>, StoreError> {
        let Some(job) = self.job(question_id)? else {
            return Ok(None);
        };
        let intent = self.intent(question_id)?;
        let chain = self.lifecycle(question_id)?;
        let status = match (job.stage, chain.as_ref().map(|c| c.status)) {
            (Stage::Queued, Some(ChainStatus::Deferred)) => "deferred",
            (Stage::Queued, _) => "queued",
            (Stage::Resolving | Stage::Posting, _) => "resolving",
            (Stage::Finalised, Some(ChainStatus::Escalated)) => "escalated",
            (stage, _) => stage.as_str(),
        };
        let posted = chain.as_ref().and_then(|c| c.p);
        let reported_counts = intent
            .as_ref()
            .filter(|_| posted.is_none() && job.stage.is_reported())
            .and_then(|i| i.counts);
        Ok(Some(QuestionSummary {
            id: question_id,
            text: job.question.question,
            status,
            posted,
            reported_counts,
            asked_at_ms: job.seen_at,
            updated_ms: job.updated_at,
            has_report: intent.is_some(),
        }))
    }

    /// The list: the [`LIST_LIMIT`] most recently seen questions, newest first.
    ///
    /// # Errors
    /// [`StoreError`].
    pub fn question_summaries(&self) -> Result<Vec<QuestionSummary>, StoreError> {
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
            out.extend(self.question_summary(id)?);
        }
        Ok(out)
    }
}
