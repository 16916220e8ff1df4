#!/usr/bin/env python3
"""A loopback "proxy" that answers 403 to every request, CONNECT included,
so a Claude Code run pointed at it through HTTPS_PROXY/HTTP_PROXY reaches nothing
outside this machine. Usage: deny_proxy.py PORT (binds 127.0.0.1). Stdlib only.
"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("deny_proxy: " + (fmt % args) + "\n")

    def _deny(self):
        body = b"forbidden by mcplogs deny_proxy\n"
        self.send_response(403)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = do_CONNECT = _deny


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18081
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True
    sys.stderr.write(f"deny_proxy listening on 127.0.0.1:{port}\n")
    srv.serve_forever()


if __name__ == "__main__":
    main()
