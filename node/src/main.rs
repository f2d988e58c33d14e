//! The `veritas` binary: parse the command line, start tracing, run, print, exit with the
//! command's code (`veritas::cli::output`).

use std::process::ExitCode;

use clap::Parser;
use veritas::cli::{Cli, Command};

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    // Third-party crates (llama.cpp's model dump and its tokenizer warnings, tantivy's
    // commits, alloy, hyper) stay quiet unless they warn; the demo prints its own summary, so
    // the node inside it only speaks up on trouble. `VERITAS_LOG=info` brings everything back.
    let default = match cli.command {
        Command::Demo(_) => "warn,llama_cpp=error",
        _ => "warn,veritas=info,llama_cpp=error",
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VERITAS_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default)),
        )
        .with_writer(std::io::stderr)
        .init();
    // 0 done, 1 failure, 2 a refusal by the contract's rules (clap exits 2 on a usage error
    // before this).
    ExitCode::from(cli.execute().await)
}
