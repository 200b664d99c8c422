#!/usr/bin/env bash
# What measuring costs the mock: the same h2load (examples/h2load_sender.sh, one connection, 100
# streams, REQUESTS pushes) against the same one-thread mock, alternating, ROUNDS times each way:
#   profile  as the child of `pushbench profile --threads 1`, whose mock records every push to
#            traffic.csv and matches it against the schedule;
#   bare     against `pushbench mock --threads 1`, which validates, verifies and counts every push
#            as well, and records none: the same events file (the previous profile round's) and
#            the same provider-token signing.
# The mock's CPU a push is, for profile, the summary's `mock_cpu_s` (the PushBench process's own
# threads while the clock ran: the mock and the measuring) over the pushes received; for bare,
# the mock process's user + system CPU from /proc around the h2load, over its pushes. Every push
# must be accepted. Prints each round, the medians and profile's ratio to bare (the goal: at most
# 1.25). Exits 0 when every run succeeded: on a machine this shared the ratio is a figure to
# read, not a gate.
#
# Usage: Benchmarks/profile-vs-bare.sh [ROUNDS] [REQUESTS]   (defaults: 3 rounds, 100000 pushes)
# With BASELINE_PUSHBENCH=/path/to/an/older/pushbench, that binary runs both modes as well, in
# the same rotation ("baseline-profile", "baseline-bare"), so a change is judged against the
# build before it on the same machine at the same time.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} requests=${2:-100000}
command -v h2load >/dev/null || { echo "h2load not found: run Scripts/install-deps.sh (nghttp2-client)" >&2; exit 2; }
source Benchmarks/with-mock.sh

builds=("current:$binary")
[[ -n ${BASELINE_PUSHBENCH:-} ]] && builds+=("baseline:$BASELINE_PUSHBENCH")
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# CPU seconds (user + system) process $1 has used so far.
process_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"; }

# One profile round of binary $2 (label $1): prints "<pushes/s> <µs a push>"; keeps its events
# file as $work/events.jsonl for the bare rounds.
profile_round() {
    rm -rf "$work/profile"
    "$2" profile --threads 1 --requests "$requests" --no-budget --lead 1s --reports-dir "$work/profile" \
        --auth-key "$work/key.p8" --key-id "$key_id" --team-id "$team_id" -- /bin/sh -c \
        "cp \"\$PUSHBENCH_EVENTS\" $work/events.jsonl && exec examples/h2load_sender.sh" \
        >"$work/profile.log" 2>&1 || { cat "$work/profile.log" >&2; exit 1; }
    python3 - "$work"/profile/*/summary.json "$requests" <<'PYTHON'
import json, sys
sender, requests = json.load(open(sys.argv[1]))["sender"], int(sys.argv[2])
if sender["accepted"] != requests:
    sys.exit("profile: %d of %d pushes accepted" % (sender["accepted"], requests))
print("%.0f %.2f" % (sender["pushes_per_s"], sender["mock_cpu_s"] * 1e6 / requests))
PYTHON
}

# One bare round of binary $2 (label $1): the same h2load sender, with the contract it needs, at a
# plain mock; prints "<pushes/s> <µs a push>".
bare_round() {
    "$2" mock --port 0 --threads 1 --cert-out "$work/mock.pem" --auth-key "$work/public.pem" \
        --key-id "$key_id" --team-id "$team_id" >"$work/mock.log" 2>&1 &
    mock_pid=$!
    until origin=$(grep -o 'https://[0-9.:]*' "$work/mock.log" 2>/dev/null | head -1) && [[ -n $origin ]]; do sleep 0.1; done
    local before after output
    before=$(process_cpu "$mock_pid")
    output=$(PUSHBENCH_APNS_URL=$origin PUSHBENCH_EVENTS=$work/events.jsonl PUSHBENCH_START_AT=0 \
        PUSHBENCH_AUTH_KEY=$work/key.p8 PUSHBENCH_KEY_ID=$key_id PUSHBENCH_TEAM_ID=$team_id PUSHBENCH_TOPIC=$topic \
        examples/h2load_sender.sh 2>&1)
    after=$(process_cpu "$mock_pid")
    kill -INT "$mock_pid"; wait "$mock_pid" 2>/dev/null || true; mock_pid=""
    grep -q "$requests succeeded" <<<"$output" || { echo "bare: $output" >&2; exit 1; }
    awk -v before="$before" -v after="$after" -v n="$requests" \
        '/^finished in/ { printf "%.0f %.2f\n", $4, (after - before) * 1e6 / n }' <<<"$output"
}

printf '%-18s %6s %10s %16s\n' mode round pushes/s "mock_cpu_us/push"
for round in $(seq "$rounds"); do
    for build in "${builds[@]}"; do
        label=${build%%:*} path=${build#*:}
        prefix=$([[ $label == current ]] && echo "" || echo "$label-")
        for mode in profile bare; do
            read -r rate cpu < <("${mode}_round" "$label" "$path")
            printf '%-18s %6d %10s %16s\n' "$prefix$mode" "$round" "$rate" "$cpu"
            echo "$prefix$mode $rate $cpu" >>"$work/rounds"
        done
    done
done

echo
for build in "${builds[@]}"; do
    label=${build%%:*}
    prefix=$([[ $label == current ]] && echo "" || echo "$label-")
    for mode in profile bare; do
        rate=$(awk -v m="$prefix$mode" '$1 == m { print $2 }' "$work/rounds" | median)
        cpu=$(awk -v m="$prefix$mode" '$1 == m { print $3 }' "$work/rounds" | median)
        printf 'median %-18s %10.0f pushes/s %8.2f mock_cpu_us/push\n' "$prefix$mode" "$rate" "$cpu"
        eval "${mode}_cpu=$cpu"
    done
    awk -v p="$profile_cpu" -v b="$bare_cpu" -v l="$label" \
        'BEGIN { printf "%s: the mock costs x%.2f a push under profile against bare (goal: at most 1.25)\n", l, p / b }'
done
