#!/usr/bin/env bash
# The scale benchmark (issue: multi-gigabyte trees at near disk speed, flat memory).
# One command from a fresh clone:  bash scripts/bench.sh
#
# Builds a deterministic ~2 GiB synthetic tree from the real sample records
# (scripts/bench/gen_tree.py: 50 servers over 10 projects, several sessions each, one
# file over 1.5 GiB, base64 payload noise), warms the page cache, then runs on the same
# tree, in this one invocation:
#   - mcplogs scan --json                     (decodes what can matter, classifies)
#   - rg -uuu -c -e NEEDLE...                 (raw search for the same needles: the limit)
#   - find | xargs cat | jq -R 'fromjson? | select(...)'  (decodes every record)
# and prints wall time (best and median of RUNS), throughput, peak RSS and the ratios,
# then checks mcplogs' verdicts against those of the records the tree was built from.
#
# Environment: BENCH_DIR (default /tmp/mcplogs-bench), BENCH_GB (2.0), RUNS (5),
# JQ_RUNS (1; jq takes about a minute per run).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/mcplogs-bench}
BENCH_GB=${BENCH_GB:-2.0}
RUNS=${RUNS:-5}
JQ_RUNS=${JQ_RUNS:-1}

need() { command -v "$1" >/dev/null 2>&1; }
if ! need rg || ! need jq || [ ! -x /usr/bin/time ]; then
  echo "[bench] installing ripgrep, jq and time from the system packages"
  apt-get update -qq && apt-get install -y -qq ripgrep jq time >/dev/null
fi

echo "[bench] building mcplogs (release)"
cargo build --quiet --release
BIN=$PWD/target/release/mcplogs

# Regenerate the tree only when the generator, the samples or the size changed.
stamp=$(cat scripts/bench/gen_tree.py sample-logs/expected.json | sha256sum | cut -c1-16)-$BENCH_GB
if [ "$(cat "$BENCH_DIR/.stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "[bench] generating the synthetic tree in $BENCH_DIR"
  rm -rf "$BENCH_DIR"
  python3 scripts/bench/gen_tree.py sample-logs "$BENCH_DIR" "$BENCH_GB"
  echo "$stamp" > "$BENCH_DIR/.stamp"
fi

# The needles: exactly the scan's prefilter (PREFILTER_NEEDLES in src/classify/signal.rs).
mapfile -t NEEDLES < <(python3 - <<'PY'
import re
s = open("src/classify/signal.rs").read()
body = re.search(r"PREFILTER_NEEDLES: &\[&str\] = &\[(.*?)\];", s, re.S).group(1)
print("\n".join(re.findall(r'"([^"]+)"', body)))
PY
)
RG_ARGS=()
for n in "${NEEDLES[@]}"; do RG_ARGS+=(-e "$n"); done
JQ_RE=$(printf '%s\n' "${NEEDLES[@]}" | python3 -c 'import re,sys; print("|".join(re.escape(l.strip()) for l in sys.stdin))')

BYTES=$(find "$BENCH_DIR" -name '*.jsonl' -printf '%s\n' | python3 -c 'import sys; print(sum(map(int, sys.stdin)))')
FILES=$(find "$BENCH_DIR" -name '*.jsonl' | wc -l)
BIGGEST=$(find "$BENCH_DIR" -name '*.jsonl' -printf '%s\n' | sort -n | tail -1)
echo "[bench] tree: $FILES files, $BYTES bytes, largest file $BIGGEST bytes"
echo "[bench] warming the page cache"
find "$BENCH_DIR" -name '*.jsonl' -print0 | xargs -0 cat > /dev/null

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
measure() { # name, then the command; appends "seconds kb" to $OUT/name
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$OUT/$name.one" "$@" > "$OUT/$name.stdout" 2> "$OUT/$name.stderr" || true
  # (time also writes "Command exited with non-zero status 1" there: exit 1 = problems found)
  tail -n 1 "$OUT/$name.one" >> "$OUT/$name.times"
}
jq_pipeline() {
  find "$BENCH_DIR" -name '*.jsonl' -print0 | xargs -0 cat \
    | jq -R -c --arg re "$JQ_RE" 'fromjson? | select((.error // .debug // "") | test($re))' | wc -l
}
export -f jq_pipeline; export BENCH_DIR JQ_RE

echo "[bench] $RUNS paired runs of mcplogs and rg, $JQ_RUNS of jq"
for i in $(seq "$RUNS"); do
  measure mcplogs "$BIN" scan --json "$BENCH_DIR/claude-cli-nodejs"
  cp "$OUT/mcplogs.stdout" "$OUT/scan.json"
  measure rg rg -uuu -c "${RG_ARGS[@]}" "$BENCH_DIR/claude-cli-nodejs"
done
for i in $(seq "$JQ_RUNS"); do
  measure jq bash -c jq_pipeline
done

python3 - "$OUT" "$BYTES" "$BENCH_DIR/expected.json" "$(nproc)" <<'PY'
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
