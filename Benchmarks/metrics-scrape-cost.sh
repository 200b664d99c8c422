#!/usr/bin/env bash
# What watching a run costs it: the same closed-loop run against its embedded mock, with
# `--metrics-port` scraped by curl every 100 ms and without, alternating round by round on this
# shared machine. Prints each run's throughput and the engine's CPU per push, then the medians
# and the ratios (scraped / unscraped): a scrape asks every worker for its books at its next turn
# of the loop, so the workers should pay for it per scrape, never per push.
#
# Usage: Benchmarks/metrics-scrape-cost.sh [ROUNDS] [REQUESTS] [INTERVAL_S]
#        (defaults: 5 rounds, 300000 requests, a scrape every 0.1 s)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5} requests=${2:-300000} interval=${3:-0.1}
swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
work=$(mktemp -d)
scraper=""
cleanup() {
    [[ -n $scraper ]] && kill "$scraper" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

# One run into $work/$1-$2; with $1 = scraped, a curl loop scrapes it every $interval s.
measure() {
    local mode=$1 round=$2 port=""
    local out="$work/$mode-$round"
    if [[ $mode == scraped ]]; then
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        (while true; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics" || true; sleep "$interval"; done) &
        scraper=$!
    fi
    "$binary" run --requests "$requests" --threads 1 --connections 4 --streams 100 --no-budget \
        ${port:+--metrics-port "$port"} --reports-dir "$out" >/dev/null 2>"$out.log"
    if [[ -n $scraper ]]; then
        kill "$scraper" 2>/dev/null
        wait "$scraper" 2>/dev/null || true
        scraper=""
    fi
}

printf '%-6s %-10s %10s %18s\n' round mode "pushes/s" "engine µs/push"
for round in $(seq 1 "$rounds"); do
    for mode in unscraped scraped; do
        measure "$mode" "$round"
        python3 - "$work/$mode-$round" "$round" "$mode" <<'PYTHON'
import glob, json, sys
summary = json.load(open(glob.glob(f"{sys.argv[1]}/*/summary.json")[0]))
print(f"{sys.argv[2]:<6} {sys.argv[3]:<10} {summary['throughput_per_s']:>10.0f} {summary['engine_cpu_us_per_request']:>18.2f}")
PYTHON
    done
done
python3 - "$work" <<'PYTHON'
import glob, json, statistics, sys
medians = {}
for mode in ("unscraped", "scraped"):
    runs = [json.load(open(path)) for path in glob.glob(f"{sys.argv[1]}/{mode}-*/*/summary.json")]
    medians[mode] = (statistics.median(r["throughput_per_s"] for r in runs),
                     statistics.median(r["engine_cpu_us_per_request"] for r in runs))
(u_rate, u_cpu), (s_rate, s_cpu) = medians["unscraped"], medians["scraped"]
print(f"\nmedians: unscraped {u_rate:.0f} pushes/s {u_cpu:.2f} µs/push, scraped {s_rate:.0f} pushes/s "
      f"{s_cpu:.2f} µs/push; scraped/unscraped throughput {s_rate / u_rate:.3f}, CPU per push {s_cpu / u_cpu:.3f}")
PYTHON
