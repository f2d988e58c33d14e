//! `veritas deadlines FILE [--asked-at T] [--horizon-days N] [--reports DIR] [--examples N]`:
//! how the deadline reader ([`crate::question::deadline`]) and the node's "not yet" rule
//! ([`crate::policy::not_yet`]) do on a set of real questions no one here wrote.
//!
//! Reads JSON lines with a `question` (or a `claim`, as in CLIMATE-FEVER) and, when present,
//! `asked_at`, `proposal_tx_time`, `market_end_date` (RFC 3339), `outcomes`, `final_outcome`
//! (the Polymarket set: `"p1"`, whose meaning `outcomes` gives per line, "Where p1 corresponds
//! to No, p2 to Yes, …"; in team markets p1 is a team) and `bot_recommendation` (the truth
//! bot's answer at proposal time, `"p4"` = too early). Lines without `asked_at` are read as if
//! asked at `--asked-at` (default: now), which anchors year-less dates and the horizon.
//!
//! Reports how many texts get a deadline and, where the market's own end date is known, how
//! far the deadline D lies from it (D earlier than the end date is the dangerous side: a NO
//! could settle while the market is still open); for the questions first answered before their
//! end date, how many D would have held back; and how many questions that finally resolved No
//! were proposed before D.
//!
//! Then the rule itself, [`not_yet::check`], at each line's first answer: `now` is the
//! proposal time (the asking time when there is none, as for CLIMATE-FEVER), the horizon
//! `--horizon-days` (the contract's default `maxHorizon`, 365 days), and the routing the worst
//! case for deferral, anything but a resolved YES. It counts the deferrals, why the rest were
//! not deferred, how they compare with the truth bot's "too early", and lists every question
//! that finally resolved No, was proposed before its end date and is not deferred: the NOs the
//! rule would let settle early. It is the rule alone at the proposal's clock, not the committee
//! replayed through a chain: a committee that resolves YES is never deferred (counted too, 0
//! by construction), so the real deferrals are at most these. With `--reports DIR` (one
//! `veritas resolve` report per line, `DIR/<line>.json`, e.g. resolved offline with
//! `--resolve-after` set to the proposal time) the rule runs again with each report's real
//! routing, and the report says where that differs from the worst case.
//!
//! ```sh
//! veritas deadlines ../shared/data/polymarket-dev.jsonl --asked-at 2026-11-29T00:00:00Z
//! veritas deadlines data/climate-fever-dev.jsonl --asked-at 2026-11-29T00:00:00Z --json
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context as _;
use chrono::{DateTime, SecondsFormat, Utc};
use clap::Args;
use serde::{Deserialize, Serialize};

use super::output::Output;
use crate::policy::not_yet::{self, RoundClock};
use crate::policy::{Decision, Routing};
use crate::question::deadline::{Deadline, read_deadline};
use crate::stats::Outcome;

/// Arguments of `veritas deadlines`.
#[derive(Debug, Args)]
pub struct DeadlinesArgs {
    /// JSON lines with a `question` or a `claim` (and optional `asked_at`, `proposal_tx_time`,
    /// `market_end_date`, `outcomes`, `final_outcome`).
    pub input: PathBuf,
    /// The asking time (RFC 3339) of lines without `asked_at`; it anchors year-less dates.
    /// Default: now.
    #[arg(long)]
    pub asked_at: Option<String>,
    /// How many example lines to list under each finding.
    #[arg(long, default_value_t = 5)]
    pub examples: usize,
    /// The horizon the "not yet" rule reads (the contract's `maxHorizon`), in days: a deadline
    /// later than the ask plus this is not waited for.
    #[arg(long, default_value_t = 365)]
    pub horizon_days: u64,
    /// A folder of `veritas resolve` reports named by line (`12.json` for line 12): the rule
    /// is applied again with each report's real routing instead of the worst case.
    #[arg(long)]
    pub reports: Option<PathBuf>,
}

/// One input line (other fields are ignored).
#[derive(Debug, Default, Deserialize)]
struct Row {
    question: Option<String>,
    claim: Option<String>,
    asked_at: Option<String>,
    proposal_tx_time: Option<String>,
    market_end_date: Option<String>,
    outcomes: Option<String>,
    final_outcome: Option<String>,
    bot_recommendation: Option<String>,
}

/// A line shown as an example.
#[derive(Debug, Clone, Serialize)]
pub struct Example {
    /// 1-based line number in the input.
    pub line: usize,
    /// The question's title (or the start of its text).
    pub title: String,
    /// The phrase the deadline was read from.
    pub phrase: Option<String>,
    /// The deadline D.
    pub deadline: Option<String>,
    /// The market's end date.
    pub end_date: Option<String>,
    /// When the first answer was proposed.
    pub proposed: Option<String>,
}

/// D against the market's own end date.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AgainstEndDate {
    /// Lines with an end date.
    pub lines: u64,
    /// Of those, lines with a deadline.
    pub with_deadline: u64,
    /// Median of |D − end date|, hours (nearest rank).
    pub median_abs_hours: Option<f64>,
    /// 90th percentile of |D − end date|, hours (nearest rank).
    pub p90_abs_hours: Option<f64>,
    /// |D − end date| ≤ 24 h.
    pub within_24h: u64,
    /// D falls on the end date's calendar day somewhere on Earth (end − 14 h ≤ D ≤ end + 36 h):
    /// the end date is a day (`T00:00:00Z`), and a market that ends "May 31, 11:59 PM ET"
    /// closes 29 h after `2025-05-31T00:00:00Z`.
    pub on_end_day: u64,
    /// D is later than the end date by more than 24 h (held longer than the market ran).
    pub later_by_over_24h: u64,
    /// D is earlier than the end date by more than 24 h: the dangerous side.
    pub earlier_by_over_24h: u64,
    /// Some of the dangerous lines.
    pub earlier_examples: Vec<Example>,
    /// Some of the lines held more than 24 h past their end date.
    pub later_examples: Vec<Example>,
}

