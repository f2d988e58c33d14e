//! A question's own deadline, read from the explicit dates in its text (pure, deterministic).
//!
//! "Will the ferry resume service before 1 February 2026?" asked on 20 January cannot be
//! settled NO on 20 January: the event may still happen. Before the question's deadline has
//! passed only YES (it already happened) may settle; NO and unresolvable must wait. This module
//! finds that deadline; auditors recompute it offline from the question text and the asking
//! time alone, so it reads nothing else (no clock, no I/O, no model).
//!
//! The rules:
//! - **A cue and a date.** A date counts only after a cue word: `before`, `prior to`, `by`,
//!   `on or before`, `no later than`, `through`, `until`, `(by|before) the end of`, `in`,
//!   `during`, `on`, `scheduled for`, `for`, and the second date of `between … and …` /
//!   `from … to …`. A weekday may stand between cue and date ("on Friday, March 21"). Dates:
//!   `April 1, 2026`, `1 April 2026`, `1st of April`, `Jan. 5`, `Sept 3`, `21 Mar '25`,
//!   `2025-12-31`, `March 2026`, `Q3 2026`, `H1 2026`, `the first quarter of 2026`, `2026`
//!   (a bare year only after a cue other than `on` or `for`, and never after "the", so "in the 2025
//!   UEFA final" is not read as "in 2025"), a season `2025-26` reads as its later year, and
//!   `the end of the year/month` (the asking time's year or month). A number followed by a
//!   unit of time is a count, not a day: "in April 13 years ago" is not 13 April.
//! - **When it closes.** `before DATE` closes at the start of DATE (at the stated time if one
//!   is given); `by`, `on or before`, `no later than`, `through`, `until`, `between … and
//!   DATE` close at the end of DATE (at the end of the stated minute if a time is given); `on
//!   DATE`, `for DATE` and `in DATE` are an event on that day, whose outcome is not known before the end
//!   of the day, whatever time it starts; a period (month, quarter, half, year) closes at its
//!   end (`before` a period: at its start).
//! - **Time zone.** A date with no zone closes when that day has ended everywhere on Earth
//!   (Anywhere on Earth, UTC−12): a reading can then only defer more, never let a NO settle
//!   while the day is still running somewhere. An explicit zone within the same sentence is
//!   honoured: UTC/GMT/Z, `UTC+2`, ET/CT/MT/PT (the later, standard offset: UTC−5/−6/−7/−8),
//!   EST/EDT/…, "Eastern Time", "London time" (GMT, the later of GMT/BST), BST, CET, CEST, JST.
//! - **Year-less dates** ("before June?", "on March 21") take the asking time's year, or the
//!   next year when that reading would have closed more than [`YEARLESS_PAST_DAYS`] days
//!   before the question was asked: a question about a date two weeks ago is about the past
//!   (its deadline has passed), one about "March" asked in November is about next March.
//!   Except in a statement told in the past (`was`, `were`, `had`, `did`; no `will`/`shall`,
//!   no question mark): "a record of 51 °C was recorded in May" names a May of a year the text
//!   does not give, and the asking time says nothing of when the text was written (a claim
//!   quoted years later), so such a date is not read. Questions and rules keep their year-less
//!   dates: "Did it rain on March 3?", "the market will resolve Yes if … by June 30".
//! - **Several cued dates: the latest wins** — conservative, since the question is open at
//!   least until its last stated date (an extra date can only defer, never settle earlier).
//! - **Years outside 2000..=2100 are ignored** (a typo or a historical date, not a deadline).
//!   2100 itself counts: "sea level rise of 2 m by 2100" cannot be settled NO before 2100, so
//!   deferring it is right, and a reader that ignored it would let a NO settle now.
//!
//! Not read: relative dates ("by Friday", "next week", "within 30 days"), numeric dates
//! (`3/4/2026` is March or April depending on the reader) and dates without a cue. No cued
//! date → `None`: no deferral by this rule.

use chrono::{DateTime, Datelike as _, NaiveDate};
use serde::{Deserialize, Serialize};

/// A year-less date that would have closed more than this many days before the question was
/// asked is read in the next year (about two months: "on March 3" asked on March 20 is about
/// the past, "in March" asked in November is about next March).
pub const YEARLESS_PAST_DAYS: i64 = 61;

/// Years a date may name; any other year makes the date no deadline.
pub const YEARS: std::ops::RangeInclusive<i32> = 2000..=2100;

/// Anywhere on Earth: the offset a date without a zone is read in (seconds east of UTC).
const AOE: i32 = -12 * 3600;

const DAY: i64 = 86_400;

/// The word that introduced a deadline, which decides whether it closes at the start or the
/// end of its date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cue {
    /// `before`, `prior to`: closes at the start of the date.
    Before,
    /// `by`: closes at the end of the date.
    By,
    /// `on or before`.
    OnOrBefore,
    /// `no later than`, `not later than`.
    NoLaterThan,
    /// `through`, `thru`, `up to and including`.
    Through,
    /// `until`, `till`, `up until`.
    Until,
    /// `(by|before|at) the end of`: closes at the end of the date or period.
    EndOf,
    /// `between A and B`, `from A to B`: closes at the end of B.
    Between,
    /// `in`, `during`: a period (or day), closes at its end.
    In,
    /// `on`, `scheduled for`: an event on that day; closes at the end of the day.
    On,
    /// `for`: the day or month the outcome is about ("the candle for May 29", "the figure
    /// for March 2026"); closes at its end, as `on`.
    For,
}

impl Cue {
    /// The cue's name as it is serialised (`on_or_before`).
    pub fn as_str(self) -> &'static str {
        match self {
            Cue::Before => "before",
            Cue::By => "by",
            Cue::OnOrBefore => "on_or_before",
            Cue::NoLaterThan => "no_later_than",
            Cue::Through => "through",
            Cue::Until => "until",
            Cue::EndOf => "end_of",
            Cue::Between => "between",
            Cue::In => "in",
            Cue::On => "on",
            Cue::For => "for",
        }
    }
}

impl std::fmt::Display for Cue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A question's deadline: the instant its window closes, and where in the text it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deadline {
    /// Unix seconds: the instant the question's window closes. Before it only YES may settle.
    pub at: i64,
    /// The exact span of the text that was read (cue, date, time, zone).
    pub phrase: String,
    /// The cue word that decided start or end of the date.
    pub cue: Cue,
}

/// Read the question's deadline: the latest cued explicit date in `text`, as the instant it
/// closes. `asked_at` (unix seconds) only anchors year-less dates. `None` when no cued date is
/// found. Pure and total: never panics, whatever the input.
pub fn read_deadline(text: &str, asked_at: i64) -> Option<Deadline> {
    read_all(text, asked_at)
        .into_iter()
        .reduce(|best, d| if d.at > best.at { d } else { best })
}

/// Every cued date of `text`, in order of appearance (for the measurement and the tests).
pub fn read_all(text: &str, asked_at: i64) -> Vec<Deadline> {
    let toks = tokenize(text);
    let past = past_statements(&toks);
    let mut out = Vec::new();
    for i in 0..toks.len() {
        let Some(date) = parse_date(&toks, i) else {
            continue;
        };
        // A year-less date in a statement about the past names a day of some past year the
        // text does not give (the asking time is not when it was written): no deadline.
        if date.year.is_none() && past.get(i).copied().unwrap_or(false) {
            continue;
        }
        let Some((cue, first)) = cue_before(&toks, i) else {
            continue;
        };
        // "The end of the year/month" is read only after an end-of cue.
        let relative = date.year.is_none() && (date.unit == Unit::Year || date.month == 0);
        if !cue_fits(cue, date.unit) || (relative && cue != Cue::EndOf) {
            continue;
        }
        let Some(at) = close(cue, &date, asked_at) else {
            continue;
        };
        let (Some(a), Some(b)) = (toks.get(first), toks.get(date.last)) else {
            continue;
        };
        let Some(phrase) = text.get(a.start..b.end) else {
            continue;
        };
        out.push(Deadline {
            at,
            phrase: phrase.to_owned(),
            cue,
        });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Word,
    Num,
    Punct,
}

#[derive(Debug, Clone)]
struct Tok<'a> {
    kind: Kind,
    text: &'a str,
    /// Lowercase (ASCII) form of a word.
    lower: String,
    start: usize,
    end: usize,
    /// A line break stands between this token and the previous one.
    newline_before: bool,
}

