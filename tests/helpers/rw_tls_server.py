#!/usr/bin/env python3
"""rw_tls_server.py CERT KEY - a tiny HTTPS remote-write receiver for
tests/test_rw_transport_linux.c.

Listens on 127.0.0.1 on a port of the kernel's choosing, prints that port
on a line of its own on stdout once it listens, then answers every POST
with 204 and its body length in an X-Got header, and every GET (as
`memwatchd check --url https://...` asks) with a small JSON report.  It stops when its stdin
closes (the test holds the other end, so it also stops when the test dies)
or when the test kills it by PID.  A client that rejects the certificate
ends its handshake; that is ignored, the next connection is served.
"""
import http.server
import os
import ssl
import sys
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(n)
        self.send_response(204)
        self.send_header("X-Got", str(n))
        self.end_headers()

    def do_GET(self):
        body = b'{"verdict":"pass","path":"%s"}' % self.path.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    cert, key = sys.argv[1], sys.argv[2]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)

    def watch_stdin():
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
