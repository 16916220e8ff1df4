#!/usr/bin/env python3
"""Builds the "real cache" tree for scripts/bench.sh (issue 12): a month of one user's
Claude Code MCP logs, deterministic (fixed seed).

Shape: PROJECTS projects x 6 servers x 30 days, two Claude Code processes a day (one log
file each per server, named by start time as Claude Code names them), plus `claude mcp
list` health checks. Every session replays the records of one real session file from
sample-logs/linux-home (2.1.288 and 2.1.332 runs), with a new cwd, session id and
timestamps. Two kinds of record are added to sessions that did real work, with the
wording of the Claude Code binary (2.1.288 and 2.1.332 both hold these templates, logged
through the same per-server debug logger as `STDIO connection closed after ...`):

    Calling MCP tool: NAME
    Tool 'NAME' completed successfully in 1s
    STDIO connection closed after 5400s (cleanly)   (the real record, with a long duration)

Image-returning servers write most of the bytes: between their tool calls, `Server
stderr:` records carrying base64 (as the 2 GiB benchmark does). Their old sessions hold
most of the tree; the newest file of every fourth project's image server is several
hundred MB.

The six servers of each project, with the histories that make scanning newest-first
interesting (the verdict a user should get is written to <out>/expected.json):

  imagegen     image server, healthy every day, tool calls              -> healthy
  fixed        tools-fetch-failed for 12 days, then fixed without a version change
               (identical capabilities), tool calls every day since, a health check
               last                                                       -> healthy
  screenshots  image server, healthy 27 days, then regressed (missing resultType) and
               only health checks since                                   -> tools-fetch-failed
  badtool      a bad tool definition every day, each followed by a health check
                                                                          -> tools-fetch-failed
  upgraded     strict 2.1.288 failures for 15 days, then 2.1.332 tolerating the
               omission, tool calls, a health check last                  -> tolerated
  launcher     healthy short sessions, then the command disappeared (5 days)
                                                                          -> connection-failed

Usage: gen_cache.py SAMPLES_DIR OUT_DIR [TOTAL_GB]
"""
import base64
import datetime as dt
import json
import random
import sys
import uuid
from pathlib import Path

PROJECTS = 12
DAYS = 30
START = dt.datetime(2026, 10, 30, tzinfo=dt.timezone.utc)
# linux-home files per server, in order: 0 mcp list (2.1.288), 1 -p text, 2 -p stream-json,
# 3 mcp list (2.1.332), 4 -p text, 5 -p stream-json.
LIST_288, RUN_288, LIST_332, RUN_332 = 0, 2, 3, 5


