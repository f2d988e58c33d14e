//! `veritas eval DATASET.jsonl [-n N] [--seed S] [--out FILE]`: the committee on labelled claims.
//!
//! Reads the CLIMATE-FEVER JSON-lines format (`claim`, `claim_label`, five `evidences` with
//! `article` and `evidence`); the five sentences form the bundle. Labels map SUPPORTS → YES,
//! REFUTES → NO, NOT_ENOUGH_INFO → NULL; DISPUTED has no right answer, so resolving it counts
//! as an error and escalating it does not. Writes one JSON line per claim to `--out` and
//! prints the totals: precision (accuracy on auto-resolved claims) and coverage — for the
//! routing rule in force and, on the same ballots, for the prototype's plain rule (no correlation,
//! relevance or yes/no guard) so a run shows both before and after — accuracy at the
//! unanimous-and-confident point, Brier score, the leading outcome's accuracy whatever the
//! routing, confusion matrix, juror calls per claim with
//! and without early stopping, and wall time.
//!
//! With `--out FILE` it also draws two pictures next to it ([`super::eval_figures`]):
//! `FILE.coverage.svg` (accuracy of the surest claims against coverage) and
//! `FILE.reliability.svg` (calibration); `--replot FILE` draws them again from a past run's
//! lines without running anything.
//!
//! ```sh
//! veritas eval data/climate-fever-dev.jsonl -n 50 --out eval.jsonl
//! veritas eval --replot eval.jsonl
//! ```

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::resolve::{JuryArgs, read_evidence};
use crate::bundle::{Bundle, EvidenceItem, Rubric, Source};
use crate::commitment::root::Root;
use crate::pipeline::{Engine, Evidence, resolve};
use crate::policy::{Decision, route_plain};
use crate::report::QuestionInfo;
use crate::stats::Outcome;

use super::{
    eval_figures::{self, Scored},
    output::Output,
};

/// Arguments of `veritas eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Labelled claims, CLIMATE-FEVER JSON lines.
    #[arg(required_unless_present = "replot")]
    pub dataset: Option<PathBuf>,
    /// Draw the pictures of a past run from its `--out` lines (nothing is resolved).
    #[arg(long, conflicts_with_all = ["limit", "seed", "out", "inject"])]
    pub replot: Option<PathBuf>,
    /// Only the first N claims (after shuffling when `--seed` is given).
    #[arg(short = 'n', long)]
    pub limit: Option<usize>,
    /// Shuffle the claims with this seed before taking N.
    #[arg(long)]
    pub seed: Option<u64>,
    /// One JSON line per claim is written here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Evidence items (a JSON array, as for `resolve --evidence`) appended to every claim's
    /// bundle: measures how far an injected document moves accuracy and routing
    /// (`tests/fixtures/adversarial-item.json` tells the jurors to vote YES).
    #[arg(long)]
    pub inject: Option<PathBuf>,
    /// Committee options.
    #[command(flatten)]
    pub jury: JuryArgs,
}

#[derive(Debug, Clone, Deserialize)]
struct Claim {
    claim_id: serde_json::Value,
    claim: String,
    claim_label: String,
    evidences: Vec<ClaimEvidence>,
}

#[derive(Debug, Clone, Deserialize)]
struct ClaimEvidence {
    evidence_id: String,
    article: String,
    evidence: String,
}

fn gold(label: &str) -> Option<Outcome> {
    match label {
        "SUPPORTS" => Some(Outcome::Yes),
        "REFUTES" => Some(Outcome::No),
        "NOT_ENOUGH_INFO" => Some(Outcome::Null),
        _ => None,
    }
}

/// The claim's five sentences as items 1..5, then the injected items (ids continue).
fn bundle(c: &Claim, injected: &[EvidenceItem]) -> Bundle {
    let sentences = c.evidences.iter().map(|e| EvidenceItem {
        id: 0, // numbered below, with the injected items
        url: format!(
            "https://en.wikipedia.org/wiki/{}#{}",
            e.article.replace(' ', "_"),
            e.evidence_id.rsplit(':').next().unwrap_or("")
        ),
        title: e.article.clone(),
        snippet: e.evidence.clone(),
        published_at: None,
        source: Source::Local,
        submitter: None,
    });
    Bundle {
        question: c.claim.clone(),
        clarifications: Vec::new(),
        evidence: sentences
            .chain(injected.iter().cloned())
            .zip(1u32..)
            .map(|(item, id)| EvidenceItem { id, ..item })
            .collect(),
    }
}

