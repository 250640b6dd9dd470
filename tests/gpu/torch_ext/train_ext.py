"""A training step that calls the planted-bug extension (swtorch_ops.cu), for the GPU tests.

  python3 train_ext.py BUILD_DIR [release]

Builds the extension with torch.utils.cpp_extension.load (-Xcompiler -g1: host line tables for
the .cu file; "release": none)
into BUILD_DIR, then runs 20 steps: a small MLP forward/backward on the default stream, an op
that launches on the legacy stream while PyTorch's current stream is a side stream, and an op
whose .item() waits inside the op.
"""
import os
import sys

import torch
from torch.utils.cpp_extension import load

build = sys.argv[1]
release = len(sys.argv) > 2 and sys.argv[2] == "release"
os.makedirs(build, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
flags = [] if release else ["-g1"]
ext = load(name="swtorch_ops_release" if release else "swtorch_ops", sources=[os.path.join(here, "swtorch_ops.cu")],
           extra_cflags=["-O2"] + flags, extra_cuda_cflags=["-O2"] + (["-lineinfo", "-Xcompiler", "-g1"] if not release else []),
           build_directory=build, verbose=False)
if os.environ.get("SWTORCH_BUILD_ONLY"):
    sys.exit(0)

torch.manual_seed(0)
# Large enough that a step is milliseconds of GPU work: the op's .item() then waits for it.
model = torch.nn.Sequential(torch.nn.Linear(8192, 8192), torch.nn.ReLU(), torch.nn.Linear(8192, 1)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
side = torch.cuda.Stream()
x = torch.randn(16384, 8192, device="cuda")
positives = 0
for step in range(20):
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        y = ext.scale_legacy(x, 0.5)  # PY-LEGACY-LAUNCH
        z = ext.scale_current(y, 2.0)  # PY-CURRENT-LAUNCH
    torch.cuda.current_stream().wait_stream(side)
    positives += ext.count_item(z)  # PY-ITEM
torch.cuda.synchronize()
per_read = ext.bench_current_stream(2_000_000)
print(f"positives {positives}; current-stream read: {per_read[0]:.1f} ns (C++ API, device -1), "
      f"{per_read[1]:.1f} ns (dlsym, device -1), {per_read[2]:.1f} ns (C++ API, device 0), {per_read[3]:.1f} ns (dlsym, device 0)")
