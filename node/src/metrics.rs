//! Every metric the node exports, declared once here and encoded by `prometheus-client` (the
//! OpenMetrics text format Prometheus scrapes).
//!
//! Two kinds of values: what this process counts as it works ([`Metrics`]: retries, juror
//! calls, tokens, cost, stage timings), recorded by the job runner; and what is read at each
//! scrape ([`Scrape`]: the store's question counts, the watcher's state, the wallet's balance
//! and credits), gathered by the HTTP API. [`Metrics::encode`] writes both. This module has no
//! I/O and knows none of the node's types, so the pipeline depends on a plain data type, not
//! on the HTTP server.

use std::{
    fmt,
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use prometheus_client::{
    encoding::{EncodeLabelSet, text},
    metrics::{
        counter::{ConstCounter, Counter},
        family::Family,
        gauge::{ConstGauge, Gauge},
        histogram::{Histogram, exponential_buckets},
    },
    registry::Registry,
};

/// The `Content-Type` of [`Metrics::encode`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The label of a stage timing.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StageLabel {
    stage: &'static str,
}

/// The label of the questions waiting in the `posting` stage: why they wait.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WaitLabel {
    wait: &'static str,
}

/// What this process counts (the rest is read at each scrape: [`Scrape`]).
#[derive(Debug)]
pub struct Metrics {
    attempts_failed: Counter,
    juror_calls: Counter,
    juror_failures: Counter,
    tokens: Counter,
    cached_tokens: Counter,
    cost_usd: Counter<f64, AtomicU64>,
    question_cost_usd: Histogram,
    stage_seconds: Family<StageLabel, Histogram>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            attempts_failed: Counter::default(),
            juror_calls: Counter::default(),
            juror_failures: Counter::default(),
            tokens: Counter::default(),
            cached_tokens: Counter::default(),
            cost_usd: Counter::default(),
            // $0.0001 .. ~$52: a local model costs nothing, a hosted committee cents to dollars.
            question_cost_usd: Histogram::new(exponential_buckets(1e-4, 4.0, 10)),
            // 10 ms .. ~22 min: a replay run, a post, a committee of hosted models.
            stage_seconds: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(0.01, 3.0, 12))
            }),
        }
    }
}

/// Values read at each scrape, from the store, the watcher and the chain.
#[derive(Debug, Clone, Default)]
pub struct Scrape {
    /// Questions stored (all time).
    pub questions_seen: u64,
    /// Stored questions per stage name.
    pub by_stage: Vec<(&'static str, u64)>,
    /// The questions of the `posting` stage by what they wait for: `transaction` (a report,
    /// commit or reveal being sent or mined), `stake` (the free stake is short of the report
    /// bond), `reveal_phase` (a commitment on-chain, the reveal phase not open yet).
    pub posting_by_wait: Vec<(&'static str, u64)>,
    /// The RPC answered `eth_blockNumber` at this scrape.
    pub rpc_up: bool,
    /// What `/readyz` answers now: the RPC answered and the cursor is within
    /// `ready_max_lag` blocks of the confirmed head read at this scrape.
    pub ready: bool,
    /// `node.ready_max_lag`.
    pub ready_max_lag: u64,
    /// Verdicts posted as resolved (all time, from the store).
    pub resolved: u64,
    /// Verdicts posted as escalated (all time).
    pub escalated: u64,
    /// Questions marked failed (all time).
    pub failed: u64,
    /// Latest head block seen.
    pub chain_head: u64,
    /// Next block the watcher scans.
    pub cursor_block: u64,
    /// Confirmed blocks not yet scanned.
    pub cursor_lag_blocks: u64,
    /// Watcher polls that failed.
    pub rpc_errors: u64,
    /// Log pages read again because they held fewer questions than `questionCount()`.
    pub incomplete_log_pages: u64,
    /// On-chain evidence submissions stored by the watcher.
    pub evidence_submissions_seen: u64,
    /// Log pages whose evidence did not link to `evidenceHead()`.
    pub broken_evidence_pages: u64,
    /// Log pages refused as no honest provider's answer.
    pub rejected_log_pages: u64,
    /// Questions stored as failed on sight.
    pub questions_rejected: u64,
    /// Current `eth_getLogs` range.
    pub log_range_blocks: u64,
    /// The operator's balance in ether, when the RPC answered in time.
    pub wallet_balance_ether: Option<f64>,
    /// The operator's unpaid credits on the oracle in wei, when the RPC answered in time
    /// (exact up to 2^64 − 1 wei, ~18.4 ether; above that a float).
    pub operator_credits_wei: Option<Wei>,
    /// The operator's stake not locked by open reports, in wei, when the RPC answered in time.
    pub operator_free_stake_wei: Option<Wei>,
    /// The report bond of the parameter set questions are asked under now (what one more
    /// report locks), in wei, when the RPC answered in time.
    pub report_bond_wei: Option<Wei>,
}

/// A wei amount as a gauge shows it: the exact integer while it fits 64 bits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wei {
    /// Exact.
    Exact(u64),
    /// Above `u64::MAX` wei: Prometheus reads every value as a float anyway.
    Approximate(f64),
}

impl Wei {
    /// Register `wei` as gauge `name`, when there is a value.
    fn register(r: &mut Registry, name: &str, help: &str, wei: Option<Wei>) {
        match wei {
            Some(Wei::Exact(wei)) => r.register(name, help, ConstGauge::new(wei)),
            Some(Wei::Approximate(wei)) => r.register(name, help, ConstGauge::new(wei)),
            None => {}
        }
    }
}

impl Metrics {
    /// Count an attempt that failed and was scheduled for retry.
    pub fn record_retry(&self) {
        self.attempts_failed.inc();
    }

