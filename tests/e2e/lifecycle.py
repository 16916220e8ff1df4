#!/usr/bin/env python3
"""Claude Code's discovery lifecycle, observed on real builds, fully offline.

    python3 tests/e2e/lifecycle.py --generate [--versions 2.1.287,2.1.288,2.1.310,2.1.332] [--only CASE,...]
                                   [--ports API,PROXY]
        run every case of tests/e2e/lifecycle_stub.py on each build and (re)write
        tests/fixtures/lifecycle/<case>/<build>/: the server's mcp-logs-<case>/*.jsonl and
        claude.json, Claude Code's own verdict (the init line's status and mcp__ tools)
    python3 tests/e2e/lifecycle.py --e2e --mcplogs BIN [--versions ...]
        (tests/e2e/claude.sh) a few cases on the real builds, `mcplogs scan --json` on each
        server's fresh log compared with the cause the fixtures pin down

Everything listens on 127.0.0.1 ports 22010 and 22011 (fake API, 403 proxy; `--ports`
to move them, e.g. when another run holds those), and a group's HTTP stubs and delayed
fake API on the ports after the API's (API+9 to API+20). Each group of
cases is one `claude -p` run in a throwaway HOME (`MCP_CONNECTION_NONBLOCKING=false`,
`MCP_CONNECT_TIMEOUT_MS` high so that the init line holds final statuses), or one
interactive Claude Code in tmux for list_changed (`-p` never refetches).
Python 3.11 stdlib only.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
import run as e2e  # noqa: E402  (process groups, the sample generator)

generate = e2e.generate
STUB = HERE / "lifecycle_stub.py"
FIXTURES = REPO / "tests" / "fixtures" / "lifecycle"
PORT_API, PORT_PROXY = 22010, 22011  # below the ephemeral range (32768-60999 on Linux)
VERSIONS = ["2.1.287", "2.1.288", "2.1.310", "2.1.332"]
BLOCKING = {"MCP_CONNECTION_NONBLOCKING": "false", "MCP_CONNECT_TIMEOUT_MS": "90000",
            "MCP_PROTOCOL_NEGOTIATION": "auto"}


def srv(case, *extra):
    return {"type": "stdio", "command": "python3", "args": [str(STUB), "--case", case, *extra]}


def http(case):
    """An HTTP server of `case`, started by run_group on a free port (its URL filled in)."""
    return {"type": "http", "url": None, "_case": case}


# group -> (mode, environment, user settings env (~/.claude/settings.json), project
# settings env (<project>/.claude/settings.json), {fixture name: server config})
P_CASES = ["ok", "no-tools-cap", "pages-21", "pages-50", "cursor-repeat", "cursor-empty",
           "rp-modern-missing", "rp-modern-ok", "rp-legacy-missing", "name-space",
           "name-accent", "name-empty", "name-dup", "schema-no-name", "schema-no-input",
           "schema-anyof", "schema-ref", "schema-1mb", "schema-500", "output-not-object",
           "frame-nonrpc", "frame-unknown-id", "frame-early", "frame-early-late", "frame-crlf",
           "lc-valid-p"]
GROUPS = {
    "p": ("p", dict(BLOCKING), None, None,
          {c: srv("lc-valid" if c == "lc-valid-p" else c) for c in P_CASES}),
    # MCP_TIMEOUT=3000 against 5 s answers; pretty-printed output never parses
    "timeout-short": ("p", dict(BLOCKING, MCP_TIMEOUT="3000"), None, None,
                      {"slow-tools-3s": srv("slow-tools"), "slow-init-3s": srv("slow-init"),
                       "frame-pretty": srv("frame-pretty")}),
    # the same 5 s answers with MCP_TIMEOUT=10000: fixed
    "timeout-fixed": ("p", dict(BLOCKING, MCP_TIMEOUT="10000"), None, None,
                      {"slow-tools-10s": srv("slow-tools"), "slow-init-10s": srv("slow-init")}),
    # MCP_TIMEOUT=10000 from ~/.claude/settings.json env instead of the environment
    "timeout-settings": ("p", dict(BLOCKING, MCP_TIMEOUT="3000"), {"MCP_TIMEOUT": "10000"}, None,
                         {"slow-tools-settings": srv("slow-tools")}),
    # MCP_TIMEOUT=3000 from the project's .claude/settings.json only, against a 5 s
    # tools/list: shorter than the default, so 2.1.332 ignores it (project settings only
    # lengthen) while 2.1.288 and 2.1.310 take it and lose the tools
    "timeout-project": ("p", dict(BLOCKING), None, {"MCP_TIMEOUT": "3000"},
                        {"timeout-project-3000": srv("slow-tools")}),
    # project 10000 over a shell 3000, the same 5 s tools/list: longer, so it counts on
    # every build
    "timeout-project-over-shell": ("p", dict(BLOCKING, MCP_TIMEOUT="3000"), None,
                                   {"MCP_TIMEOUT": "10000"},
                                   {"timeout-project-over-shell": srv("slow-tools")}),
    # the default MCP_TIMEOUT (30 s) against 35 s answers
    "timeout-default": ("p", dict(BLOCKING), None, None,
                        {"slow-tools-35s": srv("slow-tools", "--delay-tools-ms", "35000"),
                         "slow-init-35s": srv("slow-init", "--delay-init-ms", "35000")}),
    # blocking -p without MCP_CONNECT_TIMEOUT_MS: 8 s tools/list, init line says pending
    "connect-default": ("p", {"MCP_CONNECTION_NONBLOCKING": "false",
                              "MCP_PROTOCOL_NEGOTIATION": "auto"}, None, None,
                        {"connect-pending": srv("slow-tools", "--delay-tools-ms", "8000")}),
    "tty": ("tty", {"MCP_PROTOCOL_NEGOTIATION": "auto"}, None, None,
            {"lc-valid": srv("lc-valid"), "lc-invalid": srv("lc-invalid"),
             "lc-undeclared": srv("lc-undeclared")}),
    # issue 47: tool names over 128 characters, x-mcp-header declarations by transport and
    # era, HTTP 400 for a protocol version the server does not support
    "classes": ("p", dict(BLOCKING), None, None,
                # the same tools under a 2-character server name: 7 characters shorter
                {"name-long": srv("name-long"), "nl": srv("name-long"),
                 "header-stdio": srv("header-modern"),
                 "header-http": http("header-modern"),
                 "header-http-legacy": http("header-legacy"),
                 "header-http-valid": http("header-valid"),
                 "http-400-version": http("http-400-version"),
                 # a top-level anyOf over HTTP (stdio: schema-anyof)
                 "schema-anyof-http": http("schema-anyof")}),
    # MCP_TIMEOUT=90000 from the environment against a 65 s tools/list
    "timeout-90s": ("p", dict(BLOCKING, MCP_TIMEOUT="90000"), None, None,
                    {"slow-tools-65s": srv("slow-tools", "--delay-tools-ms", "65000")}),
    # servers that ping Claude Code, and one that exits after its tools loaded: the fake
    # API holds its answer 15 s so that `claude -p` stays up meanwhile
    "classes-alive": ("p", dict(BLOCKING), None, None,
                      {"ping-modern": srv("ping-modern"), "ping-legacy": srv("ping-legacy"),
                       "exit-after-tools": srv("exit-after-tools")}),
    # one good tool, then list_changed and a refetch whose only tool has no inputSchema
    "tty-classes": ("tty", {"MCP_PROTOCOL_NEGOTIATION": "auto"}, None, None,
                    {"lc-one-bad": srv("lc-one-bad")}),
    # issue 54: refreshes failing after a good first listing: twice, with a JSON-RPC error,
    # never answered (MCP_TIMEOUT=5000 bounds the wait)
    "tty-refresh": ("tty", {"MCP_PROTOCOL_NEGOTIATION": "auto", "MCP_TIMEOUT": "5000"},
                    None, None,
                    {"lc-twice-bad": srv("lc-twice-bad"), "lc-error": srv("lc-error"),
                     "lc-hang": srv("lc-hang")}),
    # issue 54: MCP_SDK_GENERATION=v1 (over MCP_PROTOCOL_NEGOTIATION=auto) from the
    # environment, and from ~/.claude/settings.json's env alone: which client, which era,
    # and what a modern tools/list without resultType/ttlMs/cacheScope gets
    "sdk-v1": ("p", dict(BLOCKING, MCP_SDK_GENERATION="v1"), None, None,
               {"sdk-v1-modern": srv("modern-ok"), "sdk-v1-missing": srv("tools-modern-missing")}),
    "sdk-v1-settings": ("p", dict(BLOCKING), {"MCP_SDK_GENERATION": "v1"}, None,
                        {"sdk-v1-settings": srv("tools-modern-missing")}),
}
# bytes that are not UTF-8 on the wire (stdio lines, HTTP bodies); MCP_TIMEOUT=5000 ends
# the wait for a tools/list answer that never parses (`bytes-outside`); ENABLE_TOOL_SEARCH
# off makes the first Messages API request carry every MCP tool with its description
GROUPS["bytes"] = ("p", dict(BLOCKING, MCP_TIMEOUT="5000", ENABLE_TOOL_SEARCH="false"), None,
                   None, {"bytes-desc": srv("bytes-desc"), "bytes-name": srv("bytes-name"),
                          "bytes-init": srv("bytes-init"), "bytes-outside": srv("bytes-outside"),
                          "bytes-desc-http": http("bytes-desc"),
                          "bytes-name-http": http("bytes-name")})
# groups whose first Messages API request's MCP tools (name, description) are kept in
# claude.json as `apiTools`: what the model was shown
API_TOOLS = {"bytes"}
# groups whose fake API holds each answer this many seconds (a port of their own)
API_DELAY = {"classes-alive": 15}
# Claude Code's `[mcp-sdk]` stderr lines name a tool but no server: the one server of the
# group they are kept with (the only one the exclusion can concern)
STDERR_OWNER = {"classes": "header-http"}
# list_changed refetches a tty group waits for
REFETCHES = {"tty": 2, "tty-classes": 1, "tty-refresh": 4}
E2E_CASES = ["no-tools-cap", "pages-21", "rp-modern-missing", "slow-tools-3s",
             "slow-tools-10s", "bytes-name"]
# issue 47, one case of each item that runs offline (`--cases`; their fixtures are of
# 2.1.288, 2.1.311 or 2.1.310, 2.1.332 and 2.1.336)
CLASSES_E2E_CASES = ["name-long", "header-http", "http-400-version", "ping-modern",
                     "exit-after-tools", "lc-one-bad", "schema-anyof-http"]


def log(msg):
    print(f"[lifecycle] {msg}", file=sys.stderr, flush=True)


def binary(cache, v):
    return Path(cache) / f"claude-{v}" / "node_modules" / generate.PKG / "claude"


def env_for(home, work, extra):
    env = generate.claude_env(home, extra, PORT_API, work)
    for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        env[k] = f"http://127.0.0.1:{PORT_PROXY}"
    env["MCP_SERVER_CONNECTION_BATCH_SIZE"] = "40"
    return env


def setup_home(home, servers, settings_env, project_env=None):
    proj = home / "work" / "proj"
    proj.mkdir(parents=True)
    (home / ".claude").mkdir()
    key = generate.DUMMY_KEY
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True, "mcpServers": servers,
        "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
        "projects": {str(proj): {"hasTrustDialogAccepted": True, "allowedTools": []}},
    }, indent=2) + "\n")
    if settings_env:
        (home / ".claude" / "settings.json").write_text(json.dumps({"env": settings_env}) + "\n")
    if project_env:
        (proj / ".claude").mkdir()
        (proj / ".claude" / "settings.json").write_text(json.dumps({"env": project_env}) + "\n")
    return proj


def run_p(bin_, home, proj, env, raw):
    out, err, dbg = raw / "p.jsonl", raw / "p.err", raw / "debug.txt"
    t0 = time.time()
    rc = e2e.run([str(bin_), "-p", "hi", "--output-format", "stream-json", "--verbose",
                  "--debug-file", str(dbg)], env=env, cwd=proj, out=out, err=err, timeout=240)
    init = None
    for line in out.read_text(errors="replace").splitlines():
        if '"subtype":"init"' in line:
            init = json.loads(line)
            break
    log(f"  claude -p exit {rc} in {time.time() - t0:.0f}s")
    return init


def run_tty(bin_, home, proj, env, names, raw, refetches=2):
    """Interactive Claude Code in tmux until every list_changed server logged its refetch
    (or 60 s), then one prompt so that the model's tool list reaches the fake API."""
    import interactive  # noqa: E402
    env = dict(env, TERM="xterm-256color")
    tty = interactive.Tty(f"mcplogs-lifecycle-{os.getpid()}", [bin_], env, proj)
    root = home / ".cache" / "claude-cli-nodejs"
    try:
        def settled():
            text = "".join(f.read_text(errors="replace") for f in root.glob("*/mcp-logs-*/*.jsonl"))
            return text.count("Connection established") >= len(names) and \
                text.count("list_changed") >= refetches
        interactive.wait_for("refetch", settled, timeout=60)
        time.sleep(6)
        api_log = raw.parent.parent.parent / "api.jsonl"
        before = api_log.stat().st_size if api_log.exists() else 0
        tty.type("hello")
        interactive.wait_for("api", lambda: api_log.exists() and api_log.stat().st_size > before, 40)
        time.sleep(2)
        (raw / "screen.txt").write_text(tty.screen())
    finally:
        tty.close()
    # Claude Code's verdict in tty mode: the tools offered to the model in the last request
    tools = []
    if api_log.exists():
        with open(api_log, "rb") as f:
            f.seek(before)
            for line in f.read().decode(errors="replace").splitlines():
                try:
                    body = json.loads(line)
                except ValueError:
                    continue
                tools = [t.get("name") for t in body.get("tools", []) if isinstance(t, dict)]
                # 2.1.310 and later defer MCP tools behind ToolSearch: their names are
                # listed in the request's text instead
                tools += re.findall(r"mcp__[A-Za-z0-9_-]+?__[A-Za-z0-9_-]*", line)
    return {"mcp_servers": [{"name": n, "status": "interactive"} for n in names],
            "tools": sorted(set(tools)),
            "source": "the tools named in the first /v1/messages request after the refetch"}


