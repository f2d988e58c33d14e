//! Shared end-to-end fixtures: a real anvil with the real oracle, and the real `veritas`
//! binary run as a child process (so tests can SIGKILL it).

#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::Duration,
};

use alloy::{
    network::EthereumWallet,
    primitives::{Address, U256},
    providers::{DynProvider, Provider, ProviderBuilder},
    rpc::types::{Filter, TransactionReceipt, TransactionRequest},
    signers::local::PrivateKeySigner,
    sol_types::SolEvent,
};
use veritas::{
    contract::IVeritasOracle,
    devnet::{ANVIL_KEYS, Anvil, AnvilOptions, deploy_oracle},
};

pub mod chat_double;
pub mod commit_reveal;
pub mod llama;
pub mod proxy;
pub mod wait;

/// The long tests that time something or load both cores (`#[ignore]`d, run together by
/// `cargo test -- --ignored`) hold this for their whole run, one at a time: they share one
/// process now, and two of them side by side on two cores would measure each other.
static MEASURING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Wait until no other long test runs; hold the guard for the test's whole run.
pub async fn measuring() -> tokio::sync::MutexGuard<'static, ()> {
    MEASURING.lock().await
}

/// [`measuring`] for a test without a runtime.
pub fn measuring_blocking() -> tokio::sync::MutexGuard<'static, ()> {
    MEASURING.blocking_lock()
}

/// A chain with the oracle deployed and the node's operator authorised.
pub struct Chain {
    pub anvil: Anvil,
    pub oracle: Address,
    pub deploy_block: u64,
    /// The log file of every node configured on this chain: a status that never comes
    /// shows their last lines ([`Chain::wait_status`]).
    node_logs: std::sync::Mutex<Vec<PathBuf>>,
}

pub fn operator() -> PrivateKeySigner {
    ANVIL_KEYS[1].parse().unwrap()
}

impl Chain {
    pub async fn start(options: AnvilOptions) -> Self {
        let anvil = Anvil::spawn(options)
            .await
            .expect("anvil starts (run `make setup`)");
        let (oracle, deploy_block) =
            deploy_oracle(&anvil.url, ANVIL_KEYS[0], &[operator().address()])
                .await
                .expect("deploy");
        Self {
            anvil,
            oracle,
            deploy_block,
            node_logs: Default::default(),
        }
    }

    /// The last lines of every node log of this chain that still exists.
    fn node_log_tails(&self) -> String {
        let logs = self.node_logs.lock().unwrap_or_else(|e| e.into_inner());
        logs.iter()
            .filter_map(|path| {
                let text = std::fs::read_to_string(path).ok()?;
                Some(format!(
                    "\n--- {} ---\n{}",
                    path.display(),
                    llama::tail(&text)
                ))
            })
            .collect()
    }

    pub fn reader(&self) -> DynProvider {
        ProviderBuilder::new()
            .connect_http(self.anvil.url.parse().unwrap())
            .erased()
    }

