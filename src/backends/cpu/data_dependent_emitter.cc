// Ops whose reads or writes depend on data, as LLVM IR (kernel_emitter.h): gather and
// dynamic slices read their starts from tensors (clamped as the spec says); scatter and
// select_and_scatter apply their updates in the interpreter's order in one iteration;
// sort hands each line to a C++ runtime kernel with its comparator compiled, and
// rng_bit_generator its draws to the generators the interpreter runs.
#include <algorithm>

#include "backends/cpu/kernel_emitter.h"
#include "backends/cpu/runtime_kernels.h"
#include "ir/attr_records.h"
#include "kernels/random_bits.h"

namespace kiln::cpu {

int64_t KernelEmitter::emitSort() {
  const Op& op = root_;
  const size_t n = op.numOperands();
  const Shape& shape = op.operand(0)->type().shape();
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t dim = op.attrOrDefault("dimension").asInt();
  if (dim < 0) dim += rank;
  const int64_t length = rank == 0 ? 1 : shape[static_cast<size_t>(dim)];
  int64_t stride = 1;
  for (int64_t d = dim + 1; d < rank; ++d) stride *= shape[static_cast<size_t>(d)];
  const int64_t total = numElements(shape);
  const int64_t lines = length == 0 ? 0 : total / length;

  // The comparator: loads element a and b of every operand, runs the region on them.
  llvm::Type* ptr = b_.getPtrTy();
  auto* lessType =
      llvm::FunctionType::get(b_.getInt32Ty(), {ptr, b_.getInt64Ty(), b_.getInt64Ty()}, false);
  auto* less =
      llvm::Function::Create(lessType, llvm::Function::PrivateLinkage, name_ + "_less", module_);
  less->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::BasicBlock* kernelBlock = b_.GetInsertBlock();
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", less));
  std::vector<llvm::Value*> args;
  for (size_t k = 0; k < n; ++k) {
    DType t = op.operand(k)->type().dtype();
    llvm::Value* base = loadPointer(less->getArg(0), k);
    args.push_back(load(t, base, less->getArg(1)));
    args.push_back(load(t, base, less->getArg(2)));
  }
  llvm::Value* first = scalarRegion(op.region(0), args).at(0);
  b_.CreateRet(b_.CreateZExt(first, b_.getInt32Ty()));
  b_.SetInsertPoint(kernelBlock);

  std::vector<uint64_t> bytes;
  for (size_t k = 0; k < n; ++k)
    bytes.push_back(static_cast<uint64_t>(storageBytes(op.operand(k)->type().dtype())));
  auto* sizes = new llvm::GlobalVariable(
      module_, llvm::ArrayType::get(b_.getInt64Ty(), n), true, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint64_t>(bytes)));
  auto* lineType = llvm::FunctionType::get(
      b_.getVoidTy(),
      {ptr, b_.getInt64Ty(), ptr, b_.getInt64Ty(), b_.getInt64Ty(), b_.getInt64Ty(), ptr}, false);
  llvm::FunctionCallee sortLine = module_.getOrInsertFunction("kilnSortLine", lineType);
  forRange(fn_->getArg(1), fn_->getArg(2), [&](llvm::Value* line) {
    b_.CreateCall(sortLine,
                  {fn_->getArg(0), line, less, b_.getInt64(static_cast<int64_t>(n)),
                   b_.getInt64(length), b_.getInt64(stride), sizes});
  });
  return lines;
}

int64_t KernelEmitter::emitRngBitGenerator(const std::vector<const Value*>& inputs,
                                           const std::vector<const Value*>& outputs) {
  const Op& op = root_;
  std::optional<kernels::RngBitsLayout> layout = kernels::RngBitsLayout::of(
      rngAlgorithmOf(op.attr("rng_algorithm")), op.operand(0)->type(), op.result(1)->type());
  if (!layout) decline("unsupported: rng_bit_generator of elements other than 8, 16, 32 or 64 bits wide");
  if (std::optional<std::string> problem = kernels::rngStateProblem(*layout))
    decline("unsupported: rng_bit_generator: " + *problem);
  beginFunction(inputs, outputs);
  // The layout as the runtime kernel reads it.
  std::vector<uint64_t> words = {static_cast<uint64_t>(layout->algorithm), static_cast<uint64_t>(layout->stateWidth),
                                 static_cast<uint64_t>(layout->stateElements),
                                 static_cast<uint64_t>(layout->outWidth), layout->outShape.size()};
  for (int64_t d : layout->outShape) words.push_back(static_cast<uint64_t>(d));
  auto* described = new llvm::GlobalVariable(
      module_, llvm::ArrayType::get(b_.getInt64Ty(), words.size()), true, llvm::GlobalValue::PrivateLinkage,
      llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint64_t>(words)));
  llvm::Type* ptr = b_.getPtrTy();
  llvm::FunctionCallee rngBits = module_.getOrInsertFunction(
      "kilnRngBits", llvm::FunctionType::get(b_.getVoidTy(), {ptr, b_.getInt64Ty(), b_.getInt64Ty(), ptr}, false));
  b_.CreateCall(rngBits, {fn_->getArg(0), fn_->getArg(1), fn_->getArg(2), described});
  return std::max<int64_t>(1, kernels::rngDraws(*layout));
}

