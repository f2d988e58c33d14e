//! Statistics of a ballot set (pure, no I/O, no async): the book's auditor specification, "Statistics of a ballot set" (book/src/auditor-specification.md), bit for bit.
//!
//! The committee's ballots become one [`Summary`]: a Dirichlet posterior with a flat
//! Dir(1,1,1) prior, its 1e18 fixed-point form (what goes on-chain), exact 95% credible
//! intervals from the Beta marginals, Fleiss' kappa (as a float and as an exactly rounded
//! 1e18 integer), the design-effect effective sample size and the entropy of the posterior.
//! The daemon, `veritas stats` and `veritas audit` all call [`summarize`], so an auditor who
//! rebuilds a verdict runs the very code that produced it.
//!
//! Integers that go on-chain ([`to_wad`], [`kappa_wad`]) use integer or exact rational
//! arithmetic only: floats never decide a posted bit. Floats are for the report.
//!
//! Submodules, one formula each: [`posterior`] (means and the 1e18 split), [`interval`]
//! (credible intervals, exact and Monte Carlo), [`kappa`], [`neff`], `info` ([`kl_bits`],
//! [`entropy_bits`]), [`stopping`] (the KL early-stopping rule) and [`effective`] (the posterior
//! of counts scaled to n_eff, which routing reads; never posted); [`fixed`] reads a posted 1e18
//! integer as a probability for display. Every statistic is
//! generic over the [`Ballot`] trait, so owned records, borrowed views and the daemon's own
//! ballot type all work.

pub mod effective;
pub mod fixed;
pub mod interval;
pub mod kappa;
pub mod neff;
pub mod posterior;
pub mod stopping;

mod ballot;
mod info;
mod summary;

pub use ballot::{Ballot, BallotRecord, BallotRef, Outcome};
pub use effective::{EffectiveSample, effective_sample};
pub use fixed::{format_percent, format_wad, wad_to_f64};
pub use info::{entropy_bits, kl_bits};
pub use interval::{credible_intervals, monte_carlo_intervals};
pub use kappa::{Kappa, fleiss_kappa, kappa_wad, subject_counts};
pub use neff::effective_sample_size;
pub use posterior::{WAD, counts, posterior_mean, to_wad};
pub use stopping::{EarlyStopping, StopTracker};
pub use summary::{Counts, Summary, summarize};
