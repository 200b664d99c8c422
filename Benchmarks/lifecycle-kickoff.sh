#!/usr/bin/env bash
# The kick-off of a big match, end to end: DEVICES devices (100,000 by default) in one football
# final, all in push-to-start cohorts, driven through a Netmera-shaped test service with
# examples/netmera-lifecycle.yaml: SERVICE `python` (Tests/Scripts/live_activity_service.py,
# aioapns, the default) or `go` (Tests/Services/netmera-go, Go's standard library only, built
# here with Debian's golang-go; fast enough for a million devices on 2 cores). The
# devices report their push-to-start tokens, one start call fans out to every device, every
# device reports its update token after the default delay, and the first UPDATES updates go to
# every activity whose token the service learned, at --time-scale SCALE. Football activities
# start 30 minutes of the scenario's clock before kick-off, so at SCALE 45 the kick-off update
# comes 40 s after the start call: after this test service's start fan-out and storm (about 35 s
# for 100,000 devices on 2 cores). A higher SCALE sends the updates while the storm still runs.
#
# Runs it twice: the service healthy, then losing DROP of the token reports it answers (0.05;
# DROP=0 runs only the healthy one). Prints each run's start fan-out, registration storm, time to
# first update, activities never updated and why, wasted pushes by cause, the service's CPU by
# phase, PushBench's own CPU per device event and beside the service's (their ratio), its peak
# resident memory and the time it took to build the reports. Fails when a profile fails, when the books do not balance, when the
# emulation costs more than 20 µs a device event (it must not be what is measured), or when
# PushBench's peak resident memory passes RSS_BUDGET_MIB (2048). Each run's report folder stays in
# OUT (a temporary folder by default) for render-report.sh.
#
# Usage: [UPDATES=3] [SCALE=45] [DROP=0.05] [RSS_BUDGET_MIB=2048] [OUT=dir] \
#            Benchmarks/lifecycle-kickoff.sh [DEVICES] [python|go]
#   e.g. Benchmarks/lifecycle-kickoff.sh 1000000 go
set -euo pipefail
cd "$(dirname "$0")/.."
activities=${1:-${ACTIVITIES:-100000}} kind=${2:-${SERVICE:-python}} updates=${UPDATES:-3} scale=${SCALE:-45}
drop=${DROP:-0.05} rss_budget_mib=${RSS_BUDGET_MIB:-2048}
case $kind in python | go) ;; *) echo "the service is python or go, not '$kind'" >&2 && exit 2 ;; esac
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
binary=.build/release/pushbench
swift build -c release --product pushbench >/dev/null # up to date with the sources, never a stale binary
export NETMERA_API_KEY=netmera-secret-5521
if [[ $kind == go ]]; then
    command -v go >/dev/null || { echo "the Go service needs Go: apt-get install golang-go" >&2 && exit 2; }
    (cd Tests/Services/netmera-go && go build -o ../../../.build/netmera-go .)
    service_command=(.build/netmera-go)
    drop_flag=-drop-reports
else
    # The service's aioapns, pinned as the conformance suite pins it, in the venv its tests share.
    venv=.build/conformance-venv
    requirements=Tests/Conformance/requirements.txt
    if ! cmp -s "$requirements" "$venv/requirements.installed"; then
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$requirements"
        cp "$requirements" "$venv/requirements.installed"
    fi
    service_command=("$venv/bin/python" Tests/Scripts/live_activity_service.py)
    drop_flag=--drop-reports
fi