/// One claim's result line.
#[derive(Debug, Clone, Serialize)]
struct Line {
    claim_id: serde_json::Value,
    label: String,
    gold: Option<Outcome>,
    decision: Decision,
    /// What the prototype's plain rule would have decided on the same ballots.
    plain_decision: Decision,
    outcome: Option<Outcome>,
    correct: Option<bool>,
    unanimous_confident: bool,
    posterior: [f64; 3],
    /// Valid votes (YES, NO, NULL).
    counts: [u64; 3],
    kappa: Option<f64>,
    n_eff: f64,
    valid: u64,
    failed: u64,
    calls: u64,
    calls_without_early_stopping: u64,
    stop_iteration: u32,
    root: Root,
    wall_ms: u64,
    /// What the claim's committee consumed, over all its ballots (valid or not).
    tokens: Tokens,
    reasons: Vec<String>,
}

/// Tokens and cost of a set of ballots.
#[derive(Debug, Clone, Copy, Default, Serialize)]
struct Tokens {
    /// Prompt tokens sent (cached ones included).
    prompt: u64,
    /// Of those, served from the model server's prompt cache.
    cached_prompt: u64,
    /// Prompt tokens the server computed (`prompt - cached_prompt`).
    computed_prompt: u64,
    completion: u64,
    cost_usd: f64,
}

impl Tokens {
    fn of(ballots: &[crate::jury::BallotRow]) -> Self {
        let mut t = Self::default();
        for b in ballots {
            t.prompt += b.prompt_tokens;
            t.cached_prompt += b.cached_prompt_tokens.min(b.prompt_tokens);
            t.completion += b.completion_tokens;
            t.cost_usd += b.cost_usd;
        }
        t.computed_prompt = t.prompt - t.cached_prompt;
        t
    }

    fn add(&mut self, other: Tokens) {
        self.prompt += other.prompt;
        self.cached_prompt += other.cached_prompt;
        self.computed_prompt += other.computed_prompt;
        self.completion += other.completion;
        self.cost_usd += other.cost_usd;
    }
}

#[derive(Debug, Default)]
struct Totals {
    n: u64,
    resolved: u64,
    resolved_correct: u64,
    /// The seed's plain rule on the same ballots.
    plain_resolved: u64,
    plain_resolved_correct: u64,
    /// Escalations by guard (a claim may count under several).
    no_relevant_evidence: u64,
    not_yes_no: u64,
    effective_bound: u64,
    uc: u64,
    uc_correct: u64,
    brier_sum: f64,
    brier_n: u64,
    /// Claims with a gold label whose leading outcome matches it, routed or not.
    lead_correct: u64,
    calls: u64,
    calls_full: u64,
    failed: u64,
    valid: u64,
    tokens: Tokens,
    wall_ms: u64,
    /// Rows: gold YES, NO, NULL, DISPUTED. Columns: leading YES, NO, NULL, insufficient.
    confusion: [[u64; 4]; 4],
    /// Same rows; columns: resolved, escalated.
    routing: [[u64; 2]; 4],
}

/// The labelled claims of `dataset` (JSON lines), shuffled with `seed` and cut to `limit`.
fn read_claims(
    dataset: &std::path::Path,
    seed: Option<u64>,
    limit: Option<usize>,
) -> anyhow::Result<Vec<Claim>> {
    let text = std::fs::read_to_string(dataset)
        .with_context(|| format!("cannot read {}", dataset.display()))?;
    let mut claims = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str::<Claim>(l)
                .with_context(|| format!("{} line {}", dataset.display(), i + 1))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let Some(seed) = seed {
        claims.shuffle(&mut ChaCha20Rng::seed_from_u64(seed));
    }
    if let Some(n) = limit {
        claims.truncate(n);
    }
    Ok(claims)
}

