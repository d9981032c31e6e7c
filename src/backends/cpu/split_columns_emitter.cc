// Column reductions split into pieces that run side by side (kernel_emitter.h:
// emitSplitColumns). emitColumnPart folds every row of a column reduction in one
// iteration range, so one thread streams the whole input; here the folded rows are cut
// where ir/reduction_order.h already cuts them. A column's elements go to chunks of
// kReduceChunk rows and, within a chunk, to kReduceLanes lanes (row r to lane r mod
// kReduceLanes), each lane folding its rows left to right from the identity. The lanes
// are independent, so each piece of phase one folds the rows of some lanes of one chunk
// into those lanes' accumulators, kept in a scratch buffer (one row of them per lane);
// phase two combines each column's lanes by halving and its chunks from the init value.
// Every operation is the one the interpreter does, in its order: the bits are the same
// as emitColumnPart's, for any split of either phase.
//
// Row reductions of the same input ride along (W7: a matrix's row and column sums):
// phase one visits whole rows, and each row it folds into the column lanes it also
// reduces for the row part, while the row is in cache: the input is read once.
#include <algorithm>

#include "backends/cpu/kernel_emitter.h"
#include "backends/cpu/threads.h"

namespace kiln::cpu {
namespace {

// Below this many input elements one pass of emitColumnPart is quick enough.
constexpr int64_t kMinSplitElements = int64_t{1} << 18;
// The scratch of the lanes stays well below the input (it is 1/256 of a long input).
constexpr int64_t kMaxScratchBytes = int64_t{64} << 20;
// A piece's lane accumulators, at most: they stay in the core's L2 as its rows stream by.
constexpr int64_t kPieceLaneBytes = int64_t{512} << 10;
// A lane's rows folded in one pass over the columns: its accumulators are loaded and
// stored once per kRowsPerPass rows (the adds stay in order: ((acc + a) + b) ...).
constexpr int64_t kRowsPerPass = 4;

}  // namespace

std::optional<Kernel> KernelEmitter::emitSplitColumns(const std::vector<Part>& parts,
                                                      const std::vector<const Value*>& inputs,
                                                      const std::vector<const Value*>& outputs) {
  const Part* column = nullptr;
  for (const Part& p : parts)
    if (foldsLeadingDims(p, outputs)) {
      if (column) return std::nullopt;
      column = &p;
    }
  if (!column) return std::nullopt;
  const Shape& input = column->reduces[0]->operand(0)->type().shape();
  const int64_t columns = numElements(column->shape);
  const int64_t rows = numElements(input) / columns;
  if (rows < 2 * kReduceLanes || rows * columns < kMinSplitElements) return std::nullopt;
  // The other parts: row reductions of the same input over the kept dimensions.
  const size_t folded = column->reduces[0]->attr("dimensions").asInts().size();
  std::vector<const Part*> rowParts;
  for (const Part& p : parts) {
    if (&p == column) continue;
    if (p.reduces[0]->operand(0)->type().shape() != input) return std::nullopt;
    std::vector<int64_t> dims = p.reduces[0]->attr("dimensions").asInts();
    std::sort(dims.begin(), dims.end());
    if (dims.size() != input.size() - folded) return std::nullopt;
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] != static_cast<int64_t>(folded + i)) return std::nullopt;
    rowParts.push_back(&p);
  }
  std::vector<Fold> folds = foldsOf(column->reduces);
  const int64_t chunks = (rows + kReduceChunk - 1) / kReduceChunk;
  const int64_t lanes = chunks * kReduceLanes;  // the last chunk's may be partly empty
  // The scratch: each fold's accumulators, a row of `columns` per lane, one fold after
  // the other.
  int64_t laneRowBytes = 0;  // one lane's accumulators of every fold
  std::vector<int64_t> foldOffset;
  for (const Fold& f : folds) {
    if (!f.identity) return std::nullopt;
    foldOffset.push_back(lanes * laneRowBytes);
    laneRowBytes += columns * static_cast<int64_t>(s_.registerType(f.t)->getScalarSizeInBits() / 8);
  }
  const int64_t scratchBytes = lanes * laneRowBytes;
  if (scratchBytes > kMaxScratchBytes) return std::nullopt;
  // A piece takes the lanes l = g + k*m of its chunk (k pieces per chunk; m < 16/k). A
  // piece of a whole chunk streams consecutive rows, which the prefetchers like best; a
  // chunk is split when there are fewer chunks than threads or its lanes would not fit
  // in L2. (Which thread folds which lane changes no bits.)
  int64_t k = 1;
  while (k < kReduceLanes &&
         (chunks * k < threadCount() || (kReduceLanes / k) * laneRowBytes > kPieceLaneBytes))
    k *= 2;
  const int64_t pieceLanes = kReduceLanes / k;

  // Fold f's accumulators of lane `lane` (counted over all chunks): a row of `columns`.
  llvm::Value* scratch = nullptr;
  auto laneRow = [&](size_t fold, llvm::Value* lane) {
    llvm::Value* base =
        b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), scratch, static_cast<uint64_t>(foldOffset[fold]));
    return b_.CreateInBoundsGEP(s_.registerType(folds[fold].t), base,
                                b_.CreateMul(lane, b_.getInt64(columns), "", true, true));
  };
  auto ptrOf = [&](const std::vector<llvm::Value*>& outPtrs, const Op* r) {
    return resultPointer(*column, r, outputs, outPtrs);
  };
  auto all = [&](llvm::Value* n, auto&& body) { forRange(b_.getInt64(0), n, body); };

  // Phase one: piece u is chunk u / k, lanes from u mod k.
  std::vector<llvm::Value*> outPtrs = beginFunction(inputs, outputs);
  scratch = loadPointer(fn_->getArg(0), inputs.size() + outputs.size());
  forRange(fn_->getArg(1), fn_->getArg(2), [&](llvm::Value* u) {
    llvm::Value* chunk = b_.CreateUDiv(u, b_.getInt64(k));
    llvm::Value* g = b_.CreateURem(u, b_.getInt64(k));
    llvm::Value* start = b_.CreateMul(chunk, b_.getInt64(kReduceChunk), "", true, true);
    llvm::Value* left = b_.CreateSub(b_.getInt64(rows), start);
    llvm::Value* length = b_.CreateSelect(b_.CreateICmpSLT(left, b_.getInt64(kReduceChunk)), left,
                                          b_.getInt64(kReduceChunk));
    llvm::Value* firstLane = b_.CreateMul(chunk, b_.getInt64(kReduceLanes), "", true, true);
    // The piece's lanes that hold rows start at the identity.
    all(b_.getInt64(pieceLanes), [&](llvm::Value* m) {
      llvm::Value* l = b_.CreateAdd(g, b_.CreateMul(m, b_.getInt64(k), "", true, true), "", true, true);
      llvm::Value* width = b_.CreateSelect(b_.CreateICmpSLT(l, length), b_.getInt64(columns), b_.getInt64(0));
      for (size_t f = 0; f < folds.size(); ++f) {
        llvm::Value* row = laneRow(f, b_.CreateAdd(firstLane, l, "", true, true));
        all(width, [&](llvm::Value* j) { storeAt(folds[f].identity, row, j); });
      }
    });
    // Rows `rs` of one lane (in order): the row parts reduce each, then each column folds
    // them into the lane's accumulator, loaded and stored once for all of them.
    auto foldRows = [&](const std::vector<llvm::Value*>& rs, llvm::Value* lane) {
      for (llvm::Value* r : rs)
        for (const Part* p : rowParts)
          emitPart(*p, 0, r, b_.CreateAdd(r, b_.getInt64(1), "", true, true), outputs, outPtrs, false);
      std::vector<llvm::Value*> laneRows;
      for (size_t f = 0; f < folds.size(); ++f) laneRows.push_back(laneRow(f, lane));
      all(b_.getInt64(columns), [&](llvm::Value* j) {
        std::vector<llvm::Value*> accs;
        for (size_t f = 0; f < folds.size(); ++f)
          accs.push_back(loadAt(s_.registerType(folds[f].t), laneRows[f], j));
        for (llvm::Value* r : rs) {
          Index element = newIndex(input);
          element.linear = mulAdd(r, columns, j);
          for (size_t f = 0; f < folds.size(); ++f)
            accs[f] = applyBody(folds[f], accs[f], valueAt(folds[f].input(), element));
          for (size_t o : column->outputs)
            if (isSideOutput(outputs[o], *column->reduces[0]))
              store(valueAt(outputs[o], element), outputs[o]->type().dtype(), outPtrs[o], element.linear);
        }
        for (size_t f = 0; f < folds.size(); ++f) storeAt(accs[f], laneRows[f], j);
      });
    };
    // A full chunk: kRowsPerPass rows of each lane at a time (lane l's rows are
    // l + 16 i); the piece's passes cover consecutive rows.
    llvm::Value* isFull = b_.CreateICmpEQ(length, b_.getInt64(kReduceChunk));
    constexpr int64_t passes = kReduceChunk / kReduceLanes / kRowsPerPass;
    all(b_.CreateSelect(isFull, b_.getInt64(passes), b_.getInt64(0)), [&](llvm::Value* q) {
      all(b_.getInt64(pieceLanes), [&](llvm::Value* m) {
        llvm::Value* l = b_.CreateAdd(g, b_.CreateMul(m, b_.getInt64(k), "", true, true), "", true, true);
        std::vector<llvm::Value*> rs;
        for (int64_t d = 0; d < kRowsPerPass; ++d) {
          llvm::Value* i = b_.CreateAdd(b_.CreateMul(q, b_.getInt64(kRowsPerPass), "", true, true), b_.getInt64(d), "", true, true);
          rs.push_back(b_.CreateAdd(start, mulAdd(i, kReduceLanes, l), "", true, true));
        }
        foldRows(rs, b_.CreateAdd(firstLane, l, "", true, true));
      });
    });
    // The last, shorter chunk: its rows g, g + k, ... one at a time.
    llvm::Value* past = b_.CreateSub(length, g);
    llvm::Value* count = b_.CreateSelect(b_.CreateICmpSGT(past, b_.getInt64(0)),
                                         b_.CreateUDiv(b_.CreateAdd(past, b_.getInt64(k - 1)), b_.getInt64(k)),
                                         b_.getInt64(0));
    all(b_.CreateSelect(isFull, b_.getInt64(0), count), [&](llvm::Value* i) {
      llvm::Value* inChunk = b_.CreateAdd(g, b_.CreateMul(i, b_.getInt64(k), "", true, true), "", true, true);
      foldRows({b_.CreateAdd(start, inChunk, "", true, true)},
               b_.CreateAdd(firstLane, b_.CreateAnd(inChunk, b_.getInt64(kReduceLanes - 1)), "", true, true));
    });
  });
  b_.CreateRetVoid();

  // Phase two: columns [lo, hi) start from the init value and fold their chunks' values.
  outPtrs = beginFunction(inputs, outputs, name_ + "_combine");
  scratch = loadPointer(fn_->getArg(0), inputs.size() + outputs.size());
  llvm::Value* lo = fn_->getArg(1);
  llvm::Value* hi = fn_->getArg(2);
  for (const Fold& f : folds) {
    Index scalar = scalarIndex();
    llvm::Value* init = valueAt(f.init(), scalar);
    llvm::Value* out = ptrOf(outPtrs, f.reduce);
    forRange(lo, hi, [&](llvm::Value* j) { store(init, f.t, out, j); });
  }
  forChunks(rows, [&](llvm::Value* start, int64_t length) {
    llvm::Value* firstLane = b_.CreateUDiv(start, b_.getInt64(kReduceChunk / kReduceLanes));
    for (size_t f = 0; f < folds.size(); ++f) {
      std::vector<llvm::Value*> laneRows;
      for (int64_t l = 0; l < std::min(length, kReduceLanes); ++l)
        laneRows.push_back(laneRow(f, b_.CreateAdd(firstLane, b_.getInt64(l), "", true, true)));
      llvm::Value* out = ptrOf(outPtrs, folds[f].reduce);
      llvm::Type* rt = s_.registerType(folds[f].t);
      forRange(lo, hi, [&](llvm::Value* j) {
        std::vector<llvm::Value*> values;
        for (llvm::Value* row : laneRows) values.push_back(loadAt(rt, row, j));
        store(applyBody(folds[f], load(folds[f].t, out, j), laneTree(folds[f], values)), folds[f].t, out, j);
      });
    }
  });
  b_.CreateRetVoid();

  Kernel kernel{nullptr, chunks * k, 1, {}};
  kernel.combineIterations = columns;
  kernel.combineGrain = std::max<int64_t>(1, (int64_t{1} << 16) / (chunks * kReduceLanes * static_cast<int64_t>(folds.size())));
  kernel.scratchBytes = scratchBytes;
  return kernel;
}

}  // namespace kiln::cpu