    /// Question `id` of this chain's oracle, read through `provider` (e.g. [`Chain::reader`]):
    /// what the audit's chain comparisons take.
    pub fn question<'a>(
        &self,
        provider: &'a DynProvider,
        id: U256,
    ) -> veritas::audit::QuestionOnChain<'a> {
        veritas::audit::QuestionOnChain {
            provider,
            oracle: self.oracle,
            id,
        }
    }

    /// Ask questions from anvil's account 2; returns their ids.
    pub async fn ask(&self, questions: &[&str]) -> Vec<U256> {
        let mut ids = Vec::new();
        for q in questions {
            ids.push(self.ask_paying(q, U256::ZERO, 0).await);
        }
        ids
    }

    /// Ask a question whose bytes are not valid UTF-8 (the ABI encodes `string` as `bytes`).
    pub async fn ask_raw_bytes(&self, text: &[u8]) -> U256 {
        use alloy::{
            network::TransactionBuilder,
            rpc::types::TransactionRequest,
            sol_types::{SolCall, SolValue},
        };
        let asker: PrivateKeySigner = ANVIL_KEYS[2].parse().unwrap();
        let provider = ProviderBuilder::new()
            .wallet(EthereumWallet::from(asker))
            .connect_http(self.anvil.url.parse().unwrap());
        let rules =
            veritas::contract::reader::current_rules(&IVeritasOracle::new(self.oracle, &provider))
                .await
                .unwrap();
        let mut input = IVeritasOracle::askQuestionCall::SELECTOR.to_vec();
        input.extend(
            (alloy::primitives::Bytes::copy_from_slice(text), 0u64, rules).abi_encode_params(),
        );
        let tx = TransactionRequest::default()
            .with_to(self.oracle)
            .with_input(input);
        let receipt = provider
            .send_transaction(tx)
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status(), "raw ask reverted");
        veritas::contract::asked_id(&receipt).unwrap()
    }

    pub async fn status(&self, id: U256) -> IVeritasOracle::VerdictStatus {
        let p = self.reader();
        IVeritasOracle::new(self.oracle, &p)
            .verdictStatus(id)
            .call()
            .await
            .unwrap()
    }

    /// Wait until every id has a verdict; panics after `timeout`, naming one without.
    pub async fn wait_verdicts(&self, ids: &[U256], timeout: Duration) {
        let missing = std::cell::Cell::new(None);
        wait::until(
            timeout,
            || format!("no verdict for question {:?}", missing.get()),
            async || {
                for id in ids {
                    let status = IVeritasOracle::new(self.oracle, &self.reader())
                        .verdictStatus(*id)
                        .call()
                        .await;
                    if !status.is_ok_and(|s| veritas::contract::has_verdict(&s)) {
                        missing.set(Some(*id));
                        return None;
                    }
                }
                Some(())
            },
        )
        .await;
    }

    /// Ask `questions` (as [`Chain::ask`]) and wait until each has a verdict (as
    /// [`Chain::wait_verdicts`]); returns their ids.
    pub async fn ask_and_wait(&self, questions: &[&str], timeout: Duration) -> Vec<U256> {
        let ids = self.ask(questions).await;
        self.wait_verdicts(&ids, timeout).await;
        ids
    }

    /// How many `VerdictPosted` events each id got (exactly-once checks).
    pub async fn verdict_events(&self, id: U256) -> usize {
        let filter = Filter::new()
            .address(self.oracle)
            .event_signature(IVeritasOracle::VerdictPosted::SIGNATURE_HASH)
            .topic1(id)
            .from_block(0u64);
        self.reader().get_logs(&filter).await.unwrap().len()
    }
}

/// The scenario most end-to-end tests open with: a chain with the oracle deployed
/// ([`Chain::start`] with anvil's defaults) and one node running on it, configured by
/// [`Node::configure`] with `replay` and `extra`, already started.
pub async fn chain_and_node(replay: &str, extra: &str) -> (Chain, Node) {
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure(&chain, replay, extra);
    node.start();
    (chain, node)
}

/// [`chain_and_node`] with the committee resolver ([`Node::configure_committee`]).
pub async fn chain_and_committee_node(replay: &str) -> (Chain, Node) {
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure_committee(&chain, replay);
    node.start();
    (chain, node)
}

/// A chain and a node configured on it (not started) whose RPC goes through a quiet test proxy
/// ([`proxy::start_proxy`], ranges up to 1,000 blocks): the tests that make the chain lie or
/// stall switch the proxy while the node runs.
pub async fn chain_and_node_behind_proxy(replay: &str) -> (Chain, Node, proxy::Proxy) {
    let chain = Chain::start(AnvilOptions::default()).await;
    let (proxy_url, proxy) = proxy::start_proxy(&chain.anvil.url, 1_000).await;
    let node = Node::configure(&chain, replay, "");
    node.edit_config(&chain.anvil.url, &proxy_url);
    (chain, node, proxy)
}

/// [`chain_and_node`] with the node run in this process ([`Node::start_in_process`]).
pub async fn chain_and_node_in_process(replay: &str, extra: &str) -> (Chain, Node) {
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure(&chain, replay, extra);
    node.start_in_process().await;
    (chain, node)
}

