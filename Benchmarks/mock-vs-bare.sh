#!/usr/bin/env bash
# What the mock's fidelity costs: h2load against `pushbench mock` and against BareResponder (a
# SwiftNIO HTTP/2 TLS server on the same stack and settings that answers 200 to everything),
# alternating, with the same number of event-loop threads each (THREADS, default 1). The bare
# responder runs twice: as SwiftNIO's usual server, a child channel per stream ("bare", the
# target's yardstick), and reading whole connections' frames as the mock does ("frames"), so the
# cost of the checks alone shows too.
#
# The mock verifies the ES256 provider token of a key made for this script (cached after its
# first check, as a sender reusing its token meets it), validates every header, echoes apns-id
# and counts everything. h2load sends the same pushes to both: the same headers, a 141-byte
# payload, a different device path per push. Prints each run's req/s and the server's CPU per
# request, then the medians and the mock's ratios to both bare responders (the target is 1.0
# against "bare").
#
# Usage: [THREADS=2] Benchmarks/mock-vs-bare.sh [ROUNDS] [REQUESTS] [CONNECTIONS] [STREAMS]
#        (defaults: 3 rounds, 200000 requests, 8 connections × 100 streams, 1 thread)
# With BASELINE_PUSHBENCH=/path/to/an/older/pushbench, that binary's mock is measured too, in the
# same rounds, and the medians end with this mock's req/s ratio to it: a change to the mock
# compared with the build before it on the same machine at the same time.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} requests=${2:-200000} connections=${3:-8} streams=${4:-100} threads=${THREADS:-1}
command -v h2load >/dev/null || { echo "h2load not found: run Scripts/install-deps.sh (nghttp2-client)" >&2; exit 2; }

swift build -c release --product pushbench >&2
swift build -c release --package-path Benchmarks --product BareResponder >&2
binary=$PWD/.build/release/pushbench
bare=$PWD/Benchmarks/.build/release/BareResponder
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

source Benchmarks/signed-push.sh

# Starts server $1 (its command follows), sets ${1}_origin and ${1}_pid.
start() {
    local name=$1
    shift
    "$@" >"$work/$name.log" 2>&1 &
    pids+=($!)
    printf -v "${name}_pid" '%s' $!
    for _ in $(seq 1 50); do grep -q "listening on https://" "$work/$name.log" && break; sleep 0.1; done
    local origin
    origin=$(grep -o 'https://[0-9.:]*' "$work/$name.log" | head -1)
    [[ -n $origin ]] || { cat "$work/$name.log" >&2; exit 1; }
    printf -v "${name}_origin" '%s' "$origin"
}
start mock "$binary" mock --port 0 --cert-out "$work/mock.pem" --auth-key "$work/public.pem" \
    --key-id "$key_id" --team-id "$team_id" --threads "$threads"
start bare "$bare" "$work/bare.pem" "$threads" streams
start frames "$bare" "$work/frames.pem" "$threads" frames
servers=(mock bare frames)
if [[ -n ${BASELINE_PUSHBENCH:-} ]]; then
    start baseline "$BASELINE_PUSHBENCH" mock --port 0 --cert-out "$work/baseline.pem" \
        --auth-key "$work/public.pem" --key-id "$key_id" --team-id "$team_id" --threads "$threads"
    servers=(mock baseline bare frames)
fi

# CPU seconds (user + sys) process $1 has used so far.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }

# Prints "<req/s> <server µs/request>" for one h2load run against server $1.
measure() {
    local origin_var=${1}_origin pid_var=${1}_pid before after output arguments
    mapfile -t arguments < <(h2load_push_arguments "${!origin_var}")
    before=$(cpu "${!pid_var}")
    output=$(h2load -n "$requests" -c "$connections" -m "$streams" "${arguments[@]}" 2>&1)
    after=$(cpu "${!pid_var}")
    grep -q "$requests succeeded" <<<"$output" || { echo "$output" >&2; exit 1; }
    awk -v before="$before" -v after="$after" -v n="$requests" \
        '/^finished in/ {printf "%.0f %.1f\n", $4, (after - before) * 1e6 / n}' <<<"$output"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

echo "h2load -n $requests -c $connections -m $streams; $threads event-loop thread(s) each;" \
    "mock $mock_origin, bare responder $bare_origin" >&2
printf '%-6s %-8s %10s %20s\n' round server "req/s" "server µs/request"
declare -A rates=() cpus=()
for round in $(seq 1 "$rounds"); do
    for server in "${servers[@]}"; do
        read -r rate server_cpu < <(measure "$server")
        rates[$server]+="$rate " cpus[$server]+="$server_cpu "
        printf '%-6s %-8s %10s %20s\n' "$round" "$server" "$rate" "$server_cpu"
    done
done
med() { tr ' ' '\n' <<<"$1" | grep . | median; }
awk -v mr="$(med "${rates[mock]}")" -v mc="$(med "${cpus[mock]}")" \
    -v br="$(med "${rates[bare]}")" -v bc="$(med "${cpus[bare]}")" \
    -v fr="$(med "${rates[frames]}")" -v fc="$(med "${cpus[frames]}")" 'BEGIN {
    printf "\nmedians: mock %.0f req/s %.1f µs/req, bare %.0f req/s %.1f µs/req, frames %.0f req/s %.1f µs/req\n",
        mr, mc, br, bc, fr, fc
    printf "mock/bare req/s ratio %.2f; mock/frames req/s ratio %.2f\n", mr / br, mr / fr }'
if [[ -n ${BASELINE_PUSHBENCH:-} ]]; then
    awk -v mr="$(med "${rates[mock]}")" -v lr="$(med "${rates[baseline]}")" -v lc="$(med "${cpus[baseline]}")" 'BEGIN {
        printf "baseline mock %.0f req/s %.1f µs/req; this mock/baseline req/s ratio %.3f\n", lr, lc, mr / lr }'
fi
