// Kernels: convolution and dynamic_conv (whose padding is an operand). Operands are
// packed as lhs [batch][spatial...][feature] and rhs [out feature][spatial...][in
// feature] in the result's compute type; each output sums over the window positions in
// row-major order, then the input features, as the spec's dot_general does. Padding and
// lhs-dilation holes read as zeros (and are multiplied like any element).
#include "interp/ops/linalg.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

struct ConvConfig {
  Window window;  // its padding an operand's for dynamic_conv
  int64_t featureGroups = 1, batchGroups = 1;
  // Dimension numbers, each as [batch/out-feature, spatial..., feature/in-feature].
  std::vector<int64_t> lhsDims, rhsDims, outDims;
};

ConvConfig configOf(const Op& op, const Literal* paddingOperand) {
  ConvConfig c;
  ConvDims dn = ConvDims::fromAttr(op.attr("dimension_numbers"));
  auto dims = [](int64_t first, const Dims& spatial, int64_t last) {
    std::vector<int64_t> out{first};
    out.insert(out.end(), spatial.begin(), spatial.end());
    out.push_back(last);
    return out;
  };
  c.lhsDims = dims(dn.inputBatch, dn.inputSpatial, dn.inputFeature);
  c.rhsDims = dims(dn.kernelOutputFeature, dn.kernelSpatial, dn.kernelInputFeature);
  c.outDims = dims(dn.outputBatch, dn.outputSpatial, dn.outputFeature);
  const size_t s = c.lhsDims.size() - 2;
  c.window = Window::ofConvolution(op, static_cast<int64_t>(s));
  if (paddingOperand)  // dynamic_conv
    for (size_t d = 0; d < s; ++d)
      c.window.padding[d] = {paddingOperand->intAt(static_cast<int64_t>(2 * d)),
                      paddingOperand->intAt(static_cast<int64_t>(2 * d + 1))};
  c.featureGroups = op.attr("feature_group_count").asInt();
  c.batchGroups = op.attr("batch_group_count").asInt();
  return c;
}

