#!/usr/bin/env python3
"""End-to-end interop of `mcplogs probe` with servers built on the real MCP SDKs, against
real Claude Code builds, fully offline.

Called by tests/e2e/claude.sh after probe.py, once tests/e2e/sdk/install.sh has filled the
cache with the pinned SDKs (PyPI `mcp` 2.x and 1.x, npm `@modelcontextprotocol/sdk` and
`@modelcontextprotocol/server-everything`, crates.io `rmcp`). Python 3.11 stdlib only.

The servers (tests/e2e/sdk/): py2-stdio, py2-http (mcp 2.x, Streamable HTTP), py1-stdio,
py1-http (mcp 1.x), ts-stdio, ts-http (the TypeScript SDK, the SDK's stateful HTTP
example), everything (the published reference server, stdio) and rmcp-stdio.

Per Claude Code build, one throwaway HOME with all of them and two runs, nothing set and
MCP_PROTOCOL_NEGOTIATION=auto. Each run: `mcplogs probe --json` of the configured
servers, then `claude -p` (MCP_CONNECTION_NONBLOCKING=false, MCP_CONNECT_TIMEOUT_MS
high, so its init line is final). Per server and run the probe's prediction must agree
with Claude Code: the verdict (init status), the number of tools (mcp__<server>__ names)
and the era (`protocolEra` of Claude Code's `Connection established with capabilities`
debug record). Then `mcplogs probe --command ... --contract` (or `--url`) must pass for
every server, per build.
"""
import argparse
import json
import os
import re
import shutil
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run as R  # noqa: E402
import probe as P  # noqa: E402  (cc_agrees, fmt_p)

generate = R.generate
SAMPLES = R.SAMPLES
SDK = HERE / "sdk"
RUNS = {"default": {}, "auto": {"MCP_PROTOCOL_NEGOTIATION": "auto"}}


def pins():
    """The pinned versions, read from install.sh (one place says them)."""
    text = (SDK / "install.sh").read_text()

    def one(name):
        return re.search(rf"^{name}=\(?([^)\n]+)\)?$", text, re.M).group(1).split()

    return {"py": one("PY_MCP"), "ts": one("TS_SDK")[0], "everything": one("EVERYTHING")[0],
            "rmcp": one("RMCP")[0], "inspector": one("INSPECTOR")[0]}


def servers(cache, work, only=()):
    """name -> {"stdio": (command, args, env)} or {"http": argv_for_port}"""
    p = pins()
    py2, py1 = (cache / f"sdk-py-mcp-{v}" / "bin" / "python" for v in p["py"])
    node_dir = cache / f"sdk-node-ts{p['ts']}-everything{p['everything']}" / "node_modules"
    rmcp = cache / f"sdk-rmcp-{p['rmcp']}" / "rmcp-server"
    for f in (py2, py1, node_dir, rmcp):
        if not f.exists() and not only:
            raise SystemExit(f"missing {f}: tests/e2e/sdk/install.sh installs it")
    py_srv, ts_srv = str(SDK / "py_server.py"), str(SDK / "ts_server.cjs")
    node_env = {"NODE_PATH": str(node_dir)}
    everything = node_dir / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    every = {
        "py2-stdio": {"stdio": (str(py2), [py_srv, "stdio"], {})},
        "py2-http": {"http": lambda port: [str(py2), py_srv, "http", str(port)]},
        "py1-stdio": {"stdio": (str(py1), [py_srv, "stdio"], {})},
        "py1-http": {"http": lambda port: [str(py1), py_srv, "http", str(port)]},
        "ts-stdio": {"stdio": ("node", [ts_srv, "stdio"], node_env)},
        "ts-http": {"http": lambda port: ["node", ts_srv, "http", str(port)], "env": node_env},
        "everything": {"stdio": ("node", [str(everything), "stdio"], {})},
        "rmcp-stdio": {"stdio": (str(rmcp), [], {})},
    }
    return {n: s for n, s in every.items() if not only or n in only}


