//! JSON-lines plumbing shared by `veritas stats` and `veritas commit`.
//!
//! Input is read whole and every line is processed before anything is printed, so bad input
//! leaves stdout empty (no half-written output for a script to mistake for a result).

use std::io::Read as _;
use std::path::Path;

use anyhow::Context as _;

pub use veritas_core::lines::{LineError, map_lines, parse_line};

/// Read a file, or stdin for `-` / no path.
///
/// # Errors
/// The file cannot be read.
pub fn read_input(path: Option<&Path>) -> anyhow::Result<Vec<u8>> {
    match path {
        Some(p) if p != Path::new("-") => {
            std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))
        }
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .context("cannot read stdin")?;
            Ok(buf)
        }
    }
}
