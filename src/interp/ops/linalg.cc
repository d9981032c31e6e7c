// Kernels: dot_general, dot and chlo.ragged_dot. Operands are packed into
// [batch][free][contracting] buffers of the result's compute type, so mixed operand
// types accumulate in the result type (f16/bf16 in f32, i8 x i8 -> i32 in i32), and each
// sum runs over the contracting dimensions in row-major order starting from zero.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "interp/ops/linalg.h"
#include "ir/attr_records.h"
#include "ir/ops/chlo.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

int64_t product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape[static_cast<size_t>(d)];
  return n;
}

std::vector<int64_t> concat(std::initializer_list<const std::vector<int64_t>*> parts) {
  std::vector<int64_t> out;
  for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// out[b][m][n] = sum_k l[b][m][k] * r[b][n][k] over the k with useK(k) (when given),
// for the (b, m) with useBM(b, m).
template <class T, class UseBM, class UseK>
std::vector<Store<T>> batchedDot(const std::vector<Store<T>>& l, const std::vector<Store<T>>& r, int64_t B,
                                 int64_t M, int64_t N, int64_t K, UseBM&& useBM, UseK&& useK, EvalContext& ctx) {
  std::vector<Store<T>> out(static_cast<size_t>(B * M * N), Store<T>{});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t m = 0; m < M; ++m) {
      if (!useBM(b, m)) continue;
      ctx.checkTime();
      const Store<T>* lrow = l.data() + (b * M + m) * K;
      for (int64_t n = 0; n < N; ++n) {
        const Store<T>* rrow = r.data() + (b * N + n) * K;
        T acc{};
        for (int64_t k = 0; k < K; ++k)
          if (useK(k)) acc = mulAdd<T>(acc, static_cast<T>(lrow[k]), static_cast<T>(rrow[k]));
        out[static_cast<size_t>((b * M + m) * N + n)] = acc;
      }
    }
  return out;
}

constexpr auto kAll = [](auto...) { return true; };

// out[b][m][n] = sum_k l[b][m][k] * r[b][k][n], each sum in k order from zero like
// batchedDot, but looping k outside n so the innermost loop runs along a row of r and
// out (it vectorizes; the order of additions into each element is unchanged).
template <class T>
std::vector<Store<T>> batchedDotRows(const std::vector<Store<T>>& l, const std::vector<Store<T>>& r, int64_t B,
                                     int64_t M, int64_t N, int64_t K, EvalContext& ctx) {
  std::vector<Store<T>> out(static_cast<size_t>(B * M * N), Store<T>{});
  // Rows are independent, so large products spread over threads; results do not change.
  auto rows = [&](int64_t first, int64_t last) {
    for (int64_t bm = first; bm < last; ++bm) {
      ctx.checkTime();
      int64_t b = bm / M;
      const Store<T>* lrow = l.data() + bm * K;
      Store<T>* __restrict orow = out.data() + bm * N;
      for (int64_t k = 0; k < K; ++k) {
        const T a = static_cast<T>(lrow[k]);
        const Store<T>* __restrict rrow = r.data() + (b * K + k) * N;
        for (int64_t n = 0; n < N; ++n) orow[n] = mulAdd<T>(static_cast<T>(orow[n]), a, static_cast<T>(rrow[n]));
      }
    }
  };
  if (B * M * N * K < (int64_t{1} << 20)) {
    rows(0, B * M);
  } else {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, B * M),
                      [&](const tbb::blocked_range<int64_t>& range) { rows(range.begin(), range.end()); });
  }
  return out;
}

