//! `veritas abi`: the oracle's JSON ABI (or the reference court's), for integrators and for
//! wallets and scripts that build transactions themselves.
//!
//! ```text
//! veritas abi > IVeritasOracle.abi.json
//! veritas abi --notices            # the ABI plus every custom error's sentence template
//! veritas abi --court              # the reference court's (VeritasCourt) ABI, as the tools use it
//! ```
//!
//! The oracle's ABI comes from `contracts/interfaces/IVeritasOracle.sol`, the file the node's
//! own bindings are generated from, so what is printed is what the node speaks. The book holds
//! both ABIs (`book/src/abi/`), and a unit test here fails when its copy is not this output.

use clap::Args;
use serde_json::json;

use crate::contract::explain;

/// `veritas abi` arguments.
#[derive(Debug, Args)]
pub struct AbiArgs {
    /// Print `{"abi": [...], "notices": {"ErrorName": "sentence template"}}` instead of the
    /// bare ABI array.
    #[arg(long)]
    pub notices: bool,
    /// The reference court's ABI (`VeritasCourt`: what the role tools call, and its errors)
    /// instead of the oracle's.
    #[arg(long)]
    pub court: bool,
}

/// The text `veritas abi` prints (pretty JSON, no trailing newline).
///
/// # Errors
/// Only if serialising fails.
pub fn text(args: &AbiArgs) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&value(args)?)
}

/// The JSON `veritas abi` prints.
///
/// # Errors
/// Only if serialising fails.
pub fn value(args: &AbiArgs) -> serde_json::Result<serde_json::Value> {
    let abi = if args.court {
        explain::court_abi()
    } else {
        explain::oracle_abi()
    };
    let out = if args.notices {
        json!({ "abi": abi, "notices": explain::notices() })
    } else {
        serde_json::to_value(abi)?
    };
    Ok(out)
}

/// The ABI: pretty JSON as it always printed, one line with `--json`.
///
/// # Errors
/// Only if writing JSON fails.
pub fn run(args: &AbiArgs) -> anyhow::Result<super::output::Output> {
    Ok(super::output::Output::json(value(args)?, text(args)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The book's copies (`{{#include}}`d by the integrator guide) are exactly what `veritas
    /// abi` prints, so they cannot go stale. After a change to the interface:
    /// `veritas abi > book/src/abi/IVeritasOracle.abi.json` and
    /// `veritas abi --court > book/src/abi/VeritasCourt.abi.json`.
    #[test]
    fn the_books_copies_are_what_veritas_abi_prints() {
        let oracle = include_str!("../../../book/src/abi/IVeritasOracle.abi.json");
        let court = include_str!("../../../book/src/abi/VeritasCourt.abi.json");
        for (book, court_flag, file) in [
            (oracle, false, "IVeritasOracle.abi.json"),
            (court, true, "VeritasCourt.abi.json"),
        ] {
            let args = AbiArgs {
                notices: false,
                court: court_flag,
            };
            let printed = text(&args).expect("the ABI serialises") + "\n";
            assert!(
                book == printed,
                "book/src/abi/{file} is not what `veritas abi{}` prints: regenerate it",
                if court_flag { " --court" } else { "" }
            );
        }
    }
}
