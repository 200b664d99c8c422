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
echo "abusing a release pushbench mock with $idle idle connections among the attacks" >&2
/usr/bin/python3 Tests/Scripts/abuse_mock.py .build/release/pushbench --idle "$idle" --summary "$out/abuse.json" |
    tee "$out/abuse.txt"
