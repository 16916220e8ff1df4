#!/usr/bin/env python3
"""The targets of BENCHMARKS.md, checked by scripts/bench.sh (issue 55 item 5).

Each section of the benchmark calls `target(id, met, figures)`, which appends one line to
the file named by $BENCH_TARGETS. At the end, `targets.py summary FILE` prints every
target below with what was measured: `met`, `not met`, or `not run` when no section
checked it (a section switched off, or one that failed before its check). A target
that did not run is never met, and the summary exits 1 unless every target is met.
"""
import os
import sys

# id, what is checked (the wording of BENCHMARKS.md's table).
TARGETS = [
    ("tree-time", "warm synthetic tree: scan --json at most 1.5x rg -uuu -c"),
    ("tree-rss", "warm synthetic tree: scan --json under 64 MiB"),
    *[(f"folders-{cmd}-{what}", f"100,000 folders: {label} {text}")
      for cmd, label in [("scan", "scan"), ("scan_json", "scan --json"), ("report", "report"),
                         ("du", "du"), ("export", "export")]
      for what, text in [("time", "at most 2.5x find -type f"), ("rss", "under 256 MiB")]],
    *[(f"folders-index-{cmd}", f"100,000 folders: {label} with a warm index at most 0.8x without")
      for cmd, label in [("scan", "scan"), ("scan_json", "scan --json"), ("report", "report"),
                         ("export_again", "export (nothing new)")]],
    ("cache-cold", "cold 12 GiB cache: first scan at most 0.1x a cold rg -uuu -c"),
    ("cache-index", "warm 12 GiB cache: scan with a warm index at most 0.8x without"),
    ("statusline-steady", "status line, every run after a session's first: within 3x --version + 30 ms"),
    ("statusline-first", "status line, a session's first run on the 12 GiB cache (and each run reading on after it): the same"),
    ("statusline-clear", "status line, a session's first run after /clear (its process's files read by the session before): the same"),
]


def target(ident, met, figures):
    """Records one checked target (called by the benchmark's sections)."""
    path = os.environ.get("BENCH_TARGETS")
    if not path:
        return
    assert ident in dict(TARGETS), ident
    with open(path, "a") as f:
        f.write(f"{ident}\t{'met' if met else 'not met'}\t{figures}\n")


def summary(path):
    seen = {}
    for line in open(path):
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 3:
            seen[parts[0]] = (parts[1], parts[2])
    print("\nTargets (BENCHMARKS.md):")
    all_met = True
    width = max(len(text) for _, text in TARGETS)
    for ident, text in TARGETS:
        state, figures = seen.get(ident, ("not run", ""))
        all_met &= state == "met"
        print(f"  {text:<{width}}  {state:<8} {figures}")
    return all_met


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "summary":
        sys.exit(0 if summary(sys.argv[2]) else 1)
    print("usage: targets.py summary FILE", file=sys.stderr)
    sys.exit(2)
