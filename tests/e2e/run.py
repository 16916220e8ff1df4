#!/usr/bin/env python3
"""End-to-end test of mcplogs against real Claude Code builds, fully offline.

Called by tests/e2e/claude.sh (which installs the pinned builds and builds mcplogs first).
Python 3.11 stdlib only. Reuses the sample generator's pieces (scripts/samples/): the stub
MCP server, the fake Anthropic API, the 403 proxy and the Claude Code environment.

Per Claude Code version, in one fresh throwaway HOME holding every scenario's server:

  0. `claude mcp list`                -> `mcplogs explain --json` on its stdout
  1. `claude -p` (stream-json, --debug-file)  -> init line vs `mcplogs scan --json --home`
                                          and `mcplogs scan --json <debug file>`
  2. `mcplogs fix --yes --home HOME`, then `claude -p` again: the servers mcplogs says the
     fix cures must now connect in the legacy era with their tools
  3. `mcplogs fix --undo --yes`, then `claude -p` a third time: the failure is back
  4. the project's .claude/settings.json says `auto` and ~/.claude/settings.json says
     `legacy` (the user file loses): `mcplogs fix --yes` run in the project must write the
     project's .claude/settings.local.json, leave both other files alone, and `claude -p`
     must get the flagged servers' tools back

MCP_PROTOCOL_NEGOTIATION=auto is in the environment of every Claude Code and mcplogs run,
so both versions negotiate the modern era on stdio, and the fix (settings.json `env`)
has to beat the shell variable.

Mapping from Claude Code's own verdict (init line: status, number of mcp__<server>__ tools)
to mcplogs verdicts:

  connected, tools > 0   -> healthy | tolerated
  connected, 0 tools     -> tools-fetch-failed
  failed                 -> connection-failed | version-unsupported
  needs-auth             -> connection-failed (cause needs-auth)
  anything else (pending)-> no verdict to compare: a mismatch

and "the legacy fix cures it" (mcplogs' legacyFixApplies) is checked against what Claude
Code does: the server had no tools before the fix, and has them after it.
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
SAMPLES = REPO / "scripts" / "samples"
sys.path.insert(0, str(SAMPLES))
import generate  # noqa: E402  (the sample generator: environment, services, naming)

PKG = generate.PKG
DEFAULT_VERSIONS = ["2.1.288", "2.1.332"]

# A Claude Code version as npm is asked for it: ASCII digits only (`\d` and str.isdigit
# also take Arabic-Indic or fullwidth digits, which would reach npm and the cache's
# paths), and each number without a leading zero, as semver writes it (`2.1.0332` is no
# version npm publishes). Every script that takes a version checks it here.
VERSION = re.compile(r"(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)", re.ASCII)


def is_version(v):
    return VERSION.fullmatch(v) is not None


def versions_arg(text):
    """argparse `type` of `--versions`: a comma list of versions, returned as given."""
    bad = [v for v in text.split(",") if v and not is_version(v)]
    if bad:
        raise argparse.ArgumentTypeError(f"{bad[0]!r} is not a version such as 2.1.332")
    return text
NEGOTIATION = {"MCP_PROTOCOL_NEGOTIATION": "auto"}

# ---------------------------------------------------------------------------
# Scenarios: configured server name, stub arguments (or a whole config), and what
# mcplogs must conclude per version (verdict, cause, era). The expectations follow from
# what the stub does and from the observed behaviour of each build (2.1.288 rejects
# missing resultType/ttlMs/cacheScope, 2.1.332 fills them in); Claude Code's own
# verdict is compared through the mapping above, independently of these.
# ---------------------------------------------------------------------------
ALL = DEFAULT_VERSIONS


def exp(verdict, cause=None, era=None, version=None):
    """What mcplogs must say; version: the negotiatedProtocolVersion (not checked when None)."""
    return {"verdict": verdict, "cause": cause, "era": era, "version": version}


SCENARIOS = [
    dict(key="classic", name="classic.v1",
         text="healthy classic handshake (older revision 2025-06-18)",
         args=["--init-version", "2025-06-18"],
         expect={v: exp("healthy", era="legacy", version="2025-06-18") for v in ALL}),
    dict(key="fallback", name="discover-fallback",
         text="server/discover -> -32601, classic fallback",
         args=["--scenario", "a-classic"],
         expect={v: exp("healthy", era="legacy", version="2025-11-25") for v in ALL}),
    dict(key="no-rt", name="no-resulttype",
         text="modern tools/list without resultType",
         args=["--scenario", "c-no-rt"],
         expect={"2.1.288": exp("tools-fetch-failed", "missing-resultType", "modern"),
                 "2.1.332": exp("tolerated", era="modern")}),
    dict(key="no-cache", name="no.cache.fields",
         text="modern tools/list without ttlMs/cacheScope",
         args=["--scenario", "d-no-cache"],
         expect={"2.1.288": exp("tools-fetch-failed", "missing-cache-fields", "modern"),
                 "2.1.332": exp("tolerated", era="modern")}),
    dict(key="bad-types", name="wrong-types",
         text='wrong field types (ttlMs:"60000", cacheScope:"shared")',
         args=["--scenario", "e-bad-types"],
         expect={v: exp("tools-fetch-failed", "wrong-field-types", "modern") for v in ALL}),
    dict(key="modern", name="modern-ok",
         text="fully compliant 2026-07-28 server",
         args=["--scenario", "b-modern"],
         expect={v: exp("healthy", era="modern", version="2026-07-28") for v in ALL}),
    dict(key="bad-tool", name="bad-tool",
         text="modern server with a bad tool definition (not a negotiation problem)",
         args=["--scenario", "f-bad-schema-modern"],
         expect={v: exp("tools-fetch-failed", "invalid-tool-definition", "modern") for v in ALL}),
    dict(key="old-proto", name="old-protocol",
         text="classic handshake answered with unproposed version 1999-01-01",
         args=["--scenario", "h-old-protocol"],
         expect={v: exp("version-unsupported") for v in ALL}),
    dict(key="missing-exe", name="missing-cmd",
         text="missing executable",
         cfg={"type": "stdio", "command": "mcp-server-not-installed", "args": ["--stdio"]},
         expect={v: exp("connection-failed", "command-not-found") for v in ALL}),
    dict(key="exits", name="exits-early",
         text="server exiting at start",
         args=["--scenario", "j-exit"],
         expect={v: exp("connection-failed", "connection-closed") for v in ALL}),
    # Streamable HTTP on loopback answering 401 + WWW-Authenticate (OAuth metadata served,
    # only the browser sign-in is missing); {AUTH_URL} is filled in at run time
    dict(key="needs-auth", name="sso-gateway",
         text="HTTP server that needs authentication (401)",
         cfg={"type": "http", "url": "{AUTH_URL}"},
         expect={v: exp("connection-failed", "needs-auth") for v in ALL}),
]

# Claude Code's verdict -> the mcplogs verdicts that agree with it
MAPPING_DOC = [
    ("connected, tools > 0", "healthy | tolerated"),
    ("connected, 0 tools", "tools-fetch-failed"),
    ("failed", "connection-failed | version-unsupported"),
    ("needs-auth", "connection-failed (needs-auth)"),
]


def agrees(cc, verdict, cause):
    """Does mcplogs' verdict agree with Claude Code's own (status, tool count)?"""
    status, n = cc
    if status == "connected":
        return verdict in ("healthy", "tolerated") if n > 0 else verdict == "tools-fetch-failed"
    if status == "failed":
        return verdict in ("connection-failed", "version-unsupported")
    if status == "needs-auth":
        return verdict == "connection-failed" and cause == "needs-auth"
    return False  # pending, missing: not a final verdict


def fmt_cc(cc):
    status, n = cc
    return f"{status}/{n}" if status else "absent"


def fmt_m(s):
    if s is None:
        return "absent"
    out = s["verdict"]
    if s.get("cause"):
        out += f" ({s['cause']})"
    if s.get("era"):
        out += f" {s['era']}"
    return out


# ---------------------------------------------------------------------------
# processes: everything started here is tracked and ended by process group id
# ---------------------------------------------------------------------------
CHILD_GROUPS = set()


def log(msg):
    print(f"[e2e] {msg}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_service(svc, name, argv_for_port):
    """Start a loopback service on a free port picked now; retry if another process
    took the port between the pick and the bind."""
    for _ in range(5):
        port = free_port()
        svc.start(name, argv_for_port(port), port)
        _, p, _ = svc.procs[-1]
        time.sleep(0.05)
        if p.poll() is None:
            return port
        svc.procs.pop()
    raise SystemExit(f"could not start {name} on a free loopback port")


def run(argv, *, env, cwd, out, err, timeout=180):
    """Run argv in its own process group; kill the group afterwards (MCP servers that
    Claude Code left behind). Returns the exit code (None on timeout)."""
    with open(out, "wb") as o, open(err, "wb") as e:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=o,
                             stderr=e, start_new_session=True)
        CHILD_GROUPS.add(p.pid)
        try:
            rc = p.wait(timeout)
        except subprocess.TimeoutExpired:
            log(f"timeout after {timeout}s: {' '.join(map(str, argv[:3]))}")
            rc = None
        finally:
            kill_group(p.pid)
            if p.poll() is None:
                p.wait()
            CHILD_GROUPS.discard(p.pid)
    return rc


def kill_group(pgid):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        time.sleep(0.2)


def on_signal(signum, _frame):
    raise SystemExit(f"interrupted by signal {signum}")


# ---------------------------------------------------------------------------
# one Claude Code version
# ---------------------------------------------------------------------------
class VersionRun:
    def __init__(self, version, binary, mcplogs, work, api_port, proxy_port, stub, auth_url):
        self.version = version
        self.binary = binary
        self.mcplogs = mcplogs
        self.dir = work / version
        self.home = self.dir / "home"
        self.proj = self.home / "work" / "proj"
        self.raw = self.dir / "raw"
        self.stub = stub
        self.api_port = api_port
        self.proxy_port = proxy_port
        self.auth_url = auth_url
        self.problems = []   # (scenario key or "-", text)
        self.rows = {}       # scenario key -> dict of columns

    # -- environment ---------------------------------------------------------
    def env(self):
        env = generate.claude_env(self.home, NEGOTIATION, self.api_port, self.dir.parent)
        proxy = f"http://127.0.0.1:{self.proxy_port}"
        for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
            env[k] = proxy
        # so that `claude -p` waits for every server and its init statuses are final
        env["MCP_CONNECTION_NONBLOCKING"] = "0"
        return env

    def mcplogs_env(self):
        env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "XDG_CACHE_HOME")}
        env.update(HOME=str(self.home), NO_COLOR="1", **NEGOTIATION)
        return env

    def problem(self, key, text):
        self.problems.append((key, text))
        log(f"{self.version} MISMATCH {key}: {text}")

    # -- setup -----------------------------------------------------------------
    def setup(self):
        self.proj.mkdir(parents=True)
        self.raw.mkdir()
        servers = {}
        for s in SCENARIOS:
            cfg = s.get("cfg") or {"type": "stdio", "command": "python3",
                                   "args": [str(self.stub)] + s["args"]}
            servers[s["name"]] = json.loads(json.dumps(cfg).replace("{AUTH_URL}", self.auth_url))
        (self.home / ".claude.json").write_text(json.dumps(
            {"hasCompletedOnboarding": True, "mcpServers": servers}, indent=2) + "\n")

    # -- Claude Code -------------------------------------------------------------
    def claude_mcp_list(self):
        out = self.raw / "mcp-list.txt"
        rc = run([str(self.binary), "mcp", "list"], env=self.env(), cwd=self.proj, out=out,
                 err=self.raw / "mcp-list.err")
        if rc is None:
            raise SystemExit(f"{self.version}: claude mcp list timed out")
        return out

    def claude_p(self, tag):
        out = self.raw / f"p-{tag}.jsonl"
        dbg = self.raw / f"debug-{tag}.txt"
        rc = run([str(self.binary), "-p", "hi", "--output-format", "stream-json", "--verbose",
                  "--debug-file", str(dbg)], env=self.env(), cwd=self.proj, out=out,
                 err=self.raw / f"p-{tag}.err")
        init = None
        for line in out.read_text(errors="replace").splitlines():
            if '"subtype":"init"' in line:
                init = json.loads(line)
                break
        if init is None:
            raise SystemExit(f"{self.version} run {tag}: no init line from claude -p (exit {rc}); "
                             f"see {out} and {self.raw / f'p-{tag}.err'}")
        statuses = {m["name"]: m["status"] for m in init.get("mcp_servers", [])}
        tools = init.get("tools", [])
        cc = {}
        for s in SCENARIOS:
            prefix = generate.tool_prefix(s["name"])
            cc[s["key"]] = (statuses.get(s["name"]), sum(1 for t in tools if t.startswith(prefix)))
        log(f"{self.version} run {tag}: claude -p exit {rc}; "
            + ", ".join(f"{k}={fmt_cc(v)}" for k, v in cc.items()))
        return cc, dbg

    # -- mcplogs -------------------------------------------------------------------
    def mcplogs_json(self, args, tag):
        out = self.raw / f"mcplogs-{tag}.json"
        err = self.raw / f"mcplogs-{tag}.err"
        rc = run([str(self.mcplogs)] + args, env=self.mcplogs_env(), cwd=self.proj, out=out, err=err)
        if rc not in (0, 1):
            raise SystemExit(f"mcplogs {' '.join(args)} exited {rc}: {err.read_text()}")
        doc = json.loads(out.read_text())
        by_name = {}
        for s in doc["servers"]:
            by_name.setdefault(s["name"], s)
        return {sc["key"]: by_name.get(sc["name"]) for sc in SCENARIOS}

    def scan_home(self, tag):
        return self.mcplogs_json(["scan", "--json", "--home", str(self.home)], f"scan-home-{tag}")

    def scan_debug(self, dbg, tag):
        return self.mcplogs_json(["scan", "--json", str(dbg)], f"scan-debug-{tag}")

    def explain(self, listing):
        return self.mcplogs_json(["explain", str(listing), "--json"], "explain")

    def fix(self, undo):
        # plain `fix --yes` (HOME is the throwaway home) from an empty folder that is not
        # the project: the plan comes from the logs, never from the folder it runs in
        args = ["fix", "--yes"] + (["--undo"] if undo else [])
        tag = "undo" if undo else "fix"
        out, err = self.raw / f"mcplogs-{tag}.out", self.raw / f"mcplogs-{tag}.err"
        elsewhere = self.dir / "elsewhere"
        elsewhere.mkdir(exist_ok=True)
        rc = run([str(self.mcplogs)] + args, env=self.mcplogs_env(), cwd=elsewhere, out=out, err=err)
        return rc, out.read_text() + err.read_text()

    # -- checks ------------------------------------------------------------------
    def compare(self, tag, cc, home_scan, debug_scan):
        """Every server: mcplogs (home scan and debug-file scan) vs Claude Code's init."""
        for s in SCENARIOS:
            k = s["key"]
            for label, res in (("scan --home", home_scan[k]), ("scan <debug-file>", debug_scan[k])):
                if res is None:
                    self.problem(k, f"run {tag}: {label} has no server {s['name']!r}")
                elif not agrees(cc[k], res["verdict"], res["cause"]):
                    self.problem(k, f"run {tag}: Claude Code says {fmt_cc(cc[k])} but mcplogs "
                                    f"{label} says {fmt_m(res)}")

    def check_expected(self, tag, k, label, res, want, explain=False):
        if res is None:
            return  # already reported
        got = {f: res.get(f) for f in ("verdict", "cause", "era")}
        want = dict(want)
        version = want.pop("version")
        if version and not explain and res.get("negotiatedProtocolVersion") != version:
            self.problem(k, f"run {tag}: {label} says negotiatedProtocolVersion "
                            f"{res.get('negotiatedProtocolVersion')!r}, the scenario expects {version!r}")
        if explain:
            # `claude mcp list` shows no era; a tolerance ("Connected") explain reads from
            # the server's log, which refines what the listing shows (issue 51)
            want = dict(want, era=None)
            got["era"] = None
        if got != want:
            self.problem(k, f"run {tag}: {label} says {fmt_m(got)}, the scenario expects {fmt_m(want)}")

    def go(self):
        self.setup()
        v = self.version

        # 0. claude mcp list -> mcplogs explain
        listing = self.claude_mcp_list()
        expl = self.explain(listing)

        # 1. first run: the failures
        cc1, dbg1 = self.claude_p("1")
        home1, debug1 = self.scan_home("1"), self.scan_debug(dbg1, "1")
        self.compare("1", cc1, home1, debug1)
        for s in SCENARIOS:
            k, want = s["key"], s["expect"][v]
            self.check_expected("1", k, "scan --home", home1[k], want)
            self.check_expected("1", k, "scan <debug-file>", debug1[k], want)
            if expl[k] is None:
                self.problem(k, f"explain on `claude mcp list` has no server {s['name']!r}")
            else:
                self.check_expected("0", k, "explain <mcp list>", expl[k], want, explain=True)
                # what `claude mcp list` printed is Claude Code's verdict too
                status = expl[k].get("status") or ""
                if "Failed to connect" in status:
                    cc_list = ("failed", 0)
                elif "Needs authentication" in status:
                    cc_list = ("needs-auth", 0)
                elif "tools fetch failed" in status:
                    cc_list = ("connected", 0)
                elif "Connected" in status:
                    cc_list = ("connected", 1)
                else:
                    cc_list = (None, 0)
                if not agrees(cc_list, expl[k]["verdict"], expl[k]["cause"]):
                    self.problem(k, f"`claude mcp list` says {status!r} but explain says {fmt_m(expl[k])}")
            if fmt_cc(cc1[k]).split("/")[0] == "pending":
                self.problem(k, "run 1: Claude Code's init still says pending")

        flagged = [s for s in SCENARIOS if home1[s["key"]] and home1[s["key"]].get("legacyFixApplies")]
        for s in SCENARIOS:
            k = s["key"]
            self.rows[k] = {
                "cc": fmt_cc(cc1[k]),
                "mcplogs": fmt_m(home1[k]),
                "debug": "same" if fmt_m(debug1[k]) == fmt_m(home1[k]) else fmt_m(debug1[k]),
                "explain": fmt_m(expl[k]),
                "agree": "",
                "fix": "-",
            }
            flags = {"scan --home": home1[k], "scan <debug-file>": debug1[k], "explain": expl[k]}
            vals = {lbl: bool(r and r.get("legacyFixApplies")) for lbl, r in flags.items()}
            if len(set(vals.values())) > 1:
                self.problem(k, f"legacyFixApplies differs between sources: {vals}")

        # 2. the fix, with MCP_PROTOCOL_NEGOTIATION=auto still in the environment
        log(f"{v}: mcplogs flags the legacy fix for: {[s['name'] for s in flagged] or 'nobody'}")
        rc, text = self.fix(undo=False)
        (self.raw / "fix.txt").write_text(text)
        if not flagged:
            if rc != 2:
                self.problem("-", f"mcplogs flags no server, yet `fix --yes --home` exited {rc}")
            # still learn from Claude Code whether legacy would have helped anyone
            rc, text = run_fix_forced(self)
        if rc != 0:
            raise SystemExit(f"{v}: mcplogs fix failed (exit {rc}):\n{text}")
        settings = self.home / ".claude" / "settings.json"
        neg = json.loads(settings.read_text()).get("env", {}).get("MCP_PROTOCOL_NEGOTIATION")
        if neg != "legacy":
            raise SystemExit(f"{v}: after mcplogs fix, {settings} sets {neg!r}, not legacy")
        cc2, dbg2 = self.claude_p("2-fixed")
        home2, debug2 = self.scan_home("2"), self.scan_debug(dbg2, "2")
        self.compare("2-fixed", cc2, home2, debug2)

        # 3. undo, and the failure must be back
        rc, text = self.fix(undo=True)
        (self.raw / "undo.txt").write_text(text)
        if rc != 0:
            raise SystemExit(f"{v}: mcplogs fix --undo failed (exit {rc}):\n{text}")
        if settings.exists() and json.loads(settings.read_text()).get("env", {}).get(
                "MCP_PROTOCOL_NEGOTIATION") == "legacy":
            raise SystemExit(f"{v}: after mcplogs fix --undo, {settings} still sets legacy")
        cc3, dbg3 = self.claude_p("3-undone")
        home3, debug3 = self.scan_home("3"), self.scan_debug(dbg3, "3")
        self.compare("3-undone", cc3, home3, debug3)

        # 4. a project override: the fix must go where it wins
        self.project_override(flagged, cc1)

        # the fix, judged by Claude Code: no tools before, tools with legacy
        for s in SCENARIOS:
            k = s["key"]
            before, after, again = cc1[k], cc2[k], cc3[k]
            cured = not (before[0] == "connected" and before[1] > 0) and \
                after[0] == "connected" and after[1] > 0
            claims = bool(home1[k] and home1[k].get("legacyFixApplies"))
            row = self.rows[k]
            if claims:
                parts = [f"legacy: {fmt_cc(after)} {fmt_m(home2[k])}",
                         f"undo: {fmt_cc(again)} {fmt_m(home3[k])}"]
                row["fix"] = "; ".join(parts)
                for label, res in (("scan --home", home2[k]), ("scan <debug-file>", debug2[k])):
                    if not res or res["verdict"] != "healthy" or res["era"] != "legacy":
                        self.problem(k, f"after the fix {label} says {fmt_m(res)}, "
                                        f"expected healthy legacy")
                if not cured:
                    self.problem(k, f"mcplogs says the legacy fix applies, but Claude Code went "
                                    f"{fmt_cc(before)} -> {fmt_cc(after)} with it")
                if again != before:
                    self.problem(k, f"after the undo Claude Code says {fmt_cc(again)}, "
                                    f"not {fmt_cc(before)} as before the fix")
                want = {f: home1[k].get(f) for f in ("verdict", "cause", "era")}
                for label, res in (("scan --home", home3[k]), ("scan <debug-file>", debug3[k])):
                    got = {f: (res or {}).get(f) for f in ("verdict", "cause", "era")}
                    if got != want:
                        self.problem(k, f"after the undo {label} says {fmt_m(got)}, "
                                        f"not {fmt_m(want)} as before the fix")
            elif cured:
                row["fix"] = f"NOT OFFERED, yet legacy gave {fmt_cc(after)}"
                self.problem(k, f"Claude Code got its tools back with legacy "
                                f"({fmt_cc(before)} -> {fmt_cc(after)}) but mcplogs says "
                                f"legacyFixApplies=false ({fmt_m(home1[k])})")
            elif not agrees(before, "healthy", None):
                row["fix"] = f"not offered (legacy: {fmt_cc(after)})"
        bad = {k for k, _ in self.problems}
        for k, row in self.rows.items():
            row["agree"] = "MISMATCH" if k in bad else "ok"


