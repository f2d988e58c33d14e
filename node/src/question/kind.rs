//! Is this a yes/no question? A deterministic check (pure).
//!
//! The oracle's outcome space is YES / NO / NULL. A multi-outcome market ("Who will win UFC
//! 310: Pantoja vs Asakura?") or an open question ("How many…", "What…") has no YES or NO
//! answer, so any posterior over YES and NO is meaningless and must not be posted as resolved.
//! The check runs on every question whatever the planner did, so the fallback plan cannot let
//! one through; a planner that classifies the question can only add a reason, never remove one.
//!
//! The rules, on the lowercased text:
//! - **open**: the question (or its part after a `:`) ends with `?` and starts with an
//!   interrogative word (what, which, who, whom, whose, when, where, why, how), or starts with
//!   "name"/"list";
//! - **multi-outcome**: as above and it names alternatives (`vs`, `versus`, ` or `), or it
//!   starts with an auxiliary ("will", "is"…) and offers alternatives joined by ` or ` that
//!   are not a yes/no tail ("or not", "or more", "or later"…);
//! - everything else is yes/no — including plain claims without a question mark, which are
//!   true or false (the evaluation set is made of them).
//!
//! Trade-off: a rule list misses phrasings ("Pantoja or Asakura to win?" is caught, "Winner
//! of UFC 310?" is not); the planner's classification covers what the rules miss.

use serde::{Deserialize, Serialize};

/// What kind of answer a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// Answerable YES or NO (or NULL when the evidence does not settle it).
    YesNo,
    /// Picks one of several named outcomes (a winner, a candidate).
    MultiOutcome,
    /// Asks for a value, a name, a time or an explanation.
    Open,
}

impl std::fmt::Display for QuestionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            QuestionKind::YesNo => "yes/no",
            QuestionKind::MultiOutcome => "multi-outcome",
            QuestionKind::Open => "open",
        })
    }
}

/// The check's verdict and the rule that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionCheck {
    /// The kind found.
    pub kind: QuestionKind,
    /// Which rule fired (or "no rule fired" for yes/no), for the routing reason.
    pub rule: String,
}

const INTERROGATIVES: &[&str] = &[
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "name", "list",
];

const AUXILIARIES: &[&str] = &[
    "will", "would", "is", "are", "was", "were", "did", "does", "do", "has", "have", "had", "can",
    "could", "should", "shall", "may", "might", "must",
];

/// Words after " or " that keep a question yes/no ("by March or later?").
const YES_NO_TAILS: &[&str] = &[
    "not",
    "more",
    "less",
    "fewer",
    "later",
    "earlier",
    "sooner",
    "before",
    "after",
    "higher",
    "lower",
    "above",
    "below",
    "greater",
    "longer",
    "shorter",
    "both",
    "either",
    "otherwise",
];

/// Classify `question` (see the module docs for the rules).
pub fn classify(question: &str) -> QuestionCheck {
    let text = question.trim().to_lowercase();
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    // The question proper: the whole text, and any part after a colon ("UFC 310: who wins?").
    let parts: Vec<&str> = std::iter::once(text.as_str())
        .chain(text.split(':').skip(1))
        .collect();
    let alternatives = has_vs(&text) || has_open_or(&words(&text));
    for part in &parts {
        let w = words(part);
        let Some(first) = w.first() else { continue };
        // "When the council met, it voted…" is a claim: a wh-word opens a question only when
        // the text asks one; "name"/"list" are imperatives and ask without a question mark.
        let asks = text.ends_with('?') || matches!(first.as_str(), "name" | "list");
        if asks && INTERROGATIVES.contains(&first.as_str()) {
            return if alternatives {
                QuestionCheck {
                    kind: QuestionKind::MultiOutcome,
                    rule: format!("starts with \"{first}\" and names alternatives"),
                }
            } else {
                QuestionCheck {
                    kind: QuestionKind::Open,
                    rule: format!("starts with \"{first}\""),
                }
            };
        }
    }
    let w = words(&text);
    let starts_aux = w.first().is_some_and(|f| AUXILIARIES.contains(&f.as_str()));
    if starts_aux && has_open_or(&w) {
        return QuestionCheck {
            kind: QuestionKind::MultiOutcome,
            rule: "offers alternatives joined by \"or\"".to_owned(),
        };
    }
    if !starts_aux && text.ends_with('?') && (has_vs(&text) || has_open_or(&w)) {
        return QuestionCheck {
            kind: QuestionKind::MultiOutcome,
            rule: "names alternatives without asking yes or no".to_owned(),
        };
    }
    QuestionCheck {
        kind: QuestionKind::YesNo,
        rule: "no rule fired".to_owned(),
    }
}

fn has_vs(text: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .any(|w| matches!(w, "vs" | "vs." | "versus" | "v."))
}

/// An " or " that joins alternatives, not a yes/no tail.
fn has_open_or(words: &[String]) -> bool {
    words
        .windows(2)
        .any(|pair| pair[0] == "or" && !YES_NO_TAILS.contains(&pair[1].as_str()) && pair[1] != "no")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(q: &str) -> QuestionKind {
        classify(q).kind
    }

    #[test]
    fn markets_and_open_questions_are_caught() {
        use QuestionKind::*;
        for (q, k) in [
            ("Who will win UFC 310: Pantoja vs Asakura?", MultiOutcome),
            ("UFC 310: who wins, Pantoja or Asakura?", MultiOutcome),
            ("Which party will win the 2026 Calderwick election?", Open),
            ("How many bike lanes will Calderwick build in 2026?", Open),
            ("What will the Fed funds rate be in March 2026?", Open),
            ("When will the Oster ferry resume service?", Open),
            ("Will Pantoja or Asakura win UFC 310?", MultiOutcome),
            ("Pantoja vs Asakura at UFC 310?", MultiOutcome),
            ("Name the winner of the 2026 lantern festival", Open),
        ] {
            assert_eq!(kind(q), k, "{q}");
        }
    }

    #[test]
    fn yes_no_questions_and_claims_pass() {
        for q in [
            "Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?",
            "Will Pantoja beat Asakura at UFC 310?",
            "Is the Arctic warming faster than the global average?",
            "Will the ferry resume service by March or later?",
            "Will it rain on 3 March, or not?",
            "Global warming is driving polar bears toward extinction",
            "The council, which met on Monday, approved the plan.",
            "Will Bitcoin close above $100k on 31 December 2026?",
            "Will the Millbrook vs Oster match be postponed?",
            // CLIMATE-FEVER dev claims that open with a subordinate "When…" are claims.
            "When the Emergency Leaders for Climate Action approached the Federal Government in April they were drawing on decades of data showing that fire conditions are getting worse.",
        ] {
            assert_eq!(kind(q), QuestionKind::YesNo, "{q}: {:?}", classify(q));
        }
    }
}
