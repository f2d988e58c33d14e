#!/usr/bin/env bash
# The gates' self-test (part of `make test`): every check must be able to fail. For each gate
# it breaks the guarded thing on purpose and expects the gate's own `make` target to exit
# non-zero, then (for the forge gates) shows the untouched copy passing:
#
#   1. a failing forge test            -> make test-forge   (scratch copy + Zz.t.sol)
#   2. a failing invariant             -> make test-forge   (scratch copy + ZzInvariant.t.sol)
#   3. a wrong .gas-snapshot line      -> make test-forge   (scratch copy, one number edited)
#   4. a failing cargo test            -> make test-rust    (the armed `gate_canary` test)
#   5. a crashing fuzz input           -> make test-fuzz    (the armed canary input of `stats`)
#   6. a link to a missing page        -> book.py check-links   (scratch copy of book/book)
#   7. a link to a missing #anchor     -> book.py check-links   (scratch copy of book/book)
#   8. a worked example's output off   -> book.py run-examples  (scratch copy of book/src)
#   9. an alert rule's threshold moved -> scripts/test-ops.sh   (scratch copy: promtool test rules)
#  10. a misspelt systemd directive    -> scripts/test-ops.sh   (scratch copy: systemd-analyze verify)
#  11. a metric the node does not export named by the rules
#                                      -> make test-rust    (the armed alert_metrics test)
#  12. a file setup left in the tree   -> clean-tree.sh check   (scratch clone, CI=true)
#  13. one rule moved in contract::roles (evidence closes a day late)
#                                      -> make test-rust twice: the CLI's refusal test and the
#                                         web view's browser test (CI=true, chromium) both red
#  14. a failing cargo test            -> make test-suites  (`make test`'s path: the armed
#                                         `gate_canary` test, the fuzz build beside it)
#
# The forge gates run in a scratch copy of the contracts (the repository is never edited);
# the Rust and fuzz gates reuse the built test and fuzz binaries: a canary test and a canary
# fuzz input, armed only by VERITAS_GATE_CANARY, so no rebuild is needed (seconds, not
# minutes). Needs `make setup`; run after `make test-rust` and `make test-fuzz` have built.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scratch=$(mktemp -d "${TMPDIR:-/tmp}/veritas-gates.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
log=$scratch/log
failures=0
start=$(date +%s)

# expect_fail NAME PATTERN CMD...: CMD must exit non-zero, and for the intended reason: its
# output must match PATTERN (a compile error or a missing tool must not pass for the gate).
expect_fail() {
    local name=$1 pattern=$2
    shift 2
    local t0 status=0
    t0=$(date +%s)
    "$@" >"$log" 2>&1 || status=$?
    if ((status == 0)); then
        echo "gates: FAIL: $name: the gate passed although the check was broken" >&2
        tail -n 20 "$log" >&2
        failures=$((failures + 1))
    elif ! grep -qE "$pattern" "$log"; then
        echo "gates: FAIL: $name: exit $status, but not for the planted reason (/$pattern/)" >&2
        tail -n 30 "$log" >&2
        failures=$((failures + 1))
    else
        echo "gates: ok: $name -> exit $status ($(($(date +%s) - t0)) s)"
    fi
}

# expect_pass NAME CMD...: CMD must exit zero (the same gate, nothing broken).
expect_pass() {
    local name=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "gates: FAIL: $name: the unbroken copy does not pass" >&2
        tail -n 40 "$log" >&2
        failures=$((failures + 1))
    else
        echo "gates: ok: $name passes unbroken"
    fi
}

