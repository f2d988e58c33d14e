//! Statistics of ballot sets (`veritas stats`): each input line is a JSON array of ballots
//! `{"iteration":1,"model":"m","archetype":"a","vote":"YES"|"NO"|"NULL"|null}` (null marks a
//! failed ballot; other fields are ignored); each output line is the [`Summary`] of that set.

use super::{LineError, parse_line};
use crate::stats::{BallotRef, Summary, summarize};

/// Statistics of one input line, as one output line (without the newline).
///
/// # Errors
/// Broken JSON, or a ballot field of the wrong type (e.g. an unknown vote word), named.
pub fn stats_line(line: &str) -> Result<String, LineError> {
    let ballots: Vec<BallotRef<'_>> = parse_line(line)?;
    let summary: Summary = summarize(&ballots);
    serde_json::to_string(&summary)
        .map_err(|e| LineError::new(format!("cannot encode the result: {e}")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn one_line() {
        let out = stats_line(
            r#"[{"iteration":1,"model":"m","archetype":"a","vote":"NO","confidence":0.5}]"#,
        )
        .unwrap();
        assert!(out.starts_with(r#"{"ballots":1,"valid":1,"failed":0,"counts":{"YES":0,"NO":1,"NULL":0},"posterior":[0.25,0.5,0.25],"p_fixed":["250000000000000000","500000000000000000","250000000000000000"],"kappa":null,"kappa_fixed":"0","#), "{out}");
    }

    #[test]
    fn borrowed_and_owned_ballots_agree() {
        use crate::stats::BallotRecord;
        let line = r#"[{"iteration":1,"model":"a\"b","archetype":"x","vote":"YES"},{"iteration":1,"model":"a\"b","archetype":"y","vote":"NO"},{"iteration":2,"model":"c","archetype":"\u00e9","vote":null},{"iteration":2,"model":"d","archetype":"z","vote":"YES"},{"iteration":2,"model":"a\"b","archetype":"z","vote":"YES"}]"#;
        let owned: Vec<BallotRecord> = serde_json::from_str(line).unwrap();
        let borrowed: Vec<BallotRef<'_>> = serde_json::from_str(line).unwrap();
        assert_eq!(borrowed[0].model, "a\"b");
        assert_eq!(summarize(&owned), summarize(&borrowed));
        assert_eq!(
            stats_line(line).unwrap(),
            serde_json::to_string(&summarize(&owned)).unwrap()
        );
    }

    #[test]
    fn bad_vote_names_the_field() {
        let err = stats_line(r#"[{"iteration":1,"model":"m","archetype":"a","vote":"YES"},{"iteration":1,"model":"m","archetype":"a","vote":"MAYBE"}]"#).unwrap_err();
        assert!(
            err.message
                .starts_with("field [1].vote: unknown variant `MAYBE`"),
            "{}",
            err.message
        );
        let err = stats_line(r#"[{"iteration":-1,"model":"m","archetype":"a","vote":"YES"}]"#)
            .unwrap_err();
        assert!(
            err.message.starts_with("field [0].iteration: "),
            "{}",
            err.message
        );
        let err = stats_line(r#"[{"iteration":1,"model":"m","archetype":"a"}]"#).unwrap_err();
        assert!(
            err.message.contains("missing field `vote`"),
            "{}",
            err.message
        );
        let err = stats_line(r#"{"iteration":1}"#).unwrap_err();
        assert!(
            err.message.contains("expected a sequence"),
            "{}",
            err.message
        );
    }
}
