#!/usr/bin/python3
# A stand-in for coreschedd's control socket, for the host tests of the
# CLI's output: answers each varlink call with the canned reply for its
# method from REPLIES.json ({"io.coresched.X": {"parameters": {...}}}).
# Usage: fake-coreschedd.py SOCKET REPLIES.json (runs until killed).
import json
import socket
import sys

path, replies_file = sys.argv[1], sys.argv[2]
with open(replies_file) as f:
    replies = json.load(f)
srv = socket.socket(socket.AF_UNIX)
srv.bind(path)
srv.listen(16)
while True:
    conn, _ = srv.accept()
    buf = b""
    while not buf.endswith(b"\0"):
        data = conn.recv(65536)
        if not data:
            break
        buf += data
    if buf.endswith(b"\0"):
        method = json.loads(buf[:-1]).get("method", "")
        reply = replies.get(method, {"error": "org.varlink.service.MethodNotFound",
                                     "parameters": {"method": method}})
        conn.sendall(json.dumps(reply).encode() + b"\0")
    conn.close()
