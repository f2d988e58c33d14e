#!/usr/bin/env bash
# What a committee costs in model tokens against a real llama.cpp server, and how much of it the
# server's prompt cache saves: `veritas eval` of N dev claims (default 20) with one `openai`
# juror pointed at `llama-server` (from `make setup`, the shipped gemma-3-270m GGUF, 3 slots,
# `--swa-full`), the default committee. Prints, from the server's own per-request timings in its
# log (so any `veritas` version can be measured): prompt tokens sent and computed per claim, the
# share served from cache, completion tokens; from the eval: wall time per claim and the
# valid-ballot rate; and the cost per claim at the hosted prices below.
#
#   scripts/bench-prompt-cache.sh [N]
#   VERITAS_BIN=/path/to/older/veritas scripts/bench-prompt-cache.sh   # the "before" figure
#   LLAMA_FLAGS="" scripts/bench-prompt-cache.sh                      # without --swa-full
#   KEEP=/tmp/run scripts/bench-prompt-cache.sh                       # keep the server log
#   EVAL_ARGS="-T 2 -M 3" TIMEOUT=600s scripts/bench-prompt-cache.sh 50  # ballot validity, 300
#     ballots (a long deadline, so a loaded machine cannot turn slow answers into failures)
#
# `--swa-full`: gemma 3 attends over a sliding window, and llama.cpp keeps only the window's
# tokens of those layers unless told otherwise, so a slot cannot roll back to a shared prefix
# longer than the window's start and recomputes most of it. Operators serving SWA models for
# Veritas should pass it too (the book's juror chapter says so).
#
# Needs `make setup` (the server binary and the model) and a built `veritas` (cargo build
# --release -p veritas-node, or VERITAS_BIN). Writes into a temporary directory only.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
claims="${1:-20}"
dataset="${VERITAS_DATASET:-$root/data/climate-fever-dev.jsonl}"
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
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; [ -n "${KEEP:-}" ] && cp -r "$work" "$KEEP"; rm -rf "$work"; }
trap cleanup EXIT

# Port 0: the server picks a free port and logs it (nothing else can take it first).
"$server" -m "$model" --host 127.0.0.1 --port 0 -t "$(nproc)" -np 3 -c 12288 ${LLAMA_FLAGS---swa-full} \
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

# Binaries from before the cached-input price (the "before" run) do not know the key.
cached_price_line=""
if grep -q price_cached_input_per_million "$bin"; then
  cached_price_line="price_cached_input_per_million = $price_cached"
fi
cat >"$work/veritas.toml" <<EOF
[jury]
[[jury.jurors]]
kind = "openai"
base_url = "$url/v1"
model = "gemma-3-270m"
api_key_env = ""
max_tokens = 300
timeout = "${TIMEOUT:-60s}"
price_prompt_per_million = $price_in
$cached_price_line
price_completion_per_million = $price_out
[jury.committee]
ballot_timeout = "${TIMEOUT:-120s}"
EOF

start=$(date +%s.%N)
# shellcheck disable=SC2086 # EVAL_ARGS is a list of flags
"$bin" eval "$dataset" -n "$claims" ${EVAL_ARGS:-} --config "$work/veritas.toml" --out "$work/eval.jsonl" \
  >"$work/summary.json" 2>"$work/eval.log" || { cat "$work/eval.log" >&2; exit 1; }
end=$(date +%s.%N)

python3 - "$work/eval.jsonl" "$work/server.log" "$start" "$end" "[$price_in, $price_cached, $price_out]" <<'EOF'
import json, re, sys
claims = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
claims = [c for c in claims if not c.get("summary")]
# One entry per request the server served: tokens it computed for the prompt, tokens it
# generated, and its context length when it stopped (prompt + generated - 1).
tasks = {}
patterns = [
    ("computed", r"task (\d+) \| prompt eval time = +[\d.]+ ms / +(\d+) tokens"),
    ("generated", r"task (\d+) \| +eval time = +[\d.]+ ms / +(\d+) tokens"),
    ("end", r"task (\d+) \| stop processing: n_tokens = (\d+)"),
]
for line in open(sys.argv[2]):
    for key, pattern in patterns:
        m = re.search(pattern, line)
        if m:
            tasks.setdefault(m[1], {})[key] = int(m[2])
done = [t for t in tasks.values() if len(t) == 3]
sent = sum(t["end"] - t["generated"] + 1 for t in done)
computed = sum(t["computed"] for t in done)
completion = sum(t["generated"] for t in done)
n = len(claims)
valid = sum(c["valid"] for c in claims)
calls = sum(c["calls"] for c in claims)
wall = sum(c["wall_ms"] for c in claims) / 1000
price = json.loads(sys.argv[5])
cost = ((sent - computed) * price[1] + computed * price[0] + completion * price[2]) / 1e6 / n
uncached = (sent * price[0] + completion * price[2]) / 1e6 / n
print(f"claims                         {n}")
print(f"requests served                {len(done)} ({len(done) / n:.1f} per claim; ballots {calls / n:.1f})")
print(f"prompt tokens sent per claim   {sent / n:.0f}")
print(f"prompt tokens computed / claim {computed / n:.0f}")
print(f"computed share of prompt       {computed / sent:.1%}")
print(f"served from cache              {1 - computed / sent:.1%}")
print(f"completion tokens per claim    {completion / n:.0f}")
print(f"wall time per claim            {wall / n:.1f} s")
print(f"valid-ballot rate              {valid / calls:.1%} ({valid} of {calls})")
print(f"cost per claim (hosted prices) ${cost:.6f}")
print(f"  the same without a cache     ${uncached:.6f}")
print(f"whole run                      {float(sys.argv[4]) - float(sys.argv[3]):.0f} s")
EOF
