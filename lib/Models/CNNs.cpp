//===- CNNs.cpp - torchvision classifiers, Checkmate's U-Net, the MLP -----===//
//
// The classifiers follow torchvision's definitions (parameter names are its
// state-dict names); U-Net is the `vgg_unet` of Checkmate's segmentation
// benchmarks (keras_segmentation: a VGG16 encoder and a decoder that
// upsamples and concatenates the encoder's feature maps).
//
// Batch normalization counts gamma and beta as parameters; its running
// statistics (buffers in PyTorch, non-trainable weights in Keras) are not
// modelled. MobileNetV2's ReLU6 is emitted as train.relu (the dialect has no
// clamp at 6; memory and parameters are the same).
//
//===----------------------------------------------------------------------===//

#include "memopt/Models/Models.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::memopt::gen;
using llvm::Error;

static Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
enum class Arch { Vgg, ResNet, MobileNetV2, UNet, Unknown };
} // namespace

static Arch getArch(StringRef name) {
  return llvm::StringSwitch<Arch>(name)
      .Cases({"vgg11", "vgg13", "vgg16", "vgg19"}, Arch::Vgg)
      .Cases({"resnet18", "resnet34", "resnet50", "resnet101", "resnet152"},
             Arch::ResNet)
      .Case("mobilenet_v2", Arch::MobileNetV2)
      .Case("unet", Arch::UNet)
      .Default(Arch::Unknown);
}

bool mlir::memopt::gen::isCnn(StringRef name) {
  return getArch(name) != Arch::Unknown;
}

CnnConfig mlir::memopt::gen::getCnnDefaults(StringRef arch) {
  CnnConfig config;
  config.arch = arch.str();
  switch (getArch(arch)) {
  case Arch::Vgg:
    config.dropout = 0.5;
    break;
  case Arch::MobileNetV2:
    config.dropout = 0.2;
    break;
  case Arch::UNet:
    // Checkmate: keras_segmentation's default 416 x 608 input and the 19
    // evaluation classes of Cityscapes.
    config.height = 416;
    config.width = 608;
    config.classes = 19;
    break;
  case Arch::ResNet:
  case Arch::Unknown:
    break;
  }
  return config;
}

Error mlir::memopt::gen::validate(const CnnConfig &c) {
  for (auto [what, value] :
       {std::pair<StringRef, int64_t>{"the batch size", c.batch},
        {"the image height", c.height},
        {"the image width", c.width},
        {"the number of classes", c.classes}})
    if (value <= 0 || value > (int64_t(1) << 20))
      return makeError(what + " must be in [1, 2^20], got " + Twine(value));
  if (c.height % 32 != 0 || c.width % 32 != 0)
    return makeError(llvm::formatv("{0} needs an image size that is a "
                                   "multiple of 32 (five 2x downsamplings), "
                                   "got {1}x{2}",
                                   c.arch, c.height, c.width)
                         .str());
  if (getArch(c.arch) == Arch::Vgg &&
      ((c.height / 32) % 7 != 0 || (c.width / 32) % 7 != 0))
    return makeError(llvm::formatv("{0} pools its features to 7x7 for the "
                                   "classifier: the image size must be a "
                                   "multiple of 224, got {1}x{2}",
                                   c.arch, c.height, c.width)
                         .str());
  if (!(c.dropout >= 0.0 && c.dropout < 1.0))
    return makeError(
        llvm::formatv("the dropout rate must be in [0, 1), got {0}",
                      formatNumber(c.dropout))
            .str());
  // The largest activation: the first feature maps (64 channels).
  std::optional<int64_t> elements = llvm::checkedMul(c.batch, c.height);
  if (elements)
    elements = llvm::checkedMul(*elements, c.width * 64);
  if (!elements)
    return makeError("the batch of images is too large: its feature maps "
                     "would have more than 2^63 elements");
  return Error::success();
}

