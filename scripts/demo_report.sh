#!/usr/bin/env bash
# Prints the README's example report: the bundled macOS sample logs, and a throwaway
# home whose ~/.claude/settings.json sets legacy but has a trailing comma (so Claude
# Code ignores it) and holds an API key. Never touches the real ~/.claude.
set -u
cd "$(dirname "$0")/.."
cargo build -q --release
BIN="$PWD/target/release/mcplogs"
SAMPLES="$PWD/sample-logs"
DEMO=/tmp/mcplogs-report-demo
rm -rf "$DEMO" && mkdir -p "$DEMO/home/.claude" "$DEMO/home/proj"
printf '{\n  "env": {\n    "ANTHROPIC_API_KEY": "sk-ant-api03-demo-not-a-real-key-0123456789",\n    "MCP_PROTOCOL_NEGOTIATION": "legacy",\n  }\n}\n' > "$DEMO/home/.claude/settings.json"
cd "$DEMO/home/proj"
env -i PATH=/usr/bin:/bin HOME="$DEMO/home" USER=demo "$BIN" report "$SAMPLES/macos-home" --server wrong-types
