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


async def send(apns, event, slots, failures):
    try:
        request = aioapns.NotificationRequest(  # aioapns
            device_token=event["token"],
            message=event["payload"],
            push_type=aioapns.PushType.LIVEACTIVITY,
            priority=event["priority"],
            time_to_live=max(0, event["expiration"] - int(time.time())),
        )
        result = await apns.send_notification(request)  # aioapns
        if not result.is_successful:
            failures[result.description] = failures.get(result.description, 0) + 1
    except Exception as error:  # a client error is the sender's; count it, keep sending
        failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1
    finally:
        slots.release()


async def main():
    apns = client()
    start_at = float(env["PUSHBENCH_START_AT"])
    slots = asyncio.Semaphore(CONCURRENCY)
    failures = {}
    tasks = []
    with open(env["PUSHBENCH_EVENTS"]) as events:
        for line in events:
            event = json.loads(line)
            delay = start_at + event["at_s"] - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            await slots.acquire()
            tasks.append(asyncio.create_task(send(apns, event, slots, failures)))
    await asyncio.gather(*tasks)
    for description, count in sorted(failures.items()):
        print(f"failed: {description}: {count}", file=sys.stderr)
    print(f"sent {len(tasks)} pushes, {sum(failures.values())} failed")


asyncio.run(main())