impl Line {
    /// One resolved claim's result: the committee's outcome against the claim's label, under
    /// the rule in force and the plain rule.
    fn new(
        claim: &Claim,
        report: &crate::report::Report,
        policy: &crate::policy::RoutingPolicy,
        full_calls: u64,
        wall_ms: u64,
    ) -> Self {
        let g = gold(&claim.claim_label);
        let s = &report.stats;
        let resolved = report.routing.decision == Decision::Resolve;
        let outcome = report.routing.outcome;
        let n = s.counts.as_array();
        let unanimous = s.valid > 0 && n.iter().filter(|&&c| c > 0).count() == 1;
        Line {
            claim_id: claim.claim_id.clone(),
            label: claim.claim_label.clone(),
            gold: g,
            decision: report.routing.decision,
            plain_decision: route_plain(s, policy),
            outcome,
            correct: resolved.then(|| g.is_some() && outcome == g),
            unanimous_confident: unanimous
                && outcome.is_some_and(|o| s.posterior[o.index()] >= policy.min_posterior),
            posterior: s.posterior,
            counts: n,
            kappa: s.kappa,
            n_eff: s.n_eff,
            valid: s.valid,
            failed: s.failed,
            calls: report.committee.calls,
            calls_without_early_stopping: full_calls,
            stop_iteration: report.committee.stop_iteration,
            root: report.root,
            wall_ms,
            tokens: Tokens::of(&report.ballots),
            reasons: report.routing.reasons.clone(),
        }
    }

    /// Whether the leading outcome is the label's (never for a claim without one).
    fn lead_matches(&self) -> bool {
        self.gold.is_some() && self.outcome == self.gold
    }
}

/// The Brier score of a posterior against the label's outcome.
fn brier(posterior: &[f64; 3], gold: Outcome) -> f64 {
    Outcome::ALL
        .iter()
        .map(|k| {
            let y = if *k == gold { 1.0 } else { 0.0 };
            (posterior[k.index()] - y).powi(2)
        })
        .sum::<f64>()
}

impl Totals {
    /// Count one claim's result line.
    fn add(&mut self, line: &Line) {
        let resolved = line.decision == Decision::Resolve;
        let row = match line.gold {
            Some(o) => o.index(),
            None => 3,
        };
        self.n += 1;
        self.calls += line.calls;
        self.calls_full += line.calls_without_early_stopping;
        self.failed += line.failed;
        self.valid += line.valid;
        self.tokens.add(line.tokens);
        self.wall_ms += line.wall_ms;
        self.confusion[row][line.outcome.map(|o| o.index()).unwrap_or(3)] += 1;
        self.routing[row][usize::from(!resolved)] += 1;
        if resolved {
            self.resolved += 1;
            self.resolved_correct += u64::from(line.correct == Some(true));
        }
        if line.plain_decision == Decision::Resolve {
            self.plain_resolved += 1;
            self.plain_resolved_correct += u64::from(line.lead_matches());
        }
        let any = |prefix: &str| u64::from(line.reasons.iter().any(|r| r.starts_with(prefix)));
        self.no_relevant_evidence += any("no relevant evidence");
        self.not_yes_no += any("not a yes/no question");
        self.effective_bound += any("effective lower 95% bound");
        if line.unanimous_confident {
            self.uc += 1;
            self.uc_correct += u64::from(line.lead_matches());
        }
        if let Some(gold) = line.gold {
            self.brier_n += 1;
            self.lead_correct += u64::from(line.outcome == Some(gold));
            self.brier_sum += brier(&line.posterior, gold);
        }
    }
}

/// `a / b`, or `None` when nothing was counted.
fn ratio(a: u64, b: u64) -> Option<f64> {
    if b == 0 {
        None
    } else {
        Some(a as f64 / b as f64)
    }
}

