// Sums of products at an output index, as the interpreter computes them: dot_general
// and dot where BLAS does not run them (dotAt), and convolutions (convolutionAt).
//
// A convolution as interp/ops/convolution.cc computes it: both operands converted to the
// result's compute type (f32 for f16/bf16), the sum over the window positions in
// row-major order and, within each, over the kernel's input features, from zero with
// acc + a * b (no fused multiply-add), rounded to the result's format once. Padding and
// lhs-dilation holes read as zero and are multiplied like any element (0 * inf is NaN
// there too). Every dimension layout, stride, padding, dilation, reversal, feature
// group and batch group is an index map of the output coordinate, so the kernel is one
// loop nest per output element, like dotAt; a convolution kernel of its own whose
// features are the last dimension of its input, kernel and result computes all the
// features of an output position together, the feature loop innermost (vectorized),
// each feature still summing its products in the same order.
#include "backends/cpu/kernel_emitter.h"
#include "ir/attr_records.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "passes/cost_analysis.h"

namespace kiln::cpu {
namespace {

// More features than this per output position would not fit the accumulators on the stack.
constexpr int64_t kMaxFeaturesByPosition = 4096;

}  // namespace

// A dot BLAS does not run (integers, booleans, complex, f64 mixed with other types), as the
// interpreter computes it (interp/ops/linalg.cc): both operands converted to the
// result's compute type (f32 for f16/bf16), each sum over the contracting dimensions in
// row-major order from zero with acc + a * b in that type (no fused multiply-add), then
// rounded to the result's format once.
llvm::Value* KernelEmitter::dotAt(const Op& op, Index& at) {
  const DotDims d = DotDims::of(op);
  const Type& lt = op.operand(0)->type();
  const Type& rt = op.operand(1)->type();
  const DType t = op.result()->type().dtype();
  const Dims lhsFree = d.lhsFree(lt.rank()), rhsFree = d.rhsFree(rt.rank());
  Shape contracting;
  for (int64_t c : d.lhsContracting) contracting.push_back(lt.dim(c));
  // The result's dimensions: batch, then lhs's free, then rhs's free.
  const std::vector<llvm::Value*> outDims = dimsOf(at);
  llvm::Type* acc = s_.registerType(t);
  llvm::Value* sum = entryAlloca(acc, 1);
  b_.CreateStore(llvm::Constant::getNullValue(acc), sum);  // zero, +0 for floats
  forRange(b_.getInt64(0), b_.getInt64(numElements(contracting)), [&](llvm::Value* k) {
    Index ki = newIndex(contracting);
    ki.linear = k;
    std::vector<llvm::Value*> l(static_cast<size_t>(lt.rank())), r(static_cast<size_t>(rt.rank()));
    size_t o = 0;
    for (size_t i = 0; i < d.lhsBatch.size(); ++i, ++o) {
      l[static_cast<size_t>(d.lhsBatch[i])] = outDims[o];
      r[static_cast<size_t>(d.rhsBatch[i])] = outDims[o];
    }
    for (int64_t x : lhsFree) l[static_cast<size_t>(x)] = outDims[o++];
    for (int64_t x : rhsFree) r[static_cast<size_t>(x)] = outDims[o++];
    for (size_t i = 0; i < d.lhsContracting.size(); ++i) {
      l[static_cast<size_t>(d.lhsContracting[i])] = dimsOf(ki)[i];
      r[static_cast<size_t>(d.rhsContracting[i])] = dimsOf(ki)[i];
    }
    Index li = withDims(lt.shape(), std::move(l)), ri = withDims(rt.shape(), std::move(r));
    llvm::Value* a = s_.convert(valueAt(op.operand(0), li), lt.dtype(), t);
    llvm::Value* c = s_.convert(valueAt(op.operand(1), ri), rt.dtype(), t);
    b_.CreateStore(multiplyAdd(t, b_.CreateLoad(acc, sum), a, c), sum);
  });
  return b_.CreateLoad(acc, sum);  // valueAt rounds it to the result's format
}

llvm::Value* KernelEmitter::multiplyAdd(DType t, llvm::Value* acc, llvm::Value* a, llvm::Value* c) {
  if (isBool(t)) return b_.CreateOr(acc, b_.CreateAnd(a, c));
  if (isComplex(t)) return s_.complexSum(t, acc, s_.complexProduct(t, a, c));
  if (isFloat(t)) return b_.CreateFAdd(acc, b_.CreateFMul(a, c));
  return b_.CreateAdd(acc, b_.CreateMul(a, c));
}

int64_t KernelEmitter::productsPerElement() const {
  std::vector<const Op*> ops{&root_};
  if (root_.is(ops::Fusion)) {
    ops.clear();
    for (const auto& op : root_.region(0).ops()) ops.push_back(op.get());
  }
  int64_t most = 1;
  for (const Op* op : ops)
    if (op->numResults() == 1 &&
        std::find(precomputed_.begin(), precomputed_.end(), op->result()) == precomputed_.end())
      most = std::max(most, passes::productsPerElement(*op));
  return most;
}

KernelEmitter::ConvolutionTap KernelEmitter::convolutionTap(const Op& op, llvm::Value* batch,
                                                          const std::vector<llvm::Value*>& outSpatial,
                                                          const std::vector<llvm::Value*>& k) {
  const ConvDims dn = ConvDims::fromAttr(op.attr("dimension_numbers"));
  const Type& lt = op.operand(0)->type();
  const Type& rt = op.operand(1)->type();
  const size_t spatial = dn.inputSpatial.size();
  const Window w = Window::ofConvolution(op, static_cast<int64_t>(spatial));
  ConvolutionTap tap{std::vector<llvm::Value*>(static_cast<size_t>(lt.rank())),
                     std::vector<llvm::Value*>(static_cast<size_t>(rt.rank())), b_.getTrue()};
  tap.lhs[static_cast<size_t>(dn.inputBatch)] = batch;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t size = lt.dim(dn.inputSpatial[d]), kernel = rt.dim(dn.kernelSpatial[d]);
    const int64_t dilated = size == 0 ? 0 : (size - 1) * w.baseDilations[d] + 1;
    // q: the coordinate in the padded, dilated input.
    llvm::Value* q = b_.CreateSub(b_.CreateAdd(b_.CreateMul(outSpatial[d], b_.getInt64(w.strides[d])),
                                               b_.CreateMul(k[d], b_.getInt64(w.windowDilations[d]))),
                                  b_.getInt64(w.padding[d].first));
    tap.inside = b_.CreateAnd(tap.inside, b_.CreateICmpSGE(q, b_.getInt64(0)));
    tap.inside = b_.CreateAnd(tap.inside, b_.CreateICmpSLT(q, b_.getInt64(dilated)));
    llvm::Value* coordinate = q;
    if (w.baseDilations[d] > 1) {
      llvm::Value* dil = b_.getInt64(w.baseDilations[d]);
      tap.inside = b_.CreateAnd(tap.inside, b_.CreateICmpEQ(b_.CreateSRem(q, dil), b_.getInt64(0)));
      coordinate = b_.CreateSDiv(q, dil);
    }
    // Clamped into range: the element is read either way and dropped outside.
    coordinate = b_.CreateSelect(b_.CreateICmpSLT(coordinate, b_.getInt64(0)), b_.getInt64(0), coordinate);
    coordinate = b_.CreateSelect(b_.CreateICmpSGE(coordinate, b_.getInt64(std::max<int64_t>(size, 1))),
                                 b_.getInt64(std::max<int64_t>(size - 1, 0)), coordinate);
    tap.lhs[static_cast<size_t>(dn.inputSpatial[d])] = coordinate;
    tap.rhs[static_cast<size_t>(dn.kernelSpatial[d])] = w.reversal[d] ? b_.CreateSub(b_.getInt64(kernel - 1), k[d]) : k[d];
  }
  return tap;
}

