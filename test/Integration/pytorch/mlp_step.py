"""PyTorch version of examples/mlp_step.mlir, from mem-run's initialization.

    out  = relu(x @ W1 + b1) @ W2 + b2      x: 8x16, hidden 32, out: 8x4
    loss = mean((out - y)^2)

Weights are stored input-major ([in, out]) as in the MLIR step, so the model
multiplies by them directly (an nn.Linear weight would be their transpose).
x and y are step arguments #0 and #1, #2 is the step number. Every parameter
is trained with torch.optim.Adam (lr 1e-3, PyTorch's defaults otherwise).
Prints mem-run's output lines for --steps N.

--emit-mlir prints the same model as a forward + loss function (the same
parameter names, so mem-run gives them the same values; train-autodiff adds
the backward pass, the optimizer and step argument #2). --autocast bf16 runs
the forward pass under torch.autocast("cpu", dtype=torch.bfloat16) with the
parameters float32 (master weights), each layer written as nn.Linear and
HuggingFace's Conv1D compute it, torch.addmm(b, x, W): autocast runs it in
bf16 with the bias (x @ W + b would add the float32 bias in float32).
"""

import argparse

import torch

from memrun_init import (init_float_arg, init_param, print_params,
                         print_step)

PARAMS = [
    ("fc1.weight", [16, 32]),
    ("fc1.bias", [32]),
    ("fc2.weight", [32, 4]),
    ("fc2.bias", [4]),
]


FORWARD_MLIR = """\
func.func @mlp(%x: tensor<8x16xf32>, %y: tensor<8x4xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<16x32xf32> loc("fc1")
  %b1 = train.param "fc1.bias" : tensor<32xf32> loc("fc1")
  %w2 = train.param "fc2.weight" : tensor<32x4xf32> loc("fc2")
  %b2 = train.param "fc2.bias" : tensor<4xf32> loc("fc2")
  %h1 = train.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32> loc("fc1")
  %z1 = train.bias_add %h1, %b1 : tensor<8x32xf32>, tensor<32xf32> -> tensor<8x32xf32> loc("fc1")
  %a1 = train.relu %z1 : tensor<8x32xf32> loc("act1")
  %h2 = train.matmul %a1, %w2 : tensor<8x32xf32>, tensor<32x4xf32> -> tensor<8x4xf32> loc("fc2")
  %out = train.bias_add %h2, %b2 : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32> loc("fc2")
  %loss = train.mse_loss %out, %y : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--emit-mlir", action="store_true")
    parser.add_argument("--autocast", choices=["bf16"], default=None)
    args = parser.parse_args()
    if args.emit_mlir:
        print(FORWARD_MLIR)
        return
    steps = args.steps
    torch.set_num_threads(1)
    params = {name: init_param(name, shape).requires_grad_()
              for name, shape in PARAMS}
    x = init_float_arg(0, [8, 16])
    y = init_float_arg(1, [8, 4])
    optimizer = torch.optim.Adam(params.values(), lr=1e-3, foreach=False)
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        if args.autocast:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                hidden = torch.relu(torch.addmm(params["fc1.bias"], x,
                                                params["fc1.weight"]))
                out = torch.addmm(params["fc2.bias"], hidden,
                                  params["fc2.weight"])
                loss = torch.nn.functional.mse_loss(out, y)
        else:
            hidden = torch.relu(x @ params["fc1.weight"] + params["fc1.bias"])
            out = hidden @ params["fc2.weight"] + params["fc2.bias"]
            loss = torch.nn.functional.mse_loss(out, y)
        loss.backward()
        print_step(step, loss)
        optimizer.step()
    print_params([(name, params[name]) for name, _ in PARAMS])


if __name__ == "__main__":
    main()
