#!/usr/bin/env python3
"""A target that misbehaves in one way, for testing that a run stays bounded and counts right.

    hostile_target.py MODE CERT KEY

Listens on a free loopback port, prints "listening on PORT" (and "accepted" for each connection)
and serves until killed. MODE:

  silent          accepts TCP and never says a word (no TLS)
  backlog         never accepts; its one-place backlog is filled at start, so SYNs go unanswered
  tls-silent      completes TLS with ALPN h2, then never sends a byte (no SETTINGS, no PING ACK)
  h2-silent       completes TLS and sends SETTINGS (and answers PING), but never answers a request
  stop-reading    answers the first 5 requests of a connection, then never reads again
  reset           answers every request with RST_STREAM(INTERNAL_ERROR)
  no-close-notify answers 5 requests of a connection, then drops TCP without TLS close_notify
  goaway          sends SETTINGS, then GOAWAY(last_stream_id 0, {"reason":"Shutdown"}) and closes
  zero-streams    allows no streams at all (SETTINGS_MAX_CONCURRENT_STREAMS 0), and answers nothing
  alpn-http1      agrees to HTTP/1.1 only (ALPN), and answers every request 400 over HTTP/1.1,
                  printing "request over HTTP/1.1: METHOD PATH" for each
  refuse          answers every request with RST_STREAM(REFUSED_STREAM)
  huge-body       answers 200 with a body of up to 64 MiB, as fast as flow control lets it
"""
import os
import re
import socket
import ssl
import sys
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

MODES = ("silent", "backlog", "tls-silent", "h2-silent", "stop-reading", "reset", "no-close-notify", "goaway",
         "zero-streams", "alpn-http1", "refuse", "huge-body")
# Held open so that the peer sees nothing: a closed socket would tell it something.
held = []


def main():
    mode, cert, key = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode not in MODES:
        sys.exit(f"unknown mode {mode}; one of {', '.join(MODES)}")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    if mode == "backlog":
        listener.listen(0)
        # Fill the accept queue (a backlog of 0 holds one) with connections of our own.
        for _ in range(4):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            held.append(filler)
        print(f"listening on {port}", flush=True)
        while True:
            time.sleep(3600)
    listener.listen(128)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["http/1.1"] if mode == "alpn-http1" else ["h2"])
    print(f"listening on {port}", flush=True)
    while True:
        connection, _ = listener.accept()
        print("accepted", flush=True)
        threading.Thread(target=serve, args=(mode, connection, context), daemon=True).start()


def serve(mode, connection, context):
    if mode == "silent":
        held.append(connection)
        return
    try:
        tls = context.wrap_socket(connection, server_side=True)
    except (ssl.SSLError, OSError):
        connection.close()
        return
    if mode == "tls-silent":
        held.append(tls)
        drain(tls)
        return
    if mode == "alpn-http1":
        answer_http1(tls)
        return
    try:
        speak_h2(mode, tls)
    except (ssl.SSLError, OSError):
        pass


def drain(tls):
    """Reads and discards until the peer leaves."""
    try:
        while tls.recv(65536):
            pass
    except (ssl.SSLError, OSError):
        pass


def answer_http1(tls):
    """Answers each HTTP/1.1 request 400, keeping the connection."""
    try:
        while True:
            data = tls.recv(65536)
            if not data:
                return
            for method, path in re.findall(rb"^([A-Z]+) (\S+) HTTP/1\.1\r$", data, re.MULTILINE):
                print(f"request over HTTP/1.1: {method.decode()} {path.decode()}", flush=True)
                tls.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
    except (ssl.SSLError, OSError):
        pass


def speak_h2(mode, tls):
    h2conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    if mode == "zero-streams":
        h2conn.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 0})
    h2conn.initiate_connection()
    tls.sendall(h2conn.data_to_send())
    if mode == "zero-streams":
        # A client may open streams before it has seen the limit (RFC 9113 §5.1.2): tolerate
        # those here (the library would end the connection), answering none of them.
        h2conn.local_settings = h2.settings.Settings(client=False)
    if mode == "goaway":
        tls.recv(65536)  # the client's preface
        h2conn.close_connection(error_code=0, additional_data=b'{"reason":"Shutdown"}', last_stream_id=0)
        tls.sendall(h2conn.data_to_send())
        tls.close()
        return
    answered = 0
    bodies = {}  # huge-body: stream -> bytes of its body still to send
    while True:
        data = tls.recv(65536)
        if not data:
            return
        try:
            events = h2conn.receive_data(data)
        except h2.exceptions.TooManyStreamsError:
            events = []  # a stream over the limit of 0: left unanswered, as the client must wait
        for event in events:
            if isinstance(event, h2.events.StreamReset):
                bodies.pop(event.stream_id, None)
            if isinstance(event, h2.events.DataReceived) and mode != "stop-reading":
                # Give the window back, as a server that reads does.
                h2conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            if not isinstance(event, h2.events.StreamEnded):
                continue
            stream = event.stream_id
            if mode == "reset":
                h2conn.reset_stream(stream, error_code=h2.errors.ErrorCodes.INTERNAL_ERROR)
            elif mode == "refuse":
                h2conn.reset_stream(stream, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
            elif mode == "huge-body":
                h2conn.send_headers(stream, [(":status", "200")])
                bodies[stream] = 64 << 20
            elif mode in ("stop-reading", "no-close-notify") and answered < 5:
                h2conn.send_headers(stream, [(":status", "200"), ("apns-id", "00000000-0000-0000-0000-000000000000")],
                                    end_stream=True)
                answered += 1
        send_bodies(h2conn, bodies)
        tls.sendall(h2conn.data_to_send())
        if answered >= 5 and mode == "stop-reading":
            held.append(tls)  # never read again: the client's window and our socket buffer fill
            return
        if answered >= 5 and mode == "no-close-notify":
            os.close(tls.detach())  # the TCP socket under TLS goes, with no close_notify
            return


def send_bodies(h2conn, bodies):
    """Sends what flow control allows of each body still owed, now and again as windows open."""
    for stream, left in list(bodies.items()):
        size = min(left, h2conn.local_flow_control_window(stream))
        while size > 0:
            chunk = min(size, h2conn.max_outbound_frame_size)
            h2conn.send_data(stream, b"x" * chunk)
            size -= chunk
            left -= chunk
        bodies[stream] = left


if __name__ == "__main__":
    main()
