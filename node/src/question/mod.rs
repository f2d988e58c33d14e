//! What a question is, read from its text alone (pure): its kind and which evidence bears on it.
//!
//! Both the evidence planner (which classifies a question and searches its key terms) and
//! routing (which escalates a question that is not yes/no, or whose bundle is about something
//! else) read these. They live here, below both, so neither imports the other: the planner
//! does not depend on the routing policy, and routing does not depend on the collectors.
//!
//! - [`deadline`]: the question's own deadline, read from the explicit dates in its text.
//! - [`kind`]: the deterministic yes/no, multi-outcome or open check.
//! - [`mod@relevance`]: the share of the question's key terms each committed item contains.
//! - [`terms`]: the key terms themselves (stop words dropped), shared with the local corpus.

pub mod deadline;
pub mod kind;
pub mod relevance;
pub mod terms;

pub use deadline::{Cue, Deadline, read_deadline};
pub use kind::{QuestionCheck, QuestionKind, classify};
pub use relevance::{ItemRelevance, Relevance, relevance};
