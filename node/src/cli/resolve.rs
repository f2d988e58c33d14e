//! `veritas resolve "<question>" [--corpus DIR] [--evidence FILE] [--out report.json]`: one
//! question, no chain.
//!
//! Without `--evidence` it gathers the evidence first: plans the search (a `[planner_model]`
//! when configured, else the fallback plan), searches the configured collectors (the local
//! corpus `corpus/demo` by default, offline) and builds the bundle; the report's `search` key
//! records the queries, the plan's rubric and every collector's raw hits. Then it commits the
//! evidence, runs the committee with a progress bar per iteration, routes the verdict, prints
//! a readable summary and writes the report file (DESIGN.md §5).
//!
//! ```sh
//! veritas resolve "Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?" \
//!     --resolve-after 2026-04-01T00:00:00Z
//! veritas resolve "Is the Arctic warming faster than the global average?" \
//!     --evidence evidence.json --out report.json
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::bundle::{Bundle, EvidenceItem, Rubric, Source};
use crate::commitment::commit_bundle;
use crate::evidence::normalize::parse_published;
use crate::evidence::{EvidenceConfig, Gathered, Gatherer, SearchRecord};
use crate::jury::committee::{Committee, IterationProgress, run_committee};
use crate::jury::committee_seed;
use crate::jury::pool::{JurorConfig, JurorKind, JuryConfig};
use crate::llm::ChatModel;
use crate::llm::openai::{OpenAiChat, OpenAiConfig};
use crate::policy::{Decision, RoutingInputs, RoutingPolicy, route};
use crate::report::{QuestionInfo, Report};

/// The settings read from `--config` (the `[jury]`, `[routing]`, `[evidence]` and
/// `[planner_model]` sections of the node's TOML file; other sections are ignored).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JuryFile {
    /// `[jury]`.
    pub jury: JuryConfig,
    /// `[routing]`.
    pub routing: RoutingPolicy,
    /// `[evidence]`: planner limits, collectors and bundle rules (used without `--evidence`).
    pub evidence: EvidenceConfig,
    /// `[planner_model]`: the OpenAI-compatible model that plans searches; absent, the
    /// fallback plan (the question and its key terms) is used.
    pub planner_model: Option<OpenAiConfig>,
}

/// Committee options shared by `resolve` and `eval`.
#[derive(Debug, Clone, Args)]
pub struct JuryArgs {
    /// TOML file with `[jury]` and `[routing]` sections (defaults: the embedded model).
    #[arg(long, env = "VERITAS_CONFIG")]
    pub config: Option<PathBuf>,
    /// T: most iterations.
    #[arg(short = 'T', long)]
    pub iterations: Option<u32>,
    /// M: ballots per iteration.
    #[arg(short = 'M', long)]
    pub ballots: Option<u32>,
    /// Run all T iterations (no KL early stopping).
    #[arg(long)]
    pub no_early_stopping: bool,
    /// Embedded juror: GGUF model file (replaces the configured jurors with one local juror).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Embedded juror: contextual calibration on.
    #[arg(long)]
    pub calibrate: bool,
}

