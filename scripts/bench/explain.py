#!/usr/bin/env python3
"""The paste benchmark (issue 50), run by scripts/bench.sh: `mcplogs explain` on the
largest pastes it accepts, linear in time and bounded in memory.

The pastes (deterministic, in OUT):
  tokens16k   16,000 `claude mcp list` lines, each holding a token of its own (the
              redactor learns every one; it used to compare each with all before it)
  tokens16m   the same shape up to the 16 MiB explain reads (about 156,000 lines)
  plain16m    16 MiB of such lines without a token (about 238,000 entries)

Measured, each the median of RUNS (wall time) and the largest peak RSS (the child's
ru_maxrss), in one invocation on a shared machine:
  explain PASTE, explain --json PASTE, and explain --no-redact PASTE (the floor).
Targets: linear, the time per MiB of each 16 MiB paste at most 1.5x that of the 16,000
lines (text and --json); bounded, peak RSS under 1 GiB on each 16 MiB paste; and the
16,000 tokens under 2 s (43 s before issue 50).

Usage: explain.py BIN OUT [RUNS]
"""
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time

LIMIT = 16 * 1024 * 1024  # src/safe_read.rs, EXPLAIN_MAX_BYTES


def token(rng):
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def paste(path, lines=None, with_tokens=True):
    rng = random.Random(50)
    n = 0
    size = len("Checking MCP server health...\n\n")
    with open(path, "w") as f:
        f.write("Checking MCP server health...\n\n")
        while lines is None or n < lines:
            tok = f" --token {token(rng)}" if with_tokens else " --port 3000"
            line = f"srv{n}: npx -y @acme/mcp-server{tok} - \u2717 Failed to connect\n"
            b = len(line.encode())
            if size + b > LIMIT - 64:
                break
            f.write(line)
            size += b
            n += 1
    return n


def run(binary, args, path, home):
    """(seconds, peak RSS in KiB, exit code) of one run, output discarded."""
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "explain", "--no-logs", *args, path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=dict(os.environ, HOME=home))
    _, status, usage = os.wait4(p.pid, 0)
    return time.monotonic() - t0, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def main():
    binary, out = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    os.makedirs(out, exist_ok=True)
    home = tempfile.mkdtemp(prefix="mcplogs-explain-home-")
    pastes = {
        "tokens16k": paste(os.path.join(out, "tokens16k.txt"), lines=16000),
        "tokens16m": paste(os.path.join(out, "tokens16m.txt")),
        "plain16m": paste(os.path.join(out, "plain16m.txt"), with_tokens=False),
    }
    ok = True
    per_mib = {}
    for name, entries in pastes.items():
        path = os.path.join(out, f"{name}.txt")
        mib = os.path.getsize(path) / (1 << 20)
        got = {}
        for label, args in [("no-redact", ["--no-redact"]), ("text", []), ("json", ["--json"])]:
            results = [run(binary, args, path, home) for _ in range(runs)]
            codes = {c for _, _, c in results}
            if codes - {0, 1}:
                print(f"  {name} {label}: FAILED (exit {sorted(codes)})")
                ok = False
            got[label] = (statistics.median(t for t, _, _ in results), max(r for _, r, _ in results))
        print(f"[bench] explain {name}: {mib:.1f} MiB, {entries} lines")
        for label, (secs, rss) in got.items():
            print(f"  {label:<10} {secs:7.2f} s  {rss / 1024:7.1f} MiB  ({secs / mib:.2f} s/MiB)")
        per_mib[name] = {label: got[label][0] / mib for label in ("text", "json")}
        if name == "tokens16k":
            good = got["text"][0] < 2
            ok &= good
            print(f"  16,000 tokens   = {got['text'][0]:.2f} s (target: under 2 s) {'ok' if good else 'MISSED'}")
            continue
        for label in ("text", "json"):
            ratio = per_mib[name][label] / per_mib["tokens16k"][label]
            good = ratio <= 1.5
            ok &= good
            print(f"  {label} s/MiB      = {ratio:.2f}x the 16,000 lines' (target: at most 1.5x) {'ok' if good else 'MISSED'}")
            rss = got[label][1] / 1024
            good = rss < 1024
            ok &= good
            print(f"  {label} peak RSS   = {rss:.0f} MiB (target: under 1024 MiB) {'ok' if good else 'MISSED'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
