#!/usr/bin/env python3
"""Stub stdio MCP server with one misbehaviour of the discovery lifecycle per `--case`.

Used by tests/e2e/lifecycle.py (the fixtures under tests/fixtures/lifecycle/ and its e2e
part). Newline-delimited JSON-RPC 2.0 on stdin/stdout; Python 3.11 stdlib only.

    lifecycle_stub.py --case NAME [--delay-tools-ms MS] [--delay-init-ms MS]
                      [--list-changed-after-ms MS] [--http PORT]

`--http PORT` serves the same case as Streamable HTTP on 127.0.0.1:PORT/mcp (one JSON
answer per POST; no server-initiated stream); `--sse PORT` as the legacy HTTP+SSE
transport on 127.0.0.1:PORT/sse (`GET /sse`, then `POST /messages?sessionId=...`).

The CASES table below says what each case does. Every case answers `server/discover`
with -32601 (the classic handshake) unless it is marked modern; a modern case answers
discover as a 2026-07-28 server and adds resultType/ttlMs/cacheScope to its tools/list.
"""
import argparse
import json
import os
import re
import sys
import threading
import time

MODERN = "2026-07-28"
INFO = {"name": "mcplogs-lifecycle-stub", "version": "1.0.0"}


def tool(name, schema=None, **extra):
    t = {"name": name, "description": f"Tool {name}.",
         "inputSchema": schema if schema is not None else {"type": "object", "properties": {}}}
    t.update(extra)
    return t


BASE = [tool("alpha"), tool("beta"), tool("gamma")]


def sized(server, full):
    """A tool whose full name `mcp__<server>__<tool>` has `full` characters."""
    head = f"n{full}_"
    return tool(head + "x" * (full - len(f"mcp__{server}__") - len(head)))


def long_names():
    # full names of 64, 65, 128, 129 and 200 characters on server `name-long`
    return [tool("alpha")] + [sized("name-long", n) for n in (64, 65, 128, 129, 200)]


def header_tools(header="bad header"):
    """alpha, plus `hdr` whose property declares the x-mcp-header `header`."""
    return [tool("alpha"), tool("hdr", {"type": "object", "properties": {
        "q": {"type": "string", "x-mcp-header": header}}})]


def big_schema():
    """One tool whose inputSchema is about 1 MB (200 properties of 5 KB descriptions)."""
    props = {f"p{i:03d}": {"type": "string", "description": "x" * 5000} for i in range(200)}
    return {"type": "object", "properties": props}


def no_name():
    t = tool("x")
    del t["name"]
    return [tool("alpha"), t]


def no_schema():
    t = tool("x")
    del t["inputSchema"]
    return [tool("alpha"), t]


# `<<hex>>` in a string of a `raw` case: those bytes on the wire, written as they are
# (not UTF-8: 0xff 0xfe, a cut sequence, an overlong form, a surrogate, Latin-1 0xe9)
RAW = re.compile(rb"<<([0-9a-f ]+)>>")


def raw_bytes(data):
    return RAW.sub(lambda m: bytes.fromhex(m.group(1).decode()), data)


def bytes_names():
    return [tool("al<<ff>>pha"), tool("t<<e2 82>>u"), tool("o<<f0 80 80>>p"),
            tool("s<<ed a0 80>>t"), tool("ok_tool")]


