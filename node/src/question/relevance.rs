//! Does the bundle bear on the question at all? A lexical relevance signal (pure).
//!
//! Jurors vote on whatever they are shown; a small model shown five documents about bike lanes
//! will still answer a question about a prize fight, and agree with itself. Routing therefore
//! needs a signal that does not come from the jurors: the share of the question's content
//! terms that appear in each committed item. It is deliberately simple and recomputable by
//! anyone from the report alone (question text and items, no index, no model): key terms as in
//! [`super::terms`] (stop words dropped), numbers ignored (every dated document shares "2026"),
//! and a light suffix stemmer so "rising" meets "rise" and "lanes" meets "lane".
//!
//! Trade-off: lexical overlap misses paraphrase ("car" vs "automobile"), so the floor is set
//! low — by default a relevant item needs 15% of the question's terms and two of them (the
//! routing policy's `min_relevance`, `min_relevant_terms`) — and it catches the failure that
//! matters: a bundle about something else entirely. On the 300 CLIMATE-FEVER dev claims with
//! their own evidence sentences, 280 clear that floor; long claims with paraphrased evidence
//! are the 20 that do not.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::terms::key_terms;
use crate::bundle::EvidenceItem;

/// Words that scaffold questions and markets but say nothing about the subject; matching them
/// would make any document look relevant.
const SCAFFOLD: &[&str] = &[
    "vs",
    "versus",
    "happen",
    "happens",
    "occur",
    "true",
    "false",
    "claim",
    "question",
    "resolve",
    "resolves",
    "according",
    "report",
    "reported",
    "announce",
    "announced",
];

/// The relevance of one evidence item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemRelevance {
    /// The item's id in the bundle.
    pub id: u32,
    /// Question terms found in the item's title or snippet.
    pub matched: Vec<String>,
    /// `matched` / question terms, in [0, 1].
    pub share: f64,
}

/// The relevance of a bundle to its question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relevance {
    /// The question's content terms (stemmed), in order of appearance.
    pub terms: Vec<String>,
    /// Every item's score, in bundle order.
    pub items: Vec<ItemRelevance>,
    /// The id of the best item (most shared terms; the first on ties), if any item exists.
    pub best: Option<u32>,
}

impl Relevance {
    /// The best item's score, if the bundle has items.
    pub fn best_item(&self) -> Option<&ItemRelevance> {
        self.best
            .and_then(|id| self.items.iter().find(|item| item.id == id))
    }

    /// Whether some item clears the floor: at least `min_terms` matched terms (or all of them
    /// when the question has fewer) and at least `min_share` of the question's terms.
    pub fn clears(&self, min_share: f64, min_terms: usize) -> bool {
        let needed = min_terms.min(self.terms.len()).max(1);
        self.items
            .iter()
            .any(|item| item.matched.len() >= needed && item.share >= min_share)
    }
}

/// Score every item of a bundle against its question.
pub fn relevance(question: &str, items: &[EvidenceItem]) -> Relevance {
    let terms = content_terms(question);
    let scored: Vec<ItemRelevance> = items
        .iter()
        .map(|item| {
            let text = format!("{} {}", item.title, item.snippet);
            let present: BTreeSet<String> = content_terms(&text).into_iter().collect();
            let matched: Vec<String> = terms
                .iter()
                .filter(|t| present.contains(*t))
                .cloned()
                .collect();
            let share = if terms.is_empty() {
                0.0
            } else {
                matched.len() as f64 / terms.len() as f64
            };
            ItemRelevance {
                id: item.id,
                matched,
                share,
            }
        })
        .collect();
    let mut best: Option<&ItemRelevance> = None;
    for item in &scored {
        if best.is_none_or(|b| item.matched.len() > b.matched.len()) {
            best = Some(item);
        }
    }
    Relevance {
        best: best.map(|b| b.id),
        terms,
        items: scored,
    }
}

/// Key terms with letters in them, minus scaffolding, stemmed, without duplicates.
fn content_terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for term in key_terms(text) {
        if term.chars().count() < 2
            || !term.chars().any(char::is_alphabetic)
            || SCAFFOLD.contains(&term.as_str())
        {
            continue;
        }
        let stemmed = stem(&term);
        if !out.contains(&stemmed) {
            out.push(stemmed);
        }
    }
    out
}

/// A light English suffix stemmer: enough for plurals and the common verb forms, never
/// leaving fewer than three characters.
fn stem(word: &str) -> String {
    let mut w = word.to_owned();
    for (suffix, replacement) in [("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.chars().count() + replacement.len() >= 3
            && !(suffix == "s" && base.ends_with('s'))
        {
            w = format!("{base}{replacement}");
            break;
        }
    }
    if w.chars().count() > 3
        && let Some(base) = w.strip_suffix('e')
    {
        w = base.to_owned();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::Source;

    fn item(id: u32, title: &str, snippet: &str) -> EvidenceItem {
        EvidenceItem {
            id,
            url: String::new(),
            title: title.to_owned(),
            snippet: snippet.to_owned(),
            published_at: None,
            source: Source::Local,
            submitter: None,
        }
    }

    #[test]
    fn stemming_meets_common_forms() {
        assert_eq!(stem("rising"), stem("rise"));
        assert_eq!(stem("lanes"), stem("lane"));
        assert_eq!(stem("approved"), stem("approve"));
        assert_eq!(stem("studies"), "study");
        assert_eq!(stem("glass"), "glass");
        assert_eq!(stem("bus"), "bus");
    }

    #[test]
    fn a_bundle_about_something_else_shares_no_terms() {
        // The case: a prize-fight market against the demo corpus.
        let r = relevance(
            "Who will win UFC 310: Pantoja vs Asakura?",
            &[
                item(
                    1,
                    "Council approves Harbour Street bike lane",
                    "The Calderwick City Council voted 7-2 on 12 March 2026 to build a protected bike lane.",
                ),
                item(
                    2,
                    "Lantern festival cancelled",
                    "Organisers cancelled the 2026 lantern festival after storms.",
                ),
            ],
        );
        assert_eq!(r.terms, ["win", "ufc", "pantoja", "asakura"]);
        assert!(r.items.iter().all(|i| i.matched.is_empty()), "{r:?}");
        assert!(!r.clears(0.25, 2));
    }

    #[test]
    fn a_relevant_item_clears_the_floor() {
        let r = relevance(
            "Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?",
            &[
                item(1, "Lantern festival", "Organisers cancelled the festival."),
                item(
                    2,
                    "Council approves Harbour Street bike lane",
                    "The Calderwick City Council voted 7-2 to build protected bike lanes.",
                ),
            ],
        );
        assert_eq!(r.best, Some(2));
        let best = r.best_item().map(|b| b.share).unwrap_or_default();
        assert!(best > 0.8, "{r:?}");
        assert!(r.clears(0.25, 2));
        assert!(!r.clears(0.95, 2));
    }

    #[test]
    fn an_empty_bundle_or_a_termless_question_never_clears() {
        let r = relevance("Is sea level rising?", &[]);
        assert_eq!(r.best, None);
        assert!(!r.clears(0.0, 0));
        let r = relevance("Will it?", &[item(1, "it", "it will")]);
        assert!(r.terms.is_empty());
        assert!(!r.clears(0.25, 2));
    }

    #[test]
    fn numbers_alone_are_not_relevance() {
        let r = relevance(
            "Will 2026 see 3 launches?",
            &[item(1, "Festival 2026", "3 bands in 2026")],
        );
        assert_eq!(r.terms, ["see", "launch"]);
        assert!(!r.clears(0.25, 2));
    }
}