/// [`chain_and_committee_node`] with the node run in this process.
pub async fn chain_and_committee_node_in_process(replay: &str) -> (Chain, Node) {
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure_committee(&chain, replay);
    node.start_in_process().await;
    (chain, node)
}

/// The daemon running inside the test process: `daemon::run` on the test's runtime, as
/// `veritas run` calls it, stopped through its cancellation token.
pub struct InProcess {
    cancel: tokio_util::sync::CancellationToken,
    task: tokio::task::JoinHandle<Result<(), veritas::daemon::DaemonError>>,
    /// The HTTP API's bound address (`on_start`'s `Started::http_addr`).
    pub api: std::net::SocketAddr,
}

/// The node under test, with its own data directory and config file: either the `veritas run`
/// child process (`child`; crash, kill, signal and multi-process tests) or the daemon run in
/// this process (`in_process`; tests whose subject is not the process boundary).
pub struct Node {
    /// The operator key it runs with (`ANVIL_KEYS[1]` unless configured otherwise).
    pub key: &'static str,
    pub child: Option<Child>,
    pub in_process: Option<InProcess>,
    pub dir: tempfile::TempDir,
    pub config: PathBuf,
    pub log: PathBuf,
}

impl Node {
    /// Write a config for `chain` with the replay resolver running `replay` (JSON script).
    pub fn configure(chain: &Chain, replay: &str, extra: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("replay.json"), replay).unwrap();
        let config = dir.path().join("veritas.toml");
        let text = format!(
            r#"
[chain]
rpc_url = "{url}"
oracle = "{oracle}"
confirmations = 1
poll_interval = "100ms"
start_block = {start}
receipt_timeout = "10s"
rpc_timeout = "2s"
[node]
data_dir = "{data}"
http_addr = "127.0.0.1:0"
resolver = "replay"
replay_file = "{replay}"
retry_backoff = "200ms"
max_retry_backoff = "1s"
max_attempts = 50
drain_timeout = "5s"
evidence_settle = "1s"
{extra}
"#,
            url = chain.anvil.url,
            oracle = chain.oracle,
            start = chain.deploy_block,
            data = dir.path().join("data").display(),
            replay = dir.path().join("replay.json").display(),
        );
        std::fs::write(&config, text).unwrap();
        let log = dir.path().join("node.log");
        chain
            .node_logs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(log.clone());
        Self {
            key: ANVIL_KEYS[1],
            child: None,
            in_process: None,
            dir,
            config,
            log,
        }
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn start(&mut self) {
        self.start_with_env(&[]);
    }

    /// Start the daemon in this process: the config file read as `veritas run --config` reads
    /// it (without the test process's `VERITAS__*` environment), the operator key, the
    /// configured resolver, and `daemon::run` spawned on the test's runtime. Returns once the
    /// node is up (its API bound, its start-up checks passed); panics with the daemon's error
    /// if it stops before that.
    pub async fn start_in_process(&mut self) {
        use std::sync::Arc;
        use veritas::{
            config::{Config, Sources},
            daemon,
            live::LiveEvents,
        };
        assert!(
            self.child.is_none() && self.in_process.is_none(),
            "the node already runs"
        );
        let sources = Sources {
            file: Some(self.config.clone()),
            env: Some(Default::default()),
            overrides: Vec::new(),
        };
        let config = Config::load(&sources).unwrap();
        let signer: PrivateKeySigner = self.key.parse().unwrap();
        let live = Arc::new(LiveEvents::default());
        let resolver = daemon::build_resolver(&config, &live).unwrap();
        let cancel = tokio_util::sync::CancellationToken::new();
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(daemon::run(
            config,
            signer,
            resolver,
            live,
            cancel.clone(),
            move |started| {
                let _ = started_tx.send(started);
            },
        ));
        let Ok(started) = started_rx.await else {
            panic!("the daemon stopped before it started: {:?}", task.await);
        };
        self.in_process = Some(InProcess {
            cancel,
            task,
            api: started.http_addr,
        });
    }

