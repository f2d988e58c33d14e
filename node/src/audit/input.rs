//! The report as the audit reads it: the node's own typed [`Report`], and its evidence items
//! as written.
//!
//! There is one report model: the pipeline writes a [`Report`], the API serves files checked
//! to read as one, and the audit reads the same type here. A report is hostile input, so it is
//! read strictly (every key the node writes, each of its type, an invented routing key
//! refused): a key that is missing or of another type is one finding naming its path
//! (`report.committee.M`, `report.ballots[1].iteration`), with the value as written, and the
//! values are then checked by recomputing them ([`super::recompute`]).
//!
//! The evidence items alone are also kept as written: the spec commits the canonical JSON
//! (JCS) of each item as it appears in the file, so the typed items, which drop unknown keys
//! and normalise values, would change the leaf hashes of a third-party or tampered file.

use std::ops::Deref;

use serde_json::Value;

use super::Mismatch;
use crate::report::Report;

/// A report as the audit reads it (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct AuditReport {
    /// The report, typed.
    report: Report,
    /// `evidence`, each item as written.
    written_evidence: Vec<Value>,
}

impl Deref for AuditReport {
    type Target = Report;

    fn deref(&self) -> &Report {
        &self.report
    }
}

impl AuditReport {
    /// Read a report's JSON as a [`Report`], keeping its evidence items as written.
    ///
    /// # Errors
    /// The first key that is missing or not of its type, as a finding naming its path.
    pub fn from_json(json: &Value) -> Result<Self, Box<Mismatch>> {
        let report: Report =
            serde_path_to_error::deserialize(json).map_err(|e| Box::new(malformed(json, &e)))?;
        let written_evidence = json
            .get("evidence")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        Ok(Self {
            report,
            written_evidence,
        })
    }

    /// A report the node holds, read as its file will read: written to JSON and read back,
    /// so what the daemon posts is what an auditor of that file recomputes.
    ///
    /// # Errors
    /// The finding when the JSON does not read back (a bug: the node wrote it).
    pub fn as_written(report: &Report) -> Result<Self, Box<Mismatch>> {
        let json = serde_json::to_value(report).map_err(|e| {
            Box::new(Mismatch::in_report(
                "(all)",
                "a report as JSON",
                e.to_string(),
            ))
        })?;
        Self::from_json(&json)
    }

    /// The evidence items as written (what the commitment covers).
    pub fn evidence_as_written(&self) -> &[Value] {
        &self.written_evidence
    }

    /// The typed report.
    pub fn report(&self) -> &Report {
        &self.report
    }
}

/// The finding for a report that does not read as a [`Report`]: the key's path (the missing
/// or unknown key's own, not its block's), what it should be, and what is written there.
fn malformed(json: &Value, e: &serde_path_to_error::Error<serde_json::Error>) -> Mismatch {
    use serde_path_to_error::Segment;
    let mut path = String::new();
    let mut at = Some(json);
    for segment in e.path().iter() {
        match segment {
            Segment::Seq { index } => {
                path.push_str(&format!("[{index}]"));
                at = at.and_then(|v| v.get(index));
            }
            Segment::Map { key } => {
                push_key(&mut path, key);
                at = at.and_then(|v| v.get(key));
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    let message = e.inner().to_string();
    let message = message.split(" at line ").next().unwrap_or(&message);
    let named = |prefix: &str| {
        message
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('`').next())
            .map(str::to_owned)
    };
    if let Some(key) = named("missing field `") {
        push_key(&mut path, &key);
        return Mismatch::in_report(&path, "a value", "(missing)");
    }
    if named("unknown field `").is_some() {
        // The path already ends with the unknown key.
        return Mismatch::in_report(&path, "no such key", at.map_or_else(String::new, shown));
    }
    let expected = message
        .rsplit_once(", expected ")
        .map_or(message, |(_, expected)| expected);
    Mismatch::in_report(&path, expected, at.map_or_else(String::new, shown))
}

fn push_key(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
}

/// A value as written, strings without their quotes.
fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    fn finding(edit: impl FnOnce(&mut Value)) -> Mismatch {
        let mut r = super::super::fixture::report();
        edit(&mut r);
        *AuditReport::from_json(&r).unwrap_err()
    }

    #[test]
    fn an_honest_report_reads_and_keeps_its_evidence_as_written() {
        let mut r = super::super::fixture::report();
        r["evidence"][0]["extra"] = json!("added");
        let read = AuditReport::from_json(&r).unwrap();
        assert_eq!(read.committee.ballots_per_iteration, 2);
        assert_eq!(read.evidence_as_written()[0]["extra"], "added");
    }

    #[test]
    fn a_key_missing_or_of_another_type_is_one_finding_naming_its_path() {
        let m = finding(|r| {
            r["committee"].as_object_mut().unwrap().remove("M");
        });
        assert_eq!(
            (m.field.as_str(), m.found.as_str()),
            ("report.committee.M", "(missing)")
        );
        let m = finding(|r| r["committee"]["T"] = json!("two"));
        assert_eq!(
            (m.field.as_str(), m.expected.as_str(), m.found.as_str()),
            ("report.committee.T", "u32", "two")
        );
        let m = finding(|r| r["ballots"][1]["iteration"] = json!("one"));
        assert_eq!(m.field, "report.ballots[1].iteration");
        let m = finding(|r| r["committee"]["juror_weights"][1]["weight"] = json!("1"));
        assert_eq!(m.field, "report.committee.juror_weights[1].weight");
        let m = finding(|r| r["routing"]["invented"] = json!(true));
        assert_eq!(
            (m.field.as_str(), m.found.as_str()),
            ("report.routing.invented", "true")
        );
    }

    #[test]
    fn big_integers_are_decimal_strings_and_counts_are_numbers() {
        // As the node writes them: a JSON number may already have lost digits of a 1e18
        // value, and a count written as text is not the count the spec gives.
        let m = finding(|r| r["stats"]["p_fixed"][1] = json!(2));
        assert!(m.field.starts_with("report.stats.p_fixed"), "{m}");
        let m = finding(|r| r["stats"]["valid"] = json!("4"));
        assert_eq!(
            (m.field.as_str(), m.found.as_str()),
            ("report.stats.valid", "4")
        );
        for bad in [json!(7), json!(7.0), json!("-7"), json!({}), json!(true)] {
            let m = finding(|r| r["question"]["id"] = bad.clone());
            assert_eq!(m.field, "report.question.id", "{bad}");
        }
    }
}
