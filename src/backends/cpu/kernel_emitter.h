// The kernel emitter's class, shared by the files that emit a kernel's parts: the
// iteration space, values and index maps (kernel_emitter.cc), reductions and windowed
// folds (reduction_emitter.cc), column reductions split into pieces run side by side
// (split_columns_emitter.cc), dots and convolutions (contraction_emitter.cc), and the ops whose
// reads or writes depend on data:
// gather, dynamic slices, scatter, select_and_scatter, sort (data_dependent_emitter.cc).
// Included only by those files: it is where LLVM's IR builder meets kiln's ops.
#pragma once

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/cpu/native_kernels.h"
#include "backends/cpu/scalar_ir.h"
#include "ir/attr_records.h"
#include "ir/reduction_order.h"

namespace kiln::cpu {

inline bool supported(DType t) {
  return isBool(t) || t == DType::F32 || t == DType::F64 || isNarrowFloat(t) || isComplex(t) || isInteger(t);
}

// Integers narrower than a byte (i2, i4, ui2, ui4) live in one byte each, sign- or
// zero-extended as the interpreter keeps them, and compute in their own width.
inline bool isSubByteInt(DType t) { return isInteger(t) && !isBool(t) && bitWidth(t) < 8; }

// Complex values are computed elementwise and moved by index maps; folds, dots, sorts
// and scatters of them stay with the interpreter.
inline void requireReal(const Type& t, const char* where) {
  if (t.isTensor() && isComplex(t.dtype()))
    decline(std::string("unsupported: ") + where + " of " + std::string(name(t.dtype())));
}

inline void requireSupported(const Type& t) {
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
      : ctx_(module.getContext()),
        module_(module),
        b_(ctx_),
        s_(b_, module),
        root_(*request.op),
        precomputed_(request.precomputed),
        inPlace_(request.inPlace),
        name_(name) {}

  // Emits the kernel; returns how many iterations its [begin, end) range spans (the
  // elements of its results, or of its reductions' results) and the chunk size worth a
  // thread: about 2^16 elements of work.
  Kernel emit();

 private:
  // The multiply-adds one result element costs where the kernel computes a dot or a
  // convolution itself (1 where it computes neither): its chunks are that much shorter.
  int64_t productsPerElement() const;

  // Creates the kernel's function (named `name`, or the kernel's name) and its entry
  // block, loads the buffer pointers (once, before the loops) and returns the outputs'.
  // What an earlier function of the kernel computed is forgotten.
  std::vector<llvm::Value*> beginFunction(const std::vector<const Value*>& inputs,
                                          const std::vector<const Value*>& outputs,
                                          const std::string& name = "");

  // ---- types, loads and stores ----
  llvm::Value* loadPointer(llvm::Value* buffers, size_t slot) {
    llvm::Value* at = b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), buffers, slot);
    auto* p = b_.CreateLoad(b_.getPtrTy(), at);
    p->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx_, {}));
    return p;
  }

  // A register value of `t` as memory holds it (booleans a byte, f16/bf16 their 16 bits)
  // and back.
  llvm::Value* toStorage(llvm::Value* v, DType t);
  llvm::Value* fromStorage(llvm::Value* v, DType t);

  llvm::Value* load(DType t, llvm::Value* base, llvm::Value* linear);

  // `v` is already rounded to the format (roundToFormat): narrowing is exact.
  void store(llvm::Value* v, DType t, llvm::Value* base, llvm::Value* linear);

  // Stores each of `values` at `at` (linear index `linear`) to its buffer in `ptrs`,
  // every one computed before any is stored: a result may then be written over an
  // operand the kernel reads only at that index (buffer assignment's in-place reuse, a
  // donated argument), whichever of the outputs reads it.
  void storeAll(const std::vector<const Value*>& values, const std::vector<llvm::Value*>& ptrs, Index& at,
                llvm::Value* linear) {
    std::vector<llvm::Value*> computed;
    for (const Value* v : values) computed.push_back(valueAt(v, at));
    for (size_t k = 0; k < values.size(); ++k) store(computed[k], values[k]->type().dtype(), ptrs[k], linear);
  }

  // ---- indices ----
  Index newIndex(const Shape& shape) { return Index{nextId_++, shape, nullptr, {}}; }
  Index scalarIndex() {
    Index at = newIndex({});
    at.linear = b_.getInt64(0);
    return at;
  }

  llvm::Value* linearOf(Index& at);

  const std::vector<llvm::Value*>& dimsOf(Index& at);

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
  static std::vector<Part> loopParts(const std::vector<const Value*>& outputs);

  // An input fusion: one part per group of reduces over inputs of one shape along the same
  // dimensions (each with one input and a body that is one binary op of its two
  // arguments). Its other outputs have a part's input shape (side outputs, stored as the
  // inner loop visits each element) or result shape (an epilogue of the reduces, computed
  // once they are folded).
  std::vector<Part> reductionParts(const std::vector<const Value*>& outputs);

  // The loop over this part's iterations, [offset, offset + its size) clipped to
  // [begin, end). `wholeRows`: see forRows.
  void emitPart(const Part& part, int64_t offset, llvm::Value* begin, llvm::Value* end,
                const std::vector<const Value*>& outputs, const std::vector<llvm::Value*>& outPtrs,
                bool wholeRows);

  // The kernel's unit (Kernel::unit): a row of its one part when that part is a loop
  // over whole rows of at most `grain` elements, else 1. A row's bounds are then
  // constants: the vectorized loop along it needs no remainder loop after it when the
  // row is a multiple of the vectors, a third less code to optimize and select
  // instructions for (ResNet-50's kernels compiled in 115 -> 73 ms).
  static int64_t rowUnit(const std::vector<Part>& parts, const std::vector<const Value*>& outputs, int64_t grain);

  // The elements [lo, hi) of `shape` (row-major), visited row by row: the outer loop
  // over the rows (the leading dimensions), the inner one along the last dimension, so
  // that the inner loop knows every coordinate without dividing (broadcasts and other
  // index maps then read contiguously or not at all, and the loop vectorizes):
  // body(at) for each element. `parallel`: the inner loop's iterations touch memory
  // independently (markParallel). `wholeRows`: lo and hi are multiples of the row
  // (Kernel::unit), so every row is visited whole.
  template <class F>
  void forRows(const Shape& shape, llvm::Value* lo, llvm::Value* hi, F&& body, bool parallel = false,
               bool wholeRows = false) {
    const int64_t width = shape.back();
    Shape rowShape(shape.begin(), shape.end() - 1);
    llvm::Value* w = b_.getInt64(width);
    llvm::Value* firstRow = b_.CreateUDiv(lo, w);
    llvm::Value* lastRow = b_.CreateUDiv(b_.CreateAdd(hi, b_.getInt64(width - 1)), w);
    forRange(firstRow, lastRow, [&](llvm::Value* row) {
      llvm::Value* base = b_.CreateMul(row, w, "", true, true);
      llvm::Value* from = b_.getInt64(0);
      llvm::Value* to = w;
      if (!wholeRows) {
        from = b_.CreateSub(lo, base);
        to = b_.CreateSub(hi, base);
        from = b_.CreateSelect(b_.CreateICmpSGT(from, b_.getInt64(0)), from, b_.getInt64(0));
        to = b_.CreateSelect(b_.CreateICmpSLT(to, w), to, w);
      }
      Index rowIndex = newIndex(rowShape);
      rowIndex.linear = row;
      std::vector<llvm::Value*> rowDims = dimsOf(rowIndex);
      forRange(
          from, to,
          [&](llvm::Value* j) {
            std::vector<llvm::Value*> dims = rowDims;
            dims.push_back(j);
            Index at = withDims(shape, std::move(dims));
            at.linear = b_.CreateAdd(base, j, "", true, true);
            body(at);
          },
          parallel);
    });
  }

  // Emits `for (i = lo; i < hi; ++i) body(i)` and continues after it; `parallel`: see
  // markParallel.
  template <class F>
  void forRange(llvm::Value* lo, llvm::Value* hi, F&& body, bool parallel = false) {
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* loop = llvm::BasicBlock::Create(ctx_, "loop", fn_);
    auto* done = llvm::BasicBlock::Create(ctx_, "done", fn_);
    const size_t blocksBefore = fn_->size();
    b_.CreateCondBr(b_.CreateICmpSLT(lo, hi), loop, done);
    b_.SetInsertPoint(loop);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
    i->addIncoming(lo, pre);
    body(static_cast<llvm::Value*>(i));
    llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), "next", true, true);
    i->addIncoming(next, b_.GetInsertBlock());
    llvm::Instruction* latch = b_.CreateCondBr(b_.CreateICmpEQ(next, hi), done, loop);
    if (parallel) markParallel(loop, blocksBefore, latch);
    b_.SetInsertPoint(done);
  }

  // Tells the vectorizer that the iterations of the loop starting at `loop` (its other
  // blocks: those created after the first `blocksBefore`) read and write memory
  // independently of each other: every load and store in it joins one access group
  // that the latch's loop metadata lists as parallel. True of a kernel's element loop,
  // whose operands are read only where no output is stored, or (written in place) only
  // at the index an output is stored at, after every output of that index is computed
  // (storeAll): the vectorizer then needs no run-time check that stores miss loads,
  // which results written over an operand always fail.
  void markParallel(llvm::BasicBlock* loop, size_t blocksBefore, llvm::Instruction* latch);

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
  static const Op* oneOpBody(const Region& body);

  std::vector<Fold> foldsOf(const std::vector<const Op*>& reduces);

  // body(acc, x) of a single-input reduce, rounded to its format.
  llvm::Value* applyBody(const Fold& f, llvm::Value* acc, llvm::Value* x);
  // The body of a group's reduce on its members' accumulators and elements.
  std::vector<llvm::Value*> applyGroup(const std::vector<Fold>& folds, size_t group,
                                       const std::vector<llvm::Value*>& accs,
                                       const std::vector<llvm::Value*>& xs);

  // The lanes' values combined by halving (ir/reduction_order.h); null lanes are empty
  // (they hold the identity, which changes nothing, so no op is emitted for them).
  llvm::Value* laneTree(const Fold& f, std::vector<llvm::Value*> lanes);

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
      forRange(b_.getInt64(0), b_.getInt64(full), [&](llvm::Value* c) {
        chunk(mulAdd(c, kReduceChunk, b_.getInt64(0)), kReduceChunk);
      });
    if (last > 0) chunk(b_.getInt64(full * kReduceChunk), last);
  }

  // Whether a part folds only leading dimensions (column reductions: the kept dimensions
  // are the trailing, contiguous ones) and has no epilogue, so emitColumnPart applies.
  static bool foldsLeadingDims(const Part& part, const std::vector<const Value*>& outputs);

  // Where the result of `reduce`, one of the part's folds, is stored.
  static llvm::Value* resultPointer(const Part& part, const Op* reduce, const std::vector<const Value*>& outputs,
                                    const std::vector<llvm::Value*>& outPtrs);

  // Column reductions with the loops exchanged: the output range [lo, hi) is cut into
  // tiles, and for each row r of the folded dimensions (outer), every output element j
  // of the tile (inner, contiguous) folds its element of row r into its accumulator: lane
  // r mod kReduceLanes of j. Each output element folds its inputs in the order of
  // ir/reduction_order.h, as the row form does, and the inner loop vectorizes: its
  // iterations are different accumulators.
  void emitColumnPart(const Part& part, llvm::Value* lo, llvm::Value* hi,
                      const std::vector<const Value*>& outputs,
                      const std::vector<llvm::Value*>& outPtrs);

  // A kernel whose column reduction (the one part that folds leading dimensions, every
  // fold with an identity) is split into pieces that run side by side, when it is large
  // (native_kernels.h: Kernel::combine); else nothing, and the kernel is emitted whole.
  // Its other parts must be row reductions of the same input (they fold the dimensions
  // the column part keeps): each row they reduce is the row the pieces fold next, so
  // the input is read once for both.
  std::optional<Kernel> emitSplitColumns(const std::vector<Part>& parts, const std::vector<const Value*>& inputs,
                                         const std::vector<const Value*>& outputs);

  // oneOpBody, or a decline (a reducer or scatter body the caller cannot compile as
  // scalar code).
  const Op& bodyOp(const Region& body);

  // For output element `at`: each reduce folds the elements of the reduced dimensions
  // (row-major) from its init value, in the order of ir/reduction_order.h; side outputs
  // are stored on the way. Up to kReduceLanes elements fold as straight-line code; longer
  // lists go chunk by chunk, each chunk's elements computed into a stage on the stack
  // first (a loop that vectorizes exp, tanh, ... over the row), unless they are read
  // directly from a contiguous input row.
  void reduceAt(const std::vector<const Op*>& reduces, const std::vector<const Value*>& outputs,
                const std::vector<llvm::Value*>& outPtrs, Index& at);

  // An output of an input fusion stored per input element (not a reduce, and of the
  // reduced inputs' shape).
  static bool isSideOutput(const Value* v, const Op& reduce);

  // ---- values ----
  llvm::Value* valueAt(const Value* v, Index& at);

  // The operand at the same index (elementwise), or at index 0 when it is a scalar
  // standing for a tensor (select's predicate, clamp's bounds).
  llvm::Value* operandAt(const Op& op, size_t i, Index& at);

  llvm::Value* opAt(const Op& op, Index& at);

  llvm::Value* constantAt(const Op& op, Index& at);

  // Each operand is read at its own offset, clamped into range so that every read is in
  // bounds; the selects then keep the one whose range holds the index.
  llvm::Value* concatenateAt(const Op& op, Index& at);

  llvm::Value* reducePrecisionAt(const Op& op, Index& at);
  // contraction_emitter.cc: a dot's sum over its contracting dimensions, and the same
  // sum over a convolution's window and input features.
  llvm::Value* dotAt(const Op& op, Index& at);
  llvm::Value* convolutionAt(const Op& op, Index& at);
  // Where one window position of an output position reads: the lhs and rhs coordinates
  // of every dimension but the features, and whether it falls inside the input (else
  // the lhs element, read clamped, counts as zero).
  struct ConvolutionTap {
    std::vector<llvm::Value*> lhs, rhs;
    llvm::Value* inside;
  };
  ConvolutionTap convolutionTap(const Op& op, llvm::Value* batch, const std::vector<llvm::Value*>& outSpatial,
                                const std::vector<llvm::Value*>& k);
  // The two factors of one product at `tap`: lhs feature `inFeature` (zero outside) and
  // kernel element (ci, f), both in the result's compute type.
  std::pair<llvm::Value*, llvm::Value*> convolutionOperands(const Op& op, const ConvolutionTap& tap,
                                                            llvm::Value* inFeature, llvm::Value* ci, llvm::Value* f);
  // A convolution with the features last in its input, kernel and result, as a kernel
  // of its own or the convolution of a dot_epilogue that the kernel computes (then the
  // epilogue follows at each element of the position): every feature of an output
  // position at once, features innermost; else nothing (convolutionAt computes it
  // element by element).
  std::optional<Kernel> emitConvolutionByPosition(const std::vector<const Value*>& inputs,
                                                  const std::vector<const Value*>& outputs);
  // acc + a * b in t's arithmetic, as the interpreter's dots and convolutions sum: or of
  // ands for booleans, wrapping integers, complex parts, floats rounded twice (no FMA).
  llvm::Value* multiplyAdd(DType t, llvm::Value* acc, llvm::Value* a, llvm::Value* b);

  // The input element at window position `position` of result element `out` (strides,
  // window dilation, padding, base dilation); `inside` is false where that position
  // falls on the padding or between base-dilated elements (the index is then clamped
  // into range, to read something harmless).
  Index windowElement(const Window& w, const Shape& input, Index& out, Index& position, llvm::Value*& inside);

  llvm::Value* clampIndex(llvm::Value* i, int64_t size) {
    llvm::Value* lo = b_.CreateSelect(b_.CreateICmpSLT(i, b_.getInt64(0)), b_.getInt64(0), i);
    return b_.CreateSelect(b_.CreateICmpSGT(lo, b_.getInt64(size - 1)), b_.getInt64(size - 1), lo);
  }

  // ---- reduce_window ----
  // Windows of at most this many positions (a 3x3 pool) are visited in straight-line
  // code: their positions' coordinates are constants, found without a division.
  static constexpr int64_t kUnrolledWindowPositions = 16;
  // visit(k) for each window position k: unrolled for a small window, else a loop.
  template <class F>
  void forWindow(int64_t positions, F&& visit) {
    if (positions <= kUnrolledWindowPositions) {
      for (int64_t k = 0; k < positions; ++k) visit(b_.getInt64(k));
    } else {
      forRange(b_.getInt64(0), b_.getInt64(positions), visit);
    }
  }
  // Result elements [lo, hi): each folds its window left to right in row-major order
  // from the init value, as the interpreter does; window positions over the padding or
  // between base-dilated elements fold the init value in their place.
  // With a row width w > 1 (reduceWindowRowWidth), [lo, hi) counts rows of w result
  // elements instead, each folded across its row at once.
  void emitReduceWindow(llvm::Value* lo, llvm::Value* hi, llvm::Value* result);
  // The reduce_window root's rows: the size of its last dimension when its window spans
  // one element of it, unstrided and unpadded, over a small window (NHWC pooling): a
  // loop over that dimension, innermost, reads consecutive elements the vectorizer
  // takes. Otherwise 1.
  int64_t reduceWindowRowWidth() const;

  // A region of rank-0 values (a comparator, a selector) as scalar code: each op computed
  // as the interpreter computes it; what its terminator yields.
  std::vector<llvm::Value*> scalarRegion(const Region& region,
                                         const std::vector<llvm::Value*>& args);

  // ---- sort ----
  // Each iteration sorts one line along the sort dimension through the runtime kernel
  // kilnSortLine (runtime_kernels.h), with the comparator region compiled to a function
  // of its own: (buffers, a, b) -> whether element a goes before element b. Returns the
  // number of lines.
  int64_t emitSort();

  // ---- rng_bit_generator ----
  // Each iteration computes one draw through the runtime kernel kilnRngBits (the
  // generators the interpreter runs, kernels/random_bits.h); iteration 0 also writes the
  // new state. Declines layouts the generators refuse (the interpreter then says why).
  // Returns the number of iterations (at least one, for the state).
  int64_t emitRngBitGenerator(const std::vector<const Value*>& inputs, const std::vector<const Value*>& outputs);

  // ---- select_and_scatter ----
  // The result starts at the init value; then each source element, in row-major order,
  // picks the operand element of its window that the select body prefers (a candidate
  // replaces the current pick when select(pick, candidate) is false; padding is never
  // picked) and is combined into the result there by the scatter body, as the
  // interpreter does.
  void emitSelectAndScatter(llvm::Value* result);

  // ---- scatter ----
  // The result starts as a copy of the operand; then, in the interpreter's order (update
  // scatter indices row-major, each one's window row-major), each update element whose
  // result index lies inside is combined into it by the body: one binary op of (current,
  // update), or the update itself for a body that returns it. Out-of-bounds elements
  // are skipped, as the spec says.
  void emitScatter(llvm::Value* result);

  // ---- index maps that read their indices from tensors ----
  // An index element as i64, as the interpreter reads it: unsigned values past INT64_MAX
  // become INT64_MAX (they are clamped anyway).
  llvm::Value* indexValue(llvm::Value* v, DType t);
  // The start of a slice of `slice` elements along a dimension of `size`, clamped so that
  // the slice lies inside (the spec's clamp of dynamic starts).
  llvm::Value* clampStart(llvm::Value* start, int64_t size, int64_t slice);
  // Start operand `i` of a dynamic slice (a rank-0 tensor).
  llvm::Value* startOperand(const Op& op, size_t i);

  llvm::Value* dynamicSliceAt(const Op& op, Index& at);

  // The update where the index falls inside it, else the operand (as a kernel over the
  // whole result: not yet in place).
  llvm::Value* dynamicUpdateSliceAt(const Op& op, Index& at);

  // Result element `at` of a gather: its batch coordinates (the result dimensions that are
  // not offset dimensions) pick an index vector of start_indices; the operand index is
  // that start (clamped so the slice fits), plus the window offset along the dimensions
  // that are not collapsed, plus the batch coordinate along operand batching dimensions.
  llvm::Value* gatherAt(const Op& op, Index& at);

  llvm::Value* padAt(const Op& op, Index& at);

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;
  ScalarIR s_;
  const Op& root_;
  std::vector<const Value*> precomputed_;
  bool inPlace_;  // KernelRequest::inPlace
  std::string name_;
  llvm::Function* fn_ = nullptr;
  std::unordered_map<const Value*, llvm::Value*> buffer_;
  std::map<std::pair<const Value*, int>, llvm::Value*> memo_;
  int nextId_ = 0;
  // For a kernel that writes no result over an operand: each buffer pointer's alias
  // metadata (MD_alias_scope, MD_noalias), telling LLVM that results and operands never
  // meet, so its vector loops need no run-time overlap checks and no scalar copy.
  struct Apart {
    llvm::MDNode* scope;
    llvm::MDNode* noalias;
  };
  std::unordered_map<const llvm::Value*, Apart> apart_;
  void tagAccess(llvm::Instruction* access, const llvm::Value* base) const;
};

}  // namespace kiln::cpu
