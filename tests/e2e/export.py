#!/usr/bin/env python3
"""End-to-end test of `mcplogs export` against a real OTLP collector (rotel, from PyPI).

Called by tests/e2e/export.sh, which installs rotel and the official OpenTelemetry
protobuf definitions (`opentelemetry-proto`) into a venv in the cache. Everything runs on
loopback, on free ports:

  mcplogs export --(OTLP/HTTP)--> rotel-agent --(OTLP/HTTP, gzip)--> sink (this script)

The sink decodes every request with the official definitions and keeps each log record.
A generated fleet of homes (copies of the sample homes, each with a cache of its own, so
each is a machine) is exported; then checked:

  A. every record `mcplogs export --dry-run` announced arrives exactly once (by
     `mcplogs.record.id`), its `mcplogs.verdict` equal to `scan --json` for that home,
     with only the attributes docs/schema/export.schema.json lists and the required ones;
     no server name, project path or error text without opt-in;
  B. a second export of every machine sends nothing;
  C. the collector stopped: exports of new machines fail (exit 2, one line), nothing
     arrives; the collector restarted: the same exports deliver everything, once;
  D. OTEL_LOG_TOOL_DETAILS=1: server names arrive; http/json and protobuf sent straight to
     the sink decode with the official definitions.
"""
import argparse
import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample-logs"
SCHEMA = json.loads((REPO / "docs/schema/export.schema.json").read_text())
ATTRIBUTES = set(SCHEMA["$defs"]["ExportAttributes"]["properties"])
REQUIRED = {"event.name", "mcplogs.record.id", "mcplogs.machine.id", "mcplogs.verdict",
            "mcplogs.server.id", "mcplogs.problem", "mcplogs.sessions"}
PRIVATE = {"server_name", "mcplogs.project", "mcplogs.error"}
WAIT = 30


def log(msg):
    print(f"[e2e-export] {msg}", file=sys.stderr, flush=True)


problems = []


