//! Bundle rules: from every collector's raw hits to the committed evidence items (pure).
//!
//! 1. Each hit's URL is normalised ([`normalize_url`]); hits whose URL cannot be read or whose
//!    text is empty are dropped.
//! 2. Hits with the same normalised URL are one document. Its score is the reciprocal rank
//!    fusion (RRF) of its ranks in every result list it appears in: Σ 1/(k + rank + 1), one
//!    list per (collector, query). Collectors' own scores (BM25, Tavily's) are not comparable,
//!    ranks are, and a document found by several queries or collectors rises. The sum is kept
//!    in integer fixed point, so it is exact and does not depend on the order of the hits.
//!    The document's text is taken from its best-ranked hit (ties: first collector, first
//!    query).
//! 3. Publication dates are parsed; a document published after the resolution time is dropped
//!    (the temporal filter). Undated documents, and documents whose date cannot be read, are
//!    kept as undated unless `keep_undated` is off.
//! 4. Documents are ordered by score, then by URL, so the order — and hence the Merkle root —
//!    depends on the hits only. Submitted documents (whose best hit is `source: submitted`)
//!    have reserved room: the first `max_submitted` of them in that order are kept whatever
//!    their score (earlier submissions rank first), the rest are dropped as
//!    `submitted_over_cap`; the other documents fill the remaining `max_items -
//!    submitted kept` slots. So a flood of submissions never pushes searched evidence below
//!    `max_items - max_submitted` slots, and searched results never push submissions out.
//! 5. Titles and snippets are trimmed on word boundaries ([`trim_snippet`]), ids are 1..=n.
//!
//! Every drop is recorded with its reason, for the report.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::bundle::{EvidenceItem, Source};
use crate::evidence::collectors::{CollectorHits, Hit};
use crate::evidence::normalize::{format_published, normalize_url, parse_published, trim_snippet};
pub use veritas_core::config::evidence::BundleRules;

/// Why a hit did not make it into the bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum DropReason {
    /// The URL is not an absolute http(s) URL (or `local:` of the node's own corpus).
    BadUrl {
        /// The parser's complaint.
        detail: String,
    },
    /// The hit has no text.
    EmptySnippet,
    /// Published after the resolution time.
    PublishedAfterCutoff {
        /// When it was published (RFC 3339).
        published_at: String,
        /// The resolution time (RFC 3339).
        cutoff: String,
    },
    /// No readable date and `keep_undated` is off.
    Undated,
    /// Ranked below the `max_items` cap.
    OverCap {
        /// Its 1-based rank among the kept documents.
        rank: usize,
    },
    /// A submitted document beyond the `max_submitted` reserved room.
    SubmittedOverCap {
        /// Its 1-based rank among the submitted documents.
        rank: usize,
        /// The cap (`max_submitted`).
        cap: usize,
    },
}

/// A dropped hit or document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    /// The URL (normalised when it could be).
    pub url: String,
    /// Why.
    #[serde(flatten)]
    pub reason: DropReason,
}

/// The outcome of the bundle rules.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Built {
    /// The evidence items, ids 1..=n, in commitment order.
    pub items: Vec<EvidenceItem>,
    /// What was left out, and why.
    pub dropped: Vec<Dropped>,
}

/// 1.0 in the fixed point of RRF scores.
const RRF_ONE: u128 = 1 << 64;

/// One document: all hits sharing a normalised URL.
struct Group<'a> {
    url: String,
    /// RRF score in fixed point (units of 2^-64): integer sums are exact and associative, so
    /// the order, and hence the Merkle root, cannot depend on the order hits were added in.
    score: u128,
    members: Vec<&'a Hit>,
}

fn only_local_is_local(
    url: String,
    hit: &Hit,
) -> Result<String, crate::evidence::normalize::UrlError> {
    if hit.source != Source::Local && url.starts_with("local:") {
        return Err(crate::evidence::normalize::UrlError {
            reason: format!(
                "scheme \"local\" is for the node's own corpus, not a {:?} hit",
                hit.source
            ),
            url,
        });
    }
    Ok(url)
}

