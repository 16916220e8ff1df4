#!/usr/bin/env python3
"""Regenerate sample-logs/ from real Claude Code
builds run fully offline against the stub MCP server. Called by generate.sh, which
installs the pinned builds first. Python 3.11 stdlib only.

Everything runs on loopback: a fake Anthropic API (fake_api.py), a proxy that answers
403 to everything (deny_proxy.py), and stub MCP servers (stub_mcp_server.py). Each home
is a fresh throwaway HOME under /tmp/mcplogs-samples with dummy credentials only.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "sample-logs"
VERSIONS = ["2.1.288", "2.1.332"]
PKG = "@anthropic-ai/claude-code-linux-x64"

# Fixed loopback ports: they end up in .claude.json and in the logs, so keep them stable.
PORT_API = 18180          # fake Anthropic API, answers at once
PORT_API_SLOW = 18181     # fake Anthropic API, answers after API_SLOW_DELAY seconds
PORT_PROXY = 18182        # HTTPS_PROXY/HTTP_PROXY: 403 to everything
PORT_HTTP_AUTH = 18191    # stub: 401 + WWW-Authenticate: Bearer, OAuth metadata, DCR
PORT_HTTP_OK = 18192      # stub: compliant 2026-07-28 server over Streamable HTTP
PORT_HTTP_NO_RT = 18193   # stub: 2026-07-28 server whose tools/list omits resultType
PORT_CLOSED = 18199       # nothing listens here (ECONNREFUSED)
API_SLOW_DELAY = 5        # keeps `claude -p` alive for a while (macos and windows homes)

DUMMY_KEY = "sk-ant-dummy-0000000000000000000000000000"

# ---------------------------------------------------------------------------
# Scenarios. Each server: configured name, config, scenario letter, expectation for
# its LATEST session in that home (verdict, cause, era) and the substrings that the
# latest session's decoded messages must (must) / must not (must_not) contain, checked
# after generation so a regeneration that drifts is noticed.
# ---------------------------------------------------------------------------


def stdio(scenario, typed=True):
    cfg = {"command": "python3", "args": ["{STUB}", "--scenario", scenario]}
    if typed:
        cfg = {"type": "stdio", **cfg}
    return cfg


def http(port):
    return {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}


HEALTHY = dict(must=["Connection established with capabilities"],
               must_not=["Failed to fetch tools", "Connection failed"])

HOMES = {
    "linux-home": {
        "layout": "linux",
        "project": "work/api",
        "runs": [("2.1.288", ["text", "stream-json"]), ("2.1.332", ["text", "stream-json"])],
        # MCP_CONNECTION_NONBLOCKING=0: `claude -p` waits until every server has settled
        # (tools fetched or failed) before its init line, so the statuses are final
        "env": {"MCP_PROTOCOL_NEGOTIATION": "auto", "MCP_CONNECTION_NONBLOCKING": "0"},
        "api_port": PORT_API,
        "servers": [
            dict(name="acme.docs", cfg=stdio("a-classic", typed=False), letter="a",
                 verdict="healthy", cause=None, era="legacy",
                 must=['"protocolEra":"legacy"'], must_not=HEALTHY["must_not"]),
            dict(name="modern-ok", cfg=stdio("b-modern"), letter="b",
                 verdict="healthy", cause=None, era="modern",
                 must=['"protocolEra":"modern"'], must_not=HEALTHY["must_not"]),
            dict(name="no-resulttype", cfg=stdio("c-no-rt"), letter="c",
                 verdict="tolerated", cause=None, era="modern",
                 must=["omits required fields", 'filled in resultType="complete"'],
                 must_not=["Failed to fetch tools"]),
            dict(name="no-cache-fields", cfg=stdio("d-no-cache"), letter="d",
                 verdict="tolerated", cause=None, era="modern",
                 must=["omits required fields", 'ttlMs=0, cacheScope="private"'],
                 must_not=["Failed to fetch tools"]),
            dict(name="wrong-types", cfg=stdio("e-bad-types"), letter="e",
                 verdict="tools-fetch-failed", cause="wrong-field-types", era="modern",
                 must=["Failed to fetch tools", "received string"], must_not=[]),
            dict(name="bad-tool", cfg=stdio("f-bad-schema"), letter="f",
                 verdict="tools-fetch-failed", cause="invalid-tool-definition", era="legacy",
                 must=["Failed to fetch tools", "tools.2.inputSchema.type"], must_not=[]),
            dict(name="tools-error", cfg=stdio("g-list-err"), letter="g",
                 verdict="tools-fetch-failed", cause="other", era="legacy",
                 must=["Failed to fetch tools: Internal error"], must_not=[]),
            dict(name="old-protocol", cfg=stdio("h-old-protocol"), letter="h",
                 verdict="version-unsupported", cause=None, era=None,
                 must=["Server's protocol version is not supported: 1999-01-01"], must_not=[]),
            dict(name="missing-cmd",
                 cfg={"type": "stdio", "command": "mcp-server-not-installed", "args": ["--stdio"]},
                 letter="i", verdict="connection-failed", cause="command-not-found", era=None,
                 must=["(ENOENT): Executable not found in $PATH"], must_not=[]),
            dict(name="exits-early", cfg=stdio("j-exit"), letter="j",
                 verdict="connection-failed", cause="connection-closed", era=None,
                 must=["(CONNECTION_CLOSED): Connection closed"], must_not=[]),
        ],
    },
    "macos-home": {
        "layout": "macos",
        "project": "work/web",
        "runs": [("2.1.288", ["stream-json"])],
        # default (non-blocking) start-up like a real user: the init line is a snapshot
        # taken about 2 s in; the slow fake API keeps the process alive for ~7 s so the
        # tools-fetch failures are written before it exits; MCP_TIMEOUT=10000 outlives it
        "env": {"MCP_PROTOCOL_NEGOTIATION": "auto", "MCP_TIMEOUT": "10000"},
        "api_port": PORT_API_SLOW,
        "clear_needs_auth_cache": True,
        "servers": [
            dict(name="Studio Bridge", cfg=stdio("a-classic"), letter="a",
                 verdict="healthy", cause=None, era="legacy",
                 must=['"protocolEra":"legacy"'], must_not=HEALTHY["must_not"]),
            dict(name="notes.v2", cfg=stdio("b-modern"), letter="b",
                 verdict="healthy", cause=None, era="modern",
                 must=['"protocolEra":"modern"'], must_not=HEALTHY["must_not"]),
            dict(name="no-resulttype", cfg=stdio("c-no-rt"), letter="c",
                 verdict="tools-fetch-failed", cause="missing-resultType", era="modern",
                 must=["Failed to fetch tools", "missing required resultType"], must_not=[]),
            dict(name="no-cache-fields", cfg=stdio("d-no-cache"), letter="d",
                 verdict="tools-fetch-failed", cause="missing-cache-fields", era="modern",
                 must=["Failed to fetch tools", "received undefined"], must_not=[]),
            dict(name="wrong-types", cfg=stdio("e-bad-types"), letter="e",
                 verdict="tools-fetch-failed", cause="wrong-field-types", era="modern",
                 must=["Failed to fetch tools", "received string"], must_not=[]),
            # in the modern era the zod error is a JSON array of issues whose path points
            # into tools[2] (in the legacy era it reads "tools.2.inputSchema.type: ...")
            dict(name="bad-tool-modern", cfg=stdio("f-bad-schema-modern"), letter="f",
                 verdict="tools-fetch-failed", cause="invalid-tool-definition", era="modern",
                 must=["Failed to fetch tools", '"inputSchema"', '"protocolEra":"modern"'],
                 must_not=[]),
            dict(name="remote-no-rt", cfg=http(PORT_HTTP_NO_RT), letter="c",
                 verdict="tools-fetch-failed", cause="missing-resultType", era="modern",
                 must=["(transport: http)", "Failed to fetch tools: Invalid result for tools/list: missing required resultType"],
                 must_not=[]),
            # the version is on the command line, so Claude Code's masker turns it into
            # "[redacted]" in the failure messages
            dict(name="pinned-version",
                 cfg={"type": "stdio", "command": "python3",
                      "args": ["{STUB}", "--init-version", "1999-01-01"]},
                 letter="h", verdict="version-unsupported", cause=None, era=None,
                 must=["Server's protocol version is not supported: [redacted]"], must_not=[]),
            dict(name="sso-gateway", cfg=http(PORT_HTTP_AUTH), letter="l",
                 verdict="connection-failed", cause="needs-auth", era=None,
                 must=["Authentication required for HTTP server"], must_not=[]),
            # `mcp list` logs the 10 s connect timeout, but the `-p` process exits after
            # ~7 s, so the latest session ends in "Connection abandoned after ...ms (Claude
            # Code is shutting down)": nothing conclusive in the latest session, so mcplogs
            # takes the verdict from the session before it (the timeout). A trimmed copy
            # holding only the abandoned session is the `unknown` sample (trimmed/).
            dict(name="slow-start", cfg=stdio("k-hang"), letter="k",
                 verdict="connection-failed", cause="timeout", era=None,
                 must=["Claude Code is shutting down"],
                 must_not=["Connection established", "Failed to fetch tools", "timed out after"]),
        ],
    },
    "windows-home": {
        "layout": "windows",
        "project": "work/app",
        "runs": [("2.1.332", ["stream-json"])],
        # no MCP_PROTOCOL_NEGOTIATION: 2.1.332 negotiates on stdio and http by default
        "env": {"MCP_TIMEOUT": "3000"},
        "api_port": PORT_API_SLOW,
        "servers": [
            dict(name="Docs Server", cfg=http(PORT_HTTP_OK), letter="b",
                 verdict="healthy", cause=None, era="modern",
                 must=['"protocolEra":"modern"', "(transport: http)"], must_not=HEALTHY["must_not"]),
            dict(name="local_files", cfg=stdio("b-modern"), letter="b",
                 verdict="healthy", cause=None, era="modern",
                 must=['"protocolEra":"modern"'], must_not=HEALTHY["must_not"]),
            dict(name="legacy-fs", cfg=stdio("a-classic"), letter="a",
                 verdict="healthy", cause=None, era="legacy",
                 must=['"protocolEra":"legacy"'], must_not=HEALTHY["must_not"]),
            dict(name="remote-no-rt", cfg=http(PORT_HTTP_NO_RT), letter="c",
                 verdict="tolerated", cause=None, era="modern",
                 must=["omits required fields"], must_not=["Failed to fetch tools"]),
            # 2.1.332 fills in the missing cacheScope (tolerated record) but still rejects
            # the bad tool: the failure, not the tolerated record, is the verdict
            dict(name="crm.tools", cfg=stdio("f-bad-schema-no-cache"), letter="f",
                 verdict="tools-fetch-failed", cause="invalid-tool-definition", era="modern",
                 must=["omits required fields", "Failed to fetch tools", '"inputSchema"'],
                 must_not=[]),
            dict(name="hangs", cfg=stdio("k-hang"), letter="k",
                 verdict="connection-failed", cause="timeout", era=None,
                 must=["(CONNECT_TIMEOUT)", "connection timed out after 3000ms"], must_not=[]),
            # `claude mcp list` runs first and caches the needs-auth verdict, so the
            # latest (-p) session is the one-record "Skipping connection (cached needs-auth)"
            dict(name="sso-gateway", cfg=http(PORT_HTTP_AUTH), letter="l",
                 verdict="connection-failed", cause="needs-auth", era=None,
                 must=["Skipping connection (cached needs-auth)"], must_not=[]),
            dict(name="api-down", cfg=http(PORT_CLOSED), letter="m",
                 verdict="connection-failed", cause="connection-refused", era=None,
                 must=["(ECONNREFUSED)"], must_not=[]),
        ],
    },
}

CACHE_LAYOUT = {
    "linux": Path(".cache/claude-cli-nodejs"),
    "macos": Path("Library/Caches/claude-cli-nodejs"),
    "windows": Path("AppData/Local/claude-cli-nodejs/Cache"),
}

SCENARIO_TEXT = {
    "a": "classic handshake (server/discover -> -32601, legacy fallback)",
    "b": "fully compliant 2026-07-28 server",
    "c": "2026-07-28 tools/list without resultType",
    "d": "2026-07-28 tools/list without ttlMs/cacheScope",
    "e": 'wrong field types (ttlMs:"60000", cacheScope:"shared")',
    "f": "bad tool definition (tools[2].inputSchema.type = \"string\"), legacy or modern era",
    "g": "tools/list answers a JSON-RPC error (-32603)",
    "h": "initialize answered with unproposed version 1999-01-01",
    "i": "command not in PATH",
    "j": "server exits at start",
    "k": "server never answers (connect timeout)",
    "l": "HTTP 401 + WWW-Authenticate: Bearer (needs authentication)",
    "m": "HTTP URL on a closed loopback port (ECONNREFUSED)",
}


def encode(s):
    """Claude Code's folder-name encoding: every char outside [a-zA-Z0-9] -> '-'."""
    out = re.sub(r"[^a-zA-Z0-9]", "-", s)
    if len(out) > 200:
        raise SystemExit("names over 200 chars are not used by the samples")
    return out


