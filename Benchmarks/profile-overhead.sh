#!/usr/bin/env bash
# What `pushbench profile` costs the sender it measures, and whether its CPU figure is right.
#
# The same sender (PushBench's own, `pushbench run`, REQUESTS pushes of the football scenario,
# open loop at RATE pushes a second, 20,000 by default: below what either mock answers, so the
# mock does not set the pace and the sender's own cost shows) runs ROUNDS times each way,
# alternating, under /usr/bin/time:
#   plain    sending to a plain `pushbench mock` (one event-loop thread, verifying its tokens);
#   profile  as the child of `pushbench profile` (whose mock also records every push and matches
#            it against the schedule).
# Prints each round's pushes/s and CPU per push of the sender as /usr/bin/time and the sender's
# own summary.json see them, and for profile rounds the CPU per push profile measured from
# outside; then the medians, profile's ratio to plain (the goal: within 3%), and profile's own
# CPU figure against /usr/bin/time's (within 10%).
#
# Usage: [RATE=20000] Benchmarks/profile-overhead.sh [ROUNDS] [REQUESTS]   (defaults: 5 rounds, 100000 pushes)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5} requests=${2:-100000} rate=${RATE:-20000}
source Benchmarks/with-mock.sh

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The sender's figures of one round: pushes/s from its summary, CPU µs per push from time's file.
figures() { # $1 summary.json, $2 time file
    python3 - "$1" "$2" <<'PYTHON'
import json, sys
summary = json.load(open(sys.argv[1]))
user, system = map(float, open(sys.argv[2]).read().split())
pushes = summary["counts"]["sent"]
print("%.1f %.2f" % (summary["successes_per_s"], (user + system) * 1e6 / pushes))
PYTHON
}

sender=("$binary" run --requests "$requests" --rate "$rate" --no-budget --auth-key "$work/key.p8" --key-id "$key_id" --team-id "$team_id")
printf '%-8s %6s %12s %16s %18s\n' mode round pushes/s "cpu_us/push" "profile_cpu_us/push"
for round in $(seq "$rounds"); do
    rm -rf "$work/plain" "$work/profile" "$work/child"
    "$binary" mock --port 0 --cert-out "$work/mock.pem" --auth-key "$work/public.pem" --key-id "$key_id" \
        --team-id "$team_id" >"$work/mock.log" 2>&1 &
    mock_pid=$!
    until origin=$(grep -o 'https://[0-9.:]*' "$work/mock.log" 2>/dev/null | head -1) && [[ -n $origin ]]; do sleep 0.1; done
    /usr/bin/time -f '%U %S' -o "$work/plain.time" "${sender[@]}" --endpoint "$origin" --ca-file "$work/mock.pem" \
        --reports-dir "$work/plain" >/dev/null 2>&1
    kill -INT "$mock_pid"; wait "$mock_pid" 2>/dev/null || true; mock_pid=""
    read -r got cpu < <(figures "$work"/plain/*/summary.json "$work/plain.time")
    printf '%-8s %6d %12s %16s %18s\n' plain "$round" "$got" "$cpu" ""
    echo "plain $got $cpu" >>"$work/rounds"

    "$binary" profile --requests "$requests" --no-budget --reports-dir "$work/profile" --lead 1s \
        --auth-key "$work/key.p8" --key-id "$key_id" --team-id "$team_id" -- /bin/sh -c \
        "exec /usr/bin/time -f '%U %S' -o $work/profile.time $binary run --requests $requests --rate $rate --no-budget \
        --endpoint \"\$PUSHBENCH_APNS_URL\" --ca-file \"\$PUSHBENCH_CA_FILE\" --auth-key \"\$PUSHBENCH_AUTH_KEY\" \
        --key-id \"\$PUSHBENCH_KEY_ID\" --team-id \"\$PUSHBENCH_TEAM_ID\" --reports-dir $work/child" >/dev/null 2>&1
    read -r got cpu < <(figures "$work"/child/*/summary.json "$work/profile.time")
    measured=$(python3 -c 'import json, sys; print("%.2f" % json.load(open(sys.argv[1]))["sender"]["cpu_us_per_push"])' \
        "$work"/profile/*/summary.json)
    printf '%-8s %6d %12s %16s %18s\n' profile "$round" "$got" "$cpu" "$measured"
    echo "profile $got $cpu $measured" >>"$work/rounds"
done

echo
for mode in plain profile; do
    rate=$(awk -v m=$mode '$1 == m { print $2 }' "$work/rounds" | median)
    cpu=$(awk -v m=$mode '$1 == m { print $3 }' "$work/rounds" | median)
    printf 'median %-8s %10.1f pushes/s %8.2f cpu_us/push\n' "$mode" "$rate" "$cpu"
    eval "${mode}_rate=$rate ${mode}_cpu=$cpu"
done
measured=$(awk '$1 == "profile" { print $4 }' "$work/rounds" | median)
awk -v pr="$profile_rate" -v br="$plain_rate" -v pc="$profile_cpu" -v bc="$plain_cpu" -v m="$measured" 'BEGIN {
    printf "under profile: pushes/s x%.3f, CPU per push x%.3f of plain (goal: within 3%%)\n", pr / br, pc / bc
    printf "profile measured %.2f cpu_us/push from outside, /usr/bin/time %.2f: x%.3f (within 10%%)\n", m, pc, m / pc
}'
