#!/usr/bin/env bash
# Fuzz every cargo-fuzz target in fuzz/ (ballot, commit, proof, config, stats) for
# FUZZ_SECONDS of a core each (default 60), all at once on FUZZ_JOBS cores (default: all), and
# fail if any target finds a crash, printing the command that reproduces it. Part of
# `make test-long`; needs `make setup` (cargo-fuzz in tools/cargo).
#
#   FUZZ_SECONDS=300 scripts/fuzz.sh          # longer runs
#   FUZZ_TARGETS="commit proof" scripts/fuzz.sh
#   FUZZ_SCRATCH=/tmp/corpus scripts/fuzz.sh   # another folder for the inputs found (per target)
#   FUZZ_STEP=build scripts/fuzz.sh            # only build (`make test` builds beside the Rust tests),
#   FUZZ_STEP=run scripts/fuzz.sh              # then run (cargo-fuzz finds the build up to date)
#
# cargo-fuzz needs nightly-only rustc flags; RUSTC_BOOTSTRAP=1 lets the stable toolchain
# accept them. No sanitizer: node/src has no `unsafe`, so AddressSanitizer would only slow
# the runs down; panics, failed assertions and overflow checks (debug assertions are on) are
# what the targets catch.
#
# New inputs libFuzzer finds go to fuzz/target/corpus/<target> (ignored, kept between local
# runs); the committed seeds in fuzz/corpus/<target> are only read. Crashing inputs are
# written to fuzz/artifacts/<target>/ (ignored): copy one into fuzz/corpus/<target>/ with
# the fix that makes it pass.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"ballot commit proof config stats"}
cargo_fuzz=${CARGO_FUZZ:-$root/tools/cargo/bin/cargo-fuzz}
if [[ ! -x $cargo_fuzz ]]; then
    echo "fuzz: $cargo_fuzz not found; run \`make setup\` first" >&2
    exit 2
fi
export RUSTC_BOOTSTRAP=1
# The fuzz build (instrumented, its own lockfile) lives in fuzz/target, apart from the
# workspace's target directory.
unset CARGO_TARGET_DIR
# 16 codegen units: the default (1) makes the optimised build of veritas-core and its
# dependencies (jsonschema, alloy's primitives, ...) several times slower on a 2-core CI
# machine, for a little fuzzing speed.
flags=(--sanitizer none --codegen-units 16 --target-dir "$root/fuzz/target")

step=${FUZZ_STEP:-all}
case $step in all | build | run) ;; *)
    echo "fuzz: FUZZ_STEP must be all, build or run, not $step" >&2
    exit 2
    ;;
esac
start=$(date +%s)
if [[ $step != run ]]; then
    "$cargo_fuzz" build "${flags[@]}"
    echo "fuzz: build took $(($(date +%s) - start)) s"
fi
[[ $step == build ]] && exit 0

# All targets at once, each for FUZZ_SECONDS of a core: a libFuzzer run is single-threaded, so N
# targets sharing C cores run for FUZZ_SECONDS * N / C of wall time (FUZZ_SECONDS when N <= C).
# One target per core at a time gave the same CPU time but left a core idle in the last round
# (5 targets on 2 cores: 187 s, three rounds of about 62 s). The executions each run prints are
# the check that it got its share.
cores=${FUZZ_JOBS:-$(nproc)}
count=$(wc -w <<<"$targets")
sharing=$((count < cores ? count : cores))
wall=$(((seconds * count + sharing - 1) / sharing))

# fuzz_one TARGET: run it; its outcome in fuzz/target/TARGET.result ("ok N" or "failed").
fuzz_one() {
    local target=$1
    local scratch=${FUZZ_SCRATCH:-$root/fuzz/target/corpus}/$target
    mkdir -p "$scratch" "$root/fuzz/artifacts/$target"
    local log=$root/fuzz/target/$target.log result=$root/fuzz/target/$target.result
    local t0
    t0=$(date +%s)
    # -timeout: an input that takes 30 s is a hang, reported like a crash.
    if "$cargo_fuzz" run "${flags[@]}" "$target" "$scratch" "$root/fuzz/corpus/$target" -- \
        -max_total_time="$wall" -timeout=30 -print_final_stats=1 >"$log" 2>&1; then
        local runs
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
        echo "ok $runs $(($(date +%s) - t0))" >"$result"
    else
        echo failed >"$result"
    fi
}

echo "fuzz: $count targets on $sharing cores for $wall s ($seconds s of a core each)"
for target in $targets; do
    rm -f "$root/fuzz/target/$target.result"
    fuzz_one "$target" &
done
wait

failed=()
for target in $targets; do
    log=$root/fuzz/target/$target.log
    read -r outcome runs took <"$root/fuzz/target/$target.result" || outcome=failed
    if [[ $outcome == ok ]]; then
        echo "fuzz: $target ok: $runs executions in $took s"
    else
        failed+=("$target")
        # The panic's own message first: libFuzzer's report and the backtrace after it can
        # push it out of the tail.
        grep -m 3 -A 2 "panicked at" "$log" >&2 || true
        tail -n 40 "$log" >&2
        artifact=$(ls -t "$root/fuzz/artifacts/$target"/* 2>/dev/null | head -n 1 || true)
        echo "fuzz: $target FAILED (full log: $log)" >&2
        if [[ -n $artifact ]]; then
            echo "fuzz: reproduce with:" >&2
            echo "  RUSTC_BOOTSTRAP=1 $cargo_fuzz run ${flags[*]} $target ${artifact#"$root"/}" >&2
        fi
    fi
done

echo "fuzz: total $(($(date +%s) - start)) s"
if ((${#failed[@]})); then
    echo "fuzz: crashes in: ${failed[*]}" >&2
    exit 1
fi
