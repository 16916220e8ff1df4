#!/usr/bin/env python3
"""The status line benchmark (issue 26), run by scripts/bench.sh on the real-cache tree.

Claude Code runs `mcplogs statusline` every few seconds, so it must cost about what
starting the program costs: target, median within 3x of `mcplogs --version` + 30 ms.

The tree (gen_cache.py) gives every server file a session id of its own; a real Claude
Code process writes one session id into every server's file. So a "live" project is made
beside the others: a copy (hard links, no space) of the project whose largest newest
file is the largest of all, with the newest file of each of its six servers rewritten to
carry one session id, as one running Claude Code would leave it. The input names that
project and session; its launcher server's newest file ends with a failure. The rest of the tree (12 GiB, 30 days) is around it and must not be
read.

Measured, each the median of RUNS, in one invocation on a shared machine (ratios hold,
absolute times drift):
  version      mcplogs --version
  first        mcplogs statusline, no memo (the first run of a session on this tree; in
               real use the first run comes when the session's files are still small):
               it reads within its budget (the start and the end of the 350 MiB file),
               the server not decided yet (`…`) while its middle could still decide
  reading      the runs after it that read on into that middle, a budget each, until the
               line is the exact one (the one a whole read gives: `mcplogs hook` reads
               whole); how many runs that takes is printed
  steady       mcplogs statusline with a complete memo (every later run)
  clear        the first run of a new session id in the same process (after `/clear`:
               the new session's record appended to a server's file, the previous
               session's memo there), which reads on from that memo
and cold (page cache dropped before each run, needs root; else said so): first and
steady; SL_COLD=0 in the environment skips the cold runs (they empty the page cache of
the whole machine). Also checks the line (the live project's failing servers, by name) and counts the
files the run opened (strace, when installed).

Usage: statusline.py BIN TREE OUT [RUNS]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

SESSION = "5e55104e-0000-4000-8000-00000000b26e"
LIVE = "-home-dev-live-session"
CWD = "/home/dev/live-session"


def newest(d):
    files = sorted(p for p in d.iterdir() if p.name.endswith(".jsonl"))
    return files[-1] if files else None


def make_live(tree):
    live = tree / LIVE
    stamp = live / ".live-stamp"
    if stamp.exists():
        return live
    def largest_newest(project):
        return max((newest(d).stat().st_size for d in project.iterdir()
                    if d.is_dir() and newest(d)), default=0)
    heavy = max((p for p in tree.iterdir() if p.is_dir() and p.name != LIVE), key=largest_newest)
    shutil.rmtree(live, ignore_errors=True)
    subprocess.run(["cp", "-al", str(heavy), str(live)], check=True)
    # One process names its file the same in every server folder (its start time).
    servers = [d for d in sorted(live.iterdir()) if d.is_dir() and newest(d)]
    stamp_name = max(newest(d).name for d in servers)
    for server in servers:
        f = newest(server)
        if f.name != stamp_name:
            f = f.rename(server / stamp_name)
        old = None
        tmp = f.with_suffix(".tmp")
        with open(f, "rb") as src, open(tmp, "wb") as dst:
            for line in src:
                if old is None and b'"sessionId":"' in line:
                    i = line.index(b'"sessionId":"') + 13
                    old = line[i:line.index(b'"', i)]
                if old:
                    line = line.replace(old, SESSION.encode())
                dst.write(line)
        if server.name.startswith("mcp-logs-launcher"):
            # the one failure of the live session: its command disappeared
            with open(tmp, "a") as dst:
                dst.write(json.dumps({"error": 'Connection failed (ENOENT): Executable not found in $PATH: "launcher"',
                                      "timestamp": "2026-11-29T15:00:00.000Z", "sessionId": SESSION,
                                      "cwd": CWD}) + "\n")
        os.replace(tmp, f)  # a new inode: the hard link to the original is broken
    stamp.write_text(heavy.name + "\n")
    return live


def timed(argv, stdin, env):
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=stdin, capture_output=True, env=env)
    return time.perf_counter() - t0, p


def drop(files):
    """Empties the page cache: drop_caches (root), else evicts `files` one by one with
    posix_fadvise(DONTNEED), which any user may do for files they can open. Returns how."""
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return "drop_caches before each run"
    except OSError:
        pass
    for p in files:
        try:
            fd = os.open(p, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return ("drop_caches not allowed here: posix_fadvise(DONTNEED) before each run on the "
            "binary and every file of the live project (all the statusline can read)")


def main():
    binary, tree, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 21
    live = make_live(tree)
    home = out / "sl-home"
    root = home / ".cache" / "claude-cli-nodejs"
    root.parent.mkdir(parents=True, exist_ok=True)
    if not root.exists():
        os.symlink(tree, root)
    memo = out / "sl-memo"
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "MCPLOGS_CACHE_DIR": str(memo),
           "NO_COLOR": "1"}
    inp = json.dumps({"session_id": SESSION, "cwd": CWD, "workspace": {"current_dir": CWD, "project_dir": CWD},
                      "version": "2.1.332", "model": {"id": "claude-opus-5-5"}}).encode()
    sizes = {p.parent.name: p.stat().st_size for p in (newest(d) for d in live.iterdir() if d.is_dir()) if p}
    total = sum(f.stat().st_size for f in tree.rglob("*.jsonl") if LIVE not in f.parts)
    print(f"tree: {total / 2**30:.1f} GiB outside the live project; live project "
          f"{live.name} (a copy of {(live / '.live-stamp').read_text().strip()}), newest files: "
          + ", ".join(f"{k[9:]} {v / 2**20:.1f} MiB" for k, v in sorted(sizes.items())))
    for _ in range(3):  # warm
        timed([binary, "--version"], b"", env)
        shutil.rmtree(memo, ignore_errors=True)
        timed([binary, "statusline"], inp, env)
    # The exact line: the hook reads every file whole and leaves a complete memo.
    shutil.rmtree(memo, ignore_errors=True)
    hook_inp = inp.replace(b'"version"', b'"hook_event_name":"UserPromptSubmit","version"')
    subprocess.run([binary, "hook"], input=hook_inp, capture_output=True, env=env)
    exact = timed([binary, "statusline"], inp, env)[1].stdout.decode().strip()
    # A session from its first run to the exact line, each run timed.
    shutil.rmtree(memo, ignore_errors=True)
    first_line = ""
    pass_times = []
    to_exact = None
    for n in range(1, 201):
        t, p = timed([binary, "statusline"], inp, env)
        pass_times.append(t)
        got = p.stdout.decode().strip()
        if n == 1:
            first_line = got
        if got == exact:
            to_exact = n
            break
    complete = out / "sl-memo-complete"
    shutil.rmtree(complete, ignore_errors=True)
    shutil.copytree(memo, complete)
    rows = {"version": [], "first": [], "reading": [], "steady": [], "clear": []}
    line = ""
    # `/clear`: a new session id whose first record follows the old one's in the
    # launcher's file (the file is cut back to its size at the end).
    launcher = next(newest(d) for d in sorted(live.iterdir()) if d.name.startswith("mcp-logs-launcher"))
    launcher_size = launcher.stat().st_size
    clear_line = ""
    try:
        for i in range(runs):
            rows["version"].append(timed([binary, "--version"], b"", env)[0])
            shutil.rmtree(memo, ignore_errors=True)
            t, p = timed([binary, "statusline"], inp, env)
            rows["first"].append(t)
            # the second run of the session reads on into the first one's gap
            t, p = timed([binary, "statusline"], inp, env)
            rows["reading"].append(t)
            shutil.rmtree(memo, ignore_errors=True)
            shutil.copytree(complete, memo)
            t, p = timed([binary, "statusline"], inp, env)
            rows["steady"].append(t)
            line = p.stdout.decode().strip()
            new_session = SESSION[:-4] + f"{i:04x}"
            with open(launcher, "a") as f:
                f.write(json.dumps({"debug": "Channel notifications skipped: no channels", "timestamp": "2026-11-29T15:01:00.000Z",
                                    "sessionId": new_session, "cwd": CWD}) + "\n")
            t, p = timed([binary, "statusline"], inp.replace(SESSION.encode(), new_session.encode()), env)
            rows["clear"].append(t)
            clear_line = p.stdout.decode().strip()
    finally:
        os.truncate(launcher, launcher_size)
    cold = {"first": [], "steady": []}
    evict = [binary] + [str(f) for f in live.rglob("*.jsonl")]
    how = ""
    # SL_COLD=0 skips the cold runs: they empty the whole machine's page cache, which
    # spoils any warm measurement running beside this one (bench.sh runs them).
    cold_runs = 0 if os.environ.get("SL_COLD", "1") == "0" else 3
    for _ in range(cold_runs):
        shutil.rmtree(memo, ignore_errors=True)
        how = drop(evict)
        cold["first"].append(timed([binary, "statusline"], inp, env)[0])
        drop(evict)
        cold["steady"].append(timed([binary, "statusline"], inp, env)[0])
    opened = None
    if shutil.which("strace"):
        shutil.rmtree(memo, ignore_errors=True)
        trace = out / "sl-strace.txt"
        subprocess.run(["strace", "-f", "-e", "trace=openat", "-o", str(trace), binary, "statusline"],
                       input=inp, capture_output=True, env=env)
        opened = [ln for ln in trace.read_text().splitlines() if ".jsonl" in ln and "= -1" not in ln]
    med = {k: statistics.median(v) for k, v in rows.items()}
    target = 3 * med["version"] + 0.030
    print(f"line: {line}")
    print(f"exact line (after `mcplogs hook`, which reads whole): {exact}")
    print(f"line of a session's first run: {first_line}")
    if to_exact is None:
        print(f"  the line was not the exact one after {len(pass_times)} runs")
    else:
        print(f"  runs to the exact line: {to_exact} (the first included; each at most "
              f"{max(pass_times) * 1000:.1f} ms; at refreshInterval 10 s, about "
              f"{(to_exact - 1) * 10} s)")
    print(f"line after /clear: {clear_line}")
    for k in rows:
        print(f"  {k:<8} median {med[k] * 1000:7.1f} ms  (best {min(rows[k]) * 1000:.1f} ms, {runs} runs)")
    if cold_runs:
        for k in cold:
            print(f"  cold {k:<8} median {statistics.median(cold[k]) * 1000:7.1f} ms  ({cold_runs} runs)")
        print(f"  cold: {how}")
    else:
        print("  cold: not run (SL_COLD=0)")
    if opened is not None:
        print(f"  log files opened by a first run: {len(opened)} (of {sum(1 for _ in tree.rglob('*.jsonl'))} in the tree)")
    ok = med["steady"] <= target
    target_ms = target * 1000
    print(f"target 3 x {med['version'] * 1000:.1f} + 30 = {target * 1000:.1f} ms")
    print(f"  every run after the first (steady) = {med['steady'] * 1000:.1f} ms: {'met' if ok else 'NOT MET'}")
    first_ok = med["first"] <= target
    print(f"  the first run of a session on this tree = {med['first'] * 1000:.1f} ms: "
          f"{'met' if first_ok else 'not met'}")
    reading_ok = med["reading"] <= target
    print(f"  a run reading on into the first run's gap = {med['reading'] * 1000:.1f} ms: "
          f"{'met' if reading_ok else 'not met'}")
    if line != exact or to_exact is None:
        print(f"the session's line is not the exact one: {line!r} against {exact!r}")
        ok = False
    clear_ok = med["clear"] <= target
    print(f"  the first run after /clear (the session before's memo) = {med['clear'] * 1000:.1f} ms: "
          f"{'met' if clear_ok else 'NOT MET'}")
    if clear_line != line:
        print(f"the line after /clear differs from the session's: {clear_line!r}")
        ok = False
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from targets import target as record_target
    record_target("statusline-steady", ok, f"{med['steady'] * 1000:.1f} ms (target {target_ms:.1f} ms)")
    record_target("statusline-first", first_ok and reading_ok,
                  f"{med['first'] * 1000:.1f} ms, reading on {med['reading'] * 1000:.1f} ms "
                  f"(target {target_ms:.1f} ms; exact after {to_exact} runs)")
    record_target("statusline-clear", clear_ok, f"{med['clear'] * 1000:.1f} ms (target {target_ms:.1f} ms)")
    if "1✗ launcher" not in line:
        print(f"the line does not name the live session's failing server (launcher): {line!r}")
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
