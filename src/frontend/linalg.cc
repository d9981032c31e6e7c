// matmul and dot with NumPy's rules, as one dot_general each (broadcast batch
// dimensions are made explicit first).
#include <algorithm>
#include <cctype>
#include <numeric>

#include "frontend/broadcasting.h"
#include "frontend/dispatch.h"
#include "frontend/promotion.h"
#include "kiln/numpy.h"

namespace kiln {

using namespace detail;

namespace {

Dims range(int64_t from, int64_t to) {
  Dims d;
  for (int64_t i = from; i < to; ++i) d.push_back(i);
  return d;
}

// Both operands in their promoted dtype.
std::pair<Array, Array> promoted(const Array& a, const Array& b, DType& t) {
  t = promote({implOf(a).type.dtype(), implOf(a).weak}, {implOf(b).type.dtype(), implOf(b).weak}).dtype;
  return {withDtype(a, t), withDtype(b, t)};
}

std::string operandsText(const Array& a, const Array& b) { return a.type_string() + " and " + b.type_string(); }

}  // namespace

Array matmul(const Array& a, const Array& b, Site site) {
  return translated([&] {
    DType t;
    auto [x, y] = promoted(a, b, t);
    int64_t ra = x.ndim(), rb = y.ndim();
    if (ra == 0 || rb == 0) throw Error(ErrorKind::Shape, "matmul: a scalar operand (" + operandsText(a, b) + "); use multiply");
    int64_t ka = x.shape().back(), kb = rb == 1 ? y.shape()[0] : y.shape()[static_cast<size_t>(rb - 2)];
    if (ka != kb)
      throw Error(ErrorKind::Shape, "matmul: contracting dimensions differ (" + std::to_string(ka) + " and " +
                                        std::to_string(kb) + ") for " + operandsText(a, b));
    return emit1({x, y}, site, [&](Builder& bld, const std::vector<Value*>& v) {
      Value* l = convertValue(bld, v[0], t);
      Value* r = convertValue(bld, v[1], t);
      // A batch on one side only: contract directly, the free dimensions in NumPy's
      // order (x[..., m, k] @ w[k, n] is [..., m, n]; v[k] @ y[..., k, n] is [..., n]).
      if (rb <= 2 || ra == 1) {
        DotDims dims;
        dims.lhsContracting = {ra - 1};
        dims.rhsContracting = {rb == 1 ? 0 : rb - 2};
        return std::vector<Value*>{bld.dotGeneral(l, r, dims)};
      }
      // Batched on both sides: broadcast the batch dimensions to one shape.
      Shape batchA(x.shape().begin(), x.shape().end() - 2);
      Shape batchB(y.shape().begin(), y.shape().end() - 2);
      Shape batch = broadcastShapes(batchA, batchB, "matmul");
      auto withBatch = [&](Value* v, const Shape& tail) {
        Shape full = batch;
        full.insert(full.end(), tail.begin(), tail.end());
        return broadcastValue(bld, v, full);
      };
      int64_t nb = static_cast<int64_t>(batch.size());
      l = withBatch(l, Shape(x.shape().end() - 2, x.shape().end()));
      r = withBatch(r, Shape(y.shape().end() - 2, y.shape().end()));
      DotDims dims;
      dims.lhsBatch = dims.rhsBatch = range(0, nb);
      dims.lhsContracting = {nb + 1};
      dims.rhsContracting = {nb};
      return std::vector<Value*>{bld.dotGeneral(l, r, dims)};
    });
  });
}

Array dot(const Array& a, const Array& b, Site site) {
  return translated([&] {
    if (a.ndim() == 0 || b.ndim() == 0) return multiply(a, b, site);
    if (a.ndim() <= 2 && b.ndim() <= 2) return matmul(a, b, site);
    DType t;
    auto [x, y] = promoted(a, b, t);
    int64_t ra = x.ndim(), rb = y.ndim();
    int64_t kb = rb == 1 ? 0 : rb - 2;
    if (x.shape().back() != y.shape()[static_cast<size_t>(kb)])
      throw Error(ErrorKind::Shape, "dot: contracting dimensions differ for " + operandsText(a, b));
    return emit1({x, y}, site, [&](Builder& bld, const std::vector<Value*>& v) {
      DotDims dims;
      dims.lhsContracting = {ra - 1};
      dims.rhsContracting = {kb};
      return std::vector<Value*>{bld.dotGeneral(convertValue(bld, v[0], t), convertValue(bld, v[1], t), dims)};
    });
  });
}

namespace {

// An einsum operand: its letters, after summing away those that appear nowhere else.
struct Labeled {
  Array array;
  std::string letters;
};

Labeled sumAwayLonely(Labeled in, const std::string& keep, const Site& site) {
  std::vector<int64_t> axes;
  std::string kept;
  for (size_t i = 0; i < in.letters.size(); ++i) {
    if (keep.find(in.letters[i]) == std::string::npos) axes.push_back(static_cast<int64_t>(i));
    else kept += in.letters[i];
  }
  if (axes.empty()) return in;
  return {sum(in.array, Axes(axes), false, site), kept};
}

// `a` (letters `from`) with its axes in the order of `to` (the same letters).
Array arranged(const Array& a, const std::string& from, const std::string& to, const Site& site) {
  if (from == to) return a;
  std::vector<int64_t> perm;
  for (char c : to) perm.push_back(static_cast<int64_t>(from.find(c)));
  return transpose(a, perm, site);
}

}  // namespace

Array einsum(const std::string& spec, const std::vector<Array>& operands, Site site) {
  return translated([&] {
    std::string text;
    for (char c : spec)
      if (c != ' ') text += c;
    size_t arrow = text.find("->");
    std::string lhs = text.substr(0, arrow);
    std::vector<std::string> inputs;
    for (size_t start = 0;;) {
      size_t comma = lhs.find(',', start);
      inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (inputs.size() != operands.size() || inputs.size() > 2)
      throw Error(inputs.size() > 2 ? ErrorKind::Unsupported : ErrorKind::Usage,
                  std::string(inputs.size() > 2 ? "unsupported: " : "") + "einsum '" + spec + "': " +
                      std::to_string(inputs.size()) + " operand specs for " + std::to_string(operands.size()) +
                      " operands (one or two are supported)");
    std::string all;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const std::string& in = inputs[k];
      if (static_cast<int64_t>(in.size()) != operands[k].ndim())
        throw Error(ErrorKind::Shape, "einsum '" + spec + "': '" + in + "' names " + std::to_string(in.size()) +
                                          " axes of " + operands[k].type_string());
      for (size_t i = 0; i < in.size(); ++i) {
        if (!std::isalpha(static_cast<unsigned char>(in[i])))
          throw Error(ErrorKind::Usage, "einsum '" + spec + "': '" + std::string(1, in[i]) + "' is not a letter");
        if (in.find(in[i], i + 1) != std::string::npos)
          throw Error(ErrorKind::Unsupported, "unsupported: einsum '" + spec + "' repeats '" + std::string(1, in[i]) +
                                                  "' within one operand (diagonals)");
      }
      all += in;
    }
    std::string out;
    if (arrow != std::string::npos) {
      out = text.substr(arrow + 2);
      for (char c : out)
        if (all.find(c) == std::string::npos)
          throw Error(ErrorKind::Usage, "einsum '" + spec + "': output letter '" + std::string(1, c) + "' is in no operand");
    } else {
      std::string sorted = all;
      std::sort(sorted.begin(), sorted.end());
      for (char c : sorted)
        if (std::count(all.begin(), all.end(), c) == 1) out += c;
    }
    if (operands.size() == 1) {
      Labeled x = sumAwayLonely({operands[0], inputs[0]}, out, site);
      return arranged(x.array, x.letters, out, site);
    }
    Labeled a = sumAwayLonely({operands[0], inputs[0]}, out + inputs[1], site);
    Labeled b = sumAwayLonely({operands[1], inputs[1]}, out + inputs[0], site);
    std::string batch, contract, freeA, freeB;
    for (char c : a.letters) {
      bool inB = b.letters.find(c) != std::string::npos, inOut = out.find(c) != std::string::npos;
      (inB ? (inOut ? batch : contract) : freeA) += c;
    }
    for (char c : b.letters)
      if (a.letters.find(c) == std::string::npos) freeB += c;
    DType t;
    auto [x, y] = promoted(a.array, b.array, t);
    for (char c : batch + contract)
      if (x.shape()[a.letters.find(c)] != y.shape()[b.letters.find(c)])
        throw Error(ErrorKind::Shape, "einsum '" + spec + "': '" + std::string(1, c) + "' has sizes " +
                                          std::to_string(x.shape()[a.letters.find(c)]) + " and " +
                                          std::to_string(y.shape()[b.letters.find(c)]));
    DotDims dims;
    for (char c : batch) {
      dims.lhsBatch.push_back(static_cast<int64_t>(a.letters.find(c)));
      dims.rhsBatch.push_back(static_cast<int64_t>(b.letters.find(c)));
    }
    for (char c : contract) {
      dims.lhsContracting.push_back(static_cast<int64_t>(a.letters.find(c)));
      dims.rhsContracting.push_back(static_cast<int64_t>(b.letters.find(c)));
    }
    Array product = emit1({x, y}, site, [&](Builder& bld, const std::vector<Value*>& v) {
      return std::vector<Value*>{bld.dotGeneral(convertValue(bld, v[0], t), convertValue(bld, v[1], t), dims)};
    });
    return arranged(product, batch + freeA + freeB, out, site);
  });
}

}  // namespace kiln
