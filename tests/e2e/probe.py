#!/usr/bin/env python3
"""End-to-end test of `mcplogs probe` against real Claude Code builds, fully offline.

Called by tests/e2e/claude.sh after run.py. Python 3.11 stdlib only; reuses run.py's
process handling and the sample generator's environment.

Per Claude Code version, one throwaway HOME holds every scenario's server (stdio stub
servers, and HTTP stub servers on loopback). Three runs, each first probed by mcplogs and
then run by Claude Code (`claude -p`, MCP_CONNECTION_NONBLOCKING=false so its init line is
final):

  default   nothing sets MCP_PROTOCOL_NEGOTIATION (stdio: legacy on 2.1.288, modern on 2.1.332)
  auto      MCP_PROTOCOL_NEGOTIATION=auto in the environment
  legacy    auto in the environment, legacy in ~/.claude/settings.json (the file wins)

Checks, per server and run:
  - the probe's `prediction` agrees with Claude Code's init line (status and the number
    of mcp__<server>__ tools; mapping as in run.py: connected with tools -> healthy |
    tolerated with that many tools loaded; connected with none -> tools-fetch-failed;
    failed -> connection-failed | version-unsupported; needs-auth -> connection-failed
    (needs-auth));
  - the probe's `withLegacy` of the default and auto runs agrees with what Claude Code
    did in the legacy run;
  - the probe's negotiation setting is the one of the run, and the probe's `prediction`
    in the legacy run equals its `withLegacy` in the auto run.
"""
import argparse
import json
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run as R  # noqa: E402  (processes, services, generate's environment)

generate = R.generate
SAMPLES = R.SAMPLES

# name -> stub arguments (stdio), or a dict: {"http": stub args} / {"cfg": config}
STDIO = {
    "healthy-modern": ["--scenario", "b-modern"],
    "healthy-classic": ["--scenario", "a-classic"],
    "three-pages": ["--scenario", "l-pages"],
    "no-resulttype": ["--scenario", "c-no-rt"],
    "no-cache-fields": ["--scenario", "d-no-cache"],
    "wrong-types": ["--scenario", "e-bad-types"],
    "bad-tool": ["--scenario", "f-bad-schema-modern"],
    "bad-second-page": ["--scenario", "m-bad-page"],
    "list-error": ["--scenario", "g-list-err"],
    "exits-on-list": ["--scenario", "n-exit-list"],
    "stdout-noise": ["--scenario", "o-noise", "--stderr-flood", "2000"],
    "duplicate-name": ["--scenario", "p-dup"],
    "old-protocol": ["--scenario", "h-old-protocol"],
    "exits-at-start": ["--scenario", "j-exit"],
}
HTTP = {
    "http-healthy": ["--discover", "modern"],
    "http-sse-answers": ["--discover", "modern", "--http-sse"],
    "http-no-resulttype": ["--scenario", "c-no-rt"],
    "http-401": ["--http-auth"],
    "http-404": ["--http-status", "404"],
    "http-500": ["--http-status", "500"],
}
OTHER = {
    "missing-command": {"type": "stdio", "command": "mcp-server-not-installed", "args": ["--stdio"]},
}
RUNS = ["default", "auto", "legacy"]
# Claude Code -p stops waiting for servers after some seconds and reports the slow ones
# as "pending"; 20 Python stubs starting at once on a loaded machine are too slow, so the
# servers are split into two homes of about ten.
ALL_NAMES = list(STDIO) + list(HTTP) + list(OTHER)
GROUPS = [ALL_NAMES[0::2], ALL_NAMES[1::2]]


def cc_agrees(cc, pred):
    """Does a probe prediction match Claude Code's own (status, tool count)?"""
    status, n = cc
    v, cause, loaded = pred["verdict"], pred["cause"], pred["toolsLoaded"]
    if status == "connected":
        if n > 0:
            return v in ("healthy", "tolerated") and loaded == n
        return v == "tools-fetch-failed"
    if status == "failed":
        return v in ("connection-failed", "version-unsupported") and cause != "needs-auth"
    if status == "needs-auth":
        return v == "connection-failed" and cause == "needs-auth"
    return False


