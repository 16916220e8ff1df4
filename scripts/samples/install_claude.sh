#!/usr/bin/env bash
# Install pinned Claude Code native builds from the npm registry into a cache folder
# reused across runs (used by generate.sh and tests/e2e/claude.sh).
#
#   bash scripts/samples/install_claude.sh CACHE VERSION...
#
# Each VERSION goes to CACHE/claude-VERSION/node_modules/@anthropic-ai/claude-code-linux-x64/claude.
# A missing build is installed into a temporary folder first and renamed into place, so an
# interrupted install or two runs installing at once never leave a half-installed build.
# Fails loudly (non-zero) when npm is missing, the registry is unreachable or the installed
# version differs.
set -euo pipefail

PKG=@anthropic-ai/claude-code-linux-x64
if [ "$#" -lt 2 ]; then
  echo "usage: $0 CACHE VERSION..." >&2
  exit 2
fi
CACHE="$1"
shift

# A version is ASCII digits only (2.1.332): `[0-9]` can match other digits in some
# locales, so the digits are listed; no number has a leading zero (semver); anything
# else never reaches npm or a cache path.
N='(0|[123456789][0123456789]*)'
for v in "$@"; do
  if ! [[ "$v" =~ ^$N\.$N\.$N$ ]]; then
    echo "[install] '$v' is not a version such as 2.1.332" >&2
    exit 2
  fi
done

for v in "$@"; do
  dir="$CACHE/claude-$v"
  bin="$dir/node_modules/$PKG/claude"
  if [ ! -x "$bin" ]; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "[install] npm is not installed: cannot install $PKG@$v into $dir" >&2
      exit 1
    fi
    echo "[install] installing $PKG@$v into $dir" >&2
    mkdir -p "$CACHE"
    tmp="$(mktemp -d "$CACHE/.claude-$v.XXXXXX")"
    if ! npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "$PKG@$v" >&2; then
      rm -rf "$tmp"
      echo "[install] npm install $PKG@$v failed (registry unreachable?)" >&2
      exit 1
    fi
    if [ -d "$dir" ]; then
      # another run finished first, or a broken leftover: keep a working one
      if [ -x "$bin" ]; then
        rm -rf "$tmp"
      else
        rm -rf "$dir"
        mv "$tmp" "$dir"
      fi
    else
      mv "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
    fi
  fi
  if [ ! -x "$bin" ]; then
    echo "[install] $bin missing after install" >&2
    exit 1
  fi
  got="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$dir/node_modules/$PKG/package.json" | head -1)"
  if [ "$got" != "$v" ]; then
    echo "[install] $dir holds $got, not $v; remove it and rerun" >&2
    exit 1
  fi
done
