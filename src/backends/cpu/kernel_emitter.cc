// LLVM IR for kernels: a kiln.fusion (loop, multi_output, input, or dot_epilogue after its
// GEMM), or one elementwise, index-map or reduce op, becomes one function over an
// iteration space (ABI in native_kernels.h) made of parts, one per result shape: the
// elements of loop results, or the elements of reduce results, each folding its inputs.
// Each value inside is computed "at an index": elementwise ops at the index they are
// asked for, index maps (broadcast_in_dim, reshape, transpose, slice, reverse,
// concatenate, pad, iota) by asking their operand at the mapped index, so no intermediate
// tensor is ever stored. Column reductions run with their loops exchanged so that the
// inner loop is contiguous. What each computed value is comes from scalar_ir.h (the
// interpreter's arithmetic op by op); reductions fold left to right in row-major order as
// the interpreter does, so native results equal the interpreter's bit for bit, except
// exp, tanh and logistic of f32 (and f16/bf16): inline polynomials (vector_math.h)
// within 1-2 ulp of glibc.
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "backends/cpu/jit.h"
#include "backends/cpu/native_kernels.h"
#include "backends/cpu/scalar_ir.h"
#include "ir/attr_records.h"
#include "support/error.h"

namespace kiln::cpu {
namespace {

// Rows of a reduction up to this many elements are staged on the stack (reduceAt).
constexpr int64_t kStageLimit = 16384;

bool supported(DType t) {
  return isBool(t) || t == DType::F32 || t == DType::F64 || isNarrowFloat(t) || (isInteger(t) && bitWidth(t) >= 8);
}

void requireSupported(const Type& t) {
  if (!t.isTensor()) decline("unsupported: non-tensor value");
  if (!supported(t.dtype())) decline("unsupported: element type " + std::string(name(t.dtype())));
}

// Where a value is read: a multi-index into a tensor of `shape`, known as the row-major
// linear index, the per-dimension indices, or both (each derived from the other on
// demand). `id` names the index for memoization: values asked at the same index object
// are computed once.
struct Index {
  int id;
  Shape shape;
  llvm::Value* linear = nullptr;
  std::vector<llvm::Value*> dims;
};

class KernelEmitter {
 public:
  KernelEmitter(llvm::Module& module, const KernelRequest& request, const std::string& name)
      : ctx_(module.getContext()), module_(module), b_(ctx_), s_(b_, module), root_(*request.op),
        precomputed_(request.precomputed), name_(name) {}

  // Emits the kernel; returns how many iterations its [begin, end) range spans (the
  // elements of its results, or of its reductions' results) and the chunk size worth a
  // thread: about 2^16 elements of work.
  std::pair<int64_t, int64_t> emit() {
    const Region* body = root_.is(OpCode::Fusion) ? &root_.region(0) : nullptr;
    std::vector<const Value*> inputs, outputs;
    bool reduction = root_.is(OpCode::Reduce);
    if (body) {
      std::string kind = root_.attr("kind").asString();
      bool epilogue = kind == "dot_epilogue" && !precomputed_.empty();
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
    if (outputs.empty()) decline("unsupported: " + std::string(root_.name()) + " (no native code yet)");
    for (const Value* v : inputs) requireSupported(v->type());
    for (const Value* v : outputs) requireSupported(v->type());
    std::vector<Part> parts = reduction ? reductionParts(outputs) : loopParts(outputs);

    llvm::Type* ptr = b_.getPtrTy();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, b_.getInt64Ty(), b_.getInt64Ty()}, false);
    fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name_, module_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Value* buffers = fn_->getArg(0);
    llvm::Value* begin = fn_->getArg(1);
    llvm::Value* end = fn_->getArg(2);

    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
    // The buffer pointers, loaded once before the loops.
    size_t slot = 0;
    for (const Value* v : inputs) buffer_[v] = loadPointer(buffers, slot++);
    std::vector<llvm::Value*> outPtrs;
    for (size_t i = 0; i < outputs.size(); ++i) outPtrs.push_back(loadPointer(buffers, slot++));
    // The parts follow each other in the iteration space: [0, n0) the first, then the next.
    int64_t offset = 0, work = 1;
    for (const Part& part : parts) {
      emitPart(part, offset, begin, end, outputs, outPtrs);
      offset += numElements(part.shape);
      if (!part.reduces.empty())
        work = std::max(work, numElements(part.reduces[0]->operand(0)->type().shape()) /
                                  std::max<int64_t>(1, numElements(part.shape)));
    }
    b_.CreateRetVoid();
    return {offset, std::max<int64_t>(1, (int64_t{1} << 16) / work)};
  }

