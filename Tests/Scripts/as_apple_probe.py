"""A sender for `pushbench profile --as-apple` that probes its sealed network as it sends.

    as_apple_probe.py send   sends the events to Apple's names, each on another name and port,
                             then tries what a sealed network must refuse
    as_apple_probe.py pin    sends the first event trusting only PROBE_PIN, a CA that is not the
                             mock's, as a sender that pins Apple's certificate would

`send` also asks the mock for its counters (GET /stats, not a push) trusting only the system
CA bundle, as a client that reads no variable does. It prints one JSON object of what it saw, and exits 0 when `send` saw every push accepted.
PROBE_OUTSIDE is a port of the host's loopback, outside the sealed network, that must not be
reached; PROBE_REACH (optional) a HOST:PORT given to --reach, that must answer HTTP.
"""

import json
import os
import socket
import ssl
import sys
import time

import httpx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "as-apple"))
from httpx_sender import apns_headers, provider_token  # noqa: E402

NAMES = [
    "https://api.sandbox.push.apple.com",
    "https://api.push.apple.com:2197",
    "https://api.development.push.apple.com:2197",
    "https://api.push.apple.com",
]

BROADCAST_NAMES = ["api-broadcast.push.apple.com", "api-broadcast.sandbox.push.apple.com"]


def push(client, origin, event, bearer):
    answer = client.post(f"{origin}/3/device/{event['token']}", json=event["payload"], headers=apns_headers(event, bearer))
    return {"origin": origin, "status": answer.status_code, "unique_id": "apns-unique-id" in answer.headers}


def refused(host, port):
    """How a TCP connection to host:port failed, or "connected"."""
    try:
        socket.create_connection((host, port), timeout=3).close()
        return "connected"
    except OSError as error:
        return type(error).__name__ + ": " + (error.strerror or str(error))


def main():
    with open(os.environ["PUSHBENCH_EVENTS"]) as file:
        events = [json.loads(line) for line in file]
    bearer = f"bearer {provider_token()}"
    seen = {}
    if sys.argv[1] == "pin":
        pinned = ssl.create_default_context(cafile=os.environ["PROBE_PIN"])
        try:
            with httpx.Client(http2=True, verify=pinned) as client:
                seen["pushes"] = [push(client, NAMES[-1], events[0], bearer)]
        except (httpx.HTTPError, ssl.SSLError) as error:
            seen["error"] = repr(error)
        print(json.dumps(seen), flush=True)
        return 1
    with httpx.Client(http2=True) as client:
        seen["pushes"] = [push(client, NAMES[index % len(NAMES)], event, bearer) for index, event in enumerate(events)]
    # Broadcasts to the names Apple's own sample uses: answered as APNs answers a channel no
    # one made (400 ChannelNotRegistered), not left unresolved.
    bundle = events[0]["topic"].removesuffix(".push-type.liveactivity")
    seen["broadcast_hosts"] = {}
    with httpx.Client(http2=True) as client:
        for host in BROADCAST_NAMES:
            answer = client.post(
                f"https://{host}/4/broadcasts/apps/{bundle}",
                json={"aps": {"event": "update", "timestamp": 1, "content-state": {}}},
                headers={
                    "authorization": bearer,
                    "apns-push-type": "liveactivity",
                    "apns-channel-id": "dHdvIGNoYW5uZWxzIG5vIG9uZSBtYWRl",
                    "apns-priority": "10",
                    "apns-expiration": str(int(time.time()) + 3600),
                },
            )
            reason = answer.json().get("reason", "") if answer.content else ""
            seen["broadcast_hosts"][host] = f"{answer.status_code} {reason}".strip()
    # A client that reads only the system bundle, as some do: the mock's CA is in it inside.
    system = ssl.create_default_context(cafile="/etc/ssl/certs/ca-certificates.crt")
    with httpx.Client(http2=True, verify=system, trust_env=False) as client:
        seen["system_bundle"] = client.get(f"{NAMES[-1]}/stats").status_code
    seen["outside_loopback"] = refused("127.0.0.1", int(os.environ["PROBE_OUTSIDE"]))
    seen["apple_address"] = refused("17.253.144.10", 443)
    try:
        seen["example.com"] = socket.getaddrinfo("example.com", 443)[0][4][0]
    except OSError as error:
        seen["example.com"] = type(error).__name__
    if "PROBE_REACH" in os.environ:
        seen["reach"] = httpx.get(f"http://{os.environ['PROBE_REACH']}/").status_code
    print(json.dumps(seen), flush=True)
    return 0 if all(push["status"] == 200 for push in seen["pushes"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
