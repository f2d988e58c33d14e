//! The per-question report file: bundle, ballots and statistics, as auditors need them.
