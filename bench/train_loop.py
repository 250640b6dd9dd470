"""Overhead benchmark: a small, Python- and launch-bound PyTorch training loop (the worst
case for a per-call tool and for Python call-site capture), reading the loss with .item()
every 10 steps. Prints the median time of one step, measured inside the process, over 10
rounds of 100 steps, and the medians of the first and the last 5 rounds apart (syncwatch
turns launch callbacks off once they have long been of no use: `last` is the steady state).
With the argument `side`, each step's input is prefetched from pinned memory on a side
stream (a data loader's pattern): PyTorch then creates its stream pools, high-priority
streams included, and syncwatch traces kernels (the cost of that, measured apart).
The tools users run instead of (or beside) syncwatch, for bench/train_loop_rounds.sh:
`syncdebug` runs the loop under torch.cuda.set_sync_debug_mode("warn") (PyTorch's own
sync checker), `profiler` inside torch.profiler.profile (CPU and CUDA activities)."""
import contextlib
import warnings
import statistics
import sys
import time

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(256, 256), torch.nn.ReLU())]).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 256, device="cuda")
y = torch.randn(64, 256, device="cuda")
side = torch.cuda.Stream() if "side" in sys.argv[1:] else None
if "syncdebug" in sys.argv[1:]:
    torch.cuda.set_sync_debug_mode("warn")
    warnings.simplefilter("ignore")  # (one warning per .item(): measured, not printed)
tool = contextlib.nullcontext()
if "profiler" in sys.argv[1:]:
    tool = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                              torch.profiler.ProfilerActivity.CUDA])
host = torch.randn(64, 256).pin_memory()


def step(i):
    global x
    if side is not None:
        with torch.cuda.stream(side):
            nxt = host.to("cuda", non_blocking=True)
            nxt.record_stream(torch.cuda.current_stream())
        torch.cuda.current_stream().wait_stream(side)
        x = nxt
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    if i % 10 == 0:
        return loss.item()


for i in range(30):
    step(i)
torch.cuda.synchronize()
times = []
with tool:
    for rep in range(10):
        t0 = time.perf_counter()
        for i in range(100):
            step(i)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3 / 100)
print(f"step_ms {statistics.median(times):.3f} first {statistics.median(times[:5]):.3f} "
      f"last {statistics.median(times[5:]):.3f}")
