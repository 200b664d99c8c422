#!/usr/bin/env bash
# What PushBench costs while the subject it profiles is idle: its own CPU, thread by thread, in a
# window in which nothing is due. Two profiles, ROUNDS times each, alternating:
#   sender     a sender that sleeps (the watcher and the mock's loops, nothing else);
#   lifecycle  DEVICES devices through the Go test service at --time-scale 1, measured after
#              their starts and token reports, while the first update is still half an hour of
#              the scenario's clock away (the calls' and the devices' threads waiting too).
# Each window is WINDOW seconds (20), from the kernel's per-thread accounting in
# /proc/PID/task/*/stat (by the kernel's thread name: the mock's loops are mock-loop-N, the
# threads Foundation names go under the process's), so PushBench's start and its reports are
# outside it. The goal is at most 0.5% of a core in all. With BEFORE (another pushbench binary,
# an earlier build), each round measures it too, side by side, on the same machine at the same
# time.
#
# Usage: [ROUNDS=3] [WINDOW=20] [DEVICES=200] [BEFORE=binary] Benchmarks/profile-idle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3} window=${WINDOW:-20} devices=${DEVICES:-200}
swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
command -v go >/dev/null || { echo "the lifecycle profile needs Go: apt-get install golang-go" >&2 && exit 2; }
(cd Tests/Services/netmera-go && go build -o ../../../.build/netmera-go .)
export NETMERA_API_KEY=netmera-secret-5521
work=$(mktemp -d)
pid=
# A profile still running (the script stopped) is interrupted; it writes its reports into $work.
trap '[[ -z $pid ]] || kill -INT "$pid" 2>/dev/null; rm -rf "$work"' EXIT

# Clock ticks of each thread of process $1, by name: "name ticks" lines.
thread_ticks() {
    for task in /proc/"$1"/task/*; do
        name=$(cat "$task/comm" 2>/dev/null) || continue
        # utime and stime: the 14th and 15th fields, counted after the command's parenthesis.
        ticks=$(sed 's/.*) //' "$task/stat" 2>/dev/null | awk '{ print $12 + $13 }') || continue
        echo "$name $ticks"
    done | awk '{ sum[$1] += $2 } END { for (n in sum) print n, sum[n] }' | sort
}

# Starts profile $1 with binary $3 in the background, waits $2 seconds, measures $window
# seconds; prints the per-thread milliseconds and the total's share of a core.
measure() {
    local kind=$1 settle=$2 binary=$3
    case $kind in
    sender)
        "$binary" profile --requests 10 --no-budget --reports-dir "$work/$kind" \
            -- sh -c "sleep $((settle + window + 5))" >/dev/null 2>&1 &
        ;;
    lifecycle)
        "$binary" profile --api examples/netmera-lifecycle.yaml --scenario football --activities "$devices" \
            --requests 3 --time-scale 1 --duration "$((settle + window + 5))s" --no-budget \
            --reports-dir "$work/$kind" -- .build/netmera-go >/dev/null 2>&1 &
        ;;
    esac
    pid=$!
    sleep "$settle"
    thread_ticks "$pid" >"$work/before"
    sleep "$window"
    thread_ticks "$pid" >"$work/after"
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
    join -a 2 -e 0 -o 2.1,1.2,2.2 "$work/before" "$work/after" | awk -v hz="$(getconf CLK_TCK)" -v window="$window" '
        { ms = ($3 - $2) * 1000 / hz; total += ms; if (ms > 0) parts = parts sprintf(" %s %.0f ms;", $1, ms) }
        END { printf "%.2f%% of a core (%.0f ms in %d s):%s\n", total / window / 10, total, window, parts }'
}

for round in $(seq 1 "$rounds"); do
    for kind in sender lifecycle; do
        settle=$([[ $kind == sender ]] && echo 6 || echo 15)
        printf 'round %d, %-9s this build:   %s\n' "$round" "$kind" "$(measure "$kind" "$settle" "$binary")"
        if [[ -n ${BEFORE:-} ]]; then
            printf 'round %d, %-9s BEFORE build: %s\n' "$round" "$kind" "$(measure "$kind" "$settle" "$BEFORE")"
        fi
    done
done
