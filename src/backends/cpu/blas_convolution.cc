// Convolutions as one GEMM (blas_convolution.h).
#include "backends/cpu/blas_convolution.h"

#include <cstring>
#include <type_traits>
#include <vector>

#include "backends/cpu/blas_dot.h"
#include "backends/cpu/f32_staging.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/threads.h"
#include "interp/kernels.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::cpu {
namespace {

using interp::stridesOf;
using interp::unravel;

// Below these a convolution is better off as the direct kernel: GEMM's packing costs
// more than it saves when an output sums few products or there are few output features.
constexpr int64_t kMinProducts = 16;
constexpr int64_t kMinOutputFeatures = 4;
// The windows are laid out and multiplied a block of rows at a time: about this many
// bytes of them (they stay in L2 between the two; the block's GEMM is cut into pieces
// for the pool's threads), and at least this many rows (GEMM's tiles want tall blocks).
// Not a function of the thread count: where blocks start decides how GEMM cuts them,
// and so the bits (gemm.cc).
constexpr int64_t kBlockBytes = int64_t{1} << 20;
constexpr int64_t kMinBlockRows = 64;
// im2colTransposed lays out all of the windows at once (GEMM reads its transpose whole): up to this
// many elements of them; more take im2col's blocks.
constexpr int64_t kMaxTransposedPatches = int64_t{1} << 24;
// ... and for a batch of at least this many (each element costs its windows' lookups).
constexpr int64_t kMinTransposedBatch = 4;

bool isSequence(const std::vector<int64_t>& dims, int64_t from) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != from + static_cast<int64_t>(i)) return false;
  return true;
}

// The convolution's sizes, and whether its operands and result already are GEMM's
// matrices.
struct Plan {
  ConvDims dn;
  Window w;
  size_t spatial = 0;
  Shape inSpatial, kernelSpatial, outSpatial;
  int64_t batch = 0, inFeatures = 0, outFeatures = 0, outPositions = 0, kernelPositions = 0;
  bool lhsAsRows = false;   // [batch, spatial..., feature] and a 1x1 window that reads each element once
  bool rhsAsMatrix = false;  // [spatial..., input, output], nothing reversed
  bool outAsRows = false;   // [batch, spatial..., feature]
  bool outAsPositionRows = false;  // [spatial..., batch, feature] (a weight gradient's)
  bool batchInnermost = false;  // the lhs's batch is its last dimension (a weight gradient's)

  explicit Plan(const Op& op) : dn(ConvDims::fromAttr(op.attr("dimension_numbers"))) {
    spatial = dn.inputSpatial.size();
    w = Window::ofConvolution(op, static_cast<int64_t>(spatial));
    const Type& lt = op.operand(0)->type();
    const Type& rt = op.operand(1)->type();
    const Type& ot = op.result()->type();
    for (size_t d = 0; d < spatial; ++d) {
      inSpatial.push_back(lt.dim(dn.inputSpatial[d]));
      kernelSpatial.push_back(rt.dim(dn.kernelSpatial[d]));
      outSpatial.push_back(ot.dim(dn.outputSpatial[d]));
    }
    batch = ot.dim(dn.outputBatch);
    inFeatures = rt.dim(dn.kernelInputFeature);
    outFeatures = rt.dim(dn.kernelOutputFeature);
    outPositions = numElements(outSpatial);
    kernelPositions = numElements(kernelSpatial);
    bool oneByOne = inSpatial == outSpatial;
    for (size_t d = 0; d < spatial; ++d)
      oneByOne = oneByOne && kernelSpatial[d] == 1 && w.strides[d] == 1 && w.baseDilations[d] == 1 &&
                 w.padding[d].first == 0 && w.padding[d].second == 0;
    lhsAsRows = oneByOne && dn.inputBatch == 0 && isSequence(dn.inputSpatial, 1) &&
                dn.inputFeature == static_cast<int64_t>(spatial) + 1;
    bool reversed = false;
    for (size_t d = 0; d < spatial; ++d) reversed = reversed || (w.reversal[d] && kernelSpatial[d] > 1);
    rhsAsMatrix = !reversed && isSequence(dn.kernelSpatial, 0) &&
                  dn.kernelInputFeature == static_cast<int64_t>(spatial) &&
                  dn.kernelOutputFeature == static_cast<int64_t>(spatial) + 1;
    outAsPositionRows = isSequence(dn.outputSpatial, 0) && dn.outputBatch == static_cast<int64_t>(spatial) &&
                        dn.outputFeature == static_cast<int64_t>(spatial) + 1;
    outAsRows = dn.outputBatch == 0 && isSequence(dn.outputSpatial, 1) &&
                dn.outputFeature == static_cast<int64_t>(spatial) + 1;
    batchInnermost = dn.inputBatch == lt.rank() - 1 && lt.rank() > 1 && batch >= kMinTransposedBatch;
  }
  int64_t rows() const { return batch * outPositions; }
  // Whether GEMM's rows are (position, b) rather than (b, position): im2colTransposed's.
  bool positionMajor() const { return batchInnermost && rows() * columns() <= kMaxTransposedPatches; }
  // The result's rows as GEMM writes them, without reordering.
  bool resultAsIs() const { return positionMajor() ? outAsPositionRows : outAsRows; }
  int64_t columns() const { return kernelPositions * inFeatures; }
};

