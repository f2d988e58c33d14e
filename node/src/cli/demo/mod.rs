//! `veritas demo`: the whole loop on a local chain, then everything stopped again.
//!
//! Starts anvil on a free port, deploys the oracle, starts the node (embedded default:
//! local model, demo corpus), asks the demo questions from `corpus/demo/questions.toml`,
//! waits for their verdicts, and prints each report's numbers beside the on-chain
//! `getVerdict`, audited. `make demo` runs it.
//!
//! With `--nodes N --quorum Q` it runs N nodes (up to 3) on the one anvil, each with its own
//! operator key, data directory (`.veritas/demo/node-<i>`) and juror settings (node 1 the
//! defaults, node 2 weighs the Skeptic ×3, node 3 the Strict Empiricist ×3), as independent
//! daemons in this process; the oracle pools their reports and a verdict needs Q of them. Each
//! question then prints every node's report, the pooled verdict, and its audit.
//!
//! ```text
//! veritas demo
//! veritas demo --nodes 3 --quorum 2
//! veritas demo --nodes 3 --quorum 2 --reveal-window 60   # commit, then reveal
//! veritas demo --replay        # scripted instant votes instead of the committee (smoke test)
//! ```

use std::{path::PathBuf, sync::Arc, time::Duration};

use alloy::{
    network::EthereumWallet,
    primitives::{Address, U256},
    providers::ProviderBuilder,
    signers::local::PrivateKeySigner,
};
use anyhow::{Context, bail};
use clap::Args;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

mod print;

use print::{print_block, print_pooled};

use crate::chain::ViewCall;
use crate::{
    audit, chain,
    config::{Config, ResolverKind},
    contract::{self, IVeritasOracle},
    daemon,
    daemon::jobs::report_path,
    devnet::{Anvil, AnvilOptions, deploy_oracle, repo_root},
    evidence::demo::{DEMO_CORPUS_DIR, QUESTIONS_FILE, load_questions_file},
    live::LiveEvents,
};

/// `veritas demo` arguments.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Questions file (the format of `corpus/demo/questions.toml`: `[[question]]` tables).
    #[arg(long)]
    pub questions: Option<PathBuf>,
    /// Use the scripted replay resolver instead of the committee (a smoke test of the chain path).
    #[arg(long)]
    pub replay: bool,
    /// Keep the chain and the node running after the verdicts, serving the web view, until
    /// Ctrl-C.
    #[arg(long)]
    pub serve: bool,
    /// Give up waiting for verdicts after this long.
    #[arg(long, default_value = "20m", value_parser = humantime::parse_duration)]
    pub timeout: Duration,
    /// Nodes to run (1 to 3), each with its own key, data directory and juror settings.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub nodes: u8,
    /// Reports that finalise a verdict (1 to `--nodes`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub quorum: u8,
    /// Seconds of the reveal phase: above 0 (30 to 604800) with `--quorum` above 1, the nodes
    /// report by commit-reveal (`commitReport`, then `revealReport` once the quorum committed).
    #[arg(long, default_value_t = 0)]
    pub reveal_window: u32,
}

/// The operator keys of the demo's nodes (indices of the keys anvil prints; 2 asks, 0 deploys).
const NODE_KEYS: [usize; 3] = [1, 3, 4];

/// Each node's juror settings: the archetype it weighs ×3 (node 1 keeps the defaults), so
/// the nodes are different committees, not copies.
const NODE_EMPHASIS: [Option<&str>; 3] = [None, Some("Skeptic"), Some("Strict Empiricist")];

/// The demo questions as (text, resolveAfter in unix seconds): `resolve_after` is the
/// evidence cutoff, so later documents must not count.
fn read_questions(path: &std::path::Path) -> anyhow::Result<Vec<(String, u64)>> {
    let questions = load_questions_file(path)?;
    if questions.is_empty() {
        bail!("{}: no questions", path.display());
    }
    Ok(questions
        .into_iter()
        .map(|q| {
            (
                q.text,
                u64::try_from(q.resolve_after.timestamp()).unwrap_or(0),
            )
        })
        .collect())
}

