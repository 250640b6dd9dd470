#!/usr/bin/env bash
# Fuzzing (issue 20): builds the libFuzzer targets of tests/fuzz/ with clang-22
# (-fsanitize=fuzzer,address,undefined) into BUILD_DIR/fuzz and runs each for SECONDS on a
# copy of its seed corpus (tests/fuzz/corpus/<target>, made from real files) plus the inputs
# that once crashed it (tests/fuzz/regressions/<target>). Prints each target's executions
# per second and coverage; exits 1 on a crash, whose input is left in BUILD_DIR/fuzz/ - fix
# the bug and commit that input under regressions/.
#   tests/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mkdir -p "${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS]}/fuzz" && cd "$1/fuzz" && pwd)"
seconds="${2:-20}"
clangxx="${CLANGXX:-$(command -v clang++-22 || true)}"
if [ -z "$clangxx" ] || [ ! -f /usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.fuzzer-x86_64.a ]; then
  echo "run_fuzzers.sh: clang++-22 and libclang-rt-22-dev are needed (ci/setup.sh installs them)" >&2
  exit 2
fi
cmake -S "$here" -B "$out" -G Ninja -DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_BUILD_TYPE=None >/dev/null
ninja -C "$out" -j2 >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 2; }
failed=0
for target in fuzz_compile_db fuzz_json_report fuzz_sarif fuzz_baseline fuzz_cache_entry fuzz_swrec fuzz_confirm fuzz_lsp; do
  work="$(mktemp -d "$out/corpus-$target.XXXXXX")"
  cp "$here/corpus/$target"/* "$work/"
  dirs=("$work")
  [ -d "$here/regressions/$target" ] && dirs+=("$here/regressions/$target")
  log="$out/$target.log"
  rc=0
  (cd "$out" && "./$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -close_fd_mask=3 \
     -print_final_stats=1 -artifact_prefix="$out/$target-" "${dirs[@]}") >"$log" 2>&1 || rc=$?
  done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" || true)"
  execs="$(awk '/stat::number_of_executed_units/ {print $2}' "$log")"
  persec="$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")"
  cov="$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$done_line")"
  if [ "$rc" -ne 0 ]; then
    failed=1
    echo "FAIL $target: exit $rc after ${execs:-?} runs; input: $(ls "$out/$target-"* 2>/dev/null | tr '\n' ' ')"
    grep -E "ERROR|SUMMARY|==[0-9]+==" "$log" | sed -n 1,8p
  else
    echo "ok   $target: ${execs:-?} runs in ${seconds}s, ${persec:-?} exec/s, coverage ${cov:-?} edges, corpus $(ls "$work" | wc -l) inputs"
  fi
  rm -rf "$work"
done
exit $failed
