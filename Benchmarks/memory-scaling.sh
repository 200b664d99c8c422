#!/usr/bin/env bash
# Peak resident memory of `pushbench run` at two run lengths: a sender that keeps nothing per
# push (tokens derived on demand, histograms of fixed size, per-second series dropped once
# merged) uses the same memory for ten times the pushes.
#
# Each run sends the football scenario closed loop to the embedded mock (release build, 1 × 100
# streams, no budget model) and is measured by /usr/bin/time (maximum resident set size, which
# includes the in-process mock). Prints both peaks and their ratio.
#
# Usage: Benchmarks/memory-scaling.sh [SMALL] [LARGE]   (defaults: 1000000 10000000 pushes)
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-1000000}
large=${2:-10000000}
swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints the peak RSS in kB of a run of $1 pushes.
peak_kb() {
    local requests=$1 output
    # The football scenario sends 107 pushes per activity; give it enough activities.
    output=$(/usr/bin/time -f 'peak_kb %M' "$binary" run --requests "$requests" \
        --activities $((requests / 100 + 1)) --connections 1 --streams 100 --no-budget \
        --reports-dir "$work/reports" 2>&1)
    grep -q "^succeeded *$requests\$" <<<"$output" || { echo "$output" >&2; exit 1; }
    awk '/^peak_kb/ {print $2}' <<<"$output"
}

small_kb=$(peak_kb "$small")
echo "$small pushes: peak RSS $((small_kb / 1024)) MiB"
large_kb=$(peak_kb "$large")
echo "$large pushes: peak RSS $((large_kb / 1024)) MiB"
awk -v a="$small_kb" -v b="$large_kb" 'BEGIN {printf "ratio %.3f (the target is at most 1.2)\n", b / a}'
