"""The seed's PyTorch scenario (shared/seed/cuda-streams-puzzler.txt): matmuls on one stream,
DtoH copies on a second, HtoD copies on a third.
Usage: seed_streams.py true|false [REPEATS]
With REPEATS, the scenario runs once to warm up and then REPEATS times, and the median
time of one run is printed (the overhead benchmark's end-to-end figure, free of Python's
and CUDA's start-up time)."""
import statistics
import sys
import time

import torch

non_blocking = sys.argv[1] == "true"
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 0
cuda, cpu = torch.device("cuda"), torch.device("cpu")
first, second, third = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
n = 200
matrix_on_gpu = [torch.rand((1024, 1024), device=cuda) for _ in range(n)]
data_on_gpu = [torch.rand((1024, 1024), device=cuda) for _ in range(n)]
data_on_cpu = [torch.rand((1024, 1024)) for _ in range(n)]
torch.cuda.synchronize()

def streams():
    with torch.cuda.stream(first):
        for i in range(len(matrix_on_gpu)):
            torch.matmul(matrix_on_gpu[i], matrix_on_gpu[i])
    with torch.cuda.stream(second):
        for i in range(len(data_on_gpu)):
            data_on_gpu[i].to(cpu, non_blocking=non_blocking)  # SEED-DTOH
    with torch.cuda.stream(third):
        for i in range(len(data_on_cpu)):
            data_on_cpu[i].to(cuda, non_blocking=non_blocking)  # SEED-HTOD

streams()
torch.cuda.synchronize()
if repeats:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        streams()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"streams_ms {statistics.median(times):.2f}")
print("seed scenario done, non_blocking =", non_blocking)