/// The lines first answered before their market's end date.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AnsweredEarly {
    /// proposal_tx_time < market_end_date.
    pub lines: u64,
    /// Of those, lines with a deadline.
    pub with_deadline: u64,
    /// D > proposal time: a NO could not have settled then.
    pub held_back: u64,
    /// Of those, D lies after the market's end date (by more than 36 h, past its end day).
    pub held_past_end_day: u64,
    /// Of the held-back lines, how many finally resolved Yes / No / something else (a team,
    /// Up/Down, 50-50, too early).
    pub held_back_final_yes: u64,
    /// See `held_back_final_yes`.
    pub held_back_final_no: u64,
    /// See `held_back_final_yes`.
    pub held_back_final_other: u64,
    /// Some held-back lines.
    pub examples: Vec<Example>,
}

/// The lines whose final outcome means No.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FinalNo {
    /// Lines that finally resolved No.
    pub lines: u64,
    /// Of those, lines with a deadline.
    pub with_deadline: u64,
    /// Proposed before D: the rule would have held the NO until D.
    pub proposed_before_deadline: u64,
    /// Of those, held at most 6 h (the margin of reading ET as UTC−5 and dates without a
    /// zone as Anywhere on Earth).
    pub held_up_to_6h: u64,
    /// Of those, held more than 24 h.
    pub held_over_24h: u64,
    /// Median hold D − proposal of those, hours (nearest rank).
    pub median_hold_hours: Option<f64>,
    /// Some of them.
    pub examples: Vec<Example>,
}

/// Why the rule did not defer a line (the first condition of [`not_yet::check`] that fails).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Why {
    /// No cued date in the text.
    NoDeadline,
    /// The deadline D had passed at the rule's clock (D ≤ now).
    Passed,
    /// D lies beyond the ask plus the horizon: no round opens that late.
    BeyondHorizon,
    /// The routing resolved YES (never the case with the worst-case routing).
    ResolvedYes,
}

/// A line the rule did not defer, and why.
#[derive(Debug, Clone, Serialize)]
pub struct NotDeferred {
    /// The line.
    #[serde(flatten)]
    pub example: Example,
    /// Which condition let it through.
    pub why: Why,
    /// D earlier than the market's end date (by any amount).
    pub deadline_before_end: bool,
    /// The rule's own sentence.
    pub reason: String,
}

/// The node's "not yet" rule ([`not_yet::check`]) applied to every line at the time the line
/// was first answered: `now` = `proposal_tx_time` when the line has one, else its asking time
/// (CLIMATE-FEVER has neither: `--asked-at` is both). The routing is the worst case, anything
/// but a resolved YES (an escalation, a NO, a NULL), so every line that could defer does: an
/// upper bound on deferrals and a lower bound on what a deferral protects. This is the rule
/// alone at the proposal's clock, not a committee replayed through a chain.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RuleReplay {
    /// The horizon read, days after the ask.
    pub horizon_days: u64,
    /// Lines the rule was applied to (every line with text and a representable clock).
    pub lines: u64,
    /// Of those, lines whose clock is their proposal time.
    pub at_proposal: u64,
    /// Deferred with the worst-case routing.
    pub defers: u64,
    /// Median hold D − now of the deferred lines, hours (nearest rank).
    pub median_hold_hours: Option<f64>,
    /// 90th percentile of that hold, hours (nearest rank).
    pub p90_hold_hours: Option<f64>,
    /// Deferred lines held more than 24 h.
    pub held_over_24h: u64,
    /// The lines not deferred, by why.
    pub not_deferred: WhyCounts,
    /// Deferred with routing = resolved YES (0 by the rule's construction; computed, not
    /// assumed).
    pub defers_if_resolved_yes: u64,
    /// Lines with a truth-bot answer at proposal time (`bot_recommendation`).
    pub bot_answered: u64,
    /// Of those, the bot answered p4 ("too early").
    pub bot_too_early: u64,
    /// Both the bot said "too early" and the rule defers.
    pub bot_too_early_and_defers: u64,
    /// The bot said "too early" and the rule did not defer, by why.
    pub bot_too_early_not_deferred: WhyCounts,
    /// The rule defers where the bot gave an answer other than "too early".
    pub defers_bot_answered_otherwise: u64,
    /// The lines first answered before their end date.
    pub before_end: BeforeEndReplay,
    /// Some deferred lines.
    pub deferred_examples: Vec<Example>,
}

/// Lines the rule did not defer, by the condition that let them through.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WhyCounts {
    /// No deadline in the text.
    pub no_deadline: u64,
    /// The deadline had passed.
    pub passed: u64,
    /// The deadline lies beyond the ask plus the horizon.
    pub beyond_horizon: u64,
}

impl WhyCounts {
    fn add(&mut self, why: Why) {
        match why {
            Why::NoDeadline => self.no_deadline += 1,
            Why::Passed => self.passed += 1,
            Why::BeyondHorizon => self.beyond_horizon += 1,
            Why::ResolvedYes => {}
        }
    }

    fn human(&self) -> String {
        format!(
            "{} / {} / {}",
            self.no_deadline, self.passed, self.beyond_horizon
        )
    }
}

/// The rule on the lines first answered before their market's end date.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BeforeEndReplay {
    /// proposal_tx_time < market_end_date.
    pub lines: u64,
    /// Deferred with the worst-case routing.
    pub defers: u64,
    /// Of those lines, the bot said "too early".
    pub bot_too_early: u64,
    /// Both the bot said "too early" and the rule defers.
    pub bot_too_early_and_defers: u64,
    /// Lines whose final outcome is Yes (by the line's own mapping).
    pub final_yes: u64,
    /// Of those, deferred (a resolved YES would not be: the worst case counts them).
    pub final_yes_deferred: u64,
    /// Lines whose final outcome is neither Yes nor No (a team, Up/Down, 50-50, too early):
    /// not yes/no questions, which the node escalates, so the worst case is theirs.
    pub final_other: u64,
    /// Of those, deferred.
    pub final_other_deferred: u64,
    /// Lines whose final outcome is No: a NO proposed before the market ended.
    pub final_no: u64,
    /// Of those, deferred: the NO could not settle at proposal time.
    pub final_no_deferred: u64,
    /// Of the deferred, D is not earlier than the end date: held at least until it.
    pub final_no_deferred_through_end: u64,
    /// Every final-No line the rule did not defer, with why (all of them, not `--examples`).
    pub final_no_not_deferred: Vec<NotDeferred>,
}