def verdict_of(init, name):
    prefix = generate.tool_prefix(name)
    status = next((m.get("status") for m in init.get("mcp_servers", []) if m.get("name") == name), None)
    tools = sorted(t for t in init.get("tools", []) if t.startswith(prefix))
    doc = {"server": name, "status": status, "toolCount": len(tools), "tools": tools[:25]}
    if len(tools) > 25:
        doc["toolsCut"] = f"first 25 of {len(tools)} shown"
    if init.get("source"):
        doc["source"] = init["source"]
    return doc


def api_tools(api_log, start, prefix):
    """The tools named `prefix...` in the first Messages API request logged after `start`,
    with their descriptions."""
    if not api_log.exists():
        return []
    with open(api_log, "rb") as f:
        f.seek(start)
        for line in f.read().decode(errors="replace").splitlines():
            try:
                body = json.loads(line)
            except ValueError:
                continue
            tools = [t for t in body.get("tools", []) if isinstance(t, dict)]
            if tools:
                return [{"name": t.get("name"), "description": t.get("description")}
                        for t in tools if str(t.get("name", "")).startswith(prefix)]
    return []


def run_group(cache, v, gname, work, only=None):
    mode, extra, settings_env, project_env, servers = GROUPS[gname]
    if only:
        servers = {k: s for k, s in servers.items() if k in only}
        if not servers:
            return {}
    gdir = work / v / gname
    home = gdir / "home"
    raw = gdir / "raw"
    raw.mkdir(parents=True)
    extra_svc = generate.Services(work)
    servers = {k: dict(s) for k, s in servers.items()}
    try:
        for i, (name, s) in enumerate(servers.items()):
            # an HTTP case of this file gets its stub here; a caller that started its
            # own server (scripts/observe-build) passes the URL instead
            if s.get("type") == "http" and "_case" in s:
                port = PORT_API + 10 + i
                extra_svc.start(f"{v}-{gname}-{name}", [sys.executable, str(STUB), "--case",
                                                        s.pop("_case"), "--http", str(port),
                                                        "--trace", str(raw / f"{name}.wire")],
                                port)
                s["url"] = f"http://127.0.0.1:{port}/mcp"
        proj = setup_home(home, servers, settings_env, project_env)
        env = env_for(home, work, extra)
        if gname in API_DELAY:
            port = PORT_API + 9
            extra_svc.start(f"{v}-{gname}-api", [sys.executable,
                                                 str(generate.HERE / "fake_api.py"), str(port),
                                                 str(API_DELAY[gname])], port)
            env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{port}"
        log(f"{v} {gname}: {', '.join(servers)}")
        api_log = work / "api.jsonl"
        api_from = api_log.stat().st_size if api_log.exists() else 0
        if mode == "p":
            init = run_p(binary(cache, v), home, proj, env, raw)
        else:
            init = run_tty(binary(cache, v), home, proj, env, list(servers), raw,
                           REFETCHES.get(gname, 2))
    finally:
        extra_svc.stop()
    if init is None:
        raise SystemExit(f"{v} {gname}: no init line; see {raw}")
    out = {}
    for name in servers:
        folder = home / ".cache" / "claude-cli-nodejs" / generate.encode(str(proj)) / \
            f"mcp-logs-{generate.encode(name)}"
        verdict = verdict_of(init, name)
        stderr = raw / "p.err"
        if stderr.exists() and STDERR_OWNER.get(gname) == name:
            # what Claude Code wrote to its own stderr about this server's tools (the
            # x-mcp-header exclusions are only there)
            lines = [ln for ln in stderr.read_text(errors="replace").splitlines()
                     if "[mcp-sdk]" in ln]
            if lines:
                verdict["claudeStderr"] = lines[:10]
        if gname in API_TOOLS:
            verdict["apiTools"] = api_tools(api_log, api_from, generate.tool_prefix(name))
        out[name] = (sorted(folder.glob("*.jsonl")), verdict, raw / "debug.txt")
    return out


