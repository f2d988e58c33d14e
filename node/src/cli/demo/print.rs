//! What `veritas demo` prints: one question's verdict as a person reads it, and a pooled
//! question's reports, pooled verdict and audits.

use alloy::primitives::{Address, U256};
use serde_json::Value;

use super::DemoNode;
use anyhow::bail;

use crate::{audit, chain, contract, daemon::jobs::report_path};

/// One question settled by several nodes: each node's report (audited against itself and
/// against its `ReportSubmitted` event), then the pooled verdict rebuilt from the reports the
/// contract took (`audit::pooled`, the code of `veritas audit --question`) and compared with
/// `getVerdict` and `VerdictPosted`. Returns whether every check passed.
pub(super) async fn print_pooled(
    id: U256,
    question: &str,
    nodes: &[DemoNode],
    provider: &chain::ChainProvider,
    oracle: Address,
) -> anyhow::Result<bool> {
    use crate::audit::pooled;
    let view = contract::reader::question_view(provider, oracle, id, 0).await?;
    let claims: Vec<pooled::ReportClaim> = view.reports.iter().map(|r| r.claim()).collect();
    let mut problems: Vec<audit::Mismatch> = Vec::new();
    println!("\n#{id} {question}");
    for (i, node) in nodes.iter().enumerate() {
        problems.extend(print_node_report(i, node, id, &claims)?);
    }
    let Some(pooled) = pooled::pool(&claims, u64::from(view.parameters.quorum)) else {
        bail!("question {id} has a verdict but no report on-chain");
    };
    problems.extend(pooled_against_chain(&pooled, &view));
    print_pooled_line(&pooled, &view.status);
    if problems.is_empty() {
        println!(
            "  audit OK: every report rebuilds from its file and matches its event; the pooled \
             triple, kappa, roots digest and status are the chain's"
        );
    } else {
        println!("  audit FAILED");
        for p in &problems {
            println!("    MISMATCH {p}");
        }
    }
    println!("  web {}/#/q/{id}", nodes[0].web);
    Ok(problems.is_empty())
}

/// The pooled verdict rebuilt from the reports against what the chain holds: `getVerdict`,
/// the `VerdictPosted` event and the status.
fn pooled_against_chain(
    pooled: &crate::audit::pooled::Pooled,
    view: &contract::reader::QuestionView,
) -> Vec<audit::Mismatch> {
    use crate::audit::pooled::{self, failures};
    let mut problems = Vec::new();
    // The court's triple (or a default's unresolvable one) replaces the pooled one.
    let arbitrated = matches!(view.status.as_str(), "Arbitrated" | "Defaulted");
    if let Some(v) = &view.verdict {
        problems.extend(failures(&pooled::compare_with_chain(
            "chain.getVerdict",
            pooled,
            &v.verdict(),
            !arbitrated,
        )));
    }
    if let Some(posted) = &view.posted {
        problems.extend(failures(&pooled::compare_with_chain(
            "chain.VerdictPosted",
            pooled,
            &posted.verdict(),
            true,
        )));
    }
    if !pooled::status_consistent(pooled, &view.status, view.dispute.is_some()) {
        problems.push(audit::Mismatch {
            field: "chain.verdictStatus".into(),
            expected: if pooled.escalated {
                "Escalated"
            } else {
                "Resolved"
            }
            .into(),
            found: view.status.clone(),
        });
    }
    problems
}

/// The pooled verdict on one line: shares, reports, counts, the lowest kappa, and why it
/// escalated.
fn print_pooled_line(pooled: &crate::audit::pooled::Pooled, status: &str) {
    let share = |k: usize| crate::stats::format_percent(pooled.p_fixed[k], 1);
    let counts: Vec<String> = pooled.counts.iter().map(u64::to_string).collect();
    let why: Vec<String> = pooled.reasons.iter().map(ToString::to_string).collect();
    println!(
        "  pooled on-chain: {} — YES {} NO {} NULL {} from {} reports (counts {}), \
         kappa {} (the lowest){}",
        status,
        share(0),
        share(1),
        share(2),
        pooled.reports,
        counts.join("/"),
        crate::stats::format_wad(pooled.kappa, 2),
        if why.is_empty() {
            String::new()
        } else {
            format!("; escalated: {}", why.join(", "))
        }
    );
}

/// Node `i`'s report of question `id`, audited against itself and, when the contract pooled
/// it, against its `ReportSubmitted` event (among `claims`), on one line; returns the mismatches.
fn print_node_report(
    i: usize,
    node: &DemoNode,
    id: U256,
    claims: &[crate::audit::pooled::ReportClaim],
) -> anyhow::Result<Vec<audit::Mismatch>> {
    use crate::audit::pooled::{self, failures};
    let path = report_path(&node.reports, id);
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!(
            "  node {} {}: no report (the quorum was reached before its committee ran)",
            i + 1,
            short(node.operator)
        );
        return Ok(Vec::new());
    };
    let report: Value = serde_json::from_str(&text)?;
    let typed = audit::AuditReport::from_json(&report)
        .map_err(|m| anyhow::anyhow!("{}: {m}", path.display()))?;
    let rec = audit::recompute(&typed)?;
    let mut problems = audit::compare_with_report(&rec, &typed);
    let label = format!("node {}", i + 1);
    let pooled_here = match claims.iter().find(|c| c.operator == node.operator) {
        Some(claim) => {
            let bad = failures(&pooled::compare_report_with_event(&label, &rec, claim));
            let note = if bad.is_empty() {
                "pooled, event matches"
            } else {
                "pooled, event DIFFERS"
            };
            problems.extend(bad);
            note
        }
        None => "not pooled (the quorum was reached first)",
    };
    let p = &report["stats"]["posterior"];
    let pct = |k: usize| {
        p[k].as_f64()
            .map_or("?".to_owned(), |v| format!("{:.1}%", 100.0 * v))
    };
    let counts: Vec<String> = rec.counts.iter().map(u64::to_string).collect();
    println!(
        "  {label} {}: YES {} NO {} NULL {} — {} valid ballots [{}], routing {}; {pooled_here}",
        short(node.operator),
        pct(0),
        pct(1),
        pct(2),
        rec.valid_ballots,
        counts.join("/"),
        report["routing"]["decision"].as_str().unwrap_or("?"),
    );
    Ok(problems)
}

/// An address shortened for display.
fn short(a: Address) -> String {
    let s = a.to_checksum(None);
    format!("{}…{}", &s[..6], &s[s.len() - 4..])
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
pub(super) fn print_block(
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
