// The values of a kernel (kernel_emitter.h): each op's value at an index of the
// iteration space. Elementwise ops compute from their operands' values at the same index
// (scalar_ir.h, the interpreter's arithmetic); index maps (broadcast_in_dim, reshape,
// transpose, slice, reverse, concatenate, pad, iota) ask their operand at the mapped
// index; a value in a buffer is loaded, and every value is computed once per index.
#include "backends/cpu/kernel_emitter.h"

#include "ir/attr_records.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "support/error.h"

namespace kiln::cpu {

llvm::Value* KernelEmitter::valueAt(const Value* v, Index& at) {
  auto key = std::make_pair(v, at.id);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  llvm::Value* result;
  if (auto it = buffer_.find(v); it != buffer_.end()) {
    result = load(v->type().dtype(), it->second, linearOf(at));
  } else {
    const Op* op = v->definingOp();
    if (!op) decline("internal: an argument without a buffer");
    if (op->numResults() != 1)
      decline("unsupported: " + std::string(op->name()) + " (no native code yet)");
    requireSupported(v->type());
    for (Value* operand : op->operands()) requireSupported(operand->type());
    result = s_.roundResult(*op, opAt(*op, at), v->type().dtype());
  }
  memo_[key] = result;
  return result;
}

llvm::Value* KernelEmitter::operandAt(const Op& op, size_t i, Index& at) {
  const Value* v = op.operand(i);
  if (v->type().rank() == 0 && !at.shape.empty()) {
    Index scalar = scalarIndex();
    return valueAt(v, scalar);
  }
  return valueAt(v, at);
}

llvm::Value* KernelEmitter::opAt(const Op& op, Index& at) {
  namespace O = ops;
  DType out = op.result()->type().dtype();
  switch (op.code()) {
    case O::Constant:
      return constantAt(op, at);
    case O::Iota: {
      llvm::Value* k = dimsOf(at)[static_cast<size_t>(op.attr("iota_dimension").asInt())];
      if (isComplex(out)) {  // k + 0i
        DType part = out == DType::C64 ? DType::F32 : DType::F64;
        return s_.convert(b_.CreateUIToFP(k, s_.registerType(part)), part, out);
      }
      return isFloat(out) ? b_.CreateUIToFP(k, s_.registerType(out))
                          : b_.CreateTrunc(k, s_.registerType(out));
    }
    case O::BroadcastInDim: {
      const Type& x = op.operand(0)->type();
      const std::vector<int64_t>& map = op.attr("broadcast_dimensions").asInts();
      std::vector<llvm::Value*> dims;
      for (int64_t d = 0; d < x.rank(); ++d)
        dims.push_back(x.dim(d) == 1
                           ? b_.getInt64(0)
                           : dimsOf(at)[static_cast<size_t>(map[static_cast<size_t>(d)])]);
      Index inner = withDims(x.shape(), std::move(dims));
      return valueAt(op.operand(0), inner);
    }
    case O::Broadcast: {
      const Type& x = op.operand(0)->type();
      size_t lead = at.shape.size() - static_cast<size_t>(x.rank());
      std::vector<llvm::Value*> dims(dimsOf(at).begin() + static_cast<std::ptrdiff_t>(lead),
                                     dimsOf(at).end());
      Index inner = withDims(x.shape(), std::move(dims));
      return valueAt(op.operand(0), inner);
    }
    case O::Reshape: {
      // The trailing dimensions a reshape keeps (the same sizes at the end of both shapes)
      // keep their coordinates, and only the leading ones are split anew: in a row loop
      // those are the row's, the same all along it, so the inner loop divides nothing
      // and still reads contiguously (BERT's [7, 3072] <-> [1, 7, 3072] epilogues).
      const Shape& from = op.operand(0)->type().shape();
      size_t kept = 0;
      while (kept < from.size() && kept < at.shape.size() &&
             from[from.size() - 1 - kept] == at.shape[at.shape.size() - 1 - kept])
        ++kept;
      if (kept == 0 || at.dims.empty()) {
        Index inner = newIndex(from);
        inner.linear = linearOf(at);
        return valueAt(op.operand(0), inner);
      }
      Index lead = withDims(Shape(at.shape.begin(), at.shape.end() - static_cast<std::ptrdiff_t>(kept)),
                            std::vector<llvm::Value*>(at.dims.begin(), at.dims.end() - static_cast<std::ptrdiff_t>(kept)));
      Index innerLead = newIndex(Shape(from.begin(), from.end() - static_cast<std::ptrdiff_t>(kept)));
      innerLead.linear = linearOf(lead);
      std::vector<llvm::Value*> dims = dimsOf(innerLead);
      dims.insert(dims.end(), at.dims.end() - static_cast<std::ptrdiff_t>(kept), at.dims.end());
      Index inner = withDims(from, std::move(dims));
      return valueAt(op.operand(0), inner);
    }
    case O::Transpose: {
      const std::vector<int64_t>& perm = op.attr("permutation").asInts();
      std::vector<llvm::Value*> dims(perm.size());
      for (size_t d = 0; d < perm.size(); ++d) dims[static_cast<size_t>(perm[d])] = dimsOf(at)[d];
      Index inner = withDims(op.operand(0)->type().shape(), std::move(dims));
      return valueAt(op.operand(0), inner);
    }
    case O::Slice: {
      const std::vector<int64_t>& start = op.attr("start_indices").asInts();
      const std::vector<int64_t>& strides = op.attr("strides").asInts();
      std::vector<llvm::Value*> dims;
      for (size_t d = 0; d < start.size(); ++d)
        dims.push_back(b_.CreateAdd(b_.getInt64(start[d]),
                                    b_.CreateMul(dimsOf(at)[d], b_.getInt64(strides[d]))));
      Index inner = withDims(op.operand(0)->type().shape(), std::move(dims));
      return valueAt(op.operand(0), inner);
    }
    case O::Reverse: {
      std::vector<llvm::Value*> dims = dimsOf(at);
      for (int64_t d : op.attr("dimensions").asInts())
        dims[static_cast<size_t>(d)] = b_.CreateSub(
            b_.getInt64(at.shape[static_cast<size_t>(d)] - 1), dims[static_cast<size_t>(d)]);
      Index inner = withDims(at.shape, std::move(dims));
      return valueAt(op.operand(0), inner);
    }
    case O::Concatenate:
      return concatenateAt(op, at);
    case O::Pad:
      return padAt(op, at);
    case O::Gather:
      return gatherAt(op, at);
    case O::DynamicSlice:
      return dynamicSliceAt(op, at);
    case O::DynamicUpdateSlice:
      return dynamicUpdateSliceAt(op, at);
    case O::Convert:
      return s_.convert(operandAt(op, 0, at), op.operand(0)->type().dtype(), out);
    case O::BitcastConvert: {
      requireReal(op.operand(0)->type(), "bitcast_convert");
      requireReal(op.result()->type(), "bitcast_convert");
      if (isSubByteInt(op.operand(0)->type().dtype()) || isSubByteInt(out))
        decline("unsupported: bitcast_convert of integers narrower than a byte");
      DType from = op.operand(0)->type().dtype();
      if (isBool(from) || isBool(out)) decline("unsupported: bitcast_convert of booleans");
      if (bitWidth(from) != bitWidth(out)) {
        // Between widths the result is the operand's bytes read as elements of the
        // other width (row-major, little-endian): an input buffer read in place.
        auto it = buffer_.find(op.operand(0));
        if (it == buffer_.end()) decline("unsupported: bitcast_convert between widths of a computed value");
        return load(out, it->second, linearOf(at));
      }
      // The same bits: through their storage form (f16 and bf16 live as f32 in registers).
      llvm::Value* bits = toStorage(operandAt(op, 0, at), from);
      llvm::Type* intType = b_.getIntNTy(static_cast<unsigned>(bitWidth(from)));
      if (bits->getType() != intType) bits = b_.CreateBitCast(bits, intType);
      if (isNarrowFloat(out)) return fromStorage(bits, out);
      return b_.CreateBitCast(bits, s_.registerType(out));
    }
    case O::ReducePrecision:
      return reducePrecisionAt(op, at);
    case O::DotGeneral:
    case O::Dot:
      return dotAt(op, at);
    case O::Convolution:
      return convolutionAt(op, at);
    case O::Compare:
      return s_.compare(op, operandAt(op, 0, at), operandAt(op, 1, at));
    case O::Select:
      return b_.CreateSelect(operandAt(op, 0, at), operandAt(op, 1, at), operandAt(op, 2, at));
    case O::Clamp: {
      requireReal(op.result()->type(), "clamp");
      llvm::Value* lo = operandAt(op, 0, at);
      llvm::Value* x = operandAt(op, 1, at);
      llvm::Value* hi = operandAt(op, 2, at);
      return s_.extremum(false, s_.extremum(true, x, lo, out), hi, out);
    }
    default:
      break;
  }
  if (!op.info().has(kElementwise))
    decline("unsupported: " + std::string(op.name()) + " (no native code yet)");
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < op.numOperands(); ++i) args.push_back(operandAt(op, i, at));
  DType t = op.operand(0)->type().dtype();
  return s_.elementwise(op, t, args);
}