// Rows [first, last) of the lhs's windows as rows: row (b, position), column (window
// position, input feature); padding and dilation holes are zeros. `out` holds row first.
template <class T>
void im2col(const Plan& p, const Type& lt, const T* lhs, int64_t first, int64_t last, T* out) {
  const std::vector<int64_t> ls = stridesOf(lt.shape());
  const int64_t batchStride = ls[static_cast<size_t>(p.dn.inputBatch)];
  const int64_t featureStride = ls[static_cast<size_t>(p.dn.inputFeature)];
  // Per spatial dimension: the input coordinate of (output coordinate, window
  // coordinate), or -1 over padding or a dilation hole.
  std::vector<std::vector<int64_t>> inCoord(p.spatial);
  for (size_t d = 0; d < p.spatial; ++d)
    for (int64_t o = 0; o < p.outSpatial[d]; ++o)
      for (int64_t k = 0; k < p.kernelSpatial[d]; ++k) inCoord[d].push_back(p.w.convolutionInput(d, o, k, p.inSpatial[d]));
  // Each window position's coordinates, once (not per row).
  std::vector<std::vector<int64_t>> window(static_cast<size_t>(p.kernelPositions));
  for (int64_t position = 0; position < p.kernelPositions; ++position)
    unravel(position, p.kernelSpatial, window[static_cast<size_t>(position)]);
  const int64_t rows = last - first, columns = p.columns();
  // Where the window's last dimension and the features are both contiguous in the lhs
  // (NHWC, no dilation along it), a row of the window's positions along it inside the
  // input is one run of elements, copied at once.
  const size_t lastDim = p.spatial - 1;
  const int64_t run = p.kernelSpatial[lastDim];
  const bool runs = featureStride == 1 && run > 1 && p.w.windowDilations[lastDim] == 1 &&
                    p.w.baseDilations[lastDim] == 1 && ls[static_cast<size_t>(p.dn.inputSpatial[lastDim])] == p.inFeatures;
  const int64_t parts = std::min<int64_t>(threadCount(), rows);
  runParts(parts, [&](int64_t t) {
    std::vector<int64_t> o;
    for (int64_t r = first + t * rows / parts; r < first + (t + 1) * rows / parts; ++r) {
      const int64_t b = r / p.outPositions;
      unravel(r % p.outPositions, p.outSpatial, o);
      T* row = out + (r - first) * columns;
      for (int64_t position = 0; position < p.kernelPositions; ++position) {
        const std::vector<int64_t>& k = window[static_cast<size_t>(position)];
        int64_t from = b * batchStride;
        for (size_t d = 0; d < p.spatial && from >= 0; ++d) {
          const int64_t q = inCoord[d][static_cast<size_t>(o[d] * p.kernelSpatial[d] + k[d])];
          from = q < 0 ? -1 : from + q * ls[static_cast<size_t>(p.dn.inputSpatial[d])];
        }
        T* to = row + position * p.inFeatures;
        if (runs && k[lastDim] == 0 && from >= 0 &&
            inCoord[lastDim][static_cast<size_t>(o[lastDim] * run + run - 1)] >= 0) {
          std::memcpy(to, lhs + from, static_cast<size_t>(run * p.inFeatures) * sizeof(T));
          position += run - 1;
          continue;
        }
        // (Loops, not memset/memcpy: a stem's 3 features would spend more in the call.)
        if (from < 0)
          for (int64_t ci = 0; ci < p.inFeatures; ++ci) to[ci] = T(0);
        else if (featureStride == 1)
          for (int64_t ci = 0; ci < p.inFeatures; ++ci) to[ci] = lhs[from + ci];
        else
          for (int64_t ci = 0; ci < p.inFeatures; ++ci) to[ci] = lhs[from + ci * featureStride];
      }
    }
  });
}

