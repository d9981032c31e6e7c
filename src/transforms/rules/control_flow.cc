// Autodiff rules of while, if and case.
//
// Forward mode rebuilds the op with its bodies differentiated (by a nested jvp emitter,
// which also sees the values a body captures from outside), carrying or yielding
// tangents beside the primals. A loop carries a tangent for every floating-point carry
// once any tangent enters it, since the body may turn a zero tangent into a nonzero one.
//
// Reverse mode through such a loop (a while of the jvp program, carrying primals and
// tangents) splits it: the forward phase runs the primal part alone and stores the
// primal carries of every iteration in buffers with a leading iteration dimension; the
// backward phase runs a loop from the last iteration to the first that reads back the
// iteration's carries, recomputes the body's primal values from them and transposes
// the body's linear part (a nested transposer), carrying the cotangents of the tangent
// carries and summing those of the values the body captures. The buffers need a size
// when the program is built: the trip count of a counted loop (fori_loop, scan: a
// counter from a constant, stepped by 1, compared with a constant), else the user's
// bound (VjpOptions::loopBound), checked when the program runs.
#include <functional>
#include <optional>
#include <unordered_set>

#include "ir/ops/compiler.h"
#include "ir/ops/stablehlo.h"
#include "transforms/batch_emitter.h"
#include "transforms/jvp_emitter.h"
#include "transforms/op_rules.h"
#include "transforms/transposer.h"

