#!/usr/bin/env python3
"""Claude Code's MCP discovery cache across sessions in one kept HOME, offline (issue 54).

    python3 tests/e2e/discovery_cache.py [--versions 2.1.332,2.1.288] [--ports API,PROXY]
                                         [--keep DIR]

One HTTP server (tests/e2e/lifecycle_stub.py --http, on a free loopback port, the same
URL every session so that the cache key stays the same) and one throwaway HOME kept
across six blocking `claude -p` sessions with MCP_DISCOVERY_CACHE=1:

1. `warm`: the server answers; Claude Code caches it.
2. `fresh`: within the TTL, the server stopped: does Claude Code contact it, log, show it?
3. `stale-fail`: MCP_DISCOVERY_CACHE_TTL_S=1 (past the TTL), the server answers but its
   tools/list is rejected: are the cached tools served?
3b. `stale-fail-again`: the same once more: does the failed refresh count as a strike?
4. `down`: past the TTL, nothing listens: the connection fails; is the entry deleted?
5. `after-down`: past the TTL, nothing listens again: what the next session sees.

For each session it records the init line's status and tools for the server, whether
the server was contacted (its --trace file), the server's new MCP log lines, and the
cache folder's entries (names, sizes, mtimes; never their sealed contents). With
`--keep DIR` the HOME after each session is copied to DIR/<version>/<session>/ (only
the MCP logs, the cache folder's listing and the verdicts: no credentials are kept).
Python 3.11 stdlib only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import lifecycle as lc  # noqa: E402
import run as e2e  # noqa: E402

generate = lc.generate
NAME = "cached-http"


def listing(home):
    d = home / ".claude" / "mcp-discovery-cache"
    if not d.is_dir():
        return None
    out = []
    for p in sorted(d.iterdir()):
        st = p.lstat()
        out.append({"name": p.name, "bytes": st.st_size, "mtime": int(st.st_mtime),
                    "dir": p.is_dir()})
    return out


def logs(home, proj):
    folder = home / ".cache" / "claude-cli-nodejs" / generate.encode(str(proj)) / \
        f"mcp-logs-{generate.encode(NAME)}"
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def keep_home(dest, home, proj, url, row):
    """The home as the session left it, for mcplogs: the server's MCP log, the cache
    entries (sealed by Claude Code with a key that stays in the throwaway home: not
    kept), a `.claude.json` holding only the server, and what was observed."""
    h = dest / "home"
    folder = h / ".cache" / "claude-cli-nodejs" / generate.encode(str(proj)) / \
        f"mcp-logs-{generate.encode(NAME)}"
    folder.mkdir(parents=True)
    for p in logs(home, proj):
        shutil.copy2(p, folder / p.name)
    cache = home / ".claude" / "mcp-discovery-cache"
    (h / ".claude" / "mcp-discovery-cache").mkdir(parents=True)
    if cache.is_dir():
        for p in cache.iterdir():
            if p.is_file() and not p.is_symlink() and p.name.endswith(".json"):
                shutil.copy2(p, h / ".claude" / "mcp-discovery-cache" / p.name)
    (h / ".claude.json").write_text(json.dumps(
        {"mcpServers": {NAME: {"type": "http", "url": url}}}, indent=2) + "\n")
    (dest / "session.json").write_text(json.dumps(row, indent=2) + "\n")


def start_stub(svc, case, port, trace, tag):
    svc.start(tag, [sys.executable, str(lc.STUB), "--case", case, "--http", str(port),
                    "--trace", str(trace)], port)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--versions", default="2.1.332,2.1.288")
    ap.add_argument("--ports", default="22354,22355")
    ap.add_argument("--cache", default=os.environ.get("MCPLOGS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mcplogs-e2e"))
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    lc.PORT_API, lc.PORT_PROXY = (int(x) for x in a.ports.split(","))
    work = Path(tempfile.mkdtemp(prefix="mcplogs-dcache-"))
    svc = lc.Services(work)
    report = {}
    try:
        for v in [x for x in a.versions.split(",") if x]:
            port = e2e.free_port()
            url = f"http://127.0.0.1:{port}/mcp"
            home = work / v / "home"
            proj = lc.setup_home(home, {NAME: {"type": "http", "url": url}}, None)
            sessions = [
                ("warm", "ok", {}),
                ("fresh", None, {}),
                ("stale-fail", "schema-no-input", {"MCP_DISCOVERY_CACHE_TTL_S": "1"}),
                ("stale-fail-again", "schema-no-input", {"MCP_DISCOVERY_CACHE_TTL_S": "1"}),
                ("down", None, {"MCP_DISCOVERY_CACHE_TTL_S": "1"}),
                ("after-down", None, {"MCP_DISCOVERY_CACHE_TTL_S": "1"}),
            ]
            report[v] = []
            for tag, case, extra in sessions:
                raw = work / v / tag
                raw.mkdir(parents=True)
                trace = raw / "server.wire"
                (raw / "logs").mkdir()
                stub = generate.Services(raw)
                if case:
                    start_stub(stub, case, port, trace, f"{v}-{tag}")
                before = {p.name: p.stat().st_size for p in logs(home, proj)}
                env = lc.env_for(home, work, dict(lc.BLOCKING, MCP_DISCOVERY_CACHE="1", **extra))
                try:
                    init = lc.run_p(lc.binary(a.cache, v), home, proj, env, raw)
                finally:
                    stub.stop()
                new_lines = []
                for p in logs(home, proj):
                    data = p.read_bytes()[before.get(p.name, 0):]
                    for line in data.decode(errors="replace").splitlines():
                        try:
                            r = json.loads(line)
                            new_lines.append(r.get("debug", r.get("error")))
                        except ValueError:
                            pass
                verdict = lc.verdict_of(init or {}, NAME)
                contacted = trace.exists() and trace.stat().st_size > 0
                dbg = raw / "debug.txt"
                cache_lines = []
                if dbg.exists():
                    cache_lines = [ln[:300] for ln in dbg.read_text(errors="replace").splitlines()
                                   if "iscovery" in ln and "cache" in ln]
                row = {"session": tag, "serverCase": case, "env": extra,
                       "status": verdict["status"], "toolCount": verdict["toolCount"],
                       "contacted": contacted, "newLogLines": new_lines,
                       "cache": listing(home), "debugCacheLines": cache_lines[:20]}
                report[v].append(row)
                lc.log(f"{v} {tag}: {verdict['status']}/{verdict['toolCount']} contacted={contacted} "
                       f"log+{len(new_lines)} cache={[(c['name'][:8], c['bytes']) for c in row['cache'] or []]}")
                if a.keep:
                    keep_home(Path(a.keep) / v / tag, home, proj, url, row)
                time.sleep(2)
    finally:
        svc.stop()
    print(json.dumps(report, indent=2))
    lc.log(f"work folder: {work}")


if __name__ == "__main__":
    main()
