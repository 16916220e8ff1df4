#!/usr/bin/env python3
"""End-to-end: servers Claude Code configures but does not start (issue 21), mcplogs scan
against Claude Code's init line and `claude mcp list`, fully offline.

Called by tests/e2e/claude.sh. Python 3.11 stdlib only; reuses run.py's process handling
and the sample generator's environment, fake API and 403 proxy.

Per Claude Code version, one throwaway HOME and one project with:

  u-on        user server                                   -> starts
  u-off       user server in projects[dir].disabledMcpServers -> init `disabled`, no log,
                                                             mcp list `⊘ Disabled for this project`
  p-approved  .mcp.json, enabledMcpjsonServers (settings.local.json) -> starts
  p-pending   .mcp.json, approved nowhere                   -> `claude -p` starts it, mcp list
                                                             `⏸ Pending approval`
  p-off       .mcp.json, disabledMcpjsonServers (settings.local.json) -> absent from the init
                                                             line and from mcp list, no log

Then `mcplogs scan --json` (in the project, `--home HOME`) must give every one of the five
a row, with the state Claude Code gives it: the three that started by their logs (healthy),
p-pending also `pending-approval`, u-off `disabled` by ~/.claude.json
projects[dir].disabledMcpServers, p-off `disabled` by .claude/settings.local.json
disabledMcpjsonServers; no row may count as failing (exit 0). `mcplogs explain --json` on
the `claude mcp list` output must say `disabled` for u-off and `pending-approval` for p-pending.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run as e2e  # noqa: E402

generate = e2e.generate
SAMPLES = e2e.SAMPLES


def log(msg):
    print(f"[e2e-configured] {msg}", file=sys.stderr, flush=True)


class Ports:
    """Loopback ports from a range (MCPLOGS_E2E_PORTS=LO-HI), else any free one."""

    def __init__(self, spec):
        self.range = None
        if spec:
            lo, hi = (int(x) for x in spec.split("-"))
            self.range = iter(range(lo, hi + 1))

    def take(self):
        if self.range is None:
            return e2e.free_port()
        for p in self.range:
            if generate.port_free(p):
                return p
        raise SystemExit("[e2e-configured] no free port left in MCPLOGS_E2E_PORTS")


def start(svc, ports, name, argv_for_port):
    port = ports.take()
    svc.start(name, argv_for_port(port), port)
    return port


EXPECT_STATE = {
    "u-on": ("starts", None),
    "u-off": ("disabled", "disabledMcpServers"),
    "p-approved": ("starts", None),
    "p-pending": ("pending-approval", None),
    "p-off": ("disabled", "disabledMcpjsonServers"),
}


def one(version, binary, mcplogs, work, api, proxy, problems):
    d = work / f"configured-{version}"
    home = d / "home"
    proj = home / "work" / "proj"
    (proj / ".claude").mkdir(parents=True)
    (d / "bin").mkdir()
    stub = d / "bin" / "stub_mcp_server.py"
    shutil.copy2(SAMPLES / "stub_mcp_server.py", stub)
    os.symlink(sys.executable, d / "bin" / "python3")
    managed = d / "managed"
    managed.mkdir()

    def srv(name):
        return {"type": "stdio", "command": "python3", "args": [str(stub), "--scenario", "b-modern", "--name", name]}

    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True,
        "mcpServers": {"u-on": srv("u-on"), "u-off": srv("u-off")},
        "projects": {str(proj): {"hasTrustDialogAccepted": True, "allowedTools": [],
                                 "disabledMcpServers": ["u-off"]}},
    }, indent=2) + "\n")
    (proj / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "p-approved": srv("p-approved"), "p-pending": srv("p-pending"), "p-off": srv("p-off")}}, indent=2) + "\n")
    (proj / ".claude" / "settings.local.json").write_text(json.dumps({
        "enabledMcpjsonServers": ["p-approved"], "disabledMcpjsonServers": ["p-off"]}, indent=2) + "\n")

    env = generate.claude_env(home, {}, api, d)
    for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        env[k] = f"http://127.0.0.1:{proxy}"
    env["MCP_CONNECTION_NONBLOCKING"] = "false"
    env["MCP_CONNECT_TIMEOUT_MS"] = "30000"

    def problem(text):
        problems.append(f"{version}: {text}")
        log(f"{version} FAIL: {text}")

    rc = e2e.run([str(binary), "-p", "hi", "--output-format", "stream-json", "--verbose"],
                 env=env, cwd=proj, out=d / "p.jsonl", err=d / "p.err")
    init = None
    for ln in (d / "p.jsonl").read_text(errors="replace").splitlines():
        try:
            obj = json.loads(ln)
        except ValueError:
            continue
        if obj.get("subtype") == "init":
            init = {s["name"]: s["status"] for s in obj.get("mcp_servers", [])}
            break
    if init is None:
        problem(f"claude -p printed no init line (exit {rc})")
        return []
    want_init = {"u-on": "connected", "u-off": "disabled", "p-approved": "connected", "p-pending": "connected"}
    if init != want_init:
        problem(f"init line {init}, expected {want_init} (p-off absent)")

    e2e.run([str(binary), "mcp", "list"], env=env, cwd=proj, out=d / "list.txt", err=d / "list.err")
    listing = (d / "list.txt").read_text(errors="replace")
    lines = {ln.split(":", 1)[0]: ln for ln in listing.splitlines() if ":" in ln}
    if "⊘ Disabled for this project" not in lines.get("u-off", ""):
        problem(f"claude mcp list does not show u-off disabled: {lines.get('u-off')!r}")
    if "⏸ Pending approval" not in lines.get("p-pending", ""):
        problem(f"claude mcp list does not show p-pending pending: {lines.get('p-pending')!r}")
    if "p-off" in lines:
        problem(f"claude mcp list shows p-off: {lines['p-off']!r}")

    menv = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "XDG_CACHE_HOME")}
    menv.update(HOME=str(home), NO_COLOR="1")
    scan = subprocess.run([str(mcplogs), "scan", "--json", "--home", str(home), "--managed-dir", str(managed)],
                          env=menv, cwd=proj, capture_output=True, text=True, timeout=120)
    (d / "scan.json").write_text(scan.stdout)
    if scan.returncode != 0:
        problem(f"mcplogs scan exited {scan.returncode} (no server fails here): {scan.stderr.strip()[:300]}")
    rows = []
    try:
        doc = json.loads(scan.stdout)
    except ValueError:
        problem(f"mcplogs scan --json is not JSON: {scan.stdout[:200]!r}")
        return rows
    got = {}
    for s in doc.get("servers", []):
        c = s.get("configuration") or {}
        got[s["name"]] = (s.get("verdict"), c.get("state"), [x.get("key", "") for x in c.get("decidedBy", [])])
    for s in doc.get("configured", []):
        got[s["name"]] = (None, s.get("state"), [x.get("key", "") for x in s.get("decidedBy", [])])
    explain = subprocess.run([str(mcplogs), "explain", "--json", str(d / "list.txt")],
                             env=menv, cwd=proj, capture_output=True, text=True, timeout=60)
    ex = {}
    try:
        for s in json.loads(explain.stdout).get("servers", []):
            ex[s.get("name")] = s.get("state") or s.get("verdict")
    except ValueError:
        problem(f"mcplogs explain --json is not JSON: {explain.stdout[:200]!r}")
    for name, (state, key) in EXPECT_STATE.items():
        verdict, st, keys = got.get(name, (None, None, []))
        ok = True
        started = init.get(name) == "connected"
        if started and verdict != "healthy":
            problem(f"{name}: Claude Code connected it, mcplogs says verdict {verdict}")
            ok = False
        if not started and verdict is not None:
            problem(f"{name}: Claude Code did not start it, yet mcplogs gives it a log verdict {verdict}")
            ok = False
        want_state = "not-started" if state == "starts" and not started else state
        if st != want_state:
            problem(f"{name}: mcplogs state {st}, expected {want_state}")
            ok = False
        if key and not any(k.endswith(key) for k in keys):
            problem(f"{name}: mcplogs names {keys}, expected the key {key}")
            ok = False
        want_ex = {"u-off": "disabled", "p-pending": "pending-approval"}.get(name)
        if want_ex and ex.get(name) != want_ex:
            problem(f"{name}: explain <mcp list> says {ex.get(name)}, expected {want_ex}")
            ok = False
        rows.append((version, name, init.get(name, "absent"), lines.get(name, "(not listed)").split(" - ")[-1].strip(),
                     f"{verdict or '-'} / {st}", ex.get(name, "-"), "ok" if ok else "MISMATCH"))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--mcplogs", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--versions", default=",".join(e2e.DEFAULT_VERSIONS), type=e2e.versions_arg)
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, e2e.on_signal)
    work = Path(a.work)
    (work / "logs").mkdir(parents=True, exist_ok=True)
    ports = Ports(os.environ.get("MCPLOGS_E2E_PORTS", ""))
    svc = generate.Services(work)
    py = sys.executable
    problems, rows = [], []
    try:
        api = start(svc, ports, "configured_api", lambda p: [py, str(SAMPLES / "fake_api.py"), str(p)])
        proxy = start(svc, ports, "configured_proxy", lambda p: [py, str(SAMPLES / "deny_proxy.py"), str(p)])
        for v in [x for x in a.versions.split(",") if x]:
            binary = Path(a.cache) / f"claude-{v}" / "node_modules" / e2e.PKG / "claude"
            rows += one(v, binary, a.mcplogs, work, api, proxy, problems)
    finally:
        for pg in list(e2e.CHILD_GROUPS):
            e2e.kill_group(pg)
        svc.stop()
    print("\nConfigured servers without logs (issue 21):")
    print("| version | server | init line | claude mcp list | mcplogs scan (verdict / state) | explain | check |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if problems:
        print(f"\nFAILED: {len(problems)} mismatch(es):")
        for p in problems:
            print(f"  {p}")
        sys.exit(1)
    print("\nconfigured: every state agrees")


if __name__ == "__main__":
    main()
