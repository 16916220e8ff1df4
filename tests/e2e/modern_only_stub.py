#!/usr/bin/env python3
"""A stdio MCP server that speaks only revision 2026-07-28 (tests/e2e/fixes.py, case
`modern-only`). It answers `server/discover`; to the legacy handshake's `initialize` it
answers with 2026-07-28 (`answer`, as the specification says a server without the
proposed version does) or with the JSON-RPC error -32602 (`refuse`). Two tools, alpha and
beta. Python 3.11 stdlib only.

    modern_only_stub.py answer|refuse
"""
import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "answer"
MODERN = "2026-07-28"
INFO = {"name": "modern-only-stub", "version": "1.0.0"}
CAPS = {"tools": {}}
TOOLS = [{"name": n, "description": f"Tool {n}.", "inputSchema": {"type": "object", "properties": {}}}
         for n in ("alpha", "beta")]


def answer(mid, body):
    sys.stdout.write(json.dumps(dict(body, jsonrpc="2.0", id=mid)) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        continue
    if method == "server/discover":
        answer(mid, {"result": {"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                                "supportedVersions": [MODERN], "capabilities": CAPS, "serverInfo": INFO}})
    elif method == "initialize":
        asked = (msg.get("params") or {}).get("protocolVersion")
        sys.stderr.write(f"modern-only-stub: initialize proposed {asked}\n")
        sys.stderr.flush()
        if MODE == "refuse":
            answer(mid, {"error": {"code": -32602, "message": "Unsupported protocol version",
                                   "data": {"supported": [MODERN], "requested": asked}}})
        else:
            answer(mid, {"result": {"protocolVersion": MODERN, "capabilities": CAPS, "serverInfo": INFO}})
    elif method == "tools/list":
        answer(mid, {"result": {"tools": TOOLS, "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}})
    elif method == "ping":
        answer(mid, {"result": {}})
    else:
        answer(mid, {"error": {"code": -32601, "message": "Method not found"}})
