#!/usr/bin/env bash
# Whether `pushbench compare`'s statistical timing gate flakes: GATES gates, each of RUNS baseline
# and RUNS current runs (closed loop against the embedded mock, baseline and current alternating),
# all with a CPU hog (`yes`) busy on one of the machine's cores. Both sides are the same build
# unless CURRENT_PUSHBENCH names another, so every failure is a false alarm; with a slower build
# there, the same count says how often the gate catches it.
#
# Prints each gate's throughput and p99 changes with their p-values and the verdict, then how many
# gates failed, and how many would have failed on medians alone (a change beyond its limit,
# significant or not), which is what the gate did before it had statistics.
#
# Usage: [CURRENT_PUSHBENCH=path] [HOG=0] [COMPARE_ARGS="--max-throughput-drop 2%"] \
#        Benchmarks/gate-flake.sh [GATES] [RUNS] [REQUESTS]
#        (defaults: 10 gates, 5 runs a side, 20000 requests a run, compare's default limits)
set -euo pipefail
cd "$(dirname "$0")/.."
gates=${1:-10} runs=${2:-5} requests=${3:-20000}
swift build -c release --product pushbench >&2
baseline_binary=$PWD/.build/release/pushbench
current_binary=${CURRENT_PUSHBENCH:-$baseline_binary}
work=$(mktemp -d)
hog=""
cleanup() {
    [[ -n $hog ]] && kill "$hog" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
if [[ ${HOG:-1} != 0 ]]; then
    yes >/dev/null &
    hog=$!
fi

# One run of binary $1 into folder $2; prints its summary.json's path.
measure() {
    "$1" run --requests "$requests" --activities 2000 --seed 7 --threads 1 --connections 2 --streams 50 \
        --no-budget --reports-dir "$2" >/dev/null 2>"$2.log" || { cat "$2.log" >&2; exit 1; }
    ls "$2"/*/summary.json
}

echo "$gates gates of $runs + $runs runs of $requests requests; CPU hog: $([[ -n $hog ]] && echo yes || echo no);" \
    "current: $current_binary" >&2
printf '%-5s %-24s %-24s %s\n' gate "throughput change (p)" "p99 change (p)" verdict
failed=0 median_failed=0
for gate in $(seq 1 "$gates"); do
    arguments=()
    for run in $(seq 1 "$runs"); do
        arguments+=(--baseline "$(measure "$baseline_binary" "$work/g$gate-b$run")")
        arguments+=(--current "$(measure "$current_binary" "$work/g$gate-c$run")")
    done
    status=0
    # shellcheck disable=SC2086 # COMPARE_ARGS is a list of flags.
    "$baseline_binary" compare "${arguments[@]}" ${COMPARE_ARGS:-} >"$work/g$gate.txt" || status=$?
    [[ $status -le 1 ]] || { cat "$work/g$gate.txt" >&2; exit 1; }
    # The table's columns: figure baseline current change p ratio_ci limit... verdict (p and
    # ratio_ci are there with 5 runs a side or more).
    row() { awk -v name="$1" '$1 == name {printf "%s (%s)", $4, $5}' "$work/g$gate.txt"; }
    beyond() { awk -v name="$1" -v sign="$2" -v limit="$3" \
        '$1 == name {change = $4; sub("%", "", change); if (sign * change > limit) print "yes"}' "$work/g$gate.txt"; }
    verdict=pass
    [[ $status -eq 1 ]] && verdict=FAIL && failed=$((failed + 1))
    drop=$(grep -o 'drop ≤ [0-9.]*' "$work/g$gate.txt" | grep -o '[0-9.]*$')
    rise=$(grep -o 'rise ≤ [0-9.]*' "$work/g$gate.txt" | grep -o '[0-9.]*$')
    [[ -n "$(beyond throughput_per_s -1 "$drop")$(beyond latency_p99_us 1 "$rise")" ]] && median_failed=$((median_failed + 1))
    printf '%-5s %-24s %-24s %s\n' "$gate" "$(row throughput_per_s)" "$(row latency_p99_us)" "$verdict"
done
echo
echo "statistical gate: $failed of $gates failed;" \
    "medians alone (throughput drop ${drop}%, p99 rise ${rise}%): $median_failed of $gates beyond a limit"
