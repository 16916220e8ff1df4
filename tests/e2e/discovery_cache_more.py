#!/usr/bin/env python3
"""The discovery cache's strikes, SSE servers, era keying, the cached rollout flag and
`claude mcp list`, in homes kept across sessions, offline (issue 54, second part).

    python3 tests/e2e/discovery_cache_more.py [--versions 2.1.336,2.1.287]
        [--scenarios strike-default,...] [--ports API,PROXY,SLOW_API] [--keep DIR] [--json F]

Every scenario is one throwaway HOME kept across its sessions, with one server
(tests/e2e/lifecycle_stub.py, on a free loopback port that stays the same, so the cache
key does too) and `MCP_DISCOVERY_CACHE=1` unless said otherwise. A session marked `slow`
talks to a fake Messages API that holds its answer SLOW seconds (default 20), so that
`claude -p` lives long enough for a stale entry's background refresh to finish (a
normal `-p` exits first and cuts it short).

- `strike-default`: warm (server answers); stale-fail (TTL 1 s, its `tools/list` rejected,
  slow); next (the same, not slow).
- `strike-3`: `MCP_DISCOVERY_CACHE_STRIKES=3` throughout: warm; stale-fail x3 (slow); next.
- `down-strike-3`: `MCP_DISCOVERY_CACHE_STRIKES=3`: warm; down (TTL 1 s, nothing listens,
  slow); fresh-down (default TTL, nothing listens: is the entry still served?).
- `era`: a server that speaks 2026-07-28: warm under `MCP_PROTOCOL_NEGOTIATION=legacy`;
  down under `auto` (default TTL); warm under `auto`; down under `legacy`.
- `flag`: no `MCP_DISCOVERY_CACHE`; `.claude.json` caches
  `cachedGrowthBookFeatures.tengu_mcp_discovery_cache_enable: true`: warm; fresh-down.
- `mcp-list`: `claude mcp list` with the server answering (an entry written?); a `-p`
  warm; `claude mcp list` with the server down (within the TTL).
- `sse`: a legacy HTTP+SSE server (`"type": "sse"`): warm; fresh-down; stale-down (TTL 1 s).
- `flag-traffic`, `flag-false`: the flag again without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC
  (still offline: the 403 proxy), and the flag cached false with the variable set.
- `tty`, `tty-strike-3`: interactive (tmux): `/mcp` about 2 s and 20 s after the start, then
  one prompt (so the session leaves a transcript): a fresh hit against a down server, a
  stale refresh whose list is rejected (at 1 and 3 strikes), a down server at the 3rd.

Each session records the init line's status and tool count (or `mcp list`'s line), whether
the server was contacted (its --trace file), its log files, the cache folder's listing
(names, sizes, mtimes; never the sealed contents), the debug log's discovery-cache lines
and whether `.claude.json` still holds the cached flag. `--keep DIR` keeps each session's
home as tests/e2e/discovery_cache_state.py does (DIR/<version>/<scenario>-<session>/).
Python 3.11 stdlib.
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
import discovery_cache_state as dcs  # noqa: E402
import lifecycle as lc  # noqa: E402
import run as e2e  # noqa: E402

generate = lc.generate
SLOW = 20
PORT_SLOW = 0
FLAG = "tengu_mcp_discovery_cache_enable"
ON = {"MCP_DISCOVERY_CACHE": "1"}
S3 = {"MCP_DISCOVERY_CACHE_STRIKES": "3"}
TTL1 = {"MCP_DISCOVERY_CACHE_TTL_S": "1"}
LEGACY = {"MCP_PROTOCOL_NEGOTIATION": "legacy"}
AUTO = {"MCP_PROTOCOL_NEGOTIATION": "auto"}
GB = {"CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF": "1"}

# scenario: (server name, transport, extra .claude.json keys, sessions)
# session: (tag, server case or None, env, mode) ; mode: p, slow, list
SCENARIOS = {
    "strike-default": ("strike", "http", {}, [
        ("warm", "ok", ON, "p"),
        ("stale-fail", "schema-no-input", {**ON, **TTL1}, "slow"),
        ("next", "schema-no-input", {**ON, **TTL1}, "p")]),
    "strike-3": ("strike", "http", {}, [
        ("warm", "ok", {**ON, **S3}, "p"),
        ("stale-fail-1", "schema-no-input", {**ON, **S3, **TTL1}, "slow"),
        ("stale-fail-2", "schema-no-input", {**ON, **S3, **TTL1}, "slow"),
        ("stale-fail-3", "schema-no-input", {**ON, **S3, **TTL1}, "slow"),
        ("next", "schema-no-input", {**ON, **S3, **TTL1}, "p")]),
    "down-strike-3": ("downs", "http", {}, [
        ("warm", "ok", {**ON, **S3}, "p"),
        ("down", None, {**ON, **S3, **TTL1}, "slow"),
        ("fresh-down", None, {**ON, **S3}, "p")]),
    "era": ("era", "http", {}, [
        ("warm-legacy", "modern-ok", {**ON, **LEGACY}, "p"),
        ("auto-down", None, {**ON, **AUTO}, "p"),
        ("warm-auto", "modern-ok", {**ON, **AUTO}, "p"),
        ("legacy-down", None, {**ON, **LEGACY}, "p")]),
    "flag": ("flagged", "http", {"cachedGrowthBookFeatures": {FLAG: True}}, [
        ("warm", "ok", {}, "p"),
        ("fresh-down", None, {}, "p")]),
    # the same without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC (it may keep the build
    # from reading its cached flags); the 403 proxy still keeps everything on loopback
    "flag-traffic": ("flagged", "http", {"cachedGrowthBookFeatures": {FLAG: True}}, [
        ("warm", "ok", {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": None}, "p"),
        ("fresh-down", None, {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": None}, "p")]),
    # the flag cached false while the variable turns the cache on (the code reads a
    # cached false as a kill switch)
    "flag-false": ("flagged", "http", {"cachedGrowthBookFeatures": {FLAG: False}}, [
        ("warm", "ok", ON, "p"),
        ("fresh-down", None, ON, "p")]),
    # with CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF set the cached flags count although
    # the offline runs' DISABLE_TELEMETRY turns them off (docs/claude-code.md, "MCP feature
    # flags"): the rollout flag true with no variable, and false with the variable on
    "flag-gb": ("flagged", "http", {"cachedGrowthBookFeatures": {FLAG: True}}, [
        ("warm", "ok", GB, "p"),
        ("fresh-down", None, GB, "p")]),
    "flag-false-gb": ("flagged", "http", {"cachedGrowthBookFeatures": {FLAG: False}}, [
        ("warm", "ok", {**ON, **GB}, "p"),
        ("fresh-down", None, {**ON, **GB}, "p")]),
    "mcp-list": ("listed", "http", {}, [
        ("list-up", "ok", ON, "list"),
        ("warm", "ok", ON, "p"),
        ("list-down", None, ON, "list"),
        ("p-down", None, ON, "p")]),
    # interactive (tmux): what /mcp shows for a fresh hit against a down server, and
    # before and after a stale entry's refresh whose tools/list fails
    "tty": ("shown", "http", {}, [
        ("warm", "ok", ON, "p"),
        ("tty-fresh-down", None, ON, "tty"),
        ("tty-stale-fail", "schema-no-input", {**ON, **TTL1}, "tty"),
        ("next", "schema-no-input", {**ON, **TTL1}, "p")]),
    "tty-strike-3": ("shown", "http", {}, [
        ("warm", "ok", {**ON, **S3}, "p"),
        ("tty-stale-fail", "schema-no-input", {**ON, **S3, **TTL1}, "tty"),
        ("tty-stale-fail-2", "schema-no-input", {**ON, **S3, **TTL1}, "tty"),
        ("tty-down", None, {**ON, **S3, **TTL1}, "tty")]),
    "sse": ("legacy-sse", "sse", {}, [
        ("warm", "ok", ON, "p"),
        ("fresh-down", None, ON, "p"),
        ("stale-down", None, {**ON, **TTL1}, "p")]),
}


# the scenarios whose sessions tests/fixtures/discovery-cache-more/expected.json describes
# (scripts/observe-build --discovery-cache runs these; the tty ones are kept apart)
CHECKED = ["strike-default", "strike-3", "down-strike-3", "era", "sse", "flag", "flag-false",
           "flag-gb", "flag-false-gb",
           "mcp-list"]


def cache_lines(dbg):
    if not dbg.exists():
        return []
    return [ln[:300] for ln in dbg.read_text(errors="replace").splitlines()
            if "iscovery-cache" in ln or "iscovery cache" in ln][:30]


def run_tty(bin_, env, proj, raw, v):
    """Interactive Claude Code: `/mcp` typed 2 s after the start and its screen kept 3 s
    later, then again 20 s after the start (a stale entry's refresh has run to its end),
    then one prompt."""
    import interactive  # noqa: E402
    env = dict(env, TERM="xterm-256color")
    tty = interactive.Tty(f"mcplogs-dcmore-{os.getpid()}", [bin_, "--debug-file",
                                                            str(raw / "debug.txt")], env, proj)
    screens = {}
    try:
        t0 = time.time()
        for at, key in ((2, "screenEarly"), (20, "screenLater")):
            time.sleep(max(0, t0 + at - time.time()))
            tty.type("/mcp")
            time.sleep(3)
            screens[key] = tty.screen()
            (raw / f"{key}.txt").write_text(screens[key])
            subprocess.run(["tmux", "-L", tty.sock, "send-keys", "-t", "cc", "Escape"])
            time.sleep(1)
        # one prompt, so that the session leaves a transcript as a real one does (a
        # session that only ran /mcp leaves none, like a `claude mcp list` check)
        tdir = Path(env["HOME"]) / ".claude" / "projects"
        before = set(tdir.rglob("*.jsonl")) if tdir.is_dir() else set()
        tty.type("hello")
        interactive.wait_for("transcript", lambda: tdir.is_dir() and set(tdir.rglob("*.jsonl")) - before, 30)
        time.sleep(3)
    finally:
        tty.close()
    return {k: [ln.rstrip() for ln in t.splitlines() if ln.strip()] for k, t in screens.items()}


def run_session(a, v, scen, home, proj, servers, name, port, sess, work):
    tag, case, extra, mode = sess
    raw = work / v / scen / tag
    raw.mkdir(parents=True)
    (raw / "logs").mkdir()
    stub = generate.Services(raw)
    trace = raw / f"{name}.wire"
    if case:
        flag = "--sse" if servers[name]["type"] == "sse" else "--http"
        stub.start(f"{v}-{scen}-{tag}", [sys.executable, str(lc.STUB), "--case", case, flag,
                                         str(port), "--trace", str(trace)], port)
    env = lc.env_for(home, work, dict(lc.BLOCKING, **extra))
    for k in [k for k, x in extra.items() if x is None]:
        del env[k]  # unset (still offline: the deny proxy answers everything else)
    if mode == "slow":
        env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{PORT_SLOW}"
    t0 = time.time()
    row = {"session": tag, "case": case, "env": extra, "mode": mode}
    try:
        if mode == "list":
            out, err = raw / "list.out", raw / "list.err"
            rc = e2e.run([str(lc.binary(a.cache, v)), "mcp", "list"], env=env, cwd=proj,
                         out=out, err=err, timeout=120)
            row["mcpList"] = [ln for ln in out.read_text(errors="replace").splitlines()
                              if ln.startswith(name + ":")]
            row["exit"] = rc
        elif mode == "tty":
            row.update(run_tty(lc.binary(a.cache, v), env, proj, raw, v))
        else:
            init = lc.run_p(lc.binary(a.cache, v), home, proj, env, raw) or {}
            verdict = lc.verdict_of(init, name)
            row["status"], row["toolCount"] = verdict["status"], verdict["toolCount"]
    finally:
        stub.stop()
    row["seconds"] = round(time.time() - t0, 1)
    row["started"] = round(t0, 3)
    lf = dcs.log_folder(home, proj, name)
    row["contacted"] = trace.exists() and trace.stat().st_size > 0
    row["logFiles"] = sorted(p.name for p in lf.glob("*.jsonl")) if lf.is_dir() else []
    row["cache"] = dcs.listing(home)
    row["debugCacheLines"] = cache_lines(raw / "debug.txt")
    try:
        cj = json.loads((home / ".claude.json").read_text())
        row["flagKept"] = (cj.get("cachedGrowthBookFeatures") or {}).get(FLAG)
    except (OSError, ValueError):
        row["flagKept"] = None
    lc.log(f"{v} {scen}/{tag}: {row.get('status', row.get('mcpList'))}/{row.get('toolCount')}"
           f"{' contacted' if row['contacted'] else ''} {row['seconds']}s cache="
           f"{[(c['name'][:8], c['bytes'], c['mtime']) for c in row['cache'] or []]}"
           f" lines={len(row['debugCacheLines'])}")
    if a.keep:
        dest = Path(a.keep) / v / f"{scen}-{tag}"
        dcs.keep_home(dest, home, proj, servers, row)
        if scen.startswith("flag"):
            cj = {"mcpServers": servers, "cachedGrowthBookFeatures": {FLAG: row["flagKept"]}}
            (dest / "home" / ".claude.json").write_text(json.dumps(cj, indent=2) + "\n")
        # git keeps no write times: tests/cli sets these back
        times = {str(p.relative_to(dest / "home")): round(p.stat().st_mtime, 3)
                 for p in sorted((dest / "home" / ".claude").rglob("*")) if p.is_file()}
        (dest / "mtimes.json").write_text(json.dumps(times, indent=2) + "\n")
    return row


def run_scenario(a, v, scen, work):
    name, transport, extra_cfg, sessions = SCENARIOS[scen]
    port = e2e.free_port()
    url = f"http://127.0.0.1:{port}/{'sse' if transport == 'sse' else 'mcp'}"
    servers = {name: {"type": transport, "url": url}}
    home = work / v / scen / "home"
    proj = lc.setup_home(home, servers, None)
    if extra_cfg:
        cj = json.loads((home / ".claude.json").read_text())
        cj.update(extra_cfg)
        (home / ".claude.json").write_text(json.dumps(cj, indent=2) + "\n")
    rows = []
    for i, sess in enumerate(sessions):
        if i and sess[2].get("MCP_DISCOVERY_CACHE_TTL_S") == "1":
            time.sleep(2)
        rows.append(run_session(a, v, scen, home, proj, servers, name, port, sess, work))
    return {"server": name, "transport": transport, "url": url, "sessions": rows}


def observe_all(cache, versions, scenarios, keep, ports=None, slow=SLOW, json_out=None):
    """Runs `scenarios` on each build; returns {version: {scenario: observations}}. The
    homes are kept under `keep` (None: not kept). Used by scripts/observe-build too."""
    global SLOW, PORT_SLOW
    a = argparse.Namespace(cache=cache, keep=keep)
    if ports:
        lc.PORT_API, lc.PORT_PROXY, PORT_SLOW = ports
    else:
        lc.PORT_API, lc.PORT_PROXY, PORT_SLOW = e2e.free_port(), e2e.free_port(), e2e.free_port()
    SLOW = slow
    work = Path(tempfile.mkdtemp(prefix="mcplogs-dcmore-"))
    svc = lc.Services(work)
    slow_api = generate.Services(work)
    report = {}
    try:
        slow_api.start("slow-api", [sys.executable, str(generate.HERE / "fake_api.py"),
                                    str(PORT_SLOW), str(SLOW)], PORT_SLOW)
        for v in versions:
            report[v] = {}
            for scen in scenarios:
                report[v][scen] = run_scenario(a, v, scen, work)
                if json_out:
                    Path(json_out).write_text(json.dumps(report, indent=2) + "\n")
    finally:
        slow_api.stop()
        svc.stop()
    lc.log(f"work folder: {work}")
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--versions", default="2.1.336,2.1.287")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--ports", default="42010,42011,42012")
    ap.add_argument("--slow", type=float, default=SLOW)
    ap.add_argument("--cache", default=os.environ.get("MCPLOGS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mcplogs-e2e"))
    ap.add_argument("--keep", default=None)
    ap.add_argument("--json", default=None, help="write the observations to this file")
    a = ap.parse_args()
    report = observe_all(a.cache, [x for x in a.versions.split(",") if x],
                         [x for x in a.scenarios.split(",") if x], a.keep,
                         tuple(int(x) for x in a.ports.split(",")), a.slow, a.json)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
