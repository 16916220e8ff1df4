#!/usr/bin/env python3
"""Builds the deterministic synthetic log tree for scripts/bench.sh.

Every record comes from the real sample logs (sample-logs/*-home): each synthetic server
replays all session files of one real sample server, in order, with a new cwd and new
session ids, and with noise between the records: `Server stderr:` records carrying
base64 (what a chatty server writes) of a few hundred bytes to a few megabytes. One
failing server's latest session (its deciding one: a server that failed to connect, so
its stderr tail is made from that file) is padded to 1.5 GiB (700 MiB for a tree under
2 GiB, as the issue-55 1 GiB tree). The expected verdict of each
synthetic server is its source server's, from sample-logs/expected.json; it is written to
<tree>/expected.json for bench.sh to check.

Usage: gen_tree.py SAMPLES_DIR OUT_DIR [TOTAL_GB]
"""
import base64
import json
import os
import random
import sys
import uuid
from pathlib import Path

PROJECTS = 10
SERVERS_PER_PROJECT = 5
BIG_FILE_BYTES = 1_550 * 1024 * 1024
SMALL_TREE_BIG_FILE_BYTES = 700 * 1024 * 1024


def records(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    samples, out = Path(sys.argv[1]), Path(sys.argv[2])
    total = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
    total_bytes = int(total * 1024**3)
    rng = random.Random(20261129)
    expected = json.loads((samples / "expected.json").read_text())["servers"]
    sources = [e for e in expected if e["home"].endswith("-home")]
    out.mkdir(parents=True, exist_ok=True)
    # Precomputed noise payloads (deterministic), reused: generation must be fast.
    blob = base64.b64encode(rng.randbytes(3 << 20)).decode()
    small = [blob[i * 997 % len(blob):][: rng.randint(200, 4000)] for i in range(64)]
    large = [blob[: rng.randint(256 << 10, 4 << 20)] for _ in range(8)]

    plan = []
    for p in range(PROJECTS):
        for k in range(SERVERS_PER_PROJECT):
            src = sources[(p * SERVERS_PER_PROJECT + k) % len(sources)]
            plan.append((p, k, src))
    files_total = sum(e["sessions"] for _, _, e in plan)
    big_bytes = BIG_FILE_BYTES if total >= 2.0 else SMALL_TREE_BIG_FILE_BYTES
    small_budget = max(0, total_bytes - big_bytes) // files_total
    # The big file is the deciding file of a failing server: the first that failed to
    # connect (its stderr tail, which `scan --json` shows, comes from that file).
    big_at = next(n for n, (_, _, e) in enumerate(plan) if e["expected"]["verdict"] == "connection-failed")

    truth = {}
    written = 0
    for n, (p, k, src) in enumerate(plan):
        home = samples / src["home"]
        src_dir = home / src["cache_root"] / src["project_folder"] / src["folder"]
        cwd = f"/home/bench/work/project-{p:02d}"
        project_folder = cwd.replace("/", "-")
        name = f"{src['folder'][len('mcp-logs-'):]}-{p:02d}{k}"
        dst_dir = out / "claude-cli-nodejs" / project_folder / f"mcp-logs-{name}"
        dst_dir.mkdir(parents=True, exist_ok=True)
        truth[name] = src["expected"]
        files = sorted(src_dir.glob("*.jsonl"))
        for fi, f in enumerate(files):
            recs = records(f)
            sids = {}
            budget = big_bytes if (n == big_at and fi == len(files) - 1) else small_budget
            per_gap = budget // max(1, len(recs))
            with open(dst_dir / f.name, "w", encoding="utf-8") as w:
                for r in recs:
                    sid = sids.setdefault(r.get("sessionId"), str(uuid.UUID(int=rng.getrandbits(128))))
                    r = dict(r)
                    r["sessionId"] = sid
                    r["cwd"] = cwd
                    line = json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                    w.write(line)
                    written += len(line)
                    # Noise after every record, in the same session and time.
                    ts = r.get("timestamp", "")
                    gap = 0
                    while gap < per_gap:
                        payload = small[rng.randrange(len(small))]
                        if rng.random() < 0.02:
                            big = large[rng.randrange(len(large))]
                            if gap + len(big) <= per_gap:
                                payload = big
                        noise = '{"error":"Server stderr: ' + payload + '","timestamp":"' + ts + '","sessionId":"' + sid + '","cwd":"' + cwd + '"}\n'
                        if per_gap > (64 << 20):
                            # The big file: write big repeated chunks quickly.
                            chunk = noise * max(1, (8 << 20) // len(noise))
                            w.write(chunk)
                            gap += len(chunk)
                        else:
                            w.write(noise)
                            gap += len(noise)
                    written += gap
    (out / "expected.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")
    print(f"wrote {written / 1024**3:.2f} GiB in {files_total} files, {len(plan)} servers, {PROJECTS} projects")


if __name__ == "__main__":
    main()
