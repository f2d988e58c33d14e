#!/usr/bin/env bash
# The operator kit's checks (`make test-ops`, part of `make test`):
#   1. ops/prometheus/alerts.yml is valid (promtool check rules) and its unit tests pass
#      (promtool test rules alerts.test.yml); promtool is Debian's, unpacked into tools/ by
#      `make setup`. Which metrics the rules may name is tests/it/alert_metrics.rs's job.
#   2. ops/systemd/veritas.service passes `systemd-analyze verify` with no warning at all (it
#      exits 0 on an unknown or misspelt directive, so any output fails here) and its exposure
#      score stays at most 2.0 (`systemd-analyze security --offline`), so a hardening line
#      dropped by mistake fails. Checked on a copy whose ExecStart names an executable that
#      exists here (verify refuses a missing one); nothing else differs.
# Without systemd-analyze the unit check is skipped loudly, and fails with CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
PROMTOOL=${PROMTOOL:-tools/prometheus/usr/bin/promtool}
RULES=${RULES:-ops/prometheus/alerts.yml}
RULE_TESTS=${RULE_TESTS:-ops/prometheus/alerts.test.yml}
UNIT=${UNIT:-ops/systemd/veritas.service}
EXPOSURE_MAX=${EXPOSURE_MAX:-20}

"$PROMTOOL" check rules "$RULES"
"$PROMTOOL" test rules "$RULE_TESTS"

if ! command -v systemd-analyze >/dev/null; then
    [[ ${CI:-} == true ]] && { echo "test-ops: CI=true and no systemd-analyze (Debian's systemd package)" >&2; exit 1; }
    echo "*** test-ops: SKIPPED the systemd unit check: systemd-analyze not found ***"
    exit 0
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/veritas-unit.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
sed "s#/usr/local/bin/veritas#$(command -v true)#g" "$UNIT" >"$scratch/veritas.service"
out=$(systemd-analyze verify "$scratch/veritas.service" 2>&1) || { echo "$out" >&2; exit 1; }
if [[ -n $out ]]; then
    echo "test-ops: systemd-analyze verify $UNIT warned:" >&2
    echo "$out" >&2
    exit 1
fi
echo "systemd-analyze verify $UNIT: no warning"
systemd-analyze security --offline=yes --threshold="$EXPOSURE_MAX" "$scratch/veritas.service" | tail -1
