#!/usr/bin/env bash
# What `--perf` costs the sender it samples: the same sender profiled with and without perf,
# alternating, ROUNDS times each way, CPU per push measured from outside by `pushbench profile`
# (the kernel's accounting of the sender's processes; perf's own CPU is not in it).
#
# Senders: PushBench's own (`pushbench run`, REQUESTS pushes open loop at RATE a second, 20,000 by
# default, below what the mock answers), and the aioapns adapter in examples/ when the client
# conformance venv is built (`make conformance`), at RATE_PY pushes a second (2,000).
# Prints each round, then the medians, the ratio with perf to without, and perf's own CPU a push.
#
# Usage: [RATE=20000] [RATE_PY=2000] Benchmarks/perf-overhead.sh [ROUNDS] [REQUESTS]   (defaults: 5, 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5} requests=${2:-100000} rate=${RATE:-20000} rate_py=${RATE_PY:-2000}
binary=.build/release/pushbench
[[ -x $binary ]] || swift build -c release --product pushbench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# pushes/s, CPU µs a push, and perf's own CPU µs a push (0 without --perf) of one profile.
figures() {
    python3 - "$1"/*/summary.json <<'PYTHON'
import json, sys
summary = json.load(open(sys.argv[1]))
sender = summary["sender"]
perf = summary.get("cpu_samples", {}).get("perf_cpu_s", 0)
print("%.1f %.2f %.2f" % (sender["pushes_per_s"], sender["cpu_us_per_push"], perf * 1e6 / max(sender["pushes"], 1)))
PYTHON
}

senders=(pushbench)
python=.build/conformance-venv/bin/python
[[ -x $python ]] && senders+=(aioapns)
printf '%-10s %-7s %6s %12s %14s %16s\n' sender mode round pushes/s "cpu_us/push" "perf_cpu_us/push"
for round in $(seq "$rounds"); do
    for sender in "${senders[@]}"; do
        for mode in plain perf; do
            rm -rf "$work/profile"
            flags=(--requests "$requests" --no-budget --reports-dir "$work/profile" --lead 1s)
            [[ $mode == perf ]] && flags+=(--perf)
            if [[ $sender == pushbench ]]; then
                "$binary" profile "${flags[@]}" -- /bin/sh -c "exec env -u PUSHBENCH_TOKENS $binary run --requests $requests --rate $rate \
                    --no-budget --endpoint \"\$PUSHBENCH_APNS_URL\" --ca-file \"\$PUSHBENCH_CA_FILE\" \
                    --auth-key \"\$PUSHBENCH_AUTH_KEY\" --key-id \"\$PUSHBENCH_KEY_ID\" --team-id \"\$PUSHBENCH_TEAM_ID\" \
                    --reports-dir $work/child" >/dev/null 2>&1
            else
                "$binary" profile "${flags[@]}" --rate "$rate_py" --streams-before-token 1000 \
                    -- "$python" examples/aioapns_sender.py >/dev/null 2>&1
            fi
            read -r got cpu perf < <(figures "$work/profile")
            printf '%-10s %-7s %6d %12s %14s %16s\n' "$sender" "$mode" "$round" "$got" "$cpu" "$perf"
            echo "$sender $mode $got $cpu $perf" >>"$work/rounds"
        done
    done
done

echo
for sender in "${senders[@]}"; do
    for mode in plain perf; do
        for column in 3 4 5; do
            value=$(awk -v s="$sender" -v m="$mode" -v c="$column" '$1 == s && $2 == m { print $c }' "$work/rounds" | median)
            eval "${mode}_${column}=$value"
        done
    done
    awk -v s="$sender" -v pr="$plain_3" -v fr="$perf_3" -v pc="$plain_4" -v fc="$perf_4" -v own="$perf_5" 'BEGIN {
        printf "median %-10s without --perf %9.1f pushes/s %8.2f cpu_us/push; with %9.1f pushes/s %8.2f cpu_us/push", s, pr, pc, fr, fc
        printf " (x%.3f CPU a push); perf itself %.2f cpu_us/push\n", fc / pc, own
    }'
done
