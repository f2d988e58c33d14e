//! End to end: the independent Python checker (`tests/spec/check.py`, standard library
//! only) rebuilds thousands of random ballot sets and bundles from the book's auditor specification (statistics, commitment) and
//! compares them with the `veritas stats` / `veritas commit` binary; then the proof
//! commands are exercised through the binary.

#![allow(clippy::expect_used)]

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_veritas");

fn repo_root() -> &'static Path {
    // CARGO_MANIFEST_DIR is node/; the checker lives in the repository's tests/spec/.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new(".."))
}

#[test]
fn python_spec_checker_agrees() {
    let script = repo_root().join("tests/spec/check.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(["--bin", BIN, "--n", "2000"])
        .output()
        .expect("python3 must be installed to run the spec checker");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "spec checker failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("0 failures"), "{stdout}");
}

fn run(args: &[&str], stdin: &[u8]) -> (bool, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn veritas");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn prove_and_verify_through_the_binary() {
    let dir = std::env::temp_dir().join(format!("veritas-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bundle = dir.join("bundle.json");
    std::fs::write(
        &bundle,
        r#"{"question": "Q?", "evidence": [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}]}"#,
    )
    .expect("write bundle");
    let (_, commit_out, _) = run(&["commit", bundle.to_str().expect("utf-8 path")], b"");
    let root: serde_json::Value = serde_json::from_str(&commit_out).expect("commit output");
    for index in 0..5 {
        let (ok, proof, err) = run(
            &[
                "prove",
                bundle.to_str().expect("utf-8 path"),
                &index.to_string(),
            ],
            b"",
        );
        assert!(ok, "{err}");
        let doc: serde_json::Value = serde_json::from_str(&proof).expect("proof json");
        assert_eq!(doc["root"], root["root"]);
        let (ok, verdict, err) = run(&["verify-proof", "-"], proof.as_bytes());
        assert!(
            ok && verdict.trim() == r#"{"valid":true}"#,
            "{verdict} {err}"
        );
        let tampered = proof.replacen(
            &format!("\"index\":{index}"),
            &format!("\"index\":{}", (index + 1) % 5),
            1,
        );
        let (ok, verdict, _) = run(&["verify-proof"], tampered.as_bytes());
        assert!(!ok && verdict.trim() == r#"{"valid":false}"#);
    }
    let (ok, out, err) = run(&["prove", bundle.to_str().expect("utf-8 path"), "5"], b"");
    assert!(
        !ok && out.is_empty() && err.contains("out of range"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn monte_carlo_cross_check_agrees_with_exact_intervals() {
    // Sets of ≥ 30 ballots, where 0.01 is over 5 standard errors of a 10,000-sample
    // quantile (see stats::interval's tests for small sets).
    let lines: String = [(10, 6, 11), (0, 1, 29), (20, 20, 20), (45, 3, 0)]
        .iter()
        .map(|&(y, n, z)| {
            let votes = std::iter::repeat_n("YES", y)
                .chain(std::iter::repeat_n("NO", n))
                .chain(std::iter::repeat_n("NULL", z));
            let ballots: Vec<_> = votes
                .enumerate()
                .map(|(i, v)| serde_json::json!({"iteration": i / 3 + 1, "model": "m", "archetype": "a", "vote": v}))
                .collect();
            serde_json::to_string(&ballots).expect("json") + "\n"
        })
        .collect();
    let (ok, out, err) = run(
        &["stats", "--monte-carlo", "10000", "--seed", "7"],
        lines.as_bytes(),
    );
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 4);
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("output json");
        for k in 0..3 {
            for side in 0..2 {
                let exact = v["ci95"][k][side].as_f64().expect("ci95");
                let mc = v["ci95_mc"][k][side].as_f64().expect("ci95_mc");
                assert!((exact - mc).abs() < 0.01, "{line}");
            }
        }
    }
}
