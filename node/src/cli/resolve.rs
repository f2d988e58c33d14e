//! `veritas resolve "<question>" [--corpus DIR] [--evidence FILE] [--out report.json]`: one
//! question, no chain.
//!
//! Without `--evidence` it gathers the evidence first: plans the search (a `[planner_model]`
//! when configured, else the fallback plan), searches the configured collectors (the local
//! corpus `corpus/demo` by default, offline) and builds the bundle; the report's `search` key
//! records the queries, the plan's rubric and every collector's raw hits. Then it commits the
//! evidence, runs the committee with a progress bar per iteration, routes the verdict, prints
//! a readable summary and writes the report file (`report.rs`; the book's auditor guide reads it).
//!
//! ```sh
//! veritas resolve "Did the Calderwick City Council approve the Harbour Street protected bike lane before 1 April 2026?" \
//!     --resolve-after 2026-04-01T00:00:00Z
//! veritas resolve "Is the Arctic warming faster than the global average?" \
//!     --evidence evidence.json --out report.json
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use alloy::primitives::U256;
use anyhow::{Context as _, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Deserialize;

use super::output::Output;
use crate::bundle::{EvidenceItem, Rubric, Source};
use crate::clock::{Clock as _, SystemClock};
use crate::config::{Config, Sources};
use crate::evidence::SearchRecord;
use crate::evidence::normalize::parse_published;
use crate::jury::SeedSource;
use crate::jury::committee::IterationProgress;
use crate::jury::pool::{JurorConfig, JurorKind};
use crate::pipeline::{Engine, Evidence, resolve};
use crate::policy::Decision;
use crate::report::{QuestionInfo, Report};

/// Committee options shared by `resolve` and `eval`.
#[derive(Debug, Clone, Args)]
pub struct JuryArgs {
    /// The node's TOML config file (the same one `veritas run --config` reads; its `[jury]`,
    /// `[routing]`, `[evidence]` and `[planner_model]` sections are used here). Default:
    /// ./veritas.toml when it exists, else the built-in defaults (the embedded model).
    #[arg(long, short = 'c', env = "VERITAS_CONFIG")]
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
    /// The effective configuration: [`Config::load`] (defaults < file < `VERITAS__*` env),
    /// then these flags.
    ///
    /// # Errors
    /// An unreadable or invalid config file, naming the key.
    pub fn settings(&self) -> anyhow::Result<Config> {
        let mut file = Config::load(&Sources {
            file: self.config.clone(),
            env: None,
            overrides: Vec::new(),
        })
        .context("loading configuration")?;
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

/// Run `veritas resolve`.
///
/// # Errors
/// Bad input, a jury that cannot be built, or an unwritable report.
pub async fn run(args: ResolveArgs, json: bool) -> anyhow::Result<Output> {
    let started = std::time::Instant::now();
    let mut config = args.jury.settings()?;
    let evidence = evidence_source(&args, &mut config)?;
    let gather = matches!(evidence, Evidence::Gather { .. });
    let engine = Engine::from_config(&config, gather).map_err(|e| anyhow::anyhow!(e))?;
    let bar = progress_bar(engine.committee().config.iterations);
    let mut on_search = |search: &SearchRecord| {
        // Progress for a person (the committee can take a while); `--json` prints the result only.
        if !json {
            print_search(search);
        }
        bar.enable_steady_tick(Duration::from_millis(200));
        bar.set_message("jurors reading the evidence…");
    };
    let mut on_iteration = |p: &IterationProgress| {
        bar.set_position(u64::from(p.iteration));
        bar.set_message(iteration_message(p));
    };
    if !gather {
        bar.enable_steady_tick(Duration::from_millis(200));
        bar.set_message("jurors reading the evidence…");
    }
    let report = resolve(
        &engine,
        QuestionInfo {
            text: args.question,
            id: None,
            chain_id: None,
            oracle: None,
            clarifications: Vec::new(),
            clock: None,
        },
        SeedSource::Offline {
            question_id: U256::ZERO,
        },
        evidence,
        &mut on_search,
        &mut on_iteration,
    )
    .await
    .map_err(|e| anyhow::anyhow!(e))?;
    bar.finish_and_clear();

    let out = write_report(&report, args.out)?;
    let elapsed = started.elapsed();
    let human = summary(&report, elapsed, &out);
    let value = serde_json::json!({"report_file": out, "root": report.root,
        "seconds": elapsed.as_secs_f64(), "report": report});
    Ok(Output::text(value, human))
}

/// The evidence to resolve on: the `--evidence` file as given, else gathered from the
/// configured collectors (with `--corpus` and `--submitted` switched on) up to the cutoff.
fn evidence_source(args: &ResolveArgs, config: &mut Config) -> anyhow::Result<Evidence> {
    if let Some(path) = &args.evidence {
        return Ok(Evidence::Given {
            items: read_evidence(path)?,
            rubric: Rubric::default(),
            submissions: None,
        });
    }
    if let Some(dir) = &args.corpus {
        config.evidence.collectors.local.enabled = true;
        config.evidence.collectors.local.dir = dir.clone();
    }
    if let Some(file) = &args.submitted {
        config.evidence.collectors.submitted.enabled = true;
        config.evidence.collectors.submitted.file = Some(file.clone());
    }
    Ok(Evidence::Gather {
        resolve_after: Some(args.resolve_after.unwrap_or_else(|| SystemClock.now_utc())),
        // `--submitted FILE` feeds the file collector; on-chain items are the daemon's.
        submissions: None,
    })
}

/// One bar over the committee's iterations, for a person watching a run that takes a while.
fn progress_bar(iterations: u32) -> ProgressBar {
    let bar = ProgressBar::new(u64::from(iterations));
    bar.set_style(
        ProgressStyle::with_template("{spinner} iteration {pos}/{len} {wide_msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// The bar's message after an iteration: the posterior so far, ballots, and the divergence
/// early stopping watches.
fn iteration_message(p: &IterationProgress) -> String {
    format!(
        "P = [{:.3} {:.3} {:.3}]  valid {}  failed {}{}",
        p.posterior[0],
        p.posterior[1],
        p.posterior[2],
        p.valid,
        p.failed,
        p.divergence
            .map(|d| format!("  KL {d:.4} bit"))
            .unwrap_or_default()
    )
}

/// Write the report as pretty JSON to `out` (default `.veritas/reports/<root>.json`); the
/// path written.
fn write_report(report: &Report, out: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let out = out.unwrap_or_else(|| {
        PathBuf::from(".veritas/reports").join(format!("{}.json", report.root.file_stem()))
    });
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(report)?;
    std::fs::write(&out, text + "\n").with_context(|| format!("cannot write {}", out.display()))?;
    Ok(out)
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

/// The text summary of a resolution: the question and its evidence, the committee's
/// statistics, the routing, and where the report went.
fn summary(r: &Report, elapsed: Duration, out: &Path) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    _ = writeln!(o, "question   {}", r.question.text);
    _ = writeln!(o, "root       {}", r.root);
    _ = writeln!(o, "evidence   {} items", r.evidence.len());
    for e in &r.evidence {
        let snippet: String = e.snippet.chars().take(90).collect();
        _ = writeln!(o, "  [{}] {} — {}", e.id, e.title, snippet);
    }
    write_stats(&mut o, r);
    write_routing(&mut o, r);
    _ = writeln!(o, "report     {}", out.display());
    _ = writeln!(o, "time       {:.1} s", elapsed.as_secs_f64());
    o
}

/// The committee's ballots and statistics: posterior, agreement, effective sample size.
fn write_stats(o: &mut String, r: &Report) {
    use std::fmt::Write as _;
    let s = &r.stats;
    _ = writeln!(
        o,
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
        _ = writeln!(
            o,
            "  {name:<5} posterior {:.3}  95% CI [{:.3}, {:.3}]  1e18: {}",
            s.posterior[k], s.ci95[k][0], s.ci95[k][1], s.p_fixed[k]
        );
    }
    match s.kappa {
        Some(k) => _ = writeln!(o, "kappa      {k:.3} (1e18: {})", s.kappa_fixed),
        None => {
            _ = writeln!(
                o,
                "kappa      undefined (no iteration with two valid ballots)"
            )
        }
    }
    _ = writeln!(
        o,
        "n_eff      {:.2}   entropy {:.3} bit",
        s.n_eff, s.entropy_bits
    );
}

/// The routing decision with its reasons, the correlation-scaled figures it used, and every
/// failed ballot.
fn write_routing(o: &mut String, r: &Report) {
    use std::fmt::Write as _;
    if let Some(e) = &r.routing.effective {
        _ = writeln!(
            o,
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
    _ = writeln!(o, "routing    {decision} ({outcome})");
    for reason in &r.routing.reasons {
        _ = writeln!(o, "  - {reason}");
    }
    for f in r.failures() {
        _ = writeln!(
            o,
            "  failed ballot {}.{} {} / {}: {}",
            f.iteration,
            f.slot,
            f.model,
            f.archetype,
            f.failure.as_deref().unwrap_or("")
        );
    }
}
