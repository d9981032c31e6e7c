// LLVM IR for kernels: a kiln.fusion (loop, multi_output, input, or dot_epilogue after its
// GEMM), or one elementwise, index-map or reduce op, becomes one function over an
// iteration space (ABI in native_kernels.h) made of parts, one per result shape: the
// elements of loop results, or the elements of reduce results, each folding its inputs.
// Each value inside is computed "at an index": elementwise ops at the index they are
// asked for, index maps (broadcast_in_dim, reshape, transpose, slice, reverse,
// concatenate, pad, iota) by asking their operand at the mapped index, so no intermediate
// tensor is ever stored. Column reductions run with their loops exchanged so that the
// inner loop is contiguous. What each computed value is comes from scalar_ir.h (the
// interpreter's arithmetic op by op); reductions fold in the order of
// ir/reduction_order.h as the interpreter does, so native results equal the
// interpreter's bit for bit, except
// exp, tanh and logistic of f32 (and f16/bf16): inline polynomials (vector_math.h)
// within 1-2 ulp of glibc.
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>

#include "backends/cpu/jit.h"
#include "backends/cpu/native_kernels.h"
#include "backends/cpu/runtime_kernels.h"
#include "backends/cpu/scalar_ir.h"
#include "ir/attr_records.h"
#include "ir/op_registry.h"
#include "ir/reduction_order.h"
#include "support/error.h"

