#!/usr/bin/env bash
# The scale benchmark (issue: multi-gigabyte trees at near disk speed, flat memory).
# One command from a fresh clone:  bash scripts/bench.sh
#
# Builds a deterministic ~2 GiB synthetic tree from the real sample records
# (scripts/bench/gen_tree.py: 50 servers over 10 projects, several sessions each, one
# file of 1.5 GiB (700 MiB with BENCH_GB under 2), the deciding file of a server that
# failed to connect, so its stderr tail comes from it; base64 payload noise), warms the
# page cache, then runs on the same
# tree, in this one invocation:
#   - mcplogs scan --json                     (decodes what can matter, classifies)
#   - rg -uuu -c -e NEEDLE...                 (raw search for the same needles: the limit)
#   - find | xargs cat | jq -R 'fromjson? | select(...)'  (decodes every record)
# and prints wall time (best and median of RUNS), throughput, peak RSS and the ratios,
# then checks mcplogs' verdicts against those of the records the tree was built from.
#
# Then the "real cache" benchmark (issue 12, scripts/bench/gen_cache.py: 12 projects x
# 6 servers x 30 days, 11 GiB, image servers, fixes and regressions over time), cold
# page cache (drop_caches; needs root) for the first scan against a cold `rg -uuu -c`,
# then warm `scan --all --no-cache` (every byte read) against warm rg, the default scan
# and `prune --dry-run` with the summary index (src/index.rs) the earlier scans wrote,
# and the verdicts of the first scan against `--all` and against the history the tree
# was built with, and of the scan with the index against the scan without it.
#
# The summary index lives in a folder of this run ($OUT/index), never the user's: the
# first, cold scans each start with an empty one (a first scan ever), and the 2 GiB
# benchmark reads with --no-cache (it measures reading speed).
#
# Environment: BENCH_DIR (default /tmp/mcplogs-bench), BENCH_GB (2.0), RUNS (5),
# JQ_RUNS (1; jq takes about a minute per run), CACHE_DIR (default $BENCH_DIR-cache),
# CACHE_GB (11), COLD_RUNS (3), REAL_CACHE (1; 0 skips it), SYNTHETIC (1; 0 skips the
# 2 GiB benchmark), SETUP (1; 0 skips the set-up times), PROBE (1; 0 skips the probe
# benchmark), PROBE_RUNS (5), MCPLOGS_CACHE (the e2e's install cache, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/mcplogs-e2e), FOLDERS (1; 0 skips the many-folders benchmark), FOLDERS_DIR
# (default $BENCH_DIR-folders), FOLDERS_PROJECTS (10000), FOLDERS_RUNS (3), STATUSLINE (1;
# 0 skips the status line benchmark), SL_RUNS (21), SL_COLD (1; 0 skips its cold runs), EXPLAIN (1; 0 skips the paste
# benchmark), EXPLAIN_RUNS (3).
#
# PROBE: `mcplogs probe` against the MCP Inspector CLI (`--cli ... --method tools/list`)
# on the e2e's SDK servers, stdio and Streamable HTTP, wall time and peak RSS of each,
# and what each reports (scripts/bench/probe_bench.py; the SDKs and the Inspector come
# from the package registries into the cache, tests/e2e/sdk/install.sh --with-inspector).
#
# Last, the many-folders benchmark (issue 23 item 7, issue 55; scripts/bench/gen_folders.py):
# FOLDERS_PROJECTS projects x 10 server folders of real sample logs, page cache warm,
# FOLDERS_RUNS interleaved runs each of `find TREE -type f`, `scan`, `scan --json`,
# `report` (each with --no-cache, and with a warm summary index of the section's own),
# `report --json` (no target),
# `du` and `export --file` (a first export: every record new; and again with nothing new,
# without and with the index). Targets: each command at most 2.5x find's time and under
# 256 MiB peak RSS; with the warm index at most 0.8x the same command without it; the
# document with the index equal to the one without.
#
# At the end every target of BENCHMARKS.md is printed as met, not met, or not run
# (scripts/bench/targets.py); the script exits 1 unless all are met.
#
# EXPLAIN: `mcplogs explain` on the largest pastes it accepts (issue 50,
# scripts/bench/explain.py): 16,000 lines each holding a token, and 16 MiB of lines with
# and without tokens; text, --json and --no-redact (the floor), wall time and peak RSS.
# Targets: linear (time per MiB of a 16 MiB paste at most 1.5x that of the 16,000
# lines), peak RSS under 1 GiB, 16,000 tokens under 2 s.
#
# Last, the status line (issue 26, scripts/bench/statusline.py): median of
# `mcplogs statusline` (first run of a session, and every later run with its memo)
# against `mcplogs --version`, warm and cold, on the real-cache tree with a live
# session's project beside it. Target: within 3x of --version + 30 ms.
#
# First, the set-up times a newcomer meets (issue 25): a fresh clone of HEAD with an
# empty target folder (the crates already in ~/.cargo/registry: downloading them is the
# network's time, not the build's), then the README's two commands, timed one after
# the other: `cargo run -q -- scan sample-logs/` (target: 5 minutes) and `cargo test`
# (target: 8 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/mcplogs-bench}
BENCH_GB=${BENCH_GB:-2.0}
RUNS=${RUNS:-5}
JQ_RUNS=${JQ_RUNS:-1}
CACHE_DIR=${CACHE_DIR:-$BENCH_DIR-cache}
CACHE_GB=${CACHE_GB:-11}
COLD_RUNS=${COLD_RUNS:-3}
REAL_CACHE=${REAL_CACHE:-1}
SYNTHETIC=${SYNTHETIC:-1}
SETUP=${SETUP:-1}
PROBE=${PROBE:-1}
FOLDERS=${FOLDERS:-1}
FOLDERS_DIR=${FOLDERS_DIR:-$BENCH_DIR-folders}
FOLDERS_PROJECTS=${FOLDERS_PROJECTS:-10000}
FOLDERS_RUNS=${FOLDERS_RUNS:-3}
STATUSLINE=${STATUSLINE:-1}
SL_RUNS=${SL_RUNS:-21}
EXPLAIN=${EXPLAIN:-1}
EXPLAIN_RUNS=${EXPLAIN_RUNS:-3}
status=0

