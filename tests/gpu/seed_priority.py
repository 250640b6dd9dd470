"""The seed's own priority scenario (shared/seed/cuda-streams-puzzler.txt, different_priority):
1000 matmuls of 1024x1024 on a priority-0 stream, then 1000 pow kernels on a priority -1
stream. Prints when each stream's work was done (ms after the first launch), measured with
CUDA events, so the report's time lost can be read beside it. Usage: seed_priority.py [same]"""
import sys

import torch

same = len(sys.argv) > 1 and sys.argv[1] == "same"
cuda = torch.device("cuda")
first_stream = torch.cuda.Stream(priority=0)
third_stream = torch.cuda.Stream(priority=0 if same else -1)
matrix_on_gpu = [torch.rand((1024, 1024), device=cuda) for _ in range(1000)]
torch.cuda.synchronize()
start = torch.cuda.Event(enable_timing=True)
mm_done, pow_done = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record(first_stream)
with torch.cuda.stream(first_stream):
    for i in range(len(matrix_on_gpu)):
        torch.matmul(matrix_on_gpu[i], matrix_on_gpu[i])
    mm_done.record(first_stream)
third_stream.wait_event(start)
with torch.cuda.stream(third_stream):
    for i in range(len(matrix_on_gpu)):
        torch.pow(matrix_on_gpu[i], 3)  # SEED-POW
    pow_done.record(third_stream)
torch.cuda.synchronize()
print(f"seed priority ({'same' if same else 'different'}): matmuls done {start.elapsed_time(mm_done):.1f} ms, "
      f"pows done {start.elapsed_time(pow_done):.1f} ms")
