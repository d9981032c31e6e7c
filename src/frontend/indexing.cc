// NumPy indexing and JAX's index updates (kiln/indexing.h). An index expression is first
// resolved against the array's shape (one entry per axis, new axes inserted); reading
// is then a static slice (integers and slices only) or one gather (index arrays), and
// every update is the scatter that writes where that gather reads.
#include <algorithm>
#include <numeric>

#include "frontend/broadcasting.h"
#include "frontend/dispatch.h"
#include "ir/ops/stablehlo.h"
#include "kiln/indexing.h"
#include "kiln/numpy.h"

namespace kiln {

using namespace detail;

namespace {

// What one axis of the array (with the new axes in place) is indexed by.
struct AxisIndex {
  enum class Kind { Whole, Range, Integer, Array } kind = Kind::Whole;
  int64_t start = 0, size = 0, step = 1;  // Range: `size` positions start, start + step, ...
  int64_t integer = 0;                    // Integer: in [0, dim)
  size_t array = 0;                       // Array: which of the index arrays
};

// An index expression resolved against a shape.
struct Resolved {
  Shape shape;                  // the array's shape with a size-1 axis at each newaxis
  std::vector<AxisIndex> axes;  // one per axis of `shape`
  std::vector<Array> arrays;    // the index arrays, in order
  bool strided() const {
    for (const AxisIndex& a : axes)
      if (a.kind == AxisIndex::Kind::Range && a.step != 1) return true;
    return false;
  }
  bool hasArrays() const { return !arrays.empty(); }
};

std::string dimsText(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out;
}

// Python's slice.indices: the positions start:stop:step picks from `n`.
AxisIndex resolveSlice(const Slice& s, int64_t n) {
  if (s.step == 0) throw Error(ErrorKind::Shape, "index: a slice step cannot be zero");
  AxisIndex a;
  a.kind = AxisIndex::Kind::Range;
  a.step = s.step;
  auto bound = [&](std::optional<int64_t> v, int64_t missing, int64_t lo, int64_t hi) {
    if (!v) return missing;
    int64_t x = *v < 0 ? *v + n : *v;
    return std::clamp(x, lo, hi);
  };
  if (s.step > 0) {
    int64_t start = bound(s.start, 0, 0, n), stop = bound(s.stop, n, 0, n);
    a.start = start;
    a.size = stop > start ? (stop - start + s.step - 1) / s.step : 0;
  } else {
    int64_t start = bound(s.start, n - 1, -1, n - 1), stop = bound(s.stop, -1, -1, n - 1);
    a.start = start;
    a.size = start > stop ? (start - stop - s.step - 1) / -s.step : 0;
  }
  if (a.size == 0) a.start = 0;
  if (a.start == 0 && a.size == n && (a.step == 1 || n <= 1)) a = AxisIndex{};  // the whole axis
  return a;
}

Resolved resolve(const Shape& shape, const std::vector<Index>& index) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t consuming = 0, ellipses = 0;
  for (const Index& i : index) {
    if (i.kind == Index::Kind::Ellipsis) ++ellipses;
    else if (i.kind != Index::Kind::NewAxis) ++consuming;
  }
  if (ellipses > 1) throw Error(ErrorKind::Shape, "index: an index can have only one ellipsis ('...')");
  if (consuming > rank)
    throw Error(ErrorKind::Shape, "index: too many indices for an array of shape (" + dimsText(shape) + "): " +
                                      std::to_string(rank) + " axes, " + std::to_string(consuming) + " indexed");
  Resolved r;
  int64_t d = 0;
  auto whole = [&] {
    r.shape.push_back(shape[static_cast<size_t>(d++)]);
    r.axes.push_back(AxisIndex{});
  };
  for (const Index& i : index) {
    switch (i.kind) {
      case Index::Kind::Ellipsis:
        for (int64_t k = 0; k < rank - consuming; ++k) whole();
        break;
      case Index::Kind::NewAxis:
        r.shape.push_back(1);
        r.axes.push_back(AxisIndex{});
        break;
      case Index::Kind::Slice: {
        const int64_t n = shape[static_cast<size_t>(d++)];
        r.shape.push_back(n);
        r.axes.push_back(resolveSlice(i.slice, n));
        break;
      }
      case Index::Kind::Integer: {
        const int64_t n = shape[static_cast<size_t>(d)];
        const int64_t at = i.integer < 0 ? i.integer + n : i.integer;
        if (at < 0 || at >= n)
          throw Error(ErrorKind::Shape, "index: index " + std::to_string(i.integer) + " is out of bounds for axis " +
                                            std::to_string(d) + " with size " + std::to_string(n));
        ++d;
        r.shape.push_back(n);
        AxisIndex a;
        a.kind = AxisIndex::Kind::Integer;
        a.integer = at;
        r.axes.push_back(a);
        break;
      }
      case Index::Kind::Array: {
        const DType t = implOf(i.array).type.dtype();
        if (isBool(t))
          throw Error(ErrorKind::Type,
                      "unsupported: indexing with a boolean mask (the result's shape would depend on its values; use "
                      "where)");
        if (!isInteger(t))
          throw Error(ErrorKind::Type, "index: an index array of " + i.array.type_string() + "; indices are integers");
        r.shape.push_back(shape[static_cast<size_t>(d++)]);
        AxisIndex a;
        a.kind = AxisIndex::Kind::Array;
        a.array = r.arrays.size();
        r.arrays.push_back(i.array);
        r.axes.push_back(a);
        break;
      }
    }
  }
  while (d < rank) whole();
  return r;
}

// `x` (of r.shape) with each strided or reversed range taken out, so that every range
// left has step 1 (reading only: an update cannot write through these).
Value* takeStrides(Builder& b, Value* x, Resolved& r) {
  for (size_t d = 0; d < r.axes.size(); ++d) {
    AxisIndex& a = r.axes[d];
    if (a.kind != AxisIndex::Kind::Range || a.step == 1) continue;
    const int64_t n = r.shape[d];
    int64_t start = a.start, step = a.step;
    if (step < 0) {
      x = b.reverse(x, {static_cast<int64_t>(d)});
      start = n - 1 - start;
      step = -step;
    }
    Dims lo(r.shape.size(), 0), hi(x->type().shape().begin(), x->type().shape().end()), strides(r.shape.size(), 1);
    lo[d] = start;
    hi[d] = start + (a.size - 1) * step + 1;
    strides[d] = step;
    x = b.slice(x, lo, hi, strides);
    r.shape[d] = a.size;
    a = AxisIndex{};
  }
  return x;
}

// The gather that reads x[index] (all ranges of step 1), and where its dimensions go.
struct GatherPlan {
  Value* indices = nullptr;
  GatherDims dims;
  Dims sliceSizes;
  Shape gathered;   // the gather's result: the indexed dimensions, then the others
  Dims toResult;    // the permutation that puts them where NumPy does
  Shape result;
};

GatherPlan planGather(Builder& b, const Resolved& r, const std::vector<Value*>& arrays) {
  GatherPlan p;
  Shape batch;
  bool wide = false;
  for (Value* v : arrays) {
    batch = broadcastShapes(batch, v->type().shape(), "index");
    wide = wide || bitWidth(v->type().dtype()) > 32 || (isUnsignedInt(v->type().dtype()) && bitWidth(v->type().dtype()) == 32);
  }
  const DType it = wide ? DType::I64 : DType::I32;
  const Type componentType = Type::tensor(it, batch);
  Shape withVector = batch;
  withVector.push_back(1);
  std::vector<Value*> components;
  Dims indexed, rest;
  for (size_t d = 0; d < r.axes.size(); ++d) {
    const AxisIndex& a = r.axes[d];
    const int64_t n = r.shape[d];
    const auto axis = static_cast<int64_t>(d);
    Value* c = nullptr;
    switch (a.kind) {
      case AxisIndex::Kind::Whole:
        rest.push_back(axis);
        p.sliceSizes.push_back(n);
        break;
      case AxisIndex::Kind::Range:
        rest.push_back(axis);
        p.sliceSizes.push_back(a.size);
        c = b.splat(componentType, static_cast<double>(a.start));
        break;
      case AxisIndex::Kind::Integer:
        indexed.push_back(axis);
        p.sliceSizes.push_back(1);
        c = b.splat(componentType, static_cast<double>(a.integer));
        break;
      case AxisIndex::Kind::Array: {
        indexed.push_back(axis);
        p.sliceSizes.push_back(1);
        c = broadcastValue(b, convertValue(b, arrays[a.array], it), batch);
        if (isSignedInt(arrays[a.array]->type().dtype())) {  // negative indices count from the end
          Value* negative = b.compare(c, b.splat(componentType, 0), ComparisonDirection::LT);
          c = b.select(negative, b.binary(ops::Add, c, b.splat(componentType, static_cast<double>(n))), c);
        }
        break;
      }
    }
    if (c) {
      components.push_back(b.reshape(c, withVector));
      p.dims.startIndexMap.push_back(axis);
    }
  }
  p.indices = components.size() == 1 ? components[0] : b.concatenate(components, static_cast<int64_t>(batch.size()));
  p.dims.collapsedSliceDims = indexed;
  p.dims.indexVectorDim = static_cast<int64_t>(batch.size());
  const auto nb = static_cast<int64_t>(batch.size());
  p.gathered = batch;
  for (size_t k = 0; k < rest.size(); ++k) {
    p.dims.offsetDims.push_back(nb + static_cast<int64_t>(k));
    p.gathered.push_back(p.sliceSizes[static_cast<size_t>(rest[k])]);
  }
  // NumPy: the indexed dimensions stand where the first indexed axis was when the
  // indexed axes are adjacent, and first otherwise.
  int64_t place = 0;
  const bool adjacent = !indexed.empty() && indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  if (adjacent) place = std::count_if(rest.begin(), rest.end(), [&](int64_t d) { return d < indexed.front(); });
  for (int64_t k = 0; k < place; ++k) p.toResult.push_back(nb + k);
  for (int64_t k = 0; k < nb; ++k) p.toResult.push_back(k);
  for (int64_t k = place; k < static_cast<int64_t>(rest.size()); ++k) p.toResult.push_back(nb + k);
  for (int64_t d : p.toResult) p.result.push_back(p.gathered[static_cast<size_t>(d)]);
  return p;
}

bool identity(const Dims& permutation) {
  for (size_t i = 0; i < permutation.size(); ++i)
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// x[index], x of r.shape (the new axes in place).
Value* read(Builder& b, Value* x, Resolved r, const std::vector<Value*>& arrays) {
  x = takeStrides(b, x, r);
  if (!r.hasArrays()) {  // a static slice, then the integer axes dropped
    Dims lo, hi, strides(r.shape.size(), 1);
    Shape kept;
    for (size_t d = 0; d < r.axes.size(); ++d) {
      const AxisIndex& a = r.axes[d];
      const int64_t start = a.kind == AxisIndex::Kind::Integer ? a.integer : a.start;
      const int64_t size = a.kind == AxisIndex::Kind::Whole ? r.shape[d] : a.kind == AxisIndex::Kind::Integer ? 1 : a.size;
      lo.push_back(start);
      hi.push_back(start + size);
      if (a.kind != AxisIndex::Kind::Integer) kept.push_back(size);
    }
    if (!std::equal(hi.begin(), hi.end(), r.shape.begin()) || std::any_of(lo.begin(), lo.end(), [](int64_t v) { return v; }))
      x = b.slice(x, lo, hi, strides);
    return x->type().shape() == kept ? x : b.reshape(x, kept);
  }
  GatherPlan p = planGather(b, r, arrays);
  Value* g = b.gather(x, p.indices, p.dims, p.sliceSizes);
  return identity(p.toResult) ? g : b.transpose(g, p.toResult);
}

enum class Mode { Set, Add, Multiply, Min, Max };

const char* nameOf(Mode m) {
  switch (m) {
    case Mode::Set: return "set";
    case Mode::Add: return "add";
    case Mode::Multiply: return "multiply";
    case Mode::Min: return "min";
    case Mode::Max: return "max";
  }
  return "?";
}

Value* combine(Builder& b, Mode m, Value* old, Value* update) {
  switch (m) {
    case Mode::Set: return update;
    case Mode::Add: return b.binary(ops::Add, old, update);
    case Mode::Multiply: return b.binary(ops::Multiply, old, update);
    case Mode::Min: return b.binary(ops::Minimum, old, update);
    case Mode::Max: return b.binary(ops::Maximum, old, update);
  }
  return update;
}

Value* scatterInto(Builder& b, Mode m, Value* x, Value* indices, Value* updates, const ScatterDims& dims) {
  return b.scatter({x}, indices, {updates}, dims, [&](Builder& rb, const std::vector<Value*>& args) {
    return std::vector<Value*>{combine(rb, m, args[0], args[1])};
  })[0];
}

// x with `update` (of any shape broadcasting to x[index]) applied at x[index].
Value* write(Builder& b, Mode m, Value* x, const Resolved& r, const std::vector<Value*>& arrays, Value* update) {
  const Shape original = x->type().shape();
  if (original != r.shape) x = b.reshape(x, r.shape);
  update = convertValue(b, update, x->type().dtype());
  Value* out;
  if (r.strided()) {
    // Through the flat positions: read the position of every element x[index] names
    // (the same read applied to an iota), then scatter to those positions of flat x.
    const int64_t n = x->type().numElements();
    const DType it = n > (int64_t{1} << 31) - 1 ? DType::I64 : DType::I32;
    Value* positions = b.reshape(b.iota(Type::tensor(it, {n}), 0), r.shape);
    Value* where = read(b, positions, r, arrays);
    const Shape picked = where->type().shape();
    const int64_t count = where->type().numElements();
    Value* updates = b.reshape(broadcastValue(b, update, picked), {count});
    ScatterDims dims;
    dims.insertedWindowDims = {0};
    dims.scatterDimsToOperandDims = {0};
    dims.indexVectorDim = 1;
    out = scatterInto(b, m, b.reshape(x, {n}), b.reshape(where, {count, 1}), updates, dims);
    out = b.reshape(out, r.shape);
  } else {
    bool everything = true;
    for (const AxisIndex& a : r.axes) everything = everything && a.kind == AxisIndex::Kind::Whole;
    if (everything) {  // x.at[...]: elementwise
      out = combine(b, m, x, broadcastValue(b, update, r.shape));
    } else {
      GatherPlan p = planGather(b, r, arrays);
      Value* updates = broadcastValue(b, update, p.result);
      if (!identity(p.toResult)) {
        Dims back(p.toResult.size());
        for (size_t k = 0; k < p.toResult.size(); ++k) back[static_cast<size_t>(p.toResult[k])] = static_cast<int64_t>(k);
        updates = b.transpose(updates, back);
      }
      out = scatterInto(b, m, x, p.indices, updates, p.dims.asScatter());
    }
  }
  return out->type().shape() == original ? out : b.reshape(out, original);
}

std::source_location siteOf(const std::vector<Index>& index) {
  return index.empty() ? std::source_location::current() : index.front().site;
}

// The inputs of an indexing op: the array, its index arrays, then any others.
std::vector<Array> inputsOf(const Array& x, const Resolved& r, std::vector<Array> more = {}) {
  std::vector<Array> in{x};
  in.insert(in.end(), r.arrays.begin(), r.arrays.end());
  in.insert(in.end(), more.begin(), more.end());
  return in;
}

Array indexRead(const Array& x, const std::vector<Index>& index) {
  return translated([&] {
    Resolved r = resolve(implOf(x).type.shape(), index);
    return emit1(inputsOf(x, r), siteOf(index), [&](Builder& b, const std::vector<Value*>& v) {
      Value* in = v[0]->type().shape() == r.shape ? v[0] : b.reshape(v[0], r.shape);
      return std::vector<Value*>{read(b, in, r, std::vector<Value*>(v.begin() + 1, v.end()))};
    }, implOf(x).weak);
  });
}

Array indexWrite(Mode m, const Array& x, const std::vector<Index>& index, const Array& update) {
  return translated([&] {
    Resolved r = resolve(implOf(x).type.shape(), index);
    Array u = withDtype(update, implOf(x).type.dtype());
    if (isComplex(implOf(u).type.dtype()) && !isComplex(implOf(x).type.dtype()))
      throw Error(ErrorKind::Type, std::string("at().") + nameOf(m) + ": complex updates of a " + x.type_string() +
                                       " array");
    return emit1(inputsOf(x, r, {u}), siteOf(index), [&](Builder& b, const std::vector<Value*>& v) {
      std::vector<Value*> arrays(v.begin() + 1, v.end() - 1);
      return std::vector<Value*>{write(b, m, v[0], r, arrays, v.back())};
    }, implOf(x).weak);
  });
}

}  // namespace

Array Array::operator[](const Index& index) const { return indexRead(*this, {index}); }
Array Array::operator[](const std::vector<Index>& index) const { return indexRead(*this, index); }
IndexUpdate Array::at(const Index& index) const { return IndexUpdate(*this, {index}); }
IndexUpdate Array::at(const std::vector<Index>& index) const { return IndexUpdate(*this, index); }

Array IndexUpdate::get() const { return indexRead(array_, index_); }
Array IndexUpdate::set(const Array& v) const { return indexWrite(Mode::Set, array_, index_, v); }
Array IndexUpdate::add(const Array& v) const { return indexWrite(Mode::Add, array_, index_, v); }
Array IndexUpdate::multiply(const Array& v) const { return indexWrite(Mode::Multiply, array_, index_, v); }
Array IndexUpdate::min(const Array& v) const { return indexWrite(Mode::Min, array_, index_, v); }
Array IndexUpdate::max(const Array& v) const { return indexWrite(Mode::Max, array_, index_, v); }

}  // namespace kiln
