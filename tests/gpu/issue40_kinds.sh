#!/usr/bin/env bash
# Issue 40, item 5, on the GPU machine: what each piece of CUPTI's activity floor costs, without
# syncwatch (tests/gpu/cupti_kinds_preload.c, chosen by PROBE_KINDS), in interleaved rounds
# paired against plain per round:
#   1. launch_bound.cu (one tiny kernel per iteration, a pinned copy every 4th), ns per iteration;
#   2. bench/train_loop.py (the PyTorch loop), ms per step, until DEADLINE seconds.
# Everything goes under $OUT as it is made (kinds.tgz).
#   tests/gpu/issue40_kinds.sh [DEADLINE_S=540] [LAUNCH_ROUNDS=8] [ITERS=200000]
set -u
deadline=${1:-540}; lrounds=${2:-8}; iters=${3:-200000}
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
w=/tmp/kinds; mkdir -p $w; b=$w/bin; mkdir -p $b
save() { [ -n "${OUT:-}" ] && tar czf "$OUT/kinds.tgz" -C $w . 2>/dev/null; return 0; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; } > $w/gpu.txt 2>&1
gcc -O2 -shared -fPIC -I/usr/local/cuda/include "$here/cupti_kinds_preload.c" -L/usr/local/cuda/lib64 -lcupti \
  -Wl,-rpath,/usr/local/cuda/lib64 -o $b/libkinds.so || { echo "probe build failed"; exit 1; }
nvcc -O2 -arch=sm_90 -o $b/launch_bound "$here/launch_bound.cu" || { echo "launch_bound build failed"; exit 1; }
pin=(taskset -c "${PIN:-4-7}")
kinds_of() { case $1 in plain) echo "";; three) echo memcpy,memset,stream;; *) echo "$1";; esac; }
# each mode's median, and its ratio to plain paired per round (bench/paired_rounds.py)
summarize() { python3 "$root/bench/paired_rounds.py" "$1" --unit "$2"; }
lmodes=(plain sub reg memcpy memset stream three kernel)
for ((r = 1; r <= lrounds; r++)); do
  for ((k = 0; k < ${#lmodes[@]}; k++)); do
    m=${lmodes[$(((k + r - 1) % ${#lmodes[@]}))]}
    v=$(PROBE_KINDS=$(kinds_of $m) LD_PRELOAD=$b/libkinds.so timeout 60 "${pin[@]}" $b/launch_bound "$iters" 2>>$w/launch.err |
        sed -n 's/^ns_per_iter \([0-9.]*\).*/\1/p')
    echo "round $r $m ${v:-failed}" >> $w/launch.txt
  done
done
echo "launch loop (ns per iteration) at ${SECONDS}s:"; summarize $w/launch.txt ns/iteration | tee $w/launch.summary; save
tmodes=(plain sub reg memcpy memset stream three)
for ((r = 1; ; r++)); do
  [ $((SECONDS + 45)) -lt "$deadline" ] || break
  for ((k = 0; k < ${#tmodes[@]}; k++)); do
    m=${tmodes[$(((k + r - 1) % ${#tmodes[@]}))]}
    v=$(PROBE_KINDS=$(kinds_of $m) LD_PRELOAD=$b/libkinds.so timeout 60 "${pin[@]}" python3 "$root/bench/train_loop.py" 2>>$w/train.err |
        sed -n 's/^step_ms \([0-9.]*\).*/\1/p')
    echo "round $r $m ${v:-failed}" >> $w/train.txt
  done
  save
done
echo "PyTorch loop (ms per step) at ${SECONDS}s:"; summarize $w/train.txt ms/step | tee $w/train.summary; save
