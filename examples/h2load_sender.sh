#!/usr/bin/env bash
# h2load (nghttp2's HTTP/2 load generator) as a sender under `pushbench profile`: a floor to
# compare a sender with, since it does nothing but frame and send.
#
#   pushbench profile --requests 20000 -- examples/h2load_sender.sh
#
# It reads the PUSHBENCH_* contract (docs/profile.md), signs one provider token with openssl
# (provider_token.sh), and from at_s 0 sends every event's push in the events file's order on one connection
# (H2LOAD_STREAMS streams, 100 by default) as fast as it can: h2load knows no schedule, so the
# lag says how long each push waited. Every push carries the first event's payload and priority
# (h2load sends one body and one set of headers). Needs h2load, openssl, perl, sed and awk (mawk or gawk), each
# started once or twice: a few milliseconds of CPU, so the profile is h2load's.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

token=$("$(dirname "$0")/provider_token.sh")
# The events file's lines have their members in a fixed order, payload last (docs/profile.md):
# awk and sed take out the tokens (the sixth field between quotes) and the first payload and
# priority without a JSON parser.
export LC_ALL=C
awk -F'"' -v origin="$PUSHBENCH_APNS_URL" '{ print origin "/3/device/" $6 }' "$PUSHBENCH_EVENTS" >"$work/uris.txt"
head -1 "$PUSHBENCH_EVENTS" | sed 's/.*"payload"://; s/}$//' >"$work/payload.json"
head -1 "$PUSHBENCH_EVENTS" | sed 's/.*"priority":\([0-9]*\).*/\1/' >"$work/priority"
pushes=$(wc -l <"$work/uris.txt")
# Every push is sent at once from at_s 0: wait for it, as a sender would for its first event.
sleep "$(awk -v at="$PUSHBENCH_START_AT" -v now="$(date +%s.%N)" 'BEGIN { print (at > now ? at - now : 0) }')"
# h2load has no option for a CA file: the mock's certificate is made for 127.0.0.1, and h2load does
# not verify certificates at all.
exec h2load -n "$pushes" -c 1 -m "${H2LOAD_STREAMS:-100}" -i "$work/uris.txt" -d "$work/payload.json" \
    -H "authorization: bearer $token" -H "apns-push-type: liveactivity" \
    -H "apns-topic: $PUSHBENCH_TOPIC" -H "apns-priority: $(cat "$work/priority")" \
    -H "apns-expiration: $(($(date +%s) + 3600))" -H "content-type: application/json"
