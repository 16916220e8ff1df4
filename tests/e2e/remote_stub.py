#!/usr/bin/env python3
"""Loopback services for the remote-server cases (tests/e2e/remote.py), one per process.

    remote_stub.py mcp [--host H] [--cert PEM --key PEM] [--auth MODE]
        a Streamable HTTP MCP server at /mcp with one tool (`echo`), answering
        server/discover with -32601 (so every build takes the classic handshake);
        HTTPS with --cert/--key. --auth MODE makes it a protected resource:
          oauth            401 + WWW-Authenticate (resource_metadata), protected-resource and
                           authorization-server metadata, a registration endpoint (201)
          meta-404         401 + WWW-Authenticate without resource_metadata; every metadata
                           document 404
          as-meta-404      protected-resource metadata, authorization-server metadata 404
          no-registration  authorization-server metadata without registration_endpoint
          register-400     registration answers 400 (invalid_client_metadata)
          register-500     registration answers 500
          static-401       401 + `WWW-Authenticate: Bearer error="invalid_token"` to a request
                           that carries an Authorization header, no metadata (a static token
                           the server refuses)
          static-403       403 to every request (the token is known but not allowed)
          token            as oauth, but a request carrying `Authorization: Bearer
                           mcplogs-valid-access` is served; the token endpoint answers a
                           refresh_token grant of `mcplogs-good-refresh` with that access
                           token and any other refresh token with 400 invalid_grant
    remote_stub.py blackhole [--host H]
        accepts connections and never answers (nor closes)
    remote_stub.py proxy --status 407|403 [--host H]
        an HTTP proxy that answers CONNECT and absolute-form requests with STATUS
        (407 carries `Proxy-Authenticate: Basic realm="mcplogs"`)

Every service binds port 0 on its host (default 127.0.0.1; any 127.x address), writes the
port it got on stdout, and logs requests to stderr. Python 3.11 stdlib only.
"""
import argparse
import json
import socket
import ssl
import sys
import threading
import urllib.parse
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VALID_ACCESS = "mcplogs-valid-access"
GOOD_REFRESH = "mcplogs-good-refresh"
TOOL = {"name": "echo", "description": "Echo the text back.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}


def announce(port):
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()


def rpc(msg):
    """The answer to one JSON-RPC message (None for a notification)."""
    if not isinstance(msg, dict) or "id" not in msg:
        return None
    mid, method = msg["id"], msg.get("method")

    def ok(result):
        return {"jsonrpc": "2.0", "id": mid, "result": result}
    if method == "initialize":
        asked = (msg.get("params") or {}).get("protocolVersion") or "2025-06-18"
        version = asked if asked in ("2025-03-26", "2025-06-18", "2025-11-25") else "2025-06-18"
        return ok({"protocolVersion": version, "capabilities": {"tools": {}},
                   "serverInfo": {"name": "mcplogs-remote-stub", "version": "1.0.0"}})
    if method == "tools/list":
        return ok({"tools": [TOOL]})
    if method == "ping":
        return ok({})
    if method == "tools/call":
        text = ((msg.get("params") or {}).get("arguments") or {}).get("text", "")
        return ok({"content": [{"type": "text", "text": str(text)}]})
    return {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}}


