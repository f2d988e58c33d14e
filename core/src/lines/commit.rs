//! Merkle roots of bundles (`veritas commit`): each input line is
//! `{"question":"…","evidence":[{…},…]}`; each output line is
//! `{"root":"0x…","leaves":["0x…",…]}` (leaf 0 is the question). See the book's auditor
//! specification, "Evidence commitment".

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{LineError, parse_line};
use crate::commitment::{Commitment, StrictValue, commit, root::Root};

/// The question of a bundle: the text itself, or a report's `{"text": …}` object.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum QuestionField {
    /// `"question": "text"`.
    Text(String),
    /// `"question": {"text": "…", "clarifications": […], …}` as in report files.
    Report {
        /// The question text exactly as asked.
        text: String,
        /// The asker's clarifications, in order (leaves 1..=c).
        #[serde(default)]
        clarifications: Vec<String>,
    },
}

/// One bundle as read by `commit` and `prove`. Other fields are ignored, so a report file
/// works as input too.
#[derive(Debug, Deserialize)]
pub struct BundleInput {
    /// The question.
    pub question: QuestionField,
    /// The evidence items in bundle order (duplicate member names rejected).
    #[serde(deserialize_with = "strict_values")]
    pub evidence: Vec<Value>,
}

impl BundleInput {
    /// The question text.
    pub fn question_text(&self) -> &str {
        match &self.question {
            QuestionField::Text(t) | QuestionField::Report { text: t, .. } => t,
        }
    }

    /// The asker's clarifications (none for a bare question text).
    pub fn clarifications(&self) -> &[String] {
        match &self.question {
            QuestionField::Text(_) => &[],
            QuestionField::Report { clarifications, .. } => clarifications,
        }
    }

    /// Its commitment.
    ///
    /// # Errors
    /// An evidence item that is not an object or holds a float / unsafe integer, named.
    pub fn commit(&self) -> Result<Commitment, LineError> {
        commit(self.question_text(), self.clarifications(), &self.evidence)
            .map_err(|e| LineError::new(e.to_string()))
    }
}

/// Read an array of JSON values, refusing duplicate member names anywhere inside.
fn strict_values<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
    Ok(Vec::<StrictValue>::deserialize(d)?
        .into_iter()
        .map(|v| v.0)
        .collect())
}

/// One output line of `veritas commit`.
#[derive(Debug, Serialize)]
struct CommitOutput {
    root: Root,
    leaves: Vec<String>,
}

/// The commitment of one input line, as one output line (without the newline).
///
/// # Errors
/// Broken JSON, a missing field, or evidence that cannot be committed, named.
pub fn commit_line(line: &str) -> Result<String, LineError> {
    let bundle: BundleInput = parse_line(line)?;
    let c = bundle.commit()?;
    let out = CommitOutput {
        root: c.root,
        leaves: c.leaves_hex(),
    };
    serde_json::to_string(&out)
        .map_err(|e| LineError::new(format!("cannot encode the result: {e}")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn report_question_object_is_accepted() {
        let a = commit_line(r#"{"question":"Q?","evidence":[{"id":1}]}"#).unwrap();
        let b =
            commit_line(r#"{"question":{"text":"Q?","id":7},"evidence":[{"id":1}],"ballots":[]}"#)
                .unwrap();
        assert_eq!(a, b);
        assert!(a.starts_with(r#"{"root":"0x"#));
    }

    #[test]
    fn errors_name_the_field() {
        let err =
            commit_line(r#"{"question":"Q?","evidence":[{"id":1},{"score":1.5}]}"#).unwrap_err();
        assert!(
            err.message
                .starts_with("evidence[1].score: 1.5 is not an integer"),
            "{}",
            err.message
        );
        let err = commit_line(r#"{"question":"Q?","evidence":["text"]}"#).unwrap_err();
        assert!(
            err.message
                .starts_with("evidence[0]: an evidence item must be a JSON object"),
            "{}",
            err.message
        );
        let err =
            commit_line(r#"{"question":"Q?","evidence":[{"id":1},{"id":2,"meta":{"k":1,"k":2}}]}"#)
                .unwrap_err();
        assert!(
            err.message
                .starts_with(r#"field evidence[1].meta: duplicate member name "k""#),
            "{}",
            err.message
        );
        let err = commit_line(r#"{"question":"Q?"}"#).unwrap_err();
        assert!(
            err.message.contains("missing field `evidence`"),
            "{}",
            err.message
        );
    }
}
