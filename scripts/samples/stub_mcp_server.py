#!/usr/bin/env python3
"""Stub MCP server for producing real Claude Code MCP logs offline.

stdio mode (default): newline-delimited JSON-RPC 2.0 on stdin/stdout.
HTTP mode (--http PORT): a minimal Streamable HTTP endpoint on 127.0.0.1:PORT/mcp.

Switches
  --discover modern|error|http-400
                              answer `server/discover` as a 2026-07-28 server
                              (modern) or with JSON-RPC error -32601 (error, default);
                              http-400 (HTTP): as Python `mcp` 1.x does, HTTP 400 naming
                              a fresh session that does not exist (a request carrying it
                              gets 404 "Session not found")
  --init-version V            protocol version to answer `initialize` with
                              (default: echo the client's proposal)
  --omit FIELDS               comma list of resultType,ttlMs,cacheScope to leave out
                              of the tools/list result
  --wrong-types               tools/list carries ttlMs:"60000", cacheScope:"shared"
  --bad-tool                  the 3rd tool's inputSchema.type is "string" (zod path
                              inside tools[2])
  --tools-error               tools/list answers a JSON-RPC error
  --exit-at-start             write one stderr line and exit(1) at once
  --hang                      read requests but never answer anything
  --http PORT                 serve Streamable HTTP on 127.0.0.1:PORT instead of stdio
                              (0: a port the system picks, printed on stdout)
  --http-auth [oauth|bare]    (HTTP) answer /mcp with 401 + WWW-Authenticate: Bearer;
                              oauth (default) also serves OAuth metadata and dynamic
                              client registration, so only a browser sign-in is missing;
                              bare answers 404 to everything else
  --pages N                   split tools/list into N pages linked by nextCursor
  --bad-page K                page K (1-based) of tools/list carries a tool whose
                              inputSchema.type is "string"
  --repeat-cursor             every page answers the same nextCursor (a loop)
  --duplicate-tool            tools/list carries "search_docs" twice
  --exit-on-tools-list        exit(1) when asked tools/list (stdio)
  --stdout-noise              write a non-JSON line and a line of binary garbage on
                              stdout before the first answer (stdio)
  --stderr-flood N            write N stderr lines at start (stdio)
  --delay-ms MS               wait MS milliseconds before every answer
  --delay-init-ms MS          wait MS milliseconds before answering `initialize` only
  --http-status CODE          (HTTP) answer every request with this status (404, 500...)
  --http-sse                  (HTTP) answer POSTs as text/event-stream instead of JSON
  --trace FILE                append every received/sent message to FILE (debugging)
  --capture FILE              append one JSON line per request received, exactly as it
                              came: stdio the raw line; HTTP the method, path, every
                              header (name and value, in order) and the raw body
                              (tests/e2e/capture.py, the wire fixtures)
  --session-id ID             (HTTP) answer initialize with this Mcp-Session-Id header
  --scenario NAME             a preset of the switches above (the SCENARIOS table in
                              this file)

Claude Code masks the text of `error` records with the server's own configuration
(command, every whitespace-separated argument of 4+ characters, env and header values,
URL parts) and writes "[redacted]" in their place. So `--init-version 1999-01-01`
makes the version show up as "[redacted]" in the logs, while `--scenario h-old-protocol`
(the same behaviour, with no version on the command line) lets it show.

The result fields resultType/ttlMs/cacheScope are part of revision 2026-07-28; a
legacy (classic `initialize`) session does not need them, so they are only added
when the session is modern unless --always-cache-fields is given.
Python 3.11 stdlib only.
"""
import argparse
import json
import os
import sys
import time

MODERN = "2026-07-28"
LEGACY_DEFAULT = "2025-11-25"
SERVER_INFO = {"name": "mcplogs-stub", "version": "1.0.0"}

