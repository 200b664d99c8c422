"""A Live Activity sender service as teams ship one: its tokens in SQLite, its pushes sent with
httpx over HTTP/2 to Apple's host, hard-coded. Nothing in it knows PushBench.

It serves a Netmera-shaped API (examples/netmera-lifecycle.yaml), header X-netmera-api-key =
$NETMERA_API_KEY:
  POST /rest/3.0/live-activity/start-token {"extId", "groupId", "token"}: a push-to-start token
  POST /rest/3.0/sendBulkNotification      {"message": {...}, "target": {"groupId"}}: start pushes
  POST /rest/3.0/live-activity/register    {"groupId", "activityId", "token"}: an update token
  POST /rest/3.0/live-activity/close       {"groupId", "activityId"}
  POST /rest/3.0/update-live-activity      {"groupId", "action", "contentState", "priority"}

Every token is a row in the database (--db, WAL mode); a call reads its group's rows, answers
202 and queues the pushes, which --workers threads send, each on an HTTP/2 connection of its own
(an httpx client is not to be shared between threads). It listens on
127.0.0.1:$PORT and signs with the .p8 key its deployment gives it (APNS_KEY_FILE, APNS_KEY_ID,
APNS_TEAM_ID) for the topic --topic. Standard library besides httpx and cryptography (Debian's
python3-httpx, python3-h2, python3-cryptography).

    PORT=8080 APNS_KEY_FILE=AuthKey.p8 APNS_KEY_ID=... APNS_TEAM_ID=... NETMERA_API_KEY=... \\
        python3 service.py --db tokens.sqlite3 --topic com.example.app.push-type.liveactivity
"""

import argparse
import base64
import json
import os
import queue
import sqlite3
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.serialization import load_pem_private_key

APNS = "https://api.push.apple.com"  # hard-coded, as it ships
SCHEMA = """
CREATE TABLE IF NOT EXISTS start_tokens (group_id TEXT, ext_id TEXT, token TEXT, PRIMARY KEY (group_id, ext_id));
CREATE TABLE IF NOT EXISTS activities (group_id TEXT, activity_id TEXT, token TEXT, PRIMARY KEY (group_id, activity_id));
"""


class Store:
    """The tokens, in SQLite: one connection a thread, every write committed at once."""

    def __init__(self, path):
        self.path = path
        self.local = threading.local()
        with sqlite3.connect(path) as database:
            database.execute("PRAGMA journal_mode=WAL")
            database.executescript(SCHEMA)

    def database(self):
        if not hasattr(self.local, "database"):
            self.local.database = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        return self.local.database

    def write(self, statement, values):
        self.database().execute(statement, values)

    def tokens(self, table, group):
        rows = self.database().execute(f"SELECT token FROM {table} WHERE group_id = ?", (group,))
        return [row[0] for row in rows]


class Pushes:
    """The queue of pushes and the threads that send them to APNs."""

    def __init__(self, topic, workers):
        self.topic = topic
        self.queue = queue.Queue()
        self.bearer = f"bearer {provider_token()}"
        self.failed = 0
        for _ in range(workers):
            threading.Thread(target=self.work, daemon=True).start()

    def add(self, tokens, aps, priority):
        for token in tokens:
            self.queue.put((token, {"aps": aps}, priority))

    def work(self):
        # One push at a time on the thread's own connection: APNs' one stream on a new
        # connection, until a valid provider token is answered, is never exceeded.
        with httpx.Client(http2=True, timeout=30) as client:
            while True:
                self.send(client, *self.queue.get())

    def send(self, client, token, payload, priority):
        headers = {
            "authorization": self.bearer,
            "apns-push-type": "liveactivity",
            "apns-topic": self.topic,
            "apns-priority": str(priority),
        }
        try:
            answer = client.post(f"{APNS}/3/device/{token}", json=payload, headers=headers)
            self.failed += answer.status_code != 200
        except httpx.HTTPError as error:
            self.failed += 1
            print(f"push failed: {error!r}", file=sys.stderr, flush=True)


def provider_token():
    """An ES256 JWT: Apple's provider token, signed with the deployment's .p8 key."""
    with open(os.environ["APNS_KEY_FILE"], "rb") as file:
        key = load_pem_private_key(file.read(), password=None)
    encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()  # noqa: E731
    header = encode(json.dumps({"alg": "ES256", "kid": os.environ["APNS_KEY_ID"]}).encode())
    claims = encode(json.dumps({"iss": os.environ["APNS_TEAM_ID"], "iat": int(time.time())}).encode())
    r, s = decode_dss_signature(key.sign(f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256())))
    return f"{header}.{claims}.{encode(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def serve(store, pushes):
    """The API, one thread a connection, keep-alive."""

    def start(request):
        message = request.get("message", {})
        # A push-to-start: the activity's attributes and first state, an alert, and a request
        # for the update token the start mints.
        aps = dict(event="start", timestamp=int(time.time()), alert=dict(title=message.get("title", "")))
        aps["alert"]["body"] = message.get("text", "")
        aps.update({"attributes-type": message.get("liveActAttrType"), "attributes": message.get("liveActAttr") or {}})
        aps.update({"content-state": message.get("contentState") or {}, "input-push-token": 1})
        tokens = store.tokens("start_tokens", str(request.get("target", {}).get("groupId")))
        pushes.add(tokens, aps, 10)
        return 202, {"accepted": len(tokens)}

    def update(request):
        tokens = store.tokens("activities", str(request["groupId"]))
        event = str(request.get("action", "UPDATE")).lower()
        aps = {"timestamp": int(time.time()), "event": event, "content-state": request.get("contentState") or {}}
        pushes.add(tokens, aps, int(request.get("priority", 10)))
        return 202, {"accepted": len(tokens)}

    routes = {
        "/rest/3.0/live-activity/start-token": lambda request: (
            store.write(
                "INSERT OR REPLACE INTO start_tokens VALUES (?, ?, ?)",
                (str(request["groupId"]), str(request["extId"]), request["token"]),
            )
            or (200, {"registered": True})
        ),
        "/rest/3.0/live-activity/register": lambda request: (
            store.write(
                "INSERT OR REPLACE INTO activities VALUES (?, ?, ?)",
                (str(request["groupId"]), str(request["activityId"]), request["token"]),
            )
            or (200, {"registered": True})
        ),
        "/rest/3.0/live-activity/close": lambda request: (
            store.write(
                "DELETE FROM activities WHERE group_id = ? AND activity_id = ?",
                (str(request["groupId"]), str(request["activityId"])),
            )
            or (200, {"closed": True})
        ),
        "/rest/3.0/sendBulkNotification": start,
        "/rest/3.0/update-live-activity": update,
    }

    class API(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            if self.headers.get("x-netmera-api-key") != os.environ.get("NETMERA_API_KEY"):
                return self.answer(401, {"error": "bad api key"})
            if self.path not in routes:
                return self.answer(404, {"error": "no such route"})
            try:
                return self.answer(*routes[self.path](json.loads(body)))
            except (ValueError, KeyError) as error:
                return self.answer(400, {"error": repr(error)})

        def answer(self, status, document):
            text = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), API)
    server.daemon_threads = True
    server.request_queue_size = 512
    server.serve_forever()


def main():
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--db", required=True, help="the SQLite database file (made if missing)")
    options.add_argument("--topic", required=True, help="apns-topic: the app's bundle ID + .push-type.liveactivity")
    options.add_argument("--workers", type=int, default=8, help="threads sending pushes, a connection each")
    arguments = options.parse_args()
    serve(Store(arguments.db), Pushes(arguments.topic, arguments.workers))


if __name__ == "__main__":
    main()
