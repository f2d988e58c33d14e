//! A local development chain: anvil on a free port, and the oracle deployed from forge's
//! artifact. `veritas demo` and the end-to-end tests use it; nothing here runs against a
//! public network.
//!
//! The binary holds no key: the demo signs with the keys anvil prints at start
//! ([`Anvil::key`]). The tests' copy of those keys, [`ANVIL_KEYS`], is built only for tests
//! and with the `test-utils` feature (the integration tests turn it on through the crate's
//! dev-dependency on itself), as reth keeps its test utilities.

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use alloy::{
    network::{EthereumWallet, TransactionBuilder},
    primitives::{Address, Bytes, U256},
    providers::{Provider, ProviderBuilder},
    rpc::types::{TransactionReceipt, TransactionRequest},
    signers::local::PrivateKeySigner,
    sol_types::SolValue,
};

use crate::contract::IVeritasOracle;

/// Anvil's ten development keys (derived from its public default mnemonic "test test ... junk");
/// they hold test ether on any anvil and nothing anywhere else. 0 deploys and arbitrates, 1 is
/// the first operator, 2 asks; 3 and 4 are more operators, 5 and 6 dispute and submit evidence
/// in tests; 7 to 9 play the other roles of the role tools' test (judge, submitter, anyone).
#[cfg(any(test, feature = "test-utils"))]
pub const ANVIL_KEYS: [&str; 10] = [
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
    "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
    "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
    "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
    "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
    "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
    "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
    "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
];

