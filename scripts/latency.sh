#!/usr/bin/env bash
# Confirmation-to-verdict latency of the node on a local anvil, with the instant replay
# resolver: p50/p90 over 20 questions. Needs `make setup` (anvil, forge) first.
set -euo pipefail
cd "$(dirname "$0")/.."
export FOUNDRY_SOLC="$PWD/tools/solc"
cargo test -p veritas-node --test it latency:: -- --ignored --nocapture 2>&1 | grep -E "latency confirmation|p50 target|test result"
