// Reductions as LLVM IR (kernel_emitter.h): reduce parts in the order of
// ir/reduction_order.h (lanes of vector accumulators, chunks, the halving tree), column
// reductions with their loops exchanged, reduces of several inputs and bodies of several
// ops folded left to right, and reduce_window.
#include <algorithm>
#include <cstring>
#include <optional>

#include "backends/cpu/kernel_emitter.h"
#include "ir/attr_records.h"
#include "ir/op_registry.h"
#include "ir/ops/stablehlo.h"
#include "ir/reduction_order.h"

namespace kiln::cpu {

const Op* KernelEmitter::oneOpBody(const Region& body) {
  if (body.numArguments() != 2 || body.size() != 2) return nullptr;
  const Op& op = *body.front();
  bool args = op.numOperands() == 2 && op.operand(0)->isArgument() && op.operand(1)->isArgument() &&
              op.operand(0)->ownerRegion() == &body && op.operand(1)->ownerRegion() == &body &&
              op.operand(0) != op.operand(1);
  if (!args || !op.info().has(kElementwise) || body.terminator()->operand(0) != op.result()) return nullptr;
  return &op;
}

std::vector<KernelEmitter::Fold> KernelEmitter::foldsOf(const std::vector<const Op*>& reduces) {
  std::vector<Fold> folds;
  for (const Op* r : reduces) {
    const size_t n = r->numOperands() / 2;
    const Op* op = n == 1 ? oneOpBody(r->region(0)) : nullptr;
    const size_t group = folds.size();
    for (size_t j = 0; j < n; ++j) {
      DType t = r->operand(j)->type().dtype();
      if (r->region(0).argument(j)->type().dtype() != t)
        decline("unsupported: a reducer body on a promoted element type");
      // Integer and boolean folds give the same bits in every order (their ops are
      // associative and commutative): they fold left to right, which LLVM vectorizes
      // on its own.
      // Complex sums fold in lanes of the parts (the split-complex-sums pass makes them
      // sums of real numbers); other complex folds go left to right, as the
      // interpreter's do.
      if (isComplex(t) && op && reducerIdentity(op->code(), t))
        decline("unsupported: a complex " + std::string(op->name()) + " reduction (split-complex-sums did not run)");
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

llvm::Value* KernelEmitter::applyBody(const Fold& f, llvm::Value* acc, llvm::Value* x) {
  if (!f.op) return scalarRegion(f.reduce->region(0), {acc, x}).at(0);
  const Region& body = f.reduce->region(0);
  auto arg = [&](size_t i) { return f.op->operand(i) == body.argument(0) ? acc : x; };
  return s_.roundResult(*f.op, s_.elementwise(*f.op, f.t, {arg(0), arg(1)}), f.t);
}

std::vector<llvm::Value*> KernelEmitter::applyGroup(const std::vector<Fold>& folds, size_t group,
                                                    const std::vector<llvm::Value*>& accs,
                                                    const std::vector<llvm::Value*>& xs) {
  if (folds[group].members == 1) return {applyBody(folds[group], accs[0], xs[0])};
  std::vector<llvm::Value*> args = accs;
  args.insert(args.end(), xs.begin(), xs.end());
  return scalarRegion(folds[group].reduce->region(0), args);
}

llvm::Value* KernelEmitter::laneTree(const Fold& f, std::vector<llvm::Value*> lanes) {
  lanes.resize(static_cast<size_t>(kReduceLanes), nullptr);
  for (size_t w = lanes.size() / 2; w >= 1; w /= 2)
    for (size_t i = 0; i < w; ++i) {
      if (lanes[i] && lanes[i + w])
        lanes[i] = applyBody(f, lanes[i], lanes[i + w]);
      else if (!lanes[i])
        lanes[i] = lanes[i + w];
    }
  return lanes[0];
}

bool KernelEmitter::foldsLeadingDims(const Part& part, const std::vector<const Value*>& outputs) {
  if (part.reduces.empty() || numElements(part.shape) <= 1) return false;
  for (const Op* r : part.reduces)
    if (r->numOperands() != 2 || !oneOpBody(r->region(0))) return false;  // those fold row by row
  std::vector<int64_t> dims = part.reduces[0]->attr("dimensions").asInts();
  std::sort(dims.begin(), dims.end());
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != static_cast<int64_t>(i)) return false;
  for (size_t o : part.outputs) {
    const Op* op = outputs[o]->definingOp();
    if (!(op && op->is(ops::Reduce)) && !isSideOutput(outputs[o], *part.reduces[0]))
      return false;
  }
  return true;
}

void KernelEmitter::emitColumnPart(const Part& part, llvm::Value* lo, llvm::Value* hi,
                                   const std::vector<const Value*>& outputs,
                                   const std::vector<llvm::Value*>& outPtrs) {
  const Op& first = *part.reduces[0];
  const int64_t kept = numElements(part.shape);
  const int64_t rows = numElements(first.operand(0)->type().shape()) / kept;
  std::vector<Fold> folds = foldsOf(part.reduces);
  auto ptrOf = [&](const Op* r) { return resultPointer(part, r, outputs, outPtrs); };
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
  for (const Fold& f : folds)
    widest = std::max<int64_t>(widest, f.identity ? storageBytes(f.t) : 0);
  const int64_t kTile =
      widest == 0 ? kept
                  : std::min(kept, (int64_t{512} << 10) / (kReduceLanes * widest *
                                                           static_cast<int64_t>(folds.size())));
  for (Fold& f : folds)
    if (f.identity) f.lanes = entryAlloca(s_.registerType(f.t), kReduceLanes * kTile);
  llvm::Value* tiles =
      b_.CreateUDiv(b_.CreateAdd(b_.CreateSub(hi, lo), b_.getInt64(kTile - 1)), b_.getInt64(kTile));
  forRange(b_.getInt64(0), tiles, [&](llvm::Value* tile) {
    llvm::Value* ts = mulAdd(tile, kTile, lo);
    llvm::Value* te = b_.CreateAdd(ts, b_.getInt64(kTile));
    te = b_.CreateSelect(b_.CreateICmpSLT(te, hi), te, hi);
    llvm::Value* width = b_.CreateSub(te, ts);
    auto lane = [&](const Fold& f, llvm::Value* l) {
      return b_.CreateInBoundsGEP(s_.registerType(f.t), f.lanes,
                                  b_.CreateMul(l, b_.getInt64(kTile)));
    };
    auto overTile = [&](auto&& body) { forRange(b_.getInt64(0), width, body); };
    forChunks(rows, [&](llvm::Value* start, int64_t length) {
      const int64_t filled = std::min(length, kReduceLanes);
      for (const Fold& f : folds)
        if (f.identity)
          forRange(b_.getInt64(0), b_.getInt64(filled * kTile),
                   [&](llvm::Value* i) { storeAt(f.identity, f.lanes, i); });
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
            if (f.identity)
              storeAt(applyBody(f, loadAt(s_.registerType(f.t), lanePtrs[k], jj), x), lanePtrs[k],
                      jj);
            else
              store(applyBody(f, load(f.t, ptrOf(f.reduce), j), x), f.t, ptrOf(f.reduce), j);
          }
          for (size_t o : part.outputs)
            if (isSideOutput(outputs[o], first))
              store(valueAt(outputs[o], element), outputs[o]->type().dtype(), outPtrs[o],
                    element.linear);
        });
      });
      for (const Fold& f : folds) {
        if (!f.identity) continue;
        llvm::Type* rt = s_.registerType(f.t);
        overTile([&](llvm::Value* jj) {
          std::vector<llvm::Value*> values;
          for (int64_t l = 0; l < filled; ++l)
            values.push_back(loadAt(rt, lane(f, b_.getInt64(l)), jj));
          llvm::Value* j = b_.CreateAdd(ts, jj, "", true, true);
          store(applyBody(f, load(f.t, ptrOf(f.reduce), j), laneTree(f, values)), f.t,
                ptrOf(f.reduce), j);
        });
      }
    });
  });
}

