//! `veritas run`: the daemon.
//!
//! ```text
//! veritas run                          # ./veritas.toml if present, VERITAS__* env, defaults
//! veritas run --config /etc/veritas.toml --http-addr 127.0.0.1:9464
//! VERITAS_PRIVATE_KEY=0x... VERITAS__CHAIN__RPC_URL=https://... veritas run
//! ```

use std::{net::SocketAddr, path::PathBuf, sync::Arc};

use anyhow::Context;
use clap::Args;
use tokio_util::sync::CancellationToken;

use crate::{
    config::{self, Config, Sources},
    daemon,
    live::LiveEvents,
};

/// Where the configuration comes from, shared by the chain commands.
#[derive(Debug, Clone, Default, Args)]
pub struct ConfigArgs {
    /// TOML config file (default: ./veritas.toml when it exists).
    #[arg(long, short = 'c', env = "VERITAS_CONFIG")]
    pub config: Option<PathBuf>,
    /// JSON-RPC URL (overrides chain.rpc_url).
    #[arg(long, visible_alias = "rpc")]
    pub rpc_url: Option<String>,
    /// Oracle address (overrides chain.oracle and the deployment file).
    #[arg(long)]
    pub oracle: Option<alloy::primitives::Address>,
}

impl ConfigArgs {
    /// Load the configuration with these flags (and `extra` overrides) on top.
    ///
    /// # Errors
    /// The configuration error, naming the key.
    pub fn load(&self, mut extra: Vec<(String, String)>) -> anyhow::Result<Config> {
        if let Some(url) = &self.rpc_url {
            extra.push(("chain.rpc_url".into(), url.clone()));
        }
        if let Some(oracle) = &self.oracle {
            extra.push(("chain.oracle".into(), oracle.to_string()));
        }
        let sources = Sources {
            file: self.config.clone(),
            env: None,
            overrides: extra,
        };
        Config::load(&sources).context("loading configuration")
    }
}

/// `veritas run` arguments.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Data directory (overrides node.data_dir).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// HTTP API address (overrides node.http_addr).
    #[arg(long)]
    http_addr: Option<SocketAddr>,
}

impl RunArgs {
    /// The configuration file these flags name (`--config` / `VERITAS_CONFIG`), if any; without
    /// one the loader reads `./veritas.toml` when it exists.
    pub fn config_file(&self) -> Option<&std::path::Path> {
        self.config.config.as_deref()
    }

    /// The configuration with `--data-dir` and `--http-addr` applied over every other source
    /// (`veritas doctor` takes the same flags and checks the same configuration).
    ///
    /// # Errors
    /// The configuration cannot be loaded.
    pub fn load_config(&self) -> anyhow::Result<Config> {
        let mut extra = Vec::new();
        if let Some(dir) = &self.data_dir {
            extra.push(("node.data_dir".into(), dir.display().to_string()));
        }
        if let Some(addr) = self.http_addr {
            extra.push(("node.http_addr".into(), addr.to_string()));
        }
        self.config.load(extra)
    }
}

/// Run the daemon until SIGINT/SIGTERM.
///
/// # Errors
/// Start-up failures (config, key, chain, store) and a critical task dying.
pub async fn run(args: RunArgs) -> anyhow::Result<super::output::Output> {
    let config = args.load_config()?;
    let signer = config::load_signer(&config.keys)?;
    let live = Arc::new(LiveEvents::default());
    let resolver = daemon::build_resolver(&config, &live)?;
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    tokio::spawn(async move {
        daemon::shutdown_signal().await;
        on_signal.cancel();
    });
    daemon::run(config, signer, resolver, live, cancel, |_| {}).await?;
    Ok(super::output::Output::Streamed)
}