namespace kiln::transforms {
namespace {

namespace O = ops;

std::vector<size_t> differentiable(const std::vector<Value*>& values) {
  std::vector<size_t> out;
  for (size_t i = 0; i < values.size(); ++i)
    if (isDifferentiable(values[i]->type())) out.push_back(i);
  return out;
}

std::vector<Value*> whileJvp(JvpArgs& a) {
  std::vector<size_t> d = differentiable(a.x);
  std::vector<Value*> carries = a.x;
  for (size_t i : d) carries.push_back(orZeros(a.b, a.t[i], a.x[i]));
  std::vector<Value*> results = a.b.while_(
      carries,
      [&](Builder& c, const std::vector<Value*>& args) {
        return emitBody(a.emitter, c, a.op.region(0), args, d, {});
      },
      [&](Builder& c, const std::vector<Value*>& args) {
        return emitBody(a.emitter, c, a.op.region(1), args, d, d);
      });
  return splitResults(a, results, d);
}

// if and case: every branch yields its primals and the tangents of the differentiable
// results.
std::vector<Value*> branchesJvp(JvpArgs& a) {
  std::vector<size_t> d;
  for (size_t i = 0; i < a.op.numResults(); ++i)
    if (isDifferentiable(a.op.result(i)->type())) d.push_back(i);
  std::vector<BodyFn> branches;
  for (size_t r = 0; r < a.op.numRegions(); ++r)
    branches.push_back([&, r](Builder& c, const std::vector<Value*>&) {
      return emitBody(a.emitter, c, a.op.region(r), {}, {}, d);
    });
  std::vector<Value*> results =
      a.op.is(O::If) ? a.b.if_(a.x[0], branches[0], branches[1]) : a.b.case_(a.x[0], branches);
  return splitResults(a, results, d);
}

// ---- reverse mode through counted loops ----

// The integer value of a scalar constant, if `v` is one.
std::optional<int64_t> constantInt(const Value* v) {
  const Op* def = v->definingOp();
  if (!def || !def->is(O::Constant)) return std::nullopt;
  const Literal& lit = def->attr("value").asDense();
  if (lit.type().rank() != 0 || !isInteger(lit.dtype())) return std::nullopt;
  return lit.intAt(0);
}

// The trip count of `loop` when it counts: some carry k starts at a constant, the body
// returns carry k + 1, and the condition is carry k < bound, the bound a constant or a
// carry that starts at one and the body passes through.
std::optional<int64_t> tripCount(const Op& loop) {
  const Region& cond = loop.region(0);
  const Region& body = loop.region(1);
  const Op* test = cond.terminator()->operand(0)->definingOp();
  if (!test || !test->is(O::Compare) ||
      comparisonDirectionOf(test->attr("comparison_direction")) != ComparisonDirection::LT)
    return std::nullopt;
  auto carryIndex = [](const Region& r, const Value* v) -> std::optional<size_t> {
    for (size_t i = 0; i < r.numArguments(); ++i)
      if (r.argument(i) == v) return i;
    return std::nullopt;
  };
  std::optional<size_t> k = carryIndex(cond, test->operand(0));
  if (!k) return std::nullopt;
  std::optional<int64_t> start = constantInt(loop.operand(*k));
  std::optional<int64_t> bound = constantInt(test->operand(1));
  if (std::optional<size_t> j = carryIndex(cond, test->operand(1));
      j && body.terminator()->operand(*j) == body.argument(*j))
    bound = constantInt(loop.operand(*j));
  const Op* step = body.terminator()->operand(*k)->definingOp();
  if (!start || !bound || !step || !step->is(O::Add)) return std::nullopt;
  bool counts = (step->operand(0) == body.argument(*k) && constantInt(step->operand(1)) == 1) ||
                (step->operand(1) == body.argument(*k) && constantInt(step->operand(0)) == 1);
  if (!counts) return std::nullopt;
  return std::max<int64_t>(0, *bound - *start);
}

std::vector<bool> partlyLinearResults(const Op& op, const std::vector<bool>& linearOperand,
                                      const std::function<bool(const Value*)>& outside);

// Which values `region` yields depend on tainted values: its arguments where
// `taintedArg`, and values outside it where `outside` says so. A loop or conditional in
// the region taints only the results that depend on what is tainted.
std::vector<bool> taintedYields(const Region& region, const std::vector<bool>& taintedArg,
                                const std::function<bool(const Value*)>& outside) {
  std::unordered_set<const Value*> tainted;
  for (size_t i = 0; i < taintedArg.size(); ++i)
    if (taintedArg[i]) tainted.insert(region.argument(i));
  auto isTainted = [&](const Value* v) { return tainted.count(v) > 0 || (!region.contains(v) && outside(v)); };
  for (const auto& op : region.ops()) {
    std::vector<bool> operands;
    bool any = false;
    for (Value* v : op->operands()) {
      operands.push_back(isTainted(v));
      any |= operands.back();
    }
    for (Value* v : capturedValues(*op)) any |= isTainted(v);
    std::vector<bool> results = op->is(O::While) || op->is(O::If) || op->is(O::Case) || op->is(O::Checkpoint)
                                    ? partlyLinearResults(*op, operands, isTainted)
                                    : std::vector<bool>(op->numResults(), any);
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i]) tainted.insert(op->result(i));
  }
  std::vector<bool> out;
  for (Value* v : region.terminator()->operands()) out.push_back(isTainted(v));
  return out;
}

// Which carries of a loop are tainted: those whose initial value is, and (to a fixpoint)
// those the body computes from tainted carries or from tainted values it captures. (Used
// for linear values in reverse mode and for batched ones in vmap.)
std::vector<bool> linearCarries(const Op& loop, const std::vector<bool>& linearOperand,
                                const std::function<bool(const Value*)>& outside) {
  std::vector<bool> linear = linearOperand;
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<bool> yields = taintedYields(loop.region(1), linear, outside);
    for (size_t i = 0; i < linear.size(); ++i)
      if (!linear[i] && yields[i]) linear[i] = changed = true;
  }
  return linear;
}

// Which results of an if or case are tainted: those some branch computes from tainted
// values it captures.
std::vector<bool> linearYields(const Op& op, const std::function<bool(const Value*)>& outside) {
  std::vector<bool> linear(op.numResults(), false);
  for (size_t r = 0; r < op.numRegions(); ++r) {
    std::vector<bool> yields = taintedYields(op.region(r), {}, outside);
    for (size_t i = 0; i < linear.size(); ++i) linear[i] = linear[i] || yields[i];
  }
  return linear;
}

