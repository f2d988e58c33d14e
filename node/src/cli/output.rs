//! The one output shell every command goes through, and the exit codes.
//!
//! A command returns an [`Output`]: its result as one JSON value and as the text a person
//! reads. `veritas` prints one or the other after the command ends (the global `--json`
//! chooses), so every command that prints a result answers `--json` the same way: one JSON
//! value on one line of stdout. Commands that stream (the daemon, the demo, JSON-lines filters)
//! print as they go and return [`Output::Streamed`].
//!
//! The exit code says how it ended ([`exit_code`]): 0 done, 1 failure, 2 a usage error or a
//! refusal by the contract's rules ([`Refused`], whether checked locally or reverted by the
//! chain) — so a script tells "try again later" from "this will never work as asked".

use serde_json::Value;

/// Exit code: the command did what was asked.
pub const EXIT_DONE: u8 = 0;
/// Exit code: it failed (configuration, key, RPC, I/O, a check that did not pass).
pub const EXIT_FAILURE: u8 = 1;
/// Exit code: a usage error (clap's own code for one) or a refusal by the contract's rules.
pub const EXIT_REFUSED: u8 = 2;

/// What `veritas --help` says about the output and the exit codes (the book's "Tools for every
/// role" page says the same).
pub const HELP: &str = "\
Output: a short summary for a person, or with --json one JSON value on one line of stdout
(amounts as decimal wei strings, hashes 0x-hex). Errors go to stderr.

Exit codes:
  0  done
  1  failure (configuration, key, RPC, I/O, a check that did not pass)
  2  usage error, or a refusal by the contract's rules (checked locally with the contract's
     own error, or a revert from the chain); nothing was sent";

/// A command's result, rendered for a person or as JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// The command printed as it went (a daemon, a stream of JSON lines): nothing left.
    Streamed,
    /// A result.
    Result {
        /// The `--json` form.
        json: Value,
        /// The text form, on stdout.
        human: String,
        /// Text form only: what goes to stderr (e.g. `ask` keeps its stdout to the id alone).
        notes: String,
    },
}

impl Output {
    /// A result whose text form is `human`, line by line.
    pub fn lines(json: Value, human: &[String]) -> Self {
        Self::text(json, human.iter().map(|l| format!("{l}\n")).collect())
    }

    /// A result whose text form is `human` as it is (ends with its own newline).
    pub fn text(json: Value, human: String) -> Self {
        Self::Result {
            json,
            human,
            notes: String::new(),
        }
    }

    /// A result that is JSON in both forms; `human` is how it reads without `--json` (e.g.
    /// pretty-printed), kept as the command always printed it.
    pub fn json(json: Value, human: String) -> Self {
        Self::text(json, human + "\n")
    }

    /// The same, with `notes` (line by line) on stderr in the text form.
    #[must_use]
    pub fn with_notes(self, lines: &[String]) -> Self {
        match self {
            Self::Result { json, human, .. } => Self::Result {
                json,
                human,
                notes: lines.iter().map(|l| format!("{l}\n")).collect(),
            },
            Self::Streamed => Self::Streamed,
        }
    }

    /// The JSON value, or `None` when streamed.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Self::Result { json, .. } => Some(json),
            Self::Streamed => None,
        }
    }

    /// Print it: one JSON line when `json`, else the text form.
    ///
    /// # Errors
    /// Writing to stdout failed.
    pub fn print(&self, json: bool) -> std::io::Result<()> {
        use std::io::Write as _;
        let Self::Result {
            json: value,
            human,
            notes,
        } = self
        else {
            return Ok(());
        };
        let mut stdout = std::io::stdout().lock();
        if json {
            writeln!(stdout, "{value}")?;
        } else {
            stdout.write_all(human.as_bytes())?;
            eprint!("{notes}");
        }
        stdout.flush()
    }
}

/// The contract's rules refuse the action: checked locally (the contract's own custom error and
/// sentence) or reverted by the chain. Exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// The command line asks for something that cannot be done as asked (clap's parse errors exit
/// with 2 too). Exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub String);

/// A command that has a result to show and still failed (a doctor check failed, an audit found
/// mismatches, a proof does not verify): the result is printed, then the error; exit code 1.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct FailedWith {
    /// What to print before the error.
    pub output: Output,
    /// Why it failed.
    pub message: String,
}

impl FailedWith {
    /// `output`, failing with `message`, as the command's error.
    pub fn error(output: Output, message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(Self {
            output,
            message: message.into(),
        })
    }
}

/// The exit code for `err`: 2 when any cause is a [`Refused`] or a [`Usage`], else 1.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err
        .chain()
        .any(|cause| cause.is::<Refused>() || cause.is::<Usage>())
    {
        EXIT_REFUSED
    } else {
        EXIT_FAILURE
    }
}

/// Print how a command ended (its result, and the error on stderr) and return the exit code.
pub fn finish(result: anyhow::Result<Output>, json: bool) -> u8 {
    match result {
        Ok(output) => match output.print(json) {
            Ok(()) => EXIT_DONE,
            // `veritas abi | head`: the reader has what it wanted.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_DONE,
            Err(e) => {
                eprintln!("error: writing the result: {e}");
                EXIT_FAILURE
            }
        },
        Err(err) => {
            if let Some(failed) = err.downcast_ref::<FailedWith>() {
                // The error below says what went wrong even if this cannot be written.
                let _ = failed.output.print(json);
            }
            eprintln!("error: {err:#}");
            exit_code(&err)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use anyhow::Context;

    use super::*;

    #[test]
    fn refusals_and_usage_errors_exit_2_through_context_everything_else_1() {
        let refused = anyhow::Error::new(Refused("no".into())).context("asking");
        assert_eq!(exit_code(&refused), EXIT_REFUSED);
        let usage: anyhow::Result<()> = Err(Usage("--json needs --yes".into()).into());
        assert_eq!(exit_code(&usage.context("x").unwrap_err()), EXIT_REFUSED);
        assert_eq!(exit_code(&anyhow::anyhow!("RPC down")), EXIT_FAILURE);
        let failed = FailedWith::error(Output::Streamed, "2 mismatches");
        assert_eq!(exit_code(&failed), EXIT_FAILURE);
        assert_eq!(finish(Ok(Output::Streamed), true), EXIT_DONE);
    }
}
