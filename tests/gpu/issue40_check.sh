#!/usr/bin/env bash
# Issue 40 on the GPU machine, in one call: build the runtime, then
#   1. tests/gpu/coexistence.sh (CUPTI shared with torch.profiler, Kineto, compute-sanitizer,
#      a second libsyncwatch) - its exit status is the verdict;
#   2. loop readiness live (SYNCWATCH_STEP=@loop on readiness_step.py, no marks);
#   3. bench/runtime_cost.sh (a fast call alone and from 8 threads, on this host's cores), and
#      the filtered launch's scaling from 1 to 8 threads, part by part;
#   4. bench/train_loop_rounds.sh with what is left of DEADLINE seconds.
# Everything goes under $OUT as it is made (tarred), so a timeout still brings it back.
#   tests/gpu/issue40_check.sh [DEADLINE_SECONDS] [STEPS: coexist,loop,cost,train]
set -u
deadline=${1:-560}; steps=${2:-coexist,loop,cost,train}
root=$PWD; b=$root/build-gpu; w=/tmp/w; mkdir -p $w
want() { case ",$steps," in *",$1,"*) return 0;; esac; return 1; }
save() { tar czf $OUT/w.tgz -C $w . 2>/dev/null; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nproc; } > $w/gpu.txt 2>&1
( timeout 240 bash tests/gpu/build_runtime.sh $b && nvcc -g -O2 -arch=sm_90 -o $b/capture_failures tests/gpu/capture_failures.cu ) > $w/build.log 2>&1
echo "build rc=$? at ${SECONDS}s"; tail -3 $w/build.log; save
if want coexist; then
  timeout 300 bash tests/gpu/coexistence.sh $b $w/co > $w/co.log 2>&1; echo "coexistence rc=$? at ${SECONDS}s"
  tail -8 $w/co.log; save
fi
if want loop; then
  SYNCWATCH_STEP=@loop SYNCWATCH_MEASURE=all timeout 90 $b/interposer/syncwatch run --out $w/loop -- \
    python3 tests/gpu/readiness_step.py before 60 > $w/loop.out 2> $w/loop.err
  echo "loop readiness rc=$? at ${SECONDS}s"; grep -i -A12 "readiness\|capture" $w/loop.err | tail -25; save
fi
if want cost; then
  timeout 120 bash bench/runtime_cost.sh $b > $w/cost.log 2>&1; echo "runtime_cost rc=$? at ${SECONDS}s"; tail -2 $w/cost.log; save
  # The filtered launch from 1, 2, 4, 8 threads with its parts and the unbound loop: which
  # part grows on a many-core host (docs/benchmarks.md, threads).
  { nproc; lscpu | grep -i "thread(s) per core\|^core(s)\|model name"; } > $w/scaling.log 2>&1
  timeout 90 $b/bench/runtime_cost/syncwatch-cost-bench scaling 200000 >> $w/scaling.log 2>&1
  echo "scaling rc=$? at ${SECONDS}s"; cat $w/scaling.log; save
fi
if want train; then
  left=$((deadline - SECONDS - 40))
  [ $left -gt 60 ] && { timeout $((left + 30)) bash bench/train_loop_rounds.sh $b 10 $left > $w/train.log 2>&1; echo "train rc=$? at ${SECONDS}s"; tail -9 $w/train.log; }
  save
fi
