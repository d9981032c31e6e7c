// dot_general on OpenBLAS, and the dispatch to convolutions (blas_dot.h).
#include "backends/cpu/blas_dot.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>

#include "backends/cpu/blas_convolution.h"
#include "backends/cpu/onednn_convolution.h"
#include "backends/cpu/onednn_gemm.h"
#include "backends/cpu/f32_staging.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/threads.h"
#include "ir/attr_records.h"
#include "ir/ops/stablehlo.h"

namespace kiln::cpu {
namespace {

int64_t product(const Shape& shape, const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape[static_cast<size_t>(d)];
  return n;
}

Dims concat(Dims a, const Dims& b, const Dims& c) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

// The elements of `src` (of `shape`, `bytes` each) with its dimensions permuted: result
// dimension i is dimension order[i] of `src`.
std::vector<uint8_t> permuted(const uint8_t* src, const Shape& shape, size_t bytes, const Dims& order) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  const size_t n = static_cast<size_t>(numElements(shape));
  std::vector<uint8_t> out(n * bytes);
  if (out.empty()) return out;
  std::vector<int64_t> index(order.size(), 0);  // over the permuted shape
  for (size_t linear = 0; linear < n; ++linear) {
    int64_t from = 0;
    for (size_t i = 0; i < order.size(); ++i) from += index[i] * strides[static_cast<size_t>(order[i])];
    std::memcpy(out.data() + linear * bytes, src + static_cast<size_t>(from) * bytes, bytes);
    for (size_t i = order.size(); i-- > 0;) {
      if (++index[i] < shape[static_cast<size_t>(order[i])]) break;
      index[i] = 0;
    }
  }
  return out;
}

// One operand as GEMM reads it: `batch` matrices `batchStride` elements apart, each of
// rows x cols with row stride `ld`, or stored transposed (cols x rows, row stride `ld`).
struct Matrix {
  const uint8_t* data = nullptr;
  bool transposed = false;
  int64_t ld = 0, batchStride = 0;
  std::vector<uint8_t> copy;  // when the operand had to be reordered
};

// The stride, in elements, of a group of dimensions read as one index in the order given:
// 0 when all are of size 1, nothing when they do not collapse into one stride (some
// dimension does not step over the whole extent of the next).
std::optional<int64_t> groupStride(const Shape& shape, const std::vector<int64_t>& strides, const Dims& group) {
  std::optional<int64_t> stride, next;  // `next`: the stride the next outer dimension must have
  for (size_t i = group.size(); i-- > 0;) {
    const auto d = static_cast<size_t>(group[i]);
    if (shape[d] == 1) continue;
    if (next && strides[d] != *next) return std::nullopt;
    if (!stride) stride = strides[d];
    next = strides[d] * shape[d];
  }
  return stride.value_or(0);
}

// The operand read in place where each group (its batch, row and column dimensions, in
// GEMM's order) collapses into one stride and its rows or its columns are contiguous:
// attention's per-head products over (batch, sequence, heads, features) read each head's
// matrix with a row stride of heads x features, with no copy. Else a reordered copy.
Matrix asMatrix(const uint8_t* data, const Shape& shape, size_t bytes, const Dims& batchDims, const Dims& rowDims,
                const Dims& colDims) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  const int64_t rows = product(shape, rowDims), cols = product(shape, colDims);
  const auto sb = groupStride(shape, strides, batchDims), sr = groupStride(shape, strides, rowDims),
             sc = groupStride(shape, strides, colDims);
  Matrix m;
  m.data = data;
  if (sb && sr && sc) {
    m.batchStride = *sb;
    if (cols == 1 || *sc == 1) {
      m.ld = rows == 1 ? cols : *sr;
      return m;
    }
    if (rows == 1 || *sr == 1) {
      m.transposed = true;
      m.ld = *sc;
      return m;
    }
  }
  m.copy = permuted(data, shape, bytes, concat(batchDims, rowDims, colDims));
  m.data = m.copy.data();
  m.ld = cols;
  m.batchStride = rows * cols;
  return m;
}

// The dot over dense row-major buffers whose operands are of type `t` (f32 or f64, or
// bf16 where oneDNN takes it) and whose result is of type `out`.
void dotInto(const Op& op, DType t, DType out, const void* lhsData, const void* rhsData, void* outData) {
  DotDims dims = DotDims::of(op);
  const Shape& ls = op.operand(0)->type().shape();
  const Shape& rs = op.operand(1)->type().shape();
  const size_t bytes = static_cast<size_t>(storageBytes(t));
  Dims lhsFree = dims.lhsFree(static_cast<int64_t>(ls.size()));
  Dims rhsFree = dims.rhsFree(static_cast<int64_t>(rs.size()));
  int64_t batch = product(ls, dims.lhsBatch);
  int64_t m = product(ls, lhsFree), k = product(ls, dims.lhsContracting);
  int64_t n = product(rs, rhsFree);
  if (batch * m * n == 0) return;
  if (k == 0) {  // an empty sum: zeros
    std::memset(outData, 0, static_cast<size_t>(batch * m * n * storageBytes(out)));
    return;
  }
  Matrix a = asMatrix(static_cast<const uint8_t*>(lhsData), ls, bytes, dims.lhsBatch, lhsFree, dims.lhsContracting);
  Matrix b = asMatrix(static_cast<const uint8_t*>(rhsData), rs, bytes, dims.rhsBatch, dims.rhsContracting, rhsFree);
  rowMajorBatchedGemm(t, out, a.transposed, b.transposed, batch, m, n, k, a.data, a.ld, a.batchStride, b.data, b.ld,
                      b.batchStride, outData);
}