llvm::Value* KernelEmitter::constantAt(const Op& op, Index& at) {
  const Literal& lit = op.attr("value").asDense();
  DType t = lit.dtype();
  if (lit.isSplat() || lit.numElements() == 1) return s_.constantOf(lit, 0);
  // A dense constant: a private global array in storage layout (complex numbers as
  // their parts, real then imaginary).
  llvm::Type* element = isComplex(t) ? s_.storageType(t)->getStructElementType(0) : s_.storageType(t);
  llvm::Constant* data = llvm::ConstantDataArray::getRaw(
      llvm::StringRef(reinterpret_cast<const char*>(lit.storage()), lit.storageSize()),
      static_cast<uint64_t>(lit.numElements() * (isComplex(t) ? 2 : 1)), element);
  auto* global = new llvm::GlobalVariable(module_, data->getType(), true,
                                          llvm::GlobalValue::PrivateLinkage, data);
  global->setAlignment(llvm::Align(64));
  return load(t, global, linearOf(at));
}

llvm::Value* KernelEmitter::concatenateAt(const Op& op, Index& at) {
  size_t axis = static_cast<size_t>(op.attr("dimension").asInt());
  llvm::Value* k = dimsOf(at)[axis];
  llvm::Value* result = nullptr;
  int64_t offset = 0;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    const Type& t = op.operand(i)->type();
    int64_t size = t.dim(static_cast<int64_t>(axis));
    if (size == 0) continue;
    std::vector<llvm::Value*> dims = dimsOf(at);
    dims[axis] = clampIndex(b_.CreateSub(k, b_.getInt64(offset)), size);
    Index inner = withDims(t.shape(), std::move(dims));
    llvm::Value* v = valueAt(op.operand(i), inner);
    result = result ? b_.CreateSelect(b_.CreateICmpSLT(k, b_.getInt64(offset)), result, v) : v;
    offset += size;
  }
  return result;
}

