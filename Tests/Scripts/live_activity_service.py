"""A small Live Activity sender service: the service under test of `pushbench profile --api`.

It speaks two APIs shaped like those of push providers, keeps the tokens apps register, and
fans each update out to APNs with aioapns, as such a service does:

  Netmera-shaped (examples/netmera-api.yaml, examples/netmera-lifecycle.yaml), header
  X-netmera-api-key = $NETMERA_API_KEY:
    POST /rest/3.0/live-activity/start-token {"extId", "groupId", "token"}: a device's push-to-start
                                           token (a later one of the same extId replaces it)
    POST /rest/3.0/sendBulkNotification    {"message": {"title", "text", "contentState",
                                           "liveActAttr", "liveActAttrType"}, "type": "LIVE_ACTIVITY",
                                           "target": {"groupId"}}: a start push to each push-to-start
                                           token of the group
    POST /rest/3.0/live-activity/register  {"groupId", "activityId", "token"}: replaces an earlier
                                           token of the same activityId
    POST /rest/3.0/live-activity/close     {"groupId", "activityId"}
    POST /rest/3.0/update-live-activity    {"groupId", "action": "UPDATE"|"END", "contentState",
                                            "priority"}: one call, every activity of the group
  CleverPush-shaped (examples/cleverpush-api.yaml), header Authorization = $CLEVERPUSH_API_KEY:
    POST /subscription/sync   {"channelId", "subscriptionId", "iosLiveActivityId",
                               "iosLiveActivityToken"}
    POST /notification/send   {"channel", "subscriptionIds", "iosLiveActivityEvent",
                               "iosLiveActivityContentState", "iosLiveActivityDismissalDate"}

An update is answered 202 at once and fanned out after: its pushes join one queue, in order,
which 200 workers send on 4 connections.

It takes what profile hands a service: PUSHBENCH_SERVICE_PORT to listen on (127.0.0.1), and the
PUSHBENCH_* variables to reach APNs (docs/profile.md). Faults, for the tests that must see them:
  --fail-every N   answers 500 to every N-th update call, and fans nothing out for it
  --drop-tail F    leaves out the last share F of each group's tokens (0.01: 1%)
  --stall-after N  never answers an update call after the N-th (the connection stays open)
  --die-after N    exits with status 1 at the (N+1)-th update call, saying so on stderr
  --drop-reports F answers a share F of token reports with success and forgets them
  --fail-starts F  answers 500 to a share F of start calls, and starts nothing for them
  --stall-reports S  answers each token report S seconds late
  --answer-delay S   answers each event call (a start, an update, an end) S seconds late, on as
                     many connections at once as the client opens
  --force-priority P sends every update at apns-priority P, whatever the call asked for
  --own-content-state  builds its own content state from the call's (PushBench's pushbench_event
                     left out), so its pushes carry no call number and are matched by order;
                     prints each update call's fan-out ("update call N: K tokens") on stderr
  --start-on-token   starts a match's activity as soon as it learns a push-to-start token, before
                     any operator call (a "start on subscribe" service); its start names
                     MatchAttributes with the group's number, as the app's football activity has
  --welcome          sends one update push to each token as it is registered, before any call:
                     a welcome push, with a content state of its own (no call number)
  --welcome-tagged   the same, carrying pushbench_event 0 (a service that reuses a template)
  --scheduler S      pushes on its own clock: a start call's message.fireAt (ISO 8601) is when
                     its start pushes are due, sent S seconds early (a scheduler that looks
                     ahead); a token report's countdownTarget (ISO 8601) is when that activity's
                     end push is due
  --end-skew S       sends each end S seconds early for even activity ids, late for odd ones
  --coalesce S       keeps each group's latest update and pushes it every S seconds, with a content
                     state of its own (no call number): the updates between are merged into it,
                     as a sender minding the budget does; an end first pushes the update pending
It prints what it sent, by aps.event, as "sent by event: end: N, start: N", and the requests it
received, as "requests received: N", on exit.
Standard library only, besides aioapns: an HTTP/1.1 server with keep-alive on asyncio.
"""

import argparse
import asyncio
import datetime
import json
import os
import random
import signal
import ssl
import sys
import time

import aioapns
import aioapns.connection

env = os.environ


