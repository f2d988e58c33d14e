//! The `veritas` binary: parse the command line, start tracing, run, map errors to an exit code.

use std::process::ExitCode;

use clap::Parser;
use veritas::cli::Cli;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VERITAS_LOG")
                // Third-party crates (llama.cpp's model dump, tantivy's commits, alloy, hyper)
                // stay quiet unless they warn; `VERITAS_LOG=info` brings them back.
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,veritas=info")),
        )
        .with_writer(std::io::stderr)
        .init();
    match cli.run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
