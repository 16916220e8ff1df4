#!/usr/bin/env bash
# Mutation testing (cargo-mutants) of the modules whose tests must catch every change:
# the classifier, the settings writer and undo, the redactor (and the sanitizer, once
# there is one). Too slow for every CI run; the last result is in CONTRIBUTING.md.
#
#   scripts/mutants.sh                 # every module below, one after the other
#   scripts/mutants.sh classify        # one module
#   JOBS=2 TIMEOUT=300 scripts/mutants.sh redact
#
# Each module runs the unit tests and integration tests named by its filters, in a copy of the tree that cargo-mutants makes (with target/ copied, so the
# first build is incremental). Results: mutants.out/<module>/ (caught.txt, missed.txt,
# timeout.txt, unviable.txt). Needs `cargo install cargo-mutants`.
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS="${JOBS:-1}"
TIMEOUT="${TIMEOUT:-240}"

# module -> files, and the integration tests (tests/cli) that exercise them.
declare -A FILES=(
  [classify]="src/classify/mod.rs src/classify/signal.rs"
  [settings_write]="src/settings/write.rs src/settings/undo.rs"
  [redact]="src/redact/mod.rs src/redact/home.rs src/redact/secrets.rs src/redact/diff.rs"
)
# (libtest filters, applied to both the unit tests and tests/cli: a test runs when its
# path contains any of them)
declare -A TESTS=(
  [classify]="classify:: session:: samples:: decode_formats::debug_logs"
  [settings_write]="settings:: settings_faults:: settings_portable:: settings_undo:: settings_fix::"
  [redact]="redact:: report_leak:: secrets_output::"
)
if [ -e src/sanitize.rs ] || [ -d src/sanitize ]; then
  FILES[sanitize]="$(ls src/sanitize.rs src/sanitize/*.rs 2>/dev/null | tr '\n' ' ')"
  TESTS[sanitize]="sanitize:: hostile::"
fi

modules=("$@")
[ ${#modules[@]} -eq 0 ] && modules=(classify settings_write redact sanitize)

command -v cargo-mutants >/dev/null || { echo "cargo-mutants is not installed: cargo install cargo-mutants"; exit 2; }

status=0
for m in "${modules[@]}"; do
  if [ -z "${FILES[$m]:-}" ]; then
    echo "== $m: no such module here, skipped"
    continue
  fi
  args=()
  for f in ${FILES[$m]}; do args+=(--file "$f"); done
  echo "== $m (${FILES[$m]})"
  mkdir -p "mutants.out/$m"
  cargo mutants "${args[@]}" --copy-target=true -j "$JOBS" --timeout "$TIMEOUT" \
    --output "mutants.out/$m" --no-shuffle \
    -- --lib --test cli -- ${TESTS[$m]} || status=$?
  for k in caught missed timeout unviable; do
    printf '%s: %s  ' "$k" "$(wc -l < "mutants.out/$m/mutants.out/$k.txt" 2>/dev/null || echo 0)"
  done
  echo
done
exit "$status"
