#!/usr/bin/env bash
# The service as installed (`make test-ops`, part of `make test`): the install lines of
# ops/systemd/veritas.service's header, run as written but under a scratch root, then
# `veritas doctor` as the service user, so a configuration that user cannot read fails here.
#
#   scripts/test-install.sh VERITAS_BIN
#
# Each header line starting with "#   " is one step. Absolute paths (/etc, /usr/local,
# /var/lib/veritas) are moved under the scratch root; the `useradd` line runs as written (it
# creates the system user `veritas` once, the only change outside the scratch root; a no-op
# when the user exists); `systemctl` lines are left out (no service is started here). The
# steps run in a staging folder that looks like the clone the header speaks of: the binary
# under test as target/release/veritas, the repository's corpus/, ops/ and book/, a stand-in
# file for the model (this test checks the path: the doctor finds the file as the service user
# and then reports that it cannot load it, which is right for a stand-in), and a
# veritas.toml with the absolute paths the header asks for.
#
# Then it asserts, from the doctor's JSON run as `veritas` in /var/lib/veritas: the config was
# read (no `config` failure), the data directory is writable, the corpus folder exists, and the
# model file is found; and that the unit's Documentation= file exists where the lines put it.
# Needs root, useradd and runuser: without them it is skipped loudly (and fails with CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
VERITAS=${1:?usage: test-install.sh VERITAS_BIN}
VERITAS=$(realpath "$VERITAS")
UNIT=${UNIT:-ops/systemd/veritas.service}

skip() {
    [[ ${CI:-} == true ]] && { echo "test-install: CI=true and $1" >&2; exit 1; }
    echo "*** test-install: SKIPPED the install test: $1 ***"
    exit 0
}
[[ $(id -u) == 0 ]] || skip "not root (useradd and runuser need it)"
command -v useradd >/dev/null || skip "no useradd"
command -v runuser >/dev/null || skip "no runuser"
[[ -x $VERITAS ]] || { echo "test-install: $VERITAS is not an executable (build it first)" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/veritas-install.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# The service user must traverse the scratch root as it traverses / (mktemp makes it 0700).
chmod 0755 "$scratch"
root=$scratch/root stage=$scratch/stage
mkdir -p "$root" "$stage/target/release" "$stage/tools/models"
chmod 0755 "$root"
ln -s "$VERITAS" "$stage/target/release/veritas"
ln -s "$repo/corpus" "$repo/ops" "$repo/book" "$stage/"
printf 'stand-in for the model file: the doctor finds it, and cannot load it\n' \
    >"$stage/tools/models/gemma-3-270m-q4_k_m.gguf"
# The operator's configuration, with absolute paths as the header asks (under the scratch
# root, where the lines install them). No chain answers at port 9: the chain checks fail, and
# none of them is asserted here.
cat >"$stage/veritas.toml" <<EOF
[chain]
rpc_url = "http://127.0.0.1:9"
rpc_timeout = "1s"
[evidence.collectors.local]
dir = "$root/usr/local/share/veritas/corpus"
[[jury.jurors]]
kind = "local"
path = "$root/usr/local/share/veritas/models/gemma-3-270m-q4_k_m.gguf"
EOF

# The header's steps, rewritten into the scratch root.
steps=$(sed -n 's/^#   //p' "$UNIT")
[[ -n $steps ]] || { echo "test-install: no install lines (\"#   ...\") in $UNIT" >&2; exit 1; }
doctor_line=
while IFS= read -r line; do
    case $line in
    *useradd*) cmd=$line ;;
    systemctl*) echo "test-install: left out: $line"; continue ;;
    *" doctor "*) doctor_line=$line; continue ;;
    *) cmd=$(sed -e "s#/etc/#$root/etc/#g" -e "s#/usr/local/#$root/usr/local/#g" \
                 -e "s#/var/lib/veritas#$root/var/lib/veritas#g" <<<"$line") ;;
    esac
    echo "test-install: $cmd"
    (cd "$stage" && bash -euo pipefail -c "$cmd")
done <<<"$steps"
[[ -n $doctor_line ]] || { echo "test-install: no doctor line in $UNIT's install steps" >&2; exit 1; }

# The doctor line as written (paths into the scratch root), as JSON.
doctor=$(sed -e "s#/etc/#$root/etc/#g" -e "s#/usr/local/#$root/usr/local/#g" \
             -e "s#/var/lib/veritas#$root/var/lib/veritas#g" <<<"$doctor_line")
echo "test-install: $doctor --json --min-free-mib 16"
json=$(cd "$stage" && bash -c "$doctor --json --min-free-mib 16" 2>"$scratch/doctor.err") || true
[[ -n $json ]] || { echo "test-install: the doctor printed nothing:" >&2; cat "$scratch/doctor.err" >&2; exit 1; }

documentation=$(sed -n 's/^Documentation=file://p' "$UNIT")
python3 - "$json" "$root" "$documentation" <<'PY'
import json, os, sys
report, root, documentation = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
checks = {c["check"]: c for c in report["checks"]}
failures = []
for name, c in checks.items():
    print(f"  {c['status']:4}  {name}: {c['detail']}")
config = checks.get("config")
if config is not None and config["status"] == "fail":
    failures.append(f"the service user cannot read its configuration: {config['detail']} (fix: {config['fix']})")
for name in ("data_dir", "corpus"):
    if checks.get(name, {}).get("status") != "ok":
        failures.append(f"{name}: {checks.get(name)}")
juror = checks.get("juror[0]", {})
if "does not exist" in juror.get("detail", "") or not juror:
    failures.append(f"the model file is not where the config says: {juror}")
if not documentation or not os.path.isfile(root + documentation):
    failures.append(f"Documentation=file:{documentation} is not installed by the header's lines")
for f in failures:
    print(f"test-install: FAIL {f}", file=sys.stderr)
sys.exit(1 if failures else 0)
PY
echo "test-install: the service user reads its config, data dir, corpus and model as installed"