std::vector<bool> partlyLinearResults(const Op& op, const std::vector<bool>& linearOperand,
                                      const std::function<bool(const Value*)>& outside) {
  if (op.is(O::While)) return linearCarries(op, linearOperand, outside);
  if (op.is(O::Checkpoint)) return taintedYields(op.region(0), linearOperand, outside);
  return linearYields(op, outside);
}

std::vector<Value*> regionArgs(const std::vector<Value*>& primalCarries, const std::vector<bool>& linear) {
  std::vector<Value*> args;
  for (size_t i = 0; i < linear.size(); ++i) args.push_back(linear[i] ? nullptr : primalCarries[i]);
  return args;
}

Shape withLeading(int64_t n, const Shape& s) {
  Shape out = s;
  out.insert(out.begin(), n);
  return out;
}

// The starts (step, 0, 0, ...) of one iteration's row in a stored buffer.
std::vector<Value*> rowStarts(Builder& c, Value* step, int64_t rank) {
  std::vector<Value*> starts = {step};
  for (int64_t d = 0; d < rank; ++d) starts.push_back(c.splat(step->type(), 0));
  return starts;
}

std::vector<bool> whileSplit(SplitArgs& a) {
  const Op& loop = a.op;
  const size_t n = loop.numOperands();
  std::vector<bool> linear =
      linearCarries(loop, a.linear, [&](const Value* v) { return a.transposer.isLinear(v); });
  std::optional<int64_t> trips = tripCount(loop);
  const int64_t bound = a.transposer.loopBound();
  if (!trips && bound <= 0)
    unsupportedRule(loop, "vjp", "a while loop whose trip count is not known when the program is built (the "
                                 "counted loops of fori_loop and scan are); give a bound on its iterations "
                                 "(--loop-bound)");
  const int64_t rows = trips ? *trips : bound;
  Builder& b = a.b;
  Type index = Type::scalar(DType::I64);
  std::vector<size_t> primal;
  for (size_t i = 0; i < n; ++i)
    if (!linear[i]) primal.push_back(i);
  if (rows == 0) {  // the loop never runs: its results are its operands
    for (size_t i : primal) a.transposer.mapPrimal(loop.result(i), a.transposer.primalOf(loop.operand(i)));
    a.transposer.setResiduals(&loop, {});
    return linear;
  }
  // Carries: the primal ones, a buffer per primal carry, the iteration number.
  std::vector<Value*> carries;
  for (size_t i : primal) carries.push_back(a.transposer.primalOf(loop.operand(i)));
  for (size_t i : primal)
    carries.push_back(zeros(b, Type::tensor(loop.operand(i)->type().dtype(),
                                            withLeading(rows, loop.operand(i)->type().shape()))));
  carries.push_back(b.splat(index, 0));
  const size_t np = primal.size();
  auto full = [&](const std::vector<Value*>& args) {
    std::vector<Value*> values(n, nullptr);
    for (size_t q = 0; q < np; ++q) values[primal[q]] = args[q];
    return values;
  };
  std::vector<Value*> out = b.while_(
      carries,
      [&](Builder& c, const std::vector<Value*>& args) {
        Transposer t(c, a.transposer.module(), &a.transposer);
        t.forward(loop.region(0), regionArgs(full(args), linear), linear);
        return std::vector<Value*>{t.primalOf(loop.region(0).terminator()->operand(0))};
      },
      [&](Builder& c, const std::vector<Value*>& args) {
        Transposer t(c, a.transposer.module(), &a.transposer);
        t.forward(loop.region(1), regionArgs(full(args), linear), linear);
        std::vector<Value*> next;
        for (size_t i : primal) next.push_back(t.primalOf(loop.region(1).terminator()->operand(i)));
        Value* step = args[2 * np];
        for (size_t q = 0; q < np; ++q) {
          Value* row = c.reshape(args[q], withLeading(1, args[q]->type().shape()));
          next.push_back(c.dynamicUpdateSlice(args[np + q], row, rowStarts(c, step, args[q]->type().rank())));
        }
        next.push_back(c.binary(O::Add, step, c.splat(index, 1)));
        return next;
      });
  for (size_t q = 0; q < np; ++q) a.transposer.mapPrimal(loop.result(primal[q]), out[q]);
  Value* iterations = out[2 * np];
  if (!trips) {
    // Past the bound the buffers' last row was overwritten: fail the run instead.
    Value* fits = b.compare(iterations, b.splat(index, static_cast<double>(bound)), ComparisonDirection::LE);
    std::string line = loop.pos.known() ? " (line " + std::to_string(loop.pos.line) + ")" : "";
    b.create(O::CustomCall, {fits},
             {{"call_target_name", Attribute::string("shape_assertion")},
              {"has_side_effect", Attribute::boolean(true)},
              {"error_message", Attribute::string("the reverse mode of a while loop" + line + " ran more than its bound of " +
                                                  std::to_string(bound) + " iterations (--loop-bound)")}},
             {}, {});
  }
  // The stored carries, then the number of iterations.
  std::vector<Value*> kept(out.begin() + static_cast<ptrdiff_t>(np), out.end());
  a.transposer.setResiduals(&loop, kept);
  return linear;
}

