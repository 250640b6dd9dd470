"""A PyTorch loop that torch.profiler traces, for issue 40's coexistence table
(tests/gpu/coexistence.sh): the same work with and without syncwatch preloaded, and what the
profiler saw of it - kernels and memcpys on the GPU, and the CUDA runtime calls.

  profiled_loop.py [--no-profiler | --twice]

Prints one JSON line: the counts of the profiler's GPU events by kind, the runtime calls it
saw, and a checksum of the results (the same with and without syncwatch). --twice: two
profiler sessions one after the other (Kineto's re-init; with TEARDOWN_CUPTI=1 it finalizes
CUPTI between them), the counts of each.
"""
import json
import sys

import torch

ITERS = 20


def work(x, host):
    y = torch.relu(x @ x)               # kernels
    y.copy_(host, non_blocking=True)    # a pageable HtoD copy (host is not pinned)
    s = y.sum()
    return s.item()                     # a DtoH copy and a host wait


def main():
    x = torch.randn(256, 256, device="cuda")
    host = torch.ones(256, 256)
    work(x, host)  # warm-up: cuBLAS handles, module loads
    torch.cuda.synchronize()
    total = 0.0
    if "--no-profiler" in sys.argv:
        for _ in range(ITERS):
            total += work(x, host)
        print(json.dumps({"checksum": total}))
        return
    sessions = []
    for _ in range(2 if "--twice" in sys.argv else 1):
        counts, part = profiled(x, host)
        total += part
        sessions.append(counts)
    out = dict(sessions[0], checksum=total)
    if len(sessions) > 1:
        out["second"] = sessions[1]
    print(json.dumps(out))


def profiled(x, host):
    total = 0.0
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        for _ in range(ITERS):
            total += work(x, host)
        torch.cuda.synchronize()
    kernels = memcpys = memsets = runtime = 0
    for e in prof.events():
        kind = str(getattr(e, "device_type", ""))
        name = e.name
        if kind.endswith("CUDA"):
            if name.startswith("Memcpy"):
                memcpys += 1
            elif name.startswith("Memset"):
                memsets += 1
            else:
                kernels += 1
        elif name.startswith("cuda") or name.startswith("cu"):
            runtime += 1
    return {"kernels": kernels, "memcpys": memcpys, "memsets": memsets, "runtimeCalls": runtime}, total


if __name__ == "__main__":
    main()