/// Why the devnet could not be started or set up.
#[derive(Debug, thiserror::Error)]
pub enum DevnetError {
    /// A tool (anvil, forge) could not be run.
    #[error("{tool}: {reason}")]
    Tool {
        /// The tool.
        tool: String,
        /// What went wrong.
        reason: String,
    },
    /// The contract artifact is missing or malformed.
    #[error("artifact {path}: {reason}")]
    Artifact {
        /// The artifact file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// Deploying or configuring the oracle failed.
    #[error("deploy: {0}")]
    Deploy(String),
}

/// The repository root: the nearest ancestor of the working directory (or of this crate's
/// manifest) holding `foundry.toml`.
pub fn repo_root() -> Option<PathBuf> {
    let from_cwd = std::env::current_dir().ok();
    let from_manifest = Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    for start in [from_cwd, from_manifest].into_iter().flatten() {
        let mut dir: Option<&Path> = Some(start.as_path());
        while let Some(d) = dir {
            if d.join("foundry.toml").is_file() {
                return Some(d.to_path_buf());
            }
            dir = d.parent();
        }
    }
    None
}

/// Path of a pinned Foundry tool: `tools/foundry/bin/<name>` in the repo (the platform binary
/// that `make setup` links, see `tools/link-foundry`), else the bare name (looked up on `PATH`).
///
/// Never the npm launcher script of `@foundry-rs/<tool>`: it drops the tool's exit status, so a
/// failed `forge build` would look like a success.
pub fn tool(name: &str) -> PathBuf {
    repo_root()
        .map(|root| root.join("tools/foundry/bin").join(name))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// Options for [`Anvil::spawn`].
#[derive(Debug, Clone, Default)]
pub struct AnvilOptions {
    /// Port; `None` picks a free one.
    pub port: Option<u16>,
    /// `--state FILE`: load the chain from it at start and dump it on exit (SIGTERM).
    pub state: Option<PathBuf>,
    /// `--block-time`: interval mining instead of one block per transaction.
    pub block_time: Option<u64>,
    /// `--chain-id`: pose as another chain (the quickstart's test poses as Sepolia, 11155111);
    /// `None` keeps anvil's 31337.
    pub chain_id: Option<u64>,
    /// `--timestamp`: the genesis block's time (unix seconds). A chain that starts in the past
    /// can be moved forward past a question's deadline while the node's own clock, which
    /// schedules its jobs, is already beyond every round the test opens.
    pub timestamp: Option<u64>,
}

/// A running anvil, killed on drop.
#[derive(Debug)]
pub struct Anvil {
    child: Option<Child>,
    /// The port it listens on.
    pub port: u16,
    /// Its HTTP URL.
    pub url: String,
    /// The development keys anvil printed at start ("Private Keys"), in its order.
    keys: Vec<String>,
    options: AnvilOptions,
}

fn anvil_error(reason: impl Into<String>) -> DevnetError {
    DevnetError::Tool {
        tool: "anvil".into(),
        reason: reason.into(),
    }
}

impl Anvil {
    /// Start anvil and wait until it answers JSON-RPC.
    ///
    /// Without a fixed port, anvil binds port 0 itself and the port is read back from its own
    /// "Listening on" line: no port is picked and released for another process to take, and
    /// whatever answers there afterwards is the anvil this call started.
    ///
    /// # Errors
    /// [`DevnetError::Tool`] when anvil cannot be started or does not answer within 30 s.
    pub async fn spawn(options: AnvilOptions) -> Result<Self, DevnetError> {
        let mut anvil = Self {
            child: None,
            port: options.port.unwrap_or(0),
            url: String::new(),
            keys: Vec::new(),
            options,
        };
        anvil.start().await?;
        Ok(anvil)
    }

    /// Start the process on `self.port` (0: any) and wait until it listens and answers.
    async fn start(&mut self) -> Result<(), DevnetError> {
        let (child, listening) = start_anvil(self.port, &self.options)?;
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        let (port, keys) = loop {
            match listening.try_recv() {
                Ok(started) => break started,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    return Err(self.exited_or("closed its output before listening"));
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
            }
            if Instant::now() > deadline {
                return Err(anvil_error("not listening after 30 s"));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        self.port = port;
        self.keys = keys;
        self.url = format!("http://127.0.0.1:{port}");
        self.wait_ready(deadline).await
    }

    /// Why the process is gone (its exit status), or `otherwise`.
    fn exited_or(&mut self, otherwise: &str) -> DevnetError {
        match self.child.as_mut().map(Child::try_wait) {
            Some(Ok(Some(status))) => anvil_error(format!("exited: {status}")),
            _ => anvil_error(otherwise),
        }
    }

    async fn wait_ready(&mut self, deadline: Instant) -> Result<(), DevnetError> {
        let url: reqwest::Url = self.url.parse().map_err(|e| anvil_error(format!("{e}")))?;
        let provider = ProviderBuilder::new().connect_http(url);
        loop {
            if provider.get_chain_id().await.is_ok() {
                return Ok(());
            }
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                return Err(anvil_error(format!("exited: {status}")));
            }
            if Instant::now() > deadline {
                return Err(anvil_error("no answer after 30 s"));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Development key `index` as anvil printed it (0 deploys and arbitrates, 1 is the first
    /// operator, 2 asks: see [`ANVIL_KEYS`]'s roles).
    ///
    /// # Errors
    /// [`DevnetError::Tool`] when anvil printed fewer keys.
    pub fn key(&self, index: usize) -> Result<&str, DevnetError> {
        self.keys.get(index).map(String::as_str).ok_or_else(|| {
            anvil_error(format!(
                "printed {} development keys, key {index} asked for",
                self.keys.len()
            ))
        })
    }

    /// Stop anvil gracefully (SIGTERM, so `--state` is dumped) and wait for it to exit.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal_group(&child, "-TERM");
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            signal_group(&child, "-KILL");
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Start it again on the same port with the same options (after [`Anvil::stop`]).
    ///
    /// # Errors
    /// As [`Anvil::spawn`].
    pub async fn restart(&mut self) -> Result<(), DevnetError> {
        self.stop();
        self.start().await
    }
}

/// Start anvil on `port` (0: any free one). The receiver gets the port from anvil's own
/// "Listening on" line, so it is known to be this process's, with the development keys it
/// printed before it; a thread drains the rest of its output (anvil logs every transaction,
/// and a full pipe would stall it).
#[allow(clippy::type_complexity)]
fn start_anvil(
    port: u16,
    options: &AnvilOptions,
) -> Result<(Child, std::sync::mpsc::Receiver<(u16, Vec<String>)>), DevnetError> {
    let binary = tool("anvil");
    let mut cmd = Command::new(&binary);
    cmd.arg("--port")
        .arg(port.to_string())
        .arg("--host")
        .arg("127.0.0.1");
    if let Some(state) = &options.state {
        cmd.arg("--state").arg(state);
    }
    if let Some(block_time) = options.block_time {
        cmd.arg("--block-time").arg(block_time.to_string());
    }
    if let Some(timestamp) = options.timestamp {
        cmd.arg("--timestamp").arg(timestamp.to_string());
    }
    if let Some(chain_id) = options.chain_id {
        cmd.arg("--chain-id").arg(chain_id.to_string());
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // Its own process group, so that stopping it reaches the real binary (see `signal_group`).
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().map_err(|e| DevnetError::Tool {
        tool: binary.display().to_string(),
        reason: format!("{e} (run `make setup` to install the pinned Foundry tools)"),
    })?;
    let (tx, rx) = std::sync::mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        std::thread::spawn(move || {
            use std::io::BufRead;
            let mut keys = Vec::new();
            let mut in_keys = false;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if line.trim() == "Private Keys" {
                    in_keys = true;
                } else if in_keys && let Some(key) = printed_key(&line) {
                    keys.push(key);
                } else if in_keys && line.trim().starts_with("Wallet") {
                    in_keys = false;
                }
                if let Some(port) = listening_port(&line) {
                    let _ = tx.send((port, std::mem::take(&mut keys)));
                }
            }
        });
    }
    Ok((child, rx))
}

/// The key of one of anvil's "(0) 0xac09…" lines under "Private Keys".
fn printed_key(line: &str) -> Option<String> {
    let (index, key) = line.trim().split_once(' ')?;
    let digits = index.strip_prefix('(')?.strip_suffix(')')?;
    let hex = key.strip_prefix("0x")?;
    (digits.chars().all(|c| c.is_ascii_digit())
        && hex.len() == 64
        && hex.chars().all(|c| c.is_ascii_hexdigit()))
    .then(|| key.to_owned())
}

/// The port of anvil's "Listening on 127.0.0.1:34131" line.
fn listening_port(line: &str) -> Option<u16> {
    let addr: std::net::SocketAddr = line.trim().strip_prefix("Listening on ")?.parse().ok()?;
    Some(addr.port())
}

impl Drop for Anvil {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            signal_group(&child, "-KILL");
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Signal anvil's whole process group: an anvil reached through a wrapper (the npm launcher on
/// `PATH`, a shell script) runs the real binary as its child, and signalling the wrapper alone
/// would leave the real anvil running, orphaned.
fn signal_group(child: &Child, signal: &str) {
    let _ = Command::new("kill")
        .arg(signal)
        .arg("--")
        .arg(format!("-{}", child.id()))
        .stderr(Stdio::null())
        .status();
}

/// The creation bytecode of contract `name` (`out/<name>.sol/<name>.json`) from forge's
/// artifact, after one `forge build` per process.
///
/// Always building (a no-op in under a second when nothing changed) keeps a stale `out/` from
/// an older contract from ever being deployed by the demo or the tests.
///
/// # Errors
/// [`DevnetError`] when forge fails or the artifact has no bytecode.
pub fn artifact_bytecode(name: &str) -> Result<Bytes, DevnetError> {
    let root = repo_root().ok_or_else(|| DevnetError::Tool {
        tool: "forge".into(),
        reason: "no foundry.toml above the working directory: run from the repository".into(),
    })?;
    let path = root.join(format!("out/{name}.sol/{name}.json"));
    // Parallel tests in one process must not run two `forge build`s into the same out/; the
    // flag records that this process has built once.
    static BUILT: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if !*built {
        // The contracts only: the tests' build takes minutes and the node needs none of it.
        let status = Command::new(tool("forge"))
            .args(["build", "--skip", "test", "--skip", "script"])
            .current_dir(&root)
            .env("FOUNDRY_SOLC", root.join("tools/solc"))
            .stdout(Stdio::null())
            .status()
            .map_err(|e| DevnetError::Tool {
                tool: "forge".into(),
                reason: e.to_string(),
            })?;
        if !status.success() {
            return Err(DevnetError::Tool {
                tool: "forge build".into(),
                reason: status.to_string(),
            });
        }
        *built = true;
    }
    let fail = |reason: String| DevnetError::Artifact {
        path: path.clone(),
        reason,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| fail(e.to_string()))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| fail(e.to_string()))?;
    let hex = json
        .pointer("/bytecode/object")
        .and_then(|v| v.as_str())
        .ok_or_else(|| fail("no bytecode.object".into()))?;
    hex.parse().map_err(|e| fail(format!("bad bytecode: {e}")))
}

/// What the devnet owner stakes for each operator it adds: 1 ether, a hundred reports' worth of
/// the 0.01-ether bonds the tests use.
pub const DEVNET_OPERATOR_STAKE: U256 = U256::from_limbs([1_000_000_000_000_000_000, 0, 0, 0]);

/// Deploy the oracle with `owner_key` as owner, our reference court (`VeritasCourt`) with that
/// key as its only judge (free, no appeal period), add `operators` (staking
/// [`DEVNET_OPERATOR_STAKE`] for each), and make the court the
/// arbitrator of the oracle's parameter set (when there is an operator to reach the quorum).
/// Returns the oracle address and its deployment block; the court is
/// `parameters().arbitrator`.
///
/// # Errors
/// [`DevnetError`].
pub async fn deploy_oracle(
    rpc_url: &str,
    owner_key: &str,
    operators: &[Address],
) -> Result<(Address, u64), DevnetError> {
    let signer: PrivateKeySigner = owner_key.parse().map_err(deploy_error)?;
    let owner = signer.address();
    let url: reqwest::Url = rpc_url.parse().map_err(deploy_error)?;
    let provider = ProviderBuilder::new()
        .wallet(EthereumWallet::from(signer))
        .connect_http(url);
    // The modules first: the oracle runs their code, and its initcode cannot carry it (EIP-3860).
    let (court_module, _) = create(&provider, "VeritasCourtModule", Vec::new()).await?;
    let (admin_module, _) = create(&provider, "VeritasAdminModule", Vec::new()).await?;
    let (address, block) = create(
        &provider,
        "VeritasOracle",
        (owner, court_module, admin_module).abi_encode_params(),
    )
    .await?;
    let judges = vec![owner];
    let (court, _) = create(
        &provider,
        "VeritasCourt",
        (judges, U256::ZERO, U256::ZERO, U256::ZERO).abi_encode_params(),
    )
    .await?;
    if !operators.is_empty() {
        enrol(&provider, address, operators, court).await?;
    }
    Ok((address, block))
}

/// Add and stake each operator (each report locks its question's dispute bond of the
/// operator's stake), then make `court` the arbitrator of the parameter set.
async fn enrol(
    provider: &impl Provider,
    address: Address,
    operators: &[Address],
    court: Address,
) -> Result<(), DevnetError> {
    let oracle = IVeritasOracle::new(address, provider);
    for op in operators {
        mined(provider, oracle.addOperator(*op).into_transaction_request()).await?;
        let stake = oracle.stake(*op).value(DEVNET_OPERATOR_STAKE);
        mined(provider, stake.into_transaction_request()).await?;
    }
    let mut parameters = oracle.parameters().call().await.map_err(deploy_error)?;
    parameters.arbitrator = court;
    let set = oracle.setParameters(parameters, String::new());
    mined(provider, set.into_transaction_request()).await?;
    Ok(())
}

/// Deploy the artifact `name` with its encoded constructor `args`: its address and block.
async fn create(
    provider: &impl Provider,
    name: &'static str,
    args: Vec<u8>,
) -> Result<(Address, u64), DevnetError> {
    let mut code = artifact_bytecode(name)?.to_vec();
    code.extend_from_slice(&args);
    let receipt = mined(
        provider,
        TransactionRequest::default().with_deploy_code(code),
    )
    .await?;
    let address = receipt
        .contract_address
        .ok_or_else(|| DevnetError::Deploy(format!("{name}: no contract address")))?;
    Ok((address, receipt.block_number.unwrap_or_default()))
}

/// Send `tx` and wait for its receipt.
async fn mined(
    provider: &impl Provider,
    tx: TransactionRequest,
) -> Result<TransactionReceipt, DevnetError> {
    provider
        .send_transaction(tx)
        .await
        .map_err(deploy_error)?
        .get_receipt()
        .await
        .map_err(deploy_error)
}

fn deploy_error(e: impl std::fmt::Display) -> DevnetError {
    DevnetError::Deploy(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_port_comes_from_anvils_listening_line() {
        assert_eq!(listening_port("Listening on 127.0.0.1:34131"), Some(34131));
        assert_eq!(
            listening_port("Listening on 127.0.0.1:34131\r"),
            Some(34131)
        );
        assert_eq!(listening_port("Listening on [::1]:8545"), Some(8545));
        assert_eq!(listening_port("Genesis Timestamp: 1795655359"), None);
        assert_eq!(listening_port("Listening on nowhere"), None);
    }

    #[test]
    fn a_key_comes_from_anvils_private_keys_lines() {
        let line = format!("({}) {}", 0, ANVIL_KEYS[0]);
        assert_eq!(printed_key(&line).as_deref(), Some(ANVIL_KEYS[0]));
        assert_eq!(
            printed_key(&format!("(9) {}\r", ANVIL_KEYS[9])).as_deref(),
            Some(ANVIL_KEYS[9])
        );
        // An account line (an address and a balance) is no key.
        assert_eq!(
            printed_key(
                "(0) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000.000000000000000000 ETH)"
            ),
            None
        );
        assert_eq!(printed_key("Private Keys"), None);
    }

    /// The demo signs with what anvil prints; the tests with their copy: the same keys.
    #[tokio::test]
    async fn anvil_prints_the_tests_keys() {
        let mut anvil = Anvil::spawn(AnvilOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        for (i, key) in ANVIL_KEYS.iter().enumerate() {
            assert_eq!(anvil.key(i).ok(), Some(*key), "key {i}");
        }
        assert!(anvil.key(ANVIL_KEYS.len()).is_err());
        anvil.stop();
    }
}
