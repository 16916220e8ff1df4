#!/usr/bin/env python3
"""Builds the many-folders tree of scripts/bench.sh (issue 23 item 7): a home holding
PROJECTS projects of SERVERS server folders each (default 10,000 x 10 = 100,000 folders).

Every file is a real Claude Code log from sample-logs/*-home: each server folder replays
every session file of one real sample server (2 or 6 files, 2 to 5 KB each: what Claude
Code writes per process), with the records' cwd moved to the folder's project and new
session ids. The ten servers of a project are ten different sample servers, picked by a
fixed seed, so every failure of the samples (and the healthy and tolerated servers) turns
up in every share of the tree. Each server's expected verdict, cause and era (its source
server's, from sample-logs/expected.json) is written to <out>/expected.json.

Layout: <out>/home/.cache/claude-cli-nodejs/<project folder>/mcp-logs-<name>/<file>, so
`mcplogs scan --home <out>/home` reads it the way it reads a user's home.

Usage: gen_folders.py SAMPLES_DIR OUT_DIR [PROJECTS] [SERVERS]
"""
import json
import random
import sys
import uuid
from pathlib import Path


def main():
    samples, out = Path(sys.argv[1]), Path(sys.argv[2])
    projects = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
    per_project = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    rng = random.Random(20261201)
    expected = json.loads((samples / "expected.json").read_text())["servers"]
    sources = []
    for e in expected:
        if not e["home"].endswith("-home"):
            continue
        d = samples / e["home"] / e["cache_root"] / e["project_folder"] / e["folder"]
        files = []
        for f in sorted(d.glob("*.jsonl")):
            files.append((f.name, [json.loads(l) for l in f.read_text().splitlines() if l.strip()]))
        sources.append((e, files))
    assert per_project <= len(sources), f"at most {len(sources)} servers a project"

    root = out / "home" / ".cache" / "claude-cli-nodejs"
    root.mkdir(parents=True, exist_ok=True)
    truth = {}
    for p in range(projects):
        cwd = f"/tmp/mcplogs-folders/work/project-{p:05d}"
        project_folder = cwd.replace("/", "-")
        picked = rng.sample(range(len(sources)), per_project)
        for k, i in enumerate(picked):
            e, files = sources[i]
            name = f"{e['folder'][len('mcp-logs-'):]}-{k}"
            d = root / project_folder / f"mcp-logs-{name}"
            d.mkdir(parents=True)
            for fname, recs in files:
                ids = {}
                lines = []
                for r in recs:
                    r = dict(r)
                    if "cwd" in r:
                        r["cwd"] = cwd
                    if "sessionId" in r:
                        r["sessionId"] = ids.setdefault(
                            r["sessionId"], str(uuid.UUID(int=rng.getrandbits(128), version=4))
                        )
                    lines.append(json.dumps(r, separators=(",", ":"), ensure_ascii=False))
                (d / fname).write_text("\n".join(lines) + "\n", encoding="utf-8")
            truth[f"{project_folder}/{name}"] = e["expected"]
    (out / "expected.json").write_text(json.dumps(truth, indent=0))


if __name__ == "__main__":
    main()
