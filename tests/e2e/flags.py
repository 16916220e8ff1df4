#!/usr/bin/env python3
"""The cached feature flags that pick the MCP handshake, observed on real builds, offline.

    python3 tests/e2e/flags.py [--versions 2.1.287,2.1.310,2.1.336] [--only CASE,...]
                               [--ports API,PROXY] [--record] [--mcplogs BIN]

Each case is one blocking `claude -p` in a throwaway HOME whose `~/.claude.json` holds
the case's `cachedGrowthBookFeatures` (and its environment or `~/.claude/settings.json`
`env`), with three servers that tell the eras apart:

  s-both    stdio, tests/e2e/lifecycle_stub.py --case modern-ok (answers server/discover
            and the classic initialize): its log's `Connection established` record names
            the era Claude Code picked
  s-modern  stdio, tests/e2e/modern_only_stub.py answer (only 2026-07-28): connected under
            the modern handshake, failed under the legacy one
  h-both    HTTP on 127.0.0.1, lifecycle_stub.py modern-ok

For each server the script prints Claude Code's own verdict (the init line's status and
tool count), the era in the server's log, and any `MCP era negotiation denylist matched`
line of the debug log, next to what the case expects (EXPECT); it also checks that the
planted flags are still in `~/.claude.json` after the run (an offline build must not drop
them). Exit 0 when every case agrees. `--record` keeps each run as
tests/fixtures/flags/<case>/<build>/ (the servers' logs, Claude Code's verdicts, the debug
log's MCP era lines, the planted `.claude.json` part). With `--mcplogs BIN`, `mcplogs probe
--json` runs in the same home, project and environment after Claude Code, and each
server's predicted handshake must be the era Claude Code used (`discover` for modern;
the older v1 client counts as legacy). Ports: 43010 and 43011 by default
(fake API, 403 proxy), the HTTP stub on API+10. Python 3.11 stdlib only.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
import lifecycle  # noqa: E402  (throwaway homes, the services, `claude -p`)
import run as e2e  # noqa: E402

generate = e2e.generate
STUB = HERE / "lifecycle_stub.py"
MODERN_ONLY = HERE / "modern_only_stub.py"
FIXTURES = REPO / "tests" / "fixtures" / "flags"
VERSIONS = ["2.1.287", "2.1.310", "2.1.336"]
# Every run here sets DISABLE_TELEMETRY and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC (the
# offline rules), which turn Claude Code's feature flags off: every flag then reads its
# default. CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF=1 makes the build read the flags
# cached in ~/.claude.json all the same (what a home without those variables gets while
# its flag fetch has not answered); the `*-flags-off` cases leave it out.
DISK = "CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF"
BLOCKING = {"MCP_CONNECTION_NONBLOCKING": "false", "MCP_CONNECT_TIMEOUT_MS": "60000", DISK: "1"}

N = "tengu_mcp_protocol_negotiation_"
D = "tengu_mcp_negotiation_server_denylist"

# case -> (cachedGrowthBookFeatures, environment, ~/.claude/settings.json env)
CASES = {
    "none": ({}, {}, {}),
    "stdio-false": ({N + "stdio": False}, {}, {}),
    "stdio-true": ({N + "stdio": True}, {}, {}),
    "http-false": ({N + "http": False}, {}, {}),
    "http-false-env-auto": ({N + "http": False}, {"MCP_PROTOCOL_NEGOTIATION": "auto"}, {}),
    "stdio-true-settings-legacy": ({N + "stdio": True}, {}, {"MCP_PROTOCOL_NEGOTIATION": "legacy"}),
    "stdio-string": ({N + "stdio": "false", N + "http": "false"}, {}, {}),
    "deny-host": ({D: ["127.0.0.1"]}, {}, {}),
    "deny-star": ({D: ["*"]}, {}, {}),
    "deny-star-env-auto": ({D: ["*"]}, {"MCP_PROTOCOL_NEGOTIATION": "auto"}, {}),
    "deny-star-stdio-true": ({D: ["*"], N + "stdio": True}, {}, {}),
    "client-v1": ({"tengu_brindle_causeway": False}, {}, {}),
    "stdio-false-flags-off": ({N + "stdio": False, N + "http": False}, {DISK: None}, {}),
}


def vkey(v):
    return tuple(int(p) for p in v.split("."))


def expect(case, v):
    """The era each server gets in `case` on build `v`, as read in the builds' code:
    MCP_PROTOCOL_NEGOTIATION (environment or settings) first, then (unset) the flag of the
    server's transport, then the denylist over a negotiating server. stdio negotiates by
    default from 2.1.300 (flag default true), not before (default false, and only a cached
    `true` turns it on); HTTP negotiates by default (only a cached `false` turns it off)."""
    flags, env, settings = CASES[case]
    setting = env.get("MCP_PROTOCOL_NEGOTIATION") or settings.get("MCP_PROTOCOL_NEGOTIATION")
    if DISK in env and env[DISK] is None:
        flags = {}  # flags off: every flag reads its default
    if flags.get("tengu_brindle_causeway") is False and vkey(v) <= (2, 1, 322) and not setting:
        return {"s-both": "v1", "s-modern": "v1", "h-both": "v1"}
    out = {}
    for srv, transport in (("s-both", "stdio"), ("s-modern", "stdio"), ("h-both", "http")):
        if setting in ("legacy", "auto"):
            out[srv] = "modern" if setting == "auto" else "legacy"
            continue
        cached = flags.get(N + transport)
        if transport == "stdio" and vkey(v) < (2, 1, 300):
            on = cached is True
        else:
            on = cached is not False
        deny = flags.get(D, [])
        if on and ("*" in deny or (transport == "http" and "127.0.0.1" in deny)):
            on = False
        out[srv] = "modern" if on else "legacy"
    return out


def servers(http_port):
    return {
        "s-both": {"type": "stdio", "command": "python3", "args": [str(STUB), "--case", "modern-ok"]},
        "s-modern": {"type": "stdio", "command": "python3", "args": [str(MODERN_ONLY), "answer"]},
        "h-both": {"type": "http", "url": f"http://127.0.0.1:{http_port}/mcp"},
    }


def era_of(folder):
    """The era of the last `Connection established` record in the server's log; `v1` when
    the record has no protocolEra (the older client); None when there is none."""
    era = None
    for f in sorted(folder.glob("*.jsonl")):
        for line in f.read_text(errors="replace").splitlines():
            try:
                msg = json.loads(line).get("debug") or ""
            except ValueError:
                continue
            if msg.startswith("Connection established with capabilities: "):
                try:
                    caps = json.loads(msg.split(": ", 1)[1])
                except ValueError:
                    continue
                era = caps.get("protocolEra", "v1")
    return era


def run_case(cache, v, case, work, http_port):
    flags, env_extra, settings_env = CASES[case]
    gdir = work / v / case
    home, raw = gdir / "home", gdir / "raw"
    raw.mkdir(parents=True)
    svc = generate.Services(work)
    try:
        svc.start(f"{v}-{case}-http", [sys.executable, str(STUB), "--case", "modern-ok",
                                       "--http", str(http_port)], http_port)
        srvs = servers(http_port)
        proj = lifecycle.setup_home(home, srvs, settings_env)
        doc = json.loads((home / ".claude.json").read_text())
        doc["cachedGrowthBookFeatures"] = flags
        (home / ".claude.json").write_text(json.dumps(doc, indent=2) + "\n")
        env = lifecycle.env_for(home, work, BLOCKING)
        env.pop("MCP_PROTOCOL_NEGOTIATION", None)
        for k, val in env_extra.items():
            if val is None:
                env.pop(k, None)
            else:
                env[k] = val
        init = lifecycle.run_p(lifecycle.binary(cache, v), home, proj, env, raw)
    finally:
        svc.stop()
    if init is None:
        raise SystemExit(f"{v} {case}: no init line; see {raw}")
    kept = json.loads((home / ".claude.json").read_text()).get("cachedGrowthBookFeatures")
    debug = raw / "debug.txt"
    deny_lines = [ln.split("] ", 1)[-1] for ln in debug.read_text(errors="replace").splitlines()
                  if "denylist matched" in ln or "mcp runtime arm" in ln] if debug.exists() else []
    got = {}
    for name in srvs:
        folder = home / ".cache" / "claude-cli-nodejs" / generate.encode(str(proj)) / \
            f"mcp-logs-{generate.encode(name)}"
        got[name] = dict(lifecycle.verdict_of(init, name), era=era_of(folder))
    return got, kept == flags or all(kept.get(k) == flags[k] for k in flags), deny_lines, home, proj, env


def probe_handshakes(mcplogs, v, home, proj, env):
    """`mcplogs probe --json` in Claude Code's home, project and environment: each
    server's predicted handshake."""
    import subprocess
    p = subprocess.run([mcplogs, "probe", "--json", "--claude-version", v], cwd=proj, env=env,
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        raise SystemExit(f"mcplogs probe: {p.stderr.decode(errors='replace')}")
    return {s["name"]: s["prediction"]["handshake"] for s in doc["servers"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--versions", type=e2e.versions_arg, default=",".join(VERSIONS))
    ap.add_argument("--only", default="")
    ap.add_argument("--ports", default="43010,43011")
    ap.add_argument("--cache", default=os.environ.get("MCPLOGS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mcplogs-e2e"))
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--mcplogs", help="also check `mcplogs probe` in each home")
    a = ap.parse_args()
    lifecycle.PORT_API, lifecycle.PORT_PROXY = (int(p) for p in a.ports.split(","))
    only = [c for c in a.only.split(",") if c]
    work = Path(tempfile.mkdtemp(prefix="mcplogs-flags-"))
    svc = lifecycle.Services(work)
    bad = 0
    try:
        for v in [x for x in a.versions.split(",") if x]:
            for case in CASES:
                if only and case not in only:
                    continue
                got, kept, lines, home, proj, env = run_case(a.cache, v, case, work,
                                                             lifecycle.PORT_API + 10)
                want = expect(case, v)
                for name in ("s-both", "s-modern", "h-both"):
                    g = got[name]
                    # s-modern: connected only under the modern handshake
                    seen = g["era"] if name != "s-modern" else (
                        "modern" if g["status"] == "connected" else "legacy")
                    w = want[name]
                    if name == "s-modern" and w == "v1":
                        w = "legacy"
                    ok = seen == w
                    bad += not ok
                    print(f"{v} {case:28} {name:9} {g['status']:10} tools={g['toolCount']} "
                          f"era={g['era']} want={w} {'ok' if ok else 'MISMATCH'}", flush=True)
                if a.mcplogs:
                    # the HTTP stub is gone: its handshake is predicted all the same
                    predicted = probe_handshakes(a.mcplogs, v, home, proj, env)
                    for name in ("s-both", "h-both"):
                        era = got[name]["era"]
                        want_hs = "discover" if era == "modern" else "legacy"
                        ok = predicted.get(name) == want_hs
                        bad += not ok
                        print(f"{v} {case:28} {name:9} probe predicts {predicted.get(name)}, "
                              f"Claude Code used {era}: {'ok' if ok else 'MISMATCH'}", flush=True)
                if not kept:
                    bad += 1
                    print(f"{v} {case}: the planted flags are gone from .claude.json", flush=True)
                for ln in lines:
                    print(f"{v} {case:28} debug: {ln}", flush=True)
                if a.record:
                    dest = FIXTURES / case / v
                    shutil.rmtree(dest, ignore_errors=True)
                    dest.mkdir(parents=True)
                    flags, env_extra, settings_env = CASES[case]
                    (dest / "case.json").write_text(json.dumps({
                        "cachedGrowthBookFeatures": flags, "environment": env_extra,
                        "settingsEnv": settings_env, "claudeCode": got,
                        "flagsKept": kept, "debugLines": lines}, indent=2) + "\n")
                    for name in got:
                        folder = home / ".cache" / "claude-cli-nodejs" / \
                            generate.encode(str(proj)) / f"mcp-logs-{generate.encode(name)}"
                        if folder.is_dir():
                            shutil.copytree(folder, dest / folder.name)
    finally:
        svc.stop()
    print(f"work folder: {work}; {bad} mismatch(es)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