impl JuryArgs {
    /// The effective settings: file, then flags.
    ///
    /// # Errors
    /// An unreadable or invalid config file.
    pub fn settings(&self) -> anyhow::Result<JuryFile> {
        let mut file = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                toml::from_str(&text)
                    .with_context(|| format!("invalid config {}", path.display()))?
            }
            None => JuryFile::default(),
        };
        let c = &mut file.jury.committee;
        if let Some(t) = self.iterations {
            c.iterations = t;
        }
        if let Some(m) = self.ballots {
            c.ballots_per_iteration = m;
            c.concurrency = c.concurrency.max(m as usize);
        }
        if self.no_early_stopping {
            c.early_stopping = false;
        }
        if self.model.is_some() || self.calibrate {
            let mut local = file
                .jury
                .jurors
                .iter()
                .find_map(|j| match &j.kind {
                    JurorKind::Local(l) => Some(l.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            if let Some(path) = &self.model {
                local.model.path = path.clone();
            }
            local.calibrate |= self.calibrate;
            file.jury.jurors = vec![JurorConfig {
                weight: 1,
                kind: JurorKind::Local(local),
            }];
        }
        Ok(file)
    }
}

/// Arguments of `veritas resolve`.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// The question (or claim) exactly as it would be asked on-chain.
    pub question: String,
    /// JSON array of evidence items (`title`, `snippet`, optional `url`, `published_at`,
    /// `source`, `submitter`, `id` = 1..n in order). Without it the evidence is gathered:
    /// planned, searched and bundled.
    #[arg(long)]
    pub evidence: Option<PathBuf>,
    /// Local corpus folder to search when gathering (default `corpus/demo`, or the config's
    /// `[evidence.collectors.local] dir`).
    #[arg(long, conflicts_with = "evidence")]
    pub corpus: Option<PathBuf>,
    /// Submitted-evidence JSON file to add to the search (`url`, `title`, `snippet`,
    /// `published_at`, `submitter` per item).
    #[arg(long, conflicts_with = "evidence")]
    pub submitted: Option<PathBuf>,
    /// The question's resolution time (RFC 3339 or `YYYY-MM-DD`): documents published later
    /// are excluded from the bundle. Default: now.
    #[arg(long, value_parser = parse_time, conflicts_with = "evidence")]
    pub resolve_after: Option<chrono::DateTime<chrono::Utc>>,
    /// Where to write the report (default `.veritas/reports/<root>.json`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Committee options.
    #[command(flatten)]
    pub jury: JuryArgs,
}

fn parse_time(text: &str) -> Result<chrono::DateTime<chrono::Utc>, String> {
    parse_published(text).map_err(|err| err.to_string())
}

/// Plan, search and bundle the evidence for `question` with the configured collectors and the
/// optional planner model.
///
/// # Errors
/// A collector that cannot start, a planner model that cannot be built, or every collector
/// failing.
pub async fn gather_evidence(
    question: &str,
    resolve_after: chrono::DateTime<chrono::Utc>,
    config: &EvidenceConfig,
    planner_model: Option<&OpenAiConfig>,
) -> anyhow::Result<Gathered> {
    let gatherer = Gatherer::from_config(config).context("cannot start the evidence collectors")?;
    let planner = planner_model
        .map(|c| OpenAiChat::new(c.clone()))
        .transpose()
        .context("cannot build the planner model")?;
    let gathered = gatherer
        .gather(
            question,
            Some(resolve_after),
            planner.as_ref().map(|p| p as &dyn ChatModel),
        )
        .await
        .context("cannot gather evidence")?;
    Ok(gathered)
}

/// An evidence item as given on the command line; missing fields take defaults.
#[derive(Debug, Clone, Deserialize)]
struct EvidenceInput {
    id: Option<u32>,
    #[serde(default)]
    url: String,
    #[serde(default)]
    title: String,
    snippet: String,
    #[serde(default)]
    published_at: Option<String>,
    #[serde(default)]
    source: Option<Source>,
    #[serde(default)]
    submitter: Option<String>,
}

/// Read an evidence file into bundle items (ids 1..n in order).
///
/// # Errors
/// Unreadable file, invalid JSON, or ids out of order.
pub fn read_evidence(path: &Path) -> anyhow::Result<Vec<EvidenceItem>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let items: Vec<EvidenceInput> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a JSON array of evidence items", path.display()))?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            let expected = u32::try_from(i + 1)?;
            if e.id.is_some_and(|id| id != expected) {
                bail!(
                    "evidence item {} has id {:?}; ids must be 1..n in order",
                    i + 1,
                    e.id
                );
            }
            Ok(EvidenceItem {
                id: expected,
                url: e.url,
                title: e.title,
                snippet: e.snippet,
                published_at: e.published_at,
                source: e.source.unwrap_or(Source::Submitted),
                submitter: e.submitter,
            })
        })
        .collect()
}

