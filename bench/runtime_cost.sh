#!/usr/bin/env bash
# syncwatch's own cost per CUDA call, without a GPU: the real capture handlers
# (interposer/recorder/ApiHandler.cpp), driven by a fake CUDA runtime with synthetic callback
# data (bench/runtime_cost/), in a training loop's mix (launches, async copies, event
# records, stream syncs; every call recorded, as on a blocking stream). Measured as the
# difference between interleaved rounds with and without the handlers, on the thread's CPU
# clock: from a C++ loop, from Python 30 frames deep, and from 8 threads at once.
# A benchmark, not a test: it prints figures and asserts nothing (docs/benchmarks.md).
#
#   bench/runtime_cost.sh BUILD_DIR [ITERATIONS]
# The last line is read by scripts (the mix, every call recorded; then the launch the filter
# only counts, from one thread and from 8 at once, and their ratio: issue 40's 2x bound):
#   own cost per fast call: cpp=N ns, python=M ns, threads=T ns; unrecorded launch: 1 thread=A ns, 8 threads=B ns (Rx)
set -euo pipefail
build="${1:?usage: bench/runtime_cost.sh BUILD_DIR [ITERATIONS]}"
iterations="${2:-200000}"
here="$(cd "$(dirname "$0")" && pwd)"
bench="$build/bench/runtime_cost/syncwatch-cost-bench"
[ -x "$bench" ] || { echo "runtime_cost.sh: $bench not built (needs CUPTI's headers: the CUDA toolkit)" >&2; exit 2; }

cpp_out="$("$bench" cpp "$iterations")"
threads_out="$("$bench" threads "$iterations")"
rss_out="$("$bench" rss $((iterations * 50)))"
python_out="$(python3 "$here/runtime_cost/cost_python.py" "$build" "$iterations")"
echo "== from a C++ loop (ns of syncwatch's own work per call, per kind)"
echo "$cpp_out"
echo "== from Python 30 frames deep ($(python3 -c 'import sys; print(sys.version.split()[0])'))"
echo "$python_out"
echo "== from 8 threads at once"
echo "$threads_out"
echo "== memory"
echo "$rss_out"
value() { awk -v k="$2" 'NF == 3 && $1 " " $2 == k {print $3}' <<<"$1"; }
one=$(value "$cpp_out" "cpp filtered-launch"); eight=$(value "$threads_out" "threads filtered-launch")
printf 'own cost per fast call: cpp=%.0f ns, python=%.0f ns, threads=%.0f ns; unrecorded launch: 1 thread=%.0f ns, 8 threads=%.0f ns (%.2fx)\n' \
  "$(value "$cpp_out" "cpp mix")" "$(value "$python_out" "python mix")" "$(value "$threads_out" "threads mix")" \
  "$one" "$eight" "$(awk -v a="$eight" -v b="$one" 'BEGIN { print (b > 0 ? a / b : 0) }')"
