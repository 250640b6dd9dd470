"""A training step that reads the loss with .item() every iteration: the classic hidden
synchronization. syncwatch must name the .item() line."""
import torch

torch.manual_seed(0)
# Large enough that each step keeps the GPU busy for milliseconds: .item() waits for it.
model = torch.nn.Sequential(torch.nn.Linear(4096, 8192), torch.nn.ReLU(), torch.nn.Linear(8192, 4096)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(4096, 4096, device="cuda")
y = torch.randn(4096, 4096, device="cuda")


def step():
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()  # TRAIN-ITEM


for i in range(20):
    total = step()
print("train done", round(total, 3))