impl Tok<'_> {
    fn is_word(&self, w: &str) -> bool {
        self.kind == Kind::Word && self.lower == w
    }

    fn is_punct(&self, c: char) -> bool {
        self.kind == Kind::Punct && self.text.starts_with(c)
    }

    /// The value of a number of at most 4 digits.
    fn num(&self) -> Option<u32> {
        if self.kind != Kind::Num || self.text.len() > 4 {
            return None;
        }
        self.text.parse().ok()
    }
}

/// Words (alphabetic runs), numbers (ASCII digit runs) and single punctuation characters.
fn tokenize(text: &str) -> Vec<Tok<'_>> {
    let mut toks = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut newline = false;
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            newline |= c == '\n' || c == '\r';
            continue;
        }
        let kind = if c.is_ascii_digit() {
            Kind::Num
        } else if c.is_alphabetic() {
            Kind::Word
        } else {
            Kind::Punct
        };
        let mut end = start + c.len_utf8();
        if kind != Kind::Punct {
            while let Some(&(i, n)) = chars.peek() {
                let same = match kind {
                    Kind::Num => n.is_ascii_digit(),
                    _ => n.is_alphabetic() && !n.is_ascii_digit(),
                };
                if !same {
                    break;
                }
                end = i + n.len_utf8();
                chars.next();
            }
        }
        let piece = text.get(start..end).unwrap_or_default();
        toks.push(Tok {
            kind,
            text: piece,
            lower: if kind == Kind::Word {
                piece.to_ascii_lowercase()
            } else {
                String::new()
            },
            start,
            end,
            newline_before: newline,
        });
        newline = false;
    }
    toks
}

/// Whether tokens `i` and `i + 1` touch (no space between them).
fn adjacent(toks: &[Tok<'_>], i: usize) -> bool {
    match (toks.get(i), toks.get(i + 1)) {
        (Some(a), Some(b)) => a.end == b.start,
        _ => false,
    }
}

/// Whether a sentence ends between token `i` and token `i + 1`: `?`, `!`, `;`, a line break,
/// or a full stop followed by a space.
fn sentence_ends_after(toks: &[Tok<'_>], i: usize) -> bool {
    let Some(t) = toks.get(i) else {
        return true;
    };
    if toks.get(i + 1).is_some_and(|n| n.newline_before) {
        return true;
    }
    t.is_punct('?') || t.is_punct('!') || t.is_punct(';') || (t.is_punct('.') && !adjacent(toks, i))
}

/// For each token, whether its sentence is a statement told in the past: it has a past
/// auxiliary (`was`, `were`, `had`, `did`, or their negations `wasn't` …), says neither `will`
/// nor `shall` (nor `'ll`), and is not a question. "Did it rain on March 3?" is a question
/// and "it was announced that the vote will be held on June 3" looks ahead: both read as
/// usual.
fn past_statements(toks: &[Tok<'_>]) -> Vec<bool> {
    let mut out = Vec::with_capacity(toks.len());
    let mut start = 0;
    for i in 0..toks.len() {
        if i + 1 < toks.len() && !sentence_ends_after(toks, i) {
            continue;
        }
        let sentence = toks.get(start..=i).unwrap_or_default();
        let past = sentence.iter().any(|t| {
            matches!(
                t.lower.as_str(),
                "was" | "were" | "had" | "did" | "wasn" | "weren" | "hadn" | "didn"
            )
        });
        let ahead = sentence
            .iter()
            .any(|t| t.is_punct('?') || matches!(t.lower.as_str(), "will" | "shall" | "ll"));
        out.resize(i + 1, past && !ahead);
        start = i + 1;
    }
    out
}

fn word<'t>(toks: &'t [Tok<'_>], i: usize) -> Option<&'t str> {
    toks.get(i)
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.lower.as_str())
}

// ---------------------------------------------------------------------------------------------
// Dates

/// The unit a date names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Day,
    Month,
    /// Quarter 1..=4.
    Quarter(u32),
    /// Half 1..=2.
    Half(u32),
    Year,
}

/// A time of day: seconds after midnight, and the precision it was stated with (60 for
/// `11:59 PM`, 1 for `11:59:59 PM`): an inclusive deadline closes at the end of that minute
/// or second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Time {
    secs: i64,
    precision: i64,
}

#[derive(Debug, Clone, Copy)]
struct DateExpr {
    unit: Unit,
    /// `None`: year-less, anchored to the asking time.
    year: Option<i32>,
    month: u32,
    day: u32,
    time: Option<Time>,
    /// Seconds east of UTC; `None`: Anywhere on Earth.
    zone: Option<i32>,
    /// The last token of the expression (time and zone included).
    last: usize,
}

const MONTHS: &[(&str, u32)] = &[
    ("january", 1),
    ("jan", 1),
    ("february", 2),
    ("feb", 2),
    ("march", 3),
    ("mar", 3),
    ("april", 4),
    ("apr", 4),
    ("may", 5),
    ("june", 6),
    ("jun", 6),
    ("july", 7),
    ("jul", 7),
    ("august", 8),
    ("aug", 8),
    ("september", 9),
    ("sept", 9),
    ("sep", 9),
    ("october", 10),
    ("oct", 10),
    ("november", 11),
    ("nov", 11),
    ("december", 12),
    ("dec", 12),
];

const WEEKDAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mon",
    "tue",
    "tues",
    "wed",
    "thu",
    "thur",
    "thurs",
    "fri",
    "sat",
    "sun",
];

