// LLVM IR for kernels (kernel_emitter.h): a kiln.fusion (loop, multi_output, input, or
// dot_epilogue after its GEMM), or one elementwise, index-map, reduce or data-dependent
// op, becomes one function over an iteration space (ABI in native_kernels.h) made of
// parts, one per result shape: the elements of loop results, or the elements of reduce
// results, each folding its inputs. Each value inside is computed "at an index":
// elementwise ops at the index they are asked for, index maps (broadcast_in_dim,
// reshape, transpose, slice, reverse, concatenate, pad, iota) by asking their operand at
// the mapped index, so no intermediate tensor is ever stored. What each computed value
// is comes from scalar_ir.h (the interpreter's arithmetic op by op), so native results
// equal the interpreter's bit for bit, except the inline math of f32 (and f16/bf16):
// exp, tanh, logistic, log, log1p, expm1, sin, cos, tan (vector_math.h), within 1-2 ulp
// of glibc. This file holds the iteration space and the buffers' loads and stores (with
// alias scopes unless the kernel may write in place; compile_kernels.cc compiles the
// functions); each op's value at an index is in value_emitter.cc, reductions in
// reduction_emitter.cc, dots and convolutions in contraction_emitter.cc,
// gather/scatter/sort in data_dependent_emitter.cc.
#include "backends/cpu/kernel_emitter.h"

#include <algorithm>
#include <llvm/IR/MDBuilder.h>

#include "ir/attr_records.h"
#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "support/error.h"

namespace kiln::cpu {

Kernel KernelEmitter::emit() {
  const Region* body = root_.is(ops::Fusion) ? &root_.region(0) : nullptr;
  std::vector<const Value*> inputs, outputs;
  bool reduction = root_.is(ops::Reduce);
  if (body) {
    std::string kind = root_.attr("kind").asString();
    // A dot_epilogue whose dot BLAS cannot run computes the dot in the kernel (dotAt).
    bool epilogue = kind == "dot_epilogue";
    reduction = kind == "input";
    // multi_output is a loop fusion with several results (siblings, or a producer also
    // read outside): one loop when they share a shape.
    bool loop = kind == "loop" || kind == "multi_output";
    if (!loop && !epilogue && !reduction) decline("unsupported: kiln.fusion of kind " + kind);
    for (size_t i = 0; i < body->numArguments(); ++i) inputs.push_back(body->argument(i));
    for (Value* v : body->terminator()->operands()) outputs.push_back(v);
  } else {
    for (Value* v : root_.operands()) inputs.push_back(v);
    for (size_t i = 0; i < root_.numResults(); ++i) outputs.push_back(root_.result(i));
  }
  inputs.insert(inputs.end(), precomputed_.begin(), precomputed_.end());
  if (outputs.empty())
    decline("unsupported: " + std::string(root_.name()) + " (no native code yet)");
  for (const Value* v : inputs) requireSupported(v->type());
  for (const Value* v : outputs) requireSupported(v->type());
  if (root_.is(ops::ReduceWindow)) {
    std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
    emitReduceWindow(fn_->getArg(1), fn_->getArg(2), outPtrs[0]);
    b_.CreateRetVoid();
    const int64_t window =
        numElements(Window::ofReduceWindow(root_, root_.operand(0)->type().rank()).dimensions);
    const int64_t row = reduceWindowRowWidth();
    const int64_t n = numElements(root_.result()->type().shape()) / row;
    return {nullptr, n, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(window * row, 1)), {}};
  }
  if (root_.is(ops::Sort)) {
    std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
    int64_t lines = emitSort();
    b_.CreateRetVoid();
    const int64_t length = lines == 0 ? 1 : numElements(root_.operand(0)->type().shape()) / lines;
    return {nullptr, lines, std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(length, 1)), {}};
  }
  if (root_.is(ops::RngBitGenerator)) {
    const int64_t draws = emitRngBitGenerator(inputs, outputs);
    b_.CreateRetVoid();
    return {nullptr, draws, int64_t{1} << 10, {}};
  }
  if (root_.is(ops::SelectAndScatter)) {
    std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
    emitSelectAndScatter(outPtrs[0]);
    b_.CreateRetVoid();
    return {nullptr, 1, 1, {}};  // one iteration: sources that pick one element add to it in order
  }
  if (root_.is(ops::Scatter)) {
    std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
    emitScatter(outPtrs[0]);
    b_.CreateRetVoid();
    return {nullptr, 1, 1, {}};  // one iteration: updates to one element apply in order
  }
  if (std::optional<Kernel> byPosition = emitConvolutionByPosition(inputs, outputs)) return *byPosition;
  std::vector<Part> parts = reduction ? reductionParts(outputs) : loopParts(outputs);
  if (reduction)
    if (std::optional<Kernel> split = emitSplitColumns(parts, inputs, outputs)) return *split;

  std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
  llvm::Value* begin = fn_->getArg(1);
  llvm::Value* end = fn_->getArg(2);
  // The parts follow each other in the iteration space: [0, n0) the first, then the next.
  int64_t offset = 0, work = productsPerElement(), minGrain = 1;
  const int64_t unit = rowUnit(parts, outputs, (int64_t{1} << 16) / work);
  for (const Part& part : parts) {
    emitPart(part, offset, begin, end, outputs, outPtrs, unit > 1);
    offset += numElements(part.shape);
    if (!part.reduces.empty())
      work = std::max(work, numElements(part.reduces[0]->operand(0)->type().shape()) /
                                std::max<int64_t>(1, numElements(part.shape)));
    // A column reduction streams every row of its range, so it is one chunk: one
    // thread streams at nearly the machine's bandwidth, while splitting the columns
    // makes each thread read its rows in pieces too short for the prefetchers (the
    // other parts of the kernel, row reductions, run beside it).
    if (foldsLeadingDims(part, outputs)) minGrain = std::max(minGrain, numElements(part.shape));
  }
  b_.CreateRetVoid();
  Kernel kernel{nullptr, offset, std::max<int64_t>(minGrain, (int64_t{1} << 16) / work),
                parts.size() == 1 ? parts[0].shape : Shape{}};
  kernel.unit = unit;
  return kernel;
}