def keep_fixture(name, v, logs, verdict, debug):
    dest = FIXTURES / name / v
    if dest.exists():
        shutil.rmtree(dest)
    folder = dest / f"mcp-logs-{generate.encode(name)}"
    folder.mkdir(parents=True)
    for f in logs:
        shutil.copy(f, folder / f.name)
    (dest / "claude.json").write_text(json.dumps(verdict, indent=2, ensure_ascii=False) + "\n")
    if name == "connect-pending" and debug.exists():
        lines = [ln for ln in debug.read_text(errors="replace").splitlines()
                 if "[MCP]" in ln or "connect-pending" in ln]
        (dest / "debug-mcp-lines.txt").write_text("\n".join(lines) + "\n")
    if name.startswith("timeout-project") and debug.exists():
        # 2.1.332's warning about a project's MCP_TIMEOUT is only in the debug log
        lines = [ln for ln in debug.read_text(errors="replace").splitlines()
                 if "MCP_TIMEOUT" in ln]
        if lines:
            (dest / "debug-timeout-lines.txt").write_text("\n".join(lines) + "\n")
    if name.startswith("sdk-v1") and debug.exists():
        # which MCP client ran: only the debug log says (`mcp runtime arm: ...`)
        lines = [ln for ln in debug.read_text(errors="replace").splitlines()
                 if "mcp runtime arm" in ln or "MCP_SDK_GENERATION" in ln
                 or "v1 MCP client" in ln]
        (dest / "debug-sdk-lines.txt").write_text("\n".join(lines) + "\n")
    sizes = sum(f.stat().st_size for f in folder.iterdir())
    log(f"  kept {name}/{v}: {verdict['status']}, {verdict['toolCount']} tools, {sizes} bytes of log")