TOOLS = [
    {
        "name": "search_docs",
        "description": "Search the documentation.",
        "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}},
                        "required": ["query"]},
    },
    {
        "name": "get_page",
        "description": "Fetch one page.",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
    },
    {
        "name": "list_pages",
        "description": "List pages.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


# --scenario presets (letters match sample-logs/README.md); names are chosen so that
# they never occur inside a Claude Code message (see the masking note above).
SCENARIOS = {
    "a-classic": {"discover": "error"},
    "b-modern": {"discover": "modern"},
    "c-no-rt": {"discover": "modern", "omit": "resultType"},
    "d-no-cache": {"discover": "modern", "omit": "ttlMs,cacheScope"},
    "e-bad-types": {"discover": "modern", "wrong_types": True},
    "f-bad-schema": {"bad_tool": True},
    "f-bad-schema-modern": {"discover": "modern", "bad_tool": True},
    "f-bad-schema-no-cache": {"discover": "modern", "bad_tool": True, "omit": "cacheScope"},
    "g-list-err": {"tools_error": True},
    "h-old-protocol": {"init_version": "1999-01-01"},
    "j-exit": {"exit_at_start": True},
    "k-hang": {"hang": True},
    "l-pages": {"discover": "modern", "pages": 3},
    "m-bad-page": {"discover": "modern", "pages": 2, "bad_page": 2},
    "n-exit-list": {"exit_on_tools_list": True},
    "o-noise": {"stdout_noise": True},
    "p-dup": {"duplicate_tool": True},
    "q-loop": {"pages": 3, "repeat_cursor": True},
}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--discover", choices=["modern", "error", "http-400"], default="error")
    p.add_argument("--init-version", default=None)
    p.add_argument("--omit", default="")
    p.add_argument("--wrong-types", action="store_true")
    p.add_argument("--bad-tool", action="store_true")
    p.add_argument("--tools-error", action="store_true")
    p.add_argument("--exit-at-start", action="store_true")
    p.add_argument("--hang", action="store_true")
    p.add_argument("--always-cache-fields", action="store_true")
    p.add_argument("--http", type=int, default=None, metavar="PORT")
    p.add_argument("--http-auth", nargs="?", const="oauth", default=None,
                   choices=["oauth", "bare"])
    p.add_argument("--pages", type=int, default=1)
    p.add_argument("--bad-page", type=int, default=0)
    p.add_argument("--repeat-cursor", action="store_true")
    p.add_argument("--duplicate-tool", action="store_true")
    p.add_argument("--exit-on-tools-list", action="store_true")
    p.add_argument("--stdout-noise", action="store_true")
    p.add_argument("--stderr-flood", type=int, default=0)
    p.add_argument("--delay-ms", type=int, default=0)
    p.add_argument("--delay-init-ms", type=int, default=0)
    p.add_argument("--http-status", type=int, default=None)
    p.add_argument("--http-sse", action="store_true")
    p.add_argument("--trace", default=None)
    p.add_argument("--capture", default=None)
    p.add_argument("--session-id", default=None)
    p.add_argument("--name", default=SERVER_INFO["name"])
    p.add_argument("--scenario", choices=sorted(SCENARIOS), default=None)
    args = p.parse_args(argv)
    if args.scenario:
        for k, v in SCENARIOS[args.scenario].items():
            setattr(args, k, v)
    return args


class Stub:
    def __init__(self, args):
        self.args = args
        self.omit = {f.strip() for f in args.omit.split(",") if f.strip()}
        bad = {"resultType", "ttlMs", "cacheScope"}
        unknown = self.omit - bad
        if unknown:
            raise SystemExit(f"--omit: unknown field(s) {sorted(unknown)}")
        self.modern = False  # becomes True once a modern request/discover is seen
        self.server_info = dict(SERVER_INFO, name=args.name)

    def trace(self, direction, obj):
        if not self.args.trace:
            return
        with open(self.args.trace, "a", encoding="utf-8") as f:
            f.write(f"{time.time():.3f} {direction} {json.dumps(obj)}\n")

    def capture(self, record):
        if not self.args.capture:
            return
        record = dict(record, t=round(time.time(), 3), pid=os.getpid())
        with open(self.args.capture, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")

    # ---- result helpers -------------------------------------------------
    def cache_fields(self, result, force=False):
        """Add the 2026-07-28 result fields (resultType, ttlMs, cacheScope)."""
        if not (self.modern or force or self.args.always_cache_fields):
            return result
        if self.args.wrong_types:
            extra = {"resultType": "complete", "ttlMs": "60000", "cacheScope": "shared"}
        else:
            extra = {"resultType": "complete", "ttlMs": 60000, "cacheScope": "private"}
        for k in self.omit:
            extra.pop(k, None)
        out = dict(extra)
        out.update(result)
        return out

    def modern_meta(self):
        return {"io.modelcontextprotocol/serverInfo": self.server_info}

    # ---- dispatch --------------------------------------------------------
    def handle(self, msg):
        """Return a response object, or None for notifications / no answer."""
        if not isinstance(msg, dict):
            return None
        method = msg.get("method")
        mid = msg.get("id")
        if method is None:  # a response to something we never sent
            return None
        params = msg.get("params") or {}
        meta = params.get("_meta") or {}
        if isinstance(meta, dict) and meta.get("io.modelcontextprotocol/protocolVersion") == MODERN:
            self.modern = True
        if mid is None:  # notification
            return None
        if self.args.hang:
            return None

        def ok(result):
            return {"jsonrpc": "2.0", "id": mid, "result": result}

        def err(code, message):
            return {"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": message}}

        if method == "server/discover":
            if self.args.discover != "modern":
                return err(-32601, "Method not found: server/discover")
            self.modern = True
            res = {
                "resultType": "complete",
                "ttlMs": 0,
                "cacheScope": "private",
                "supportedVersions": [MODERN],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": self.server_info,
                "instructions": "Stub MCP server for mcplogs samples.",
                "_meta": self.modern_meta(),
            }
            return ok(res)
        if method == "initialize":
            self.modern = False
            if self.args.delay_init_ms:
                time.sleep(self.args.delay_init_ms / 1000)
            proposed = params.get("protocolVersion") or LEGACY_DEFAULT
            version = self.args.init_version or proposed
            return ok({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": self.server_info,
                "instructions": "Stub MCP server for mcplogs samples.",
            })
        if method == "ping":
            return ok(self.cache_fields({}, force=False) if self.modern else {})
        if method == "tools/list":
            if self.args.tools_error:
                return err(-32603, "Internal error: tool registry unavailable")
            if self.args.exit_on_tools_list:
                sys.stderr.write("mcplogs-stub: exiting on tools/list\n")
                sys.stderr.flush()
                sys.exit(1)
            tools = json.loads(json.dumps(TOOLS))
            if self.args.bad_tool:
                tools[2]["inputSchema"]["type"] = "string"
            if self.args.duplicate_tool:
                tools.append(json.loads(json.dumps(TOOLS[0])))
            res = {"tools": tools}
            pages = max(1, self.args.pages)
            if pages > 1:
                cursor = params.get("cursor")
                page = 1
                if isinstance(cursor, str) and cursor.startswith("page-"):
                    try:
                        page = int(cursor[5:])
                    except ValueError:
                        return err(-32602, "Invalid params: unknown cursor")
                page = min(max(page, 1), pages)
                # page p holds the tools with index % pages == p - 1, renamed per page
                chunk = []
                for i, t in enumerate(tools):
                    if i % pages == page - 1:
                        chunk.append(t)
                extra = {"name": f"page{page}_tool", "description": f"Tool of page {page}.",
                         "inputSchema": {"type": "object", "properties": {}}}
                if self.args.bad_page == page:
                    extra["inputSchema"]["type"] = "string"
                chunk.append(extra)
                res = {"tools": chunk}
                if self.args.repeat_cursor:
                    res["nextCursor"] = "page-2"
                elif page < pages:
                    res["nextCursor"] = f"page-{page + 1}"
            if self.modern:
                res["_meta"] = self.modern_meta()
            return ok(self.cache_fields(res))
        if method == "subscriptions/listen":
            return ok({"resultType": "complete", "_meta": self.modern_meta()})
        if method == "tools/call":
            res = {"content": [{"type": "text", "text": "stub result"}], "isError": False}
            if self.modern:
                res = dict(res, resultType="complete", _meta=self.modern_meta())
            return ok(res)
        return err(-32601, f"Method not found: {method}")


def run_stdio(stub):
    sys.stderr.write("mcplogs-stub: starting (stdio)\n")
    for i in range(stub.args.stderr_flood):
        sys.stderr.write(f"mcplogs-stub: flood line {i + 1} " + "x" * 60 + "\n")
    sys.stderr.flush()
    if stub.args.stdout_noise:
        sys.stdout.write("mcplogs-stub starting up, please wait\n")
        sys.stdout.flush()
        sys.stdout.buffer.write(b"\x00\xff\xfe\x1b[31mgarbage\x1b[0m\x07\n")
        sys.stdout.buffer.flush()
    if stub.args.exit_at_start:
        sys.stderr.write("mcplogs-stub: fatal: configured to exit at start\n")
        sys.stderr.flush()
        sys.exit(1)
    announced = False
    for line in sys.stdin:
        stub.capture({"transport": "stdio", "line": line})
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            sys.stderr.write("mcplogs-stub: ignoring a line that is not JSON\n")
            sys.stderr.flush()
            continue
        stub.trace("<-", msg)
        msgs = msg if isinstance(msg, list) else [msg]
        for m in msgs:
            resp = stub.handle(m)
            if resp is None:
                continue
            stub.trace("->", resp)
            if stub.args.delay_ms:
                time.sleep(stub.args.delay_ms / 1000)
            sys.stdout.write(json.dumps(resp) + "\n")
            sys.stdout.flush()
            if not announced and isinstance(m, dict) and m.get("method") in ("initialize", "server/discover"):
                announced = True
                sys.stderr.write("mcplogs-stub: ready, serving 3 tools\n")
                sys.stderr.flush()


def run_http(stub):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            sys.stderr.write("mcplogs-stub http: " + (fmt % a) + "\n")

        def _send(self, code, body=b"", ctype="application/json", headers=None):
            self.send_response(code)
            if body:
                self.send_header("Content-Type", ctype)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body and self.command != "HEAD":
                self.wfile.write(body)

        def _unauthorized(self):
            host = f"http://127.0.0.1:{stub.args.http}"
            body = json.dumps({"error": "invalid_token",
                               "error_description": "Missing or invalid access token"}).encode()
            self._send(401, body, headers={
                "WWW-Authenticate": f'Bearer realm="mcplogs-stub", '
                                    f'resource_metadata="{host}/.well-known/oauth-protected-resource"'})

        def _oauth_metadata(self, path):
            """OAuth discovery documents for --http-auth (None: answer 404)."""
            if stub.args.http_auth != "oauth":
                return None
            base = f"http://127.0.0.1:{stub.args.http}"
            if path.startswith("/.well-known/oauth-protected-resource"):
                return {"resource": f"{base}/mcp", "authorization_servers": [base],
                        "bearer_methods_supported": ["header"]}
            if path.startswith("/.well-known/oauth-authorization-server") or \
                    path.startswith("/.well-known/openid-configuration"):
                return {"issuer": base,
                        "authorization_endpoint": f"{base}/authorize",
                        "token_endpoint": f"{base}/token",
                        "registration_endpoint": f"{base}/register",
                        "response_types_supported": ["code"],
                        "grant_types_supported": ["authorization_code", "refresh_token"],
                        "code_challenge_methods_supported": ["S256"],
                        "token_endpoint_auth_methods_supported": ["none"]}
            return None

        def _forced_status(self):
            code = stub.args.http_status
            if code is None:
                return False
            n = int(self.headers.get("Content-Length") or 0)
            if n:
                self.rfile.read(n)
            reason = {404: b"Not Found", 500: b"Internal Server Error"}.get(code, b"error")
            self._send(code, reason, ctype="text/plain")
            return True

        def _capture(self, raw=b""):
            stub.capture({"transport": "http", "method": self.command, "path": self.path,
                          "headers": [[k, v] for k, v in self.headers.items()],
                          "body": raw.decode("utf-8", "replace")})

        def do_GET(self):
            self._capture()
            if self._forced_status():
                return
            path = self.path.split("?", 1)[0]
            if stub.args.http_auth:
                if path == "/mcp":
                    return self._unauthorized()
                meta = self._oauth_metadata(path)
                if meta is not None:
                    return self._send(200, json.dumps(meta).encode())
                return self._send(404, b'{"error":"not_found"}')
            if path.startswith("/.well-known/"):
                return self._send(404, b'{"error":"not_found"}')
            # no server-initiated SSE stream
            return self._send(405, b"", headers={"Allow": "POST"})

        def do_DELETE(self):
            self._capture()
            return self._send(405, b"", headers={"Allow": "POST"})

        def do_POST(self):
            if self._forced_status():
                return
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            self._capture(raw)
            path = self.path.split("?", 1)[0]
            if stub.args.http_auth:
                if path == "/mcp":
                    return self._unauthorized()
                if path == "/register" and stub.args.http_auth == "oauth":
                    try:
                        req = json.loads(raw or b"{}")
                    except ValueError:
                        req = {}
                    client = dict(req, client_id="mcplogs-stub-client",
                                  client_id_issued_at=int(time.time()),
                                  token_endpoint_auth_method="none")
                    return self._send(201, json.dumps(client).encode())
                return self._send(404, b'{"error":"not_found"}')
            try:
                msg = json.loads(raw or b"null")
            except ValueError:
                return self._send(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
            stub.trace("<-", msg)
            msgs = msg if isinstance(msg, list) else [msg]
            if stub.args.discover == "http-400":
                if self.headers.get("mcp-session-id") == "stub-unknown-session":
                    return self._send(404, b'{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Session not found"}}')
                if any(isinstance(m, dict) and m.get("method") == "server/discover" for m in msgs):
                    return self._send(400, b'{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Bad Request: Missing session ID"}}',
                                      headers={"Mcp-Session-Id": "stub-unknown-session"})
            resps = [r for r in (stub.handle(m) for m in msgs) if r is not None]
            if not resps:
                return self._send(202)
            out = resps if isinstance(msg, list) else resps[0]
            stub.trace("->", out)
            if stub.args.delay_ms:
                time.sleep(stub.args.delay_ms / 1000)
            extra = {}
            if stub.args.session_id and any(isinstance(m, dict) and m.get("method") == "initialize"
                                            for m in msgs):
                extra["Mcp-Session-Id"] = stub.args.session_id
            if stub.args.http_sse:
                events = "".join(f"event: message\ndata: {json.dumps(r)}\n\n"
                                 for r in (out if isinstance(out, list) else [out]))
                return self._send(200, events.encode(), ctype="text/event-stream", headers=extra)
            return self._send(200, json.dumps(out).encode(), headers=extra)

    srv = ThreadingHTTPServer(("127.0.0.1", stub.args.http), Handler)
    srv.daemon_threads = True
    if stub.args.http == 0:
        # port 0: the system picks a free port, told on stdout (stdout is otherwise
        # unused over HTTP), so a caller never races another process for a port
        stub.args.http = srv.server_address[1]
        sys.stdout.write(f"{stub.args.http}\n")
        sys.stdout.flush()
    sys.stderr.write(f"mcplogs-stub: listening on http://127.0.0.1:{stub.args.http}/mcp\n")
    sys.stderr.flush()
    srv.serve_forever()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    stub = Stub(args)
    if args.http is not None:
        run_http(stub)
    else:
        try:
            run_stdio(stub)
        except (BrokenPipeError, KeyboardInterrupt):
            pass


if __name__ == "__main__":
    main()
