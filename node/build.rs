//! Prepares the oracle interface for `sol!`.
//!
//! `contracts/interfaces/IVeritasOracle.sol` uses Solady-style banners such as
//! `/*////// TYPES //////*/`. Solidity block comments do not nest, but Rust's tokenizer (which
//! `sol!` runs on the file) reads the `/*` inside `//*/` as a nested comment opener and fails.
//! This script writes `OUT_DIR/oracle_bindings.rs`: a `sol!` invocation over the interface with
//! every block comment blanked out (NatSpec `///` lines are kept), which `contract::bindings`
//! includes. (`sol!` accepts a file path, but not one built with `concat!(env!(..))` together
//! with `#[sol(rpc)]`, so the source goes inline.)
//!
//! It also writes `OUT_DIR/contract_docs.rs`: the `@notice` of every custom error of the oracle
//! and of the reference court, and the members of their enums, so that `contract::explain` turns a
//! revert into the sentence the contract's own NatSpec gives it (one source for the CLI, the
//! web view and the contract's documentation).
//!
//! It sets two variables for `veritas --version`: `VERITAS_GIT_COMMIT`, the commit the build
//! came from (`git rev-parse`; `unknown` outside a git checkout or without git, so a source
//! tarball still builds; an exported `VERITAS_GIT_COMMIT` wins), and
//! `VERITAS_CONTRACT_VERSION`, the oracle interface's version as its NatSpec states it
//! ("(version N)" in the `@notice` of `IVeritasOracle`). Nothing is written outside `OUT_DIR`.
//!
//! Last, it puts the web view's wallet module into `OUT_DIR/wallet.js` for `web` to embed: the
//! bundle `make wallet` builds from `node/web/wallet/` with viem and esbuild (pinned in
//! `tools/package.json`) into `node/web/dist/wallet.js`, a build output never committed. A build
//! without it (a plain `cargo build` before `make setup`) still succeeds, with a warning, and
//! embeds a stub instead: the page's "Connect wallet" then says the node was built without its
//! wallet module and how to build it; the read-only view is unaffected.

use std::{env, fs, path::PathBuf};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let source = manifest.join("../contracts/interfaces/IVeritasOracle.sol");
    println!("cargo::rerun-if-changed={}", source.display());
    let text = match fs::read_to_string(&source) {
        Ok(text) => text,
        Err(e) => panic!("reading {}: {e}", source.display()),
    };
    let court = manifest.join("../contracts/court/VeritasCourt.sol");
    println!("cargo::rerun-if-changed={}", court.display());
    let court_text = match fs::read_to_string(&court) {
        Ok(text) => text,
        Err(e) => panic!("reading {}: {e}", court.display()),
    };
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());
    let docs = contract_docs(&[
        &strip_block_comments(&text),
        &strip_block_comments(&court_text),
    ]);
    if let Err(e) = fs::write(out_dir.join("contract_docs.rs"), docs) {
        panic!("writing contract_docs.rs: {e}");
    }
    let arbitrator = manifest.join("../contracts/interfaces/IArbitrator.sol");
    println!("cargo::rerun-if-changed={}", arbitrator.display());
    let arbitrator_text = match fs::read_to_string(&arbitrator) {
        Ok(text) => text,
        Err(e) => panic!("reading {}: {e}", arbitrator.display()),
    };
    let court_bindings = court_bindings(
        &strip_block_comments(&court_text),
        &strip_block_comments(&arbitrator_text),
    );
    if let Err(e) = fs::write(out_dir.join("court_bindings.rs"), court_bindings) {
        panic!("writing court_bindings.rs: {e}");
    }
    let out = out_dir.join("oracle_bindings.rs");
    // The attributes must sit on the interface itself (not on the pragma before it).
    let source = strip_block_comments(&text).replacen(
        "\ninterface ",
        "\n#[sol(rpc, abi)]\n#[derive(Debug, PartialEq, Eq)]\ninterface ",
        1,
    );
    let bindings = format!("alloy::sol! {{\n{source}\n}}\n");
    if let Err(e) = fs::write(&out, bindings) {
        panic!("writing {}: {e}", out.display());
    }
    embed_wallet(&manifest, &out_dir);
    println!(
        "cargo::rustc-env=VERITAS_CONTRACT_VERSION={}",
        contract_version(&text)
    );
    println!(
        "cargo::rustc-env=VERITAS_GIT_COMMIT={}",
        git_commit(&manifest)
    );
}

