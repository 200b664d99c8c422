"""A sender built on aioapns, run by `pushbench profile`: the adapter a team copies for its own.

It reads what profile hands every sender (the PUSHBENCH_* variables, docs/profile.md) and
sends each push of PUSHBENCH_EVENTS at its at_s, as a backend would send its updates as they
happen. Only the marked lines are aioapns's; swap them for your client's calls.

    pushbench profile --requests 20000 -- python3 examples/aioapns_sender.py

Options (environment): SENDER_CONCURRENCY pushes in flight at most (100), SENDER_CONNECTIONS
aioapns connections (4).
"""

import asyncio
import json
import os
import ssl
import sys
import time

import aioapns
import aioapns.connection

env = os.environ
CONCURRENCY = int(env.get("SENDER_CONCURRENCY", "100"))
CONNECTIONS = int(env.get("SENDER_CONNECTIONS", "4"))


def client():
    # aioapns dials api.push.apple.com:443; point it at the mock and trust the mock's certificate.
    aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = env["PUSHBENCH_APNS_HOST"]
    aioapns.connection.APNsProductionClientProtocol.APNS_PORT = int(env["PUSHBENCH_APNS_PORT"])
    with open(env["PUSHBENCH_AUTH_KEY"]) as key:
        return aioapns.APNs(  # aioapns
            key=key.read(),
            key_id=env["PUSHBENCH_KEY_ID"],
            team_id=env["PUSHBENCH_TEAM_ID"],
            topic=env["PUSHBENCH_TOPIC"],
            ssl_context=ssl.create_default_context(cafile=env["PUSHBENCH_CA_FILE"]),
            max_connections=CONNECTIONS,
        )


async def send(apns, event):
    """Sends one push; returns why it failed, or None."""
    request = aioapns.NotificationRequest(  # aioapns
        device_token=event["token"],
        message=event["payload"],
        push_type=aioapns.PushType.LIVEACTIVITY,
        priority=event["priority"],
        time_to_live=max(0, event["expiration"] - int(time.time())),
    )
    result = await apns.send_notification(request)  # aioapns
    return None if result.is_successful else result.description


async def send_on_schedule(send_one, concurrency=CONCURRENCY):
    """Sends each push of PUSHBENCH_EVENTS at its at_s with send_one(event), at most
    `concurrency` at a time; counts the failures it returns or raises. The part to keep when
    you swap aioapns for your own client."""
    start_at = float(env["PUSHBENCH_START_AT"])
    slots = asyncio.Semaphore(concurrency)
    failures = {}

    async def one(event):
        try:
            failure = await send_one(event)
        except Exception as error:  # a client error is the sender's; count it, keep sending
            failure = type(error).__name__
        finally:
            slots.release()
        if failure:
            failures[failure] = failures.get(failure, 0) + 1

    tasks = []
    with open(env["PUSHBENCH_EVENTS"]) as events:
        for line in events:
            event = json.loads(line)
            delay = start_at + event["at_s"] - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            await slots.acquire()
            tasks.append(asyncio.create_task(one(event)))
    await asyncio.gather(*tasks)
    for description, count in sorted(failures.items()):
        print(f"failed: {description}: {count}", file=sys.stderr)
    print(f"sent {len(tasks)} pushes, {sum(failures.values())} failed")


async def main():
    apns = client()
    await send_on_schedule(lambda event: send(apns, event))


if __name__ == "__main__":
    asyncio.run(main())
