#!/usr/bin/env bash
# `cargo build` with one progress line per 100 compile steps (crates and build scripts) instead
# of cargo's line per download and per crate: `make demo`'s first build compiles about 420
# crates, and a new user should read the verdicts, not 900 lines of build log. Compiler errors
# and warnings still show (cargo renders them to stderr); the exit status is cargo's.
# Usage: scripts/quiet-build.sh <cargo build arguments...>
set -euo pipefail

start=$SECONDS
built=0
while IFS= read -r message; do
    # One JSON message per line on stdout; only steps compiled now (not fresh ones) count.
    if [[ $message == *'"reason":"compiler-artifact"'* && $message == *'"fresh":false'* ]]; then
        built=$((built + 1))
        if ((built % 100 == 0)); then
            echo "  ... $built compile steps done ($((SECONDS - start)) s)"
        fi
    fi
done < <("${CARGO:-cargo}" build --quiet --message-format=json-render-diagnostics "$@")
# Process substitution hides cargo's exit status from the loop: wait for it explicitly.
wait $!
if ((built > 0)); then
    echo "  built: $built compile steps in $((SECONDS - start)) s"
fi