// All of the windows as the columns of a [column, row] matrix (im2col's transpose), for
// an lhs whose batch is its last dimension (a weight gradient's layout, [f, 0, 1, b]):
// with the rows in (position, b) order, each position's rows in a column are one run of
// the lhs, copied at once (im2col would gather each row's elements a feature stride
// apart). Where each run starts, for each window position, is computed once.
template <class T>
void im2colTransposed(const Plan& p, const Type& lt, const T* lhs, T* out) {
  const std::vector<int64_t> ls = stridesOf(lt.shape());
  const int64_t featureStride = ls[static_cast<size_t>(p.dn.inputFeature)];
  const int64_t rows = p.rows(), columns = p.columns(), positions = p.outPositions;
  // start[k * positions + position]: the lhs offset window position k reads at output
  // position `position` (before the feature and batch), or -1 over padding or a hole.
  std::vector<int64_t> start(static_cast<size_t>(p.kernelPositions * positions));
  std::vector<int64_t> o, k;
  for (int64_t kp = 0; kp < p.kernelPositions; ++kp) {
    unravel(kp, p.kernelSpatial, k);
    for (int64_t position = 0; position < positions; ++position) {
      unravel(position, p.outSpatial, o);
      int64_t from = 0;
      for (size_t d = 0; d < p.spatial && from >= 0; ++d) {
        const int64_t q = p.w.convolutionInput(d, o[d], k[d], p.inSpatial[d]);
        from = q < 0 ? -1 : from + q * ls[static_cast<size_t>(p.dn.inputSpatial[d])];
      }
      start[static_cast<size_t>(kp * positions + position)] = from;
    }
  }
  const size_t run = static_cast<size_t>(p.batch) * sizeof(T);
  const int64_t parts = std::min<int64_t>(threadCount(), columns);
  runParts(parts, [&](int64_t t) {
    for (int64_t column = t * columns / parts; column < (t + 1) * columns / parts; ++column) {
      const int64_t* at = start.data() + (column / p.inFeatures) * positions;
      const T* feature = lhs + (column % p.inFeatures) * featureStride;
      T* to = out + column * rows;
      for (int64_t position = 0; position < positions; ++position, to += p.batch) {
        if (at[position] < 0)
          std::memset(to, 0, run);
        else
          std::memcpy(to, feature + at[position], run);
      }
    }
  });
}

// The kernel as a [window position x input feature, output feature] matrix.
template <class T>
void kernelMatrix(const Plan& p, const Type& rt, const T* rhs, T* out) {
  const std::vector<int64_t> rs = stridesOf(rt.shape());
  std::vector<int64_t> k;
  for (int64_t position = 0; position < p.kernelPositions; ++position) {
    unravel(position, p.kernelSpatial, k);
    int64_t from = 0;
    for (size_t d = 0; d < p.spatial; ++d) {
      const int64_t kd = p.w.reversal[d] ? p.kernelSpatial[d] - 1 - k[d] : k[d];
      from += kd * rs[static_cast<size_t>(p.dn.kernelSpatial[d])];
    }
    for (int64_t ci = 0; ci < p.inFeatures; ++ci)
      for (int64_t f = 0; f < p.outFeatures; ++f)
        out[(position * p.inFeatures + ci) * p.outFeatures + f] =
            rhs[from + ci * rs[static_cast<size_t>(p.dn.kernelInputFeature)] +
                f * rs[static_cast<size_t>(p.dn.kernelOutputFeature)]];
  }
}

// GEMM's [rows, output features] product written into the result's layout.
template <class T>
void scatterRows(const Plan& p, const Type& ot, const T* product, T* out) {
  const std::vector<int64_t> os = stridesOf(ot.shape());
  std::vector<int64_t> o;
  const bool positionMajor = p.positionMajor();
  for (int64_t r = 0; r < p.rows(); ++r) {
    const int64_t b = positionMajor ? r % p.batch : r / p.outPositions;
    unravel(positionMajor ? r / p.batch : r % p.outPositions, p.outSpatial, o);
    int64_t to = b * os[static_cast<size_t>(p.dn.outputBatch)];
    for (size_t d = 0; d < p.spatial; ++d) to += o[d] * os[static_cast<size_t>(p.dn.outputSpatial[d])];
    for (int64_t f = 0; f < p.outFeatures; ++f)
      out[to + f * os[static_cast<size_t>(p.dn.outputFeature)]] = product[r * p.outFeatures + f];
  }
}

