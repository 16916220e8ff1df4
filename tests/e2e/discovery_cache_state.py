#!/usr/bin/env python3
"""Which discovery cache entry is which server, the TTL expiring on its own, and the
`"discoveryCache": false` purge, in homes kept across sessions, offline (issue 54).

    python3 tests/e2e/discovery_cache_state.py [--versions 2.1.336,2.1.332,2.1.287]
                                               [--ports API,PROXY] [--keep DIR]

Per build, one HOME with three HTTP servers (tests/e2e/lifecycle_stub.py --http, each on
its own free loopback port, the same URL every session): `alpha`, `beta` and `optout`
(`"discoveryCache": false`), `MCP_DISCOVERY_CACHE=1` and `MCP_DISCOVERY_CACHE_TTL_S=8`
in every session's environment (nothing else changes between sessions):

1. `warm`: the three answer.
2. `fresh`: at once (within the 8 s TTL), nothing listens.
3. `expired`: 10 s later (the TTL ran out on its own), `alpha` answers, `beta` does not.
4. `purge`: `alpha` now has `"discoveryCache": false`, it answers, at once.

and a second HOME (`other`) with `alpha` alone at the same URL, warmed once: is its entry
named as in the first home? Each session records the init line's status and tools, which
servers were contacted (their --trace files) and the cache folder's listing (names, sizes,
mtimes; never the sealed contents). With `--keep DIR` each session's home is kept as
tests/e2e/discovery_cache.py keeps it (DIR/<version>/<session>/home). Python 3.11 stdlib.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import lifecycle as lc  # noqa: E402
import run as e2e  # noqa: E402

generate = lc.generate
NAMES = ["alpha", "beta", "optout"]
TTL = "8"


def listing(home):
    d = home / ".claude" / "mcp-discovery-cache"
    if not d.is_dir():
        return None
    return [{"name": p.name, "bytes": p.lstat().st_size, "mtime": round(p.lstat().st_mtime, 3)}
            for p in sorted(d.iterdir())]


def log_folder(home, proj, name):
    return home / ".cache" / "claude-cli-nodejs" / generate.encode(str(proj)) / \
        f"mcp-logs-{generate.encode(name)}"


def keep_home(dest, home, proj, servers, row):
    h = dest / "home"
    for name in servers:
        src = log_folder(home, proj, name)
        if src.is_dir():
            dst = log_folder(h, proj, name)
            dst.mkdir(parents=True)
            for p in src.glob("*.jsonl"):
                shutil.copy2(p, dst / p.name)
    (h / ".claude" / "mcp-discovery-cache").mkdir(parents=True)
    cache = home / ".claude" / "mcp-discovery-cache"
    if cache.is_dir():
        for p in cache.iterdir():
            if p.is_file() and not p.is_symlink() and p.name.endswith(".json"):
                shutil.copy2(p, h / ".claude" / "mcp-discovery-cache" / p.name)
    tdir = home / ".claude" / "projects" / generate.encode(str(proj))
    if tdir.is_dir():
        (h / ".claude" / "projects" / generate.encode(str(proj))).mkdir(parents=True)
        for p in tdir.glob("*.jsonl"):
            q = h / ".claude" / "projects" / generate.encode(str(proj)) / p.name
            q.write_bytes(b"")
            os.utime(q, (p.stat().st_atime, p.stat().st_mtime))
    (h / ".claude.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n")
    (dest / "session.json").write_text(json.dumps(row, indent=2) + "\n")


def candidates(name, url, v):
    """Hashes of what an entry's name could be made of, to test against the file names."""
    out = {}
    for label, text in [("name", name), ("url", url), ("name+url", name + url),
                        ("name|url", f"{name}|{url}"), ("name:url", f"{name}:{url}"),
                        ("json", json.dumps({"type": "http", "url": url})),
                        ("json-compact", json.dumps({"type": "http", "url": url}, separators=(",", ":")))]:
        for era in ("", "modern", "legacy"):
            t = text + (era and f"|{era}")
            for h in ("md5", "sha1", "sha256"):
                out[f"{h}({label}{'|' + era if era else ''})"] = hashlib.new(h, t.encode()).hexdigest()[:32]
    return out


