#!/usr/bin/env bash
# h2load (nghttp2's HTTP/2 load generator) as a sender under `pushbench profile`: a floor to
# compare a sender with, since it does nothing but frame and send.
#
#   pushbench profile --requests 20000 -- examples/h2load_sender.sh
#
# It reads the PUSHBENCH_* contract (docs/profile.md), signs one provider token with openssl,
# and from at_s 0 sends every event's push in the events file's order on one connection
# (H2LOAD_STREAMS streams, 100 by default) as fast as it can: h2load knows no schedule, so the
# lag says how long each push waited. Every push carries the first event's payload and priority
# (h2load sends one body and one set of headers). Needs h2load, openssl and python3.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
header=$(printf '{"alg":"ES256","kid":"%s"}' "$PUSHBENCH_KEY_ID" | b64url)
claims=$(printf '{"iss":"%s","iat":%d}' "$PUSHBENCH_TEAM_ID" "$(date +%s)" | b64url)
printf '%s.%s' "$header" "$claims" >"$work/input"
openssl dgst -sha256 -sign "$PUSHBENCH_AUTH_KEY" -out "$work/signature.der" "$work/input"
# JWS wants the raw 64-byte r||s, not openssl's DER sequence; python3 also splits the events
# file into h2load's URI list and the body.
signature=$(python3 - "$work" <<'PYTHON' | b64url
import json, os, sys
work = sys.argv[1]
der = open(f"{work}/signature.der", "rb").read()
def integer(at):
    length = der[at + 1]
    return der[at + 2 : at + 2 + length].lstrip(b"\0").rjust(32, b"\0"), at + 2 + length
r, after = integer(2)
s, _ = integer(after)
origin = os.environ["PUSHBENCH_APNS_URL"]
with open(os.environ["PUSHBENCH_EVENTS"]) as events, open(f"{work}/uris.txt", "w") as uris:
    for number, line in enumerate(events):
        event = json.loads(line)
        uris.write(f"{origin}/3/device/{event['token']}\n")
        if number == 0:
            json.dump(event["payload"], open(f"{work}/payload.json", "w"), separators=(",", ":"))
            open(f"{work}/priority", "w").write(str(event["priority"]))
sys.stdout.buffer.write(r + s)
PYTHON
)
pushes=$(wc -l <"$work/uris.txt")
# Every push is sent at once from at_s 0: wait for it, as a sender would for its first event.
sleep "$(python3 -c 'import os, time; print(max(0.0, float(os.environ["PUSHBENCH_START_AT"]) - time.time()))')"
# h2load has no option for a CA file: the mock's certificate is made for 127.0.0.1, and h2load does
# not verify certificates at all.
exec h2load -n "$pushes" -c 1 -m "${H2LOAD_STREAMS:-100}" -i "$work/uris.txt" -d "$work/payload.json" \
    -H "authorization: bearer $header.$claims.$signature" -H "apns-push-type: liveactivity" \
    -H "apns-topic: $PUSHBENCH_TOPIC" -H "apns-priority: $(cat "$work/priority")" \
    -H "apns-expiration: $(($(date +%s) + 3600))" -H "content-type: application/json"