class Services:
    def __init__(self, work):
        (work / "logs").mkdir(parents=True, exist_ok=True)
        self.svc = generate.Services(work)
        env_log = work / "api.jsonl"
        os.environ["FAKE_API_LOG"] = str(env_log)
        self.svc.start("fake-api", [sys.executable, str(generate.HERE / "fake_api.py"),
                                    str(PORT_API)], PORT_API)
        self.svc.start("deny-proxy", [sys.executable, str(generate.HERE / "deny_proxy.py"),
                                      str(PORT_PROXY)], PORT_PROXY)

    def stop(self):
        self.svc.stop()


def generate_all(cache, versions, only, groups=None):
    work = Path(tempfile.mkdtemp(prefix="mcplogs-lifecycle-"))
    svc = Services(work)
    try:
        for v in versions:
            if not binary(cache, v).exists():
                raise SystemExit(f"no Claude Code {v} in {cache}: run scripts/samples/install_claude.sh")
            for g in GROUPS:
                if groups and g not in groups:
                    continue
                for name, (logs, verdict, debug) in run_group(cache, v, g, work, only).items():
                    keep_fixture(name, v, logs, verdict, debug)
    finally:
        svc.stop()
    log(f"work folder: {work}")


# what `mcplogs scan --json` must say for the e2e cases (the fixtures' verdicts)
def e2e_check(cache, versions, mcplogs, cases=None):
    cases = cases or E2E_CASES
    expected = json.loads((FIXTURES / "expected.json").read_text())["cases"]
    work = Path(tempfile.mkdtemp(prefix="mcplogs-lifecycle-e2e-"))
    svc = Services(work)
    problems = []
    try:
        for v in versions:
            for g in GROUPS:
                for name, (logs, verdict, _) in run_group(cache, v, g, work, cases).items():
                    if not (FIXTURES / name / v).is_dir():
                        problems.append(f"{v} {name}: no fixture of this build to compare with")
                        continue
                    kept = json.loads((FIXTURES / name / v / "claude.json").read_text())
                    want = expected[name][v]
                    if (verdict["status"], verdict["toolCount"]) != (kept["status"], kept["toolCount"]):
                        problems.append(f"{v} {name}: Claude Code now says {verdict['status']}/"
                                        f"{verdict['toolCount']}, the fixture {kept['status']}/"
                                        f"{kept['toolCount']}")
                    if not logs:
                        problems.append(f"{v} {name}: no log written")
                        continue
                    p = subprocess.run([mcplogs, "scan", "--json", "--no-cache", str(logs[0].parent)],
                                       capture_output=True, text=True,
                                       env=dict(os.environ, NO_COLOR="1", HOME=str(work)))
                    doc = json.loads(p.stdout)
                    s = doc["servers"][0]
                    got = (s["verdict"], s.get("cause"))
                    exp = (want["verdict"], want.get("cause"))
                    log(f"{v} {name}: Claude Code {verdict['status']}/{verdict['toolCount']}, "
                        f"mcplogs {got[0]} ({got[1]})")
                    if got != exp:
                        problems.append(f"{v} {name}: mcplogs says {got}, expected {exp}")
    finally:
        svc.stop()
    for p in problems:
        log(f"MISMATCH {p}")
    if problems:
        log(f"work folder kept: {work}")
        raise SystemExit(1)
    shutil.rmtree(work, ignore_errors=True)
    log("every lifecycle case agrees")