    /// Whether the node still runs: the child has not exited, or the in-process daemon's task
    /// has not ended.
    pub fn is_running(&mut self) -> bool {
        if let Some(node) = &self.in_process {
            return !node.task.is_finished();
        }
        self.child
            .as_mut()
            .is_some_and(|c| c.try_wait().unwrap().is_none())
    }

    /// Stop the in-process daemon as SIGTERM stops `veritas run` (cancel, drain) and require
    /// a clean end: a daemon that fails while shutting down fails the test.
    pub async fn stop_in_process(&mut self) {
        let node = self.in_process.take().expect("the node runs in process");
        node.cancel.cancel();
        node.task
            .await
            .expect("the daemon task panicked")
            .expect("the daemon ends without an error");
    }

    /// The in-process node's HTTP API address.
    pub fn api(&self) -> std::net::SocketAddr {
        self.in_process
            .as_ref()
            .expect("the node runs in process")
            .api
    }

    /// `GET /questions/{id}` of the in-process node's API (its `job` holds the stage,
    /// attempts and last error the store keeps).
    pub async fn question(&self, id: U256) -> serde_json::Value {
        reqwest::get(format!("http://{}/questions/{id}", self.api()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// SIGKILL: no chance to clean up.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().unwrap();
            c.wait().unwrap();
        }
    }

    /// SIGTERM, wait, and require a clean exit (status 0): a node that fails while shutting
    /// down fails the test instead of going unnoticed.
    pub fn stop(&mut self) {
        let code = self.terminate();
        assert_eq!(code, Some(0), "node exit on SIGTERM\n{}", self.log_text());
    }

    /// SIGTERM and wait; returns the exit code.
    #[must_use = "check the exit code, or call `stop`"]
    pub fn terminate(&mut self) -> Option<i32> {
        let mut c = self.child.take()?;
        Command::new("kill")
            .arg("-TERM")
            .arg(c.id().to_string())
            .status()
            .unwrap();
        wait::until_blocking(
            Duration::from_secs(20),
            || "node did not stop on SIGTERM".to_owned(),
            || c.try_wait().unwrap().map(|status| status.code()),
        )
    }

    /// Replace `from` by `to` in the config file (e.g. another `[chain]` setting).
    pub fn edit_config(&self, from: &str, to: &str) {
        let text = std::fs::read_to_string(&self.config).unwrap();
        assert!(text.contains(from), "{from:?} not in the config");
        std::fs::write(&self.config, text.replace(from, to)).unwrap();
    }

    /// The child process's log (for failure messages); an in-process node logs nowhere.
    pub fn log_text(&self) -> String {
        if self.in_process.is_some() {
            return "(the node runs in the test process: no log file)".to_owned();
        }
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn report(&self, id: U256) -> serde_json::Value {
        let path = self.data_dir().join("reports").join(format!("{id}.json"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    pub fn report_path(&self, id: U256) -> PathBuf {
        self.data_dir().join("reports").join(format!("{id}.json"))
    }

    /// The report once it records its transaction (the tx key is added right after the
    /// receipt, a moment after the verdict is visible on-chain); panics after `timeout`.
    pub async fn report_with_tx(&self, id: U256, timeout: Duration) -> serde_json::Value {
        wait::until(
            timeout,
            || format!("report {id} never got its tx"),
            async || Some(self.report(id)).filter(|report| report["tx"]["hash"].is_string()),
        )
        .await
    }

    /// Like [`Node::configure`], with the committee resolver: the jury's replay juror voting
    /// YES on evidence from the demo corpus (real evidence items and ballots in the report).
    pub fn configure_committee(chain: &Chain, replay: &str) -> Self {
        let corpus = veritas::devnet::repo_root().unwrap().join("corpus/demo");
        let extra = format!(
            "[[jury.jurors]]\nkind = \"replay\"\nvote = \"YES\"\n\n[evidence.collectors.local]\ndir = \"{}\"\n",
            corpus.display()
        );
        let node = Self::configure(chain, replay, &extra);
        node.edit_config("resolver = \"replay\"", "resolver = \"committee\"");
        node
    }
}

/// A test's external tool when `found`; otherwise `None` after a loud SKIPPED line, for a test
/// that cannot run on this machine. With `CI=true` a missing tool fails the test instead, so
/// CI never passes by skipping.
pub fn tool_or_skip(found: Option<PathBuf>, tool: &str, install: &str) -> Option<PathBuf> {
    if found.is_some() {
        return found;
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(!ci, "CI=true and no {tool}: {install}");
    eprintln!("\n*** SKIPPED: {tool} not found ({install}) ***\n");
    None
}

/// `veritas audit`'s checks on `report` of question `id`: rebuilt from its bundle and ballots,
/// it matches itself and the verdict on `chain`.
pub async fn assert_audits(chain: &Chain, report: &serde_json::Value, id: U256) {
    use veritas::audit;
    let report = &audit::AuditReport::from_json(report).unwrap();
    let rec = audit::recompute(report).unwrap();
    assert_eq!(
        audit::compare_with_report(&rec, report),
        vec![],
        "question {id}"
    );
    assert_eq!(
        audit::compare_with_chain(&rec, chain.question(&chain.reader(), id))
            .await
            .unwrap(),
        vec![],
        "question {id}"
    );
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
        if let Some(node) = self.in_process.take() {
            node.cancel.cancel();
        }
    }
}

/// Run the `veritas` binary to completion; returns (exit code, stdout, stderr).
pub fn veritas(args: &[&str], cwd: &Path) -> (i32, String, String) {
    veritas_as(args, cwd, None)
}

/// [`veritas`] with `key` as the operator key (`VERITAS_PRIVATE_KEY`), or none.
pub fn veritas_as(args: &[&str], cwd: &Path, key: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_veritas"));
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("VERITAS_PRIVATE_KEY");
    if let Some(key) = key {
        cmd.env("VERITAS_PRIVATE_KEY", key);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Helpers for the reliability tests (crash points, secrets, load).
impl Node {
    /// Start `veritas run` with the operator key, info logs to `node.log`, and `env` on top.
    pub fn start_with_env(&mut self, env: &[(&str, &str)]) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_veritas"));
        command
            .arg("run")
            .arg("--config")
            .arg(&self.config)
            .env("VERITAS_PRIVATE_KEY", self.key)
            .env("VERITAS_LOG", "info")
            .env("NO_COLOR", "1");
        for (key, value) in env {
            command.env(key, value);
        }
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
    }

    /// Start `veritas run` armed to SIGKILL itself the `n`-th time it reaches the crash point
    /// `point` (`veritas::crashpoint`); [`Node::wait_crashed`] then checks that it did.
    pub fn start_crashing_at(&mut self, point: &str, n: u64) {
        self.start_with_env(&[(veritas::crashpoint::ENV, &format!("{point}:{n}"))]);
    }

    /// Wait until the armed node has died at its crash point: killed by its own SIGKILL within
    /// `timeout`. Nothing else kills it, so a node still running, or one that exited another
    /// way, fails the test naming `what`: a kill that did not land where it claims.
    pub fn wait_crashed(&mut self, what: &str, timeout: Duration) {
        let Some(status) = self.wait_exit(timeout) else {
            panic!(
                "{what}: never reached within {timeout:?}\n{}",
                self.log_text()
            );
        };
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9),
            "{what}: not the crash point's SIGKILL but {status:?}\n{}",
            self.log_text()
        );
    }

    /// Wait until the node exits by itself; `None` if it still runs after `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let child = self.child.as_mut()?;
        let status = wait::try_until_blocking(timeout, || child.try_wait().unwrap())?;
        self.child = None;
        Some(status)
    }

    /// The node's `/metrics` page, at the API address it logged.
    pub async fn metrics(&self) -> String {
        let api = self.api_addr(Duration::from_secs(20)).await;
        reqwest::get(format!("http://{api}/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// One sample of the node's `/metrics` page (its name and labels as printed, e.g.
    /// `veritas_rpc_errors_total`); `None` when the page has no such sample.
    pub async fn metric(&self, sample: &str) -> Option<f64> {
        let page = self.metrics().await;
        page.lines()
            .find_map(|line| line.strip_prefix(sample)?.strip_prefix(' ')?.parse().ok())
    }

    /// The HTTP API address: the in-process node's bound address, or for the child process
    /// the one its last "HTTP API listening" log line names.
    pub async fn api_addr(&self, timeout: Duration) -> String {
        if let Some(node) = &self.in_process {
            return node.api.to_string();
        }
        const MARK: &str = "HTTP API listening addr=";
        wait::until(
            timeout,
            || format!("no API address in log: {}", self.log_text()),
            async || {
                let log = self.log_text();
                log.rfind(MARK)
                    .and_then(|i| log[i + MARK.len()..].split_whitespace().next())
                    .map(str::to_owned)
            },
        )
        .await
    }

    /// A read-only handle on the node's store (`Store::open_read_only`, the store's test
    /// API: its typed reads instead of SQL); `None` before the node has created it.
    pub fn store(&self) -> Option<veritas::store::Store> {
        let dir = self.data_dir();
        if !dir.join(veritas::store::FILE_NAME).exists() {
            return None;
        }
        veritas::store::Store::open_read_only(&dir).ok()
    }
}

impl Chain {
    /// `VerdictPosted` events per question id, in one `eth_getLogs`.
    pub async fn verdict_counts(&self) -> std::collections::BTreeMap<U256, usize> {
        let filter = Filter::new()
            .address(self.oracle)
            .event_signature(IVeritasOracle::VerdictPosted::SIGNATURE_HASH)
            .from_block(0u64);
        let mut counts = std::collections::BTreeMap::new();
        for log in self.reader().get_logs(&filter).await.unwrap() {
            let id = U256::from_be_bytes(log.topics()[1].0);
            *counts.entry(id).or_insert(0) += 1;
        }
        counts
    }
}

/// Several operators on one oracle (contract v2): quorums, windows, fees and disputes.
impl Chain {
    /// Deploy with `ANVIL_KEYS[i]` for each `i` in `operators` authorised, then let `set`
    /// change the parameters new questions get (the owner, key 0, is also the arbiter).
    pub async fn start_with(
        options: AnvilOptions,
        operators: &[usize],
        set: impl FnOnce(&mut IVeritasOracle::Parameters),
    ) -> Self {
        let anvil = Anvil::spawn(options)
            .await
            .expect("anvil starts (run `make setup`)");
        let addresses: Vec<Address> = operators.iter().map(|i| address(*i)).collect();
        let (oracle, deploy_block) = deploy_oracle(&anvil.url, ANVIL_KEYS[0], &addresses)
            .await
            .expect("deploy");
        let chain = Self {
            anvil,
            oracle,
            deploy_block,
            node_logs: Default::default(),
        };
        let owner = chain.wallet(0);
        let contract = IVeritasOracle::new(oracle, &owner);
        let mut parameters = contract.parameters().call().await.unwrap();
        set(&mut parameters);
        let receipt = contract
            .setParameters(parameters, String::new())
            .send()
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status(), "setParameters reverted");
        chain
    }

    /// A provider signing with `ANVIL_KEYS[key]`.
    pub fn wallet(&self, key: usize) -> DynProvider {
        let signer: PrivateKeySigner = ANVIL_KEYS[key].parse().unwrap();
        ProviderBuilder::new()
            .wallet(EthereumWallet::from(signer))
            .connect_http(self.anvil.url.parse().unwrap())
            .erased()
    }

    /// `submitEvidence` for `id` from anvil's account `key`, paying the question's evidence fee.
    pub async fn submit_evidence(
        &self,
        key: usize,
        id: U256,
        url: &str,
        title: &str,
        snippet: &str,
    ) {
        let provider = self.wallet(key);
        let oracle = IVeritasOracle::new(self.oracle, &provider);
        let fee = oracle.nextEvidenceFee(id).call().await.unwrap();
        let receipt = oracle
            .submitEvidence(id, url.into(), title.into(), snippet.into())
            .value(U256::from(fee))
            .send()
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status(), "submitEvidence reverted");
    }

    /// `clarify(id, text)` from the asker of [`Chain::ask_paying`] (anvil's account 2).
    pub async fn clarify(&self, id: U256, text: &str) {
        let call = IVeritasOracle::new(self.oracle, self.reader())
            .clarify(id, text.into())
            .into_transaction_request();
        self.send_ok(2, call, "clarify").await;
    }

    /// Send `call` from anvil's account `key` and wait for its receipt; panics when it reverts.
    pub async fn send_ok(
        &self,
        key: usize,
        call: TransactionRequest,
        what: &str,
    ) -> TransactionReceipt {
        let receipt = self
            .wallet(key)
            .send_transaction(call)
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status(), "{what} reverted");
        receipt
    }

    /// Dispute `id` from anvil's account `key`, bonding `bond` wei and claiming `claim`, paying
    /// the court's cost on top.
    pub async fn dispute(&self, key: usize, id: U256, bond: U256, claim: [U256; 3]) {
        let provider = self.wallet(key);
        let oracle = IVeritasOracle::new(self.oracle, &provider);
        let cost = oracle.courtCost(id).call().await.unwrap();
        let receipt = oracle
            .dispute(id, claim[0], claim[1], claim[2], address(key))
            .value(cost + bond)
            .send()
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status(), "dispute reverted");
    }

    /// The judge (key 0, the devnet court's only judge) rules `ruling` on the case of `id`, and
    /// the ruling is executed (the devnet court has no appeal period).
    pub async fn rule(&self, id: U256, ruling: u64) {
        use veritas::contract::court::IVeritasCourt;
        let judge = self.wallet(0);
        let case = IVeritasOracle::new(self.oracle, &judge)
            .getCase(id)
            .call()
            .await
            .unwrap();
        assert_ne!(case.arbitrator, Address::ZERO, "question {id} has no case");
        let court = IVeritasCourt::new(case.arbitrator, &judge);
        for call in [
            court
                .giveRuling(case.disputeId, U256::from(ruling))
                .into_transaction_request(),
            court
                .executeRuling(case.disputeId)
                .into_transaction_request(),
        ] {
            self.send_ok(0, call, "court call").await;
        }
    }

    /// Take the escalated verdict of `id` to its court from anvil's account `key`.
    pub async fn request_arbitration(&self, key: usize, id: U256) {
        let provider = self.wallet(key);
        let oracle = IVeritasOracle::new(self.oracle, &provider);
        let cost = oracle.courtCost(id).call().await.unwrap();
        let receipt = oracle
            .requestArbitration(id)
            .value(cost)
            .send()
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status(), "requestArbitration reverted");
    }

    /// Ask `question` from key 2 paying `fee` wei, answerable after `resolve_after`.
    pub async fn ask_paying(&self, question: &str, fee: U256, resolve_after: u64) -> U256 {
        self.ask_as(2, question, fee, resolve_after).await
    }

    /// [`Chain::ask_paying`] from `ANVIL_KEYS[key]`.
    pub async fn ask_as(&self, key: usize, question: &str, fee: U256, resolve_after: u64) -> U256 {
        let asker = self.wallet(key);
        let oracle = IVeritasOracle::new(self.oracle, &asker);
        let rules = veritas::contract::reader::current_rules(&oracle)
            .await
            .unwrap();
        let receipt = oracle
            .askQuestion(question.to_string(), resolve_after, rules)
            .value(fee)
            .send()
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status(), "ask reverted");
        veritas::contract::asked_id(&receipt).unwrap()
    }

