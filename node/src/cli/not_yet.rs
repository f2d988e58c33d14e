//! `veritas not-yet`: the node's "not yet" rule on one question, offline — what an auditor runs
//! to recompute a report's `not_yet` block from its question, clarifications and `clock`
//! ([`crate::policy::not_yet`]), without a chain or a committee.

use chrono::DateTime;
use clap::Args;

use super::output::{Output, Usage};
use crate::policy::not_yet::{self, RoundClock};

/// Arguments of `veritas not-yet`.
#[derive(Debug, Args)]
pub struct NotYetArgs {
    /// The question text exactly as asked.
    pub question: String,
    /// An asker's clarification (repeat for several, in order).
    #[arg(long = "clarification")]
    pub clarifications: Vec<String>,
    /// The question's `askedAt` (RFC 3339 or unix seconds): anchors year-less dates and the
    /// horizon (`question.clock.asked_at`).
    #[arg(long)]
    pub asked_at: String,
    /// The chain's clock of the round (RFC 3339 or unix seconds; `question.clock.now`).
    #[arg(long)]
    pub now: String,
    /// The contract's `maxHorizon()` in seconds (`question.clock.horizon`).
    #[arg(long, default_value_t = 365 * 86_400)]
    pub horizon: u64,
    /// The committee's routing resolved YES (then nothing defers).
    #[arg(long)]
    pub resolved_yes: bool,
}

fn seconds(flag: &str, value: &str) -> Result<u64, Usage> {
    value
        .trim()
        .parse::<u64>()
        .ok()
        .or_else(|| {
            DateTime::parse_from_rfc3339(value.trim())
                .ok()
                .and_then(|t| u64::try_from(t.timestamp()).ok())
        })
        .ok_or_else(|| {
            Usage(format!(
                "{flag} {value}: not unix seconds or an RFC 3339 instant"
            ))
        })
}

/// Apply the rule and print its block (`deadline`, `defers`, `reason`).
///
/// # Errors
/// [`Usage`] for a time that does not parse.
pub fn run(args: NotYetArgs) -> anyhow::Result<Output> {
    let clock = RoundClock {
        asked_at: seconds("--asked-at", &args.asked_at)?,
        block: 0,
        now: seconds("--now", &args.now)?,
        horizon: args.horizon,
        round: 0,
    };
    let n = not_yet::check_resolved(
        &args.question,
        &args.clarifications,
        clock,
        args.resolved_yes,
    );
    let json = serde_json::to_value(&n)?;
    let line = if n.defers {
        n.reason.clone()
    } else {
        format!("may settle: {}", n.reason)
    };
    Ok(Output::lines(json, &[line]))
}
