//! "Not yet": a question asked before its own deadline is deferred, not settled.
//!
//! "Will the ferry resume service before 1 February?" resolved on 20 January with no news of a
//! resumption cannot be NO yet: the ferry may still sail on 31 January. Before the question's
//! deadline only the outcome that can already be known may settle — YES, once the event
//! happened. So a report whose routing does not resolve YES, on a question whose deadline is
//! still ahead of the chain's clock, says "not yet"; a majority of such reports defers the
//! question on-chain (`QuestionDeferred`) and the node resolves it again when reports reopen.
//!
//! The rule is pure: the deadline comes from the question text and its clarifications alone
//! ([`read_deadline`]: the latest cued explicit date of any of them; a clarification can move
//! the deadline later, never earlier), the clock from one block the report names, so an
//! auditor recomputes the decision offline from the report and checks the block on the chain.
//!
//! Two limits keep it from deferring what no wait can settle:
//! - a deadline beyond the ask plus the contract's `maxHorizon` is not waited for (the contract
//!   never opens a round that late; "sea level rise of 2 m by 2100" is routed on its evidence
//!   now, as before deferrals existed);
//! - a resolved YES is never held back: the event already happened.
//!
//! The contract bounds the loop: after `MAX_DEFERRALS` deferrals (or at the horizon) a "not yet"
//! majority escalates to the arbiter instead.

use serde::{Deserialize, Serialize};

use crate::question::{Deadline, read_deadline};
use crate::stats::Outcome;

use super::{Decision, Routing};

/// The chain's clock when a report round was resolved: what the rule reads besides the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundClock {
    /// The question's `askedAt` (unix seconds): anchors year-less dates and the horizon.
    pub asked_at: u64,
    /// The block whose timestamp is `now` (an auditor reads its timestamp back).
    pub block: u64,
    /// That block's timestamp (unix seconds): the rule's "now".
    pub now: u64,
    /// The contract's `maxHorizon()` at that block (seconds after the ask).
    pub horizon: u64,
    /// Deferrals of the question before this round (0 for its first round).
    pub round: u32,
}

/// The report's `not_yet` block: the deadline read and the decision (the clock it read is the
/// question block's `clock`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotYet {
    /// The question's deadline (question text and clarifications), when one was read.
    pub deadline: Option<Deadline>,
    /// Whether the report says "not yet".
    pub defers: bool,
    /// Why (one sentence, for the report and the logs).
    pub reason: String,
}

/// The deadline of a question and its clarifications: the latest one any of them names.
pub fn deadline_of(question: &str, clarifications: &[String], asked_at: u64) -> Option<Deadline> {
    let anchor = i64::try_from(asked_at).unwrap_or(i64::MAX);
    std::iter::once(question)
        .chain(clarifications.iter().map(String::as_str))
        .filter_map(|text| read_deadline(text, anchor))
        .reduce(|best, d| if d.at > best.at { d } else { best })
}

/// Apply the rule (module docs) to a question, its clarifications, the clock and the routing
/// its committee reached.
pub fn check(
    question: &str,
    clarifications: &[String],
    clock: RoundClock,
    routing: &Routing,
) -> NotYet {
    let resolved_yes =
        routing.decision == Decision::Resolve && routing.outcome == Some(Outcome::Yes);
    check_resolved(question, clarifications, clock, resolved_yes)
}

/// [`check`] for a caller that has no committee, only the one fact the rule reads from the
/// routing: whether it resolved YES (`veritas not-yet`, the measurement's worst case).
pub fn check_resolved(
    question: &str,
    clarifications: &[String],
    clock: RoundClock,
    resolved_yes: bool,
) -> NotYet {
    let deadline = deadline_of(question, clarifications, clock.asked_at);
    let (defers, reason) = decide(deadline.as_ref(), clock, resolved_yes);
    NotYet {
        deadline,
        defers,
        reason,
    }
}

fn decide(deadline: Option<&Deadline>, clock: RoundClock, resolved_yes: bool) -> (bool, String) {
    let Some(d) = deadline else {
        return (false, "no deadline in the question".to_owned());
    };
    let now = i64::try_from(clock.now).unwrap_or(i64::MAX);
    let latest = i64::try_from(clock.asked_at.saturating_add(clock.horizon)).unwrap_or(i64::MAX);
    if d.at <= now {
        return (
            false,
            format!("the deadline {} (\"{}\") has passed", stamp(d.at), d.phrase),
        );
    }
    if d.at > latest {
        return (
            false,
            format!(
                "the deadline {} (\"{}\") is beyond the ask plus the horizon ({}): no round opens that late",
                stamp(d.at),
                d.phrase,
                stamp(latest)
            ),
        );
    }
    if resolved_yes {
        return (
            false,
            format!(
                "YES resolved before the deadline {} (\"{}\"): it already happened",
                stamp(d.at),
                d.phrase
            ),
        );
    }
    (
        true,
        format!(
            "not yet: the deadline {} (\"{}\") is {} s after block {}; only YES may settle before it",
            stamp(d.at),
            d.phrase,
            d.at - now,
            clock.block
        ),
    )
}