llvm::Value* KernelEmitter::resultPointer(const Part& part, const Op* reduce, const std::vector<const Value*>& outputs,
                                          const std::vector<llvm::Value*>& outPtrs) {
  for (size_t o : part.outputs)
    if (outputs[o] == reduce->result()) return outPtrs[o];
  decline("internal: a reduce without its output");
}

const Op& KernelEmitter::bodyOp(const Region& body) {
  const Op* op = oneOpBody(body);
  if (!op) decline("unsupported: a body that is not one binary op of its arguments");
  return *op;
}

void KernelEmitter::reduceAt(const std::vector<const Op*>& reduces,
                             const std::vector<const Value*>& outputs,
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
  auto setGroup = [&](std::vector<llvm::Value*>& v, size_t g,
                      const std::vector<llvm::Value*>& values) {
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
        store(valueAt(outputs[o], element), outputs[o]->type().dtype(), outPtrs[o],
              linearOf(element));
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
          for (size_t i = 0; i < folds[j].members; ++i)
            x.push_back(xs[j + i][static_cast<size_t>(k)]);
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
            llvm::Value* x =
                b_.CreateAlignedLoad(vt, from, llvm::MaybeAlign(rt->getScalarSizeInBits() / 8));
            llvm::Value* v =
                b_.CreateAlignedLoad(vt, f.lanes, llvm::MaybeAlign(rt->getScalarSizeInBits() / 8));
            b_.CreateAlignedStore(applyBody(f, v, x), f.lanes,
                                  llvm::MaybeAlign(rt->getScalarSizeInBits() / 8));
          });
        }
        for (int64_t l = 0; l < length % kReduceLanes; ++l)
          foldInto(b_.getInt64(l), b_.getInt64(blocks * kReduceLanes + l));
        std::vector<llvm::Value*> values;
        for (int64_t l = 0; l < filled; ++l) values.push_back(loadAt(rt, f.lanes, b_.getInt64(l)));
        b_.CreateStore(applyBody(f, b_.CreateLoad(rt, f.acc), laneTree(f, values)), f.acc);
      }
    });
    for (size_t j = 0; j < folds.size(); ++j)
      acc[j] = b_.CreateLoad(s_.registerType(folds[j].t), folds[j].acc);
  }
  // The folded values stand for the reduces at this output element, for the epilogue.
  for (size_t j = 0; j < folds.size(); ++j)
    memo_[{folds[j].reduce->result(folds[j].member), at.id}] = acc[j];
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (isSideOutput(outputs[o], first)) continue;
    store(valueAt(outputs[o], at), outputs[o]->type().dtype(), outPtrs[o], linearOf(at));
  }
}