Literal dotGeneral(const Literal& lhs, const Literal& rhs, const DotDims& d, const Type& resultType,
                   EvalContext& ctx) {
  std::vector<int64_t> lFree = d.lhsFree(lhs.type().rank());
  std::vector<int64_t> rFree = d.rhsFree(rhs.type().rank());
  const int64_t B = product(lhs.shape(), d.lhsBatch), M = product(lhs.shape(), lFree);
  const int64_t N = product(rhs.shape(), rFree), K = product(lhs.shape(), d.lhsContracting);
  Literal out(resultType);
  visitDType(resultType.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<Store<T>> l = packAs<T>(lhs, concat({&d.lhsBatch, &lFree, &d.lhsContracting}));
    std::vector<Store<T>> r = packAs<T>(rhs, concat({&d.rhsBatch, &d.rhsContracting, &rFree}));
    std::vector<Store<T>> o = batchedDotRows<T>(l, r, B, M, N, K, ctx);
    Writer<T> w(out);
    for (size_t i = 0; i < o.size(); ++i) w.set(static_cast<int64_t>(i), static_cast<T>(o[i]));
  });
  return out;
}

// dot_general, and dot (vector·vector, matrix·vector, vector·matrix or matrix·matrix).
HostValues dotKernel(const Op& op, const HostValues& v, EvalContext& ctx) {
  return {dotGeneral(v[0].tensor(), v[1].tensor(), DotDims::of(op), op.result(0)->type(), ctx)};
}

// The group of each coordinate along a ragged dimension of size `size` (-1 past the
// groups' total: those rows, or contracting terms, take no part).
std::vector<int64_t> groupOfCoordinate(const Literal& groupSizes, int64_t size) {
  std::vector<int64_t> group(static_cast<size_t>(size), -1);
  int64_t start = 0;
  for (int64_t g = 0; g < groupSizes.numElements(); ++g) {
    int64_t len = groupSizes.intAt(g);
    for (int64_t c = std::max<int64_t>(start, 0); c < std::min(start + len, size); ++c)
      group[static_cast<size_t>(c)] = g;
    start += len;
  }
  return group;
}

// The coordinate along packed dimension `pos` of `dims` (sizes from `shape`) of linear
// index `i` of the packed block.
int64_t coordinateOf(int64_t i, const Shape& shape, const std::vector<int64_t>& dims, size_t pos) {
  int64_t inner = 1;
  for (size_t j = pos + 1; j < dims.size(); ++j) inner *= shape[static_cast<size_t>(dims[j])];
  return (i / inner) % shape[static_cast<size_t>(dims[pos])];
}