/// The N of "(version N)" in the interface's NatSpec; `unknown` when the sentence is gone (the
/// `version` unit test in `cli` fails then, so it is noticed).
fn contract_version(interface: &str) -> String {
    interface
        .split("(version ")
        .nth(1)
        .map(|rest| {
            rest.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// `git rev-parse --short=12 HEAD` of the checkout holding the crate, `unknown` without one.
/// Cargo re-runs this script when HEAD or the branch it names moves.
fn git_commit(manifest: &std::path::Path) -> String {
    println!("cargo::rerun-if-env-changed=VERITAS_GIT_COMMIT");
    if let Some(given) = env::var_os("VERITAS_GIT_COMMIT") {
        return given.to_string_lossy().into_owned();
    }
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(manifest)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
            .filter(|text| !text.is_empty())
    };
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return "unknown".to_owned();
    };
    // Watch HEAD, the branch file it points to and packed-refs: only files that exist (cargo
    // re-runs a script on every build while a watched path is missing).
    let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", &name])
            && std::path::Path::new(&path).exists()
        {
            println!("cargo::rerun-if-changed={path}");
        }
    }
    commit
}

/// The first line of the stub embedded when the wallet bundle was not built (`web` tests it).
const WALLET_STUB: &str = "// veritas: built without the wallet module\n\
    var VeritasWallet = { missing: \"This node was built without its wallet module: run `make wallet` \
    (part of `make setup`) and rebuild the node.\" };\n";

/// Copy the wallet bundle (or the stub) to `OUT_DIR/wallet.js`.
fn embed_wallet(manifest: &std::path::Path, out_dir: &std::path::Path) {
    let dist = manifest.join("web/dist");
    // The folder exists in every checkout (its .gitignore is committed): cargo notices a bundle
    // written into it later.
    println!("cargo::rerun-if-changed={}", dist.display());
    let bundle = dist.join("wallet.js");
    let body = match fs::read_to_string(&bundle) {
        Ok(text) => text,
        Err(_) => {
            println!(
                "cargo::warning=no wallet bundle at {}: the web view's \"Connect wallet\" is disabled in this build (run `make wallet`, then build again)",
                bundle.display()
            );
            WALLET_STUB.to_owned()
        }
    };
    if let Err(e) = fs::write(out_dir.join("wallet.js"), body) {
        panic!("writing wallet.js: {e}");
    }
}

/// `sol!` bindings of the reference court's external surface, read from the contract itself so
/// they cannot drift from it: `IArbitrator`'s `DisputeStatus`, and from `VeritasCourt` every
/// custom error and event, every external or public function (its header, without the body) and
/// a getter for every public state variable, each with its `///` NatSpec.
fn court_bindings(court: &str, arbitrator: &str) -> String {
    let mut body = String::new();
    // The enum from IArbitrator; each member documented by its part of the enum's `@notice`
    // ("Waiting: no ruling yet. Appealable: ...").
    if let Some(start) = arbitrator.find("enum DisputeStatus")
        && let Some(len) = arbitrator[start..].find('}')
    {
        let notice = arbitrator[..start]
            .lines()
            .rev()
            .map(str::trim)
            .find_map(|l| l.strip_prefix("/// @notice"))
            .unwrap_or_default();
        body.push_str("    /// ERC-792's dispute status.\n    enum DisputeStatus {\n");
        let members = arbitrator[start..start + len]
            .split_once('{')
            .map_or("", |(_, m)| m);
        for member in members.split(',').map(str::trim).filter(|m| !m.is_empty()) {
            let doc = notice
                .split(". ")
                .find_map(|part| part.trim().strip_prefix(&format!("{member}:")))
                .map_or_else(
                    || format!("ERC-792's `{member}`."),
                    |d| format!("{}.", d.trim().trim_end_matches('.')),
                );
            body.push_str(&format!("        /// {doc}\n        {member},\n"));
        }
        body.push_str("    }\n");
    }
    let mut docs = String::new();
    let mut lines = court.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line.starts_with("///") {
            docs.push_str(&format!("    {line}\n"));
            continue;
        }
        let item = if line.starts_with("error ") || line.starts_with("event ") {
            Some(line.to_owned())
        } else if line.starts_with("function ") {
            let mut header = line.to_owned();
            while !header.contains('{') && !header.contains(';') {
                match lines.next() {
                    Some(next) => {
                        header.push(' ');
                        header.push_str(next);
                    }
                    None => break,
                }
            }
            let header = header.split(['{', ';']).next().unwrap_or_default().trim();
            (header.contains(" external") || header.contains(" public")).then(|| {
                format!(
                    "{};",
                    header
                        .replace(" override", "")
                        .replace(" public", " external")
                )
            })
        } else {
            public_getter(line)
        };
        if let Some(item) = item {
            body.push_str(&docs);
            body.push_str(&format!("    {item}\n"));
        }
        docs.clear();
    }
    format!(
        "alloy::sol! {{\n/// The reference court's external surface (generated from contracts/court/VeritasCourt.sol).\n#[sol(rpc, abi)]\n#[derive(Debug, PartialEq, Eq)]\ninterface IVeritasCourt {{\n{body}}}\n}}\n"
    )
}

