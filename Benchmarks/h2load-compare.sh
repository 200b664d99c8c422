#!/usr/bin/env bash
# PushBench's sender (both transports) against h2load (nghttp2's HTTP/2 load generator), side by
# side, on one mock.
#
# Starts `pushbench mock` (release build, one event-loop thread, verifying ES256 provider tokens
# of a key made for this script), then for each shape CONNECTIONS×STREAMS runs both clients
# alternately, ROUNDS times, with the same headers (bearer, push type, topic, priority,
# expiration, content type), a payload of the same size and a different device path per push
# (10,000 of them, cycled), REQUESTS pushes each. PushBench runs
# once with each transport (`--transport nghttp2` and `--transport curl`). Prints every run, then
# per shape the medians of req/s and of client CPU per request (user + sys of the whole client
# process over its requests), and each transport's ratio to h2load. The mock's CPU per request is
# printed too: on 2 cores the clients and the mock share the machine.
#
# Usage: Benchmarks/h2load-compare.sh [ROUNDS] [REQUESTS] [SHAPES...]
#        (defaults: 3 rounds, 100000 requests, shapes 1x100 8x100)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
requests=${2:-100000}
shift $(($# > 2 ? 2 : $#))
shapes=("${@:-1x100 8x100}")
[[ ${#shapes[@]} -eq 1 ]] && read -r -a shapes <<<"${shapes[0]}"
command -v h2load >/dev/null || { echo "h2load not found: run Scripts/install-deps.sh (nghttp2-client)" >&2; exit 2; }

swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
work=$(mktemp -d)
mock_pid=""
cleanup() {
    [[ -n $mock_pid ]] && kill -INT "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# A throw-away signing key; the script's bearer is for this loopback mock only.
key_id=BENCHKEY01 team_id=BENCHTEAM1 topic=com.example.pushbench.push-type.liveactivity
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/key.p8" 2>/dev/null
openssl pkey -in "$work/key.p8" -pubout -out "$work/public.pem"
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
header=$(printf '{"alg":"ES256","kid":"%s"}' "$key_id" | b64url)
claims=$(printf '{"iss":"%s","iat":%d}' "$team_id" "$(date +%s)" | b64url)
printf '%s.%s' "$header" "$claims" >"$work/signing-input"
openssl dgst -sha256 -sign "$work/key.p8" -out "$work/signature.der" "$work/signing-input"
# JWS wants the raw 64-byte r‖s, not openssl's DER sequence.
signature=$(python3 - "$work/signature.der" <<'EOF' | b64url
import sys
der = open(sys.argv[1], "rb").read()
def integer(at):
    length = der[at + 1]
    return der[at + 2 : at + 2 + length].lstrip(b"\0").rjust(32, b"\0"), at + 2 + length
r, after = integer(2)
s, _ = integer(after)
sys.stdout.buffer.write(r + s)
EOF
)
bearer="$header.$claims.$signature"
# An update as PushBench sends it for a football match: 141 bytes.
now=$(date +%s)
printf '{"aps":{"timestamp":%d,"event":"update","content-state":{"homeScore":1,"awayScore":0,"minute":63,"period":2},"stale-date":%d}}' \
    "$now" $((now + 900)) >"$work/payload.json"
# h2load cycles through one URI per device, as PushBench addresses a different token per push
# (HPACK cannot index a new path, so each costs the server alike).
"$binary" tokens -n 10000 --kind update --seed 7 -o "$work/tokens.txt" 2>/dev/null

"$binary" mock --port 0 --cert-out "$work/mock.pem" --auth-key "$work/public.pem" --key-id "$key_id" \
    --team-id "$team_id" >"$work/mock.log" 2>&1 &
mock_pid=$!
for _ in $(seq 1 50); do grep -q "listening on https://" "$work/mock.log" && break; sleep 0.1; done
origin=$(grep -o 'https://[0-9.:]*' "$work/mock.log" | head -1)
[[ -n $origin ]] || { cat "$work/mock.log" >&2; exit 1; }
sed "s|^|$origin/3/device/|" "$work/tokens.txt" >"$work/uris.txt"
echo "mock $origin (1 event-loop thread), $requests requests per run, payload $(wc -c <"$work/payload.json") bytes" >&2

# CPU seconds (user + sys) the mock has used so far.
mock_cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$mock_pid/stat"; }

# Prints "<req/s> <client µs/request> <mock µs/request>" for one run of client $1 at $2 conns × $3 streams.
measure() {
    local client=$1 connections=$2 streams=$3 before after output rate transport
    before=$(mock_cpu)
    if [[ $client == h2load ]]; then
        output=$(/usr/bin/time -f 'cpu %U %S' h2load -n "$requests" -c "$connections" -m "$streams" \
            -H "authorization: bearer $bearer" -H "apns-push-type: liveactivity" -H "apns-topic: $topic" \
            -H "apns-priority: 10" -H "apns-expiration: $((now + 3600))" -H "content-type: application/json" \
            -d "$work/payload.json" -i "$work/uris.txt" 2>&1)
        grep -q "$requests succeeded" <<<"$output" || { echo "$output" >&2; exit 1; }
        rate=$(awk '/^finished in/ {print $4}' <<<"$output")
    else
        transport=${client#pushbench-}
        output=$(/usr/bin/time -f 'cpu %U %S' "$binary" run --transport "$transport" --endpoint "$origin" \
            --ca-file "$work/mock.pem" \
            --key "$work/key.p8" --key-id "$key_id" --team-id "$team_id" --requests "$requests" \
            --activities $((requests / 100 + 1)) --connections "$connections" --streams "$streams" --no-budget \
            --reports-dir "$work/reports" 2>&1)
        grep -q "^succeeded *$requests\$" <<<"$output" || { echo "$output" >&2; exit 1; }
        rate=$(awk '/^throughput/ {print $2}' <<<"$output")
    fi
    after=$(mock_cpu)
    awk -v rate="${rate%,}" -v n="$requests" -v before="$before" -v after="$after" \
        '/^cpu / {printf "%.0f %.1f %.1f\n", rate, ($2 + $3) * 1e6 / n, (after - before) * 1e6 / n}' <<<"$output"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

printf '%-7s %-6s %-18s %10s %20s %18s\n' shape round client "req/s" "client µs/request" "mock µs/request"
summary=()
for shape in "${shapes[@]}"; do
    connections=${shape%x*} streams=${shape#*x}
    declare -A rates=() cpus=()
    for round in $(seq 1 "$rounds"); do
        for client in h2load pushbench-nghttp2 pushbench-curl; do
            read -r rate cpu mock < <(measure "$client" "$connections" "$streams")
            rates[$client]+="$rate " cpus[$client]+="$cpu "
            printf '%-7s %-6s %-18s %10s %20s %18s\n' "$shape" "$round" "$client" "$rate" "$cpu" "$mock"
        done
    done
    med() { tr ' ' '\n' <<<"$1" | grep . | median; }
    h_rate=$(med "${rates[h2load]}") h_cpu=$(med "${cpus[h2load]}")
    for client in pushbench-nghttp2 pushbench-curl; do
        summary+=("$(awk -v s="$shape" -v c="$client" -v hr="$h_rate" -v hc="$h_cpu" \
            -v pr="$(med "${rates[$client]}")" -v pc="$(med "${cpus[$client]}")" 'BEGIN {
            printf "%-7s %-18s %6.0f req/s %5.1f µs/req   h2load %6.0f req/s %5.1f µs/req   req/s ratio %.2f, CPU ratio %.2f",
                s, c, pr, pc, hr, hc, pr / hr, pc / hc }')")
    done
    unset rates cpus
done
printf '\nmedians (ratios: pushbench / h2load)\n'
printf '%s\n' "${summary[@]}"
