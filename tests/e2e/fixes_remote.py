#!/usr/bin/env python3
"""End-to-end: the two remote causes `mcplogs fix` fixes with a settings file, on real builds.

    python3 tests/e2e/fixes_remote.py --cache DIR --mcplogs BIN --work DIR [--versions ...]
                                      [--cases ca,ca-trusted,no-proxy,no-proxy-project]

Called by tests/e2e/claude.sh. Python 3.11 stdlib and openssl only; the servers, proxies,
throwaway CA and fake API are tests/e2e/remote.py's (everything on loopback, every port
picked by the system). Per build and per case, one throwaway HOME and one project:

  ca        an HTTPS server whose certificate a throwaway CA signed (tls-untrusted, as
            the remote case `tls-untrusted-ca`); `mcplogs fix --yes --ca-file CA` writes
            NODE_EXTRA_CA_CERTS into ~/.claude/settings.json (which did not exist)
  ca-trusted  the same, without --ca-file: mcplogs' own environment has SSL_CERT_FILE
            naming the CA (a file "the machine already trusts"): fix proposes it after
            the handshake verified the chain
  no-proxy  an HTTP server on 127.0.0.2 behind a proxy answering 407 (proxy-refused, as
            `proxy-407-http`); NO_PROXY of the environment holds the loopback names;
            `mcplogs fix --yes` writes NO_PROXY=<those>,127.0.0.2 into ~/.claude/settings.json
  no-proxy-project  the project's shared .claude/settings.json sets NO_PROXY (the loopback
            names): the user file does not win there (a control run with the merged value in
            ~/.claude/settings.json still fails), so the merged value goes into the project's
            .claude/settings.local.json

The loop of each: `claude -p` (fails) -> `mcplogs fix --yes` from an unrelated folder ->
`mcplogs scan` says already fixed -> `claude -p` (connected with its tools) ->
`mcplogs fix --undo --yes` -> every file back byte for byte, no mcplogs file left, no
folder the fix created left -> `claude -p` fails again.
"""
import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import lifecycle as lc  # noqa: E402
import remote  # noqa: E402
import run as e2e  # noqa: E402

CASES = ["ca", "ca-trusted", "no-proxy", "no-proxy-project"]
VERSIONS = ["2.1.287", "2.1.310", "2.1.336"]
NAME = "corp"


def log(msg):
    print(f"[e2e-fixes-remote] {msg}", file=sys.stderr, flush=True)


