#!/usr/bin/python3
"""Abuses `pushbench mock` over real sockets while a well-behaved client keeps pushing, and checks
that the mock stays up, keeps answering that client, holds its memory, and counts what it
refused.

Attacks, in turn: malformed HEADERS, an oversized header list, a RST_STREAM flood (rapid reset),
a SETTINGS flood, a client that never reads, half-open TLS (connects and says nothing), many idle
HTTP/2 connections, more connections than the mock's limit, and abrupt disconnects mid-stream.
Written with Debian's python3-h2 (and the hpack and hyperframe it brings) so the mock meets a
client that is not ours.

The script starts the mock itself (no --auth-key, so tokens are checked for form only; an admin
port; --max-connections IDLE + 100; a short --handshake-timeout) and stops it with Ctrl-C at the
end, which must end it cleanly.
Usage: abuse_mock.py PUSHBENCH [--idle N] [--handshake-timeout SECONDS] [--summary FILE]
Prints a line per attack and a JSON summary; exits 0 when every check held, 1 otherwise.
"""
import argparse
import base64
import json
import os
import re
import resource
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import h2.config
import h2.connection
import h2.events
import hpack
from hyperframe.frame import ContinuationFrame, DataFrame, HeadersFrame, RstStreamFrame, SettingsFrame

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
TOPIC = "com.example.abuse"
BODY = b'{"aps":{"alert":"still here"}}'


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# A well-formed ES256 provider token; the mock runs without keys, so only its form is checked.
BEARER = "bearer " + ".".join(
    [
        b64url(b'{"alg":"ES256","kid":"ABUSE00001"}'),
        b64url(json.dumps({"iss": "ABUSETEAM1", "iat": int(time.time())}).encode()),
        b64url(bytes(64)),
    ]
)


def push_headers(port, stream_number):
    return [
        (":method", "POST"),
        (":scheme", "https"),
        (":path", "/3/device/%064x" % stream_number),
        (":authority", "127.0.0.1:%d" % port),
        ("authorization", BEARER),
        ("apns-topic", TOPIC),
        ("apns-push-type", "alert"),
        ("content-length", str(len(BODY))),
    ]