/// Flattens `[N, C, H, W]` to `[N, C*H*W]`.
static Value flatten(ModelBuilder &b, Value x) {
  ArrayRef<int64_t> s = ModelBuilder::shapeOf(x);
  return b.reshape(x, {s[0], s[1] * s[2] * s[3]}, "flatten");
}

/// Global average pooling to `[N, C, 1, 1]`.
static Value globalAvgPool(ModelBuilder &b, Value x) {
  ArrayRef<int64_t> s = ModelBuilder::shapeOf(x);
  return b.avgPool2d(x, s[2], s[3], "avgpool");
}

static Value buildVgg(ModelBuilder &b, const CnnConfig &c, Value x) {
  // torchvision's configurations A, B, D, E; 0 is a max pool.
  static const int64_t vgg11[] = {64,  0,   128, 0,   256, 256, 0,
                                  512, 512, 0,   512, 512, 0};
  static const int64_t vgg13[] = {64, 64,  0,   128, 128, 0,   256, 256,
                                  0,  512, 512, 0,   512, 512, 0};
  static const int64_t vgg16[] = {64, 64,  0,   128, 128, 0,   256, 256, 256,
                                  0,  512, 512, 512, 0,   512, 512, 512, 0};
  static const int64_t vgg19[] = {64,  64,  0,   128, 128, 0,   256,
                                  256, 256, 256, 0,   512, 512, 512,
                                  512, 0,   512, 512, 512, 512, 0};
  ArrayRef<int64_t> layers = llvm::StringSwitch<ArrayRef<int64_t>>(c.arch)
                                 .Case("vgg11", vgg11)
                                 .Case("vgg13", vgg13)
                                 .Case("vgg16", vgg16)
                                 .Default(vgg19);
  // Names are indices into torchvision's `features` Sequential, where each
  // convolution is followed by its ReLU.
  int64_t index = 0;
  auto name = [&] { return "features." + std::to_string(index++); };
  // Each op of `features` is a layer of its own.
  auto layer = [&] {
    std::string next = name();
    b.setLayer(next);
    return next;
  };
  for (int64_t channels : layers) {
    if (channels == 0) {
      x = b.maxPool2d(x, 2, 2, 0, layer());
      continue;
    }
    x = b.conv2d(x, layer(), channels, 3, 1, 1, 1, /*bias=*/true);
    x = b.relu(x, layer());
  }
  b.setLayer("");
  // AdaptiveAvgPool2d((7, 7)): the identity at 224 x 224.
  ArrayRef<int64_t> s = ModelBuilder::shapeOf(x);
  if (s[2] != 7 || s[3] != 7)
    x = b.avgPool2d(x, s[2] / 7, s[3] / 7, "avgpool");
  x = flatten(b, x);
  x = b.linear(x, "classifier.0", 4096, true, /*outMajor=*/true);
  x = b.relu(x, "classifier.1");
  x = b.dropout(x, c.dropout, "classifier.2");
  x = b.linear(x, "classifier.3", 4096, true, true);
  x = b.relu(x, "classifier.4");
  x = b.dropout(x, c.dropout, "classifier.5");
  return b.linear(x, "classifier.6", c.classes, true, true);
}