def problem(msg):
    problems.append(msg)
    log(f"PROBLEM: {msg}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


class Sink:
    """An OTLP/HTTP logs endpoint that decodes with the official definitions."""

    def __init__(self):
        self.records = []
        self.requests = []
        self.lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                ctype = self.headers.get("Content-Type", "")
                req = logs_service_pb2.ExportLogsServiceRequest()
                try:
                    if ctype.startswith("application/json"):
                        json_format.Parse(body.decode(), req)
                    else:
                        req.ParseFromString(body)
                except Exception as e:  # noqa: BLE001 (reported, not raised)
                    problem(f"a request to {self.path} ({ctype}) does not decode: {e}")
                    self.send_response(400)
                    self.end_headers()
                    return
                got = []
                for rl in req.resource_logs:
                    res = {kv.key: value(kv.value) for kv in rl.resource.attributes}
                    for sl in rl.scope_logs:
                        for lr in sl.log_records:
                            a = {kv.key: value(kv.value) for kv in lr.attributes}
                            got.append({"attributes": a, "resource": res,
                                        "body": value(lr.body), "event_name": lr.event_name,
                                        "severity": lr.severity_text, "path": self.path,
                                        "content_type": ctype})
                with sink.lock:
                    sink.records.extend(got)
                    sink.requests.append((self.path, ctype))
                out = logs_service_pb2.ExportLogsServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def count(self):
        with self.lock:
            return len(self.records)

    def wait_for(self, n, quiet=2.0):
        """Waits until at least n records arrived and nothing more came for `quiet` s."""
        end = time.time() + WAIT
        last, since = -1, time.time()
        while time.time() < end:
            c = self.count()
            if c != last:
                last, since = c, time.time()
            elif c >= n and time.time() - since >= quiet:
                return c
            time.sleep(0.1)
        return self.count()


class Rotel:
    def __init__(self, agent, work, sink):
        self.agent, self.work, self.sink = agent, work, sink
        self.http = free_port()
        self.grpc = free_port()
        self.proc = None

    def start(self):
        args = [str(self.agent), "start",
                "--otlp-http-endpoint", f"127.0.0.1:{self.http}",
                "--otlp-grpc-endpoint", f"127.0.0.1:{self.grpc}",
                "--exporter", "otlp",
                "--otlp-exporter-endpoint", self.sink.url(),
                "--otlp-exporter-protocol", "http",
                "--pid-file", str(self.work / "rotel.pid"),
                "--log-file", str(self.work / "rotel.log")]
        self.proc = subprocess.Popen(args, stdout=open(self.work / "rotel.out", "ab"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        end = time.time() + WAIT
        while time.time() < end:
            if self.proc.poll() is not None:
                raise SystemExit(f"[e2e-export] FAIL: rotel-agent exited {self.proc.returncode}"
                                 f" (see {self.work}/rotel.out)")
            try:
                socket.create_connection(("127.0.0.1", self.http), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("[e2e-export] FAIL: rotel-agent did not listen")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def url(self):
        return f"http://127.0.0.1:{self.http}"


class Machine:
    def __init__(self, work, i):
        kind = ["linux-home", "macos-home", "windows-home"][i % 3]
        self.name = f"m{i:03d}"
        self.home = work / "fleet" / self.name / "home"
        self.user = work / "fleet" / self.name / "user"
        self.cache = work / "fleet" / self.name / "cache"
        shutil.copytree(SAMPLES / kind, self.home, symlinks=True)
        self.user.mkdir(parents=True)

    def run(self, mcplogs, args, env=None):
        e = {"HOME": str(self.user), "PATH": os.environ.get("PATH", ""),
             "MCPLOGS_CACHE_DIR": str(self.cache), "NO_COLOR": "1"}
        e.update(env or {})
        return subprocess.run([str(mcplogs), *args, "--home", str(self.home),
                               "--managed-dir", str(self.user / "no-managed")],
                              env=e, cwd=self.user, capture_output=True, text=True, timeout=120)

    def scan(self, mcplogs):
        p = self.run(mcplogs, ["scan", "--json"])
        doc = json.loads(p.stdout)
        verdicts = sorted([s["verdict"] for s in doc["servers"]]
                          + [c["state"] for c in doc["configured"]])
        private = {s["name"] for s in doc["servers"]} | {c["name"] for c in doc["configured"]}
        private |= {s["project"] for s in doc["servers"] if s.get("project")}
        return verdicts, private

    def announced(self, mcplogs, env):
        p = self.run(mcplogs, ["export", "--dry-run"], env)
        if p.returncode != 0:
            problem(f"{self.name}: export --dry-run exited {p.returncode}: {p.stderr.strip()}")
        return [json.loads(ln) for ln in p.stdout.splitlines() if ln.strip()]


def check_arrived(machines, expected, received, label):
    """Every announced record arrived once, as scan says, with the documented attributes."""
    by_id = {}
    for r in received:
        by_id.setdefault(r["attributes"].get("mcplogs.record.id"), []).append(r)
    for m in machines:
        for rec in expected[m.name]:
            rid = rec["attributes"]["mcplogs.record.id"]
            n = len(by_id.get(rid, []))
            if n != 1:
                problem(f"{label}: {m.name}: record {rid} ({rec['body']}) arrived {n} times")
    announced = {r["attributes"]["mcplogs.record.id"] for m in machines for r in expected[m.name]}
    extra = [rid for rid in by_id if rid not in announced]
    if extra:
        problem(f"{label}: {len(extra)} records arrived that no dry run announced")
    for r in received:
        a = r["attributes"]
        unknown = set(a) - ATTRIBUTES
        if unknown:
            problem(f"{label}: undocumented attributes {sorted(unknown)}")
        missing = REQUIRED - set(a)
        if missing:
            problem(f"{label}: record without {sorted(missing)}")
        if r["event_name"] != a.get("event.name"):
            problem(f"{label}: event_name {r['event_name']!r} != event.name {a.get('event.name')!r}")
        if r["resource"].get("service.name") != "mcplogs":
            problem(f"{label}: service.name {r['resource'].get('service.name')!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcplogs", required=True)
    ap.add_argument("--rotel", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--machines", type=int, default=24)
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    mcplogs = Path(args.mcplogs)
    sink = Sink()
    rotel = Rotel(Path(args.rotel), work, sink)
    rotel.start()
    started = time.time()
    try:
        run(mcplogs, work, sink, rotel, args.machines)
    finally:
        rotel.stop()
    log(f"{sink.count()} records received in all; {time.time() - started:.0f}s")
    if problems:
        log(f"FAILED: {len(problems)} problem(s)")
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        sys.exit(1)
    log("ok: every record once, documented attributes, private by default, nothing lost")


def run(mcplogs, work, sink, rotel, n):
    via_rotel = {"OTEL_EXPORTER_OTLP_ENDPOINT": rotel.url()}
    fleet = [Machine(work, i) for i in range(n)]
    first, later = fleet[: n * 2 // 3], fleet[n * 2 // 3:]

    # A. the first machines through rotel
    expected, private = {}, set()
    for m in fleet:
        expected[m.name] = m.announced(mcplogs, via_rotel)
        verdicts, names = m.scan(mcplogs)
        private |= names
        got = sorted(r["attributes"]["mcplogs.verdict"] for r in expected[m.name])
        if got != verdicts:
            problem(f"{m.name}: dry run verdicts {got} != scan --json {verdicts}")
    for m in first:
        p = m.run(mcplogs, ["export"], via_rotel)
        if p.returncode != 0 or len(p.stderr.strip().splitlines()) != 1:
            problem(f"{m.name}: export exited {p.returncode}: {p.stderr.strip()}")
    want = sum(len(expected[m.name]) for m in first)
    got = sink.wait_for(want)
    log(f"A: {len(first)} machines, {want} records announced, {got} arrived through rotel")
    check_arrived(first, expected, list(sink.records), "A")
    dump = json.dumps(sink.records)
    for secret in sorted(private):
        if len(secret) >= 4 and secret in dump:
            problem(f"A: {secret!r} left a machine without OTEL_LOG_TOOL_DETAILS=1")
    for r in sink.records:
        leaked = PRIVATE & set(r["attributes"])
        if leaked:
            problem(f"A: {sorted(leaked)} sent without opt-in")
            break

    # B. nothing new: nothing sent
    before = sink.count()
    for m in first:
        p = m.run(mcplogs, ["export"], via_rotel)
        if p.returncode != 0 or "nothing new" not in p.stderr:
            problem(f"{m.name}: second export: exit {p.returncode}: {p.stderr.strip()}")
    after = sink.wait_for(before, quiet=2.0)
    log(f"B: second export of {len(first)} machines: {after - before} records arrived")
    if after != before:
        problem(f"B: {after - before} records arrived again")

    # C. the collector down: the later machines fail, nothing arrives; back: all once
    rotel.stop()
    for m in later:
        p = m.run(mcplogs, ["export"], {**via_rotel, "OTEL_EXPORTER_OTLP_TIMEOUT": "2000"})
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or "go out on the next run" not in p.stderr:
            problem(f"{m.name}: export with the collector down: exit {p.returncode}: {p.stderr.strip()}")
    log(f"C: collector down: {len(later)} exports failed as expected")
    rotel.start()
    for m in later:
        p = m.run(mcplogs, ["export"], via_rotel)
        if p.returncode != 0:
            problem(f"{m.name}: export after the restart: exit {p.returncode}: {p.stderr.strip()}")
    want = sum(len(expected[m.name]) for m in fleet)
    got = sink.wait_for(want)
    log(f"C: collector back: {got} of {want} records in all")
    check_arrived(fleet, expected, list(sink.records), "C")

    # D. opt-in details, and both encodings straight to the sink
    m = Machine(work, n)
    _, names = m.scan(mcplogs)
    for proto in ["http/protobuf", "http/json"]:
        before = sink.count()
        env = {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": sink.url() + "/direct",
               "OTEL_EXPORTER_OTLP_PROTOCOL": proto, "OTEL_LOG_TOOL_DETAILS": "1"}
        m.cache = work / "fleet" / f"{m.name}-{proto.replace('/', '-')}"
        announced = m.announced(mcplogs, env)
        p = m.run(mcplogs, ["export"], env)
        if p.returncode != 0:
            problem(f"D {proto}: exit {p.returncode}: {p.stderr.strip()}")
        got = sink.wait_for(before + len(announced), quiet=0.5) - before
        new = sink.records[before:]
        if got != len(announced):
            problem(f"D {proto}: {got} of {len(announced)} records")
        ctypes = {r["content_type"] for r in new}
        want_ct = "application/json" if proto == "http/json" else "application/x-protobuf"
        if ctypes != {want_ct}:
            problem(f"D {proto}: content types {ctypes}")
        sent_names = {r["attributes"].get("server_name") for r in new}
        if not (names & sent_names):
            problem(f"D {proto}: no server name arrived with OTEL_LOG_TOOL_DETAILS=1")
        log(f"D {proto}: {got} records decoded, names {sorted(n for n in sent_names if n)[:3]}...")


if __name__ == "__main__":
    main()