    /// Wait until `id` has `status`; panics after `timeout`.
    pub async fn wait_status(
        &self,
        id: U256,
        status: IVeritasOracle::VerdictStatus,
        timeout: Duration,
    ) {
        let seen = std::cell::Cell::new(None);
        wait::until(
            timeout,
            || {
                format!(
                    "question {id} is {:?}, not {status:?}{}",
                    seen.get(),
                    self.node_log_tails()
                )
            },
            async || {
                let now = self.status(id).await;
                seen.set(Some(now));
                (now == status).then_some(())
            },
        )
        .await;
    }

    /// Every `ReportSubmitted` of `id`: (operator, nYes, nNo, nNull, escalated).
    pub async fn reports(&self, id: U256) -> Vec<(Address, [U256; 3], bool)> {
        let filter = Filter::new()
            .address(self.oracle)
            .event_signature(IVeritasOracle::ReportSubmitted::SIGNATURE_HASH)
            .topic1(id)
            .from_block(0u64);
        self.reader()
            .get_logs(&filter)
            .await
            .unwrap()
            .iter()
            .map(|log| {
                let e = log
                    .log_decode::<IVeritasOracle::ReportSubmitted>()
                    .unwrap()
                    .inner
                    .data;
                (e.operator, [e.nYes, e.nNo, e.nNull], e.escalated)
            })
            .collect()
    }

