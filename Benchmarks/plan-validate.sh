#!/usr/bin/env bash
# Checks `pushbench plan`'s model on this machine: from a 1-connection run against a mock that
# answers after a fixed delay (as APNs does after its round trip), predict the 2- and
# 4-connection throughput, then measure it. Each round measures 1, 2 and 4 connections in turn;
# the table at the end gives the medians beside the prediction made from the 1-connection run.
#
# The model is Little's law (connections × streams ÷ latency) capped by the worker threads' CPU
# (threads × 1e6 ÷ CPU per push); it ignores the mock's own CPU, which shares this machine, so
# keep connections × streams ÷ latency well below what the mock serves (about 15,000/s here).
#
# Usage: Benchmarks/plan-validate.sh [ROUNDS] [REQUESTS] [STREAMS] [LATENCY_MS]
#        (defaults: 3 rounds, 8000 requests, 20 streams per connection, 20 ms)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} requests=${2:-8000} streams=${3:-20} latency_ms=${4:-20}

swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
work=$(mktemp -d)
mock_pid=
cleanup() {
    [[ -n $mock_pid ]] && kill -INT "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
source Benchmarks/signed-push.sh

start_signed_mock --latency "fixed:${latency_ms}ms"

# Runs $requests pushes closed loop over $1 connections; prints the report folder.
measure() {
    local reports=$work/runs-$1-$2
    "$binary" run --endpoint "$origin" --ca-file "$work/mock.pem" --auth-key "$work/key.p8" --key-id "$key_id" \
        --team-id "$team_id" --requests "$requests" --activities 2000 --connections "$1" --streams "$streams" \
        --no-budget --reports-dir "$reports" >/dev/null 2>"$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
    echo "$reports/$(ls "$reports")"
}
throughput() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]+"/summary.json"))["throughput_per_s"]))' "$1"; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

declare -A measured predicted
for round in $(seq 1 "$rounds"); do
    for connections in 1 2 4; do
        run=$(measure "$connections" "$round")
        measured[$connections]+="$(throughput "$run") "
        if [[ $connections == 1 ]]; then
            "$binary" plan "$run" --predict-connections 1,2,4 --json "$work/plan.json" >/dev/null
            for c in 1 2 4; do
                predicted[$c]+="$(python3 -c 'import json,sys; p=[x for x in json.load(open(sys.argv[1]))["predictions"] if x["connections"]==int(sys.argv[2])][0]; print(round(p["pushes_per_s"]))' "$work/plan.json" "$c") "
            done
        fi
        echo "round $round, $connections connection(s): $(throughput "$run") pushes/s" >&2
    done
done

echo "connections × $streams streams, mock answering after $latency_ms ms, medians of $rounds rounds of $requests pushes"
printf '%-12s %-22s %-20s %s\n' connections "predicted (from 1)" measured "measured / predicted"
for c in 1 2 4; do
    p=$(tr ' ' '\n' <<<"${predicted[$c]}" | grep . | median)
    m=$(tr ' ' '\n' <<<"${measured[$c]}" | grep . | median)
    printf '%-12s %-22s %-20s %.2f\n' "$c" "$p" "$m" "$(echo "$m / $p" | bc -l)"
done
