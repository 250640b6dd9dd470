#!/usr/bin/env bash
# Runtime overhead benchmark (run on a GPU machine; not a timed test). Runs, interleaved in
# one session so that machine noise hits every mode alike:
#   plain      the program alone
#   floor      libsyncwatch.so with SYNCWATCH_FLOOR=1: CUPTI subscribed to every catalogued
#              API, launches included, callbacks that do nothing - the floor any CUPTI tool
#              watching these calls pays
#   floor-act  SYNCWATCH_FLOOR=activity: syncwatch's own subscription (launch callbacks left
#              off) and activity records (dropped unread) - CUPTI's part of syncwatch's cost
#   syncwatch  libsyncwatch.so as users run it (kernel activity on demand: SYNCWATCH_KERNELS=auto)
#   sw-kernels libsyncwatch.so tracing every kernel (SYNCWATCH_KERNELS=1)
#   sw-notorch libsyncwatch.so not reading PyTorch's current stream (SYNCWATCH_TORCH_STREAMS=0):
#              against syncwatch, what that read costs (BENCH_MODES adds it)
# on (1) a launch-bound loop (tests/gpu/launch_bound.cu: a tiny kernel per iteration and a
# pinned 64-byte cudaMemcpyAsync every 4th, over 4 non-blocking streams), (2) the seed's
# PyTorch scenario timed inside the process, and (3) 10 million CUDA calls for peak RSS.
# Prints medians, added ns per iteration and the ratios the issue's targets are stated in.
# Usage: bench/runtime_overhead.sh BUILD_DIR [REPS] [PARTS]
#   BUILD_DIR has libsyncwatch.so and launch_bound; PARTS: any of launch,python,rss (default all)
set -uo pipefail
build=$1; reps=${2:-5}; parts=${3:-launch,python,rss}; here=$(cd "$(dirname "$0")" && pwd); root=$here/..
want() { [[ ",$parts," == *",$1,"* ]]; }
lib=$build/interposer/libsyncwatch.so; prog=$build/launch_bound
log=${BENCH_LOG:-$(mktemp)}   # BENCH_LOG: keep the raw runs (one line per run)
pyreps=${BENCH_PY_REPS:-3}
workloads=${BENCH_PY_WORKLOADS:-train train-side seed}  # the PyTorch workloads to run
mode_env() {
  case $1 in
    plain) echo "";;
    floor) echo "SYNCWATCH_FLOOR=1 LD_PRELOAD=$lib";;
    floor-act) echo "SYNCWATCH_FLOOR=activity LD_PRELOAD=$lib";;
    syncwatch) echo "SYNCWATCH_QUIET=1 LD_PRELOAD=$lib";;
    sw-kernels) echo "SYNCWATCH_KERNELS=1 SYNCWATCH_QUIET=1 LD_PRELOAD=$lib";;
    sw-nopython) echo "SYNCWATCH_PYTHON=0 SYNCWATCH_QUIET=1 LD_PRELOAD=$lib";;
    sw-idle1k) echo "SYNCWATCH_IDLE_LAUNCHES=1000 SYNCWATCH_QUIET=1 LD_PRELOAD=$lib";;
    sw-notorch) echo "SYNCWATCH_TORCH_STREAMS=0 SYNCWATCH_QUIET=1 LD_PRELOAD=$lib";;
  esac
}
modes=${BENCH_MODES:-plain floor floor-act syncwatch sw-kernels}
want launch && for rep in $(seq "$reps"); do
  for m in $modes; do
    echo "launch $m $(env $(mode_env $m) "$prog" 250000)" >>"$log"
  done
