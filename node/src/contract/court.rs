//! Our reference ERC-792 arbitrator, `contracts/court/VeritasCourt.sol`, as far as the node and
//! its tools drive it: a judge gives a ruling, a party appeals (through the oracle's `appeal`),
//! anyone executes the ruling once its appeal period is over (the court then calls the oracle's
//! `rule`), and a judge withdraws the fees of the rounds it ruled. The oracle's side of a case
//! (dispute, escalation, appeal, default) is in [`super::IVeritasOracle`].
//!
//! The bindings are generated from the court's source by `build.rs` (every error, event and
//! external function, with its NatSpec), so [`super::explain::court_abi`] turns a court revert
//! into the court's own sentence and a new error cannot be missed.

include!(concat!(env!("OUT_DIR"), "/court_bindings.rs"));

/// The court's custom errors, decoded from revert data.
pub type CourtError = IVeritasCourt::IVeritasCourtErrors;