    /// Record one duration of a stage (`resolve`, `post`, `confirmation_to_verdict`).
    pub fn observe(&self, stage: &'static str, elapsed: Duration) {
        self.stage_seconds
            .get_or_create(&StageLabel { stage })
            .observe(elapsed.as_secs_f64());
    }

    /// Count one juror call: whether it produced a vote, its tokens and its cost.
    pub fn record_juror_call(&self, call: JurorCall) {
        self.juror_calls.inc();
        if !call.voted {
            self.juror_failures.inc();
        }
        self.tokens.inc_by(call.tokens);
        self.cached_tokens.inc_by(call.cached_tokens);
        // Negative or absurd values are ignored: a counter only grows.
        if call.cost_usd.is_finite() && call.cost_usd >= 0.0 {
            self.cost_usd.inc_by(call.cost_usd);
        }
    }

    /// Record the juror cost of one question's committee run (non-finite or negative: 0).
    pub fn record_question_cost(&self, usd: f64) {
        let usd = if usd.is_finite() && usd >= 0.0 {
            usd
        } else {
            0.0
        };
        self.question_cost_usd.observe(usd);
    }

    /// Every metric, this process's and `scrape`'s, in the OpenMetrics text format
    /// ([`CONTENT_TYPE`]).
    ///
    /// # Errors
    /// [`fmt::Error`] only if writing to the string fails (it does not).
    pub fn encode(&self, scrape: &Scrape) -> Result<String, fmt::Error> {
        let mut r = Registry::default();
        scrape.register_counters(&mut r);
        scrape.register_gauges(&mut r);
        scrape.register_families(&mut r);
        self.register_own(&mut r);
        let mut out = String::new();
        text::encode(&mut out, &r)?;
        Ok(out)
    }

