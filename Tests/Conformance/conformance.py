"""The mock's client conformance suite: third-party APNs clients from PyPI send good Live Activity
traffic and each documented error case to a running `pushbench mock`, and every answer is
compared with the status and reason Apple documents.

- kalyke-apns and aioapns send what their public API lets a user send, through their own code
  (provider token, headers, payload, connection); only the host they dial is changed.
- httpx with h2 sends what the libraries cannot: broadcasts, channel management, and requests
  malformed on purpose.

Usage: conformance.py CONFIG.json RESULTS.json MATRIX.md
       conformance.py CONFIG.json --kalyke-traffic N
CONFIG holds the mock's ports, its CA file, the key files and the tokens the mock was set up
with (ConformanceSuiteTests writes it). RESULTS gets one object per case; MATRIX the table that
docs/client-conformance.md holds. Exits 0 when every case was sent, whatever the answers; the
Swift test judges them. With --kalyke-traffic, kalyke-apns sends N pushes of Live Activity
traffic (a third each of starts, updates and ends, as its users write them) and nothing else.
"""

import asyncio
import json
import ssl
import sys
import time
import uuid

import aioapns
import aioapns.connection
import httpx
import jwt
import kalyke
from kalyke import LiveActivityApnsConfig, LiveActivityClient, LiveActivityEvent, LiveActivityPayload

config = json.load(open(sys.argv[1]))
BUNDLE = config["bundle"]
TOPIC = BUNDLE + ".push-type.liveactivity"
DEVICE = "https://127.0.0.1:%d" % config["port"]
CHANNELS = "https://127.0.0.1:%d" % config["channel_port"]


def tls_context(alpn):
    context = ssl.create_default_context(cafile=config["ca_file"])
    if alpn:
        context.set_alpn_protocols(["h2"])
    return context


def key_text(name):
    return open(config[name]).read()


# One entry per request sent: the client, the case, Apple's answer and where docs/apns.md gives it,
# and the mock's answer.
results = []


def record(client, case, expected, reason, evidence, status, got_reason):
    results.append(
        {
            "client": client,
            "case": case,
            "expected_status": expected,
            "expected_reason": reason,
            "evidence": evidence,
            "status": status,
            "reason": got_reason,
        }
    )


# MARK: kalyke-apns


class KalykeAtMock(LiveActivityClient):
    """kalyke's LiveActivityClient, dialling the mock instead of Apple; the last answer kept."""

    last = None

    @property
    def _base_url(self):
        return DEVICE

    async def _send(self, client, url, data):
        KalykeAtMock.last = await super()._send(client=client, url=url, data=data)
        return KalykeAtMock.last


def kalyke_verified_client():
    """kalyke builds its httpx2 client itself; hand it one that trusts the mock's CA."""
    import kalyke.clients.apns as module
    import httpx2

    context = tls_context(alpn=False)
    module.AsyncClient = lambda **arguments: httpx2.AsyncClient(verify=context, **arguments)


async def kalyke_send(case, expected, reason, evidence, token, payload, key="key_file", **apns):
    client = KalykeAtMock(
        use_sandbox=False, team_id=config["team_id"], auth_key_id=config["key_id"], auth_key_filepath=config[key]
    )
    KalykeAtMock.last = None
    failure = None
    try:
        await client.send_message(
            device_token=token, payload=payload, apns_config=LiveActivityApnsConfig(topic=TOPIC, **apns)
        )
    except Exception as error:  # kalyke raises one exception class per APNs reason
        failure = type(error).__name__
    answer = KalykeAtMock.last
    if answer is None:
        record("kalyke-apns 1.5.0", case, expected, reason, evidence, None, "no answer: %s" % failure)
        return
    got_reason = answer.json().get("reason") if answer.status_code >= 300 else None
    record("kalyke-apns 1.5.0", case, expected, reason, evidence, answer.status_code, got_reason)


