"""kalyke-apns as a sender under `pushbench profile`, for the sender shootout: each push of
PUSHBENCH_EVENTS sent at its at_s with kalyke's LiveActivityClient, SENDER_CONCURRENCY (100) at
a time. kalyke opens a connection, and signs a provider token, for every message: what it costs
is what the shootout shows.
"""

import asyncio
import json
import os
import ssl
import sys
import time

import httpx2
import kalyke
import kalyke.clients.apns
from kalyke import LiveActivityApnsConfig, LiveActivityClient

env = os.environ
CONCURRENCY = int(env.get("SENDER_CONCURRENCY", "100"))
PRIORITIES = {10: kalyke.ApnsPriority.IMMEDIATELY, 5: kalyke.ApnsPriority.BASED_ON_POWER}


class MockClient(LiveActivityClient):
    """kalyke's client, dialling the mock instead of Apple."""

    @property
    def _base_url(self):
        return env["PUSHBENCH_APNS_URL"]


# kalyke builds its httpx2 client itself: hand it one that trusts the mock's certificate.
context = ssl.create_default_context(cafile=env["PUSHBENCH_CA_FILE"])
kalyke.clients.apns.AsyncClient = lambda **arguments: httpx2.AsyncClient(verify=context, **arguments)


async def send(client, event, slots, failures):
    try:
        config = LiveActivityApnsConfig(topic=env["PUSHBENCH_TOPIC"], priority=PRIORITIES[event["priority"]])
        await client.send_message(device_token=event["token"], payload=event["payload"], apns_config=config)
    except Exception as error:  # kalyke raises one exception class per APNs reason
        failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1
    finally:
        slots.release()


async def main():
    client = MockClient(
        use_sandbox=False,
        team_id=env["PUSHBENCH_TEAM_ID"],
        auth_key_id=env["PUSHBENCH_KEY_ID"],
        auth_key_filepath=env["PUSHBENCH_AUTH_KEY"],
    )
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
            tasks.append(asyncio.create_task(send(client, event, slots, failures)))
    await asyncio.gather(*tasks)
    for name, count in sorted(failures.items()):
        print(f"failed: {name}: {count}", file=sys.stderr)
    print(f"sent {len(tasks)} pushes, {sum(failures.values())} failed")


asyncio.run(main())