std::vector<Value*> whileTranspose(TransposeArgs& a) {
  const Op& loop = a.op;
  const size_t n = loop.numOperands();
  Transposer& outer = a.transposer;
  std::vector<bool> linear;
  for (size_t i = 0; i < n; ++i) linear.push_back(outer.isLinear(loop.result(i)));
  const std::vector<Value*>& kept = outer.residuals(&loop);
  Builder& b = a.b;
  Type index = Type::scalar(DType::I64);
  std::vector<size_t> primal, tangent;
  for (size_t i = 0; i < n; ++i) (linear[i] ? tangent : primal).push_back(i);
  if (kept.empty()) {  // cotangents pass straight through a loop that never runs
    std::vector<Value*> cts(n, nullptr);
    for (size_t i : tangent)
      if (a.linear[i]) cts[i] = a.ct[i];
    return cts;
  }
  std::vector<Value*> captured;
  for (Value* v : capturedValues(loop))
    if (outer.isLinear(v)) captured.push_back(v);
  // Carries: the step, the cotangents of the tangent carries, those of the captures.
  std::vector<Value*> stored(kept.begin(), kept.end() - 1);
  std::vector<Value*> carries = {b.binary(O::Subtract, kept.back(), b.splat(index, 1))};
  for (size_t i : tangent) carries.push_back(orZeros(b, a.ct[i], loop.result(i)));
  for (Value* v : captured) carries.push_back(zeros(b, v->type()));
  const size_t nt = tangent.size(), nc = captured.size();
  std::vector<Value*> out = b.while_(
      carries,
      [&](Builder& c, const std::vector<Value*>& args) {
        return std::vector<Value*>{c.compare(args[0], c.splat(index, 0), ComparisonDirection::GE)};
      },
      [&](Builder& c, const std::vector<Value*>& args) {
        Value* step = args[0];
        std::vector<Value*> values(n, nullptr);
        for (size_t q = 0; q < primal.size(); ++q) {
          const Type& t = loop.operand(primal[q])->type();
          Value* row = c.dynamicSlice(stored[q], rowStarts(c, step, t.rank()), withLeading(1, t.shape()));
          values[primal[q]] = c.reshape(row, t.shape());
        }
        Transposer t(c, outer.module(), &outer);
        const Region& body = loop.region(1);
        t.forward(body, values, linear);
        for (size_t k = 0; k < nt; ++k) t.addCotangent(body.terminator()->operand(tangent[k]), args[1 + k]);
        t.backward();
        std::vector<Value*> next = {c.binary(O::Subtract, step, c.splat(index, 1))};
        for (size_t k = 0; k < nt; ++k)
          next.push_back(orZeros(c, t.cotangentOf(body.argument(tangent[k])), args[1 + k]));
        for (size_t j = 0; j < nc; ++j) next.push_back(addTangents(c, args[1 + nt + j], t.cotangentOf(captured[j])));
        return next;
      });
  std::vector<Value*> cts(n, nullptr);
  for (size_t k = 0; k < nt; ++k)
    if (a.linear[tangent[k]]) cts[tangent[k]] = out[1 + k];
  for (size_t j = 0; j < nc; ++j) outer.addCotangent(captured[j], out[1 + nt + j]);
  return cts;
}

