//! `veritas deadlines FILE [--asked-at T] [--examples N]`: how the deadline reader
//! ([`crate::question::deadline`]) does on a set of real questions.
//!
//! Reads JSON lines with a `question` (or a `claim`, as in CLIMATE-FEVER) and, when present,
//! `asked_at`, `proposal_tx_time`, `market_end_date` (RFC 3339), `outcomes` and
//! `final_outcome` (the Polymarket set: `"p1"`, whose meaning `outcomes` gives per line, "Where
//! p1 corresponds to No, p2 to Yes, …"). Lines without `asked_at` are read as if asked at
//! `--asked-at` (default: now), which only anchors year-less dates. Reports how many texts
//! get a deadline and, where the market's own end date is known, how far the deadline D lies
//! from it (D earlier than the end date is the dangerous side: a NO could settle while the
//! market is still open); for the questions first answered before their end date, how many
//! the deadline rule would have held back; and how many questions that finally resolved No
//! were proposed before D.
//!
//! ```sh
//! veritas deadlines polymarket-dev.jsonl --asked-at 2026-11-29T00:00:00Z
//! veritas deadlines data/climate-fever-dev.jsonl --asked-at 2026-11-29T00:00:00Z --json
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context as _;
use chrono::{DateTime, SecondsFormat, Utc};
use clap::Args;
use serde::{Deserialize, Serialize};

use super::output::Output;
use crate::question::deadline::{Deadline, read_deadline};

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

/// Measure the reader on JSON lines; `default_asked` anchors lines without `asked_at`.
///
/// # Errors
/// A line that is not a JSON object of the expected field types (named by its number).
pub fn measure(input: &str, default_asked: i64, examples: usize) -> anyhow::Result<Report> {
    let mut r = Report::default();
    let mut abs_hours = Vec::new();
    let mut holds = Vec::new();
    let push = |list: &mut Vec<Example>, ex: Example| {
        if list.len() < examples {
            list.push(ex);
        }
    };
    for (i, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        r.lines += 1;
        let row: Row = serde_json::from_str(line).with_context(|| format!("line {}", i + 1))?;
        let Some(text) = row.question.as_deref().or(row.claim.as_deref()) else {
            r.without_text += 1;
            continue;
        };
        let asked = instant(row.asked_at.as_deref()).unwrap_or(default_asked);
        let end = instant(row.market_end_date.as_deref());
        let proposed = instant(row.proposal_tx_time.as_deref());
        let label = match (&row.outcomes, &row.final_outcome) {
            (Some(o), Some(f)) => final_label(o, f),
            _ => None,
        };
        let d: Option<Deadline> = read_deadline(text, asked);
        let at = d.as_ref().map(|d| d.at);
        let example = || Example {
            line: i + 1,
            title: title(text),
            phrase: d.as_ref().map(|d| d.phrase.clone()),
            deadline: at.map(rfc3339),
            end_date: end.map(rfc3339),
            proposed: proposed.map(rfc3339),
        };
        match &d {
            Some(d) => {
                r.deadline_found += 1;
                *r.by_cue.entry(d.cue.to_string()).or_default() += 1;
                if d.at > asked {
                    r.deadline_after_asked += 1;
                    push(&mut r.after_asked_examples, example());
                }
            }
            None => push(&mut r.misses, example()),
        }
        if let Some(end) = end {
            let e = &mut r.end_date;
            e.lines += 1;
            if let Some(at) = at {
                e.with_deadline += 1;
                let diff = at - end;
                abs_hours.push(diff.unsigned_abs() as f64 / 3600.0);
                if (-14 * 3600..=36 * 3600).contains(&diff) {
                    e.on_end_day += 1;
                }
                if diff.abs() <= 24 * 3600 {
                    e.within_24h += 1;
                } else if diff < 0 {
                    e.earlier_by_over_24h += 1;
                    push(&mut e.earlier_examples, example());
                } else {
                    e.later_by_over_24h += 1;
                    push(&mut e.later_examples, example());
                }
            }
            if let Some(p) = proposed.filter(|p| *p < end) {
                let a = &mut r.answered_before_end;
                a.lines += 1;
                if let Some(at) = at {
                    a.with_deadline += 1;
                    if at > p {
                        a.held_back += 1;
                        if at > end + 36 * 3600 {
                            a.held_past_end_day += 1;
                        }
                        match label.as_deref().map(str::to_ascii_lowercase).as_deref() {
                            Some("yes") => a.held_back_final_yes += 1,
                            Some("no") => a.held_back_final_no += 1,
                            _ => a.held_back_final_other += 1,
                        }
                        push(&mut a.examples, example());
                    }
                }
            }
        }
        if label
            .as_deref()
            .is_some_and(|l| l.eq_ignore_ascii_case("no"))
        {
            let n = &mut r.final_no;
            n.lines += 1;
            if let Some(at) = at {
                n.with_deadline += 1;
                if let Some(p) = proposed.filter(|p| *p < at) {
                    n.proposed_before_deadline += 1;
                    let hold = at - p;
                    if hold <= 6 * 3600 {
                        n.held_up_to_6h += 1;
                    }
                    if hold > 24 * 3600 {
                        n.held_over_24h += 1;
                    }
                    holds.push(hold as f64 / 3600.0);
                    push(&mut n.examples, example());
                }
            }
        }
    }
    abs_hours.sort_by(f64::total_cmp);
    r.end_date.median_abs_hours = quantile(&abs_hours, 0.5);
    r.end_date.p90_abs_hours = quantile(&abs_hours, 0.9);
    holds.sort_by(f64::total_cmp);
    r.final_no.median_hold_hours = quantile(&holds, 0.5);
    r.deadline_found_pct = pct(r.deadline_found, r.lines - r.without_text);
    Ok(r)
}