 private:
  // ---- types, loads and stores ----
  llvm::Value* loadPointer(llvm::Value* buffers, size_t slot) {
    llvm::Value* at = b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), buffers, slot);
    auto* p = b_.CreateLoad(b_.getPtrTy(), at);
    p->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx_, {}));
    return p;
  }

  llvm::Value* load(DType t, llvm::Value* base, llvm::Value* linear) {
    llvm::Value* v = b_.CreateLoad(s_.storageType(t), b_.CreateInBoundsGEP(s_.storageType(t), base, linear));
    if (isBool(t)) return b_.CreateICmpNE(v, b_.getInt8(0));
    if (t == DType::F16) return b_.CreateFPExt(b_.CreateBitCast(v, b_.getHalfTy()), b_.getFloatTy());
    if (t == DType::BF16) return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
    return v;
  }

  // `v` is already rounded to the format (roundToFormat): narrowing is exact.
  void store(llvm::Value* v, DType t, llvm::Value* base, llvm::Value* linear) {
    if (isBool(t)) v = b_.CreateZExt(v, b_.getInt8Ty());
    if (t == DType::F16) v = b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getInt16Ty());
    if (t == DType::BF16) v = b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, b_.getInt32Ty()), 16), b_.getInt16Ty());
    b_.CreateStore(v, b_.CreateInBoundsGEP(s_.storageType(t), base, linear));
  }

  // ---- indices ----
  Index newIndex(const Shape& shape) { return Index{nextId_++, shape, nullptr, {}}; }
  Index scalarIndex() {
    Index at = newIndex({});
    at.linear = b_.getInt64(0);
    return at;
  }

  llvm::Value* linearOf(Index& at) {
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

  const std::vector<llvm::Value*>& dimsOf(Index& at) {
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

  Index withDims(const Shape& shape, std::vector<llvm::Value*> dims) {
    Index at = newIndex(shape);
    at.dims = std::move(dims);
    if (shape.empty()) at.linear = b_.getInt64(0);
    return at;
  }

  // ---- the iteration space ----
  // A part of a kernel's iteration space: the outputs it computes (indices into the
  // kernel's outputs), over the elements of `shape`; for reductions, the reduces it folds
  // (whose results have that shape).
  struct Part {
    Shape shape;
    std::vector<const Op*> reduces;
    std::vector<size_t> outputs;
  };

  // A loop kernel: one part per result shape (siblings of different shapes share the
  // kernel, each over its own range).
  static std::vector<Part> loopParts(const std::vector<const Value*>& outputs) {
    std::vector<Part> parts;
    for (size_t o = 0; o < outputs.size(); ++o) {
      const Shape& s = outputs[o]->type().shape();
      auto it = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.shape == s; });
      if (it == parts.end()) it = parts.insert(parts.end(), Part{s, {}, {}});
      it->outputs.push_back(o);
    }
    return parts;
  }

  // An input fusion: one part per group of reduces over inputs of one shape along the same
  // dimensions (each with one input and a body that is one binary op of its two
  // arguments). Its other outputs have a part's input shape (side outputs, stored as the
  // inner loop visits each element) or result shape (an epilogue of the reduces, computed
  // once they are folded).
  std::vector<Part> reductionParts(const std::vector<const Value*>& outputs) {
    std::vector<Part> parts;
    auto inputShape = [](const Part& p) -> const Shape& { return p.reduces[0]->operand(0)->type().shape(); };
    for (size_t o = 0; o < outputs.size(); ++o) {
      const Op* r = outputs[o]->definingOp();
      if (!r || !r->is(OpCode::Reduce)) continue;
      if (r->numOperands() != 2) decline("unsupported: stablehlo.reduce of several inputs");
      bodyOp(*r);
      auto it = std::find_if(parts.begin(), parts.end(), [&](const Part& p) {
        return inputShape(p) == r->operand(0)->type().shape() &&
               p.reduces[0]->attr("dimensions").asInts() == r->attr("dimensions").asInts();
      });
      if (it == parts.end()) it = parts.insert(parts.end(), Part{r->result()->type().shape(), {}, {}});
      if (std::find(it->reduces.begin(), it->reduces.end(), r) == it->reduces.end()) it->reduces.push_back(r);
      it->outputs.push_back(o);
    }
    if (parts.empty()) decline("unsupported: an input fusion without a reduce among its results");
    for (size_t o = 0; o < outputs.size(); ++o) {
      const Op* r = outputs[o]->definingOp();
      if (r && r->is(OpCode::Reduce)) continue;
      const Shape& s = outputs[o]->type().shape();
      auto it = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return inputShape(p) == s || p.shape == s; });
      if (it == parts.end()) decline("unsupported: an input fusion result of another shape");
      it->outputs.push_back(o);
    }
    return parts;
  }

  // The loop over this part's iterations, [offset, offset + its size) clipped to
  // [begin, end).
  void emitPart(const Part& part, int64_t offset, llvm::Value* begin, llvm::Value* end,
                const std::vector<const Value*>& outputs, const std::vector<llvm::Value*>& outPtrs) {
    llvm::Value* first = b_.getInt64(offset);
    llvm::Value* last = b_.getInt64(offset + numElements(part.shape));
    llvm::Value* lo = b_.CreateSelect(b_.CreateICmpSGT(begin, first), begin, first);
    llvm::Value* hi = b_.CreateSelect(b_.CreateICmpSLT(end, last), end, last);
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
    forRange(lo, hi, [&](llvm::Value* i) {
      Index at = newIndex(part.shape);
      at.linear = offset == 0 ? i : b_.CreateSub(i, first);
      if (part.reduces.empty()) {
        for (size_t k = 0; k < values.size(); ++k)
          store(valueAt(values[k], at), values[k]->type().dtype(), ptrs[k], at.linear);
      } else {
        reduceAt(part.reduces, values, ptrs, at);
      }
    });
  }

  // Emits `for (i = lo; i < hi; ++i) body(i)` and continues after it.
  template <class F>
  void forRange(llvm::Value* lo, llvm::Value* hi, F&& body) {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* loop = llvm::BasicBlock::Create(ctx_, "loop", fn_);
    auto* done = llvm::BasicBlock::Create(ctx_, "done", fn_);
    b_.CreateCondBr(b_.CreateICmpSLT(lo, hi), loop, done);
    b_.SetInsertPoint(loop);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
    i->addIncoming(lo, pre);
    body(static_cast<llvm::Value*>(i));
    llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), "next", true, true);
    i->addIncoming(next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpEQ(next, hi), done, loop);
    b_.SetInsertPoint(done);
  }

  // ---- reductions ----
  // Whether a part folds only leading dimensions (column reductions: the kept dimensions
  // are the trailing, contiguous ones) and has no epilogue, so emitColumnPart applies.
  static bool foldsLeadingDims(const Part& part, const std::vector<const Value*>& outputs) {
    if (part.reduces.empty() || numElements(part.shape) <= 1) return false;
    std::vector<int64_t> dims = part.reduces[0]->attr("dimensions").asInts();
    std::sort(dims.begin(), dims.end());
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] != static_cast<int64_t>(i)) return false;
    for (size_t o : part.outputs) {
      const Op* op = outputs[o]->definingOp();
      if (!(op && op->is(OpCode::Reduce)) && !isSideOutput(outputs[o], *part.reduces[0])) return false;
    }
    return true;
  }

  // Column reductions with the loops exchanged: for each row r of the folded dimensions
  // (outer), every output element j of the range (inner, contiguous) folds its element of
  // row r into its accumulator, kept in the output buffer. Each output element still folds
  // its inputs in row-major order, so the results are those of the row-by-row form bit
  // for bit, and the inner loop vectorizes: its lanes are different accumulators.
  void emitColumnPart(const Part& part, llvm::Value* lo, llvm::Value* hi, const std::vector<const Value*>& outputs,
                      const std::vector<llvm::Value*>& outPtrs) {
    const Op& first = *part.reduces[0];
    int64_t kept = numElements(part.shape);
    int64_t rows = numElements(first.operand(0)->type().shape()) / kept;
    auto ptrOf = [&](const Op* r) {
      for (size_t o : part.outputs)
        if (outputs[o] == r->result()) return outPtrs[o];
      decline("internal: a reduce without its output");
    };
    forRange(lo, hi, [&](llvm::Value* j) {
      for (const Op* r : part.reduces) {
        Index scalar = scalarIndex();
        store(valueAt(r->operand(1), scalar), r->result()->type().dtype(), ptrOf(r), j);
      }
    });
    if (rows == 0) return;
    forRange(b_.getInt64(0), b_.getInt64(rows), [&](llvm::Value* row) {
      llvm::Value* base = b_.CreateMul(row, b_.getInt64(kept), "", true, true);
      forRange(lo, hi, [&](llvm::Value* j) {
        Index element = newIndex(first.operand(0)->type().shape());
        element.linear = b_.CreateAdd(base, j, "", true, true);
        for (const Op* r : part.reduces) {
          const Op& op = bodyOp(*r);
          const Region& body = r->region(0);
          DType t = r->operand(0)->type().dtype();
          llvm::Value* acc = load(t, ptrOf(r), j);
          llvm::Value* x = valueAt(r->operand(0), element);
          // Argument 0 is the accumulator, argument 1 the element.
          auto arg = [&](size_t i) { return op.operand(i) == body.argument(0) ? acc : x; };
          store(s_.roundToFormat(s_.elementwise(op, t, {arg(0), arg(1)}), t), t, ptrOf(r), j);
        }
        for (size_t o : part.outputs)
          if (isSideOutput(outputs[o], first))
            store(valueAt(outputs[o], element), outputs[o]->type().dtype(), outPtrs[o], element.linear);
      });
    });
  }

  // The one binary op of a reducer body `(acc, x) -> op(acc, x)` (either order).
  const Op& bodyOp(const Op& reduce) {
    const Region& body = reduce.region(0);
    if (body.size() != 2) decline("unsupported: a reducer body of " + std::to_string(body.size() - 1) + " ops");
    const Op& op = *body.front();
    bool args = op.numOperands() == 2 && op.operand(0)->ownerRegion() == &body && op.operand(1)->ownerRegion() == &body &&
                op.operand(0)->isArgument() && op.operand(1)->isArgument() && op.operand(0) != op.operand(1);
    if (!args || !op.info().has(kElementwise) || body.terminator()->operand(0) != op.result())
      decline("unsupported: a reducer body that is not one binary op of its arguments");
    return op;
  }

  // For output element `at`: the accumulators start at the inits and fold, left to right,
  // every element of the reduced dimensions in row-major order, as the interpreter folds
  // (so float sums round the same way); side outputs are stored on the way.
  void reduceAt(const std::vector<const Op*>& reduces, const std::vector<const Value*>& outputs,
                const std::vector<llvm::Value*>& outPtrs, Index& at) {
    const Op& first = *reduces[0];
    const Shape& input = first.operand(0)->type().shape();
    std::vector<bool> reduced(input.size(), false);
    for (int64_t d : first.attr("dimensions").asInts()) reduced[static_cast<size_t>(d)] = true;
    Shape reducedShape;
    for (size_t d = 0; d < input.size(); ++d)
      if (reduced[d]) reducedShape.push_back(input[d]);
    std::vector<llvm::Value*> acc;
    for (const Op* r : reduces) {
      Index scalar = scalarIndex();
      acc.push_back(valueAt(r->operand(1), scalar));
    }
    int64_t count = numElements(reducedShape);
    // The input element k of this output element, and its multi-index.
    auto elementAt = [&](llvm::Value* k) {
      Index r = newIndex(reducedShape);
      r.linear = k;
      std::vector<llvm::Value*> dims;
      size_t keptAt = 0, reducedAt = 0;
      for (size_t d = 0; d < input.size(); ++d)
        dims.push_back(reduced[d] ? dimsOf(r)[reducedAt++] : dimsOf(at)[keptAt++]);
      return withDims(input, std::move(dims));
    };
    // Staged: a first loop computes the elements (and side outputs) into a buffer on the
    // stack, where it vectorizes (exp, tanh, ... over the row), and the fold reads them
    // back in order. Direct reads of an input need no stage.
    bool staged = count > 1 && count <= kStageLimit;
    for (const Op* r : reduces) staged = staged && !buffer_.count(r->operand(0));
    std::vector<llvm::Value*> stage;
    if (staged) {
      llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      for (const Op* r : reduces)
        stage.push_back(entry.CreateAlloca(s_.registerType(r->operand(0)->type().dtype()), entry.getInt64(count)));
      forRange(b_.getInt64(0), b_.getInt64(count), [&](llvm::Value* k) {
        Index element = elementAt(k);
        for (size_t j = 0; j < reduces.size(); ++j) {
          llvm::Value* x = valueAt(reduces[j]->operand(0), element);
          b_.CreateStore(x, b_.CreateInBoundsGEP(x->getType(), stage[j], k));
        }
        for (size_t o = 0; o < outputs.size(); ++o)
          if (isSideOutput(outputs[o], first))
            store(valueAt(outputs[o], element), outputs[o]->type().dtype(), outPtrs[o], linearOf(element));
      });
    }
    if (count > 0) {
      llvm::BasicBlock* pre = b_.GetInsertBlock();
      auto* inner = llvm::BasicBlock::Create(ctx_, "fold", fn_);
      auto* after = llvm::BasicBlock::Create(ctx_, "folded", fn_);
      b_.CreateBr(inner);
      b_.SetInsertPoint(inner);
      llvm::PHINode* k = b_.CreatePHI(b_.getInt64Ty(), 2, "k");
      k->addIncoming(b_.getInt64(0), pre);
      std::vector<llvm::PHINode*> phis;
      for (llvm::Value* a : acc) {
        phis.push_back(b_.CreatePHI(a->getType(), 2));
        phis.back()->addIncoming(a, pre);
      }
      Index element = elementAt(k);
      for (size_t j = 0; j < reduces.size(); ++j) {
        const Op& op = bodyOp(*reduces[j]);
        const Region& body = reduces[j]->region(0);
        DType et = reduces[j]->operand(0)->type().dtype();
        llvm::Value* x = staged ? b_.CreateLoad(s_.registerType(et), b_.CreateInBoundsGEP(s_.registerType(et), stage[j], k))
                                : valueAt(reduces[j]->operand(0), element);
        // Argument 0 is the accumulator, argument 1 the element.
        auto arg = [&](size_t i) { return op.operand(i) == body.argument(0) ? static_cast<llvm::Value*>(phis[j]) : x; };
        DType t = reduces[j]->operand(0)->type().dtype();
        acc[j] = s_.roundToFormat(s_.elementwise(op, t, {arg(0), arg(1)}), t);
      }
      for (size_t o = 0; o < outputs.size(); ++o) {
        if (staged || !isSideOutput(outputs[o], first)) continue;
        store(valueAt(outputs[o], element), outputs[o]->type().dtype(), outPtrs[o], linearOf(element));
      }
      llvm::Value* next = b_.CreateAdd(k, b_.getInt64(1), "", true, true);
      k->addIncoming(next, b_.GetInsertBlock());
      for (size_t j = 0; j < phis.size(); ++j) phis[j]->addIncoming(acc[j], b_.GetInsertBlock());
      b_.CreateCondBr(b_.CreateICmpEQ(next, b_.getInt64(count)), after, inner);
      b_.SetInsertPoint(after);
    }
    // The folded values stand for the reduces at this output element, for the epilogue.
    for (size_t j = 0; j < reduces.size(); ++j) memo_[{reduces[j]->result(), at.id}] = acc[j];
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (isSideOutput(outputs[o], first)) continue;
      store(valueAt(outputs[o], at), outputs[o]->type().dtype(), outPtrs[o], linearOf(at));
    }
  }

  // An output of an input fusion stored per input element (not a reduce, and of the
  // reduced inputs' shape).
  static bool isSideOutput(const Value* v, const Op& reduce) {
    const Op* op = v->definingOp();
    return !(op && op->is(OpCode::Reduce)) && v->type().shape() == reduce.operand(0)->type().shape();
  }

  // ---- values ----
  llvm::Value* valueAt(const Value* v, Index& at) {
    auto key = std::make_pair(v, at.id);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    llvm::Value* result;
    if (auto it = buffer_.find(v); it != buffer_.end()) {
      result = load(v->type().dtype(), it->second, linearOf(at));
    } else {
      const Op* op = v->definingOp();
      if (!op) decline("internal: an argument without a buffer");
      if (op->numResults() != 1) decline("unsupported: " + std::string(op->name()) + " (no native code yet)");
      requireSupported(v->type());
      for (Value* operand : op->operands()) requireSupported(operand->type());
      result = s_.roundToFormat(opAt(*op, at), v->type().dtype());
    }
    memo_[key] = result;
    return result;
  }

  // The operand at the same index (elementwise), or at index 0 when it is a scalar
  // standing for a tensor (select's predicate, clamp's bounds).
  llvm::Value* operandAt(const Op& op, size_t i, Index& at) {
    const Value* v = op.operand(i);
    if (v->type().rank() == 0 && !at.shape.empty()) {
      Index scalar = scalarIndex();
      return valueAt(v, scalar);
    }
    return valueAt(v, at);
  }

  llvm::Value* opAt(const Op& op, Index& at) {
    using O = OpCode;
    DType out = op.result()->type().dtype();
    switch (op.code()) {
      case O::Constant: return constantAt(op, at);
      case O::Iota: {
        llvm::Value* k = dimsOf(at)[static_cast<size_t>(op.attr("iota_dimension").asInt())];
        return isFloat(out) ? b_.CreateUIToFP(k, s_.registerType(out)) : b_.CreateTrunc(k, s_.registerType(out));
      }
      case O::BroadcastInDim: {
        const Type& x = op.operand(0)->type();
        const std::vector<int64_t>& map = op.attr("broadcast_dimensions").asInts();
        std::vector<llvm::Value*> dims;
        for (int64_t d = 0; d < x.rank(); ++d)
          dims.push_back(x.dim(d) == 1 ? b_.getInt64(0) : dimsOf(at)[static_cast<size_t>(map[static_cast<size_t>(d)])]);
        Index inner = withDims(x.shape(), std::move(dims));
        return valueAt(op.operand(0), inner);
      }
      case O::Broadcast: {
        const Type& x = op.operand(0)->type();
        size_t lead = at.shape.size() - static_cast<size_t>(x.rank());
        std::vector<llvm::Value*> dims(dimsOf(at).begin() + static_cast<std::ptrdiff_t>(lead), dimsOf(at).end());
        Index inner = withDims(x.shape(), std::move(dims));
        return valueAt(op.operand(0), inner);
      }
      case O::Reshape: {
        Index inner = newIndex(op.operand(0)->type().shape());
        inner.linear = linearOf(at);
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
          dims.push_back(b_.CreateAdd(b_.getInt64(start[d]), b_.CreateMul(dimsOf(at)[d], b_.getInt64(strides[d]))));
        Index inner = withDims(op.operand(0)->type().shape(), std::move(dims));
        return valueAt(op.operand(0), inner);
      }
      case O::Reverse: {
        std::vector<llvm::Value*> dims = dimsOf(at);
        for (int64_t d : op.attr("dimensions").asInts())
          dims[static_cast<size_t>(d)] = b_.CreateSub(b_.getInt64(at.shape[static_cast<size_t>(d)] - 1), dims[static_cast<size_t>(d)]);
        Index inner = withDims(at.shape, std::move(dims));
        return valueAt(op.operand(0), inner);
      }
      case O::Concatenate: return concatenateAt(op, at);
      case O::Pad: return padAt(op, at);
      case O::Convert: return s_.convert(operandAt(op, 0, at), op.operand(0)->type().dtype(), out);
      case O::BitcastConvert: {
        DType from = op.operand(0)->type().dtype();
        if (bitWidth(from) != bitWidth(out) || isBool(from) || isBool(out))
          decline("unsupported: bitcast_convert between widths");
        if (isNarrowFloat(from) || isNarrowFloat(out)) decline("unsupported: bitcast_convert of f16 or bf16");
        return b_.CreateBitCast(operandAt(op, 0, at), s_.registerType(out));
      }
      case O::Compare: return s_.compare(op, operandAt(op, 0, at), operandAt(op, 1, at));
      case O::Select: return b_.CreateSelect(operandAt(op, 0, at), operandAt(op, 1, at), operandAt(op, 2, at));
      case O::Clamp: {
        llvm::Value* lo = operandAt(op, 0, at);
        llvm::Value* x = operandAt(op, 1, at);
        llvm::Value* hi = operandAt(op, 2, at);
        return s_.extremum(false, s_.extremum(true, x, lo, out), hi, out);
      }
      default: break;
    }
    if (!op.info().has(kElementwise)) decline("unsupported: " + std::string(op.name()) + " (no native code yet)");
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < op.numOperands(); ++i) args.push_back(operandAt(op, i, at));
    DType t = op.operand(0)->type().dtype();
    return s_.elementwise(op, t, args);
  }

  llvm::Value* constantAt(const Op& op, Index& at) {
    const Literal& lit = op.attr("value").asDense();
    DType t = lit.dtype();
    if (lit.isSplat() || lit.numElements() == 1) return s_.constant(t, lit.bitsAt(0));
    // A dense constant: a private global array in storage layout.
    llvm::Constant* data = llvm::ConstantDataArray::getRaw(
        llvm::StringRef(reinterpret_cast<const char*>(lit.storage()), lit.storageSize()),
        static_cast<uint64_t>(lit.numElements()), s_.storageType(t));
    auto* global = new llvm::GlobalVariable(module_, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data);
    global->setAlignment(llvm::Align(64));
    return load(t, global, linearOf(at));
  }

  // Each operand is read at its own offset, clamped into range so that every read is in
  // bounds; the selects then keep the one whose range holds the index.
  llvm::Value* concatenateAt(const Op& op, Index& at) {
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

  llvm::Value* clampIndex(llvm::Value* i, int64_t size) {
    llvm::Value* lo = b_.CreateSelect(b_.CreateICmpSLT(i, b_.getInt64(0)), b_.getInt64(0), i);
    return b_.CreateSelect(b_.CreateICmpSGT(lo, b_.getInt64(size - 1)), b_.getInt64(size - 1), lo);
  }

  llvm::Value* padAt(const Op& op, Index& at) {
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

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;
  ScalarIR s_;
  const Op& root_;
  std::vector<const Value*> precomputed_;
  std::string name_;
  llvm::Function* fn_ = nullptr;
  std::unordered_map<const Value*, llvm::Value*> buffer_;
  std::map<std::pair<const Value*, int>, llvm::Value*> memo_;
  int nextId_ = 0;
};

}  // namespace

NativeKernels compileKernels(const std::vector<KernelRequest>& requests) {
  auto start = std::chrono::steady_clock::now();
  NativeKernels out;
  out.jit = std::make_shared<Jit>();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("kiln", *context);
  out.jit->prepare(*module);
  std::vector<std::string> names;
  std::vector<const Op*> compiled;
  std::vector<std::pair<int64_t, int64_t>> iterations;
  for (const KernelRequest& request : requests) {
    const Op* op = request.op;
    std::string name = "kernel" + std::to_string(names.size());
    try {
      iterations.push_back(KernelEmitter(*module, request, name).emit());
      names.push_back(name);
      compiled.push_back(op);
    } catch (const Declined& d) {
      // Drop the half-built function; the op stays with the interpreter.
      if (llvm::Function* f = module->getFunction(name)) f->eraseFromParent();
      out.declined.emplace_back(op, d.reason);
    }
  }
  if (!names.empty()) {
    std::vector<void*> addresses = out.jit->add(std::move(module), std::move(context), names);
    for (size_t i = 0; i < compiled.size(); ++i)
      out.kernels[compiled[i]] = {reinterpret_cast<KernelFn>(addresses[i]), iterations[i].first, iterations[i].second};
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace kiln::cpu
