"""A training loop that marks its steps with NVTX ranges, as a PyTorch user does: 40
'train_step' ranges (torch.cuda.nvtx.range_push/pop) around a matmul and a .item(), and 10
'eval_step' ranges started and ended by id (range_start/range_end), the odd ones with an extra
.cpu() copy. Run under SYNCWATCH_STEP='*_step' by tests/gpu/steps_check.sh; its recordings are
test_inputs/runtime/h200_step_loop*.swrec (the lines they name are this file's)."""
import torch

x = torch.randn(2048, 2048, device="cuda")
w = torch.randn(2048, 2048, device="cuda")
torch.cuda.synchronize()
for i in range(40):
    torch.cuda.nvtx.range_push("train_step")
    y = x @ w
    torch.cuda.nvtx.range_push("loss")  # an inner range: not a step
    loss = y.sum().item()
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_pop()
for i in range(10):
    r = torch.cuda.nvtx.range_start("eval_step")
    y = x @ w
    if i % 2:
        y[:256].cpu()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_end(r)
print("steps done", loss != 0)
