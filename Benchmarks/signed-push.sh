# Sourced by the h2load scripts: what a push needs, made fresh in "$work" (which the caller
# creates and removes).
#
# Sets key_id, team_id, topic, now and bearer (an ES256 provider token of a throw-away key, for a
# loopback mock only), and writes $work/key.p8, $work/public.pem (for `mock --auth-key`),
# $work/payload.json (a 141-byte football update as PushBench sends it) and $work/tokens.txt
# (10,000 device tokens, one path per push for h2load's -i: HPACK cannot index a new path, so
# each costs the server alike), and defines start_signed_mock and h2load_push_arguments.
key_id=BENCHKEY01 team_id=BENCHTEAM1 topic=com.example.pushbench.push-type.liveactivity
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/key.p8" 2>/dev/null
openssl pkey -in "$work/key.p8" -pubout -out "$work/public.pem"
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
header=$(printf '{"alg":"ES256","kid":"%s"}' "$key_id" | b64url)
claims=$(printf '{"iss":"%s","iat":%d}' "$team_id" "$(date +%s)" | b64url)
printf '%s.%s' "$header" "$claims" >"$work/signing-input"
openssl dgst -sha256 -sign "$work/key.p8" -out "$work/signature.der" "$work/signing-input"
# JWS wants the raw 64-byte r‖s, not openssl's DER sequence.
signature=$(python3 - "$work/signature.der" <<'PYTHON' | b64url
import sys
der = open(sys.argv[1], "rb").read()
def integer(at):
    length = der[at + 1]
    return der[at + 2 : at + 2 + length].lstrip(b"\0").rjust(32, b"\0"), at + 2 + length
r, after = integer(2)
s, _ = integer(after)
sys.stdout.buffer.write(r + s)
PYTHON
)
bearer="$header.$claims.$signature"
now=$(date +%s)
printf '{"aps":{"timestamp":%d,"event":"update","content-state":{"homeScore":1,"awayScore":0,"minute":63,"period":2},"stale-date":%d}}' \
    "$now" $((now + 900)) >"$work/payload.json"
"$binary" tokens -n 10000 --kind update --seed 7 -o "$work/tokens.txt" 2>/dev/null

# h2load's arguments for one push of the set above, to origin $1 (after -n, -c, -m).
h2load_push_arguments() {
    sed "s|^|$1/3/device/|" "$work/tokens.txt" >"$work/uris.txt"
    printf '%s\n' -H "authorization: bearer $bearer" -H "apns-push-type: liveactivity" -H "apns-topic: $topic" \
        -H "apns-priority: 10" -H "apns-expiration: $((now + 3600))" -H "content-type: application/json" \
        -d "$work/payload.json" -i "$work/uris.txt"
}

# Starts `pushbench mock` verifying the key above, with any further mock arguments ("$@"); sets
# mock_pid and origin (the caller's cleanup stops it).
start_signed_mock() {
    "$binary" mock --port 0 --cert-out "$work/mock.pem" --auth-key "$work/public.pem" --key-id "$key_id" \
        --team-id "$team_id" "$@" >"$work/mock.log" 2>&1 &
    mock_pid=$!
    for _ in $(seq 1 50); do grep -q "listening on https://" "$work/mock.log" && break; sleep 0.1; done
    origin=$(grep -o 'https://[0-9.:]*' "$work/mock.log" | head -1)
    [[ -n $origin ]] || { cat "$work/mock.log" >&2; exit 1; }
}