// chlo.ragged_dot: the lhs ragged dimension is split into consecutive groups of
// group_sizes. Ragged in a free dimension: rows of group g multiply rhs[g] (the rhs
// group dimension). Ragged in a contracting dimension: the result gains a leading group
// dimension, group g summing only its terms. Ragged in a batch dimension: a dot_general
// whose batches past the groups' total are zero.
HostValues raggedDot(const Op& op, const HostValues& v, EvalContext& ctx) {
  const Literal& lhs = v[0].tensor();
  const Literal& rhs = v[1].tensor();
  const Literal& groupSizes = v[2].tensor();
  if (groupSizes.type().rank() != 1) unsupportedOp(op, "group_sizes of rank other than 1");
  RaggedDotDims rd = RaggedDotDims::fromAttr(op.attr("ragged_dot_dimension_numbers"));
  const DotDims& d = rd.dot;
  const int64_t ragged = rd.lhsRagged.at(0);
  const std::vector<int64_t>& rhsGroupDims = rd.rhsGroup;
  const int64_t rhsGroup = rhsGroupDims.empty() ? -1 : rhsGroupDims[0];
  const int64_t G = groupSizes.numElements();

  std::vector<int64_t> lFree = d.lhsFree(lhs.type().rank());
  std::vector<int64_t> rFree = d.rhsFree(rhs.type().rank());
  std::erase(rFree, rhsGroup);  // the group dimension selects a block of rhs
  const int64_t B = product(lhs.shape(), d.lhsBatch), M = product(lhs.shape(), lFree);
  const int64_t N = product(rhs.shape(), rFree), K = product(lhs.shape(), d.lhsContracting);
  std::vector<int64_t> groupOf = groupOfCoordinate(groupSizes, lhs.shape()[static_cast<size_t>(ragged)]);
  auto posIn = [&](const std::vector<int64_t>& dims) {
    auto it = std::find(dims.begin(), dims.end(), ragged);
    return it == dims.end() ? -1 : static_cast<int64_t>(it - dims.begin());
  };
  const int64_t freePos = posIn(lFree), contractPos = posIn(d.lhsContracting), batchPos = posIn(d.lhsBatch);

  Literal out(op.result(0)->type());
  visitDType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<Store<T>> l = packAs<T>(lhs, concat({&d.lhsBatch, &lFree, &d.lhsContracting}));
    std::vector<Store<T>> result;
    if (freePos >= 0) {
      // rhs packed [G][B][N][K]; each group's block is a plain rhs.
      std::vector<int64_t> groupDim{rhsGroup};
      std::vector<Store<T>> r = packAs<T>(rhs, concat({&groupDim, &d.rhsBatch, &rFree, &d.rhsContracting}));
      result.assign(static_cast<size_t>(B * M * N), T{});
      const size_t block = static_cast<size_t>(B * N * K);
      for (int64_t g = 0; g < G; ++g) {
        std::vector<Store<T>> rg(r.begin() + static_cast<ptrdiff_t>(g * block),
                          r.begin() + static_cast<ptrdiff_t>((g + 1) * block));
        auto inGroup = [&](int64_t, int64_t m) {
          return groupOf[static_cast<size_t>(coordinateOf(m, lhs.shape(), lFree, static_cast<size_t>(freePos)))] == g;
        };
        std::vector<Store<T>> part = batchedDot<T>(l, rg, B, M, N, K, inGroup, kAll, ctx);
        for (int64_t bm = 0; bm < B * M; ++bm)
          if (inGroup(0, bm % M))
            std::copy_n(part.begin() + bm * N, N, result.begin() + bm * N);
      }
    } else if (contractPos >= 0) {
      std::vector<Store<T>> r = packAs<T>(rhs, concat({&d.rhsBatch, &rFree, &d.rhsContracting}));
      for (int64_t g = 0; g < G; ++g) {
        auto inGroup = [&](int64_t k) {
          return groupOf[static_cast<size_t>(coordinateOf(k, lhs.shape(), d.lhsContracting, static_cast<size_t>(contractPos)))] == g;
        };
        std::vector<Store<T>> part = batchedDot<T>(l, r, B, M, N, K, kAll, inGroup, ctx);
        result.insert(result.end(), part.begin(), part.end());
      }
    } else if (batchPos >= 0) {
      std::vector<Store<T>> r = packAs<T>(rhs, concat({&d.rhsBatch, &rFree, &d.rhsContracting}));
      auto inAnyGroup = [&](int64_t b, int64_t) {
        return groupOf[static_cast<size_t>(coordinateOf(b, lhs.shape(), d.lhsBatch, static_cast<size_t>(batchPos)))] >= 0;
      };
      result = batchedDot<T>(l, r, B, M, N, K, inAnyGroup, kAll, ctx);
    } else {
      runtimeError(op, "the ragged dimension is not a dimension of lhs");
    }
    Writer<T> w(out);
    for (size_t i = 0; i < result.size(); ++i) w.set(static_cast<int64_t>(i), static_cast<T>(result[i]));
  });
  return {out};
}

}  // namespace

void addLinalgKernels(KernelTable& t) {
  t.set(ops::DotGeneral, &dotKernel);
  t.set(ops::Dot, &dotKernel);
  t.set(ops::ChloRaggedDot, &raggedDot);
  addConvolutionKernels(t);
  addFftKernels(t);
  addSolveKernels(t);
  addBatchNormKernels(t);
}

}  // namespace kiln::interp
