//! `veritas stats [FILE|-]`: statistics of ballot sets, JSON lines in and out.
//!
//! Each input line is a JSON array of ballots
//! `{"iteration":1,"model":"m","archetype":"a","vote":"YES"|"NO"|"NULL"|null}` (null marks a
//! failed ballot; other fields are ignored). Each output line is the [`Summary`] of that set.
//!
//! ```sh
//! echo '[{"iteration":1,"model":"m","archetype":"a","vote":"YES"}]' | veritas stats
//! ```

use std::path::PathBuf;

use clap::Args;

use super::jsonl::{LineError, map_lines, parse_line, read_input};
use crate::stats::{BallotRecord, Summary, summarize};

/// Arguments of `veritas stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// JSON-lines file of ballot sets; `-` or nothing reads stdin.
    pub input: Option<PathBuf>,
}

/// Statistics of one input line, as one output line (without the newline).
///
/// # Errors
/// Broken JSON, or a ballot field of the wrong type (e.g. an unknown vote word), named.
pub fn stats_line(line: &str) -> Result<String, LineError> {
    let ballots: Vec<BallotRecord> = parse_line(line)?;
    let summary: Summary = summarize(&ballots);
    serde_json::to_string(&summary)
        .map_err(|e| LineError::new(format!("cannot encode the result: {e}")))
}

/// Run `veritas stats`.
///
/// # Errors
/// Unreadable input or any bad line (nothing is printed then).
pub fn run(args: StatsArgs) -> anyhow::Result<()> {
    let input = read_input(args.input.as_deref())?;
    let out = map_lines(&input, stats_line)?;
    print!("{out}");
    Ok(())
}

#[cfg(test)]
mod tests {
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
