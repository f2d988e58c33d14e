#!/usr/bin/env bash
# What a committee costs in model tokens against a real llama.cpp server, and how much of it the
# server's prompt cache saves: `veritas eval` of N dev claims (default 20) with one `openai`
# juror pointed at `llama-server` (from `make setup`, the shipped gemma-3-270m GGUF, 3 slots),
# the default committee. Prints, from the server's own usage figures: prompt tokens sent and
# computed per claim, the share served from cache, wall time per claim, the valid-ballot rate,
# and the cost per claim at the hosted prices below.
#
#   scripts/bench-prompt-cache.sh [N]
#   VERITAS_BIN=/path/to/older/veritas scripts/bench-prompt-cache.sh   # the "before" figure
#
# Needs `make setup` (the server binary and the model) and a built `veritas` (cargo build
# --release -p veritas-node, or VERITAS_BIN). Writes into a temporary directory only.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
claims="${1:-20}"
dataset="${VERITAS_DATASET:-$root/../shared/data/climate-fever-dev.jsonl}"
server="${VERITAS_LLAMA_SERVER:-$root/tools/llama-server/bin/llama-server}"
model="$root/tools/models/gemma-3-270m-q4_k_m.gguf"
bin="${VERITAS_BIN:-$root/target/release/veritas}"
# Hosted prices the cost is computed at (US dollars per million tokens): OpenAI's gpt-4o-mini
# list prices, cached input at its 50% discount.
price_in="${PRICE_INPUT:-0.15}"
price_cached="${PRICE_CACHED_INPUT:-0.075}"
price_out="${PRICE_OUTPUT:-0.60}"

for f in "$dataset" "$server" "$model" "$bin"; do
  [ -e "$f" ] || { echo "missing $f (run make setup / cargo build --release -p veritas-node)" >&2; exit 2; }
done

work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# Port 0: the server picks a free port and logs it (nothing else can take it first).
"$server" -m "$model" --host 127.0.0.1 --port 0 -t "$(nproc)" -np 3 -c 12288 \
  >"$work/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 240); do
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/server.log" | head -1 || true)"
  if [ -n "$url" ] && curl -sf "$url/health" >/dev/null 2>&1; then break; fi
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.5
done
curl -sf "$url/health" >/dev/null || { echo "llama-server not ready" >&2; exit 1; }

cat >"$work/veritas.toml" <<EOF
[jury]
[[jury.jurors]]
kind = "openai"
base_url = "$url/v1"
model = "gemma-3-270m"
api_key_env = ""
max_tokens = 300
price_prompt_per_million = $price_in
price_cached_input_per_million = $price_cached
price_completion_per_million = $price_out
EOF

start=$(date +%s.%N)
"$bin" eval "$dataset" -n "$claims" --config "$work/veritas.toml" --out "$work/eval.jsonl" \
  >"$work/summary.json" 2>"$work/eval.log" || { cat "$work/eval.log" >&2; exit 1; }
end=$(date +%s.%N)

python3 - "$work/summary.json" "$start" "$end" "[$price_in, $price_cached, $price_out]" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
t, pc = s["tokens"], s["per_claim"]
sent, computed = t["prompt"], t["computed_prompt"]
print(f"claims                         {s['claims']}")
print(f"ballots per claim              {s['calls_per_claim']:.1f}")
print(f"prompt tokens sent per claim   {pc['prompt_tokens']:.0f}")
print(f"prompt tokens computed / claim {pc['computed_prompt_tokens']:.0f}")
print(f"computed share of prompt       {computed / sent:.1%}" if sent else "no prompt tokens")
print(f"served from cache              {1 - computed / sent:.1%}" if sent else "")
print(f"completion tokens per claim    {pc['completion_tokens']:.0f}")
print(f"wall time per claim            {pc['wall_seconds']:.1f} s")
print(f"valid-ballot rate              {s['valid_ballot_rate']:.1%}")
print(f"cost per claim (hosted prices) ${pc['cost_usd']:.6f}")
price = json.loads(sys.argv[4])
uncached = (sent * price[0] + t["completion"] * price[2]) / 1e6 / s["claims"]
print(f"  the same without a cache     ${uncached:.6f}")
print(f"whole run                      {float(sys.argv[3]) - float(sys.argv[2]):.0f} s")
EOF
