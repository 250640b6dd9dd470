#!/usr/bin/env bash
# Issue 14 on one GPU: a two-rank torchrun job (gloo) sharing the GPU, rank 1 with a planted
# pageable copy, run plain and under `syncwatch run --record`; the merged report must name
# rank 1 and the PLANTED line, and the straggler must be rank 1. The recordings come back
# for CI (test_inputs/runtime/multiprocess/).  Usage: multiprocess_check.sh BUILD_DIR OUTDIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
build=$1; out=$2; mkdir -p "$out"; fail=0
sw=$build/interposer/syncwatch
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 OMP_NUM_THREADS=2
steps=${STEPS:-100}
echo "== plain"
for i in 1 2; do torchrun --standalone --nproc-per-node=2 "$here/two_ranks.py" $steps 2>&1 | grep "^rank"; done
echo "== under syncwatch run --record"
for i in 1 2; do
  rm -rf "$out/job$i"
  "$sw" run --record --out "$out/job$i" -- torchrun --standalone --nproc-per-node=2 "$here/two_ranks.py" $steps \
    > "$out/job$i.log" 2>&1 || fail=1
  grep "^rank" "$out/job$i.log"
done
grep -v "^rank" "$out/job1.log" | grep -E "^syncwatch merge|^  rank|^  missing|^straggler|two_ranks.py" | cut -c1-400
ls "$out/job1"
python3 - "$out/job1/syncwatch-merged.json" "$here/two_ranks.py" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1])); fig = doc["figures"]
line = next(i for i, l in enumerate(open(sys.argv[2]), 1) if "# PLANTED" in l)
hits = [f for f in doc["findings"] if f["location"]["file"].endswith("two_ranks.py") and f["location"]["line"] == line
        and f["rule"] == "syncwatch-pageable-async-copy"]
ok = bool(hits) and hits[0]["evidence"].get("ranks") == "rank 1" and fig.get("straggler") == "rank 1"
print(("PASS" if ok else "FAIL") + f"  merged: two_ranks.py:{line} on {hits[0]['evidence'].get('ranks') if hits else None}, "
      f"straggler {fig.get('straggler')}, ranks {fig.get('ranks')}, gpus {fig.get('rank.0.gpu')} / {fig.get('rank.1.gpu')}")
sys.exit(0 if ok else 1)
PY
"$sw" merge --trace "$out/merged.trace.json" "$out"/job1/syncwatch-r*.swrec > "$out/merge-recordings.txt"; echo "merge of the recordings: exit $?"
head -5 "$out/merge-recordings.txt"
mkdir -p "$out/multiprocess" && cp "$out"/job1/syncwatch-r*.swrec "$out/multiprocess/"
echo "== multiprocess check: $([ $fail -eq 0 ] && echo PASS || echo FAIL)"
exit $fail
