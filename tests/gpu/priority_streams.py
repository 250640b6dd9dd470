"""The seed's stream-priority puzzle: 4096x4096 matmuls fill the GPU from a default-priority
stream, then an elementwise pow is issued on a high-priority stream. Priorities do not
preempt running blocks, so the pow waits behind the matmuls' blocks: syncwatch must report
syncwatch-priority-inversion at the pow line (docs/measured-behaviour.md: pow done at 112.6 ms with high
priority vs 141.8 ms without, matmuls end about 1090 ms)."""
import torch

cuda = torch.device("cuda")
low = torch.cuda.Stream(priority=0)
high = torch.cuda.Stream(priority=-1)
a = [torch.rand((4096, 4096), device=cuda) for _ in range(8)]
x = torch.rand((4096, 4096), device=cuda)
torch.cuda.synchronize()
with torch.cuda.stream(low):
    for i in range(400):
        torch.matmul(a[i % 8], a[i % 8])
with torch.cuda.stream(high):
    y = torch.pow(x, 2)  # PRIORITY-POW
torch.cuda.synchronize()
print("priority scenario done")
