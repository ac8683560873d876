#!/usr/bin/env python3
"""remote_write_fake.py - a misbehaving remote-write receiver for
tests/e2e/remote_write.sh.  Decodes what it accepts (snappy block +
WriteRequest protobuf, decoded here by hand) and keeps every sample, per
URL path, for GET /dump?path=/x.

Paths (each a destination of the memwatch under test):
  /ok       accepts everything
  /auth     401 "invalid bearer token" unless 'Authorization: Bearer good'
  /bad400   the first request: 400 "sample rejected: out of bounds"; then accepts
  /hang     the first `--hang N` requests get no answer for 5 s (past the
            client's timeout), then accepts
Usage: remote_write_fake.py PORTFILE [--tls CERT KEY] [--hang N]
Writes the port it listens on (loopback, chosen by the system) to PORTFILE.
"""
import json
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse


def snappy_uncompress(b):
    """Snappy block format: varint length, then literals and copies."""
    n, pos = varint(b, 0)
    out = bytearray()
    while pos < len(b):
        tag = b[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            ln = tag >> 2
            if ln >= 60:
                nb = ln - 59
                ln = int.from_bytes(b[pos:pos + nb], "little")
                pos += nb
            ln += 1
            out += b[pos:pos + ln]
            pos += ln
            continue
        if kind == 1:
            ln = ((tag >> 2) & 7) + 4
            off = ((tag >> 5) << 8) | b[pos]
            pos += 1
        elif kind == 2:
            ln = (tag >> 2) + 1
            off = int.from_bytes(b[pos:pos + 2], "little")
            pos += 2
        else:
            ln = (tag >> 2) + 1
            off = int.from_bytes(b[pos:pos + 4], "little")
            pos += 4
        if off == 0 or off > len(out):
            raise ValueError("bad copy offset")
        for _ in range(ln):
            out.append(out[-off])
    if len(out) != n:
        raise ValueError("length mismatch %d != %d" % (len(out), n))
    return bytes(out)


def fields(b):
    """(field number, wire type, value) of a protobuf message."""
    pos = 0
    while pos < len(b):
        key, pos = varint(b, pos)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, pos = varint(b, pos)
        elif wt == 1:
            v = b[pos:pos + 8]
            pos += 8
        elif wt == 2:
            ln, pos = varint(b, pos)
            v = b[pos:pos + ln]
            pos += ln
        elif wt == 5:
            v = b[pos:pos + 4]
            pos += 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def varint(b, pos):
    """The unsigned varint at pos (snappy's length and protobuf's keys and
    values alike): (value, position after it)."""
    n, shift = 0, 0
    while True:
        c = b[pos]
        pos += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return n, pos


def decode_write_request(body):
    series = []
    for num, _, ts in fields(body):
        if num != 1:
            continue
        labels, samples = {}, []
        for n2, _, v in fields(ts):
            if n2 == 1:
                name = value = ""
                for n3, _, s in fields(v):
                    if n3 == 1:
                        name = s.decode()
                    elif n3 == 2:
                        value = s.decode()
                labels[name] = value
            elif n2 == 2:
                val, t = 0.0, 0
                for n3, wt, s in fields(v):
                    if n3 == 1:
                        val = struct.unpack("<d", s)[0]
                    elif n3 == 2:
                        t = s - (1 << 64) if s >= (1 << 63) else s
                samples.append((t, val))
        series.append((labels, samples))
    return series


class State:
    def __init__(self, hang):
        self.lock = threading.Lock()
        self.samples = {}      # path -> list of [key, ts, value]
        self.requests = {}     # path -> count
        self.hang_left = hang
        self.headers = {}      # path -> headers of the last request


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, code, text):
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        u = urlparse(self.path)
        st = self.server.state
        if u.path == "/dump":
            p = parse_qs(u.query).get("path", ["/ok"])[0]
            with st.lock:
                d = {"samples": st.samples.get(p, []), "requests": st.requests.get(p, 0),
                     "headers": st.headers.get(p, {})}
            self.reply(200, json.dumps(d))
        else:
            self.reply(404, "not found")

    def do_POST(self):
        st = self.server.state
        ln = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(ln)
        p = urlparse(self.path).path
        with st.lock:
            st.requests[p] = st.requests.get(p, 0) + 1
            nreq = st.requests[p]
            st.headers[p] = {k: v for k, v in self.headers.items()}
            hang = p == "/hang" and st.hang_left > 0
            if hang:
                st.hang_left -= 1
        if p == "/auth" and self.headers.get("Authorization") != "Bearer good":
            self.reply(401, "invalid bearer token")
            return
        if p == "/bad400" and nreq == 1:
            self.reply(400, "sample rejected: out of bounds")
            return
        if hang:
            time.sleep(5)
            self.close_connection = True
            return
        try:
            series = decode_write_request(snappy_uncompress(body))
        except Exception as e:  # a malformed body is the client's bug
            self.reply(400, "cannot decode: %s" % e)
            return
        with st.lock:
            lst = st.samples.setdefault(p, [])
            for labels, samples in series:
                key = json.dumps(labels, sort_keys=True)
                for t, v in samples:
                    lst.append([key, t, v])
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()


def main():
    args = sys.argv[1:]
    portfile = args.pop(0)
    tls = None
    hang = 0
    while args:
        a = args.pop(0)
        if a == "--tls":
            tls = (args.pop(0), args.pop(0))
        elif a == "--hang":
            hang = int(args.pop(0))
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.state = State(hang)
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(tls[0], tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    srv.serve_forever()


if __name__ == "__main__":
    main()