def project_override(self, flagged, cc1):
    v = self.version
    shared = self.proj / ".claude" / "settings.json"
    local = self.proj / ".claude" / "settings.local.json"
    user = self.home / ".claude" / "settings.json"
    shared.parent.mkdir(parents=True, exist_ok=True)
    shared_text = json.dumps({"env": {"MCP_PROTOCOL_NEGOTIATION": "auto"}}, indent=2) + "\n"
    shared.write_text(shared_text)
    user.parent.mkdir(parents=True, exist_ok=True)
    user_text = json.dumps({"env": {"MCP_PROTOCOL_NEGOTIATION": "legacy"}}, indent=2) + "\n"
    user.write_text(user_text)
    before = self.scan_home("4-before")
    for s in flagged:
        res = before[s["key"]]
        rec = (res or {}).get("recommendation") or ""
        if not (res and res.get("legacyFixApplies") and "settings.local.json" in rec):
            self.problem(s["key"], f"run 4: with the project saying auto, scan should point the fix "
                                   f"at settings.local.json: {rec!r}")
    args = ["fix", "--yes", "--home", str(self.home)] + ([] if flagged else ["--force"])
    out, err = self.raw / "mcplogs-fix-project.out", self.raw / "mcplogs-fix-project.err"
    rc = run([str(self.mcplogs)] + args, env=self.mcplogs_env(), cwd=self.proj, out=out, err=err)
    text = out.read_text() + err.read_text()
    (self.raw / "fix-project.txt").write_text(text)
    if rc != 0:
        raise SystemExit(f"{v}: mcplogs fix in the project failed (exit {rc}):\n{text}")
    if not local.exists() or json.loads(local.read_text())["env"]["MCP_PROTOCOL_NEGOTIATION"] != "legacy":
        raise SystemExit(f"{v}: mcplogs fix in the project did not write legacy into {local}:\n{text}")
    if shared.read_text() != shared_text or user.read_text() != user_text:
        raise SystemExit(f"{v}: mcplogs fix in the project changed {shared} or {user}")
    if "settings.local.json" not in text or "outranks" not in text:
        self.problem("-", f"run 4: fix did not name the file and why: {text!r}")
    cc4, _ = self.claude_p("4-project")
    for s in flagged:
        k = s["key"]
        if not (cc4[k][0] == "connected" and cc4[k][1] > 0):
            self.problem(k, f"run 4: with the fix in settings.local.json Claude Code says {fmt_cc(cc4[k])}")
    after = self.scan_home("4-after")
    for s in flagged:
        res = after[s["key"]]
        if not res or res.get("verdict") != "healthy":
            self.problem(s["key"], f"run 4: after the project fix scan says {fmt_m(res)}")
    log(f"{v} run 4: project override fixed via {local.name}: "
        + ", ".join(f"{s['key']}={fmt_cc(cc4[s['key']])}" for s in flagged))
    for f in (shared, local, user):
        f.unlink(missing_ok=True)


