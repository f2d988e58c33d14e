//! The `veritas` command line: one file per subcommand.
//!
//! One convention for all of them ([`output`]): a command returns its result, which `veritas`
//! prints as text for a person or, with the global `--json`, as one JSON value on one line;
//! commands that read JSON lines write JSON lines either way, so auditors can script them.
//! The exit code is 0 done, 1 failure, 2 usage error or a refusal by the contract's rules.

pub mod abi;
pub mod appeal;
pub mod ask;
pub mod audit;
pub mod audit_question;
pub mod callback;
pub mod clarify;
pub mod commit;
pub mod config;
pub mod config_reference;
pub mod court;
pub mod deadlines;
pub mod demo;
pub mod dispute;
pub mod doctor;
pub mod eval;
pub mod eval_figures;
pub mod evidence;
pub mod finalize;
pub mod jsonl;
pub mod not_yet;
pub mod operator;
pub mod output;
pub mod prove;
pub mod resolve;
pub mod run;
pub mod session;
pub mod simulate;
pub mod stats;
pub mod verdict;
pub mod verify_proof;

use clap::{Parser, Subcommand};

/// What `veritas --version` prints: the crate's version, the commit it was built from and the
/// version of the oracle interface its bindings come from (a node talks to that contract
/// version only), so a bug report names all three.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("VERITAS_GIT_COMMIT"),
    ", VeritasOracle interface version ",
    env!("VERITAS_CONTRACT_VERSION"),
    ")"
);

/// Veritas: an AI oracle node that resolves subjective questions for smart contracts.
#[derive(Debug, Parser)]
#[command(name = "veritas", version = VERSION, about, long_about = None, after_help = output::HELP)]
pub struct Cli {
    /// Print the result as one JSON value on one line (amounts as decimal wei strings, hashes
    /// 0x-hex) instead of text; every command that prints a result takes it.
    #[arg(long, global = true)]
    pub json: bool,
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Every subcommand that works today.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the node: watch the oracle, resolve questions, post verdicts.
    Run(run::RunArgs),
    /// Ask the oracle a question on-chain with its rules pinned (and an optional callback);
    /// prints its id.
    ///
    /// Example: `veritas ask "Did it happen?" --resolve-after 1d --callback 0xC0 --callback-gas 200000`
    Ask(ask::AskArgs),
    /// Clarify your question before its first report: every juror reads it after the question.
    ///
    /// Example: `veritas clarify 7 "Resume means a scheduled crossing, not a test run."`
    Clarify(clarify::ClarifyArgs),
    /// Evidence for a question: `submit` (pays its fee, prints the item's index and link).
    ///
    /// Example: `veritas evidence submit 7 --url https://example.org/a --title A --snippet "..."`
    Evidence(evidence::EvidenceArgs),
    /// Dispute a Resolved verdict: shows bond, court fee, total and deadline, asks y/N.
    ///
    /// Example: `veritas dispute 7 --claim 0.1 0.85 0.05`
    Dispute(dispute::DisputeArgs),
    /// Fund an appeal of the court's ruling on a question.
    ///
    /// Example: `veritas appeal 7`
    Appeal(session::QuestionArgs),
    /// Close a question whose report window is over (escalated verdict, or expired).
    ///
    /// Example: `veritas finalize 7`
    Finalize(session::QuestionArgs),
    /// A question's consumer callback: `retry` after a `CallbackFailed`.
    ///
    /// Example: `veritas callback retry 7`
    Callback(callback::CallbackArgs),
    /// The reference court: `rule` (a judge), `execute` (anyone, after the appeal period),
    /// `withdraw` (a judge's fees).
    ///
    /// Example: `veritas court rule 0 1`
    Court(court::CourtArgs),
    /// Read a question's verdict from the chain.
    Verdict(verdict::VerdictArgs),
    /// Rebuild a verdict from its report and compare it with the chain; with `--question`, the
    /// pooled verdict from every operator's report.
    ///
    /// Example: `veritas audit --question 7 --rpc http://127.0.0.1:8545 --report reports/7.json`
    Audit(audit::AuditArgs),
    /// The operator's money on the oracle: `balance` (credits, stake, wallet), `stake`,
    /// `unstake` (the free part), `withdraw` (the credits).
    ///
    /// Example: `veritas operator stake 0.05`
    Operator(operator::OperatorArgs),
    /// Local anvil + deploy + node + demo questions; prints verdicts read back from chain.
    Demo(demo::DemoArgs),
    /// Check a node's configuration against the real world (RPC, chain, oracle, operator key,
    /// balance, data directory, HTTP address, models, search key); exits non-zero on a failure.
    ///
    /// Example: `veritas doctor --config /etc/veritas/veritas.toml`
    Doctor(doctor::DoctorArgs),
    /// Statistics of ballot sets: JSON lines in (one array of ballots per line), JSON lines out.
    ///
    /// Example: `veritas stats ballots.jsonl`
    Stats(stats::StatsArgs),
    /// Merkle roots of bundles: JSON lines in (`{"question","evidence"}`), JSON lines out.
    ///
    /// Example: `veritas commit bundles.jsonl`
    Commit(commit::CommitArgs),
    /// Print the RFC 6962 audit path of one leaf of a bundle (0 = the question).
    ///
    /// Example: `veritas prove bundle.json 2 > proof.json`
    Prove(prove::ProveArgs),
    /// Check an inclusion proof against its root; exits non-zero if it does not verify.
    ///
    /// Example: `veritas verify-proof proof.json`
    VerifyProof(verify_proof::VerifyProofArgs),
    /// Resolve one question off-chain: commit the evidence, run the committee, route, report.
    ///
    /// Example: `veritas resolve "Is sea level rising?" --evidence evidence.json --out report.json`
    Resolve(resolve::ResolveArgs),
    /// Run the committee on a labelled set: accuracy, coverage, Brier score, calls, time.
    ///
    /// Example: `veritas eval data/climate-fever-dev.jsonl -n 50 --out eval.jsonl`
    Eval(eval::EvalArgs),
    /// How the deadline reader does on a set of questions: deadlines found, their distance
    /// from the markets' end dates, and the "not yet" rule at each first answer's time.
    ///
    /// Example: `veritas deadlines polymarket-dev.jsonl --json`
    Deadlines(deadlines::DeadlinesArgs),
    /// The "not yet" rule on one question, offline: its deadline and whether a report at
    /// `--now` defers it (what `veritas audit` recomputes from a report's `clock`).
    ///
    /// Example: `veritas not-yet "Will the ferry resume before 1 February 2026?" --asked-at 2026-01-20T00:00:00Z --now 2026-01-20T06:00:00Z`
    NotYet(not_yet::NotYetArgs),
    /// Precision and coverage of the old and new routing rule on synthetic juror pools with
    /// correlated errors.
    ///
    /// Example: `veritas simulate --svg docs/routing-simulation.svg`
    Simulate(simulate::SimulateArgs),
    /// Print the oracle's JSON ABI (from the interface file the node's bindings come from).
    ///
    /// Example: `veritas abi > IVeritasOracle.abi.json`
    Abi(abi::AbiArgs),
    /// Print the configuration a node would run with (TOML, secrets redacted), or with
    /// `--reference` every key with its type, default and doc comment.
    ///
    /// Example: `veritas config --config /etc/veritas/veritas.toml`
    Config(config::ConfigCmdArgs),
}