# --- forge gates: a scratch copy of the Foundry project, sharing the installed tools --------
copy=$scratch/repo
mkdir -p "$copy"
cp -a Makefile foundry.toml .gas-snapshot contracts script "$copy"/
# `make test-forge` runs `make setup`, which includes the web view's wallet bundle: its sources
# and the bundle setup built, so the copy finds it up to date.
mkdir -p "$copy/node/web" && cp -a node/web/wallet node/web/dist "$copy/node/web/"
# `make test-forge` starts with the code sizes (scripts/contract-sizes.sh) and ends with the
# receipts' gas figures (scripts/gas-anvil.sh).
mkdir -p "$copy/scripts" && cp -a scripts/contract-sizes.sh scripts/gas-anvil.sh "$copy/scripts/"
mkdir -p "$copy/deployments"
# Compiled artifacts and the compiler cache, when present, so forge recompiles only what changed.
for d in out cache; do [[ -d $d ]] && cp -a "$d" "$copy"/; done
# The installed tools by symlink, but the Solidity libraries as real files (1 MB): forge
# resolves symlinks, and library sources outside the copy would miss the copied compiler cache
# and rebuild every contract (minutes with via_ir).
mkdir -p "$copy/tools/node_modules"
for entry in "$root"/tools/* "$root"/tools/.stamp-*; do
    [[ $(basename "$entry") == node_modules ]] || ln -s "$entry" "$copy/tools/"
done
# The launcher directory (.bin) is left out on purpose: a recipe that still used a launcher
# would fail here.
for entry in "$root"/tools/node_modules/*; do
    [[ $(basename "$entry") == @layerzerolabs ]] || ln -s "$entry" "$copy/tools/node_modules/"
done
cp -a "$root/tools/node_modules/@layerzerolabs" "$copy/tools/node_modules/"
forge_gate() { make -C "$copy" --no-print-directory test-forge "$@"; }

cat >"$copy/contracts/test/Zz.t.sol" <<'SOL'
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A test that fails on purpose (gates self-test).
contract ZzGateTest {
    function test_GateFailsOnPurpose() public pure {
        require(false, "gate: failing on purpose");
    }
}
SOL
expect_fail "failing forge test -> make test-forge" "gate: failing on purpose" forge_gate FORGE_ARGS="--match-contract ZzGateTest"
rm "$copy/contracts/test/Zz.t.sol"

cat >"$copy/contracts/test/ZzInvariant.t.sol" <<'SOL'
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";

contract ZzCounter {
    uint256 public count;

    function bump() external {
        count += 1;
    }
}

/// An invariant that breaks on purpose: the fuzzer calls `bump`, the invariant says it never did.
contract ZzGateInvariantTest is Test {
    ZzCounter internal counter;

    function setUp() public {
        counter = new ZzCounter();
        targetContract(address(counter));
    }

    function invariant_GateNeverBumped() public view {
        assertEq(counter.count(), 0, "gate: invariant broken on purpose");
    }
}
SOL
expect_fail "failing invariant -> make test-forge" "gate: invariant broken on purpose" forge_gate FORGE_ARGS="--match-contract ZzGateInvariantTest"
rm "$copy/contracts/test/ZzInvariant.t.sol"

# One deterministic test's recorded gas, off by one. First the same contract untouched: the
# copy passes its forge tests and its snapshot check.
line=$(grep -m1 -E '^[A-Za-z0-9_]+Test:test_[A-Za-z0-9_]+\(\) \(gas: [0-9]+\)$' "$copy/.gas-snapshot")
contract=${line%%:*}
expect_pass "make test-forge on $contract (scratch copy)" forge_gate FORGE_ARGS="--match-contract $contract"
gas=$(grep -o 'gas: [0-9]*' <<<"$line" | grep -o '[0-9]*')
wrong=${line/"gas: $gas"/"gas: $((gas + 1))"}
awk -v old="$line" -v new="$wrong" '$0 == old { $0 = new } { print }' "$copy/.gas-snapshot" \
    >"$scratch/snapshot" && mv "$scratch/snapshot" "$copy/.gas-snapshot"
grep -qxF "$wrong" "$copy/.gas-snapshot" || { echo "gates: could not edit the snapshot line" >&2; exit 1; }
expect_fail "wrong .gas-snapshot line ($contract) -> make test-forge" "Diff in \"$contract::" forge_gate FORGE_ARGS="--match-contract $contract"

# --- Rust and fuzz gates: armed canaries in the real suite ----------------------------------
export VERITAS_GATE_CANARY=armed
expect_fail "failing cargo test -> make test-rust" "gate canary: failing on purpose" \
    make --no-print-directory test-rust TEST_FILTER="gate_canary::gate_canary --exact"
# `make test` runs the suites through test-suites (the fuzz build beside them), not test-rust:
# its path must go red too, and stop the build.
expect_fail "failing cargo test -> make test-suites" "gate canary: failing on purpose" \
    make --no-print-directory test-suites
corpus=$scratch/fuzz-corpus
mkdir -p "$corpus/stats"
printf 'VERITAS_GATE_CANARY' >"$corpus/stats/canary"
expect_fail "crashing fuzz input -> make test-fuzz" "gate canary: a crashing input, on purpose" \
    make --no-print-directory test-fuzz FUZZ_TARGETS=stats FUZZ_SECONDS=5 FUZZ_SCRATCH="$corpus"
# The crash artifact libFuzzer wrote for the canary is not a finding: remove it.
rm -f "$root/fuzz/artifacts/stats/crash-$(printf 'VERITAS_GATE_CANARY' | sha1sum | cut -d' ' -f1)"
expect_fail "alert rule naming an unexported metric -> make test-rust" "veritas_gate_canary_not_exported" \
    make --no-print-directory test-rust TEST_FILTER="every_metric_the_alert_rules_name_is_exported_by_a_running_node"
# One rule, two tools: `VERITAS_GATE_CANARY=rules` moves one rule of `contract::roles` in the
# debug build the tests run (evidence closes a day after the contract closes it). The CLI and
# the web view's check endpoint both run that code, so the CLI's test (its local check no
# longer refuses late evidence: the simulation does) and the browser test (the page's review of
# late evidence is no longer refused) must both go red on it.
export VERITAS_GATE_CANARY=rules
expect_fail "one rule moved -> the CLI's refusal test" "submitEvidence would revert: VeritasEvidenceClosed" \
    make --no-print-directory test-rust \
    TEST_FILTER="roles_cli::a_refused_action_says_the_contracts_sentence_and_sends_nothing --exact"
expect_fail "one rule moved -> the web view's browser test" "late evidence: not refused" \
    env CI=true make --no-print-directory test-rust \
    TEST_FILTER="web_wallet::a_wallet_submits_evidence_disputes_and_sees_the_ruling_from_the_web_view --exact"
unset VERITAS_GATE_CANARY
expect_pass "make test-rust (canary unarmed)" \
    make --no-print-directory test-rust TEST_FILTER="gate_canary::gate_canary --exact"

# --- the book, the operator kit and the clean tree: scratch copies -------------------------
# The book as `make test-docs` built it (book/book), one page given a dead link, then a dead
# anchor; the book's sources with one digit of a worked example's output changed.
html=$scratch/book-html
cp -a book/book "$html"
echo '<a href="no-such-chapter.html">gate</a>' >>"$html/reliability.html"
expect_fail "link to a missing page -> book.py check-links" "broken link 'no-such-chapter.html'" \
    python3 scripts/book.py check-links "$html"
rm -rf "$html" && cp -a book/book "$html"
echo '<a href="auditor-guide.html#no-such-heading">gate</a>' >>"$html/reliability.html"
expect_fail "link to a missing anchor -> book.py check-links" "broken anchor 'auditor-guide.html#no-such-heading'" \
    python3 scripts/book.py check-links "$html"
src=$scratch/book-src
cp -a book/src "$src"
sed -i 's/"n_eff":3.5294117647058822,"entropy_bits":1.5}$/"n_eff":3.5294117647058822,"entropy_bits":1.6}/' "$src/auditor-specification.md"
grep -q '"entropy_bits":1.6}$' "$src/auditor-specification.md" || { echo "gates: could not edit the worked example" >&2; exit 1; }
expect_fail "worked example's output changed -> book.py run-examples" "FAIL .*auditor-specification.md" \
    python3 scripts/book.py run-examples "$src" "${CARGO_TARGET_DIR:-$root/target}/debug/veritas"
# The alert rules with VeritasNotReady's condition inverted (it would fire on a ready node and
# never on an unready one): its unit test must catch it. The unit with a misspelt directive:
# verify's warning must fail the check.
ops=$scratch/ops
mkdir -p "$ops"
cp ops/prometheus/alerts.yml ops/prometheus/alerts.test.yml ops/systemd/veritas.service "$ops"/
sed -i 's/expr: veritas_ready == 0$/expr: veritas_ready == 1/' "$ops/alerts.yml"
grep -q 'expr: veritas_ready == 1$' "$ops/alerts.yml" || { echo "gates: could not edit the rule" >&2; exit 1; }
expect_fail "alert rule threshold moved -> promtool test rules" "alertname: VeritasNotReady" \
    env PROMTOOL="$root/tools/prometheus/usr/bin/promtool" RULES="$ops/alerts.yml" RULE_TESTS="$ops/alerts.test.yml" scripts/test-ops.sh
sed -i 's/^NoNewPrivileges=yes$/NoNewPrivilegs=yes/' "$ops/veritas.service"
expect_fail "misspelt systemd directive -> systemd-analyze verify" "Unknown key 'NoNewPrivilegs'" \
    env PROMTOOL="$root/tools/prometheus/usr/bin/promtool" UNIT="$ops/veritas.service" scripts/test-ops.sh
# A fresh clone (as CI's) where something wrote a file git does not ignore.
clone=$scratch/clone
git clone --quiet "$root" "$clone"
echo gate >"$clone/tools/stray-file"
expect_fail "a file left in the tree -> clean-tree.sh check" "tools/stray-file" \
    env CI=true "$clone/scripts/clean-tree.sh" check

echo "gates: $((14 - failures)) of 14 gates fail when broken; $(($(date +%s) - start)) s"
((failures == 0))