def tool_prefix(name):
    """Prefix of the tool names Claude Code gives a server's tools (observed)."""
    return "mcp__" + re.sub(r"[^a-zA-Z0-9_-]", "_", name) + "__"


def log(msg):
    print(f"[generate] {msg}", flush=True)


def port_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_port(port, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"nothing came up on 127.0.0.1:{port}")


class Services:
    """Background loopback servers, all started here and stopped by pid."""

    def __init__(self, work):
        self.work = work
        self.procs = []

    def start(self, name, argv, port):
        logf = open(self.work / "logs" / f"{name}.log", "w")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                             start_new_session=True)
        self.procs.append((name, p, logf))
        wait_port(port)

    def stop(self):
        for name, p, logf in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            logf.close()
        self.procs = []


def claude_env(home, extra, api_port, work):
    env = {
        "PATH": f"{work / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "USER": "dev",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "ANTHROPIC_API_KEY": DUMMY_KEY,
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{api_port}",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "HTTPS_PROXY": f"http://127.0.0.1:{PORT_PROXY}",
        "HTTP_PROXY": f"http://127.0.0.1:{PORT_PROXY}",
        "https_proxy": f"http://127.0.0.1:{PORT_PROXY}",
        "http_proxy": f"http://127.0.0.1:{PORT_PROXY}",
        "NO_PROXY": "127.0.0.1,localhost,::1",
        "no_proxy": "127.0.0.1,localhost,::1",
        # start every stdio server at once (default batch of 3), so that most of them
        # have settled before `claude -p` prints its init line
        "MCP_SERVER_CONNECTION_BATCH_SIZE": "20",
    }
    env.update(extra)
    return env


