#!/usr/bin/env bash
# Regenerate sample-logs/ from real Claude Code builds run fully offline.
#
#   bash scripts/samples/generate.sh
#
# Installs the pinned native builds from the npm registry once (cached in
# $MCPLOGS_CACHE, default /work/.cache-mcplogs, outside the repo), then runs every
# scenario against loopback-only stubs (see generate.py) and rebuilds sample-logs/.
# Only loopback networking is used; credentials are dummies.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${MCPLOGS_CACHE:-/work/.cache-mcplogs}"
VERSIONS=(2.1.288 2.1.332)
PKG=@anthropic-ai/claude-code-linux-x64

for v in "${VERSIONS[@]}"; do
  dir="$CACHE/claude-$v"
  bin="$dir/node_modules/$PKG/claude"
  if [ ! -x "$bin" ]; then
    echo "[generate] installing $PKG@$v into $dir"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$PKG@$v"
  fi
  got="$(node -p "require('$dir/node_modules/$PKG/package.json').version")"
  if [ "$got" != "$v" ]; then
    echo "[generate] $dir holds $got, not $v; remove it and rerun" >&2
    exit 1
  fi
done

exec python3 "$HERE/generate.py" --cache "$CACHE" "$@"