static Value buildResNet(ModelBuilder &b, const CnnConfig &c, Value x) {
  bool bottleneck =
      c.arch == "resnet50" || c.arch == "resnet101" || c.arch == "resnet152";
  SmallVector<int64_t, 4> blocks =
      llvm::StringSwitch<SmallVector<int64_t, 4>>(c.arch)
          .Case("resnet18", {2, 2, 2, 2})
          .Cases({"resnet34", "resnet50"}, {3, 4, 6, 3})
          .Case("resnet101", {3, 4, 23, 3})
          .Default({3, 8, 36, 3});
  int64_t expansion = bottleneck ? 4 : 1;
  const double eps = 1e-5;
  x = b.conv2d(x, "conv1", 64, 7, 2, 3, 1, false);
  x = b.batchNorm(x, "bn1", eps);
  x = b.relu(x, "relu");
  x = b.maxPool2d(x, 3, 2, 1, "maxpool");
  int64_t inplanes = 64;
  for (auto [stage, count] : llvm::enumerate(blocks)) {
    int64_t planes = int64_t(64) << stage;
    for (int64_t block = 0; block < count; ++block) {
      int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      std::string p = "layer" + std::to_string(stage + 1) + "." +
                      std::to_string(block) + ".";
      b.setLayer(StringRef(p).drop_back());
      auto at = [&](StringRef suffix) { return p + suffix.str(); };
      Value out = x;
      if (bottleneck) {
        // torchvision's ResNet v1.5: the stride is on the 3x3 convolution.
        out = b.conv2d(out, at("conv1"), planes, 1, 1, 0, 1, false);
        out = b.relu(b.batchNorm(out, at("bn1"), eps), at("relu"));
        out = b.conv2d(out, at("conv2"), planes, 3, stride, 1, 1, false);
        out = b.relu(b.batchNorm(out, at("bn2"), eps), at("relu"));
        out = b.conv2d(out, at("conv3"), planes * expansion, 1, 1, 0, 1, false);
        out = b.batchNorm(out, at("bn3"), eps);
      } else {
        out = b.conv2d(out, at("conv1"), planes, 3, stride, 1, 1, false);
        out = b.relu(b.batchNorm(out, at("bn1"), eps), at("relu"));
        out = b.conv2d(out, at("conv2"), planes, 3, 1, 1, 1, false);
        out = b.batchNorm(out, at("bn2"), eps);
      }
      Value identity = x;
      if (stride != 1 || inplanes != planes * expansion) {
        identity = b.conv2d(x, at("downsample.0"), planes * expansion, 1,
                            stride, 0, 1, false);
        identity = b.batchNorm(identity, at("downsample.1"), eps);
      }
      x = b.relu(b.add(out, identity, at("residual")), at("relu"));
      inplanes = planes * expansion;
    }
  }
  b.setLayer("");
  x = flatten(b, globalAvgPool(b, x));
  return b.linear(x, "fc", c.classes, true, /*outMajor=*/true);
}