/// The getter of a public state variable declaration (`uint256 public immutable X;`,
/// `mapping(address judge => uint256) public fees;`), `None` for any other line.
fn public_getter(line: &str) -> Option<String> {
    let (ty, rest) = line.split_once(" public ")?;
    let name = rest
        .trim_start_matches("immutable ")
        .trim_end_matches(';')
        .trim();
    if let Some(mapping) = ty.strip_prefix("mapping(") {
        let (key, value) = mapping.strip_suffix(')')?.split_once("=>")?;
        return Some(format!(
            "function {name}({}) external view returns ({});",
            key.trim(),
            value.trim()
        ));
    }
    Some(format!("function {name}() external view returns ({ty});"))
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

/// `ERROR_NOTICES` (error name, its `@notice` joined into one line) and `ENUMS` (enum name, its
/// members in order) of the given Solidity sources, as Rust statics.
fn contract_docs(sources: &[&str]) -> String {
    let mut notices = Vec::new();
    let mut enums = Vec::new();
    let mut error_params = Vec::new();
    for source in sources {
        let mut notice: Option<String> = None;
        let mut lines = source.lines().map(str::trim);
        while let Some(line) = lines.next() {
            if let Some(doc) = line.strip_prefix("///") {
                let doc = doc.trim();
                match (doc.strip_prefix("@notice"), &mut notice) {
                    (Some(first), _) => notice = Some(first.trim().to_string()),
                    (None, Some(text)) if !doc.starts_with('@') => {
                        text.push(' ');
                        text.push_str(doc);
                    }
                    _ => {}
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix("error ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let params = rest.split_once('(').map_or("", |(_, p)| p);
                for param in params.split(')').next().unwrap_or_default().split(',') {
                    if let [ty, param] = param.split_whitespace().collect::<Vec<_>>()[..] {
                        error_params.push((name.clone(), param.to_string(), ty.to_string()));
                    }
                }
                notices.push((name, notice.take().unwrap_or_default()));
            } else if let Some(rest) = line.strip_prefix("enum ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let mut body = rest
                    .split_once('{')
                    .map(|(_, b)| b.to_string())
                    .unwrap_or_default();
                while !body.contains('}') {
                    match lines.next() {
                        Some(next) => body.push_str(next.split("//").next().unwrap_or_default()),
                        None => break,
                    }
                }
                let members: Vec<String> = body
                    .split('}')
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|m| m.trim().to_string())
                    .filter(|m| !m.is_empty())
                    .collect();
                enums.push((name, members));
            }
            notice = None;
        }
    }
    let mut out = String::from(
        "/// Every custom error's `@notice`, by error name.\npub(super) static ERROR_NOTICES: &[(&str, &str)] = &[\n",
    );
    for (name, notice) in &notices {
        out.push_str(&format!("    ({name:?}, {notice:?}),\n"));
    }
    out.push_str("];\n/// Every enum's members, in order, by enum name.\npub(super) static ENUMS: &[(&str, &[&str])] = &[\n");
    for (name, members) in &enums {
        out.push_str(&format!("    ({name:?}, &{members:?}),\n"));
    }
    out.push_str("];\n/// (error, parameter, enum) for every error parameter of an enum type.\npub(super) static ENUM_PARAMS: &[(&str, &str, &str)] = &[\n");
    for (error, param, ty) in &error_params {
        if enums.iter().any(|(name, _)| name == ty) {
            out.push_str(&format!("    ({error:?}, {param:?}, {ty:?}),\n"));
        }
    }
    out.push_str("];\n");
    out
}
