//! Prepares the oracle interface for `sol!`.
//!
//! `contracts/interfaces/IVeritasOracle.sol` uses Solady-style banners such as
//! `/*////// TYPES //////*/`. Solidity block comments do not nest, but Rust's tokenizer (which
//! `sol!` runs on the file) reads the `/*` inside `//*/` as a nested comment opener and fails.
//! This script writes `OUT_DIR/oracle_bindings.rs`: a `sol!` invocation over the interface with
//! every block comment blanked out (NatSpec `///` lines are kept), which `chain::bindings`
//! includes. (`sol!` accepts a file path, but not one built with `concat!(env!(..))` together
//! with `#[sol(rpc)]`, so the source goes inline.)

use std::{env, fs, path::PathBuf};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let source = manifest.join("../contracts/interfaces/IVeritasOracle.sol");
    println!("cargo::rerun-if-changed={}", source.display());
    let text = match fs::read_to_string(&source) {
        Ok(text) => text,
        Err(e) => panic!("reading {}: {e}", source.display()),
    };
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default()).join("oracle_bindings.rs");
    // The attributes must sit on the interface itself (not on the pragma before it).
    let source = strip_block_comments(&text).replacen(
        "\ninterface ",
        "\n#[sol(rpc)]\n#[derive(Debug, PartialEq, Eq)]\ninterface ",
        1,
    );
    let bindings = format!("alloy::sol! {{\n{source}\n}}\n");
    if let Err(e) = fs::write(&out, bindings) {
        panic!("writing {}: {e}", out.display());
    }
}

/// Blank out `/* ... */` comments (Solidity semantics: no nesting), leaving line comments,
/// strings and line structure untouched.
fn strip_block_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let (mut in_line_comment, mut in_block, mut in_string) = (false, false, None::<char>);
    while let Some(c) = chars.next() {
        if in_block {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                in_block = false;
            } else if c == '\n' {
                out.push('\n');
            }
            continue;
        }
        if in_line_comment {
            in_line_comment = c != '\n';
            out.push(c);
            continue;
        }
        if let Some(quote) = in_string {
            out.push(c);
            if c == '\\' {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            } else if c == quote {
                in_string = None;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('*')) => {
                chars.next();
                in_block = true;
            }
            ('/', Some('/')) => {
                in_line_comment = true;
                out.push(c);
            }
            ('"' | '\'', _) => {
                in_string = Some(c);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}
