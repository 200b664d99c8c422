#!/usr/bin/env bash
# Whether the instructions gate flakes: GATES times, count a build's instructions per push under
# Valgrind (pushbench hotpath --instructions) with a CPU hog (`yes`) busy on each of the
# machine's cores, and judge the count against the committed baseline as CI does. With the
# build of the baseline's commit every failure is a false alarm; with CURRENT_PUSHBENCH naming a
# build with a regression put back, the same count says how often the gate catches it.
#
# Prints each gate's changes by stage and its verdict, then how many gates failed.
#
# Usage: [CURRENT_PUSHBENCH=path] [HOG=0] [PUSHES=1000] Benchmarks/instructions-flake.sh [GATES]
#        (default: 10 gates, judging .build/release/pushbench)
set -euo pipefail
cd "$(dirname "$0")/.."
gates=${1:-10}
if [[ -z ${CURRENT_PUSHBENCH:-} ]]; then swift build -c release --product pushbench >&2; fi
binary=${CURRENT_PUSHBENCH:-$PWD/.build/release/pushbench}
work=$(mktemp -d)
hogs=()
cleanup() {
    ((${#hogs[@]} == 0)) || kill "${hogs[@]}" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
if [[ ${HOG:-1} != 0 ]]; then
    for _ in $(seq 1 "$(nproc)"); do
        yes >/dev/null &
        hogs+=($!)
    done
fi

echo "$gates gates against Benchmarks/baselines/instructions.json; CPU hogs: ${#hogs[@]}; build: $binary" >&2
failed=0
for gate in $(seq 1 "$gates"); do
    "$binary" hotpath --instructions --pushes "${PUSHES:-1000}" --json "$work/g$gate.json" >/dev/null 2>"$work/g$gate.log" ||
        { cat "$work/g$gate.log" >&2; exit 1; }
    status=0
    "$binary" compare Benchmarks/baselines/instructions.json "$work/g$gate.json" >"$work/g$gate.txt" || status=$?
    [[ $status -le 1 ]] || { cat "$work/g$gate.txt" >&2; exit 1; }
    verdict=pass
    [[ $status -eq 1 ]] && verdict=FAIL && failed=$((failed + 1))
    changes=$(awk '$1 ~ /_instructions_per_push$/ {sub("_instructions_per_push", "", $1); printf "%s %s  ", $1, $4}' \
        "$work/g$gate.txt")
    printf 'gate %-3s %s %s\n' "$gate" "$verdict" "$changes"
done
echo
echo "instructions gate: $failed of $gates failed"
