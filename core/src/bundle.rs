//! The evidence bundle: the question and its evidence items, in the order they are committed.
//!
//! `evidence` builds bundles, `commitment` hashes them and `jury` shows them to jurors; this
//! module holds the shared shape so that none of those needs another. Items hold strings,
//! integers and nulls only (no floats), so their RFC 8785 canonical form is unambiguous.

use serde::{Deserialize, Serialize};

/// Where an evidence item came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A web search hit.
    Web,
    /// A document of the local corpus.
    Local,
    /// Submitted by a participant.
    Submitted,
}

/// One committed evidence item (a Merkle leaf after RFC 8785 canonicalisation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceItem {
    /// 1-based position in the bundle; ballots cite items by this id.
    pub id: u32,
    /// Where the text was found (normalised).
    pub url: String,
    /// Title of the document.
    pub title: String,
    /// The excerpt the jurors read (at most 200 words).
    pub snippet: String,
    /// Publication time, RFC 3339, when known.
    pub published_at: Option<String>,
    /// Which collector produced it.
    pub source: Source,
    /// The submitter's address for submitted evidence.
    pub submitter: Option<String>,
}

/// A question, the asker's clarifications and the evidence committed with them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    /// The question text exactly as asked (leaf 0).
    pub question: String,
    /// The asker's clarifications (`QuestionClarified`), in order: leaves 1..=c, right after the
    /// question, so auditors see exactly what the jurors saw. Empty for most questions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clarifications: Vec<String>,
    /// The evidence items, ids 1..=n in order (leaves c+1..=c+n).
    pub evidence: Vec<EvidenceItem>,
}

/// One criterion of the evaluation rubric the planner writes and the jurors score (0–1 each).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Criterion {
    /// Short stable key, e.g. `source_quality`; ballots' `rubric_scores` are keyed by it.
    pub id: String,
    /// What the juror should judge.
    pub description: String,
}

/// The rubric of one question: what the evidence must show for each outcome.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Rubric {
    /// The criteria, in the order jurors see them.
    pub criteria: Vec<Criterion>,
}
