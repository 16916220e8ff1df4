#!/usr/bin/env python3
"""Sums up the cargo-mutants runs of one module (mutants.sh archives them under
mutants.out/<module>/runs/): a mutant is caught when any run caught it, timed out
(detected) when one timed out and none caught it, unviable when it never built, missed
when it was run and none of that, and not run otherwise. Only the mutants of the code
as it is now count (list.txt, from `cargo mutants --list`): runs before an edit name
mutants by line, and lines move. Prints the counts, then the missed mutants.

    python3 scripts/mutants_summary.py mutants.out/redact [more module folders...]
"""
import json
import pathlib
import sys

RANK = {"CaughtMutant": 3, "Timeout": 2, "Unviable": 1, "MissedMutant": 0}
NAMES = {3: "caught", 2: "timeout", 1: "unviable", 0: "missed"}


def summary(folder: pathlib.Path) -> None:
    best: dict[str, int] = {}
    for outcomes in sorted(folder.glob("runs/*/outcomes.json")):
        for o in json.loads(outcomes.read_text())["outcomes"]:
            scenario = o["scenario"]
            if not isinstance(scenario, dict) or "Mutant" not in scenario:
                continue
            name = scenario["Mutant"]["name"]
            rank = RANK.get(o["summary"])
            if rank is not None:
                best[name] = max(best.get(name, -1), rank)
    listed = folder / "list.txt"
    if listed.exists():
        now = [line for line in listed.read_text().splitlines() if line.strip()]
    else:
        now = sorted(best)
    counts = {v: 0 for v in NAMES.values()}
    counts["not run"] = 0
    for name in now:
        counts[NAMES[best[name]] if name in best else "not run"] += 1
    print(f"== {folder.name}: {len(now)} mutants: " + "  ".join(f"{k} {v}" for k, v in counts.items()))
    for name in now:
        if best.get(name) == 0:
            print(f"   missed: {name}")
        elif name not in best:
            print(f"   not run: {name}")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        summary(pathlib.Path(arg))
