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
"""
import os
import socket
import ssl
import sys
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events

MODES = ("silent", "backlog", "tls-silent", "h2-silent", "stop-reading", "reset", "no-close-notify")
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
    context.set_alpn_protocols(["h2"])
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


def speak_h2(mode, tls):
    h2conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    h2conn.initiate_connection()
    tls.sendall(h2conn.data_to_send())
    answered = 0
    while True:
        data = tls.recv(65536)
        if not data:
            return
        for event in h2conn.receive_data(data):
            if not isinstance(event, h2.events.StreamEnded):
                continue
            stream = event.stream_id
            if mode == "reset":
                h2conn.reset_stream(stream, error_code=h2.errors.ErrorCodes.INTERNAL_ERROR)
            elif mode in ("stop-reading", "no-close-notify") and answered < 5:
                h2conn.send_headers(stream, [(":status", "200"), ("apns-id", "00000000-0000-0000-0000-000000000000")],
                                    end_stream=True)
                answered += 1
        tls.sendall(h2conn.data_to_send())
        if answered >= 5 and mode == "stop-reading":
            held.append(tls)  # never read again: the client's window and our socket buffer fill
            return
        if answered >= 5 and mode == "no-close-notify":
            os.close(tls.detach())  # the TCP socket under TLS goes, with no close_notify
            return


if __name__ == "__main__":
    main()