async def kalyke_cases():
    kalyke_verified_client()
    token = config["token"]
    state = {"home": 1, "away": 0}
    start = LiveActivityPayload(
        event=LiveActivityEvent.START,
        content_state=state,
        attributes_type="MatchAttributes",
        attributes={"home": "A", "away": "B"},
        alert="Kick-off",
    )
    await kalyke_send("push-to-start (kalyke leaves out attributes)", 200, None, "§3.2", config["start_token"], start)
    update = LiveActivityPayload(event=LiveActivityEvent.UPDATE, content_state=state)
    await kalyke_send("update", 200, None, "§3.2", token, update)
    end = LiveActivityPayload(event=LiveActivityEvent.END, content_state=state)
    await kalyke_send("end", 200, None, "§3.2", token, end)
    await kalyke_send(
        "update at priority 5", 200, None, "§1.7", token, update, priority=kalyke.ApnsPriority.BASED_ON_POWER
    )
    await kalyke_send("device token not hex", 400, "BadDeviceToken", "§1.7", "not-a-token", update)
    await kalyke_send("token of an uninstalled app", 410, "Unregistered", "§1.7", config["unregistered_token"], update)
    await kalyke_send(
        "signed by a key APNs does not know", 403, "InvalidProviderToken", "§2", token, update, key="wrong_key_file"
    )
    await kalyke_send(
        "apns-id in upper case", 400, "BadMessageId", "§1.7", token, update, identifier=str(uuid.uuid4()).upper()
    )
    big = LiveActivityPayload(event=LiveActivityEvent.UPDATE, content_state={"text": "x" * 4200})
    await kalyke_send("payload over 4 KB", 413, "PayloadTooLarge", "§3.4", token, big)


# MARK: aioapns


async def aioapns_send(client, case, expected, reason, evidence, token, message, **request):
    answer = await client.send_notification(
        aioapns.NotificationRequest(
            device_token=token, message=message, push_type=aioapns.PushType.LIVEACTIVITY, **request
        )
    )
    got_reason = answer.description or None
    record("aioapns 4.0", case, expected, reason, evidence, int(answer.status), got_reason)


def aioapns_client(key):
    return aioapns.APNs(
        key=key_text(key),
        key_id=config["key_id"],
        team_id=config["team_id"],
        topic=TOPIC,
        ssl_context=tls_context(alpn=False),
        max_connection_attempts=1,
    )


async def aioapns_cases():
    aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = "127.0.0.1"
    aioapns.connection.APNsProductionClientProtocol.APNS_PORT = config["port"]
    client = aioapns_client("key_file")
    now = int(time.time())
    state = {"home": 1, "away": 0}
    start = {
        "aps": {
            "timestamp": now,
            "event": "start",
            "content-state": state,
            "attributes-type": "MatchAttributes",
            "attributes": {"home": "A", "away": "B"},
            "alert": {"title": "Kick-off", "body": "A against B"},
        }
    }
    update = {"aps": {"timestamp": now, "event": "update", "content-state": state}}
    end = {"aps": {"timestamp": now, "event": "end", "content-state": state, "dismissal-date": now + 60}}
    token = config["token"]
    await aioapns_send(client, "push-to-start", 200, None, "§3.2", config["start_token"], start, priority=10)
    await aioapns_send(client, "update", 200, None, "§3.2", token, update, priority=10, time_to_live=3600)
    await aioapns_send(client, "end", 200, None, "§3.2", token, end, priority=10)
    await aioapns_send(client, "priority 7", 400, "BadPriority", "§1.7", token, update, priority=7)
    await aioapns_send(
        client, "collapse id over 64 bytes", 400, "BadCollapseId", "§1.7", token, update, collapse_key="c" * 65
    )
    await aioapns_send(client, "device token too short", 400, "BadDeviceToken", "§1.7", token[:32], update)
    await aioapns_send(
        client, "token expired on the device", 410, "ExpiredToken", "§1.7", config["expired_token"], update
    )
    await aioapns_send(
        client, "topic of another push type", 400, "DeviceTokenNotForTopic", "§1.3", token, update, apns_topic=BUNDLE
    )
    client.pool.close()
    stranger = aioapns_client("wrong_key_file")
    await aioapns_send(stranger, "signed by a key APNs does not know", 403, "InvalidProviderToken", "§2", token, update)
    stranger.pool.close()