void KernelEmitter::emitSelectAndScatter(llvm::Value* result) {
  for (const Value* v : root_.operands()) requireReal(v->type(), "select_and_scatter");
  const Op& op = root_;
  const Shape& shape = op.operand(0)->type().shape();
  const Shape& source = op.operand(1)->type().shape();
  const DType t = op.result()->type().dtype();
  const DType ot = op.operand(0)->type().dtype();
  if (op.operand(1)->type().dtype() != t || op.region(1).argument(0)->type().dtype() != t ||
      op.region(0).argument(0)->type().dtype() != ot)
    decline("unsupported: stablehlo.select_and_scatter with promoted element types");
  const Window w = Window::ofReduceWindow(op, static_cast<int64_t>(shape.size()));
  const Op& combine = bodyOp(op.region(1));
  Index scalar = scalarIndex();
  llvm::Value* init = valueAt(op.operand(2), scalar);
  forRange(b_.getInt64(0), b_.getInt64(numElements(shape)),
           [&](llvm::Value* i) { store(init, t, result, i); });
  if (numElements(source) == 0 || numElements(shape) == 0) return;
  llvm::Type* it = b_.getInt64Ty();
  llvm::Value* pickAt = entryAlloca(it, 1);  // linear index of the pick, -1: none yet
  llvm::Value* pickValue = entryAlloca(s_.registerType(ot), 1);
  forRange(b_.getInt64(0), b_.getInt64(numElements(source)), [&](llvm::Value* sLinear) {
    Index si = newIndex(source);
    si.linear = sLinear;
    b_.CreateStore(b_.getInt64(-1), pickAt);
    b_.CreateStore(llvm::Constant::getNullValue(s_.registerType(ot)), pickValue);
    forWindow(numElements(w.dimensions), [&](llvm::Value* k) {
      Index wi = newIndex(w.dimensions);
      wi.linear = k;
      llvm::Value* inside = nullptr;
      Index element = windowElement(w, shape, si, wi, inside);
      llvm::Value* x = valueAt(op.operand(0), element);
      llvm::Value* at = b_.CreateLoad(it, pickAt);
      llvm::Value* none = b_.CreateICmpSLT(at, b_.getInt64(0));
      llvm::Value* keep =
          scalarRegion(op.region(0), {b_.CreateLoad(s_.registerType(ot), pickValue), x}).at(0);
      // Take the candidate when nothing is picked yet or the pick does not win.
      llvm::Value* take = b_.CreateAnd(inside, b_.CreateOr(none, b_.CreateNot(keep)));
      b_.CreateStore(b_.CreateSelect(take, linearOf(element), at), pickAt);
      b_.CreateStore(b_.CreateSelect(take, x, b_.CreateLoad(s_.registerType(ot), pickValue)),
                     pickValue);
    });
    llvm::Value* at = b_.CreateLoad(it, pickAt);
    auto* apply = llvm::BasicBlock::Create(ctx_, "apply", fn_);
    auto* next = llvm::BasicBlock::Create(ctx_, "next", fn_);
    b_.CreateCondBr(b_.CreateICmpSGE(at, b_.getInt64(0)), apply, next);
    b_.SetInsertPoint(apply);
    llvm::Value* x = valueAt(op.operand(1), si);
    const Region& body = op.region(1);
    auto arg = [&](size_t i) {
      return combine.operand(i) == body.argument(0) ? load(t, result, at) : x;
    };
    store(s_.roundResult(combine, s_.elementwise(combine, t, {arg(0), arg(1)}), t), t, result, at);
    b_.CreateBr(next);
    b_.SetInsertPoint(next);
  });
}