if [ "$SETUP" = 1 ]; then
  clone=$(mktemp -d "${TMPDIR:-/tmp}/mcplogs-setup.XXXXXX")
  git clone --quiet --no-local . "$clone/repo"
  echo "[bench] set-up from a fresh clone ($(git rev-parse --short HEAD)); load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
  # Seconds a command takes; scan's exit 1 (the samples hold failing servers) is success.
  secs() {
    local t0 t1 rc=0
    t0=$(date +%s.%N)
    (cd "$clone/repo" && "$@") >/dev/null 2>&1 || rc=$?
    t1=$(date +%s.%N)
    [ "$rc" -le 1 ] || echo "[bench] FAILED ($rc): $*" >&2
    python3 -c "print(f'{$t1 - $t0:.0f}')"
  }
  run_s=$(secs cargo run -q -- scan sample-logs/)
  test_s=$(secs cargo test -q)
  if python3 - "$run_s" "$test_s" <<'PY'
import sys
run_s, test_s = (float(x) for x in sys.argv[1:3])
ok = True
for label, v, target in [("clone to first scan", run_s, 300), ("then cargo test", test_s, 480)]:
    good = v <= target
    ok &= good
    print(f"  {label:<20} = {v:.0f} s (target: at most {target} s) {'ok' if good else 'MISSED'}")
sys.exit(0 if ok else 1)
PY
  then :; else status=1; fi
  rm -rf "$clone"
fi

need() { command -v "$1" >/dev/null 2>&1; }
if ! need rg || ! need jq || [ ! -x /usr/bin/time ]; then
  echo "[bench] installing ripgrep, jq and time from the system packages"
  apt-get update -qq && apt-get install -y -qq ripgrep jq time >/dev/null
fi

echo "[bench] building mcplogs (release)"
cargo build --quiet --release
BIN=$PWD/target/release/mcplogs

