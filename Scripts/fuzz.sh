#!/usr/bin/env bash
# Fuzz: libFuzzer (Swift's -sanitize=fuzzer) over the mock's request checks for a bounded time:
# path parsing, header validation, provider-token (JWT) parsing and verification, the Live
# Activity payload scan, broadcasts and channel management (MockAPNs' RequestFuzzer says how an
# input reads). It starts from Fuzz/seeds and every input that ever crashed (Fuzz/regressions).
#
# Writes OUT/fuzz.log (libFuzzer's own), OUT/corpus/ (the inputs that reached new code) and, for a
# crash, OUT/crash-<sha1>. A crash is a bug: copy its file into Fuzz/regressions/, where
# FuzzRegressionTests replays it on every `swift test`, then fix it.
#
# Usage: Scripts/fuzz.sh [SECONDS] [OUT]   (defaults: 600 s, Reports/fuzz-<time>)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600} out=${2:-Reports/fuzz-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out/corpus"
swift build --package-path Fuzz --sanitize=fuzzer --product MockRequestFuzzer >&2
echo "fuzzing the mock's request checks for $seconds s into $out" >&2
status=0
Fuzz/.build/debug/MockRequestFuzzer -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -dict=Fuzz/request.dict -print_final_stats=1 -artifact_prefix="$out/" \
    "$out/corpus" Fuzz/seeds Fuzz/regressions >"$out/fuzz.log" 2>&1 || status=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$' || echo "?")
speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$out/fuzz.log" | grep -o '[0-9]*$' || echo "?")
coverage=$(grep -o 'cov: [0-9]*' "$out/fuzz.log" | tail -1 | grep -o '[0-9]*' || echo "?")
crashes=$(find "$out" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'timeout-*' -o -maxdepth 1 -name 'oom-*' | wc -l)
echo "$runs inputs in $seconds s ($speed a second), $coverage coverage points, corpus of $(ls "$out/corpus" | wc -l), $crashes crash(es)" |
    tee "$out/fuzz.txt"
if ((status != 0 || crashes > 0)); then
    grep -E -A12 'ERROR|Fatal error|deadly signal' "$out/fuzz.log" | head -40 >&2
    echo "FAIL: see $out/fuzz.log; copy the crash file into Fuzz/regressions/ and fix it" >&2
    exit 1
fi
echo PASS
