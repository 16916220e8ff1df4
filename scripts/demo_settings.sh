#!/usr/bin/env bash
# Prints a real terminal session of `mcplogs settings`, `fix` and `fix --undo` on a
# throwaway home (the README's "Settings" section is its output). Never touches ~/.claude.
set -u
cd "$(dirname "$0")/.."
cargo build -q --release
BIN="$PWD/target/release/mcplogs"
DEMO=/tmp/mcplogs-demo
rm -rf "$DEMO"
mkdir -p "$DEMO/home/.claude" "$DEMO/proj"
export HOME="$DEMO/home" CLAUDE_CONFIG_DIR="$DEMO/home/.claude" XDG_CACHE_HOME="$DEMO/home/.cache" NO_COLOR=1
unset MCP_PROTOCOL_NEGOTIATION
# One real session (Claude Code 2.1.288) of a server the legacy fix cures.
src=$(find sample-logs/macos-home -type d -name mcp-logs-no-resulttype)
dst="$XDG_CACHE_HOME/claude-cli-nodejs/-home-me-proj/mcp-logs-no-resulttype"
mkdir -p "$dst" && cp "$(ls -d "$src"/* | tail -1)" "$dst/"
printf '{\n    "model": "opus",\n    "env": {\n        "ANTHROPIC_API_KEY": "sk-ant-api03-demo-not-a-real-key",\n        "DISABLE_TELEMETRY": "1"\n    }\n}\n' > "$HOME/.claude/settings.json"
chmod 600 "$HOME/.claude/settings.json"
cd "$DEMO/proj"
show() { echo "\$ mcplogs $*"; "$BIN" "$@" 2>&1; echo "[exit $?]"; echo; }
echo '```text'
show settings
show fix --yes
show settings
show fix --yes
show fix --undo --yes
echo '```'
echo
echo 'A project file with a comment, which Claude Code ignores:'
echo
printf '{\n  // my settings\n  "env": {\n    "MCP_PROTOCOL_NEGOTIATION": "legacy",\n  },\n}\n' > .claude-tmp && mkdir -p .claude && mv .claude-tmp .claude/settings.json
echo '```text'
show settings
show fix --settings .claude/settings.json --yes
show fix --settings .claude/settings.json --rewrite-strict --yes
show fix --undo --settings .claude/settings.json --yes
echo '```'