def run_claude(binary, args, home, cwd, env, stdout_path, stderr_path, timeout=180):
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        p = subprocess.Popen([str(binary)] + args, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                             stdout=out, stderr=err, start_new_session=True)
        try:
            rc = p.wait(timeout)
        except subprocess.TimeoutExpired:
            log(f"  timeout: {' '.join(args[:2])}; killing its process group {p.pid}")
            rc = None
        # end whatever it left behind (MCP server children) by its process group id
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        if rc is None:
            p.wait()
    return rc


def read_records(path):
    recs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                recs.append(json.loads(line))
            except ValueError:
                recs.append({"unparsed": line})
    return recs


def message(rec):
    return rec.get("debug", rec.get("error", ""))


def prune_home(home, layout):
    """Keep .claude.json (minus the machine/user ids) and the cache tree only."""
    cache_src = home / ".cache" / "claude-cli-nodejs"
    keep_json = home / ".claude.json"
    cfg = json.loads(keep_json.read_text())
    for k in ("machineID", "userID"):
        cfg.pop(k, None)
    for entry in list(home.iterdir()):
        if entry in (keep_json, home / ".cache"):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    keep_json.write_text(json.dumps(cfg, indent=2) + "\n")
    for proj in cache_src.iterdir():
        for sub in list(proj.iterdir()):
            if not sub.name.startswith("mcp-logs-"):
                shutil.rmtree(sub) if sub.is_dir() else sub.unlink()
    for entry in list((home / ".cache").iterdir()):
        if entry.name != "claude-cli-nodejs":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    dest = home / CACHE_LAYOUT[layout]
    if dest != cache_src:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(cache_src), str(dest))
        shutil.rmtree(home / ".cache")
    return dest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default=os.environ.get("MCPLOGS_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mcplogs-e2e"))
    ap.add_argument("--work", default=os.environ.get("MCPLOGS_SAMPLES_WORK", "/tmp/mcplogs-samples"))
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args()
    cache, work, out = Path(a.cache), Path(a.work), Path(a.out)

    binaries = {v: cache / f"claude-{v}" / "node_modules" / PKG / "claude" for v in VERSIONS}
    for v, b in binaries.items():
        if not os.access(b, os.X_OK):
            raise SystemExit(f"missing {b}; run scripts/samples/generate.sh (it installs it)")
    ports = [PORT_API, PORT_API_SLOW, PORT_PROXY, PORT_HTTP_AUTH, PORT_HTTP_OK,
             PORT_HTTP_NO_RT, PORT_CLOSED]
    busy = [p for p in ports if not port_free(p)]
    if busy:
        raise SystemExit(f"loopback port(s) in use: {busy}; stop what holds them and retry")

    t0 = time.time()
    if work.exists():
        shutil.rmtree(work)
    (work / "bin").mkdir(parents=True)
    (work / "logs").mkdir()
    (work / "raw").mkdir()
    stub = work / "bin" / "stub_mcp_server.py"
    shutil.copy2(HERE / "stub_mcp_server.py", stub)
    os.symlink(sys.executable, work / "bin" / "python3")

    svc = Services(work)
    results = {}  # (home, version) -> init dict
    try:
        py = sys.executable
        svc.start("fake_api", [py, str(HERE / "fake_api.py"), str(PORT_API)], PORT_API)
        svc.start("fake_api_slow", [py, str(HERE / "fake_api.py"), str(PORT_API_SLOW),
                                    str(API_SLOW_DELAY)], PORT_API_SLOW)
        svc.start("deny_proxy", [py, str(HERE / "deny_proxy.py"), str(PORT_PROXY)], PORT_PROXY)
        svc.start("http_auth", [py, str(stub), "--http", str(PORT_HTTP_AUTH), "--http-auth"],
                  PORT_HTTP_AUTH)
        svc.start("http_ok", [py, str(stub), "--http", str(PORT_HTTP_OK), "--scenario", "b-modern"],
                  PORT_HTTP_OK)
        svc.start("http_no_rt", [py, str(stub), "--http", str(PORT_HTTP_NO_RT), "--scenario", "c-no-rt"],
                  PORT_HTTP_NO_RT)

        for hname, h in HOMES.items():
            home = work / f"home-{hname.split('-')[0]}"
            proj = home / h["project"]
            proj.mkdir(parents=True)
            servers = {}
            for s in h["servers"]:
                cfg = json.loads(json.dumps(s["cfg"]).replace("{STUB}", str(stub)))
                servers[s["name"]] = cfg
            (home / ".claude.json").write_text(json.dumps(
                {"hasCompletedOnboarding": True, "mcpServers": servers}, indent=2) + "\n")
            env = claude_env(home, h["env"], h["api_port"], work)
            for version, formats in h["runs"]:
                b = binaries[version]
                tag = f"{hname}-{version}"
                log(f"{tag}: claude mcp list")
                run_claude(b, ["mcp", "list"], home, proj, env,
                           work / "raw" / f"mcp-list-{tag}.txt", work / "raw" / f"mcp-list-{tag}.err")
                if h.get("clear_needs_auth_cache"):
                    # let the -p run go through the whole OAuth discovery again instead of
                    # "Skipping connection (cached needs-auth)"
                    # (2.1.332 keeps that verdict in mcp-needs-auth-cache.json, 2.1.288 also
                    # reads the stored OAuth entry with an empty accessToken in .credentials.json)
                    for n in ("mcp-needs-auth-cache.json", ".credentials.json"):
                        f = home / ".claude" / n
                        if f.exists():
                            f.unlink()
                for fmt in formats:
                    log(f"{tag}: claude -p hi --output-format {fmt}")
                    args = ["-p", "hi", "--output-format", fmt]
                    if fmt == "stream-json":
                        args.append("--verbose")
                    args += ["--debug-file", str(work / "raw" / f"debug-{tag}-{fmt}.txt")]
                    rc = run_claude(b, args, home, proj, env, work / "raw" / f"out-{tag}-{fmt}.txt",
                                    work / "raw" / f"out-{tag}-{fmt}.err")
                    if rc != 0:
                        log(f"  WARNING: exit code {rc}")
                    if fmt == "stream-json":
                        init = None
                        for line in (work / "raw" / f"out-{tag}-{fmt}.txt").read_text().splitlines():
                            if '"subtype":"init"' in line:
                                init = line
                                break
                        if init is None:
                            raise SystemExit(f"{tag}: no init line in the stream-json output")
                        results[(hname, version)] = init
    finally:
        svc.stop()

    # ------------------------------------------------------------------ layout
    log(f"laying out {out}")
    if out.exists():
        shutil.rmtree(out)
    for d in ("debug-logs", "mcp-list", "init"):
        (out / d).mkdir(parents=True)
    for hname, h in HOMES.items():
        for version, formats in h["runs"]:
            tag = f"{hname}-{version}"
            shutil.copy2(work / "raw" / f"mcp-list-{tag}.txt", out / "mcp-list" / f"{tag}.txt")
            for fmt in formats:
                shutil.copy2(work / "raw" / f"debug-{tag}-{fmt}.txt",
                             out / "debug-logs" / f"{tag}-{fmt}.txt")
            (out / "init" / f"{tag}.json").write_text(results[(hname, version)] + "\n")

    expected = []
    problems = []
    table = []
    for hname, h in HOMES.items():
        src_home = work / f"home-{hname.split('-')[0]}"
        dst_home = out / hname
        shutil.copytree(src_home, dst_home, symlinks=True)
        cache_root = prune_home(dst_home, h["layout"])
        projects = [p for p in cache_root.iterdir() if p.is_dir()]
        if len(projects) != 1:
            problems.append(f"{hname}: expected one project folder, found {[p.name for p in projects]}")
        project = projects[0]
        latest_version = h["runs"][-1][0]
        init = json.loads(results[(hname, latest_version)])
        statuses = {m["name"]: m["status"] for m in init.get("mcp_servers", [])}
        for s in h["servers"]:
            folder = "mcp-logs-" + encode(s["name"])
            sdir = project / folder
            sessions = sorted(sdir.glob("*.jsonl")) if sdir.is_dir() else []
            if not sessions:
                problems.append(f"{hname}/{folder}: no session files")
                continue
            latest = sessions[-1]
            text = "\n".join(message(r) for r in read_records(latest))
            for m in s["must"]:
                if m not in text:
                    problems.append(f"{hname}/{folder}: latest session lacks {m!r}")
            for m in s["must_not"]:
                if m in text:
                    problems.append(f"{hname}/{folder}: latest session contains {m!r}")
            prefix = tool_prefix(s["name"])
            ntools = sum(1 for t in init.get("tools", []) if t.startswith(prefix))
            entry = {
                "home": hname,
                "cache_root": str(cache_root.relative_to(dst_home)),
                "project_folder": project.name,
                "folder": folder,
                "server": s["name"],
                "transport": s["cfg"].get("type", "stdio (no type key)"),
                "scenario": s["letter"],
                "scenario_description": SCENARIO_TEXT[s["letter"]],
                "sessions": len(sessions),
                "latest_session": latest.name,
                "latest_version": latest_version,
                "claude_code": {"status": statuses.get(s["name"]), "tools": ntools,
                                "tool_prefix": prefix},
                "expected": {"verdict": s["verdict"], "cause": s["cause"], "era": s["era"]},
            }
            expected.append(entry)
            table.append(entry)

    # ------------------------------------------------------------ old format
    # One real session (and a healthy neighbour) rewritten the way Claude Code of
    # mid-2025 stored them: a pretty-printed JSON array in a .txt file.
    lh = out / "linux-home" / CACHE_LAYOUT["linux"]
    proj = next(p for p in lh.iterdir() if p.is_dir())
    old_root = out / "old-format" / "claude-cli-nodejs" / proj.name
    for folder in ("mcp-logs-exits-early", "mcp-logs-acme-docs"):
        first = sorted((proj / folder).glob("*.jsonl"))[0]
        recs = read_records(first)
        dst = old_root / folder / (first.stem + ".txt")
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(json.dumps(recs, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    # ------------------------------------------------------------ trimmed
    # A hand-trimmed copy: only the abandoned latest session of macos slow-start, as a
    # user would have after deleting older logs. Nothing in it is decisive: `unknown`.
    mh = out / "macos-home" / CACHE_LAYOUT["macos"]
    mproj = next(p for p in mh.iterdir() if p.is_dir())
    slow = sorted((mproj / "mcp-logs-slow-start").glob("*.jsonl"))[-1]
    tdst = out / "trimmed" / "claude-cli-nodejs" / mproj.name / "mcp-logs-slow-start" / slow.name
    tdst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(slow, tdst)
    macos_slow = next(e for e in expected if e["home"] == "macos-home" and e["server"] == "slow-start")
    expected.append({**macos_slow, "home": "trimmed", "cache_root": "claude-cli-nodejs",
                     "sessions": 1, "scenario_description":
                     "hand-trimmed copy: only the latest (abandoned) session of macos slow-start",
                     "expected": {"verdict": "unknown", "cause": None, "era": None}})

    doc = {
        "description": "What mcplogs should conclude for each (home, server folder), judged on the "
                       "server's LATEST session (newest file name). claude_code is Claude Code's own "
                       "verdict from the init line of the latest `claude -p` run in that home "
                       "(status, and how many tools named tool_prefix* it listed). Generated by "
                       "scripts/samples/generate.sh.",
        "versions": VERSIONS,
        "servers": expected,
    }
    (out / "expected.json").write_text(json.dumps(doc, indent=2) + "\n")
    write_readme(out, table)

    proxy_log = (work / "logs" / "deny_proxy.log").read_text()
    proxied = [l for l in proxy_log.splitlines() if '" 403 ' in l]
    log(f"requests that reached the 403 proxy (should be none): {len(proxied)}")
    for l in proxied[:5]:
        log("  " + l)
    log(f"done in {time.time() - t0:.0f}s")
    if problems:
        log("PROBLEMS (the logs differ from what the scenario table expects):")
        for p in problems:
            log("  " + p)
        sys.exit(1)


def write_readme(out, table):
    rows = []
    for e in table:
        cc = e["claude_code"]
        exp = e["expected"]
        rows.append(f"| {e['home']} | {e['latest_version']} | `{e['server']}` | `{e['folder']}` | "
                    f"{e['transport']} | {e['scenario']} | {cc['status']} / {cc['tools']} | "
                    f"{exp['verdict']} | {exp['cause'] or ''} | {exp['era'] or ''} |")
    scen = "\n".join(f"| {k} | {v} |" for k, v in SCENARIO_TEXT.items())
    text = README_TEMPLATE.format(table="\n".join(rows), scenarios=scen)
    (out / "README.md").write_text(text)


README_TEMPLATE = """# sample-logs: real Claude Code MCP logs, made offline

Every file here was written by a real Claude Code build (the native
`@anthropic-ai/claude-code-linux-x64` package, versions **2.1.288** and **2.1.332**, from the
npm registry) running fully offline against a stub MCP server, except `old-format/`, which is
**converted** (see below). Regenerate everything with:

    bash scripts/samples/generate.sh

(one command, idempotent; it caches the npm installs in `${XDG_CACHE_HOME:-~/.cache}/mcplogs-e2e` or
`$MCPLOGS_CACHE`, wipes and rebuilds this folder, and fails if a latest session no longer
shows what the table below expects). Timestamps, session ids and file names change on every
regeneration; paths do not.

## How they were made

- `scripts/samples/stub_mcp_server.py`: newline-delimited JSON-RPC MCP server (stdio), or
  Streamable HTTP on loopback (`--http PORT`); `--scenario` presets reproduce each case.
- `scripts/samples/fake_api.py`: loopback fake Anthropic Messages API (canned streamed reply).
- `scripts/samples/deny_proxy.py`: loopback `HTTPS_PROXY`/`HTTP_PROXY` answering 403 to all.
- Each home is a fresh throwaway `HOME` at a fixed path (`/tmp/mcplogs-samples/home-linux`,
  `home-macos`, `home-windows`) with the project cwd below it (`work/api`, `work/web`,
  `work/app`), dummy credentials (`ANTHROPIC_API_KEY=sk-ant-dummy...`),
  `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1
  DISABLE_ERROR_REPORTING=1`, `NO_PROXY=127.0.0.1,localhost,::1`,
  `MCP_SERVER_CONNECTION_BATCH_SIZE=20` (all stdio servers start at once).
- Per home and version, in this order: `claude mcp list` (stdout saved in `mcp-list/`),
  then for linux-home `claude -p hi --output-format text --debug-file ...`, then
  `claude -p hi --output-format stream-json --verbose --debug-file ...` (its first line,
  `"subtype":"init"`, saved verbatim in `init/`). So every `claude -p` stream-json run is the
  LATEST session of each server in its home, and each server has one session per process
  (`mcp list` sessions carry the connection records but never the tools-fetch failure).
- `linux-home`: `MCP_PROTOCOL_NEGOTIATION=auto`, `MCP_CONNECTION_NONBLOCKING=0` (so
  `claude -p` waits for every server to settle and its init statuses are final); 2.1.288
  first, then 2.1.332 on the same project, so each server has 6 sessions (mcp list, text,
  stream-json per version; the 2.1.288 ones strict, the latest tolerant for c/d).
- `macos-home`: 2.1.288 only (strict failures are the latest verdict),
  `MCP_PROTOCOL_NEGOTIATION=auto`, `MCP_TIMEOUT=10000`, default non-blocking start-up (the
  init line is a snapshot taken about 2 s in, so failing servers may read `pending`), and a
  fake API that answers after 5 s so the process lives long enough to write the tools-fetch
  failures. Before its `-p` run the needs-auth state that `mcp list` left
  (`~/.claude/mcp-needs-auth-cache.json`, `~/.claude/.credentials.json`) is deleted, so the
  latest `sso-gateway` session shows the whole OAuth discovery instead of the one record
  `Skipping connection (cached needs-auth)`.
- `windows-home`: 2.1.332 only, **no** `MCP_PROTOCOL_NEGOTIATION` (2.1.332 negotiates
  2026-07-28 on stdio and HTTP by default; 2.1.288 does so on HTTP only), `MCP_TIMEOUT=3000`,
  default non-blocking start-up, and the 5 s fake API so `claude -p` lives long enough for
  the connect timeout to be logged. Its latest `sso-gateway` session is the single record
  `Skipping connection (cached needs-auth)` (left by the `mcp list` run before it).
- The caches were written on Linux under `~/.cache/claude-cli-nodejs` and then moved into
  the macOS (`Library/Caches/claude-cli-nodejs`) and Windows
  (`AppData/Local/claude-cli-nodejs/Cache`) layouts; record contents (cwd, paths) stay Linux.
- Homes are pruned to `.claude.json` (with Claude Code's own additions, minus `machineID`
  and `userID`) and the `claude-cli-nodejs` tree (only `mcp-logs-*` folders).

## Layout

- `linux-home/`, `macos-home/`, `windows-home/`: `.claude.json` and
  `<cache root>/<encoded project>/mcp-logs-<encoded server>/<start time>.jsonl`.
- `debug-logs/<home>-<version>-<format>.txt`: the `--debug-file` output of each `-p` run
  (`--output-format text` for `-text`, `stream-json --verbose` for `-stream-json`). In both
  formats, and in both versions, a message containing a newline is written as one JSON
  string literal (`[ERROR] "MCP server \"x\" Failed to fetch tools: ...\n..."`); no raw
  multi-line entries were produced (the logger JSON-encodes any message with a newline).
- `mcp-list/<home>-<version>.txt`: `claude mcp list` stdout.
- `init/<home>-<version>.json`: the init line of each stream-json run, verbatim.
- `old-format/claude-cli-nodejs/<project>/mcp-logs-<server>/<ts>.txt`: **converted, not
  written by Claude Code**: the first (2.1.288) session of linux-home's `exits-early` and
  `acme.docs`, rewritten as the pretty-printed JSON array (`JSON.stringify(records, null, 2)`
  style) that Claude Code of mid-2025 kept in `.txt` files.
- `trimmed/claude-cli-nodejs/<project>/mcp-logs-slow-start/<ts>.jsonl`: **hand-trimmed**: a
  copy of only the latest (abandoned mid-connect) session of macos-home's `slow-start`, the
  `unknown` sample.
- `expected.json`: per (home, server folder): configured name, version of the latest
  session, Claude Code's own init verdict (status, number of `mcp__<name>__` tools) and what
  mcplogs should conclude (verdict, cause, era).

## Scenarios

| letter | server behaviour |
|---|---|
{scenarios}

## What each server's latest session shows

Claude Code column: status in the init line / number of its tools listed. `pending` means
the server had not settled (tools still being fetched, or still connecting) when `claude -p`
printed its init line about 2 s after start; that is timing, and a regeneration may flip it.

| home | latest version | server | folder | transport | scen. | Claude Code | verdict | cause | era |
|---|---|---|---|---|---|---|---|---|---|
{table}

Notes:
- Tool names use the server name with every character outside `[a-zA-Z0-9_-]` turned into
  `_` (`acme.docs` -> `mcp__acme_docs__*`), while folder names turn every character outside
  `[a-zA-Z0-9]` into `-` (`mcp-logs-acme-docs`).
- macos-home `slow-start`: its `mcp list` session shows the connect timeout, but the
  latest (`-p`) session only says `Connection abandoned after ...ms (Claude Code is shutting
  down)`. mcplogs takes the verdict from the latest session that holds a decisive record, so
  it reports the timeout. `trimmed/` holds a copy of only that abandoned session (as if the
  older logs had been deleted): the `unknown` sample.
- Claude Code masks `error` records (and some failure messages) with the server's own
  configuration: command, each argument of 4+ characters, env/header values and URL parts
  become `[redacted]`. macOS `pinned-version` passes `--init-version 1999-01-01` on its
  command line, so its failure reads `Server's protocol version is not supported: [redacted]`;
  linux `old-protocol` (same behaviour via `--scenario h-old-protocol`) shows `1999-01-01`.
"""


if __name__ == "__main__":
    main()