done
if want python && python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  for rep in $(seq "$pyreps"); do
    for m in $modes sw-nopython; do
      for w in $workloads; do
        [ "$m" = sw-kernels ] && [ "$w" != train ] && continue
        case $w in
          train) echo "train $m $(env $(mode_env $m) python3 "$root/bench/train_loop.py" 2>/dev/null | grep step_ms)" >>"$log";;
          train-side) echo "train-side $m $(env $(mode_env $m) python3 "$root/bench/train_loop.py" side 2>/dev/null | grep step_ms)" >>"$log";;
          seed) echo "seed $m $(env $(mode_env $m) python3 "$root/tests/gpu/seed_streams.py" true 5 2>/dev/null | grep streams_ms)" >>"$log";;
        esac
      done
    done
  done
fi
# 8M iterations = 8M launches + 2M copies = 10M CUDA calls.
want rss && for m in plain floor floor-act syncwatch; do
  echo "rss10M $m $(env $(mode_env $m) "$prog" 8000000)" >>"$log"
done
python3 - "$log" <<'PY'
import statistics, sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 4:
        rows[(f[0], f[1])].append(f[2:])
def med(kind, mode, key):
    vals = [float(r[r.index(key) + 1]) for r in rows.get((kind, mode), []) if key in r]
    return statistics.median(vals) if vals else None, vals
if ("launch", "plain") in rows:
    print("launch-bound loop, ns per iteration (median of %d interleaved runs):" % len(rows[("launch", "plain")]))
    base = med("launch", "plain", "ns_per_iter")[0]
    floor = med("launch", "floor", "ns_per_iter")[0]
    for m in ("plain", "floor", "floor-act", "syncwatch", "sw-kernels"):
        v, all_ = med("launch", m, "ns_per_iter")
        if v is None: continue
        extra = ""
        if m != "plain":
            extra = f"  added {v - base:7.1f} ns  total/floor {v / floor:.3f}"
            if m != "floor" and floor > base:
                extra += f"  added/floor-added {(v - base) / (floor - base):.2f}"
        print(f"  {m:11s} {v:8.1f}  runs {', '.join('%.0f' % x for x in all_)}{extra}")

def versus_plain(kind, key, title, digits):
    """One PyTorch workload: each mode's median and its change against plain."""
    if (kind, "plain") not in rows:
        return
    print(title)
    base = med(kind, "plain", key)[0]
    last = med(kind, "plain", "last")[0]
    for m in ("plain", "floor", "floor-act", "syncwatch", "sw-notorch", "sw-nopython", "sw-idle1k", "sw-kernels"):
        v, all_ = med(kind, m, key)
        if v is None: continue
        line = f"  {m:11s} {v:8.{digits}f}  runs {', '.join(f'{x:.{digits}f}' for x in all_)}  vs plain {100 * (v / base - 1):+.1f}%"
        steady = med(kind, m, "last")[0]
        if steady is not None and last:
            line += f"  steady (last 500 steps) {steady:.{digits}f}, vs plain {100 * (steady / last - 1):+.1f}%"
        print(line)

versus_plain("seed", "streams_ms", "seed PyTorch scenario (non_blocking=True), ms per run inside the process (median of 3 x median of 5):", 2)
versus_plain("train", "step_ms", "PyTorch training loop (bench/train_loop.py, .item() every 10 steps), ms per step inside the process (median of 3):", 3)
versus_plain("train-side", "step_ms", "the same loop prefetching its input on a side stream (train_loop.py side: stream pools exist, kernels traced), ms per step (median of 3):", 3)
p = med("rss10M", "plain", "peak_rss_kb")[0]; s = med("rss10M", "syncwatch", "peak_rss_kb")[0]
if p and s:
    print("10 million CUDA calls (8M launches + 2M copies): peak RSS")
    for m in ("floor", "floor-act", "syncwatch"):
        v = med("rss10M", m, "peak_rss_kb")[0]
        if v:
            print(f"  {m:11s} {v / 1024:.1f} MiB: +{(v - p) / 1024:.1f} MiB over plain ({p / 1024:.1f} MiB)")
    print(f"  ns/iter over the 10M calls: plain {med('rss10M', 'plain', 'ns_per_iter')[0]:.0f}, syncwatch {med('rss10M', 'syncwatch', 'ns_per_iter')[0]:.0f}")
PY
