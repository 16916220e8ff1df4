#!/usr/bin/env python3
"""Stub stdio MCP server with one misbehaviour of the discovery lifecycle per `--case`.

Used by tests/e2e/lifecycle.py (the fixtures under tests/fixtures/lifecycle/ and its e2e
part). Newline-delimited JSON-RPC 2.0 on stdin/stdout; Python 3.11 stdlib only.

    lifecycle_stub.py --case NAME [--delay-tools-ms MS] [--delay-init-ms MS]
                      [--list-changed-after-ms MS]

The CASES table below says what each case does. Every case answers `server/discover`
with -32601 (the classic handshake) unless it is marked modern; a modern case answers
discover as a 2026-07-28 server and adds resultType/ttlMs/cacheScope to its tools/list.
"""
import argparse
import json
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
}


class Stub:
    def __init__(self, case, args):
        self.c = CASES[case]
        self.args = args
        self.modern = False
        self.lock = threading.Lock()
        self.lists = 0
        self.crlf = self.c.get("framing") == "crlf"

    def write(self, obj):
        if self.c.get("framing") == "pretty":
            text = json.dumps(obj, indent=2) + "\n"
        else:
            text = json.dumps(obj) + ("\r\n" if self.crlf else "\n")
        with self.lock:
            sys.stdout.write(text)
            sys.stdout.flush()

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

    def handle(self, msg):
        method, mid = msg.get("method"), msg.get("id")
        params = msg.get("params") or {}
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
            ok({"protocolVersion": params.get("protocolVersion") or "2025-11-25",
                "capabilities": self.caps(), "serverInfo": INFO})
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
        if method == "tools/list":
            delay = self.args.delay_tools_ms or self.c.get("delay_tools")
            if delay:
                time.sleep(delay / 1000)
            ok(self.envelope(self.tools_page(params)))
            if self.c.get("list_changed") and self.lists == 1:
                note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
                if self.args.list_changed_after_ms:
                    self.later(self.args.list_changed_after_ms / 1000,
                               lambda: self.write(note))
                else:  # at once, in the same write order as the answer
                    self.write(note)
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
            ok({})
            return
        if method == "tools/call":
            ok(self.envelope({"content": [{"type": "text", "text": "ok"}]}))
            return
        self.write({"jsonrpc": "2.0", "id": mid,
                    "error": {"code": -32601, "message": f"Method not found: {method}"}})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case", choices=sorted(CASES), required=True)
    ap.add_argument("--delay-tools-ms", type=int, default=0)
    ap.add_argument("--delay-init-ms", type=int, default=0)
    ap.add_argument("--list-changed-after-ms", type=int, default=3000,
                    help="when a list_changed case notifies, after the first tools/list")
    ap.add_argument("--trace", default=None, help="append every message received to FILE")
    args = ap.parse_args()
    stub = Stub(args.case, args)
    sys.stderr.write(f"lifecycle-stub: {args.case}\n")
    sys.stderr.flush()
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