/// Apply the bundle rules to every collector's hits: hits of one document fused (reciprocal
/// rank), documents dated after the cutoff (or undated, unless kept) dropped, then the best kept
/// within the caps.
pub fn build(raw: &[CollectorHits], cutoff: Option<DateTime<Utc>>, rules: &BundleRules) -> Built {
    let mut dropped = Vec::new();
    let groups = fuse(raw, rules, &mut dropped);
    let kept = dated(groups, cutoff, rules, &mut dropped);
    let items = capped(kept, rules, &mut dropped);
    Built { items, dropped }
}

/// A document kept so far: its group, the best-ranked hit that speaks for it, its date.
type Kept<'a> = (Group<'a>, &'a Hit, Option<DateTime<Utc>>);

/// The hits grouped by normalised URL, each group scored by reciprocal rank fusion; a hit with
/// a bad URL or an empty snippet is dropped.
fn fuse<'a>(
    raw: &'a [CollectorHits],
    rules: &BundleRules,
    dropped: &mut Vec<Dropped>,
) -> Vec<Group<'a>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut by_url: HashMap<String, usize> = HashMap::new();
    for hit in raw.iter().flat_map(|collector| collector.hits.iter()) {
        // `local:` names a document of this node's own corpus: from anyone else (a search
        // API, a submitter) it would pass off their text as the operator's corpus.
        let url = match normalize_url(&hit.url).and_then(|url| only_local_is_local(url, hit)) {
            Ok(url) => url,
            Err(err) => {
                dropped.push(Dropped {
                    url: err.url.clone(),
                    reason: DropReason::BadUrl { detail: err.reason },
                });
                continue;
            }
        };
        if hit.snippet.trim().is_empty() {
            dropped.push(Dropped {
                url,
                reason: DropReason::EmptySnippet,
            });
            continue;
        }
        let contribution = RRF_ONE / (u128::from(rules.rrf_k) + u128::from(hit.rank) + 1);
        match by_url.get(&url) {
            Some(&g) => {
                groups[g].score = groups[g].score.saturating_add(contribution);
                groups[g].members.push(hit);
            }
            None => {
                by_url.insert(url.clone(), groups.len());
                groups.push(Group {
                    url,
                    score: contribution,
                    members: vec![hit],
                });
            }
        }
    }
    groups
}

/// The groups whose date passes the cutoff (and, unless `keep_undated`, that have a date),
/// with the hit that speaks for each.
fn dated<'a>(
    groups: Vec<Group<'a>>,
    cutoff: Option<DateTime<Utc>>,
    rules: &BundleRules,
    dropped: &mut Vec<Dropped>,
) -> Vec<Kept<'a>> {
    let mut kept: Vec<Kept<'a>> = Vec::new();
    for group in groups {
        // The best-ranked member speaks for the document; `min_by_key` keeps the first of ties.
        let Some(&best) = group.members.iter().min_by_key(|h| h.rank) else {
            continue;
        };
        let date = std::iter::once(best)
            .chain(group.members.iter().copied())
            .find_map(|h| readable_date(h, &group.url));
        match (date, cutoff) {
            (Some(at), Some(limit)) if at > limit => {
                dropped.push(Dropped {
                    url: group.url,
                    reason: DropReason::PublishedAfterCutoff {
                        published_at: format_published(at),
                        cutoff: format_published(limit),
                    },
                });
                continue;
            }
            (None, _) if !rules.keep_undated => {
                dropped.push(Dropped {
                    url: group.url,
                    reason: DropReason::Undated,
                });
                continue;
            }
            _ => {}
        }
        kept.push((group, best, date));
    }
    kept
}

