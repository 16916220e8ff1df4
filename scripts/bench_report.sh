#!/usr/bin/env bash
# `report` speed against `scan` on the benchmark tree (issue 12 item 6: report at most
# 2x scan). Uses the tree scripts/bench.sh generates (run that once first, or set
# BENCH_DIR to a tree made by scripts/bench/gen_tree.py), warms the page cache, then
# runs `scan --json` and `report` (Markdown) and `report --json` RUNS times each,
# interleaved, and prints the medians and the ratios.
#
# Environment: BENCH_DIR (default /tmp/mcplogs-bench), RUNS (5), BIN (default: a release
# build of this checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/mcplogs-bench}
RUNS=${RUNS:-5}
if [ -z "${BIN:-}" ]; then
  cargo build --quiet --release
  BIN=$PWD/target/release/mcplogs
fi
TREE="$BENCH_DIR/claude-cli-nodejs"
[ -d "$TREE" ] || { echo "no tree at $TREE: run scripts/bench.sh first" >&2; exit 2; }
EMPTY=$(mktemp -d)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT" "$EMPTY"' EXIT
find "$BENCH_DIR" -name '*.jsonl' -print0 | xargs -0 cat > /dev/null
one() { # name, args...: appends wall seconds to $OUT/name
  local name=$1; shift
  /usr/bin/time -f '%e %M' -o "$OUT/$name.one" "$BIN" "$@" > "$OUT/$name.stdout" 2> /dev/null || true
  tail -n 1 "$OUT/$name.one" >> "$OUT/$name.times"
}
for i in $(seq "$RUNS"); do
  one scan scan --json "$TREE"
  one report report --managed-dir "$EMPTY" "$TREE"
  one report_json report --json --managed-dir "$EMPTY" "$TREE"
done
python3 - "$OUT" <<'PY'
import statistics, sys
out = sys.argv[1]
med = {}
for name in ["scan", "report", "report_json"]:
    t = [tuple(map(float, l.split())) for l in open(f"{out}/{name}.times") if l.strip()]
    med[name] = statistics.median(x[0] for x in t)
    print(f"{name:<12} runs {len(t)}  median {med[name]:.2f} s  best {min(x[0] for x in t):.2f} s  peak RSS {max(x[1] for x in t)/1024:.1f} MiB")
for name in ["report", "report_json"]:
    r = med[name] / med["scan"]
    print(f"{name} / scan = {r:.2f}x (target: at most 2x) {'met' if r <= 2 else 'NOT MET'}")
PY
