#!/usr/bin/env python3
"""Remote (HTTP) MCP servers failing as users meet them, observed on real builds, offline.

    python3 tests/e2e/remote.py --generate [--versions 2.1.287,2.1.310,2.1.336]
                                [--groups net,tls-env,...] [--only CASE,...]
        run every group of GROUPS on each build and (re)write tests/fixtures/remote/<case>/<build>/:
        the server's mcp-logs-<case>/*.jsonl, claude.json (Claude Code's own verdict: the
        `-p` init line's status and mcp__ tools) and debug.txt (the debug file's lines about
        the server); the throwaway work folder's path is written as /tmp/mcplogs-remote
    python3 tests/e2e/remote.py --generate --mcp-list [--versions ...]
        `claude mcp list` over the servers of every group, one run a group, kept as
        tests/fixtures/remote/mcp-list/<build>.txt
    python3 tests/e2e/remote.py --e2e --mcplogs BIN [--versions ...]
        the same runs, then `mcplogs scan --json` on each fresh log compared with
        tests/fixtures/remote/expected.json

Everything is on loopback: a throwaway CA and certificates made with openssl in the work
folder, the MCP servers, proxies and the black hole of tests/e2e/remote_stub.py (each on a
port the system picked), the fake API and 403 proxy of scripts/samples/. The one name
that is not loopback, `mcp.invalid`, is reserved (RFC 6761) and never resolves. Each group
is one blocking `claude -p` (MCP_CONNECTION_NONBLOCKING=false, MCP_CONNECT_TIMEOUT_MS=90000)
in a throwaway HOME. Python 3.11 stdlib and openssl only.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
import lifecycle as lc  # noqa: E402  (homes, the -p run, verdicts)
import run as e2e  # noqa: E402  (process groups, the sample generator)

generate = e2e.generate
STUB = HERE / "remote_stub.py"
FIXTURES = REPO / "tests" / "fixtures" / "remote"
VERSIONS = ["2.1.287", "2.1.310", "2.1.336"]
PLACEHOLDER = "/tmp/mcplogs-remote"
BASE_NO_PROXY = "127.0.0.1,localhost,::1"
# the proxied cases' servers listen on 127.0.0.2: loopback, but not in BASE_NO_PROXY
PROXIED_HOST = "127.0.0.2"


def mcp(host="127.0.0.1", tls=None, auth=None, headers=None, path="/mcp", stored=None):
    """An MCP server of remote_stub.py (tls: the certificate's name in the work folder;
    stored: the OAuth tokens seeded in ~/.claude/.credentials.json, (access token,
    refresh token, expired?))."""
    return {"kind": "mcp", "host": host, "tls": tls, "auth": auth, "headers": headers,
            "path": path, "stored": stored}


def url(u):
    """A fixed URL: nothing is started for it ({port} becomes a closed loopback port)."""
    return {"kind": "url", "url": u}


BLACKHOLE = {"kind": "blackhole"}
STATIC = {"Authorization": "Bearer mcplogs-dummy-static-token"}

# group -> (environment over the base one, user settings env, {case: server}).
# "proxy": the proxy answering HTTPS_PROXY/HTTP_PROXY (403 is the base deny proxy).
GROUPS = {
    # failures with nothing set: certificates nobody trusts, a name that does not
    # resolve, a closed port, a server that never answers, a proxy that refuses
    "net": ({"NO_PROXY": BASE_NO_PROXY + ",.invalid"}, None, {
        "tls-self-signed": mcp(tls="self"),
        "tls-untrusted-ca": mcp(tls="good"),
        "name-not-resolved": url("http://mcp.invalid/mcp"),
        "connection-refused": url("http://127.0.0.1:{port}/mcp"),
        "no-answer": BLACKHOLE,
        "proxy-403-http": mcp(host=PROXIED_HOST),
        "proxy-403-https": mcp(host=PROXIED_HOST, tls="good"),
    }),
    # the throwaway CA trusted through the environment: the CA-signed server connects;
    # an expired certificate and one for another name still fail
    "tls-env": ({"NODE_EXTRA_CA_CERTS": "{work}/ca.pem"}, None, {
        "tls-ca-env": mcp(tls="good"),
        "tls-expired": mcp(tls="expired"),
        "tls-hostname": mcp(tls="wrongname"),
    }),
    # the same CA named in ~/.claude/settings.json env only
    "tls-settings": ({}, {"NODE_EXTRA_CA_CERTS": "{work}/ca.pem"}, {
        "tls-ca-settings": mcp(tls="good"),
    }),
    # a proxy answering 407 (authentication required)
    "proxy-407": ({"proxy": 407}, None, {
        "proxy-407-http": mcp(host=PROXIED_HOST),
        "proxy-407-https": mcp(host=PROXIED_HOST, tls="good"),
    }),
    # the 407 proxy, the server's host in NO_PROXY of the environment
    "no-proxy-env": ({"proxy": 407, "NO_PROXY": BASE_NO_PROXY + "," + PROXIED_HOST}, None, {
        "no-proxy-env": mcp(host=PROXIED_HOST),
    }),
    # the 407 proxy, the server's host in NO_PROXY of ~/.claude/settings.json env only
    "no-proxy-settings": ({"proxy": 407}, {"NO_PROXY": BASE_NO_PROXY + "," + PROXIED_HOST}, {
        "no-proxy-settings": mcp(host=PROXIED_HOST),
    }),
    # OAuth tokens Claude Code already holds (seeded where it keeps them,
    # ~/.claude/.credentials.json `mcpOAuth`): valid; expired with a refresh the server
    # grants; expired with a refresh it refuses (400 invalid_grant)
    "oauth-stored": ({}, None, {
        "oauth-stored-valid": mcp(auth="token", stored=("mcplogs-valid-access", None, False)),
        "oauth-refresh-ok": mcp(auth="token", stored=("mcplogs-stale-access",
                                                      "mcplogs-good-refresh", True)),
        "oauth-refresh-refused": mcp(auth="token", stored=("mcplogs-stale-access",
                                                           "mcplogs-revoked-refresh", True)),
    }),
    # OAuth and static tokens, each refused at another step
    "oauth": ({}, None, {
        "oauth-401": mcp(auth="oauth"),
        "oauth-meta-404": mcp(auth="meta-404"),
        "oauth-as-meta-404": mcp(auth="as-meta-404"),
        "oauth-no-registration": mcp(auth="no-registration"),
        "oauth-register-400": mcp(auth="register-400"),
        "oauth-register-500": mcp(auth="register-500"),
        "static-401": mcp(auth="static-401", headers=STATIC),
        "static-403": mcp(auth="static-403", headers=STATIC),
    }),
}


def log(msg):
    print(f"[remote] {msg}", file=sys.stderr, flush=True)


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(work):
    """A throwaway CA and four server certificates: `good` (CA-signed, for 127.0.0.1,
    127.0.0.2 and localhost), `expired` (CA-signed, expired), `wrongname` (CA-signed, for
    wrong.example.test only) and `self` (self-signed, for the loopback names)."""
    d = work
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "30", "-subj", "/CN=mcplogs throwaway CA", cwd=d)
    loop = "subjectAltName=IP:127.0.0.1,IP:127.0.0.2,DNS:localhost"
    for name, san, days in (("good", loop, "30"), ("expired", loop, "-1"),
                            ("wrongname", "subjectAltName=DNS:wrong.example.test", "30")):
        (d / f"{name}.ext").write_text(san + "\n")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out",
                f"{name}.csr", "-subj", f"/CN={name}", cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", f"{name}.pem", "-days", days, "-extfile",
                f"{name}.ext", cwd=d)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "self.key", "-out",
            "self.pem", "-days", "30", "-subj", "/CN=127.0.0.1", "-addext", loop, cwd=d)


class Stubs:
    """remote_stub.py processes, each telling the port it bound on its stdout."""

    def __init__(self, work):
        self.work = work
        self.procs = []

    def start(self, name, args):
        logf = open(self.work / "logs" / f"{name}.log", "w")
        p = subprocess.Popen([sys.executable, str(STUB), *args], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=logf, text=True,
                             start_new_session=True)
        self.procs.append((p, logf))
        line = p.stdout.readline().strip()
        if not line.isdigit():
            raise SystemExit(f"{name}: remote_stub.py did not start (see {logf.name})")
        return int(line)

    def stop(self):
        for p, logf in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            logf.close()
        self.procs = []


def server_config(stubs, work, name, spec):
    kind = spec["kind"]
    if kind == "url":
        return {"type": "http", "url": spec["url"].format(port=e2e.free_port())}
    if kind == "blackhole":
        port = stubs.start(name, ["blackhole"])
        return {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}
    args = ["mcp", "--host", spec["host"]]
    if spec["tls"]:
        args += ["--cert", str(work / f"{spec['tls']}.pem"), "--key",
                 str(work / f"{spec['tls']}.key")]
    if spec["auth"]:
        args += ["--auth", spec["auth"]]
    port = stubs.start(name, args)
    scheme = "https" if spec["tls"] else "http"
    cfg = {"type": "http", "url": f"{scheme}://{spec['host']}:{port}{spec['path']}"}
    if spec["headers"]:
        cfg["headers"] = dict(spec["headers"])
    return cfg


def token_key(name, cfg):
    """Where Claude Code keeps a server's OAuth tokens in `mcpOAuth` (read from the
    2.1.336 binary): `<name>|` and the first 16 hex digits of the SHA-256 of
    `{"type","url","headers"}` as JSON."""
    import hashlib
    doc = json.dumps({"type": cfg["type"], "url": cfg["url"], "headers": cfg.get("headers") or {}},
                     separators=(",", ":"))
    return f"{name}|{hashlib.sha256(doc.encode()).hexdigest()[:16]}"


def seed_tokens(home, servers, configs):
    """Writes the `stored` tokens of `servers` into ~/.claude/.credentials.json."""
    import time
    entries = {}
    for name, spec in servers.items():
        if not spec.get("stored"):
            continue
        access, refresh, expired = spec["stored"]
        cfg = configs[name]
        entry = {"serverName": name, "serverUrl": cfg["url"], "accessToken": access,
                 "expiresAt": int((time.time() + (-3600 if expired else 3600)) * 1000),
                 "scope": "", "clientId": "mcplogs-remote-client"}
        if refresh:
            entry["refreshToken"] = refresh
        entries[token_key(name, cfg)] = entry
    if entries:
        path = home / ".claude" / ".credentials.json"
        path.write_text(json.dumps({"mcpOAuth": entries}, indent=2) + "\n")
        path.chmod(0o600)


def fill(value, work):
    return value.replace("{work}", str(work)) if isinstance(value, str) else value


def run_group(cache, v, gname, work, only=None, mcp_list=False):
    """One `claude -p` of group `gname` (`claude mcp list` with `mcp_list`, whose stdout
    is returned instead)."""
    extra, user_env, servers = GROUPS[gname]
    if only:
        servers = {k: s for k, s in servers.items() if k in only}
        if not servers:
            return {}
    gdir = work / v / gname
    home, raw = gdir / "home", gdir / "raw"
    raw.mkdir(parents=True)
    stubs = Stubs(work)
    try:
        configs = {n: server_config(stubs, work, f"{v}-{gname}-{n}", s) for n, s in servers.items()}
        user_env = {k: fill(val, work) for k, val in (user_env or {}).items()} or None
        proj = lc.setup_home(home, configs, user_env)
        seed_tokens(home, servers, configs)
        env = lc.env_for(home, work, lc.BLOCKING)
        env.pop("MCP_PROTOCOL_NEGOTIATION", None)  # HTTP negotiates by default
        env["NO_PROXY"] = BASE_NO_PROXY
        env.pop("no_proxy", None)  # one spelling, so that the settings' NO_PROXY is the only other
        extra = dict(extra)
        status = extra.pop("proxy", 403)
        if status != 403:
            port = stubs.start(f"{v}-{gname}-proxy", ["proxy", "--status", str(status)])
            for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
                env[k] = f"http://127.0.0.1:{port}"
        env.update({k: fill(val, work) for k, val in extra.items()})
        log(f"{v} {gname}: {', '.join(configs)}")
        if mcp_list:
            e2e.run([str(lc.binary(cache, v)), "mcp", "list"], env=env, cwd=proj,
                    out=raw / "list.txt", err=raw / "list.err", timeout=180)
            return (raw / "list.txt").read_text(errors="replace")
        init = lc.run_p(lc.binary(cache, v), home, proj, env, raw)
    finally:
        stubs.stop()
    if init is None:
        raise SystemExit(f"{v} {gname}: no init line; see {raw}")
    out = {}
    for name in servers:
        folder = home / ".cache" / "claude-cli-nodejs" / generate.encode(str(proj)) / \
            f"mcp-logs-{generate.encode(name)}"
        verdict = lc.verdict_of(init, name)
        verdict["config"] = configs[name]
        verdict["group"] = gname
        out[name] = (sorted(folder.glob("*.jsonl")), verdict, raw / "debug.txt")
    return out


def debug_lines(debug, name):
    """The debug file's lines about server `name` (both the raw and the JSON-literal
    forms of `MCP server "name"`), and its [MCP] summary lines."""
    if not debug.exists():
        return []
    keys = (f'MCP server "{name}"', f'MCP server \\"{name}\\"', "[MCP]")
    return [ln for ln in debug.read_text(errors="replace").splitlines()
            if any(k in ln for k in keys)]


def scrub(text, work):
    return text.replace(str(work), PLACEHOLDER)


def keep_fixture(name, v, logs, verdict, debug, work):
    dest = FIXTURES / name / v
    if dest.exists():
        shutil.rmtree(dest)
    folder = dest / f"mcp-logs-{generate.encode(name)}"
    folder.mkdir(parents=True)
    for f in logs:
        (folder / f.name).write_text(scrub(f.read_text(errors="replace"), work))
    (dest / "claude.json").write_text(
        scrub(json.dumps(verdict, indent=2, ensure_ascii=False), work) + "\n")
    lines = debug_lines(debug, name)
    if lines:
        (dest / "debug.txt").write_text(scrub("\n".join(lines), work) + "\n")
    log(f"  kept {name}/{v}: {verdict['status']}, {verdict['toolCount']} tools")


def start(work):
    (work / "logs").mkdir(parents=True, exist_ok=True)
    make_certs(work)
    lc.PORT_API, lc.PORT_PROXY = e2e.free_port(), e2e.free_port()
    return lc.Services(work)


def generate_mcp_list(cache, versions, groups):
    """`claude mcp list` over every group's servers, kept as
    tests/fixtures/remote/mcp-list/<build>.txt (what `mcplogs explain` reads)."""
    work = Path(tempfile.mkdtemp(prefix="mcplogs-remote-"))
    svc = start(work)
    try:
        for v in versions:
            text = "".join(run_group(cache, v, g, work, mcp_list=True) for g in groups)
            dest = FIXTURES / "mcp-list" / f"{v}.txt"
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(scrub(text, work))
            log(f"  kept mcp-list/{v}.txt")
    finally:
        svc.stop()


def generate_all(cache, versions, groups, only):
    work = Path(tempfile.mkdtemp(prefix="mcplogs-remote-"))
    svc = start(work)
    try:
        for v in versions:
            if not lc.binary(cache, v).exists():
                raise SystemExit(f"no Claude Code {v} in {cache}: run scripts/samples/install_claude.sh")
            for g in groups:
                for name, (logs, verdict, debug) in run_group(cache, v, g, work, only).items():
                    keep_fixture(name, v, logs, verdict, debug, work)
    finally:
        svc.stop()
    log(f"work folder: {work}")


def expectation(per_build, v):
    """The expected verdict of a case on build `v`: its own, else the one every recorded
    build shares (a build never recorded is held to what all the others did)."""
    if v in per_build:
        return per_build[v]
    kinds = {json.dumps(w, sort_keys=True) for w in per_build.values()}
    return json.loads(kinds.pop()) if len(kinds) == 1 else None


def e2e_check(cache, versions, groups, only, mcplogs):
    """Returns the number of cases whose fresh log mcplogs reads otherwise than expected."""
    expected = json.loads((FIXTURES / "expected.json").read_text())["cases"]
    work = Path(tempfile.mkdtemp(prefix="mcplogs-remote-e2e-"))
    svc = start(work)
    problems = []
    try:
        for v in versions:
            for g in groups:
                for name, (logs, verdict, _) in run_group(cache, v, g, work, only).items():
                    want = expectation(expected.get(name, {}), v)
                    if want is None or not logs:
                        problems.append(f"{v} {name}: {'no expectation' if logs else 'no log'}")
                        continue
                    p = subprocess.run([mcplogs, "scan", "--json", "--no-cache",
                                        str(logs[0].parent)], capture_output=True, text=True,
                                       env=dict(os.environ, NO_COLOR="1", HOME=str(work)))
                    s = json.loads(p.stdout)["servers"][0]
                    got = (s["verdict"], s.get("cause"))
                    log(f"{v} {name}: Claude Code {verdict['status']}, mcplogs {got}")
                    if got != (want["verdict"], want.get("cause")):
                        problems.append(f"{v} {name}: mcplogs says {got}, expected {want}")
    finally:
        svc.stop()
    for p in problems:
        log(f"MISMATCH {p}")
    if problems:
        log(f"work folder kept: {work}")
        return len(problems)
    shutil.rmtree(work, ignore_errors=True)
    log("every remote case agrees")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--mcp-list", action="store_true",
                    help="with --generate: keep `claude mcp list` over every group instead")
    ap.add_argument("--e2e", action="store_true")
    ap.add_argument("--cache", default=os.environ.get("MCPLOGS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "mcplogs-e2e"))
    ap.add_argument("--versions", default=",".join(VERSIONS), type=e2e.versions_arg)
    ap.add_argument("--groups", default="", help="only these groups of GROUPS")
    ap.add_argument("--only", default="", help="only these cases")
    ap.add_argument("--mcplogs", default=str(REPO / "target" / "debug" / "mcplogs"))
    a = ap.parse_args()
    versions = [v for v in a.versions.split(",") if v]
    groups = [g for g in a.groups.split(",") if g] or list(GROUPS)
    for g in groups:
        if g not in GROUPS:
            ap.error(f"unknown group {g!r}; known: {', '.join(GROUPS)}")
    only = {c for c in a.only.split(",") if c}
    if a.generate and a.mcp_list:
        generate_mcp_list(a.cache, versions, groups)
    elif a.generate:
        generate_all(a.cache, versions, groups, only)
    elif a.e2e:
        if e2e_check(a.cache, versions, groups, only, a.mcplogs):
            raise SystemExit(1)
    else:
        ap.error("pass --generate or --e2e")


if __name__ == "__main__":
    main()
