#!/usr/bin/env bash
# The load engine's throughput on glibc malloc and on jemalloc, side by side.
#
# Runs `pushbench run` (release build, embedded mock on loopback) alternately on each allocator,
# ROUNDS times, so both see the same machine noise, and prints every run and the medians.
# jemalloc is loaded with LD_PRELOAD: the same binary, nothing rebuilt. The embedded mock runs in
# the same process, so the figures are the allocator's worth for sender and mock together.
#
# Usage: Benchmarks/engine-allocators.sh [ROUNDS] [REQUESTS]   (defaults: 3 rounds of 50000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
requests=${2:-50000}
jemalloc=""
for candidate in /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/aarch64-linux-gnu/libjemalloc.so.2; do
    [[ -r $candidate ]] && jemalloc=$candidate && break
done
[[ -n $jemalloc ]] || { echo "libjemalloc.so.2 not found: run Scripts/install-deps.sh" >&2; exit 2; }

swift build -c release --product pushbench >&2
binary=.build/release/pushbench
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT

# Prints "<req/s> <engine µs per request>" for one run.
measure() {
    local output
    output=$(env ${1:+LD_PRELOAD=$1} "$binary" run --requests "$requests" --reports-dir "$reports" 2>/dev/null)
    local rate cpu
    rate=$(awk '/^throughput/ {print $2}' <<<"$output")
    cpu=$(awk '/^engine CPU/ {print $(NF-3)}' <<<"$output")
    echo "$rate $cpu"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

printf '%-6s %-9s %12s %22s\n' round allocator "req/s" "engine µs/request"
glibc_rates=() jemalloc_rates=() glibc_cpu=() jemalloc_cpu=()
for round in $(seq 1 "$rounds"); do
    read -r rate cpu < <(measure "")
    glibc_rates+=("$rate") glibc_cpu+=("$cpu")
    printf '%-6s %-9s %12s %22s\n' "$round" glibc "$rate" "$cpu"
    read -r rate cpu < <(measure "$jemalloc")
    jemalloc_rates+=("$rate") jemalloc_cpu+=("$cpu")
    printf '%-6s %-9s %12s %22s\n' "$round" jemalloc "$rate" "$cpu"
done
g=$(printf '%s\n' "${glibc_rates[@]}" | median)
j=$(printf '%s\n' "${jemalloc_rates[@]}" | median)
printf '\nmedian    glibc %s req/s (%s µs/request), jemalloc %s req/s (%s µs/request), jemalloc/glibc %s\n' \
    "$g" "$(printf '%s\n' "${glibc_cpu[@]}" | median)" "$j" "$(printf '%s\n' "${jemalloc_cpu[@]}" | median)" \
    "$(awk -v a="$g" -v b="$j" 'BEGIN {printf "%.2f×", b / a}')"
