"""kalyke-apns as a sender under `pushbench profile`, for the sender shootout: each push of
PUSHBENCH_EVENTS sent at its at_s with kalyke's LiveActivityClient, SENDER_CONCURRENCY (100) at
a time, on the schedule loop of examples/aioapns_sender.py. kalyke opens a connection, and signs
a provider token, for every message: what it costs is what the shootout shows.
"""

import asyncio
import os
import ssl
import sys

import httpx2
import kalyke
import kalyke.clients.apns
from kalyke import LiveActivityApnsConfig, LiveActivityClient

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
from aioapns_sender import send_on_schedule  # noqa: E402  (the examples folder, just added)

env = os.environ
PRIORITIES = {10: kalyke.ApnsPriority.IMMEDIATELY, 5: kalyke.ApnsPriority.BASED_ON_POWER}


class MockClient(LiveActivityClient):
    """kalyke's client, dialling the mock instead of Apple."""

    @property
    def _base_url(self):
        return env["PUSHBENCH_APNS_URL"]


# kalyke builds its httpx2 client itself: hand it one that trusts the mock's certificate.
context = ssl.create_default_context(cafile=env["PUSHBENCH_CA_FILE"])
kalyke.clients.apns.AsyncClient = lambda **arguments: httpx2.AsyncClient(verify=context, **arguments)


async def send(client, event):
    """Sends one push; kalyke raises one exception class per APNs reason."""
    config = LiveActivityApnsConfig(topic=env["PUSHBENCH_TOPIC"], priority=PRIORITIES[event["priority"]])
    await client.send_message(device_token=event["token"], payload=event["payload"], apns_config=config)


async def main():
    client = MockClient(
        use_sandbox=False,
        team_id=env["PUSHBENCH_TEAM_ID"],
        auth_key_id=env["PUSHBENCH_KEY_ID"],
        auth_key_filepath=env["PUSHBENCH_AUTH_KEY"],
    )
    await send_on_schedule(lambda event: send(client, event))


asyncio.run(main())
