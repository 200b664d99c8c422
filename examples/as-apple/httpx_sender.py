"""A sender as teams ship it: Python with httpx over HTTP/2, Apple's host hard-coded.

It reads no PUSHBENCH_* variable for the host or the CA: it dials api.push.apple.com and trusts
what httpx trusts. Under `pushbench profile --as-apple` that name is the mock, and httpx trusts
the mock's CA through SSL_CERT_FILE (httpx reads it when trust_env is on, its default). It reads
its work (PUSHBENCH_EVENTS, PUSHBENCH_START_AT) and its key (PUSHBENCH_AUTH_KEY, _KEY_ID,
_TEAM_ID) from the contract, as a real sender reads them from its queue and its secrets.

    pushbench profile --as-apple --requests 2000 -- /usr/bin/python3 examples/as-apple/httpx_sender.py

Needs Debian's python3-httpx, python3-h2 and python3-cryptography.
"""

import asyncio
import base64
import json
import os
import time

import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.serialization import load_pem_private_key

APNS = "https://api.push.apple.com"  # hard-coded, as it ships
CONCURRENCY = 100
env = os.environ


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def provider_token():
    """An ES256 JWT: Apple's provider token, signed with the .p8 key."""
    with open(env["PUSHBENCH_AUTH_KEY"], "rb") as file:
        key = load_pem_private_key(file.read(), password=None)
    header = b64url(json.dumps({"alg": "ES256", "kid": env["PUSHBENCH_KEY_ID"]}).encode())
    claims = b64url(json.dumps({"iss": env["PUSHBENCH_TEAM_ID"], "iat": int(time.time())}).encode())
    r, s = decode_dss_signature(key.sign(f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256())))
    return f"{header}.{claims}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def apns_headers(event, bearer):
    """APNs' request headers for one push of the events file."""
    return {
        "authorization": bearer,
        "apns-push-type": event["push_type"],
        "apns-topic": event["topic"],
        "apns-priority": str(event["priority"]),
        "apns-expiration": str(event["expiration"]),
    }


async def main():
    with open(env["PUSHBENCH_EVENTS"]) as file:
        events = [json.loads(line) for line in file]
    start_at = float(env["PUSHBENCH_START_AT"])
    bearer = f"bearer {provider_token()}"
    gate = asyncio.Semaphore(CONCURRENCY)
    failures = 0

    async with httpx.AsyncClient(http2=True, timeout=30) as client:

        async def send(event):
            nonlocal failures
            try:
                answer = await client.post(
                    f"{APNS}/3/device/{event['token']}", json=event["payload"], headers=apns_headers(event, bearer)
                )
                failures += answer.status_code != 200
            except httpx.HTTPError as error:
                failures += 1
                print(f"push failed: {error!r}", flush=True)
            finally:
                gate.release()

        # APNs allows one stream on a new connection until a push with a valid provider token is
        # answered; httpx (h2) then fails the streams beyond it rather than waiting. So the
        # first push goes alone, as a sender that has met Apple's limit learns to do.
        tasks = []
        for index, event in enumerate(events):
            delay = start_at + event["at_s"] - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            await gate.acquire()
            tasks.append(asyncio.create_task(send(event)))
            if index == 0:
                await tasks[0]
        await asyncio.gather(*tasks)
    print(f"sent {len(events)} pushes to {APNS}, {failures} failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
