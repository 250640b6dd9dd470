"""What torch.compile(mode="reduce-overhead") says when cudagraph trees skip or re-record, and
through which channel: the loggers' state as torch leaves it (level, propagate, handlers),
every record any torch logger emits (seen by a pass-through filter, so nothing printed
changes), torch's counters, and the compilation metrics. A probe for designing issue 38's
item 4, run once on the GPU machine; its output is read by a person, not a test.

Usage: python reduce_overhead_probe.py OUTDIR
"""
import json
import logging
import os
import sys
import traceback

import torch

out = sys.argv[1] if len(sys.argv) > 1 else "."
seen = []


def user_line():
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if fn == __file__:
            return "%s:%d" % (os.path.basename(fn), f.f_lineno)
        f = f.f_back
    return "?"


class PassThrough(logging.Filter):
    def filter(self, record):
        try:
            seen.append({"logger": record.name, "level": record.levelname,
                         "msg": record.getMessage()[:400], "at": user_line()})
        except Exception as e:  # noqa: BLE001
            seen.append({"logger": record.name, "error": repr(e)})
        return True


def logger_state(name):
    lg = logging.getLogger(name)
    return {"name": name, "level": lg.level, "effective": lg.getEffectiveLevel(),
            "propagate": lg.propagate, "disabled": lg.disabled,
            "handlers": [type(h).__name__ for h in lg.handlers],
            "enabledWarning": lg.isEnabledFor(logging.WARNING),
            "enabledInfo": lg.isEnabledFor(logging.INFO)}


import torch._inductor.cudagraph_trees  # noqa: E402,F401
import torch._inductor.cudagraph_utils  # noqa: E402,F401

names = sorted(n for n in logging.root.manager.loggerDict if n.startswith("torch"))
with open(os.path.join(out, "loggers.json"), "w") as f:
    json.dump([logger_state(n) for n in names
               if "cudagraph" in n or "perf_hints" in n or n in ("torch", "torch._inductor",
                                                                 "torch._dynamo")], f, indent=1)
for n in names:
    logging.getLogger(n).addFilter(PassThrough())


def case(name, fn):
    before = len(seen)
    try:
        fn()
        status = "ok"
    except Exception as e:  # noqa: BLE001
        status = "raised " + repr(e)[:300]
        traceback.print_exc()
    from torch._dynamo.utils import counters
    print(json.dumps({"case": name, "status": status, "records": seen[before:],
                      "counters": {k: dict(v) for k, v in counters.items() if v}}), flush=True)
    counters.clear()


def mutated_input():
    @torch.compile(mode="reduce-overhead")
    def bump(x):
        x.add_(1)
        return x * 2
    x = torch.ones(1024, device="cuda")
    for _ in range(4):
        bump(x)  # skip: mutated inputs


def cpu_input():
    @torch.compile(mode="reduce-overhead")
    def scale(x, w):
        return x * w.to(x.device)
    x, w = torch.ones(1024, device="cuda"), torch.ones(1024)
    for _ in range(4):
        scale(x, w)  # skip: cpu device


def dynamic_sizes():
    @torch.compile(mode="reduce-overhead", dynamic=True)
    def norm(x):
        return x / x.norm()
    for n in range(1, 80):
        norm(torch.ones(n * 8, device="cuda"))  # re-record per size


def works():
    @torch.compile(mode="reduce-overhead")
    def mlp(x):
        return torch.relu(x @ x.T).sum(dim=0)
    x = torch.ones(64, 64, device="cuda")
    for _ in range(4):
        mlp(x)


def item_in_graph():
    @torch.compile(mode="reduce-overhead")
    def pick(x):
        k = int(x.sum().item())
        return x * k
    x = torch.ones(16, device="cuda")
    for _ in range(4):
        pick(x)


def params_change():
    lin = torch.nn.Linear(32, 32).cuda()
    step = torch.compile(lin, mode="reduce-overhead")
    x = torch.ones(8, 32, device="cuda")
    for i in range(6):
        step(x)
        if i == 3:
            lin.weight = torch.nn.Parameter(torch.ones_like(lin.weight))


for name, fn in [("works", works), ("mutated_input", mutated_input), ("cpu_input", cpu_input),
                 ("dynamic_sizes", dynamic_sizes), ("item_in_graph", item_in_graph),
                 ("params_change", params_change)]:
    case(name, fn)
try:
    from torch._dynamo.utils import get_compilation_metrics
    ms = get_compilation_metrics()
    with open(os.path.join(out, "metrics.json"), "w") as f:
        json.dump([{k: (v if isinstance(v, (int, float, str, type(None))) else repr(v)[:200])
                    for k, v in vars(m).items()} for m in ms], f, indent=1)
except Exception as e:  # noqa: BLE001
    print("metrics:", repr(e))
