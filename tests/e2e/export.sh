#!/usr/bin/env bash
# `mcplogs export` against a real OTLP collector, on loopback (tests/e2e/export.py says
# what is checked). Installs the `rotel` collector and the official OpenTelemetry
# protobuf definitions (`opentelemetry-proto`) from PyPI into a venv in the cache
# (${MCPLOGS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcplogs-e2e}/export-venv), reused across runs. Fails loudly
# (never skips) when python3, its venv module or PyPI is missing.
#
#   bash tests/e2e/export.sh            # MCPLOGS_BIN=path uses a given binary
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE="${MCPLOGS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcplogs-e2e}"
VENV="$CACHE/export-venv"
# Pinned: the collector and the definitions the checks were written against.
ROTEL=rotel==0.0.1a15
PROTO=opentelemetry-proto==1.45.2

command -v python3 >/dev/null || { echo "[e2e-export] FAIL: python3 is required" >&2; exit 1; }
if ! "$VENV/bin/python" -c "import rotel, opentelemetry.proto" 2>/dev/null; then
  echo "[e2e-export] installing $ROTEL $PROTO into $VENV" >&2
  rm -rf "$VENV.tmp.$$"
  python3 -m venv "$VENV.tmp.$$" || { echo "[e2e-export] FAIL: python3 -m venv failed" >&2; exit 1; }
  "$VENV.tmp.$$/bin/pip" install --quiet "$ROTEL" "$PROTO" \
    || { echo "[e2e-export] FAIL: pip could not install $ROTEL $PROTO" >&2; exit 1; }
  rm -rf "$VENV" && mv "$VENV.tmp.$$" "$VENV"
fi
AGENT="$("$VENV/bin/python" -c 'import rotel, os; print(os.path.join(os.path.dirname(rotel.__file__), "rotel-agent"))')"
[ -x "$AGENT" ] || { echo "[e2e-export] FAIL: no rotel-agent in the rotel package ($AGENT)" >&2; exit 1; }

if [ -n "${MCPLOGS_BIN:-}" ]; then
  BIN="$MCPLOGS_BIN"
else
  (cd "$REPO" && cargo build --quiet)
  BIN="$REPO/target/debug/mcplogs"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcplogs-e2e-export.XXXXXX")"
rc=0
"$VENV/bin/python" "$HERE/export.py" --mcplogs "$BIN" --rotel "$AGENT" --work "$WORK" \
  --machines "${MCPLOGS_E2E_EXPORT_MACHINES:-24}" || rc=$?
if [ "$rc" -eq 0 ] && [ -z "${MCPLOGS_E2E_KEEP:-}" ]; then
  rm -rf "$WORK"
else
  echo "[e2e-export] work folder kept: $WORK" >&2
fi
exit "$rc"