# The needles: exactly the scan's prefilter (PREFILTER_NEEDLES in src/claude_code/markers.rs).
mapfile -t NEEDLES < <(python3 - <<'PY'
import re
s = open("src/claude_code/markers.rs").read()
body = re.search(r"PREFILTER_NEEDLES: &\[&str\] = &\[(.*?)\];", s, re.S).group(1)
print("\n".join(re.findall(r'"([^"]+)"', body)))
PY
)
RG_ARGS=()
for n in "${NEEDLES[@]}"; do RG_ARGS+=(-e "$n"); done
JQ_RE=$(printf '%s\n' "${NEEDLES[@]}" | python3 -c 'import re,sys; print("|".join(re.escape(l.strip()) for l in sys.stdin))')

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export MCPLOGS_CACHE_DIR=$OUT/index
# Each section appends one line a target it checked: id, met or not met, the figures
# (scripts/bench/targets.py); the summary at the end prints every target of
# BENCHMARKS.md, `not run` for those no section checked.
export BENCH_TARGETS=$OUT/targets.tsv
: > "$BENCH_TARGETS"
echo "[bench] $(date -u '+%Y-%m-%d %H:%M UTC'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure() { # name, then the command; appends "seconds kb" to $OUT/name
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$OUT/$name.one" "$@" > "$OUT/$name.stdout" 2> "$OUT/$name.stderr" || true
  # (time also writes "Command exited with non-zero status 1" there: exit 1 = problems found)
  tail -n 1 "$OUT/$name.one" >> "$OUT/$name.times"
}

if [ "$PROBE" = 1 ]; then
  PROBE_CACHE=${MCPLOGS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcplogs-e2e}
  bash tests/e2e/sdk/install.sh "$PROBE_CACHE" --with-inspector
  python3 scripts/bench/probe_bench.py "$BIN" "$PROBE_CACHE" "${PROBE_RUNS:-5}" || status=1
fi

