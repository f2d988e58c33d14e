#!/usr/bin/env bash
# VeritasOracle's acceptance gas figures, measured the way users pay them: real transactions on a
# local anvil (default hardfork), each figure the `gasUsed` of the receipts (intrinsic 21,000 and
# calldata included). Realistic values: a 56-byte question, quorum 1 and 3, an ask fee, a 2-hour
# challenge window, a 1,000-byte evidence snippet. Fails when a figure is above its limit.
#
#   scripts/gas-anvil.sh            # needs `make setup` (forge, anvil, cast, solc in tools/)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export FOUNDRY_SOLC="$root/tools/solc"
bin=$root/tools/node_modules/@foundry-rs
forge=$bin/forge-linux-amd64/bin/forge
anvil=$bin/anvil-linux-amd64/bin/anvil
cast=$bin/cast-linux-amd64/bin/cast
if [[ $(uname -s) == Darwin ]]; then
    forge=$bin/forge-darwin-arm64/bin/forge
    anvil=$bin/anvil-darwin-arm64/bin/anvil
    cast=$bin/cast-darwin-arm64/bin/cast
fi

"$forge" build --skip test --skip script >/dev/null
port=$((20000 + RANDOM % 20000))
rpc=http://127.0.0.1:$port
"$anvil" --port "$port" --silent &
anvil_pid=$!
trap 'kill $anvil_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do "$cast" chain-id --rpc-url "$rpc" >/dev/null 2>&1 && break; sleep 0.1; done

# anvil's public test accounts: 0 owner, 1-3 operators, 4 arbiter, 5 asker, 6 disputer.
mnemonic="test test test test test test test test test test test junk"
keys=()
for i in $(seq 0 6); do
    keys+=("$("$cast" wallet private-key --mnemonic "$mnemonic" --mnemonic-index "$i")")
done
addr() { "$cast" wallet address --private-key "${keys[$1]}"; }

# send <account> <args...>: prints the receipt's gasUsed, fails on a reverted transaction.
send() {
    local who=$1
    shift
    local out
    out=$("$cast" send --rpc-url "$rpc" --private-key "${keys[$who]}" --json "$@")
    [[ $(jq -r .status <<<"$out") == 0x1 ]] || { echo "reverted: $*" >&2; exit 1; }
    printf '%d\n' "$(jq -r .gasUsed <<<"$out")"
}

code=$(jq -r .bytecode.object out/VeritasOracle.sol/VeritasOracle.json)
args=$("$cast" abi-encode "constructor(address)" "$(addr 0)")
oracle=$("$cast" send --rpc-url "$rpc" --private-key "${keys[0]}" --json --create "$code${args#0x}" |
    jq -r .contractAddress)
for i in 1 2 3; do send 0 "$oracle" "addOperator(address)" "$(addr $i)" >/dev/null; done
send 0 "$oracle" "setArbiter(address)" "$(addr 4)" >/dev/null

ask_fee=10000000000000000 # 0.01 ether
bond=100000000000000000   # 0.1 ether
params() { # quorum evidenceFee
    send 0 "$oracle" "setParameters((uint8,uint16,uint32,uint32,uint96,uint96,uint96))" \
        "($1,30,86400,7200,$ask_fee,$bond,$2)" >/dev/null
}
question="Will the Eiffel Tower be open to visitors on 2026-12-01?" # 56 bytes
ask() { send 5 "$oracle" "askQuestion(string,uint64)" "$question" "${1:-0}" --value $ask_fee; }
count=0
new_id() { count=$((count + 1)); id=$count; }
root() { "$cast" keccak "bundle $1"; }
kappa=412345678901234568
report() { # operator id nYes nNo nNull
    send "$1" "$oracle" "submitReport(uint256,bytes32,uint16,uint16,uint16,int256,bool)" \
        "$2" "$(root "$2-$1")" "$3" "$4" "$5" $kappa false
}

fail=0
check() { # label value limit
    local mark=ok
    if (($2 > $3)); then mark=OVER; fail=1; fi
    printf '%-58s %8d  (limit %d) %s\n' "$1" "$2" "$3" "$mark"
}

params 1 0
ask >/dev/null
new_id # a first question, so counters are nonzero as on a live oracle
report 1 "$id" 19 6 2 >/dev/null
ask_gas=$(ask)
new_id
q1_gas=$(report 1 "$id" 19 6 2)
check "quorum 1: askQuestion (56-byte question, ask fee)" "$ask_gas" 105000
check "quorum 1: submitReport that finalises" "$q1_gas" 70000

dispute_gas=$(send 6 "$oracle" "dispute(uint256)" "$id" --value $bond)
check "dispute (bond)" "$dispute_gas" 60000

params 3 0
a3=$(ask)
new_id
r1=$(report 1 "$id" 9 1 0)
r2=$(report 2 "$id" 8 2 0)
r3=$(report 3 "$id" 10 0 0)
check "quorum 3: report 1" "$r1" 170000
check "quorum 3: report 2" "$r2" 170000
check "quorum 3: report 3 (finalises)" "$r3" 170000
check "quorum 3: the three reports together" $((r1 + r2 + r3)) 170000
check "quorum 3: ask + three reports" $((a3 + r1 + r2 + r3)) 280000

params 1 0
batch="["
first=$((count + 1))
for i in $(seq 20); do
    ask >/dev/null
    new_id
    batch+="($id,$(root "$id"),19,6,2,$kappa,false)"
    ((i < 20)) && batch+=","
done
batch+="]"
batch_gas=$(send 1 "$oracle" "submitReports((uint256,bytes32,uint16,uint16,uint16,int256,bool)[])" "$batch")
check "batch of 20 quorum-1 reports, per report" $((batch_gas / 20)) 45000

now=$("$cast" block latest --rpc-url "$rpc" --field timestamp)
later=$((now + 86400))
snippet=$(printf 'Evidence snippet text %.0s' $(seq 60) | head -c 1000)
url="https://www.toureiffel.paris/en/news/opening-hours"
title="Opening hours and closures of the Eiffel Tower"
evidence() { # id
    send 6 "$oracle" "submitEvidence(uint256,string,string,string)" "$1" "$url" "$title" "$snippet" "${@:2}"
}
ask "$later" >/dev/null
new_id
e1=$(evidence "$id")
e2=$(evidence "$id")
check "submitEvidence, 1,000-byte snippet (first ever on the oracle)" "$e1" 70000
check "submitEvidence, 1,000-byte snippet" "$e2" 70000
params 1 1000000000000000
ask "$later" >/dev/null
new_id
e3=$(evidence "$id" --value 1000000000000000)
e4=$(evidence "$id" --value 1000000000000000)
check "submitEvidence, 1,000-byte snippet, evidence fee (first of question)" "$e3" 70000
check "submitEvidence, 1,000-byte snippet, evidence fee" "$e4" 70000
exit $fail
