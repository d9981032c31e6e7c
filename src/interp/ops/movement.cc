// Kernels: data movement (broadcast, reshape, transpose, reverse, slices, concatenate,
// pad, iota, ...). Most are affine index maps from result to operand and share one copy
// loop over raw storage bytes; the dynamic_* forms with static result types read their
// shape operands only to check them against the result type.
#include <algorithm>

#include "interp/ops/movement.h"
#include "ir/ops/stablehlo.h"

namespace kiln::interp {

std::vector<int64_t> indexList(const Literal& lit) {
  std::vector<int64_t> out(static_cast<size_t>(lit.numElements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = indexAt(lit, static_cast<int64_t>(i));
  return out;
}

void copyBlock(const ElementCopier& copier, const Shape& shape, int64_t dstBase,
               const std::vector<int64_t>& dstStrides, int64_t srcBase,
               const std::vector<int64_t>& srcStrides) {
  if (numElements(shape) == 0) return;
  const size_t rank = shape.size();
  if (rank == 0) {
    copier.copy(dstBase, srcBase);
    return;
  }
  // Rows of the last dimension at a time; the outer index advances like an odometer,
  // keeping both offsets in step.
  const int64_t inner = shape.back();
  const int64_t dstInner = dstStrides.back(), srcInner = srcStrides.back();
  const bool contiguous = dstInner == 1 && srcInner == 1;
  std::vector<int64_t> index(rank, 0);
  int64_t dst = dstBase, src = srcBase;
  for (;;) {
    if (contiguous) {
      copier.copyRun(dst, src, inner);
    } else {
      for (int64_t k = 0; k < inner; ++k) copier.copy(dst + k * dstInner, src + k * srcInner);
    }
    size_t d = rank - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < shape[d]) {
        dst += dstStrides[d];
        src += srcStrides[d];
        break;
      }
      dst -= dstStrides[d] * (shape[d] - 1);
      src -= srcStrides[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
}

Literal affineCopy(const Literal& src, const Type& resultType, int64_t base,
                   const std::vector<int64_t>& srcStrides) {
  if (src.isSplat()) return Literal::splat(resultType, src.storage());
  Literal out(resultType);
  if (out.numElements() == 0) return out;
  copyBlock(ElementCopier(src, out), resultType.shape(), 0, stridesOf(resultType.shape()), base,
            srcStrides);
  return out;
}

namespace {

const Type& resultType(const Op& op) { return op.result(0)->type(); }

std::string listStr(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// The dynamic_* ops: the shape operand must describe the (static) result type.
void checkShapeOperand(const Op& op, const Literal& shapeOperand, const char* what) {
  std::vector<int64_t> dims = indexList(shapeOperand);
  if (dims != resultType(op).shape())
    runtimeError(op, std::string(what) + " " + listStr(dims) + " does not match the result type " +
                         resultType(op).str());
}

// ---- broadcasts ----

Literal broadcastInDim(const Literal& operand, const Type& type, const std::vector<int64_t>& dims) {
  std::vector<int64_t> opStrides = stridesOf(operand.shape());
  std::vector<int64_t> strides(static_cast<size_t>(type.rank()), 0);
  for (size_t d = 0; d < dims.size(); ++d)
    if (operand.shape()[d] != 1) strides[static_cast<size_t>(dims[d])] = opStrides[d];
  return affineCopy(operand, type, 0, strides);
}

HostValues broadcastInDimKernel(const Op& op, const HostValues& v, EvalContext&) {
  return {broadcastInDim(v[0].tensor(), resultType(op), op.attr("broadcast_dimensions").asInts())};
}

HostValues dynamicBroadcastInDim(const Op& op, const HostValues& v, EvalContext&) {
  checkShapeOperand(op, v[1].tensor(), "output_dimensions");
  return {broadcastInDim(v[0].tensor(), resultType(op), op.attr("broadcast_dimensions").asInts())};
}

// broadcast: the result shape is broadcast_sizes followed by the operand's shape.
HostValues broadcast(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& operand = v[0].tensor();
  std::vector<int64_t> strides(op.attr("broadcast_sizes").asInts().size(), 0);
  for (int64_t s : stridesOf(operand.shape())) strides.push_back(s);
  return {affineCopy(operand, resultType(op), 0, strides)};
}

// ---- reshape, transpose, reverse ----

// Row-major order is unchanged: the same elements under another shape.
Literal reshapeTo(const Literal& operand, const Type& type) {
  if (operand.isSplat()) return Literal::splat(type, operand.storage());
  return Literal::fromStorage(
      type, std::vector<uint8_t>(operand.storage(), operand.storage() + operand.storageSize()));
}

HostValues reshape(const Op& op, const HostValues& v, EvalContext&) {
  return {reshapeTo(v[0].tensor(), resultType(op))};
}

HostValues dynamicReshape(const Op& op, const HostValues& v, EvalContext&) {
  checkShapeOperand(op, v[1].tensor(), "output_shape");
  return {reshapeTo(v[0].tensor(), resultType(op))};
}

// result[i] = operand[i[inverse(permutation)]]: result dim d walks operand dim perm[d].
HostValues transpose(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& operand = v[0].tensor();
  std::vector<int64_t> opStrides = stridesOf(operand.shape());
  std::vector<int64_t> strides;
  for (int64_t p : op.attr("permutation").asInts()) strides.push_back(opStrides[static_cast<size_t>(p)]);
  return {affineCopy(operand, resultType(op), 0, strides)};
}

HostValues reverse(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& operand = v[0].tensor();
  std::vector<int64_t> strides = stridesOf(operand.shape());
  int64_t base = 0;
  for (int64_t d : op.attr("dimensions").asInts()) {
    size_t k = static_cast<size_t>(d);
    base += (operand.shape()[k] - 1) * strides[k];
    strides[k] = -strides[k];
  }
  if (operand.numElements() == 0) base = 0;
  return {affineCopy(operand, resultType(op), base, strides)};
}

// ---- slices ----

HostValues slice(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& operand = v[0].tensor();
  const std::vector<int64_t>& start = op.attr("start_indices").asInts();
  const std::vector<int64_t>& step = op.attr("strides").asInts();
  std::vector<int64_t> strides = stridesOf(operand.shape());
  int64_t base = 0;
  for (size_t d = 0; d < strides.size(); ++d) {
    base += start[d] * strides[d];
    strides[d] *= step[d];
  }
  return {affineCopy(operand, resultType(op), base, strides)};
}

// The start of a slice of `size` in a dimension of `dim`, clamped to [0, dim - size].
int64_t clampStart(int64_t start, int64_t dim, int64_t size) {
  return std::clamp<int64_t>(start, 0, std::max<int64_t>(dim - size, 0));
}

HostValues dynamicSlice(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& operand = v[0].tensor();
  const std::vector<int64_t>& sizes = op.attr("slice_sizes").asInts();
  std::vector<int64_t> strides = stridesOf(operand.shape());
  int64_t base = 0;
  for (size_t d = 0; d < strides.size(); ++d)
    base += clampStart(indexAt(v[1 + d].tensor(), 0), operand.shape()[d], sizes[d]) * strides[d];
  if (resultType(op).numElements() == 0) base = 0;
  return {affineCopy(operand, resultType(op), base, strides)};
}

HostValues dynamicUpdateSlice(const Op& op, const HostValues& v, EvalContext&) {
  Literal out = v[0].tensor();
  const Literal& update = v[1].tensor();
  const Shape& shape = out.shape();
  const Shape& ushape = update.shape();
  if (update.numElements() == 0) return {std::move(out)};
  std::vector<int64_t> strides = stridesOf(shape);
  int64_t base = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    base += clampStart(indexAt(v[2 + d].tensor(), 0), shape[d], ushape[d]) * strides[d];
  copyBlock(ElementCopier(update, out), ushape, base, strides, 0, stridesOf(ushape));
  return {std::move(out)};
}

// ---- concatenate, pad ----

HostValues concatenate(const Op& op, const HostValues& v, EvalContext&) {
  const Type& type = resultType(op);
  Literal out(type);
  if (out.numElements() == 0) return {std::move(out)};
  const size_t dim = static_cast<size_t>(op.attr("dimension").asInt());
  // Each input contributes a contiguous chunk to every row of the dimensions before `dim`.
  int64_t outer = 1;
  for (size_t d = 0; d < dim; ++d) outer *= type.shape()[d];
  const int64_t row = out.numElements() / outer;
  int64_t offset = 0;
  for (const HostValue& input : v) {
    const Literal& in = input.tensor();
    const int64_t chunk = outer == 0 ? 0 : in.numElements() / outer;
    if (chunk == 0) continue;
    ElementCopier copier(in, out);
    for (int64_t o = 0; o < outer; ++o) copier.copyRun(o * row + offset, o * chunk, chunk);
    offset += chunk;
  }
  return {std::move(out)};
}

// result[low + i * (interior + 1)] = operand[i] where in bounds; padding elsewhere.
// Negative edge padding drops the operand elements that land outside.
Literal padTo(const Literal& operand, const Literal& padding, const Type& type,
              const std::vector<int64_t>& low, const std::vector<int64_t>& interior) {
  Literal out = Literal::splat(type, padding.storage());
  if (out.numElements() == 0 || operand.numElements() == 0) return out;
  ElementCopier copier(operand, out);
  const Shape& shape = operand.shape();
  const Shape& outShape = type.shape();
  std::vector<int64_t> outStrides = stridesOf(outShape);
  std::vector<int64_t> index(shape.size(), 0);
  int64_t src = 0;
  do {
    int64_t dst = 0;
    bool inside = true;
    for (size_t d = 0; d < shape.size() && inside; ++d) {
      int64_t r = low[d] + index[d] * (interior[d] + 1);
      inside = r >= 0 && r < outShape[d];
      dst += r * outStrides[d];
    }
    if (inside) copier.copy(dst, src);
    ++src;
  } while (nextIndex(index, shape));
  return out;
}

HostValues pad(const Op& op, const HostValues& v, EvalContext&) {
  return {padTo(v[0].tensor(), v[1].tensor(), resultType(op), op.attr("edge_padding_low").asInts(),
                op.attr("interior_padding").asInts())};
}

// dynamic_pad: the paddings are operands; they still place the elements, and together
// with the operand's shape they must give the result shape.
HostValues dynamicPad(const Op& op, const HostValues& v, EvalContext&) {
  const Literal& operand = v[0].tensor();
  std::vector<int64_t> low = indexList(v[2].tensor());
  std::vector<int64_t> high = indexList(v[3].tensor());
  std::vector<int64_t> interior = indexList(v[4].tensor());
  const Shape& shape = operand.shape();
  if (low.size() != shape.size() || high.size() != shape.size() || interior.size() != shape.size())
    runtimeError(op, "padding sizes do not match the operand rank");
  Shape expected;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (interior[d] < 0) runtimeError(op, "negative interior padding " + listStr(interior));
    expected.push_back(shape[d] + low[d] + std::max<int64_t>(shape[d] - 1, 0) * interior[d] + high[d]);
  }
  if (expected != resultType(op).shape())
    runtimeError(op, "the paddings give shape " + listStr(expected) + ", not the result type " +
                         resultType(op).str());
  return {padTo(operand, v[1].tensor(), resultType(op), low, interior)};
}

// ---- iota, get_dimension_size ----

Literal iotaOf(const Type& type, int64_t dim) {
  Literal out(type);
  const int64_t n = out.numElements();
  if (n == 0) return out;
  const int64_t stride = stridesOf(type.shape())[static_cast<size_t>(dim)];
  const int64_t size = type.dim(dim);
  visitDType(type.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Writer<T> w(out);
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = (i / stride) % size;
      if constexpr (kIsComplex<T>) w.set(i, T(static_cast<typename T::value_type>(k), 0));
      else w.set(i, static_cast<T>(k));
    }
  });
  return out;
}

HostValues iota(const Op& op, const HostValues&, EvalContext&) {
  return {iotaOf(resultType(op), op.attr("iota_dimension").asInt())};
}

HostValues dynamicIota(const Op& op, const HostValues& v, EvalContext&) {
  checkShapeOperand(op, v[0].tensor(), "output_shape");
  return {iotaOf(resultType(op), op.attr("iota_dimension").asInt())};
}

HostValues getDimensionSize(const Op& op, const HostValues& v, EvalContext&) {
  Literal out(resultType(op));
  out.setInt(0, v[0].tensor().type().dim(op.attr("dimension").asInt()));
  return {std::move(out)};
}

// ---- torch_index_select ----

// result[b..., pre..., j..., post...] = input[b..., pre..., indices[b..., j...], post...]:
// the first batch_dims dimensions are shared by input and indices, and the selected
// dimension `dim` of the input is replaced by the remaining dimensions of the indices.
// Indices are clamped into the dimension, like the gather this op lowers to.
HostValues torchIndexSelect(const Op& op, const HostValues& v, EvalContext& ctx) {
  const Literal& input = v[0].tensor();
  const Literal& indices = v[1].tensor();
  const Type& type = resultType(op);
  Literal out(type);
  if (out.numElements() == 0) return {std::move(out)};
  const int64_t rank = input.type().rank();
  const int64_t indexRank = indices.type().rank();
  int64_t dim = op.attr("dim").asInt();
  int64_t batchDims = op.attr("batch_dims").asInt();
  if (dim < 0) dim += rank;
  if (batchDims < 0) batchDims += indexRank;
  const int64_t selected = indexRank - batchDims;  // result dims that come from the indices
  std::vector<int64_t> inStrides = stridesOf(input.shape());
  std::vector<int64_t> idxStrides = stridesOf(indices.shape());
  ElementCopier copier(input, out);
  std::vector<int64_t> r(static_cast<size_t>(type.rank()), 0);
  int64_t dst = 0;
  do {
    if ((dst & 4095) == 4095) ctx.checkTime();
    int64_t idx = 0;
    for (int64_t d = 0; d < batchDims; ++d) idx += r[static_cast<size_t>(d)] * idxStrides[static_cast<size_t>(d)];
    for (int64_t k = 0; k < selected; ++k)
      idx += r[static_cast<size_t>(dim + k)] * idxStrides[static_cast<size_t>(batchDims + k)];
    int64_t sel = std::clamp<int64_t>(indexAt(indices, idx), 0, input.type().dim(dim) - 1);
    int64_t src = sel * inStrides[static_cast<size_t>(dim)];
    for (int64_t d = 0; d < dim; ++d) src += r[static_cast<size_t>(d)] * inStrides[static_cast<size_t>(d)];
    for (int64_t d = dim + 1; d < rank; ++d)
      src += r[static_cast<size_t>(d - 1 + selected)] * inStrides[static_cast<size_t>(d)];
    copier.copy(dst++, src);
  } while (nextIndex(r, type.shape()));
  return {std::move(out)};
}

}  // namespace

void addMovementKernels(KernelTable& t) {
  t.set(ops::BroadcastInDim, &broadcastInDimKernel);
  t.set(ops::DynamicBroadcastInDim, &dynamicBroadcastInDim);
  t.set(ops::Broadcast, &broadcast);
  t.set(ops::Reshape, &reshape);
  t.set(ops::DynamicReshape, &dynamicReshape);
  t.set(ops::Transpose, &transpose);
  t.set(ops::Reverse, &reverse);
  t.set(ops::Slice, &slice);
  t.set(ops::DynamicSlice, &dynamicSlice);
  t.set(ops::DynamicUpdateSlice, &dynamicUpdateSlice);
  t.set(ops::Concatenate, &concatenate);
  t.set(ops::Pad, &pad);
  t.set(ops::DynamicPad, &dynamicPad);
  t.set(ops::Iota, &iota);
  t.set(ops::DynamicIota, &dynamicIota);
  t.set(ops::GetDimensionSize, &getDimensionSize);
  t.set(ops::TorchIndexSelect, &torchIndexSelect);
}

}  // namespace kiln::interp