def fmt_p(p):
    if p is None:
        return "absent"
    s = p["verdict"]
    if p.get("cause"):
        s += f" ({p['cause']})"
    if p["verdict"] in ("healthy", "tolerated"):
        s += f" {p['toolsLoaded']} tools"
    return s


class VersionProbe:
    def __init__(self, version, binary, mcplogs, work, api, proxy, stub, http_urls, names, tag):
        self.version = version
        self.binary = binary
        self.mcplogs = mcplogs
        self.group = names
        self.tag = tag
        self.dir = work / f"probe-{version}-{tag}"
        self.home = self.dir / "home"
        self.proj = self.home / "work" / "proj"
        self.raw = self.dir / "raw"
        self.api, self.proxy, self.stub = api, proxy, stub
        self.http_urls = http_urls
        self.problems = []
        self.rows = {}
        self.reruns = 0

    def problem(self, key, text):
        self.problems.append((key, text))
        R.log(f"probe {self.version} MISMATCH {key}: {text}")

    def names(self):
        return self.group

    def setup(self):
        self.proj.mkdir(parents=True)
        self.raw.mkdir()
        servers = {}
        for n in self.group:
            if n in STDIO:
                servers[n] = {"type": "stdio", "command": "python3",
                              "args": [str(self.stub)] + STDIO[n]}
            elif n in HTTP:
                servers[n] = {"type": "http", "url": self.http_urls[n],
                              "headers": {"X-Probe-Secret": "e2e-header-secret-0123456789"}}
            else:
                servers[n] = OTHER[n]
        (self.home / ".claude.json").write_text(json.dumps(
            {"hasCompletedOnboarding": True, "mcpServers": servers}, indent=2) + "\n")

    def env(self, run):
        extra = {"MCP_PROTOCOL_NEGOTIATION": "auto"} if run != "default" else {}
        env = generate.claude_env(self.home, extra, self.api, self.dir.parent)
        for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
            env[k] = f"http://127.0.0.1:{self.proxy}"
        env["MCP_CONNECTION_NONBLOCKING"] = "0"
        # every server in one batch (there are more than generate's 20)
        env["MCP_SERVER_CONNECTION_BATCH_SIZE"] = "40"
        return env

    def settings(self, run):
        d = self.home / ".claude"
        d.mkdir(exist_ok=True)
        f = d / "settings.json"
        if run == "legacy":
            f.write_text(json.dumps({"env": {"MCP_PROTOCOL_NEGOTIATION": "legacy"}}, indent=2) + "\n")
        elif f.exists():
            f.unlink()

    def probe(self, run):
        out, err = self.raw / f"probe-{run}.json", self.raw / f"probe-{run}.err"
        env = dict(self.env(run), NO_COLOR="1")
        t = time.time()
        rc = R.run([str(self.mcplogs), "probe", "--json", "--claude-version", self.version,
                    "--timeout", "20s", "--transcript", str(self.raw / f"transcript-{run}.jsonl")],
                   env=env, cwd=self.proj, out=out, err=err)
        R.log(f"probe {self.version}/{self.tag} {run}: mcplogs probe exit {rc} in {time.time() - t:.1f}s")
        if rc not in (0, 1):
            raise SystemExit(f"mcplogs probe exited {rc}: {err.read_text()}")
        text = out.read_text()
        leaked = [s for s in ("e2e-header-secret-0123456789",) if s in text or
                  s in (self.raw / f"transcript-{run}.jsonl").read_text()]
        if leaked:
            self.problem("-", f"run {run}: a configured secret appears in the probe's output")
        doc = json.loads(text)
        return {s["name"]: s for s in doc["servers"]}, doc

    def claude(self, run, probes):
        """Claude Code's verdict per server, from runs whose conditions match the probe's.

        Two outcomes of `claude -p` are no verdict on a loaded machine, and the run is
        repeated (same HOME, same settings, up to four runs) for those servers:
        - "pending": -p stopped waiting while the server was still starting;
        - a slow start that made Claude Code's server/discover probe time out: Claude
          Code then sends initialize to it, which the stub answers, in the legacy era (its debug
          log shows `protocolEra: legacy` after `Successfully connected ... in >=2500ms`),
          while the probe, whose server answered at once, predicts the modern era."""
        cc = {}

        def no_verdict(n, v):
            status, _, era, ms = v
            if status == "pending":
                return True
            pred = (probes.get(n) or {}).get("prediction") or {}
            return pred.get("era") == "modern" and era == "legacy" and (ms or 0) >= 2500

        for attempt in range(4):
            got = self.claude_once(run, attempt)
            for n, v in got.items():
                if n not in cc or no_verdict(n, cc[n]):
                    cc[n] = v
            again = [n for n, v in cc.items() if no_verdict(n, v)]
            if not again:
                break
            self.reruns += 1
            R.log(f"probe {self.version}/{self.tag} {run}: no verdict yet (pending or slow "
                  f"start) for {again}; running Claude Code again")
        return {n: v[:2] for n, v in cc.items()}

    def claude_once(self, run, attempt):
        tag = f"{run}-{attempt}"
        out = self.raw / f"p-{tag}.jsonl"
        rc = R.run([str(self.binary), "-p", "hi", "--output-format", "stream-json", "--verbose",
                    "--debug-file", str(self.raw / f"debug-{tag}.txt")],
                   env=self.env(run), cwd=self.proj, out=out, err=self.raw / f"p-{tag}.err")
        init = None
        for line in out.read_text(errors="replace").splitlines():
            if '"subtype":"init"' in line:
                init = json.loads(line)
                break
        if init is None:
            raise SystemExit(f"probe {self.version} {run}: no init line from claude -p (exit {rc})")
        statuses = {m["name"]: m["status"] for m in init.get("mcp_servers", [])}
        tools = init.get("tools", [])
        debug = (self.raw / f"debug-{tag}.txt").read_text(errors="replace")
        out = {}
        for n in self.names():
            era = ms = None
            q = re.escape(n)
            m = re.search(rf'MCP server "{q}": Successfully connected \(transport: \w+\) in (\d+)ms', debug)
            if m:
                ms = int(m.group(1))
            m = re.search(rf'MCP server "{q}": Connection established with capabilities: .*?"protocolEra":"(\w+)"', debug)
            if m:
                era = m.group(1)
            out[n] = (statuses.get(n), sum(1 for t in tools if t.startswith(generate.tool_prefix(n))),
                      era, ms)
        return out

    def go(self):
        self.setup()
        results = {}
        for run in RUNS:
            self.settings(run)
            probes, doc = self.probe(run)
            want_neg = {"default": None, "auto": "auto", "legacy": "legacy"}[run]
            if doc["negotiation"]["value"] != want_neg:
                self.problem("-", f"run {run}: probe reads negotiation {doc['negotiation']['value']!r}, "
                                  f"expected {want_neg!r}")
            cc = self.claude(run, probes)
            results[run] = (probes, cc)
            for n in self.names():
                p = probes.get(n)
                if p is None:
                    self.problem(n, f"run {run}: the probe has no server {n!r}")
                    continue
                if not cc_agrees(cc[n], p["prediction"]):
                    self.problem(n, f"run {run}: Claude Code {R.fmt_cc(cc[n])} but the probe "
                                    f"predicts {fmt_p(p['prediction'])}")
        legacy_probes, legacy_cc = results["legacy"]
        for run in ("default", "auto"):
            probes, cc = results[run]
            for n in self.names():
                p = probes.get(n)
                if p is None:
                    continue
                if not cc_agrees(legacy_cc[n], p["withLegacy"]):
                    self.problem(n, f"run {run}: with legacy Claude Code {R.fmt_cc(legacy_cc[n])} "
                                    f"but the probe's withLegacy says {fmt_p(p['withLegacy'])}")
        for n in self.names():
            pa, pl = results["auto"][0].get(n), results["legacy"][0].get(n)
            if pa and pl and (pa["withLegacy"]["verdict"], pa["withLegacy"]["cause"]) != \
                    (pl["prediction"]["verdict"], pl["prediction"]["cause"]):
                self.problem(n, f"withLegacy of the auto run ({fmt_p(pa['withLegacy'])}) differs from "
                                f"the legacy run's prediction ({fmt_p(pl['prediction'])})")
        bad = {k for k, _ in self.problems}
        for n in self.names():
            row = {}
            for run in RUNS:
                probes, cc = results[run]
                row[run] = f"{R.fmt_cc(cc[n])} / {fmt_p((probes.get(n) or {}).get('prediction'))}"
            row["check"] = "MISMATCH" if n in bad else "ok"
            self.rows[n] = row