/// The best documents by score within `max_items`, the best `max_submitted` submitted ones
/// on reserved room; the rest dropped with their rank.
fn capped(
    mut kept: Vec<Kept<'_>>,
    rules: &BundleRules,
    dropped: &mut Vec<Dropped>,
) -> Vec<EvidenceItem> {
    kept.sort_by(|a, b| {
        b.0.score
            .cmp(&a.0.score)
            .then_with(|| a.0.url.cmp(&b.0.url))
    });

    // Reserved room: the best `max_submitted` submitted documents are kept; the others
    // share what is left of `max_items`.
    let submitted_cap = rules.max_submitted.min(rules.max_items);
    let submitted_total = kept
        .iter()
        .filter(|(_, best, _)| best.source == Source::Submitted)
        .count();
    let other_room = rules.max_items - submitted_total.min(submitted_cap);
    let (mut submitted_seen, mut others_kept) = (0usize, 0usize);
    let mut items = Vec::new();
    for (position, (group, best, date)) in kept.into_iter().enumerate() {
        if best.source == Source::Submitted {
            submitted_seen += 1;
            if submitted_seen > submitted_cap {
                dropped.push(Dropped {
                    url: group.url,
                    reason: DropReason::SubmittedOverCap {
                        rank: submitted_seen,
                        cap: submitted_cap,
                    },
                });
                continue;
            }
        } else {
            if others_kept >= other_room {
                dropped.push(Dropped {
                    url: group.url,
                    reason: DropReason::OverCap { rank: position + 1 },
                });
                continue;
            }
            others_kept += 1;
        }
        items.push(bundle_item(items.len() + 1, (group, best, date), rules));
    }
    items
}

/// The kept document as bundle item number `id`, its title and snippet trimmed to the rules.
fn bundle_item(id: usize, (group, best, date): Kept<'_>, rules: &BundleRules) -> EvidenceItem {
    EvidenceItem {
        // Bounded by `max_items`, so the conversion only fails for absurd configurations.
        id: u32::try_from(id).unwrap_or(u32::MAX),
        url: group.url,
        title: trim_snippet(&best.title, usize::MAX, rules.max_title_chars),
        snippet: trim_snippet(
            &best.snippet,
            rules.max_snippet_words,
            rules.max_snippet_chars,
        ),
        published_at: date.map(format_published),
        source: best.source,
        submitter: best.submitter.clone(),
    }
}

