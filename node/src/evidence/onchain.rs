//! Evidence submitted on-chain (`submitEvidence`): the question's items as hits, and what the
//! bundle rules made of each one (pure).
//!
//! The daemon's watcher stores every confirmed `EvidenceSubmitted` log; the job pipeline hands
//! the question's items to [`crate::pipeline::resolve`], which offers them to the bundle rules
//! as the hits of one more collector, `onchain` (`source: "submitted"`, `submitter` = the
//! address, ranked by submission order, no publication date). They then pass the same URL
//! normalisation, deduplication and date cutoff as every other hit, inside the reserved room
//! of `max_submitted` slots.
//!
//! The report lists every item the node stored ([`SubmissionsRecord`]) with its link of the
//! contract's evidence hash chain and its fate: `included` (it is bundle item N), `merged` (its
//! URL is item N, whose text came from a better-ranked hit), `dropped` (with the bundle rule's
//! reason), `not_utf8` (text that is not UTF-8 cannot be committed as JSON text) or
//! `not_considered` (the resolver did not look at evidence). `veritas audit` recomputes each
//! link and, with `--rpc`, checks that the list is the chain's.

use alloy::primitives::{Address, B256};
use serde::{Deserialize, Serialize};

use crate::bundle::{EvidenceItem, Source};
use crate::evidence::bundle_rules::{DropReason, Dropped};
use crate::evidence::collectors::{CollectorHits, Hit, clean_hit};
use crate::evidence::normalize::normalize_url;
use crate::evidence::text;

/// The name of the on-chain submissions' collector in the report's `search.raw_hits`.
pub const COLLECTOR: &str = "onchain";

/// How a submission's text fields are written in the report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// UTF-8 text, as submitted.
    #[default]
    Utf8,
    /// `0x` hex of the event's bytes (some field is not UTF-8).
    Hex,
}

impl Encoding {
    fn is_utf8(&self) -> bool {
        *self == Encoding::Utf8
    }
}

fn checksummed<S: serde::Serializer>(a: &Address, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&a.to_checksum(None))
}

/// One confirmed on-chain submission of a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainSubmission {
    /// The question's item number, from 1.
    pub index: u64,
    /// Who submitted it (EIP-55 checksummed, as in the bundle's `submitter`).
    #[serde(serialize_with = "checksummed")]
    pub submitter: Address,
    /// URL as submitted.
    pub url: String,
    /// Title as submitted.
    pub title: String,
    /// Snippet as submitted.
    pub snippet: String,
    /// `hex` when the three fields above are `0x` hex of non-UTF-8 bytes.
    #[serde(default, skip_serializing_if = "Encoding::is_utf8")]
    pub encoding: Encoding,
    /// The contract's evidence head before this item.
    pub prev_head: B256,
    /// The head after it: keccak256(abi.encode(prev_head, id, submitter, url, title, snippet)).
    pub evidence_head: B256,
    /// Block of the `EvidenceSubmitted` log.
    pub block: u64,
    /// Its position in the block.
    pub log_index: u64,
}

impl ChainSubmission {
    /// Build from the event's raw fields: text when all three are UTF-8, else hex.
    #[allow(clippy::too_many_arguments)]
    pub fn from_bytes(
        index: u64,
        submitter: Address,
        url: &[u8],
        title: &[u8],
        snippet: &[u8],
        prev_head: B256,
        evidence_head: B256,
        block: u64,
        log_index: u64,
    ) -> Self {
        let text = |b: &[u8]| std::str::from_utf8(b).map(str::to_owned);
        let (url, title, snippet, encoding) = match (text(url), text(title), text(snippet)) {
            (Ok(u), Ok(t), Ok(s)) => (u, t, s, Encoding::Utf8),
            _ => (
                alloy::hex::encode_prefixed(url),
                alloy::hex::encode_prefixed(title),
                alloy::hex::encode_prefixed(snippet),
                Encoding::Hex,
            ),
        };
        Self {
            index,
            submitter,
            url,
            title,
            snippet,
            encoding,
            prev_head,
            evidence_head,
            block,
            log_index,
        }
    }

