"""Overhead benchmark: a small, Python- and launch-bound PyTorch training loop (the worst
case for a per-call tool and for Python call-site capture), reading the loss with .item()
every 10 steps. Prints the median time of one step, measured inside the process."""
import statistics
import time

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(256, 256), torch.nn.ReLU())]).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 256, device="cuda")
y = torch.randn(64, 256, device="cuda")


def step(i):
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
for rep in range(5):
    t0 = time.perf_counter()
    for i in range(100):
        step(i)
    torch.cuda.synchronize()
    times.append((time.perf_counter() - t0) * 1e3 / 100)
print(f"step_ms {statistics.median(times):.3f}")
