//===- ModelBuilder.cpp - builds forward + loss functions -----------------===//

#include "memopt/Models/ModelBuilder.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::gen;

ModelBuilder::ModelBuilder(ModuleOp module, StringRef name, Type elementType)
    : builder(module.getContext()), elementType(elementType) {
  builder.setInsertionPointToEnd(module.getBody());
  func = func::FuncOp::create(builder, loc(name), name,
                              builder.getFunctionType({}, {}));
  body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  builder.setListener(&tagger);
}

void ModelBuilder::setLayer(StringRef layer) {
  tagger.layer = layer.empty() ? StringAttr() : builder.getStringAttr(layer);
}

void ModelBuilder::LayerTagger::notifyOperationInserted(
    Operation *op, OpBuilder::InsertPoint) {
  if (layer)
    op->setAttr(train::TrainDialect::kLayerAttrName, layer);
}

RankedTensorType ModelBuilder::tensorType(ArrayRef<int64_t> shape,
                                          Type element) {
  return RankedTensorType::get(shape, element ? element : elementType);
}

RankedTensorType ModelBuilder::f32Type(ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, builder.getF32Type());
}

Location ModelBuilder::loc(const Twine &name) {
  if (locOverride)
    return *locOverride;
  return NameLoc::get(builder.getStringAttr(name));
}

ArrayRef<int64_t> ModelBuilder::shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

Value ModelBuilder::addInput(StringRef name, ArrayRef<int64_t> shape,
                             Type element) {
  return body->addArgument(tensorType(shape, element), loc(name));
}

Value ModelBuilder::addIndexInput(StringRef name, ArrayRef<int64_t> shape) {
  return addInput(name, shape, builder.getI64Type());
}

Value ModelBuilder::param(StringRef name, ArrayRef<int64_t> shape) {
  auto it = params.find(name);
  if (it != params.end())
    return it->second;
  StringRef owner = name.rsplit('.').first;
  Value value =
      train::ParamOp::create(builder, loc(owner), tensorType(shape), name)
          .getResult();
  params[name] = value;
  return value;
}

