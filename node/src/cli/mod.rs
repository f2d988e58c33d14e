//! The `veritas` command line: one file per subcommand.
//!
//! Commands that read JSON lines write JSON lines, so auditors can script them.

pub mod ask;
pub mod audit;
pub mod demo;
pub mod run;
pub mod verdict;

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
pub enum Command {
    /// Run the node: watch the oracle, resolve questions, post verdicts.
    Run(run::RunArgs),
    /// Ask the oracle a question on-chain; prints its id.
    Ask(ask::AskArgs),
    /// Read a question's verdict from the chain.
    Verdict(verdict::VerdictArgs),
    /// Rebuild a verdict from its report and compare it with the chain.
    Audit(audit::AuditArgs),
    /// Local anvil + deploy + node + demo questions; prints verdicts read back from chain.
    Demo(demo::DemoArgs),
}

impl Cli {
    /// Run the chosen subcommand.
    ///
    /// # Errors
    /// Whatever the subcommand reports, with context for the user.
    pub async fn run(self) -> anyhow::Result<()> {
        match self.command {
            Command::Run(args) => run::run(args).await,
            Command::Ask(args) => ask::run(args).await,
            Command::Verdict(args) => verdict::run(args).await,
            Command::Audit(args) => audit::run(args).await,
            Command::Demo(args) => demo::run(args).await,
        }
    }
}