# case -> settings. tools: the tool list (or a callable); pages/cursor: pagination;
# caps: initialize capabilities; modern: answer server/discover; rp_omit: resources and
# prompts lists without resultType/ttlMs/cacheScope; framing: a stdout misbehaviour;
# list_changed: send notifications/tools/list_changed after the first tools/list and answer
# the refetch with a valid ("valid") or invalid ("invalid") list.
CASES = {
    "ok": {},
    "no-tools-cap": {"caps": {}},
    "pages-21": {"pages": 21},
    "pages-50": {"pages": 50},
    "cursor-repeat": {"pages": 5, "cursor": "repeat"},
    "cursor-empty": {"pages": 3, "cursor": "empty"},
    "slow-tools": {"delay_tools": 5000},
    "slow-init": {"delay_init": 5000},
    "rp-modern-missing": {"modern": True, "rp": True, "rp_omit": True},
    "rp-modern-ok": {"modern": True, "rp": True},
    "rp-legacy-missing": {"rp": True, "rp_omit": True},
    # a 2026-07-28 server whose tools/list carries no resultType/ttlMs/cacheScope
    "tools-modern-missing": {"modern": True, "tools_omit": True},
    # a correct 2026-07-28 server: which era a build picks with nothing set
    "modern-ok": {"modern": True},
    "name-space": {"tools": lambda: [tool("a b"), tool("ok_tool")]},
    "name-accent": {"tools": lambda: [tool("caf\u00e9"), tool("ok_tool")]},
    "name-empty": {"tools": lambda: [tool(""), tool("ok_tool")]},
    "name-dup": {"tools": lambda: [tool("alpha"), tool("alpha"), tool("beta")]},
    "schema-no-name": {"tools": no_name},
    "schema-no-input": {"tools": no_schema},
    "schema-anyof": {"tools": lambda: [tool("alpha"), tool("x", {"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"b": {"type": "string"}}}]})]},
    "schema-ref": {"tools": lambda: [tool("x", {"type": "object", "$defs": {
        "q": {"type": "string"}}, "properties": {"q": {"$ref": "#/$defs/q"}}})]},
    "schema-1mb": {"tools": lambda: [tool("big", big_schema()), tool("alpha")]},
    "schema-500": {"tools": lambda: [tool(f"t{i:03d}") for i in range(500)]},
    "output-not-object": {"tools": lambda: [tool("x", outputSchema={"type": "string"}),
                                            tool("alpha")]},
    "frame-nonrpc": {"framing": "nonrpc"},
    "frame-unknown-id": {"framing": "unknown-id"},
    "frame-early": {"framing": "early"},
    "frame-early-late": {"framing": "early-late"},
    "frame-early-only": {"framing": "early-late", "ignore_tools_list": True},
    "frame-crlf": {"framing": "crlf"},
    "frame-pretty": {"framing": "pretty"},
    "lc-valid": {"caps": {"tools": {"listChanged": True}}, "list_changed": "valid"},
    "lc-invalid": {"caps": {"tools": {"listChanged": True}}, "list_changed": "invalid"},
    "lc-undeclared": {"caps": {"tools": {"listChanged": False}}, "list_changed": "valid"},
    # one good tool, then list_changed; every later tools/list has a tool without
    # inputSchema
    "lc-one-bad": {"caps": {"tools": {"listChanged": True}}, "list_changed": "one-bad",
                   "tools": lambda: [tool("good")]},
    # issue 54: refreshes that fail in other ways after a good first listing. A second
    # list_changed 8 s after the first, whose refetch is rejected again; a refetch answered
    # with a JSON-RPC error; a refetch never answered (run with a short MCP_TIMEOUT)
    "lc-twice-bad": {"caps": {"tools": {"listChanged": True}}, "list_changed": "one-bad",
                     "tools": lambda: [tool("good")], "notify_again": 8},
    "lc-error": {"caps": {"tools": {"listChanged": True}}, "list_changed": "error",
                 "tools": lambda: [tool("good")]},
    "lc-hang": {"caps": {"tools": {"listChanged": True}}, "list_changed": "hang",
                "tools": lambda: [tool("good")]},
    "name-long": {"tools": long_names},
    # modern (answers server/discover) or legacy, with an invalid x-mcp-header
    "header-modern": {"modern": True, "tools": header_tools},
    "header-legacy": {"tools": header_tools},
    "header-valid": {"modern": True, "tools": lambda: header_tools("X-Query")},
    # modern stdio server that sends `ping` every 2 s from the handshake on
    "ping-modern": {"modern": True, "ping_every": 2.0},
    "ping-legacy": {"ping_every": 2.0},
    # exits with status 1 three seconds after answering tools/list
    "exit-after-tools": {"exit_after_tools": 3.0},
    # HTTP: echoes the proposed version in initialize, then answers 400 to every request
    # whose MCP-Protocol-Version header is not the one it really supports
    "http-400-version": {"require_version": "2025-03-26"},
    # bytes that are not UTF-8 in the tools/list line: inside a description, inside tool
    # names; in the initialize answer (serverInfo, instructions) and on stderr; after the
    # tools/list object (outside any string)
    "bytes-desc": {"raw": True, "tools": lambda: [
        tool("alpha", description="Tool alpha <<ff fe>> caf<<e9>> end."), tool("beta")]},
    "bytes-name": {"raw": True, "tools": bytes_names},
    "bytes-init": {"raw": True, "server_name": "stub-<<ff fe>>-name",
                   "instructions": "Use <<ff>> wisely.", "stderr": b"stub stderr \xff\xfe caf\xe9\n"},
    "bytes-outside": {"raw": True, "trailing": "<<ff>>"},
}


class Stub:
    def __init__(self, case, args):
        self.c = CASES[case]
        self.args = args
        self.modern = False
        self.lock = threading.Lock()
        self.lists = 0
        self.crlf = self.c.get("framing") == "crlf"
        # HTTP mode: the messages of the POST being answered go here instead of stdout
        self.sink = None
        self.pings = 0

    def write(self, obj):
        if self.c.get("framing") == "pretty":
            text = json.dumps(obj, indent=2) + "\n"
        else:
            text = json.dumps(obj) + ("\r\n" if self.crlf else "\n")
        if self.sink is not None:
            self.sink.append(obj)
            return
        data = text.encode()
        if self.c.get("raw"):
            if self.c.get("trailing") and "tools" in (obj.get("result") or {}):
                data = data.rstrip(b"\r\n") + self.c["trailing"].encode() + b"\n"
            data = raw_bytes(data)
        with self.lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def envelope(self, res):
        if self.modern and not self.c.get("tools_omit"):
            out = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
            out.update(res)
            return out
        return res

    def caps(self):
        caps = self.c.get("caps", {"tools": {"listChanged": False}})
        caps = json.loads(json.dumps(caps))
        if self.c.get("rp"):
            caps["resources"] = {}
            caps["prompts"] = {}
        return caps

    def tools(self):
        make = self.c.get("tools")
        return make() if make else json.loads(json.dumps(BASE))

    def tools_page(self, params):
        pages = self.c.get("pages", 1)
        if pages == 1:
            self.lists += 1
            lc = self.c.get("list_changed")
            if lc and self.lists >= 2:
                if lc == "invalid":
                    bad = tool("delta")
                    del bad["inputSchema"]
                    return {"tools": [tool("alpha"), bad]}
                if lc == "one-bad":
                    bad = tool("good")
                    del bad["inputSchema"]
                    return {"tools": [bad]}
                return {"tools": BASE + [tool("delta")]}
            return {"tools": self.tools()}
        cursor = params.get("cursor")
        page = 1
        if isinstance(cursor, str) and cursor.startswith("p"):
            page = int(cursor[1:])
        res = {"tools": [tool(f"page{page:02d}_tool")]}
        mode = self.c.get("cursor")
        if mode == "repeat":
            res["nextCursor"] = "p2"
        elif mode == "empty" and page == 2:
            res["nextCursor"] = ""
        elif page < pages:
            res["nextCursor"] = f"p{page + 1}"
        return res

    def later(self, seconds, fn):
        t = threading.Timer(seconds, fn)
        t.daemon = True
        t.start()

    def ping(self):
        self.pings = max(self.pings, 0) + 1
        self.write({"jsonrpc": "2.0", "id": f"stub-ping-{self.pings}", "method": "ping"})
        sys.stderr.write(f"lifecycle-stub: sent ping {self.pings}\n")
        sys.stderr.flush()
        self.later(self.c["ping_every"], self.ping)

    def handle(self, msg):
        method, mid = msg.get("method"), msg.get("id")
        params = msg.get("params") or {}
        if method is None and "id" in msg:
            sys.stderr.write(f"lifecycle-stub: answer to {msg.get('id')}: "
                             f"{json.dumps(msg.get('result', msg.get('error')))}\n")
            sys.stderr.flush()
        if method in ("tools/list", "notifications/initialized") and \
                self.c.get("ping_every") and not self.pings:
            # from the handshake's end on (a modern connection sends no initialized)
            self.later(0.5, self.ping)
            self.pings = -1
        if method == "notifications/initialized" and self.c.get("framing") == "early-late":
            # the answer to tools/list (id 1 on every build) written before it is asked
            self.write({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool("early_tool")]}})
        if method is None or mid is None:
            return
        ok = lambda r: self.write({"jsonrpc": "2.0", "id": mid, "result": r})  # noqa: E731
        if method == "server/discover":
            if not self.c.get("modern"):
                self.write({"jsonrpc": "2.0", "id": mid,
                            "error": {"code": -32601, "message": "Method not found"}})
                return
            self.modern = True
            ok({"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                "supportedVersions": [MODERN], "capabilities": self.caps(), "serverInfo": INFO})
            return
        if method == "initialize":
            if self.args.delay_init_ms or self.c.get("delay_init"):
                time.sleep((self.args.delay_init_ms or self.c["delay_init"]) / 1000)
            res = {"protocolVersion": params.get("protocolVersion") or "2025-11-25",
                   "capabilities": self.caps(), "serverInfo": INFO}
            if self.c.get("server_name"):
                res["serverInfo"] = dict(INFO, name=self.c["server_name"])
            if self.c.get("instructions"):
                res["instructions"] = self.c["instructions"]
            ok(res)
            framing = self.c.get("framing")
            if framing == "nonrpc":
                self.write({"hello": "this is JSON but not JSON-RPC"})
            elif framing == "unknown-id":
                self.write({"jsonrpc": "2.0", "id": 9999, "result": {"tools": []}})
            elif framing == "early":
                # the answer to the request Claude Code has not sent yet (the next id)
                if isinstance(mid, int):
                    self.write({"jsonrpc": "2.0", "id": mid + 1,
                                "result": {"tools": [tool("early_tool")]}})
            return
        if method == "tools/list" and self.c.get("ignore_tools_list"):
            return
        if method == "tools/list" and self.lists >= 1 and \
                self.c.get("list_changed") in ("error", "hang"):
            self.lists += 1
            if self.c["list_changed"] == "error":
                self.write({"jsonrpc": "2.0", "id": mid, "error": {
                    "code": -32603, "message": "Internal error: tool registry reloading"}})
            return
        if method == "tools/list":
            delay = self.args.delay_tools_ms or self.c.get("delay_tools")
            if delay:
                time.sleep(delay / 1000)
            ok(self.envelope(self.tools_page(params)))
            if self.c.get("exit_after_tools"):
                def leave():
                    sys.stderr.write("lifecycle-stub: exiting with status 1\n")
                    sys.stderr.flush()
                    os._exit(1)
                self.later(self.c["exit_after_tools"], leave)
            if self.c.get("list_changed") and self.lists == 1:
                note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
                if self.args.list_changed_after_ms:
                    self.later(self.args.list_changed_after_ms / 1000,
                               lambda: self.write(note))
                else:  # at once, in the same write order as the answer
                    self.write(note)
                if self.c.get("notify_again"):
                    self.later((self.args.list_changed_after_ms or 0) / 1000
                               + self.c["notify_again"], lambda: self.write(note))
            return
        if method in ("resources/list", "prompts/list"):
            key = "resources" if method == "resources/list" else "prompts"
            item = ({"uri": "stub://one", "name": "one"} if key == "resources"
                    else {"name": "one", "description": "One prompt."})
            res = {key: [item]}
            ok(res if self.c.get("rp_omit") else self.envelope(res))
            return
        if method == "resources/templates/list":
            res = {"resourceTemplates": []}
            ok(res if self.c.get("rp_omit") else self.envelope(res))
            return
        if method == "ping":
            ok(self.envelope({}))
            return
        if method == "tools/call":
            ok(self.envelope({"content": [{"type": "text", "text": "ok"}]}))
            return
        self.write({"jsonrpc": "2.0", "id": mid,
                    "error": {"code": -32601, "message": f"Method not found: {method}"}})


def serve_http(stub, port):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            sys.stderr.write("lifecycle-stub http: " + (fmt % a) + "\n")

        def send(self, code, body=b"", headers=None):
            self.send_response(code)
            if body:
                self.send_header("Content-Type", "application/json")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body:
                self.wfile.write(body)

        def do_GET(self):
            self.send(405, headers={"Allow": "POST"})

        def do_DELETE(self):
            self.send(405, headers={"Allow": "POST"})

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            if stub.args.trace:
                with open(stub.args.trace, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"headers": dict(self.headers.items()),
                                        "body": raw.decode("utf-8", "replace")}) + "\n")
            try:
                msg = json.loads(raw or b"null")
            except ValueError:
                return self.send(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
            want = stub.c.get("require_version")
            got = self.headers.get("mcp-protocol-version")
            if want and got is not None and got != want:
                text = (f"Bad Request: Unsupported protocol version: {got} "
                        f"(supported versions: {want})")
                body = json.dumps({"jsonrpc": "2.0", "id": None,
                                   "error": {"code": -32000, "message": text}})
                return self.send(400, body.encode())
            msgs = msg if isinstance(msg, list) else [msg]
            with stub.lock:
                stub.sink = []
                for m in msgs:
                    if isinstance(m, dict):
                        stub.handle(m)
                out, stub.sink = stub.sink, None
            if not out:
                return self.send(202)
            body = out if isinstance(msg, list) else out[0]
            data = json.dumps(body).encode()
            return self.send(200, raw_bytes(data) if stub.c.get("raw") else data)

    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True
    if port == 0:
        # port 0: the system picks a free port, told on stdout (unused over HTTP)
        port = srv.server_address[1]
        sys.stdout.write(f"{port}\n")
        sys.stdout.flush()
    sys.stderr.write(f"lifecycle-stub: {stub.args.case} on http://127.0.0.1:{port}/mcp\n")
    sys.stderr.flush()
    srv.serve_forever()


def serve_sse(stub, port):
    """The legacy HTTP+SSE transport (2024-11-05): `GET /sse` opens the event stream,
    whose first event names the endpoint; each `POST /messages?sessionId=...` is
    answered 202 and its replies go out on the stream."""
    import queue
    import uuid
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    streams = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            sys.stderr.write("lifecycle-stub sse: " + (fmt % a) + "\n")

        def do_GET(self):
            if not self.path.startswith("/sse"):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            sid = uuid.uuid4().hex
            q = streams[sid] = queue.Queue()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            try:
                self.wfile.write(f"event: endpoint\ndata: /messages?sessionId={sid}\n\n".encode())
                self.wfile.flush()
                while True:
                    try:
                        obj = q.get(timeout=15)
                    except queue.Empty:
                        self.wfile.write(b": keep-alive\n\n")
                        self.wfile.flush()
                        continue
                    self.wfile.write(b"event: message\ndata: " + json.dumps(obj).encode() + b"\n\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                streams.pop(sid, None)

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            if stub.args.trace:
                with open(stub.args.trace, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"headers": dict(self.headers.items()),
                                        "body": raw.decode("utf-8", "replace")}) + "\n")
            sid = self.path.partition("sessionId=")[2].split("&")[0]
            q = streams.get(sid)
            try:
                msg = json.loads(raw or b"null")
            except ValueError:
                msg = None
            code = 202 if q is not None and msg is not None else (404 if q is None else 400)
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()
            if code != 202:
                return
            with stub.lock:
                stub.sink = []
                for m in (msg if isinstance(msg, list) else [msg]):
                    if isinstance(m, dict):
                        stub.handle(m)
                out, stub.sink = stub.sink, None
            for o in out:
                q.put(o)

    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True
    sys.stderr.write(f"lifecycle-stub: {stub.args.case} on http://127.0.0.1:{port}/sse (legacy SSE)\n")
    sys.stderr.flush()
    srv.serve_forever()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", choices=sorted(CASES), required=True)
    ap.add_argument("--delay-tools-ms", type=int, default=0)
    ap.add_argument("--delay-init-ms", type=int, default=0)
    ap.add_argument("--list-changed-after-ms", type=int, default=3000,
                    help="when a list_changed case notifies, after the first tools/list")
    ap.add_argument("--trace", default=None, help="append every message received to FILE")
    ap.add_argument("--http", type=int, default=None, metavar="PORT",
                    help="serve Streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio (0: a free port, "
                         "printed on stdout)")
    ap.add_argument("--sse", type=int, default=None, metavar="PORT",
                    help="serve the legacy HTTP+SSE transport on 127.0.0.1:PORT/sse instead")
    args = ap.parse_args()
    stub = Stub(args.case, args)
    if args.sse is not None:
        serve_sse(stub, args.sse)
        return
    if args.http is not None:
        serve_http(stub, args.http)
        return
    sys.stderr.write(f"lifecycle-stub: {args.case}\n")
    sys.stderr.flush()
    if stub.c.get("stderr"):
        sys.stderr.buffer.write(stub.c["stderr"])
        sys.stderr.buffer.flush()
    try:
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if args.trace:
                with open(args.trace, "a", encoding="utf-8") as f:
                    f.write(line + "\n")
            for m in (msg if isinstance(msg, list) else [msg]):
                if isinstance(m, dict):
                    stub.handle(m)
    except (BrokenPipeError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    main()
