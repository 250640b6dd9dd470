"""Derives from a recording made before capture stopped recording legacy-stream launches
(commit fc360c4) what libsyncwatch.so records now: the same events without the launch calls
onto the legacy stream issued before any work went to a blocking stream (CallFilter.h).
Kernel records stay (the run's .item() stalls turn kernel tracing on at the first step).
Used for test_inputs/runtime/h200_train_item_launches_unrecorded.swrec until the GPU
machine re-records it. Usage: drop_unrecorded_launches.py IN.swrec OUT.swrec"""
import os
import re
import sys

# The launch APIs, from the catalogue (rules/cuda_api.def: family Launch).
CATALOGUE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "rules", "cuda_api.def")
LAUNCHES = set(re.findall(r'^SYNCWATCH_API\("(\w+)",\s*\w+,\s*Launch,', open(CATALOGUE).read(), re.M))
assert "cudaLaunchKernel" in LAUNCHES and "cuLaunchKernel" in LAUNCHES, LAUNCHES
lines = open(sys.argv[1]).read().split("\n")
stream_of = {}  # correlation -> stream of its GPU record
flag_of = {}    # stream -> legacy / blocking / nonblocking
for line in lines:
    f = line.split("\t")
    if f[0] in ("K", "M", "Z") and len(f) > 2:
        stream_of[f[1]] = f[2]
    elif f[0] == "S" and len(f) > 2:
        flag_of[f[1]] = f[2]
out, blocking_work, dropped = [], False, 0
for line in lines:
    f = line.split("\t")
    if f[0] == "C" and len(f) > 3:
        flag = flag_of.get(stream_of.get(f[1]))
        if f[3] in LAUNCHES or f[3] == "cudaMemcpyAsync":
            if flag == "blocking":
                blocking_work = True
            elif f[3] in LAUNCHES and flag == "legacy" and not blocking_work:
                dropped += 1
                continue
    out.append(line)
open(sys.argv[2], "w").write("\n".join(out))
print(f"{sys.argv[2]}: {dropped} launch calls dropped")