int64_t KernelEmitter::rowUnit(const std::vector<Part>& parts, const std::vector<const Value*>& outputs,
                               int64_t grain) {
  if (parts.size() != 1) return 1;
  const Part& part = parts[0];
  if (!part.reduces.empty() || part.shape.size() < 2 || numElements(part.shape) == 0 ||
      foldsLeadingDims(part, outputs))
    return 1;
  // A row longer than a chunk would make chunks longer than the grain: fewer threads
  // would share the loop.
  const int64_t width = part.shape.back();
  return width <= grain ? width : 1;
}

std::vector<llvm::Value*> KernelEmitter::beginFunction(const std::vector<const Value*>& inputs,
                                                       const std::vector<const Value*>& outputs,
                                                       const std::string& name) {
  llvm::Type* ptr = b_.getPtrTy();
  auto* type =
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, b_.getInt64Ty(), b_.getInt64Ty()}, false);
  buffer_.clear();
  memo_.clear();
  fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name.empty() ? name_ : name, module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* buffers = fn_->getArg(0);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
  size_t slot = 0;
  for (const Value* v : inputs) buffer_[v] = loadPointer(buffers, slot++);
  std::vector<llvm::Value*> outPtrs;
  for (size_t i = 0; i < outputs.size(); ++i) outPtrs.push_back(loadPointer(buffers, slot++));
  apart_.clear();
  if (!outputs.empty()) {
    // Every result has a scope of its own; operands (which may share buffers with each
    // other, being only read) belong to none and are apart from all results, except,
    // when the kernel may write in place, from the results of their size (the buffer a
    // result may take over). Scalars and broadcast rows then stay apart, so their loads
    // leave the loops.
    llvm::MDBuilder md(ctx_);
    llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(fn_->getName());
    std::vector<llvm::Metadata*> scopes;
    for (size_t i = 0; i < outputs.size(); ++i) scopes.push_back(md.createAnonymousAliasScope(domain));
    for (const Value* v : inputs) {
      std::vector<llvm::Metadata*> apart;
      for (size_t i = 0; i < outputs.size(); ++i)
        if (!inPlace_ || v->type().byteSize() != outputs[i]->type().byteSize()) apart.push_back(scopes[i]);
      if (!apart.empty()) apart_[buffer_[v]] = {nullptr, llvm::MDNode::get(ctx_, apart)};
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::vector<llvm::Metadata*> others = scopes;
      others.erase(others.begin() + static_cast<ptrdiff_t>(i));
      apart_[outPtrs[i]] = {llvm::MDNode::get(ctx_, {scopes[i]}),
                            others.empty() ? nullptr : llvm::MDNode::get(ctx_, others)};
    }
  }
  return outPtrs;
}

void KernelEmitter::tagAccess(llvm::Instruction* access, const llvm::Value* base) const {
  auto it = apart_.find(base);
  if (it == apart_.end()) return;
  if (it->second.scope) access->setMetadata(llvm::LLVMContext::MD_alias_scope, it->second.scope);
  if (it->second.noalias) access->setMetadata(llvm::LLVMContext::MD_noalias, it->second.noalias);
}