# MARK: httpx with h2


def sign(iat):
    claims = {"iss": config["team_id"], "iat": iat}
    return "bearer " + jwt.encode(claims, key_text("key_file"), algorithm="ES256", headers={"kid": config["key_id"]})


# One provider token for every regular request, as a client keeps one for up to an hour: APNs
# answers a second new token on a connection within 20 minutes 429 TooManyProviderTokenUpdates.
BEARER = sign(int(time.time()))


def http_client():
    return httpx.Client(http2=True, verify=tls_context(alpn=True), timeout=10)


def httpx_record(case, expected, reason, evidence, answer):
    got_reason = None
    if answer.status_code >= 300 and answer.content:
        got_reason = answer.json().get("reason")
    record("httpx 0.28.1 + h2", case, expected, reason, evidence, answer.status_code, got_reason)
    return answer


def device_cases(http):
    token = config["token"]
    body = json.dumps({"aps": {"timestamp": int(time.time()), "event": "update", "content-state": {"home": 1}}})
    headers = {"apns-topic": TOPIC, "apns-push-type": "liveactivity", "apns-priority": "10"}

    def push(
        case, expected, reason, evidence, method="POST", path="/3/device/" + token, content=body, auth=BEARER, **extra
    ):
        """Sends one push; a provider token of its own goes on a connection of its own."""
        sent = dict(headers, authorization=auth, **extra)
        sent = {name: value for name, value in sent.items() if value is not None}
        if auth in (BEARER, None):
            answer = http.request(method, DEVICE + path, headers=sent, content=content)
        else:
            with http_client() as own:
                answer = own.request(method, DEVICE + path, headers=sent, content=content)
        return httpx_record(case, expected, reason, evidence, answer)

    push("update", 200, None, "§1.7")
    push("iat as a string of digits", 200, None, "docs/mock-conformance.md", auth=sign(str(int(time.time()))))
    push("iat with a fraction", 200, None, "docs/mock-conformance.md", auth=sign(time.time()))
    push("no provider token", 403, "MissingProviderToken", "§2", auth=None)
    push("provider token over an hour old", 403, "ExpiredProviderToken", "§2", auth=sign(int(time.time()) - 7200))
    push("GET instead of POST", 405, "MethodNotAllowed", "§1.7", method="GET", content=None)
    push("path not /3/device/", 404, "BadPath", "§1.7", path="/3/devices/" + token)
    push("empty body", 400, "PayloadEmpty", "§1.7", content=b"")
    push("no apns-topic", 400, "MissingTopic", "§1.7", **{"apns-topic": None})
    push("apns-expiration not a number", 400, "BadExpirationDate", "§1.7", **{"apns-expiration": "tomorrow"})
    push("apns-push-type unknown", 400, "InvalidPushType", "§1.3", **{"apns-push-type": "activity"})
    push(
        "apns-push-type LiveActivity on a device push",
        400,
        "InvalidPushType",
        "docs/mock-conformance.md",
        **{"apns-push-type": "LiveActivity"},
    )
    push("apns-id not a UUID", 400, "BadMessageId", "§1.7", **{"apns-id": "push-1"})


