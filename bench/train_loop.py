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
sync checker), `profiler` inside torch.profiler.profile (CPU and CUDA activities).
With `toggle`, one process times the same steps with a tool on and off instead: blocks of 100
steps in pairs (on-off, then off-on), the tool switched between blocks by `probe_set(int)`,
which a preloaded library exports (tests/gpu/cupti_kinds_preload.c: CUPTI's subscription
and activity kinds), or by libsyncwatch.so's `syncwatch_set_active(int)` under
SYNCWATCH_BENCH_TOGGLE=1 (syncwatch's callbacks and activity kinds); `toggle syncdebug`
switches torch's sync debug mode instead, and `toggle profiler` runs each "on" block inside
a torch.profiler session of its own (started and stopped between blocks, untimed). It
prints the pairs' median ratio on/off and its quartiles: between processes of this loop the
step time moved by 20-50% on the GPU machines, far more than the few percent such a tool
costs, and within one process that spread is gone."""
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


def block(steps=100):
    t0 = time.perf_counter()
    for i in range(steps):
        step(i)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / steps


if "toggle" in sys.argv[1:]:
    import ctypes
    here = ctypes.CDLL(None)
    if "syncdebug" in sys.argv[1:]:  # PyTorch's sync checker, switched per block
        def probe_set(on):
            torch.cuda.set_sync_debug_mode("warn" if on else "default")
    elif "profiler" in sys.argv[1:]:  # one torch.profiler session per "on" block (its stop untimed)
        session = []

        def probe_set(on):
            if on and not session:
                session.append(torch.profiler.profile(
                    activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]))
                session[0].__enter__()
            elif not on and session:
                session.pop().__exit__(None, None, None)
    elif hasattr(here, "syncwatch_set_active"):  # libsyncwatch.so with SYNCWATCH_BENCH_TOGGLE=1
        def probe_set(on):
            if here.syncwatch_set_active(on) != 0:
                sys.exit("train_loop.py toggle: syncwatch_set_active refused (SYNCWATCH_BENCH_TOGGLE=1 unset, "
                         "or syncwatch not subscribed)")
    else:
        probe_set = here.probe_set
    ratios, on_ms, off_ms = [], [], []
    for pair in range(40):
        t = {}
        for on in ((1, 0) if pair % 2 == 0 else (0, 1)):
            probe_set(on)
            block(10)  # the switch's own transient, not timed
            t[on] = block()
        probe_set(0)
        on_ms.append(t[1])
        off_ms.append(t[0])
        ratios.append(t[1] / t[0])
    q = statistics.quantiles(ratios, n=4)
    print(f"toggle_ratio {statistics.median(ratios):.4f} q1 {q[0]:.4f} q3 {q[2]:.4f} "
          f"min {min(ratios):.4f} max {max(ratios):.4f} on_ms {statistics.median(on_ms):.3f} "
          f"off_ms {statistics.median(off_ms):.3f} pairs {len(ratios)}")
    sys.exit(0)
with tool:
    times = [block() for rep in range(10)]
print(f"step_ms {statistics.median(times):.3f} first {statistics.median(times[:5]):.3f} "
      f"last {statistics.median(times[5:]):.3f}")