def apns_client():
    aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = env["PUSHBENCH_APNS_HOST"]
    aioapns.connection.APNsProductionClientProtocol.APNS_PORT = int(env["PUSHBENCH_APNS_PORT"])
    with open(env["PUSHBENCH_AUTH_KEY"]) as key:
        return aioapns.APNs(
            key=key.read(),
            key_id=env["PUSHBENCH_KEY_ID"],
            team_id=env["PUSHBENCH_TEAM_ID"],
            topic=env["PUSHBENCH_TOPIC"],
            ssl_context=ssl.create_default_context(cafile=env["PUSHBENCH_CA_FILE"]),
            max_connections=4,
        )


# The operator's calls: a start, an update or an end (--answer-delay).
EVENT_PATHS = {"/rest/3.0/sendBulkNotification", "/rest/3.0/update-live-activity", "/notification/send"}


class Service:
    def __init__(self, options):
        self.options = options
        self.apns = apns_client()
        self.groups = {}  # group id -> {activity id: update token}, in registration order
        self.start_tokens = {}  # group id -> {device (extId): push-to-start token}
        self.random = random.Random(5521)
        self.subscriptions = {}  # subscription id -> token
        self.updates = 0
        self.requests = 0
        self.pushes = 0
        self.dropped_reports = 0
        self.failures = {}
        self.sent_by_event = {}
        self.sending = 0
        self.welcomes = 0
        self.queue = asyncio.Queue()
        self.workers = [asyncio.get_running_loop().create_task(self.work()) for _ in range(200)]
        self.pending = {}  # group id -> the latest update not yet pushed (--coalesce)
        if options.coalesce:
            self.flusher = asyncio.get_running_loop().create_task(self.flush_every(options.coalesce))

    def route(self, method, path, headers, body):
        """Returns (status, answer) for one request."""
        if method != "POST":
            return 405, {"error": "POST only"}
        if path.startswith("/rest/3.0/"):
            if headers.get("x-netmera-api-key") != env.get("NETMERA_API_KEY"):
                return 401, {"error": "bad api key"}
        elif headers.get("authorization") != env.get("CLEVERPUSH_API_KEY"):
            return 401, {"error": "bad api key"}
        try:
            request = json.loads(body)
        except ValueError:
            return 400, {"error": "body is not JSON"}
        if path == "/rest/3.0/live-activity/start-token":
            self.start_tokens.setdefault(str(request["groupId"]), {})[str(request["extId"])] = request["token"]
            if self.options.start_on_token:
                self.start_now(request["token"], str(request["groupId"]))
            return 200, {"registered": True}
        if path == "/rest/3.0/sendBulkNotification":
            return self.start(request)
        if path == "/rest/3.0/live-activity/register":
            if self.random.random() < self.options.drop_reports:
                self.dropped_reports += 1
                return 200, {"registered": True}  # a lost report: answered, never stored
            self.groups.setdefault(str(request["groupId"]), {})[str(request["activityId"])] = request["token"]
            if self.options.scheduler is not None and "countdownTarget" in request:
                self.schedule_end(request["token"], str(request["activityId"]), request["countdownTarget"])
            self.welcome(request["token"])
            return 200, {"registered": True}
        if path == "/rest/3.0/live-activity/close":
            self.groups.get(str(request["groupId"]), {}).pop(str(request["activityId"]), None)
            return 200, {"closed": True}
        if path == "/subscription/sync":
            self.subscriptions[str(request["subscriptionId"])] = request["iosLiveActivityToken"]
            return 200, {"success": True}
        if path == "/rest/3.0/update-live-activity":
            group = self.groups.get(str(request["groupId"]))
            if group is None:
                return 404, {"error": "unknown group"}
            tokens = list(group.values())
            action = request.get("action", "UPDATE").lower()
            return self.update(
                tokens, action, request.get("contentState"), request.get("priority", 10), None, request["groupId"]
            )
        if path == "/notification/send":
            tokens = [self.subscriptions[str(s)] for s in request.get("subscriptionIds", []) if str(s) in self.subscriptions]
            return self.update(
                tokens,
                request.get("iosLiveActivityEvent", "update"),
                request.get("iosLiveActivityContentState"),
                10,
                request.get("iosLiveActivityDismissalDate"),
            )
        return 404, {"error": "no such route"}

    def welcome(self, token):
        """A welcome push to a token just registered, when --welcome asks for one."""
        if not (self.options.welcome or self.options.welcome_tagged):
            return
        state = {"pushbench_event": 0} if self.options.welcome_tagged else {"welcome": 1}
        self.welcomes += 1
        self.queue.put_nowait((token, {"aps": {"timestamp": int(time.time()), "event": "update", "content-state": state}}, 10))

    def at(self, iso, early, send):
        """Calls send() `early` seconds before the ISO 8601 moment `iso`: the scheduler's clock."""
        due = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() - early
        asyncio.get_running_loop().call_later(max(0.0, due - time.time()), send)

    def schedule_end(self, token, activity, target):
        """The end of `activity` at its countdown's target, skewed by --end-skew."""
        number = int(activity.rsplit("-", 1)[-1])
        skew = self.options.end_skew if number % 2 == 0 else -self.options.end_skew
        aps = {"event": "end", "content-state": {"homeScore": 0, "awayScore": 0, "minute": 90, "period": 2}}

        def send():
            aps["timestamp"] = int(time.time())
            self.queue.put_nowait((token, {"aps": aps}, 10))

        self.at(target, self.options.scheduler + skew, send)

    def start(self, request):
        """The operator's start: a push-to-start push to each device of the target group, now or,
        with --scheduler, at the message's fireAt."""
        if self.random.random() < self.options.fail_starts:
            return 500, {"error": "injected start failure"}
        message = request.get("message", {})
        group = str(request.get("target", {}).get("groupId"))
        if self.options.scheduler is not None and "fireAt" in message:
            self.at(message["fireAt"], self.options.scheduler, lambda: self.start_group(group, message))
            return 202, {"scheduled": message["fireAt"]}
        return 202, {"accepted": self.start_group(group, message)}

    def start_group(self, group, message):
        """Queues a start push to each push-to-start token of `group`; how many."""
        tokens = list(self.start_tokens.get(group, {}).values())
        aps = {
            "timestamp": int(time.time()),
            "event": "start",
            "content-state": message.get("contentState") or {},
            "attributes-type": message.get("liveActAttrType"),
            "attributes": message.get("liveActAttr") or {},
            "alert": {"title": message.get("title", ""), "body": message.get("text", "")},
            "input-push-token": 1,
        }
        for token in tokens:
            self.queue.put_nowait((token, {"aps": aps}, 10))
        return len(tokens)

    def start_now(self, token, group):
        """A start of the service's own, to one device, before any operator call."""
        aps = {
            "timestamp": int(time.time()),
            "event": "start",
            "content-state": {"homeScore": 0, "awayScore": 0, "minute": 0, "period": 1},
            "attributes-type": "MatchAttributes",
            "attributes": {"groupID": int(group.rsplit("-", 1)[-1])},
            "alert": {"title": "Kick-off soon", "body": "Follow the match"},
        }
        self.queue.put_nowait((token, {"aps": aps}, 10))

    def update(self, tokens, event, state, priority, dismissal, group_id=None):
        self.updates += 1
        if self.options.die_after is not None and self.updates > self.options.die_after:
            print(f"dying at update call {self.updates}, as --die-after asks", file=sys.stderr, flush=True)
            os._exit(1)
        if self.options.stall_after is not None and self.updates > self.options.stall_after:
            return None, None
        if self.options.fail_every and self.updates % self.options.fail_every == 0:
            return 500, {"error": "injected failure"}
        keep = len(tokens) - int(len(tokens) * self.options.drop_tail)
        if self.options.coalesce and group_id is not None:
            state = {k: v for k, v in (state or {}).items() if k != "pushbench_event"}
            if event == "update":
                self.pending[group_id] = (tokens[:keep], state, priority)
                return 202, {"coalesced": keep}
            self.flush(group_id)
        if self.options.own_content_state:
            state = {k: v for k, v in (state or {}).items() if k != "pushbench_event"}
            print(f"update call {self.updates} to {group_id}: {keep} tokens", file=sys.stderr, flush=True)
        aps = {"timestamp": int(time.time()), "event": event, "content-state": state or {}}
        if event == "end" and dismissal:
            aps["dismissal-date"] = int(dismissal)
        message = {"aps": aps}
        priority = self.options.force_priority or int(priority)
        for token in tokens[:keep]:
            self.queue.put_nowait((token, message, priority))
        return 202, {"accepted": keep}

    def flush(self, group_id):
        """Pushes the latest update pending for `group_id`, if any."""
        pending = self.pending.pop(group_id, None)
        if pending is None:
            return
        tokens, state, priority = pending
        message = {"aps": {"timestamp": int(time.time()), "event": "update", "content-state": state}}
        for token in tokens:
            self.queue.put_nowait((token, message, int(priority)))

    async def flush_every(self, seconds):
        """Every `seconds`, each group's latest update: one push an activity for all that changed."""
        while True:
            await asyncio.sleep(seconds)
            for group_id in list(self.pending):
                self.flush(group_id)

    async def work(self):
        """One of the workers: sends the queue's pushes one at a time, for ever."""
        while True:
            token, message, priority = await self.queue.get()
            self.sending += 1
            try:
                result = await self.apns.send_notification(
                    aioapns.NotificationRequest(
                        device_token=token,
                        message=message,
                        push_type=aioapns.PushType.LIVEACTIVITY,
                        priority=priority,
                    )
                )
                failure = None if result.is_successful else result.description
            except Exception as error:
                failure = type(error).__name__
            self.pushes += 1
            if not failure:
                event = message["aps"].get("event", "none")
                self.sent_by_event[event] = self.sent_by_event.get(event, 0) + 1
            if failure:
                self.failures[failure] = self.failures.get(failure, 0) + 1
            self.sending -= 1

    async def serve(self, reader, writer):
        """One keep-alive HTTP/1.1 connection: requests one after another until it closes."""
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                method, path, _ = line.decode("latin-1").split(" ", 2)
                self.requests += 1
                headers = {}
                while True:
                    header = await reader.readline()
                    if header in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = header.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                status, answer = self.route(method, path.split("?")[0], headers, body)
                if self.options.stall_reports and path.endswith("/live-activity/register"):
                    await asyncio.sleep(self.options.stall_reports)
                if self.options.answer_delay and path.split("?")[0] in EVENT_PATHS:
                    await asyncio.sleep(self.options.answer_delay)
                if status is None:
                    await asyncio.Event().wait()  # stalled: never answers
                payload = json.dumps(answer).encode()
                writer.write(
                    f"HTTP/1.1 {status} {'OK' if status < 400 else 'Error'}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
                    + payload
                )
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fail-every", type=int, default=0)
    parser.add_argument("--drop-tail", type=float, default=0.0)
    parser.add_argument("--stall-after", type=int)
    parser.add_argument("--die-after", type=int)
    parser.add_argument("--drop-reports", type=float, default=0.0)
    parser.add_argument("--fail-starts", type=float, default=0.0)
    parser.add_argument("--stall-reports", type=float, default=0.0)
    parser.add_argument("--answer-delay", type=float, default=0.0)
    parser.add_argument("--start-on-token", action="store_true")
    parser.add_argument("--force-priority", type=int)
    parser.add_argument("--own-content-state", action="store_true")
    parser.add_argument("--welcome", action="store_true")
    parser.add_argument("--welcome-tagged", action="store_true")
    parser.add_argument("--scheduler", type=float)
    parser.add_argument("--end-skew", type=float, default=0.0)
    parser.add_argument("--coalesce", type=float)
    service = Service(parser.parse_args())
    server = await asyncio.start_server(service.serve, "127.0.0.1", int(env["PUSHBENCH_SERVICE_PORT"]), backlog=512)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    async with server:
        await stop.wait()
    # A push already sent is counted once its answer comes, as a service draining on SIGTERM
    # would: up to a second for those in flight.
    for _ in range(100):
        if service.sending == 0:
            break
        await asyncio.sleep(0.01)
    failures = ", ".join(f"{k}: {v}" for k, v in sorted(service.failures.items())) or "none"
    print(
        f"{service.updates} update calls, {service.pushes} pushes, failures: {failures}, "
        f"token reports dropped: {service.dropped_reports}",
        file=sys.stderr,
    )
    by_event = ", ".join(f"{k}: {v}" for k, v in sorted(service.sent_by_event.items())) or "none"
    print(f"sent by event: {by_event}; welcome pushes: {service.welcomes}", file=sys.stderr)
    print(f"requests received: {service.requests}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