llvm::Value* KernelEmitter::fromStorage(llvm::Value* v, DType t) {
  if (isBool(t)) return b_.CreateICmpNE(v, b_.getInt8(0));
  if (isSubByteInt(t)) return b_.CreateTrunc(v, s_.registerType(t));
  if (t == DType::F16) return b_.CreateFPExt(b_.CreateBitCast(v, b_.getHalfTy()), b_.getFloatTy());
  if (t == DType::BF16) return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
  return v;
}

llvm::Value* KernelEmitter::toStorage(llvm::Value* v, DType t) {
  if (isBool(t)) return b_.CreateZExt(v, b_.getInt8Ty());
  if (isSubByteInt(t)) return isSignedInt(t) ? b_.CreateSExt(v, b_.getInt8Ty()) : b_.CreateZExt(v, b_.getInt8Ty());
  if (t == DType::F16) return b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getInt16Ty());
  if (t == DType::BF16) return b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, b_.getInt32Ty()), 16), b_.getInt16Ty());
  return v;
}

llvm::Value* KernelEmitter::load(DType t, llvm::Value* base, llvm::Value* linear) {
  llvm::LoadInst* x = b_.CreateLoad(s_.storageType(t), b_.CreateInBoundsGEP(s_.storageType(t), base, linear));
  tagAccess(x, base);
  return fromStorage(x, t);
}

void KernelEmitter::store(llvm::Value* v, DType t, llvm::Value* base, llvm::Value* linear) {
  tagAccess(b_.CreateStore(toStorage(v, t), b_.CreateInBoundsGEP(s_.storageType(t), base, linear)), base);
}

llvm::Value* KernelEmitter::linearOf(Index& at) {
  if (!at.linear) {
    llvm::Value* linear = b_.getInt64(0);
    for (size_t d = 0; d < at.shape.size(); ++d) {
      linear = b_.CreateMul(linear, b_.getInt64(at.shape[d]), "", true, true);
      linear = b_.CreateAdd(linear, at.dims[d], "", true, true);
    }
    at.linear = linear;
  }
  return at.linear;
}

const std::vector<llvm::Value*>& KernelEmitter::dimsOf(Index& at) {
  if (at.dims.empty() && !at.shape.empty()) {
    at.dims.resize(at.shape.size());
    llvm::Value* rest = at.linear;
    for (size_t d = at.shape.size(); d-- > 0;) {
      llvm::Value* size = b_.getInt64(at.shape[d]);
      at.dims[d] = d == 0 ? rest : b_.CreateURem(rest, size);
      if (d > 0) rest = b_.CreateUDiv(rest, size);
    }
  }
  return at.dims;
}

std::vector<KernelEmitter::Part> KernelEmitter::loopParts(
    const std::vector<const Value*>& outputs) {
  std::vector<Part> parts;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Shape& s = outputs[o]->type().shape();
    auto it = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.shape == s; });
    if (it == parts.end()) it = parts.insert(parts.end(), Part{s, {}, {}});
    it->outputs.push_back(o);
  }
  return parts;
}

std::vector<KernelEmitter::Part> KernelEmitter::reductionParts(
    const std::vector<const Value*>& outputs) {
  std::vector<Part> parts;
  auto inputShape = [](const Part& p) -> const Shape& {
    return p.reduces[0]->operand(0)->type().shape();
  };
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Op* r = outputs[o]->definingOp();
    if (!r || !r->is(ops::Reduce)) continue;
    auto it = std::find_if(parts.begin(), parts.end(), [&](const Part& p) {
      return inputShape(p) == r->operand(0)->type().shape() &&
             p.reduces[0]->attr("dimensions").asInts() == r->attr("dimensions").asInts();
    });
    if (it == parts.end())
      it = parts.insert(parts.end(), Part{r->result()->type().shape(), {}, {}});
    if (std::find(it->reduces.begin(), it->reduces.end(), r) == it->reduces.end())
      it->reduces.push_back(r);
    it->outputs.push_back(o);
  }
  if (parts.empty()) decline("unsupported: an input fusion without a reduce among its results");
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Op* r = outputs[o]->definingOp();
    if (r && r->is(ops::Reduce)) continue;
    const Shape& s = outputs[o]->type().shape();
    auto it = std::find_if(parts.begin(), parts.end(),
                           [&](const Part& p) { return inputShape(p) == s || p.shape == s; });
    if (it == parts.end()) decline("unsupported: an input fusion result of another shape");
    it->outputs.push_back(o);
  }
  return parts;
}

