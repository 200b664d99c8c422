#!/usr/bin/env bash
# The sender shootout: every sender PushBench can run, profiled on one scenario on one machine
# by `pushbench profile`, so their figures stand side by side: PushBench's two transports
# (nghttp2 and libcurl), h2load (a floor: it frames and sends, nothing else), and the APNs clients
# from PyPI that work against the mock (aioapns and kalyke-apns, pinned as the conformance
# suite pins them: Tests/Conformance/requirements.txt), and the senders of examples/as-apple/, which
# hard-code api.push.apple.com and are profiled unmodified under --as-apple (Python's httpx, Go's
# standard library, Node's http2, Java's HttpClient, curl in a shell loop; each skipped when its
# toolchain is missing).
#
# Each sender gets the same REQUESTS pushes of the football scenario, all due at once, and sends
# them as fast as it can: PushBench closed loop (4 connections × 100 streams), h2load on one
# connection × 100 streams, the Python clients 100 in flight (aioapns on 4 connections; kalyke
# opens one a push, as it does). The mock starts connections at full streams
# (--streams-before-token 1000), so no client loses pushes to APNs' one-stream start and the
# table compares speed. ROUNDS rounds, the senders in turn within each; the table holds the
# medians. Release build.
#
# Writes the table (Markdown) to stdout and, with OUT=FILE, to FILE too.
#
# Usage: [OUT=docs/sender-shootout.md.table] Benchmarks/sender-shootout.sh [ROUNDS] [REQUESTS]
#        (defaults: 3 rounds, 20000 pushes)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3} requests=${2:-20000}
command -v h2load >/dev/null || { echo "h2load not found: run Scripts/install-deps.sh (nghttp2-client)" >&2; exit 2; }
swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The pinned PyPI clients, in a virtual environment of their own.
python=$work/venv/bin/python
python3 -m venv "$work/venv"
"$python" -m pip install --disable-pip-version-check -q -r Tests/Conformance/requirements.txt >&2

contract='--endpoint "$PUSHBENCH_APNS_URL" --ca-file "$PUSHBENCH_CA_FILE" --auth-key "$PUSHBENCH_AUTH_KEY"'
contract+=' --key-id "$PUSHBENCH_KEY_ID" --team-id "$PUSHBENCH_TEAM_ID"'
declare -A senders=(
    ["pushbench nghttp2"]="exec $binary run $contract --requests $requests --no-budget --reports-dir $work/child"
    ["pushbench curl"]="exec $binary run $contract --transport curl --requests $requests --no-budget --reports-dir $work/child"
    ["h2load"]="exec $PWD/examples/h2load_sender.sh"
    ["aioapns 4.0"]="exec $python $PWD/examples/aioapns_sender.py"
    ["kalyke-apns 1.5.0"]="exec $python $PWD/Benchmarks/senders/kalyke_sender.py"
)
order=("pushbench nghttp2" "pushbench curl" "h2load" "aioapns 4.0" "kalyke-apns 1.5.0")

# The senders that dial Apple's own host, sealed with --as-apple.
declare -A sealed=()
as_apple() { senders["$1"]=$2; sealed["$1"]=1; order+=("$1"); }
if /usr/bin/python3 -c "import httpx, h2, cryptography" 2>/dev/null; then
    as_apple "httpx (as Apple)" "exec /usr/bin/python3 $PWD/examples/as-apple/httpx_sender.py"
fi
if command -v go >/dev/null && (cd examples/as-apple/go-sender && go build -o "$work/go-sender" .) >&2; then
    as_apple "Go net/http (as Apple)" "exec $work/go-sender"
fi
if command -v node >/dev/null; then
    as_apple "Node http2 (as Apple)" "exec node $PWD/examples/as-apple/node_sender.js"
fi
if command -v javac >/dev/null && javac -d "$work/java" examples/as-apple/JavaSender.java >&2; then
    as_apple "Java HttpClient (as Apple)" "exec java -cp $work/java JavaSender"
fi
as_apple "curl loop (as Apple)" "exec $PWD/examples/as-apple/curl_sender.sh"

for round in $(seq "$rounds"); do
    for name in "${order[@]}"; do
        reports=$work/reports/$round/${name// /-}
        echo "round $round: $name" >&2
        "$binary" profile --requests "$requests" --streams-before-token 1000 --no-budget --reports-dir "$reports" \
            ${sealed[$name]:+--as-apple} --duration 10m -- /bin/sh -c "${senders[$name]}" >"$work/profile.log" 2>&1 \
            || { echo "profile of $name failed:" >&2; tail -5 "$work/profile.log" >&2; }
        python3 - "$name" "$reports"/*/summary.json >>"$work/rows" <<'PYTHON'
import json, os, sys
name, path = sys.argv[1], sys.argv[2]
summary = json.load(open(path))
sender, lag, events = summary["sender"], summary["lag"], summary["events"]
practices = json.load(open(os.path.join(os.path.dirname(path), "traffic", "practices.json")))
findings = " ".join(sorted(finding["practice"] for finding in practices["findings"])) or "none"
print("\t".join([name, "%.1f" % sender["pushes_per_s"], "%.1f" % sender["cpu_us_per_push"],
    "%.1f" % (sender["peak_rss_bytes"] / 1048576), "%.1f" % lag["p50_ms"], "%.1f" % lag["p99_ms"],
    str(events["missing"]), str(sender["mock_peak_cpu_percent"] >= 90), findings]))
PYTHON
    done
done

python3 - "$work/rows" "$rounds" "$requests" "${order[@]}" <<'PYTHON' | tee "${OUT:-/dev/null}"
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
rounds, requests, order = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
print("| sender | pushes/s | CPU µs per push | peak RSS MiB | lag p50 ms | lag p99 ms | missing | mock busy | findings |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|")
for name in order:
    mine = [row for row in rows if row[0] == name]
    if not mine:
        continue
    median = lambda column: statistics.median(float(row[column]) for row in mine)
    busy = sum(row[7] == "True" for row in mine)
    print("| %s | %.0f | %.1f | %.1f | %.1f | %.1f | %d | %s | %s |" % (
        name, median(1), median(2), median(3), median(4), median(5), median(6),
        "%d of %d rounds" % (busy, len(mine)) if busy else "no", mine[-1][8]))
print()
print("Medians of %s rounds of %d pushes each (football scenario, all due at once)." % (rounds, requests))
PYTHON
