#!/usr/bin/env python3
"""Tiny fake Anthropic Messages API for running Claude Code offline (loopback only).

POST /v1/messages with "stream": true  -> a canned text/event-stream message.
POST /v1/messages without streaming    -> one canned JSON message.
anything else                          -> a small JSON object.

Usage: fake_api.py PORT [DELAY_SECONDS]   (binds 127.0.0.1 only). Python 3.11 stdlib only.
FAKE_API_LOG=PATH appends every /v1/messages request body to PATH, one JSON line each
(the e2e reads it to see what Claude Code put into the model's context).
DELAY_SECONDS holds back each /v1/messages answer, which keeps a `claude -p` process
alive long enough for slow MCP connection attempts (timeouts) to finish and be logged.
"""
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DELAY = 0.0
TEXT = "Hello from the fake API."
MODEL = "claude-fake-model"


def message(text=TEXT, stop_reason="end_turn"):
    return {
        "id": "msg_fake_0001",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": text}] if stop_reason else [],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 6,
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    }


def sse(event, data):
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep quiet; one line to stderr
        sys.stderr.write("fake_api: " + (fmt % args) + "\n")

    def _json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {}

    def do_GET(self):
        self._json(200, {"ok": True})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        req = self._body()
        path = self.path.split("?", 1)[0]
        if path == "/v1/messages" and os.environ.get("FAKE_API_LOG"):
            with open(os.environ["FAKE_API_LOG"], "a", encoding="utf-8") as f:
                f.write(json.dumps(req) + "\n")
        if path == "/v1/messages" and DELAY > 0:
            time.sleep(DELAY)
        if path != "/v1/messages":
            # token counting and anything else
            self._json(200, {"input_tokens": 10})
            return
        if not req.get("stream"):
            self._json(200, message())
            return
        m = message()
        start = dict(m, content=[], stop_reason=None,
                     usage={"input_tokens": 10, "output_tokens": 1,
                            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
        chunks = [
            sse("message_start", {"type": "message_start", "message": start}),
            sse("content_block_start", {"type": "content_block_start", "index": 0,
                                        "content_block": {"type": "text", "text": ""}}),
            sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": TEXT}}),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                  "usage": {"output_tokens": 6}}),
            sse("message_stop", {"type": "message_stop"}),
        ]
        body = b"".join(chunks)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    global DELAY
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18080
    DELAY = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True
    sys.stderr.write(f"fake_api listening on 127.0.0.1:{port}\n")
    srv.serve_forever()


if __name__ == "__main__":
    main()
