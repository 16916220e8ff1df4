#!/usr/bin/env bash
# Install the pinned MCP SDKs the e2e's SDK servers are built on, into a cache reused
# across runs (the same cache as the Claude Code builds):
#
#   bash tests/e2e/sdk/install.sh CACHE [--with-inspector]
#
#   CACHE/sdk-py-mcp-<V>/          a venv with PyPI `mcp==V` (2.x and 1.x)
#   CACHE/sdk-node-<KEY>/          node_modules with the TypeScript SDK and server-everything
#   CACHE/sdk-rmcp-<V>/rmcp-server the tests/e2e/sdk/rmcp server built on crates.io `rmcp =V`
#   CACHE/sdk-inspector-<V>/       the MCP Inspector (only with --with-inspector: scripts/bench.sh)
#
# Each is built in a temporary folder and renamed into place, so an interrupted install
# never leaves a half-built entry; an entry already in place is reused as it is. The only
# network used is the package registries (PyPI, npm, crates.io). Fails loudly.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The pins: changing one installs a new entry beside the old.
PY_MCP=(2.3.0 1.30.0)
TS_SDK=1.32.2
EVERYTHING=2026.8.31
RMCP=3.11.0
INSPECTOR=2.12.0
ZOD=3.25.76

if [ "$#" -lt 1 ]; then
  echo "usage: $0 CACHE [--with-inspector]" >&2
  exit 2
fi
CACHE="$1"
WITH_INSPECTOR="${2:-}"
mkdir -p "$CACHE"

# put_in_place TMP DIR: rename a finished TMP to DIR unless another run was first
put_in_place() {
  if [ -e "$2/.complete" ]; then rm -rf "$1"; return; fi
  rm -rf "$2"
  touch "$1/.complete"
  mv "$1" "$2"
}

for v in "${PY_MCP[@]}"; do
  dir="$CACHE/sdk-py-mcp-$v"
  [ -e "$dir/.complete" ] && continue
  echo "[sdk] pip: mcp==$v into $dir" >&2
  # a venv remembers its own path, so it is built in place; .complete marks it finished
  # (a leftover without it is rebuilt)
  rm -rf "$dir"
  python3 -m venv "$dir"
  if ! "$dir/bin/pip" install --quiet --disable-pip-version-check "mcp==$v" >&2; then
    rm -rf "$dir"
    echo "[sdk] pip install mcp==$v failed (PyPI unreachable?)" >&2
    exit 1
  fi
  touch "$dir/.complete"
done

node_key="ts$TS_SDK-everything$EVERYTHING"
dir="$CACHE/sdk-node-$node_key"
if [ ! -e "$dir/.complete" ]; then
  echo "[sdk] npm: @modelcontextprotocol/sdk@$TS_SDK, server-everything@$EVERYTHING into $dir" >&2
  tmp="$(mktemp -d "$CACHE/.sdk-node.XXXXXX")"
  if ! npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
      "@modelcontextprotocol/sdk@$TS_SDK" "@modelcontextprotocol/server-everything@$EVERYTHING" \
      "zod@$ZOD" >&2; then
    rm -rf "$tmp"
    echo "[sdk] npm install failed (registry unreachable?)" >&2
    exit 1
  fi
  put_in_place "$tmp" "$dir"
fi

if ! grep -q "^rmcp = { version = \"=$RMCP\"" "$HERE/rmcp/Cargo.toml"; then
  echo "[sdk] RMCP=$RMCP here but tests/e2e/sdk/rmcp/Cargo.toml pins another rmcp: make them one" >&2
  exit 1
fi
dir="$CACHE/sdk-rmcp-$RMCP"
if [ ! -e "$dir/.complete" ]; then
  echo "[sdk] cargo: rmcp $RMCP server into $dir" >&2
  tmp="$(mktemp -d "$CACHE/.sdk-rmcp.XXXXXX")"
  # its own target folder: never part of the main workspace build
  if ! CARGO_TARGET_DIR="$CACHE/sdk-rmcp-target" cargo build --quiet --release --locked \
      --manifest-path "$HERE/rmcp/Cargo.toml" >&2; then
    rm -rf "$tmp"
    echo "[sdk] cargo build of tests/e2e/sdk/rmcp failed (crates.io unreachable?)" >&2
    exit 1
  fi
  cp "$CACHE/sdk-rmcp-target/release/rmcp-server" "$tmp/rmcp-server"
  put_in_place "$tmp" "$dir"
fi

if [ "$WITH_INSPECTOR" = "--with-inspector" ]; then
  dir="$CACHE/sdk-inspector-$INSPECTOR"
  if [ ! -e "$dir/.complete" ]; then
    echo "[sdk] npm: @modelcontextprotocol/inspector@$INSPECTOR into $dir" >&2
    tmp="$(mktemp -d "$CACHE/.sdk-inspector.XXXXXX")"
    if ! npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/inspector@$INSPECTOR" >&2; then
      rm -rf "$tmp"
      echo "[sdk] npm install of the inspector failed (registry unreachable?)" >&2
      exit 1
    fi
    put_in_place "$tmp" "$dir"
  fi
fi
