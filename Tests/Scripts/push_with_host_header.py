#!/usr/bin/python3
"""One device push over HTTP/2 and TLS that names its host with a `host` header instead of
`:authority` (RFC 9113 allows either), as some HTTP/2 client libraries send it. Written with
Debian's python3-h2 so that the mock is met by a client that is not ours, curl's or nghttp2's.

Usage: push_with_host_header.py PORT CA_FILE BEARER DEVICE_TOKEN
Prints "status=<code> apns-id=<id>" and exits 0 when an answer came.
"""
import socket
import ssl
import sys

import h2.config
import h2.connection
import h2.events

port, ca_file, bearer, token = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
context = ssl.create_default_context(cafile=ca_file)
context.set_alpn_protocols(["h2"])
sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname="127.0.0.1")
assert sock.selected_alpn_protocol() == "h2", sock.selected_alpn_protocol()

connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
connection.initiate_connection()
body = b'{"aps":{"timestamp":1,"event":"update","content-state":{"minute":1}}}'
stream = connection.get_next_available_stream_id()
connection.send_headers(
    stream,
    [
        (":method", "POST"),
        (":scheme", "https"),
        (":path", "/3/device/" + token),
        ("host", "127.0.0.1:%d" % port),
        ("authorization", bearer),
        ("apns-push-type", "liveactivity"),
        ("apns-topic", "com.example.app.push-type.liveactivity"),
        ("content-length", str(len(body))),
    ],
)
connection.send_data(stream, body, end_stream=True)
sock.sendall(connection.data_to_send())

status, apns_id = None, None
while status is None:
    data = sock.recv(65535)
    if not data:
        sys.exit("connection closed before an answer")
    for event in connection.receive_data(data):
        if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
            headers = dict(event.headers)
            status, apns_id = headers.get(":status"), headers.get("apns-id")
        elif isinstance(event, h2.events.StreamReset):
            sys.exit("stream reset with error code %s" % event.error_code)
    sock.sendall(connection.data_to_send())
print("status=%s apns-id=%s" % (status, apns_id))