// ---- reverse mode through if and case ----

// The primal part: the same conditional yielding only its primal results.
std::vector<bool> branchesSplit(SplitArgs& a) {
  const Op& op = a.op;
  std::vector<bool> linear = linearYields(op, [&](const Value* v) { return a.transposer.isLinear(v); });
  std::vector<size_t> primal;
  for (size_t i = 0; i < linear.size(); ++i)
    if (!linear[i]) primal.push_back(i);
  std::vector<BodyFn> branches;
  for (size_t r = 0; r < op.numRegions(); ++r)
    branches.push_back([&, r](Builder& c, const std::vector<Value*>&) {
      Transposer t(c, a.transposer.module(), &a.transposer);
      t.forward(op.region(r), {}, {});
      std::vector<Value*> out;
      for (size_t i : primal) out.push_back(t.primalOf(op.region(r).terminator()->operand(i)));
      return out;
    });
  Value* selector = a.transposer.primalOf(op.operand(0));
  std::vector<Value*> out = op.is(O::If) ? a.b.if_(selector, branches[0], branches[1]) : a.b.case_(selector, branches);
  for (size_t q = 0; q < primal.size(); ++q) a.transposer.mapPrimal(op.result(primal[q]), out[q]);
  return linear;
}

// The same conditional again, each branch recomputing its primal values and
// transposing its linear part; it yields the cotangents of the linear values the
// branches capture.
std::vector<Value*> branchesTranspose(TransposeArgs& a) {
  const Op& op = a.op;
  Transposer& outer = a.transposer;
  std::vector<Value*> captured;
  for (Value* v : capturedValues(op))
    if (outer.isLinear(v)) captured.push_back(v);
  std::vector<Value*> none(op.numOperands(), nullptr);
  if (captured.empty()) return none;
  std::vector<BodyFn> branches;
  for (size_t r = 0; r < op.numRegions(); ++r)
    branches.push_back([&, r](Builder& c, const std::vector<Value*>&) {
      Transposer t(c, outer.module(), &outer);
      const Region& branch = op.region(r);
      t.forward(branch, {}, {});
      for (size_t i = 0; i < op.numResults(); ++i)
        if (a.ct[i] && t.isLinear(branch.terminator()->operand(i))) t.addCotangent(branch.terminator()->operand(i), a.ct[i]);
      t.backward();
      std::vector<Value*> out;
      for (Value* v : captured) out.push_back(orZeros(c, t.cotangentOf(v), v));
      return out;
    });
  std::vector<Value*> out = op.is(O::If) ? a.b.if_(a.x[0], branches[0], branches[1]) : a.b.case_(a.x[0], branches);
  for (size_t j = 0; j < captured.size(); ++j) outer.addCotangent(captured[j], out[j]);
  return none;
}

// ---- batching ----