/// The hit's publication date when it has a readable one; an unreadable date is logged and
/// treated as absent.
fn readable_date(hit: &Hit, url: &str) -> Option<DateTime<Utc>> {
    let raw = hit.published_at.as_deref()?;
    match parse_published(raw) {
        Ok(at) => Some(at),
        Err(err) => {
            tracing::debug!(target: "veritas::evidence::bundle", url, error = %err, "unreadable publication date, treated as undated");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(url: &str, rank: u32, published_at: Option<&str>) -> Hit {
        Hit {
            query: Some("q".to_owned()),
            rank,
            score: 1.0,
            url: url.to_owned(),
            title: format!("title of {url}"),
            snippet: format!("text of {url}"),
            published_at: published_at.map(str::to_owned),
            source: Source::Web,
            submitter: None,
        }
    }

    fn collector(name: &str, hits: Vec<Hit>) -> CollectorHits {
        CollectorHits {
            collector: name.to_owned(),
            hits,
            error: None,
        }
    }

    fn at(text: &str) -> DateTime<Utc> {
        parse_published(text).unwrap_or_default()
    }

    fn urls(built: &Built) -> Vec<&str> {
        built.items.iter().map(|i| i.url.as_str()).collect()
    }

    #[test]
    fn urls_differing_only_in_tracking_parameters_are_one_item() {
        let raw = [
            collector(
                "tavily",
                vec![
                    hit("https://News.example/a?utm_source=tw&id=1", 0, None),
                    hit("https://news.example/b", 1, None),
                ],
            ),
            collector(
                "local",
                vec![hit("https://news.example/a/?id=1&fbclid=x#p2", 3, None)],
            ),
        ];
        let built = build(&raw, None, &BundleRules::default());
        assert_eq!(
            urls(&built),
            ["https://news.example/a?id=1", "https://news.example/b"]
        );
        // The best-ranked copy (rank 0, from tavily) speaks for the document.
        assert_eq!(
            built.items[0].snippet,
            "text of https://News.example/a?utm_source=tw&id=1"
        );
        assert_eq!(built.items.iter().map(|i| i.id).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn documents_found_by_several_lists_rank_first_and_ties_order_by_url() {
        let raw = [
            collector(
                "q1",
                vec![
                    hit("https://z.example/", 0, None),
                    hit("https://m.example/", 1, None),
                ],
            ),
            collector(
                "q2",
                vec![
                    hit("https://a.example/", 0, None),
                    hit("https://m.example/", 1, None),
                ],
            ),
        ];
        let built = build(&raw, None, &BundleRules::default());
        // m: 2/62 > a = z: 1/61; a before z by URL.
        assert_eq!(
            urls(&built),
            [
                "https://m.example/",
                "https://a.example/",
                "https://z.example/"
            ]
        );
    }

    #[test]
    fn the_order_does_not_depend_on_collector_order() {
        let one = collector(
            "one",
            vec![
                hit("https://b.example/", 0, None),
                hit("https://c.example/", 1, None),
            ],
        );
        let two = collector(
            "two",
            vec![
                hit("https://a.example/", 0, None),
                hit("https://c.example/", 2, None),
            ],
        );
        let forward = build(&[one.clone(), two.clone()], None, &BundleRules::default());
        let backward = build(&[two, one], None, &BundleRules::default());
        assert_eq!(urls(&forward), urls(&backward));
    }

    #[test]
    fn at_most_max_items_are_kept_and_the_rest_recorded() {
        let hits = (0..10)
            .map(|i| hit(&format!("https://e.example/{i}"), i, None))
            .collect();
        let built = build(&[collector("c", hits)], None, &BundleRules::default());
        assert_eq!(built.items.len(), 6);
        assert_eq!(built.items.last().map(|i| i.id), Some(6));
        assert_eq!(built.dropped.len(), 4);
        assert_eq!(built.dropped[0].reason, DropReason::OverCap { rank: 7 });
        assert_eq!(
            serde_json::to_value(&built.dropped[0]).unwrap_or_default(),
            serde_json::json!({"url": "https://e.example/6", "reason": "over_cap", "rank": 7})
        );
        let rules = BundleRules {
            max_items: 2,
            ..BundleRules::default()
        };
        let hits = (0..3)
            .map(|i| hit(&format!("https://e.example/{i}"), i, None))
            .collect();
        assert_eq!(build(&[collector("c", hits)], None, &rules).items.len(), 2);
        let none = BundleRules {
            max_items: 0,
            ..BundleRules::default()
        };
        assert!(
            build(
                &[collector("c", vec![hit("https://e.example/", 0, None)])],
                None,
                &none
            )
            .items
            .is_empty()
        );
    }

    fn submitted(url: &str, rank: u32, published_at: Option<&str>) -> Hit {
        Hit {
            query: None,
            source: Source::Submitted,
            submitter: Some(format!("0x{rank:040x}")),
            ..hit(url, rank, published_at)
        }
    }

    #[test]
    fn submitted_items_have_reserved_room_and_a_cap() {
        // Eight web results outrank every submission on score; five submissions arrive.
        let web: Vec<Hit> = (0..8)
            .map(|i| hit(&format!("https://web.example/{i}"), 0, None))
            .collect();
        let subs: Vec<Hit> = (0..5)
            .map(|i| submitted(&format!("https://sub.example/{i}"), i, None))
            .collect();
        let raw = [collector("onchain", subs), collector("tavily", web)];
        let rules = BundleRules::default();
        let built = build(&raw, None, &rules);
        assert_eq!(built.items.len(), rules.max_items);
        let kept_subs: Vec<&str> = built
            .items
            .iter()
            .filter(|i| i.source == Source::Submitted)
            .map(|i| i.url.as_str())
            .collect();
        // The first three submissions (in submission order) hold the reserved room.
        assert_eq!(
            kept_subs,
            [
                "https://sub.example/0",
                "https://sub.example/1",
                "https://sub.example/2"
            ]
        );
        assert_eq!(
            built.items.iter().map(|i| i.id).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5, 6]
        );
        let over: Vec<&Dropped> = built
            .dropped
            .iter()
            .filter(|d| matches!(d.reason, DropReason::SubmittedOverCap { .. }))
            .collect();
        assert_eq!(over.len(), 2);
        assert_eq!(
            serde_json::to_value(over[0]).unwrap_or_default(),
            serde_json::json!({"url": "https://sub.example/3", "reason": "submitted_over_cap",
                "rank": 4, "cap": 3})
        );
        assert_eq!(
            built
                .dropped
                .iter()
                .filter(|d| matches!(d.reason, DropReason::OverCap { .. }))
                .count(),
            5,
            "web results beyond the room left"
        );
        // Unused reserved room goes to searched evidence.
        let raw = [
            collector("onchain", vec![submitted("https://sub.example/0", 0, None)]),
            collector(
                "tavily",
                (0..8)
                    .map(|i| hit(&format!("https://web.example/{i}"), i, None))
                    .collect(),
            ),
        ];
        let built = build(&raw, None, &rules);
        assert_eq!(built.items.len(), 6);
        assert_eq!(
            built
                .items
                .iter()
                .filter(|i| i.source == Source::Web)
                .count(),
            5
        );
        // A submission obeys the date cutoff like any other item.
        let raw = [collector(
            "onchain",
            vec![submitted("https://sub.example/late", 0, Some("2026-05-01"))],
        )];
        let built = build(&raw, Some(at("2026-04-01T00:00:00Z")), &rules);
        assert!(built.items.is_empty());
        assert!(matches!(
            built.dropped[0].reason,
            DropReason::PublishedAfterCutoff { .. }
        ));
    }

    #[test]
    fn documents_published_after_the_cutoff_are_excluded() {
        let raw = [collector(
            "c",
            vec![
                hit("https://e.example/before", 0, Some("2026-03-31")),
                hit("https://e.example/exact", 1, Some("2026-04-01T00:00:00Z")),
                hit("https://e.example/after", 2, Some("2026-04-01T00:00:01Z")),
                hit(
                    "https://e.example/later-zone",
                    3,
                    Some("2026-04-01T01:30:00+01:00"),
                ),
                hit("https://e.example/undated", 4, None),
                hit("https://e.example/bad-date", 5, Some("next Tuesday")),
            ],
        )];
        let built = build(
            &raw,
            Some(at("2026-04-01T00:00:00Z")),
            &BundleRules::default(),
        );
        assert_eq!(
            urls(&built),
            [
                "https://e.example/before",
                "https://e.example/exact",
                "https://e.example/undated",
                "https://e.example/bad-date"
            ]
        );
        assert_eq!(
            built.items[0].published_at.as_deref(),
            Some("2026-03-31T00:00:00Z")
        );
        assert_eq!(built.items[3].published_at, None);
        assert_eq!(
            built.dropped[0].reason,
            DropReason::PublishedAfterCutoff {
                published_at: "2026-04-01T00:00:01Z".to_owned(),
                cutoff: "2026-04-01T00:00:00Z".to_owned()
            }
        );
        assert_eq!(built.dropped.len(), 2);

        // Without a cutoff nothing is dropped for its date.
        assert_eq!(build(&raw, None, &BundleRules::default()).items.len(), 6);
        // Undated and unreadable dates can be excluded too.
        let strict = BundleRules {
            keep_undated: false,
            ..BundleRules::default()
        };
        let built = build(&raw, Some(at("2026-04-01T00:00:00Z")), &strict);
        assert_eq!(
            urls(&built),
            ["https://e.example/before", "https://e.example/exact"]
        );
        assert!(
            built
                .dropped
                .iter()
                .any(|d| d.reason == DropReason::Undated)
        );
    }

    #[test]
    fn a_dated_copy_dates_an_undated_duplicate() {
        let raw = [
            collector("a", vec![hit("https://e.example/x", 0, None)]),
            collector(
                "b",
                vec![hit(
                    "https://e.example/x?utm_medium=rss",
                    1,
                    Some("2026-05-01"),
                )],
            ),
        ];
        let built = build(
            &raw,
            Some(at("2026-04-01T00:00:00Z")),
            &BundleRules::default(),
        );
        assert!(
            built.items.is_empty(),
            "the copy's date shows it is too late"
        );
    }

    #[test]
    fn bad_urls_and_empty_snippets_are_dropped() {
        let mut empty = hit("https://e.example/empty", 0, None);
        empty.snippet = " \n ".to_owned();
        let raw = [collector(
            "c",
            vec![
                hit("/relative/path", 0, None),
                empty,
                hit("https://e.example/ok", 2, None),
            ],
        )];
        let built = build(&raw, None, &BundleRules::default());
        assert_eq!(urls(&built), ["https://e.example/ok"]);
        assert!(matches!(built.dropped[0].reason, DropReason::BadUrl { .. }));
        assert_eq!(built.dropped[1].reason, DropReason::EmptySnippet);
    }

    #[test]
    fn only_the_local_corpus_may_cite_local_urls() {
        let mut submitted = hit("local:corpus/ice.md", 0, None);
        submitted.source = Source::Submitted;
        let web = hit("local:corpus/sea.md", 1, None);
        let mut own = hit("local:corpus/own.md", 2, None);
        own.source = Source::Local;
        let built = build(
            &[collector("c", vec![submitted, web, own])],
            None,
            &BundleRules::default(),
        );
        assert_eq!(urls(&built), ["local:corpus/own.md"]);
        for (dropped, source) in built.dropped.iter().zip(["Submitted", "Web"]) {
            let DropReason::BadUrl { detail } = &dropped.reason else {
                panic!("{dropped:?}");
            };
            assert!(detail.contains(source), "{detail}");
        }
    }

    #[test]
    fn snippets_and_titles_are_trimmed_with_unicode_and_long_words() {
        let mut long = hit("https://e.example/long", 0, None);
        long.snippet = std::iter::repeat_n("Straße-Öl", 250)
            .collect::<Vec<_>>()
            .join(" ");
        long.title = "Ü".repeat(500);
        let mut blob = hit("https://e.example/blob", 1, None);
        blob.snippet = "A".repeat(50_000);
        let built = build(
            &[collector("c", vec![long, blob])],
            None,
            &BundleRules::default(),
        );
        let words = built.items[0].snippet.split_whitespace().count();
        // "Straße-Öl" is two UAX #29 words, so 100 of them fill 200 words.
        assert_eq!(words, 100, "{}", built.items[0].snippet);
        assert!(built.items[0].snippet.ends_with('…'));
        assert_eq!(built.items[0].title.chars().count(), 200);
        assert_eq!(built.items[1].snippet.chars().count(), 2_000);
    }

    proptest::proptest! {
        /// Whatever the hits: ids run 1..=n, n ≤ max_items, URLs are unique, and swapping the
        /// two collectors does not change which documents are kept or their order.
        #[test]
        fn bundle_invariants(
            a in proptest::collection::vec((0u8..12, 0u32..20), 0..30),
            b in proptest::collection::vec((0u8..12, 0u32..20), 0..30),
            max_items in 0usize..10,
        ) {
            let to_hits = |spec: &[(u8, u32)]| spec
                .iter()
                .map(|(doc, rank)| hit(&format!("https://e.example/{doc}?utm_source=p{rank}"), *rank, None))
                .collect::<Vec<_>>();
            let rules = BundleRules { max_items, ..BundleRules::default() };
            let forward = build(&[collector("a", to_hits(&a)), collector("b", to_hits(&b))], None, &rules);
            let backward = build(&[collector("b", to_hits(&b)), collector("a", to_hits(&a))], None, &rules);
            proptest::prop_assert_eq!(urls(&forward), urls(&backward));
            proptest::prop_assert!(forward.items.len() <= max_items);
            let ids: Vec<u32> = forward.items.iter().map(|i| i.id).collect();
            proptest::prop_assert_eq!(ids, (1..=u32::try_from(forward.items.len()).unwrap_or(0)).collect::<Vec<_>>());
            let mut unique = urls(&forward);
            unique.sort_unstable();
            unique.dedup();
            proptest::prop_assert_eq!(unique.len(), forward.items.len());
        }
    }

    #[test]
    fn no_hits_make_an_empty_bundle() {
        assert_eq!(build(&[], None, &BundleRules::default()), Built::default());
        assert_eq!(
            build(&[collector("c", vec![])], None, &BundleRules::default()),
            Built::default()
        );
    }
}
