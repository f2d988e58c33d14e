//! Routing guards end to end (issue 14): real prediction-market questions asked against a
//! corpus that says nothing about them — the demo corpus (Calderwick bike lanes, a ferry, a
//! festival) — through the real `veritas resolve` binary: fallback planner, local BM25 corpus,
//! bundle rules, the one embedded juror (gemma-3-270m GGUF) and routing. A small model agrees
//! with itself about anything, so the votes may look decisive; no question may auto-resolve,
//! and each must say why.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a panic is the report
#![cfg(feature = "llama")]

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn resolve(question: &str, out: &Path) -> Value {
    let out_arg = out.to_str().unwrap();
    let (code, stdout, stderr) = support::veritas(
        &[
            "resolve",
            question,
            "--corpus",
            "corpus/demo",
            "--resolve-after",
            "2026-06-01T00:00:00Z",
            "--out",
            out_arg,
        ],
        &repo(),
    );
    assert_eq!(
        code, 0,
        "veritas resolve failed for {question:?}:\n{stdout}\n{stderr}"
    );
    println!("{stdout}");
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

#[test]
fn one_embedded_model_and_irrelevant_evidence_never_auto_resolve() {
    let dir = tempfile::tempdir().unwrap();
    // (question, is it a yes/no question?)
    let markets = [
        ("Who will win UFC 310: Pantoja vs Asakura?", false),
        (
            "Will Bitcoin close above $100,000 on 31 December 2025?",
            true,
        ),
        ("Will the Kansas City Chiefs win Super Bowl LIX?", true),
        (
            "How many seats will Labour win at the next UK general election?",
            false,
        ),
    ];
    for (i, (question, yes_no)) in markets.iter().enumerate() {
        let report = resolve(question, &dir.path().join(format!("{i}.json")));
        let routing = &report["routing"];
        let reasons: Vec<&str> = routing["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(routing["decision"], "escalate", "{question}: {reasons:?}");
        assert!(
            reasons
                .iter()
                .any(|r| r.starts_with("no relevant evidence")),
            "{question}: {reasons:?}"
        );
        assert_eq!(
            reasons
                .iter()
                .any(|r| r.starts_with("not a yes/no question")),
            !yes_no,
            "{question}: {reasons:?}"
        );
        // One model: its agreeing ballots are one judgement, and the report says so.
        let n_eff = report["stats"]["n_eff"].as_f64().unwrap();
        let effective = routing["effective"]["n_eff"].as_f64().unwrap();
        assert!((n_eff - effective).abs() < 1e-9);
        assert!(
            n_eff < report["stats"]["valid"].as_f64().unwrap() || n_eff <= 1.0,
            "{question}: one model, n_eff {n_eff}"
        );
        // The committed bundle is what the relevance floor read.
        assert_eq!(
            routing["relevance"]["items"].as_array().unwrap().len(),
            report["evidence"].as_array().unwrap().len()
        );
    }
}

/// `veritas eval --out F` draws its two pictures next to the lines, and `--replot F` draws them
/// again from the lines alone (three made-up claims in the CLIMATE-FEVER format; a replay juror
/// so it takes a second).
#[test]
fn eval_writes_its_pictures_and_replots_them() {
    let dir = tempfile::tempdir().unwrap();
    let evidences = |topic: &str| -> Value {
        (0..5)
            .map(|i| {
                serde_json::json!({"evidence_id": format!("{topic}:{i}"), "article": topic,
                    "evidence": format!("A sentence about {topic}, number {i}.")})
            })
            .collect()
    };
    let claims = [
        ("Sea ice is shrinking.", "SUPPORTS", "Sea ice"),
        ("The sun orbits the earth.", "REFUTES", "Orbit"),
        (
            "Glaciers are growing everywhere.",
            "NOT_ENOUGH_INFO",
            "Glacier",
        ),
    ];
    let lines: Vec<String> = claims
        .iter()
        .enumerate()
        .map(|(i, (claim, label, topic))| {
            serde_json::json!({"claim_id": i.to_string(), "claim": claim, "claim_label": label,
                "evidences": evidences(topic)})
            .to_string()
        })
        .collect();
    let data = dir.path().join("claims.jsonl");
    std::fs::write(&data, lines.join("\n")).unwrap();
    let config = dir.path().join("veritas.toml");
    std::fs::write(
        &config,
        "[[jury.jurors]]\nkind = \"replay\"\nvote = \"YES\"\n",
    )
    .unwrap();
    let out = dir.path().join("eval.jsonl");
    let run = |args: &[&str]| {
        let (code, _, stderr) = support::veritas(args, &repo());
        assert_eq!(code, 0, "{stderr}");
    };
    run(&[
        "eval",
        data.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let pictures = [
        dir.path().join("eval.jsonl.coverage.svg"),
        dir.path().join("eval.jsonl.reliability.svg"),
    ];
    for picture in &pictures {
        let svg = std::fs::read_to_string(picture).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("<polyline"),
            "{svg}"
        );
        std::fs::remove_file(picture).unwrap();
    }
    let coverage_notes = "3 claims; a point is the accuracy of the k surest";
    run(&["eval", "--replot", out.to_str().unwrap()]);
    let svg = std::fs::read_to_string(&pictures[0]).unwrap();
    assert!(svg.contains(coverage_notes), "{svg}");
    assert!(
        std::fs::read_to_string(&pictures[1])
            .unwrap()
            .contains("Expected calibration error")
    );
}