// A loop whose condition stays shared runs as it is with its batched carries. One whose
// condition is batched runs while any slice's condition holds, and a slice whose
// condition fails keeps its carries (a select per carry), as JAX runs it.
std::vector<Value*> whileBatch(BatchArgs& a) {
  const Op& loop = a.op;
  const size_t n = loop.numOperands();
  auto outside = [&](const Value* v) { return a.emitter.isBatched(v); };
  std::vector<bool> batched = linearCarries(loop, a.batched, outside);
  const bool batchedCondition = taintedYields(loop.region(0), batched, outside)[0];
  if (batchedCondition) batched.assign(n, true);
  std::vector<Value*> carries;
  for (size_t i = 0; i < n; ++i) carries.push_back(batched[i] ? batchedValue(a.b, a.x[i], a.batched[i], a.size) : a.x[i]);
  const int64_t size = a.size;
  auto condition = [&](Builder& c, const std::vector<Value*>& args) {
    return batchBody(a.emitter, c, loop.region(0), args, batched, {batchedCondition})[0];
  };
  std::vector<Value*> out = a.b.while_(
      carries,
      [&](Builder& c, const std::vector<Value*>& args) {
        Value* p = condition(c, args);
        if (!batchedCondition) return std::vector<Value*>{p};
        Value* no = c.splat(Type::scalar(DType::I1), 0);
        return c.reduce({p}, {no}, {0}, [](Builder& r, const std::vector<Value*>& v) {
          return std::vector<Value*>{r.binary(O::Or, v[0], v[1])};
        });
      },
      [&](Builder& c, const std::vector<Value*>& args) {
        std::vector<Value*> next = batchBody(a.emitter, c, loop.region(1), args, batched, batched);
        if (!batchedCondition) return next;
        Value* active = condition(c, args);
        for (size_t i = 0; i < n; ++i) {
          Value* lanes = c.broadcastInDim(active, next[i]->type().shape(), {0});
          next[i] = c.select(lanes, next[i], args[i]);
        }
        return next;
      });
  for (size_t i = 0; i < n; ++i) out[i] = batchedValue(a.b, out[i], batched[i], size);
  return out;
}

// A conditional whose selector is shared stays one, each branch yielding batched
// values; a batched selector runs every branch and selects per slice.
std::vector<Value*> branchesBatch(BatchArgs& a) {
  const Op& op = a.op;
  const size_t n = op.numResults();
  std::vector<bool> all(n, true);
  std::vector<BodyFn> branches;
  for (size_t r = 0; r < op.numRegions(); ++r)
    branches.push_back([&, r](Builder& c, const std::vector<Value*>&) {
      return batchBody(a.emitter, c, op.region(r), {}, {}, all);
    });
  if (!a.batched[0]) return op.is(O::If) ? a.b.if_(a.x[0], branches[0], branches[1]) : a.b.case_(a.x[0], branches);
  std::vector<std::vector<Value*>> results;
  for (size_t r = 0; r < op.numRegions(); ++r) results.push_back(batchBody(a.emitter, a.b, op.region(r), {}, {}, all));
  std::vector<Value*> out = results.back();
  if (op.is(O::If)) {
    for (size_t i = 0; i < n; ++i)
      out[i] = a.b.select(a.b.broadcastInDim(a.x[0], out[i]->type().shape(), {0}), results[0][i], results[1][i]);
    return out;
  }
  // case: an index outside the branches runs the last one, as the spec says.
  for (size_t r = results.size() - 1; r-- > 0;) {
    Value* pick = a.b.compare(a.x[0], a.b.splat(a.x[0]->type(), static_cast<double>(r)), ComparisonDirection::EQ);
    for (size_t i = 0; i < n; ++i)
      out[i] = a.b.select(a.b.broadcastInDim(pick, out[i]->type().shape(), {0}), results[r][i], out[i]);
  }
  return out;
}

}  // namespace

void addControlFlowRules(OpTable<OpRules>& t) {
  t[O::While] = {&whileJvp, &whileTranspose, &whileSplit, &whileBatch, true};
  t[O::If] = {&branchesJvp, &branchesTranspose, &branchesSplit, &branchesBatch, true};
  t[O::Case] = {&branchesJvp, &branchesTranspose, &branchesSplit, &branchesBatch, true};
}

}  // namespace kiln::transforms