/// A routing with this decision and leading outcome, for tests (the rule reads only whether it
/// is a resolved YES).
#[cfg(test)]
pub(crate) fn test_routing(decision: Decision, outcome: Option<Outcome>) -> Routing {
    Routing {
        decision,
        outcome,
        status: None,
        reasons: Vec::new(),
        policy: super::RoutingPolicy::default(),
        effective: None,
        question: None,
        planner_kind: None,
        relevance: None,
    }
}

fn stamp(at: i64) -> String {
    chrono::DateTime::from_timestamp(at, 0)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| at.to_string())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const FERRY: &str = "Will the Calderwick ferry resume service before 1 February 2026?";
    /// 2026-01-20T00:00:00Z.
    const JAN_20: u64 = 1_768_867_200;
    const DAY: u64 = 86_400;

    use super::test_routing as routing;

    fn clock(now: u64) -> RoundClock {
        RoundClock {
            asked_at: JAN_20,
            block: 7,
            now,
            horizon: 365 * DAY,
            round: 0,
        }
    }

    #[test]
    fn before_the_deadline_only_a_resolved_yes_settles() {
        let no = routing(Decision::Resolve, Some(Outcome::No));
        let escalated = routing(Decision::Escalate, Some(Outcome::Null));
        let yes = routing(Decision::Resolve, Some(Outcome::Yes));
        let weak_yes = routing(Decision::Escalate, Some(Outcome::Yes));
        let c = clock(JAN_20 + 60);
        for r in [&no, &escalated, &weak_yes] {
            let n = check(FERRY, &[], c, r);
            assert!(n.defers, "{}", n.reason);
        }
        let n = check(FERRY, &[], c, &yes);
        assert!(
            !n.defers && n.reason.contains("YES resolved"),
            "{}",
            n.reason
        );
        // "before 1 February" closes at the start of that day Anywhere on Earth: 12:00 UTC.
        assert_eq!(n.deadline.map(|d| d.at), Some(1_769_947_200));
    }

    #[test]
    fn after_the_deadline_beyond_the_horizon_or_without_one_nothing_defers() {
        let no = routing(Decision::Resolve, Some(Outcome::No));
        let after = check(FERRY, &[], clock(JAN_20 + 30 * DAY), &no);
        assert!(!after.defers && after.reason.contains("has passed"));
        let short = RoundClock {
            horizon: 5 * DAY,
            ..clock(JAN_20)
        };
        let far = check(FERRY, &[], short, &no);
        assert!(
            !far.defers && far.reason.contains("horizon"),
            "{}",
            far.reason
        );
        let none = check(
            "Did the council approve the bike lane?",
            &[],
            clock(JAN_20),
            &no,
        );
        assert!(!none.defers && none.deadline.is_none());
    }

    #[test]
    fn a_clarification_can_move_the_deadline_later_never_earlier() {
        let no = routing(Decision::Resolve, Some(Outcome::No));
        let later =
            ["The deadline is extended: service must resume by 15 February 2026.".to_owned()];
        let earlier = ["Only sailings before 25 January 2026 count.".to_owned()];
        let c = clock(JAN_20 + 15 * DAY); // 4 February: past the question's own deadline
        assert!(!check(FERRY, &[], c, &no).defers);
        assert!(check(FERRY, &later, c, &no).defers);
        assert!(!check(FERRY, &earlier, c, &no).defers);
        let d = deadline_of(FERRY, &earlier, JAN_20).unwrap();
        assert!(d.phrase.contains("February"), "{d:?}");
    }

    proptest! {
        /// Moving the clock later can only end a deferral, never start one; and a resolved
        /// YES never defers.
        #[test]
        fn time_only_ends_deferrals(a in 0u64..400 * DAY, b in 0u64..400 * DAY, resolve_no in any::<bool>()) {
            let r = if resolve_no {
                routing(Decision::Resolve, Some(Outcome::No))
            } else {
                routing(Decision::Escalate, None)
            };
            let (early, late) = (a.min(b), a.max(b));
            let e = check(FERRY, &[], clock(JAN_20 + early), &r);
            let l = check(FERRY, &[], clock(JAN_20 + late), &r);
            prop_assert!(e.defers || !l.defers);
            let yes = routing(Decision::Resolve, Some(Outcome::Yes));
            prop_assert!(!check(FERRY, &[], clock(JAN_20 + a), &yes).defers);
        }
    }
}
