#!/usr/bin/env python3
"""End-to-end: each cause `mcplogs fix` fixes beyond the legacy setting, on real builds.

Called by tests/e2e/claude.sh. Python 3.11 stdlib only; reuses run.py's process handling
and the sample generator's environment, fake API and 403 proxy.

Per Claude Code build and per cause, one throwaway HOME and one project:

  path      a user server whose command (`farstub`) is on the user's PATH (the one mcplogs
            runs with) but not on the PATH Claude Code gets: fails (`command-not-found`);
            the fix writes the command's absolute path into its ~/.claude.json entry
  path-local  the same server in ~/.claude.json projects[dir].mcpServers (local scope)
  path-mcpjson  the same server in the project's .mcp.json (approved in settings.local.json)
  timeout   ~/.claude/settings.json sets env.MCP_TIMEOUT to 3000 and the server answers
            every request after 4 s: fails (`timeout`); the fix writes a longer MCP_TIMEOUT
  timeout-project  the project's shared .claude/settings.json sets it to 3000 instead: the fix
            writes the project's .claude/settings.local.json; from 2.1.328 on the shorter
            project value is ignored, so the server must connect with nothing fixed
  disabled  a .mcp.json server listed in the project's disabledMcpjsonServers (as the
            approval dialog's Esc writes it): absent from the init line; plain
            `mcplogs fix --yes` moves it to enabledMcpjsonServers
  disabled-user  the same server listed in the user file's disabledMcpjsonServers (put
            there by hand: the dialog never writes it): `mcplogs fix p-off --yes` takes it
            out of that list and approves it in the project's .claude/settings.local.json
            only (never in the user file, which would approve it in every project)
  modern-only  ~/.claude/settings.json sets env.MCP_PROTOCOL_NEGOTIATION to legacy and a
            stdio server speaks only 2026-07-28 (modern_only_stub.py: it answers initialize
            with 2026-07-28): fails (`modern-only`); the fix writes `auto` into the project's
            .claude/settings.local.json, the user file untouched
  modern-only-refused  the same server refusing the proposed version (-32602)

The loop of each: `claude -p` (fails) -> plain `mcplogs fix --yes` (no server named, no
--home: HOME is the throwaway home) from a fresh empty folder that is not the project ->
`mcplogs scan` says the fix is in place (for `disabled`: the server is no longer disabled)
-> `claude -p` (connected with its tools) -> `mcplogs fix --undo --yes` from that folder
-> every file the fix wrote is back
byte for byte (for ~/.claude.json, which Claude Code rewrites as it runs: the keys the fix
set are back, and nothing else was touched by the undo) -> `claude -p` fails again.

`--by-hand` makes the change with a few lines of Python instead of mcplogs (how each fix
was first observed): no mcplogs run at all.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run as e2e  # noqa: E402

generate = e2e.generate
SAMPLES = e2e.SAMPLES
CASES = ["path", "path-local", "path-mcpjson", "timeout", "timeout-project", "disabled",
         "disabled-user", "modern-only", "modern-only-refused"]


def log(msg):
    print(f"[e2e-fixes] {msg}", file=sys.stderr, flush=True)


class Case:
    def __init__(self, name, version, binary, mcplogs, work, api, proxy, by_hand):
        self.name = name
        self.version = version
        self.binary = binary
        self.mcplogs_bin = mcplogs
        self.by_hand = by_hand
        self.d = work / f"{name}-{version}"
        self.home = self.d / "home"
        self.proj = self.home / "work" / "proj"
        self.elsewhere = self.d / "elsewhere"
        for p in (self.proj / ".claude", self.home / ".claude", self.d / "bin", self.d / "tools",
                  self.d / "raw", self.elsewhere):
            p.mkdir(parents=True, exist_ok=True)
        self.stub = self.d / "bin" / "stub_mcp_server.py"
        shutil.copy2(SAMPLES / "stub_mcp_server.py", self.stub)
        os.symlink(sys.executable, self.d / "bin" / "python3")
        self.managed = self.d / "managed"
        self.managed.mkdir()
        self.env = generate.claude_env(self.home, {}, api, self.d)
        for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
            self.env[k] = f"http://127.0.0.1:{proxy}"
        self.env["MCP_CONNECTION_NONBLOCKING"] = "false"
        self.env["MCP_CONNECT_TIMEOUT_MS"] = "60000"
        self.problems = []
        self.server = {"path": "far", "path-local": "far", "path-mcpjson": "far", "timeout": "slow",
                       "timeout-project": "slow", "disabled": "p-off", "disabled-user": "p-off", "modern-only": "newonly",
                       "modern-only-refused": "newonly"}[name]

    def problem(self, text):
        self.problems.append(f"{self.version} {self.name}: {text}")
        log(f"{self.version} {self.name} FAIL: {text}")

    def srv(self, *extra):
        return {"type": "stdio", "command": "python3",
                "args": [str(self.stub), "--scenario", "b-modern", "--name", self.server, *extra]}

    def claude_json(self, servers=None, project=None):
        doc = {"hasCompletedOnboarding": True, "mcpServers": servers or {},
               "projects": {str(self.proj): {"hasTrustDialogAccepted": True, "allowedTools": [],
                                             **(project or {})}}}
        (self.home / ".claude.json").write_text(json.dumps(doc, indent=2) + "\n")

    def setup(self):
        if self.name.startswith("path"):
            tool = self.d / "tools" / "farstub"
            tool.write_text(f"#!/bin/sh\nexec {sys.executable} {self.stub} --scenario b-modern --name far \"$@\"\n")
            tool.chmod(0o755)
            entry = {"far": {"type": "stdio", "command": "farstub", "args": []}}
            if self.name == "path":  # user scope
                self.claude_json(entry)
            elif self.name == "path-local":  # local scope: projects[dir].mcpServers
                self.claude_json(project={"mcpServers": entry})
            else:  # project scope, approved in the local settings
                self.claude_json()
                (self.proj / ".mcp.json").write_text(json.dumps({"mcpServers": entry}, indent=2) + "\n")
                (self.proj / ".claude" / "settings.local.json").write_text(
                    json.dumps({"enabledMcpjsonServers": ["far"]}, indent=2) + "\n")
        elif self.name == "timeout":
            self.claude_json({"slow": self.srv("--delay-ms", "4000")})
            (self.home / ".claude" / "settings.json").write_text(
                json.dumps({"env": {"MCP_TIMEOUT": "3000"}}, indent=2) + "\n")
        elif self.name == "timeout-project":
            # the project's shared settings shorten it: from 2.1.328 on that is ignored
            self.claude_json({"slow": self.srv("--delay-ms", "4000")})
            (self.proj / ".claude" / "settings.json").write_text(
                json.dumps({"env": {"MCP_TIMEOUT": "3000"}}, indent=2) + "\n")
        elif self.name.startswith("disabled"):
            # a healthy server of the project wrote logs there: how mcplogs knows the
            # project from another folder
            on = self.srv()
            on["args"][-1] = "u-on"
            self.claude_json({"u-on": on})
            (self.proj / ".mcp.json").write_text(json.dumps({"mcpServers": {"p-off": self.srv()}}, indent=2) + "\n")
            listed = (self.home / ".claude" / "settings.json" if self.name == "disabled-user"
                      else self.proj / ".claude" / "settings.local.json")
            listed.write_text(json.dumps({"disabledMcpjsonServers": ["p-off"]}, indent=2) + "\n")

        elif self.name.startswith("modern-only"):
            mode = "refuse" if self.name.endswith("refused") else "answer"
            self.claude_json({"newonly": {"type": "stdio", "command": "python3",
                                          "args": [str(HERE / "modern_only_stub.py"), mode]}})
            (self.home / ".claude" / "settings.json").write_text(
                json.dumps({"env": {"MCP_PROTOCOL_NEGOTIATION": "legacy"}}, indent=2) + "\n")

    def files(self):
        """Every file a fix of this case may write, with its bytes now (None: absent)."""
        paths = [self.home / ".claude.json", self.home / ".claude" / "settings.json",
                 self.proj / ".mcp.json", self.proj / ".claude" / "settings.json",
                 self.proj / ".claude" / "settings.local.json"]
        return {p: (p.read_bytes() if p.exists() else None) for p in paths}

    def by_hand_fix(self):
        if self.name.startswith("path"):
            p = self.proj / ".mcp.json" if self.name == "path-mcpjson" else self.home / ".claude.json"
            doc = json.loads(p.read_text())
            servers = doc["projects"][str(self.proj)]["mcpServers"] if self.name == "path-local" else doc["mcpServers"]
            servers["far"]["command"] = str(self.d / "tools" / "farstub")
            p.write_text(json.dumps(doc, indent=2) + "\n")
        elif self.name == "timeout":
            p = self.home / ".claude" / "settings.json"
            p.write_text(json.dumps({"env": {"MCP_TIMEOUT": "60000"}}, indent=2) + "\n")
        elif self.name == "timeout-project":
            p = self.proj / ".claude" / "settings.local.json"
            p.write_text(json.dumps({"env": {"MCP_TIMEOUT": "60000"}}, indent=2) + "\n")
        elif self.name == "disabled":
            p = self.proj / ".claude" / "settings.local.json"
            p.write_text(json.dumps({"disabledMcpjsonServers": [], "enabledMcpjsonServers": ["p-off"]},
                                    indent=2) + "\n")
        elif self.name == "disabled-user":
            (self.home / ".claude" / "settings.json").write_text(
                json.dumps({"disabledMcpjsonServers": []}, indent=2) + "\n")
            (self.proj / ".claude" / "settings.local.json").write_text(
                json.dumps({"enabledMcpjsonServers": ["p-off"]}, indent=2) + "\n")
        elif self.name.startswith("modern-only"):
            p = self.proj / ".claude" / "settings.local.json"
            p.write_text(json.dumps({"env": {"MCP_PROTOCOL_NEGOTIATION": "auto"}}, indent=2) + "\n")

    def claude_p(self, tag):
        out = self.d / "raw" / f"p-{tag}.jsonl"
        rc = e2e.run([str(self.binary), "-p", "hi", "--output-format", "stream-json", "--verbose",
                      "--debug-file", str(self.d / "raw" / f"debug-{tag}.txt")],
                     env=self.env, cwd=self.proj, out=out, err=self.d / "raw" / f"p-{tag}.err")
        for ln in out.read_text(errors="replace").splitlines():
            try:
                obj = json.loads(ln)
            except ValueError:
                continue
            if obj.get("subtype") == "init":
                status = {s["name"]: s["status"] for s in obj.get("mcp_servers", [])}.get(self.server, "absent")
                prefix = generate.tool_prefix(self.server)
                tools = sum(1 for t in obj.get("tools", []) if t.startswith(prefix))
                log(f"{self.version} {self.name} {tag}: {self.server} {status}, {tools} tools")
                return status, tools
        self.problem(f"claude -p ({tag}) printed no init line (exit {rc})")
        return None, 0

    def mcplogs_env(self):
        env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "XDG_CACHE_HOME")}
        # the user's PATH holds the folder Claude Code's does not
        env.update(HOME=str(self.home), NO_COLOR="1",
                   PATH=f"{self.d / 'tools'}:{self.d / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}")
        return env

    def mcplogs(self, args, tag):
        out, err = self.d / "raw" / f"mcplogs-{tag}.out", self.d / "raw" / f"mcplogs-{tag}.err"
        rc = e2e.run([str(self.mcplogs_bin)] + args + ["--managed-dir", str(self.managed)],
                     env=self.mcplogs_env(), cwd=self.elsewhere, out=out, err=err, timeout=120)
        return rc, out.read_text(errors="replace") + err.read_text(errors="replace")

    def go(self):
        self.setup()
        st, n = self.claude_p("before")
        # the files as the fix finds them (Claude Code has run once)
        before = self.files()
        if self.name == "timeout-project" and tuple(map(int, self.version.split("."))) >= (2, 1, 328):
            # a project's settings can only lengthen MCP_TIMEOUT: its 3000 is ignored
            if st != "connected" or n == 0:
                self.problem(f"the project's shorter MCP_TIMEOUT was not ignored: {st}/{n}")
            return self.row(st, n, "not failing (project value ignored)", "-", "-")
        if st == "connected" and n > 0:
            self.problem(f"{self.server} connected with {n} tools before any fix")
            return self.row(st, n, "-", "-", "-")
        if self.by_hand:
            self.by_hand_fix()
        else:
            named = [self.server] if self.name == "disabled-user" else []
            rc, text = self.mcplogs(["fix", *named, "--yes"], "fix")
            if rc != 0:
                self.problem(f"mcplogs fix exited {rc}: {text.strip()[:600]}")
                return self.row(st, n, "fix failed", "-", "-")
        if not self.by_hand and self.name == "disabled-user":
            user = json.loads((self.home / ".claude" / "settings.json").read_text())
            if "p-off" in user.get("enabledMcpjsonServers", []) + user.get("disabledMcpjsonServers", []):
                self.problem(f"the fix left p-off in the user file: {user}")
        if not self.by_hand and self.name.startswith("disabled"):
            # it never ran, so no log: its row is no longer disabled, nothing to fix
            rc, text = self.mcplogs(["scan", "--json"], "scan-after")
            try:
                rows = {r["name"]: r for r in json.loads(text[:text.rindex("}") + 1])["configured"]}
            except (ValueError, KeyError):
                rows = {}
            row = rows.get(self.server, {})
            if row.get("state") == "disabled" or row.get("fix"):
                self.problem(f"scan after the fix: {self.server} is {row}")
        elif not self.by_hand:
            # before Claude Code runs again: the newest log still fails
            rc, text = self.mcplogs(["scan"], "scan-after")
            if "already fixed (restart Claude Code to check)" not in text:
                self.problem(f"scan after the fix does not say `already fixed`: {text.strip()[:400]}")
        st2, n2 = self.claude_p("fixed")
        if st2 != "connected" or n2 == 0:
            self.problem(f"after the fix {self.server} is {st2} with {n2} tools")
        if self.by_hand:
            return self.row(st, n, f"{st2}/{n2}", "-", "-")
        mid = self.files()
        rc, text = self.mcplogs(["fix", "--undo", "--yes"], "undo")
        if rc != 0:
            self.problem(f"mcplogs fix --undo exited {rc}: {text.strip()[:600]}")
        after = self.files()
        restored = "byte for byte"
        for p, b in before.items():
            if after[p] == b:
                continue
            if p.name == ".claude.json" and self.name not in ("path", "path-local") and mid[p] == after[p]:
                continue  # Claude Code's own rewrite; the fix did not write it
            if p.name == ".claude.json" and self.name in ("path", "path-local") and mid[p] != b and after[p] is not None:
                # Claude Code rewrote it while it ran: the undo must give back exactly
                # the key the fix set, every other byte as Claude Code left it
                fixed = json.dumps(str(self.d / "tools" / "farstub"))
                if mid[p].decode().replace(fixed, '"farstub"') != after[p].decode():
                    self.problem(f"{p}: the undo changed more than the key the fix set")
                    restored = "NO"
                else:
                    restored = "the key (Claude Code rewrote ~/.claude.json since); every other byte kept"
                continue
            self.problem(f"{p}: not restored byte for byte after the undo")
            restored = "NO"
        leftovers = [q.name for q in list(self.home.rglob("*mcplogs*")) + list(self.proj.rglob("*mcplogs*"))
                     if q.is_file()]
        if leftovers:
            self.problem(f"the undo left files behind: {leftovers}")
        st3, n3 = self.claude_p("undone")
        if st3 == "connected" and n3 > 0:
            self.problem(f"after the undo {self.server} connected with {n3} tools again")
        return self.row(st, n, f"{st2}/{n2}", restored, f"{st3}/{n3}")

    def row(self, st, n, fixed, restored, undone):
        return (self.version, self.name, f"{st}/{n}", fixed, restored, undone,
                "ok" if not self.problems else "MISMATCH")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--mcplogs", default="")
    ap.add_argument("--work", required=True)
    ap.add_argument("--versions", default=",".join(e2e.DEFAULT_VERSIONS), type=e2e.versions_arg)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--by-hand", action="store_true")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, e2e.on_signal)
    work = Path(a.work)
    (work / "logs").mkdir(parents=True, exist_ok=True)
    svc = generate.Services(work)
    py = sys.executable
    problems, rows = [], []
    t0 = time.time()
    try:
        api = e2e.start_service(svc, "fixes_api", lambda p: [py, str(SAMPLES / "fake_api.py"), str(p)])
        proxy = e2e.start_service(svc, "fixes_proxy", lambda p: [py, str(SAMPLES / "deny_proxy.py"), str(p)])
        for v in [x for x in a.versions.split(",") if x]:
            binary = Path(a.cache) / f"claude-{v}" / "node_modules" / e2e.PKG / "claude"
            for c in [x for x in a.cases.split(",") if x]:
                case = Case(c, v, binary, a.mcplogs, work, api, proxy, a.by_hand)
                rows.append(case.go())
                problems += case.problems
    finally:
        for pg in list(e2e.CHILD_GROUPS):
            e2e.kill_group(pg)
        svc.stop()
    print("\nmcplogs fix, cause by cause (status/tools of the server in claude -p's init line):")
    print("| version | cause | before | after the fix | undo restored | after the undo | check |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"wall time: {time.time() - t0:.0f}s")
    if problems:
        print(f"\nFAILED: {len(problems)} mismatch(es):")
        for p in problems:
            print(f"  {p}")
        sys.exit(1)
    print("\nfixes: every cause fails, is fixed, and comes back after the undo")


if __name__ == "__main__":
    main()
