#!/usr/bin/env bash
# The instructions gate CI runs on every change: counts this build's instructions per push, stage
# by stage, under Valgrind (pushbench hotpath --instructions), and judges them against the
# committed baseline with `pushbench compare` (a stage fails above +2%). Counts do not change
# with the machine's load, so one count a side is enough.
#
#   Benchmarks/instructions-gate.sh               # judge .build/release/pushbench
#   UPDATE=1 Benchmarks/instructions-gate.sh      # count again and write the baseline
#
# Environment: PUSHBENCH (the binary, default .build/release/pushbench), PUSHES (default 1000),
# OUT (where the count, gate.md and gate.xml go, default .build/instructions-gate).
set -euo pipefail
cd "$(dirname "$0")/.."
pushbench=${PUSHBENCH:-.build/release/pushbench}
out=${OUT:-.build/instructions-gate}
baseline=Benchmarks/baselines/instructions.json
mkdir -p "$out"
"$pushbench" hotpath --instructions --pushes "${PUSHES:-1000}" --json "$out/current.json"
if [[ ${UPDATE:-0} == 1 ]]; then
  cp "$out/current.json" "$baseline"
  echo "baseline written: $baseline" >&2
  exit 0
fi
"$pushbench" compare "$baseline" "$out/current.json" --markdown "$out/gate.md" --junit "$out/gate.xml"