def channel_cases(http):
    path = CHANNELS + "/1/apps/%s/channels" % BUNDLE

    def call(case, expected, reason, method, url=path, channel=None, settings=None, content=None):
        headers = {"authorization": BEARER}
        if channel is not None:
            headers["apns-channel-id"] = channel
        if settings is not None:
            content = json.dumps(settings)
        return httpx_record(
            case, expected, reason, "§3.5.1", http.request(method, url, headers=headers, content=content)
        )

    created = call("create", 201, None, "POST", settings={"message-storage-policy": 0, "push-type": "LiveActivity"})
    channel = created.headers.get("apns-channel-id", "")
    stored = call(
        "create, most recent message stored",
        201,
        None,
        "POST",
        settings={"message-storage-policy": 1, "push-type": "LiveActivity"},
    )
    call("read", 200, None, "GET", channel=channel)
    call("list", 200, None, "GET", url=CHANNELS + "/1/apps/%s/all-channels" % BUNDLE)
    call("read without apns-channel-id", 400, "MissingChannelId", "GET")
    call("apns-channel-id not base64", 400, "BadChannelId", "GET", channel="not base64!")
    call(
        "create with an unknown attribute",
        400,
        "BadRequestParams",
        "POST",
        settings={"message-storage-policy": 0, "push-type": "LiveActivity", "ttl": 1},
    )
    call("create with a body that is not JSON", 400, "BadRequestPayload", "POST", content=b"{")
    call(
        "create with push-type alert",
        400,
        "InvalidPushType",
        "POST",
        settings={"message-storage-policy": 0, "push-type": "alert"},
    )
    call("PUT on channels", 405, "MethodNotAllowed", "PUT", channel=channel, content=b"{}")
    call("path not /1/apps/<bundle>/channels", 404, "BadPath", "GET", url=CHANNELS + "/1/apps/%s/channel" % BUNDLE)
    broadcast_cases(http, channel, stored.headers.get("apns-channel-id", ""))
    call("delete", 204, None, "DELETE", channel=channel)
    call("read a deleted channel", 400, "ChannelNotRegistered", "GET", channel=channel)
    call("delete a deleted channel", 404, "BadPath", "DELETE", channel=channel)
    broadcast(http, "broadcast to a deleted channel", 400, "ChannelNotRegistered", channel)
    for number in range(config["channel_limit"]):
        answer = http.post(
            path,
            headers={"authorization": BEARER},
            content=json.dumps({"message-storage-policy": 0, "push-type": "LiveActivity"}),
        )
        if answer.status_code != 201:
            break
    call(
        "create past the app's channel limit",
        400,
        "CannotCreateChannelConfig",
        "POST",
        settings={"message-storage-policy": 0, "push-type": "LiveActivity"},
    )


BROADCAST_BODY = {"aps": {"timestamp": 0, "event": "update", "content-state": {"home": 2}}}


def broadcast(http, case, expected, reason, channel, content=None, app=BUNDLE, **overrides):
    headers = {
        "authorization": BEARER,
        "apns-channel-id": channel,
        "apns-push-type": "liveactivity",
        "apns-priority": "10",
        "apns-expiration": "0",
    }
    headers.update(overrides)
    headers = {name: value for name, value in headers.items() if value is not None}
    if content is None:
        body = dict(BROADCAST_BODY)
        body["aps"] = dict(body["aps"], timestamp=int(time.time()))
        content = json.dumps(body)
    url = DEVICE + "/4/broadcasts/apps/" + app
    return httpx_record(case, expected, reason, "§3.5.2", http.post(url, headers=headers, content=content))