class Case:
    def __init__(self, name, version, cache, mcplogs, work):
        self.name, self.version, self.mcplogs_bin, self.work = name, version, mcplogs, work
        self.bin = lc.binary(cache, version)
        self.d = work / f"{name}-{version}"
        self.home = self.d / "home"
        self.elsewhere = self.d / "elsewhere"
        self.managed = self.d / "managed"
        for p in (self.elsewhere, self.managed):
            p.mkdir(parents=True)
        self.problems = []
        self.stubs = remote.Stubs(work)
        self.n = 0

    def problem(self, text):
        self.problems.append(f"{self.version} {self.name}: {text}")
        log(f"{self.version} {self.name} FAIL: {text}")

    def setup(self):
        if self.name.startswith("ca"):
            cfg = remote.server_config(self.stubs, self.work, f"{self.version}-{self.name}", remote.mcp(tls="good"))
        else:
            cfg = remote.server_config(self.stubs, self.work, f"{self.version}-{self.name}",
                                       remote.mcp(host=remote.PROXIED_HOST))
        project_env = {"NO_PROXY": remote.BASE_NO_PROXY} if self.name == "no-proxy-project" else None
        self.proj = lc.setup_home(self.home, {NAME: cfg}, None, project_env)
        # no ~/.claude/ before Claude Code runs: the fix may be the first to write there
        shutil.rmtree(self.home / ".claude")
        env = lc.env_for(self.home, self.work, lc.BLOCKING)
        env.pop("MCP_PROTOCOL_NEGOTIATION", None)
        env["NO_PROXY"] = remote.BASE_NO_PROXY
        env.pop("no_proxy", None)
        if not self.name.startswith("ca"):
            port = self.stubs.start(f"{self.version}-{self.name}-proxy", ["proxy", "--status", "407"])
            for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
                env[k] = f"http://127.0.0.1:{port}"
        self.env = env

    def claude_p(self, tag):
        self.n += 1
        raw = self.d / f"raw-{self.n}-{tag}"
        raw.mkdir()
        init = lc.run_p(self.bin, self.home, self.proj, self.env, raw)
        if init is None:
            self.problem(f"claude -p ({tag}) printed no init line (see {raw})")
            return None, 0
        v = lc.verdict_of(init, NAME)
        log(f"{self.version} {self.name} {tag}: {NAME} {v['status']}, {v['toolCount']} tools")
        return v["status"], v["toolCount"]

    def files(self):
        paths = [self.home / ".claude" / "settings.json", self.proj / ".claude" / "settings.json",
                 self.proj / ".claude" / "settings.local.json"]
        return {p: (p.read_bytes() if p.exists() else None) for p in paths}

    def mcplogs(self, args, tag):
        env = dict(self.env)
        env.pop("CLAUDE_CONFIG_DIR", None)
        env.pop("XDG_CACHE_HOME", None)
        env["NO_COLOR"] = "1"
        if self.name == "ca-trusted":
            env["SSL_CERT_FILE"] = str(self.work / "ca.pem")
        self.n += 1
        out, err = self.d / f"mcplogs-{self.n}-{tag}.out", self.d / f"mcplogs-{self.n}-{tag}.err"
        t0 = time.time()
        rc = e2e.run([str(self.mcplogs_bin)] + args + ["--managed-dir", str(self.managed)],
                     env=env, cwd=self.elsewhere, out=out, err=err, timeout=120)
        log(f"  mcplogs {args[0]} {tag}: exit {rc} in {time.time() - t0:.1f}s")
        return rc, out.read_text(errors="replace") + err.read_text(errors="replace")

    def go(self):
        try:
            return self._go()
        finally:
            self.stubs.stop()

    def _go(self):
        self.setup()
        st, n = self.claude_p("before")
        if st == "connected" and n > 0:
            self.problem(f"{NAME} connected with {n} tools before any fix")
            return self.row(st, n, "-", "-", "-")
        if self.name == "no-proxy-project":
            # control: the merged value in the user file does not win over the project's
            # NO_PROXY (a project layer's env outranks the user's)
            user = self.home / ".claude" / "settings.json"
            kept = user.read_bytes() if user.exists() else None
            user.parent.mkdir(exist_ok=True)
            user.write_text(json.dumps({"env": {"NO_PROXY": remote.BASE_NO_PROXY + "," + remote.PROXIED_HOST}}) + "\n")
            stc, nc = self.claude_p("control-user-file")
            if stc == "connected" and nc > 0:
                self.problem("NO_PROXY in the user file won over the project's: the local file is not needed")
            if kept is None:
                user.unlink()
            else:
                user.write_bytes(kept)
        claude_dir_before = (self.home / ".claude").exists()
        before = self.files()
        # plain `fix --yes` from a folder that is not the project (HOME is the throwaway home)
        args = ["fix", "--yes", "--claude-version", self.version]
        if self.name == "ca":
            args += ["--ca-file", str(self.work / "ca.pem")]
        rc, text = self.mcplogs(args, "fix")
        if rc != 0:
            self.problem(f"mcplogs fix exited {rc}: {text.strip()[:800]}")
            return self.row(st, n, "fix failed", "-", "-")
        want = {"ca": "trusted-ca", "ca-trusted": "trusted-ca"}.get(self.name, "no-proxy")
        if f"({want})" not in text:
            self.problem(f"the fix does not name its cause {want}: {text.strip()[:600]}")
        target = self.proj / ".claude" / "settings.local.json" if self.name == "no-proxy-project" \
            else self.home / ".claude" / "settings.json"
        written = json.loads(target.read_text()) if target.exists() else {}
        env_w = written.get("env", {})
        if self.name.startswith("ca"):
            if env_w.get("NODE_EXTRA_CA_CERTS") != str(self.work / "ca.pem"):
                self.problem(f"{target} holds {env_w}")
        elif env_w.get("NO_PROXY") != remote.BASE_NO_PROXY + "," + remote.PROXIED_HOST:
            self.problem(f"{target}: NO_PROXY is {env_w.get('NO_PROXY')!r}")
        if any(k in env_w for k in ("NODE_TLS_REJECT_UNAUTHORIZED", "HTTPS_PROXY", "HTTP_PROXY")):
            self.problem(f"{target} holds {env_w}")
        rc, text = self.mcplogs(["scan"], "scan-after")
        if "already fixed (restart Claude Code to check)" not in text:
            self.problem(f"scan after the fix does not say `already fixed`: {text.strip()[:500]}")
        st2, n2 = self.claude_p("fixed")
        if st2 != "connected" or n2 == 0:
            self.problem(f"after the fix {NAME} is {st2} with {n2} tools")
        rc, text = self.mcplogs(["fix", "--undo", "--yes"], "undo")
        if rc != 0:
            self.problem(f"mcplogs fix --undo exited {rc}: {text.strip()[:600]}")
        after = self.files()
        restored = "byte for byte"
        for p, b in before.items():
            if after[p] != b:
                self.problem(f"{p}: not restored byte for byte after the undo")
                restored = "NO"
        leftovers = [str(q) for q in list(self.home.rglob("*mcplogs*")) + list(self.proj.rglob("*mcplogs*"))
                     if q.is_file()]
        if leftovers:
            self.problem(f"the undo left files behind: {leftovers}")
            restored = "NO"
        st3, n3 = self.claude_p("undone")
        if st3 == "connected" and n3 > 0:
            self.problem(f"after the undo {NAME} connected with {n3} tools again")
        note = "" if claude_dir_before else " (~/.claude made by the fix, removed)"
        return self.row(st, n, f"{st2}/{n2}", restored + note, f"{st3}/{n3}")

    def row(self, st, n, fixed, restored, undone):
        return (self.version, self.name, f"{st}/{n}", fixed, restored, undone,
                "ok" if not self.problems else "MISMATCH")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--mcplogs", required=True)
    ap.add_argument("--work", default="")
    ap.add_argument("--versions", default=",".join(VERSIONS), type=e2e.versions_arg)
    ap.add_argument("--cases", default=",".join(CASES))
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, e2e.on_signal)
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="mcplogs-fixes-remote-"))
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    svc = remote.start(work)
    problems, rows = [], []
    try:
        for v in [x for x in a.versions.split(",") if x]:
            for c in [x for x in a.cases.split(",") if x]:
                case = Case(c, v, a.cache, a.mcplogs, work)
                rows.append(case.go())
                problems += case.problems
    finally:
        for pg in list(e2e.CHILD_GROUPS):
            e2e.kill_group(pg)
        svc.stop()
    print("\nmcplogs fix, remote causes (status/tools of the server in claude -p's init line):")
    print("| version | case | before | after the fix | undo restored | after the undo | check |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print(f"wall time: {time.time() - t0:.0f}s")
    if problems:
        print(f"\nFAILED: {len(problems)} mismatch(es):")
        for p in problems:
            print(f"  {p}")
        sys.exit(1)
    print("\nfixes_remote: each remote cause fails, is fixed, and comes back after the undo")


if __name__ == "__main__":
    main()