std::vector<llvm::Value*> KernelEmitter::scalarRegion(const Region& region,
                                                      const std::vector<llvm::Value*>& args) {
  std::unordered_map<const Value*, llvm::Value*> values;
  for (size_t i = 0; i < region.numArguments(); ++i) values[region.argument(i)] = args[i];
  auto get = [&](const Value* v) {
    auto it = values.find(v);
    if (it != values.end()) return it->second;
    // A scalar constant from outside (CSE merges a region's constants with the
    // function's) is still a constant here.
    const Op* def = v->definingOp();
    if (def && def->is(ops::Constant) && v->type().rank() == 0) {
      requireSupported(v->type());
      return values[v] = s_.constantOf(def->attr("value").asDense(), 0);
    }
    decline("unsupported: a region reading a value from outside");
  };
  for (const auto& op : region.ops()) {
    if (op->info().isTerminator()) {
      std::vector<llvm::Value*> out;
      for (const Value* v : op->operands()) out.push_back(get(v));
      return out;
    }
    if (op->numResults() != 1 || op->result()->type().rank() != 0)
      decline("unsupported: " + std::string(op->name()) + " in a region compiled to scalar code");
    DType t = op->result()->type().dtype();
    requireSupported(op->result()->type());
    llvm::Value* v;
    if (op->is(ops::Constant)) {
      v = s_.constantOf(op->attr("value").asDense(), 0);
    } else if (op->is(ops::Compare)) {
      v = s_.compare(*op, get(op->operand(0)), get(op->operand(1)));
    } else if (op->is(ops::Select)) {
      v = b_.CreateSelect(get(op->operand(0)), get(op->operand(1)), get(op->operand(2)));
    } else if (op->info().has(kElementwise)) {
      std::vector<llvm::Value*> xs;
      for (const Value* x : op->operands()) xs.push_back(get(x));
      v = s_.roundResult(*op, s_.elementwise(*op, op->operand(0)->type().dtype(), xs), t);
    } else {
      decline("unsupported: " + std::string(op->name()) + " in a region compiled to scalar code");
    }
    values[op->result()] = v;
  }
  decline("internal: a region without a terminator");
}