VersionRun.project_override = project_override


def run_fix_forced(vr):
    out, err = vr.raw / "mcplogs-fix-force.out", vr.raw / "mcplogs-fix-force.err"
    rc = run([str(vr.mcplogs), "fix", "--yes", "--force"], env=vr.mcplogs_env(), cwd=vr.proj,
             out=out, err=err)
    return rc, out.read_text() + err.read_text()


def print_table(runs):
    head = ["version", "scenario", "server", "Claude Code", "mcplogs scan --home", "scan <debug-file>",
            "explain <mcp list>", "legacy fix: Claude Code / mcplogs", "check"]
    rows = []
    for vr in runs:
        for s in SCENARIOS:
            r = vr.rows.get(s["key"])
            if r is None:
                continue
            rows.append([vr.version, s["text"], s["name"], r["cc"], r["mcplogs"], r["debug"],
                         r["explain"], r["fix"], r["agree"]])
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]

    def line(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--mcplogs", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--versions", default=",".join(DEFAULT_VERSIONS), type=versions_arg)
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    t0 = time.time()
    versions = [v for v in a.versions.split(",") if v]
    work = Path(a.work)
    (work / "bin").mkdir(parents=True)
    (work / "logs").mkdir()
    # "install" the repo's stub server: the config points at this copy, and python3 on
    # Claude Code's PATH is this interpreter
    stub = work / "bin" / "stub_mcp_server.py"
    shutil.copy2(SAMPLES / "stub_mcp_server.py", stub)
    os.symlink(sys.executable, work / "bin" / "python3")
    binaries = {v: Path(a.cache) / f"claude-{v}" / "node_modules" / PKG / "claude" for v in versions}
    for v, b in binaries.items():
        if not os.access(b, os.X_OK):
            raise SystemExit(f"missing {b}: tests/e2e/claude.sh installs it")
        for s in SCENARIOS:
            if v not in s["expect"]:
                raise SystemExit(f"scenario {s['key']} has no expectation for Claude Code {v}")

    svc = generate.Services(work)
    runs = []
    try:
        py = sys.executable
        api = start_service(svc, "fake_api", lambda p: [py, str(SAMPLES / "fake_api.py"), str(p)])
        proxy = start_service(svc, "deny_proxy", lambda p: [py, str(SAMPLES / "deny_proxy.py"), str(p)])
        auth = start_service(svc, "http_auth", lambda p: [py, str(stub), "--http", str(p), "--http-auth"])
        auth_url = f"http://127.0.0.1:{auth}/mcp"
        log(f"fake API on 127.0.0.1:{api}, 403 proxy on 127.0.0.1:{proxy}, "
            f"401 MCP server on {auth_url}, work in {work}")
        for v in versions:
            vr = VersionRun(v, binaries[v], Path(a.mcplogs), work, api, proxy, stub, auth_url)
            runs.append(vr)
            t = time.time()
            vr.go()
            log(f"{v}: done in {time.time() - t:.0f}s")
    finally:
        for pg in list(CHILD_GROUPS):
            kill_group(pg)
        svc.stop()

    proxied = [ln for ln in (work / "logs" / "deny_proxy.log").read_text().splitlines() if '" 403 ' in ln]
    sys.stderr.flush()
    print()
    print("MCP_PROTOCOL_NEGOTIATION=auto in the environment of every run. Claude Code: its init")
    print("line before the fix, status/number of mcp__<server>__ tools. mcplogs: verdict (cause)")
    print("era; `same` = as scan --home. explain sees no era and no tolerance in `claude mcp list`.")
    print()
    print_table(runs)
    print()
    problems = [(vr.version, k, t) for vr in runs for k, t in vr.problems]
    if proxied:
        problems.append(("-", "-", f"{len(proxied)} request(s) reached the 403 proxy (something tried the network)"))
    print(f"requests that reached the 403 proxy: {len(proxied)}")
    print(f"wall time of the Claude Code runs: {time.time() - t0:.0f}s")
    if problems:
        print(f"\nFAILED: {len(problems)} mismatch(es):")
        for v, k, t in problems:
            print(f"  {v} {k}: {t}")
        sys.exit(1)
    print("\nPASSED: every verdict agrees with Claude Code's, and the fix brings the tools back.", flush=True)


if __name__ == "__main__":
    main()