void gemmInto(const Op& op, DType t, const void* lhs, const void* rhs, void* out) {
  if (op.is(ops::Convolution)) blasConvolutionInto(op, t, lhs, rhs, out);
  else dotInto(op, t, t, lhs, rhs, out);
}

// Whether `op`'s operands and result are all of type `t` (GEMM takes them as they are).
bool allOfType(const Op& op, DType t) {
  for (const Value* v : {op.operand(0), op.operand(1), op.result()})
    if (v->type().dtype() != t) return false;
  return true;
}

// `v`'s elements at `data` as f32: there when they are f32, else widened into the
// calling thread's staging buffer `slot`.
const float* asF32(const Value& v, const void* data, StagingSlot slot) {
  if (v.type().dtype() == DType::F32) return static_cast<const float*>(data);
  float* copy = stagingBuffer(slot, v.type().numElements());
  widenToF32(v.type().dtype(), data, copy, v.type().numElements());
  return copy;
}

}  // namespace

std::optional<std::string> gemmTypesDecline(const Op& op) {
  const DType t = op.result()->type().dtype(), l = op.operand(0)->type().dtype(), r = op.operand(1)->type().dtype();
  if ((t == DType::F64 && l == t && r == t) || (stagesThroughF32(t) && stagesThroughF32(l) && stagesThroughF32(r)))
    return std::nullopt;
  return "its element types (GEMM takes f32 or f64, and f16/bf16 through f32), " + std::string(name(l)) + " x " +
         std::string(name(r)) + " -> " + std::string(name(t));
}

std::optional<std::string> blasDeclines(const Op& op) {
  if (op.is(ops::Convolution)) {
    if (!oneDnnConvolutionDeclines(op)) return std::nullopt;
    return convolutionOffBlas(op);
  }
  if (!op.is(ops::DotGeneral) && !op.is(ops::Dot)) return "unsupported: " + std::string(op.name()) + " on BLAS";
  if (auto why = gemmTypesDecline(op)) return "unsupported: dot_general of " + *why + " on BLAS";
  // GEMM takes 32-bit sizes.
  for (const Value* v : {op.operand(0), op.operand(1), op.result()})
    if (v->type().numElements() > (int64_t{1} << 31) - 1) return "unsupported: dot_general this large on BLAS";
  return std::nullopt;
}

// Whether the dot `op` takes bf16 operands as they are (on oneDNN, where it has kernels
// for them), rather than widened to f32.
bool bf16AsItIs(const Op& op) {
  return !op.is(ops::Convolution) && op.operand(0)->type().dtype() == DType::BF16 &&
         op.operand(1)->type().dtype() == DType::BF16 && oneDnnGemmTakes(DType::BF16, op.result()->type().dtype());
}

std::string dotPath(const Op& op) {
  const DType in = op.operand(0)->type().dtype(), out = op.result()->type().dtype();
  if (bf16AsItIs(op)) return "on oneDNN, bf16 as it is";
  if (in == DType::F32 && op.operand(1)->type().dtype() == DType::F32 && out == DType::F32 && oneDnnGemmTakes(in, out))
    return "on oneDNN";
  return stagesThroughF32(out) && out != DType::F32 ? "on OpenBLAS, through f32" : "on OpenBLAS";
}

std::string convolutionPath(const Op& op) {
  return oneDnnConvolutionDeclines(op) ? blasConvolutionPath(op) : oneDnnConvolutionPath(op);
}

void blasInto(const Op& op, const void* lhs, const void* rhs, void* out) {
  threadCount();  // OpenBLAS gets the backend's thread count before its first call
  if (oneDnnConvolutionInto(op, lhs, rhs, out)) return;
  const DType t = op.result()->type().dtype();
  if (allOfType(op, t) && (t == DType::F32 || t == DType::F64)) {
    gemmInto(op, t, lhs, rhs, out);
    return;
  }
  // bf16 operands to a bf16 or f32 result: natively on oneDNN, where it has the kernels.
  if (bf16AsItIs(op)) {
    dotInto(op, DType::BF16, t, lhs, rhs, out);
    return;
  }
  // f16/bf16 somewhere else: staged through f32 (blasDeclines took nothing else).
  const float* l = asF32(*op.operand(0), lhs, StagingSlot::Lhs);
  const float* r = asF32(*op.operand(1), rhs, StagingSlot::Rhs);
  const int64_t n = op.result()->type().numElements();
  float* product = t == DType::F32 ? static_cast<float*>(out) : stagingBuffer(StagingSlot::Product, n);
  gemmInto(op, DType::F32, l, r, product);
  if (t != DType::F32) narrowFromF32(t, product, out, n);
}

interp::HostValues blasRun(const Op& op, const interp::HostValues& operands) {
  Literal lhs = operands[0].tensor(), rhs = operands[1].tensor();
  Literal out(op.result()->type());
  // GEMM reads every element: splats are expanded (on these copies; others are read
  // where they are).
  blasInto(op, lhs.denseStorage(), rhs.denseStorage(), out.mutableStorage());
  return {std::move(out)};
}

}  // namespace kiln::cpu