std::pair<llvm::Value*, llvm::Value*> KernelEmitter::convolutionOperands(const Op& op, const ConvolutionTap& tap,
                                                                         llvm::Value* inFeature, llvm::Value* ci,
                                                                         llvm::Value* f) {
  const ConvDims dn = ConvDims::fromAttr(op.attr("dimension_numbers"));
  const Type& lt = op.operand(0)->type();
  const Type& rt = op.operand(1)->type();
  const DType t = op.result()->type().dtype();
  std::vector<llvm::Value*> l = tap.lhs, r = tap.rhs;
  l[static_cast<size_t>(dn.inputFeature)] = inFeature;
  r[static_cast<size_t>(dn.kernelInputFeature)] = ci;
  r[static_cast<size_t>(dn.kernelOutputFeature)] = f;
  Index li = withDims(lt.shape(), std::move(l)), ri = withDims(rt.shape(), std::move(r));
  llvm::Value* zero = llvm::Constant::getNullValue(s_.registerType(t));
  llvm::Value* a = zero;
  if (numElements(lt.shape()) > 0)
    a = b_.CreateSelect(tap.inside, s_.convert(valueAt(op.operand(0), li), lt.dtype(), t), zero);
  return {a, s_.convert(valueAt(op.operand(1), ri), rt.dtype(), t)};
}