def mcp(a):
    scheme = "https" if a.cert else "http"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            sys.stderr.write("remote_stub mcp: " + (fmt % args) + "\n")

        def base(self):
            return f"{scheme}://{a.host}:{self.server.server_address[1]}"

        def send(self, code, body=b"", ctype="application/json", headers=None):
            if isinstance(body, (dict, list)):
                body = json.dumps(body).encode()
            self.send_response(code)
            if body:
                self.send_header("Content-Type", ctype)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body and self.command != "HEAD":
                self.wfile.write(body)

        def body(self):
            n = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(n) if n else b""

        def metadata(self, path):
            base = self.base()
            if path.startswith("/.well-known/oauth-protected-resource"):
                if a.auth in ("oauth", "as-meta-404", "no-registration", "register-400",
                              "register-500", "token"):
                    return {"resource": f"{base}/mcp", "authorization_servers": [base],
                            "bearer_methods_supported": ["header"]}
                return None
            if path.startswith("/.well-known/oauth-authorization-server") or \
                    path.startswith("/.well-known/openid-configuration"):
                if a.auth in ("oauth", "no-registration", "register-400", "register-500",
                              "token"):
                    doc = {"issuer": base, "authorization_endpoint": f"{base}/authorize",
                           "token_endpoint": f"{base}/token",
                           "response_types_supported": ["code"],
                           "grant_types_supported": ["authorization_code", "refresh_token"],
                           "code_challenge_methods_supported": ["S256"],
                           "token_endpoint_auth_methods_supported": ["none"]}
                    if a.auth != "no-registration":
                        doc["registration_endpoint"] = f"{base}/register"
                    return doc
            return None

        def refuse(self):
            """The protected resource's answer to /mcp (False: serve it)."""
            if not a.auth:
                return False
            if a.auth == "token" and \
                    self.headers.get("Authorization") == f"Bearer {VALID_ACCESS}":
                return False
            if a.auth == "static-403":
                self.send(403, {"error": "insufficient_scope",
                                "error_description": "token not allowed"})
                return True
            if a.auth == "static-401":
                self.send(401, {"error": "invalid_token"}, headers={
                    "WWW-Authenticate": 'Bearer error="invalid_token", '
                                        'error_description="The access token expired"'})
                return True
            if a.auth == "meta-404":
                www = 'Bearer realm="mcplogs"'
            else:
                www = f'Bearer realm="mcplogs", resource_metadata="{self.base()}' \
                      f'/.well-known/oauth-protected-resource"'
            self.send(401, {"error": "invalid_token",
                            "error_description": "Missing or invalid access token"},
                      headers={"WWW-Authenticate": www})
            return True

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if path == "/mcp":
                if self.refuse():
                    return
                return self.send(405, headers={"Allow": "POST"})
            meta = self.metadata(path) if a.auth else None
            if meta is not None:
                return self.send(200, meta)
            return self.send(404, {"error": "not_found"})

        def do_DELETE(self):
            self.body()
            return self.send(405, headers={"Allow": "POST"})

        def do_POST(self):
            raw = self.body()
            path = self.path.split("?", 1)[0]
            if path == "/token" and a.auth == "token":
                form = urllib.parse.parse_qs(raw.decode("utf-8", "replace"))
                grant = (form.get("grant_type") or [""])[0]
                refresh = (form.get("refresh_token") or [""])[0]
                sys.stderr.write(f"remote_stub mcp: token grant {grant}\n")
                if grant == "refresh_token" and refresh == GOOD_REFRESH:
                    return self.send(200, {"access_token": VALID_ACCESS, "token_type": "Bearer",
                                           "expires_in": 3600, "refresh_token": GOOD_REFRESH})
                return self.send(400, {"error": "invalid_grant",
                                       "error_description": "refresh token revoked"})
            if path == "/register" and a.auth:
                if a.auth == "register-400":
                    return self.send(400, {"error": "invalid_client_metadata",
                                           "error_description": "redirect_uris not allowed"})
                if a.auth == "register-500":
                    return self.send(500, b"Internal Server Error", ctype="text/plain")
                try:
                    req = json.loads(raw or b"{}")
                except ValueError:
                    req = {}
                return self.send(201, dict(req, client_id="mcplogs-remote-client",
                                           client_id_issued_at=int(time.time()),
                                           token_endpoint_auth_method="none"))
            if path != "/mcp":
                return self.send(404, {"error": "not_found"})
            if self.refuse():
                return
            try:
                msg = json.loads(raw or b"null")
            except ValueError:
                return self.send(400, {"jsonrpc": "2.0", "id": None,
                                       "error": {"code": -32700, "message": "Parse error"}})
            msgs = msg if isinstance(msg, list) else [msg]
            out = [r for r in (rpc(m) for m in msgs) if r is not None]
            if not out:
                return self.send(202)
            return self.send(200, out if isinstance(msg, list) else out[0])

    srv = ThreadingHTTPServer((a.host, 0), Handler)
    srv.daemon_threads = True
    if a.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.cert, a.key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    announce(srv.server_address[1])
    srv.serve_forever()


def blackhole(a):
    s = socket.socket()
    s.bind((a.host, 0))
    s.listen(64)
    announce(s.getsockname()[1])
    held = []
    while True:
        c, _ = s.accept()
        sys.stderr.write("remote_stub blackhole: accepted a connection, never answering\n")
        held.append(c)  # kept open, never read from nor written to


def proxy(a):
    reason = {407: "Proxy Authentication Required", 403: "Forbidden"}.get(a.status, "Error")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            sys.stderr.write("remote_stub proxy: " + (fmt % args) + "\n")

        def refuse(self):
            body = f"{a.status} {reason} (mcplogs remote_stub proxy)\n".encode()
            self.send_response(a.status, reason)
            if a.status == 407:
                self.send_header("Proxy-Authenticate", 'Basic realm="mcplogs"')
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            self.close_connection = True

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = \
            do_CONNECT = refuse

    srv = ThreadingHTTPServer((a.host, 0), Handler)
    srv.daemon_threads = True
    announce(srv.server_address[1])
    srv.serve_forever()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["mcp", "blackhole", "proxy"])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--auth", choices=["oauth", "meta-404", "as-meta-404", "no-registration",
                                       "register-400", "register-500", "static-401",
                                       "static-403", "token"])
    ap.add_argument("--status", type=int, default=403)
    a = ap.parse_args()
    if not a.host.startswith("127."):
        ap.error("--host must be a loopback address (127.x.y.z)")
    threading.current_thread().name = a.kind
    {"mcp": mcp, "blackhole": blackhole, "proxy": proxy}[a.kind](a)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
