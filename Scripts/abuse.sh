#!/usr/bin/env bash
# Abuse: hostile and broken clients against a release `pushbench mock` over real sockets, at full
# scale, while a well-behaved client keeps pushing (Tests/Scripts/abuse_mock.py says what each
# attack is). Passes when the mock stays up, answers that client 200 throughout, frees every
# abusive connection and counts what it refused. `swift test` runs the same attacks with 500 idle
# connections; this runs them with 10,000.
#
# Writes OUT/abuse.txt (a line per attack) and OUT/abuse.json (the figures: the mock's memory per
# idle connection, its RSS and descriptors, what it refused, the client's answers).
#
# Usage: Scripts/abuse.sh [IDLE] [OUT]   (defaults: 10000 idle connections, Reports/abuse-<time>)
set -euo pipefail
cd "$(dirname "$0")/.."
idle=${1:-10000} out=${2:-Reports/abuse-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out"
swift build -c release --product pushbench >&2
work=$(mktemp -d)
mock_pid=
cleanup() {
    [[ -n $mock_pid ]] && kill -INT "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

.build/release/pushbench mock --port 0 --admin-port 0 --cert-out "$work/mock.pem" \
    --max-connections $((idle + 100)) --handshake-timeout 2 >"$work/mock.log" 2>&1 &
mock_pid=$!
for _ in $(seq 1 50); do grep -q "counters:" "$work/mock.log" && break; sleep 0.1; done
port=$(grep -o 'https://127.0.0.1:[0-9]*' "$work/mock.log" | head -1 | cut -d: -f3)
admin=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/mock.log" | head -1 | cut -d: -f3)
[[ -n $port && -n $admin ]] || { cat "$work/mock.log" >&2; exit 1; }
grep -q "^warning" "$work/mock.log" && cat "$work/mock.log" >&2
echo "abusing the mock on port $port (pid $mock_pid) with $idle idle connections among the attacks" >&2
/usr/bin/python3 Tests/Scripts/abuse_mock.py "$port" "$admin" "$work/mock.pem" "$mock_pid" --idle "$idle" \
    --handshake-timeout 2 --summary "$out/abuse.json" | tee "$out/abuse.txt"