/// The month a word names. "may" only capitalised ("May"): lowercase it is the verb.
fn month_at(toks: &[Tok<'_>], i: usize) -> Option<u32> {
    let t = toks.get(i)?;
    if t.kind != Kind::Word {
        return None;
    }
    if t.lower == "may" && !t.text.starts_with('M') {
        return None;
    }
    MONTHS
        .iter()
        .find(|(name, _)| *name == t.lower)
        .map(|&(_, m)| m)
}

/// After a month word: skip the abbreviation's full stop ("Jan.").
fn after_month(toks: &[Tok<'_>], i: usize) -> usize {
    if toks.get(i + 1).is_some_and(|t| t.is_punct('.')) && adjacent(toks, i) {
        i + 2
    } else {
        i + 1
    }
}

/// A day of the month at `i` (1..=31, optional ordinal suffix glued on): the day and the next
/// token. Not a time ("3:00"), a decimal ("1.5") or a thousands group ("1,500").
fn day_at(toks: &[Tok<'_>], i: usize) -> Option<(u32, usize)> {
    let t = toks.get(i)?;
    if t.text.len() > 2 {
        return None;
    }
    let d = t.num().filter(|d| (1..=31).contains(d))?;
    let mut next = i + 1;
    if adjacent(toks, i) && matches!(word(toks, i + 1), Some("st" | "nd" | "rd" | "th")) {
        next = i + 2;
    }
    // "in April 13 years ago": a count of time units, not the 13th.
    if matches!(
        word(toks, next),
        Some("years" | "months" | "weeks" | "days" | "hours" | "minutes" | "decades")
    ) {
        return None;
    }
    if next == i + 1 && adjacent(toks, i) {
        let n = toks.get(i + 1)?;
        let glued_number =
            adjacent(toks, i + 1) && toks.get(i + 2).is_some_and(|t| t.kind == Kind::Num);
        if (n.is_punct(':') || n.is_punct('.')) && glued_number {
            return None;
        }
        if n.is_punct(',') && glued_number && toks.get(i + 2).is_some_and(|t| t.text.len() == 3) {
            return None;
        }
        if n.kind == Kind::Word || n.is_punct('%') {
            return None;
        }
    }
    Some((d, next))
}

/// A year at `i`: four digits, or `'25` (2000 + 25). `Some(Err(()))` for a year outside
/// [`YEARS`], which makes the whole date no deadline.
fn year_at(toks: &[Tok<'_>], i: usize) -> Option<(Result<i32, ()>, usize)> {
    let t = toks.get(i)?;
    if (t.is_punct('\'') || t.is_punct('’')) && adjacent(toks, i) {
        let n = toks.get(i + 1)?;
        if n.text.len() == 2 {
            let y = 2000 + i32::try_from(n.num()?).ok()?;
            return Some((Ok(y), i + 2));
        }
        return None;
    }
    if t.kind != Kind::Num || t.text.len() != 4 {
        return None;
    }
    // "2025%", "2050s", "2000x": a quantity, not a year.
    if adjacent(toks, i)
        && let Some(n) = toks.get(i + 1)
        && (n.kind == Kind::Word || n.is_punct('%'))
    {
        return None;
    }
    let y = i32::try_from(t.num()?).ok()?;
    Some((if YEARS.contains(&y) { Ok(y) } else { Err(()) }, i + 1))
}

/// An optional year after a day or month (", 2026", " 2026", " '26").
fn optional_year(toks: &[Tok<'_>], i: usize) -> Option<(Option<i32>, usize)> {
    let j = if toks.get(i).is_some_and(|t| t.is_punct(',')) {
        i + 1
    } else {
        i
    };
    match year_at(toks, j) {
        Some((Ok(y), next)) => Some((Some(y), next)),
        Some((Err(()), _)) => None,
        None => Some((None, i)),
    }
}

/// A date starting at token `i` (without cue), with its time and zone.
fn parse_date(toks: &[Tok<'_>], i: usize) -> Option<DateExpr> {
    let (unit, year, month, day, next) = parse_calendar(toks, i)?;
    let mut date = DateExpr {
        unit,
        year,
        month,
        day,
        time: None,
        zone: None,
        last: next.checked_sub(1)?,
    };
    let mut j = next;
    if unit == Unit::Day
        && let Some((time, after, zone)) = parse_time(toks, j)
    {
        date.time = Some(time);
        date.last = after.checked_sub(1)?;
        date.zone = zone;
        j = after;
    }
    if date.zone.is_none()
        && let Some((zone, at)) = find_zone(toks, j)
    {
        date.zone = Some(zone);
        date.last = at;
    }
    Some(date)
}

/// The token after an optional "the" at `i`.
fn after_the(toks: &[Tok<'_>], i: usize) -> usize {
    if word(toks, i) == Some("the") {
        i + 1
    } else {
        i
    }
}

/// A calendar part: unit, year, month, day, and the token after it.
type Calendar = (Unit, Option<i32>, u32, u32, usize);

/// A form of calendar part at a token: `None` when the text there is not of that form, else
/// what it reads (`Some(None)`: of that form but no date, which ends the reading).
type Form = Option<Option<Calendar>>;

/// The calendar part at token `i`, trying each form in turn; a bare year last.
fn parse_calendar(toks: &[Tok<'_>], i: usize) -> Option<Calendar> {
    toks.get(i)?;
    iso_date(toks, i)
        .or_else(|| quarter_code(toks, i))
        .or_else(|| ordinal_part(toks, i))
        .or_else(|| day_first(toks, i))
        .or_else(|| month_first(toks, i))
        .or_else(|| this_year_or_month(toks, i))
        .unwrap_or_else(|| bare_year(toks, i))
}

/// ISO "2025-12-31".
fn iso_date(toks: &[Tok<'_>], i: usize) -> Form {
    let t = toks.get(i)?;
    if !(t.kind == Kind::Num && t.text.len() == 4 && adjacent(toks, i)) {
        return None;
    }
    let dash = |k: usize| toks.get(k).is_some_and(|t| t.is_punct('-')) && adjacent(toks, k);
    let two = |k: usize| {
        toks.get(k)
            .filter(|t| t.kind == Kind::Num && (1..=2).contains(&t.text.len()))
            .and_then(Tok::num)
    };
    if !(dash(i + 1) && adjacent(toks, i + 2) && dash(i + 3)) {
        return None;
    }
    let (m, d) = (two(i + 2)?, two(i + 4)?);
    let y = t
        .num()
        .and_then(|y| i32::try_from(y).ok())
        .filter(|y| YEARS.contains(y));
    let valid = (1..=12).contains(&m) && (1..=31).contains(&d);
    Some(
        y.filter(|_| valid)
            .map(|y| (Unit::Day, Some(y), m, d, i + 5)),
    )
}

/// Quarter "Q3 2026", half "H1 2026".
fn quarter_code(toks: &[Tok<'_>], i: usize) -> Form {
    let w = word(toks, i)?;
    let glued_word = adjacent(toks, i + 1) && word(toks, i + 2).is_some();
    if !((w == "q" || w == "h") && adjacent(toks, i) && !glued_word) {
        return None;
    }
    let n = toks.get(i + 1).and_then(Tok::num);
    let unit = match (w, n) {
        ("q", Some(q @ 1..=4)) => Unit::Quarter(q),
        ("h", Some(h @ 1..=2)) => Unit::Half(h),
        _ => return Some(None),
    };
    let mut k = i + 2;
    if word(toks, k) == Some("of") {
        k += 1;
    }
    Some(
        optional_year(toks, k)
            .map(|(year, next)| (unit, year, 1, 1, if year.is_some() { next } else { i + 2 })),
    )
}

/// "(the) first quarter (of) 2026", "(the) second half of 2026".
fn ordinal_part(toks: &[Tok<'_>], i: usize) -> Form {
    let k = after_the(toks, i);
    let n = match word(toks, k)? {
        "first" => 1,
        "second" => 2,
        "third" => 3,
        "fourth" | "last" | "final" => 4,
        _ => return None,
    };
    let unit = match word(toks, k + 1)? {
        "quarter" => Unit::Quarter(n),
        "half" if n <= 2 => Unit::Half(n),
        "half" if n == 4 => Unit::Half(2),
        _ => return None,
    };
    let mut j = k + 2;
    if word(toks, j) == Some("of") {
        j += 1;
    }
    Some(match year_at(toks, j) {
        Some((Ok(y), next)) => Some((unit, Some(y), 1, 1, next)),
        _ => None,
    })
}

/// Day first: "(the) 1(st) (of) April(.) (,) (2026)".
fn day_first(toks: &[Tok<'_>], i: usize) -> Form {
    let (d, mut j) = day_at(toks, after_the(toks, i))?;
    if word(toks, j) == Some("of") {
        j += 1;
    }
    let m = month_at(toks, j)?;
    Some(
        optional_year(toks, after_month(toks, j)).map(|(year, next)| (Unit::Day, year, m, d, next)),
    )
}

/// Month first: "(the) April(.) (the) 1(st)(,) (2026)", "March 2026", "March".
fn month_first(toks: &[Tok<'_>], i: usize) -> Form {
    let i = if word(toks, i) == Some("the") && month_at(toks, i + 1).is_some() {
        i + 1
    } else {
        i
    };
    let m = month_at(toks, i)?;
    let j = after_month(toks, i);
    let k = after_the(toks, j);
    if let Some((d, after)) = day_at(toks, k) {
        return Some(optional_year(toks, after).map(|(year, next)| (Unit::Day, year, m, d, next)));
    }
    // "January 32, 2026": no such day, and not "January" either.
    if toks.get(k).is_some_and(|t| t.kind == Kind::Num) && year_at(toks, k).is_none() {
        return Some(None);
    }
    Some(optional_year(toks, j).map(|found| match found {
        (Some(y), next) => (Unit::Month, Some(y), m, 1, next),
        (None, _) => (Unit::Month, list_year(toks, j), m, 1, j),
    }))
}

/// The end of "the year" / "this month": the asking time's (only after an end-of cue).
fn this_year_or_month(toks: &[Tok<'_>], i: usize) -> Form {
    if !matches!(word(toks, i), Some("the" | "this")) {
        return None;
    }
    Some(match word(toks, i + 1) {
        // "the year 2100".
        Some("year") => match year_at(toks, i + 2) {
            Some((y, next)) => y.ok().map(|y| (Unit::Year, Some(y), 1, 1, next)),
            None => Some((Unit::Year, None, 1, 1, i + 2)),
        },
        Some("month") => Some((Unit::Month, None, 0, 1, i + 2)),
        _ => None,
    })
}

/// A bare year "2026"; a season "2025-26" / "2025/2026" reads as its later year.
fn bare_year(toks: &[Tok<'_>], i: usize) -> Option<Calendar> {
    if toks.get(i.wrapping_sub(1)).is_some_and(|p| p.is_punct('$')) {
        return None;
    }
    let (y, next) = year_at(toks, i)?;
    let y = y.ok()?;
    let sep = toks
        .get(next)
        .is_some_and(|t| t.is_punct('-') || t.is_punct('/') || t.is_punct('–'));
    if sep
        && adjacent(toks, i)
        && adjacent(toks, next)
        && let Some(n) = toks.get(next + 1)
    {
        let later = match (n.text.len(), n.num()) {
            (2, Some(v)) => Some(y - y % 100 + i32::try_from(v).ok()?),
            (4, Some(v)) => i32::try_from(v).ok(),
            _ => None,
        };
        if let Some(later) = later.filter(|l| *l > y && *l <= y + 2) {
            if !YEARS.contains(&later) {
                return None;
            }
            return Some((Unit::Year, Some(later), 1, 1, next + 2));
        }
    }
    Some((Unit::Year, Some(y), 1, 1, next))
}

/// The year a list of months shares: "June, July and August 2017" → 2017 for June.
fn list_year(toks: &[Tok<'_>], mut j: usize) -> Option<i32> {
    for _ in 0..12 {
        let t = toks.get(j)?;
        if t.is_punct(',') || t.is_punct('&') || t.is_word("and") || t.is_word("or") {
            j += 1;
            continue;
        }
        month_at(toks, j)?;
        let after = after_month(toks, j);
        if let Some((Ok(y), _)) = year_at(toks, after) {
            return Some(y);
        }
        j = after;
    }
    None
}

/// A time of day after a date: "(,) (at) (() 11:59(:59) PM", "3 AM", "23:59", "T23:59:59Z";
/// the time, the token after it, and a zone glued on ("Z").
fn parse_time(toks: &[Tok<'_>], j: usize) -> Option<(Time, usize, Option<i32>)> {
    let j = skip_time_lead(toks, j);
    let h = toks
        .get(j)
        .filter(|t| t.text.len() <= 2)
        .and_then(Tok::num)?;
    let mut k = j + 1;
    let mut minutes = None;
    let mut seconds = None;
    let colon_num = |k: usize| {
        (toks.get(k).is_some_and(|t| t.is_punct(':')) && adjacent(toks, k - 1))
            .then(|| {
                toks.get(k + 1)
                    .filter(|t| t.text.len() == 2)
                    .and_then(Tok::num)
            })
            .flatten()
    };
    if let Some(m) = colon_num(k) {
        minutes = Some(m);
        k += 2;
        if let Some(s) = colon_num(k) {
            seconds = Some(s);
            k += 2;
        }
    }
    let (meridiem, mut k) = parse_meridiem(toks, k);
    if minutes.is_none() && meridiem.is_none() {
        return None;
    }
    let m = minutes.unwrap_or(0);
    let s = seconds.unwrap_or(0);
    if m > 59 || s > 59 {
        return None;
    }
    let hour = hour_of_day(h, meridiem, m == 0 && s == 0)?;
    let time = Time {
        secs: i64::from(hour) * 3600 + i64::from(m) * 60 + i64::from(s),
        precision: if seconds.is_some() { 1 } else { 60 },
    };
    // ISO "…T23:59:59Z".
    let mut zone = None;
    if toks.get(k).is_some_and(|t| t.text == "Z") && adjacent(toks, k - 1) {
        zone = Some(0);
        k += 1;
    }
    if toks.get(k).is_some_and(|t| t.is_punct(')')) {
        k += 1;
    }
    Some((time, k, zone))
}

/// Past what may lead a time: ISO's "T" glued to the date, or ",", "at", "(", "@".
fn skip_time_lead(toks: &[Tok<'_>], mut j: usize) -> usize {
    let iso_t = toks.get(j).is_some_and(|t| t.text == "T") && j > 0 && adjacent(toks, j - 1);
    if iso_t {
        return j + 1;
    }
    for skip in [",", "at", "(", "@"] {
        if toks
            .get(j)
            .is_some_and(|t| t.text == skip || t.lower == skip)
        {
            j += 1;
        }
    }
    j
}

/// am / pm / a.m. / p.m. at `k`: `Some(true)` for pm, and the index past it.
fn parse_meridiem(toks: &[Tok<'_>], k: usize) -> (Option<bool>, usize) {
    match word(toks, k) {
        Some("am") => (Some(false), k + 1),
        Some("pm") => (Some(true), k + 1),
        Some(w @ ("a" | "p"))
            if toks.get(k + 1).is_some_and(|t| t.is_punct('.'))
                && word(toks, k + 2) == Some("m") =>
        {
            let k = k + 3;
            let dot = toks.get(k).is_some_and(|t| t.is_punct('.')) && adjacent(toks, k - 1);
            (Some(w == "p"), if dot { k + 1 } else { k })
        }
        _ => (None, k),
    }
}

/// The 24-hour hour of `h` on a 12-hour clock (`meridiem`) or a 24-hour one, where 24 is
/// only midnight on the dot (`on_the_hour`); `None` for an hour no clock shows.
fn hour_of_day(h: u32, meridiem: Option<bool>, on_the_hour: bool) -> Option<u32> {
    match meridiem {
        Some(_) if h > 12 => None,
        Some(pm) => Some((h % 12) + if pm { 12 } else { 0 }),
        None if h <= 23 || (h == 24 && on_the_hour) => Some(h),
        None => None,
    }
}

/// An explicit time zone within the next few tokens of the same sentence (before another
/// month word): its offset (seconds east of UTC) and its last token.
fn find_zone(toks: &[Tok<'_>], from: usize) -> Option<(i32, usize)> {
    for k in from..from.saturating_add(12) {
        let t = toks.get(k)?;
        if k > from && sentence_ends_after(toks, k - 1) {
            return None;
        }
        if month_at(toks, k).is_some() {
            return None;
        }
        if t.kind != Kind::Word {
            continue;
        }
        if let Some(z) = abbreviation_offset(t) {
            return Some((z, k));
        }
        if matches!(t.lower.as_str(), "utc" | "gmt") {
            return utc_offset(toks, k);
        }
        if word(toks, k + 1) == Some("time")
            && let Some(z) = named_zone_offset(&t.lower)
        {
            return Some((z, k + 1));
        }
    }
    None
}

/// Seconds in an hour, for zone offsets.
const HOUR: i32 = 3600;

/// The offset of a zone abbreviation: in capitals only ("ET", "CEST"; "et" is a word), but
/// "AoE" in any case.
fn abbreviation_offset(t: &Tok<'_>) -> Option<i32> {
    let upper = t.text.chars().all(|c| c.is_ascii_uppercase());
    match (t.lower.as_str(), upper) {
        ("et" | "est", true) => Some(-5 * HOUR),
        ("edt", true) => Some(-4 * HOUR),
        ("ct" | "cst", true) => Some(-6 * HOUR),
        ("cdt", true) => Some(-5 * HOUR),
        ("mt" | "mst", true) => Some(-7 * HOUR),
        ("mdt", true) => Some(-6 * HOUR),
        ("pt" | "pst", true) => Some(-8 * HOUR),
        ("pdt", true) => Some(-7 * HOUR),
        ("bst" | "cet", true) => Some(HOUR),
        ("cest", true) => Some(2 * HOUR),
        ("jst", true) => Some(9 * HOUR),
        ("aoe", _) => Some(AOE),
        _ => None,
    }
}

/// "UTC" or "GMT" at token `k`, with the offset written right after it ("UTC+2", "GMT-5",
/// "UTC+05:30") or none (0): the offset and its last token; `None` for an offset out of range.
fn utc_offset(toks: &[Tok<'_>], k: usize) -> Option<(i32, usize)> {
    let sign = toks.get(k + 1).and_then(|s| {
        if !adjacent(toks, k) {
            None
        } else if s.is_punct('+') {
            Some(1)
        } else if s.is_punct('-') || s.is_punct('−') {
            Some(-1)
        } else {
            None
        }
    });
    let Some(sign) = sign else {
        return Some((0, k));
    };
    let Some(h) = toks.get(k + 2).and_then(Tok::num).filter(|h| *h <= 14) else {
        return Some((0, k));
    };
    let mut last = k + 2;
    let mut minutes = 0;
    if toks.get(k + 3).is_some_and(|t| t.is_punct(':'))
        && let Some(m) = toks.get(k + 4).and_then(Tok::num).filter(|m| *m < 60)
    {
        minutes = m;
        last = k + 4;
    }
    let secs = i32::try_from(h * 3600 + minutes * 60).ok()?;
    Some((sign * secs, last))
}

/// The offset of a zone named before "time" ("Eastern time", "London time").
fn named_zone_offset(name: &str) -> Option<i32> {
    match name {
        "eastern" => Some(-5 * HOUR),
        "central" => Some(-6 * HOUR),
        "mountain" => Some(-7 * HOUR),
        "pacific" => Some(-8 * HOUR),
        "london" | "uk" | "greenwich" => Some(0),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Cues

/// The cue that ends right before token `i` (a weekday may stand between): the cue and its
/// first token.
fn cue_before(toks: &[Tok<'_>], i: usize) -> Option<(Cue, usize)> {
    let i = before_weekday(toks, i);
    let w = |back: usize| -> Option<&str> { i.checked_sub(back).and_then(|k| word(toks, k)) };
    // End of: "(by|before|at|until|through) (the) end of".
    if w(1) == Some("of") && w(2) == Some("end") {
        let mut first = i - 2;
        if w(3) == Some("the") {
            first = i - 3;
        }
        if let Some(k) = first.checked_sub(1)
            && matches!(
                word(toks, k),
                Some("by" | "before" | "at" | "until" | "through" | "till")
            )
        {
            first = k;
        }
        return Some((Cue::EndOf, first));
    }
    let three = (w(3), w(2), w(1));
    match three {
        (Some("on"), Some("or"), Some("before")) => return Some((Cue::OnOrBefore, i - 3)),
        (Some("no" | "not"), Some("later"), Some("than")) => {
            return Some((Cue::NoLaterThan, i - 3));
        }
        _ => {}
    }
    if (w(4), w(3), w(2), w(1)) == (Some("up"), Some("to"), Some("and"), Some("including")) {
        return Some((Cue::Through, i - 4));
    }
    match (w(2), w(1)) {
        (Some("prior"), Some("to")) => return Some((Cue::Before, i - 2)),
        (Some("up"), Some("until")) => return Some((Cue::Until, i - 2)),
        (Some("scheduled"), Some("for" | "on")) => return Some((Cue::On, i - 2)),
        _ => {}
    }
    let one = w(1)?;
    let k = i - 1;
    let cue = match one {
        "before" => Cue::Before,
        "by" => Cue::By,
        "through" | "thru" => Cue::Through,
        "until" | "till" | "til" => Cue::Until,
        "in" | "during" => Cue::In,
        "on" => Cue::On,
        "for" => Cue::For,
        "and" => return range_start(toks, k, "between").map(|s| (Cue::Between, s)),
        "to" => return range_start(toks, k, "from").map(|s| (Cue::Between, s)),
        _ => return None,
    };
    Some((cue, k))
}

/// "on Friday, March 21": the cue comes before the weekday (and its comma) that precedes
/// the date at `i`.
fn before_weekday(toks: &[Tok<'_>], i: usize) -> usize {
    if i >= 1
        && toks.get(i - 1).is_some_and(|t| t.is_punct(','))
        && i >= 2
        && is_weekday(toks, i - 2)
    {
        i - 2
    } else if i >= 1 && is_weekday(toks, i - 1) {
        i - 1
    } else {
        i
    }
}

fn is_weekday(toks: &[Tok<'_>], i: usize) -> bool {
    word(toks, i).is_some_and(|w| WEEKDAYS.contains(&w))
}

/// The `opener` ("between", "from") of a range whose second date follows token `joint`,
/// looked for in the same sentence within 24 tokens.
fn range_start(toks: &[Tok<'_>], joint: usize, opener: &str) -> Option<usize> {
    let mut k = joint;
    for _ in 0..24 {
        k = k.checked_sub(1)?;
        if sentence_ends_after(toks, k) {
            return None;
        }
        if word(toks, k) == Some(opener) {
            return Some(k);
        }
    }
    None
}

/// Which units a cue may take: `on` and `for` only a day or a month ("based on 2024 data",
/// "for 2024" are no deadline); every other cue any unit.
fn cue_fits(cue: Cue, unit: Unit) -> bool {
    !matches!(cue, Cue::On | Cue::For) || matches!(unit, Unit::Day | Unit::Month)
}

// ---------------------------------------------------------------------------------------------
// Closing instants

/// The instant the cued date closes; year-less dates are anchored to `asked_at`.
fn close(cue: Cue, date: &DateExpr, asked_at: i64) -> Option<i64> {
    match date.year {
        Some(y) => close_in(cue, date, y, asked_at),
        None => {
            let asked = DateTime::from_timestamp(asked_at, 0)?;
            let year = asked.year();
            let this = close_in(cue, date, year, asked_at);
            match this {
                Some(at) if at >= asked_at.saturating_sub(YEARLESS_PAST_DAYS * DAY) => Some(at),
                // Past by more than two months, or no such day this year (29 February).
                _ => close_in(cue, date, year.checked_add(1)?, asked_at),
            }
        }
    }
}

/// The closing instant of `date` read in `year`.
fn close_in(cue: Cue, date: &DateExpr, year: i32, asked_at: i64) -> Option<i64> {
    if !YEARS.contains(&year) {
        return None;
    }
    let zone = i64::from(date.zone.unwrap_or(AOE));
    let (start, end) = match date.unit {
        Unit::Day => {
            let d = NaiveDate::from_ymd_opt(year, date.month, date.day)?;
            let start = days(d)? * DAY - zone;
            (start, start + DAY)
        }
        Unit::Month => {
            // Month 0: "the end of the month", the asking time's month.
            let month = if date.month == 0 {
                DateTime::from_timestamp(asked_at, 0)?.month()
            } else {
                date.month
            };
            period(year, month, 1, zone)?
        }
        Unit::Quarter(q) => period(year, 3 * q - 2, 3, zone)?,
        Unit::Half(h) => period(year, 6 * h - 5, 6, zone)?,
        Unit::Year => period(year, 1, 12, zone)?,
    };
    let at = match (cue, date.unit, date.time) {
        (Cue::Before, Unit::Day, Some(t)) => start + t.secs,
        (Cue::Before, _, _) => start,
        (Cue::On | Cue::For | Cue::In, _, _) => end,
        (_, Unit::Day, Some(t)) => start + t.secs + t.precision,
        _ => end,
    };
    Some(at)
}

/// Start and end (unix seconds) of `len` months from `year`-`month`-01, in `zone`.
fn period(year: i32, month: u32, len: u32, zone: i64) -> Option<(i64, i64)> {
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let m = month + len; // at most 13
    let next = if m > 12 {
        NaiveDate::from_ymd_opt(year.checked_add(1)?, m - 12, 1)?
    } else {
        NaiveDate::from_ymd_opt(year, m, 1)?
    };
    Some((days(first)? * DAY - zone, days(next)? * DAY - zone))
}

/// Days from 1970-01-01.
fn days(d: NaiveDate) -> Option<i64> {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1)?;
    Some(d.signed_duration_since(epoch).num_days())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Unix seconds of an RFC 3339 instant.
    fn ts(s: &str) -> i64 {
        DateTime::parse_from_rfc3339(s).unwrap().timestamp()
    }

    /// The reading of `text` asked at `asked` (RFC 3339): (closing instant, cue, phrase).
    fn read(text: &str, asked: &str) -> Option<(i64, Cue, String)> {
        read_deadline(text, ts(asked)).map(|d| (d.at, d.cue, d.phrase))
    }

    /// The closing instant of `text` asked on 20 January 2026.
    fn at(text: &str) -> Option<i64> {
        read(text, "2026-01-20T00:00:00Z").map(|(at, _, _)| at)
    }

    const ASKED: &str = "2026-01-20T00:00:00Z";

    #[test]
    fn before_closes_at_the_start_of_the_day_anywhere_on_earth() {
        let got = read(
            "Will the ferry resume service before 1 February 2026?",
            ASKED,
        );
        assert_eq!(
            got,
            Some((
                ts("2026-02-01T12:00:00Z"),
                Cue::Before,
                "before 1 February 2026".to_owned()
            ))
        );
        assert_eq!(
            at("prior to April 1, 2026"),
            Some(ts("2026-04-01T12:00:00Z"))
        );
    }

    #[test]
    fn inclusive_cues_close_at_the_end_of_the_day() {
        let end = Some(ts("2026-04-02T12:00:00Z"));
        for (text, cue) in [
            ("Will it launch by April 1, 2026?", Cue::By),
            ("on or before 1 April 2026", Cue::OnOrBefore),
            ("no later than April 1, 2026", Cue::NoLaterThan),
            ("not later than 1st April 2026", Cue::NoLaterThan),
            ("through April 1, 2026", Cue::Through),
            ("thru 2026-04-01", Cue::Through),
            ("until April 1st, 2026", Cue::Until),
            ("up to and including April 1, 2026", Cue::Through),
            ("by the 1st of April 2026", Cue::By),
            ("by the end of April 1, 2026", Cue::EndOf),
        ] {
            let got = read(text, ASKED).unwrap_or_else(|| panic!("{text}: no deadline"));
            assert_eq!((Some(got.0), got.1), (end, cue), "{text}");
        }
    }

    #[test]
    fn an_event_on_a_day_is_not_known_before_the_day_ends_whatever_its_time() {
        assert_eq!(
            read("Will the vote pass on March 3, 2025?", ASKED),
            Some((
                ts("2025-03-04T12:00:00Z"),
                Cue::On,
                "on March 3, 2025".to_owned()
            ))
        );
        // A game at 2:10 PM ET: the end of that day in ET (its later, standard offset).
        assert_eq!(
            read(
                "In the upcoming MLB game, scheduled for June 7 at 2:10PM ET:",
                "2025-06-06T08:00:00Z"
            ),
            Some((
                ts("2025-06-08T05:00:00Z"),
                Cue::On,
                "scheduled for June 7 at 2:10PM ET".to_owned()
            ))
        );
        // "for (the) DATE": the day the outcome is about.
        assert_eq!(
            read(
                "for the May 29 2025 1 hour candle that begins at 7AM ET.",
                "2025-05-28T00:00:00Z"
            ),
            Some((
                ts("2025-05-30T05:00:00Z"),
                Cue::For,
                "for the May 29 2025 1 hour candle that begins at 7AM ET".to_owned()
            ))
        );
        assert_eq!(at("forecast for 2026"), None);
        assert_eq!(
            at("on Friday, March 21, 2025"),
            Some(ts("2025-03-22T12:00:00Z"))
        );
    }

    #[test]
    fn periods_close_at_their_end_and_before_a_period_at_its_start() {
        for (text, end) in [
            ("by the end of 2026", "2027-01-01T12:00:00Z"),
            ("by end of March 2026", "2026-04-01T12:00:00Z"),
            ("in Q3 2026", "2026-10-01T12:00:00Z"),
            ("in the third quarter of 2026", "2026-10-01T12:00:00Z"),
            ("during H1 2026", "2026-07-01T12:00:00Z"),
            ("in March 2026", "2026-04-01T12:00:00Z"),
            ("in March, 2026", "2026-04-01T12:00:00Z"),
            ("in 2026", "2027-01-01T12:00:00Z"),
            ("by the year 2030", "2031-01-01T12:00:00Z"),
            ("before 2027", "2027-01-01T12:00:00Z"),
            ("before Q2 2026", "2026-04-01T12:00:00Z"),
            ("in the 2026-27 season? in 2026-27", "2028-01-01T12:00:00Z"),
        ] {
            assert_eq!(at(text), Some(ts(end)), "{text}");
        }
    }

    #[test]
    fn explicit_zones_are_honoured() {
        for (text, end) in [
            ("by December 31, 2025, 11:59 PM ET", "2026-01-01T05:00:00Z"),
            ("by March 30, 2025 (11:59:59 PM ET)", "2025-03-31T05:00:00Z"),
            ("by May 31, 2025, 23:59 UTC", "2025-06-01T00:00:00Z"),
            ("by May 31, 2025 11:59 p.m. PT", "2025-06-01T08:00:00Z"),
            ("by May 31, 2025, 11:59 PM EDT", "2025-06-01T04:00:00Z"),
            ("by 2025-05-31T12:00:00Z", "2025-05-31T12:00:01Z"),
            ("by 1 April 2026 (UTC+2)", "2026-04-01T22:00:00Z"),
            ("by April 30, 2025 Eastern Time", "2025-05-01T05:00:00Z"),
            (
                "before the end of June 18, 2025 (London time)?",
                "2025-06-19T00:00:00Z",
            ),
            (
                "on 21 Mar '25 12:00 in the ET timezone (noon)",
                "2025-03-22T05:00:00Z",
            ),
            ("before June 1, 2026 at 9 AM ET", "2026-06-01T14:00:00Z"),
        ] {
            assert_eq!(at(text), Some(ts(end)), "{text}");
        }
        // A zone word in the next sentence is not this date's zone; nor is a lowercase "et".
        assert_eq!(
            at("by April 1, 2026. ET fans wait."),
            Some(ts("2026-04-02T12:00:00Z"))
        );
        assert_eq!(
            at("by April 1, 2026 et al"),
            Some(ts("2026-04-02T12:00:00Z"))
        );
    }

    #[test]
    fn the_twelve_hour_clock_runs_from_12_am_to_11_pm() {
        let read_at = |text: &str| read(text, ASKED).map(|(at, _, phrase)| (at, phrase));
        for (time, closes) in [
            ("12 AM", "2026-03-03T00:00:00Z"),
            ("12:30 a.m.", "2026-03-03T00:30:00Z"),
            // "0 AM" is read as midnight too (no clock shows it, but it is unambiguous).
            ("0 AM", "2026-03-03T00:00:00Z"),
            ("12 PM", "2026-03-03T12:00:00Z"),
            ("11:59 PM", "2026-03-03T23:59:00Z"),
        ] {
            let text = format!("before March 3, 2026 at {time} UTC");
            assert_eq!(read_at(&text), Some((ts(closes), text.clone())), "{time}");
        }
        // No 12-hour clock shows 13: the time is not read, so the date (in its zone) closes.
        let text = "before March 3, 2026 at 13 PM UTC";
        assert_eq!(
            read_at(text),
            Some((ts("2026-03-03T00:00:00Z"), text.to_owned()))
        );
    }

    #[test]
    fn between_and_from_close_at_their_second_date() {
        let text = "if Donald Trump mentions the listed term between April 12, 00:00 AM ET and \
                    April 18, 2025, 11:59 PM ET. Otherwise No.";
        assert_eq!(
            read(text, "2025-04-12T01:35:41Z"),
            Some((
                ts("2025-04-19T05:00:00Z"),
                Cue::Between,
                "between April 12, 00:00 AM ET and April 18, 2025, 11:59 PM ET".to_owned()
            ))
        );
        assert_eq!(
            at("from June 1, 2026 to June 30, 2026"),
            Some(ts("2026-07-01T12:00:00Z"))
        );
        // "and" without a "between" in the same sentence is no cue.
        assert_eq!(at("Between us. Cats and April 18, 2026"), None);
    }

    #[test]
    fn yearless_dates_take_the_asking_year_or_the_next_when_long_past() {
        // Asked in May: "before June" is this June.
        assert_eq!(
            read(
                "Will Russia capture Yunakivka before June?",
                "2025-05-10T00:00:00Z"
            )
            .map(|r| r.0),
            Some(ts("2025-06-01T12:00:00Z"))
        );
        // Two weeks past: still this year (the deadline has passed).
        assert_eq!(
            read("Did it rain on March 3?", "2026-03-20T00:00:00Z").map(|r| r.0),
            Some(ts("2026-03-04T12:00:00Z"))
        );
        // "in March" asked in November: next March.
        assert_eq!(
            read("Will it pass in March?", "2026-11-29T00:00:00Z").map(|r| r.0),
            Some(ts("2027-04-01T12:00:00Z"))
        );
        // Exactly at the boundary: closed YEARLESS_PAST_DAYS days before asking stays.
        let asked = ts("2026-03-04T12:00:00Z") + YEARLESS_PAST_DAYS * DAY;
        assert_eq!(
            read_deadline("on March 3", asked).map(|d| d.at),
            Some(ts("2026-03-04T12:00:00Z"))
        );
        assert_eq!(
            read_deadline("on March 3", asked + 1).map(|d| d.at),
            Some(ts("2027-03-04T12:00:00Z"))
        );
        // 29 February with no such day this year: the next year that has... none, so none.
        assert_eq!(read("by February 29", "2026-01-20T00:00:00Z"), None);
        assert_eq!(
            read("by February 29", "2027-12-20T00:00:00Z").map(|r| r.0),
            Some(ts("2028-03-01T12:00:00Z"))
        );
        // A list of months shares its year.
        assert_eq!(
            read(
                "heat spread in June, July and August 2017",
                "2026-11-29T00:00:00Z"
            )
            .map(|r| r.0),
            Some(ts("2017-07-01T12:00:00Z"))
        );
        // An asking time no calendar holds: year-less dates are not read, dated ones are.
        assert_eq!(read_deadline("before June", i64::MAX), None);
        assert_eq!(
            read_deadline("before June 2026", i64::MIN).map(|d| d.at),
            Some(ts("2026-06-01T12:00:00Z"))
        );
    }

    #[test]
    fn a_yearless_date_in_a_statement_about_the_past_is_no_deadline() {
        // CLIMATE-FEVER claims, asked in November: "May", "July 22" and "April" are of a year
        // the claim does not give, not next year's.
        for claim in [
            "Extreme high temperatures were seen from India — where the city of Phalodi recorded \
             temperatures of 51 degrees Celsius (123.8 Fahrenheit) in May, a new national record \
             — to Iran, where a temperature of 53 degrees Celsius (127.4 F) was recorded in \
             Delhoran on July 22.",
            "When the Emergency Leaders for Climate Action approached the Federal Government in \
             April they were drawing on decades of data showing that fire conditions are getting \
             worse.",
            "In April the extent of Arctic sea ice was back to where it was in April 13 years ago",
            "By the end of the year, emissions had fallen.",
        ] {
            assert_eq!(read(claim, "2026-11-29T00:00:00Z"), None, "{claim}");
        }
        // A dated date in the past is still read (it has passed: no deferral either way).
        assert_eq!(
            read("The record was set in May 2017.", ASKED).map(|r| r.0),
            Some(ts("2017-06-01T12:00:00Z"))
        );
        // A question, or a sentence that looks ahead, keeps its year-less dates; the past
        // tense of another sentence does not reach them.
        for (text, end) in [
            ("Did it rain on March 3?", "2026-03-04T12:00:00Z"),
            (
                "It was announced that the vote will be held on March 3.",
                "2026-03-04T12:00:00Z",
            ),
            (
                "The talks were delayed. Resolves Yes if they resume by March 3.",
                "2026-03-04T12:00:00Z",
            ),
            (
                "It'll pass on March 3, as it did before.",
                "2026-03-04T12:00:00Z",
            ),
        ] {
            assert_eq!(
                read(text, "2026-02-20T00:00:00Z").map(|r| r.0),
                Some(ts(end)),
                "{text}"
            );
        }
    }

    #[test]
    fn a_count_of_time_units_after_a_month_is_not_a_day() {
        assert_eq!(
            read(
                "Will sea ice be back where it stood in April 13 years ago?",
                "2026-01-20T00:00:00Z"
            ),
            None
        );
        assert_eq!(at("by April 3 weeks after the vote"), None);
        // A day with a year, or followed by anything else, still reads.
        assert_eq!(
            at("by April 13 2027 years after the vote"),
            Some(ts("2027-04-14T12:00:00Z"))
        );
        assert_eq!(at("by April 13 at noon"), Some(ts("2026-04-14T12:00:00Z")));
    }

    #[test]
    fn the_end_of_the_year_or_month_is_the_asking_times() {
        assert_eq!(
            read("by the end of the year", "2026-05-01T00:00:00Z").map(|r| r.0),
            Some(ts("2027-01-01T12:00:00Z"))
        );
        assert_eq!(
            read("before the end of this month", "2026-05-10T00:00:00Z").map(|r| r.0),
            Some(ts("2026-06-01T12:00:00Z"))
        );
        // Without an end-of cue it is no date.
        assert_eq!(read("the best film in the year", ASKED), None);
    }

    #[test]
    fn the_latest_cued_date_wins() {
        let text = "Resolves Yes if it opens by March 1, 2026. If it is delayed, the market stays \
                    open until June 30, 2026. Announced on January 5, 2026.";
        let d = read_deadline(text, ts(ASKED)).unwrap();
        assert_eq!(d.at, ts("2026-07-01T12:00:00Z"));
        assert_eq!(
            (d.cue, d.phrase.as_str()),
            (Cue::Until, "until June 30, 2026")
        );
        assert_eq!(read_all(text, ts(ASKED)).len(), 3);
        // The first of equal readings is kept.
        let d = read_deadline("by 2026-03-01 or by March 1, 2026", ts(ASKED)).unwrap();
        assert_eq!(d.phrase, "by 2026-03-01");
    }

    #[test]
    fn no_cue_or_no_date_or_no_plausible_year_is_no_deadline() {
        for text in [
            "",
            "Is the sky blue?",
            "Global warming is driving polar bears toward extinction",
            "Cases rose since January 1, 2025 according to the CDC.",
            "March 3, 2026",
            "in the 2025 UEFA Nations League Final",
            "based on 2024 data",
            "by 1999",
            "by 2101",
            "by March 3, 1988",
            "by 32 January 2026",
            "by January 32, 2026",
            "by 31 February 2026",
            "by 2026-02-30",
            "by 2026-13-01",
            "prices may rise by 5% in may",
            "rise by 2050%",
            "by $2030",
            "by 2030s",
            "by Friday?",
            "by 3 people",
            "in the year",
            "by 3:00",
            "by the end of",
            "between",
        ] {
            assert_eq!(at(text), None, "{text:?}");
        }
    }

    #[test]
    fn far_years_up_to_2100_count() {
        assert_eq!(
            at("Sea level rise could reach six or seven feet by the year 2100."),
            Some(ts("2101-01-01T12:00:00Z"))
        );
        assert_eq!(at("by 2100"), Some(ts("2101-01-01T12:00:00Z")));
    }

    #[test]
    fn abbreviations_ordinals_and_iso_dates_read() {
        for (text, end) in [
            ("by Jan. 5, 2026", "2026-01-06T12:00:00Z"),
            ("by Sept 3 2026", "2026-09-04T12:00:00Z"),
            ("by Sept. 3rd, 2026", "2026-09-04T12:00:00Z"),
            ("by 2nd Dec 2026", "2026-12-03T12:00:00Z"),
            ("by 2025-12-31", "2026-01-01T12:00:00Z"),
            ("by DECEMBER 31, 2025", "2026-01-01T12:00:00Z"),
            ("by May 31,2025", "2025-06-01T12:00:00Z"),
        ] {
            assert_eq!(at(text), Some(ts(end)), "{text}");
        }
    }

    #[test]
    fn hostile_input_neither_panics_nor_reads_nonsense() {
        let big = "by 1 April 2026, ".repeat(700) + "and finally by May 3, 2026.";
        assert!(big.len() > 10_000);
        assert_eq!(at(&big), Some(ts("2026-05-04T12:00:00Z")));
        let noise: String = (0..12_000u32)
            .filter_map(char::from_u32)
            .filter(|c| !c.is_control())
            .collect();
        let _ = at(&noise);
        for text in [
            "by 1 April 2026 — ☃ 日本語 by 𝔐arch 3",
            "by ９ April 2026",
            "by 1\u{0301} April",
            "by 99999999999999999999 April 2026",
            "by 2026-",
            "by 2026-12-",
            "by Q",
            "by Q9 2026",
            "on 21 Mar '",
            "by March 3, 2026 at 25:00",
            "by March 3, 2026 at 13 PM",
            "by March 3, 2026 UTC+",
            "by March 3, 2026 UTC+99",
            "''''''",
            "by by by by",
        ] {
            let got = read_deadline(text, ts(ASKED));
            if let Some(d) = got {
                assert!(text.contains(&d.phrase), "{text}");
            }
        }
        // A full-width digit is not an ASCII digit: no date there.
        assert_eq!(at("by ９ April 2026"), None);
        assert_eq!(
            at("by March 3, 2026 at 25:00"),
            Some(ts("2026-03-04T12:00:00Z"))
        );
    }

    #[test]
    fn the_reading_is_stored_in_snake_case_and_reads_back() {
        let d = read_deadline("on or before 1 April 2026", ts(ASKED)).unwrap();
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["cue"], "on_or_before");
        assert_eq!(json["phrase"], "on or before 1 April 2026");
        assert_eq!(serde_json::from_value::<Deadline>(json).unwrap(), d);
        assert_eq!(Cue::NoLaterThan.to_string(), "no_later_than");
    }

    /// Words and pieces of dates, so the generated texts hit the parser's paths.
    fn datey_text() -> impl Strategy<Value = String> {
        let vocab = prop::sample::select(vec![
            "by",
            "before",
            "on",
            "in",
            "until",
            "through",
            "between",
            "and",
            "from",
            "to",
            "the",
            "end",
            "of",
            "or",
            "no",
            "later",
            "than",
            "prior",
            "scheduled",
            "for",
            "Friday",
            ",",
            ".",
            "?",
            "\n",
            ":",
            "'25",
            "March",
            "May",
            "may",
            "April",
            "Jan",
            "Jan.",
            "Sept",
            "1",
            "3rd",
            "15",
            "31",
            "32",
            "2025",
            "2026",
            "1999",
            "2101",
            "2100",
            "2025-12-31",
            "2025-26",
            "Q3",
            "H2",
            "first",
            "quarter",
            "half",
            "year",
            "this",
            "month",
            "at",
            "11:59",
            "PM",
            "p.m.",
            "ET",
            "UTC",
            "UTC+2",
            "London",
            "time",
            "Z",
            "T",
            "日本",
            "☃",
        ]);
        prop::collection::vec(vocab, 0..40).prop_map(|w| w.join(" "))
    }

    const MONTH_NAMES: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];

    proptest! {
        #[test]
        fn never_panics_and_the_phrase_is_in_the_text(text in "\\PC{0,300}", asked in any::<i64>()) {
            if let Some(d) = read_deadline(&text, asked) {
                prop_assert!(!d.phrase.is_empty() && text.contains(&d.phrase));
            }
        }

        #[test]
        fn datey_texts_never_panic(text in datey_text(), asked in 946_684_800i64..4_102_444_800) {
            if let Some(d) = read_deadline(&text, asked) {
                prop_assert!(text.contains(&d.phrase));
            }
        }

        /// Appending a sentence with a later cued date never makes the reading earlier, and
        /// the later date is read.
        #[test]
        fn an_appended_later_date_never_reads_earlier(
            text in prop_oneof![datey_text(), "\\PC{0,200}"],
            asked in 946_684_800i64..4_102_444_800,
            year in 2000i32..=2100,
            month in 0usize..12,
            day in 1u32..=28,
            cue in prop::sample::select(vec!["by", "before", "until", "on or before", "through"]),
        ) {
            let sentence = format!("It must happen {cue} {day} {} {year}.", MONTH_NAMES[month]);
            let original = read_deadline(&text, asked);
            let added = read_deadline(&sentence, asked).map(|d| d.at);
            prop_assert!(added.is_some());
            let combined = read_deadline(&format!("{text}. {sentence}"), asked).map(|d| d.at);
            prop_assert!(combined >= original.map(|d| d.at));
            prop_assert!(combined >= added);
        }
    }
}