    /// The metrics this process counts (clones share the values).
    fn register_own(&self, r: &mut Registry) {
        let ours = [
            (
                "veritas_attempts_failed",
                "Failed attempts scheduled for retry (this process)",
                &self.attempts_failed,
            ),
            (
                "veritas_juror_calls",
                "Juror calls (ballots) made (this process)",
                &self.juror_calls,
            ),
            (
                "veritas_juror_failures",
                "Juror calls without a vote (this process)",
                &self.juror_failures,
            ),
            (
                "veritas_juror_tokens",
                "Juror tokens used (this process)",
                &self.tokens,
            ),
            (
                "veritas_juror_cached_tokens",
                "Juror prompt tokens served from the model server's prompt cache (this process)",
                &self.cached_tokens,
            ),
        ];
        for (name, help, counter) in ours {
            r.register(name, help, counter.clone());
        }
        r.register(
            "veritas_juror_cost_usd",
            "Juror cost in US dollars (this process)",
            self.cost_usd.clone(),
        );
        r.register(
            "veritas_question_cost_usd",
            "Juror cost of one question's committee run, US dollars (this process)",
            self.question_cost_usd.clone(),
        );
        r.register(
            "veritas_stage_seconds",
            "Time spent per stage (this process)",
            self.stage_seconds.clone(),
        );
    }
}

impl Scrape {
    /// The scrape's counters. The encoder appends `_total` to counters and a period to help
    /// texts.
    fn register_counters(&self, r: &mut Registry) {
        let sc = self;
        let counters = [
            (
                "veritas_questions_seen",
                "Questions confirmed on-chain and stored",
                sc.questions_seen,
            ),
            (
                "veritas_questions_resolved",
                "Verdicts posted as resolved (all time, from the store)",
                sc.resolved,
            ),
            (
                "veritas_questions_escalated",
                "Verdicts posted as escalated (all time)",
                sc.escalated,
            ),
            (
                "veritas_questions_failed",
                "Questions marked failed (all time)",
                sc.failed,
            ),
            (
                "veritas_rpc_errors",
                "Watcher polls that failed",
                sc.rpc_errors,
            ),
            (
                "veritas_incomplete_log_pages",
                "eth_getLogs pages with fewer questions than questionCount(); read again",
                sc.incomplete_log_pages,
            ),
            (
                "veritas_evidence_submissions_seen",
                "On-chain evidence submissions stored by the watcher (this process)",
                sc.evidence_submissions_seen,
            ),
            (
                "veritas_broken_evidence_pages",
                "eth_getLogs pages whose EvidenceSubmitted logs did not link to evidenceHead(); read again",
                sc.broken_evidence_pages,
            ),
            (
                "veritas_rejected_log_pages",
                "eth_getLogs pages refused as no honest provider's answer (forged or out-of-range logs); read again",
                sc.rejected_log_pages,
            ),
            (
                "veritas_questions_rejected",
                "Questions stored as failed on sight: never resolvable (invalid UTF-8, resolveAfter past the contract's horizon)",
                sc.questions_rejected,
            ),
        ];
        for (name, help, value) in counters {
            r.register(name, help, ConstCounter::new(value));
        }
    }

    /// The scrape's plain gauges (the encoder appends a period to help texts).
    fn register_gauges(&self, r: &mut Registry) {
        let sc = self;
        let gauges = [
            (
                "veritas_chain_head",
                "Latest head block seen",
                sc.chain_head,
            ),
            (
                "veritas_cursor_block",
                "Next block the watcher scans",
                sc.cursor_block,
            ),
            (
                "veritas_cursor_lag_blocks",
                "Confirmed blocks not yet scanned",
                sc.cursor_lag_blocks,
            ),
            (
                "veritas_log_range_blocks",
                "Current eth_getLogs range",
                sc.log_range_blocks,
            ),
            (
                "veritas_rpc_up",
                "1 when the RPC answered eth_blockNumber at this scrape, else 0",
                u64::from(sc.rpc_up),
            ),
            (
                "veritas_ready",
                "1 when /readyz passes: the RPC answers and the cursor is within node.ready_max_lag blocks of the confirmed head read at this scrape",
                u64::from(sc.ready),
            ),
            (
                "veritas_ready_max_lag_blocks",
                "node.ready_max_lag: the largest cursor lag /readyz accepts",
                sc.ready_max_lag,
            ),
        ];
        for (name, help, value) in gauges {
            r.register(name, help, ConstGauge::new(value));
        }
    }

