#!/usr/bin/env python3
"""Record a real shared log folder: two servers whose names encode to the same folder
(`api_v2` and `api-v2`, reference section 1) in one project, one healthy and one whose
tools/list omits resultType, run by a real Claude Code build fully offline.

    python3 scripts/samples/shared_folder.py [--version 2.1.288] [--cache DIR]

Writes sample-logs/shared-folder/ (a Linux home: .claude.json and the cache tree, pruned to
the MCP logs). Uses the sample generator's fake API, 403 proxy and stub server, on the
generator's fixed loopback ports; python3 stdlib only.
"""
import argparse
import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402

OUT = generate.OUT / "shared-folder"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default=os.environ.get("MCPLOGS_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mcplogs-e2e"))
    ap.add_argument("--version", default="2.1.288")
    ap.add_argument("--work", default="/tmp/mcplogs-samples-shared")
    a = ap.parse_args()
    binary = Path(a.cache) / f"claude-{a.version}" / "node_modules" / generate.PKG / "claude"
    if not os.access(binary, os.X_OK):
        raise SystemExit(f"missing {binary}: scripts/samples/install_claude.sh installs it")
    work = Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    (work / "bin").mkdir(parents=True)
    (work / "logs").mkdir()
    stub = work / "bin" / "stub_mcp_server.py"
    shutil.copy2(HERE / "stub_mcp_server.py", stub)
    os.symlink(sys.executable, work / "bin" / "python3")
    home = work / "home-shared"
    proj = home / "work" / "api"
    proj.mkdir(parents=True)
    servers = {
        "api_v2": {"type": "stdio", "command": "python3", "args": [str(stub), "--scenario", "a-classic"]},
        "api-v2": {"type": "stdio", "command": "python3", "args": [str(stub), "--scenario", "c-no-rt"]},
    }
    (home / ".claude.json").write_text(json.dumps(
        {"hasCompletedOnboarding": True, "mcpServers": servers}, indent=2) + "\n")
    env = generate.claude_env(home, {"MCP_PROTOCOL_NEGOTIATION": "auto",
                                     "MCP_CONNECTION_NONBLOCKING": "0"},
                              generate.PORT_API, work)
    svc = generate.Services(work)
    py = sys.executable
    try:
        svc.start("fake_api", [py, str(HERE / "fake_api.py"), str(generate.PORT_API)], generate.PORT_API)
        svc.start("deny_proxy", [py, str(HERE / "deny_proxy.py"), str(generate.PORT_PROXY)],
                  generate.PORT_PROXY)
        out = work / "p.jsonl"
        rc = generate.run_claude(binary, ["-p", "hi", "--output-format", "stream-json", "--verbose"],
                                 home, proj, env, out, work / "p.err")
    finally:
        svc.stop()
    init = next((json.loads(l) for l in out.read_text().splitlines() if '"subtype":"init"' in l), None)
    print(f"claude -p exit {rc}; init mcp_servers: {init and init.get('mcp_servers')}")
    print(f"tools: {[t for t in (init or {}).get('tools', []) if t.startswith('mcp__')]}")
    shutil.rmtree(OUT, ignore_errors=True)
    cache = home / ".cache" / "claude-cli-nodejs"
    for f in cache.rglob("*"):
        if f.is_file() and "/mcp-logs-" in str(f):
            dest = OUT / ".cache" / "claude-cli-nodejs" / f.relative_to(cache)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dest)
    shutil.copy2(home / ".claude.json", OUT / ".claude.json")
    (OUT / "init.json").write_text(json.dumps(init, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