def main():
    global PORT_API, PORT_PROXY
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--e2e", action="store_true")
    ap.add_argument("--cache", default=os.environ.get("MCPLOGS_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mcplogs-e2e"))
    ap.add_argument("--versions", default=",".join(VERSIONS), type=e2e.versions_arg)
    ap.add_argument("--only", default="")
    ap.add_argument("--groups", default="", help="only these groups of GROUPS")
    ap.add_argument("--cases", default="", help="--e2e: these cases instead of E2E_CASES "
                    "(`classes`: CLASSES_E2E_CASES)")
    ap.add_argument("--ports", default=f"{PORT_API},{PORT_PROXY}",
                    help="the fake API's and the 403 proxy's loopback ports")
    ap.add_argument("--mcplogs", default=str(REPO / "target" / "debug" / "mcplogs"))
    a = ap.parse_args()
    PORT_API, PORT_PROXY = (int(x) for x in a.ports.split(","))
    versions = [v for v in a.versions.split(",") if v]
    only = {c for c in a.only.split(",") if c}
    if a.generate:
        generate_all(a.cache, versions, only, {g for g in a.groups.split(",") if g})
    elif a.e2e:
        cases = CLASSES_E2E_CASES if a.cases == "classes" else \
            [c for c in a.cases.split(",") if c]
        e2e_check(a.cache, versions, a.mcplogs, cases)
    else:
        ap.error("pass --generate or --e2e")


if __name__ == "__main__":
    main()