llvm::Value* KernelEmitter::convolutionAt(const Op& op, Index& at) {
  const ConvDims dn = ConvDims::fromAttr(op.attr("dimension_numbers"));
  const Type& rt = op.operand(1)->type();
  const DType t = op.result()->type().dtype();
  const int64_t kernelIn = rt.dim(dn.kernelInputFeature);
  const int64_t outFeatures = rt.dim(dn.kernelOutputFeature);
  const int64_t outBatch = op.result()->type().dim(dn.outputBatch);
  const int64_t featureGroups = op.attr("feature_group_count").asInt();
  const int64_t batchGroups = op.attr("batch_group_count").asInt();
  Shape window;
  for (int64_t d : dn.kernelSpatial) window.push_back(rt.dim(d));

  const std::vector<llvm::Value*> out = dimsOf(at);
  llvm::Value* f = out[static_cast<size_t>(dn.outputFeature)];
  // The input features of f's feature group, and the lhs batch of f's batch group.
  llvm::Value* featureBase = b_.CreateMul(b_.CreateUDiv(f, b_.getInt64(outFeatures / featureGroups)),
                                          b_.getInt64(kernelIn), "", true, true);
  llvm::Value* batch = b_.CreateAdd(b_.CreateMul(b_.CreateUDiv(f, b_.getInt64(outFeatures / batchGroups)),
                                                 b_.getInt64(outBatch), "", true, true),
                                    out[static_cast<size_t>(dn.outputBatch)], "", true, true);
  std::vector<llvm::Value*> outSpatial;
  for (int64_t d : dn.outputSpatial) outSpatial.push_back(out[static_cast<size_t>(d)]);

  llvm::Type* acc = s_.registerType(t);
  llvm::Value* sum = entryAlloca(acc, 1);
  b_.CreateStore(llvm::Constant::getNullValue(acc), sum);  // zero, +0 for floats
  forRange(b_.getInt64(0), b_.getInt64(numElements(window)), [&](llvm::Value* position) {
    Index wi = newIndex(window);
    wi.linear = position;
    const ConvolutionTap tap = convolutionTap(op, batch, outSpatial, dimsOf(wi));
    forRange(b_.getInt64(0), b_.getInt64(kernelIn), [&](llvm::Value* ci) {
      auto [a, c] = convolutionOperands(op, tap, b_.CreateAdd(featureBase, ci, "", true, true), ci, f);
      b_.CreateStore(multiplyAdd(t, b_.CreateLoad(acc, sum), a, c), sum);
    });
  });
  return b_.CreateLoad(acc, sum);  // valueAt rounds it to the result's format
}

