//! The `veritas` command line: one file per subcommand.
//!
//! Commands that read JSON lines write JSON lines, so auditors can script them.

use clap::{Parser, Subcommand};

/// Veritas: an AI oracle node that resolves subjective questions for smart contracts.
#[derive(Debug, Parser)]
#[command(name = "veritas", version, about, long_about = None)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Every subcommand that works today.
#[derive(Debug, Subcommand)]
pub enum Command {}

impl Cli {
    /// Run the chosen subcommand.
    ///
    /// # Errors
    /// Whatever the subcommand reports, with context for the user.
    pub async fn run(self) -> anyhow::Result<()> {
        match self.command {}
    }
}
