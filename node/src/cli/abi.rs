//! `veritas abi`: the oracle's JSON ABI, for integrators and for wallets and scripts that build
//! transactions themselves.
//!
//! ```text
//! veritas abi > IVeritasOracle.abi.json
//! veritas abi --notices            # the ABI plus every custom error's sentence template
//! ```
//!
//! The ABI comes from `contracts/interfaces/IVeritasOracle.sol`, the file the node's own
//! bindings are generated from, so what is printed is what the node speaks.

use clap::Args;
use serde_json::json;

use crate::chain::explain;

/// `veritas abi` arguments.
#[derive(Debug, Args)]
pub struct AbiArgs {
    /// Print `{"abi": [...], "notices": {"ErrorName": "sentence template"}}` instead of the
    /// bare ABI array.
    #[arg(long)]
    pub notices: bool,
}

/// Print the ABI (pretty JSON) on stdout.
///
/// # Errors
/// Only if writing JSON fails.
pub fn run(args: &AbiArgs) -> anyhow::Result<()> {
    let abi = explain::oracle_abi();
    let out = if args.notices {
        json!({ "abi": abi, "notices": explain::notices() })
    } else {
        serde_json::to_value(abi)?
    };
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
