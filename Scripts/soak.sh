#!/usr/bin/env bash
# Soak: a long open-loop run at a steady rate against `pushbench mock` with an incident every
# five minutes (a 503 burst, GOAWAY, a reset, a stall, in turn), to show the engine stays
# standing and honest when the target misbehaves for a long time.
#
# Every 10 s it samples both processes' resident memory and open file descriptors. At the end it
# writes OUT/soak.csv (the samples), OUT/incidents.csv (completed/s in the 30 s before and after
# each incident) and OUT/soak.txt, and keeps the run's report in OUT/run/:
#   - peak RSS and its growth after the warm-up (the first two minutes), for sender and mock;
#   - peak and last file descriptors;
#   - the run's books (sent = succeeded + rejected + errored + timed out: requests lost must be 0);
#   - throughput back to normal after each incident (the 30 s after within 10% of the 30 s before).
# It exits non-zero when the books do not balance, memory or descriptors grow, or throughput
# does not recover.
#
# Usage: Scripts/soak.sh [MINUTES] [RATE] [OUT]   (defaults: 30 minutes, 1000 pushes/s, Reports/soak-<time>)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30} rate=${2:-1000} out=${3:-Reports/soak-$(date -u +%Y%m%d-%H%M%S)}
seconds=$((minutes * 60))
((seconds >= 300)) || { echo "a soak needs at least 5 minutes (one incident cycle)" >&2; exit 2; }

swift build -c release --product pushbench >&2
binary=$PWD/.build/release/pushbench
work=$(mktemp -d)
mkdir -p "$out"
mock_pid= run_pid=
cleanup() {
    [[ -n $run_pid ]] && kill -INT "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null
    [[ -n $mock_pid ]] && kill -INT "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
source Benchmarks/signed-push.sh

# One incident every 300 s, kinds in turn, starting at 150 s (after the warm-up).
python3 - "$seconds" "$work/incidents.txt" >"$work/soak-faults.json" <<'PYTHON'
import json, sys
seconds = int(sys.argv[1])
kinds = [
    {"kind": "errors", "for": "20s", "reason": "ServiceUnavailable", "share": 0.3},
    {"kind": "goaway"},
    {"kind": "reset"},
    {"kind": "stall", "for": "3s"},
]
incidents = []
for index, at in enumerate(range(150, seconds - 60, 300)):
    incident = dict(kinds[index % len(kinds)])
    incident["at"] = f"{at}s"
    incidents.append(incident)
print(json.dumps({"name": "soak", "seed": 7, "latency": "lognormal:5ms,0.3", "incidents": incidents}))
with open(sys.argv[2], "w") as listing:
    for incident in incidents:
        listing.write(f"{incident['at'][:-1]},{incident['kind']}\n")
PYTHON

start_signed_mock --faults "$work/soak-faults.json"
echo "mock $origin with $(wc -l <"$work/incidents.txt") incidents; soaking $minutes min at $rate pushes/s into $out" >&2
# The football scenario sends 107 pushes per activity: enough activities for the whole soak.
"$binary" run --endpoint "$origin" --ca-file "$work/mock.pem" --key "$work/key.p8" --key-id "$key_id" \
    --team-id "$team_id" --rate "$rate" --duration "${seconds}s" --activities $((rate * seconds / 100 + 1000)) \
    --connections 4 --retries 2 --timeout 5s --no-budget --reports-dir "$work/runs" \
    >"$out/run-stdout.txt" 2>"$work/run-stderr.txt" &
run_pid=$!

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
echo "elapsed_s,sender_rss_kb,sender_fds,mock_rss_kb,mock_fds" >"$out/soak.csv"
began=$(date +%s)
while kill -0 "$run_pid" 2>/dev/null; do
    echo "$(($(date +%s) - began)),$(rss_kb "$run_pid"),$(fds "$run_pid"),$(rss_kb "$mock_pid"),$(fds "$mock_pid")" \
        >>"$out/soak.csv"
    sleep 10
done
status=0
wait "$run_pid" || status=$?
run_pid=
((status == 0)) || { echo "the run failed ($status):" >&2; tail -5 "$work/run-stderr.txt" >&2; exit 1; }
rm -rf "$out/run"
mv "$work/runs/"* "$out/run"

python3 - "$out" "$work/incidents.txt" <<'PYTHON'
import csv, json, sys
out, incidents_file = sys.argv[1], sys.argv[2]
samples = list(csv.DictReader(open(f"{out}/soak.csv")))
summary = json.load(open(f"{out}/run/summary.json"))
seconds = {int(row["second"]): float(row["completed_per_s"]) for row in csv.DictReader(open(f"{out}/run/timeseries.csv"))}
warm = [row for row in samples if int(row["elapsed_s"]) >= 120] or samples
lines, failures = [], []

def grows(name, column, limit_kb):
    values = [int(row[column]) for row in warm]
    first, peak, last = values[0], max(values), values[-1]
    lines.append(f"{name}: peak {peak} , after warm-up {first} → last {last} (growth {last - first:+d})")
    if last - first > limit_kb:
        failures.append(f"{name} grew by {last - first} after the warm-up")

grows("sender RSS kB", "sender_rss_kb", 20_000)
grows("mock RSS kB", "mock_rss_kb", 20_000)
grows("sender file descriptors", "sender_fds", 2)
grows("mock file descriptors", "mock_fds", 8)

counts = summary["counts"]
lost = counts["sent"] - counts["succeeded"] - counts["rejected"] - counts["errored"] - counts["timed_out"]
lines.append(
    f"books: sent {counts['sent']}, succeeded {counts['succeeded']}, rejected {counts['rejected']}, "
    f"errored {counts['errored']}, timed out {counts['timed_out']}; requests lost {lost}; "
    f"retries recovered {summary['retries']['recovered']}, reconnections {summary['reconnections']}"
)
if lost != 0 or not summary["accounting_balanced"]:
    failures.append(f"{lost} requests lost")

def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else 0.0

with open(f"{out}/incidents.csv", "w", newline="") as file:
    writer = csv.writer(file)
    writer.writerow(["at_s", "kind", "completed_per_s_before", "completed_per_s_after", "after_over_before"])
    for line in open(incidents_file):
        at, kind = line.strip().split(",")
        at = int(at)
        span = 20 if kind == "errors" else 3 if kind == "stall" else 0
        before = mean(seconds.get(s, 0) for s in range(at - 30, at))
        after = mean(seconds.get(s, 0) for s in range(at + span + 5, at + span + 35))
        ratio = after / before if before else 0
        writer.writerow([at, kind, f"{before:.1f}", f"{after:.1f}", f"{ratio:.3f}"])
        lines.append(f"incident {kind} at {at} s: {before:.0f}/s before, {after:.0f}/s after ({ratio:.2f})")
        if abs(ratio - 1) > 0.10:
            failures.append(f"throughput after the {kind} at {at} s is {ratio:.2f} of before")

lines.append("PASS" if not failures else "FAIL: " + "; ".join(failures))
open(f"{out}/soak.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(1 if failures else 0)
PYTHON