/// Run the committee on one bundle and build its report.
///
/// `question_id` is the on-chain id as 32 bytes big-endian (zero off-chain).
///
/// # Errors
/// The bundle cannot be committed or the committee cannot run.
pub async fn resolve_bundle(
    committee: &Committee,
    policy: &RoutingPolicy,
    question: QuestionInfo,
    bundle: Bundle,
    rubric: Rubric,
    question_id: [u8; 32],
    progress: &mut (dyn FnMut(&IterationProgress) + Send),
) -> anyhow::Result<Report> {
    let commitment = commit_bundle(&bundle).context("cannot commit the evidence")?;
    let seed = committee_seed(&commitment.root, &question_id);
    let bundle = Arc::new(bundle);
    let rubric = Arc::new(rubric);
    let run = run_committee(
        committee,
        bundle.clone(),
        rubric.clone(),
        seed,
        commitment.root,
        progress,
    )
    .await?;
    Ok(Report::build(question, &bundle, &rubric, run, policy)?)
}

/// Run `veritas resolve`.
///
/// # Errors
/// Bad input, a jury that cannot be built, or an unwritable report.
pub async fn run(args: ResolveArgs) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let settings = args.jury.settings()?;
    let (evidence, rubric, search) = match &args.evidence {
        Some(path) => (read_evidence(path)?, Rubric::default(), None),
        None => {
            let mut config = settings.evidence.clone();
            if let Some(dir) = &args.corpus {
                config.collectors.local.enabled = true;
                config.collectors.local.dir = dir.clone();
            }
            if let Some(file) = &args.submitted {
                config.collectors.submitted.enabled = true;
                config.collectors.submitted.file = Some(file.clone());
            }
            let resolve_after = args.resolve_after.unwrap_or_else(chrono::Utc::now);
            let gathered = gather_evidence(
                &args.question,
                resolve_after,
                &config,
                settings.planner_model.as_ref(),
            )
            .await?;
            let search = gathered.record(Some(resolve_after));
            print_search(&search);
            (gathered.bundle, gathered.plan.rubric, Some(search))
        }
    };
    let committee = settings.jury.build().context("cannot build the jury")?;
    let bundle = Bundle {
        question: args.question.clone(),
        evidence,
    };
    let cfg = &committee.config;
    let bar = ProgressBar::new(u64::from(cfg.iterations));
    bar.set_style(
        ProgressStyle::with_template("{spinner} iteration {pos}/{len} {wide_msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar.set_message("jurors reading the evidence…");
    let mut on_iteration = |p: &IterationProgress| {
        bar.set_position(u64::from(p.iteration));
        bar.set_message(format!(
            "P = [{:.3} {:.3} {:.3}]  valid {}  failed {}{}",
            p.posterior[0],
            p.posterior[1],
            p.posterior[2],
            p.valid,
            p.failed,
            p.divergence
                .map(|d| format!("  KL {d:.4} bit"))
                .unwrap_or_default()
        ));
    };
    let mut report = resolve_bundle(
        &committee,
        &settings.routing,
        QuestionInfo {
            text: args.question,
            id: None,
            chain_id: None,
            oracle: None,
        },
        bundle,
        rubric,
        [0u8; 32],
        &mut on_iteration,
    )
    .await?;
    // Routing hook (issue 14): a planner that classified the question as not yes/no adds
    // that reason (the deterministic check already ran in `Report::build`).
    if let Some(kind) = search.as_ref().and_then(|s| s.plan.question_kind) {
        let mut inputs = RoutingInputs::from_bundle(&report.question.text, &report.evidence);
        inputs.planner_kind = Some(kind);
        report.routing = route(&report.stats, &inputs, &settings.routing);
    }
    report.search = search;
    bar.finish_and_clear();

    let out = args.out.unwrap_or_else(|| {
        PathBuf::from(".veritas/reports")
            .join(format!("{}.json", report.root.trim_start_matches("0x")))
    });
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let json = serde_json::to_string_pretty(&report)?;
    std::fs::write(&out, json + "\n").with_context(|| format!("cannot write {}", out.display()))?;
    print_summary(&report, started.elapsed(), &out);
    Ok(())
}

/// What was searched and found, before the committee starts (it can take a while).
fn print_search(search: &SearchRecord) {
    let plan = &search.plan;
    match &plan.fallback_reason {
        Some(reason) => println!("plan       fallback ({reason})"),
        None => println!("plan       {}", plan.model.as_deref().unwrap_or("model")),
    }
    for query in &plan.queries {
        println!("  query    {query}");
    }
    for collector in &search.raw_hits {
        match &collector.error {
            Some(err) => println!("  {:<8} failed: {err}", collector.collector),
            None => println!("  {:<8} {} hits", collector.collector, collector.hits.len()),
        }
    }
    if let Some(cutoff) = &search.resolve_after {
        println!(
            "cutoff     {cutoff} ({} dropped in all)",
            search.dropped.len()
        );
    }
}

fn print_summary(r: &Report, elapsed: Duration, out: &Path) {
    let s = &r.stats;
    println!("question   {}", r.question.text);
    println!("root       {}", r.root);
    println!("evidence   {} items", r.evidence.len());
    for e in &r.evidence {
        let snippet: String = e.snippet.chars().take(90).collect();
        println!("  [{}] {} — {}", e.id, e.title, snippet);
    }
    println!(
        "ballots    {} cast, {} valid, {} failed; stopped after iteration {} of {}{}",
        s.ballots,
        s.valid,
        s.failed,
        r.committee.stop_iteration,
        r.committee.iterations,
        if r.committee.stopped_early {
            " (KL early stop)"
        } else {
            ""
        }
    );
    for (k, name) in ["YES", "NO", "NULL"].iter().enumerate() {
        println!(
            "  {name:<5} posterior {:.3}  95% CI [{:.3}, {:.3}]  1e18: {}",
            s.posterior[k], s.ci95[k][0], s.ci95[k][1], s.p_fixed[k]
        );
    }
    match s.kappa {
        Some(k) => println!("kappa      {k:.3} (1e18: {})", s.kappa_fixed),
        None => println!("kappa      undefined (no iteration with two valid ballots)"),
    }
    println!(
        "n_eff      {:.2}   entropy {:.3} bit",
        s.n_eff, s.entropy_bits
    );
    if let Some(e) = &r.routing.effective {
        println!(
            "effective  counts scaled by n_eff/N = {:.3}: posterior [{:.3} {:.3} {:.3}]  lower 95% [{:.3} {:.3} {:.3}]",
            e.scale,
            e.posterior[0],
            e.posterior[1],
            e.posterior[2],
            e.ci95[0][0],
            e.ci95[1][0],
            e.ci95[2][0]
        );
    }
    let decision = match r.routing.decision {
        Decision::Resolve => "RESOLVE",
        Decision::Escalate => "ESCALATE",
    };
    let outcome = r
        .routing
        .outcome
        .map(|o| o.to_string())
        .unwrap_or_else(|| "—".into());
    println!("routing    {decision} ({outcome})");
    for reason in &r.routing.reasons {
        println!("  - {reason}");
    }
    for f in r.failures() {
        println!(
            "  failed ballot {}.{} {} / {}: {}",
            f.iteration,
            f.slot,
            f.model,
            f.archetype,
            f.failure.as_deref().unwrap_or("")
        );
    }
    println!("report     {}", out.display());
    println!("time       {:.1} s", elapsed.as_secs_f64());
}