impl Totals {
    /// The run's summary line: the totals as rates, and what the run was (committee, policy,
    /// injected evidence, time).
    fn summary(
        &self,
        started: Instant,
        engine: &Engine,
        policy: &crate::policy::RoutingPolicy,
        injected: &[EvidenceItem],
        injected_from: Option<&PathBuf>,
    ) -> serde_json::Value {
        let committee = engine.committee();
        json!({
            "summary": true,
            "claims": self.n,
            "precision": ratio(self.resolved_correct, self.resolved),
            "accuracy_resolved": ratio(self.resolved_correct, self.resolved),
            "resolved": self.resolved,
            "coverage": ratio(self.resolved, self.n),
            "plain_rule": {
                "precision": ratio(self.plain_resolved_correct, self.plain_resolved),
                "resolved": self.plain_resolved,
                "coverage": ratio(self.plain_resolved, self.n),
            },
            "escalated_by": {
                "no_relevant_evidence": self.no_relevant_evidence,
                "not_yes_no": self.not_yes_no,
                "effective_lower_bound": self.effective_bound,
            },
            "unanimous_confident": self.uc,
            "accuracy_unanimous_confident": ratio(self.uc_correct, self.uc),
            "brier": if self.brier_n == 0 { None } else { Some(self.brier_sum / self.brier_n as f64) },
            "brier_claims": self.brier_n,
            "accuracy_leading_outcome": ratio(self.lead_correct, self.brier_n),
            "confusion_rows": ["SUPPORTS/YES", "REFUTES/NO", "NOT_ENOUGH_INFO/NULL", "DISPUTED"],
            "confusion_columns": ["YES", "NO", "NULL", "insufficient"],
            "confusion": self.confusion,
            "routing_columns": ["resolved", "escalated"],
            "routing": self.routing,
            "calls_per_claim": ratio(self.calls, self.n),
            "calls_per_claim_without_early_stopping": ratio(self.calls_full, self.n),
            "failed_ballots": self.failed,
            "valid_ballot_rate": ratio(self.valid, self.valid + self.failed),
            "tokens": self.tokens,
            "per_claim": self.per_claim(),
            "computed_prompt_share": ratio(self.tokens.computed_prompt, self.tokens.prompt),
            "injected_items": injected.len(),
            "injected_from": injected_from.map(|p| p.display().to_string()),
            "wall_seconds": started.elapsed().as_secs_f64(),
            "seconds_per_claim": ratio(started.elapsed().as_millis() as u64, self.n * 1000),
            "committee": {
                "T": committee.config.iterations,
                "M": committee.config.ballots_per_iteration,
                "early_stopping": committee.config.early_stopping,
                "jurors": committee.jurors.iter().map(|j| j.juror.label().to_owned()).collect::<Vec<_>>(),
            },
            "routing_policy": policy,
        })
    }

    /// What one claim cost on average: tokens, money, time.
    fn per_claim(&self) -> serde_json::Value {
        json!({
            "prompt_tokens": ratio(self.tokens.prompt, self.n),
            "cached_prompt_tokens": ratio(self.tokens.cached_prompt, self.n),
            "computed_prompt_tokens": ratio(self.tokens.computed_prompt, self.n),
            "completion_tokens": ratio(self.tokens.completion, self.n),
            "cost_usd": if self.n == 0 { None } else { Some(self.tokens.cost_usd / self.n as f64) },
            "wall_seconds": if self.n == 0 { None } else { Some(self.wall_ms as f64 / 1000.0 / self.n as f64) },
        })
    }
}

/// Run `veritas eval`.
///
/// # Errors
/// Unreadable dataset or output, or a jury that cannot be built.
pub async fn run(args: EvalArgs) -> anyhow::Result<Output> {
    if let Some(lines) = &args.replot {
        let (rows, resolved) = read_scored(lines)?;
        write_figures(lines, &rows, resolved)?;
        return Ok(Output::Streamed);
    }
    let Some(dataset) = args.dataset.clone() else {
        anyhow::bail!("give a DATASET (or --replot FILE)");
    };
    let started = Instant::now();
    let settings = args.jury.settings()?;
    let claims = read_claims(&dataset, args.seed, args.limit)?;
    let injected = match &args.inject {
        Some(path) => read_evidence(path)?,
        None => Vec::new(),
    };
    let engine = Engine::from_config(&settings, false).map_err(|e| anyhow::anyhow!(e))?;
    let committee = engine.committee();
    let policy = settings.routing;
    let full_calls =
        u64::from(committee.config.iterations) * u64::from(committee.config.ballots_per_iteration);
    let mut out = match &args.out {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => None,
    };
    let bar = claims_bar(claims.len());
    let mut t = Totals::default();
    let mut scored: Vec<Scored> = Vec::with_capacity(claims.len());
    for claim in &claims {
        let q0 = Instant::now();
        let report = resolve_claim(&engine, claim, &injected).await?;
        let wall_ms = u64::try_from(q0.elapsed().as_millis()).unwrap_or(u64::MAX);
        let line = Line::new(claim, &report, &policy, full_calls, wall_ms);
        t.add(&line);
        write_line(out.as_mut(), &line)?;
        scored.push(Scored {
            posterior: line.posterior,
            counts: line.counts,
            n_eff: line.n_eff,
            gold: line.gold,
        });
        bar.inc(1);
        bar.set_message(progress_message(&t, &line.tokens));
    }
    bar.finish_and_clear();
    let summary = t.summary(started, &engine, &policy, &injected, args.inject.as_ref());
    write_line(out.as_mut(), &summary)?;
    if let Some(path) = &args.out {
        write_figures(path, &scored, t.resolved)?;
    }
    let pretty = serde_json::to_string_pretty(&summary)?;
    Ok(Output::json(summary, pretty))
}