    /// The event's bytes of (url, title, snippet), for recomputing the link.
    ///
    /// # Errors
    /// The field whose hex does not decode (a hand-edited report).
    pub fn field_bytes(&self) -> Result<[Vec<u8>; 3], String> {
        match self.encoding {
            Encoding::Utf8 => Ok([
                self.url.as_bytes().to_vec(),
                self.title.as_bytes().to_vec(),
                self.snippet.as_bytes().to_vec(),
            ]),
            Encoding::Hex => {
                let decode = |name: &str, v: &str| {
                    alloy::hex::decode(v).map_err(|e| format!("{name} is not hex: {e}"))
                };
                Ok([
                    decode("url", &self.url)?,
                    decode("title", &self.title)?,
                    decode("snippet", &self.snippet)?,
                ])
            }
        }
    }
}

/// What became of one submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Its text is bundle item `item`.
    Included,
    /// Its URL is bundle item `item`, whose text came from a better-ranked hit.
    Merged,
    /// Left out by a bundle rule (`dropped` says which).
    Dropped,
    /// Some field is not UTF-8: it cannot be committed as JSON text.
    NotUtf8,
    /// The resolver that built the report did not gather evidence.
    NotConsidered,
}

/// One submission and its fate, as the report lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmissionEntry {
    /// The submission.
    #[serde(flatten)]
    pub submission: ChainSubmission,
    /// What became of it.
    pub status: Status,
    /// The bundle item's id (included, merged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<u32>,
    /// The bundle rule that dropped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<DropReason>,
}

/// The report's `submissions` key: every on-chain submission the node had stored for the
/// question when it gathered evidence.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SubmissionsRecord {
    /// How many (the chain's `evidenceCount(id)` once the question is closed).
    pub count: u64,
    /// Each one, by index.
    pub items: Vec<SubmissionEntry>,
}

/// The submissions as hits of the `onchain` collector, their text cleaned and bounded
/// ([`collectors::clean_hit`](crate::evidence::collectors::clean_hit); the report's `submissions` keep the bytes as submitted, which the
/// evidence hash chain is computed over). Items that are not UTF-8 (fate `not_utf8`) or whose
/// URL is too long (fate `dropped`, `bad_url`) are left out. Rank = submission order, so
/// earlier submissions rank first.
pub fn collector_hits(submissions: &[ChainSubmission]) -> CollectorHits {
    let hits = submissions
        .iter()
        .filter(|s| s.encoding.is_utf8())
        .filter_map(|s| {
            clean_hit(Hit {
                query: None,
                rank: 0,
                score: 0.0,
                url: s.url.clone(),
                title: s.title.clone(),
                snippet: s.snippet.clone(),
                published_at: None,
                source: Source::Submitted,
                submitter: Some(s.submitter.to_checksum(None)),
            })
            .ok()
        })
        .enumerate()
        .map(|(rank, hit)| Hit {
            rank: u32::try_from(rank).unwrap_or(u32::MAX),
            ..hit
        })
        .collect();
    CollectorHits {
        collector: COLLECTOR.to_owned(),
        hits,
        error: None,
    }
}

/// Each submission's fate, from the committed bundle and the bundle rules' drops; `dropped` is
/// `None` when the resolver did not gather evidence (every fate is then `not_considered`
/// unless its URL is in the bundle anyway).
pub fn record(
    submissions: &[ChainSubmission],
    evidence: &[EvidenceItem],
    dropped: Option<&[Dropped]>,
) -> SubmissionsRecord {
    let items = submissions
        .iter()
        .map(|s| {
            let (status, item, reason) = fate(s, evidence, dropped);
            SubmissionEntry {
                submission: s.clone(),
                status,
                item,
                dropped: reason,
            }
        })
        .collect();
    SubmissionsRecord {
        count: submissions.len() as u64,
        items,
    }
}

