// The model of docs/tutorial.md, written by hand: a 4-layer MLP classifier
// as a forward + loss function in the train dialect. train-autodiff turns it
// into a whole training step (backward pass and optimizer update).
//
//   a1 = relu(x · W1 + b1), a2 = relu(a1 · W2 + b2), a3 = relu(a2 · W3 + b3)
//   logits = a3 · W4 + b4
//   loss = cross_entropy(logits, labels)            (mean over the batch)
//
// x: a batch of 1024 examples of 64 features; hidden width 128; 10 classes.
// Weights are [in, out], so y = x · W. Every op is located at its layer
// (loc("fc1")), which the memory report and the diagnostics print.

func.func @mlp(%x: tensor<1024x64xf32> loc("x"),
               %labels: tensor<1024xi64> loc("labels")) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<64x128xf32> loc("fc1")
  %b1 = train.param "fc1.bias" : tensor<128xf32> loc("fc1")
  %h1 = train.matmul %x, %w1 : tensor<1024x64xf32>, tensor<64x128xf32> -> tensor<1024x128xf32> loc("fc1")
  %z1 = train.bias_add %h1, %b1 : tensor<1024x128xf32>, tensor<128xf32> -> tensor<1024x128xf32> loc("fc1")
  %a1 = train.relu %z1 : tensor<1024x128xf32> loc("act1")

  %w2 = train.param "fc2.weight" : tensor<128x128xf32> loc("fc2")
  %b2 = train.param "fc2.bias" : tensor<128xf32> loc("fc2")
  %h2 = train.matmul %a1, %w2 : tensor<1024x128xf32>, tensor<128x128xf32> -> tensor<1024x128xf32> loc("fc2")
  %z2 = train.bias_add %h2, %b2 : tensor<1024x128xf32>, tensor<128xf32> -> tensor<1024x128xf32> loc("fc2")
  %a2 = train.relu %z2 : tensor<1024x128xf32> loc("act2")

  %w3 = train.param "fc3.weight" : tensor<128x128xf32> loc("fc3")
  %b3 = train.param "fc3.bias" : tensor<128xf32> loc("fc3")
  %h3 = train.matmul %a2, %w3 : tensor<1024x128xf32>, tensor<128x128xf32> -> tensor<1024x128xf32> loc("fc3")
  %z3 = train.bias_add %h3, %b3 : tensor<1024x128xf32>, tensor<128xf32> -> tensor<1024x128xf32> loc("fc3")
  %a3 = train.relu %z3 : tensor<1024x128xf32> loc("act3")

  %w4 = train.param "fc4.weight" : tensor<128x10xf32> loc("fc4")
  %b4 = train.param "fc4.bias" : tensor<10xf32> loc("fc4")
  %h4 = train.matmul %a3, %w4 : tensor<1024x128xf32>, tensor<128x10xf32> -> tensor<1024x10xf32> loc("fc4")
  %logits = train.bias_add %h4, %b4 : tensor<1024x10xf32>, tensor<10xf32> -> tensor<1024x10xf32> loc("fc4")

  %loss = train.cross_entropy %logits, %labels : tensor<1024x10xf32>, tensor<1024xi64> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}
