#!/usr/bin/env bash
# Renders a PushBench HTML report to PNG in Debian's headless chromium, with every host name
# unresolvable, and fails if the page refers to anything outside itself or logs anything to the
# console (a script error): the reports must stand alone, offline.
#
# With DOM.html, also writes the page as the browser built it (its SVG charts included), for
# checks of what a reader sees.
#
# Usage: Scripts/render-report.sh REPORT.html OUT.png [WIDTH,HEIGHT] [DOM.html]   (default 1000,2600)
set -euo pipefail
(($# >= 2)) || { echo "usage: $0 REPORT.html OUT.png [WIDTH,HEIGHT] [DOM.html]" >&2; exit 2; }
report=$1 out=$2 size=${3:-1000,2600} dom=${4:-}
[[ -f $report ]] || { echo "error: no such report: $report" >&2; exit 2; }
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] || { echo "error: chromium not found (apt-get install chromium)" >&2; exit 2; }
# Chromium does not log a failed fetch, so look for one in the page itself.
if grep -Eiq "(src|href)=[\"']?(https?:)?//|url\([\"']?(https?:)?//|@import" "$report"; then
    echo "error: $report refers to something outside itself:" >&2
    grep -Eio "(src|href)=[\"']?(https?:)?//[^\"' >]*|url\([^)]*\)|@import[^;]*" "$report" | head -5 >&2
    exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0 \
    --window-size="$size" --screenshot="$out" "file://$(realpath "$report")" 2>"$log" || {
    cat "$log" >&2
    exit 1
}
if grep -q ":CONSOLE" "$log"; then
    echo "error: $report logged to the console:" >&2
    grep ":CONSOLE" "$log" >&2
    exit 1
fi
[[ -s $out ]] || { echo "error: chromium wrote no screenshot" >&2; exit 1; }
if [[ -n $dom ]]; then
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --host-resolver-rules="MAP * ~NOTFOUND" \
        --dump-dom "file://$(realpath "$report")" >"$dom" 2>"$log" || {
        cat "$log" >&2
        exit 1
    }
    [[ -s $dom ]] || { echo "error: chromium wrote no DOM" >&2; exit 1; }
fi
echo "rendered $report to $out ($size), no console messages"