template <class T>
void convolve(const Op& op, const T* lhs, const T* rhs, T* out) {
  const Plan p(op);
  const int64_t rows = p.rows(), columns = p.columns();
  const Type& ot = op.result()->type();
  const DType t = std::is_same_v<T, float> ? DType::F32 : DType::F64;
  if (rows == 0 || p.outFeatures == 0) return;
  if (columns == 0) {  // an empty sum: zeros
    std::memset(out, 0, static_cast<size_t>(ot.numElements()) * sizeof(T));
    return;
  }
  std::vector<T> kernel, product;
  // The windows: every element is written before GEMM reads it, into the calling
  // thread's buffer, which no fresh pages back after its first use.
  auto windows = [](int64_t n) {
    return reinterpret_cast<T*>(stagingBuffer(StagingSlot::Windows, n * int64_t{sizeof(T) / sizeof(float)}));
  };
  T* patches = nullptr;
  const T* b = rhs;
  if (!p.rhsAsMatrix) {
    kernel.resize(static_cast<size_t>(columns * p.outFeatures));
    kernelMatrix(p, op.operand(1)->type(), rhs, kernel.data());
    b = kernel.data();
  }
  T* c = out;
  if (!p.resultAsIs()) {
    product.resize(static_cast<size_t>(rows * p.outFeatures));
    c = product.data();
  }
  if (p.lhsAsRows) {
    rowMajorGemm(t, false, false, rows, p.outFeatures, columns, lhs, columns, b, p.outFeatures, c);
  } else if (p.positionMajor()) {
    patches = windows(rows * columns);
    im2colTransposed(p, op.operand(0)->type(), lhs, patches);
    rowMajorGemm(t, true, false, rows, p.outFeatures, columns, patches, rows, b, p.outFeatures, c);
  } else {
    // Block by block, so that each block's windows are still in cache when GEMM reads them.
    const int64_t block = std::max<int64_t>(kMinBlockRows, kBlockBytes / (columns * static_cast<int64_t>(sizeof(T))));
    patches = windows(std::min(block, rows) * columns);
    for (int64_t r = 0; r < rows; r += block) {
      const int64_t n = std::min(block, rows - r);
      im2col(p, op.operand(0)->type(), lhs, r, r + n, patches);
      rowMajorGemm(t, false, false, n, p.outFeatures, columns, patches, columns, b, p.outFeatures,
                   c + r * p.outFeatures);
    }
  }
  if (!p.resultAsIs()) scatterRows(p, ot, c, out);
}

}  // namespace

std::optional<std::string> convolutionOffBlas(const Op& op) {
  if (!op.is(ops::Convolution)) return "unsupported: " + std::string(op.name()) + " on BLAS";
  if (auto why = gemmTypesDecline(op)) return why;
  if (op.attr("feature_group_count").asInt() != 1) return "grouped (GEMM takes one group)";
  if (op.attr("batch_group_count").asInt() != 1) return "batch-grouped (GEMM takes one group)";
  const Plan p(op);
  if (p.columns() < kMinProducts) return "few products per output";
  if (p.outFeatures < kMinOutputFeatures) return "few output features";
  // GEMM takes 32-bit sizes.
  if (p.rows() * p.columns() > (int64_t{1} << 31) - 1 || op.result()->type().numElements() > (int64_t{1} << 31) - 1)
    return "too large for 32-bit GEMM sizes";
  return std::nullopt;
}

std::string blasConvolutionPath(const Op& op) {
  const Plan p(op);
  std::string path = p.lhsAsRows ? "1x1: one GEMM on the input as it is"
                     : p.positionMajor() ? "im2col transposed (the batch innermost), then one GEMM"
                         : "im2col, then one GEMM";
  if (!p.rhsAsMatrix) path += " (kernel reordered)";
  if (!p.resultAsIs()) path += " (result reordered)";
  return path;
}

void blasConvolutionInto(const Op& op, DType t, const void* lhs, const void* rhs, void* out) {
  if (t == DType::F32)
    convolve(op, static_cast<const float*>(lhs), static_cast<const float*>(rhs), static_cast<float*>(out));
  else
    convolve(op, static_cast<const double*>(lhs), static_cast<const double*>(rhs), static_cast<double*>(out));
}

}  // namespace kiln::cpu