def print_table(runs):
    head = ["version", "server", "default: Claude Code / probe", "auto", "legacy (user settings)", "check"]
    rows = []
    for vr in runs:
        for n, r in vr.rows.items():
            rows.append([vr.version, n, r["default"], r["auto"], r["legacy"], r["check"]])
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
    ap.add_argument("--versions", default=",".join(R.DEFAULT_VERSIONS), type=R.versions_arg)
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, R.on_signal)
    signal.signal(signal.SIGHUP, R.on_signal)
    t0 = time.time()
    versions = [v for v in a.versions.split(",") if v]
    work = Path(a.work)
    for d in ("bin", "logs"):
        (work / d).mkdir(parents=True, exist_ok=True)
    stub = work / "bin" / "stub_mcp_server.py"
    shutil.copy2(SAMPLES / "stub_mcp_server.py", stub)
    if not (work / "bin" / "python3").exists():
        os.symlink(sys.executable, work / "bin" / "python3")
    binaries = {v: Path(a.cache) / f"claude-{v}" / "node_modules" / R.PKG / "claude" for v in versions}
    for v, b in binaries.items():
        if not os.access(b, os.X_OK):
            raise SystemExit(f"missing {b}: tests/e2e/claude.sh installs it")
    svc = generate.Services(work)
    runs = []
    try:
        py = sys.executable
        api = R.start_service(svc, "probe_fake_api", lambda p: [py, str(SAMPLES / "fake_api.py"), str(p)])
        proxy = R.start_service(svc, "probe_deny_proxy", lambda p: [py, str(SAMPLES / "deny_proxy.py"), str(p)])
        urls = {}
        for n, args in HTTP.items():
            port = R.start_service(svc, f"probe_{n}", lambda p, args=args: [py, str(stub), "--http", str(p)] + args)
            urls[n] = f"http://127.0.0.1:{port}/mcp"
        for v in versions:
            for i, group in enumerate(GROUPS):
                vp = VersionProbe(v, binaries[v], Path(a.mcplogs), work, api, proxy, stub, urls,
                                  group, f"g{i + 1}")
                runs.append(vp)
                t = time.time()
                vp.go()
                R.log(f"probe {v}/g{i + 1}: done in {time.time() - t:.0f}s")
    finally:
        for pg in list(R.CHILD_GROUPS):
            R.kill_group(pg)
        svc.stop()
    proxied = [ln for ln in (work / "logs" / "probe_deny_proxy.log").read_text().splitlines() if '" 403 ' in ln]
    print()
    print("mcplogs probe vs Claude Code. Each cell: Claude Code's init (status/tools) / the probe's")
    print("prediction. withLegacy of the default and auto runs is checked against the legacy run.")
    print()
    print_table(runs)
    print()
    problems = [(vr.version, k, t) for vr in runs for k, t in vr.problems]
    if proxied:
        problems.append(("-", "-", f"{len(proxied)} request(s) reached the 403 proxy"))
    print(f"requests that reached the 403 proxy: {len(proxied)}")
    print(f"Claude Code runs repeated for a server without a verdict (pending / slow start): "
          f"{sum(vr.reruns for vr in runs)}")
    print(f"wall time: {time.time() - t0:.0f}s")
    if problems:
        print(f"\nFAILED: {len(problems)} mismatch(es):")
        for v, k, t in problems:
            print(f"  {v} {k}: {t}")
        sys.exit(1)
    print("\nPASSED: every probe prediction agrees with what Claude Code did.", flush=True)


if __name__ == "__main__":
    main()