runs=(healthy)
[[ $drop == 0 ]] || runs+=("drop-$drop")
status=0
for run in "${runs[@]}"; do
    service=("${service_command[@]}")
    [[ $run == healthy ]] || service+=("$drop_flag" "$drop")
    rm -rf "$out/$run"
    echo "== $run: $activities devices through the $kind service, $updates updates, --time-scale $scale"
    start=$(date +%s)
    exit_status=0
    "$binary" profile --api examples/netmera-lifecycle.yaml --scenario football --activities "$activities" \
        --requests "$updates" --time-scale "$scale" --streams-before-token 1000 --settle 5s --no-budget \
        --reports-dir "$out/$run" -- "${service[@]}" >"$out/$run.stdout" 2>"$out/$run.stderr" &
    pid=$!
    # PushBench's own peak resident memory (the service apart), read until it exits.
    peak_kib=0
    while kill -0 "$pid" 2>/dev/null; do
        hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
        [[ -n $hwm ]] && ((hwm > peak_kib)) && peak_kib=$hwm
        sleep 0.5
    done
    wait "$pid" || exit_status=$?
    echo "   took $(($(date +%s) - start)) s; first screen: $out/$run.stdout"
    echo "   PushBench's peak resident memory: $((peak_kib / 1024)) MiB (budget $rss_budget_mib MiB)"
    grep -h "reports built in" "$out/$run.stderr" | sed 's/^/   /' || true
    grep -h "update calls, .* pushes" "$out/$run.stderr" | sed 's/^/   the service: /' || true
    if ((peak_kib / 1024 > rss_budget_mib)); then
        echo "   FAILED: PushBench's peak resident memory passed its budget"
        status=1
    fi
    if ((exit_status != 0)); then
        echo "   FAILED: profile exited $exit_status; $(tail -n 1 "$out/$run.stderr")"
        status=1
        continue
    fi
    python3 - "$out/$run"/*/summary.json <<'PYTHON' || status=1
import json, sys
summary = json.load(open(sys.argv[1]))
life = summary["lifecycle"]
def ms(p): return "–" if p is None else "p50 %.0f / p99 %.0f / max %.0f ms" % (p["p50"], p["p99"], p["max"])
fan = life["start_fanout"]["all"]
print("   start fan-out: first %s; half %s; 99%% %s; last %s" % tuple(
    "%.0f ms" % fan[k]["p50"] if fan.get(k) else "–" for k in ("first_ms", "half_ms", "p99_ms", "last_ms")))
print("   started %d of %d" % (life["activities"]["started"], life["activities"]["expected"]))
storm = life["storm"]
reports = storm["reports"]
print("   storm: %d reports, peak offered %d/s, answered %d/s, latency %s, statuses %s, failed %s" % (
    reports["sent"], storm["peak_per_s"], storm.get("peak_answered_per_s") or 0, ms(reports.get("latency_ms")), reports["by_status"],
    reports["timed_out"] + reports["failed"]))
print("   start to reported token: %s" % ms(storm.get("start_to_report_ms")))
first = life.get("time_to_first_update_ms")
print("   time to first update: %s over %d activities" % (ms(first), first["count"] if first else 0))
acts = life["activities"]
print("   never updated: %d of %d started (%.1f%%): %s; never started: %d" % (
    acts["started_never_updated"], acts["started"], 100 * acts["started_never_updated"] / max(1, acts["started"]),
    acts["never_updated_by_cause"], acts["never_started"]))
print("   wasted pushes: %d %s" % (life["wasted_pushes"], life["wasted_pushes_by_cause"]))
print("   service CPU by phase: %s" % {k: round(v, 2) for k, v in (life.get("service_cpu_by_phase_s") or {}).items()})
print("   service CPU per unit of work (µs): %s" % {k: round(v, 1) for k, v in (life.get("service_cpu_us_per") or {}).items()})
starts = life.get("start_pushes") or {}
print("   start pushes: %s sent, %s accepted, %s refused" % (starts.get("sent"), starts.get("accepted"), starts.get("refused")))
emulation = life["emulation"]
per_event = emulation["cpu_us_per_event"] or 0
print("   PushBench playing the devices: %.2f s CPU, %d device events, %.1f µs each (budget 20)" % (
    emulation["cpu_s"], emulation["device_events"], per_event))
# The mock's threads less the device checks run on them, plus the devices' own CPU: no second twice.
sender = summary["sender"]
own_cpu = sender["mock_cpu_s"] + emulation["cpu_s"]
service_cpu = sender["cpu_user_s"] + sender["cpu_system_s"]
print("   PushBench's own CPU (the mock and the devices): %.2f s, against the service's %.2f s: x%.2f (goal: at most 0.3)" % (
    own_cpu, service_cpu, own_cpu / service_cpu if service_cpu > 0 else float("nan")))
counts = summary["events"]
print("   books: %d update pushes expected, %d matched, %d missing, %d extra" % (
    counts["total"], counts["total"] - counts["missing"], counts["missing"], summary["fanout"]["extra"]))
balanced = summary["accounting_balanced"]
print("   accounting: %s" % ("balanced" if balanced else "NOT balanced"))
sys.exit(0 if per_event <= 20 and balanced else 1)
PYTHON
done
exit $status