static Value buildMobileNetV2(ModelBuilder &b, const CnnConfig &c, Value x) {
  const double eps = 1e-5;
  // Conv2dNormActivation: convolution without bias, batch norm, ReLU6.
  auto convBnRelu = [&](Value in, const std::string &prefix, int64_t out,
                        int64_t kernel, int64_t stride, int64_t groups) {
    Value y = b.conv2d(in, prefix + ".0", out, kernel, stride, (kernel - 1) / 2,
                       groups, false);
    y = b.batchNorm(y, prefix + ".1", eps);
    return b.relu(y, prefix + ".2");
  };
  // (expand ratio t, channels c, repeats n, stride s), as in the paper.
  static const int64_t settings[][4] = {
      {1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
      {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  b.setLayer("features.0");
  x = convBnRelu(x, "features.0", 32, 3, 2, 1);
  int64_t in = 32, index = 1;
  for (const auto &setting : settings) {
    auto [t, out, n, s] =
        std::tuple(setting[0], setting[1], setting[2], setting[3]);
    for (int64_t i = 0; i < n; ++i, ++index) {
      int64_t stride = i == 0 ? s : 1;
      std::string p = "features." + std::to_string(index) + ".conv.";
      b.setLayer("features." + std::to_string(index));
      int64_t hidden = in * t, layer = 0;
      Value y = x;
      if (t != 1)
        y = convBnRelu(y, p + std::to_string(layer++), hidden, 1, 1, 1);
      y = convBnRelu(y, p + std::to_string(layer++), hidden, 3, stride, hidden);
      y = b.conv2d(y, p + std::to_string(layer++), out, 1, 1, 0, 1, false);
      y = b.batchNorm(y, p + std::to_string(layer), eps);
      if (stride == 1 && in == out)
        y = b.add(x, y, "features." + std::to_string(index) + ".residual");
      x = y;
      in = out;
    }
  }
  b.setLayer("features." + std::to_string(index));
  x = convBnRelu(x, "features." + std::to_string(index), 1280, 1, 1, 1);
  b.setLayer("");
  x = flatten(b, globalAvgPool(b, x));
  x = b.dropout(x, c.dropout, "classifier.0");
  return b.linear(x, "classifier.1", c.classes, true, /*outMajor=*/true);
}

static Value buildUNet(ModelBuilder &b, const CnnConfig &c, Value x) {
  // Encoder: VGG16's blocks 1-4 (Keras names); f1..f4 are the pooled
  // outputs. Block 5 does not reach the loss, so Keras leaves it out of the
  // model and so does mem-gen.
  static const int64_t blockConvs[] = {2, 2, 3, 3};
  SmallVector<Value, 4> features;
  for (int64_t block = 0; block < 4; ++block) {
    std::string p = "block" + std::to_string(block + 1) + "_";
    int64_t channels = std::min<int64_t>(64 << block, 512);
    for (int64_t conv = 0; conv < blockConvs[block]; ++conv) {
      std::string name = p + "conv" + std::to_string(conv + 1);
      x = b.relu(b.conv2d(x, name, channels, 3, 1, 1, 1, true), name);
    }
    x = b.maxPool2d(x, 2, 2, 0, p + "pool");
    features.push_back(x);
  }
  // Decoder: conv (zero-pad 1 + 3x3 valid) + ReLU + batch norm at each
  // level; upsample 2x and concatenate the encoder's map of that size.
  static const int64_t decoderChannels[] = {512, 256, 128, 64};
  const double eps = 1e-3; // Keras' BatchNormalization default.
  for (int64_t level = 0; level < 4; ++level) {
    std::string p = "decoder." + std::to_string(level) + ".";
    b.setLayer(StringRef(p).drop_back());
    if (level > 0) {
      x = b.upsampleNearest2d(x, 2, p + "upsample");
      x = b.concat({x, features[3 - level]}, 1, p + "concat");
    }
    x = b.conv2d(x, p + "conv", decoderChannels[level], 3, 1, 1, 1, true);
    x = b.relu(x, p + "relu");
    x = b.batchNorm(x, p + "bn", eps);
  }
  b.setLayer("");
  return b.conv2d(x, "classifier", c.classes, 3, 1, 1, 1, true);
}

void mlir::memopt::gen::buildCnn(ModelBuilder &b, const CnnConfig &c) {
  Value images = b.addInput("images", {c.batch, 3, c.height, c.width});
  Arch arch = getArch(c.arch);
  if (arch == Arch::UNet) {
    // Per-pixel labels at the output resolution (half the input's).
    Value labels =
        b.addIndexInput("labels", {c.batch, c.height / 2, c.width / 2});
    Value logits = buildUNet(b, c, images);
    logits = b.transpose(logits, {0, 2, 3, 1}, "loss");
    b.finish(b.crossEntropy(logits, labels, "loss"));
    return;
  }
  Value labels = b.addIndexInput("labels", {c.batch});
  Value logits = arch == Arch::Vgg      ? buildVgg(b, c, images)
                 : arch == Arch::ResNet ? buildResNet(b, c, images)
                                        : buildMobileNetV2(b, c, images);
  b.finish(b.crossEntropy(logits, labels, "loss"));
}

void mlir::memopt::gen::buildMlp(ModelBuilder &b, const MlpConfig &c) {
  Value x = b.addInput("x", {c.batch, c.hidden});
  Value labels = b.addIndexInput("labels", {c.batch});
  for (int64_t layer = 1; layer <= c.layers; ++layer) {
    bool last = layer == c.layers;
    x = b.linear(x, "fc" + std::to_string(layer), last ? c.classes : c.hidden,
                 /*bias=*/true, /*outMajor=*/false);
    if (!last)
      x = b.relu(x, "act" + std::to_string(layer));
  }
  b.finish(b.crossEntropy(x, labels, "loss"));
}
