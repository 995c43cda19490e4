"""A U-Net for segmentation (Ronneberger et al. 2015, in the layout most
PyTorch code uses): two 3x3 convolutions with batch norm and ReLU per level,
max pooling down, a 2x2 transposed convolution (or bilinear upsampling and
a 1x1 convolution, `bilinear=True`) up, the encoder's features concatenated
on the way up, and a 1x1 convolution to one logit per class and pixel."""

import torch
import torch.nn as nn


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class Up(nn.Module):
    def __init__(self, cin, cout, bilinear):
        super().__init__()
        if bilinear:
            self.up = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear",
                                                align_corners=False),
                                    nn.Conv2d(cin, cin // 2, 1))
        else:
            self.up = nn.ConvTranspose2d(cin, cin // 2, 2, stride=2)
        self.conv = DoubleConv(cin, cout)

    def forward(self, x, skip):
        return self.conv(torch.cat([skip, self.up(x)], dim=1))


class UNet(nn.Module):
    def __init__(self, in_channels=3, classes=2, width=16, depth=3, bilinear=False):
        super().__init__()
        widths = [width << i for i in range(depth + 1)]
        self.stem = DoubleConv(in_channels, widths[0])
        self.down = nn.ModuleList(DoubleConv(widths[i], widths[i + 1]) for i in range(depth))
        self.pool = nn.MaxPool2d(2)
        self.up = nn.ModuleList(Up(widths[i + 1], widths[i], bilinear)
                                for i in reversed(range(depth)))
        self.head = nn.Conv2d(widths[0], classes, 1)

    def forward(self, x):
        skips = [self.stem(x)]
        for down in self.down:
            skips.append(down(self.pool(skips[-1])))
        x = skips.pop()
        for up in self.up:
            x = up(x, skips.pop())
        return self.head(x)