/// The rule with the routing a committee really reached (`--reports`), on the lines that have
/// a report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CommitteeReplay {
    /// Lines with a report.
    pub lines: u64,
    /// Reports that resolved YES / resolved NO or NULL / escalated.
    pub resolved_yes: u64,
    /// See `resolved_yes`.
    pub resolved_other: u64,
    /// See `resolved_yes`.
    pub escalated: u64,
    /// Deferred with the report's routing.
    pub defers: u64,
    /// Lines where that differs from the worst case (a resolved YES before D).
    pub differs_from_worst_case: u64,
    /// Of the lines with a report, those first answered before their end date…
    pub before_end: u64,
    /// …deferred.
    pub before_end_defers: u64,
    /// …whose final outcome is No.
    pub final_no: u64,
    /// …and of those, deferred.
    pub final_no_deferred: u64,
}

/// The figures of one file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Non-empty input lines.
    pub lines: u64,
    /// Lines with neither `question` nor `claim` (skipped).
    pub without_text: u64,
    /// Lines with a deadline.
    pub deadline_found: u64,
    /// `deadline_found` / (`lines` − `without_text`), percent.
    pub deadline_found_pct: f64,
    /// Lines whose deadline lies after their asking time (had not passed when asked).
    pub deadline_after_asked: u64,
    /// Deadlines found, by cue.
    pub by_cue: BTreeMap<String, u64>,
    /// D against the market's end date.
    pub end_date: AgainstEndDate,
    /// The lines first answered before their end date.
    pub answered_before_end: AnsweredEarly,
    /// The lines that finally resolved No.
    pub final_no: FinalNo,
    /// Some lines without a deadline.
    pub misses: Vec<Example>,
    /// Some lines whose deadline lies after their asking time.
    pub after_asked_examples: Vec<Example>,
    /// The "not yet" rule at each line's proposal time.
    pub not_yet: RuleReplay,
    /// The rule with the committees' real routings (`--reports`), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committee: Option<CommitteeReplay>,
}

/// Unix seconds of an RFC 3339 instant.
fn instant(s: Option<&str>) -> Option<i64> {
    DateTime::parse_from_rfc3339(s?.trim())
        .ok()
        .map(|t| t.timestamp())
}

fn rfc3339(t: i64) -> String {
    DateTime::<Utc>::from_timestamp(t, 0)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
        .unwrap_or_else(|| t.to_string())
}

/// The label the final outcome stands for on this line: "p1" in "… Where p1 corresponds to
/// No, p2 to Yes, p3 to unknown/50-50." is "No".
fn final_label(outcomes: &str, final_outcome: &str) -> Option<String> {
    let mapping = outcomes.split_once("Where").map(|(_, m)| m)?;
    mapping.split(',').find_map(|part| {
        let part = part.trim();
        let (key, rest) = part.split_once(' ')?;
        if key != final_outcome.trim() {
            return None;
        }
        let rest = rest.trim_start();
        let label = rest
            .strip_prefix("corresponds to ")
            .or_else(|| rest.strip_prefix("to "))
            .unwrap_or(rest);
        Some(label.trim().trim_end_matches('.').trim().to_owned())
    })
}

/// The question's title ("q: title: …, description: …"), or the start of its text.
fn title(text: &str) -> String {
    let t = text.strip_prefix("q: title: ").unwrap_or(text);
    let t = t.split(", description:").next().unwrap_or(t).trim();
    let mut out: String = t.chars().take(100).collect();
    if out.len() < t.len() {
        out.push('…');
    }
    out
}

/// The nearest-rank `p` quantile of sorted values.
fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.saturating_sub(1)).copied()
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (1000.0 * part as f64 / whole as f64).round() / 10.0
    }
}

/// Why the rule did not defer, in the order [`not_yet::check`] tests its conditions; `None`
/// when it defers.
fn why_not(n: &not_yet::NotYet, clock: RoundClock) -> Option<Why> {
    if n.defers {
        return None;
    }
    let Some(d) = &n.deadline else {
        return Some(Why::NoDeadline);
    };
    let now = i64::try_from(clock.now).unwrap_or(i64::MAX);
    let latest = i64::try_from(clock.asked_at.saturating_add(clock.horizon)).unwrap_or(i64::MAX);
    Some(if d.at <= now {
        Why::Passed
    } else if d.at > latest {
        Why::BeyondHorizon
    } else {
        Why::ResolvedYes
    })
}

/// The part of a `veritas resolve` report the rule reads.
#[derive(Debug, Deserialize)]
struct ReportRouting {
    routing: Routing,
}

/// The routings of the reports in `dir` named `<line>.json` (other files are ignored).
fn read_routings(dir: &std::path::Path) -> anyhow::Result<BTreeMap<usize, Routing>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        let line = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".json"))
            .and_then(|n| n.parse::<usize>().ok());
        let Some(line) = line else {
            continue;
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let report: ReportRouting = serde_json::from_str(&text)
            .with_context(|| format!("{}: no report routing", path.display()))?;
        out.insert(line, report.routing);
    }
    Ok(out)
}

/// Measure the reader on JSON lines; `default_asked` anchors lines without `asked_at`, and
/// the "not yet" rule reads `horizon` (seconds after the ask). `routings` (by 1-based line):
/// committees' real routings, applied besides the worst case (`None`: no committee section).
///
/// # Errors
/// A line that is not a JSON object of the expected field types (named by its number).
pub fn measure(
    input: &str,
    default_asked: i64,
    horizon: u64,
    examples: usize,
    routings: Option<&BTreeMap<usize, Routing>>,
) -> anyhow::Result<Report> {
    let mut t = Tally {
        r: Report::default(),
        samples: Samples::default(),
        examples,
    };
    if routings.is_some() {
        t.r.committee = Some(CommitteeReplay::default());
    }
    t.r.not_yet.horizon_days = horizon / 86_400;
    for (i, text) in input.lines().enumerate() {
        if text.trim().is_empty() {
            continue;
        }
        t.r.lines += 1;
        let row: Row = serde_json::from_str(text).with_context(|| format!("line {}", i + 1))?;
        let Some(line) = Line::read(&row, i + 1, default_asked) else {
            t.r.without_text += 1;
            continue;
        };
        t.deadline(&line);
        if let Some(end) = line.end {
            t.end_date(&line, end);
        }
        if let Some(clock) = line.clock(horizon) {
            let routing = routings.and_then(|m| m.get(&line.number));
            t.not_yet(&line, clock, routing);
        }
        if line.final_is("no") {
            t.final_no(&line);
        }
    }
    Ok(t.finish())
}

