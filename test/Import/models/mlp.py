"""Small models for the importer's tests: an MLP (Linear, ReLU, Dropout)
and a CNN (Conv2d with bias, BatchNorm2d, ReLU6, max and average pooling,
a channel concatenation, flatten, Linear), and a CNN with the gated
activations of MobileNetV3 and EfficientNet (hardswish, squeeze-and-excitation
with sigmoid and hardsigmoid gates), Inception's padded average pooling and
GoogLeNet's ceil_mode max pooling."""

import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, sizes=(16, 32, 32, 10), dropout=0.0):
        super().__init__()
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i + 2 < len(sizes):
                layers.append(nn.ReLU())
                layers.append(nn.Dropout(dropout))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU6())
        self.left = nn.Conv2d(8, 8, 1)
        self.right = nn.Sequential(nn.MaxPool2d(3, 1, 1), nn.Conv2d(8, 8, 3, padding=1, bias=False))
        self.pool = nn.AvgPool2d(2)
        self.head = nn.Linear(16 * 4 * 4, classes)

    def forward(self, x):
        x = self.stem(x)
        x = torch.cat([self.left(x), self.right(x)], dim=1)
        x = self.pool(x)
        return self.head(torch.flatten(x, 1))


class SqueezeExcite(nn.Module):
    """x * gate(fc2(relu(fc1(mean over H, W)))), as torchvision's
    SqueezeExcitation."""

    def __init__(self, channels, squeezed, gate):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(channels, squeezed, 1)
        self.fc2 = nn.Conv2d(squeezed, channels, 1)
        self.relu = nn.ReLU()
        self.gate = gate

    def forward(self, x):
        scale = self.gate(self.fc2(self.relu(self.fc1(self.avgpool(x)))))
        return scale * x


class GatedCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
                                  nn.Hardswish())
        self.blur = nn.AvgPool2d(3, stride=1, padding=1)
        self.se1 = SqueezeExcite(8, 4, nn.Sigmoid())
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.se2 = SqueezeExcite(8, 4, nn.Hardsigmoid())
        self.down = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(8, classes)

    def forward(self, x):
        x = self.se1(self.blur(self.stem(x)))
        x = self.down(self.se2(nn.functional.hardswish(self.conv(x))))
        return self.head(torch.flatten(self.pool(x), 1))


class TableBias(nn.Module):
    """A tanh, and a learned bias gathered from a table by a constant index buffer, as
    Swin's relative position bias, after an F.pad by zero amounts, and a
    mask built as Swin builds its shifted-window mask: x.new_zeros, then
    writes into slices (a constant: new_zeros reads only x's shape)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 6)
        self.table = nn.Parameter(torch.randn(5, 6))
        self.register_buffer("index", torch.tensor([4, 0, 2, 2, 1, 3, 0, 4]))

    def forward(self, x):
        y = torch.tanh(nn.functional.pad(self.fc(x), (0, 0)))
        mask = x.new_zeros((8, 6))
        mask[:, 0:2] = -1.0
        return y + self.table[self.index] + mask