void KernelEmitter::emitScatter(llvm::Value* result) {
  for (const Value* v : root_.operands()) requireReal(v->type(), "scatter");
  const Op& op = root_;
  if (op.numOperands() != 3) decline("unsupported: stablehlo.scatter of several inputs");
  const ScatterDims dn = ScatterDims::fromAttr(op.attr("scatter_dimension_numbers"));
  const Shape& shape = op.operand(0)->type().shape();
  const Type& indices = op.operand(1)->type();
  const Shape& updates = op.operand(2)->type().shape();
  const DType t = op.result()->type().dtype();
  const Region& body = op.region(0);
  if (op.operand(2)->type().dtype() != t || body.argument(0)->type().dtype() != t)
    decline("unsupported: stablehlo.scatter with promoted element types");
  const Op* combine = nullptr;  // null: the body returns the update
  if (!(body.size() == 1 && body.terminator()->operand(0) == body.argument(1)))
    combine = &bodyOp(op.region(0));
  auto has = [](const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };

  forRange(b_.getInt64(0), b_.getInt64(numElements(shape)), [&](llvm::Value* i) {
    Index at = newIndex(shape);
    at.linear = i;
    store(valueAt(op.operand(0), at), t, result, i);
  });
  if (numElements(updates) == 0 || numElements(shape) == 0) return;
  Shape scatterShape, windowShape;
  for (size_t d = 0; d < updates.size(); ++d)
    (has(dn.updateWindowDims, static_cast<int64_t>(d)) ? windowShape : scatterShape)
        .push_back(updates[d]);
  forRange(b_.getInt64(0), b_.getInt64(numElements(scatterShape)), [&](llvm::Value* sLinear) {
    Index si = newIndex(scatterShape);
    si.linear = sLinear;
    const std::vector<llvm::Value*> sc = dimsOf(si);
    auto batchOf = [&](int64_t d) {
      return sc[static_cast<size_t>(d < dn.indexVectorDim ? d : d - 1)];
    };
    std::vector<llvm::Value*> start(shape.size(), b_.getInt64(0));
    for (size_t k = 0; k < dn.scatterDimsToOperandDims.size(); ++k) {
      std::vector<llvm::Value*> dims;
      for (int64_t d = 0; d < indices.rank(); ++d)
        dims.push_back(d == dn.indexVectorDim ? b_.getInt64(static_cast<int64_t>(k)) : batchOf(d));
      Index ii = withDims(indices.shape(), std::move(dims));
      start[static_cast<size_t>(dn.scatterDimsToOperandDims[k])] =
          indexValue(valueAt(op.operand(1), ii), indices.dtype());
    }
    for (size_t i = 0; i < dn.inputBatchingDims.size(); ++i)
      start[static_cast<size_t>(dn.inputBatchingDims[i])] =
          batchOf(dn.scatterIndicesBatchingDims[i]);
    forRange(b_.getInt64(0), b_.getInt64(numElements(windowShape)), [&](llvm::Value* wLinear) {
      Index wi = newIndex(windowShape);
      wi.linear = wLinear;
      const std::vector<llvm::Value*> wc = dimsOf(wi);
      std::vector<llvm::Value*> target = start;
      size_t window = 0;
      for (size_t d = 0; d < shape.size(); ++d) {
        int64_t dim = static_cast<int64_t>(d);
        if (!has(dn.insertedWindowDims, dim) && !has(dn.inputBatchingDims, dim))
          target[d] = b_.CreateAdd(target[d], wc[window++]);
      }
      llvm::Value* inside = b_.getTrue();
      for (size_t d = 0; d < shape.size(); ++d)
        inside = b_.CreateAnd(inside, b_.CreateICmpULT(target[d], b_.getInt64(shape[d])));
      std::vector<llvm::Value*> udims;
      size_t si2 = 0, wi2 = 0;
      for (size_t d = 0; d < updates.size(); ++d)
        udims.push_back(has(dn.updateWindowDims, static_cast<int64_t>(d)) ? wc[wi2++] : sc[si2++]);
      auto* apply = llvm::BasicBlock::Create(ctx_, "apply", fn_);
      auto* next = llvm::BasicBlock::Create(ctx_, "next", fn_);
      b_.CreateCondBr(inside, apply, next);
      b_.SetInsertPoint(apply);
      Index ui = withDims(updates, std::move(udims));
      Index ri = withDims(shape, std::move(target));
      llvm::Value* x = valueAt(op.operand(2), ui);
      llvm::Value* r = linearOf(ri);
      if (combine) {
        auto arg = [&](size_t i) {
          return combine->operand(i) == body.argument(0) ? load(t, result, r) : x;
        };
        x = s_.roundResult(*combine, s_.elementwise(*combine, t, {arg(0), arg(1)}), t);
      }
      store(x, t, result, r);
      b_.CreateBr(next);
      b_.SetInsertPoint(next);
    });
  });
}