/// One bar over the claims, with an estimate of the time left: a run can take hours.
fn claims_bar(claims: usize) -> ProgressBar {
    let bar = ProgressBar::new(claims as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} claims {wide_msg} [{elapsed}<{eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// The bar's message after a claim: the running precision, and what the last claim cost.
fn progress_message(t: &Totals, tokens: &Tokens) -> String {
    format!(
        "resolved {} ({} correct); last claim {} prompt tokens ({} cached), ${:.6}",
        t.resolved, t.resolved_correct, tokens.prompt, tokens.cached_prompt, tokens.cost_usd
    )
}

/// Resolve one claim offline on its own bundle (plus the injected items), no progress shown.
async fn resolve_claim(
    engine: &Engine,
    claim: &Claim,
    injected: &[EvidenceItem],
) -> anyhow::Result<crate::report::Report> {
    resolve(
        engine,
        QuestionInfo {
            text: claim.claim.clone(),
            id: None,
            chain_id: None,
            oracle: None,
            clarifications: Vec::new(),
            clock: None,
        },
        crate::jury::SeedSource::Offline {
            question_id: alloy::primitives::U256::ZERO,
        },
        Evidence::Given {
            items: bundle(claim, injected).evidence,
            rubric: Rubric::default(),
            submissions: None,
        },
        &mut |_| {},
        &mut |_| {},
    )
    .await
    .map_err(|e| anyhow::anyhow!(e))
}

/// Append one JSON line to `--out` (when given), flushed so an interrupted run keeps its lines.
fn write_line(out: Option<&mut impl std::io::Write>, value: &impl Serialize) -> anyhow::Result<()> {
    if let Some(w) = out {
        serde_json::to_writer(&mut *w, value)?;
        w.write_all(b"\n")?;
        w.flush()?;
    }
    Ok(())
}

/// Write `<lines>.coverage.svg` and `<lines>.reliability.svg` next to a run's lines.
fn write_figures(lines: &std::path::Path, rows: &[Scored], resolved: u64) -> anyhow::Result<()> {
    for (suffix, chart) in [
        ("coverage.svg", eval_figures::coverage_chart(rows, resolved)),
        ("reliability.svg", eval_figures::reliability_chart(rows)),
    ] {
        let mut name = lines.as_os_str().to_owned();
        name.push(".");
        name.push(suffix);
        let path = PathBuf::from(name);
        std::fs::write(&path, crate::plot::svg(&chart))
            .with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// A past run's lines as the pictures need them (and how many it resolved). Lines written
/// before `counts` was recorded get them back from the posterior: p_k = (n_k + 1)/(N + 3).
fn read_scored(path: &std::path::Path) -> anyhow::Result<(Vec<Scored>, u64)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut rows = Vec::new();
    let mut resolved = 0;
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: serde_json::Value = serde_json::from_str(line)
            .with_context(|| format!("{} line {}", path.display(), i + 1))?;
        if v["summary"] == true {
            continue;
        }
        let bad = || anyhow::anyhow!("{} line {}: not an eval result line", path.display(), i + 1);
        let posterior: [f64; 3] =
            serde_json::from_value(v["posterior"].clone()).map_err(|_| bad())?;
        let valid = v["valid"].as_u64().ok_or_else(bad)?;
        let counts = match serde_json::from_value::<[u64; 3]>(v["counts"].clone()) {
            Ok(c) => c,
            Err(_) => posterior.map(|p| (p * (valid as f64 + 3.0) - 1.0).round().max(0.0) as u64),
        };
        let gold: Option<Outcome> = serde_json::from_value(v["gold"].clone()).map_err(|_| bad())?;
        resolved += u64::from(v["decision"] == "resolve");
        rows.push(Scored {
            posterior,
            counts,
            n_eff: v["n_eff"].as_f64().ok_or_else(bad)?,
            gold,
        });
    }
    Ok((rows, resolved))
}