def run_session(a, v, home, proj, servers, ports, answering, tag, work, keep_dir):
    raw = work / v / tag
    raw.mkdir(parents=True)
    (raw / "logs").mkdir()
    stub = generate.Services(raw)
    traces = {n: raw / f"{n}.wire" for n in servers}
    for n in answering:
        stub.start(f"{v}-{tag}-{n}", [sys.executable, str(lc.STUB), "--case", "ok", "--http",
                                      str(ports[n]), "--trace", str(traces[n])], ports[n])
    env = lc.env_for(home, work, dict(lc.BLOCKING, MCP_DISCOVERY_CACHE="1",
                                      MCP_DISCOVERY_CACHE_TTL_S=TTL))
    t0 = time.time()
    try:
        init = lc.run_p(lc.binary(a.cache, v), home, proj, env, raw)
    finally:
        stub.stop()
    row = {"session": tag, "started": round(t0, 3), "answering": answering, "servers": {}}
    for n in servers:
        verdict = lc.verdict_of(init or {}, n)
        lf = log_folder(home, proj, n)
        row["servers"][n] = {
            "status": verdict["status"], "toolCount": verdict["toolCount"],
            "contacted": traces[n].exists() and traces[n].stat().st_size > 0,
            "logFiles": sorted(p.name for p in lf.glob("*.jsonl")) if lf.is_dir() else []}
    row["cache"] = listing(home)
    dbg = raw / "debug.txt"
    if dbg.exists():
        row["debugCacheLines"] = [ln[:300] for ln in dbg.read_text(errors="replace").splitlines()
                                  if "iscovery" in ln and ("cache" in ln or "Cache" in ln)][:30]
    lc.log(f"{v} {tag}: " + ", ".join(
        f"{n}={s['status']}/{s['toolCount']}{' contacted' if s['contacted'] else ''}"
        for n, s in row["servers"].items()) +
        f" cache={[(c['name'][:8], c['mtime']) for c in row['cache'] or []]}")
    if keep_dir:
        keep_home(Path(keep_dir) / v / tag, home, proj, servers, row)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--versions", default="2.1.336,2.1.332,2.1.287")
    ap.add_argument("--ports", default="43010,43011")
    ap.add_argument("--cache", default=os.environ.get("MCPLOGS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mcplogs-e2e"))
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    lc.PORT_API, lc.PORT_PROXY = (int(x) for x in a.ports.split(","))
    work = Path(tempfile.mkdtemp(prefix="mcplogs-dcstate-"))
    svc = lc.Services(work)
    report = {}
    try:
        for v in [x for x in a.versions.split(",") if x]:
            ports = {n: e2e.free_port() for n in NAMES}
            urls = {n: f"http://127.0.0.1:{ports[n]}/mcp" for n in NAMES}
            servers = {n: {"type": "http", "url": urls[n]} for n in NAMES}
            servers["optout"]["discoveryCache"] = False
            home = work / v / "home"
            proj = lc.setup_home(home, servers, None)
            rows = []
            rows.append(run_session(a, v, home, proj, servers, ports, NAMES, "warm", work, a.keep))
            rows.append(run_session(a, v, home, proj, servers, ports, [], "fresh", work, a.keep))
            time.sleep(10)
            rows.append(run_session(a, v, home, proj, servers, ports, ["alpha"], "expired", work,
                                    a.keep))
            cfg = json.loads((home / ".claude.json").read_text())
            cfg["mcpServers"]["alpha"]["discoveryCache"] = False
            (home / ".claude.json").write_text(json.dumps(cfg, indent=2) + "\n")
            servers["alpha"]["discoveryCache"] = False
            rows.append(run_session(a, v, home, proj, servers, ports, ["alpha"], "purge", work,
                                    a.keep))
            # a second home, alpha alone at the same URL
            other = work / v / "other"
            oservers = {"alpha": {"type": "http", "url": urls["alpha"]}}
            oproj = lc.setup_home(other, oservers, None)
            orow = run_session(a, v, other, oproj, oservers, ports, ["alpha"], "other-home", work,
                               None)
            names = {c["name"][:-5] for r in rows + [orow] for c in (r["cache"] or [])}
            hashes = {}
            for n in NAMES:
                for label, h in candidates(n, urls[n], v).items():
                    if h in names:
                        hashes[f"{n}: {label}"] = h
            report[v] = {"urls": urls, "sessions": rows, "otherHome": orow,
                         "hashMatches": hashes}
    finally:
        svc.stop()
    print(json.dumps(report, indent=2))
    lc.log(f"work folder: {work}")


if __name__ == "__main__":
    main()
