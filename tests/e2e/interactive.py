#!/usr/bin/env python3
"""End-to-end test of `mcplogs statusline`, `mcplogs hook` and `mcplogs setup` against real,
interactive Claude Code in a pseudo-terminal (tmux), fully offline.

Called by tests/e2e/claude.sh after run.py. Python 3.11 stdlib only; reuses run.py's
process handling and the sample generator's environment, fake API and 403 proxy.

Per Claude Code version, one throwaway HOME whose ~/.claude/settings.json already holds a
status line of the user's own (it saves its stdin and prints OWN-LINE) and a SessionStart
hook of the user's own (it notes whether any MCP log exists yet). Then:

  A. `mcplogs setup statusline --wrap --yes` and `mcplogs setup hook --yes`; servers `good`
     (healthy) and `broken` (tools/list with wrong field types: connected, 0 tools on both
     builds). Claude Code in tmux, one prompt. Checked: the screen's status line shows
     OWN-LINE and `broken`; the fake Messages API received the hook's text; the status
     line's session_id is the logs' sessionId; SessionStart ran before any MCP log existed.
  B. (2.1.332) only `good` configured, same settings: the API receives no hook text, the
     status line says `MCP ✓`.
  C. (2.1.332) `mcplogs setup statusline --undo --yes`, `mcplogs setup hook --undo --yes`:
     the settings file is byte for byte the user's again; with `broken` back, the screen
     shows OWN-LINE but no MCP part, and the API receives no hook text.
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
import run as e2e  # noqa: E402  (process groups, services, the sample generator)

generate = e2e.generate
SAMPLES = e2e.SAMPLES
HOOK_TEXT = "mcplogs: the MCP server"
WAIT = 40  # seconds, for each thing awaited (a shared machine is slow)


def log(msg):
    print(f"[e2e-tty] {msg}", file=sys.stderr, flush=True)


class Tty:
    """One interactive Claude Code in a tmux server of its own (a socket per run)."""

    def __init__(self, sock, argv, env, cwd, cols=120, rows=40):
        self.sock = sock
        envs = " ".join(f"{k}={subprocess.list2cmdline([v])}" for k, v in env.items())
        cmd = f"env -i {envs} {subprocess.list2cmdline([str(a) for a in argv])}"
        subprocess.run(["tmux", "-L", sock, "new-session", "-d", "-s", "cc", "-x", str(cols),
                        "-y", str(rows), "-c", str(cwd), cmd], check=True)
        pid = subprocess.run(["tmux", "-L", sock, "display-message", "-p", "-t", "cc", "#{pane_pid}"],
                             capture_output=True, text=True).stdout.strip()
        # the pane's process leads its own process group: Claude Code and its MCP servers
        self.pgid = int(pid) if pid.isdigit() else None

    def screen(self):
        return subprocess.run(["tmux", "-L", self.sock, "capture-pane", "-p", "-t", "cc"],
                              capture_output=True, text=True).stdout

    def type(self, text):
        subprocess.run(["tmux", "-L", self.sock, "send-keys", "-t", "cc", text, "Enter"])

    def close(self):
        if self.pgid:
            e2e.kill_group(self.pgid)
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], stderr=subprocess.DEVNULL)


def wait_for(what, check, timeout=WAIT):
    end = time.time() + timeout
    while time.time() < end:
        got = check()
        if got:
            return got
        time.sleep(0.5)
    return None


class Version:
    def __init__(self, version, binary, mcplogs, work, api, proxy, stub, api_log):
        self.version = version
        self.binary = binary
        self.mcplogs = mcplogs
        self.dir = work / f"tty-{version}"
        self.home = self.dir / "home"
        self.proj = self.home / "work" / "proj"
        self.cap = self.dir / "cap"
        self.api, self.proxy, self.stub, self.api_log = api, proxy, stub, api_log
        self.problems = []
        self.facts = []
        self.settings = self.home / ".claude" / "settings.json"
        self.managed = self.dir / "managed"

    def problem(self, text):
        self.problems.append(text)
        log(f"{self.version} FAIL: {text}")

    def fact(self, text):
        self.facts.append(text)
        log(f"{self.version}: {text}")

    def env(self):
        env = generate.claude_env(self.home, e2e.NEGOTIATION, self.api, self.dir.parent)
        for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
            env[k] = f"http://127.0.0.1:{self.proxy}"
        env["TERM"] = "xterm-256color"
        return env

    def setup_home(self):
        self.proj.mkdir(parents=True)
        self.cap.mkdir()
        self.managed.mkdir()
        (self.home / ".claude").mkdir()
        cache = self.home / ".cache" / "claude-cli-nodejs"
        own_line = f"sh -c 'cat > {self.cap}/statusline-input.json; echo OWN-LINE'"
        session_start = (f"sh -c 'cat > {self.cap}/session-start.json; "
                         f"ls {cache} > {self.cap}/session-start-logs.txt 2>&1; true'")
        self.original = json.dumps({
            "statusLine": {"type": "command", "command": own_line},
            "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": session_start}]}]},
        }, indent=2) + "\n"
        self.settings.write_text(self.original)

    def servers(self, broken):
        s = {"good": {"type": "stdio", "command": "python3",
                      "args": [str(self.stub), "--scenario", "b-modern"]}}
        if broken:
            s["broken"] = {"type": "stdio", "command": "python3",
                           "args": [str(self.stub), "--scenario", "e-bad-types"]}
        key = generate.DUMMY_KEY
        (self.home / ".claude.json").write_text(json.dumps({
            "hasCompletedOnboarding": True, "mcpServers": s,
            "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
            "projects": {str(self.proj): {"hasTrustDialogAccepted": True, "allowedTools": []}},
        }, indent=2) + "\n")

    def mcplogs_run(self, *args):
        env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "XDG_CACHE_HOME")}
        env.update(HOME=str(self.home), NO_COLOR="1")
        extra = []
        if args and args[0] == "setup" and "--undo" not in args:
            # The build under test sits in a cargo target folder, which setup refuses to
            # install on its own: name it.
            extra = ["--binary", str(self.mcplogs)]
        p = subprocess.run([str(self.mcplogs), *args, "--managed-dir", str(self.managed), *extra],
                           env=env, cwd=self.proj, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            self.problem(f"mcplogs {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
        return p

    def api_requests(self, since):
        if not self.api_log.exists():
            return []
        with open(self.api_log, "rb") as f:
            f.seek(since)
            return [ln for ln in f.read().decode(errors="replace").splitlines() if ln.strip()]

    def session(self, tag, broken, expect_screen, refuse_screen, expect_hook):
        """One interactive run: start, wait for the servers to decide, one prompt, check."""
        self.servers(broken)
        logs_root = self.home / ".cache" / "claude-cli-nodejs"
        api_from = self.api_log.stat().st_size if self.api_log.exists() else 0
        tty = Tty(f"mcplogs-e2e-{os.getpid()}-{self.version}-{tag}", [self.binary], self.env(), self.proj)
        try:
            def decided():
                files = list(logs_root.glob("*/mcp-logs-*/*.jsonl"))
                text = "".join(f.read_text(errors="replace") for f in files)
                need = 2 if broken else 1
                done = text.count("Connection established") >= need
                return done and (not broken or "Failed to fetch tools" in text)
            if not wait_for("servers", decided):
                self.problem(f"{tag}: the MCP servers did not decide within {WAIT}s")
            time.sleep(1)
            tty.type("hello")
            if not wait_for("api", lambda: self.api_requests(api_from)):
                self.problem(f"{tag}: no request reached the fake Messages API")
            # the status line redraws after the answer and every refreshInterval seconds
            def screen_ok():
                s = tty.screen()
                return s if all(x in s for x in expect_screen) else None
            screen = wait_for("screen", screen_ok) or tty.screen()
            (self.dir / f"screen-{tag}.txt").write_text(screen)
        finally:
            tty.close()
        reqs = self.api_requests(api_from)
        with_hook = [r for r in reqs if HOOK_TEXT in r]
        lines = [ln for ln in screen.splitlines() if ln.strip()]
        status_lines = [ln.strip() for ln in lines if "OWN-LINE" in ln or "MCP" in ln]
        self.fact(f"{tag}: status line on screen: {status_lines!r}")
        for x in expect_screen:
            if x not in screen:
                self.problem(f"{tag}: the screen does not show {x!r} (see {self.dir}/screen-{tag}.txt)")
        for x in refuse_screen:
            if x in screen:
                self.problem(f"{tag}: the screen shows {x!r} (see {self.dir}/screen-{tag}.txt)")
        if expect_hook and not with_hook:
            self.problem(f"{tag}: the Messages API received no hook text ({len(reqs)} request(s))")
        if not expect_hook and with_hook:
            self.problem(f"{tag}: the Messages API received the hook text, expected none")
        if with_hook:
            body = with_hook[0]
            i = body.find(HOOK_TEXT)
            self.fact(f"{tag}: hook text arrived in the request: ...{body[max(0, i - 40):i + 160]}...")
        return screen, reqs

    def session_ids(self):
        """The status line's session_id against the logs' sessionId."""
        try:
            sl = json.loads((self.cap / "statusline-input.json").read_text())
        except (OSError, ValueError) as e:
            self.problem(f"the status line input was not captured: {e}")
            return
        ids = set()
        for f in (self.home / ".cache" / "claude-cli-nodejs").glob("*/mcp-logs-*/*.jsonl"):
            for ln in f.read_text(errors="replace").splitlines():
                try:
                    r = json.loads(ln)
                except ValueError:
                    continue
                if r.get("sessionId"):
                    ids.add(r["sessionId"])
        if sl.get("session_id") in ids:
            self.fact(f"status line session_id {sl['session_id']} is the logs' sessionId")
        else:
            self.problem(f"status line session_id {sl.get('session_id')} not among the logs' {sorted(ids)}")
        self.fact("status line input keys: " + ", ".join(sorted(sl)))
        try:
            ss = json.loads((self.cap / "session-start.json").read_text())
            seen = (self.cap / "session-start-logs.txt").read_text().strip()
            self.fact(f"SessionStart input keys: {', '.join(sorted(ss))}; MCP logs when it ran: "
                      + ("none" if "No such file" in seen or not seen else seen.replace(chr(10), ' ')))
        except OSError as e:
            self.problem(f"the SessionStart hook input was not captured: {e}")

    def go(self, full):
        self.setup_home()
        self.mcplogs_run("setup", "statusline", "--wrap", "--yes")
        self.mcplogs_run("setup", "hook", "--yes")
        installed = self.settings.read_text()
        if "mcplogs statusline" not in installed or "mcplogs hook" not in installed:
            self.problem(f"setup did not install both: {installed}")
        self.session("A-broken", True, ["OWN-LINE", "broken"], [], True)
        self.session_ids()
        if not full:
            return
        shutil.rmtree(self.home / ".cache" / "claude-cli-nodejs", ignore_errors=True)
        self.session("B-all-working", False, ["OWN-LINE", "MCP ✓"], ["broken"], False)
        self.mcplogs_run("setup", "statusline", "--undo", "--yes")
        self.mcplogs_run("setup", "hook", "--undo", "--yes")
        if self.settings.read_text() != self.original:
            self.problem("after both --undo the settings file is not the user's original")
        else:
            self.fact("after both --undo the settings file is byte for byte the user's original")
        self.session("C-after-undo", True, ["OWN-LINE"], ["broken", "MCP "], False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--mcplogs", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--versions", default="2.1.288,2.1.332", type=e2e.versions_arg)
    ap.add_argument("--full", default="2.1.332", type=e2e.versions_arg,
                    help="versions that also run B and C")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, e2e.on_signal)
    signal.signal(signal.SIGHUP, e2e.on_signal)
    if not shutil.which("tmux"):
        raise SystemExit("[e2e-tty] FAIL: tmux is required (not found on PATH)")
    t0 = time.time()
    work = Path(a.work)
    (work / "bin").mkdir(parents=True)
    (work / "logs").mkdir()
    stub = work / "bin" / "stub_mcp_server.py"
    shutil.copy2(SAMPLES / "stub_mcp_server.py", stub)
    os.symlink(sys.executable, work / "bin" / "python3")
    os.symlink(Path(a.mcplogs).resolve(), work / "bin" / "mcplogs")
    api_log = work / "logs" / "api-requests.jsonl"
    os.environ["FAKE_API_LOG"] = str(api_log)
    svc = generate.Services(work)
    runs = []
    try:
        py = sys.executable
        api = e2e.start_service(svc, "fake_api", lambda p: [py, str(SAMPLES / "fake_api.py"), str(p)])
        proxy = e2e.start_service(svc, "deny_proxy", lambda p: [py, str(SAMPLES / "deny_proxy.py"), str(p)])
        for v in [v for v in a.versions.split(",") if v]:
            binary = Path(a.cache) / f"claude-{v}" / "node_modules" / e2e.PKG / "claude"
            if not os.access(binary, os.X_OK):
                raise SystemExit(f"missing {binary}: tests/e2e/claude.sh installs it")
            vr = Version(v, binary, Path(a.mcplogs), work, api, proxy, stub, api_log)
            runs.append(vr)
            t = time.time()
            vr.go(v in a.full.split(","))
            log(f"{v}: done in {time.time() - t:.0f}s")
    finally:
        svc.stop()
    proxied = [ln for ln in (work / "logs" / "deny_proxy.log").read_text().splitlines() if '" 403 ' in ln]
    # Interactive Claude Code (unlike -p) tries these two on its own at start-up (observed
    # 2.1.288 and 2.1.332); the proxy refuses them. Anything else fails the test.
    expected_hosts = ("CONNECT downloads.claude.ai:443", "CONNECT github.com:443")
    refused = [ln for ln in proxied if any(h in ln for h in expected_hosts)]
    proxied = [ln for ln in proxied if ln not in refused]
    print("\nmcplogs statusline / hook / setup in interactive Claude Code (tmux):")
    for vr in runs:
        for f in vr.facts:
            print(f"  {vr.version}: {f}")
    problems = [(vr.version, p) for vr in runs for p in vr.problems]
    if proxied:
        problems.append(("-", f"{len(proxied)} unexpected request(s) reached the 403 proxy: {proxied[:3]}"))
    print(f"requests refused by the 403 proxy: {len(refused)} to Claude Code's own start-up hosts "
          f"(downloads.claude.ai, github.com), {len(proxied)} others")
    print(f"wall time of the interactive runs: {time.time() - t0:.0f}s")
    if problems:
        print(f"\nFAILED: {len(problems)} problem(s):")
        for v, p in problems:
            print(f"  {v}: {p}")
        sys.exit(1)
    print("\nPASSED: the status line names the failing server, the hook reaches the model, undo leaves no trace.",
          flush=True)


if __name__ == "__main__":
    main()
