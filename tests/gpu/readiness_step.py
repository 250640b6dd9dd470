"""A small training loop, as written before anyone thought of CUDA graphs, and the same loop
fixed and captured: what docs/capture-readiness.md shows syncwatch's readiness report on.

  before    each step logs loss.item() and counts correct predictions with .cpu() - host
            waits inside the step - and skips a step whose loss is not finite (.item()
            again): the readiness report lists these, per step and line
  fixed     the same model, the blockers moved out: the loss is summed on the GPU and read
            every 50 steps, outside the step
  captured  the fixed step captured once with torch.cuda.graph and replayed

Each step is an NVTX range "train_step" (SYNCWATCH_STEP=train_step). Prints one JSON line:
the mode, the steps and the median step time in microseconds (wall clock of 50-step blocks,
after warm-up).

Usage: python readiness_step.py MODE [STEPS]
"""
import json
import statistics
import sys
import time

import torch

BATCH, WIDTH, CLASSES = 256, 512, 10


def make_model():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(),
        torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(),
        torch.nn.Linear(WIDTH, CLASSES)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    return model, opt


def step_before(model, opt, x, y, log):
    torch.cuda.nvtx.range_push("train_step")
    opt.zero_grad(set_to_none=False)
    out = model(x)
    loss = torch.nn.functional.cross_entropy(out, y)
    if not torch.isfinite(loss).item():  # skips a bad batch: a host wait
        torch.cuda.nvtx.range_pop()
        return
    loss.backward()
    opt.step()
    log.append(loss.item())  # logs every step: a host wait
    correct = (out.argmax(dim=1) == y).sum().cpu()  # accuracy on the host: a copy and a wait
    log.append(int(correct))
    torch.cuda.nvtx.range_pop()


def step_fixed(model, opt, x, y, total):
    opt.zero_grad(set_to_none=False)
    out = model(x)
    loss = torch.nn.functional.cross_entropy(out, y)
    loss.backward()
    opt.step()
    total += loss.detach()  # read every 50 steps, outside the step
    return out


def main():
    mode = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    model, opt = make_model()
    x = torch.randn(BATCH, WIDTH, device="cuda")
    y = torch.randint(0, CLASSES, (BATCH,), device="cuda")
    total = torch.zeros((), device="cuda")
    log = []
    run = None
    if mode == "before":
        def run():
            step_before(model, opt, x, y, log)
    elif mode == "fixed":
        def run():
            torch.cuda.nvtx.range_push("train_step")
            step_fixed(model, opt, x, y, total)
            torch.cuda.nvtx.range_pop()
    elif mode == "captured":
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up outside the capture, as PyTorch's docs do
            for _ in range(3):
                step_fixed(model, opt, x, y, total)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        opt.zero_grad(set_to_none=False)
        with torch.cuda.graph(graph):
            step_fixed(model, opt, x, y, total)

        def run():
            torch.cuda.nvtx.range_push("train_step")
            graph.replay()
            torch.cuda.nvtx.range_pop()
    else:
        sys.exit(f"unknown mode {mode}")
    for _ in range(20):  # warm-up: the allocator's cache, cuBLAS's handles
        run()
    torch.cuda.synchronize()
    blocks = []
    for start in range(0, steps, 50):
        t0 = time.perf_counter()
        for _ in range(min(50, steps - start)):
            run()
        if mode != "before":
            float(total)  # the read the fixed loop makes every 50 steps, outside the step
        torch.cuda.synchronize()
        blocks.append((time.perf_counter() - t0) / min(50, steps - start) * 1e6)
    print(json.dumps({"mode": mode, "steps": steps, "stepUsMedian": round(statistics.median(blocks), 1),
                      "stepUsMin": round(min(blocks), 1), "stepUsMax": round(max(blocks), 1)}))


def replayed_main():
    """The fixed step run uncaptured for the first half of the steps, then captured and replayed
    for the second half, each under the same "train_step" mark: syncwatch's readiness compares
    the two (the launch time capturing saved a step). Usage: readiness_step.py replayed [STEPS]"""
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    model, opt = make_model()
    x = torch.randn(BATCH, WIDTH, device="cuda")
    y = torch.randint(0, CLASSES, (BATCH,), device="cuda")
    total = torch.zeros((), device="cuda")
    graph = None
    blocks = []
    for start in range(0, 20 + steps, 50):
        t0 = time.perf_counter()
        n = min(50, 20 + steps - start)
        for i in range(start, start + n):
            if graph is None and i >= 20 + steps // 2:
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    step_fixed(model, opt, x, y, total)
                torch.cuda.current_stream().wait_stream(side)
                graph = torch.cuda.CUDAGraph()
                opt.zero_grad(set_to_none=False)
                with torch.cuda.graph(graph):
                    step_fixed(model, opt, x, y, total)
            torch.cuda.nvtx.range_push("train_step")
            if graph is None:
                step_fixed(model, opt, x, y, total)
            else:
                graph.replay()
            torch.cuda.nvtx.range_pop()
        float(total)
        torch.cuda.synchronize()
        blocks.append((time.perf_counter() - t0) / n * 1e6)
    print(json.dumps({"mode": "replayed", "steps": steps, "stepUsFirstBlocks": round(statistics.median(blocks[:2]), 1),
                      "stepUsLastBlocks": round(statistics.median(blocks[-2:]), 1)}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["replayed"]:
        replayed_main()  # (after main, so that the recordings' lines above stay where they are)
    else:
        main()
