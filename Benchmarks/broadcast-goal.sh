#!/usr/bin/env bash
# One goal of a final, sent to every fan per token and then by one broadcast, against the same
# `pushbench mock` in one run on this machine: what each way costs the sender (pushes, CPU,
# connections), what it costs the mock (its CPU for the whole run), and how long until APNs had
# accepted the update for 50%, 99% and 100% of the devices.
#
# The mock counts --subscribers-per-channel devices for a channel no start subscribed to, so the
# broadcast reaches the same FANS devices as the per-token burst (a burst sends no starts). The
# mock's CPU for the broadcast covers everything it did in that run: the TLS handshakes of the
# run's connections, the channel's creation and deletion, and the broadcast, whose fan-out it
# accounts as one count.
#
# Usage: Benchmarks/broadcast-goal.sh [FANS] (default: 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
fans=${1:-1000000}

source Benchmarks/with-mock.sh

start_signed_mock --channel-port 0 --subscribers-per-channel "$fans"
channels=$(grep -o 'broadcast channels: https://[0-9.:]*' "$work/mock.log" | grep -o 'https://.*')
[[ -n $channels ]] || { cat "$work/mock.log" >&2; exit 1; }

# CPU seconds process $1 has used so far, over all its threads, from the scheduler's nanosecond
# counts (/proc/PID/stat counts in 10 ms ticks, too coarse for one broadcast).
cpu() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ns += $1} END {printf "%.6f\n", ns / 1e9}'; }

printf '%-10s %14s %18s %12s %16s %12s %12s %12s %14s\n' delivery "sender pushes" "sender CPU (s)" connections \
    "devices reached" "50% (ms)" "99% (ms)" "100% (ms)" "mock CPU (ms)"
for delivery in token broadcast; do
    before=$(cpu "$mock_pid")
    "$binary" run --endpoint "$origin" --ca-file "$work/mock.pem" --channel-endpoint "$channels" \
        --auth-key "$work/key.p8" --key-id "$key_id" --team-id "$team_id" --activities "$fans" --burst goal \
        --delivery "$delivery" --threads 2 --connections 8 --timeout 120s --no-budget \
        --reports-dir "$work/runs-$delivery" >"$work/$delivery.log" 2>&1 || { cat "$work/$delivery.log" >&2; exit 1; }
    after=$(cpu "$mock_pid")
    python3 - "$work/runs-$delivery" "$delivery" "$before" "$after" <<'PYTHON'
import glob, json, sys
summary = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
reach = summary["device_reach_us"]
histogram = summary["device_reach_histogram_us"]
channel = summary.get("channel_requests") or {"created": 0, "deleted": 0}
print("%-10s %14s %18.2f %12d %16d %12.2f %12.2f %12.2f %14.2f" % (
    sys.argv[2],
    "%d%s" % (summary["counts"]["sent"], " + %d channel" % (channel["created"] + channel["deleted"]) if channel["created"] else ""),
    summary["engine_cpu_s"], len(summary["connections"]), histogram["total_count"],
    reach["p50"] / 1000, reach["p99"] / 1000, reach["max"] / 1000,
    (float(sys.argv[4]) - float(sys.argv[3])) * 1000))
PYTHON
done
