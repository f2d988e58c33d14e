//! `veritas stats [FILE|-]`: statistics of ballot sets, JSON lines in and out.
//!
//! Each input line is a JSON array of ballots
//! `{"iteration":1,"model":"m","archetype":"a","vote":"YES"|"NO"|"NULL"|null}` (null marks a
//! failed ballot; other fields are ignored). Each output line is the [`Summary`] of that set.
//!
//! With `--monte-carlo N` each line also gets `"ci95_mc"`: the prototype's interval estimate
//! from N Dirichlet samples (ChaCha8 seeded by `--seed`), as a cross-check of `"ci95"`.
//!
//! ```sh
//! echo '[{"iteration":1,"model":"m","archetype":"a","vote":"YES"}]' | veritas stats
//! veritas stats ballots.jsonl --monte-carlo 10000 --seed 7
//! ```

use std::path::PathBuf;

use clap::Args;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::jsonl::{LineError, map_lines, parse_line, read_input};
use crate::stats::{BallotRef, Summary, monte_carlo_intervals, summarize};
pub use veritas_core::lines::stats::stats_line;

/// Arguments of `veritas stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// JSON-lines file of ballot sets; `-` or nothing reads stdin.
    pub input: Option<PathBuf>,
    /// Also estimate the intervals from this many Dirichlet samples (`"ci95_mc"`).
    #[arg(long, value_name = "SAMPLES")]
    pub monte_carlo: Option<usize>,
    /// Seed of the Monte Carlo cross-check (the whole file uses one stream).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// A summary with the Monte Carlo cross-check appended.
#[derive(Serialize)]
struct WithMonteCarlo<'a> {
    #[serde(flatten)]
    summary: &'a Summary,
    ci95_mc: [[f64; 2]; 3],
}

/// Run `veritas stats`.
///
/// # Errors
/// Unreadable input or any bad line (nothing is printed then).
pub fn run(args: StatsArgs) -> anyhow::Result<super::output::Output> {
    let input = read_input(args.input.as_deref())?;
    let out = match args.monte_carlo {
        None => map_lines(&input, stats_line)?,
        Some(samples) => {
            let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
            map_lines(&input, |line| {
                let ballots: Vec<BallotRef<'_>> = parse_line(line)?;
                let summary = summarize(&ballots);
                let ci95_mc = monte_carlo_intervals(summary.counts.as_array(), samples, &mut rng);
                serde_json::to_string(&WithMonteCarlo {
                    summary: &summary,
                    ci95_mc,
                })
                .map_err(|e| LineError::new(format!("cannot encode the result: {e}")))
            })?
        }
    };
    // JSON lines, with or without `--json`.
    print!("{out}");
    Ok(super::output::Output::Streamed)
}