/// One input line as the figures read it.
struct Line<'a> {
    /// 1-based.
    number: usize,
    text: &'a str,
    asked: i64,
    end: Option<i64>,
    proposed: Option<i64>,
    /// The final outcome's label, by the line's own `outcomes` mapping.
    label: Option<String>,
    deadline: Option<Deadline>,
    /// The truth bot's recommendation was "too early" (p4); `None`: it did not answer.
    too_early: Option<bool>,
}

impl<'a> Line<'a> {
    /// `None` for a line without a question or a claim.
    fn read(row: &'a Row, number: usize, default_asked: i64) -> Option<Self> {
        let text = row.question.as_deref().or(row.claim.as_deref())?;
        let asked = instant(row.asked_at.as_deref()).unwrap_or(default_asked);
        let label = match (&row.outcomes, &row.final_outcome) {
            (Some(o), Some(f)) => final_label(o, f),
            _ => None,
        };
        Some(Self {
            number,
            text,
            asked,
            end: instant(row.market_end_date.as_deref()),
            proposed: instant(row.proposal_tx_time.as_deref()),
            label,
            deadline: read_deadline(text, asked),
            too_early: row.bot_recommendation.as_deref().map(|b| b.trim() == "p4"),
        })
    }

    fn at(&self) -> Option<i64> {
        self.deadline.as_ref().map(|d| d.at)
    }

    fn final_is(&self, label: &str) -> bool {
        self.label
            .as_deref()
            .is_some_and(|l| l.eq_ignore_ascii_case(label))
    }

    /// First answered (proposed) before its market's end date.
    fn before_end(&self) -> bool {
        matches!((self.end, self.proposed), (Some(end), Some(p)) if p < end)
    }

    /// The round's clock at the first answer (the asking time when there is none).
    fn clock(&self, horizon: u64) -> Option<RoundClock> {
        let now = self.proposed.unwrap_or(self.asked);
        Some(RoundClock {
            asked_at: u64::try_from(self.asked).ok()?,
            block: 0,
            now: u64::try_from(now).ok()?,
            horizon,
            round: 0,
        })
    }

    fn example(&self) -> Example {
        Example {
            line: self.number,
            title: title(self.text),
            phrase: self.deadline.as_ref().map(|d| d.phrase.clone()),
            deadline: self.at().map(rfc3339),
            end_date: self.end.map(rfc3339),
            proposed: self.proposed.map(rfc3339),
        }
    }
}

/// The hours the quantiles are taken of.
#[derive(Default)]
struct Samples {
    /// |D − end date|.
    abs_hours: Vec<f64>,
    /// D − proposal of the final-No lines proposed before D.
    holds: Vec<f64>,
    /// D − now of the deferred lines.
    deferred_holds: Vec<f64>,
}

/// The report being counted, line by line.
struct Tally {
    r: Report,
    samples: Samples,
    /// Most examples listed under each finding.
    examples: usize,
}

/// Add `line` to `list` unless it holds `limit` examples already.
fn push(list: &mut Vec<Example>, limit: usize, line: &Line) {
    if list.len() < limit {
        list.push(line.example());
    }
}

impl Tally {
    /// Whether a deadline was found, by which cue, and whether it is after the asking time.
    fn deadline(&mut self, line: &Line) {
        let r = &mut self.r;
        let Some(d) = &line.deadline else {
            push(&mut r.misses, self.examples, line);
            return;
        };
        r.deadline_found += 1;
        *r.by_cue.entry(d.cue.to_string()).or_default() += 1;
        if d.at > line.asked {
            r.deadline_after_asked += 1;
            push(&mut r.after_asked_examples, self.examples, line);
        }
    }