    /// The scrape's label families and its optional or wei-valued gauges.
    fn register_families(&self, r: &mut Registry) {
        let sc = self;
        let stages = Family::<StageLabel, Gauge>::default();
        for (stage, n) in &sc.by_stage {
            stages
                .get_or_create(&StageLabel { stage })
                .set(i64::try_from(*n).unwrap_or(i64::MAX));
        }
        r.register("veritas_questions", "Stored questions by stage", stages);
        let waits = Family::<WaitLabel, Gauge>::default();
        for (wait, n) in &sc.posting_by_wait {
            waits
                .get_or_create(&WaitLabel { wait })
                .set(i64::try_from(*n).unwrap_or(i64::MAX));
        }
        r.register(
            "veritas_questions_posting",
            "Questions in the posting stage by what they wait for: transaction (sent or being sent), stake (free stake short of the report bond), reveal_phase (committed, the reveal phase not open yet), resolve_after (the chain's clock before resolveAfter)",
            waits,
        );
        if let Some(ether) = sc.wallet_balance_ether {
            r.register(
                "veritas_wallet_balance_ether",
                "Operator account balance",
                ConstGauge::new(ether),
            );
        }
        const CREDITS: &str = "veritas_operator_credits_wei";
        const CREDITS_HELP: &str =
            "Unpaid credits of the operator on the oracle (veritas operator withdraw)";
        Wei::register(r, CREDITS, CREDITS_HELP, sc.operator_credits_wei);
        Wei::register(
            r,
            "veritas_operator_free_stake_wei",
            "The operator's stake on the oracle not locked by open reports (veritas operator balance)",
            sc.operator_free_stake_wei,
        );
        Wei::register(
            r,
            "veritas_report_bond_wei",
            "The report bond of the parameter set in force: what each new report locks of the free stake",
            sc.report_bond_wei,
        );
    }
}

/// A page with every metric on it: each optional gauge given a value, each label family one
/// series, each histogram family one stage.
fn every_metric_page() -> String {
    let m = Metrics::default();
    m.observe("resolve", Duration::ZERO);
    let some = Some(Wei::Exact(1));
    let scrape = Scrape {
        by_stage: vec![("queued", 0)],
        posting_by_wait: vec![("transaction", 0)],
        wallet_balance_ether: Some(1.0),
        operator_credits_wei: some,
        operator_free_stake_wei: some,
        report_bond_wei: some,
        ..Scrape::default()
    };
    // Encoding to a String cannot fail.
    m.encode(&scrape).unwrap_or_default()
}

/// The Markdown list of every metric the node exports, from the declarations above: name as
/// scraped, type, labels and help text. The operator guide's metric list is this text (a unit
/// test compares them), so a metric added here and not there fails the build's tests.
pub fn reference_markdown() -> String {
    let mut out =
        String::from("| metric | type | labels | what it counts |\n| --- | --- | --- | --- |\n");
    for MetricRow {
        name,
        kind,
        labels,
        help,
    } in metric_rows(&every_metric_page())
    {
        let scraped = match kind.as_str() {
            "counter" => format!("`{name}_total`"),
            "histogram" => format!("`{name}` (`_bucket`, `_sum`, `_count`)"),
            _ => format!("`{name}`"),
        };
        out.push_str(&format!("| {scraped} | {kind} | {labels} | {help} |\n"));
    }
    out
}

/// One metric of [`reference_markdown`]: its name as declared, type, label names (each in
/// backticks) and help text.
#[derive(Default)]
struct MetricRow {
    name: String,
    kind: String,
    labels: String,
    help: String,
}

/// One row per metric of a scraped page, in the page's order (`# HELP` then `# TYPE`, then
/// the samples); its labels are those of its first labelled sample.
fn metric_rows(page: &str) -> Vec<MetricRow> {
    let mut rows: Vec<MetricRow> = Vec::new();
    for line in page.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, ""));
            row_of(&mut rows, name).kind = kind.to_owned();
        } else if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
            row_of(&mut rows, name).help = help.to_owned();
        } else if let Some((sample, labels)) = labelled_sample(line) {
            // A histogram's samples are `name_bucket`, `name_sum`, `name_count`.
            let base = ["_bucket", "_sum", "_count", "_total"]
                .iter()
                .find_map(|suffix| sample.strip_suffix(suffix))
                .filter(|b| rows.iter().any(|r| r.name == *b))
                .unwrap_or(sample);
            if let Some(row) = rows.iter_mut().find(|r| r.name == base)
                && row.labels.is_empty()
            {
                row.labels = labels;
            }
        }
    }
    rows
}

/// The row of metric `name`, added at the end when it has none yet.
fn row_of<'a>(rows: &'a mut Vec<MetricRow>, name: &str) -> &'a mut MetricRow {
    let i = match rows.iter().position(|r| r.name == name) {
        Some(i) => i,
        None => {
            rows.push(MetricRow {
                name: name.to_owned(),
                ..MetricRow::default()
            });
            rows.len() - 1
        }
    };
    &mut rows[i]
}

/// A sample line with labels (`name{a="x",le="1"} 2`): its name and its label names in
/// backticks, `le` (a histogram bucket's bound) left out.
fn labelled_sample(line: &str) -> Option<(&str, String)> {
    if line.starts_with('#') {
        return None;
    }
    let (sample, rest) = line.split_once('{')?;
    let (labels, _) = rest.split_once('}')?;
    let names = labels
        .split(',')
        .filter_map(|kv| kv.split_once('=').map(|(k, _)| k))
        .filter(|k| *k != "le")
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Some((sample, names))
}

