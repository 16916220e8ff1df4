#!/usr/bin/env bash
# Regenerate sample-logs/ from real Claude Code builds run fully offline.
#
#   bash scripts/samples/generate.sh
#
# Installs the pinned native builds from the npm registry once (cached in
# $MCPLOGS_CACHE, default
# ${XDG_CACHE_HOME:-$HOME/.cache}/mcplogs-e2e, outside the repo), then runs every
# scenario against loopback-only stubs (see generate.py) and rebuilds sample-logs/.
# Only loopback networking is used; credentials are dummies.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${MCPLOGS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcplogs-e2e}"
VERSIONS=(2.1.288 2.1.332)

bash "$HERE/install_claude.sh" "$CACHE" "${VERSIONS[@]}"

exec python3 "$HERE/generate.py" --cache "$CACHE" "$@"