    /// The deadline against the market's `end` date; the lines answered before it.
    fn end_date(&mut self, line: &Line, end: i64) {
        let e = &mut self.r.end_date;
        e.lines += 1;
        if let Some(at) = line.at() {
            e.with_deadline += 1;
            let diff = at - end;
            self.samples
                .abs_hours
                .push(diff.unsigned_abs() as f64 / 3600.0);
            if (-14 * 3600..=36 * 3600).contains(&diff) {
                e.on_end_day += 1;
            }
            if diff.abs() <= 24 * 3600 {
                e.within_24h += 1;
            } else if diff < 0 {
                e.earlier_by_over_24h += 1;
                push(&mut e.earlier_examples, self.examples, line);
            } else {
                e.later_by_over_24h += 1;
                push(&mut e.later_examples, self.examples, line);
            }
        }
        let Some(p) = line.proposed.filter(|p| *p < end) else {
            return;
        };
        let a = &mut self.r.answered_before_end;
        a.lines += 1;
        let Some(at) = line.at() else {
            return;
        };
        a.with_deadline += 1;
        if at > p {
            a.held_back += 1;
            if at > end + 36 * 3600 {
                a.held_past_end_day += 1;
            }
            match line
                .label
                .as_deref()
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("yes") => a.held_back_final_yes += 1,
                Some("no") => a.held_back_final_no += 1,
                _ => a.held_back_final_other += 1,
            }
            push(&mut a.examples, self.examples, line);
        }
    }

    /// The "not yet" rule at `clock` with the worst-case routing (and with the committee's
    /// real `routing` when there is one).
    fn not_yet(&mut self, line: &Line, clock: RoundClock, routing: Option<&Routing>) {
        let n = not_yet::check_resolved(line.text, &[], clock, false);
        let why = why_not(&n, clock);
        let rr = &mut self.r.not_yet;
        rr.lines += 1;
        if line.proposed.is_some() {
            rr.at_proposal += 1;
        }
        if not_yet::check_resolved(line.text, &[], clock, true).defers {
            rr.defers_if_resolved_yes += 1;
        }
        match (why, &n.deadline) {
            (None, Some(d)) => {
                rr.defers += 1;
                let hold =
                    d.at.saturating_sub(i64::try_from(clock.now).unwrap_or(i64::MAX));
                if hold > 24 * 3600 {
                    rr.held_over_24h += 1;
                }
                self.samples.deferred_holds.push(hold as f64 / 3600.0);
                push(&mut rr.deferred_examples, self.examples, line);
            }
            (None, None) => rr.defers += 1,
            (Some(why), _) => rr.not_deferred.add(why),
        }
        if let Some(too_early) = line.too_early {
            rr.bot_answered += 1;
            if too_early {
                rr.bot_too_early += 1;
                match why {
                    None => rr.bot_too_early_and_defers += 1,
                    Some(why) => rr.bot_too_early_not_deferred.add(why),
                }
            } else {
                rr.defers_bot_answered_otherwise += u64::from(n.defers);
            }
        }
        if let (Some(c), Some(routing)) = (self.r.committee.as_mut(), routing) {
            committee(c, line, clock, routing, n.defers);
        }
        if let Some(end) = line.end.filter(|_| line.before_end()) {
            before_end(&mut self.r.not_yet.before_end, line, end, &n, why);
        }
    }

    /// The final-No lines: how long a NO proposed before D waited for it.
    fn final_no(&mut self, line: &Line) {
        let n = &mut self.r.final_no;
        n.lines += 1;
        let Some(at) = line.at() else {
            return;
        };
        n.with_deadline += 1;
        if let Some(p) = line.proposed.filter(|p| *p < at) {
            n.proposed_before_deadline += 1;
            let hold = at - p;
            if hold <= 6 * 3600 {
                n.held_up_to_6h += 1;
            }
            if hold > 24 * 3600 {
                n.held_over_24h += 1;
            }
            self.samples.holds.push(hold as f64 / 3600.0);
            push(&mut n.examples, self.examples, line);
        }
    }

    /// The quantiles and shares, once every line is counted.
    fn finish(self) -> Report {
        let (mut r, mut s) = (self.r, self.samples);
        s.abs_hours.sort_by(f64::total_cmp);
        r.end_date.median_abs_hours = quantile(&s.abs_hours, 0.5);
        r.end_date.p90_abs_hours = quantile(&s.abs_hours, 0.9);
        s.holds.sort_by(f64::total_cmp);
        r.final_no.median_hold_hours = quantile(&s.holds, 0.5);
        s.deferred_holds.sort_by(f64::total_cmp);
        r.not_yet.median_hold_hours = quantile(&s.deferred_holds, 0.5);
        r.not_yet.p90_hold_hours = quantile(&s.deferred_holds, 0.9);
        r.deadline_found_pct = pct(r.deadline_found, r.lines - r.without_text);
        r
    }
}

/// The rule with a committee's real `routing`, against the worst case (`worst_defers`).
fn committee(
    c: &mut CommitteeReplay,
    line: &Line,
    clock: RoundClock,
    routing: &Routing,
    worst_defers: bool,
) {
    let real = not_yet::check(line.text, &[], clock, routing);
    c.lines += 1;
    match (routing.decision, routing.outcome) {
        (Decision::Resolve, Some(Outcome::Yes)) => c.resolved_yes += 1,
        (Decision::Resolve, _) => c.resolved_other += 1,
        (Decision::Escalate, _) => c.escalated += 1,
    }
    c.defers += u64::from(real.defers);
    c.differs_from_worst_case += u64::from(real.defers != worst_defers);
    if line.before_end() {
        c.before_end += 1;
        c.before_end_defers += u64::from(real.defers);
        if line.final_is("no") {
            c.final_no += 1;
            c.final_no_deferred += u64::from(real.defers);
        }
    }
}

/// The worst-case rule `n` (`why` it did not defer) on a line first answered before its
/// market's `end`, by the line's final outcome.
fn before_end(
    b: &mut BeforeEndReplay,
    line: &Line,
    end: i64,
    n: &not_yet::NotYet,
    why: Option<Why>,
) {
    b.lines += 1;
    b.defers += u64::from(n.defers);
    if line.too_early == Some(true) {
        b.bot_too_early += 1;
        b.bot_too_early_and_defers += u64::from(n.defers);
    }
    let final_no = line.final_is("no");
    if line.final_is("yes") {
        b.final_yes += 1;
        b.final_yes_deferred += u64::from(n.defers);
    } else if !final_no {
        b.final_other += 1;
        b.final_other_deferred += u64::from(n.defers);
    }
    if !final_no {
        return;
    }
    b.final_no += 1;
    let at = line.at();
    match why {
        None => {
            b.final_no_deferred += 1;
            if at.is_some_and(|at| at >= end) {
                b.final_no_deferred_through_end += 1;
            }
        }
        Some(why) => b.final_no_not_deferred.push(NotDeferred {
            example: line.example(),
            why,
            deadline_before_end: at.is_some_and(|at| at < end),
            reason: n.reason.clone(),
        }),
    }
}

/// One figure of the text form: the label, then the value right-aligned.
fn row(label: &str, value: impl std::fmt::Display) -> String {
    format!("{label:<58} {value:>8}")
}

/// [`row`] with the share it is, in percent.
fn row_pct(label: &str, value: u64, pct: f64) -> String {
    format!("{label:<58} {value:>8}  ({pct:.1} %)")
}

/// Two or three counts in one figure (`a / b`, `a / b / c`).
fn pair(a: u64, b: u64) -> String {
    format!("{a} / {b}")
}

fn hours(h: Option<f64>) -> String {
    h.map_or("-".to_owned(), |h| format!("{h:.1} h"))
}

/// The text form: a table of the figures, then the examples.
fn human(r: &Report) -> Vec<String> {
    let mut out = deadline_rows(r);
    if r.end_date.lines > 0 {
        out.extend(end_date_rows(&r.end_date, &r.answered_before_end));
    }
    if r.final_no.lines > 0 {
        out.extend(final_no_rows(&r.final_no));
    }
    out.extend(not_yet_rows(&r.not_yet));
    if let Some(c) = &r.committee {
        out.extend(committee_rows(c));
    }
    out.extend(example_sections(r));
    out
}

