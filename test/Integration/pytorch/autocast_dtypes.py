"""Prints the dtype each op returns under torch.autocast("cpu",
dtype=torch.bfloat16) in the installed PyTorch, from float32 inputs and from
bf16 inputs (with float32 weights where the op has them), one line per op:

    <op> <input> -> <dtype> | error

docs/precision-pytorch.md compares these with memopt's precision classes.
"""

import torch

F = torch.nn.functional


def main():
    torch.manual_seed(0)
    x = torch.randn(2, 16, 32)
    xb = x.bfloat16()
    w = torch.randn(32, 32)
    b = torch.randn(32)
    g = torch.ones(32)
    idx = torch.zeros(32, dtype=torch.long)
    cases = [
        ("matmul", "f32", lambda: x @ w),
        ("linear", "f32", lambda: F.linear(x, w, b)),
        ("addmm", "f32", lambda: torch.addmm(b, x[0], w)),
        ("bmm", "f32", lambda: torch.bmm(x, x.transpose(1, 2))),
        ("conv1d", "f32", lambda: F.conv1d(x, torch.randn(4, 16, 3))),
        ("embedding", "f32 weight", lambda: F.embedding(idx, w)),
        ("layer_norm", "f32", lambda: F.layer_norm(x, (32,), g, b)),
        ("layer_norm", "bf16, f32 weight", lambda: F.layer_norm(xb, (32,), g, b)),
        ("layer_norm", "bf16, no weight", lambda: F.layer_norm(xb, (32,))),
        ("softmax", "f32", lambda: torch.softmax(x, -1)),
        ("softmax", "bf16", lambda: torch.softmax(xb, -1)),
        ("log_softmax", "bf16", lambda: torch.log_softmax(xb, -1)),
        ("gelu", "f32", lambda: F.gelu(x, approximate="tanh")),
        ("gelu", "bf16", lambda: F.gelu(xb, approximate="tanh")),
        ("relu", "bf16", lambda: torch.relu(xb)),
        ("dropout", "bf16", lambda: F.dropout(xb, 0.1)),
        ("masked_fill", "bf16", lambda: xb.masked_fill(idx.bool(), 0.0)),
        ("add", "bf16 + f32", lambda: xb + x),
        ("add", "bf16 + f32 bias", lambda: xb + b),
        ("mul", "bf16 * python float", lambda: xb * 0.5),
        ("sum", "bf16", lambda: xb.sum()),
        ("cross_entropy", "bf16", lambda: F.cross_entropy(xb[0], idx[:16])),
        ("mse_loss", "bf16, bf16", lambda: F.mse_loss(xb, xb)),
    ]
    print("torch %s" % torch.__version__)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for name, inputs, run in cases:
            try:
                out = str(run().dtype).replace("torch.", "")
            except (RuntimeError, ValueError) as error:
                out = "error: " + str(error).splitlines()[0]
            print("%s %s -> %s" % (name, inputs, out))


if __name__ == "__main__":
    main()