class Mock:
    """The mock under test: started here, where it listens, its memory, descriptors and counters."""

    def __init__(self, pushbench, folder, max_connections, handshake_timeout):
        certificate = os.path.join(folder, "mock.pem")
        self.process = subprocess.Popen(
            [pushbench, "mock", "--port", "0", "--admin-port", "0", "--cert-out", certificate]
            + ["--max-connections", str(max_connections), "--handshake-timeout", f"{handshake_timeout}s"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.pid, self.started = self.process.pid, []
        for line in self.process.stdout:
            self.started.append(line)
            if line.startswith("counters:"):
                break
        text = "".join(self.started)
        ports = re.search(r"https://127\.0\.0\.1:(\d+)", text), re.search(r"http://127\.0\.0\.1:(\d+)", text)
        if not all(ports):
            raise SystemExit("the mock did not start:\n" + text)
        self.port, self.admin_port = int(ports[0][1]), int(ports[1][1])
        self.context = ssl.create_default_context(cafile=certificate)
        self.context.set_alpn_protocols(["h2"])

    def stop(self):
        """Ctrl-C; returns the exit status and the last line the mock printed."""
        self.process.send_signal(signal.SIGINT)
        rest, _ = self.process.communicate(timeout=30)
        lines = rest.strip().splitlines()
        return self.process.returncode, lines[-1] if lines else ""

    def alive(self):
        return self.process.poll() is None

    def rss_kib(self):
        with open("/proc/%d/status" % self.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.pid))

    def stats(self):
        url = "http://127.0.0.1:%d/stats" % self.admin_port
        with urllib.request.urlopen(url, timeout=10) as answer:
            return json.load(answer)

    def tcp(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)

    def tls(self):
        """A TLS connection that negotiated h2, its preface and SETTINGS sent."""
        sock = self.context.wrap_socket(self.tcp(), server_hostname="127.0.0.1")
        if sock.selected_alpn_protocol() != "h2":
            raise RuntimeError("ALPN chose %r" % sock.selected_alpn_protocol())
        sock.sendall(PREFACE + SettingsFrame(0).serialize())
        return sock


class WellBehavedClient(threading.Thread):
    """One connection that pushes every 20 ms and reads every answer, for the whole run."""

    def __init__(self, mock):
        super().__init__(daemon=True)
        self.mock, self.stop, self.answers, self.failure = mock, threading.Event(), [], None

    def run(self):
        try:
            sock = self.mock.context.wrap_socket(self.mock.tcp(), server_hostname="127.0.0.1")
            sock.settimeout(5)
            connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
            connection.initiate_connection()
            sock.sendall(connection.data_to_send())
            sent = {}
            while not self.stop.is_set():
                stream = connection.get_next_available_stream_id()
                connection.send_headers(stream, push_headers(self.mock.port, stream))
                connection.send_data(stream, BODY, end_stream=True)
                sock.sendall(connection.data_to_send())
                sent[stream] = time.monotonic()
                while stream in sent:
                    data = sock.recv(65535)
                    if not data:
                        raise RuntimeError("the mock closed the well-behaved client's connection")
                    for event in connection.receive_data(data):
                        if isinstance(event, h2.events.ResponseReceived):
                            began = sent.pop(event.stream_id)
                            status = int(dict(event.headers)[b":status"])
                            self.answers.append((time.monotonic(), status, time.monotonic() - began))
                        elif isinstance(event, h2.events.StreamReset):
                            raise RuntimeError("the well-behaved client's stream was reset")
                    sock.sendall(connection.data_to_send())
                time.sleep(0.02)
        except Exception as error:  # the checks report it; the thread must not die silently
            self.failure = repr(error)

    def during(self, began, ended):
        return [answer for answer in self.answers if began <= answer[0] <= ended]


def headers_frame(stream, block, end_headers=True):
    """A HEADERS frame carrying `block` (an HPACK header block, valid or not)."""
    frame = HeadersFrame(stream)
    frame.data = block
    if end_headers:
        frame.flags.add("END_HEADERS")
    return frame.serialize()


def push_frames(encoder, port, stream, body=BODY, end_stream=True):
    """A push's HEADERS and DATA frames on `stream`."""
    data = DataFrame(stream, data=body)
    if end_stream:
        data.flags.add("END_STREAM")
    return headers_frame(stream, encoder.encode(push_headers(port, stream))) + data.serialize()


def quietly_close(sock):
    try:
        sock.close()
    except OSError:
        pass


def abrupt_close(sock):
    """Closes with RST instead of FIN, as a crashed client or a pulled cable does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    quietly_close(sock)


def drain(sock, seconds=1.0):
    """Reads until the peer closes or `seconds` pass; returns the bytes read."""
    sock.settimeout(0.2)
    received, deadline = b"", time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65535)
        except (socket.timeout, ssl.SSLWantReadError):
            continue
        except OSError:
            break
        if not data:
            break
        received += data
    return received


def each_connection(mock, count, send, linger=0.5):
    """Opens `count` connections in turn; on each, `send(sock)` writes its abuse, what comes back
    is read for `linger` seconds, and the connection is closed."""
    for _ in range(count):
        sock = mock.tls()
        try:
            send(sock)
        except OSError:
            pass  # the mock may close first: that is what is being checked
        drain(sock, linger)
        quietly_close(sock)


def malformed_headers(mock, args):
    """HEADERS whose block is not valid HPACK: a connection error (COMPRESSION_ERROR)."""
    each_connection(mock, 20, lambda sock: sock.sendall(headers_frame(1, b"\xff\xff\xff\xff\xff\xff\x7f\x00garbage")))
    return "20 connections sent an undecodable header block"


def oversized_header_list(mock, args):
    """A 64 KiB header value, eight times the 8,000-byte list the mock's SETTINGS allow, in a
    HEADERS frame and CONTINUATION frames of 16,000 bytes."""

    def send(sock):
        block = hpack.Encoder().encode(push_headers(mock.port, 1) + [("x-padding", "x" * 65536)])
        chunks = [block[at : at + 16000] for at in range(0, len(block), 16000)]
        frames = [headers_frame(1, chunks[0], end_headers=False)]
        for index, chunk in enumerate(chunks[1:], start=2):
            continuation = ContinuationFrame(1, data=chunk)
            if index == len(chunks):
                continuation.flags.add("END_HEADERS")
            frames.append(continuation.serialize())
        sock.sendall(b"".join(frames))

    each_connection(mock, 10, send)
    return "10 connections sent a 64 KiB header list"


def rst_flood(mock, args):
    """Rapid reset: 20,000 streams opened and reset at once, over 4 connections."""

    def send(sock):
        encoder, frames = hpack.Encoder(), []
        for stream in range(1, 10001, 2):
            block = encoder.encode(push_headers(mock.port, stream))
            frames.append(headers_frame(stream, block) + RstStreamFrame(stream, error_code=8).serialize())
        sock.sendall(b"".join(frames))

    each_connection(mock, 4, send, linger=1.0)
    return "4 connections opened and reset 5,000 streams each"


def settings_flood(mock, args):
    """50,000 SETTINGS frames, none of whose ACKs are read."""
    sock = mock.tls()
    flood = SettingsFrame(0, settings={SettingsFrame.INITIAL_WINDOW_SIZE: 65535}).serialize() * 50000
    sock.settimeout(5)
    try:
        sock.sendall(flood)
    except OSError:
        pass
    drain(sock, 0.5)
    quietly_close(sock)
    return "1 connection sent 50,000 SETTINGS without reading"


def never_reads(mock, args):
    """Pushes for 5 s without reading one byte of the answers."""
    sock = mock.tls()
    sock.settimeout(2)
    encoder = hpack.Encoder()
    window = SettingsFrame(0, settings={SettingsFrame.INITIAL_WINDOW_SIZE: 65535})
    sock.sendall(window.serialize())
    sent, stream, deadline = 0, 1, time.monotonic() + 5
    try:
        while time.monotonic() < deadline:
            batch = []
            for _ in range(100):
                batch.append(push_frames(encoder, mock.port, stream))
                stream += 2
            sock.sendall(b"".join(batch))
            sent += 100
    except (socket.timeout, OSError):
        pass
    rss = mock.rss_kib()
    abrupt_close(sock)
    return "1 connection sent %d pushes and read nothing (mock RSS %d KiB while it did)" % (sent, rss)


def half_open_tls(mock, args):
    """Connections that never finish TLS: 100 silent, 100 stopping inside a ClientHello."""
    socks = []
    for index in range(200):
        sock = mock.tcp()
        if index % 2:
            sock.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")  # a ClientHello cut short
        socks.append(sock)
    time.sleep(args.handshake_timeout + 1.5)
    closed = 0
    for sock in socks:
        sock.settimeout(0.5)
        try:
            closed += sock.recv(1) == b""
        except OSError:
            closed += 1
        quietly_close(sock)
    return "200 connections never finished TLS; the mock closed %d of them" % closed


def idle_connections(mock, args):
    """`--idle` HTTP/2 connections that say nothing after their SETTINGS, then more than the
    mock's limit allows."""
    before = mock.rss_kib()
    socks = [mock.tls() for _ in range(args.idle)]
    time.sleep(1)
    held = mock.rss_kib()
    per_connection = (held - before) / args.idle
    stats = mock.stats()
    # The limit is idle + 100; the well-behaved client holds one place.
    extra, refused = [], 0
    for _ in range(150):
        try:
            extra.append(mock.tls())
        except (OSError, RuntimeError):
            refused += 1
    for sock in socks + extra:
        quietly_close(sock)
    idle_connections.figures = {
        "idle_connections": args.idle,
        "mock_rss_kib_before": before,
        "mock_rss_kib_with_idle": held,
        "mock_kib_per_idle_connection": round(per_connection, 1),
        "connections_open_with_idle": stats["connections_open"],
        "connections_refused_over_limit_seen_by_client": refused,
    }
    return "%d idle connections cost the mock %.1f KiB each; %d of 150 more were refused" % (
        args.idle,
        per_connection,
        refused,
    )


def abrupt_disconnects(mock, args):
    """200 connections that send HEADERS and half a body, then vanish with a TCP reset."""
    encoder = hpack.Encoder()
    for _ in range(200):
        sock = mock.tls()
        sock.sendall(push_frames(encoder, mock.port, 1, body=BODY[:10], end_stream=False))
        abrupt_close(sock)
        encoder = hpack.Encoder()
    return "200 connections reset mid-stream"


ATTACKS = [
    malformed_headers,
    oversized_header_list,
    rst_flood,
    settings_flood,
    never_reads,
    half_open_tls,
    idle_connections,
    abrupt_disconnects,
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pushbench", help="the pushbench binary whose mock is abused")
    parser.add_argument("--idle", type=int, default=10000)
    parser.add_argument("--handshake-timeout", type=float, default=2.0)
    parser.add_argument("--summary", help="also write the JSON summary to this file")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    folder = tempfile.mkdtemp(prefix="abuse-")
    mock = Mock(args.pushbench, folder, args.idle + 100, args.handshake_timeout)
    try:
        return abuse(mock, args)
    finally:
        if mock.alive():
            mock.process.kill()
        shutil.rmtree(folder, ignore_errors=True)


def abuse(mock, args):
    """Runs every attack against `mock`; returns the exit status."""
    good = WellBehavedClient(mock)
    good.start()
    time.sleep(0.5)
    start_rss, start_fds = mock.rss_kib(), mock.fds()
    failures, results = [], []
    for attack in ATTACKS:
        began = time.monotonic()
        try:
            what = attack(mock, args)
        except Exception as error:
            what = "could not be carried out: %r" % error
            failures.append("%s: %r" % (attack.__name__, error))
        ended = time.monotonic()
        # The attack and the 0.2 s after it: a mock that ends an attacker's connection at once
        # makes an attack too short for the client's next push to fall inside it.
        time.sleep(0.2)
        answers = good.during(began, ended + 0.2)
        slowest = max((answer[2] for answer in answers), default=0.0)
        results.append(
            {
                "attack": attack.__name__,
                "what": what,
                "seconds": round(ended - began, 2),
                "good_client_answers": len(answers),
                "good_client_slowest_ms": round(slowest * 1000, 1),
                "mock_rss_kib": mock.rss_kib() if mock.alive() else None,
            }
        )
        print("%-22s %s; good client: %d answers, slowest %.0f ms" % (attack.__name__, what, len(answers), slowest * 1000))
        sys.stdout.flush()
        if not mock.alive():
            failures.append("the mock died during %s" % attack.__name__)
            break
        if not answers:
            failures.append("the well-behaved client got no answer during %s" % attack.__name__)
    time.sleep(1)
    good.stop.set()
    good.join(10)
    if good.failure:
        failures.append("well-behaved client: " + good.failure)
    statuses = sorted({answer[1] for answer in good.answers})
    if statuses != [200]:
        failures.append("the well-behaved client got statuses %s" % statuses)
    stats = mock.stats() if mock.alive() else {}
    end_rss, end_fds = (mock.rss_kib(), mock.fds()) if mock.alive() else (0, 0)
    if stats:
        refused = {
            "connection_errors": stats["connection_errors"],
            "handshakes_timed_out": stats["handshakes_timed_out"],
            "connections_refused_over_limit": stats["connections_refused_over_limit"],
            "streams_reset_by_client": stats["streams_reset_by_client"],
            "connections_open": stats["connections_open"],
        }
        if stats["handshakes_timed_out"] < 200:
            failures.append("only %d half-open handshakes timed out" % stats["handshakes_timed_out"])
        if stats["connections_refused_over_limit"] < 1:
            failures.append("no connection was refused over the limit")
        if not any(kind.startswith("http2.") for kind in stats["connection_errors"]):
            failures.append("no HTTP/2 protocol error was counted")
        if stats["streams_reset_by_client"] < 1000:
            failures.append("only %d client resets counted" % stats["streams_reset_by_client"])
        if stats["connections_open"] > 1:
            failures.append("%d connections still open besides the client's" % (stats["connections_open"] - 1))
    else:
        refused = {}
    if end_fds > start_fds + 4:
        failures.append("the mock's descriptors grew from %d to %d" % (start_fds, end_fds))
    stopped = mock.stop() if mock.alive() else (None, "")
    # Ctrl-C ends the mock with 130, as every command's exit statuses say.
    if stopped[0] != 130 or not stopped[1].startswith("stopped:"):
        failures.append("Ctrl-C did not stop the mock cleanly: status %s, last line %r" % stopped)
    summary = {
        "attacks": results,
        "idle": getattr(idle_connections, "figures", {}),
        "good_client": {"answers": len(good.answers), "statuses": statuses},
        "mock": {"rss_kib_start": start_rss, "rss_kib_end": end_rss, "fds_start": start_fds, "fds_end": end_fds},
        "refused": refused,
        "failures": failures,
    }
    print(json.dumps(summary, indent=1))
    if args.summary:
        with open(args.summary, "w") as file:
            json.dump(summary, file, indent=1)
    print("PASS" if not failures else "FAIL: " + "; ".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
