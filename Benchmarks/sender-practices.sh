#!/usr/bin/env bash
# Every `pushbench run --practice`, and careful runs, each against its own `pushbench mock
# --report` on this machine: what the sender doctor says of each (its findings, the first one's
# evidence and cost) beside what the mistake cost the run (successes per second against the
# careful run of the same kind, refusals, connections opened).
#
# The retry rows run against a mock that answers 5% of pushes 503 with Retry-After: 1; the
# careful one retries as asked (--retries 3), the other with retry-without-backoff. Their cost is
# in the doctor's column, not in the rate: a closed-loop run lasts until its last retry, so the
# careful one, waiting a second as asked, always shows the lower rate. Every other row runs
# against a mock without faults. The run is short (a few hundred milliseconds in release), so
# refresh is given in milliseconds to happen within it.
#
# Usage: Benchmarks/sender-practices.sh [REQUESTS] (default: 4000)
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-4000}

source Benchmarks/with-mock.sh

# One row: $1 the row's name, $2 the mock's extra arguments, then the run's extra arguments.
row() {
    local name=$1 mock_arguments=$2
    shift 2
    # shellcheck disable=SC2086 # the mock's arguments are words
    start_signed_mock --report "$work/$name" $mock_arguments
    "$binary" run --endpoint "$origin" --ca-file "$work/mock.pem" --auth-key "$work/key.p8" --key-id "$key_id" \
        --team-id "$team_id" --activities 200 --requests "$requests" --threads 2 --connections 4 --no-budget \
        --reports-dir "$work/runs-$name" "$@" >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
    kill -INT "$mock_pid"
    wait "$mock_pid" || true
    mock_pid=""
    python3 - "$work" "$name" <<'PYTHON'
import glob, json, sys
work, name = sys.argv[1], sys.argv[2]
summary = json.load(open(glob.glob("%s/runs-%s/*/summary.json" % (work, name))[0]))
doctor = json.load(open("%s/%s/practices.json" % (work, name)))
findings = doctor["findings"]
first = findings[0] if findings else {"evidence": "-", "cost": "-"}
rejected = summary["counts"]["rejected"]
print("\t".join([
    name,
    ", ".join(f["practice"] for f in findings) or "none",
    first["evidence"], first["cost"],
    "%.0f" % summary["successes_per_s"],
    str(rejected), str(summary.get("connection_attempts") or len(summary["connections"])),
]))
PYTHON
}

faults="--error-rate ServiceUnavailable=0.05 --retry-after 1s"
{
    row careful ""
    row per-worker-tokens "" --practice per-worker-tokens
    row token-per-connection "" --practice token-per-connection
    row token-per-push "" --practice token-per-push
    row refresh=50ms "" --practice refresh=50ms
    row clock-skew=-10m "" --practice clock-skew=-10m
    row connection-per-push "" --practice connection-per-push
    row one-stream "" --practice one-stream
    row all-priority-10 "" --practice all-priority-10
    row careful-retries "$faults" --retries 3
    row retry-without-backoff "$faults" --practice retry-without-backoff
} >"$work/rows.tsv"

python3 - "$work/rows.tsv" <<'PYTHON'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
careful = float(rows[0][4])
print("| run | doctor's findings | evidence (first finding) | cost (first finding) | successes/s | vs careful | rejected | connections opened |")
print("|---|---|---|---|---:|---:|---:|---:|")
for name, found, evidence, cost, rate, rejected, connections in rows:
    ratio = "-" if "retr" in name else "%.2f" % (float(rate) / careful)
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (name, found, evidence, cost, rate, ratio, rejected, connections))
PYTHON
