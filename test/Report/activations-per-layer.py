"""Checks the saved activations per GPT-2 layer in the memory report against
Korthikanti et al. (2022), "Reducing Activation Recomputation in Large
Transformer Models", eq. (1): per layer, with 16-bit activations and
dropout, sbh(34 + 5as/h) bytes = 34sbh + 5as^2b, where s is the sequence,
b the batch, h the hidden size and a the heads. Its terms: attention
11sbh + 5as^2b (QKV input 2sbh, Q and K 4sbh, softmax output 2as^2b, its
dropout mask as^2b, dropout output 2as^2b, V 2sbh, projection input 2sbh,
dropout mask sbh), MLP 19sbh (fc1 input 2sbh, GeLU input 8sbh, fc2 input
8sbh, dropout mask sbh), the two LayerNorm inputs 4sbh.

memopt's bf16-mixed step keeps exactly these, in bf16 (masks in i8), plus
three f32 extras its op classes ask for (KeepFP32: normalizations and softmax
compute in f32; docs/precision.md):
  * each LayerNorm saves its f32 input (the cast of the bf16 residual
    stream): 4sbh instead of 2sbh, +2sbh per LayerNorm, +4sbh per layer;
  * softmax saves its f32 output (its backward reads it): 4as^2b instead of
    2as^2b, +2as^2b;
  * each LayerNorm saves its f32 mean and rstd: 2 * 4sb, +16sb per layer.
In fp32 every 2-byte term doubles and the masks stay 1 byte: 66sbh + 9as^2b
+ 16sb.

With tensor parallelism over t processes (train-shard, Korthikanti's
Table 2: sbh(10 + 24/t + 5as/(ht))), what a column-parallel layer reads is
whole on every process (the LayerNorm outputs, 4sbh) as are the dropout
masks after the row-parallel layers (2sbh) and the LayerNorm inputs
(4sbh); the rest splits over t. memopt's extras follow the same split: the
f32 LayerNorm inputs and statistics are whole, softmax's f32 output splits.
In fp32: 18sbh + 48sbh/t + 9as^2b/t + 16sb.

With sequence parallelism as well (Table 2's sbh/t (34 + 5as/h)), every
term splits over t: the LayerNorms, dropouts and residual stream are split
along the sequence, and a column-parallel layer saves its process's part of
its input (the backward pass gathers it again). memopt's extras split too:
(sbh/t)(34 + 5as/h) + (4sbh + 2as^2b + 16sb)/t in bf16-mixed, and
(66sbh + 9as^2b + 16sb)/t in fp32.

usage: activations-per-layer.py MODE S B H A LAYERS [T [sp|sp-selective]] < report.json"""
import json
import sys

mode, s, b, h, a, layers = sys.argv[1], *map(int, sys.argv[2:7])
t = int(sys.argv[7]) if len(sys.argv) > 7 else 1
sp = len(sys.argv) > 8 and sys.argv[8] in ("sp", "sp-selective")
# Megatron's selective recomputation (train-remat=algorithm=selective): the
# attention scores (softmax, its f32 output, the dropout on it) recomputed.
selective = len(sys.argv) > 8 and sys.argv[8] == "sp-selective"
report = json.load(sys.stdin)
# Korthikanti's formula, exact when t divides every term.
korthikanti = 10 * s * b * h + 24 * s * b * h // t + 5 * a * s * s * b // t
if sp:
    korthikanti = (34 * s * b * h + 5 * a * s * s * b) // t
if selective:
    korthikanti = 34 * s * b * h // t
if selective and mode == "bf16-mixed":
    expected = korthikanti + (4 * s * b * h + 16 * s * b) // t
elif sp and mode == "bf16-mixed":
    expected = korthikanti + (4 * s * b * h + 2 * a * s * s * b + 16 * s * b) // t
elif sp and mode == "fp32":
    expected = (66 * s * b * h + 9 * a * s * s * b + 16 * s * b) // t
elif mode == "bf16-mixed":
    expected = korthikanti + 4 * s * b * h + 2 * a * s * s * b // t + 16 * s * b
elif mode == "fp32":
    expected = (18 * s * b * h + 48 * s * b * h // t + 9 * a * s * s * b // t +
                16 * s * b)
else:
    sys.exit(f"unknown mode {mode}")
by_layer = {row["layer"]: row["bytes"]
            for row in report["saved_activations"]["by_layer"]}
formula = "34sbh/t" if selective else \
    "sbh/t (34 + 5as/h)" if sp else "sbh(10 + 24/t + 5as/(ht))"
print(f"{mode} s={s} b={b} h={h} a={a} t={t}{' ' + sys.argv[8] if sp else ''}: Korthikanti "
      f"{formula} = {korthikanti}, expected per layer {expected}")
for i in range(layers):
    got = by_layer.get(f"h.{i}")
    print(f"  h.{i}: {got}")
    if got != expected:
        sys.exit(f"h.{i}: the report says {got} bytes, expected {expected}")
print("per-layer activations match")
