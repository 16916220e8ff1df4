#!/usr/bin/env python3
"""The PROBE section of scripts/bench.sh: `mcplogs probe` against the MCP Inspector CLI
(`mcp-inspector --cli ... --method tools/list`) on the same servers, in one run.

    python3 scripts/bench/probe_bench.py MCPLOGS_BIN CACHE RUNS

The servers are the e2e's SDK servers (tests/e2e/sdk/, installed into CACHE by
tests/e2e/sdk/install.sh --with-inspector): stdio Python `mcp` 2.x, the TypeScript SDK,
server-everything and rmcp; Streamable HTTP Python `mcp` 2.x and the TypeScript SDK
(started once, on free loopback ports). Each tool runs RUNS times per server, one after
the other, under `/usr/bin/time -f '%e %M'`: wall time (best, median) and peak RSS (the
largest process of the run's tree, so on stdio it can be the server's). The probe runs as
a user does: `mcplogs probe --json --claude-version 2.1.332 --command ...` (a prediction
and the `withLegacy` handshake: two connections, two server starts on stdio) or `--url`.
What each reports: the probe its verdict and tools loaded, the Inspector the number of
tools in its JSON.
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
import sdk_interop as S  # noqa: E402  (the pins and the server commands)

CLAUDE = "2.1.332"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, until):
    while time.time() < until:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port}")


def timed(argv, env, out):
    tf = out.with_suffix(".time")
    with open(out, "wb") as o:
        subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", str(tf)] + argv, env=env,
                       stdout=o, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=120)
    secs, kb = tf.read_text().strip().splitlines()[-1].split()
    return float(secs), int(kb) / 1024


def main():
    binary, cache, runs = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    pins = S.pins()
    inspector = cache / f"sdk-inspector-{pins['inspector']}" / "node_modules" / ".bin" / "mcp-inspector"
    specs = S.servers(cache, None)
    work = Path(tempfile.mkdtemp(prefix="mcplogs-probe-bench."))
    home = work / "home"
    home.mkdir()
    base = {"PATH": os.environ["PATH"], "HOME": str(home), "NO_COLOR": "1", "LANG": "C.UTF-8",
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    chosen = ["py2-stdio", "ts-stdio", "everything", "rmcp-stdio", "py2-http", "ts-http"]
    procs, rows = [], []
    try:
        urls = {}
        for n in chosen:
            if "http" in specs[n]:
                port = free_port()
                env = dict(base, **specs[n].get("env", {}))
                procs.append(subprocess.Popen(specs[n]["http"](port), env=env, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL, start_new_session=True))
                wait_port(port, time.time() + 30)
                urls[n] = f"http://127.0.0.1:{port}/mcp"
        for n in chosen:
            s = specs[n]
            if "stdio" in s:
                cmd, args, extra = s["stdio"]
                env = dict(base, **extra)
                probe = [str(binary), "probe", "--json", "--claude-version", CLAUDE, "--command", cmd, "--"] + args
                # the Inspector gives its server a minimal environment: pass the server's own
                insp = [str(inspector), "--cli"] + [a for k, v in extra.items() for a in ("-e", f"{k}={v}")] \
                    + [cmd] + args + ["--method", "tools/list"]
                kind = "stdio"
            else:
                env = dict(base, **s.get("env", {}))
                probe = [str(binary), "probe", "--json", "--claude-version", CLAUDE, "--url", urls[n]]
                insp = [str(inspector), "--cli", urls[n], "--transport", "http", "--method", "tools/list"]
                kind = "http"
            for tool, argv in (("mcplogs probe", probe), ("inspector --cli", insp)):
                times, rss, said = [], [], ""
                for i in range(runs):
                    out = work / f"{n}-{tool.split()[0]}-{i}.out"
                    t, m = timed(argv, env, out)
                    times.append(t)
                    rss.append(m)
                    try:
                        doc = json.loads(out.read_text())
                        if tool == "mcplogs probe":
                            p = doc["servers"][0]["prediction"]
                            said = f"{p['verdict']}, {p['era']}, {p['toolsLoaded']} tools"
                        else:
                            said = f"{len(doc['tools'])} tools"
                    except (ValueError, KeyError, IndexError):
                        said = "no JSON: " + out.read_text()[:80].replace("\n", " ")
                rows.append((n, kind, tool, min(times), statistics.median(times), max(rss), said))
    finally:
        for p in procs:
            os.killpg(p.pid, 15)
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n[bench] PROBE: mcplogs probe vs the MCP Inspector CLI {pins['inspector']}, {runs} runs each")
    print(f"{'server':<12}{'transport':<10}{'tool':<17}{'best s':>8}{'median s':>10}{'peak MiB':>10}  reports")
    for n, kind, tool, best, med, rss, said in rows:
        print(f"{n:<12}{kind:<10}{tool:<17}{best:>8.2f}{med:>10.2f}{rss:>10.1f}  {said}")


if __name__ == "__main__":
    main()