std::optional<Kernel> KernelEmitter::emitConvolutionByPosition(const std::vector<const Value*>& inputs,
                                                               const std::vector<const Value*>& outputs) {
  const Op* conv = &root_;
  if (root_.is(ops::Fusion)) {
    // A dot_epilogue whose convolution BLAS does not run: per element, its sum then the
    // epilogue on it (a MobileNet depthwise layer with its bias and relu6 took 22x the
    // convolution's own time, each element's sum computed on its own).
    if (root_.attr("kind").asString() != "dot_epilogue" || !precomputed_.empty()) return std::nullopt;
    conv = nullptr;
    for (const auto& op : root_.region(0).ops())
      if (op->is(ops::Convolution)) conv = op.get();
    if (!conv) return std::nullopt;
    for (const Value* v : conv->operands())
      if (!v->isArgument()) return std::nullopt;
    for (const Value* v : outputs)
      if (v->type().shape() != conv->result()->type().shape()) return std::nullopt;
  }
  if (!conv->is(ops::Convolution)) return std::nullopt;
  const Op& op = *conv;
  const ConvDims dn = ConvDims::fromAttr(op.attr("dimension_numbers"));
  const Type& rt = op.operand(1)->type();
  const Type& ot = op.result()->type();
  const DType t = ot.dtype();
  const int64_t last = ot.rank() - 1;
  if (dn.outputFeature != last || dn.inputFeature != last || dn.kernelOutputFeature != last ||
      op.attr("batch_group_count").asInt() != 1)
    return std::nullopt;
  const int64_t features = ot.dim(last);
  if (features < 2 || features > kMaxFeaturesByPosition) return std::nullopt;
  const int64_t kernelIn = rt.dim(dn.kernelInputFeature);
  const int64_t perGroup = features / op.attr("feature_group_count").asInt();
  Shape window, positions(ot.shape().begin(), ot.shape().end() - 1);
  for (int64_t d : dn.kernelSpatial) window.push_back(rt.dim(d));

  std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
  llvm::Type* rt32 = s_.registerType(t);
  llvm::Value* acc = entryAlloca(rt32, features);
  auto overFeatures = [&](auto&& body) { forRange(b_.getInt64(0), b_.getInt64(features), body); };
  forRange(fn_->getArg(1), fn_->getArg(2), [&](llvm::Value* p) {
    Index at = newIndex(positions);
    at.linear = p;
    const std::vector<llvm::Value*> coords = dimsOf(at);
    std::vector<llvm::Value*> outSpatial;
    for (int64_t d : dn.outputSpatial) outSpatial.push_back(coords[static_cast<size_t>(d)]);
    overFeatures([&](llvm::Value* f) { storeAt(llvm::Constant::getNullValue(rt32), acc, f); });
    forRange(b_.getInt64(0), b_.getInt64(numElements(window)), [&](llvm::Value* position) {
      Index wi = newIndex(window);
      wi.linear = position;
      const ConvolutionTap tap = convolutionTap(op, coords[static_cast<size_t>(dn.outputBatch)], outSpatial, dimsOf(wi));
      forRange(b_.getInt64(0), b_.getInt64(kernelIn), [&](llvm::Value* ci) {
        overFeatures([&](llvm::Value* f) {
          llvm::Value* inFeature = b_.CreateAdd(
              b_.CreateMul(b_.CreateUDiv(f, b_.getInt64(perGroup)), b_.getInt64(kernelIn), "", true, true), ci, "",
              true, true);
          auto [a, c] = convolutionOperands(op, tap, inFeature, ci, f);
          storeAt(multiplyAdd(t, loadAt(rt32, acc, f), a, c), acc, f);
        });
      });
    });
    overFeatures([&](llvm::Value* f) {
      llvm::Value* sum = s_.roundToFormat(loadAt(rt32, acc, f), t);
      if (conv == &root_) return store(sum, t, outPtrs[0], mulAdd(p, features, f));
      std::vector<llvm::Value*> dims = coords;
      dims.push_back(f);
      Index at = withDims(ot.shape(), std::move(dims));
      at.linear = mulAdd(p, features, f);
      memo_[{op.result(), at.id}] = sum;
      storeAll(outputs, outPtrs, at, at.linear);
    });
  });
  b_.CreateRetVoid();
  const int64_t work = numElements(window) * kernelIn * features;
  return Kernel{nullptr, numElements(positions), std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(work, 1)),
                positions};
}

}  // namespace kiln::cpu