if [ "$SYNTHETIC" = 1 ]; then
# Regenerate the tree only when the generator, the samples or the size changed.
stamp=$(cat scripts/bench/gen_tree.py sample-logs/expected.json | sha256sum | cut -c1-16)-$BENCH_GB
if [ "$(cat "$BENCH_DIR/.stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "[bench] generating the synthetic tree in $BENCH_DIR"
  rm -rf "$BENCH_DIR"
  python3 scripts/bench/gen_tree.py sample-logs "$BENCH_DIR" "$BENCH_GB"
  echo "$stamp" > "$BENCH_DIR/.stamp"
fi

BYTES=$(find "$BENCH_DIR" -name '*.jsonl' -printf '%s\n' | python3 -c 'import sys; print(sum(map(int, sys.stdin)))')
FILES=$(find "$BENCH_DIR" -name '*.jsonl' | wc -l)
BIGGEST=$(find "$BENCH_DIR" -name '*.jsonl' -printf '%s\n' | sort -n | tail -1)
echo "[bench] tree: $FILES files, $BYTES bytes, largest file $BIGGEST bytes"
echo "[bench] warming the page cache"
find "$BENCH_DIR" -name '*.jsonl' -print0 | xargs -0 cat > /dev/null

jq_pipeline() {
  find "$BENCH_DIR" -name '*.jsonl' -print0 | xargs -0 cat \
    | jq -R -c --arg re "$JQ_RE" 'fromjson? | select((.error // .debug // "") | test($re))' | wc -l
}
export -f jq_pipeline; export BENCH_DIR JQ_RE

echo "[bench] $RUNS paired runs of mcplogs and rg, $JQ_RUNS of jq"
for i in $(seq "$RUNS"); do
  measure mcplogs "$BIN" scan --json --no-cache "$BENCH_DIR/claude-cli-nodejs"
  cp "$OUT/mcplogs.stdout" "$OUT/scan.json"
  measure rg rg -uuu -c "${RG_ARGS[@]}" "$BENCH_DIR/claude-cli-nodejs"
done
for i in $(seq "$JQ_RUNS"); do
  measure jq bash -c jq_pipeline
done

python3 - "$OUT" "$BYTES" "$BENCH_DIR/expected.json" "$(nproc)" <<'PY' || status=1
import json, statistics, sys
out, total, truth_path, cores = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = {}
for name in ["mcplogs", "rg", "jq"]:
    t = [tuple(map(float, l.split())) for l in open(f"{out}/{name}.times") if l.strip()]
    secs = [x[0] for x in t]
    rows[name] = dict(best=min(secs), median=statistics.median(secs), rss=max(x[1] for x in t) / 1024, n=len(t))
print()
print(f"tree: {total / 2**30:.2f} GiB; machine: {cores} cores; page cache warm")
print(f"{'tool':<10}{'runs':>5}{'best s':>9}{'median s':>10}{'GiB/s':>8}{'peak RSS MiB':>14}")
for name, r in rows.items():
    print(f"{name:<10}{r['n']:>5}{r['best']:>9.2f}{r['median']:>10.2f}{total / 2**30 / r['median']:>8.2f}{r['rss']:>14.1f}")
m, rg, jq = rows["mcplogs"], rows["rg"], rows["jq"]
ratio_rg = m["median"] / rg["median"]
ratio_jq = jq["median"] / m["median"]
print()
print(f"mcplogs / rg -c     = {ratio_rg:.2f}x   (target: at most 1.5x)   {'met' if ratio_rg <= 1.5 else 'NOT MET'}")
print(f"jq / mcplogs        = {ratio_jq:.1f}x   (target: at least 20x)    {'met' if ratio_jq >= 20 else 'NOT MET'}")
print(f"mcplogs peak RSS    = {m['rss']:.1f} MiB (target: under 64 MiB)  {'met' if m['rss'] < 64 else 'NOT MET'}")
sys.path.insert(0, "scripts/bench")
from targets import target
target("tree-time", ratio_rg <= 1.5, f"{ratio_rg:.2f}x rg -uuu -c ({m['median']:.2f} s vs {rg['median']:.2f} s)")
target("tree-rss", m["rss"] < 64, f"{m['rss']:.1f} MiB")

truth = json.load(open(truth_path))
doc = json.load(open(f"{out}/scan.json"))
got = {s["folder"]: (s["verdict"], s["cause"], s["era"]) for s in doc["servers"]}
bad = []
for folder, e in truth.items():
    want = (e["verdict"], e["cause"], e["era"])
    if got.get(folder) != want:
        bad.append(f"  {folder}: mcplogs {got.get(folder)}, records say {want}")
ok = not bad and len(got) == len(truth)
print(f"verdicts            = {len(truth) - len(bad)}/{len(truth)} equal to the source records' {'met' if ok else 'NOT MET'}")
print("\n".join(bad))
print(f"warnings: {len(doc['warnings'])}")
sys.exit(0 if ok else 1)
PY
fi

# The real-cache tree, generated once per generator, samples and size.
real_cache_tree() {
  local stamp
  stamp=$(cat scripts/bench/gen_cache.py sample-logs/expected.json | sha256sum | cut -c1-16)-$CACHE_GB
  if [ "$(cat "$CACHE_DIR/.stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "[bench] generating the real-cache tree in $CACHE_DIR (a few minutes)"
    rm -rf "$CACHE_DIR"
    python3 scripts/bench/gen_cache.py sample-logs "$CACHE_DIR" "$CACHE_GB"
    echo "$stamp" > "$CACHE_DIR/.stamp"
  fi
}

if [ "$REAL_CACHE" = 1 ]; then
  real_cache_tree
  TREE=$CACHE_DIR/claude-cli-nodejs
  CBYTES=$(find "$TREE" -name '*.jsonl' -printf '%s\n' | python3 -c 'import sys; print(sum(map(int, sys.stdin)))')
  CFILES=$(find "$TREE" -name '*.jsonl' | wc -l)
  echo "[bench] real cache: $CFILES files, $CBYTES bytes"
  drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
  if drop 2>/dev/null; then COLD=drop_caches; else COLD=none; echo "[bench] cannot drop the page cache here (not root?): cold numbers are NOT cold"; fi
  echo "[bench] $COLD_RUNS cold runs each of the first scan and rg"
  echo "[bench] load: $(cut -d' ' -f1-3 /proc/loadavg)"
  for i in $(seq "$COLD_RUNS"); do
    drop 2>/dev/null || true
    # A first scan: no index yet (each run starts with an empty one).
    measure cold_scan env MCPLOGS_CACHE_DIR="$OUT/cold-index-$i" "$BIN" scan --json "$TREE"
    cp "$OUT/cold_scan.stdout" "$OUT/first.json"
    drop 2>/dev/null || true
    measure cold_rg rg -uuu -c "${RG_ARGS[@]}" "$TREE"
  done
  echo "[bench] warming the page cache"
  find "$TREE" -name '*.jsonl' -print0 | xargs -0 cat > /dev/null
  echo "[bench] load: $(cut -d' ' -f1-3 /proc/loadavg)"
  # The index of this run: written by the first default scan (which reads what the
  # first scan reads), then used by the default scans and prune.
  "$BIN" scan --json "$TREE" > /dev/null || true
  echo "[bench] $RUNS warm runs each of scan --all --no-cache, rg, scan, prune --dry-run (index), scan --no-cache, prune --dry-run --no-cache"
  for i in $(seq "$RUNS"); do
    measure warm_all "$BIN" scan --all --no-cache --json "$TREE"
    cp "$OUT/warm_all.stdout" "$OUT/all.json"
    measure warm_rg rg -uuu -c "${RG_ARGS[@]}" "$TREE"
    measure warm_scan "$BIN" scan --json "$TREE"
    cp "$OUT/warm_scan.stdout" "$OUT/indexed.json"
    measure prune "$BIN" prune --dry-run "$TREE"
    measure warm_scan_nc "$BIN" scan --json --no-cache "$TREE"
    cp "$OUT/warm_scan_nc.stdout" "$OUT/unindexed.json"
    measure prune_nc "$BIN" prune --dry-run --no-cache "$TREE"
  done
  cp "$OUT/prune.stdout" "$OUT/prune.txt"
  "$BIN" prune --dry-run --json "$TREE" > "$OUT/prune.json" || true
  "$BIN" prune --dry-run --json --no-cache "$TREE" > "$OUT/prune_nc.json" || true
  echo "[bench] load: $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 - "$OUT" "$CBYTES" "$CACHE_DIR/expected.json" "$(nproc)" "$COLD" <<'PY' || status=1
import json, statistics, sys
out, total, truth_path, cores, cold = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
rows = {}
for name in ["cold_scan", "cold_rg", "warm_all", "warm_rg", "warm_scan", "prune", "warm_scan_nc", "prune_nc"]:
    t = [tuple(map(float, l.split())) for l in open(f"{out}/{name}.times") if l.strip()]
    secs = [x[0] for x in t]
    rows[name] = dict(best=min(secs), median=statistics.median(secs), rss=max(x[1] for x in t) / 1024, n=len(t))
print()
print(f"real cache: {total / 2**30:.2f} GiB; machine: {cores} cores; cold = {cold}")
print(f"{'run':<30}{'runs':>5}{'best s':>9}{'median s':>10}{'peak RSS MiB':>14}")
labels = {"cold_scan": "scan (first, cold)", "cold_rg": "rg -uuu -c (cold)", "warm_all": "scan --all --no-cache (warm)",
          "warm_rg": "rg -uuu -c (warm)", "warm_scan": "scan (warm, index)", "prune": "prune --dry-run (index)",
          "warm_scan_nc": "scan --no-cache (warm)", "prune_nc": "prune --dry-run --no-cache"}
for name, r in rows.items():
    print(f"{labels[name]:<30}{r['n']:>5}{r['best']:>9.2f}{r['median']:>10.2f}{r['rss']:>14.1f}")
first = json.load(open(f"{out}/first.json"))
full = json.load(open(f"{out}/all.json"))
read = sum(s["filesRead"] for s in first["servers"])
files = sum(s["sessions"] for s in first["servers"])
print(f"\nfirst scan read {read} of {files} files")
r1 = rows["cold_scan"]["median"] / rows["cold_rg"]["median"]
r2 = rows["warm_all"]["median"] / rows["warm_rg"]["median"]
rss = max(r["rss"] for n, r in rows.items() if n not in ("cold_rg", "warm_rg"))
ok = True
def line(text, met):
    global ok
    ok &= met
    print(f"{text:<60} {'met' if met else 'NOT MET'}")
print()
line(f"first scan / cold rg -c   = {r1:.3f}x (target: at most 0.1x)", r1 <= 0.1)
sys.path.insert(0, "scripts/bench")
from targets import target
target("cache-cold", r1 <= 0.1 and cold == "drop_caches",
       f"{r1:.3f}x a cold rg -uuu -c ({rows['cold_scan']['median']:.2f} s vs {rows['cold_rg']['median']:.2f} s)"
       + ("" if cold == "drop_caches" else "; the page cache could not be dropped: not cold"))
line(f"peak RSS                  = {rss:.1f} MiB (target: under 64 MiB)", rss < 64)
key = lambda s: (s["folder"], s["verdict"], s["cause"], s["era"], s["lastSeen"], json.dumps(s["evidence"]))
same = sorted(map(key, first["servers"])) == sorted(map(key, full["servers"]))
line(f"verdicts and evidence     = {'equal' if same else 'DIFFERENT'} to --all's ({len(full['servers'])} servers)", same)
indexed = json.load(open(f"{out}/indexed.json"))
unindexed = json.load(open(f"{out}/unindexed.json"))
strip = lambda d: json.dumps(d["servers"], sort_keys=True)
same_ix = strip(indexed) == strip(unindexed) and indexed["warnings"] == unindexed["warnings"]
line(f"scan with the index       = {'equal' if same_ix else 'DIFFERENT'} to --no-cache's (every field)", same_ix)
p_ix, p_nc = json.load(open(f"{out}/prune.json")), json.load(open(f"{out}/prune_nc.json"))
same_p = json.dumps(p_ix, sort_keys=True) == json.dumps(p_nc, sort_keys=True)
line(f"prune plan with the index = {'equal' if same_p else 'DIFFERENT'} to --no-cache's", same_p)
truth = json.load(open(truth_path))
got = {s["folder"]: {"verdict": s["verdict"], "cause": s["cause"], "era": s["era"]} for s in first["servers"]}
bad = [f for f in truth if got.get(f) != truth[f]]
line(f"verdicts                  = {len(truth) - len(bad)}/{len(truth)} equal to the built history's", not bad)
for f in bad:
    print(f"  {f}: mcplogs {got.get(f)}, history {truth[f]}")
line(f"warm scan --all / rg -c   = {r2:.2f}x (target: at most 1.5x)", r2 <= 1.5)
p = rows["prune"]["median"]
line(f"prune --dry-run           = {p:.2f} s (target: under 1 s; index of the earlier scans)", p < 1)
print(f"  (without the index: prune --dry-run --no-cache {rows['prune_nc']['median']:.2f} s, scan --no-cache {rows['warm_scan_nc']['median']:.2f} s)")
ri = rows["warm_scan"]["median"] / rows["warm_scan_nc"]["median"]
line(f"scan with the index / without = {ri:.2f}x (target: at most 0.8x)", ri <= 0.8)
target("cache-index", ri <= 0.8, f"{ri:.2f}x ({rows['warm_scan']['median']:.2f} s vs --no-cache {rows['warm_scan_nc']['median']:.2f} s)")
print("\nprune --dry-run says:")
print("\n".join(open(f"{out}/prune.txt").read().splitlines()[-3:]))
sys.exit(0 if ok else 1)
PY
fi
if [ "$FOLDERS" = 1 ]; then
  stamp=$(cat scripts/bench/gen_folders.py sample-logs/expected.json | sha256sum | cut -c1-16)-$FOLDERS_PROJECTS
  if [ "$(cat "$FOLDERS_DIR/.stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "[bench] generating the many-folders tree in $FOLDERS_DIR (several minutes)"
    rm -rf "$FOLDERS_DIR"
    python3 scripts/bench/gen_folders.py sample-logs "$FOLDERS_DIR" "$FOLDERS_PROJECTS"
    echo "$stamp" > "$FOLDERS_DIR/.stamp"
  fi
  FHOME=$FOLDERS_DIR/home
  echo "[bench] many folders: $(find "$FHOME" -name 'mcp-logs-*' -type d | wc -l) server folders, $(find "$FHOME" -type f | wc -l) files"
  echo "[bench] warming the page cache"
  find "$FHOME" -type f -print0 | xargs -0 cat > /dev/null
  echo "[bench] load: $(cut -d' ' -f1-3 /proc/loadavg)"
  # As measure, with the CPU seconds (user + system) too: on a loaded machine the wall
  # times swing run to run, the CPU seconds much less.
  fmeasure() {
    local name=$1; shift
    /usr/bin/time -f '%e %M %U %S' -o "$OUT/$name.one" "$@" > "$OUT/$name.stdout" 2> "$OUT/$name.stderr" || true
    tail -n 1 "$OUT/$name.one" >> "$OUT/$name.times"
  }
  # The index of this section: written by a first scan, then read by every "cached" run.
  export MCPLOGS_CACHE_DIR=$OUT/folders-index
  "$BIN" scan --home "$FHOME" > /dev/null || true
  # The export ledger of the "again" runs: every record sent once, before the loop.
  rm -rf "$OUT/export-cache" "$OUT/export.jsonl" "$OUT/export-again.jsonl"
  MCPLOGS_CACHE_DIR="$OUT/export-again-cache" "$BIN" export --home "$FHOME" --file "$OUT/export-again.jsonl" --max-file-mib 4096 > /dev/null 2>&1 || true
  for i in $(seq "$FOLDERS_RUNS"); do
    fmeasure f_find find "$FHOME" -type f
    fmeasure f_scan_json "$BIN" scan --json --no-cache --home "$FHOME"
    cp "$OUT/f_scan_json.stdout" "$OUT/folders.json"
    fmeasure f_scan_json_cached "$BIN" scan --json --home "$FHOME"
    cp "$OUT/f_scan_json_cached.stdout" "$OUT/folders-cached.json"
    fmeasure f_scan "$BIN" scan --no-cache --home "$FHOME"
    fmeasure f_scan_cached "$BIN" scan --home "$FHOME"
    fmeasure f_report "$BIN" report --no-cache --home "$FHOME"
    fmeasure f_report_cached "$BIN" report --home "$FHOME"
    # (no target of its own: every server's records in one document, written as it is made)
    fmeasure f_report_json "$BIN" report --json --no-cache --home "$FHOME"
    fmeasure f_du "$BIN" du --home "$FHOME"
    # export (issue 44): a first export of every server (an empty cache of its own: all
    # records new) into a file; then, with the ledger of the run before the loop, nothing
    # new (ids only), without the index and with it.
    rm -rf "$OUT/export-cache" "$OUT/export.jsonl" "$OUT/export.jsonl.1"
    fmeasure f_export env MCPLOGS_CACHE_DIR="$OUT/export-cache" "$BIN" export --no-cache --home "$FHOME" --file "$OUT/export.jsonl" --max-file-mib 4096
    cp "$OUT/export.jsonl" "$OUT/export-first.jsonl"
    fmeasure f_export_again env MCPLOGS_CACHE_DIR="$OUT/export-again-cache" "$BIN" export --no-cache --home "$FHOME" --file "$OUT/export-again.jsonl" --max-file-mib 4096
    fmeasure f_export_again_cached env MCPLOGS_CACHE_DIR="$OUT/export-again-cache" "$BIN" export --home "$FHOME" --file "$OUT/export-again.jsonl" --max-file-mib 4096
  done
  export MCPLOGS_CACHE_DIR=$OUT/index
  echo "[bench] load: $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 - "$OUT" "$FOLDERS_DIR/expected.json" <<'PY' || status=1
import json, statistics, sys
sys.path.insert(0, "scripts/bench")
from targets import target
out, truth_path = sys.argv[1], sys.argv[2]
names = ["f_find", "f_scan", "f_scan_cached", "f_scan_json", "f_scan_json_cached", "f_report",
         "f_report_cached", "f_report_json", "f_du", "f_export", "f_export_again", "f_export_again_cached"]
rows = {}
for name in names:
    t = [tuple(map(float, l.split())) for l in open(f"{out}/{name}.times") if l.strip()]
    rows[name] = dict(median=statistics.median(x[0] for x in t), best=min(x[0] for x in t),
                      cpu=statistics.median(x[2] + x[3] for x in t),
                      rss=max(x[1] for x in t) / 1024, n=len(t))
print(f"\n{'run':<24}{'runs':>5}{'best s':>9}{'median s':>10}{'CPU s':>8}{'x find':>8}{'peak RSS MiB':>14}")
f = rows["f_find"]["median"]
for name, r in rows.items():
    print(f"{name[2:]:<24}{r['n']:>5}{r['best']:>9.2f}{r['median']:>10.2f}{r['cpu']:>8.1f}{r['median'] / f:>8.2f}{r['rss']:>14.1f}")
ok = True
def line(text, met):
    global ok
    ok &= met
    print(f"{text:<66} {'met' if met else 'NOT MET'}")
print()
# Every command at most 2.5x find and under 256 MiB (issue 55).
for cmd, label in [("scan", "scan"), ("scan_json", "scan --json"), ("report", "report"), ("du", "du"), ("export", "export")]:
    r = rows[f"f_{cmd}"]
    ratio = r["median"] / f
    line(f"{label:<12} / find = {ratio:.2f}x (target: at most 2.5x)", ratio <= 2.5)
    target(f"folders-{cmd}-time", ratio <= 2.5, f"{ratio:.2f}x find ({r['median']:.2f} s vs {f:.2f} s)")
    line(f"{label:<12} peak RSS = {r['rss']:.0f} MiB (target: under 256 MiB)", r["rss"] < 256)
    target(f"folders-{cmd}-rss", r["rss"] < 256, f"{r['rss']:.0f} MiB")
# With a warm index: at most 0.8x the same command without it.
for cmd, label in [("scan", "scan"), ("scan_json", "scan --json"), ("report", "report"), ("export_again", "export (nothing new)")]:
    ratio = rows[f"f_{cmd}_cached"]["median"] / rows[f"f_{cmd}"]["median"]
    line(f"{label:<12} with the index / without = {ratio:.2f}x (target: at most 0.8x)", ratio <= 0.8)
    target(f"folders-index-{cmd}", ratio <= 0.8,
           f"{ratio:.2f}x ({rows[f'f_{cmd}_cached']['median']:.2f} s vs {rows[f'f_{cmd}']['median']:.2f} s)")
ex, exr, sj, sjr = rows["f_export"]["median"], rows["f_export"]["rss"], rows["f_scan_json"]["median"], rows["f_scan_json"]["rss"]
print(f"  (export / scan --json {ex / sj:.2f}x, peak RSS {exr:.0f} MiB against {sjr:.0f} MiB; "
      f"report / scan {rows['f_report']['median'] / rows['f_scan']['median']:.1f}x; "
      f"report --json {rows['f_report_json']['rss']:.0f} MiB, no target)")
cpu = {n: rows[n]["cpu"] for n in rows}
print(f"  (by CPU seconds: scan --json / find {cpu['f_scan_json'] / cpu['f_find']:.1f}x, "
      f"scan / find {cpu['f_scan'] / cpu['f_find']:.1f}x, report / find {cpu['f_report'] / cpu['f_find']:.1f}x)")
exported = sum(1 for _ in open(f"{out}/export-first.jsonl"))
truth = json.load(open(truth_path))
doc = json.load(open(f"{out}/folders.json"))
cached = json.load(open(f"{out}/folders-cached.json"))
same = json.dumps(doc, sort_keys=True) == json.dumps(cached, sort_keys=True)
line(f"scan --json with the index = {'equal' if same else 'DIFFERENT'} to --no-cache's (the whole document)", same)
got = {f"{s['projectFolder']}/{s['folder']}": {"verdict": s["verdict"], "cause": s["cause"], "era": s["era"]} for s in doc["servers"]}
bad = [k for k in truth if got.get(k) != truth[k]]
line(f"export records       = {exported} (scan --json: {len(doc['servers']) + len(doc['configured'])})",
     exported == len(doc["servers"]) + len(doc["configured"]))
line(f"verdicts             = {len(truth) - len(bad)}/{len(truth)} equal to the samples'", not bad and len(got) == len(truth))
for k in bad[:10]:
    print(f"  {k}: mcplogs {got.get(k)}, samples {truth[k]}")
sys.exit(0 if ok else 1)
PY
fi

# explain on its largest pastes (issue 50): linear time, bounded memory.
if [ "$EXPLAIN" = 1 ]; then
  echo "[bench] explain on 16 MiB pastes; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 scripts/bench/explain.py "$BIN" "$BENCH_DIR-explain" "$EXPLAIN_RUNS" || status=1
fi

# The status line (issue 26): `mcplogs statusline` against `mcplogs --version` on the
# real-cache tree, a live session's project beside its 30 days (scripts/bench/statusline.py).
if [ "$STATUSLINE" = 1 ]; then
  real_cache_tree
  echo "[bench] status line; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  python3 scripts/bench/statusline.py "$BIN" "$CACHE_DIR/claude-cli-nodejs" "$OUT" "$SL_RUNS" || status=1
fi

# Every target of BENCHMARKS.md, as the sections above found it.
python3 scripts/bench/targets.py summary "$BENCH_TARGETS" || status=1
exit $status
