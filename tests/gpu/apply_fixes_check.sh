#!/usr/bin/env bash
# GPU side of `syncwatch verify --apply-fixes` (tests/join/apply_fixes_test.py stops before the
# runs): a fix-it measured end to end. The GPU machine has no LLVM, so the fix-its come from
# a lint report made beforehand on a machine that has it:
#   apply_fixes_check.sh prepare OUT             (with syncwatch-lint: a git checkout of
#       test_inputs/static/sm_pos_single_stream_fixable.cu as OUT/repo/src/flow.cu, built by
#       nvcc, and syncwatch-lint's SARIF of it, OUT/repo.sarif)
#   apply_fixes_check.sh run BUILD_DIR OUT       (on the GPU: the before binary built in the
#       checkout, then verify --apply-fixes --fixes OUT/repo.sarif: worktree, fix-its, nvcc
#       build, 5 runs each side interleaved; OUT/verify.json and the text report)
# Carry OUT to the GPU machine with the run (its repo is a nested git repository).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
nvcc_cmd='nvcc -O2 -arch=sm_90 -Xcompiler -g1 -o flow src/flow.cu'
case "${1:-}" in
prepare)
  out=$(mkdir -p "$2" && cd "$2" && pwd); repo=$out/repo
  rm -rf "$repo"; mkdir -p "$repo/src"
  cp "$root/test_inputs/static/sm_pos_single_stream_fixable.cu" "$repo/src/flow.cu"
  printf 'flow\nsyncwatch-verify/\n' > "$repo/.gitignore"
  git -C "$repo" init -q && git -C "$repo" add -A
  git -C "$repo" -c user.name=syncwatch -c user.email=syncwatch@localhost commit -qm "flow: one pyramid level"
  printf '[{"directory": "%s", "command": "/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -c %s/src/flow.cu", "file": "%s/src/flow.cu"}]\n' \
    "$repo" "$repo" "$repo" > "$out/compile_commands.json"
  lint=${SYNCWATCH_LINT:-$root/build/analyzer/syncwatch-lint}
  (cd "$repo" && "$lint" -p "$out/compile_commands.json" --format=sarif --output="$out/repo.sarif") || [ $? -eq 1 ]
  echo "prepared $repo and $out/repo.sarif" ;;
run)
  build=$(cd "$2" && pwd); out=$(cd "$3" && pwd); repo=$out/repo
  cd "$repo"
  $nvcc_cmd                      # the before side: the checkout as it is
  rm -rf syncwatch-verify; git worktree prune
  rc=0
  "$build/interposer/syncwatch" verify --apply-fixes --fixes "$out/repo.sarif" --build-cmd "$nvcc_cmd" \
    --run-cmd ./flow --runs 5 --format json --output "$out/verify.json" || rc=$?
  echo "verify --apply-fixes: exit $rc (0 saved or no change, 1 slower)"; [ $rc -le 1 ]
  cat syncwatch-verify/fixes.diff
  python3 - "$out/verify.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print("verdict:", doc["verdict"], "| runs", doc["runsBefore"], "+", doc["runsAfter"])
for k, v in doc["run"].items():
    print(f"  {k}: {v['before']:.3f} -> {v['after']:.3f} ms ({v['verdict']}, [{v['low']:+.3f}, {v['high']:+.3f}])")
for s in doc["sites"]:
    b = s["blockedMs"]
    print(f"  {s['file'].rsplit('/', 1)[-1]}:{s['line']} {s['rule']} ({s['api']}): {b['before']:.3f} -> {b['after']:.3f} ms, {b['verdict']}")
PY
  ;;
*) echo "usage: apply_fixes_check.sh prepare OUT | run BUILD_DIR OUT" >&2; exit 2 ;;
esac