/// Run the demo.
///
/// # Errors
/// Any step failing; everything started is stopped first.
pub async fn run(args: DemoArgs) -> anyhow::Result<super::output::Output> {
    let root = repo_root().context("run the demo from the repository (no foundry.toml found)")?;
    let questions_file = args
        .questions
        .clone()
        .unwrap_or_else(|| root.join(DEMO_CORPUS_DIR).join(QUESTIONS_FILE));
    let questions = read_questions(&questions_file)?;
    if args.quorum > args.nodes {
        bail!(
            "--quorum {} needs at least as many nodes (--nodes {})",
            args.quorum,
            args.nodes
        );
    }
    let Devnet {
        mut anvil,
        signers,
        oracle,
        deploy_block,
    } = start_devnet(&args).await?;

    // Reports stay after the demo (`.veritas/` is ignored by git); each run starts afresh.
    let data = root.join(".veritas/demo");
    if data.exists() {
        std::fs::remove_dir_all(&data).with_context(|| format!("clearing {}", data.display()))?;
    }
    let config = demo_config(&root, &anvil.url, oracle, deploy_block, &data, args.replay)?;

    let cancel = CancellationToken::new();
    let (tasks, started) = spawn_nodes(&config, signers, &data, &cancel)?;
    let outcome = ask_and_watch(&args, &anvil, oracle, &questions, started).await;
    cancel.cancel();
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await);
    }
    anvil.stop();
    outcome?;
    for result in results {
        match result {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(e.into()),
            Err(e) => return Err(anyhow::anyhow!("node task: {e}")),
        }
    }
    // The demo prints its verdicts as they come (and stays up with `--web`).
    Ok(super::output::Output::Streamed)
}

/// The local chain the demo runs on, with the oracle deployed and its operators' keys.
struct Devnet {
    anvil: Anvil,
    signers: Vec<PrivateKeySigner>,
    oracle: Address,
    deploy_block: u64,
}

/// Start anvil, deploy the oracle with one operator per node, and set the quorum and reveal
/// window asked for.
async fn start_devnet(args: &DemoArgs) -> anyhow::Result<Devnet> {
    let nodes = usize::from(args.nodes);
    eprintln!("starting anvil ...");
    let anvil = Anvil::spawn(AnvilOptions::default()).await?;
    let signers: Vec<PrivateKeySigner> = NODE_KEYS[..nodes]
        .iter()
        .map(|k| Ok::<PrivateKeySigner, anyhow::Error>(anvil.key(*k)?.parse()?))
        .collect::<Result<_, _>>()?;
    let operators: Vec<Address> = signers.iter().map(PrivateKeySigner::address).collect();
    eprintln!("deploying VeritasOracle (forge artifact) ...");
    let (oracle, deploy_block) = deploy_oracle(&anvil.url, anvil.key(0)?, &operators).await?;
    if args.quorum > 1 || args.reveal_window > 0 {
        set_parameters(&anvil, oracle, args.quorum, args.reveal_window).await?;
    }
    let reporting = if args.reveal_window > 0 && args.quorum > 1 {
        format!(", commit-reveal (reveal window {} s)", args.reveal_window)
    } else {
        String::new()
    };
    eprintln!(
        "oracle {oracle} on {} (block {deploy_block}); {nodes} node(s), quorum {}{reporting}",
        anvil.url, args.quorum
    );
    Ok(Devnet {
        anvil,
        signers,
        oracle,
        deploy_block,
    })
}

/// Once the nodes are up: ask the questions, print each verdict as it settles, and with
/// `--serve` stay up until Ctrl-C.
async fn ask_and_watch(
    args: &DemoArgs,
    anvil: &Anvil,
    oracle: Address,
    questions: &[(String, u64)],
    started: Vec<NodeStart>,
) -> anyhow::Result<()> {
    let running = await_nodes(started).await?;
    let ids = ask_all(anvil, oracle, questions).await?;
    let web = running[0].web.clone();
    eprintln!(
        "the committee is at work (follow it live at {web}/); each verdict prints when it settles"
    );
    wait_and_print(&anvil.url, oracle, &ids, questions, &running, args.timeout).await?;
    if args.serve {
        println!("\nchain and node(s) stay up: open {web}/ (Ctrl-C to stop)");
        daemon::shutdown_signal().await;
    }
    Ok(())
}