def broadcast_cases(http, channel, stored):
    answer = broadcast(http, "broadcast", 200, None, channel)
    if not answer.headers.get("apns-unique-id"):
        results[-1]["reason"] = "without apns-unique-id"
    broadcast(http, "broadcast, apns-push-type LiveActivity", 200, None, channel, **{"apns-push-type": "LiveActivity"})
    broadcast(http, "broadcast at priority 5", 200, None, channel, **{"apns-priority": "5"})
    broadcast(
        http,
        "broadcast to a stored channel, expiring in an hour",
        200,
        None,
        stored,
        **{"apns-expiration": str(int(time.time()) + 3600)},
    )
    broadcast(http, "broadcast without apns-channel-id", 400, "MissingChannelId", None, **{"apns-channel-id": None})
    broadcast(http, "broadcast, apns-channel-id not base64", 400, "BadChannelId", "not base64!")
    broadcast(http, "broadcast without apns-push-type", 400, "MissingPushType", channel, **{"apns-push-type": None})
    broadcast(http, "broadcast, apns-push-type alert", 400, "InvalidPushType", channel, **{"apns-push-type": "alert"})
    broadcast(
        http,
        "broadcast, expiration not 0 on a no-storage channel",
        400,
        "BadExpirationDate",
        channel,
        **{"apns-expiration": str(int(time.time()) + 60)},
    )
    broadcast(http, "broadcast, priority 7", 400, "BadPriority", channel, **{"apns-priority": "7"})
    broadcast(http, "broadcast, empty body", 400, "PayloadEmpty", channel, content=b"")
    broadcast(
        http,
        "broadcast over 5 KB",
        413,
        "PayloadTooLarge",
        channel,
        content=json.dumps({"aps": {"event": "update", "content-state": {"t": "x" * 5200}}}),
    )
    broadcast(http, "broadcast to <bundle>.push-type.liveactivity", 400, "TopicDisallowed", channel, app=TOPIC)


def httpx_cases():
    with http_client() as http:
        device_cases(http)
        channel_cases(http)


# MARK: the matrix


def matrix():
    lines = [
        "# Client conformance: what the mock answered real clients",
        "",
        "Generated by `Tests/Conformance/conformance.py` (run by `ConformanceSuiteTests`, part of",
        "`make test`); do not edit by hand. Each row is one request that a third-party client from",
        "PyPI sent to `pushbench mock` over real sockets (HTTP/2 over TLS). *Expected* is the answer",
        "Apple documents, in the section of `docs/apns.md` named under *where*; rows marked",
        "`docs/mock-conformance.md` follow the evidence in that table. The mock's channel limit is",
        "set to %d for the suite, so that the limit is reached in a few requests." % config["channel_limit"],
        "",
        "| client | case | expected | the mock answered | where | |",
        "|---|---|---|---|---|---|",
    ]
    for row in results:
        expected = " ".join(str(part) for part in (row["expected_status"], row["expected_reason"]) if part)
        got = " ".join(str(part) for part in (row["status"], row["reason"]) if part)
        verdict = "ok" if expected == got else "**differs**"
        lines.append(
            "| %s | %s | %s | %s | %s | %s |" % (row["client"], row["case"], expected, got, row["evidence"], verdict)
        )
    return "\n".join(lines) + "\n"


async def kalyke_traffic(count):
    kalyke_verified_client()
    state = {"home": 0, "away": 0}
    for number in range(count):
        event = [LiveActivityEvent.START, LiveActivityEvent.UPDATE, LiveActivityEvent.END][number * 3 // count]
        token = config["start_token"] if event == LiveActivityEvent.START else config["token"]
        payload = LiveActivityPayload(
            event=event,
            content_state=state,
            attributes_type="MatchAttributes" if event == LiveActivityEvent.START else None,
            attributes={"home": "A", "away": "B"} if event == LiveActivityEvent.START else None,
        )
        await kalyke_send(event.value, 200, None, "§3.2", token, payload)
    failed = [row for row in results if row["status"] != 200]
    sys.exit("kalyke-apns: %d of %d pushes not answered 200: %s" % (len(failed), count, failed[:1]) if failed else 0)


if sys.argv[2] == "--kalyke-traffic":
    asyncio.run(kalyke_traffic(int(sys.argv[3])))
asyncio.run(kalyke_cases())
asyncio.run(aioapns_cases())
httpx_cases()
json.dump(results, open(sys.argv[2], "w"), indent=1)
open(sys.argv[3], "w").write(matrix())
