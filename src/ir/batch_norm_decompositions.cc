// batch_norm_inference, batch_norm_training and batch_norm_grad by the spec's
// decompositions (batch_norm_decompositions.h), in the spec's order of operations.
#include "ir/batch_norm_decompositions.h"

#include "ir/builder.h"
#include "ir/ops/stablehlo.h"

namespace kiln {
namespace {

// The pieces every batch-norm decomposition uses, for an operand of `type` normalized
// along `feature`.
struct Norm {
  Builder& b;
  Type type;
  int64_t feature;
  double epsilon;

  Norm(Builder& builder, const Op& op)
      : b(builder),
        type(op.operand(0)->type()),
        feature(op.attr("feature_index").asInt()),
        epsilon(op.attr("epsilon").asFloat()) {}

  // A per-feature vector stretched over the operand's shape.
  Value* spread(Value* perFeature) { return b.broadcastInDim(perFeature, type.shape(), {feature}); }
  Value* splat(double value) { return b.splat(type, value); }
  // The sum over every dimension but the feature one.
  Value* sum(Value* x) {
    Dims dims;
    for (int64_t d = 0; d < type.rank(); ++d)
      if (d != feature) dims.push_back(d);
    Value* zero = b.splat(Type::scalar(type.dtype()), 0);
    return b.reduce({x}, {zero}, dims, [](Builder& rb, const std::vector<Value*>& a) {
      return std::vector<Value*>{rb.binary(ops::Add, a[0], a[1])};
    })[0];
  }
  // Elements per feature (the divisor of a mean), as a per-feature vector.
  double count() const { return static_cast<double>(type.numElements() / std::max<int64_t>(1, type.dim(feature))); }
  Value* mean(Value* x) {
    Value* s = sum(x);
    return b.binary(ops::Divide, s, b.splat(s->type(), count()));
  }
  Value* add(Value* x, Value* y) { return b.binary(ops::Add, x, y); }
  Value* sub(Value* x, Value* y) { return b.binary(ops::Subtract, x, y); }
  Value* mul(Value* x, Value* y) { return b.binary(ops::Multiply, x, y); }
  Value* div(Value* x, Value* y) { return b.binary(ops::Divide, x, y); }

  // (x - mean) * scale / sqrt(variance + epsilon) + offset.
  Value* inference(Value* x, Value* scale, Value* offset, Value* mean, Value* variance) {
    Value* centered = sub(x, spread(mean));
    Value* stddev = b.unary(ops::Sqrt, add(spread(variance), splat(epsilon)));
    Value* normalized = div(centered, stddev);
    return add(mul(spread(scale), normalized), spread(offset));
  }
};

bool applies(const Op& op) { return op.operand(0)->type().isTensor() && isFloat(op.operand(0)->type().dtype()); }

}  // namespace

std::vector<Value*> decomposeBatchNormInference(Builder& b, const Op& op) {
  if (!applies(op)) return {};
  Norm n(b, op);
  return {n.inference(op.operand(0), op.operand(1), op.operand(2), op.operand(3), op.operand(4))};
}

std::vector<Value*> decomposeBatchNormTraining(Builder& b, const Op& op) {
  if (!applies(op)) return {};
  Norm n(b, op);
  Value* x = op.operand(0);
  Value* mean = n.mean(x);
  Value* centered = n.sub(x, n.spread(mean));
  Value* variance = n.mean(n.mul(centered, centered));
  return {n.inference(x, op.operand(1), op.operand(2), mean, variance), mean, variance};
}

std::vector<Value*> decomposeBatchNormGrad(Builder& b, const Op& op) {
  if (!applies(op)) return {};
  Norm n(b, op);
  Value* x = op.operand(0);
  Value* scale = n.spread(op.operand(1));
  Value* variance = n.spread(op.operand(3));
  Value* dy = op.operand(4);
  Value* centered = n.sub(x, n.spread(op.operand(2)));
  Value* varianceEps = n.add(variance, n.splat(n.epsilon));
  Value* stddev = b.unary(ops::Sqrt, varianceEps);
  Value* normalized = n.div(centered, stddev);
  // XLA's batchnorm expander's terms, as the spec names them.
  Value* perFeature = n.splat(n.count());
  Value* i1 = n.mul(dy, perFeature);
  Value* i2 = n.spread(n.sum(dy));
  Value* i3 = n.spread(n.sum(n.mul(dy, centered)));
  Value* i5 = n.div(n.mul(i3, centered), varianceEps);
  Value* i6 = n.sub(n.sub(i1, i2), i5);
  Value* gradOperand = n.mul(n.div(n.div(scale, stddev), perFeature), i6);
  return {gradOperand, n.sum(n.mul(dy, normalized)), n.sum(dy)};
}

}  // namespace kiln