llvm::Value* KernelEmitter::indexValue(llvm::Value* v, DType t) {
  if (isBool(t) || !isInteger(t)) decline("unsupported: indices of type " + std::string(name(t)));
  if (bitWidth(t) < 64)
    return isSignedInt(t) ? b_.CreateSExt(v, b_.getInt64Ty()) : b_.CreateZExt(v, b_.getInt64Ty());
  if (isSignedInt(t)) return v;
  return b_.CreateSelect(b_.CreateICmpSLT(v, b_.getInt64(0)), b_.getInt64(INT64_MAX), v);
}

llvm::Value* KernelEmitter::clampStart(llvm::Value* start, int64_t size, int64_t slice) {
  return clampIndex(start, std::max<int64_t>(size - slice, 0) + 1);
}

llvm::Value* KernelEmitter::startOperand(const Op& op, size_t i) {
  Index scalar = scalarIndex();
  return indexValue(valueAt(op.operand(i), scalar), op.operand(i)->type().dtype());
}

llvm::Value* KernelEmitter::dynamicSliceAt(const Op& op, Index& at) {
  const Shape& shape = op.operand(0)->type().shape();
  const std::vector<int64_t>& sizes = op.attr("slice_sizes").asInts();
  std::vector<llvm::Value*> dims;
  for (size_t d = 0; d < shape.size(); ++d)
    dims.push_back(
        b_.CreateAdd(clampStart(startOperand(op, 1 + d), shape[d], sizes[d]), dimsOf(at)[d]));
  Index inner = withDims(shape, std::move(dims));
  return valueAt(op.operand(0), inner);
}

llvm::Value* KernelEmitter::dynamicUpdateSliceAt(const Op& op, Index& at) {
  const Shape& shape = op.operand(0)->type().shape();
  const Shape& update = op.operand(1)->type().shape();
  llvm::Value* old = valueAt(op.operand(0), at);
  if (numElements(update) == 0) return old;
  llvm::Value* inside = b_.getTrue();
  std::vector<llvm::Value*> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    llvm::Value* rel =
        b_.CreateSub(dimsOf(at)[d], clampStart(startOperand(op, 2 + d), shape[d], update[d]));
    inside = b_.CreateAnd(inside, b_.CreateICmpULT(rel, b_.getInt64(update[d])));
    dims.push_back(clampIndex(rel, update[d]));
  }
  Index inner = withDims(update, std::move(dims));
  return b_.CreateSelect(inside, valueAt(op.operand(1), inner), old);
}

llvm::Value* KernelEmitter::gatherAt(const Op& op, Index& at) {
  const GatherDims dn = GatherDims::fromAttr(op.attr("dimension_numbers"));
  const Shape& operand = op.operand(0)->type().shape();
  const Type& indices = op.operand(1)->type();
  const std::vector<int64_t>& sliceSizes = op.attr("slice_sizes").asInts();
  auto has = [](const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::vector<llvm::Value*> batch;  // the result's batch coordinates, in order
  for (size_t d = 0; d < at.shape.size(); ++d)
    if (!has(dn.offsetDims, static_cast<int64_t>(d))) batch.push_back(dimsOf(at)[d]);
  // Index tensor dimension d (not the index vector dimension) is batch coordinate
  // d or d - 1.
  auto batchOf = [&](int64_t d) {
    return batch[static_cast<size_t>(d < dn.indexVectorDim ? d : d - 1)];
  };
  auto component = [&](int64_t k) {
    std::vector<llvm::Value*> dims;
    for (int64_t d = 0; d < indices.rank(); ++d)
      dims.push_back(d == dn.indexVectorDim ? b_.getInt64(k) : batchOf(d));
    Index i = withDims(indices.shape(), std::move(dims));
    return indexValue(valueAt(op.operand(1), i), indices.dtype());
  };
  std::vector<llvm::Value*> dims(operand.size(), b_.getInt64(0));
  for (size_t k = 0; k < dn.startIndexMap.size(); ++k) {
    size_t d = static_cast<size_t>(dn.startIndexMap[k]);
    dims[d] = clampStart(component(static_cast<int64_t>(k)), operand[d], sliceSizes[d]);
  }
  size_t window = 0;
  for (size_t d = 0; d < operand.size(); ++d) {
    int64_t dim = static_cast<int64_t>(d);
    if (has(dn.collapsedSliceDims, dim) || has(dn.operandBatchingDims, dim)) continue;
    dims[d] = b_.CreateAdd(dims[d], dimsOf(at)[static_cast<size_t>(dn.offsetDims[window++])]);
  }
  for (size_t i = 0; i < dn.operandBatchingDims.size(); ++i)
    dims[static_cast<size_t>(dn.operandBatchingDims[i])] = batchOf(dn.startIndicesBatchingDims[i]);
  Index inner = withDims(operand, std::move(dims));
  return valueAt(op.operand(0), inner);
}

}  // namespace kiln::cpu
