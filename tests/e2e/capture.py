#!/usr/bin/env python3
"""Capture what real Claude Code sends to MCP servers, as the wire fixtures of
tests/cli/probe_wire.rs (tests/cli/wire-captures/claude-<version>.json).

    python3 tests/e2e/capture.py --cache CACHE [--versions 2.1.288,2.1.332] [--out DIR]

Not part of the e2e run: the captures are checked in, and rerun by hand when a Claude
Code build is added (the cargo test then compares the probe with the new build).

Per build, one throwaway HOME (dummy credentials, the loopback fake API and 403 proxy of
scripts/samples) with four servers, all the repo's stub (scripts/samples/stub_mcp_server.py
with --capture): stdio and Streamable HTTP, each answering `server/discover` as a
2026-07-28 server (modern) or with -32601 (legacy). HTTP servers get a configured header
`X-Api-Key` (a dummy value) and the legacy one issues an `Mcp-Session-Id`. Two runs of
`claude -p` (MCP_CONNECTION_NONBLOCKING=false): nothing set, and
MCP_PROTOCOL_NEGOTIATION=auto. Every request each server received is kept as it came:
stdio the raw line, HTTP the method, path, headers in order and the raw body.

Normalised, because they vary from run to run and are not the client's choice: the
loopback port (written as PORT), the capture time and the server's pid (dropped). Requests after the last
`tools/list` answer (Claude Code also lists resources and prompts, and may send DELETE or
GET) are kept too; the test compares the handshake and `tools/list`.
"""
import argparse
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run as R  # noqa: E402

generate = R.generate
SAMPLES = R.SAMPLES
OUT = HERE.parent / "cli" / "wire-captures"
SESSION = "wire-capture-session-1"
API_KEY = "dummy-wire-capture-key"
SERVERS = {
    "stdio-modern": ("stdio", ["--discover", "modern"]),
    "stdio-legacy": ("stdio", ["--discover", "error"]),
    "http-modern": ("http", ["--discover", "modern"]),
    "http-legacy": ("http", ["--discover", "error", "--session-id", SESSION]),
}
RUNS = {"default": {}, "auto": {"MCP_PROTOCOL_NEGOTIATION": "auto"}}


def read_capture(path, port):
    out = []
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        rec.pop("t", None)
        rec.pop("pid", None)
        if rec.get("transport") == "http":
            rec["headers"] = [[k, v.replace(str(port), "PORT")] for k, v in rec["headers"]]
        out.append(rec)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--versions", default=",".join(R.DEFAULT_VERSIONS), type=R.versions_arg)
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, R.on_signal)
    work = Path(a.work) if a.work else Path(os.environ.get("TMPDIR", "/tmp")) / f"mcplogs-capture-{os.getpid()}"
    for d in ("bin", "logs"):
        (work / d).mkdir(parents=True, exist_ok=True)
    stub = work / "bin" / "stub_mcp_server.py"
    shutil.copy2(SAMPLES / "stub_mcp_server.py", stub)
    if not (work / "bin" / "python3").exists():
        os.symlink(sys.executable, work / "bin" / "python3")
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    svc = generate.Services(work)
    py = sys.executable
    try:
        api = R.start_service(svc, "cap_api", lambda p: [py, str(SAMPLES / "fake_api.py"), str(p)])
        proxy = R.start_service(svc, "cap_proxy", lambda p: [py, str(SAMPLES / "deny_proxy.py"), str(p)])
        for v in [x for x in a.versions.split(",") if x]:
            binary = Path(a.cache) / f"claude-{v}" / "node_modules" / R.PKG / "claude"
            doc = {"claudeVersion": v, "runs": {}}
            for run, extra in RUNS.items():
                d = work / f"{v}-{run}"
                home = d / "home"
                proj = home / "work" / "proj"
                proj.mkdir(parents=True)
                servers, caps, ports = {}, {}, {}
                for name, (kind, args) in SERVERS.items():
                    cap = d / f"{name}.jsonl"
                    caps[name] = cap
                    if kind == "stdio":
                        servers[name] = {"type": "stdio", "command": "python3",
                                         "args": [str(stub), "--capture", str(cap)] + args}
                    else:
                        port = R.start_service(svc, f"cap_{v}_{run}_{name}", lambda p, args=args, cap=cap:
                                               [py, str(stub), "--http", str(p), "--capture", str(cap)] + args)
                        ports[name] = port
                        servers[name] = {"type": "http", "url": f"http://127.0.0.1:{port}/mcp",
                                         "headers": {"X-Api-Key": API_KEY}}
                (home / ".claude.json").write_text(json.dumps(
                    {"hasCompletedOnboarding": True, "mcpServers": servers}, indent=2) + "\n")
                env = generate.claude_env(home, extra, api, work)
                for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
                    env[k] = f"http://127.0.0.1:{proxy}"
                env["MCP_CONNECTION_NONBLOCKING"] = "false"
                env["MCP_CONNECT_TIMEOUT_MS"] = "30000"
                rc = R.run([str(binary), "-p", "hi", "--output-format", "stream-json", "--verbose",
                            "--debug-file", str(d / "debug.txt")],
                           env=env, cwd=proj, out=d / "p.jsonl", err=d / "p.err")
                R.log(f"capture {v} {run}: claude -p exit {rc}")
                time.sleep(0.3)
                doc["runs"][run] = {n: read_capture(caps[n], ports.get(n, 0)) for n in SERVERS}
            f = out_dir / f"claude-{v}.json"
            f.write_text(json.dumps(doc, indent=1) + "\n")
            R.log(f"wrote {f}")
    finally:
        for pg in list(R.CHILD_GROUPS):
            R.kill_group(pg)
        svc.stop()


if __name__ == "__main__":
    main()
