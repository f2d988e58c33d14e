//! `veritas stats` input: one JSON array of ballots per line. Every line gives a summary
//! whose numbers are consistent with each other, or an error naming the field; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use veritas_core::lines::stats::stats_line;
use veritas_core::stats::{BallotRecord, Summary, WAD, summarize};

fn check_summary(s: &Summary) {
    let n = s.counts.as_array();
    assert_eq!(s.ballots, s.valid + s.failed);
    assert_eq!(n.iter().sum::<u64>(), s.valid);
    // The posted fixed-point posterior sums to exactly 10^18; the float one to ~1.
    assert_eq!(
        s.p_fixed.iter().sum::<u128>(),
        WAD,
        "p_fixed {:?}",
        s.p_fixed
    );
    assert!(
        s.posterior
            .iter()
            .all(|p| p.is_finite() && *p > 0.0 && *p < 1.0)
    );
    assert!((s.posterior.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    for (k, [lo, hi]) in s.ci95.iter().enumerate() {
        assert!(
            0.0 <= *lo && lo <= hi && *hi <= 1.0,
            "ci95[{k}] = [{lo}, {hi}]"
        );
        // The posterior mean lies in its own 95% interval.
        assert!(*lo <= s.posterior[k] + 1e-12 && s.posterior[k] <= *hi + 1e-12);
    }
    if let Some(k) = s.kappa {
        assert!(k.is_finite() && k <= 1.0 + 1e-12, "kappa {k}");
    } else {
        assert_eq!(s.kappa_fixed, 0);
    }
    assert!(s.n_eff.is_finite() && s.n_eff >= 0.0 && s.n_eff <= s.valid as f64 + 1e-9);
    assert!(s.entropy_bits.is_finite() && s.entropy_bits >= 0.0);
    assert!(s.entropy_bits <= 3f64.log2() + 1e-12);
}

/// The gates' self-test (`scripts/test-gates.sh`) proves that a crashing input fails
/// `make test-fuzz`: with `VERITAS_GATE_CANARY` set, this one input panics on purpose.
/// Unarmed (every real run), it is an ordinary non-JSON line.
fn gate_canary(data: &[u8]) {
    static ARMED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let armed = *ARMED.get_or_init(|| std::env::var_os("VERITAS_GATE_CANARY").is_some());
    assert!(
        !(armed && data == b"VERITAS_GATE_CANARY"),
        "gate canary: a crashing input, on purpose"
    );
}

fuzz_target!(|data: &[u8]| {
    gate_canary(data);
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let result = stats_line(line);
    assert_eq!(stats_line(line), result, "not deterministic");
    match result {
        Ok(out) => {
            let printed: Summary =
                serde_json::from_str(&out).unwrap_or_else(|e| panic!("output {out}: {e}"));
            check_summary(&printed);
            // The borrowed fast path and the owned records (reports, the daemon) agree.
            let owned: Vec<BallotRecord> = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stats read it, BallotRecord cannot: {e}"));
            assert_eq!(summarize(&owned), printed, "printed summary differs");
        }
        Err(e) => {
            // The message names the problem, not the generic fallback of `parse_line`.
            assert!(!e.message.trim().is_empty());
            assert_ne!(e.message, "invalid input", "unexplained error");
        }
    }
});