llvm::Value* KernelEmitter::padAt(const Op& op, Index& at) {
  const Type& x = op.operand(0)->type();
  const std::vector<int64_t>& low = op.attr("edge_padding_low").asInts();
  const std::vector<int64_t>& interior = op.attr("interior_padding").asInts();
  Index scalar = scalarIndex();
  llvm::Value* fill = valueAt(op.operand(1), scalar);
  if (x.numElements() == 0) return fill;
  llvm::Value* inside = b_.getTrue();
  std::vector<llvm::Value*> dims;
  for (size_t d = 0; d < low.size(); ++d) {
    llvm::Value* p = b_.CreateSub(dimsOf(at)[d], b_.getInt64(low[d]));
    llvm::Value* step = b_.getInt64(interior[d] + 1);
    llvm::Value* pos = b_.CreateSelect(b_.CreateICmpSLT(p, b_.getInt64(0)), b_.getInt64(0), p);
    llvm::Value* q = b_.CreateUDiv(pos, step);
    inside = b_.CreateAnd(inside, b_.CreateICmpSGE(p, b_.getInt64(0)));
    inside = b_.CreateAnd(inside, b_.CreateICmpEQ(b_.CreateURem(pos, step), b_.getInt64(0)));
    inside = b_.CreateAnd(inside, b_.CreateICmpSLT(q, b_.getInt64(x.dim(static_cast<int64_t>(d)))));
    dims.push_back(clampIndex(q, x.dim(static_cast<int64_t>(d))));
  }
  Index inner = withDims(x.shape(), std::move(dims));
  return b_.CreateSelect(inside, valueAt(op.operand(0), inner), fill);
}

// The interpreter's reduce_precision (interp/ops/conversion.cc: XLA's) on the bits of
// the operand's own format: the mantissa rounded to nearest even, then overflow to inf
// and underflow to zero outside the reduced exponent range; NaN stays NaN (or becomes
// inf when no mantissa bits are left).
llvm::Value* KernelEmitter::reducePrecisionAt(const Op& op, Index& at) {
  const DType t = op.result()->type().dtype();
  if (!isFloat(t)) decline("unsupported: stablehlo.reduce_precision of " + std::string(name(t)));
  const FloatFormat& f = info(t).format;
  const int e = static_cast<int>(op.attr("exponent_bits").asInt());
  const int m = static_cast<int>(op.attr("mantissa_bits").asInt());
  const int total = f.totalBits();
  llvm::Type* it = b_.getIntNTy(static_cast<unsigned>(total));
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(it, v); };
  llvm::Value* original = toStorage(operandAt(op, 0, at), t);
  if (original->getType() != it) original = b_.CreateBitCast(original, it);
  const uint64_t signMask = uint64_t{1} << (total - 1);
  const uint64_t expMask = ((uint64_t{1} << f.exponentBits) - 1) << f.mantissaBits;
  const uint64_t mantMask = (uint64_t{1} << f.mantissaBits) - 1;
  llvm::Value* isNan = b_.CreateAnd(b_.CreateICmpEQ(b_.CreateAnd(original, c(expMask)), c(expMask)),
                                    b_.CreateICmpNE(b_.CreateAnd(original, c(mantMask)), c(0)));
  llvm::Value* x = original;
  if (m < f.mantissaBits) {
    const int drop = f.mantissaBits - m;
    const uint64_t lastBit = uint64_t{1} << drop;
    llvm::Value* bias = b_.CreateAdd(c((lastBit >> 1) - 1), b_.CreateLShr(b_.CreateAnd(x, c(lastBit)), c(drop)));
    x = b_.CreateAnd(b_.CreateAdd(x, bias), c(~(lastBit - 1)));
  }
  if (e < f.exponentBits) {
    const int64_t expBias = (int64_t{1} << (f.exponentBits - 1)) - 1;
    const int64_t reducedBias = (int64_t{1} << (e - 1)) - 1;
    const uint64_t maxExp = static_cast<uint64_t>(expBias + reducedBias) << f.mantissaBits;
    const uint64_t minExp = static_cast<uint64_t>(expBias - reducedBias) << f.mantissaBits;
    llvm::Value* exp = b_.CreateAnd(x, c(expMask));
    llvm::Value* sign = b_.CreateAnd(x, c(signMask));
    x = b_.CreateSelect(b_.CreateICmpUGT(exp, c(maxExp)), b_.CreateOr(sign, c(expMask)),
                        b_.CreateSelect(b_.CreateICmpULE(exp, c(minExp)), sign, x));
  }
  llvm::Value* nan = m > 0 ? original : b_.CreateOr(b_.CreateAnd(original, c(signMask)), c(expMask));
  x = b_.CreateSelect(isNan, nan, x);
  if (isNarrowFloat(t)) return fromStorage(x, t);
  return b_.CreateBitCast(x, s_.registerType(t));
}

}  // namespace kiln::cpu