fn fate(
    s: &ChainSubmission,
    evidence: &[EvidenceItem],
    dropped: Option<&[Dropped]>,
) -> (Status, Option<u32>, Option<DropReason>) {
    if !s.encoding.is_utf8() {
        return (Status::NotUtf8, None, None);
    }
    // Not offered to the bundle rules (see `collector_hits`): the same outcome as an
    // unreadable URL.
    if let Err(err) = text::check_url(&s.url) {
        return bad_url(dropped.is_some(), err.to_string());
    }
    let url = match normalize_url(&s.url) {
        Ok(url) => url,
        Err(err) => return bad_url(dropped.is_some(), err.reason),
    };
    if let Some(item) = evidence.iter().find(|i| i.url == url) {
        let own = item.source == Source::Submitted
            && item
                .submitter
                .as_deref()
                .is_some_and(|a| a.eq_ignore_ascii_case(&s.submitter.to_checksum(None)));
        let status = if own {
            Status::Included
        } else {
            Status::Merged
        };
        return (status, Some(item.id), None);
    }
    let Some(dropped) = dropped else {
        return (Status::NotConsidered, None, None);
    };
    // The bundle rules saw the cleaned snippet.
    if text::clean(&s.snippet, text::MAX_SNIPPET_CHARS)
        .trim()
        .is_empty()
    {
        return (Status::Dropped, None, Some(DropReason::EmptySnippet));
    }
    match dropped.iter().find(|d| d.url == url) {
        Some(d) => (Status::Dropped, None, Some(d.reason.clone())),
        None => (Status::NotConsidered, None, None),
    }
}