namespace kiln::cpu {
namespace {

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
    if (root_.is(OpCode::ReduceWindow)) {
      std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
      emitReduceWindow(fn_->getArg(1), fn_->getArg(2), outPtrs[0]);
      b_.CreateRetVoid();
      const int64_t window = numElements(Window::ofReduceWindow(root_, root_.operand(0)->type().rank()).dimensions);
      const int64_t n = numElements(root_.result()->type().shape());
      return {n, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(window, 1))};
    }
    if (root_.is(OpCode::Sort)) {
      std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
      int64_t lines = emitSort();
      b_.CreateRetVoid();
      const int64_t length = lines == 0 ? 1 : numElements(root_.operand(0)->type().shape()) / lines;
      return {lines, std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(length, 1))};
    }
    if (root_.is(OpCode::SelectAndScatter)) {
      std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
      emitSelectAndScatter(outPtrs[0]);
      b_.CreateRetVoid();
      return {1, 1};  // one iteration: sources that pick one element add to it in order
    }
    if (root_.is(OpCode::Scatter)) {
      std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
      emitScatter(outPtrs[0]);
      b_.CreateRetVoid();
      return {1, 1};  // one iteration: updates to one element apply in order
    }
    std::vector<Part> parts = reduction ? reductionParts(outputs) : loopParts(outputs);

    std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
    llvm::Value* begin = fn_->getArg(1);
    llvm::Value* end = fn_->getArg(2);
    // The parts follow each other in the iteration space: [0, n0) the first, then the next.
    int64_t offset = 0, work = 1, minGrain = 1;
    for (const Part& part : parts) {
      emitPart(part, offset, begin, end, outputs, outPtrs);
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
    return {offset, std::max<int64_t>(minGrain, (int64_t{1} << 16) / work)};
  }

 private:
  // Creates the kernel's function and its entry block, loads the buffer pointers (once,
  // before the loops) and returns the outputs'.
  std::vector<llvm::Value*> beginFunction(const std::vector<const Value*>& inputs,
                                          const std::vector<const Value*>& outputs) {
    llvm::Type* ptr = b_.getPtrTy();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, b_.getInt64Ty(), b_.getInt64Ty()}, false);
    fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name_, module_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Value* buffers = fn_->getArg(0);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
    size_t slot = 0;
    for (const Value* v : inputs) buffer_[v] = loadPointer(buffers, slot++);
    std::vector<llvm::Value*> outPtrs;
    for (size_t i = 0; i < outputs.size(); ++i) outPtrs.push_back(loadPointer(buffers, slot++));
    return outPtrs;
  }

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
    if (part.reduces.empty() && part.shape.size() >= 2) {
      forRows(part.shape, b_.CreateSub(lo, first), b_.CreateSub(hi, first), [&](Index& at) {
        for (size_t k = 0; k < values.size(); ++k)
          store(valueAt(values[k], at), values[k]->type().dtype(), ptrs[k], linearOf(at));
      });
      return;
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

  // The elements [lo, hi) of `shape` (row-major), visited row by row: the outer loop
  // over the rows (the leading dimensions), the inner one along the last dimension, so
  // that the inner loop knows every coordinate without dividing (broadcasts and other
  // index maps then read contiguously or not at all, and the loop vectorizes).
  template <class F>
  void forRows(const Shape& shape, llvm::Value* lo, llvm::Value* hi, F&& body) {
    const int64_t width = shape.back();
    Shape rowShape(shape.begin(), shape.end() - 1);
    llvm::Value* w = b_.getInt64(width);
    llvm::Value* firstRow = b_.CreateUDiv(lo, w);
    llvm::Value* lastRow = b_.CreateUDiv(b_.CreateAdd(hi, b_.getInt64(width - 1)), w);
    forRange(firstRow, lastRow, [&](llvm::Value* row) {
      llvm::Value* base = b_.CreateMul(row, w, "", true, true);
      llvm::Value* from = b_.CreateSub(lo, base);
      llvm::Value* to = b_.CreateSub(hi, base);
      from = b_.CreateSelect(b_.CreateICmpSGT(from, b_.getInt64(0)), from, b_.getInt64(0));
      to = b_.CreateSelect(b_.CreateICmpSLT(to, w), to, w);
      Index rowIndex = newIndex(rowShape);
      rowIndex.linear = row;
      std::vector<llvm::Value*> rowDims = dimsOf(rowIndex);
      forRange(from, to, [&](llvm::Value* j) {
        std::vector<llvm::Value*> dims = rowDims;
        dims.push_back(j);
        Index at = withDims(shape, std::move(dims));
        at.linear = b_.CreateAdd(base, j, "", true, true);
        body(at);
      });
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
  // Each reduce folds in the order of ir/reduction_order.h, as the interpreter does, so
  // float sums round the same way: in chunks of kReduceChunk elements, each spread over
  // kReduceLanes lanes that start at the body's identity and combine by halving, the
  // chunks then folded from the init value. The lanes are independent accumulators, so
  // the loops over them vectorize. A body without an identity for its type folds left to
  // right (`identity` null), in the same loops.
  // One input of a reduce. A reduce of n inputs (argmax: values and indices) is n folds,
  // a group: `member` is this one's input, `group` the index of the group's first fold,
  // which updates every member at once through the body.
  struct Fold {
    const Op* reduce;
    const Op* op;  // the body's one binary op, or null: the body as scalar code
    DType t;
    llvm::Value* identity;
    size_t member = 0, group = 0, members = 1;
    llvm::Value* acc = nullptr;    // the running result (an alloca)
    llvm::Value* lanes = nullptr;  // kReduceLanes accumulators (times a tile, in columns)
    llvm::Value* stage = nullptr;  // a chunk's elements, computed ahead of the fold
    const Value* input() const { return reduce->operand(member); }
    const Value* init() const { return reduce->operand(members + member); }
    bool leads() const { return member == 0; }
  };

  // A one-op body of two arguments, or null.
  static const Op* oneOpBody(const Op& reduce) {
    const Region& body = reduce.region(0);
    if (body.numArguments() != 2 || body.size() != 2) return nullptr;
    const Op& op = *body.front();
    bool args = op.numOperands() == 2 && op.operand(0)->isArgument() && op.operand(1)->isArgument() &&
                op.operand(0)->ownerRegion() == &body && op.operand(1)->ownerRegion() == &body &&
                op.operand(0) != op.operand(1);
    if (!args || !op.info().has(kElementwise) || body.terminator()->operand(0) != op.result()) return nullptr;
    return &op;
  }

  std::vector<Fold> foldsOf(const std::vector<const Op*>& reduces) {
    std::vector<Fold> folds;
    for (const Op* r : reduces) {
      const size_t n = r->numOperands() / 2;
      const Op* op = n == 1 ? oneOpBody(*r) : nullptr;
      const size_t group = folds.size();
      for (size_t j = 0; j < n; ++j) {
        DType t = r->operand(j)->type().dtype();
        if (r->region(0).argument(j)->type().dtype() != t)
          decline("unsupported: a reducer body on a promoted element type");
        // Integer and boolean folds give the same bits in every order (their ops are
        // associative and commutative): they fold left to right, which LLVM vectorizes
        // on its own.
        std::optional<Literal> e = op && isFloat(t) ? reducerIdentity(op->code(), t) : std::nullopt;
        llvm::Value* identity = nullptr;
        if (e) {
          uint64_t bits = 0;
          std::memcpy(&bits, e->storage(), static_cast<size_t>(storageBytes(t)));
          identity = s_.constant(t, bits);
        }
        folds.push_back({r, op, t, identity, j, group, n});
      }
    }
    return folds;
  }

  // body(acc, x) of a single-input reduce, rounded to its format.
  llvm::Value* applyBody(const Fold& f, llvm::Value* acc, llvm::Value* x) {
    if (!f.op) return scalarRegion(f.reduce->region(0), {acc, x}).at(0);
    const Region& body = f.reduce->region(0);
    auto arg = [&](size_t i) { return f.op->operand(i) == body.argument(0) ? acc : x; };
    return s_.roundToFormat(s_.elementwise(*f.op, f.t, {arg(0), arg(1)}), f.t);
  }
  // The body of a group's reduce on its members' accumulators and elements.
  std::vector<llvm::Value*> applyGroup(const std::vector<Fold>& folds, size_t group, const std::vector<llvm::Value*>& accs,
                                       const std::vector<llvm::Value*>& xs) {
    if (folds[group].members == 1) return {applyBody(folds[group], accs[0], xs[0])};
    std::vector<llvm::Value*> args = accs;
    args.insert(args.end(), xs.begin(), xs.end());
    return scalarRegion(folds[group].reduce->region(0), args);
  }

  // The lanes' values combined by halving (ir/reduction_order.h); null lanes are empty
  // (they hold the identity, which changes nothing, so no op is emitted for them).
  llvm::Value* laneTree(const Fold& f, std::vector<llvm::Value*> lanes) {
    lanes.resize(static_cast<size_t>(kReduceLanes), nullptr);
    for (size_t w = lanes.size() / 2; w >= 1; w /= 2)
      for (size_t i = 0; i < w; ++i) {
        if (lanes[i] && lanes[i + w]) lanes[i] = applyBody(f, lanes[i], lanes[i + w]);
        else if (!lanes[i]) lanes[i] = lanes[i + w];
      }
    return lanes[0];
  }

  llvm::Value* entryAlloca(llvm::Type* type, int64_t n) {
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    return entry.CreateAlloca(type, entry.getInt64(n));
  }
  llvm::Value* loadAt(llvm::Type* type, llvm::Value* base, llvm::Value* i) {
    return b_.CreateLoad(type, b_.CreateInBoundsGEP(type, base, i));
  }
  void storeAt(llvm::Value* v, llvm::Value* base, llvm::Value* i) {
    b_.CreateStore(v, b_.CreateInBoundsGEP(v->getType(), base, i));
  }
  llvm::Value* mulAdd(llvm::Value* a, int64_t m, llvm::Value* c) {
    return b_.CreateAdd(b_.CreateMul(a, b_.getInt64(m), "", true, true), c, "", true, true);
  }

  // Runs chunk(start, length) over the chunks of `count` elements: the full ones in a
  // loop, then the last, shorter one (lengths are static, so each emission knows how many
  // lanes it fills).
  template <class F>
  void forChunks(int64_t count, F&& chunk) {
    int64_t full = count / kReduceChunk, last = count % kReduceChunk;
    if (full > 0)
      forRange(b_.getInt64(0), b_.getInt64(full), [&](llvm::Value* c) { chunk(mulAdd(c, kReduceChunk, b_.getInt64(0)), kReduceChunk); });
    if (last > 0) chunk(b_.getInt64(full * kReduceChunk), last);
  }

  // Whether a part folds only leading dimensions (column reductions: the kept dimensions
  // are the trailing, contiguous ones) and has no epilogue, so emitColumnPart applies.
  static bool foldsLeadingDims(const Part& part, const std::vector<const Value*>& outputs) {
    if (part.reduces.empty() || numElements(part.shape) <= 1) return false;
    for (const Op* r : part.reduces)
      if (r->numOperands() != 2 || !oneOpBody(*r)) return false;  // those fold row by row
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

  // Column reductions with the loops exchanged: the output range [lo, hi) is cut into
  // tiles, and for each row r of the folded dimensions (outer), every output element j
  // of the tile (inner, contiguous) folds its element of row r into its accumulator: lane
  // r mod kReduceLanes of j. Each output element folds its inputs in the order of
  // ir/reduction_order.h, as the row form does, and the inner loop vectorizes: its
  // iterations are different accumulators.
  void emitColumnPart(const Part& part, llvm::Value* lo, llvm::Value* hi, const std::vector<const Value*>& outputs,
                      const std::vector<llvm::Value*>& outPtrs) {
    const Op& first = *part.reduces[0];
    const int64_t kept = numElements(part.shape);
    const int64_t rows = numElements(first.operand(0)->type().shape()) / kept;
    std::vector<Fold> folds = foldsOf(part.reduces);
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
    // A tile's lanes take up to 512 KiB on the stack (L2 holds them): the rows of a tile
    // must be long for the input to stream at full speed, so tiles are wide.
    int64_t widest = 0;
    for (const Fold& f : folds) widest = std::max<int64_t>(widest, f.identity ? storageBytes(f.t) : 0);
    const int64_t kTile = widest == 0 ? kept : std::min(kept, (int64_t{512} << 10) / (kReduceLanes * widest * static_cast<int64_t>(folds.size())));
    for (Fold& f : folds)
      if (f.identity) f.lanes = entryAlloca(s_.registerType(f.t), kReduceLanes * kTile);
    llvm::Value* tiles = b_.CreateUDiv(b_.CreateAdd(b_.CreateSub(hi, lo), b_.getInt64(kTile - 1)), b_.getInt64(kTile));
    forRange(b_.getInt64(0), tiles, [&](llvm::Value* tile) {
      llvm::Value* ts = mulAdd(tile, kTile, lo);
      llvm::Value* te = b_.CreateAdd(ts, b_.getInt64(kTile));
      te = b_.CreateSelect(b_.CreateICmpSLT(te, hi), te, hi);
      llvm::Value* width = b_.CreateSub(te, ts);
      auto lane = [&](const Fold& f, llvm::Value* l) {
        return b_.CreateInBoundsGEP(s_.registerType(f.t), f.lanes, b_.CreateMul(l, b_.getInt64(kTile)));
      };
      auto overTile = [&](auto&& body) { forRange(b_.getInt64(0), width, body); };
      forChunks(rows, [&](llvm::Value* start, int64_t length) {
        const int64_t filled = std::min(length, kReduceLanes);
        for (const Fold& f : folds)
          if (f.identity)
            forRange(b_.getInt64(0), b_.getInt64(filled * kTile), [&](llvm::Value* i) { storeAt(f.identity, f.lanes, i); });
        forRange(b_.getInt64(0), b_.getInt64(length), [&](llvm::Value* r) {
          llvm::Value* row = b_.CreateAdd(start, r, "", true, true);
          llvm::Value* l = b_.CreateAnd(r, b_.getInt64(kReduceLanes - 1));
          std::vector<llvm::Value*> lanePtrs;
          for (const Fold& f : folds) lanePtrs.push_back(f.identity ? lane(f, l) : nullptr);
          overTile([&](llvm::Value* jj) {
            llvm::Value* j = b_.CreateAdd(ts, jj, "", true, true);
            Index element = newIndex(first.operand(0)->type().shape());
            element.linear = mulAdd(row, kept, j);
            for (size_t k = 0; k < folds.size(); ++k) {
              const Fold& f = folds[k];
              llvm::Value* x = valueAt(f.input(), element);
              if (f.identity) storeAt(applyBody(f, loadAt(s_.registerType(f.t), lanePtrs[k], jj), x), lanePtrs[k], jj);
              else store(applyBody(f, load(f.t, ptrOf(f.reduce), j), x), f.t, ptrOf(f.reduce), j);
            }
            for (size_t o : part.outputs)
              if (isSideOutput(outputs[o], first))
                store(valueAt(outputs[o], element), outputs[o]->type().dtype(), outPtrs[o], element.linear);
          });
        });
        for (const Fold& f : folds) {
          if (!f.identity) continue;
          llvm::Type* rt = s_.registerType(f.t);
          overTile([&](llvm::Value* jj) {
            std::vector<llvm::Value*> values;
            for (int64_t l = 0; l < filled; ++l) values.push_back(loadAt(rt, lane(f, b_.getInt64(l)), jj));
            llvm::Value* j = b_.CreateAdd(ts, jj, "", true, true);
            store(applyBody(f, load(f.t, ptrOf(f.reduce), j), laneTree(f, values)), f.t, ptrOf(f.reduce), j);
          });
        }
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

  // For output element `at`: each reduce folds the elements of the reduced dimensions
  // (row-major) from its init value, in the order of ir/reduction_order.h; side outputs
  // are stored on the way. Up to kReduceLanes elements fold as straight-line code; longer
  // lists go chunk by chunk, each chunk's elements computed into a stage on the stack
  // first (a loop that vectorizes exp, tanh, ... over the row), unless they are read
  // directly from a contiguous input row.
  void reduceAt(const std::vector<const Op*>& reduces, const std::vector<const Value*>& outputs,
                const std::vector<llvm::Value*>& outPtrs, Index& at) {
    const Op& first = *reduces[0];
    const Shape& input = first.operand(0)->type().shape();
    std::vector<bool> reduced(input.size(), false);
    for (int64_t d : first.attr("dimensions").asInts()) reduced[static_cast<size_t>(d)] = true;
    Shape reducedShape;
    for (size_t d = 0; d < input.size(); ++d)
      if (reduced[d]) reducedShape.push_back(input[d]);
    // Reducing the trailing dimensions: element k of this output is at at*count + k.
    bool trailing = std::is_partitioned(reduced.begin(), reduced.end(), [](bool r) { return !r; });
    std::vector<Fold> folds = foldsOf(reduces);
    std::vector<llvm::Value*> acc;
    for (const Fold& f : folds) {
      Index scalar = scalarIndex();
      acc.push_back(valueAt(f.init(), scalar));
    }
    // The members' slice of `v` for the group led by folds[g].
    auto ofGroup = [&](const std::vector<llvm::Value*>& v, size_t g) {
      return std::vector<llvm::Value*>(v.begin() + static_cast<ptrdiff_t>(g),
                                       v.begin() + static_cast<ptrdiff_t>(g + folds[g].members));
    };
    auto setGroup = [&](std::vector<llvm::Value*>& v, size_t g, const std::vector<llvm::Value*>& values) {
      for (size_t i = 0; i < values.size(); ++i) v[g + i] = values[i];
    };
    const int64_t count = numElements(reducedShape);
    // Input element k of this output element.
    // (Both forms of the index are given where they are cheap: divisions to recover one
    // from the other keep loops from vectorizing.)
    auto elementAt = [&](llvm::Value* k) {
      Index r = newIndex(reducedShape);
      r.linear = k;
      std::vector<llvm::Value*> dims;
      size_t keptAt = 0, reducedAt = 0;
      for (size_t d = 0; d < input.size(); ++d)
        dims.push_back(reduced[d] ? dimsOf(r)[reducedAt++] : dimsOf(at)[keptAt++]);
      Index e = withDims(input, std::move(dims));
      if (trailing) e.linear = mulAdd(linearOf(at), count, k);
      return e;
    };
    auto storeSideOutputs = [&](Index& element) {
      for (size_t o = 0; o < outputs.size(); ++o)
        if (isSideOutput(outputs[o], first))
          store(valueAt(outputs[o], element), outputs[o]->type().dtype(), outPtrs[o], linearOf(element));
    };
    if (count <= kReduceLanes) {
      std::vector<std::vector<llvm::Value*>> xs(folds.size());
      for (int64_t k = 0; k < count; ++k) {
        Index element = elementAt(b_.getInt64(k));
        for (size_t j = 0; j < folds.size(); ++j) xs[j].push_back(valueAt(folds[j].input(), element));
        storeSideOutputs(element);
      }
      for (size_t j = 0; j < folds.size(); ++j) {
        if (folds[j].identity) {
          if (count > 0) acc[j] = applyBody(folds[j], acc[j], laneTree(folds[j], xs[j]));
        } else if (folds[j].leads()) {
          for (int64_t k = 0; k < count; ++k) {
            std::vector<llvm::Value*> x;
            for (size_t i = 0; i < folds[j].members; ++i) x.push_back(xs[j + i][static_cast<size_t>(k)]);
            setGroup(acc, j, applyGroup(folds, j, ofGroup(acc, j), x));
          }
        }
      }
    } else {
      bool sideOutputs = false;
      for (const Value* v : outputs) sideOutputs = sideOutputs || isSideOutput(v, first);
      for (size_t j = 0; j < folds.size(); ++j) {
        Fold& f = folds[j];
        llvm::Type* rt = s_.registerType(f.t);
        f.acc = entryAlloca(rt, 1);
        b_.CreateStore(acc[j], f.acc);
        if (f.identity) f.lanes = entryAlloca(rt, kReduceLanes);
        // f16 and bf16 are staged: they are widened to f32 on the way.
        if (!(trailing && buffer_.count(f.input()) && !isNarrowFloat(f.t)))
          f.stage = entryAlloca(rt, std::min(count, kReduceChunk));
      }
      forChunks(count, [&](llvm::Value* start, int64_t length) {
        bool staging = sideOutputs;
        for (const Fold& f : folds) staging = staging || f.stage;
        if (staging) {
          forRange(b_.getInt64(0), b_.getInt64(length), [&](llvm::Value* k) {
            Index element = elementAt(b_.CreateAdd(start, k, "", true, true));
            for (const Fold& f : folds)
              if (f.stage) storeAt(valueAt(f.input(), element), f.stage, k);
            storeSideOutputs(element);
          });
        }
        // Element k of the chunk.
        auto element = [&](const Fold& f, llvm::Value* k) {
          if (f.stage) return loadAt(s_.registerType(f.t), f.stage, k);
          Index e = elementAt(b_.CreateAdd(start, k, "", true, true));
          return load(f.t, buffer_.at(f.input()), linearOf(e));
        };
        for (size_t g = 0; g < folds.size(); ++g) {
          const Fold& f = folds[g];
          llvm::Type* rt = s_.registerType(f.t);
          if (!f.identity) {
            if (!f.leads()) continue;  // the group's first fold updates every member
            forRange(b_.getInt64(0), b_.getInt64(length), [&](llvm::Value* k) {
              std::vector<llvm::Value*> accs, xs;
              for (size_t i = g; i < g + f.members; ++i) {
                accs.push_back(b_.CreateLoad(s_.registerType(folds[i].t), folds[i].acc));
                xs.push_back(element(folds[i], k));
              }
              std::vector<llvm::Value*> next = applyGroup(folds, g, accs, xs);
              for (size_t i = 0; i < next.size(); ++i) b_.CreateStore(next[i], folds[g + i].acc);
            });
            continue;
          }
          const int64_t filled = std::min(length, kReduceLanes), blocks = length / kReduceLanes;
          for (int64_t l = 0; l < filled; ++l) storeAt(f.identity, f.lanes, b_.getInt64(l));
          auto foldInto = [&](llvm::Value* l, llvm::Value* k) {
            storeAt(applyBody(f, loadAt(rt, f.lanes, l), element(f, k)), f.lanes, l);
          };
          // Whole blocks of lanes as vector operations (the elements of a block are
          // consecutive, in the stage or in the input row).
          if (blocks > 0) {
            llvm::Type* vt = llvm::FixedVectorType::get(rt, static_cast<unsigned>(kReduceLanes));
            forRange(b_.getInt64(0), b_.getInt64(blocks), [&](llvm::Value* block) {
              llvm::Value* k = b_.CreateMul(block, b_.getInt64(kReduceLanes), "", true, true);
              llvm::Value* from;
              if (f.stage) {
                from = b_.CreateInBoundsGEP(rt, f.stage, k);
              } else {
                Index e = elementAt(b_.CreateAdd(start, k, "", true, true));
                from = b_.CreateInBoundsGEP(rt, buffer_.at(f.input()), linearOf(e));
              }
              llvm::Value* x = b_.CreateAlignedLoad(vt, from, llvm::MaybeAlign(rt->getScalarSizeInBits() / 8));
              llvm::Value* v = b_.CreateAlignedLoad(vt, f.lanes, llvm::MaybeAlign(rt->getScalarSizeInBits() / 8));
              b_.CreateAlignedStore(applyBody(f, v, x), f.lanes, llvm::MaybeAlign(rt->getScalarSizeInBits() / 8));
            });
          }
          for (int64_t l = 0; l < length % kReduceLanes; ++l)
            foldInto(b_.getInt64(l), b_.getInt64(blocks * kReduceLanes + l));
          std::vector<llvm::Value*> values;
          for (int64_t l = 0; l < filled; ++l) values.push_back(loadAt(rt, f.lanes, b_.getInt64(l)));
          b_.CreateStore(applyBody(f, b_.CreateLoad(rt, f.acc), laneTree(f, values)), f.acc);
        }
      });
      for (size_t j = 0; j < folds.size(); ++j) acc[j] = b_.CreateLoad(s_.registerType(folds[j].t), folds[j].acc);
    }
    // The folded values stand for the reduces at this output element, for the epilogue.
    for (size_t j = 0; j < folds.size(); ++j) memo_[{folds[j].reduce->result(folds[j].member), at.id}] = acc[j];
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
      case O::Gather: return gatherAt(op, at);
      case O::DynamicSlice: return dynamicSliceAt(op, at);
      case O::DynamicUpdateSlice: return dynamicUpdateSliceAt(op, at);
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

  // ---- reduce_window ----
  // Result elements [lo, hi): each folds its window left to right in row-major order
  // from the init value, as the interpreter does; window positions over the padding or
  // between base-dilated elements fold the init value in their place.
  void emitReduceWindow(llvm::Value* lo, llvm::Value* hi, llvm::Value* result) {
    const Op& op = root_;
    if (op.numOperands() != 2) decline("unsupported: stablehlo.reduce_window of several inputs");
    const Shape& input = op.operand(0)->type().shape();
    const Shape& out = op.result()->type().shape();
    const DType t = op.result()->type().dtype();
    if (op.operand(0)->type().dtype() != t || op.region(0).argument(0)->type().dtype() != t)
      decline("unsupported: stablehlo.reduce_window with promoted element types");
    Fold f{&op, oneOpBody(op), t, nullptr};  // other bodies as scalar code
    const Window w = Window::ofReduceWindow(op, static_cast<int64_t>(input.size()));
    forRange(lo, hi, [&](llvm::Value* o) {
      Index at = newIndex(out);
      at.linear = o;
      Index scalar = scalarIndex();
      llvm::Value* init = valueAt(op.operand(1), scalar);
      llvm::Value* acc = entryAlloca(s_.registerType(t), 1);
      b_.CreateStore(init, acc);
      forRange(b_.getInt64(0), b_.getInt64(numElements(w.dimensions)), [&](llvm::Value* k) {
        Index wi = newIndex(w.dimensions);
        wi.linear = k;
        llvm::Value* inside = b_.getTrue();
        std::vector<llvm::Value*> dims;
        for (size_t d = 0; d < input.size(); ++d) {
          // q: the position in the padded, base-dilated input.
          llvm::Value* q = b_.CreateSub(
              b_.CreateAdd(b_.CreateMul(dimsOf(at)[d], b_.getInt64(w.strides[d])),
                           b_.CreateMul(dimsOf(wi)[d], b_.getInt64(w.windowDilations[d]))),
              b_.getInt64(w.padding[d].first));
          const int64_t dilated = input[d] == 0 ? 0 : (input[d] - 1) * w.baseDilations[d] + 1;
          inside = b_.CreateAnd(inside, b_.CreateICmpULT(q, b_.getInt64(dilated)));
          llvm::Value* base = b_.getInt64(w.baseDilations[d]);
          if (w.baseDilations[d] > 1) inside = b_.CreateAnd(inside, b_.CreateICmpEQ(b_.CreateURem(q, base), b_.getInt64(0)));
          dims.push_back(clampIndex(w.baseDilations[d] > 1 ? b_.CreateUDiv(q, base) : q, std::max<int64_t>(input[d], 1)));
        }
        llvm::Value* x = init;
        if (numElements(input) > 0) {
          Index element = withDims(input, std::move(dims));
          x = b_.CreateSelect(inside, valueAt(op.operand(0), element), init);
        }
        b_.CreateStore(applyBody(f, b_.CreateLoad(s_.registerType(t), acc), x), acc);
      });
      store(b_.CreateLoad(s_.registerType(t), acc), t, result, o);
    });
  }

  // A region of rank-0 values (a comparator, a selector) as scalar code: each op computed
  // as the interpreter computes it; what its terminator yields.
  std::vector<llvm::Value*> scalarRegion(const Region& region, const std::vector<llvm::Value*>& args) {
    std::unordered_map<const Value*, llvm::Value*> values;
    for (size_t i = 0; i < region.numArguments(); ++i) values[region.argument(i)] = args[i];
    auto get = [&](const Value* v) {
      auto it = values.find(v);
      if (it == values.end()) decline("unsupported: a region reading a value from outside");
      return it->second;
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
      if (op->is(OpCode::Constant)) {
        v = s_.constant(t, op->attr("value").asDense().bitsAt(0));
      } else if (op->is(OpCode::Compare)) {
        v = s_.compare(*op, get(op->operand(0)), get(op->operand(1)));
      } else if (op->is(OpCode::Select)) {
        v = b_.CreateSelect(get(op->operand(0)), get(op->operand(1)), get(op->operand(2)));
      } else if (op->info().has(kElementwise)) {
        std::vector<llvm::Value*> xs;
        for (const Value* x : op->operands()) xs.push_back(get(x));
        v = s_.roundToFormat(s_.elementwise(*op, op->operand(0)->type().dtype(), xs), t);
      } else {
        decline("unsupported: " + std::string(op->name()) + " in a region compiled to scalar code");
      }
      values[op->result()] = v;
    }
    decline("internal: a region without a terminator");
  }

  // ---- sort ----
  // Each iteration sorts one line along the sort dimension through the runtime kernel
  // kilnSortLine (runtime_kernels.h), with the comparator region compiled to a function
  // of its own: (buffers, a, b) -> whether element a goes before element b. Returns the
  // number of lines.
  int64_t emitSort() {
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
    auto* lessType = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, b_.getInt64Ty(), b_.getInt64Ty()}, false);
    auto* less = llvm::Function::Create(lessType, llvm::Function::PrivateLinkage, name_ + "_less", module_);
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
    for (size_t k = 0; k < n; ++k) bytes.push_back(static_cast<uint64_t>(storageBytes(op.operand(k)->type().dtype())));
    auto* sizes = new llvm::GlobalVariable(module_, llvm::ArrayType::get(b_.getInt64Ty(), n), true,
                                           llvm::GlobalValue::PrivateLinkage,
                                           llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<uint64_t>(bytes)));
    auto* lineType = llvm::FunctionType::get(
        b_.getVoidTy(), {ptr, b_.getInt64Ty(), ptr, b_.getInt64Ty(), b_.getInt64Ty(), b_.getInt64Ty(), ptr}, false);
    llvm::Value* sortLine = llvm::ConstantExpr::getIntToPtr(
        b_.getInt64(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(&kilnSortLine))), ptr);
    forRange(fn_->getArg(1), fn_->getArg(2), [&](llvm::Value* line) {
      b_.CreateCall(lineType, sortLine,
                    {fn_->getArg(0), line, less, b_.getInt64(static_cast<int64_t>(n)), b_.getInt64(length),
                     b_.getInt64(stride), sizes});
    });
    return lines;
  }

  // ---- select_and_scatter ----
  // The result starts at the init value; then each source element, in row-major order,
  // picks the operand element of its window that the select body prefers (a candidate
  // replaces the current pick when select(pick, candidate) is false; padding is never
  // picked) and is combined into the result there by the scatter body, as the
  // interpreter does.
  void emitSelectAndScatter(llvm::Value* result) {
    const Op& op = root_;
    const Shape& shape = op.operand(0)->type().shape();
    const Shape& source = op.operand(1)->type().shape();
    const DType t = op.result()->type().dtype();
    const DType ot = op.operand(0)->type().dtype();
    if (op.operand(1)->type().dtype() != t || op.region(1).argument(0)->type().dtype() != t ||
        op.region(0).argument(0)->type().dtype() != ot)
      decline("unsupported: stablehlo.select_and_scatter with promoted element types");
    const Window w = Window::ofReduceWindow(op, static_cast<int64_t>(shape.size()));
    const Op& combine = [&]() -> const Op& {
      const Region& body = op.region(1);
      if (body.size() != 2) decline("unsupported: a scatter body of " + std::to_string(body.size() - 1) + " ops");
      return *body.front();
    }();
    if (!combine.info().has(kElementwise) || combine.numOperands() != 2)
      decline("unsupported: a scatter body that is not one binary op of its arguments");
    Index scalar = scalarIndex();
    llvm::Value* init = valueAt(op.operand(2), scalar);
    forRange(b_.getInt64(0), b_.getInt64(numElements(shape)), [&](llvm::Value* i) { store(init, t, result, i); });
    if (numElements(source) == 0 || numElements(shape) == 0) return;
    llvm::Type* it = b_.getInt64Ty();
    llvm::Value* pickAt = entryAlloca(it, 1);  // linear index of the pick, -1: none yet
    llvm::Value* pickValue = entryAlloca(s_.registerType(ot), 1);
    forRange(b_.getInt64(0), b_.getInt64(numElements(source)), [&](llvm::Value* sLinear) {
      Index si = newIndex(source);
      si.linear = sLinear;
      b_.CreateStore(b_.getInt64(-1), pickAt);
      b_.CreateStore(llvm::Constant::getNullValue(s_.registerType(ot)), pickValue);
      forRange(b_.getInt64(0), b_.getInt64(numElements(w.dimensions)), [&](llvm::Value* k) {
        Index wi = newIndex(w.dimensions);
        wi.linear = k;
        llvm::Value* inside = b_.getTrue();
        std::vector<llvm::Value*> dims;
        for (size_t d = 0; d < shape.size(); ++d) {
          llvm::Value* q = b_.CreateSub(b_.CreateAdd(b_.CreateMul(dimsOf(si)[d], b_.getInt64(w.strides[d])), dimsOf(wi)[d]),
                                        b_.getInt64(w.padding[d].first));
          inside = b_.CreateAnd(inside, b_.CreateICmpULT(q, b_.getInt64(shape[d])));
          dims.push_back(clampIndex(q, shape[d]));
        }
        Index element = withDims(shape, std::move(dims));
        llvm::Value* x = valueAt(op.operand(0), element);
        llvm::Value* at = b_.CreateLoad(it, pickAt);
        llvm::Value* none = b_.CreateICmpSLT(at, b_.getInt64(0));
        llvm::Value* keep = scalarRegion(op.region(0), {b_.CreateLoad(s_.registerType(ot), pickValue), x}).at(0);
        // Take the candidate when nothing is picked yet or the pick does not win.
        llvm::Value* take = b_.CreateAnd(inside, b_.CreateOr(none, b_.CreateNot(keep)));
        b_.CreateStore(b_.CreateSelect(take, linearOf(element), at), pickAt);
        b_.CreateStore(b_.CreateSelect(take, x, b_.CreateLoad(s_.registerType(ot), pickValue)), pickValue);
      });
      llvm::Value* at = b_.CreateLoad(it, pickAt);
      auto* apply = llvm::BasicBlock::Create(ctx_, "apply", fn_);
      auto* next = llvm::BasicBlock::Create(ctx_, "next", fn_);
      b_.CreateCondBr(b_.CreateICmpSGE(at, b_.getInt64(0)), apply, next);
      b_.SetInsertPoint(apply);
      llvm::Value* x = valueAt(op.operand(1), si);
      const Region& body = op.region(1);
      auto arg = [&](size_t i) { return combine.operand(i) == body.argument(0) ? load(t, result, at) : x; };
      store(s_.roundToFormat(s_.elementwise(combine, t, {arg(0), arg(1)}), t), t, result, at);
      b_.CreateBr(next);
      b_.SetInsertPoint(next);
    });
  }

  // ---- scatter ----
  // The result starts as a copy of the operand; then, in the interpreter's order (update
  // scatter indices row-major, each one's window row-major), each update element whose
  // result index lies inside is combined into it by the body: one binary op of (current,
  // update), or the update itself for a body that returns it. Out-of-bounds elements
  // are skipped, as the spec says.
  void emitScatter(llvm::Value* result) {
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
    if (!(body.size() == 1 && body.terminator()->operand(0) == body.argument(1))) combine = &bodyOp(op);
    auto has = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };

    forRange(b_.getInt64(0), b_.getInt64(numElements(shape)), [&](llvm::Value* i) {
      Index at = newIndex(shape);
      at.linear = i;
      store(valueAt(op.operand(0), at), t, result, i);
    });
    if (numElements(updates) == 0 || numElements(shape) == 0) return;
    Shape scatterShape, windowShape;
    for (size_t d = 0; d < updates.size(); ++d)
      (has(dn.updateWindowDims, static_cast<int64_t>(d)) ? windowShape : scatterShape).push_back(updates[d]);
    forRange(b_.getInt64(0), b_.getInt64(numElements(scatterShape)), [&](llvm::Value* sLinear) {
      Index si = newIndex(scatterShape);
      si.linear = sLinear;
      const std::vector<llvm::Value*> sc = dimsOf(si);
      auto batchOf = [&](int64_t d) { return sc[static_cast<size_t>(d < dn.indexVectorDim ? d : d - 1)]; };
      std::vector<llvm::Value*> start(shape.size(), b_.getInt64(0));
      for (size_t k = 0; k < dn.scatterDimsToOperandDims.size(); ++k) {
        std::vector<llvm::Value*> dims;
        for (int64_t d = 0; d < indices.rank(); ++d)
          dims.push_back(d == dn.indexVectorDim ? b_.getInt64(static_cast<int64_t>(k)) : batchOf(d));
        Index ii = withDims(indices.shape(), std::move(dims));
        start[static_cast<size_t>(dn.scatterDimsToOperandDims[k])] = indexValue(valueAt(op.operand(1), ii), indices.dtype());
      }
      for (size_t i = 0; i < dn.inputBatchingDims.size(); ++i)
        start[static_cast<size_t>(dn.inputBatchingDims[i])] = batchOf(dn.scatterIndicesBatchingDims[i]);
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
          auto arg = [&](size_t i) { return combine->operand(i) == body.argument(0) ? load(t, result, r) : x; };
          x = s_.roundToFormat(s_.elementwise(*combine, t, {arg(0), arg(1)}), t);
        }
        store(x, t, result, r);
        b_.CreateBr(next);
        b_.SetInsertPoint(next);
      });
    });
  }

  // ---- index maps that read their indices from tensors ----
  // An index element as i64, as the interpreter reads it: unsigned values past INT64_MAX
  // become INT64_MAX (they are clamped anyway).
  llvm::Value* indexValue(llvm::Value* v, DType t) {
    if (isBool(t) || !isInteger(t)) decline("unsupported: indices of type " + std::string(name(t)));
    if (bitWidth(t) < 64) return isSignedInt(t) ? b_.CreateSExt(v, b_.getInt64Ty()) : b_.CreateZExt(v, b_.getInt64Ty());
    if (isSignedInt(t)) return v;
    return b_.CreateSelect(b_.CreateICmpSLT(v, b_.getInt64(0)), b_.getInt64(INT64_MAX), v);
  }
  // The start of a slice of `slice` elements along a dimension of `size`, clamped so that
  // the slice lies inside (the spec's clamp of dynamic starts).
  llvm::Value* clampStart(llvm::Value* start, int64_t size, int64_t slice) {
    return clampIndex(start, std::max<int64_t>(size - slice, 0) + 1);
  }
  // Start operand `i` of a dynamic slice (a rank-0 tensor).
  llvm::Value* startOperand(const Op& op, size_t i) {
    Index scalar = scalarIndex();
    return indexValue(valueAt(op.operand(i), scalar), op.operand(i)->type().dtype());
  }

  llvm::Value* dynamicSliceAt(const Op& op, Index& at) {
    const Shape& shape = op.operand(0)->type().shape();
    const std::vector<int64_t>& sizes = op.attr("slice_sizes").asInts();
    std::vector<llvm::Value*> dims;
    for (size_t d = 0; d < shape.size(); ++d)
      dims.push_back(b_.CreateAdd(clampStart(startOperand(op, 1 + d), shape[d], sizes[d]), dimsOf(at)[d]));
    Index inner = withDims(shape, std::move(dims));
    return valueAt(op.operand(0), inner);
  }

  // The update where the index falls inside it, else the operand (as a kernel over the
  // whole result: not yet in place).
  llvm::Value* dynamicUpdateSliceAt(const Op& op, Index& at) {
    const Shape& shape = op.operand(0)->type().shape();
    const Shape& update = op.operand(1)->type().shape();
    llvm::Value* old = valueAt(op.operand(0), at);
    if (numElements(update) == 0) return old;
    llvm::Value* inside = b_.getTrue();
    std::vector<llvm::Value*> dims;
    for (size_t d = 0; d < shape.size(); ++d) {
      llvm::Value* rel = b_.CreateSub(dimsOf(at)[d], clampStart(startOperand(op, 2 + d), shape[d], update[d]));
      inside = b_.CreateAnd(inside, b_.CreateICmpULT(rel, b_.getInt64(update[d])));
      dims.push_back(clampIndex(rel, update[d]));
    }
    Index inner = withDims(update, std::move(dims));
    return b_.CreateSelect(inside, valueAt(op.operand(1), inner), old);
  }

  // Result element `at` of a gather: its batch coordinates (the result dimensions that are
  // not offset dimensions) pick an index vector of start_indices; the operand index is
  // that start (clamped so the slice fits), plus the window offset along the dimensions
  // that are not collapsed, plus the batch coordinate along operand batching dimensions.
  llvm::Value* gatherAt(const Op& op, Index& at) {
    const GatherDims dn = GatherDims::fromAttr(op.attr("dimension_numbers"));
    const Shape& operand = op.operand(0)->type().shape();
    const Type& indices = op.operand(1)->type();
    const std::vector<int64_t>& sliceSizes = op.attr("slice_sizes").asInts();
    auto has = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    std::vector<llvm::Value*> batch;  // the result's batch coordinates, in order
    for (size_t d = 0; d < at.shape.size(); ++d)
      if (!has(dn.offsetDims, static_cast<int64_t>(d))) batch.push_back(dimsOf(at)[d]);
    // Index tensor dimension d (not the index vector dimension) is batch coordinate
    // d or d - 1.
    auto batchOf = [&](int64_t d) { return batch[static_cast<size_t>(d < dn.indexVectorDim ? d : d - 1)]; };
    auto component = [&](int64_t k) {
      std::vector<llvm::Value*> dims;
      for (int64_t d = 0; d < indices.rank(); ++d) dims.push_back(d == dn.indexVectorDim ? b_.getInt64(k) : batchOf(d));
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

// A kernel's symbol: its number, then its op and line, so that dumps and profiles say
// what each one computes ("kernel3_fusion_input_line12").
std::string kernelName(size_t index, const Op& op) {
  std::string name = "kernel" + std::to_string(index) + "_";
  std::string opName(op.name());
  if (op.is(OpCode::Fusion)) opName += "_" + op.attr("kind").asString();
  for (char c : opName.substr(opName.find('.') + 1)) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  SourcePos pos = op.pos;
  // A fusion has no line of its own: its root's (the op of its first result).
  if (op.is(OpCode::Fusion))
    if (const Op* root = op.region(0).terminator()->operand(0)->definingOp()) pos = root->pos;
  if (pos.known()) name += "_line" + std::to_string(pos.line);
  return name;
}

NativeKernels compileKernels(const std::vector<KernelRequest>& requests, const CompileOptions& options) {
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
    std::string name = kernelName(names.size(), *op);
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
  out.emitSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!names.empty()) {
    std::vector<void*> addresses = out.jit->add(std::move(module), std::move(context), names, options.dumpDir,
                                                out.optimizeSeconds, out.codegenSeconds);
    for (size_t i = 0; i < compiled.size(); ++i)
      out.kernels[compiled[i]] = {reinterpret_cast<KernelFn>(addresses[i]), iterations[i].first, iterations[i].second};
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace kiln::cpu