/// How many lines, and where a deadline was found.
fn deadline_rows(r: &Report) -> Vec<String> {
    let by_cue = r
        .by_cue
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = vec![
        row("lines", r.lines),
        row_pct("deadline found", r.deadline_found, r.deadline_found_pct),
        row("  of which after the asking time", r.deadline_after_asked),
        row("  by cue", by_cue),
    ];
    if r.without_text > 0 {
        out.push(row("lines without text (skipped)", r.without_text));
    }
    out
}

/// The deadline against the market's end date, and the lines answered before it.
fn end_date_rows(e: &AgainstEndDate, a: &AnsweredEarly) -> Vec<String> {
    vec![
        row("with a market end date", e.lines),
        row("  with a deadline", e.with_deadline),
        row("  |D - end date| median", hours(e.median_abs_hours)),
        row("  |D - end date| p90", hours(e.p90_abs_hours)),
        row_pct(
            "  within 24 h",
            e.within_24h,
            pct(e.within_24h, e.with_deadline),
        ),
        row_pct(
            "  on the end date's day somewhere (end -14 h .. +36 h)",
            e.on_end_day,
            pct(e.on_end_day, e.with_deadline),
        ),
        row("  D later by > 24 h", e.later_by_over_24h),
        row("  D EARLIER by > 24 h (dangerous)", e.earlier_by_over_24h),
        row("first answered before the end date", a.lines),
        row("  with a deadline", a.with_deadline),
        row(
            "  held back (D > proposal: a NO could not settle)",
            a.held_back,
        ),
        row("    of which past the end date's day", a.held_past_end_day),
        row(
            "    final Yes / No / other",
            format!(
                "{} / {} / {}",
                a.held_back_final_yes, a.held_back_final_no, a.held_back_final_other
            ),
        ),
    ]
}

/// The lines whose final outcome is No, and how long a NO waited for the deadline.
fn final_no_rows(n: &FinalNo) -> Vec<String> {
    vec![
        row("final outcome No", n.lines),
        row("  with a deadline", n.with_deadline),
        row(
            "  proposed before D (held until D)",
            n.proposed_before_deadline,
        ),
        row("    held <= 6 h", n.held_up_to_6h),
        row("    held > 24 h", n.held_over_24h),
        row("    median hold", hours(n.median_hold_hours)),
    ]
}

/// The "not yet" rule with the worst-case routing.
fn not_yet_rows(y: &RuleReplay) -> Vec<String> {
    let mut out = vec![
        String::new(),
        format!(
            "not yet rule at the first answer (proposal time, else asking time), horizon {} days,",
            y.horizon_days
        ),
        "worst-case routing (anything but a resolved YES):".to_owned(),
        row("  lines", y.lines),
        row("    of which at their proposal time", y.at_proposal),
        row_pct("  deferred", y.defers, pct(y.defers, y.lines)),
        row(
            "    hold D - now median / p90",
            format!(
                "{} / {}",
                hours(y.median_hold_hours),
                hours(y.p90_hold_hours)
            ),
        ),
        row("    held > 24 h", y.held_over_24h),
        row(
            "  not deferred: no deadline / passed / beyond horizon",
            y.not_deferred.human(),
        ),
        row(
            "  deferred if the routing resolved YES",
            y.defers_if_resolved_yes,
        ),
    ];
    if y.bot_answered > 0 {
        out.extend([
            row("  truth bot answered", y.bot_answered),
            row("    \"too early\" (p4)", y.bot_too_early),
            row("    p4 and deferred", y.bot_too_early_and_defers),
            row(
                "    p4 not deferred: no deadline / passed / beyond",
                y.bot_too_early_not_deferred.human(),
            ),
            row(
                "    deferred where the bot answered otherwise",
                y.defers_bot_answered_otherwise,
            ),
        ]);
    }
    if y.before_end.lines > 0 {
        out.extend(before_end_rows(&y.before_end));
    }
    out
}

/// The rule on the lines first answered before their end date.
fn before_end_rows(b: &BeforeEndReplay) -> Vec<String> {
    vec![
        row("  first answered before the end date", b.lines),
        row("    deferred", b.defers),
        row(
            "    bot p4 / of which deferred",
            pair(b.bot_too_early, b.bot_too_early_and_defers),
        ),
        row(
            "    final Yes / of which deferred",
            pair(b.final_yes, b.final_yes_deferred),
        ),
        row(
            "    final other (team, Up/Down, ...) / deferred",
            pair(b.final_other, b.final_other_deferred),
        ),
        row("    final No", b.final_no),
        row("      deferred (no NO at proposal)", b.final_no_deferred),
        row(
            "        D not before the end date",
            b.final_no_deferred_through_end,
        ),
        row(
            "      NOT deferred (listed below)",
            b.final_no_not_deferred.len(),
        ),
    ]
}

/// The rule with the committees' real routings (`--reports`).
fn committee_rows(c: &CommitteeReplay) -> Vec<String> {
    vec![
        String::new(),
        "the same rule with each committee's real routing (--reports):".to_owned(),
        row("  lines with a report", c.lines),
        row(
            "  resolved YES / resolved other / escalated",
            format!(
                "{} / {} / {}",
                c.resolved_yes, c.resolved_other, c.escalated
            ),
        ),
        row("  deferred", c.defers),
        row("  differs from the worst case", c.differs_from_worst_case),
        row(
            "  first answered before the end date / deferred",
            pair(c.before_end, c.before_end_defers),
        ),
        row(
            "    final No / deferred",
            pair(c.final_no, c.final_no_deferred),
        ),
    ]
}

