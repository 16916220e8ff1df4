#!/usr/bin/env bash
# Mutation testing (cargo-mutants) of the modules whose tests must catch every change:
# the settings writer and undo, the sanitizer, the redactor and the classifier. Too slow
# for every CI run; the last result is in CONTRIBUTING.md ("Mutation testing").
#
#   scripts/mutants.sh                      # every module below, one after the other
#   scripts/mutants.sh settings_write       # one module
#   IN_PLACE=1 scripts/mutants.sh sanitize  # mutate this tree itself (see below)
#   RE='sha256_hex' scripts/mutants.sh settings_write   # only mutants whose name matches
#   SHARD=0/2 scripts/mutants.sh redact     # half the mutants (run 1/2 in another copy)
#
# Two passes per module, so that most mutants cost one build and a few seconds of tests:
#   1. the cheap tests that catch most mutants of the module (PASS1);
#   2. only the mutants pass 1 missed (`--iterate`), against everything else that
#      exercises the module (PASS2).
# A mutant is caught when either pass catches it. Every run is archived in
# mutants.out/<module>/runs/; scripts/mutants_summary.py sums them up (printed at the
# end). PASSES=1 runs pass 1 only; RESUME=1 keeps the earlier runs and retests only
# what they did not catch (after adding tests).
# A build that fails for lack of disk space is reported as "unviable": check
# `grep -l "No space" mutants.out/*/mutants.out/log/*` before trusting unviable.txt.
#
# By default cargo-mutants works in a copy of the tree with target/ copied (6 GB here,
# and the copy's first build is not incremental: minutes). IN_PLACE=1 mutates this tree
# (restored after each mutant; do not edit or commit it meanwhile), which keeps target/
# warm: make a scratch copy of the worktree with its target/ once and run IN_PLACE=1
# there. On the shared 2-core machine one mutant costs 40-70 s (incremental build of
# the library, the binary and tests/cli, niced) plus its tests.
# Needs `cargo install cargo-mutants` (run with 27.1.0).
set -euo pipefail
cd "$(dirname "$0")/.."

TIMEOUT="${TIMEOUT:-180}"
# pass 1 runs unit tests only (under a second here): a mutant that makes them loop is
# detected sooner with a shorter limit
TIMEOUT1="${TIMEOUT1:-$TIMEOUT}"
BUILD_TIMEOUT="${BUILD_TIMEOUT:-600}"

# module -> files
declare -A FILES=(
  [settings_write]="src/settings/write.rs src/settings/undo.rs"
  [sanitize]="src/sanitize.rs"
  [redact]="src/redact/*.rs"
  [classify]="src/classify/*.rs"
)
# module -> the cargo test arguments of each pass (libtest filters: a test runs when its
# path contains any of them; --skip leaves some out).
# settings_write: undo has no unit tests, and the writer's few are repeated by tests/cli,
# so pass 1 is tests/cli without the slow property test; pass 2 adds the unit tests,
# settings_property (fix/undo round trips) and wire's undo-record test.
declare -A PASS1=(
  [settings_write]="--test cli -- settings --skip settings_property"
  [sanitize]="--lib"
  [redact]="--lib"
  [classify]="--lib"
)
declare -A PASS2=(
  [settings_write]="--lib --test cli -- settings fix_record"
  [sanitize]="--test cli -- terminal_safety hostile trust_decode human_output report_cli secrets_output wire"
  [redact]="--test cli -- redaction_corpus report_leak secrets_output report_cli report_snapshot"
  [classify]="--test cli -- samples decode_formats direction explain human_output"
)

modules=("$@")
[ ${#modules[@]} -eq 0 ] && modules=(settings_write sanitize redact classify)

command -v cargo-mutants >/dev/null || { echo "cargo-mutants is not installed: cargo install cargo-mutants"; exit 2; }

common=(--build-timeout "$BUILD_TIMEOUT" --no-shuffle)
[ -n "${IN_PLACE:-}" ] && common+=(--in-place) || common+=(-j 1 --copy-target=true)
[ -n "${RE:-}" ] && common+=(--re "$RE")
[ -n "${SHARD:-}" ] && common+=(--shard "$SHARD")

count() { if [ -s "$1" ]; then wc -l < "$1"; else echo 0; fi; }

# One cargo-mutants run, archived under $out/runs/ (a later run replaces mutants.out/).
# $1: a label; the rest: its extra arguments, then `--` and the cargo test arguments.
run_mutants() {
  local label=$1 rc=0
  shift
  cargo mutants "${args[@]}" "${common[@]}" --output "$out" "$@" || rc=$?
  # 0: all caught, 2: some missed, 3: some timed out; anything else (4: the baseline
  # failed) is not a result
  case $rc in 0|2|3) ;; *) echo "== $m: cargo mutants failed ($rc)"; exit "$rc" ;; esac
  mkdir -p "$out/runs"
  n=$(find "$out/runs" -mindepth 1 -maxdepth 1 | wc -l)
  cp -r "$out/mutants.out" "$out/runs/$((n + 1))-$label"
  [ "$rc" -eq 0 ] || status=$rc
}

# A pass's "TARGETS -- FILTERS" as cargo-mutants arguments. The targets go to every
# cargo call (-C), so that only they are built: cargo-mutants' build step is otherwise
# `cargo test --no-run` of every target, four times the work of the library's tests.
# The filters go to the test binary.
test_args() {
  local targets=${1%% -- *} filters=
  [[ $1 == *" -- "* ]] && filters=${1#* -- }
  for a in $targets; do printf -- '--cargo-arg=%s\n' "$a"; done
  printf -- '--\n--\n'
  for a in $filters; do printf -- '%s\n' "$a"; done
}

status=0
for m in "${modules[@]}"; do
  if [ -z "${FILES[$m]:-}" ]; then
    echo "== $m: no such module, skipped (one of: ${!FILES[*]})"
    continue
  fi
  args=()
  for f in ${FILES[$m]}; do args+=(--file "$f"); done
  out="mutants.out/$m"
  # RESUME=1: keep earlier runs; pass 1 then retests only what they did not catch (after
  # new tests) and runs what they did not reach.
  first=()
  if [ -n "${RESUME:-}" ] && [ -d "$out/mutants.out" ]; then
    first=(--iterate)
  else
    rm -rf "$out"
    mkdir -p "$out"
  fi
  # the mutants of the code as it is now: the summary counts these only (a run before
  # an edit names mutants by line, and lines move)
  cargo mutants --list "${args[@]}" > "$out/list.txt"
  for pass in ${PASSES:-1 2}; do
    if [ "$pass" = 1 ]; then
      echo "== $m: pass 1: ${PASS1[$m]}"
      # shellcheck disable=SC2046
      run_mutants pass1 "${first[@]}" --timeout "$TIMEOUT1" $(test_args "${PASS1[$m]}")
    else
      echo "== $m: pass 2, the missed mutants: ${PASS2[$m]}"
      # shellcheck disable=SC2046
      run_mutants pass2 --iterate --baseline=skip --timeout "$TIMEOUT" \
        $(test_args "${PASS2[$m]}")
    fi
    first=(--iterate)
  done
  python3 scripts/mutants_summary.py "$out"
done
exit "$status"
