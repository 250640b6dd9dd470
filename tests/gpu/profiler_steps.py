"""A training loop profiled with torch.profiler as its documentation shows it - a schedule, and
prof.step() at the end of each iteration - and no NVTX range: with SYNCWATCH_STEP=ProfilerStep,
syncwatch takes the profiler's steps as the steps of capture readiness and step costs
(interposer/sites/TorchProfilerSteps.h). The step has the host waits of readiness_step.py's
`before` mode (.item() twice, .cpu()), at the lines marked WAIT.

Prints one JSON line: the steps run, the profiler's own count of ProfilerStep spans and of CUDA
kernels it saw (so a run under syncwatch can be compared with a plain one).

Usage: python profiler_steps.py [STEPS]
"""
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule

BATCH, WIDTH, CLASSES = 256, 512, 10


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(),
        torch.nn.Linear(WIDTH, CLASSES)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(BATCH, WIDTH, device="cuda")
    y = torch.randint(0, CLASSES, (BATCH,), device="cuda")
    log = []
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=steps - 6, warmup=2, active=4)) as prof:
        for _ in range(steps):
            opt.zero_grad(set_to_none=False)
            out = model(x)
            loss = torch.nn.functional.cross_entropy(out, y)
            loss.backward()
            opt.step()
            log.append(loss.item())  # WAIT
            log.append(int((out.argmax(dim=1) == y).sum().cpu()))  # WAIT
            prof.step()
    events = prof.events() or []
    kernels = sum(1 for e in events if getattr(e, "device_type", None) == torch.autograd.DeviceType.CUDA)
    profiler_steps = sum(1 for e in events if e.name.startswith("ProfilerStep#"))
    print(json.dumps({"steps": steps, "profilerStepSpans": profiler_steps, "cudaEvents": kernels}))


if __name__ == "__main__":
    main()