class Build:
    def __init__(self, version, binary, mcplogs, work, api, proxy, specs, urls):
        self.version, self.binary, self.mcplogs = version, binary, mcplogs
        self.dir = work / f"sdk-{version}"
        self.home = self.dir / "home"
        self.proj = self.home / "work" / "proj"
        self.raw = self.dir / "raw"
        self.api, self.proxy, self.specs, self.urls = api, proxy, specs, urls
        self.rows, self.problems, self.notes = {}, [], {}
        self.agree = 0
        self.compared = 0

    def problem(self, key, text):
        self.problems.append((key, text))
        R.log(f"sdk {self.version} MISMATCH {key}: {text}")

    def setup(self):
        self.proj.mkdir(parents=True)
        self.raw.mkdir()
        cfg = {}
        for n, s in self.specs.items():
            if "stdio" in s:
                cmd, args, env = s["stdio"]
                cfg[n] = {"type": "stdio", "command": cmd, "args": args, "env": env}
            else:
                cfg[n] = {"type": "http", "url": self.urls[n]}
        (self.home / ".claude.json").write_text(json.dumps(
            {"hasCompletedOnboarding": True, "mcpServers": cfg}, indent=2) + "\n")

    def env(self, run):
        env = generate.claude_env(self.home, RUNS[run], self.api, self.dir.parent)
        for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
            env[k] = f"http://127.0.0.1:{self.proxy}"
        env["MCP_CONNECTION_NONBLOCKING"] = "false"
        env["MCP_CONNECT_TIMEOUT_MS"] = "60000"
        return env

    def probe(self, run):
        out, err = self.raw / f"probe-{run}.json", self.raw / f"probe-{run}.err"
        t = time.time()
        rc = R.run([str(self.mcplogs), "probe", "--json", "--claude-version", self.version],
                   env=dict(self.env(run), NO_COLOR="1"), cwd=self.proj, out=out, err=err)
        R.log(f"sdk {self.version} {run}: mcplogs probe exit {rc} in {time.time() - t:.1f}s")
        if rc not in (0, 1):
            raise SystemExit(f"mcplogs probe exited {rc}: {err.read_text()}")
        return {s["name"]: s for s in json.loads(out.read_text())["servers"]}

    def claude(self, run):
        out, dbg = self.raw / f"p-{run}.jsonl", self.raw / f"debug-{run}.txt"
        t = time.time()
        rc = R.run([str(self.binary), "-p", "hi", "--output-format", "stream-json", "--verbose",
                    "--debug-file", str(dbg)],
                   env=self.env(run), cwd=self.proj, out=out, err=self.raw / f"p-{run}.err")
        R.log(f"sdk {self.version} {run}: claude -p exit {rc} in {time.time() - t:.1f}s")
        init = next((json.loads(ln) for ln in out.read_text(errors="replace").splitlines()
                     if '"subtype":"init"' in ln), None)
        if init is None:
            raise SystemExit(f"sdk {self.version} {run}: no init line from claude -p (exit {rc})")
        statuses = {m["name"]: m["status"] for m in init.get("mcp_servers", [])}
        tools = init.get("tools", [])
        debug = dbg.read_text(errors="replace")
        got = {}
        for n in self.specs:
            q = re.escape(n)
            m = re.search(rf'MCP server "{q}": Connection established with capabilities: .*?"protocolEra":"(\w+)"', debug)
            lines = [ln.split(f'MCP server "{n}": ', 1)[1] for ln in debug.splitlines()
                     if f'MCP server "{n}": ' in ln and re.search(r"probe|discover|restart", ln)
                     and "Connection established" not in ln]
            got[n] = ((statuses.get(n), sum(1 for x in tools if x.startswith(generate.tool_prefix(n)))),
                      m.group(1) if m else None, lines)
        return got

    def go(self):
        self.setup()
        for run in RUNS:
            probes = self.probe(run)
            cc = self.claude(run)
            for n in self.specs:
                (status_n, era, lines) = cc[n]
                p = (probes.get(n) or {}).get("prediction")
                self.compared += 1
                ok = p is not None and P.cc_agrees(status_n, p) and \
                    (era is None or p.get("era") == era)
                if ok:
                    self.agree += 1
                else:
                    self.problem(n, f"run {run}: Claude Code {R.fmt_cc(status_n)} era {era} but the probe "
                                    f"predicts {P.fmt_p(p)} era {(p or {}).get('era')}")
                if lines:
                    self.notes.setdefault(n, set()).update(lines)
                self.rows.setdefault(n, {})[run] = f"{R.fmt_cc(status_n)} {era} / {P.fmt_p(p)} {(p or {}).get('era')}"

    def contract(self, name):
        s = self.specs[name]
        if "stdio" in s:
            cmd, args, env = s["stdio"]
            argv = ["--command", cmd, "--"] + args
        else:
            argv, env = ["--url", self.urls[name]], {}
        out, err = self.raw / f"contract-{name}.json", self.raw / f"contract-{name}.err"
        e = dict(self.env("default"), NO_COLOR="1", **env)
        rc = R.run([str(self.mcplogs), "probe", "--contract", "--json", "--claude-version", self.version]
                   + argv, env=e, cwd=self.proj, out=out, err=err)
        failed = []
        try:
            doc = json.loads(out.read_text())
            failed = [c["check"] for c in doc["servers"][0]["contract"] if c["passed"] is False]
        except (ValueError, KeyError, IndexError):
            failed = ["(no JSON)"]
        if rc != 0 or failed:
            self.problem(name, f"--contract exit {rc}, failed checks {failed}")
        self.rows.setdefault(name, {})["contract"] = "pass" if rc == 0 and not failed else f"FAIL {failed}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--mcplogs", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--versions", default=",".join(R.DEFAULT_VERSIONS), type=R.versions_arg)
    ap.add_argument("--only", default="", help="comma list of server names (default: all)")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, R.on_signal)
    signal.signal(signal.SIGHUP, R.on_signal)
    t0 = time.time()
    cache, work = Path(a.cache), Path(a.work)
    for d in ("bin", "logs"):
        (work / d).mkdir(parents=True, exist_ok=True)
    if not (work / "bin" / "python3").exists():
        os.symlink(sys.executable, work / "bin" / "python3")
    only = [x for x in a.only.split(",") if x]
    specs = servers(cache, work, only)
    svc = generate.Services(work)
    builds = []
    try:
        py = sys.executable
        api = R.start_service(svc, "sdk_fake_api", lambda p: [py, str(SAMPLES / "fake_api.py"), str(p)])
        proxy = R.start_service(svc, "sdk_deny_proxy", lambda p: [py, str(SAMPLES / "deny_proxy.py"), str(p)])
        urls = {}
        for n, s in specs.items():
            if "http" in s:
                if s.get("env"):
                    os.environ.update(s["env"])
                port = R.start_service(svc, f"sdk_{n}", s["http"])
                urls[n] = f"http://127.0.0.1:{port}/mcp"
        for v in [x for x in a.versions.split(",") if x]:
            binary = cache / f"claude-{v}" / "node_modules" / R.PKG / "claude"
            b = Build(v, binary, Path(a.mcplogs), work, api, proxy, specs, urls)
            builds.append(b)
            t = time.time()
            b.go()
            with ThreadPoolExecutor(4) as ex:
                list(ex.map(b.contract, specs))
            R.log(f"sdk {v}: done in {time.time() - t:.0f}s")
    finally:
        for pg in list(R.CHILD_GROUPS):
            R.kill_group(pg)
        svc.stop()
    print()
    print("mcplogs probe vs Claude Code on servers built on the real SDKs. Each cell: Claude")
    print("Code's init (status/tools) and era / the probe's prediction and era.")
    print()
    head = ["version", "server", "default", "auto", "contract"]
    rows = [[b.version, n] + [r.get(k, "-") for k in ("default", "auto", "contract")]
            for b in builds for n, r in b.rows.items()]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    print()
    for b in builds:
        print(f"{b.version}: {b.agree} of {b.compared} predictions agree with Claude Code")
        for n, lines in sorted(b.notes.items()):
            for ln in sorted(lines):
                print(f"  {n}: Claude Code logged: {ln[:300]}")
    print(f"wall time: {time.time() - t0:.0f}s")
    problems = [(b.version, k, t) for b in builds for k, t in b.problems]
    if problems:
        print(f"\nFAILED: {len(problems)} mismatch(es):")
        for v, k, t in problems:
            print(f"  {v} {k}: {t}")
        sys.exit(1)
    print("\nPASSED: on every SDK server the probe predicts what Claude Code does, and --contract passes.",
          flush=True)


if __name__ == "__main__":
    main()
