#!/usr/bin/env bash
# End-to-end test: mcplogs against real Claude Code builds, fully offline.
#
#   bash tests/e2e/claude.sh
#
# 1. installs the pinned native Claude Code builds (npm registry) into a cache reused
#    across runs: ${MCPLOGS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcplogs-e2e}
#    (same cache as generate.sh);
# 2. builds mcplogs (debug profile; MCPLOGS_BIN=path uses a given binary instead);
# 3. runs tests/e2e/run.py: every scenario with a throwaway HOME, dummy credentials, a
#    loopback fake API and a loopback 403 proxy on free ports, compares mcplogs' verdicts
#    with Claude Code's own, applies and undoes the legacy fix, prints the table;
# 4. runs tests/e2e/configured.py: one project with an approved, an unapproved and a
#    disabled .mcp.json server and a user server disabled for the project; mcplogs scan
#    must give each its state, agreeing with Claude Code's init line and `claude mcp list`;
# 4b. runs tests/e2e/fixes.py: each cause `mcplogs fix` fixes besides the legacy setting
#    (a command not on Claude Code's PATH, in a user, local and .mcp.json entry; a server
#    slower than MCP_TIMEOUT; a disabled
#    .mcp.json server named to `fix`): the server fails, `mcplogs fix --yes` from another
#    folder, it connects with its tools, scan says already fixed, `fix --undo` gives every
#    file back byte for byte, it fails again. About a minute.
# 5. runs tests/e2e/interactive.py: `mcplogs setup statusline|hook` in interactive Claude
#    Code in tmux: the status line names the failing server, the hook's text reaches the
#    fake Messages API (and does not when every server works), undo leaves no trace;
# 6. runs tests/e2e/probe.py: `mcplogs probe` predictions against what Claude Code does
#    with the same stub servers (stdio and HTTP), with and without legacy;
# 7. installs the pinned MCP SDKs into the same cache (tests/e2e/sdk/install.sh: PyPI,
#    npm, crates.io) and runs tests/e2e/sdk_interop.py: the probe's prediction (verdict,
#    era, tool count) against Claude Code on servers built on them, and `--contract`;
# 7. runs tests/e2e/lifecycle.py --e2e on 2.1.288, 2.1.310 and 2.1.332: a server without
#    the tools capability, 21 pages, resources/prompts lists without the 2026-07-28
#    fields, a 5 s tools/list against MCP_TIMEOUT=3000 and fixed by MCP_TIMEOUT=10000, tool
#    names holding bytes that are not UTF-8 (loaded with U+FFFD in them, renamed to `_`);
#    Claude Code must still do what the fixtures recorded, and `mcplogs scan` must give
#    the fixtures' verdicts (tests/fixtures/lifecycle/expected.json). About a minute.
#    Then, on 2.1.288 and 2.1.332, one case of each way to lose tools of issue 47 that
#    runs offline (a tool name over 128 characters, an invalid x-mcp-header over HTTP,
#    HTTP 400 for a protocol version, pings dropped on a modern connection, a server
#    exiting after its tools loaded, a failed list_changed refresh in tmux, a top-level
#    anyOf over HTTP). About two minutes.
#    Then tests/e2e/remote.py --e2e on 2.1.288 and 2.1.336 (issue 52): remote servers
#    failing on TLS, a proxy, a name, a refused or silent port, OAuth or a static header,
#    and fixed by NODE_EXTRA_CA_CERTS or NO_PROXY; `mcplogs scan` must give each fresh log
#    the cause of tests/fixtures/remote/expected.json. About two minutes.
#    Then tests/e2e/fixes_remote.py on 2.1.287, 2.1.310 and 2.1.336: the two remote causes
#    `mcplogs fix` fixes (an untrusted certificate: NODE_EXTRA_CA_CERTS from --ca-file or
#    SSL_CERT_FILE, checked by a handshake; a refusing proxy: the host merged into NO_PROXY,
#    in the user file or, where the project's settings set NO_PROXY, its local file): fails,
#    fix from another folder, connects with its tools, undo byte for byte, fails again.
#    About 90 seconds.
# 8. runs scripts/observe-build on 2.1.291, 2.1.302 and 2.1.336: each per-build behaviour of
#    the model (src/claude_code/lifecycle.rs) against what those builds do. About 30
#    seconds a build.
# 9. runs tests/e2e/export.sh: `mcplogs export` of a generated fleet of homes through a
#    real OTLP collector (rotel and opentelemetry-proto from PyPI, in a venv in the
#    cache): every record once, documented attributes, private by default, nothing lost
#    across a collector outage. About 40 s (a cold venv adds the download).
#
# Exit 0 only when everything agrees. Fails loudly (never skips) when npm, the registry,
# python3 or cargo is missing. MCPLOGS_E2E_KEEP=1 keeps the work folder (homes, logs, raw
# outputs); it is always kept on failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE="${MCPLOGS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcplogs-e2e}"
VERSIONS=(2.1.288 2.1.332)
# the discovery lifecycle part (tests/e2e/lifecycle.py) also runs on 2.1.310
LIFECYCLE_VERSIONS=(2.1.288 2.1.310 2.1.332)
# scripts/observe-build: one build on each side of a boundary, and the newest observed
OBSERVE_VERSIONS=(2.1.291 2.1.302 2.1.336)
# the remote fixes (tests/e2e/fixes_remote.py): the oldest build in the cache, one between, the newest
FIXES_REMOTE_VERSIONS=(2.1.287 2.1.310 2.1.336)

