// Kernels: sort. Each 1-d line along the sort dimension is sorted by sorting a
// permutation with the comparator region (called on rank-0 tensors, lhs and rhs of each
// input interleaved), then every input is permuted the same way.
#include <algorithm>
#include <numeric>

#include "interp/ops/movement.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {
namespace {

HostValues sort(const Op& op, const HostValues& v, EvalContext& ctx) {
  const size_t n = v.size();
  const Shape& shape = v[0].tensor().shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t dim = op.attrOrDefault("dimension").asInt();
  if (dim < 0) dim += rank;
  std::vector<Literal> results;
  for (const HostValue& x : v) results.push_back(x.tensor());
  if (v[0].tensor().numElements() == 0 || rank == 0) return {results.begin(), results.end()};

  const std::vector<int64_t> strides = stridesOf(shape);
  const int64_t stride = strides[static_cast<size_t>(dim)];
  const int64_t length = shape[static_cast<size_t>(dim)];
  std::vector<ElementCopier> copiers;
  for (size_t k = 0; k < n; ++k) copiers.emplace_back(v[k].tensor(), results[k]);

  // The lines: every index with 0 in the sort dimension.
  Shape lines = shape;
  lines[static_cast<size_t>(dim)] = 1;
  std::vector<int64_t> line(shape.size(), 0);
  std::vector<std::vector<Literal>> elements(n, std::vector<Literal>(static_cast<size_t>(length)));
  std::vector<int64_t> perm(static_cast<size_t>(length));
  HostValues args(2 * n);
  auto less = [&](int64_t a, int64_t b) {
    for (size_t k = 0; k < n; ++k) {
      args[2 * k] = elements[k][static_cast<size_t>(a)];
      args[2 * k + 1] = elements[k][static_cast<size_t>(b)];
    }
    return ctx.runRegion(op.region(0), args).at(0).tensor().boolAt(0);
  };
  do {
    ctx.checkTime();
    const int64_t base = ravel(line, strides);
    for (size_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < length; ++j)
        elements[k][static_cast<size_t>(j)] = elementAt(v[k].tensor(), base + j * stride);
    std::iota(perm.begin(), perm.end(), 0);
    // Always stable (allowed when is_stable is false), as the reference interpreter's
    // std::stable_sort; the comparator is a pure function of its arguments, so even one
    // that is not a strict weak order (NaN with LT) cannot make it read out of range.
    std::stable_sort(perm.begin(), perm.end(), less);
    for (size_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < length; ++j)
        copiers[k].copy(base + j * stride, base + perm[static_cast<size_t>(j)] * stride);
  } while (nextIndex(line, lines));
  return {results.begin(), results.end()};
}

}  // namespace

void addSortKernels(KernelTable& t) { t.set(ops::Sort, &sort); }

}  // namespace kiln::interp