impl Cli {
    /// Run the chosen subcommand, print its result (text, or JSON with `--json`) and its
    /// error, and return the exit code ([`output::exit_code`]).
    pub async fn execute(self) -> u8 {
        let json = self.json;
        output::finish(self.run().await, json)
    }

    /// Run the chosen subcommand; its result, not yet printed.
    ///
    /// # Errors
    /// Whatever the subcommand reports, with context for the user.
    pub async fn run(self) -> anyhow::Result<output::Output> {
        let json = self.json;
        match self.command {
            Command::Run(args) => run::run(args).await,
            Command::Ask(args) => ask::run(args).await,
            Command::Evidence(args) => evidence::run(args).await,
            Command::Clarify(args) => clarify::run(args).await,
            Command::Dispute(args) => dispute::run(args, json).await,
            Command::Appeal(args) => appeal::run(args).await,
            Command::Finalize(args) => finalize::run(args).await,
            Command::Callback(args) => callback::run(args).await,
            Command::Court(args) => court::run(args).await,
            Command::Verdict(args) => verdict::run(args).await,
            Command::Audit(args) => audit::run(args).await,
            Command::Operator(args) => operator::run(args).await,
            Command::Demo(args) => demo::run(args).await,
            Command::Doctor(args) => doctor::run(args).await,
            Command::Stats(args) => stats::run(args),
            Command::Commit(args) => commit::run(args),
            Command::Prove(args) => prove::run(args),
            Command::VerifyProof(args) => verify_proof::run(args),
            Command::Resolve(args) => resolve::run(args, json).await,
            Command::Eval(args) => eval::run(args).await,
            Command::Deadlines(args) => deadlines::run(args),
            Command::NotYet(args) => not_yet::run(args),
            Command::Simulate(args) => simulate::run_command(args),
            Command::Abi(args) => abi::run(&args),
            Command::Config(args) => config::run(args),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_version_names_the_commit_and_the_contract_version() {
        let contract = env!("VERITAS_CONTRACT_VERSION");
        assert!(
            contract.parse::<u32>().is_ok(),
            "no \"(version N)\" in IVeritasOracle's @notice: {contract}"
        );
        assert!(super::VERSION.starts_with(env!("CARGO_PKG_VERSION")));
        assert!(!env!("VERITAS_GIT_COMMIT").is_empty());
    }
}