/// The example lines under each finding.
fn example_sections(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let mut section = |name: &str, list: &[Example]| {
        if list.is_empty() {
            return;
        }
        out.push(String::new());
        out.push(format!("{name}:"));
        for x in list {
            out.push(format!("  line {}: {}", x.line, x.title));
            if let Some(p) = &x.phrase {
                out.push(format!(
                    "    \"{p}\" -> D {}",
                    x.deadline.as_deref().unwrap_or("-")
                ));
            }
            if x.end_date.is_some() || x.proposed.is_some() {
                out.push(format!(
                    "    end date {}, proposed {}",
                    x.end_date.as_deref().unwrap_or("-"),
                    x.proposed.as_deref().unwrap_or("-")
                ));
            }
        }
    };
    section(
        "D earlier than the end date by > 24 h",
        &r.end_date.earlier_examples,
    );
    section(
        "D later than the end date by > 24 h",
        &r.end_date.later_examples,
    );
    section(
        "held back before the end date",
        &r.answered_before_end.examples,
    );
    section("final No proposed before D", &r.final_no.examples);
    section("deadline after the asking time", &r.after_asked_examples);
    section("deferred by the not yet rule", &r.not_yet.deferred_examples);
    section("no deadline", &r.misses);
    out.extend(not_deferred_section(
        &r.not_yet.before_end.final_no_not_deferred,
    ));
    out
}

/// The final-No lines proposed before their end date that the rule did not defer, and why.
fn not_deferred_section(list: &[NotDeferred]) -> Vec<String> {
    let mut out = Vec::new();
    if list.is_empty() {
        return out;
    }
    out.push(String::new());
    out.push("final No proposed before the end date, not deferred:".to_owned());
    for x in list {
        let e = &x.example;
        out.push(format!("  line {}: {}", e.line, e.title));
        out.push(format!(
            "    {:?}{}: {}",
            x.why,
            if x.deadline_before_end {
                " (D before the end date)"
            } else {
                ""
            },
            x.reason
        ));
        out.push(format!(
            "    end date {}, proposed {}",
            e.end_date.as_deref().unwrap_or("-"),
            e.proposed.as_deref().unwrap_or("-")
        ));
    }
    out
}