bool KernelEmitter::isSideOutput(const Value* v, const Op& reduce) {
  const Op* op = v->definingOp();
  return !(op && op->is(ops::Reduce)) && v->type().shape() == reduce.operand(0)->type().shape();
}

int64_t KernelEmitter::reduceWindowRowWidth() const {
  const Op& op = root_;
  const Shape& input = op.operand(0)->type().shape();
  const Shape& out = op.result()->type().shape();
  if (input.empty() || numElements(input) == 0 || numElements(out) == 0 || input.back() != out.back() ||
      out.back() < 2 || op.numOperands() != 2)
    return 1;
  const Window w = Window::ofReduceWindow(op, static_cast<int64_t>(input.size()));
  const size_t last = input.size() - 1;
  const bool alongRow = w.dimensions[last] == 1 && w.strides[last] == 1 && w.baseDilations[last] == 1 &&
                        w.padding[last].first == 0 && w.padding[last].second == 0;
  return alongRow && numElements(w.dimensions) <= kUnrolledWindowPositions ? out.back() : 1;
}

void KernelEmitter::emitReduceWindow(llvm::Value* lo, llvm::Value* hi, llvm::Value* result) {
  const Op& op = root_;
  if (op.numOperands() != 2) decline("unsupported: stablehlo.reduce_window of several inputs");
  const Shape& input = op.operand(0)->type().shape();
  const Shape& out = op.result()->type().shape();
  const DType t = op.result()->type().dtype();
  if (op.operand(0)->type().dtype() != t || op.region(0).argument(0)->type().dtype() != t)
    decline("unsupported: stablehlo.reduce_window with promoted element types");
  Fold f{&op, oneOpBody(op.region(0)), t, nullptr};  // other bodies as scalar code
  const Window w = Window::ofReduceWindow(op, static_cast<int64_t>(input.size()));
  const int64_t positions = numElements(w.dimensions);
  const int64_t row = reduceWindowRowWidth();
  forRange(lo, hi, [&](llvm::Value* o) {
    Index at = newIndex(out);
    at.linear = row == 1 ? o : b_.CreateMul(o, b_.getInt64(row));
    Index scalar = scalarIndex();
    llvm::Value* init = valueAt(op.operand(1), scalar);
    if (row > 1) {
      // Each window position's input element for the row's first result: whether it
      // lies inside the input, and where (the rest of the row follows it).
      std::vector<std::pair<llvm::Value*, llvm::Value*>> taps;
      for (int64_t k = 0; k < positions; ++k) {
        Index wi = newIndex(w.dimensions);
        wi.linear = b_.getInt64(k);
        llvm::Value* inside = nullptr;
        Index element = windowElement(w, input, at, wi, inside);
        taps.emplace_back(inside, linearOf(element));
      }
      llvm::Value* in = buffer_.at(op.operand(0));
      forRange(b_.getInt64(0), b_.getInt64(row), [&](llvm::Value* c) {
        llvm::Value* acc = init;
        for (const auto& [inside, first] : taps)
          acc = applyBody(f, acc, b_.CreateSelect(inside, load(t, in, b_.CreateAdd(first, c)), init));
        store(acc, t, result, b_.CreateAdd(at.linear, c));
      });
      return;
    }
    llvm::Value* acc = entryAlloca(s_.registerType(t), 1);
    b_.CreateStore(init, acc);
    auto fold = [&](llvm::Value* k) {
      Index wi = newIndex(w.dimensions);
      wi.linear = k;
      llvm::Value* inside = nullptr;
      Index element = windowElement(w, input, at, wi, inside);
      llvm::Value* x = numElements(input) > 0 ? b_.CreateSelect(inside, valueAt(op.operand(0), element), init) : init;
      b_.CreateStore(applyBody(f, b_.CreateLoad(s_.registerType(t), acc), x), acc);
    };
    forWindow(positions, fold);
    store(b_.CreateLoad(s_.registerType(t), acc), t, result, o);
  });
}

}  // namespace kiln::cpu
