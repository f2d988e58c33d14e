//! `veritas commit [FILE|-]`: Merkle roots of bundles, JSON lines in and out.
//!
//! Each input line is `{"question":"…","evidence":[{…},…]}`; each output line is
//! `{"root":"0x…","leaves":["0x…",…]}` (leaf 0 is the question). See the book's auditor specification, "Evidence commitment".
//!
//! ```sh
//! echo '{"question":"Is water wet?","evidence":[{"id":1,"title":"t"}]}' | veritas commit
//! ```

use std::path::PathBuf;

use clap::Args;

use super::jsonl::{map_lines, read_input};
pub use veritas_core::lines::commit::{BundleInput, QuestionField, commit_line};

/// Arguments of `veritas commit`.
#[derive(Debug, Args)]
pub struct CommitArgs {
    /// JSON-lines file of bundles; `-` or nothing reads stdin.
    pub input: Option<PathBuf>,
}

/// Run `veritas commit`.
///
/// # Errors
/// Unreadable input or any bad line (nothing is printed then).
pub fn run(args: CommitArgs) -> anyhow::Result<super::output::Output> {
    let input = read_input(args.input.as_deref())?;
    let out = map_lines(&input, commit_line)?;
    // JSON lines, with or without `--json`.
    print!("{out}");
    Ok(super::output::Output::Streamed)
}