void KernelEmitter::markParallel(llvm::BasicBlock* loop, size_t blocksBefore, llvm::Instruction* latch) {
  llvm::MDNode* group = llvm::MDNode::getDistinct(ctx_, {});
  auto tag = [&](llvm::BasicBlock& block) {
    for (llvm::Instruction& inst : block)
      if (inst.mayReadOrWriteMemory()) inst.setMetadata(llvm::LLVMContext::MD_access_group, group);
  };
  tag(*loop);
  size_t n = 0;
  for (llvm::BasicBlock& block : *fn_)
    if (n++ >= blocksBefore) tag(block);
  llvm::MDNode* parallel =
      llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.parallel_accesses"), group});
  llvm::MDNode* self = llvm::MDNode::getDistinct(ctx_, {nullptr, parallel});
  self->replaceOperandWith(0, self);
  latch->setMetadata(llvm::LLVMContext::MD_loop, self);
}

void KernelEmitter::emitPart(const Part& part, int64_t offset, llvm::Value* begin, llvm::Value* end,
                             const std::vector<const Value*>& outputs, const std::vector<llvm::Value*>& outPtrs,
                             bool wholeRows) {
  // A part without elements has nothing to compute, and its row loops would divide by a
  // row of no elements (found by kiln fuzz, seed 2206: a hang at O2).
  if (numElements(part.shape) == 0) return;
  llvm::Value* first = b_.getInt64(offset);
  llvm::Value* last = b_.getInt64(offset + numElements(part.shape));
  llvm::Value* lo = b_.CreateSelect(b_.CreateICmpSGT(begin, first), begin, first);
  llvm::Value* hi = b_.CreateSelect(b_.CreateICmpSLT(end, last), end, last);
  // A chunk that misses this part gives an empty range, never a negative one: the column
  // part counts its tiles unsigned (a negative width was a loop of 2^64 tiles: found as
  // a hang of a training step with two threads).
  hi = b_.CreateSelect(b_.CreateICmpSLT(hi, lo), lo, hi);
  if (foldsLeadingDims(part, outputs)) {
    emitColumnPart(part, b_.CreateSub(lo, first), b_.CreateSub(hi, first), outputs, outPtrs);
    return;
  }
  std::vector<const Value*> values;
  std::vector<llvm::Value*> ptrs;
  for (size_t o : part.outputs) {
    values.push_back(outputs[o]);
    ptrs.push_back(outPtrs[o]);
  }
  if (part.reduces.empty() && part.shape.size() >= 2) {
    forRows(
        part.shape, b_.CreateSub(lo, first), b_.CreateSub(hi, first), [&](Index& at) { storeAll(values, ptrs, at, linearOf(at)); },
        /*parallel=*/true, wholeRows);
    return;
  }
  forRange(
      lo, hi,
      [&](llvm::Value* i) {
        Index at = newIndex(part.shape);
        at.linear = offset == 0 ? i : b_.CreateSub(i, first);
        if (part.reduces.empty()) {
          storeAll(values, ptrs, at, at.linear);
        } else {
          reduceAt(part.reduces, values, ptrs, at);
        }
      },
      /*parallel=*/part.reduces.empty());
}

Index KernelEmitter::windowElement(const Window& w, const Shape& input, Index& out, Index& position,
                                   llvm::Value*& inside) {
  inside = b_.getTrue();
  std::vector<llvm::Value*> dims;
  for (size_t d = 0; d < input.size(); ++d) {
    // q: the position in the padded, base-dilated input.
    llvm::Value* q = b_.CreateSub(b_.CreateAdd(b_.CreateMul(dimsOf(out)[d], b_.getInt64(w.strides[d])),
                                               b_.CreateMul(dimsOf(position)[d], b_.getInt64(w.windowDilations[d]))),
                                  b_.getInt64(w.padding[d].first));
    const int64_t dilated = input[d] == 0 ? 0 : (input[d] - 1) * w.baseDilations[d] + 1;
    inside = b_.CreateAnd(inside, b_.CreateICmpULT(q, b_.getInt64(dilated)));
    llvm::Value* base = b_.getInt64(w.baseDilations[d]);
    if (w.baseDilations[d] > 1) inside = b_.CreateAnd(inside, b_.CreateICmpEQ(b_.CreateURem(q, base), b_.getInt64(0)));
    dims.push_back(clampIndex(w.baseDilations[d] > 1 ? b_.CreateUDiv(q, base) : q, std::max<int64_t>(input[d], 1)));
  }
  return withDims(input, std::move(dims));
}

SourcePos sourceLine(const Op& op) {
  if (op.is(ops::Fusion))
    if (const Op* root = op.region(0).terminator()->operand(0)->definingOp()) return root->pos;
  return op.pos;
}

std::string describeOp(const Op& op) {
  std::string s(op.name());
  if (op.is(ops::Fusion)) s += " (" + op.attr("kind").asString() + ")";
  if (SourcePos pos = sourceLine(op); pos.known()) s += " at line " + std::to_string(pos.line);
  return s;
}

}  // namespace kiln::cpu
