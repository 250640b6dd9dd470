#!/usr/bin/env bash
# Wall-time of syncwatch-lint against a plain clang parse of the same files.
#
#   bench/run_bench.sh [N_FILES] [JOBS]        (defaults: 200 files, 2 jobs)
#
# Generates N_FILES CUDA sources (bench/gen_corpus.py) into a temp dir, adds the
# test inputs test_inputs/static/*.cu that carry no "// clang-flags:" line, and
# times, interleaved A B A B ... for BENCH_ROUNDS rounds (default 3):
#   A  syncwatch-lint -j JOBS --format=json --output=/dev/null FILES... --
#   B  clang++-22 -fsyntax-only with exactly the flags syncwatch-lint adds to each
#      file (analyzer/lint/HostSideArgs.cpp), one process per file, JOBS at a time
# and prints the median wall time of each and the ratio A/B.
#
# Environment: SYNCWATCH_LINT (default build/analyzer/syncwatch-lint), CLANGXX
# (default clang++-22), CUDA_PATH (default /usr/local/cuda, as syncwatch-lint),
# CLANG_RESOURCE_DIR (default /usr/lib/llvm-22/lib/clang/22), BENCH_ROUNDS (3),
# BENCH_SEED (corpus seed, 1), LINT_ARGS (extra syncwatch-lint options, e.g. --no-pch to
# time it without the shared precompiled CUDA prelude).
# Exit: 0 when both tools ran cleanly (findings are fine), 2 when a tool errored.
set -euo pipefail

N_FILES=${1:-200}
JOBS=${2:-2}
ROUNDS=${BENCH_ROUNDS:-3}
SEED=${BENCH_SEED:-1}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

LINT=${SYNCWATCH_LINT:-build/analyzer/syncwatch-lint}
CLANGXX=${CLANGXX:-clang++-22}
CUDA_DIR=${CUDA_PATH:-/usr/local/cuda}
RESOURCE_DIR=${CLANG_RESOURCE_DIR:-/usr/lib/llvm-22/lib/clang/22}
read -r -a LINT_EXTRA <<< "${LINT_ARGS:-}"

die() { echo "run_bench: error: $*" >&2; exit 2; }

[[ "$N_FILES" =~ ^[0-9]+$ ]] || die "N_FILES must be a number, got '$N_FILES'"
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || die "JOBS must be a positive number, got '$JOBS'"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive number, got '$ROUNDS'"
[[ -x "$LINT" ]] || die "syncwatch-lint not found at '$LINT' (set SYNCWATCH_LINT)"
command -v "$CLANGXX" >/dev/null || die "'$CLANGXX' not found (set CLANGXX)"
[[ -d "$RESOURCE_DIR" ]] || die "clang resource dir '$RESOURCE_DIR' not found (set CLANG_RESOURCE_DIR)"
command -v python3 >/dev/null || die "python3 not found"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/syncwatch-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# ---------------------------------------------------------------- inputs
python3 "$ROOT/bench/gen_corpus.py" "$WORK/corpus" -n "$N_FILES" --seed "$SEED"
FILES=()
for f in "$WORK"/corpus/*.cu; do
  [[ -e "$f" ]] && FILES+=("$f")
done
N_GEN=${#FILES[@]}
N_TEST=0
for f in "$ROOT"/test_inputs/static/*.cu; do
  [[ -e "$f" ]] || continue
  head8="$(head -n 8 "$f")"
  if ! grep -q '// clang-flags:' <<<"$head8"; then
    FILES+=("$f")
    N_TEST=$((N_TEST + 1))
  fi
done
((${#FILES[@]} > 0)) || die "no input files"
LINES=$(cat "${FILES[@]}" | wc -l)

# The flags syncwatch-lint's host-side adjuster adds to a .cu file (HostSideArgs.cpp):
# -resource-dir, --cuda-host-only, -Wno-unknown-cuda-version, -Wno-register, --cuda-path,
# --cuda-gpu-arch=sm_90, and -isystem <cuda>/include/cccl when that folder exists.
CLANG_FLAGS=(-fsyntax-only -resource-dir="$RESOURCE_DIR" --cuda-host-only -x cuda
             --cuda-path="$CUDA_DIR" --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version -Wno-register)
if [[ -d "$CUDA_DIR/include/cccl" ]]; then
  CLANG_FLAGS+=(-isystem "$CUDA_DIR/include/cccl")
fi

# ---------------------------------------------------------------- runners
# Each prints its wall time in seconds; on a tool error it shows the log and exits 2.
run_lint() {  # $1 = report path
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  "$LINT" -j "$JOBS" "${LINT_EXTRA[@]}" --format=json --output="$1" "${FILES[@]}" -- >"$WORK/lint.log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if ((rc != 0 && rc != 1)); then
    echo "run_bench: syncwatch-lint exited with $rc:" >&2
    tail -n 40 "$WORK/lint.log" >&2
    exit 2
  fi
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}'
}

run_clang() {
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  printf '%s\0' "${FILES[@]}" |
    xargs -0 -P "$JOBS" -n 1 "$CLANGXX" "${CLANG_FLAGS[@]}" >"$WORK/clang.log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if ((rc != 0)); then
    echo "run_bench: $CLANGXX -fsyntax-only failed (xargs exit $rc):" >&2
    tail -n 40 "$WORK/clang.log" >&2
    exit 2
  fi
  echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}'
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {
  if (NR % 2) printf "%.3f", v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "syncwatch benchmark: $N_GEN generated + $N_TEST test-input files, -j $JOBS, $ROUNDS rounds${LINT_ARGS:+, syncwatch-lint $LINT_ARGS}"

# ---------------------------------------------------------------- findings (untimed)
# Also checks that every file parses before anything is timed, and warms the caches.
run_lint "$WORK/report.json" >/dev/null
FINDINGS=$(python3 - "$WORK/report.json" <<'EOF'
import collections, json, sys
with open(sys.argv[1]) as fh:
    findings = json.load(fh)["findings"]
by = collections.Counter(f"{f.get('rule', '?')} {f.get('severity', '?')}" for f in findings)
detail = ", ".join(f"{k}: {v}" for k, v in sorted(by.items()))
print(f"{len(findings)}" + (f" ({detail})" if detail else ""))
EOF
)

# ---------------------------------------------------------------- timed rounds
A_TIMES=()
B_TIMES=()
for ((r = 1; r <= ROUNDS; r++)); do
  a=$(run_lint /dev/null)
  b=$(run_clang)
  A_TIMES+=("$a")
  B_TIMES+=("$b")
  echo "  round $r: syncwatch-lint ${a}s, clang++ -fsyntax-only ${b}s"
done
A_MED=$(median "${A_TIMES[@]}")
B_MED=$(median "${B_TIMES[@]}")
RATIO=$(awk -v a="$A_MED" -v b="$B_MED" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')

echo
printf '%-34s %s\n' "files" "${#FILES[@]}"
printf '%-34s %s\n' "lines of code" "$LINES"
printf '%-34s %s\n' "jobs" "$JOBS"
printf '%-34s %s\n' "syncwatch-lint median wall (s)" "$A_MED"
printf '%-34s %s\n' "clang++ -fsyntax-only median (s)" "$B_MED"
printf '%-34s %s\n' "syncwatch-lint findings" "$FINDINGS"
echo "ratio syncwatch-lint / clang++ -fsyntax-only: $RATIO (target <= 1.30)"