template <class T>
std::vector<Store<T>> convolve(const Literal& lhs, const Literal& rhs, const Type& resultType, const ConvConfig& c,
                        EvalContext& ctx) {
  const size_t S = c.lhsDims.size() - 2;
  auto dimOf = [](const Shape& shape, const std::vector<int64_t>& dims, size_t i) {
    return shape[static_cast<size_t>(dims[i])];
  };
  const int64_t inFeatures = dimOf(lhs.shape(), c.lhsDims, S + 1);
  const int64_t outFeatures = dimOf(rhs.shape(), c.rhsDims, 0), kernelIn = dimOf(rhs.shape(), c.rhsDims, S + 1);
  const int64_t outBatch = dimOf(resultType.shape(), c.outDims, 0);
  Shape inSpatial, kernelSpatial, outSpatial;
  for (size_t d = 1; d <= S; ++d) {
    inSpatial.push_back(dimOf(lhs.shape(), c.lhsDims, d));
    kernelSpatial.push_back(dimOf(rhs.shape(), c.rhsDims, d));
    outSpatial.push_back(dimOf(resultType.shape(), c.outDims, d));
  }
  const int64_t inPositions = numElements(inSpatial), kernelPositions = numElements(kernelSpatial);
  const int64_t outPositions = numElements(outSpatial);
  std::vector<Store<T>> l = packAs<T>(lhs, c.lhsDims);
  std::vector<Store<T>> r = packAs<T>(rhs, c.rhsDims);

  // Per spatial dimension: the input coordinate of (output coordinate, window
  // coordinate), or -1 over padding or a dilation hole; and the kernel coordinate each
  // window coordinate multiplies (reversed dimensions count from the end).
  std::vector<std::vector<int64_t>> inCoord(S), kernelCoord(S);
  for (size_t d = 0; d < S; ++d) {
    for (int64_t o = 0; o < outSpatial[d]; ++o)
      for (int64_t k = 0; k < kernelSpatial[d]; ++k) inCoord[d].push_back(c.window.convolutionInput(d, o, k, inSpatial[d]));
    for (int64_t k = 0; k < kernelSpatial[d]; ++k)
      kernelCoord[d].push_back(c.window.reversal[d] ? kernelSpatial[d] - 1 - k : k);
  }
  std::vector<int64_t> inStrides = stridesOf(inSpatial), kernelStrides = stridesOf(kernelSpatial);

  // For each output position, the input position (or -1) and kernel position of each
  // window position.
  std::vector<int64_t> windowIn(static_cast<size_t>(kernelPositions)), windowKernel(windowIn.size());
  std::vector<int64_t> outIndex, k;
  const int64_t perFeatureGroup = outFeatures / c.featureGroups, perBatchGroup = outFeatures / c.batchGroups;
  std::vector<Store<T>> out(static_cast<size_t>(outBatch * outPositions * outFeatures), Store<T>{});
  for (int64_t pos = 0; pos < outPositions; ++pos) {
    ctx.checkTime();
    unravel(pos, outSpatial, outIndex);
    for (int64_t w = 0; w < kernelPositions; ++w) {
      unravel(w, kernelSpatial, k);
      int64_t in = 0, kern = 0;
      // The kernel element of every window position, inside the input or not: padding
      // multiplies it too (0 * inf is NaN).
      for (size_t d = 0; d < S; ++d) {
        int64_t q = inCoord[d][static_cast<size_t>(outIndex[d] * kernelSpatial[d] + k[d])];
        in = q < 0 || in < 0 ? -1 : in + q * inStrides[d];
        kern += kernelCoord[d][static_cast<size_t>(k[d])] * kernelStrides[d];
      }
      windowIn[static_cast<size_t>(w)] = in;
      windowKernel[static_cast<size_t>(w)] = kern;
    }
    for (int64_t b = 0; b < outBatch; ++b)
      for (int64_t f = 0; f < outFeatures; ++f) {
        const int64_t featureBase = (f / perFeatureGroup) * kernelIn;
        const int64_t batch = (f / perBatchGroup) * outBatch + b;
        const Store<T>* lBatch = l.data() + batch * inPositions * inFeatures;
        const Store<T>* rOut = r.data() + f * kernelPositions * kernelIn;
        T acc{};
        for (int64_t w = 0; w < kernelPositions; ++w) {
          const int64_t in = windowIn[static_cast<size_t>(w)];
          const Store<T>* rRow = rOut + windowKernel[static_cast<size_t>(w)] * kernelIn;
          if (in < 0) {
            for (int64_t ci = 0; ci < kernelIn; ++ci) acc = mulAdd<T>(acc, T{}, static_cast<T>(rRow[ci]));
          } else {
            const Store<T>* lRow = lBatch + in * inFeatures + featureBase;
            for (int64_t ci = 0; ci < kernelIn; ++ci) acc = mulAdd<T>(acc, static_cast<T>(lRow[ci]), static_cast<T>(rRow[ci]));
          }
        }
        out[static_cast<size_t>((b * outPositions + pos) * outFeatures + f)] = acc;
      }
  }
  return out;
}

Literal convolution(const Literal& lhs, const Literal& rhs, const Type& resultType, const ConvConfig& c,
                    EvalContext& ctx) {
  Literal out(resultType);
  visitDType(resultType.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    unpackTo<T>(convolve<T>(lhs, rhs, resultType, c, ctx), out, c.outDims);
  });
  return out;
}

HostValues convolutionKernel(const Op& op, const HostValues& v, EvalContext& ctx) {
  return {convolution(v[0].tensor(), v[1].tensor(), op.result(0)->type(), configOf(op, nullptr), ctx)};
}

HostValues dynamicConvKernel(const Op& op, const HostValues& v, EvalContext& ctx) {
  return {convolution(v[0].tensor(), v[1].tensor(), op.result(0)->type(), configOf(op, &v[2].tensor()), ctx)};
}

}  // namespace

void addConvolutionKernels(KernelTable& t) {
  t.set(ops::Convolution, &convolutionKernel);
  t.set(ops::DynamicConv, &dynamicConvKernel);
}

}  // namespace kiln::interp