    /// Wei `account` can withdraw from the oracle.
    pub async fn credits(&self, account: Address) -> U256 {
        IVeritasOracle::new(self.oracle, &self.reader())
            .credits(account)
            .call()
            .await
            .unwrap()
    }

    /// The owner (key 0) makes anvil's account `key` an operator: a new operator epoch.
    pub async fn add_operator(&self, key: usize) {
        let receipt = IVeritasOracle::new(self.oracle, &self.wallet(0))
            .addOperator(address(key))
            .send()
            .await
            .unwrap()
            .get_receipt()
            .await
            .unwrap();
        assert!(receipt.status(), "addOperator reverted");
    }

    /// Let the chain's clock pass `seconds` and mine a block.
    pub async fn advance(&self, seconds: u64) {
        let p = self.reader();
        let _: serde_json::Value = p
            .raw_request("evm_increaseTime".into(), (seconds,))
            .await
            .unwrap();
        let _: serde_json::Value = p.raw_request("evm_mine".into(), ()).await.unwrap();
    }
}

/// The address of `ANVIL_KEYS[key]`.
/// `GET url` as JSON (the node's HTTP API); panics on a transport error or a body that is not
/// JSON.
pub async fn get_json(url: &str) -> serde_json::Value {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

pub fn address(key: usize) -> Address {
    ANVIL_KEYS[key]
        .parse::<PrivateKeySigner>()
        .unwrap()
        .address()
}

impl Node {
    /// [`Node::configure`] for the operator `ANVIL_KEYS[key]`.
    pub fn configure_as(chain: &Chain, key: usize, replay: &str, extra: &str) -> Self {
        let mut node = Self::configure(chain, replay, extra);
        node.key = ANVIL_KEYS[key];
        node
    }

    /// The stage of every job, by question id (the store's test API; empty until the node
    /// has created its store and tables).
    pub fn stages(&self) -> std::collections::BTreeMap<U256, String> {
        let Some(Ok(jobs)) = self.store().map(|store| store.jobs()) else {
            return Default::default();
        };
        jobs.into_iter()
            .map(|job| (job.question.question_id, job.stage.as_str().to_owned()))
            .collect()
    }

    /// The last error the node's store keeps for the job of `id` (empty when none).
    pub fn last_error(&self, id: U256) -> String {
        let store = self.store().expect("the node's store exists");
        store
            .job(id)
            .unwrap()
            .and_then(|job| job.last_error)
            .unwrap_or_default()
    }

    /// Wait until the job of `id` is at `stage`; panics after `timeout`. It polls, so name a
    /// stage the job stays in: `reported` ends as soon as the node sees its question Resolved
    /// (`finalised` inside a challenge window, `final` without one), often within milliseconds.
    pub async fn wait_stage(&self, id: U256, stage: &str, timeout: Duration) {
        wait::until(
            timeout,
            || {
                let now = self.stages().get(&id).cloned();
                format!("job {id} is {now:?}, not {stage}\n{}", self.log_text())
            },
            async || (self.stages().get(&id).map(String::as_str) == Some(stage)).then_some(()),
        )
        .await;
    }
}
