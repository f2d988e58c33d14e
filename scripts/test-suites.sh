#!/usr/bin/env bash
# `make test`'s Rust tests: the plain suite (`cargo test`) and the long suite (`cargo test --
# --ignored`) side by side.
#
#   scripts/test-suites.sh CARGO_TEST_COMMAND...   (the Makefile passes $(RUST_TESTS))
#
# Why side by side: measured alone, the plain suite keeps 0.9 of the 2 cores busy (283 CPU-s in
# 320 s) and the long suite 0.6 (178 CPU-s in 278 s): both mostly wait on anvil, node processes
# and the browser. The long tests still run one at a time among themselves (`support::measuring`),
# and none asserts a duration, so the tests beside them change their printed figures, not their
# outcome (`make bench` is where figures are measured).
#
# Each suite runs in its own session (setsid); the first to fail stops both sessions whole
# (anvil runs in a process group of its own, so a group kill would leave it behind), and its
# exit status is the script's. The long suite's lines are prefixed "long | ".
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# == 0 ]]; then
    echo "usage: scripts/test-suites.sh CARGO_TEST_COMMAND..." >&2
    exit 2
fi

# The test binaries first (`make clippy` built them: this compiles nothing then), so that the two
# suites below only run tests and never wait on each other's build.
env "$@" --no-run

setsid env "$@" &
plain=$!
setsid env "$@" -- --ignored > >(sed -u 's/^/long | /') 2>&1 &
long=$!
declare -A name=([$plain]="the tests" [$long]="the long tests")
trap 'pkill -s "$plain" || :; pkill -s "$long" || :' EXIT

running=("$plain" "$long")
while ((${#running[@]} > 0)); do
    status=0
    wait -n -p done "${running[@]}" || status=$?
    if [[ $status != 0 ]]; then
        echo "test-suites: ${name[$done]} failed (exit $status); stopping the other suite" >&2
        exit "$status"
    fi
    echo "test-suites: ${name[$done]} passed"
    for i in "${!running[@]}"; do [[ ${running[$i]} == "$done" ]] && unset 'running[i]'; done
done
trap - EXIT
