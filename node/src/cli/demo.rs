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

use crate::{
    audit,
    chain::{
        self, IVeritasOracle,
        devnet::{ANVIL_KEYS, Anvil, AnvilOptions, deploy_oracle, repo_root},
    },
    config::{Config, ResolverKind},
    daemon,
    evidence::demo::{DEMO_CORPUS_DIR, QUESTIONS_FILE, load_questions_file},
    live::LiveEvents,
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
    /// Keep the chain and the node running after the verdicts, serving the web view, until
    /// Ctrl-C.
    #[arg(long)]
    pub serve: bool,
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

    // Reports stay after the demo (`.veritas/` is ignored by git); each run starts afresh.
    let data = root.join(".veritas/demo");
    if data.exists() {
        std::fs::remove_dir_all(&data).with_context(|| format!("clearing {}", data.display()))?;
    }
    let mut config = Config::default();
    config.chain.rpc_url = anvil.url.clone();
    config.chain.oracle = Some(oracle);
    config.chain.confirmations = 1;
    config.chain.poll_interval = Duration::from_millis(250);
    config.chain.start_block = deploy_block;
    config.node.data_dir = data.clone();
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
    let live = Arc::new(LiveEvents::default());
    let resolver = daemon::build_resolver(&config, &live)?;

    let cancel = CancellationToken::new();
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let node = tokio::spawn(daemon::run(
        config,
        operator,
        resolver,
        live,
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
        let web = format!("http://{}", started.http_addr);
        eprintln!(
            "the committee is at work (follow it live at {web}/); each verdict prints when it settles"
        );
        wait_and_print(
            &anvil.url,
            oracle,
            &ids,
            &questions,
            &data,
            args.timeout,
            &web,
        )
        .await?;
        if args.serve {
            println!("\nchain and node stay up: open {web}/ (Ctrl-C to stop)");
            daemon::shutdown_signal().await;
        }
        Ok::<(), anyhow::Error>(())
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
    web: &str,
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
        // The on-chain integers are compared with the report's by the audit below.
        let path = report_path(&data_dir.join("reports"), *id);
        let report: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let rec = audit::recompute(&report)?;
        let mut mismatches = audit::compare_with_report(&rec, &report);
        mismatches.extend(audit::compare_with_chain(&rec, &provider, oracle, *id).await?);
        print_block(
            *id,
            question,
            &report,
            &format!("{status:?}"),
            &mismatches,
            &path,
            web,
        );
        failures += usize::from(!mismatches.is_empty());
    }
    if failures > 0 {
        bail!("{failures} verdict(s) failed the audit");
    }
    Ok(())
}

/// Landis and Koch's words for an agreement statistic.
fn kappa_words(kappa: Option<f64>) -> &'static str {
    match kappa {
        None => "undefined (no iteration with two valid ballots)",
        Some(k) if k < 0.0 => "poor (below chance)",
        Some(k) if k <= 0.20 => "slight",
        Some(k) if k <= 0.40 => "fair",
        Some(k) if k <= 0.60 => "moderate",
        Some(k) if k <= 0.80 => "substantial",
        Some(_) => "almost perfect",
    }
}

/// One question's verdict as a person reads it: probabilities in percent with their 95%
/// intervals, agreement in words, the routing decision and its reasons, the audit, and where
/// to look next.
fn print_block(
    id: U256,
    question: &str,
    report: &Value,
    status: &str,
    mismatches: &[audit::Mismatch],
    path: &std::path::Path,
    web: &str,
) {
    let stats = &report["stats"];
    let pct = |v: &Value| {
        v.as_f64()
            .map_or("?".to_owned(), |p| format!("{:.1}%", 100.0 * p))
    };
    let outcome = |k: usize, name: &str| {
        format!(
            "{name} {} [{}–{}]",
            pct(&stats["posterior"][k]),
            pct(&stats["ci95"][k][0]),
            pct(&stats["ci95"][k][1])
        )
    };
    let kappa = stats["kappa"].as_f64();
    let routing = &report["routing"];
    let reasons: Vec<&str> = routing["reasons"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    println!("\n#{id} {question}");
    println!(
        "  {}   {}   {}   (95% intervals)",
        outcome(0, "YES"),
        outcome(1, "NO"),
        outcome(2, "NULL")
    );
    println!(
        "  agreement: kappa {} — {}; {} valid ballots, n_eff {:.1}",
        kappa.map_or("–".to_owned(), |k| format!("{k:.2}")),
        kappa_words(kappa),
        stats["valid"],
        stats["n_eff"].as_f64().unwrap_or(0.0)
    );
    let decision = routing["decision"].as_str().unwrap_or("?");
    if reasons.is_empty() {
        println!("  routing: {decision}");
    } else {
        println!("  routing: {decision} — {}", reasons.join("; "));
    }
    if mismatches.is_empty() {
        println!("  on-chain: {status}, the posted integers are the report's — audit OK");
    } else {
        println!("  on-chain: {status} — audit FAILED");
        for m in mismatches {
            println!("    MISMATCH {m}");
        }
    }
    println!("  report {}   web {web}/#/q/{id}", path.display());
}

#[cfg(test)]
mod tests {
    use super::kappa_words;

    #[test]
    fn kappa_reads_in_landis_and_koch_words() {
        assert_eq!(kappa_words(Some(-0.1)), "poor (below chance)");
        assert_eq!(kappa_words(Some(0.2)), "slight");
        assert_eq!(kappa_words(Some(0.41)), "moderate");
        assert_eq!(kappa_words(Some(1.0)), "almost perfect");
        assert!(kappa_words(None).starts_with("undefined"));
    }
}
