//! The one path from a question to its report: evidence, one commitment, the committee, the
//! statistics and routing ([`resolve`]), which `veritas resolve`, `eval`, `demo` and the
//! daemon's job runner (`daemon::jobs`) all call; the scripted resolver the tests and the demo
//! use ([`replay`]); and the question's on-chain submissions and clarifications as the
//! resolver takes them.

pub mod clarifications;
pub mod replay;
pub mod resolve;
pub mod submissions;

pub use resolve::{
    CommitteeResolver, Engine, Evidence, QuestionInput, ResolveError, Resolver, resolve,
};
