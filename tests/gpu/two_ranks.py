"""A two-rank job on one GPU (torchrun --nproc-per-node=2, gloo): both ranks run matmuls
on a side stream and all-reduce a CPU tensor each step; rank 1 alone stages its input from
pageable memory with non_blocking=True (the planted stall), rank 0 from pinned memory.
`syncwatch merge` must name rank 1 and the PLANTED line. Prints each rank's loop time.
Usage: torchrun --standalone --nproc-per-node=2 two_ranks.py [STEPS]"""
import os
import sys
import time

import torch
import torch.distributed as dist

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 100
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count())
dev = torch.device("cuda")
side = torch.cuda.Stream()
weights = torch.rand((2048, 2048), device=dev)
batch_cpu = torch.rand((2048, 2048))               # 16 MB, pageable
if rank == 0:
    batch_cpu = batch_cpu.pin_memory()             # rank 0 stages from pinned memory
grad = torch.zeros(1024)

torch.cuda.synchronize()
start = time.perf_counter()
for step in range(steps):
    with torch.cuda.stream(side):
        batch = batch_cpu.to(dev, non_blocking=True)  # PLANTED (pageable on rank 1 only)
        out = batch @ weights
        weights.add_(out, alpha=1e-6)
    grad.fill_(float(rank))
    dist.all_reduce(grad)                          # gloo: host-side, no CUDA
torch.cuda.synchronize()
elapsed = (time.perf_counter() - start) * 1000
print(f"rank {rank} of {world}: {steps} steps in {elapsed:.1f} ms, grad {grad[0].item():.0f}", flush=True)
dist.destroy_process_group()
