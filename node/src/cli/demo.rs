//! `veritas demo`: the whole loop on a local chain, then everything stopped again.
//!
//! Starts anvil on a free port, deploys the oracle, starts the node (embedded default:
//! local model, demo corpus), asks the demo questions from `corpus/demo/questions.toml`,
//! waits for their verdicts, and prints each report's numbers beside the on-chain
//! `getVerdict`, audited. `make demo` runs it.
//!
//! ```text
//! veritas demo
//! veritas demo --replay        # scripted instant votes instead of the committee (smoke test)
//! ```

use std::{path::PathBuf, time::Duration};

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

use crate::{
    audit,
    chain::{
        self, IVeritasOracle,
        devnet::{ANVIL_KEYS, Anvil, AnvilOptions, deploy_oracle, repo_root},
    },
    config::{Config, ResolverKind},
    daemon,
    evidence::demo::{DEMO_CORPUS_DIR, QUESTIONS_FILE, load_questions_file},
    pipeline::report_path,
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
    /// Give up waiting for verdicts after this long.
    #[arg(long, default_value = "20m", value_parser = humantime::parse_duration)]
    pub timeout: Duration,
}

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
pub async fn run(args: DemoArgs) -> anyhow::Result<()> {
    let root = repo_root().context("run the demo from the repository (no foundry.toml found)")?;
    let questions_file = args
        .questions
        .clone()
        .unwrap_or_else(|| root.join(DEMO_CORPUS_DIR).join(QUESTIONS_FILE));
    let questions = read_questions(&questions_file)?;

    eprintln!("starting anvil ...");
    let mut anvil = Anvil::spawn(AnvilOptions::default()).await?;
    let operator: PrivateKeySigner = ANVIL_KEYS[1].parse()?;
    eprintln!("deploying VeritasOracle (forge artifact) ...");
    let (oracle, deploy_block) =
        deploy_oracle(&anvil.url, ANVIL_KEYS[0], &[operator.address()]).await?;
    eprintln!("oracle {oracle} on {} (block {deploy_block})", anvil.url);

    let data = tempfile::tempdir()?;
    let mut config = Config::default();
    config.chain.rpc_url = anvil.url.clone();
    config.chain.oracle = Some(oracle);
    config.chain.confirmations = 1;
    config.chain.poll_interval = Duration::from_millis(250);
    config.chain.start_block = deploy_block;
    config.node.data_dir = data.path().to_path_buf();
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
    if args.replay {
        config.node.resolver = ResolverKind::Replay;
    }
    let resolver = daemon::build_resolver(&config)?;

    let cancel = CancellationToken::new();
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let node = tokio::spawn(daemon::run(
        config,
        operator,
        resolver,
        cancel.clone(),
        move |s| {
            let _ = started_tx.send(s);
        },
    ));
    let outcome = async {
        let started = started_rx.await.context("the node did not start")?;
        eprintln!(
            "node up: operator {}, API http://{}",
            started.operator, started.http_addr
        );
        let ids = ask_all(&anvil.url, oracle, &questions).await?;
        wait_and_print(
            &anvil.url,
            oracle,
            &ids,
            &questions,
            data.path(),
            args.timeout,
        )
        .await
    }
    .await;
    cancel.cancel();
    let node_result = node.await;
    anvil.stop();
    outcome?;
    match node_result {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.into()),
        Err(e) => Err(anyhow::anyhow!("node task: {e}")),
    }
}

async fn ask_all(
    url: &str,
    oracle: Address,
    questions: &[(String, u64)],
) -> anyhow::Result<Vec<U256>> {
    let asker: PrivateKeySigner = ANVIL_KEYS[2].parse()?;
    let provider = ProviderBuilder::new()
        .wallet(EthereumWallet::from(asker))
        .connect_http(url.parse()?);
    let contract = IVeritasOracle::new(oracle, &provider);
    let mut ids = Vec::new();
    for (q, resolve_after) in questions {
        let receipt = contract
            .askQuestion(q.clone(), *resolve_after)
            .send()
            .await
            .map_err(|e| chain::ChainError::contract("askQuestion", e))?
            .get_receipt()
            .await?;
        let id = chain::asked_id(&receipt).context("no QuestionAsked event")?;
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
    data_dir: &std::path::Path,
    timeout: Duration,
) -> anyhow::Result<()> {
    let provider = chain::connect(url, Duration::from_secs(10))?;
    let contract = IVeritasOracle::new(oracle, &provider);
    let deadline = tokio::time::Instant::now() + timeout;
    let mut failures = 0;
    for (id, (question, _)) in ids.iter().zip(questions) {
        loop {
            let status = contract
                .verdictStatus(*id)
                .call()
                .await
                .map_err(|e| chain::ChainError::contract("verdictStatus", e))?;
            if chain::has_verdict(&status) {
                break;
            }
            if tokio::time::Instant::now() > deadline {
                bail!("no verdict for question {id} after {timeout:?}");
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let status = contract
            .verdictStatus(*id)
            .call()
            .await
            .map_err(|e| chain::ChainError::contract("verdictStatus", e))?;
        let v = contract
            .getVerdict(*id)
            .call()
            .await
            .map_err(|e| chain::ChainError::contract("getVerdict", e))?;
        let path = report_path(&data_dir.join("reports"), *id);
        let report: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let rec = audit::recompute(&report)?;
        let mut mismatches = audit::compare_with_report(&rec, &report);
        mismatches.extend(audit::compare_with_chain(&rec, &provider, oracle, *id).await?);
        println!("\n#{id} {question}");
        println!(
            "  {:<8} {:>20} {:>20} {:>20} {:>21}",
            "", "YES", "NO", "NULL", "kappa"
        );
        println!(
            "  {:<8} {:>20} {:>20} {:>20} {:>21}",
            "report", rec.p_fixed[0], rec.p_fixed[1], rec.p_fixed[2], rec.kappa_fixed
        );
        println!(
            "  {:<8} {:>20} {:>20} {:>20} {:>21}",
            "on-chain",
            v.pYes,
            v.pNo,
            v.pNull,
            v.fleissKappa.to_string()
        );
        println!(
            "  status {status:?}, root {}, audit {}",
            v.merkleRoot,
            if mismatches.is_empty() {
                "OK"
            } else {
                "FAILED"
            }
        );
        for m in &mismatches {
            println!("  MISMATCH {m}");
        }
        failures += usize::from(!mismatches.is_empty());
    }
    if failures > 0 {
        bail!("{failures} verdict(s) failed the audit");
    }
    Ok(())
}