/// What the metrics count of one juror call. The caller maps its ballots to these, so the
/// metrics do not depend on the jury's types.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JurorCall {
    /// The call produced a vote.
    pub voted: bool,
    /// Prompt and completion tokens.
    pub tokens: u64,
    /// Of the prompt tokens, those served from the server's prompt cache.
    pub cached_tokens: u64,
    /// Its cost in US dollars.
    pub cost_usd: f64,
}

/// Read an atomic the watcher counts with (relaxed: a scrape needs no ordering).
pub fn load(a: &AtomicU64) -> u64 {
    a.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// The sample lines of `page` named `name` (labels included), without the value.
    fn value_of<'a>(page: &'a str, sample: &str) -> Option<&'a str> {
        page.lines()
            .find_map(|l| l.strip_prefix(sample)?.strip_prefix(' '))
    }

    #[test]
    fn juror_calls_feed_juror_counters() {
        let m = Metrics::default();
        let calls = [
            JurorCall {
                voted: true,
                tokens: 100 + 20,
                cached_tokens: 60,
                cost_usd: 0.0015,
            },
            JurorCall {
                voted: false,
                tokens: 100,
                cached_tokens: 0,
                cost_usd: 0.001,
            },
            JurorCall {
                voted: true,
                tokens: 7,
                cached_tokens: 0,
                cost_usd: f64::NAN,
            },
        ];
        for call in calls {
            m.record_juror_call(call);
        }
        m.record_question_cost(0.0025);
        m.record_question_cost(f64::NAN);
        m.observe("post", Duration::from_millis(250));
        m.observe("post", Duration::from_millis(750));
        m.record_retry();
        let page = m.encode(&Scrape::default()).unwrap();
        assert_eq!(value_of(&page, "veritas_juror_calls_total"), Some("3"));
        assert_eq!(value_of(&page, "veritas_juror_failures_total"), Some("1"));
        assert_eq!(value_of(&page, "veritas_juror_tokens_total"), Some("227"));
        assert_eq!(
            value_of(&page, "veritas_juror_cached_tokens_total"),
            Some("60")
        );
        assert_eq!(value_of(&page, "veritas_attempts_failed_total"), Some("1"));
        let cost: f64 = value_of(&page, "veritas_juror_cost_usd_total")
            .unwrap()
            .parse()
            .unwrap();
        assert!((cost - 0.0025).abs() < 1e-12, "{cost}");
        assert_eq!(
            value_of(&page, "veritas_question_cost_usd_count"),
            Some("2")
        );
        assert_eq!(
            value_of(&page, "veritas_stage_seconds_count{stage=\"post\"}"),
            Some("2")
        );
        assert_eq!(
            value_of(&page, "veritas_stage_seconds_sum{stage=\"post\"}"),
            Some("1.0")
        );
        assert!(page.ends_with("# EOF\n"), "{page}");
    }

    /// The operator guide's metric list is [`reference_markdown`], between its markers. To
    /// update it after changing a metric: run this test with `VERITAS_BLESS=1`.
    #[test]
    fn the_operator_guide_lists_every_metric() {
        const START: &str = "<!-- metrics: generated from node/src/metrics.rs (metrics::reference_markdown); VERITAS_BLESS=1 cargo test -p veritas-node --lib metrics:: rewrites it -->\n";
        const END: &str = "<!-- /metrics -->";
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src/operator-guide.md");
        let page = std::fs::read_to_string(&path).unwrap();
        let start = page.find(START).expect("the metrics start marker") + START.len();
        let end = start + page[start..].find(END).expect("the metrics end marker");
        let want = reference_markdown();
        if std::env::var("VERITAS_BLESS").is_ok_and(|v| v == "1") {
            std::fs::write(&path, format!("{}{want}{}", &page[..start], &page[end..])).unwrap();
            return;
        }
        assert!(
            page[start..end] == want,
            "the operator guide's metric list differs from node/src/metrics.rs; run \
             VERITAS_BLESS=1 cargo test -p veritas-node --lib metrics:: to rewrite it:\n{want}"
        );
        for name in [
            "veritas_rejected_log_pages_total",
            "veritas_incomplete_log_pages_total",
            "veritas_questions_rejected_total",
            "veritas_juror_cached_tokens_total",
            "veritas_ready",
            "veritas_operator_free_stake_wei",
        ] {
            assert!(
                want.contains(&format!("`{name}`")),
                "{name} not listed:\n{want}"
            );
        }
    }

    /// Every `veritas_*` name the Grafana dashboard queries is a sample name of a page that
    /// holds every declared metric.
    #[test]
    fn the_dashboard_queries_only_declared_metrics() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ops/grafana/veritas.json");
        let dashboard = std::fs::read_to_string(&path).unwrap();
        let _: serde_json::Value = serde_json::from_str(&dashboard).unwrap();
        let page = every_metric_page();
        let exported: std::collections::BTreeSet<&str> = page
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split(['{', ' ']).next())
            .collect();
        let mut queried = std::collections::BTreeSet::new();
        let mut rest = dashboard.as_str();
        while let Some(at) = rest.find("veritas_") {
            let tail = &rest[at..];
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            queried.insert(&tail[..end]);
            rest = &tail[end..];
        }
        assert!(queried.len() >= 20, "too few metrics found: {queried:?}");
        let unknown: Vec<&&str> = queried.iter().filter(|q| !exported.contains(**q)).collect();
        assert!(
            unknown.is_empty(),
            "ops/grafana/veritas.json queries metrics node/src/metrics.rs does not declare: {unknown:?}"
        );
    }

    #[test]
    fn readiness_waits_and_stake_are_exported() {
        let scrape = Scrape {
            posting_by_wait: vec![("transaction", 1), ("stake", 2), ("reveal_phase", 0)],
            rpc_up: true,
            ready: false,
            ready_max_lag: 64,
            operator_free_stake_wei: Some(Wei::Exact(5)),
            report_bond_wei: Some(Wei::Exact(3)),
            ..Scrape::default()
        };
        let page = Metrics::default().encode(&scrape).unwrap();
        assert_eq!(value_of(&page, "veritas_rpc_up"), Some("1"));
        assert_eq!(value_of(&page, "veritas_ready"), Some("0"));
        assert_eq!(value_of(&page, "veritas_ready_max_lag_blocks"), Some("64"));
        assert_eq!(
            value_of(&page, "veritas_questions_posting{wait=\"stake\"}"),
            Some("2")
        );
        assert_eq!(
            value_of(&page, "veritas_operator_free_stake_wei"),
            Some("5")
        );
        assert_eq!(value_of(&page, "veritas_report_bond_wei"), Some("3"));
        let page = Metrics::default().encode(&Scrape::default()).unwrap();
        assert!(!page.contains("veritas_operator_free_stake_wei"));
    }

    #[test]
    fn scrape_values_are_exported_under_their_names() {
        let scrape = Scrape {
            questions_seen: 5,
            by_stage: vec![("queued", 1), ("failed", 2)],
            failed: 2,
            incomplete_log_pages: 1,
            wallet_balance_ether: Some(9.5),
            operator_credits_wei: Some(Wei::Exact(10_000_000_000_000_000)),
            ..Scrape::default()
        };
        let page = Metrics::default().encode(&scrape).unwrap();
        assert_eq!(value_of(&page, "veritas_questions_seen_total"), Some("5"));
        assert_eq!(
            value_of(&page, "veritas_questions{stage=\"failed\"}"),
            Some("2")
        );
        assert_eq!(
            value_of(&page, "veritas_questions{stage=\"queued\"}"),
            Some("1")
        );
        assert_eq!(value_of(&page, "veritas_questions_failed_total"), Some("2"));
        assert_eq!(
            value_of(&page, "veritas_incomplete_log_pages_total"),
            Some("1")
        );
        assert_eq!(value_of(&page, "veritas_wallet_balance_ether"), Some("9.5"));
        assert_eq!(
            value_of(&page, "veritas_operator_credits_wei"),
            Some("10000000000000000")
        );
        // Help texts end in one period (the encoder adds it).
        assert!(
            page.contains("# HELP veritas_rpc_errors Watcher polls that failed.\n"),
            "{page}"
        );
        // Without an answer from the RPC, no balance and no credits rather than a made-up 0.
        let page = Metrics::default().encode(&Scrape::default()).unwrap();
        assert!(!page.contains("veritas_wallet_balance_ether"));
        assert!(!page.contains("veritas_operator_credits_wei"));
    }
}