/// Run `veritas deadlines`.
///
/// # Errors
/// An unreadable file, a bad `--asked-at`, or a line that is not a JSON object.
pub fn run(args: DeadlinesArgs) -> anyhow::Result<Output> {
    let default_asked = match &args.asked_at {
        Some(s) => instant(Some(s)).ok_or_else(|| {
            super::output::Usage(format!("--asked-at {s}: not an RFC 3339 instant"))
        })?,
        None => Utc::now().timestamp(),
    };
    let input = std::fs::read_to_string(&args.input)
        .with_context(|| format!("cannot read {}", args.input.display()))?;
    let horizon = args.horizon_days.saturating_mul(86_400);
    let routings = match &args.reports {
        Some(dir) => Some(read_routings(dir)?),
        None => None,
    };
    let report = measure(
        &input,
        default_asked,
        horizon,
        args.examples,
        routings.as_ref(),
    )
    .with_context(|| args.input.display().to_string())?;
    let json = serde_json::to_value(&report)?;
    Ok(Output::lines(json, &human(&report)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::not_yet::test_routing as routing;

    const HORIZON: u64 = 365 * 86_400;

    const YES_NO: &str =
        "p1: 0, p2: 1, p3: 0.5. Where p1 corresponds to No, p2 to Yes, p3 to unknown/50-50.";

    fn line(q: &str, asked: &str, proposed: &str, end: Option<&str>, outcome: &str) -> String {
        serde_json::json!({
            "question": q, "asked_at": asked, "proposal_tx_time": proposed,
            "market_end_date": end, "outcomes": YES_NO, "final_outcome": outcome,
        })
        .to_string()
    }

    #[test]
    fn the_figures_of_a_small_set() {
        let input = [
            // D = 2025-06-01T04:59Z + 1 min, end 2025-05-31T00:00Z: 29 h later; proposed before
            // the end date and before D, final No: held back.
            line(
                "q: title: X?, description: between May 1 and May 31, 2025, 11:59 PM ET.",
                "2025-05-01T00:00:00Z",
                "2025-05-29T10:00:00Z",
                Some("2025-05-31T00:00:00Z"),
                "p1",
            ),
            // D = 2025-03-14T12:00Z (end of 13 March AoE); end 2025-03-20: dangerous.
            line(
                "q: title: Y?, description: resolves on March 13, 2025.",
                "2025-03-10T00:00:00Z",
                "2025-03-14T13:00:00Z",
                Some("2025-03-20T00:00:00Z"),
                "p2",
            ),
            // No deadline, no end date.
            line(
                "q: title: Z?",
                "2025-03-10T00:00:00Z",
                "2025-03-11T00:00:00Z",
                None,
                "p1",
            ),
            String::new(),
            r#"{"claim": "Sea level rise of 2 m by 2100.", "claim_label": "SUPPORTS"}"#.to_owned(),
            r#"{"other": 1}"#.to_owned(),
        ]
        .join("\n");
        let asked = instant(Some("2026-01-01T00:00:00Z")).unwrap();
        let r = measure(&input, asked, HORIZON, 5, None).unwrap();
        assert_eq!((r.lines, r.without_text, r.deadline_found), (5, 1, 3));
        assert_eq!(r.deadline_found_pct, 75.0);
        // All three were still open when asked.
        assert_eq!(r.deadline_after_asked, 3);
        assert_eq!(r.by_cue.get("between"), Some(&1));
        let e = &r.end_date;
        assert_eq!((e.lines, e.with_deadline), (2, 2));
        assert_eq!(
            (e.within_24h, e.later_by_over_24h, e.earlier_by_over_24h),
            (0, 1, 1)
        );
        assert_eq!(e.earlier_examples[0].line, 2);
        assert_eq!(
            e.earlier_examples[0].phrase.as_deref(),
            Some("on March 13, 2025")
        );
        assert_eq!(e.median_abs_hours, Some(29.0));
        let a = &r.answered_before_end;
        assert_eq!(
            (a.lines, a.with_deadline, a.held_back, a.held_back_final_no),
            (2, 2, 1, 1)
        );
        let n = &r.final_no;
        assert_eq!(
            (n.lines, n.with_deadline, n.proposed_before_deadline),
            (2, 1, 1)
        );
        assert_eq!(r.misses.len(), 1);
        assert_eq!(r.misses[0].title, "Z?");
        assert!(human(&r).iter().any(|l| l.contains("dangerous")));
        assert!(measure("{not json", asked, HORIZON, 5, None).is_err());
    }

    #[test]
    fn the_not_yet_rule_at_proposal_time() {
        let with_bot = |q: &str, proposed: &str, outcome: &str, bot: &str| {
            let mut v: serde_json::Value = serde_json::from_str(&line(
                q,
                "2025-05-01T00:00:00Z",
                proposed,
                Some("2025-05-31T00:00:00Z"),
                outcome,
            ))
            .unwrap();
            v["bot_recommendation"] = bot.into();
            v.to_string()
        };
        let input = [
            // D = end of 31 May AoE, proposed 20 May: deferred, held to the end date.
            with_bot(
                "q: title: A?, description: by May 31, 2025.",
                "2025-05-20T00:00:00Z",
                "p1",
                "p4",
            ),
            // D = end of 10 May AoE, passed at the proposal (and before the end date).
            with_bot("q: title: B on May 10?", "2025-05-12T00:00:00Z", "p1", "p1"),
            // No deadline.
            with_bot("q: title: C?", "2025-05-12T00:00:00Z", "p1", "p4"),
            // A final Yes proposed before D: the worst case defers it, a resolved YES never.
            with_bot(
                "q: title: D by May 31, 2025?",
                "2025-05-20T00:00:00Z",
                "p2",
                "p2",
            ),
            // Proposed after the end date (not in the before-end set), still before D.
            with_bot(
                "q: title: E by June 30, 2025?",
                "2025-06-02T00:00:00Z",
                "p1",
                "p1",
            ),
            // Claims: asked = now = --asked-at; 2100 is beyond the horizon, a year-less month
            // in a statement about the past is no deadline, next March is within it.
            r#"{"claim": "Sea level rise of 2 m by 2100."}"#.to_owned(),
            r#"{"claim": "A record 51 C was recorded in May."}"#.to_owned(),
            r#"{"claim": "The treaty takes effect in March."}"#.to_owned(),
        ]
        .join("\n");
        let asked = instant(Some("2026-11-29T00:00:00Z")).unwrap();
        let r = measure(&input, asked, HORIZON, 5, None).unwrap();
        let y = &r.not_yet;
        assert_eq!((y.horizon_days, y.lines, y.at_proposal), (365, 8, 5));
        assert_eq!(y.defers, 4);
        assert_eq!(
            (
                y.not_deferred.no_deadline,
                y.not_deferred.passed,
                y.not_deferred.beyond_horizon
            ),
            (2, 1, 1)
        );
        assert_eq!(y.defers_if_resolved_yes, 0);
        assert_eq!((y.bot_answered, y.bot_too_early), (5, 2));
        assert_eq!(y.bot_too_early_and_defers, 1);
        assert_eq!(y.bot_too_early_not_deferred.no_deadline, 1);
        assert_eq!(y.defers_bot_answered_otherwise, 2);
        assert_eq!(y.held_over_24h, 4);
        let b = &y.before_end;
        assert_eq!((b.lines, b.defers), (4, 2));
        assert_eq!((b.bot_too_early, b.bot_too_early_and_defers), (2, 1));
        assert_eq!(
            (b.final_yes, b.final_yes_deferred, b.final_other),
            (1, 1, 0)
        );
        assert_eq!((b.final_no, b.final_no_deferred), (3, 1));
        assert_eq!(b.final_no_deferred_through_end, 1);
        let why: Vec<_> = b
            .final_no_not_deferred
            .iter()
            .map(|x| (x.example.line, x.why, x.deadline_before_end))
            .collect();
        assert_eq!(why, [(2, Why::Passed, true), (3, Why::NoDeadline, false)]);
        let text = human(&r).join("\n");
        assert!(text.contains("NOT deferred"), "{text}");
        assert!(r.committee.is_none());
        // The committees' real routings: line 1 resolved YES (not deferred, unlike the worst
        // case), line 4 escalated (deferred as in the worst case).
        let routings = BTreeMap::from([
            (1, routing(Decision::Resolve, Some(Outcome::Yes))),
            (4, routing(Decision::Escalate, Some(Outcome::Yes))),
        ]);
        let c = measure(&input, asked, HORIZON, 5, Some(&routings))
            .unwrap()
            .committee
            .unwrap();
        assert_eq!(
            (c.lines, c.resolved_yes, c.resolved_other, c.escalated),
            (2, 1, 0, 1)
        );
        assert_eq!((c.defers, c.differs_from_worst_case), (1, 1));
        assert_eq!((c.before_end, c.before_end_defers), (2, 1));
        assert_eq!((c.final_no, c.final_no_deferred), (1, 0));
        // The JSON carries the same figures.
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["not_yet"]["defers"], 4);
        assert_eq!(
            json["not_yet"]["before_end"]["final_no_not_deferred"][0]["why"],
            "passed"
        );
    }

    #[test]
    fn reports_are_read_by_line_number() {
        let dir = tempfile::tempdir().unwrap();
        let report = serde_json::json!({
            "question": "q", "routing": routing(Decision::Resolve, Some(Outcome::No)),
        });
        std::fs::write(dir.path().join("7.json"), report.to_string()).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a report").unwrap();
        let got = read_routings(dir.path()).unwrap();
        assert_eq!(got.keys().copied().collect::<Vec<_>>(), [7]);
        assert_eq!(got[&7].outcome, Some(Outcome::No));
        std::fs::write(dir.path().join("8.json"), "{}").unwrap();
        assert!(read_routings(dir.path()).is_err());
    }

    #[test]
    fn the_final_label_follows_the_lines_own_mapping() {
        assert_eq!(final_label(YES_NO, "p1").as_deref(), Some("No"));
        assert_eq!(final_label(YES_NO, "p2").as_deref(), Some("Yes"));
        let swapped =
            "p1: 0, p2: 1, p3: 0.5. Where p1 corresponds to Yes, p2 to No, p3 to unknown/50-50.";
        assert_eq!(final_label(swapped, "p2").as_deref(), Some("No"));
        let teams = "p1: 0, p2: 1, p3: 0.5. Where p1 corresponds to Twins, p2 to Blue Jays, p3 to unknown/50-50";
        assert_eq!(final_label(teams, "p2").as_deref(), Some("Blue Jays"));
        assert_eq!(final_label("p1: 0, p2: 1", "p1"), None);
        assert_eq!(final_label(YES_NO, "p4"), None);
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), Some(2.0));
        assert_eq!(quantile(&v, 0.9), Some(4.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
