// stablehlo.convolution at an output index (kernel_emitter.h: convolutionAt), as the
// interpreter computes it (interp/ops/convolution.cc): both operands converted to the
// result's compute type (f32 for f16/bf16), the sum over the window positions in
// row-major order and, within each, over the kernel's input features, from zero with
// acc + a * b (no fused multiply-add), rounded to the result's format once. Padding and
// lhs-dilation holes read as zero and are multiplied like any element (0 * inf is NaN
// there too). Every dimension layout, stride, padding, dilation, reversal, feature
// group and batch group is an index map of the output coordinate, so the kernel is one
// loop nest per output element, like dotAt.
#include "backends/cpu/kernel_emitter.h"
#include "ir/attr_records.h"

namespace kiln::cpu {

llvm::Value* KernelEmitter::convolutionAt(const Op& op, Index& at) {
  const ConvDims dn = ConvDims::fromAttr(op.attr("dimension_numbers"));
  const Type& lt = op.operand(0)->type();
  const Type& rt = op.operand(1)->type();
  const DType t = op.result()->type().dtype();
  const size_t spatial = dn.inputSpatial.size();
  const Window w = Window::ofConvolution(op, static_cast<int64_t>(spatial));
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

  llvm::Type* acc = s_.registerType(t);
  llvm::Value* sum = entryAlloca(acc, 1);
  b_.CreateStore(llvm::Constant::getNullValue(acc), sum);  // zero, +0 for floats
  llvm::Value* zero = llvm::Constant::getNullValue(acc);
  const bool emptyInput = numElements(lt.shape()) == 0;
  forRange(b_.getInt64(0), b_.getInt64(numElements(window)), [&](llvm::Value* position) {
    Index wi = newIndex(window);
    wi.linear = position;
    const std::vector<llvm::Value*> k = dimsOf(wi);
    std::vector<llvm::Value*> l(static_cast<size_t>(lt.rank())), r(static_cast<size_t>(rt.rank()));
    l[static_cast<size_t>(dn.inputBatch)] = batch;
    r[static_cast<size_t>(dn.kernelOutputFeature)] = f;
    llvm::Value* inside = b_.getTrue();
    for (size_t d = 0; d < spatial; ++d) {
      const int64_t size = lt.dim(dn.inputSpatial[d]), kernel = window[d];
      const int64_t dilated = size == 0 ? 0 : (size - 1) * w.baseDilations[d] + 1;
      // q: the coordinate in the padded, dilated input.
      llvm::Value* q = b_.CreateSub(
          b_.CreateAdd(b_.CreateMul(out[static_cast<size_t>(dn.outputSpatial[d])], b_.getInt64(w.strides[d])),
                       b_.CreateMul(k[d], b_.getInt64(w.windowDilations[d]))),
          b_.getInt64(w.padding[d].first));
      inside = b_.CreateAnd(inside, b_.CreateICmpSGE(q, b_.getInt64(0)));
      inside = b_.CreateAnd(inside, b_.CreateICmpSLT(q, b_.getInt64(dilated)));
      llvm::Value* coordinate = q;
      if (w.baseDilations[d] > 1) {
        llvm::Value* dil = b_.getInt64(w.baseDilations[d]);
        inside = b_.CreateAnd(inside, b_.CreateICmpEQ(b_.CreateSRem(q, dil), b_.getInt64(0)));
        coordinate = b_.CreateSDiv(q, dil);
      }
      // Clamped into range: the element is read either way and dropped outside.
      coordinate = b_.CreateSelect(b_.CreateICmpSLT(coordinate, b_.getInt64(0)), b_.getInt64(0), coordinate);
      coordinate = b_.CreateSelect(b_.CreateICmpSGE(coordinate, b_.getInt64(std::max<int64_t>(size, 1))),
                                   b_.getInt64(std::max<int64_t>(size - 1, 0)), coordinate);
      l[static_cast<size_t>(dn.inputSpatial[d])] = coordinate;
      r[static_cast<size_t>(dn.kernelSpatial[d])] =
          w.reversal[d] ? b_.CreateSub(b_.getInt64(kernel - 1), k[d]) : k[d];
    }
    forRange(b_.getInt64(0), b_.getInt64(kernelIn), [&](llvm::Value* ci) {
      std::vector<llvm::Value*> ld = l, rd = r;
      ld[static_cast<size_t>(dn.inputFeature)] = b_.CreateAdd(featureBase, ci, "", true, true);
      rd[static_cast<size_t>(dn.kernelInputFeature)] = ci;
      Index li = withDims(lt.shape(), std::move(ld)), ri = withDims(rt.shape(), std::move(rd));
      llvm::Value* a = zero;
      if (!emptyInput) a = b_.CreateSelect(inside, s_.convert(valueAt(op.operand(0), li), lt.dtype(), t), zero);
      llvm::Value* c = s_.convert(valueAt(op.operand(1), ri), rt.dtype(), t);
      b_.CreateStore(multiplyAdd(t, b_.CreateLoad(acc, sum), a, c), sum);
    });
  });
  return b_.CreateLoad(acc, sum);  // valueAt rounds it to the result's format
}

}  // namespace kiln::cpu