/// The text form: a table of the figures, then the examples.
fn human(r: &Report) -> Vec<String> {
    let read = r.lines - r.without_text;
    let hours = |h: Option<f64>| h.map_or("-".to_owned(), |h| format!("{h:.1} h"));
    let e = &r.end_date;
    let a = &r.answered_before_end;
    let n = &r.final_no;
    let mut out = vec![
        format!("{:<58} {:>8}", "lines", r.lines),
        format!(
            "{:<58} {:>8}  ({:.1} %)",
            "deadline found", r.deadline_found, r.deadline_found_pct
        ),
        format!(
            "{:<58} {:>8}",
            "  of which after the asking time", r.deadline_after_asked
        ),
        format!(
            "{:<58} {:>8}",
            "  by cue",
            r.by_cue
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ];
    if read != r.lines {
        out.push(format!(
            "{:<58} {:>8}",
            "lines without text (skipped)", r.without_text
        ));
    }
    if e.lines > 0 {
        out.extend([
            format!("{:<58} {:>8}", "with a market end date", e.lines),
            format!("{:<58} {:>8}", "  with a deadline", e.with_deadline),
            format!(
                "{:<58} {:>8}",
                "  |D - end date| median",
                hours(e.median_abs_hours)
            ),
            format!(
                "{:<58} {:>8}",
                "  |D - end date| p90",
                hours(e.p90_abs_hours)
            ),
            format!(
                "{:<58} {:>8}  ({:.1} %)",
                "  within 24 h",
                e.within_24h,
                pct(e.within_24h, e.with_deadline)
            ),
            format!(
                "{:<58} {:>8}  ({:.1} %)",
                "  on the end date's day somewhere (end -14 h .. +36 h)",
                e.on_end_day,
                pct(e.on_end_day, e.with_deadline)
            ),
            format!("{:<58} {:>8}", "  D later by > 24 h", e.later_by_over_24h),
            format!(
                "{:<58} {:>8}",
                "  D EARLIER by > 24 h (dangerous)", e.earlier_by_over_24h
            ),
            format!(
                "{:<58} {:>8}",
                "first answered before the end date", a.lines
            ),
            format!("{:<58} {:>8}", "  with a deadline", a.with_deadline),
            format!(
                "{:<58} {:>8}",
                "  held back (D > proposal: a NO could not settle)", a.held_back
            ),
            format!(
                "{:<58} {:>8}",
                "    of which past the end date's day", a.held_past_end_day
            ),
            format!(
                "{:<58} {:>8}",
                "    final Yes / No / other",
                format!(
                    "{} / {} / {}",
                    a.held_back_final_yes, a.held_back_final_no, a.held_back_final_other
                )
            ),
        ]);
    }
    if n.lines > 0 {
        out.extend([
            format!("{:<58} {:>8}", "final outcome No", n.lines),
            format!("{:<58} {:>8}", "  with a deadline", n.with_deadline),
            format!(
                "{:<58} {:>8}",
                "  proposed before D (held until D)", n.proposed_before_deadline
            ),
            format!("{:<58} {:>8}", "    held <= 6 h", n.held_up_to_6h),
            format!("{:<58} {:>8}", "    held > 24 h", n.held_over_24h),
            format!(
                "{:<58} {:>8}",
                "    median hold",
                hours(n.median_hold_hours)
            ),
        ]);
    }
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
    section("D earlier than the end date by > 24 h", &e.earlier_examples);
    section("D later than the end date by > 24 h", &e.later_examples);
    section("held back before the end date", &a.examples);
    section("final No proposed before D", &n.examples);
    section("deadline after the asking time", &r.after_asked_examples);
    section("no deadline", &r.misses);
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
    let report = measure(&input, default_asked, args.examples)
        .with_context(|| args.input.display().to_string())?;
    let json = serde_json::to_value(&report)?;
    Ok(Output::lines(json, &human(&report)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let r = measure(&input, asked, 5).unwrap();
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
        assert!(measure("{not json", asked, 5).is_err());
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
