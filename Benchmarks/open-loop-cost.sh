#!/usr/bin/env bash
# What an open-loop run costs the sender at modest rates, where it spends most of its time
# waiting for the next push's moment: engine CPU per push, how busy its worker was, how late
# pushes left (schedule lag) and their latency. Each binary given runs at each rate in turn,
# round after round, against its embedded mock, so two builds (before and after a change to the
# engine's waiting) compare side by side on this shared machine; the table gives medians.
#
# Usage: Benchmarks/open-loop-cost.sh [ROUNDS] [SECONDS] [RATES] [BINARY...]
#        (defaults: 3 rounds, 10 s a run, rates 1000,3000, the release build of this checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} seconds=${2:-10} rates=${3:-1000,3000}
shift $(($# < 3 ? $# : 3))
binaries=("$@")
if ((${#binaries[@]} == 0)); then
    swift build -c release --product pushbench >&2
    binaries=("$PWD/.build/release/pushbench")
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for round in $(seq 1 "$rounds"); do
    for rate in ${rates//,/ }; do
        for index in "${!binaries[@]}"; do
            out="$work/$index-$rate-$round"
            "${binaries[$index]}" run --rate "$rate" --duration "${seconds}s" --activities 2000 --no-budget \
                --reports-dir "$out" >/dev/null 2>&1
            echo "round $round, rate $rate, binary $index: done" >&2
        done
    done
done

python3 - "$work" "${binaries[@]}" <<'PYTHON'
import glob, json, statistics, sys
work, binaries = sys.argv[1], sys.argv[2:]
print("rate/s  binary  engine CPU µs/push  worker busy  schedule lag p50/p99 ms  latency p50/p99 ms")
rates = sorted({int(path.split("-")[-2]) for path in glob.glob(f"{work}/*-*-*")})
for rate in rates:
    for index, binary in enumerate(binaries):
        runs = [json.load(open(path)) for path in glob.glob(f"{work}/{index}-{rate}-*/*/summary.json")]
        median = lambda figure: statistics.median(figure(run) for run in runs)
        print(
            f"{rate:6d}  {index:6d}  {median(lambda r: r['engine_cpu_us_per_request']):18.1f}  "
            f"{median(lambda r: r['generator']['worker_busy_share']) * 100:10.0f}%  "
            f"{median(lambda r: r['schedule_lag_us']['p50']) / 1000:10.3f} / {median(lambda r: r['schedule_lag_us']['p99']) / 1000:7.3f}  "
            f"{median(lambda r: r['latency_us']['p50']) / 1000:8.3f} / {median(lambda r: r['latency_us']['p99']) / 1000:7.3f}"
        )
for index, binary in enumerate(binaries):
    print(f"binary {index}: {binary}")
PYTHON