/// A node's daemon task, run in this process.
type NodeTask = tokio::task::JoinHandle<Result<(), daemon::DaemonError>>;
/// Where a node announces its start, and its data directory.
type NodeStart = (
    tokio::sync::oneshot::Receiver<daemon::Started>,
    std::path::PathBuf,
);

/// A daemon task per signer, in this process, each with its own data directory under `data`;
/// returns the tasks and, per node, the channel its start is announced on.
fn spawn_nodes(
    config: &crate::config::Config,
    signers: Vec<PrivateKeySigner>,
    data: &std::path::Path,
    cancel: &CancellationToken,
) -> anyhow::Result<(Vec<NodeTask>, Vec<NodeStart>)> {
    let nodes = signers.len();
    let mut tasks = Vec::new();
    let mut started = Vec::new();
    for (i, signer) in signers.into_iter().enumerate() {
        let config = node_config(config, i, nodes, data);
        let live = Arc::new(LiveEvents::default());
        let resolver = daemon::build_resolver(&config, &live)?;
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let data_dir = config.node.data_dir.clone();
        tasks.push(tokio::spawn(daemon::run(
            config,
            signer,
            resolver,
            live,
            cancel.clone(),
            move |s| {
                let _ = started_tx.send(s);
            },
        )));
        started.push((started_rx, data_dir));
    }
    Ok((tasks, started))
}

/// Waits for each node's start and prints it.
async fn await_nodes(started: Vec<NodeStart>) -> anyhow::Result<Vec<DemoNode>> {
    let mut running = Vec::new();
    for (i, (rx, data_dir)) in started.into_iter().enumerate() {
        let s = rx.await.context("a node did not start")?;
        eprintln!(
            "node {} up: operator {}, API http://{}",
            i + 1,
            s.operator,
            s.http_addr
        );
        running.push(DemoNode {
            operator: s.operator,
            reports: data_dir.join("reports"),
            web: format!("http://{}", s.http_addr),
        });
    }
    Ok(running)
}

/// A running demo node, as the printout needs it.
struct DemoNode {
    operator: Address,
    reports: PathBuf,
    web: String,
}

/// The configuration every demo node shares: the devnet's chain, a fresh data directory, the
/// demo corpus and models found from the repository root (so the demo runs from anywhere).
fn demo_config(
    root: &std::path::Path,
    rpc_url: &str,
    oracle: Address,
    deploy_block: u64,
    data: &std::path::Path,
    replay: bool,
) -> anyhow::Result<Config> {
    let mut config = Config::default();
    config.chain.rpc_url = rpc_url.to_owned();
    config.chain.oracle = Some(oracle);
    config.chain.confirmations = 1;
    config.chain.poll_interval = Duration::from_millis(250);
    config.chain.start_block = deploy_block;
    config.node.data_dir = data.to_path_buf();
    config.node.http_addr = "127.0.0.1:0".parse()?;
    config.node.retry_backoff = Duration::from_secs(1);
    // Paths from the repository root, so the demo runs from any directory.
    config.evidence.collectors.local.dir = root.join("corpus/demo");
    for juror in &mut config.jury.jurors {
        if let crate::jury::pool::JurorKind::Local(local) = &mut juror.kind
            && local.model.path.is_relative()
        {
            local.model.path = root.join(&local.model.path);
        }
    }
    if replay {
        config.node.resolver = ResolverKind::Replay;
    }
    Ok(config)
}

/// Node `i` of `nodes`: its own data directory and archetype emphasis, and with several nodes
/// one committee and one decoding thread each, as they share the cores.
fn node_config(base: &Config, i: usize, nodes: usize, data: &std::path::Path) -> Config {
    let mut config = base.clone();
    if nodes > 1 {
        config.node.data_dir = data.join(format!("node-{}", i + 1));
    }
    if let Some(archetype) = NODE_EMPHASIS[i] {
        config
            .jury
            .archetype_weights
            .insert(archetype.to_owned(), 3);
    }
    if nodes > 1 {
        // Several embedded models share the cores: one committee per node at a time, one
        // decoding thread per model, so no ballot waits past its deadline for a core.
        config.node.concurrency = 1;
        for juror in &mut config.jury.jurors {
            if let crate::jury::pool::JurorKind::Local(local) = &mut juror.kind {
                local.model.threads = 1;
            }
        }
    }
    config
}