func::FuncOp ModelBuilder::finish(Value loss) {
  func::ReturnOp::create(builder, loss.getLoc(), loss);
  func.setType(
      builder.getFunctionType(body->getArgumentTypes(), {loss.getType()}));
  return func;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

Value ModelBuilder::matmul(Value lhs, Value rhs, bool transposeLhs,
                           bool transposeRhs, StringRef name) {
  ArrayRef<int64_t> l = shapeOf(lhs), r = shapeOf(rhs);
  SmallVector<int64_t> shape(l.drop_back(2));
  shape.push_back(transposeLhs ? l.back() : l[l.size() - 2]);
  shape.push_back(transposeRhs ? r[r.size() - 2] : r.back());
  return train::MatmulOp::create(builder, loc(name), tensorType(shape), lhs,
                                 rhs, transposeLhs, transposeRhs);
}

Value ModelBuilder::linear(Value x, StringRef prefix, int64_t out, bool bias,
                           bool outMajor) {
  int64_t in = shapeOf(x).back();
  SmallVector<int64_t> weightShape =
      outMajor ? SmallVector<int64_t>{out, in} : SmallVector<int64_t>{in, out};
  Value weight = param((prefix + ".weight").str(), weightShape);
  Value y = matmul(x, weight, /*transposeLhs=*/false, outMajor, prefix);
  if (!bias)
    return y;
  return biasAdd(y, param((prefix + ".bias").str(), {out}), -1, prefix);
}

Value ModelBuilder::biasAdd(Value x, Value bias, int64_t dim, StringRef name) {
  return train::BiasAddOp::create(builder, loc(name), x.getType(), x, bias,
                                  static_cast<uint64_t>(dim));
}

Value ModelBuilder::add(Value lhs, Value rhs, StringRef name) {
  return train::AddOp::create(builder, loc(name), lhs.getType(), lhs, rhs);
}

Value ModelBuilder::sub(Value lhs, Value rhs, StringRef name) {
  return train::SubOp::create(builder, loc(name), lhs.getType(), lhs, rhs);
}

Value ModelBuilder::mul(Value lhs, Value rhs, StringRef name) {
  return train::MulOp::create(builder, loc(name), lhs.getType(), lhs, rhs);
}

Value ModelBuilder::scale(Value x, double factor, StringRef name) {
  return train::ScaleOp::create(builder, loc(name), x.getType(), x,
                                builder.getF64FloatAttr(factor));
}

Value ModelBuilder::relu(Value x, StringRef name) {
  return train::ReluOp::create(builder, loc(name), x.getType(), x,
                               /*upper=*/nullptr);
}

Value ModelBuilder::relu6(Value x, double upper, StringRef name) {
  return train::ReluOp::create(builder, loc(name), x.getType(), x,
                               builder.getF64FloatAttr(upper));
}

Value ModelBuilder::gelu(Value x, bool approximate, StringRef name) {
  return train::GeluOp::create(builder, loc(name), x.getType(), x, approximate);
}

Value ModelBuilder::silu(Value x, StringRef name) {
  return train::SiluOp::create(builder, loc(name), x.getType(), x);
}

Value ModelBuilder::sigmoid(Value x, StringRef name) {
  return train::SigmoidOp::create(builder, loc(name), x.getType(), x);
}

Value ModelBuilder::tanh(Value x, StringRef name) {
  return train::TanhOp::create(builder, loc(name), x.getType(), x);
}

Value ModelBuilder::hardsigmoid(Value x, StringRef name) {
  return train::HardsigmoidOp::create(builder, loc(name), x.getType(), x);
}

Value ModelBuilder::hardswish(Value x, StringRef name) {
  return train::HardswishOp::create(builder, loc(name), x.getType(), x);
}

Value ModelBuilder::swiglu(Value gate, Value up, StringRef name) {
  return train::SwigluOp::create(builder, loc(name), gate.getType(), gate, up);
}

Value ModelBuilder::softmax(Value x, double scale, bool causal,
                            StringRef name) {
  return train::SoftmaxOp::create(
      builder, loc(name), x.getType(), x, builder.getI64IntegerAttr(-1),
      builder.getF64FloatAttr(scale), causal ? builder.getUnitAttr() : nullptr);
}

Value ModelBuilder::layerNorm(Value x, StringRef prefix, double epsilon) {
  int64_t h = shapeOf(x).back();
  Value gamma = param((prefix + ".weight").str(), {h});
  Value beta = param((prefix + ".bias").str(), {h});
  RankedTensorType stat = f32Type(shapeOf(x).drop_back());
  return train::LayerNormOp::create(builder, loc(prefix), x.getType(), stat,
                                    stat, x, gamma, beta,
                                    builder.getF64FloatAttr(epsilon))
      .getResult();
}

Value ModelBuilder::rmsNorm(Value x, StringRef prefix, double epsilon) {
  int64_t h = shapeOf(x).back();
  Value gamma = param((prefix + ".weight").str(), {h});
  return train::RmsNormOp::create(builder, loc(prefix), x.getType(),
                                  f32Type(shapeOf(x).drop_back()), x, gamma,
                                  builder.getF64FloatAttr(epsilon))
      .getResult();
}

Value ModelBuilder::batchNorm(Value x, StringRef prefix, double epsilon) {
  int64_t c = shapeOf(x)[1];
  Value gamma = param((prefix + ".weight").str(), {c});
  Value beta = param((prefix + ".bias").str(), {c});
  RankedTensorType stat = f32Type({c});
  return train::BatchNormOp::create(builder, loc(prefix), x.getType(), stat,
                                    stat, x, gamma, beta,
                                    builder.getF64FloatAttr(epsilon))
      .getResult();
}

Value ModelBuilder::dropout(Value x, double rate, StringRef name) {
  if (rate <= 0.0)
    return x;
  auto mask = RankedTensorType::get(shapeOf(x), builder.getI8Type());
  return train::DropoutOp::create(builder, loc(name), x.getType(), mask, x,
                                  /*offsets=*/ValueRange{},
                                  /*whole_shape=*/nullptr,
                                  builder.getF64FloatAttr(rate),
                                  builder.getI64IntegerAttr(nextDropoutId++))
      .getResult();
}

Value ModelBuilder::embedding(Value table, Value ids, StringRef name) {
  SmallVector<int64_t> shape(shapeOf(ids));
  shape.push_back(shapeOf(table)[1]);
  return train::EmbeddingOp::create(builder, loc(name), tensorType(shape),
                                    table, ids, /*part=*/Value(),
                                    /*parts=*/nullptr);
}

Value ModelBuilder::attention(Value q, Value k, Value v, double scale,
                              bool causal, StringRef name) {
  RankedTensorType lse = f32Type(shapeOf(q).drop_back());
  return train::AttentionOp::create(builder, loc(name), q.getType(), lse, q, k,
                                    v, builder.getF64FloatAttr(scale),
                                    causal ? builder.getUnitAttr() : nullptr)
      .getResult();
}

Value ModelBuilder::rotary(Value x, double theta, StringRef name) {
  return train::RotaryOp::create(builder, loc(name), x.getType(), x,
                                 builder.getF64FloatAttr(theta));
}

RankedTensorType ModelBuilder::lossType() {
  // f32, or f64 for f64 models (gradient checks need the loss in full
  // precision).
  return RankedTensorType::get({}, elementType.isF64() ? elementType
                                                       : builder.getF32Type());
}

Value ModelBuilder::crossEntropy(Value logits, Value labels, StringRef name) {
  return train::CrossEntropyOp::create(builder, loc(name), lossType(), logits,
                                       labels, /*ignore_index=*/nullptr);
}

Value ModelBuilder::mseLoss(Value x, Value target, StringRef name) {
  return train::MseLossOp::create(builder, loc(name), lossType(), x, target);
}

Value ModelBuilder::reshape(Value x, ArrayRef<int64_t> shape, StringRef name) {
  auto type = cast<RankedTensorType>(x.getType());
  return train::ReshapeOp::create(builder, loc(name), type.clone(shape), x);
}

Value ModelBuilder::transpose(Value x, ArrayRef<int64_t> permutation,
                              StringRef name) {
  ArrayRef<int64_t> in = shapeOf(x);
  SmallVector<int64_t> shape;
  for (int64_t p : permutation)
    shape.push_back(in[p]);
  auto type = cast<RankedTensorType>(x.getType());
  return train::TransposeOp::create(builder, loc(name), type.clone(shape), x,
                                    permutation);
}

Value ModelBuilder::slice(Value x, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> sizes, StringRef name) {
  auto type = cast<RankedTensorType>(x.getType());
  return train::SliceOp::create(builder, loc(name), type.clone(sizes), x,
                                offsets, /*strides=*/nullptr);
}

Value ModelBuilder::concat(ValueRange inputs, int64_t axis, StringRef name) {
  auto first = cast<RankedTensorType>(inputs.front().getType());
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (Value input : inputs)
    shape[axis] += shapeOf(input)[axis];
  return train::ConcatOp::create(builder, loc(name), first.clone(shape), inputs,
                                 static_cast<uint64_t>(axis));
}

Value ModelBuilder::conv2d(Value x, StringRef prefix, int64_t outChannels,
                           int64_t kernel, int64_t stride, int64_t padding,
                           int64_t groups, bool bias) {
  ArrayRef<int64_t> in = shapeOf(x);
  Value filter = param((prefix + ".weight").str(),
                       {outChannels, in[1] / groups, kernel, kernel});
  auto outSize = [&](int64_t size) {
    return (size + 2 * padding - kernel) / stride + 1;
  };
  SmallVector<int64_t> shape{in[0], outChannels, outSize(in[2]),
                             outSize(in[3])};
  Value y = train::Conv2dOp::create(
      builder, loc(prefix), tensorType(shape), x, filter,
      ArrayRef<int64_t>{stride, stride}, ArrayRef<int64_t>{padding, padding},
      ArrayRef<int64_t>{1, 1}, static_cast<uint64_t>(groups));
  if (!bias)
    return y;
  return biasAdd(y, param((prefix + ".bias").str(), {outChannels}), 1, prefix);
}

Value ModelBuilder::maxPool2d(Value x, int64_t kernel, int64_t stride,
                              int64_t padding, StringRef name) {
  ArrayRef<int64_t> in = shapeOf(x);
  auto outSize = [&](int64_t size) {
    return (size + 2 * padding - kernel) / stride + 1;
  };
  SmallVector<int64_t> shape{in[0], in[1], outSize(in[2]), outSize(in[3])};
  return train::MaxPool2dOp::create(builder, loc(name), tensorType(shape), x,
                                    ArrayRef<int64_t>{kernel, kernel},
                                    ArrayRef<int64_t>{stride, stride},
                                    ArrayRef<int64_t>{padding, padding});
}

Value ModelBuilder::avgPool2d(Value x, int64_t kernelH, int64_t kernelW,
                              StringRef name) {
  ArrayRef<int64_t> in = shapeOf(x);
  SmallVector<int64_t> shape{in[0], in[1], in[2] / kernelH, in[3] / kernelW};
  return train::AvgPool2dOp::create(builder, loc(name), tensorType(shape), x,
                                    ArrayRef<int64_t>{kernelH, kernelW},
                                    ArrayRef<int64_t>{kernelH, kernelW},
                                    ArrayRef<int64_t>{0, 0});
}

Value ModelBuilder::upsampleNearest2d(Value x, int64_t scale, StringRef name) {
  ArrayRef<int64_t> in = shapeOf(x);
  SmallVector<int64_t> shape{in[0], in[1], in[2] * scale, in[3] * scale};
  return train::UpsampleNearest2dOp::create(
      builder, loc(name), tensorType(shape), x, static_cast<uint64_t>(scale));
}
