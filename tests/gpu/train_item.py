"""A training step that reads the loss with .item() every iteration: the classic hidden
synchronization. syncwatch must name the .item() line."""
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(512, 1024, device="cuda")
y = torch.randn(512, 1024, device="cuda")


def step():
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()  # TRAIN-ITEM


for i in range(50):
    total = step()
print("train done", round(total, 3))
