#!/usr/bin/env bash
# Mutation testing (cargo-mutants) of the modules whose tests must catch every change:
# the settings writer and undo, the sanitizer, the redactor and the classifier. Too slow
# for every CI run; the last result is in CONTRIBUTING.md ("Mutation testing").
#
#   scripts/mutants.sh                      # every module below, one after the other
#   scripts/mutants.sh settings_write       # one module
#   IN_PLACE=1 scripts/mutants.sh sanitize  # mutate this tree itself (see below)
#   RE='sha256_hex' scripts/mutants.sh settings_write   # only mutants whose name matches
#
# Two passes per module, so most mutants cost one incremental build of the library's
# unit-test binary only:
#   1. every unit test (`cargo test --lib`, ~2 s), except for files without unit tests
#      (UNIT_SKIP);
#   2. only the mutants pass 1 missed (`--iterate`), against the integration tests
#      (tests/cli) that exercise the module (libtest filters below; this builds the
#      binary and the test crate, ~15 s a mutant plus the tests).
# A mutant is caught when either pass catches it. Results: mutants.out/<module>/
# (mutants.out/caught.txt + previously_caught.txt, missed.txt, timeout.txt, unviable.txt).
#
# By default cargo-mutants works in a copy of the tree with target/ copied (6 GB here,
# and the copy's first build is not incremental: minutes). IN_PLACE=1 mutates this tree
# (restored after each mutant; do not edit it meanwhile), which keeps target/ warm: make a
# scratch copy of the worktree with its target/ once and run IN_PLACE=1 there.
# Needs `cargo install cargo-mutants` (run with 27.1.0).
set -euo pipefail
cd "$(dirname "$0")/.."

TIMEOUT="${TIMEOUT:-180}"
BUILD_TIMEOUT="${BUILD_TIMEOUT:-600}"

# module -> files
declare -A FILES=(
  [settings_write]="src/settings/write.rs src/settings/undo.rs"
  [sanitize]="src/sanitize.rs"
  [redact]="src/redact/*.rs"
  [classify]="src/classify/*.rs"
)
# module -> the tests/cli modules that exercise it (libtest filters: a test runs when its
# path contains any of them). Undo is tested from tests/cli only; the writer's
# crash-safety from settings_faults and settings_race; round trips from settings_property.
declare -A CLI_TESTS=(
  [settings_write]="settings_ trust_settings"
  [sanitize]="terminal_safety hostile trust_decode human_output report_cli secrets_output wire"
  [redact]="redaction_corpus report_leak secrets_output report_cli report_snapshot"
  [classify]="samples decode_formats direction explain human_output"
)

# module -> files with no unit tests of their own: pass 1 would only rebuild to miss
declare -A UNIT_SKIP=(
  [settings_write]="src/settings/undo.rs"
)

modules=("$@")
[ ${#modules[@]} -eq 0 ] && modules=(settings_write sanitize redact classify)

command -v cargo-mutants >/dev/null || { echo "cargo-mutants is not installed: cargo install cargo-mutants"; exit 2; }

common=(--timeout "$TIMEOUT" --build-timeout "$BUILD_TIMEOUT" --no-shuffle)
[ -n "${IN_PLACE:-}" ] && common+=(--in-place) || common+=(-j 1 --copy-target=true)
[ -n "${RE:-}" ] && common+=(--re "$RE")

count() { if [ -s "$1" ]; then wc -l < "$1"; else echo 0; fi; }

status=0
for m in "${modules[@]}"; do
  if [ -z "${FILES[$m]:-}" ]; then
    echo "== $m: no such module, skipped (one of: ${!FILES[*]})"
    continue
  fi
  args=()
  for f in ${FILES[$m]}; do args+=(--file "$f"); done
  out="mutants.out/$m"
  rm -rf "$out"
  mkdir -p "$out"
  echo "== $m: pass 1, unit tests"
  rc=0
  skip=()
  for f in ${UNIT_SKIP[$m]:-}; do skip+=(--exclude "$f"); done
  cargo mutants "${args[@]}" "${skip[@]}" "${common[@]}" --output "$out" -- --lib || rc=$?
  # 0: all caught, 2: some missed, 3: some timed out; anything else (4: the baseline
  # failed) is not a result
  case $rc in 0|2|3) ;; *) echo "== $m: cargo mutants failed ($rc)"; exit "$rc" ;; esac
  echo "== $m: pass 2, missed mutants against tests/cli: ${CLI_TESTS[$m]}"
  # the baseline ran in pass 1
  cargo mutants "${args[@]}" "${common[@]}" --output "$out" --iterate --baseline=skip \
    -- --test cli -- ${CLI_TESTS[$m]} || status=$?
  r="$out/mutants.out"
  printf '== %s: caught %s  missed %s  timeout %s  unviable %s\n' "$m" \
    "$(( $(count "$r/caught.txt") + $(count "$r/previously_caught.txt") ))" \
    "$(count "$r/missed.txt")" "$(count "$r/timeout.txt")" "$(count "$r/unviable.txt")"
done
exit "$status"
