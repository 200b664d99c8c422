#!/usr/bin/env bash
# Prints an APNs provider token (an ES256 JWT) for the shell senders in examples/, signed with
# openssl from PUSHBENCH_AUTH_KEY, PUSHBENCH_KEY_ID and PUSHBENCH_TEAM_ID. Needs openssl and perl.
#
#   token=$(examples/provider_token.sh)
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
header=$(printf '{"alg":"ES256","kid":"%s"}' "$PUSHBENCH_KEY_ID" | b64url)
claims=$(printf '{"iss":"%s","iat":%d}' "$PUSHBENCH_TEAM_ID" "$(date +%s)" | b64url)
printf '%s.%s' "$header" "$claims" >"$work/input"
openssl dgst -sha256 -sign "$PUSHBENCH_AUTH_KEY" -out "$work/signature.der" "$work/input"
# JWS wants the raw 64-byte r||s, not openssl's DER sequence of two integers.
signature=$(perl -0777 -ne 'my ($der, $at) = ($_, 2); for (1 .. 2) {
    my $length = ord(substr($der, $at + 1, 1)); my $n = substr($der, $at + 2, $length); $n =~ s/^\x00+//;
    print "\x00" x (32 - length $n), $n; $at += 2 + $length }' "$work/signature.der" | b64url)
echo "$header.$claims.$signature"