def load(samples, folder, idx):
    root = samples / "linux-home/.cache/claude-cli-nodejs/-tmp-mcplogs-samples-home-linux-work-api"
    files = sorted((root / f"mcp-logs-{folder}").glob("*.jsonl"))
    with open(files[idx], encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def file_name(t):
    return iso(t).replace(":", "-").replace(".", "-") + ".jsonl"


class Writer:
    def __init__(self, rng, cwd):
        self.rng = rng
        self.cwd = cwd
        blob = base64.b64encode(rng.randbytes(6 << 20)).decode()
        self.blob = blob
        self.written = 0

    def session(self, path, start, recs, *, tools=0, duration=None, noise=0):
        """Writes one session file: `recs` replayed from `start`; with `tools` > 0, tool
        calls (and `noise` bytes of stderr payload between them) go before the shutdown
        records, and the connection lasts `duration` seconds."""
        sid = str(uuid.UUID(int=self.rng.getrandbits(128)))
        t0 = dt.datetime.fromisoformat(recs[0]["timestamp"].replace("Z", "+00:00"))
        # Shutdown starts at the SIGINT record (or the close record).
        cut = next((i for i, r in enumerate(recs)
                    if (r.get("debug") or "").startswith(("Sending SIGINT", "STDIO connection closed", "UNKNOWN connection closed"))),
                   len(recs))
        late = dt.timedelta(seconds=duration or 0)
        out = []

        def line(r, t):
            r = dict(r)
            r["timestamp"] = iso(t)
            r["sessionId"] = sid
            r["cwd"] = self.cwd
            if duration and " connection closed after " in (r.get("debug") or ""):
                kind = r["debug"].split(" ", 1)[0]
                r["debug"] = f"{kind} connection closed after {duration}s (cleanly)"
            return json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"

        def offset(r):
            return dt.datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00")) - t0

        for r in recs[:cut]:
            out.append(line(r, start + offset(r)))
        with open(path, "w", encoding="utf-8") as w:
            w.write("".join(out))
            n = sum(len(x) for x in out)
            if tools:
                per_call = noise // tools
                for k in range(tools):
                    t = start + dt.timedelta(seconds=30 + k * max(1, (duration or 60) // (tools + 1)))
                    name = self.rng.choice(["render_chart", "screenshot", "search", "read_page"])
                    for msg in (f"Calling MCP tool: {name}", f"Tool '{name}' completed successfully in {self.rng.randint(1, 9)}s"):
                        s = json.dumps({"debug": msg, "timestamp": iso(t), "sessionId": sid, "cwd": self.cwd}, separators=(",", ":")) + "\n"
                        w.write(s)
                        n += len(s)
                    if per_call:
                        n += self.noise(w, per_call, iso(t), sid)
            tail = [line(r, start + late + offset(r)) for r in recs[cut:]]
            w.write("".join(tail))
            n += sum(len(x) for x in tail)
        self.written += n
        return n

    def noise(self, w, size, ts, sid):
        """`size` bytes of `Server stderr:` records carrying base64, in big writes."""
        done = 0
        while done < size:
            k = self.rng.randrange(len(self.blob) - 200_000)
            payload = self.blob[k : k + self.rng.randint(2_000, 150_000)]
            rec = '{"error":"Server stderr: ' + payload + '","timestamp":"' + ts + '","sessionId":"' + sid + '","cwd":"' + self.cwd + '"}\n'
            reps = max(1, min((size - done) // len(rec), (16 << 20) // len(rec)))
            w.write(rec * reps)
            done += len(rec) * reps
        return done


def main():
    samples, out = Path(sys.argv[1]), Path(sys.argv[2])
    total_gb = float(sys.argv[3]) if len(sys.argv) > 3 else 11.0
    rng = random.Random(20261130)
    t = {  # the real session templates
        "acme_list": load(samples, "acme-docs", LIST_332),
        "ok_list": load(samples, "modern-ok", LIST_332),
        "ok_run": load(samples, "modern-ok", 4),
        "wrong_run": load(samples, "wrong-types", RUN_332),
        "wrong_list": load(samples, "wrong-types", LIST_332),
        "nrt_run_288": load(samples, "no-resulttype", RUN_288),
        "nrt_list_288": load(samples, "no-resulttype", LIST_288),
        "nrt_run_332": load(samples, "no-resulttype", RUN_332),
        "nrt_list_332": load(samples, "no-resulttype", LIST_332),
        "bad_run": load(samples, "bad-tool", RUN_332),
        "bad_list": load(samples, "bad-tool", LIST_332),
        "missing_run": load(samples, "missing-cmd", RUN_332),
    }
    # Byte budget: big newest files first, the rest spread over the image servers' old
    # sessions (two image servers per project, about 27 days x 2 sessions each).
    big_newest = [p for p in range(PROJECTS) if p % 4 == 0]
    big_bytes = 350 << 20
    image_sessions = PROJECTS * (DAYS * 2 + 27 * 2)
    per_image_session = int((total_gb * 2**30 - len(big_newest) * big_bytes) / image_sessions)

    truth = {}
    for p in range(PROJECTS):
        cwd = f"/home/ana/work/project-{p:02d}"
        proj = out / "claude-cli-nodejs" / cwd.replace("/", "-")
        w = Writer(rng, cwd)

        def server(name, expected):
            folder = f"{name}-{p:02d}"
            d = proj / f"mcp-logs-{folder}"
            d.mkdir(parents=True, exist_ok=True)
            truth[folder] = dict(zip(("verdict", "cause", "era"), expected))
            return d

        def at(day, hour, minute=0):
            return START + dt.timedelta(days=day, hours=hour, minutes=minute, seconds=rng.randint(0, 59), milliseconds=rng.randint(0, 999))

        def work(d, day, hour, recs, noise=0, newest_big=False):
            calls = rng.randint(4, 12)
            size = big_bytes if newest_big else noise
            w.session(d / file_name(at(day, hour)), at(day, hour), recs, tools=calls, duration=rng.randint(1800, 14400), noise=size)

        d = server("imagegen", ("healthy", None, "legacy"))
        for day in range(DAYS):
            for k, hour in enumerate((9, 15)):
                last = day == DAYS - 1 and k == 1
                work(d, day, hour, t["acme_list"], per_image_session, newest_big=last and p in big_newest)

        d = server("fixed", ("healthy", None, "modern"))
        for day in range(DAYS):
            if day < 12:
                w.session(d / file_name(at(day, 9)), at(day, 9), t["wrong_run"])
                w.session(d / file_name(at(day, 15)), at(day, 15), t["wrong_list"])
            else:
                work(d, day, 9, t["wrong_list"])
                work(d, day, 15, t["wrong_list"])
        w.session(d / file_name(at(DAYS - 1, 18)), at(DAYS - 1, 18), t["wrong_list"])

        d = server("screenshots", ("tools-fetch-failed", "missing-resultType", "modern"))
        for day in range(DAYS):
            if day < 27:
                work(d, day, 10, t["ok_list"], per_image_session)
                work(d, day, 16, t["ok_list"], per_image_session)
            else:
                w.session(d / file_name(at(day, 10)), at(day, 10), t["nrt_run_288"])
                w.session(d / file_name(at(day, 16)), at(day, 16), t["nrt_list_288"])
                w.session(d / file_name(at(day, 17)), at(day, 17), t["nrt_list_288"])

        d = server("badtool", ("tools-fetch-failed", "invalid-tool-definition", "legacy"))
        for day in range(DAYS):
            w.session(d / file_name(at(day, 9)), at(day, 9), t["bad_run"])
            w.session(d / file_name(at(day, 15)), at(day, 15), t["bad_list"])

        d = server("upgraded", ("tolerated", None, "modern"))
        for day in range(DAYS):
            if day < 15:
                w.session(d / file_name(at(day, 9)), at(day, 9), t["nrt_run_288"])
                w.session(d / file_name(at(day, 15)), at(day, 15), t["nrt_list_288"])
            else:
                work(d, day, 9, t["nrt_run_332"])
                w.session(d / file_name(at(day, 15)), at(day, 15), t["nrt_list_332"])

        d = server("launcher", ("connection-failed", "command-not-found", None))
        for day in range(DAYS):
            recs = t["ok_run"] if day < 25 else t["missing_run"]
            w.session(d / file_name(at(day, 9)), at(day, 9), recs)
            w.session(d / file_name(at(day, 15)), at(day, 15), recs)
        print(f"project {p:02d}: {w.written / 2**30:.2f} GiB", flush=True)

    (out / "expected.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")
    files = sum(1 for _ in out.rglob("*.jsonl"))
    size = sum(f.stat().st_size for f in out.rglob("*.jsonl"))
    print(f"wrote {size / 2**30:.2f} GiB in {files} files, {len(truth)} servers, {PROJECTS} projects")


if __name__ == "__main__":
    main()
