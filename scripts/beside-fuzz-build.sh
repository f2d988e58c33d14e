#!/usr/bin/env bash
# Run a command with the fuzz targets' optimised build (`FUZZ_STEP=build scripts/fuzz.sh`, its own
# target dir, about 5 CPU-minutes cold) beside it, so the build takes the CPU the command leaves
# unused instead of its own minutes afterwards:
#
#   scripts/beside-fuzz-build.sh sh -c 'cargo test && cargo test -- --ignored'   (`make test-suites`)
#
# The build runs in the idle scheduling class (SCHED_IDLE; `nice -n 19` where chrt cannot set
# it): it gets CPU only when the command's processes leave a core idle. It still shares caches
# and memory bandwidth, so it is worth it only beside a command that leaves a core idle, as the
# tests do (they mostly wait on anvil, node processes and the browser). Started at the beginning
# of a cold `make test` instead, it took 11.5 min beside forge and the Rust build and made them
# 6 min slower (forge 2 min 24 s -> 4 min 31 s, the build 8 min 30 s -> 12 min 30 s): those are
# CPU-bound on both cores, and what SCHED_IDLE yields is the CPU, not the memory system.
#
# Anything in the command that needs the build (`FUZZ_STEP=run scripts/fuzz.sh`) waits for it on
# cargo's lock of fuzz/target and then finds it up to date. The build is its own session
# (setsid): a failing or interrupted command stops it whole. The command's exit status is the
# script's; when the command passed, a failed build fails it too (its log: fuzz/target/build.log).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# == 0 ]]; then
    echo "usage: scripts/beside-fuzz-build.sh COMMAND..." >&2
    exit 2
fi
idle=(nice -n 19)
chrt --idle 0 true 2>/dev/null && idle=(chrt --idle 0)

mkdir -p fuzz/target
FUZZ_STEP=build setsid "${idle[@]}" scripts/fuzz.sh >fuzz/target/build.log 2>&1 &
build=$!
trap 'pkill -s "$build" || :' EXIT

"$@" # set -e: a failure exits with its status, and the trap stops the build
if ! wait "$build"; then
    tail -n 60 fuzz/target/build.log >&2
    echo "fuzz: the build failed (full log: fuzz/target/build.log)" >&2
    exit 1
fi
trap - EXIT
grep "^fuzz: build took" fuzz/target/build.log || :
