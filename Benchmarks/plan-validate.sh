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
# Then a sequential sender (one push in flight) is profiled, planned by its concurrency, and run
# as 1, 2 and 4 processes side by side (SEQUENTIAL_PUSHES each, 250 by default).
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
# The mock's status on SIGINT (130) is not the benchmark's: under set -e, the last command of an
# && list would end the script with it.
cleanup() {
    [[ -n $mock_pid ]] && kill -INT "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null || true
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

# A sequential sender: h2load at one stream on one connection (one push in flight, as a
# scheduler that sends one push at a time), profiled against answers held 40 ms. The doctor
# should name its concurrency as its cap, and `plan` size it by its concurrency: at one push in
# flight and 40 ms, one process sends at most 25 a second, so a target needs processes of it,
# not cores. Then K copies run side by side, to measure what more processes of it really reach.
sequential_pushes=${SEQUENTIAL_PUSHES:-250}
# Profiles K copies of the sequential sender, each sending every event once; prints the folder.
profile_copies() {
    local reports=$work/profile-$1-$2
    "$binary" profile --requests "$sequential_pushes" --latency fixed:40ms --no-budget --reports-dir "$reports" \
        -- /bin/sh -c "for i in \$(seq $1); do H2LOAD_STREAMS=1 examples/h2load_sender.sh >/dev/null & done; wait" \
        >"$work/profile.out" 2>&1 || { cat "$work/profile.out" >&2; exit 1; }
    echo "$reports/$(ls "$reports")"
}
sender_rate() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]+"/summary.json"))["sender"]["pushes_per_s"], 1))' "$1"; }

declare -A sequential
for round in $(seq 1 "$rounds"); do
    for copies in 1 2 4; do
        run=$(profile_copies "$copies" "$round")
        sequential[$copies]+="$(sender_rate "$run") "
        if [[ $copies == 1 && $round == 1 ]]; then
            doctor=$(grep -o '^doctor .*' "$work/profile.out" || true)
            "$binary" plan "$run" --peak 10000 --within 60s --rtt 40ms --json "$work/sequential-plan.json" \
                >"$work/sequential-plan.txt"
        fi
        echo "round $round, $copies sequential process(es): $(sender_rate "$run") pushes/s" >&2
    done
done

echo
echo "a sequential sender (h2load -c 1 -m 1) against answers held 40 ms, medians of $rounds rounds"
echo "$doctor"
grep -E '^(sender in flight|processes|binding) ' "$work/sequential-plan.txt"
per_process=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plan"]["pushes_per_process_per_s"])' \
    "$work/sequential-plan.json")
printf '%-12s %-22s %-20s %s\n' processes "predicted (plan)" measured "measured / predicted"
for c in 1 2 4; do
    p=$(echo "$c * $per_process" | bc -l)
    m=$(tr ' ' '\n' <<<"${sequential[$c]}" | grep . | median)
    printf '%-12s %-22.1f %-20s %.2f\n' "$c" "$p" "$m" "$(echo "$m / $p" | bc -l)"
done