/// A submission whose URL cannot be read: dropped for it when the bundle rules ran
/// (`rules_ran`), else never considered.
fn bad_url(rules_ran: bool, detail: String) -> (Status, Option<u32>, Option<DropReason>) {
    if rules_ran {
        (Status::Dropped, None, Some(DropReason::BadUrl { detail }))
    } else {
        (Status::NotConsidered, None, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::bundle_rules::{BundleRules, build};

    fn sub(index: u64, url: &str) -> ChainSubmission {
        ChainSubmission::from_bytes(
            index,
            Address::with_last_byte(index as u8),
            url.as_bytes(),
            b"T",
            format!("text {index}").as_bytes(),
            B256::ZERO,
            B256::ZERO,
            1,
            index,
        )
    }

    #[test]
    fn every_submission_gets_a_fate() {
        let mut subs: Vec<ChainSubmission> = (1..=5)
            .map(|i| sub(i, &format!("https://s.example/{i}?utm_source=x")))
            .collect();
        subs.push(ChainSubmission::from_bytes(
            6,
            Address::with_last_byte(6),
            b"https://s.example/raw",
            b"T",
            &[0xff, 0xfe],
            B256::ZERO,
            B256::ZERO,
            1,
            6,
        ));
        subs.push(sub(7, "not a url"));
        let web = CollectorHits {
            collector: "local".into(),
            hits: vec![Hit {
                query: Some("q".into()),
                rank: 0,
                score: 1.0,
                url: "https://s.example/1".into(),
                title: "web".into(),
                snippet: "web text".into(),
                published_at: None,
                source: Source::Local,
                submitter: None,
            }],
            error: None,
        };
        let hits = collector_hits(&subs);
        assert_eq!(hits.hits.len(), 6, "the non-UTF-8 item is not offered");
        assert_eq!(
            hits.hits[0].submitter.as_deref(),
            Some(Address::with_last_byte(1).to_checksum(None).as_str())
        );
        let built = build(&[hits, web], None, &BundleRules::default());
        let rec = record(&subs, &built.items, Some(&built.dropped));
        assert_eq!(rec.count, 7);
        let statuses: Vec<Status> = rec.items.iter().map(|e| e.status).collect();
        assert_eq!(
            statuses,
            [
                // Item 1's URL was found by the local corpus too, whose hit ranks first (tie
                // on rank: the submissions' collector comes first, so its text speaks).
                Status::Included,
                Status::Included,
                Status::Included,
                Status::Dropped,
                Status::Dropped,
                Status::NotUtf8,
                Status::Dropped,
            ]
        );
        assert_eq!(
            rec.items[3].dropped,
            Some(DropReason::SubmittedOverCap { rank: 4, cap: 3 })
        );
        assert!(matches!(
            rec.items[6].dropped,
            Some(DropReason::BadUrl { .. })
        ));
        assert_eq!(rec.items[5].submission.encoding, Encoding::Hex);
        assert_eq!(
            rec.items[5]
                .submission
                .field_bytes()
                .ok()
                .map(|f| f[2].clone()),
            Some(vec![0xff, 0xfe])
        );
        // Without gathering, nothing is claimed.
        let rec = record(&subs[..1], &[], None);
        assert_eq!(rec.items[0].status, Status::NotConsidered);
        let json = serde_json::to_value(&rec.items[0]).unwrap_or_default();
        assert_eq!(json["index"], 1);
        let mixed = ChainSubmission {
            submitter: Address::repeat_byte(0xab),
            ..subs[0].clone()
        };
        let checksum = Address::repeat_byte(0xab).to_checksum(None);
        assert_ne!(checksum, checksum.to_lowercase());
        assert_eq!(
            serde_json::to_value(&mixed).unwrap_or_default()["submitter"],
            checksum
        );
        assert_eq!(json["status"], "not_considered");
        assert!(json.get("encoding").is_none());
    }

    #[test]
    fn hostile_submissions_are_offered_cleaned_and_kept_raw_in_the_record() {
        let hostile = "\u{202E}evil\u{0}\u{1b}[2J".repeat(2_048);
        let long_url = format!("https://s.example/{}", "a".repeat(text::MAX_URL_BYTES));
        let subs = vec![
            ChainSubmission::from_bytes(
                1,
                Address::with_last_byte(1),
                b"https://s.example/1",
                hostile.as_bytes(),
                hostile.as_bytes(),
                B256::ZERO,
                B256::ZERO,
                1,
                1,
            ),
            sub(2, &long_url),
            ChainSubmission::from_bytes(
                3,
                Address::with_last_byte(3),
                b"https://s.example/3",
                b"T",
                "\u{2066}\u{0}\n".as_bytes(),
                B256::ZERO,
                B256::ZERO,
                1,
                3,
            ),
        ];
        let hits = collector_hits(&subs);
        assert_eq!(hits.hits.len(), 2, "the overlong URL is not offered");
        assert_eq!(hits.hits[1].rank, 1, "ranks stay contiguous");
        let first = &hits.hits[0];
        assert_eq!(first.title.chars().count(), text::MAX_TITLE_CHARS);
        assert!(
            first.snippet.starts_with("evil[2Jevil"),
            "{}",
            &first.snippet[..20]
        );
        assert!(!first.snippet.contains(['\u{202E}', '\u{0}', '\u{1b}']));
        let built = build(&[hits], None, &BundleRules::default());
        let rec = record(&subs, &built.items, Some(&built.dropped));
        let statuses: Vec<Status> = rec.items.iter().map(|e| e.status).collect();
        assert_eq!(
            statuses,
            [Status::Included, Status::Dropped, Status::Dropped]
        );
        assert_eq!(
            rec.items[1].dropped,
            Some(DropReason::BadUrl {
                detail: format!(
                    "URL over {} bytes ({} bytes)",
                    text::MAX_URL_BYTES,
                    long_url.len()
                )
            })
        );
        assert_eq!(rec.items[2].dropped, Some(DropReason::EmptySnippet));
        // The record keeps what was submitted: the evidence hash chain is over those bytes.
        assert_eq!(rec.items[0].submission.snippet, hostile);
        assert!(!built.items[0].snippet.contains('\u{202E}'));
    }
}