/// New questions need `quorum` reports, committed then revealed when `reveal_window` is above
/// 0 (the owner, key 0, sets them).
async fn set_parameters(
    anvil: &Anvil,
    oracle: Address,
    quorum: u8,
    reveal_window: u32,
) -> anyhow::Result<()> {
    let owner: PrivateKeySigner = anvil.key(0)?.parse()?;
    let provider = ProviderBuilder::new()
        .wallet(EthereumWallet::from(owner))
        .connect_http(anvil.url.parse()?);
    let contract = IVeritasOracle::new(oracle, &provider);
    let mut parameters = contract.parameters().view("parameters").await?;
    parameters.quorum = quorum;
    parameters.revealWindow = reveal_window;
    if reveal_window > 0 {
        // A commit-reveal set bonds its reports (`VeritasBondRequired` below one `BOND_UNIT`):
        // the least bond, so the devnet's stakes back every open commit.
        let unit = contract.BOND_UNIT().view("BOND_UNIT").await?;
        let least = alloy::primitives::aliases::U96::saturating_from(unit);
        parameters.disputeBond = parameters.disputeBond.max(least);
    }
    let receipt = contract
        .setParameters(parameters, String::new())
        .send()
        .await
        .map_err(|e| chain::ChainError::contract("setParameters", e))?
        .get_receipt()
        .await?;
    if !receipt.status() {
        bail!("setParameters (quorum {quorum}, reveal window {reveal_window} s) reverted");
    }
    Ok(())
}

async fn ask_all(
    anvil: &Anvil,
    oracle: Address,
    questions: &[(String, u64)],
) -> anyhow::Result<Vec<U256>> {
    let asker: PrivateKeySigner = anvil.key(2)?.parse()?;
    let provider = ProviderBuilder::new()
        .wallet(EthereumWallet::from(asker))
        .connect_http(anvil.url.parse()?);
    let contract = IVeritasOracle::new(oracle, &provider);
    let mut ids = Vec::new();
    for (q, resolve_after) in questions {
        let rules = contract::reader::current_rules(&contract).await?;
        let receipt = contract
            .askQuestion(q.clone(), *resolve_after, rules)
            .send()
            .await
            .map_err(|e| chain::ChainError::contract("askQuestion", e))?
            .get_receipt()
            .await?;
        let id = contract::asked_id(&receipt).context("no QuestionAsked event")?;
        eprintln!("asked #{id}: {q}");
        ids.push(id);
    }
    Ok(ids)
}

async fn wait_and_print(
    url: &str,
    oracle: Address,
    ids: &[U256],
    questions: &[(String, u64)],
    nodes: &[DemoNode],
    timeout: Duration,
) -> anyhow::Result<()> {
    let provider = chain::connect(url, Duration::from_secs(10))?;
    let contract = IVeritasOracle::new(oracle, &provider);
    let deadline = tokio::time::Instant::now() + timeout;
    let mut failures = 0;
    for (id, (question, _)) in ids.iter().zip(questions) {
        loop {
            let status = contract.verdictStatus(*id).view("verdictStatus").await?;
            if contract::has_verdict(&status) {
                break;
            }
            if tokio::time::Instant::now() > deadline {
                bail!("no verdict for question {id} after {timeout:?}");
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let status = contract.verdictStatus(*id).view("verdictStatus").await?;
        if let [node] = nodes {
            // The on-chain integers are compared with the report's by the audit below.
            let path = report_path(&node.reports, *id);
            let report: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
            let typed = audit::AuditReport::from_json(&report)
                .map_err(|m| anyhow::anyhow!("{}: {m}", path.display()))?;
            let rec = audit::recompute(&typed)?;
            let mut mismatches = audit::compare_with_report(&rec, &typed);
            let at = audit::QuestionOnChain {
                provider: &provider,
                oracle,
                id: *id,
            };
            mismatches.extend(audit::compare_with_chain(&rec, at).await?);
            print_block(
                *id,
                question,
                &report,
                &format!("{status:?}"),
                &mismatches,
                &path,
                &node.web,
            );
            failures += usize::from(!mismatches.is_empty());
        } else {
            let ok = print_pooled(*id, question, nodes, &provider, oracle).await?;
            failures += usize::from(!ok);
        }
    }
    if failures > 0 {
        bail!("{failures} verdict(s) failed the audit");
    }
    Ok(())
}
