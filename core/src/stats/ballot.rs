//! The outcome space and the ballot record every statistic reads.

use serde::{Deserialize, Deserializer, Serialize};

/// One outcome of a question. K = (YES, NO, NULL), always in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Outcome {
    /// The statement is true.
    Yes,
    /// The statement is false.
    No,
    /// The question cannot be resolved (ambiguous, unknowable, malformed).
    Null,
}

impl Outcome {
    /// Every outcome in K order; array positions in this module follow it.
    pub const ALL: [Outcome; 3] = [Outcome::Yes, Outcome::No, Outcome::Null];

    /// Position of the outcome in K order (YES = 0, NO = 1, NULL = 2).
    pub const fn index(self) -> usize {
        match self {
            Outcome::Yes => 0,
            Outcome::No => 1,
            Outcome::Null => 2,
        }
    }

    /// The wire name: `"YES"`, `"NO"` or `"NULL"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Yes => "YES",
            Outcome::No => "NO",
            Outcome::Null => "NULL",
        }
    }

    /// Parse a wire name (exact, upper case), `None` for anything else.
    pub fn from_wire(word: &str) -> Option<Outcome> {
        match word {
            "YES" => Some(Outcome::Yes),
            "NO" => Some(Outcome::No),
            "NULL" => Some(Outcome::Null),
            _ => None,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The part of a ballot the statistics read. Other fields of a ballot (confidence,
/// reasoning, latency...) are ignored when deserialising.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BallotRecord {
    /// Committee iteration (Fleiss' kappa subject).
    pub iteration: u32,
    /// Model that cast the ballot (n_eff groups by it).
    pub model: String,
    /// Juror archetype (persona) that cast the ballot.
    pub archetype: String,
    /// The vote; `None` (JSON `null`) for a failed ballot. The field must be present, so a
    /// typo in its name is an error rather than a silently failed ballot.
    #[serde(deserialize_with = "required_vote")]
    pub vote: Option<Outcome>,
}

/// A ballot borrowed from its JSON text: the same fields and checks as [`BallotRecord`],
/// without copying strings that need no unescaping.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct BallotRef<'a> {
    /// Committee iteration.
    pub iteration: u32,
    /// Model that cast the ballot.
    #[serde(borrow)]
    pub model: std::borrow::Cow<'a, str>,
    /// Juror archetype (checked to be a string, otherwise unused by the statistics).
    #[serde(borrow)]
    pub archetype: std::borrow::Cow<'a, str>,
    /// The vote; `None` for a failed ballot. Required.
    #[serde(deserialize_with = "required_vote")]
    pub vote: Option<Outcome>,
}

impl Ballot for BallotRef<'_> {
    fn iteration(&self) -> u32 {
        self.iteration
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn vote(&self) -> Option<Outcome> {
        self.vote
    }
}

/// What the statistics read from a ballot. [`BallotRecord`] is the owned form; the CLI
/// reads borrowed views straight from its input line (no string copies), and the daemon
/// may pass its richer ballot type, so every statistic is generic over this trait.
pub trait Ballot {
    /// Committee iteration (Fleiss' kappa subject).
    fn iteration(&self) -> u32;
    /// Model that cast the ballot (n_eff groups by it).
    fn model(&self) -> &str;
    /// The vote, `None` for a failed ballot.
    fn vote(&self) -> Option<Outcome>;
}

impl Ballot for BallotRecord {
    fn iteration(&self) -> u32 {
        self.iteration
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn vote(&self) -> Option<Outcome> {
        self.vote
    }
}

/// `Option` fields default to `None` when missing; `vote` must be given explicitly.
fn required_vote<'de, D: Deserializer<'de>>(de: D) -> Result<Option<Outcome>, D::Error> {
    Option::<Outcome>::deserialize(de)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn outcome_wire_names_round_trip() {
        for o in Outcome::ALL {
            let json = serde_json::to_string(&o).unwrap();
            assert_eq!(json, format!("\"{}\"", o.as_str()));
            assert_eq!(serde_json::from_str::<Outcome>(&json).unwrap(), o);
            assert_eq!(Outcome::from_wire(o.as_str()), Some(o));
            assert_eq!(Outcome::ALL[o.index()], o);
        }
        assert!(serde_json::from_str::<Outcome>("\"yes\"").is_err());
        assert_eq!(Outcome::from_wire("MAYBE"), None);
    }

    #[test]
    fn ballot_ignores_other_fields_and_requires_vote() {
        let b: BallotRecord = serde_json::from_str(
            r#"{"iteration":2,"model":"m","archetype":"skeptic","vote":null,"confidence":0.9}"#,
        )
        .unwrap();
        assert_eq!(b.vote, None);
        assert_eq!(b.iteration, 2);
        let missing = serde_json::from_str::<BallotRecord>(
            r#"{"iteration":2,"model":"m","archetype":"skeptic"}"#,
        );
        assert!(missing.unwrap_err().to_string().contains("vote"));
        assert!(
            serde_json::from_str::<BallotRecord>(
                r#"{"iteration":1,"model":"m","archetype":"a","vote":"MAYBE"}"#
            )
            .is_err()
        );
    }
}