start=$(date +%s)
for tool in python3 npm node cargo tmux; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "[e2e] FAIL: $tool is required (not found on PATH)" >&2
    exit 1
  fi
done

echo "[e2e] Claude Code builds ${VERSIONS[*]} in $CACHE" >&2
bash "$REPO/scripts/samples/install_claude.sh" "$CACHE" "${LIFECYCLE_VERSIONS[@]}" \
  "${OBSERVE_VERSIONS[@]}" "${FIXES_REMOTE_VERSIONS[@]}"
echo "[e2e] MCP SDKs (tests/e2e/sdk/install.sh) in $CACHE" >&2
sdk_start=$(date +%s)
bash "$REPO/tests/e2e/sdk/install.sh" "$CACHE"
echo "[e2e] SDKs ready in $(( $(date +%s) - sdk_start ))s" >&2

if [ -n "${MCPLOGS_BIN:-}" ]; then
  BIN="$MCPLOGS_BIN"
else
  echo "[e2e] cargo build" >&2
  (cd "$REPO" && cargo build --quiet)
  BIN="$REPO/target/debug/mcplogs"
fi
[ -x "$BIN" ] || { echo "[e2e] FAIL: no mcplogs binary at $BIN" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcplogs-e2e.XXXXXX")"
pid=""
cleanup() {
  local rc=$?
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    # run.py ends every process it started (by process group) on SIGTERM
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ "$rc" -eq 0 ] && [ -z "${MCPLOGS_E2E_KEEP:-}" ]; then
    rm -rf "$WORK"
  else
    echo "[e2e] work folder kept: $WORK" >&2
  fi
  echo "[e2e] total wall time: $(( $(date +%s) - start ))s" >&2
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# One part: its script in the background (so the traps above can end it), then wait for
# it; a part that fails ends the run (set -e). $1: the script, $2: the builds, comma-
# separated; the rest are the part's own arguments.
part() {
  local script=$1 versions=$2
  shift 2
  python3 "$HERE/$script" --cache "$CACHE" --mcplogs "$BIN" --versions "$versions" "$@" &
  pid=$!
  wait "$pid"
}
csv() { local IFS=,; echo "$*"; }

# scan's verdicts against Claude Code's, the fix and its undo
part run.py "$(csv "${VERSIONS[@]}")" --work "$WORK"
# configured servers that never wrote a log: scan against the init line and mcp list
part configured.py "$(csv "${VERSIONS[@]}")" --work "$WORK/configured"
# every fix of the engine (command path, MCP_TIMEOUT, a disabled .mcp.json server): fails,
# `mcplogs fix --yes` from another folder, connects with its tools, undo byte for byte
part fixes.py "$(csv "${VERSIONS[@]}")" --work "$WORK/fixes"
# mcplogs statusline, hook and setup in interactive Claude Code (tmux)
part interactive.py "$(csv "${VERSIONS[@]}")" --work "$WORK/tty"
# mcplogs probe: its predictions against what Claude Code does with the same servers
part probe.py "$(csv "${VERSIONS[@]}")" --work "$WORK/probe"
# mcplogs probe on servers built on the real SDKs, against Claude Code
part sdk_interop.py "$(csv "${VERSIONS[@]}")" --work "$WORK/sdk"
# the discovery lifecycle on real builds: Claude Code against the fixtures, scan against both
part lifecycle.py "$(csv "${LIFECYCLE_VERSIONS[@]}")" --e2e
# the ways to lose tools of issue 47 (their fixtures are of 2.1.288 and 2.1.332 among others)
part lifecycle.py "2.1.288,2.1.332" --e2e --cases classes
# remote servers of issue 52 (TLS, proxies, names, ports, OAuth): scan against the fixtures
part remote.py "2.1.288,2.1.336" --e2e
# the remote fixes: NODE_EXTRA_CA_CERTS and NO_PROXY written by `mcplogs fix`, proven and undone
part fixes_remote.py "$(csv "${FIXES_REMOTE_VERSIONS[@]}")" --work "$WORK/fixes-remote"
# every per-build behaviour of the model against real builds
MCPLOGS_CACHE="$CACHE" python3 "$REPO/scripts/observe-build" --mcplogs "$BIN" \
  "${OBSERVE_VERSIONS[@]}" &
pid=$!
wait "$pid"
# mcplogs export: a fleet of homes through a real OTLP collector (rotel, from PyPI)
MCPLOGS_BIN="$BIN" MCPLOGS_CACHE="$CACHE" bash "$HERE/export.sh" &
pid=$!
wait "$pid"
