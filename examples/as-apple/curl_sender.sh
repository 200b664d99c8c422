#!/usr/bin/env bash
# A sender as a shell script ships: curl --http2 in a loop, Apple's host hard-coded.
#
#   pushbench profile --as-apple --requests 2000 -- examples/as-apple/curl_sender.sh
#
# It dials https://api.push.apple.com and reads no PUSHBENCH_* variable for the host or the CA:
# under --as-apple that name is the mock, and curl trusts the mock's CA through CURL_CA_BUNDLE
# (which curl reads before its built-in bundle). Its work and its key come from the contract
# (PUSHBENCH_EVENTS, _START_AT, _AUTH_KEY, _KEY_ID, _TEAM_ID), as a real script's come from its
# queue and its secrets. Each loop sends the next 100 pushes when the first of them is due, in
# one curl process (--parallel multiplexes them over HTTP/2). Needs curl, openssl, perl, awk and
# split.
set -euo pipefail
APNS=https://api.push.apple.com
BATCH=100
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bearer="bearer $("$(dirname "$0")/../provider_token.sh")"

export LC_ALL=C
split -l "$BATCH" -d -a 6 "$PUSHBENCH_EVENTS" "$work/batch."
failed=0
for batch in "$work"/batch.*; do
  # The events' members come in a fixed order (docs/profile.md): at_s, token, push_type, topic,
  # priority, expiration, ..., payload last. One curl config entry a push.
  awk -F'"' -v apns="$APNS" -v bearer="$bearer" '{
      payload = substr($0, index($0, "\"payload\":") + 10); sub(/}$/, "", payload)
      gsub(/\\/, "\\\\", payload); gsub(/"/, "\\\"", payload)
      priority = $17; gsub(/[^0-9]/, "", priority); expiration = $19; gsub(/[^0-9]/, "", expiration)
      if (NR > 1) print "next"
      print "url = \"" apns "/3/device/" $6 "\""
      print "header = \"authorization: " bearer "\""
      print "header = \"apns-push-type: " $10 "\""
      print "header = \"apns-topic: " $14 "\""
      print "header = \"apns-priority: " priority "\""
      print "header = \"apns-expiration: " expiration "\""
      print "header = \"content-type: application/json\""
      print "data-binary = \"" payload "\""
      print "output = \"/dev/null\""
      print "write-out = \"%{http_code}\\n\""
  }' "$batch" >"$work/curl.conf"
  due=$(head -1 "$batch" | sed 's/^{"at_s":\([0-9.]*\),.*/\1/')
  sleep "$(awk -v at="$PUSHBENCH_START_AT" -v due="$due" -v now="$(date +%s.%N)" \
    'BEGIN { wait = at + due - now; print (wait > 0 ? wait : 0) }')"
  codes=$(curl --http2 --silent --parallel --parallel-max "$BATCH" --config "$work/curl.conf" || true)
  failed=$((failed + $(grep -cv '^200$' <<<"$codes" || true)))
done
echo "sent $(cat "$PUSHBENCH_EVENTS" | wc -l) pushes to $APNS, $failed failed"
((failed == 0))
